/* Collectives called in a different order by different ranks, the classic
 * MPI bug: rank 0 broadcasts, then waits at a barrier; the others wait at
 * the barrier first, then take the broadcast. With a small message Open
 * MPI lets it through (the broadcast is sent eagerly), so the program ends
 * and prints its value; with a large one it hangs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    value = 42;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  printf("rank %d value %d\n", rank, value);
  MPI_Finalize();
  return 0;
}

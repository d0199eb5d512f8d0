/* A wildcard race: rank 0 takes one number from each other rank with
 * MPI_ANY_SOURCE and subtracts them in the order they came, as if rank 1's
 * always came first. Which one comes first is timing: the result changes
 * from run to run. Every send and receive is printed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    int result = 0;
    for (int n = 1; n < size; ++n) {
      int value;
      MPI_Status status;
      MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &status);
      printf("rank 0 got %d from %d tag %d\n", value, status.MPI_SOURCE, status.MPI_TAG);
      result = n == 1 ? value : result - value;
    }
    printf("result %d\n", result);
  } else {
    int value = 100 * rank;
    printf("rank %d sends %d to 0 tag 1\n", rank, value);
    MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}

/* A token passed round a ring of ranks, then an Allreduce of the ranks:
 * every rank prints what it sends and what it got, for the test to check
 * the recording against. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int laps = argc > 1 ? atoi(argv[1]) : 2;
  /* RING_EXTRA: added to what rank 1 sends from its second lap on, not to
   * what it prints: a change a re-run plants (radar debug --env) to be
   * caught at that send. */
  const char* extra = getenv("RING_EXTRA");
  int token = 0;
  for (int lap = 0; lap < laps; ++lap) {
    if (rank == 0) {
      token = 100 * lap + 1;
      printf("rank %d sends %d to %d tag %d\n", rank, token, next, lap);
      MPI_Send(&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d got %d from %d tag %d\n", rank, token, prev, lap);
    } else {
      MPI_Recv(&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("rank %d got %d from %d tag %d\n", rank, token, prev, lap);
      token += 1;
      printf("rank %d sends %d to %d tag %d\n", rank, token, next, lap);
      const int sent = token + (extra && rank == 1 && lap > 0 ? atoi(extra) : 0);
      MPI_Send(&sent, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
    }
  }
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d sum %d\n", rank, sum);
  MPI_Finalize();
  return 0;
}

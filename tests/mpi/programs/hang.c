/* A hang: rank 0 tells rank 1 it goes on and waits in a barrier; rank 1
 * waits for a result rank 0 sends only after the barrier, so neither goes
 * on. Rank 1 gives up after a while and aborts the job, as a watchdog
 * would: rank 0 is killed while it waits in the barrier. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    int step = 1, result = 42;
    printf("rank 0 sends %d to 1 tag 1\n", step);
    fflush(stdout);
    MPI_Send(&step, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&result, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int step;
    MPI_Recv(&step, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1 got %d from 0 tag 1\n", step);
    fflush(stdout);
    for (int waited = 0; waited < 100; ++waited) { /* a second for the result */
      int there = 0;
      MPI_Iprobe(0, 2, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
      if (there) break;
      usleep(10000);
    }
    printf("rank 1 gives up\n");
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return 0;
}

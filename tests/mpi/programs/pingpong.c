/* MPI ping-pong: rank 0 sends a message of SIZE bytes to rank 1, which
 * sends it back, ROUNDS times (the benchmark of recording MPI's calls). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long rounds = argc > 1 ? atol(argv[1]) : 100000;
  const int size = argc > 2 ? atoi(argv[2]) : 64;
  char* buf = calloc(1, (size_t)size);
  const double start = MPI_Wtime();
  for (long i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("%ld round trips of %d bytes: %.3f s\n", rounds, size, MPI_Wtime() - start);
  free(buf);
  MPI_Finalize();
  return 0;
}

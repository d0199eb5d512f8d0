/* An MPI_Allreduce loop: every rank adds one double, ROUNDS times (the
 * benchmark of recording MPI's collectives). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long rounds = argc > 1 ? atol(argv[1]) : 10000;
  double mine = rank, sum = 0;
  const double start = MPI_Wtime();
  for (long i = 0; i < rounds; ++i) MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%ld all-reduces of %d ranks (sum %g): %.3f s\n", rounds, size, sum, MPI_Wtime() - start);
  MPI_Finalize();
  return 0;
}

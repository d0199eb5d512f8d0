/* A halo exchange on a ring of ranks with nonblocking calls (Irecv from
 * both sides, Isend to both, Waitall), then the collectives people use:
 * Bcast, a Comm_split into even and odd ranks with an Allreduce in each,
 * Gather, Reduce, Barrier. Every point-to-point send and receive is
 * printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const int steps = argc > 1 ? atoi(argv[1]) : 3;
  double cell = rank;
  for (int step = 0; step < steps; ++step) {
    double from_left, from_right, mine[2] = {cell + 0.25, cell + 0.5};
    MPI_Request requests[4];
    MPI_Irecv(&from_left, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&from_right, 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &requests[1]);
    printf("rank %d sends %g to %d tag 2\n", rank, mine[0], left);
    MPI_Isend(&mine[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &requests[2]);
    printf("rank %d sends %g to %d tag 1\n", rank, mine[1], right);
    MPI_Isend(&mine[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    printf("rank %d got %g from %d tag 1\n", rank, from_left, left);
    printf("rank %d got %g from %d tag 2\n", rank, from_right, right);
    cell = (from_left + cell + from_right) / 3;
  }
  int scale = rank == 0 ? 7 : 0;
  MPI_Bcast(&scale, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
  int all[64];
  MPI_Gather(&sum, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  MPI_Reduce(&rank, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d scale %d half-sum %d total %d\n", rank, scale, sum, total);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

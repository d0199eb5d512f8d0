/* Master and workers: rank 0 hands out numbers, each worker sends back
 * its square, and the master takes the answers in whatever order they
 * come (MPI_ANY_SOURCE, MPI_ANY_TAG) and hands that worker the next one;
 * a tag 0 message stops a worker. Every send and receive is printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kStop = 0, kWork = 1, kAnswer = 2 };

static void master(int workers, int tasks) {
  int next = 1, done = 0;
  for (int w = 1; w <= workers; ++w) {
    int task = next <= tasks ? next++ : 0;
    int tag = task ? kWork : kStop;
    printf("rank 0 sends %d to %d tag %d\n", task, w, tag);
    MPI_Send(&task, 1, MPI_INT, w, tag, MPI_COMM_WORLD);
  }
  while (done < tasks) {
    int answer;
    MPI_Status status;
    MPI_Recv(&answer, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    printf("rank 0 got %d from %d tag %d\n", answer, status.MPI_SOURCE, status.MPI_TAG);
    ++done;
    int task = next <= tasks ? next++ : 0;
    int tag = task ? kWork : kStop;
    printf("rank 0 sends %d to %d tag %d\n", task, status.MPI_SOURCE, tag);
    MPI_Send(&task, 1, MPI_INT, status.MPI_SOURCE, tag, MPI_COMM_WORLD);
  }
}

static void worker(int rank) {
  for (;;) {
    int task;
    MPI_Status status;
    MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    printf("rank %d got %d from 0 tag %d\n", rank, task, status.MPI_TAG);
    if (status.MPI_TAG == kStop) return;
    int answer = task * task;
    printf("rank %d sends %d to 0 tag %d\n", rank, answer, kAnswer);
    MPI_Send(&answer, 1, MPI_INT, 0, kAnswer, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    master(size - 1, argc > 1 ? atoi(argv[1]) : 10);
  else
    worker(rank);
  MPI_Finalize();
  return 0;
}

/* Polling: rank 1 posts a receive and polls it with MPI_Test, then polls
 * for a second message with MPI_Iprobe, while rank 0 takes its time to
 * send them. Between the polls that find nothing, the MPI library does
 * its own work (progress, its event loop): the library's, not the
 * program's. Every send and receive is printed. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int value = 0;
  if (rank == 0) {
    for (int tag = 1; tag <= 2; ++tag) {
      usleep(200000);
      value = 10 * tag;
      printf("rank %d sends %d to 1 tag %d\n", rank, value, tag);
      MPI_Send(&value, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    }
  } else if (rank == 1) {
    MPI_Request request;
    MPI_Status status;
    int found = 0;
    MPI_Irecv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &request);
    while (!found) MPI_Test(&request, &found, &status);
    printf("rank %d got %d from %d tag %d\n", rank, value, status.MPI_SOURCE, status.MPI_TAG);
    for (found = 0; !found;) MPI_Iprobe(0, 2, MPI_COMM_WORLD, &found, &status);
    MPI_Recv(&value, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &status);
    printf("rank %d got %d from %d tag %d\n", rank, value, status.MPI_SOURCE, status.MPI_TAG);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

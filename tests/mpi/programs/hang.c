/* A hang: rank 0 tells rank 1 it goes on and waits in a barrier; rank 1
 * waits for a result rank 0 sends only after the barrier, so neither goes
 * on. Rank 1 gives up after a while and aborts the job, as a watchdog
 * would: rank 0 is killed while it waits in the barrier.
 * "A while" is a second, and until rank 0 has spent a fifth of a second
 * of processor time spinning in the barrier: on a busy machine, rank 0 is
 * in it when it is killed, however late it was given the processor. */
#include <mpi.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/* Processor time `pid` has used, in clock ticks; -1 when unknown. */
static long cpuTicks(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  long user = -1, system = -1;
  /* pid (comm) state, then ten numbers before utime and stime */
  if (fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &user, &system) != 2) user = -1;
  fclose(f);
  return user < 0 ? -1 : user + system;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    int step[2] = {1, (int)getpid()}, result = 42;
    printf("rank 0 sends %d to 1 tag 1\n", step[0]);
    fflush(stdout);
    MPI_Send(step, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&result, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int step[2];
    MPI_Recv(step, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1 got %d from 0 tag 1\n", step[0]);
    fflush(stdout);
    const long ticks_per_second = sysconf(_SC_CLK_TCK), spun_from = cpuTicks(step[1]);
    for (int waited = 0; waited < 6000; ++waited) { /* a minute at most */
      int there = 0;
      MPI_Iprobe(0, 2, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
      if (there) break;
      const long spun = cpuTicks(step[1]) - spun_from;
      if (waited >= 100 && (spun_from < 0 || spun * 5 >= ticks_per_second)) break;
      usleep(10000);
    }
    printf("rank 1 gives up\n");
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return 0;
}

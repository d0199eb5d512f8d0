/* Derived datatypes, as people use them: rank 0 sends a column of its
 * matrix (MPI_Type_vector) that rank 1 takes as plain ints, and a pair
 * (MPI_Type_contiguous); rank 1 broadcasts a column of its own back into
 * every rank's matrix. Errors are returned, not fatal. Every send and
 * receive is printed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { N = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype column, pair;
  MPI_Type_vector(N, 1, N, MPI_INT, &column);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&column);
  MPI_Type_commit(&pair);
  int matrix[N][N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) matrix[i][j] = 100 * rank + 10 * i + j;
  if (rank == 0) {
    printf("rank %d sends %d to 1 tag 1\n", rank, matrix[0][2]);
    MPI_Send(&matrix[0][2], 1, column, 1, 1, MPI_COMM_WORLD);
    int two[2] = {7, 8};
    printf("rank %d sends %d to 1 tag 2\n", rank, two[0]);
    MPI_Send(two, 1, pair, 1, 2, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int got[N], two[2];
    MPI_Recv(got, N, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got %d from 0 tag 1\n", rank, got[0]);
    printf("rank %d column %d %d %d %d\n", rank, got[0], got[1], got[2], got[3]);
    MPI_Recv(two, 1, pair, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got %d from 0 tag 2\n", rank, two[0]);
  }
  MPI_Bcast(&matrix[0][1], 1, column, 1, MPI_COMM_WORLD);
  printf("rank %d broadcast column %d %d %d %d\n", rank, matrix[0][1], matrix[1][1], matrix[2][1], matrix[3][1]);
  /* A large block as one type (70 000 characters side by side). */
  static char big[70000];
  MPI_Datatype block;
  MPI_Type_contiguous(sizeof big, MPI_CHAR, &block);
  MPI_Type_commit(&block);
  if (rank == 0) memset(big, 'x', sizeof big);
  MPI_Bcast(big, 1, block, 0, MPI_COMM_WORLD);
  printf("rank %d broadcast block %c%c\n", rank, big[0], big[sizeof big - 1]);
  MPI_Type_free(&block);
  MPI_Type_free(&column);
  MPI_Type_free(&pair);
  MPI_Finalize();
  return 0;
}

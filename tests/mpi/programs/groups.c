/* Communicators made from groups: MPI_COMM_WORLD's group split into its
 * even ranks (MPI_Group_incl) and its odd ones (MPI_Group_excl), a
 * communicator made of each (MPI_Comm_create, collective over
 * MPI_COMM_WORLD: each rank is a member of one), a token passed round each
 * and two Allreduces in each (a sum, then a reduction of the program's
 * own). Every rank prints what the group calls told it and what it passes
 * and gets, naming ranks of MPI_COMM_WORLD (MPI_Group_translate_ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A reduction of the program's own: the highest of the ranks. */
static void highest(void* in, void* inout, int* count, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *count; ++i)
    if (((int*)in)[i] > ((int*)inout)[i]) ((int*)inout)[i] = ((int*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  /* GROUPS_REVERSED: the even ranks listed last first, a change a re-run
   * plants (radar debug --env) to be caught at MPI_Comm_create. */
  const int reversed = getenv("GROUPS_REVERSED") != NULL;
  const int evens_count = (size + 1) / 2;
  int evens_ranks[64];
  for (int i = 0; i < evens_count; ++i) evens_ranks[i] = 2 * (reversed ? evens_count - 1 - i : i);
  MPI_Group world, evens, odds, all, shared;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, evens_count, evens_ranks, &evens);
  MPI_Group_excl(world, evens_count, evens_ranks, &odds);
  MPI_Group_union(evens, odds, &all);
  MPI_Group_intersection(evens, odds, &shared);
  int compared, shared_size;
  MPI_Group_compare(all, world, &compared);
  MPI_Group_size(shared, &shared_size);
  printf("rank %d: evens and odds together are %s the world's group, and share %d ranks\n", rank,
         compared == MPI_IDENT     ? "identical to"
         : compared == MPI_SIMILAR ? "similar to"
                                   : "unequal to",
         shared_size);

  MPI_Comm even_comm, odd_comm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
  MPI_Comm_create(MPI_COMM_WORLD, odds, &odd_comm);
  const int odd = rank % 2;
  MPI_Group group = odd ? odds : evens;
  MPI_Comm mine = odd ? odd_comm : even_comm;
  int group_rank, my_rank, my_size;
  MPI_Group_rank(group, &group_rank);
  MPI_Comm_rank(mine, &my_rank);
  MPI_Comm_size(mine, &my_size);
  printf("rank %d is %d of %d among the %s (its group rank %d)\n", rank, my_rank, my_size, odd ? "odds" : "evens",
         group_rank);

  const int ring[2] = {(my_rank + 1) % my_size, (my_rank + my_size - 1) % my_size};
  int in_world[2];
  MPI_Group_translate_ranks(group, 2, ring, world, in_world);
  int token = 1000 + rank;
  if (my_size > 1) {
    if (my_rank == 0) {
      printf("rank %d passes %d to rank %d\n", rank, token, in_world[0]);
      MPI_Send(&token, 1, MPI_INT, ring[0], 7, mine);
      MPI_Recv(&token, 1, MPI_INT, ring[1], 7, mine, MPI_STATUS_IGNORE);
      printf("rank %d got %d back from rank %d\n", rank, token, in_world[1]);
    } else {
      MPI_Recv(&token, 1, MPI_INT, ring[1], 7, mine, MPI_STATUS_IGNORE);
      printf("rank %d got %d from rank %d\n", rank, token, in_world[1]);
      token += 1;
      printf("rank %d passes %d to rank %d\n", rank, token, in_world[0]);
      MPI_Send(&token, 1, MPI_INT, ring[0], 7, mine);
    }
  }
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, mine);
  printf("rank %d: the %s' ranks sum to %d\n", rank, odd ? "odds" : "evens", sum);
  MPI_Op op;
  MPI_Op_create(highest, 1, &op);
  int top = -1;
  MPI_Allreduce(&rank, &top, 1, MPI_INT, op, mine);
  printf("rank %d: the %s' highest rank is %d\n", rank, odd ? "odds" : "evens", top);
  MPI_Op_free(&op);

  MPI_Comm_free(&mine);
  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&all);
  if (shared != MPI_GROUP_EMPTY) MPI_Group_free(&shared);
  MPI_Group_free(&world);
  MPI_Finalize();
  return 0;
}

/* Two processes that pass a turn back and forth through two semaphores in
 * shared memory, three times, then each waits for a turn the other never
 * gives: a deadlock through semaphores, every time. An alarm ends each a
 * moment later, still waiting.
 *   sem_deadlock */
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  sem_t* turns = mmap(NULL, 2 * sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (turns == MAP_FAILED) return 2;
  sem_t *parents = &turns[0], *childs = &turns[1];
  sem_init(parents, 1, 0);
  sem_init(childs, 1, 0);
  const pid_t child = fork();
  if (child < 0) return 2;
  sem_t *mine = child ? parents : childs, *theirs = child ? childs : parents;
  alarm(1);
  if (child) sem_post(theirs);  // the parent gives the first turn
  for (int round = 0; round < 3; ++round) {
    sem_wait(mine);
    if (round < 2 || !child) sem_post(theirs);
  }
  sem_wait(mine);  // the last turn never comes: each waits for the other
  if (child) waitpid(child, NULL, 0);
  return 0;
}

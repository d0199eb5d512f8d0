/* static_net -- the static network of the RADAR report's Figure 4.
 *
 *     proc1 --\                  /--> proc1.input
 *              >--> proc3 --+---<
 *     proc2 --/                  \--> proc2.input
 *
 * proc1 and proc2 send integers to proc3 over ONE pipe whose write end both
 * hold (many-to-one). proc3 answers each request on its output port, which
 * is connected to both proc1.input and proc2.input (one-to-many): every reply
 * is replicated, and each sender keeps the replies addressed to it.
 *
 * This launcher creates the pipes, starts the three workers by exec'ing
 * static_net_proc with argv[0] "proc1", "proc2" and "proc3", and waits for
 * them. proc3 prints a deterministic summary.
 *
 *     static_net
 */
#include "launch.h"

int main(void) {
  int to_proc3[2], to_proc1[2], to_proc2[2];
  launch_pipe(to_proc3);
  launch_pipe(to_proc1);
  launch_pipe(to_proc2);

  const struct launch_port proc1_ports[] = {{"INPUT", 1, {to_proc1[0]}}, {"OUTPUT", 1, {to_proc3[1]}}, {NULL, 0, {0}}};
  const struct launch_port proc2_ports[] = {{"INPUT", 1, {to_proc2[0]}}, {"OUTPUT", 1, {to_proc3[1]}}, {NULL, 0, {0}}};
  const struct launch_port proc3_ports[] = {
      {"INPUT", 1, {to_proc3[0]}}, {"OUTPUT", 2, {to_proc1[1], to_proc2[1]}}, {NULL, 0, {0}}};
  const char* proc1_argv[] = {"proc1", NULL};
  const char* proc2_argv[] = {"proc2", NULL};
  const char* proc3_argv[] = {"proc3", NULL};

  const char* names[] = {"proc1", "proc2", "proc3"};
  pid_t pids[3];
  pids[0] = launch_worker("static_net_proc", proc1_argv, proc1_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  pids[1] = launch_worker("static_net_proc", proc2_argv, proc2_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  pids[2] = launch_worker("static_net_proc", proc3_argv, proc3_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  launch_close_all();
  return launch_wait("static_net", pids, names, 3);
}

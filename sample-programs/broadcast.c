/* broadcast -- the RADAR report's Appendix C: one sender, two receivers.
 *
 *                 /--> receiver1
 *     sender --+-<
 *                 \--> receiver2
 *
 * The launcher starts broadcast_proc as "sender", "receiver1" and
 * "receiver2". The sender reads integers from stdin (the launcher's stdin),
 * one per line, until 999, and sends each as a 32-bit integer on its output
 * port, which is connected to both receivers: every message is replicated.
 * Each receiver prints what it receives ("receiver1: 5") and stops at 999.
 *
 *     printf '5\n7\n999\n' | broadcast
 */
#include "launch.h"

int main(void) {
  int to_receiver1[2], to_receiver2[2];
  launch_pipe(to_receiver1);
  launch_pipe(to_receiver2);

  const struct launch_port sender_ports[] = {{"OUTPUT", 2, {to_receiver1[1], to_receiver2[1]}}, {NULL, 0, {0}}};
  const struct launch_port receiver1_ports[] = {{"INPUT", 1, {to_receiver1[0]}}, {NULL, 0, {0}}};
  const struct launch_port receiver2_ports[] = {{"INPUT", 1, {to_receiver2[0]}}, {NULL, 0, {0}}};
  const char* sender_argv[] = {"sender", NULL};
  const char* receiver1_argv[] = {"receiver1", NULL};
  const char* receiver2_argv[] = {"receiver2", NULL};

  const char* names[] = {"sender", "receiver1", "receiver2"};
  pid_t pids[3];
  pids[0] = launch_worker("broadcast_proc", sender_argv, sender_ports, LAUNCH_INHERIT, LAUNCH_INHERIT);
  pids[1] = launch_worker("broadcast_proc", receiver1_argv, receiver1_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  pids[2] = launch_worker("broadcast_proc", receiver2_argv, receiver2_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  launch_close_all();
  return launch_wait("broadcast", pids, names, 3);
}

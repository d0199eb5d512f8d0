/* calc -- the RADAR report's Appendix J: a calculator made of three processes.
 *
 *     stdin --> scanner --TokenClasses--> parser --Syntax--> interpreter --> stdout
 *                  \-------------------TokenValues-------------^
 *
 * The launcher starts calc_proc as "scanner", "parser" and "interpreter",
 * connected by three pipes. The scanner reads one arithmetic expression per
 * line of stdin: numbers, identifiers (x = 7, y = 3, z = 10), + - * / and
 * parentheses. The interpreter prints "= <result>" for each. It stops at end
 * of input. The messages are in calc_messages.h -- and so is the
 * description of the bug planted in the interpreter.
 *
 *     echo '(2 + 3) * x - 4 / 2' | calc          prints = 33
 */
#include "launch.h"

int main(void) {
  int classes[2], values[2], syntax[2];
  launch_pipe(classes);
  launch_pipe(values);
  launch_pipe(syntax);

  const struct launch_port scanner_ports[] = {{"CLASSES", 1, {classes[1]}}, {"VALUES", 1, {values[1]}}, {NULL, 0, {0}}};
  const struct launch_port parser_ports[] = {{"CLASSES", 1, {classes[0]}}, {"SYNTAX", 1, {syntax[1]}}, {NULL, 0, {0}}};
  const struct launch_port interpreter_ports[] = {
      {"VALUES", 1, {values[0]}}, {"SYNTAX", 1, {syntax[0]}}, {NULL, 0, {0}}};
  const char* scanner_argv[] = {"scanner", NULL};
  const char* parser_argv[] = {"parser", NULL};
  const char* interpreter_argv[] = {"interpreter", NULL};

  const char* names[] = {"scanner", "parser", "interpreter"};
  pid_t pids[3];
  pids[0] = launch_worker("calc_proc", scanner_argv, scanner_ports, LAUNCH_INHERIT, LAUNCH_INHERIT);
  pids[1] = launch_worker("calc_proc", parser_argv, parser_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  pids[2] = launch_worker("calc_proc", interpreter_argv, interpreter_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  launch_close_all();
  return launch_wait("calc", pids, names, 3);
}

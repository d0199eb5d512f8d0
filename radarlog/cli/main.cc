// radar: the one entry point, with git-style subcommands (commands.cc);
// here only what must hold for the whole process: running out of memory.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output_file.h"

namespace radar::cli {
namespace {

// Out of memory, on any thread (the merge and the exports run several): a
// clear error naming the limit and how to raise it, exit kExitResources,
// and no half-written output -- never "terminate called after throwing an
// instance of 'std::bad_alloc'".
const char* g_command = "";
std::terminate_handler g_default_terminate = nullptr;

[[noreturn]] void outOfMemory() {
  removeTemporaryBeingWritten();
  struct rlimit as {};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    std::fprintf(stderr,
                 "radar %s: out of memory: its address space is limited to %llu MiB (ulimit -v); raise the limit "
                 "(ulimit -v unlimited) or run it where more memory is allowed\n",
                 g_command, static_cast<unsigned long long>(as.rlim_cur >> 20));
  else
    std::fprintf(stderr,
                 "radar %s: out of memory: this machine has %llu MiB; run it where more memory is free, or on "
                 "a part of the recording\n",
                 g_command,
                 static_cast<unsigned long long>(::sysconf(_SC_PHYS_PAGES)) *
                         static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE)) >>
                     20);
  std::fflush(stderr);
  ::_exit(kExitResources);
}

void onTerminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      outOfMemory();
    } catch (...) {
    }
  }
  g_default_terminate();  // anything else: said as the runtime says it, then abort
  std::abort();
}

}  // namespace
}  // namespace radar::cli

int main(int argc, char** argv) {
  using namespace radar::cli;
  g_command = argc > 1 ? argv[1] : "";
  g_default_terminate = std::set_terminate(onTerminate);
  try {
    return runCommandLine(argc, argv);
  } catch (const std::bad_alloc&) {
    outOfMemory();  // after unwinding: what the command was making is removed on the way
  }
}

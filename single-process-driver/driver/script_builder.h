// From a merged recording to the replay script (script.h) of one process
// image, and what it takes to start that image again as it was started.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace radar::driver {

// How the first image of a script was started: what `radar debug` execs.
struct Launch {
  std::string executable;  // /proc/self/exe as recorded
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // as recorded, in order, radar's own variables too
  std::vector<std::string> preloads;     // the program's own LD_PRELOAD entries, kept
  std::vector<std::string> redacted;     // variables whose values the recording left out
  std::string cwd;
  uint64_t executable_size = 0;  // when recorded, to notice a rebuilt program
  int64_t executable_mtime_ns = 0;
  uint64_t nofile_soft = 0, nofile_hard = 0;  // RLIMIT_NOFILE at start; 0: not recorded
};

// A growing byte buffer for scripts of hundreds of megabytes: mapped
// memory that grows in place (mremap), where a string would copy itself at
// each doubling. In memory, or made directly in the script file (inFile):
// then the re-run maps the very pages the builder wrote, and the script is
// never copied to its file (100 MB: 20 to 250 ms of write() into the page
// cache on ext4, however fast the memory).
class ScriptBytes {
 public:
  ScriptBytes() = default;
  // In the file open for reading and writing at `fd` (taken, closed with
  // the buffer), which is cut to size() by finishFile().
  static ScriptBytes inFile(int fd);
  bool finishFile(std::string* error);
  ScriptBytes(ScriptBytes&& o) noexcept;
  ScriptBytes& operator=(ScriptBytes&& o) noexcept;
  ScriptBytes(const ScriptBytes&) = delete;
  ScriptBytes& operator=(const ScriptBytes&) = delete;
  ~ScriptBytes();

  void append(const void* p, size_t n);
  void append(std::string_view s) { append(s.data(), s.size()); }
  void resize(size_t n);  // grows with zero bytes, or shrinks
  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }

 private:
  void reserve(size_t n);
  void release();
  char* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
  int fd_ = -1;            // the file it is made in, or -1
  size_t reserved_ = 0;    // the file's blocks reserved so far (fallocate)
  bool finished_ = false;  // cut to size: no more growth (past the file's end is SIGBUS)
};

struct Script {
  ScriptBytes bytes;  // the script file (script.h layout)
  Launch launch;
  std::vector<uint32_t> chain;  // process images replayed, the debugged one last
  uint32_t events = 0;          // events in the script
  uint32_t first_number = 0;    // replay event numbers ("Event N") of the debugged image
  uint32_t last_number = 0;
  std::vector<std::string> notes;  // what the user should know (limits met, ...)
};

// Builds the script that re-runs process image `image` of `trace`. An image
// created by fork() starts inside its parent: the script replays the
// parent (and its ancestors up to an exec'd or started image) up to the
// fork, then the child. False, with *error for people, when the image
// cannot be replayed faithfully (a log missing or damaged, bytes the
// recording did not keep, events lost while recording).
// The script is made in out->bytes as given (ScriptBytes::inFile).
bool buildScript(const trace::Trace& trace, uint32_t image, Script* out, std::string* error);

// The images a script for `image` replays, first started first; empty with
// *error when an ancestor is missing.
std::vector<uint32_t> imageChain(const trace::Trace& trace, uint32_t image, std::string* error);

}  // namespace radar::driver

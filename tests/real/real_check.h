// What every real program's recording must satisfy (tests/real): its
// story respects the kernel's causal relations, its bytes agree with a
// packet capture, its checks find nothing false, and every process image
// re-runs alone and leaves nothing behind.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "recorded.h"

namespace radar::testing {

// One line of `radar events --json`, the fields the checks use.
struct StoryEvent {
  uint64_t position = 0;  // "event": the place in the story
  uint64_t number = 0;    // RADAR's number
  int64_t pid = 0;
  std::string kind, channel;
  int64_t result = 0;
  uint64_t bytes = 0;
  bool has_bytes = false, is_send = false, external = false;
  std::vector<uint64_t> from_events;
  int64_t peer = 0;       // kill: the pid signalled; signal: the pid that sent it (0: the kernel)
  bool to_group = false;  // kill: to a process group (`peer` names its leader)
};
std::vector<StoryEvent> readStory(const std::string& dir);
// The story of recordings merged (radar events DIR...).
std::vector<StoryEvent> readStory(const std::vector<std::string>& dirs);

// Every relation the kernel imposes that the story can show, out of order:
// a message received before it was sent, a child's event before the fork
// that made it, a reaped child's event after the wait, an accept before
// the connect it returns, an end of file before every close of the other
// side, a signal delivered before the kill() that sent it. Empty when the story is true; the counts say how many were
// seen.
struct CausalCheck {
  std::vector<std::string> violations;
  std::map<std::string, int> checked;  // relation -> pairs checked
};
CausalCheck checkCausalOrder(const std::vector<StoryEvent>& story);

// TCP payload bytes per connection (both directions; the key is the two
// ports, smaller first) on 127.0.0.1: from the story (sends, and receives
// from outside the recording), and from a pcap file of the loopback.
using ConnectionBytes = std::map<std::pair<int, int>, uint64_t>;
ConnectionBytes storyConnectionBytes(const std::vector<StoryEvent>& story, int port);
bool captureConnectionBytes(const std::string& pcap, int port, ConnectionBytes* out, std::string* error);

// A packet capture of the loopback around a run (tcpdump; root only).
class Capture {
 public:
  bool start(const std::string& pcap, int port, std::string* why_not);
  void stop();
  ~Capture() { stop(); }
  // Packets the kernel dropped (tcpdump's count): the capture is then short.
  unsigned long dropped() const { return dropped_; }

 private:
  int pid_ = -1;
  std::string log_;
  unsigned long dropped_ = 0;
};

// Runs `run` while the loopback is captured on `port` into `pcap`;
// *no_capture says why the capture cannot be compared, when it cannot.
Result whileCapturing(const std::string& pcap, int port, std::string* no_capture, const std::function<Result()>& run);

// "pid.generation" of every process image in a recording directory, or of
// those whose program's name `keep` accepts.
std::vector<std::string> processImages(const std::string& dir,
                                       const std::function<bool(const std::string& program)>& keep = {});

// Re-runs every image alone (radar debug --no-gdb, sandboxed, with TMPDIR
// a fresh directory): each must end "as recorded", unless `excused` accepts
// its report (a divergence whose named cause is real). Afterwards no
// directory of radar debug's and no new SysV IPC object is left.
// Re-runs of every image: as recorded; with a divergence the test excuses;
// or with every event replayed as recorded but other bytes written to its
// files, for a cause the report names (its clock or pid read live, in a
// recording made without --nondet).
struct ReRuns {
  int as_recorded = 0, excused = 0, output_explained = 0;
  std::vector<std::string> failures;
};
using Excuse = std::function<bool(const std::string& image, const std::string& report)>;
ReRuns reRunEveryImage(const std::string& dir, const std::string& run_as, const Excuse& excused,
                       const std::vector<std::string>& images = {});  // default: every image

// A free TCP port on 127.0.0.1.
int freePort();
// Waits until something listens on the port (true) or `seconds` pass.
bool waitForPort(int port, int seconds);
bool have(const std::string& command);

}  // namespace radar::testing

// Repeated structures in the event stream (RADAR's §6.5: condense what
// happened, rather than look for what was expected).
//
// Each process's story is a sequence of symbols, one per call that is the
// program's rather than the scheduler's: its kind, the role of its channel
// (the names of the processes at the other end, so that the clients of a
// server are one role however many connect), its message type when a
// description decodes it, and whether it failed. Readiness waits, receives
// that found nothing and clock reads are left out. Runs of one symbol fold
// into one (a reader reading a message in pieces). Working on each process
// alone keeps unrelated events of other processes, which a merged stream
// interleaves, out of the patterns (the problem RADAR's §6.5.6 foresaw);
// within a process, each channel's calls are looked at first (a server's
// connections interleave, each one's dialogue repeats), then the rest as a
// whole (a stage, a round: structure across channels).
//
// A pattern is a unit of symbols repeated back to back, found left to
// right (the unit that covers the most symbols, the shortest on a tie), and
// kept only when so long a repetition is unlikely by chance: the expected
// number of such repetitions in a random sequence of the same length with
// the same symbol frequencies is below kChance. A run of sends outside such
// a unit whose messages waited in the channel together (kMinBurst or more
// sends, two or more waiting) is a burst: a queue. Patterns are then linked
// between processes by the channels they use: a pipeline's stages, a client
// and the server that answers it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

struct Pattern {
  enum class Kind {
    RequestResponse,  // receive then send on one role (serving), or send then receive (asking)
    Stage,            // receive from some, send to others
    Round,            // send to two or more roles in turn (a broadcast), maybe collecting replies
    Burst,            // sends to one role in a row, waiting in the channel together (a queue);
                      // its repetitions are the sends
    Retry,            // a call that fails, again and again
    Loop,             // any other repeated sequence
  };
  struct Step {
    std::string text;                   // "receives Request from client"
    uint32_t min_run = 1, max_run = 1;  // times in a row, over all repetitions
  };
  Kind kind = Kind::Loop;
  std::string process_name;
  std::vector<Step> unit;
  std::vector<uint32_t> processes;                   // where it was found
  uint64_t repetitions = 0;                          // over every process
  uint32_t occurrences = 0;                          // stretches of back-to-back repetitions
  uint32_t first_event = kNone, last_event = kNone;  // positions: the span
  std::vector<uint32_t> example;                     // positions of one repetition's events
  struct Stretch {
    uint32_t process, first, last;  // first and last event positions
    uint64_t repetitions;
  };
  std::vector<Stretch> stretches;                   // in each process's order
  double chance = 0;                                // expected count by chance of its longest stretch (loops)
  uint32_t most_queued = 0;                         // bursts: the most of its messages waiting unreceived at once
  std::vector<uint32_t> channels_in, channels_out;  // channels it receives on and sends on (sorted)
  std::string text() const;                         // its steps, joined with ", "
};

const char* patternKindName(Pattern::Kind k);

// Patterns joined by channels: one sends where another receives.
struct PatternLink {
  enum class Kind { Pipeline, RequestResponse, Queue, Exchange };
  Kind kind = Kind::Exchange;
  std::vector<uint32_t> patterns;  // indexes into Patterns::patterns, senders before receivers
};

const char* patternLinkKindName(PatternLink::Kind k);

struct Patterns {
  std::vector<Pattern> patterns;  // by the number of events they cover, most first
  std::vector<PatternLink> links;
  uint64_t symbols = 0;  // calls considered
};

inline constexpr double kChance = 1e-3;
inline constexpr uint32_t kMinBurst = 4;

struct PatternOptions {
  // The message type of a send or receive (a description's), "" when none.
  std::function<std::string(uint32_t event)> message_type;
  uint32_t longest_unit = 64;  // symbols
};

Patterns findPatterns(const Trace& t, const PatternOptions& options = {});

// A name for a pattern (a description's `pattern` entry): its steps as
// Pattern::Step::text gives them (a " (N times)" or " (N to M times)" at
// the end is ignored), in order from any of them; in processes of this name
// (empty: any).
struct PatternName {
  std::string name, process;
  std::vector<std::string> steps;
};

// A stretch of a named pattern's repetitions: told as one higher-level
// event, which stands for the process's events from `first` to `last`.
struct NamedStretch {
  uint32_t name;     // index into the names given
  uint32_t pattern;  // index into Patterns::patterns
  uint32_t process, first, last;
  uint64_t repetitions;
};

// Every stretch of the patterns the names match, by first event. Sets
// `matched[i]` when name i matched some pattern.
std::vector<NamedStretch> namedStretches(const Patterns& found, const std::vector<PatternName>& names,
                                         std::vector<bool>* matched = nullptr);

}  // namespace radar::analysis

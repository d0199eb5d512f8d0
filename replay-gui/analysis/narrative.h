// RADAR's running narrative: one sentence per event, e.g.
//   Process parser[4123] receives a message from scanner[4122] on pipe 2 (32 bytes). Event 9.
// "Event N" is the event's place in the replay (1, 2, 3 ...), the number
// users skip to.
#pragma once

#include <string>
#include <vector>

#include "log/wait_status.h"
#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

class Narrator {
 public:
  // `live`: the recording is still being made, so a send nobody has
  // received is "not received yet" rather than one "which nobody receives".
  explicit Narrator(const Trace& trace, bool live = false);
  // The sentence for the event at `position`, with "Event N." at the end.
  std::string sentence(uint32_t position) const;
  // The same without the event number.
  std::string describe(uint32_t position) const;
  // Processes that receive what a send sent (first first).
  std::vector<uint32_t> receivers(uint32_t send) const;
  // Processes whose sends a receive got.
  std::vector<uint32_t> senders(uint32_t receive) const;

 private:
  std::string execPath(uint32_t position) const;  // the program an EXEC event names, from its record
  std::string userEventName(uint32_t position) const;
  std::string interfaceName(uint32_t position) const;     // "network interface lo", from the record
  std::string sent(uint32_t position) const;              // " sends a message to ... (N bytes)"
  std::string received(uint32_t position) const;          // " receives a message from ... (N bytes)"
  std::string unmatchedWhence(uint32_t position) const;   // " that no recorded process sent"
  bool afterSendersEnd(uint32_t position) const;          // a freeze copied its senders' logs before it
  std::string tag(uint32_t position, log::Kind k) const;  // ", priority 7", ", type 2": a queued message
  std::string processCall(uint32_t position) const;       // " creates worker[12]", " exits with status 0"
  std::string signalCall(uint32_t position) const;        // " sends signal 15 (SIGTERM) to worker[12]"
  std::string channelCall(uint32_t position) const;       // " closes its end of pipe 2"
  std::string otherCall(uint32_t position) const;         // " announces ready", " reads the clock"
  std::string mpiCall(uint32_t position) const;           // " joins MPI_Allreduce on MPI_COMM_WORLD (4 bytes)"
  std::string syncCall(uint32_t position) const;          // " locks mutex 0x5580, released by mt at event 8"
  std::string actor(uint32_t position) const;             // "mt[40] (thread 2)"
  std::string queueCall(uint32_t position) const;         // " removes message queue /q", " gets System V queue 3"
  std::string queueControl(uint32_t position) const;      // " removes System V queue 3": msgctl
  std::string opened(uint32_t position) const;            // " opens message queue /jobs"
  bool onCounter(const Event& e) const;                   // an eventfd's
  std::string counted(uint32_t position) const;           // " adds 3 to eventfd 1 (taken by ...)"
  std::string queueName(uint32_t position) const;         // "message queue /name": mq_open, mq_unlink
  std::string who(uint32_t process) const;
  std::string channel(const Event& e) const;

  const Trace& t_;
  const bool live_;
};

using log::signalText;
using log::statusText;

}  // namespace radar::analysis

// A network description applied to a recording: which recorded process
// image each described process is, which channel end each port is; the
// processes and channels take the description's names, and messages decode
// with the types of their ports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/patterns.h"
#include "netdesc/decode.h"
#include "netdesc/description.h"
#include "trace/trace.h"

namespace radar::netdesc {

class Binding {
 public:
  // Matches `description` against `trace`: which image each described
  // process is, which channel end each port is, and the names they give
  // (names(), for Trace::described). `unmatched` gets, one line each, the
  // parts of the description that matched nothing in the recording.
  static std::unique_ptr<Binding> apply(std::shared_ptr<const Description> description, const trace::Trace& trace,
                                        std::vector<std::string>* unmatched);
  // The description for a recording: the file `net_path` when given, else
  // the one the recording carries (radar run) unless `carried` is false.
  // Null without *error when there is none; null with *error (one problem
  // a line, each naming file, line and column) when it cannot be used.
  static std::unique_ptr<Binding> forRecording(const trace::Trace& trace, const std::string& net_path, bool carried,
                                               std::vector<std::string>* unmatched, std::string* error);

  const Description& description() const { return *description_; }
  // The processes' and channels' names the description gives ("": none),
  // one per process and per channel of the trace it was applied to.
  const trace::Trace::Names& names() const { return names_; }
  // The port a channel end is, or null.
  const Port* portOf(uint32_t endpoint) const;
  // The described process a recorded process image is, or null.
  const Process* processOf(uint32_t process) const;
  // The port whose type and framing decode what a send sent: the sender's
  // port, else a receiver's (null when neither is described with a type).
  const Port* portForMessage(const trace::Trace& trace, uint32_t send) const;

  // The port whose type and framing decode what a receive got: a
  // sender's, else its own.
  const Port* portForReceive(const trace::Trace& trace, uint32_t receive) const;

  // The contents of a send or receive, decoded as the description says:
  // its messages field by field (for a send, one announced by a length
  // prefix and finished by the next sends on the channel is completed from
  // them). False with *error when its bytes cannot be read.
  bool describeContents(const trace::Trace& trace, uint32_t position, std::string* out, std::string* error) const;
  // The same as it is made (TextOut::spill), for messages too big to hold.
  bool describeContents(const trace::Trace& trace, uint32_t position, TextOut* out, std::string* error) const;

  // The bytes describeContents() decodes, and the port that decodes them.
  struct Contents {
    std::string_view bytes;  // the recording's, or `gathered`
    std::string gathered;    // the send's bytes and the next sends' that finish its last message
    int added = 0;           // how many next sends were added
    uint64_t omitted = 0;    // bytes the recording did not keep
    const Port* port = nullptr;
  };
  bool messageBytes(const trace::Trace& trace, uint32_t position, Contents* out, std::string* error) const;

 private:
  struct Deferred {  // a port found through its connections, once the others are placed
    const Process* process;
    const Port* port;
    std::vector<uint32_t> images;
  };
  void matchProcesses(const trace::Trace& t, std::vector<std::string>* unmatched, std::vector<Deferred>* deferred);
  void matchPort(const trace::Trace& t, const Process& dp, const Port& port, const std::vector<uint32_t>& images,
                 std::vector<std::string>* unmatched, std::vector<Deferred>* deferred);
  void matchByConnections(const trace::Trace& t, const Deferred& port, std::vector<std::string>* unmatched);
  void nameChannels(const trace::Trace& t);
  std::string channelName(const std::vector<std::string>& senders, const std::vector<std::string>& receivers,
                          bool inout) const;
  std::string labelAs(const trace::Trace& t, uint32_t process) const;

  std::shared_ptr<const Description> description_;
  trace::Trace::Names names_;
  std::vector<const Port*> ports_;         // by endpoint
  std::vector<const Process*> processes_;  // by process image
};

// What radar patterns needs of a description: the message types of sends
// and receives (by the ports' types), and the names of its `pattern`
// entries. Both empty without a binding.
analysis::PatternOptions patternOptions(const Binding* binding, const trace::Trace& trace);
std::vector<analysis::PatternName> patternNames(const Binding* binding);

// The same with or without a binding (without: text, or hex and ASCII).
bool describeContents(const Binding* binding, const trace::Trace& trace, uint32_t position, std::string* out,
                      std::string* error);
bool describeContents(const Binding* binding, const trace::Trace& trace, uint32_t position, TextOut* out,
                      std::string* error);

// The contents of a send or receive as a tree of fields, each with the
// bytes it stands for (netdesc::describeFields), and those bytes in
// `bytes` (null: not wanted). Without a binding: text, or bytes.
bool describeFields(const Binding* binding, const trace::Trace& trace, uint32_t position, std::vector<FieldLine>* out,
                    std::string* bytes, std::string* error);

}  // namespace radar::netdesc

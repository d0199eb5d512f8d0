// Which log kinds a word names, as `radar events --kind` takes it: a
// category (send, receive, process, channel, readiness, user, signal,
// message, mpi) or a call's own name (write, recvmsg ...). Header-only:
// the recorder judges `radar record --on kind=` with it too.
#pragma once

#include <string_view>

#include "log/kinds.h"

namespace radar::log {

inline bool kindMatches(std::string_view want, Kind k) {
  const Category c = categoryOf(k);
  if (want == "send") return c == Category::Send;
  if (want == "receive") return c == Category::Receive;
  if (want == "process") return c == Category::Process;
  if (want == "channel") return c == Category::Channel;
  if (want == "readiness") return c == Category::Readiness;
  if (want == "user") return c == Category::User;
  if (want == "signal") return k == Kind::Signal || k == Kind::SignalWait || k == Kind::Kill;
  if (want == "message") return c == Category::Send || c == Category::Receive;
  if (want == "mpi") return isMpiKind(k);
  return want == kindName(k);
}

}  // namespace radar::log

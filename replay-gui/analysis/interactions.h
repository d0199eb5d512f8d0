// The repeated interactions of servers, and where their response time
// goes. An interaction: a process receives a request on a channel it
// received on first (it serves it), and sends its reply on that channel
// next. Its response time runs from the request's send (or the receive,
// when the client is not recorded) to the return of the receive that got
// the reply's last bytes (or the reply's send), and splits exactly into:
//   send         the client's send call;
//   queued       the request waiting before the server called receive;
//   transit in   the request reaching the server (or the server waiting);
//   server       from the request's receive to the reply's send returning
//                (or the client's receive, if that returned first);
//   reply queued the reply waiting before the client called receive;
//   transit out  the reply reaching the client.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

struct Interaction {
  enum Part { Send, Queued, TransitIn, Server, ReplyQueued, TransitOut, kParts };
  uint32_t group = 0;
  uint32_t request_send = kNone, request_receive = kNone, reply_send = kNone, reply_receive = kNone;
  std::array<int64_t, kParts> ns{};
  int64_t total() const {
    int64_t sum = 0;
    for (int64_t v : ns) sum += v;
    return sum;
  }
};

const char* interactionPartName(int part);

struct InteractionGroup {
  std::string name;               // the service: its listening address or socket path, else the channel
  std::vector<uint32_t> servers;  // the processes that answered (a master's workers ...)
};

struct Interactions {
  std::vector<InteractionGroup> groups;
  std::vector<Interaction> all;  // in the order their replies were sent
};

Interactions findInteractions(const Trace& t);

// The value below which `fraction` of `values` lie (nearest rank); sorts.
int64_t percentile(std::vector<int64_t>& values, double fraction);

}  // namespace radar::analysis

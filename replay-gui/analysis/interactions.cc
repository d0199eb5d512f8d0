#include "analysis/interactions.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "log/address.h"

namespace radar::analysis {

const char* interactionPartName(int part) {
  static const char* const kNames[] = {"send", "queued", "transit in", "server", "reply queued", "transit out"};
  return part >= 0 && part < Interaction::kParts ? kNames[part] : "?";
}

int64_t percentile(std::vector<int64_t>& values, double fraction) {
  if (values.empty()) return 0;
  // Nearest rank: the smallest value with at least `fraction` of them at or below it.
  const double rank = std::ceil(fraction * static_cast<double>(values.size()));
  const size_t k = std::min(values.size() - 1, static_cast<size_t>(std::max(rank, 1.0)) - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

namespace {

// The service a server's end belongs to: the socket's name or address, so
// that the connections to one listening socket make one group.
std::string serviceOf(const Trace& t, uint32_t endpoint) {
  const Endpoint& e = t.endpoints[endpoint];
  if (!e.path.empty()) return "unix socket " + e.path;
  if (e.type == log::ChannelType::Tcp) {
    const std::string a = log::formatAddress(e.local_address);
    if (!a.empty()) return "tcp " + a;
  }
  return t.channelName(e.channel);
}

}  // namespace

Interactions findInteractions(const Trace& t) {
  Interactions out;
  std::map<std::string, uint32_t> group_of;  // service -> group
  auto wall = [&](uint32_t i) { return t.wallTime(i); };
  auto back = [&](uint32_t i) { return t.wallReturnTime(i); };
  for (const Process& p : t.processes) {
    // Per channel: did this process receive first (it serves), and the
    // first receive of the request it has not answered yet.
    struct State {
      bool seen = false, serves = false;
      uint32_t request = kNone;
    };
    std::unordered_map<uint32_t, State> channels;
    for (uint32_t i : t.process_events[p.index]) {
      const Event& e = t.events[i];
      if (!log::isData(e.eventKind()) || e.endpoint == kNone || (e.flags & (kEventFailed | kEventPeek)) || !e.value)
        continue;
      const uint32_t c = t.endpoints[e.endpoint].channel;
      State& s = channels[c];
      const bool send = log::categoryOf(e.eventKind()) == log::Category::Send;
      if (!s.seen) {
        s.seen = true;
        s.serves = !send;
      }
      if (!s.serves) continue;
      if (!send) {
        if (s.request == kNone) s.request = i;
        continue;
      }
      if (s.request == kNone) continue;  // more of a reply already told
      Interaction in;
      in.request_receive = s.request;
      in.reply_send = i;
      s.request = kNone;
      const std::string service = serviceOf(t, t.events[in.request_receive].endpoint);
      auto [g, fresh] = group_of.emplace(service, static_cast<uint32_t>(out.groups.size()));
      if (fresh) out.groups.push_back({service, {}});
      std::vector<uint32_t>& servers = out.groups[g->second].servers;
      if (std::find(servers.begin(), servers.end(), p.index) == servers.end()) servers.push_back(p.index);
      in.group = g->second;
      // The send that brought the request's first bytes; the receive that
      // took the reply's last.
      for (auto [b, end] = t.incoming(in.request_receive); b != end; ++b)
        if (b->why == Edge::Why::Message) {
          in.request_send = b->from;
          break;
        }
      for (uint32_t k : t.messagesFrom(i))
        if (!(t.events[t.edges[k].to].flags & kEventPeek)) in.reply_receive = t.edges[k].to;
      // The parts, one after the other (none negative, where clocks of two
      // hosts disagree), up to the reply's receive: a server preempted
      // before its send returned may return after the client had the reply.
      const uint32_t r = in.request_receive;
      const int64_t end = in.reply_receive != kNone ? back(in.reply_receive) : back(i);
      const int64_t start = in.request_send != kNone ? wall(in.request_send) : wall(r);
      const int64_t sent = in.request_send != kNone ? std::max(start, back(in.request_send)) : start;
      int64_t at = start;
      auto part = [&](int which, int64_t until) {
        until = std::max(until, at);
        in.ns[which] = until - at;
        at = until;
      };
      part(Interaction::Send, sent);
      part(Interaction::Queued, wall(r));
      part(Interaction::TransitIn, back(r));
      part(Interaction::Server, std::min(back(i), end));
      if (in.reply_receive != kNone) {
        part(Interaction::ReplyQueued, wall(in.reply_receive));
        part(Interaction::TransitOut, back(in.reply_receive));
      }
      out.all.push_back(in);
    }
  }
  std::sort(out.all.begin(), out.all.end(),
            [](const Interaction& a, const Interaction& b) { return a.reply_send < b.reply_send; });
  return out;
}

}  // namespace radar::analysis

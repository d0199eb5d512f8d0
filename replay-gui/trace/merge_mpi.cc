// The merge's MPI messages: each receive matched to the send it got by
// MPI's rules, and each collective tied across its ranks.
#include "trace/merger.h"

namespace radar::trace::merging {

namespace {

// Messages from one rank to another on one communicator with one tag are
// received in the order they were sent (MPI's non-overtaking rule), by
// receives in the order they were posted: the n-th send of a (source,
// destination, tag) is the n-th receive that got that source and tag.
struct Route {
  uint32_t channel;
  int32_t source, destination, tag;
  auto operator<=>(const Route&) const = default;
};

struct Posted {
  uint32_t post;  // the event that posted the receive (an MPI_Irecv), or the receive itself
  uint32_t receive;
};

}  // namespace

void Merger::matchMpi() {
  if (raw_.mpi_calls.empty()) return;
  const auto& eps = raw_.endpoints;
  std::map<Route, std::vector<uint32_t>> sends;
  std::map<Route, std::vector<Posted>> receives;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> posts;  // (process, serial) -> its MPI_IRECV
  std::vector<std::vector<uint32_t>> collectives(eps.size());
  for (const auto& [i, call] : raw_.mpi_calls) {  // by position: each process's in its order
    const Event& ev = raw_.events[i];
    if (ev.endpoint == kNone || !log::isMpiType(eps[ev.endpoint].type) || (ev.flags & kEventFailed)) continue;
    const Endpoint& end = eps[ev.endpoint];
    switch (ev.eventKind()) {
      case Kind::MpiSend:
        sends[{end.channel, end.mpi_rank, call.peer, call.tag}].push_back(i);
        break;
      case Kind::MpiIrecv:
        posts[{ev.process, call.serial}] = i;
        break;
      case Kind::MpiRecv: {
        auto post = call.serial ? posts.find({ev.process, call.serial}) : posts.end();
        receives[{end.channel, call.peer, end.mpi_rank, call.tag}].push_back(
            {post == posts.end() ? i : post->second, i});
        break;
      }
      case Kind::MpiCollective:
        collectives[ev.endpoint].push_back(i);
        break;
      default:
        break;
    }
  }
  for (auto& [route, posted] : receives) {
    std::stable_sort(posted.begin(), posted.end(), [](const Posted& a, const Posted& b) { return a.post < b.post; });
    const auto found = sends.find(route);
    const std::vector<uint32_t> none;
    const std::vector<uint32_t>& sent = found == sends.end() ? none : found->second;
    for (size_t n = 0; n < posted.size(); ++n) {
      Event& receive = raw_.events[posted[n].receive];
      t_.bytes_received += receive.value;
      if (n >= sent.size()) {
        receive.flags |= kEventUnmatched;  // from a rank radar did not record
        continue;
      }
      edges_.push_back(makeEdge(sent[n], Edge::Why::Message, posted[n].receive, receive.value));
      raw_.events[sent[n]].flags |= kEventReceivedWhole;
      t_.bytes_matched += receive.value;
    }
  }
  for (const auto& [route, sent] : sends)
    for (uint32_t s : sent) t_.bytes_sent += raw_.events[s].value;
  matchMpiCollectives(collectives);
}

// A rank's last event before it entered collective `i`: of the same thread,
// returned before the call began (the MPI library's own calls inside the
// collective, and other threads', come later or may depend on other ranks
// having left it). kNone when there is none.
uint32_t Merger::arrivalAt(uint32_t i) const {
  const Event& collective = raw_.events[i];
  const uint32_t first = raw_.ranges[collective.process].first;
  for (uint32_t k = i, looked = 0; k > first && looked < 256; ++looked) {
    const Event& e = raw_.events[--k];
    if (e.thread == collective.thread && e.returnNs() <= collective.entry_ns) return k;
  }
  return kNone;
}

// The n-th collective on a communicator is the same one in each rank. A
// rank leaves it only after the ranks it needs have come: all of them for
// a barrier or an all-to-all; the root for a broadcast or a scatter; every
// rank for the root of a reduce or a gather. Each such wait is an edge
// from the other rank's event before the collective (its arrival,
// arrivalAt) to this rank's collective event.
void Merger::matchMpiCollectives(const std::vector<std::vector<uint32_t>>& by_endpoint) {
  for (const Channel& c : t_.channels) {
    if (!log::isMpiType(c.type)) continue;
    size_t rounds = 0;
    for (uint32_t ep : c.endpoints) rounds = std::max(rounds, by_endpoint[ep].size());
    for (size_t n = 0; n < rounds; ++n) {
      // Where the ranks call different collectives, the n-th are not one
      // collective any more (a finding says so): no edge claims they are.
      uint32_t called = kNone;  // the collective's code (Event::value)
      bool same = true;
      for (uint32_t ep : c.endpoints)
        if (n < by_endpoint[ep].size()) {
          const uint32_t mine = raw_.events[by_endpoint[ep][n]].value;
          same &= called == kNone || called == mine;
          called = mine;
        }
      if (!same) break;
      for (uint32_t to_ep : c.endpoints) {
        if (n >= by_endpoint[to_ep].size()) continue;
        const uint32_t to = by_endpoint[to_ep][n];
        const std::string_view operation = mpiCollectiveName(raw_.events[to].value);
        const int32_t root = raw_.mpi_calls[to].peer;
        const bool from_root_only =
            operation == "MPI_Bcast" || operation == "MPI_Scatter" || operation == "MPI_Scatterv";
        const bool to_root_only = operation == "MPI_Reduce" || operation == "MPI_Gather" || operation == "MPI_Gatherv";
        for (uint32_t from_ep : c.endpoints) {
          if (from_ep == to_ep || n >= by_endpoint[from_ep].size()) continue;
          if (from_root_only && raw_.endpoints[from_ep].mpi_rank != root) continue;
          if (to_root_only && raw_.endpoints[to_ep].mpi_rank != root) continue;
          const uint32_t arrival = arrivalAt(by_endpoint[from_ep][n]);
          if (arrival != kNone) edges_.push_back(makeEdge(arrival, Edge::Why::Collective, to, 0));
        }
      }
    }
  }
}

}  // namespace radar::trace::merging

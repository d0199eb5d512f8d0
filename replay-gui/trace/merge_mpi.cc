// The merge's MPI messages: each receive matched to the send it got by
// MPI's rules, and each collective tied across its ranks.
#include <algorithm>
#include <unordered_map>

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

// A receive posted for any source, and the source it got.
struct Wildcard {
  Posted posted;
  Route got;  // the route of the message it got: its source and tag
  bool any_tag;
};

using Sends = std::map<Route, std::vector<uint32_t>>;

// How many sends of another source a receive from any source may name as
// those it could have got (the first of each source: the finding names
// one, the first that does not follow the receive).
constexpr int kRaceCandidates = 3;

// For each receive from any source that got a message, the sends of other
// sources it could have got as well: on its communicator, to its rank,
// of a tag it takes, and received (if at all) by a receive posted after
// it. `got`: each matched receive's send; `post_of`: each matched send's
// receive's post. Whether such a send follows the receive is for the
// findings to say (the story's order is not made yet).
void findRaceCandidates(const Sends& sends, std::vector<Wildcard>& wildcards,
                        const std::unordered_map<uint32_t, uint32_t>& got,
                        const std::unordered_map<uint32_t, uint32_t>& post_of, std::vector<Trace::MpiRace>& races) {
  std::stable_sort(wildcards.begin(), wildcards.end(),
                   [](const Wildcard& a, const Wildcard& b) { return a.posted.post < b.posted.post; });
  std::map<std::pair<uint32_t, int32_t>, std::vector<const Route*>> into;  // (channel, destination) -> routes
  for (const auto& [route, sent] : sends) into[{route.channel, route.destination}].push_back(&route);
  std::map<const Route*, size_t> next;  // per route: its first send no receive posted so far got
  for (const Wildcard& w : wildcards) {
    const auto mine = got.find(w.posted.receive);
    if (mine == got.end()) continue;
    int named = 0;
    for (const Route* route : into[{w.got.channel, w.got.destination}]) {
      if (route->source == w.got.source || (!w.any_tag && route->tag != w.got.tag)) continue;
      const std::vector<uint32_t>& sent = sends.at(*route);
      size_t& n = next[route];
      for (; n < sent.size(); ++n) {
        const auto by = post_of.find(sent[n]);
        if (by == post_of.end() || by->second > w.posted.post) break;
      }
      if (n < sent.size()) races.push_back({w.posted.receive, mine->second, sent[n]});
      if (n < sent.size() && ++named == kRaceCandidates) break;
    }
  }
}

// A map by route whose last entry is kept at hand: a rank's calls follow
// one route for long stretches (a ring, a halo's few neighbours).
template <class T>
class ByRoute {
 public:
  std::vector<T>& operator[](const Route& route) {
    if (!last_ || route != last_route_) {
      last_ = &map_[route];
      last_route_ = route;
    }
    return *last_;
  }
  std::map<Route, std::vector<T>>& all() { return map_; }

 private:
  std::map<Route, std::vector<T>> map_;
  Route last_route_{};
  std::vector<T>* last_ = nullptr;
};

}  // namespace

void Merger::matchMpi() {
  if (std::all_of(raw_.mpi_calls.begin(), raw_.mpi_calls.end(), [](const auto& calls) { return calls.empty(); }))
    return;
  const auto& eps = raw_.endpoints;
  ByRoute<uint32_t> sends_by_route;
  ByRoute<Posted> receives_by_route;
  std::vector<Wildcard> wildcards;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> posts;  // (process, serial) -> its MPI_IRECV
  std::vector<std::vector<uint32_t>> collectives(eps.size());
  for (const uint32_t p : owners_) {  // the processes by where their events lie, each's in its order
    if (p >= raw_.mpi_calls.size()) continue;
    for (const auto& [offset, call] : raw_.mpi_calls[p]) {
      const uint32_t i = raw_.ranges[p].first + offset;
      const Event& ev = raw_.events[i];
      if (ev.endpoint == kNone || !log::isMpiType(eps[ev.endpoint].type) || (ev.flags & kEventFailed)) continue;
      const Endpoint& end = eps[ev.endpoint];
      switch (ev.eventKind()) {
        case Kind::MpiSend:
          sends_by_route[{end.channel, end.mpi_rank, call.peer, call.tag}].push_back(i);
          t_.bytes_sent += ev.value;
          break;
        case Kind::MpiIrecv:
          posts[{ev.process, call.serial}] = i;
          break;
        case Kind::MpiRecv: {
          auto post = call.serial ? posts.find({ev.process, call.serial}) : posts.end();
          const Route route{end.channel, call.peer, end.mpi_rank, call.tag};
          const Posted posted{post == posts.end() ? i : post->second, i};
          receives_by_route[route].push_back(posted);
          t_.bytes_received += ev.value;
          if (call.any_source) wildcards.push_back({posted, route, call.any_tag});
          break;
        }
        case Kind::MpiCollective:
          collectives[ev.endpoint].push_back(i);
          break;
        default:
          break;
      }
    }
  }
  const Sends& sends = sends_by_route.all();
  std::unordered_map<uint32_t, uint32_t> got, post_of;  // for the races: only where a receive took any source
  const auto by_post = [](const Posted& a, const Posted& b) { return a.post < b.post; };
  for (auto& [route, posted] : receives_by_route.all()) {
    if (!std::is_sorted(posted.begin(), posted.end(), by_post))  // posted by MPI_Irecv
      std::stable_sort(posted.begin(), posted.end(), by_post);
    const auto found = sends.find(route);
    const std::vector<uint32_t> none;
    const std::vector<uint32_t>& sent = found == sends.end() ? none : found->second;
    for (size_t n = 0; n < posted.size(); ++n) {
      if (n >= sent.size()) {
        raw_.events[posted[n].receive].flags |= kEventUnmatched;  // from a rank radar did not record
        continue;
      }
      const uint32_t bytes = raw_.events[posted[n].receive].value;  // as the receive counted them
      edges_.push_back(makeEdge(sent[n], Edge::Why::Message, posted[n].receive, bytes));
      raw_.events[sent[n]].flags |= kEventReceivedWhole;
      t_.bytes_matched += bytes;
      if (wildcards.empty()) continue;
      got[posted[n].receive] = sent[n];
      post_of[sent[n]] = posted[n].post;
    }
  }
  findRaceCandidates(sends, wildcards, got, post_of, t_.mpi_races);
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
    std::vector<uint32_t> arrivals(c.endpoints.size());  // each rank's in round n, found once
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
      for (size_t k = 0; k < c.endpoints.size(); ++k) {
        const std::vector<uint32_t>& mine = by_endpoint[c.endpoints[k]];
        arrivals[k] = n < mine.size() ? arrivalAt(mine[n]) : kNone;
      }
      for (uint32_t to_ep : c.endpoints) {
        if (n >= by_endpoint[to_ep].size()) continue;
        const uint32_t to = by_endpoint[to_ep][n];
        const std::string_view operation = mpiCollectiveName(raw_.events[to].value);
        const bool from_root_only =
            operation == "MPI_Bcast" || operation == "MPI_Scatter" || operation == "MPI_Scatterv";
        const bool to_root_only = operation == "MPI_Reduce" || operation == "MPI_Gather" || operation == "MPI_Gatherv";
        const MpiCall* call =
            from_root_only || to_root_only ? raw_.mpiCallAt(to) : nullptr;  // a search: only if need be
        const int32_t root = call ? call->peer : -1;
        if (to_root_only && raw_.endpoints[to_ep].mpi_rank != root) continue;
        for (size_t k = 0; k < c.endpoints.size(); ++k) {
          const uint32_t from_ep = c.endpoints[k];
          if (from_ep == to_ep || arrivals[k] == kNone) continue;
          if (from_root_only && raw_.endpoints[from_ep].mpi_rank != root) continue;
          edges_.push_back(makeEdge(arrivals[k], Edge::Why::Collective, to, 0));
        }
      }
    }
  }
}

}  // namespace radar::trace::merging

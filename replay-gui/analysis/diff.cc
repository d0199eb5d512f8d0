#include "analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>
#include <unordered_map>

#include "trace/findings.h"
#include "trace/load.h"

namespace radar::analysis {

const char* runDifferenceName(RunDifference::Kind k) {
  switch (k) {
    case RunDifference::Kind::Call:
      return "another call";
    case RunDifference::Kind::Contents:
      return "other contents";
    case RunDifference::Kind::Race:
      return "a race";
    case RunDifference::Kind::Result:
      return "another result";
    case RunDifference::Kind::Ended:
      return "ended otherwise";
    case RunDifference::Kind::OnlyInOne:
      return "in one run only";
  }
  return "?";
}

std::vector<std::string> processKeys(const Trace& t) {
  const size_t n = t.processes.size();
  std::vector<std::string> keys(n);
  std::vector<std::vector<uint32_t>> children(n);
  std::vector<uint32_t> roots;
  for (const Process& p : t.processes) {
    if (p.parent == kNone)
      roots.push_back(p.index);
    else if (t.processes[p.parent].next_image != p.index)
      children[p.parent].push_back(p.index);
  }
  // Birth order: the parent's own order of calls (not the pids, nor the
  // time the child first ran).
  for (auto& c : children)
    std::sort(c.begin(), c.end(), [&](uint32_t x, uint32_t y) {
      const Process &a = t.processes[x], &b = t.processes[y];
      return a.parent_counter != b.parent_counter ? a.parent_counter < b.parent_counter : a.pid < b.pid;
    });
  std::sort(roots.begin(), roots.end(), [&](uint32_t x, uint32_t y) {
    const Process &a = t.processes[x], &b = t.processes[y];
    const int64_t ta = a.first_event == kNone ? 0 : t.wallTime(a.first_event);
    const int64_t tb = b.first_event == kNone ? 0 : t.wallTime(b.first_event);
    return ta != tb ? ta < tb : x < y;
  });
  // "name", then "#k" for the k-th (k > 1) of that name among its siblings.
  auto numbered = [&](const std::vector<uint32_t>& siblings, const std::string& prefix) {
    std::map<std::string, int> seen;
    std::vector<uint32_t> done;
    for (uint32_t c : siblings) {
      const std::string& name = t.processName(c);
      const int k = ++seen[name];
      keys[c] = prefix + name + (k > 1 ? "#" + std::to_string(k) : "");
      done.push_back(c);
    }
    return done;
  };
  std::vector<uint32_t> work = numbered(roots, "");
  while (!work.empty()) {
    const uint32_t p = work.back();
    work.pop_back();
    if (const uint32_t next = t.processes[p].next_image; next != kNone) {
      keys[next] = keys[p] + ">" + t.processName(next);
      work.push_back(next);
    }
    for (uint32_t c : numbered(children[p], keys[p] + "/")) work.push_back(c);
  }
  return keys;
}

namespace {

// A channel by the processes and descriptors that use it: the same in two
// runs of one program, whatever its number or address.
std::vector<std::string> channelKeys(const Trace& t, const std::vector<std::string>& process_keys) {
  std::vector<std::string> keys(t.channels.size());
  for (const Channel& c : t.channels) {
    std::vector<std::string> ends;
    for (uint32_t e : c.endpoints) {
      const Endpoint& ep = t.endpoints[e];
      ends.push_back((ep.process == kNone ? std::string("?") : process_keys[ep.process]) + "@" +
                     std::to_string(ep.local_index));
    }
    std::sort(ends.begin(), ends.end());
    for (const auto& s : ends) keys[c.index] += s + "|";
  }
  return keys;
}

// Results that are pids or timing, not behaviour.
bool resultIsIncidental(Kind k) {
  const log::Category c = log::categoryOf(k);
  return c == log::Category::Readiness || c == log::Category::Nondeterminism || k == Kind::Fork || k == Kind::Vfork ||
         k == Kind::Spawn || k == Kind::Popen || k == Kind::Kill || k == Kind::Signal || k == Kind::SignalWait ||
         k == Kind::ThreadStart;
}

// Calls whose number or outcome is the scheduler's, not the program's: a
// wait for readiness (a server polls once more when a client is late), a
// receive that found nothing yet, a clock read, a SIGCHLD (delivered or
// not as the child's end and the parent's wait happen to meet; the wait
// tells the same). Runs are compared without them.
bool timingOnly(const Event& e) {
  const log::Category c = log::categoryOf(e.eventKind());
  return c == log::Category::Readiness || c == log::Category::Nondeterminism ||
         (c == log::Category::Receive && (e.flags & kEventFailed)) ||
         (e.eventKind() == log::Kind::Signal && e.result == SIGCHLD);
}

class Differ {
 public:
  Differ(const Trace& a, const Trace& b, DiffNames names) : a_(a), b_(b), names_(names) {
    keys_a_ = processKeys(a);
    keys_b_ = processKeys(b);
    chan_a_ = channelKeys(a, keys_a_);
    chan_b_ = channelKeys(b, keys_b_);
  }

  RunDiff run(double timing_ms) {
    RunDiff out;
    std::unordered_map<std::string, uint32_t> in_b;
    for (uint32_t p = 0; p < keys_b_.size(); ++p)
      if (!b_.processes[p].external) in_b.emplace(keys_b_[p], p);
    std::vector<bool> b_matched(b_.processes.size(), false);
    b_to_a_.assign(b_.processes.size(), kNone);
    partner_.assign(a_.processes.size(), kNone);
    // Channels of B as A's, by their keys.
    std::unordered_map<std::string, uint32_t> chan_in_a;
    for (uint32_t c = 0; c < chan_a_.size(); ++c) chan_in_a.emplace(chan_a_[c], c);
    chan_b_to_a_.assign(chan_b_.size(), kNone - 1);  // unmatched: never equal to an A channel nor to kNone
    for (uint32_t c = 0; c < chan_b_.size(); ++c)
      if (const auto it = chan_in_a.find(chan_b_[c]); it != chan_in_a.end()) chan_b_to_a_[c] = it->second;
    out.partner.assign(a_.processes.size(), kNone);
    for (const Process& pa : a_.processes) {
      if (pa.external) continue;
      const auto it = in_b.find(keys_a_[pa.index]);
      if (it == in_b.end()) {
        out.differences.push_back({RunDifference::Kind::OnlyInOne, pa.first_event, kNone, pa.index, kNone,
                                   "process " + named(a_, keys_a_, pa.index) + " is only in the first run",
                                   keys_a_[pa.index]});
        continue;
      }
      b_matched[it->second] = true;
      b_to_a_[it->second] = pa.index;
      partner_[pa.index] = it->second;
      out.partner[pa.index] = it->second;
      ++out.processes_matched;
    }
    compareProcesses(&out);
    for (const Process& pb : b_.processes)
      if (!pb.external && !b_matched[pb.index])
        out.differences.push_back({RunDifference::Kind::OnlyInOne, kNone, pb.first_event, kNone, pb.index,
                                   "process " + named(b_, keys_b_, pb.index) + " is only in the second run",
                                   keys_b_[pb.index]});
    // In causal order: RADAR's number of the first side that has an event.
    auto order = [&](const RunDifference& d) {
      const uint32_t n = d.a != kNone ? a_.events[d.a].number : d.b != kNone ? b_.events[d.b].number : ~0u;
      return std::make_pair(n, d.a != kNone ? d.a : d.b);
    };
    std::stable_sort(out.differences.begin(), out.differences.end(),
                     [&](const RunDifference& x, const RunDifference& y) { return order(x) < order(y); });
    compareChannels(timing_ms, &out);
    out.duration_ns_a = duration(a_);
    out.duration_ns_b = duration(b_);
    return out;
  }

 private:
  static int64_t duration(const Trace& t) {
    if (t.events.empty()) return 0;
    int64_t first = t.wallTime(0), last = first;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      first = std::min(first, t.wallTime(i));
      last = std::max(last, t.wallReturnTime(i));
    }
    return last - first;
  }

  // A process in a difference's text: "race/race#4>client (client[4012])",
  // or "client[4012]" as the window names it.
  std::string named(const Trace& t, const std::vector<std::string>& keys, uint32_t p) const {
    return names_ == DiffNames::Labels ? t.label(p) : keys[p] + " (" + t.label(p) + ")";
  }

  // Who sent what a receive got: by their keys to compare two runs'
  // senders (the keys are the same in both), by `how` to tell them.
  static std::string senders(const Trace& t, const std::vector<std::string>& keys, uint32_t receive, DiffNames how) {
    std::vector<std::string> from;
    for (auto [b, e] = t.incoming(receive); b != e; ++b)
      if (b->why == Edge::Why::Message) {
        const uint32_t p = t.events[b->from].process;
        from.push_back(how == DiffNames::Keys ? keys[p] : t.label(p));
      }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    std::string s;
    for (const auto& f : from) s += (s.empty() ? "" : ", ") + f;
    return s.empty() ? std::string("no recorded process") : s;
  }

  // Every aligned pair of processes, call by call (the calls that are not
  // the scheduler's), in one pass over the first run's story: the events
  // of both runs are read nearly in order, not process by process all
  // over memory.
  void compareProcesses(RunDiff* out) {
    std::vector<bool> parted(a_.processes.size(), false);
    std::vector<uint32_t> next_b(b_.processes.size(), 0);  // per process of B: where its story is read up to
    std::vector<uint32_t> compared(a_.processes.size(), 0);
    auto nextOfB = [&](uint32_t pb) -> uint32_t {
      const EventList lb = b_.process_events[pb];
      uint32_t& k = next_b[pb];
      while (k < lb.size() && timingOnly(b_.events[lb[k]])) ++k;
      return k < lb.size() ? lb[k++] : kNone;
    };
    for (uint32_t i = 0; i < a_.events.size(); ++i) {
      const uint32_t pa = a_.events[i].process, pb = partner_[pa];
      if (pb == kNone || parted[pa] || timingOnly(a_.events[i])) continue;
      const uint32_t j = nextOfB(pb);
      RunDifference d;
      if (j == kNone) {
        d = {RunDifference::Kind::Ended,
             i,
             kNone,
             pa,
             pb,
             "it goes on in the first run after " + std::to_string(compared[pa]) +
                 " calls, and ends there in the second",
             keys_a_[pa]};
      } else if (!differ(i, j, &d)) {
        ++compared[pa];
        continue;
      }
      d.process_a = pa;
      d.process_b = pb;
      d.process = keys_a_[pa];
      out->differences.push_back(std::move(d));
      parted[pa] = true;
    }
    for (uint32_t pa = 0; pa < a_.processes.size(); ++pa) {
      const uint32_t pb = partner_[pa];
      if (pb == kNone || parted[pa]) continue;
      const Process &A = a_.processes[pa], &B = b_.processes[pb];
      if (const uint32_t j = nextOfB(pb); j != kNone) {
        out->differences.push_back({RunDifference::Kind::Ended, A.last_event, j, pa, pb,
                                    "it goes on in the second run after " + std::to_string(compared[pa]) +
                                        " calls, and ends there in the first",
                                    keys_a_[pa]});
      } else if (A.end != B.end || A.end_code != B.end_code) {
        out->differences.push_back(
            {RunDifference::Kind::Ended, A.last_event, B.last_event, pa, pb, "it ends otherwise", keys_a_[pa]});
      }
    }
  }

  bool differ(uint32_t ea, uint32_t eb, RunDifference* d) {
    const Event &x = a_.events[ea], &y = b_.events[eb];
    d->a = ea;
    d->b = eb;
    const uint32_t ca = a_.channelOf(ea), cb = b_.channelOf(eb);
    const bool same_channel = cb == kNone ? ca == kNone : chan_b_to_a_[cb] == ca;
    const bool receives = x.kind == y.kind && log::categoryOf(x.eventKind()) == log::Category::Receive;
    if (receives && !same_channel && !(x.flags & kEventFailed) && !(y.flags & kEventFailed)) {
      // A server taking its clients' requests in another order.
      d->kind = RunDifference::Kind::Race;
      d->what = "it received from another channel first: from " + senders(a_, keys_a_, ea, names_) +
                " in the first run, from " + senders(b_, keys_b_, eb, names_) + " in the second";
      return true;
    }
    if (x.kind != y.kind || !same_channel) {
      d->kind = RunDifference::Kind::Call;
      d->what = "it makes another call";
      return true;
    }
    if ((x.flags & kEventFailed) != (y.flags & kEventFailed) ||
        (!resultIsIncidental(x.eventKind()) && !log::isData(x.eventKind()) && x.result != y.result)) {
      d->kind = RunDifference::Kind::Result;
      d->what = "the call returns something else";
      return true;
    }
    if (!log::isData(x.eventKind()) || (x.flags & kEventFailed)) return false;
    const bool receive = log::categoryOf(x.eventKind()) == log::Category::Receive;
    // Who sent what a receive got, as A's processes: compared without
    // building names (millions of receives), named only when they differ.
    auto sources = [&](const Trace& t, uint32_t e, const std::vector<uint32_t>* map, std::vector<uint32_t>* out) {
      out->clear();
      for (auto [b, end] = t.incoming(e); b != end; ++b)
        if (b->why == Edge::Why::Message) {
          const uint32_t p = t.events[b->from].process;
          out->push_back(map ? (*map)[p] : p);
        }
      std::sort(out->begin(), out->end());
      out->erase(std::unique(out->begin(), out->end()), out->end());
    };
    if (receive) {
      sources(a_, ea, nullptr, &from_a_);
      sources(b_, eb, &b_to_a_, &from_b_);
    }
    if (receive && from_a_ != from_b_) {
      if (senders(a_, keys_a_, ea, DiffNames::Keys) != senders(b_, keys_b_, eb, DiffNames::Keys)) {
        d->kind = RunDifference::Kind::Race;
        d->what = "the same receive took another message: from " + senders(a_, keys_a_, ea, names_) +
                  " in the first run, from " + senders(b_, keys_b_, eb, names_) + " in the second";
        return true;
      }
    }
    if (x.value != y.value) {
      d->kind = RunDifference::Kind::Contents;
      d->what = "a message of " + std::to_string(x.value) + " bytes in the first run, " + std::to_string(y.value) +
                " in the second";
      return true;
    }
    // A receive's bytes are its senders' (compared at the sends): only
    // what came from outside the recording is read here.
    if (receive && !(x.flags & (kEventExternal | kEventUnmatched)) && !(y.flags & (kEventExternal | kEventUnmatched)))
      return false;
    // Checksums kept by the load (LoadOptions::keep_hashes) tell equal
    // bytes without reading them; the bytes are read only where they differ.
    if (hashed(a_, ea) && hashed(b_, eb) && a_.hashes[ea] == b_.hashes[eb]) return false;
    std::string_view va, vb;
    std::string error;
    if (!a_.payloadView(ea, &va, &error)) return false;
    const std::string bytes_a(va);
    if (!b_.payloadView(eb, &vb, &error)) return false;
    if (bytes_a != vb) {
      size_t at = 0;
      while (at < bytes_a.size() && at < vb.size() && bytes_a[at] == vb[at]) ++at;
      d->kind = RunDifference::Kind::Contents;
      d->what = "the " + std::to_string(x.value) + " bytes differ from byte " + std::to_string(at);
      return true;
    }
    return false;
  }

  static bool hashed(const Trace& t, uint32_t e) {
    return t.hashes.size() == t.events.size() && (t.events[e].flags & kEventHasHash);
  }

  struct Traffic {
    uint64_t messages = 0, bytes = 0, received = 0;
    double latency_sum = 0;
    std::string name;
  };
  static std::unordered_map<std::string, Traffic> traffic(const Trace& t, const std::vector<std::string>& keys) {
    // Counted per channel (millions of sends), then gathered by key.
    std::vector<Traffic> per_channel(t.channels.size());
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (log::categoryOf(e.eventKind()) != log::Category::Send || (e.flags & kEventFailed)) continue;
      const uint32_t c = t.channelOf(i);
      if (c == kNone) continue;
      Traffic& tr = per_channel[c];
      ++tr.messages;
      tr.bytes += e.value;
    }
    // The messages' latencies, in the edges' order: the receives are read
    // in order, their sends shortly before them.
    for (uint64_t k = 0; k < t.edges.size(); ++k) {
      const Edge& edge = t.edges[k];
      if (edge.why != Edge::Why::Message || (t.events[edge.to].flags & kEventPeek)) continue;
      const uint32_t c = t.channelOf(edge.from);
      if (c == kNone) continue;
      Traffic& tr = per_channel[c];
      ++tr.received;
      tr.latency_sum += static_cast<double>(t.wallReturnTime(edge.to) - t.wallReturnTime(edge.from));
    }
    std::unordered_map<std::string, Traffic> out;
    for (uint32_t c = 0; c < per_channel.size(); ++c) {
      const Traffic& x = per_channel[c];
      if (!x.messages) continue;
      Traffic& tr = out[keys[c]];
      tr.name = t.channelName(c);
      tr.messages += x.messages;
      tr.bytes += x.bytes;
      tr.received += x.received;
      tr.latency_sum += x.latency_sum;
    }
    return out;
  }

  void compareChannels(double timing_ms, RunDiff* out) {
    const auto ta = traffic(a_, chan_a_), tb = traffic(b_, chan_b_);
    std::map<std::string, ChannelComparison> rows;
    for (const auto& [key, x] : ta) {
      ChannelComparison& r = rows[key];
      r.name_a = x.name;
      r.messages_a = x.messages;
      r.bytes_a = x.bytes;
      r.latency_ms_a = x.received ? x.latency_sum / static_cast<double>(x.received) / 1e6 : 0;
    }
    for (const auto& [key, y] : tb) {
      ChannelComparison& r = rows[key];
      r.name_b = y.name;
      r.messages_b = y.messages;
      r.bytes_b = y.bytes;
      r.latency_ms_b = y.received ? y.latency_sum / static_cast<double>(y.received) / 1e6 : 0;
    }
    for (auto& [key, r] : rows) {
      const double lo = std::min(r.latency_ms_a, r.latency_ms_b), hi = std::max(r.latency_ms_a, r.latency_ms_b);
      const bool slower = hi - lo >= timing_ms && hi >= 2 * lo;
      if (r.messages_a != r.messages_b || r.bytes_a != r.bytes_b || slower) out->channels.push_back(r);
    }
  }

  const Trace &a_, &b_;
  DiffNames names_;
  std::vector<std::string> keys_a_, keys_b_, chan_a_, chan_b_;
  std::vector<uint32_t> b_to_a_;       // B's processes as A's (kNone: unmatched)
  std::vector<uint32_t> partner_;      // A's processes as B's
  std::vector<uint32_t> chan_b_to_a_;  // B's channels as A's
  std::vector<uint32_t> from_a_, from_b_;
};

}  // namespace

RunDiff diffRuns(const Trace& a, const Trace& b, double timing_ms, DiffNames names) {
  return Differ(a, b, names).run(timing_ms);
}

namespace {

// What makes two runs' findings the same one: its kind; the processes and
// channels it is about, by where they come from (the same in both runs);
// how each of its processes ended; for a finding about no process, its
// text.
std::string findingKey(const Trace& t, const Finding& f, const std::vector<std::string>& process_keys,
                       const std::vector<std::string>& channel_keys) {
  std::vector<std::string> parts;
  for (uint32_t p : f.processes) {
    const Process& process = t.processes[p];
    parts.push_back("p " + process_keys[p] + " " + std::to_string(static_cast<int>(process.end)) + " " +
                    std::to_string(process.end_code));
  }
  for (uint32_t c : f.channels) parts.push_back("c " + channel_keys[c]);
  std::sort(parts.begin(), parts.end());
  std::string key = std::to_string(static_cast<int>(f.kind));
  for (const auto& part : parts) key += '\n' + part;
  return f.processes.empty() ? key + '\n' + describe(t, f) : key;
}

std::vector<std::string> findingKeys(const Trace& t) {
  const auto process_keys = processKeys(t);
  const auto channel_keys = channelKeys(t, process_keys);
  std::vector<std::string> keys;
  for (const Finding& f : t.findings) keys.push_back(findingKey(t, f, process_keys, channel_keys));
  return keys;
}

}  // namespace

std::vector<FindingPair> pairFindings(const Trace& a, const Trace& b) {
  const auto keys_a = findingKeys(a), keys_b = findingKeys(b);
  std::multimap<std::string, uint32_t> in_b;  // each key's findings of the second run, in its order
  for (uint32_t k = 0; k < keys_b.size(); ++k) in_b.emplace(keys_b[k], k);
  std::vector<FindingPair> pairs;
  std::vector<bool> paired(b.findings.size(), false);
  for (uint32_t k = 0; k < keys_a.size(); ++k) {
    FindingPair pair{k, kNone};
    if (const auto it = in_b.lower_bound(keys_a[k]); it != in_b.end() && it->first == keys_a[k]) {
      pair.b = it->second;
      paired[it->second] = true;
      in_b.erase(it);
    }
    pairs.push_back(pair);
  }
  for (uint32_t k = 0; k < b.findings.size(); ++k)
    if (!paired[k]) pairs.push_back({kNone, k});
  auto severity = [&](const FindingPair& p) {
    return std::min(p.a != kNone ? a.findings[p.a].severity : Finding::Severity::Note,
                    p.b != kNone ? b.findings[p.b].severity : Finding::Severity::Note);
  };
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const FindingPair& x, const FindingPair& y) { return severity(x) < severity(y); });
  return pairs;
}

RunAlignment::RunAlignment(const Trace& a, const Trace& b, const RunDiff& diff) : runs_{&a, &b} {
  partner_[0] = diff.partner;
  partner_[0].resize(a.processes.size(), kNone);
  partner_[1].assign(b.processes.size(), kNone);
  for (uint32_t p = 0; p < partner_[0].size(); ++p)
    if (partner_[0][p] < b.processes.size()) partner_[1][partner_[0][p]] = p;
  for (int side = 0; side < 2; ++side) {
    const Trace& t = *runs_[side];
    compared_[side].resize(t.processes.size());
    for (uint32_t p = 0; p < t.processes.size(); ++p)
      for (uint32_t e : t.process_events[p])
        if (!timingOnly(t.events[e])) compared_[side][p].push_back(e);
  }
}

uint32_t RunAlignment::across(int from, uint32_t position) const {
  const Trace& t = *runs_[from];
  if (position >= t.events.size()) return kNone;
  const uint32_t p = t.events[position].process, q = partner_[from][p];
  if (q == kNone) return kNone;
  // Its rank among the process's compared calls (the last at or before it).
  const auto& mine = compared_[from][p];
  const auto& theirs = compared_[1 - from][q];
  const size_t rank = static_cast<size_t>(std::upper_bound(mine.begin(), mine.end(), position) - mine.begin());
  if (rank == 0 || theirs.empty()) return kNone;  // before its first compared call: nothing stands for it yet
  return theirs[std::min(rank, theirs.size()) - 1];
}

}  // namespace radar::analysis

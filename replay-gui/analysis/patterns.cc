#include "analysis/patterns.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

namespace radar::analysis {

const char* patternKindName(Pattern::Kind k) {
  switch (k) {
    case Pattern::Kind::RequestResponse:
      return "request/response";
    case Pattern::Kind::Stage:
      return "pipeline stage";
    case Pattern::Kind::Round:
      return "round";
    case Pattern::Kind::Burst:
      return "burst";
    case Pattern::Kind::Retry:
      return "retry";
    case Pattern::Kind::Loop:
      return "loop";
  }
  return "?";
}

const char* patternLinkKindName(PatternLink::Kind k) {
  switch (k) {
    case PatternLink::Kind::Pipeline:
      return "pipeline";
    case PatternLink::Kind::RequestResponse:
      return "request/response";
    case PatternLink::Kind::Queue:
      return "queue";
    case PatternLink::Kind::Exchange:
      return "exchange";
  }
  return "?";
}

std::string Pattern::text() const {
  std::string out;
  for (const Step& s : unit) {
    if (!out.empty()) out += ", ";
    out += s.text;
    if (s.max_run > 1)
      out += s.min_run == s.max_run ? " (" + std::to_string(s.max_run) + " times)"
                                    : " (" + std::to_string(s.min_run) + " to " + std::to_string(s.max_run) + " times)";
  }
  return out;
}

namespace {

using log::Category;
using LogKind = log::Kind;

// What a call is, for patterns: the kinds that say the same thing to a
// reader are one (write, send, sendmsg ...).
enum class Verb : uint8_t {
  Send,
  Receive,
  Eof,
  Connect,
  Accept,
  Close,
  Create,
  Exec,
  Wait,
  Signal,
  Kill,
  Thread,
  Exit,
  User
};

bool verbOf(const Event& e, Verb* verb) {
  const LogKind k = e.eventKind();
  switch (log::categoryOf(k)) {
    case Category::Send:
      *verb = Verb::Send;
      return true;
    case Category::Receive:
      // A receive that found nothing (EAGAIN) is the scheduler's, not the program's.
      if (e.flags & kEventFailed) return false;
      *verb = (e.flags & kEventEof) ? Verb::Eof : Verb::Receive;
      return true;
    case Category::Channel:
      if (k == LogKind::Connect && !isConnectOutcome(e))
        *verb = Verb::Connect;
      else if (k == LogKind::Accept)
        *verb = Verb::Accept;
      else if (k == LogKind::Close && e.endpoint != kNone)
        *verb = Verb::Close;
      else
        return false;
      return true;
    case Category::Process:
      switch (k) {
        case LogKind::Fork:
        case LogKind::Vfork:
        case LogKind::Spawn:
        case LogKind::System:
        case LogKind::Popen:
          *verb = Verb::Create;
          return true;
        case LogKind::Exec:
        case LogKind::ExecFailed:
          *verb = Verb::Exec;
          return true;
        case LogKind::Wait:
          *verb = Verb::Wait;
          return true;
        case LogKind::Signal:
        case LogKind::SignalWait:
          *verb = Verb::Signal;
          return true;
        case LogKind::Kill:
          *verb = Verb::Kill;
          return true;
        case LogKind::ThreadStart:
          *verb = Verb::Thread;
          return true;
        case LogKind::Exit:
          *verb = Verb::Exit;
          return true;
        default:
          return false;
      }
    case Category::User:
      *verb = Verb::User;
      return true;
    default:
      return false;  // readiness waits, clock reads: the scheduler's
  }
}

bool usesChannel(Verb v) {
  return v == Verb::Send || v == Verb::Receive || v == Verb::Eof || v == Verb::Connect || v == Verb::Accept ||
         v == Verb::Close;
}

struct Symbol {
  Verb verb;
  bool failed;
  uint32_t role;  // Finder::roles_, kNone
  uint32_t type;  // Finder::types_, kNone
  bool operator==(const Symbol& o) const {
    return verb == o.verb && failed == o.failed && role == o.role && type == o.type;
  }
};

struct SymbolHash {
  size_t operator()(const Symbol& s) const {
    return (static_cast<size_t>(s.role) * 0x9e3779b97f4a7c15ull) ^ (static_cast<size_t>(s.type) << 20) ^
           (static_cast<size_t>(s.verb) << 2) ^ static_cast<size_t>(s.failed);
  }
};

// Calls folded: one token per run of one symbol.
struct Tokens {
  std::vector<uint32_t> symbol, first, last, run;  // event positions of a run's first and last events
  size_t size() const { return symbol.size(); }
};

class Finder {
 public:
  Finder(const Trace& t, const PatternOptions& options) : t_(t), options_(options) {
    // The ends that moved data: a launcher that made a pipe and closed its
    // ends is not who its children talk to.
    for (auto& v : moved_) v.assign(t.endpoints.size(), false);
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      const Category c = log::categoryOf(e.eventKind());
      if ((c == Category::Send || c == Category::Receive) && e.endpoint < t.endpoints.size())
        moved_[c == Category::Send ? kSent : kReceived][e.endpoint] = true;
    }
    for (auto& v : endpoint_role_) v.assign(t.endpoints.size(), kNone - 1);  // not yet worked out
    // Where each send's bytes were first received (bursts' queues).
    first_receive_.assign(t.events.size(), kNone);
    for (uint64_t k = 0; k < t.edges.size(); ++k) {
      const Edge& edge = t.edges[k];
      if (edge.why == Edge::Why::Message && edge.to < first_receive_[edge.from]) first_receive_[edge.from] = edge.to;
    }
  }

  Patterns run() {
    // A process may show a few repetitions of what its namesakes, looked
    // at later, show beyond chance: then every process is looked at again
    // knowing all of its name's units, so the answer is not the order's.
    if (!findInAll()) {
      found_.clear();
      pattern_ids_.clear();
      symbols_considered_ = 0;
      findInAll();
    }
    Patterns out;
    out.symbols = symbols_considered_;
    for (Found& f : found_) {
      std::sort(f.pattern.channels_in.begin(), f.pattern.channels_in.end());
      f.pattern.channels_in.erase(std::unique(f.pattern.channels_in.begin(), f.pattern.channels_in.end()),
                                  f.pattern.channels_in.end());
      std::sort(f.pattern.channels_out.begin(), f.pattern.channels_out.end());
      f.pattern.channels_out.erase(std::unique(f.pattern.channels_out.begin(), f.pattern.channels_out.end()),
                                   f.pattern.channels_out.end());
      f.pattern.chance = std::exp(f.log_chance);
      f.pattern.kind = f.pattern.most_queued ? Pattern::Kind::Burst : kindOf(f.unit, f.pattern.unit);
      out.patterns.push_back(std::move(f.pattern));
    }
    std::stable_sort(out.patterns.begin(), out.patterns.end(), [](const Pattern& a, const Pattern& b) {
      return a.repetitions * a.unit.size() > b.repetitions * b.unit.size();
    });
    link(&out);
    return out;
  }

 private:
  // Looks at every process; false when a unit became known for a name
  // after a process of that name was looked at.
  bool findInAll() {
    std::vector<size_t> known_then(t_.processes.size());
    for (uint32_t p = 0; p < t_.processes.size(); ++p) {
      findIn(p);
      known_then[p] = known_units_[t_.processName(p)].size();
    }
    for (uint32_t p = 0; p < t_.processes.size(); ++p)
      if (known_units_[t_.processName(p)].size() > known_then[p]) return false;
    return true;
  }

  struct Found {
    Pattern pattern;
    std::vector<uint32_t> unit;  // symbols
    double log_chance = 0;
  };

  // The role of a channel end: who is at the other end, by name. For a
  // send, the processes that received on the channel; for a receive, those
  // that sent (a pipe that several servers read is not between them, and a
  // launcher that made a pipe and closed its ends is not who its children
  // talk to); "outside", "nobody".
  enum Way { kSent, kReceived, kEither };
  uint32_t roleOf(uint32_t endpoint, uint32_t self, Way way) {
    if (endpoint == kNone || endpoint >= t_.endpoints.size()) return kNone;
    uint32_t& role = endpoint_role_[way][endpoint];
    if (role != kNone - 1) return role;
    const Endpoint& ep = t_.endpoints[endpoint];
    std::vector<std::string> peers;
    bool outside = ep.external;
    if (ep.channel != kNone && ep.channel < t_.channels.size()) {
      const Channel& c = t_.channels[ep.channel];
      outside = outside || c.external;
      auto moved = [&](uint32_t other) {
        return way == kSent       ? moved_[kReceived][other]
               : way == kReceived ? moved_[kSent][other]
                                  : moved_[kSent][other] || moved_[kReceived][other];
      };
      for (uint32_t other : c.endpoints) {
        const uint32_t q = t_.endpoints[other].process;
        if (q == kNone || q == self || !moved(other)) continue;
        if (t_.processes[q].external) {
          outside = true;
          continue;
        }
        peers.push_back(t_.processName(q));
      }
    }
    std::sort(peers.begin(), peers.end());
    peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
    std::string text;
    for (const auto& n : peers) text += (text.empty() ? "" : ", ") + n;
    if (outside) text += text.empty() ? "outside" : " and outside";
    if (text.empty()) text = "nobody";
    role = intern(roles_, role_ids_, text);
    return role;
  }

  static uint32_t intern(std::vector<std::string>& names, std::unordered_map<std::string, uint32_t>& ids,
                         const std::string& name) {
    auto [it, added] = ids.emplace(name, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(name);
    return it->second;
  }

  uint32_t symbolOf(const Symbol& s) {
    auto [it, added] = symbol_ids_.emplace(s, static_cast<uint32_t>(symbols_.size()));
    if (added) symbols_.push_back(s);
    return it->second;
  }

  std::string stepText(const Symbol& s) const {
    const std::string role = s.role == kNone ? "" : roles_[s.role];
    const std::string type = s.type == kNone ? "" : types_[s.type] + " ";
    std::string text;
    switch (s.verb) {
      case Verb::Send:
        text = "sends " + type + "to " + role;
        break;
      case Verb::Receive:
        text = "receives " + type + "from " + role;
        break;
      case Verb::Eof:
        text = "reads end of file from " + role;
        break;
      case Verb::Connect:
        text = "connects to " + role;
        break;
      case Verb::Accept:
        text = "accepts " + role;
        break;
      case Verb::Close:
        text = "closes its end to " + role;
        break;
      case Verb::Create:
        text = "creates a process";
        break;
      case Verb::Exec:
        text = "executes a program";
        break;
      case Verb::Wait:
        text = "waits for a child";
        break;
      case Verb::Signal:
        text = "gets a signal";
        break;
      case Verb::Kill:
        text = "sends a signal";
        break;
      case Verb::Thread:
        text = "starts a thread";
        break;
      case Verb::Exit:
        text = "exits";
        break;
      case Verb::User:
        text = "logs a user event";
        break;
    }
    if (s.failed) text += " (fails)";
    return text;
  }

  // A stretch of back-to-back repetitions of a unit in a token sequence.
  struct Stretch {
    const Tokens* tokens;
    size_t i;
    uint32_t p;
    uint64_t reps;
    double chance;  // ln of the expected number by chance
    std::vector<uint32_t> unit() const {
      return {tokens->symbol.begin() + static_cast<ptrdiff_t>(i),
              tokens->symbol.begin() + static_cast<ptrdiff_t>(i + p)};
    }
  };

  static void append(Tokens* tokens, uint32_t symbol, uint32_t at) {
    if (tokens->size() && tokens->symbol.back() == symbol) {
      tokens->last.back() = at;
      ++tokens->run.back();
      return;
    }
    tokens->symbol.push_back(symbol);
    tokens->first.push_back(at);
    tokens->last.push_back(at);
    tokens->run.push_back(1);
  }

  // Each channel's calls first (a server's connections interleave in its
  // story; on each connection alone its dialogue repeats, and the evidence
  // is pooled over the channels), then the rest of the story as a whole
  // (a stage, a round: structure across channels).
  void findIn(uint32_t p) {
    const EventList events = t_.process_events[p];
    // Each call considered: its event, symbol, channel.
    struct Call {
      uint32_t at, symbol, channel;
    };
    std::vector<Call> calls;
    std::map<uint32_t, std::vector<uint32_t>> by_channel;  // channel -> its calls, channels in order
    for (uint32_t k = 0; k < events.size(); ++k) {
      const uint32_t at = events[k];
      const Event& e = t_.events[at];
      Verb verb;
      if (!verbOf(e, &verb)) continue;
      ++symbols_considered_;
      Symbol s{verb, false, kNone, kNone};
      // A connect in progress goes on in the kernel: not a failure.
      s.failed = (e.flags & kEventFailed) && !(verb == Verb::Connect && e.value == EINPROGRESS);
      if (usesChannel(verb))
        s.role = roleOf(e.endpoint, p, verb == Verb::Send ? kSent : verb == Verb::Receive ? kReceived : kEither);
      if ((verb == Verb::Send || verb == Verb::Receive) && options_.message_type) {
        const std::string type = options_.message_type(at);
        if (!type.empty()) s.type = intern(types_, type_ids_, type);
      }
      const uint32_t channel =
          usesChannel(verb) && e.endpoint < t_.endpoints.size() ? t_.endpoints[e.endpoint].channel : kNone;
      if (channel != kNone) by_channel[channel].push_back(static_cast<uint32_t>(calls.size()));
      calls.push_back({at, symbolOf(s), channel});
    }
    std::vector<bool> told(calls.size(), false);  // by a channel's pattern
    if (by_channel.size() >= 2) {
      std::vector<Tokens> channels;
      std::vector<const std::vector<uint32_t>*> members;
      channels.reserve(by_channel.size());
      for (const auto& [c, list] : by_channel) {
        channels.emplace_back();
        for (uint32_t k : list) append(&channels.back(), calls[k].symbol, calls[k].at);
        members.push_back(&list);
      }
      std::vector<Stretch> stretches;
      for (const Tokens& tokens : channels) stretchesOf(tokens, &stretches);
      std::vector<std::vector<bool>> covered(channels.size());
      for (size_t c = 0; c < channels.size(); ++c) covered[c].assign(channels[c].size(), false);
      report(p, stretches, [&](const Tokens* tokens, size_t k) {
        const size_t c = static_cast<size_t>(tokens - channels.data());
        covered[c][k] = true;
      });
      // The calls of the covered runs.
      for (size_t c = 0; c < channels.size(); ++c) {
        size_t call = 0;
        for (size_t k = 0; k < channels[c].size(); ++k) {
          if (covered[c][k])
            for (uint32_t r = 0; r < channels[c].run[k]; ++r) told[(*members[c])[call + r]] = true;
          call += channels[c].run[k];
        }
      }
    }
    Tokens whole;
    for (size_t k = 0; k < calls.size(); ++k)
      if (!told[k]) append(&whole, calls[k].symbol, calls[k].at);
    std::vector<bool> covered(whole.size(), false);
    std::vector<Stretch> stretches;
    stretchesOf(whole, &stretches);
    report(p, stretches, [&](const Tokens*, size_t k) { covered[k] = true; });
    for (size_t k = 0; k < whole.size(); ++k)
      if (!covered[k] && whole.run[k] >= kMinBurst && symbols_[whole.symbol[k]].verb == Verb::Send &&
          !symbols_[whole.symbol[k]].failed)
        burst(p, whole, k, events);
  }

  // A run of sends: how many of its messages waited unreceived at once.
  void burst(uint32_t process, const Tokens& tokens, size_t k, const EventList& events) {
    std::vector<uint32_t> sends;
    // The run's sends: the process's events from its first to its last.
    const uint32_t* begin = std::lower_bound(events.begin(), events.end(), tokens.first[k]);
    const uint32_t* end = std::upper_bound(begin, events.end(), tokens.last[k]);
    for (const uint32_t* at = begin; at != end; ++at)
      if (log::categoryOf(t_.events[*at].eventKind()) == Category::Send) sends.push_back(*at);
    // Received in the order sent (a stream), so one pointer walks the receives.
    uint32_t most = 0;
    size_t received = 0;
    for (size_t j = 0; j < sends.size(); ++j) {
      while (received < j && first_receive_[sends[received]] < sends[j]) ++received;
      most = std::max<uint32_t>(most, static_cast<uint32_t>(j + 1 - received));
    }
    if (most < 2) return;
    Found& f = foundFor(process, {tokens.symbol[k], kNone}, {tokens.symbol[k]}, 0);
    f.pattern.most_queued = std::max(f.pattern.most_queued, most);
    addOccurrence(f, process, tokens, k, 1, 1);
    // A burst counts its sends.
    f.pattern.repetitions += tokens.run[k] - 1;
    f.pattern.stretches.back().repetitions = tokens.run[k];
  }

  // ln of the expected number of stretches as unlikely as this one in a
  // random sequence of the process's calls: each call drawn alone with the
  // process's frequencies (f). After the first repetition, each run of the
  // stretch must be its step's symbol s after the previous step's s' (in
  // the folded sequence: f_s / (1 - f_s')), as many times in a row as the
  // step's shortest and longest runs allow (f_s^(a-1) · (1 - f_s^(b-a+1))).
  // Times the m places it could start and the units tried.
  double logChance(const Tokens& tokens, size_t i, uint32_t p, uint64_t reps) const {
    const uint32_t* T = tokens.symbol.data();
    double per_repetition = 0;
    for (uint32_t k = 0; k < p; ++k) {
      uint32_t shortest = ~0u, longest = 0;
      for (uint64_t r = 0; r < reps; ++r) {
        shortest = std::min(shortest, tokens.run[i + r * p + k]);
        longest = std::max(longest, tokens.run[i + r * p + k]);
      }
      const double f = frequency_[T[i + k]], before = frequency_[T[i + (k + p - 1) % p]];
      const double next = before < 1 ? std::min(1.0, f / (1 - before)) : 1.0;
      per_repetition += std::log(next) + (shortest - 1) * std::log(f) +
                        std::log1p(-std::pow(f, static_cast<double>(longest - shortest + 1)));
    }
    return std::log(static_cast<double>(tokens.size())) + std::log(static_cast<double>(options_.longest_unit)) +
           static_cast<double>(reps - 1) * per_repetition;
  }

  // Every stretch of repetitions in `tokens`, left to right, with its chance.
  void stretchesOf(const Tokens& tokens, std::vector<Stretch>* out) {
    const uint32_t* T = tokens.symbol.data();
    const size_t m = tokens.size();
    if (m < 4) return;
    // The calls' frequencies in this sequence (before folding).
    uint64_t calls = 0;
    for (size_t i = 0; i < m; ++i) calls += tokens.run[i];
    frequency_.assign(symbols_.size(), 0);
    for (size_t i = 0; i < m; ++i) frequency_[T[i]] += static_cast<double>(tokens.run[i]) / static_cast<double>(calls);
    for (size_t i = 0; i + 1 < m;) {
      uint32_t best_p = 0;
      uint64_t best_reps = 0, best_cover = 0;
      const size_t most = std::min<size_t>(options_.longest_unit, (m - i) / 2);
      for (uint32_t p = 1; p <= most; ++p) {
        size_t match = 0;
        while (i + p + match < m && T[i + match] == T[i + p + match]) ++match;
        const uint64_t reps = 1 + match / p;
        if (reps < 2 || reps * p <= best_cover) continue;
        best_p = p;
        best_reps = reps;
        best_cover = reps * p;
      }
      if (!best_p) {
        ++i;
        continue;
      }
      out->push_back({&tokens, i, best_p, best_reps, logChance(tokens, i, best_p, best_reps)});
      i += best_cover;
    }
  }

  // Reports the stretches whose units are beyond chance (or are a pattern
  // already found in another process of this name); `cover` is told each
  // token they cover.
  void report(uint32_t process, const std::vector<Stretch>& stretches,
              const std::function<void(const Tokens*, size_t)>& cover) {
    // A unit is beyond chance when one stretch is, or when several of its
    // stretches are each unlikely (E < 1): k stretches each expected at
    // most e times come by chance with probability about e^k / k! (Poisson).
    const double threshold = std::log(kChance);
    const std::string& name = t_.processName(process);
    // (A unit is the same from any of its steps: a stretch may begin at any.)
    std::map<std::vector<uint32_t>, std::vector<double>> unlikely;  // unit -> ln E of its unlikely stretches
    for (const Stretch& st : stretches)
      if (st.chance < 0) unlikely[canonical(st.unit())].push_back(st.chance);
    std::set<std::vector<uint32_t>> patterns;
    for (auto& [unit, chances] : unlikely) {
      std::sort(chances.begin(), chances.end());
      double log_factorial = 0;
      for (size_t k = 1; k <= chances.size(); ++k) {
        log_factorial += std::log(static_cast<double>(k));
        if (static_cast<double>(k) * chances[k - 1] - log_factorial < threshold) {
          patterns.insert(unit);
          break;
        }
      }
    }
    std::set<std::vector<uint32_t>>& known = known_units_[name];
    known.insert(patterns.begin(), patterns.end());
    for (const Stretch& st : stretches) {
      if (!known.count(canonical(st.unit()))) continue;
      Found& f = foundFor(process, canonical(st.unit()), st.unit(), st.chance);
      addOccurrence(f, process, *st.tokens, st.i, st.p, st.reps);
      for (size_t k = st.i; k < st.i + st.reps * st.p; ++k) cover(st.tokens, k);
    }
  }

  // The smallest of a unit's rotations: the same for every step it may be
  // found from.
  static std::vector<uint32_t> canonical(const std::vector<uint32_t>& unit) {
    std::vector<uint32_t> best = unit, r(unit.size());
    for (size_t k = 1; k < unit.size(); ++k) {
      for (size_t j = 0; j < unit.size(); ++j) r[j] = unit[(j + k) % unit.size()];
      if (r < best) best = r;
    }
    return best;
  }

  // The pattern of this process name and unit (`key`: the unit's canonical
  // rotation; bursts: the send's symbol and kNone), made at its first
  // occurrence with its steps in the order first found (`unit`).
  Found& foundFor(uint32_t process, const std::vector<uint32_t>& key, const std::vector<uint32_t>& unit,
                  double log_chance) {
    const std::string& name = t_.processName(process);
    auto [it, added] = pattern_ids_.emplace(std::make_pair(name, key), static_cast<uint32_t>(found_.size()));
    if (added) {
      Found f;
      f.unit = unit;
      f.log_chance = log_chance;
      f.pattern.process_name = name;
      for (uint32_t s : unit) f.pattern.unit.push_back({stepText(symbols_[s]), kNone, 0});
      found_.push_back(std::move(f));
    }
    Found& f = found_[it->second];
    f.log_chance = std::min(f.log_chance, log_chance);
    return f;
  }

  void addOccurrence(Found& f, uint32_t process, const Tokens& tokens, size_t i, uint32_t p, uint64_t reps) {
    Pattern& pat = f.pattern;
    // Where the pattern's first step is in this stretch: the stretch may
    // begin at another.
    uint32_t r = 0;
    for (; r < p; ++r) {
      bool same = true;
      for (uint32_t j = 0; j < p && same; ++j) same = f.unit[j] == tokens.symbol[i + (j + r) % p];
      if (same) break;
    }
    if (r == p) r = 0;  // (cannot be: the units are rotations of each other)
    if (pat.processes.empty() || pat.processes.back() != process) pat.processes.push_back(process);
    pat.repetitions += reps;
    ++pat.occurrences;
    const size_t end = i + reps * p;
    const uint32_t first = tokens.first[i], last = tokens.last[end - 1];
    pat.stretches.push_back({process, first, last, reps});
    if (pat.first_event == kNone || first < pat.first_event) {
      pat.example.clear();
      for (uint32_t k = 0; k < p; ++k) pat.example.push_back(tokens.first[i + (r + k) % p]);
    }
    pat.first_event = pat.first_event == kNone ? first : std::min(pat.first_event, first);
    pat.last_event = pat.last_event == kNone ? last : std::max(pat.last_event, last);
    for (size_t k = i; k < end; ++k) {
      Pattern::Step& step = pat.unit[((k - i) % p + p - r) % p];
      step.min_run = std::min(step.min_run, tokens.run[k]);
      step.max_run = std::max(step.max_run, tokens.run[k]);
      const Symbol& s = symbols_[tokens.symbol[k]];
      const Event& e = t_.events[tokens.first[k]];
      if (e.endpoint == kNone || e.endpoint >= t_.endpoints.size()) continue;
      const uint32_t c = t_.endpoints[e.endpoint].channel;
      if (c == kNone) continue;
      // Enough to link patterns by; a server of thousands of connections
      // need not list them all.
      constexpr size_t kMostChannels = 256;
      if (s.verb == Verb::Send && pat.channels_out.size() < kMostChannels) pat.channels_out.push_back(c);
      if ((s.verb == Verb::Receive || s.verb == Verb::Eof) && pat.channels_in.size() < kMostChannels)
        pat.channels_in.push_back(c);
    }
  }

  Pattern::Kind kindOf(const std::vector<uint32_t>& unit, const std::vector<Pattern::Step>& steps) const {
    struct Data {
      bool send;
      uint32_t role, max_run;
    };
    std::vector<Data> data;
    for (size_t k = 0; k < unit.size(); ++k) {
      const Symbol& s = symbols_[unit[k]];
      if (s.failed) return Pattern::Kind::Retry;
      if (s.verb == Verb::Send || s.verb == Verb::Receive)
        data.push_back({s.verb == Verb::Send, s.role, steps[k].max_run});
    }
    std::vector<uint32_t> in, out;
    for (const Data& d : data) (d.send ? out : in).push_back(d.role);
    auto distinct = [](std::vector<uint32_t> v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    const std::vector<uint32_t> roles_in = distinct(in), roles_out = distinct(out);
    if (!in.empty() && !out.empty() && roles_in.size() == 1 && roles_out == roles_in)
      return Pattern::Kind::RequestResponse;
    // Sends to two or more roles, one after another.
    if (roles_out.size() >= 2) {
      size_t first = data.size(), last = 0;
      for (size_t k = 0; k < data.size(); ++k)
        if (data[k].send) first = std::min(first, k), last = k;
      bool together = true;
      for (size_t k = first; k <= last; ++k) together = together && data[k].send;
      if (together) return Pattern::Kind::Round;
    }
    if (!in.empty() && !out.empty()) {
      std::vector<uint32_t> both;
      std::set_intersection(roles_in.begin(), roles_in.end(), roles_out.begin(), roles_out.end(),
                            std::back_inserter(both));
      if (both.empty()) {
        for (const Data& d : data)
          if (d.send && d.max_run > 1) return Pattern::Kind::Burst;
        return Pattern::Kind::Stage;
      }
    }
    for (const Data& d : data)
      if (d.send && d.max_run > 1) return Pattern::Kind::Burst;
    return Pattern::Kind::Loop;
  }

  // Patterns joined where one sends on a channel another receives on.
  static bool meet(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (a[i] == b[j]) return true;
      a[i] < b[j] ? ++i : ++j;
    }
    return false;
  }

  static void link(Patterns* out) {
    const auto& ps = out->patterns;
    const size_t n = ps.size();
    std::vector<uint32_t> root(n);
    std::iota(root.begin(), root.end(), 0u);
    auto find = [&](uint32_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t a = 0; a < n; ++a)
      for (uint32_t b = 0; b < n; ++b)
        if (a != b && meet(ps[a].channels_out, ps[b].channels_in)) {
          edges.emplace_back(a, b);
          root[find(a)] = find(b);
        }
    std::map<uint32_t, std::vector<uint32_t>> groups;
    for (uint32_t a = 0; a < n; ++a) groups[find(a)].push_back(a);
    for (auto& [r, members] : groups) {
      if (members.size() < 2) continue;
      PatternLink l;
      bool answered = false, stages = true, queue = false;
      for (const auto& [a, b] : edges) {
        if (find(a) != r) continue;
        if (ps[a].kind == Pattern::Kind::Burst) queue = true;
        const bool back = std::find(edges.begin(), edges.end(), std::make_pair(b, a)) != edges.end();
        if (back && ps[a].kind == Pattern::Kind::RequestResponse && ps[b].kind == Pattern::Kind::RequestResponse)
          answered = true;
        if (back) stages = false;
      }
      l.kind = answered ? PatternLink::Kind::RequestResponse
               : queue  ? PatternLink::Kind::Queue
               : stages ? PatternLink::Kind::Pipeline
                        : PatternLink::Kind::Exchange;
      l.patterns = sendersFirst(std::move(members), edges, ps);
      out->links.push_back(std::move(l));
    }
  }

  // Senders before receivers, as the messages go between them (a
  // pipeline's stages in order, whichever began first); where they go
  // round (a request and its answer), the one that began first.
  static std::vector<uint32_t> sendersFirst(std::vector<uint32_t> members,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& edges,
                                            const std::vector<Pattern>& ps) {
    std::sort(members.begin(), members.end(),
              [&](uint32_t a, uint32_t b) { return ps[a].first_event < ps[b].first_event; });
    std::vector<uint32_t> order;
    while (!members.empty()) {
      auto fed = [&](uint32_t m) {  // a member still to place sends to it
        return std::any_of(edges.begin(), edges.end(), [&](const auto& e) {
          return e.second == m && e.first != m && std::find(members.begin(), members.end(), e.first) != members.end();
        });
      };
      auto next = std::find_if_not(members.begin(), members.end(), fed);
      if (next == members.end()) next = members.begin();
      order.push_back(*next);
      members.erase(next);
    }
    return order;
  }

  const Trace& t_;
  const PatternOptions& options_;
  std::vector<uint32_t> first_receive_;     // by event: kNone unless a received send
  std::vector<uint32_t> endpoint_role_[3];  // by Way, by endpoint
  std::vector<bool> moved_[2];              // by endpoint: sent on, received on
  std::vector<std::string> roles_, types_;
  std::unordered_map<std::string, uint32_t> role_ids_, type_ids_;
  std::vector<Symbol> symbols_;
  std::unordered_map<Symbol, uint32_t, SymbolHash> symbol_ids_;
  std::map<std::pair<std::string, std::vector<uint32_t>>, uint32_t> pattern_ids_;
  // By process name: the units beyond chance in one of its processes.
  std::unordered_map<std::string, std::set<std::vector<uint32_t>>> known_units_;
  std::vector<Found> found_;
  uint64_t symbols_considered_ = 0;
  std::vector<double> frequency_;  // by symbol, in the process being scanned
};

}  // namespace

Patterns findPatterns(const Trace& t, const PatternOptions& options) { return Finder(t, options).run(); }

namespace {
// "sends to b (3 times)" -> "sends to b"
std::string withoutRuns(std::string step) {
  if (step.size() > 7 && step.compare(step.size() - 7, 7, " times)") == 0) {
    const size_t open = step.rfind(" (");
    if (open != std::string::npos &&
        step.substr(open + 2, step.size() - 7 - (open + 2)).find_first_not_of("0123456789 to") == std::string::npos)
      step.erase(open);
  }
  return step;
}
}  // namespace

std::vector<NamedStretch> namedStretches(const Patterns& found, const std::vector<PatternName>& names,
                                         std::vector<bool>* matched) {
  std::vector<NamedStretch> out;
  if (matched) matched->assign(names.size(), false);
  for (uint32_t n = 0; n < names.size(); ++n) {
    std::vector<std::string> want;
    for (const auto& s : names[n].steps) want.push_back(withoutRuns(s));
    for (uint32_t k = 0; k < found.patterns.size(); ++k) {
      const Pattern& p = found.patterns[k];
      if (p.unit.size() != want.size() || (!names[n].process.empty() && names[n].process != p.process_name)) continue;
      // The steps as a cycle: the unit may have been found from any of them.
      bool same = false;
      for (size_t r = 0; r < want.size() && !same; ++r) {
        same = true;
        for (size_t j = 0; j < want.size() && same; ++j) same = p.unit[(r + j) % want.size()].text == want[j];
      }
      if (!same) continue;
      if (matched) (*matched)[n] = true;
      for (const auto& st : p.stretches) out.push_back({n, k, st.process, st.first, st.last, st.repetitions});
    }
  }
  std::sort(out.begin(), out.end(), [](const NamedStretch& a, const NamedStretch& b) { return a.first < b.first; });
  return out;
}

}  // namespace radar::analysis

#include "trace/merge.h"

#include "trace/merger.h"
#include "trace/mpi_library.h"

namespace radar::trace {
namespace merging {

void Merger::run(StepTimer& step) {
  std::vector<std::pair<uint32_t, uint32_t>> by_start;
  for (uint32_t p = 0; p < raw_.ranges.size(); ++p)
    if (raw_.ranges[p].first < raw_.ranges[p].second) by_start.push_back({raw_.ranges[p].first, p});
  std::sort(by_start.begin(), by_start.end());
  for (const auto& [start, p] : by_start) {
    starts_.push_back(start);
    owners_.push_back(p);
  }
  // Events before the first range (none, but a damaged recording) count as
  // the first range's, as before.
  owner_block_.assign((raw_.events.size() >> kOwnerBlockShift) + 1, 0);
  for (uint32_t b = 0, k = 0; b < owner_block_.size(); ++b) {
    while (k + 1 < starts_.size() && starts_[k + 1] <= (b << kOwnerBlockShift)) ++k;
    owner_block_[b] = k;
  }
  for (const Process& p : raw_.processes) realtime_offset_.push_back(p.realtime_offset);
  linkProcesses();
  step("link");
  buildChannels();
  step("channels");
  matchStreams();
  step("streams");
  matchDatagrams();
  step("datagrams");
  matchCounters();
  step("counters");
  matchMpi();
  std::vector<std::vector<std::pair<uint32_t, MpiCall>>>().swap(raw_.mpi_calls);
  step("mpi");
  matchSync();
  step("sync");
  otherEdges();
  std::map<uint32_t, std::string>().swap(raw_.addresses);
  std::map<uint32_t, std::vector<uint32_t>>().swap(raw_.message_lengths);
  step("other edges");
  alignHostClocks();
  linearize();
  step("linearize");
  t_.processes = std::move(raw_.processes);
  endings();
  step("endings");
}

uint32_t Merger::lastEventBefore(uint32_t p, int64_t ns) const {
  const auto [begin, end] = raw_.ranges[p];
  uint32_t lo = begin, hi = end;  // find the first event returning after ns
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (raw_.events[mid].returnNs() <= ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == begin ? kNone : lo - 1;
}

// Who created whom: the header says which log and counter, except for
// processes started by system() or popen(), found by pid and time.
void Merger::linkProcesses() {
  auto& procs = raw_.processes;
  std::unordered_map<uint64_t, uint32_t> by_log;
  for (auto& p : procs) by_log[p.log_id] = p.index;
  for (auto& p : procs) {
    if (p.origin == log::Origin::Root) continue;
    uint32_t parent = kNone;
    if (p.parent_log_id) {
      auto it = by_log.find(p.parent_log_id);
      if (it != by_log.end()) parent = it->second;
      // A flight recording: the parent's counters count from its oldest
      // kept event; a child made before that has no creating event here.
      const uint64_t base = parent == kNone ? 0 : procs[parent].counter_base;
      if (base) p.parent_counter = p.parent_counter > base ? p.parent_counter - base : 0;
    }
    if (parent == kNone && p.origin == log::Origin::Attached) {
      // Both were running when radar attach woke them, in any order: its
      // parent is the image of its parent pid that was last to start.
      for (auto& q : procs)
        if (q.pid == p.ppid && q.boot == p.boot && q.index != p.index &&
            (parent == kNone || procs[parent].generation < q.generation))
          parent = q.index;
      p.parent_counter = 0;  // it was created before the recording began
    } else if (parent == kNone && p.ppid && raw_.ranges[p.index].first < raw_.ranges[p.index].second) {
      // By pid and time: the image of the parent pid alive when this one started.
      const int64_t start = raw_.events[raw_.ranges[p.index].first].entry_ns;
      for (auto& q : procs) {
        if (q.pid != p.ppid || q.boot != p.boot || q.index == p.index) continue;
        const auto [b, e] = raw_.ranges[q.index];
        if (b == e || raw_.events[b].entry_ns > start) continue;
        if (parent == kNone || raw_.events[raw_.ranges[parent].first].entry_ns < raw_.events[b].entry_ns)
          parent = q.index;
      }
      if (parent != kNone) {
        const uint32_t before = lastEventBefore(parent, start);
        p.parent_counter = before == kNone ? 0 : raw_.events[before].counter;
      }
    }
    p.parent = parent;
    if (parent != kNone && p.origin == log::Origin::Execed) {
      procs[parent].next_image = p.index;
      procs[parent].end = Process::End::Execed;
    }
  }
}

// Where each process starts and ends, and how it ended.
void Merger::endings() {
  // Sends received in part: by position now.
  for (auto& [send, bytes] : t_.received_in_part) send = t_.process_event_positions[send];
  std::sort(t_.received_in_part.begin(), t_.received_in_part.end());
  for (auto& race : t_.mpi_races)
    for (uint32_t* at : {&race.receive, &race.got, &race.other}) *at = t_.process_event_positions[*at];
  auto& procs = t_.processes;
  t_.process_events.assign(procs.size(), {});
  t_.counter_events.assign(procs.size(), {});
  // A process whose threads' events the story put in another order than
  // the log's gets its own list in the story's order.
  std::vector<uint32_t> reordered;
  size_t reordered_events = 0;
  for (auto& p : procs) {
    const auto [b, e] = raw_.ranges[p.index];
    if (b == e) continue;
    const EventList list(t_.process_event_positions.data() + b, e - b);
    t_.process_events[p.index] = t_.counter_events[p.index] = list;
    if (!std::is_sorted(list.begin(), list.end())) {
      reordered.push_back(p.index);
      reordered_events += list.size();
    }
  }
  t_.reordered_positions.resize(reordered_events);
  for (uint32_t at = 0; uint32_t p : reordered) {
    const EventList& by_counter = t_.counter_events[p];
    uint32_t* mine = t_.reordered_positions.data() + at;
    std::copy(by_counter.begin(), by_counter.end(), mine);
    std::sort(mine, mine + by_counter.size());
    t_.process_events[p] = EventList(mine, by_counter.size());
    at += static_cast<uint32_t>(by_counter.size());
  }
  for (auto& p : procs) {
    const EventList& list = t_.process_events[p.index];
    if (list.empty()) continue;
    p.first_event = list.front();
    p.last_event = list.back();
    p.event_count = static_cast<uint32_t>(list.size());
  }
  // An image whose last event is a successful exec, with no log after it,
  // went on into a program radar could not record.
  for (Process& p : procs)
    if (p.next_image == kNone && p.last_event != kNone && t_.events[p.last_event].eventKind() == Kind::Exec &&
        !(t_.events[p.last_event].flags & kEventFailed))
      p.end = Process::End::Execed;
  std::vector<uint32_t> waits;  // successful wait() calls, for the statuses they reaped
  for (uint32_t i : exits_and_waits_) {
    const Event& e = t_.events[i];
    Process& p = procs[e.process];
    if (e.eventKind() == Kind::Exit && p.end != Process::End::Execed) {
      p.end = Process::End::Exited;
      p.end_code = e.result & 0xff;
    }
    if (e.eventKind() == Kind::Wait && e.value && !(e.flags & kEventFailed)) waits.push_back(i);
  }
  std::unordered_map<int64_t, std::vector<uint32_t>> by_pid;
  for (auto& p : procs) by_pid[int64_t{p.boot} << 32 | static_cast<uint32_t>(p.pid)].push_back(p.index);
  // The last image of a pid takes the status its parent (or radar record) reaped.
  auto reaped = [&](uint32_t boot, int32_t pid, int status) {
    auto it = by_pid.find(int64_t{boot} << 32 | static_cast<uint32_t>(pid));
    if (it == by_pid.end()) return;
    uint32_t last = it->second.front();
    for (uint32_t q : it->second)
      if (procs[q].generation >= procs[last].generation) last = q;
    Process& p = procs[last];
    if (endAsReaped(p, status))
      // (An image whose last event is its exec ended in a new program, whose
      // log is missing or unreadable: another finding.)
      // (Nor one whose log lost its end: damaged, or events lost.)
      p.ended_unseen = !p.external && !p.control.closed && p.last_event != kNone && p.damage.empty() &&
                       !p.control.incomplete && t_.events[p.last_event].eventKind() != Kind::Exec;
  };
  for (uint32_t i : waits) {
    const Event& e = t_.events[i];
    reaped(procs[e.process].boot, static_cast<int32_t>(e.value), e.result);
  }
  for (const auto& rec : raw_.recordings)
    for (const auto& r : rec.reaped()) {
      for (uint32_t boot = 0; boot < t_.boots.size(); ++boot) reaped(boot, r.pid(), r.status());
    }
}

}  // namespace merging

namespace {

using merging::Merger;
using merging::StepTimer;

// Recordings given together (several hosts, or runs of one) that share no
// channel: nothing in one is related to anything in another. Their groups,
// when there are two or more.
void groupRecordings(Trace& t, const std::vector<std::string>& ids) {
  const size_t n = t.directories.size();
  if (n < 2) return;
  auto recordingOf = [&](const Process& p) {
    for (size_t d = 0; d < n; ++d) {
      std::string dir = t.directories[d];
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (p.log_path == dir || (p.log_path.size() > dir.size() && p.log_path.compare(0, dir.size(), dir) == 0 &&
                                p.log_path[dir.size()] == '/'))
        return d;
    }
    return n;
  };
  std::vector<size_t> of(t.processes.size(), n);
  for (const Process& p : t.processes)
    if (!p.external) of[p.index] = recordingOf(p);
  std::vector<size_t> root(n);
  for (size_t d = 0; d < n; ++d) root[d] = d;
  auto find = [&](size_t d) {
    while (root[d] != d) d = root[d] = root[root[d]];
    return d;
  };
  // Parts of one recording (radar record --join on other hosts) belong
  // together, whatever channels they share.
  for (size_t d = 0; d < n && d < ids.size(); ++d)
    for (size_t e = 0; e < d; ++e)
      if (!ids[d].empty() && ids[d] == ids[e]) root[find(d)] = find(e);
  for (const Channel& c : t.channels) {
    if (c.external) continue;  // a terminal both wrote to relates nothing
    size_t first = n;
    for (uint32_t e : c.endpoints) {
      const uint32_t p = t.endpoints[e].process;
      if (p == kNone || of[p] == n) continue;
      if (first == n)
        first = of[p];
      else
        root[find(of[p])] = find(first);
    }
  }
  std::map<size_t, std::vector<std::string>> groups;
  for (size_t d = 0; d < n; ++d) groups[find(d)].push_back(t.directories[d]);
  if (groups.size() < 2) return;
  for (auto& [r, dirs] : groups) t.unrelated_groups.push_back(std::move(dirs));
  t.warnings.push_back(describeUnrelatedGroups(t.unrelated_groups));
}

}  // namespace

std::string describeUnrelatedGroups(const std::vector<std::vector<std::string>>& groups) {
  std::string text =
      "the recordings given share no channel between these groups, so nothing in one group is "
      "related to anything in another:";
  for (const auto& dirs : groups) {
    text += " {";
    for (size_t k = 0; k < dirs.size(); ++k) text += (k ? ", " : "") + dirs[k];
    text += "}";
  }
  return text;
}

// A recorded image that exec'd a program radar could not record (statically
// linked, set-user-ID, a Go program ...) goes on as that program: an image
// of its own, with no events, named with why, holding the channel ends open
// at the exec, and ended as its parent (or radar record) reaped it. The
// replay then draws it, with its channels to recorded processes.
void addUnrecordedImages(Trace& t, const std::vector<proto::Recording>& recordings) {
  const uint32_t recorded = static_cast<uint32_t>(t.processes.size());
  std::vector<uint32_t> images;  // the recorded images that exec'd into one
  for (uint32_t index = 0; index < recorded; ++index) {
    const Process& p = t.processes[index];
    if (p.end == Process::End::Execed && p.next_image == kNone && p.last_event != kNone) images.push_back(index);
  }
  if (images.empty()) return;
  // One pass each over the waits and the ends, whatever the number of images.
  std::map<std::pair<uint32_t, int32_t>, int> waited;  // (boot, pid) -> the status a wait reaped
  for (const Event& e : t.events)
    if (e.eventKind() == Kind::Wait && !(e.flags & kEventFailed))
      waited[{t.processes[e.process].boot, static_cast<int32_t>(e.value)}] = e.result;
  std::vector<std::vector<uint32_t>> ends_of(recorded);
  for (uint32_t k = 0; k < t.endpoints.size(); ++k)
    if (t.endpoints[k].process < recorded) ends_of[t.endpoints[k].process].push_back(k);
  for (uint32_t index : images) {
    const Process p = t.processes[index];
    Process q;
    q.index = static_cast<uint32_t>(t.processes.size());
    q.pid = p.pid;
    q.generation = p.generation + 1;
    q.host = p.host;
    q.boot = p.boot;
    q.origin = log::Origin::Execed;
    q.parent = p.index;
    q.parent_log_id = p.log_id;
    q.ppid = p.ppid;
    q.realtime_offset = p.realtime_offset;
    q.external = true;
    q.not_recorded = "not recorded";
    for (const auto& n : t.unrecorded_notes)
      if (n.pid == p.pid) {
        q.executable = n.executable;
        q.not_recorded = n.what;
      }
    {
      // The exec's strings: the program as named, then its arguments.
      log::Record r;
      std::vector<std::string> strings;
      std::string error;
      if (t.record(p.last_event, &r, nullptr, &strings, &error) && !strings.empty()) {
        if (q.executable.empty()) q.executable = strings.front();
        q.argv.assign(strings.begin() + 1, strings.end());
      }
    }
    q.recorded_name =
        q.executable.empty() ? p.recorded_name + "'s next program" : q.executable.substr(q.executable.rfind('/') + 1);
    // Its end: the status a recorded parent, or radar record, reaped.
    if (auto it = waited.find({p.boot, p.pid}); it != waited.end()) merging::endAsReaped(q, it->second);
    if (q.end == Process::End::Unknown)
      for (const auto& rec : recordings)
        for (const auto& r : rec.reaped())
          if (r.pid() == p.pid) merging::endAsReaped(q, r.status());
    // The ends open at the exec, as the channels' names count them
    // (Merger::unrecordedHolder).
    std::map<uint32_t, int> open;
    for (uint32_t k : ends_of[index]) open[k] = 1;
    merging::countOpenEnds(t.events, t.process_events[p.index], &open);
    for (const auto& [k, count] : open) {
      if (count <= 0) continue;
      Endpoint held = t.endpoints[k];
      held.process = q.index;
      held.inherited = true;
      const uint32_t id = static_cast<uint32_t>(t.endpoints.size());
      t.endpoints.push_back(held);
      if (held.channel != kNone) t.channels[held.channel].endpoints.push_back(id);
    }
    t.processes[index].next_image = q.index;
    t.processes.push_back(std::move(q));
    t.process_events.emplace_back();
    t.counter_events.emplace_back();
  }
}

std::unique_ptr<Trace> merge(RawRecording&& raw, const std::function<void(int step)>& progress) {
  StepTimer step(progress);
  auto t = std::make_unique<Trace>();
  t->boots = raw.boots;
  t->directories = raw.directories;
  for (const auto& rec : raw.recordings) {
    if (!rec.network().empty()) t->networks.push_back({rec.network(), rec.network_file()});
    for (const auto& e : rec.executables()) t->executables.push_back({e.path(), e.size(), e.mtime_ns(), e.xxh64()});
    for (const auto& p : rec.problems())
      if (p.pid() > 0) t->unrecorded_notes.push_back({p.pid(), p.executable(), p.what()});
    if (rec.frozen()) t->frozen_at_ns = std::max(t->frozen_at_ns, rec.end_realtime_ns());
  }
  if (raw.running_at_ns) {
    t->running = true;
    t->frozen_at_ns = std::max(t->frozen_at_ns, raw.running_at_ns);
  }
  Merger(raw, *t).run(step);
  t->endpoints = std::move(raw.endpoints);
  t->problems = std::move(raw.problems);
  t->warnings.insert(t->warnings.end(), raw.warnings.begin(), raw.warnings.end());
  t->sent_bytes = std::move(raw.sent_bytes);
  addUnrecordedImages(*t, raw.recordings);
  for (const Process& p : t->processes) t->several_hosts |= p.host != t->processes.front().host;
  groupRecordings(*t, raw.directory_ids);
  markMpiLibrary(*t);
  findProblems(*t);
  step("findings");
  return t;
}

std::unique_ptr<Trace> loadTrace(const std::vector<std::string>& dirs, const LoadOptions& options, std::string* error) {
  RawRecording raw;
  StepTimer step;
  if (!loadLogs(dirs, options, &raw, error)) return nullptr;
  raw.keep_hashes = options.keep_hashes;
  raw.running_at_ns = options.running_at_ns;
  step("load");
  auto t = merge(std::move(raw), options.merge_progress);
  if (t->unrelated_groups.size() > 1 && !options.merge_unrelated) {
    *error = describeUnrelatedGroups(t->unrelated_groups) +
             "\nThey are not merged into one story: to compare runs of a program, use `radar diff RUN_A RUN_B`; "
             "to merge them anyway, give --merge-unrelated";
    return nullptr;
  }
  return t;
}

}  // namespace radar::trace

// `radar events DIR...`: RADAR's running narrative, one line per event.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "analysis/narrative.h"
#include "analysis/patterns.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "export/event_table.h"
#include "trace/findings.h"
#include "trace/live.h"

namespace radar::cli {

const char kEventsHelp[] =
    "usage: radar events [OPTIONS] DIR...\n\n"
    "Tells what happened in a recording, one event per line, in causal order:\n"
    "  Process parser[4123] receives a message from scanner[4122] on pipe 2 (32 bytes). Event 9.\n"
    "\"Event N\" is the event's place in the replay, the number to give `radar replay\n"
    "--at-event`. Several directories (say, one per host) are merged into one story.\n"
    "\n"
    "  -p, --process P   only events of P: a pid, a program name, or name[pid]\n"
    "                    (repeat for several)\n"
    "  -c, --channel C   only events on channel C (its name, e.g. 'pipe 2', or number;\n"
    "                    a connection to a named socket is named after the process\n"
    "                    that connected: 'unix socket /run/s \u2190 client[42]'; the\n"
    "                    socket's name selects every connection to it)\n"
    "  -k, --kind K      only events of kind K: send, receive, process, channel,\n"
    "                    readiness, user, signal, mpi, or a call name (write, fork,\n"
    "                    MPI_Send ..., a collective: MPI_Allreduce ...)\n"
    "  --rank N          only events of MPI rank N (its rank in MPI_COMM_WORLD)\n"
    "  --tag T           only MPI messages with tag T\n"
    "  --library         also what an MPI library did on its own: a rank's system\n"
    "                    calls inside its MPI calls and on the library's threads\n"
    "                    (its transport; hidden by default: the MPI calls tell it)\n"
    "  --from N          from event N on\n"
    "  --to N            up to event N\n"
    "  --decode          show what each send and receive carried, field by field\n"
    "                    with a network description, else as text or hex\n"
    "  --expand          tell every event of the patterns a description names (by\n"
    "                    default each stretch of one is told as one event)\n"
    "  --json            the narration as JSON, one object per line\n"
    "  --format F        text (the default), or the event table (the columns of\n"
    "                    `radar sql`'s events table, docs/queries.md) as csv or\n"
    "                    jsonl: numbers and ids, stable for tools\n"
    "  -f, --follow      while `radar record` is still recording into DIR, tell the\n"
    "                    events as they happen (like tail -f), each once its place in\n"
    "                    the story is sure; ends when the recording does\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0; 2 when the recording cannot be read or an option is wrong;\n"
    "3 when a log was damaged or unreadable (the rest is told: the story is partial).\n";

const OptionSpec kEventsOptionList[] = {{"process", 'p', "P"},
                                        {"channel", 'c', "C"},
                                        {"kind", 'k', "K"},
                                        {"rank", 0, "N"},
                                        {"tag", 0, "T"},
                                        {"library", 0, nullptr},
                                        {"from", 0, "N"},
                                        {"to", 0, "N"},
                                        {"decode", 0, nullptr},
                                        {"expand", 0, nullptr},
                                        {"json", 0, nullptr},
                                        {"format", 0, "F", InUsage::kOr},
                                        {"follow", 'f', nullptr},
                                        kNetOption,
                                        kNoNetOption,
                                        kMergeUnrelatedOption};
const std::span<const OptionSpec> kEventsOptions{kEventsOptionList};

namespace {

// Where the story stops seeing a process (it began to use io_uring, shared
// memory ...): a line after the event it began after, or before its first.
class UnseenMarks {
 public:
  explicit UnseenMarks(const trace::Trace& t) {
    for (trace::UnseenLine& line : trace::unseenLines(t)) {
      const uint32_t first = t.processes[line.process].first_event;
      if (line.event != trace::kNone)
        after_.emplace(line.event, std::move(line.text));
      else if (first != trace::kNone)
        before_.emplace(first, std::move(line.text));
    }
  }
  void before(uint32_t i) const { print(before_, i); }
  void after(uint32_t i) const { print(after_, i); }

 private:
  static void print(const std::multimap<uint32_t, std::string>& marks, uint32_t i) {
    for (auto [b, e] = marks.equal_range(i); b != e; ++b)
      std::printf("  Not seen from here: %s.\n", terminalSafe(b->second).c_str());
  }
  std::multimap<uint32_t, std::string> before_, after_;
};

// What a data event carried, printed as it is decoded (a message can be
// hundreds of megabytes), each line indented under its event.
class ContentsPrinter {
 public:
  ContentsPrinter(const netdesc::Binding* net, const trace::Trace& t) : net_(net), t_(t) {
    printer_.spill = [this](std::string_view piece) {
      for (size_t at = 0; at < piece.size();) {
        if (line_start_) std::fputs("    ", stdout);
        size_t end = piece.find('\n', at);
        line_start_ = end != std::string_view::npos;
        if (!line_start_) end = piece.size();
        printTerminalSafe(stdout, piece.substr(at, end - at));
        if (line_start_) std::fputc('\n', stdout);
        at = end + line_start_;
      }
    };
  }
  void operator()(uint32_t i) {
    std::string error;
    line_start_ = true;
    if (!netdesc::describeContents(net_, t_, i, &printer_, &error))
      printer_.spill("(cannot read its bytes: " + error + ")\n");
    if (!line_start_) std::fputc('\n', stdout);
  }

 private:
  const netdesc::Binding* net_;
  const trace::Trace& t_;
  netdesc::TextOut printer_;
  bool line_start_ = true;
};

// The stretches of the patterns a description names, and by event the
// stretch it belongs to (kNone; empty when there are none).
struct Stretches {
  std::vector<analysis::PatternName> names;
  std::vector<analysis::NamedStretch> stretches;
  std::vector<uint32_t> inside;

  Stretches() = default;
  Stretches(const netdesc::Binding* net, const trace::Trace& t) {
    if ((names = netdesc::patternNames(net)).empty()) return;
    const analysis::Patterns found = analysis::findPatterns(t, netdesc::patternOptions(net, t));
    stretches = analysis::namedStretches(found, names);
    if (!stretches.empty()) inside.assign(t.events.size(), trace::kNone);
    for (uint32_t k = 0; k < stretches.size(); ++k) {
      const trace::EventList events = t.process_events[stretches[k].process];
      const uint32_t* at = std::lower_bound(events.begin(), events.end(), stretches[k].first);
      for (; at != events.end() && *at <= stretches[k].last; ++at) inside[*at] = k;
    }
  }
};

// One event as a line of JSON; with `contents`, what it carried, decoded.
void printJsonEvent(const trace::Trace& t, const analysis::Narrator& narrator, uint32_t i,
                    const std::function<std::string(uint32_t)>& contents) {
  const trace::Event& e = t.events[i];
  const uint32_t ch = t.channelOf(i);
  const trace::Process& p = t.processes[e.process];
  std::printf(
      "{\"event\":%u,\"number\":%u,\"process\":%s,\"pid\":%d,\"counter\":%u,\"thread\":%u,"
      "\"kind\":%s,\"time_ns\":%lld,\"duration_ns\":%lld,\"result\":%d",
      i + 1, e.number, jsonString(t.processName(p.index)).c_str(), p.pid, e.counter, e.thread,
      jsonString(trace::isConnectOutcome(e) ? "getsockopt" : log::kindName(e.eventKind())).c_str(),
      static_cast<long long>(t.wallTime(i)), static_cast<long long>(e.durationNs()), e.result);
  if (ch != trace::kNone) std::printf(",\"channel\":%s", jsonString(t.channelName(ch)).c_str());
  if (log::isData(e.eventKind())) {
    std::printf(",\"bytes\":%u", e.value);
    const auto others =
        log::categoryOf(e.eventKind()) == log::Category::Send ? narrator.receivers(i) : narrator.senders(i);
    std::printf(",\"%s\":[", log::categoryOf(e.eventKind()) == log::Category::Send ? "to" : "from");
    for (size_t k = 0; k < others.size(); ++k)
      std::printf("%s%s", k ? "," : "", jsonString(t.label(others[k])).c_str());
    // The events at the other end: the receives of a send, the sends a
    // receive got bytes from.
    std::vector<uint32_t> ends;
    if (log::categoryOf(e.eventKind()) == log::Category::Send) {
      for (uint32_t k : t.messagesFrom(i)) ends.push_back(t.edges[k].to);
    } else {
      for (auto [b, end] = t.incoming(i); b != end; ++b)
        if (b->why == trace::Edge::Why::Message) ends.push_back(b->from);
    }
    std::printf("],\"%s_events\":[", log::categoryOf(e.eventKind()) == log::Category::Send ? "to" : "from");
    for (size_t k = 0; k < ends.size(); ++k) std::printf("%s%u", k ? "," : "", ends[k] + 1);
    std::printf("]");
    if (contents && !(e.flags & trace::kEventFailed)) std::printf(",\"decoded\":%s", jsonString(contents(i)).c_str());
  }
  if (e.flags & trace::kEventFailed) std::printf(",\"failed\":true");
  if (e.flags & trace::kEventExternal) std::printf(",\"external\":true");
  std::printf(",\"text\":%s}\n", jsonString(narrator.describe(i)).c_str());
}

// The events asked for by --rank and --tag; an error's text when one names
// nothing.
std::string readMpiFilter(const Args& args, const trace::Trace& t, trace::EventFilter* filter) {
  for (const auto& spec : args.values("rank")) {
    char* end = nullptr;
    const long rank = std::strtol(spec.c_str(), &end, 10);
    if (spec.empty() || *end || rank < 0) return "--rank: expected a rank (0, 1 ...), got '" + spec + "'";
    const size_t before = filter->processes.size();
    for (const auto& p : t.processes)
      if (p.mpi_rank == rank) filter->processes.insert(p.index);
    if (filter->processes.size() == before) return "no MPI rank " + spec + " in this recording";
  }
  for (const auto& spec : args.values("tag")) {
    char* end = nullptr;
    const long tag = std::strtol(spec.c_str(), &end, 10);
    if (spec.empty() || *end || tag < 0 || tag > INT32_MAX)
      return "--tag: expected a tag (0, 1 ...), got '" + spec + "'";
    filter->tags.insert(static_cast<int32_t>(tag));
  }
  return "";
}

// The events asked for by --process, --channel, --kind, --rank and --tag;
// an error's text when one names nothing.
std::string readFilter(const Args& args, const trace::Trace& t, trace::EventFilter* filter) {
  for (const auto& spec : args.values("process")) {
    std::string error;
    auto found = findProcesses(t, spec, false, &error);
    if (found.empty()) return error;
    filter->processes.insert(found.begin(), found.end());
  }
  for (const auto& spec : args.values("channel"))
    if (!trace::selectChannels(t, spec, &filter->channels)) return "no channel '" + spec + "' in this recording";
  filter->kinds = args.values("kind");
  filter->mpi_library = args.has("library");
  return readMpiFilter(args, t, filter);
}

// Tells events one at a time in the form asked for: the narration (with
// --decode, what each carried; the stretches of named patterns as one
// event), JSON lines, or the event table as csv or jsonl.
class EventTeller {
 public:
  // `live`: the recording is still being made (every event is told, each
  // alone, as stretches of patterns are not known yet); `header`: the csv
  // header goes first.
  EventTeller(const Loaded& loaded, const std::string& format, bool json, bool decode, bool expand, bool live = false,
              bool header = true)
      : t_(*loaded.trace),
        net_(loaded.net.get()),
        format_(format),
        json_(json),
        decode_(decode),
        named_(format == "text" && !json && !expand && !live ? Stretches(net_, t_) : Stretches()),
        narrator_(t_, live),
        unseen_(t_),
        rows_(t_),
        print_contents_(net_, t_) {
    if (format_ == "csv" && header) exporting::writeCsvHeader(stdout);
  }

  void tell(uint32_t i) {
    if (format_ != "text") {
      rows_.fill(i, &row_);
      (format_ == "csv" ? exporting::writeCsvRow : exporting::writeJsonRow)(stdout, row_);
    } else if (json_) {
      printJsonEvent(t_, narrator_, i,
                     decode_ ? [this](uint32_t k) { return contents(k); } : std::function<std::string(uint32_t)>());
    } else if (!named_.inside.empty() && named_.inside[i] != trace::kNone) {
      tellStretch(i);
    } else {
      unseen_.before(i);
      std::printf("%s\n", terminalSafe(narrator_.sentence(i)).c_str());
      const trace::Event& e = t_.events[i];
      if (decode_ && log::isData(e.eventKind()) && !(e.flags & trace::kEventFailed)) print_contents_(i);
      unseen_.after(i);
    }
  }

 private:
  // What a data event carried, for --decode --json.
  std::string contents(uint32_t i) const {
    std::string text, error;
    if (!netdesc::describeContents(net_, t_, i, &text, &error)) text = "(cannot read its bytes: " + error + ")\n";
    return text;
  }
  // A stretch of a named pattern: told once, where it begins.
  void tellStretch(uint32_t i) const {
    const analysis::NamedStretch& st = named_.stretches[named_.inside[i]];
    if (i != st.first) return;
    std::printf("Process %s does %s × %llu (events %u to %u; --expand tells them). Event %u.\n",
                terminalSafe(t_.label(st.process)).c_str(), terminalSafe(named_.names[st.name].name).c_str(),
                static_cast<unsigned long long>(st.repetitions), st.first + 1, st.last + 1, st.first + 1);
  }

  const trace::Trace& t_;
  const netdesc::Binding* net_;
  const std::string format_;
  const bool json_, decode_;
  const Stretches named_;
  const analysis::Narrator narrator_;
  const UnseenMarks unseen_;
  exporting::EventRows rows_;
  exporting::EventRow row_;
  ContentsPrinter print_contents_;
};

// The events from `first` to `last` (positions) that the filter keeps;
// counts those left out only for being the MPI library's.
struct Told {
  uint64_t told = 0, library_hidden = 0;
};
void tellEvents(const trace::Trace& t, const trace::EventFilter& filter, uint64_t first, uint64_t last,
                EventTeller& teller, Told* count) {
  trace::EventFilter with_library = filter;
  with_library.mpi_library = true;
  for (uint64_t position = first; position < last; ++position) {
    const auto i = static_cast<uint32_t>(position);
    if (filter.wants(t, i)) {
      teller.tell(i);
      ++count->told;
    } else if (t.byMpiLibrary(i) && with_library.wants(t, i)) {
      ++count->library_hidden;
    }
  }
}

// What --follow was asked for: the form, and event numbers from and to.
struct Following {
  std::string format;
  uint64_t from = 1, to = ~0ull;
};

// How far --follow got: the events told (by position), and whether a CSV
// header is still to come (it comes with the first look that tells).
struct Progress {
  uint64_t told = 0;
  bool header_due = true;
};

// One look at a recording in progress: tells the events from `done.told`
// on whose place is sure (all of them once it ended), and moves `done` on.
// `now_wall`: when the logs began to be read.
void tellSettled(const Loaded& loaded, const Args& args, const Following& asked, bool ended, int64_t now_wall,
                 Progress& done) {
  const trace::Trace& t = *loaded.trace;
  trace::LiveTimes times;
  times.now_wall = now_wall;
  const uint64_t settled = ended ? t.events.size() : trace::settledEvents(t, times);
  if (settled <= done.told) return;
  trace::EventFilter filter;
  // A process or channel the filter names may not have appeared yet: told
  // from where it stopped once it has (with the others it names).
  if (!readFilter(args, t, &filter).empty()) return;
  EventTeller teller(loaded, asked.format, args.has("json"), args.has("decode"), true, !ended, done.header_due);
  done.header_due = false;
  Told count;
  tellEvents(t, filter, std::max(done.told, asked.from - 1), std::min(settled, asked.to), teller, &count);
  std::fflush(stdout);
  done.told = settled;
}

// --follow: the recording read again and again as it grows, each look
// telling what became sure since the last, until radar record has ended.
int followEvents(const Args& args, const Following& asked) {
  const std::vector<std::string>& dirs = args.positional();
  Progress done;
  bool said_waiting = false, none_alive = false;
  const auto since = std::chrono::steady_clock::now();
  for (;;) {
    // Looked at before the logs are read: once it ended, they are whole.
    // So too once radar record was killed and the last look's processes
    // have all ended since: nobody writes any more.
    bool lost = none_alive && trace::recordersGone(dirs);
    bool ended = lost || std::all_of(dirs.begin(), dirs.end(), trace::recordingEnded);
    const auto began = std::chrono::steady_clock::now();
    const int64_t now_wall =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    std::string error;
    const Loaded loaded = loadQuietly(dirs, netChoice(args), args.has("merge-unrelated"), &error);
    // A process the last look did not have may still write.
    if (lost && loaded && trace::anyProcessAlive(*loaded.trace)) ended = lost = none_alive = false;
    if (lost)
      std::fprintf(stderr,
                   "radar events: radar record is no longer recording (it was killed?), and the processes it "
                   "recorded have ended: the rest of the story, as the logs hold it\n");
    if (ended && !loaded) {
      std::fprintf(stderr, "radar events: %s\n", error.c_str());
      return kExitUsage;
    }
    // Said after a second: radar record makes its first log at once.
    if (!loaded && !said_waiting && began - since > std::chrono::seconds(1)) {
      std::fprintf(stderr, "radar events: waiting for the recording (%s)\n", error.c_str());
      said_waiting = true;
    }
    if (loaded && (ended || !trace::runningLogUnreadable(*loaded.trace)))
      tellSettled(loaded, args, asked, ended, now_wall, done);
    none_alive = loaded && !trace::anyProcessAlive(*loaded.trace);
    if (ended) {
      trace::EventFilter filter;
      if (const std::string e = readFilter(args, *loaded.trace, &filter); !e.empty()) return usageError("events", e);
      if (done.header_due && asked.format == "csv") exporting::writeCsvHeader(stdout);  // a recording of no events
      return storyExitStatus(*loaded.trace, kExitOk);
    }
    // A look costs as much as the recording is long: at most half the time.
    const auto took = std::chrono::steady_clock::now() - began;
    std::this_thread::sleep_for(std::max<std::chrono::steady_clock::duration>(std::chrono::milliseconds(50), took));
  }
}

}  // namespace

int runEvents(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kEventsOptions)) return usageError("events", args.error());
  if (args.positional().empty()) return usageError("events", "no recording given");
  unsigned long long from = 1, to = ~0ull;
  if (!args.number("from", &from, 1) || !args.number("to", &to, ~0ull)) return usageError("events", args.error());
  for (const auto& k : args.values("kind"))
    if (!trace::knownKind(k)) return usageError("events", "unknown kind '" + k + "'");
  const std::string format = args.value("format").value_or("text");
  if (format != "text" && format != "csv" && format != "jsonl")
    return usageError("events", "--format: expected text, csv or jsonl, got '" + format + "'");
  if (format != "text" && (args.has("json") || args.has("decode")))
    return usageError("events", "--format " + format + " goes without --json and --decode");
  if (args.has("follow")) {
    for (const std::string& dir : args.positional())
      if (trace::flightRecorderRunning(dir))
        return usageError("events", dir +
                                        " is a flight recording: its logs lose their oldest events as they grow. "
                                        "Freeze it (radar dump-flight " +
                                        dir + ") and read the freeze");
    return followEvents(args, {format, from, to});
  }
  const Loaded loaded = loadForCommand("events", args.positional(), netChoice(args), args.has("merge-unrelated"));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  trace::EventFilter filter;
  if (const std::string error = readFilter(args, t, &filter); !error.empty()) return usageError("events", error);
  EventTeller teller(loaded, format, args.has("json"), args.has("decode"), args.has("expand"));
  const uint64_t last = std::min<uint64_t>(to, t.events.size());
  if (args.has("from") && from > t.events.size()) {
    std::fprintf(stderr, "radar events: --from %llu is past the recording's last event (%llu)\n", from,
                 static_cast<unsigned long long>(t.events.size()));
    return storyExitStatus(t, kExitFindings);
  }
  Told count;
  tellEvents(t, filter, std::max<uint64_t>(from, 1) - 1, last, teller, &count);
  std::fflush(stdout);  // the notes after the story, where both go to one terminal
  if (count.library_hidden > 0)
    std::fprintf(stderr,
                 "radar events: %llu events of the MPI library not told (its transport); --library tells them\n",
                 static_cast<unsigned long long>(count.library_hidden));
  else if (count.told == 0 && last > 0)
    std::fprintf(stderr, "radar events: no event matches (of events %llu to %llu)\n",
                 std::max<unsigned long long>(from, 1), static_cast<unsigned long long>(last));
  return storyExitStatus(t, kExitOk);
}

}  // namespace radar::cli

#include "export/chrome_json.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "export/text.h"
#include "trace/findings.h"

namespace radar::exporting {

using trace::kNone;
using trace::Trace;

namespace {

class Writer {
 public:
  Writer(const Trace& t, std::FILE* out, ChromeJsonCounts* counts) : t_(t), out_(out), counts_(counts) {
    base_ns_ = t.events.empty() ? 0 : t.wallTime(0);
  }

  bool run(std::string* error, const Progress& progress) {
    text_ = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"radar_first_event_ns\":" + std::to_string(base_ns_) +
            "},\"traceEvents\":[\n";
    processes();
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      tellProgress(progress, i, t_.events.size());
      event(i);
    }
    findings();
    text_ += "\n]}\n";
    flush();
    if (std::fflush(out_) != 0 || std::ferror(out_)) {
      *error = std::string("cannot write: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

 private:
  // Microseconds since the first event, to the nanosecond.
  std::string at(int64_t ns) const {
    const int64_t d = ns - base_ns_;
    char s[32];
    std::snprintf(s, sizeof s, "%s%" PRId64 ".%03" PRId64, d < 0 ? "-" : "", (d < 0 ? -d : d) / 1000,
                  (d < 0 ? -d : d) % 1000);
    return s;
  }
  void add(const std::string& record) {
    text_ += first_ ? "" : ",\n";
    text_ += record;
    first_ = false;
    if (text_.size() > (1 << 20)) flush();
  }
  void flush() {
    std::fwrite(text_.data(), 1, text_.size(), out_);
    text_.clear();
  }
  void metadata(const char* name, int64_t pid, int64_t tid, const std::string& value) {
    add("{\"name\":\"" + std::string(name) + "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
        (tid < 0 ? "" : ",\"tid\":" + std::to_string(tid)) + ",\"args\":{\"name\":" + jsonQuoted(value) + "}}");
  }

  // A pid per process (its images share it; a pid another host also has
  // is moved out of the way), a tid per thread, named.
  void processes() {
    std::map<std::pair<std::string, int32_t>, int64_t> by_pid;
    std::map<int32_t, std::string> pid_host;
    pid_.resize(t_.processes.size());
    for (const auto& p : t_.processes) {
      auto [known, added] = by_pid.emplace(std::pair{p.host, p.pid}, p.pid);
      if (added) {
        const auto [at_host, fresh] = pid_host.emplace(p.pid, p.host);
        if (!fresh && at_host->second != p.host) known->second += (int64_t{1} << 22) * ++moved_;
      }
      pid_[p.index] = known->second;
      if (added) {
        uint32_t last = p.index;  // the name of its last image: what it became
        while (t_.processes[last].next_image != kNone) last = t_.processes[last].next_image;
        metadata("process_name", known->second, -1, t_.processName(last));
        ++counts_->processes;
      }
      for (size_t k = 0; k < p.threads.size(); ++k)
        if (threads_named_.insert({known->second, p.threads[k]}).second) {
          metadata("thread_name", known->second, p.threads[k],
                   k == 0 ? t_.processName(p.index) : t_.processName(p.index) + " thread " + std::to_string(k + 1));
          ++counts_->threads;
        }
    }
  }

  int64_t tidOf(uint32_t i) const {
    const trace::Event& e = t_.events[i];
    const auto& threads = t_.processes[e.process].threads;
    return threads.empty() ? pid_[e.process] : threads[std::min<size_t>(e.thread, threads.size() - 1)];
  }

  std::string args(uint32_t i) const {
    const trace::Event& e = t_.events[i];
    std::string a = "{\"event\":" + std::to_string(i + 1) + ",\"number\":" + std::to_string(e.number);
    const uint32_t channel = t_.channelOf(i);
    if (channel != kNone) a += ",\"channel\":" + jsonQuoted(t_.channelName(channel));
    if (log::isData(e.eventKind())) a += ",\"bytes\":" + std::to_string(e.value);
    if (e.result != trace::kResultNeverReturned) a += ",\"result\":" + std::to_string(e.result);
    return a + "}";
  }

  void event(uint32_t i) {
    const trace::Event& e = t_.events[i];
    const log::Kind k = e.eventKind();
    const std::string where = ",\"pid\":" + std::to_string(pid_[e.process]) + ",\"tid\":" + std::to_string(tidOf(i));
    const std::string name = trace::isConnectOutcome(e) ? "getsockopt" : log::kindName(k);
    const std::string cat = log::categoryName(log::categoryOf(k));
    const int64_t begin = t_.wallTime(i);
    if (k == log::Kind::User) {
      std::string_view data;
      std::string error, a = args(i);
      if (t_.payloadView(i, &data, &error)) a.insert(a.size() - 1, ",\"data\":" + jsonQuoted(data.substr(0, 4096)));
      add("{\"name\":" + jsonQuoted(name) + ",\"cat\":\"" + cat + "\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + at(begin) +
          where + ",\"args\":" + a + "}");
      ++counts_->instants;
      return;
    }
    add("{\"name\":" + jsonQuoted(name) + ",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"ts\":" + at(begin) +
        ",\"dur\":" + at(base_ns_ + e.durationNs()) + where + ",\"args\":" + args(i) + "}");
    ++counts_->slices;
    flows(i, where, begin);
  }

  // A flow per message: it starts in the send's slice and ends in the
  // receive's (the receive's flows are written with it: at its end).
  void flows(uint32_t i, const std::string& where, int64_t begin) {
    const log::Category c = log::categoryOf(t_.events[i].eventKind());
    if (c == log::Category::Send) {
      for (uint32_t m : t_.messagesFrom(i)) {
        if (t_.events[t_.edges[m].to].flags & trace::kEventPeek) continue;
        add("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":" + std::to_string(m + 1) +
            ",\"ts\":" + at(begin) + where + "}");
        ++counts_->flows;
      }
    } else if (c == log::Category::Receive && !(t_.events[i].flags & trace::kEventPeek)) {
      const auto [b, end] = t_.incoming(i);
      for (const trace::Edge* edge = b; edge != end; ++edge)
        if (edge->why == trace::Edge::Why::Message)
          add("{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" +
              std::to_string(edge - t_.edges.data() + 1) + ",\"ts\":" + at(begin + t_.events[i].durationNs()) + where +
              "}");
    }
  }

  void findings() {
    for (const trace::Finding& f : t_.findings) {
      const int64_t when = f.events.empty() ? base_ns_ : t_.wallTime(f.events.front());
      add("{\"name\":" + jsonQuoted(trace::findingKindName(f.kind)) +
          ",\"cat\":\"finding\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":" + at(when) +
          ",\"args\":{\"text\":" + jsonQuoted(trace::describe(t_, f)) +
          (f.events.empty() ? "" : ",\"event\":" + std::to_string(f.events.front() + 1)) + "}}");
      ++counts_->instants;
    }
  }

  const Trace& t_;
  std::FILE* out_;
  ChromeJsonCounts* counts_;
  int64_t base_ns_ = 0;
  std::string text_;
  bool first_ = true;
  int64_t moved_ = 0;         // pids another host had first, moved out of the way
  std::vector<int64_t> pid_;  // per image
  std::set<std::pair<int64_t, uint32_t>> threads_named_;
};

}  // namespace

bool writeChromeJson(const Trace& t, std::FILE* out, ChromeJsonCounts* counts, std::string* error,
                     const Progress& progress) {
  ChromeJsonCounts ignored;
  return Writer(t, out, counts ? counts : &ignored).run(error, progress);
}

}  // namespace radar::exporting

#include "export/perfetto.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "export/event_table.h"
#include "export/output_queue.h"
#include "trace/findings.h"

namespace radar::exporting {

using trace::kNone;
using trace::Trace;

namespace {

// Field numbers of Perfetto's protos (protos/perfetto/trace/...), only
// those written here.
namespace field {
constexpr int kTracePacket = 1;             // Trace.packet
constexpr int kTimestamp = 8;               // TracePacket.timestamp
constexpr int kSequenceId = 10;             // TracePacket.trusted_packet_sequence_id
constexpr int kTrackEvent = 11;             // TracePacket.track_event
constexpr int kInternedData = 12;           // TracePacket.interned_data
constexpr int kSequenceFlags = 13;          // TracePacket.sequence_flags
constexpr int kInternedCategories = 1;      // InternedData.event_categories
constexpr int kInternedNames = 2;           // InternedData.event_names
constexpr int kInternedAnnotations = 3;     // InternedData.debug_annotation_names
constexpr int kInternedIid = 1;             // EventCategory.iid, EventName.iid, DebugAnnotationName.iid
constexpr int kInternedName = 2;            // EventCategory.name, EventName.name, DebugAnnotationName.name
constexpr int kTrackDescriptor = 60;        // TracePacket.track_descriptor
constexpr int kTrackUuid = 1;               // TrackDescriptor.uuid
constexpr int kTrackName = 2;               // TrackDescriptor.name
constexpr int kTrackProcess = 3;            // TrackDescriptor.process
constexpr int kTrackThread = 4;             // TrackDescriptor.thread
constexpr int kParentUuid = 5;              // TrackDescriptor.parent_uuid
constexpr int kProcessPid = 1;              // ProcessDescriptor.pid
constexpr int kProcessCmdline = 2;          // ProcessDescriptor.cmdline
constexpr int kProcessName = 6;             // ProcessDescriptor.process_name
constexpr int kThreadPid = 1;               // ThreadDescriptor.pid
constexpr int kThreadTid = 2;               // ThreadDescriptor.tid
constexpr int kThreadName = 5;              // ThreadDescriptor.thread_name
constexpr int kEventCategoryIids = 3;       // TrackEvent.category_iids
constexpr int kEventAnnotations = 4;        // TrackEvent.debug_annotations
constexpr int kEventNameIid = 10;           // TrackEvent.name_iid
constexpr int kEventType = 9;               // TrackEvent.type
constexpr int kEventTrack = 11;             // TrackEvent.track_uuid
constexpr int kEventCategories = 22;        // TrackEvent.categories
constexpr int kEventName = 23;              // TrackEvent.name
constexpr int kEventFlows = 47;             // TrackEvent.flow_ids (fixed64)
constexpr int kEventTerminatingFlows = 48;  // TrackEvent.terminating_flow_ids (fixed64)
constexpr int kAnnotationNameIid = 1;       // DebugAnnotation.name_iid
constexpr int kAnnotationInt = 4;           // DebugAnnotation.int_value
constexpr int kAnnotationString = 6;        // DebugAnnotation.string_value
constexpr int kAnnotationName = 10;         // DebugAnnotation.name
}  // namespace field
constexpr int kSliceBegin = 1, kSliceEnd = 2, kInstant = 3;              // TrackEvent.Type
constexpr int kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;  // TracePacket.SequenceFlags

// Interned strings: the calls' names by their kind's number (and one more
// for a connect's outcome), categories by category, annotation names.
constexpr uint64_t kConnectOutcomeName = 1000;
// A message's two instants and their category, interned too: a few bytes
// each (a send or receive has one).
constexpr uint64_t kMessageSentName = 1001, kMessageReceivedName = 1002, kMessageCategory = 100;
enum Annotation : uint64_t {
  kAnnotEvent = 1,
  kAnnotNumber,
  kAnnotChannel,
  kAnnotBytes,
  kAnnotResult,
  kAnnotData,
  kAnnotText
};
const char* const kAnnotationNames[] = {"", "event", "radar_number", "channel", "bytes", "result", "data", "text"};
uint64_t categoryIid(log::Category c) { return static_cast<uint64_t>(c) + 1; }

// The protobuf wire format, written into a growing string.
class Message {
 public:
  std::string bytes;
  // Encoded on the stack, then appended at once: a push_back a byte was a
  // fifth of the export's time.
  void varint(uint64_t v) {
    char b[10];
    size_t n = 0;
    while (v >= 0x80) {
      b[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    b[n++] = static_cast<char>(v);
    bytes.append(b, n);
  }
  void tag(int field, int wire_type) { varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type)); }
  void integer(int field, int64_t v) {
    tag(field, 0);
    varint(static_cast<uint64_t>(v));
  }
  void fixed64(int field, uint64_t v) {
    tag(field, 1);
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
    bytes.append(b, 8);
  }
  void text(int field, std::string_view s) {
    tag(field, 2);
    varint(s.size());
    bytes.append(s);
  }
  void message(int field, const Message& m) { text(field, m.bytes); }
  void clear() { bytes.clear(); }
  bool empty() const { return bytes.empty(); }
};

// Text from a recorded program, as valid UTF-8 (protobuf strings must be):
// bytes that are not are written as \xNN.
std::string utf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && c >= 0x20 && c != 0x7f) {
      out.append(s, i, n);
      i += n;
    } else if (c == '\n' || c == '\t') {
      out.push_back(static_cast<char>(c));
      ++i;
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    }
  }
  return out;
}

class Writer {
 public:
  Writer(const Trace& t, std::FILE* out, PerfettoCounts* counts) : t_(t), q_(out), counts_(counts) {}

  bool run(std::string* error, const Progress& progress) {
    tracks();
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      tellProgress(progress, i, t_.events.size());
      event(i);
    }
    findings();
    return q_.finish(error);
  }

 private:
  // Uuids: 1 the findings' track, then a process track per pid and a
  // thread track per thread of each image.
  static constexpr uint64_t kFindingsTrack = 1;

  // The first packet clears the sequence's state and holds every interned
  // string; events refer to them.
  void packet(const Message& body, int field, int64_t timestamp) {
    Message& p = packet_;
    p.clear();
    if (timestamp >= 0) p.integer(field::kTimestamp, timestamp);
    p.integer(field::kSequenceId, 1);
    if (first_) {
      p.integer(field::kSequenceFlags, kIncrementalStateCleared);
      p.message(field::kInternedData, internedStrings());
    } else if (field == field::kTrackEvent) {
      p.integer(field::kSequenceFlags, kNeedsIncrementalState);
    }
    first_ = false;
    p.message(field, body);
    // The trace's packet field: its tag and length, then the packet.
    Message& head = head_;
    head.clear();
    head.tag(field::kTracePacket, 2);
    head.varint(p.bytes.size());
    q_.buffer().append(head.bytes).append(p.bytes);
    q_.recordEnded();
  }

  static Message internedStrings() {
    Message interned, entry;
    auto add = [&](int list, uint64_t iid, std::string_view name) {
      entry.clear();
      entry.integer(field::kInternedIid, static_cast<int64_t>(iid));
      entry.text(field::kInternedName, name);
      interned.message(list, entry);
    };
    for (int c = 0; c <= static_cast<int>(log::Category::Unknown); ++c)
      add(field::kInternedCategories, categoryIid(static_cast<log::Category>(c)),
          log::categoryName(static_cast<log::Category>(c)));
    for (unsigned k = 1; k < 256; ++k)
      if (log::categoryOf(static_cast<log::Kind>(k)) != log::Category::Unknown)
        add(field::kInternedNames, k, log::kindName(static_cast<log::Kind>(k)));
    add(field::kInternedNames, kConnectOutcomeName, "getsockopt");
    add(field::kInternedNames, kMessageSentName, "message sent");
    add(field::kInternedNames, kMessageReceivedName, "message received");
    add(field::kInternedCategories, kMessageCategory, "message");
    for (uint64_t a = kAnnotEvent; a <= kAnnotText; ++a) add(field::kInternedAnnotations, a, kAnnotationNames[a]);
    return interned;
  }

  void tracks() {
    Message d, inner;
    d.integer(field::kTrackUuid, kFindingsTrack);
    d.text(field::kTrackName, "radar findings");
    packet(d, field::kTrackDescriptor, -1);
    // A process track per pid and host: an exec keeps the process.
    std::map<std::pair<std::string, int32_t>, uint64_t> by_pid;
    std::map<int32_t, std::string> pid_host;  // a pid another host has is given another number
    thread_track_.resize(t_.processes.size());
    for (const auto& p : t_.processes) {
      int32_t pid = p.pid;
      auto [at, fresh] = pid_host.emplace(pid, p.host);
      if (!fresh && at->second != p.host) pid += (1 << 22) * static_cast<int32_t>(hostIndex(p.host));
      uint64_t& uuid = by_pid[{p.host, p.pid}];
      if (!uuid) {
        uuid = next_uuid_++;
        // The name of the pid's last image: what the process became.
        uint32_t last = p.index;
        while (t_.processes[last].next_image != kNone) last = t_.processes[last].next_image;
        d.clear();
        inner.clear();
        d.integer(field::kTrackUuid, static_cast<int64_t>(uuid));
        inner.integer(field::kProcessPid, pid);
        for (const auto& a : t_.processes[last].argv) inner.text(field::kProcessCmdline, utf8(a));
        inner.text(field::kProcessName, utf8(t_.processName(last)));
        d.message(field::kTrackProcess, inner);
        packet(d, field::kTrackDescriptor, -1);
        ++counts_->process_tracks;
      }
      // Threads: by tid within the pid (an exec keeps the main thread).
      for (size_t k = 0; k < p.threads.size() && k < 256; ++k) {
        uint64_t& thread_uuid = thread_by_tid_[{uuid, p.threads[k]}];
        if (!thread_uuid) {
          thread_uuid = next_uuid_++;
          d.clear();
          inner.clear();
          d.integer(field::kTrackUuid, static_cast<int64_t>(thread_uuid));
          d.integer(field::kParentUuid, static_cast<int64_t>(uuid));
          inner.integer(field::kThreadPid, pid);
          inner.integer(field::kThreadTid, static_cast<int32_t>(p.threads[k]) + (pid - p.pid));
          inner.text(field::kThreadName, utf8(k == 0 ? t_.processName(p.index)
                                                     : t_.processName(p.index) + " thread " + std::to_string(k + 1)));
          d.message(field::kTrackThread, inner);
          packet(d, field::kTrackDescriptor, -1);
          ++counts_->thread_tracks;
        }
        thread_track_[p.index].push_back(thread_uuid);
      }
    }
  }

  // Channel names as valid UTF-8, made once.
  const std::string& channelName(uint32_t channel) {
    if (channel_names_.empty()) channel_names_.resize(t_.channels.size());
    std::string& name = channel_names_[channel];
    if (name.empty()) name = utf8(t_.channelName(channel));
    return name;
  }

  uint32_t hostIndex(const std::string& host) {
    return hosts_.emplace(host, static_cast<uint32_t>(hosts_.size() + 1)).first->second;
  }

  void annotation(Message& e, Annotation name, int64_t value) {
    Message& a = annotation_;
    a.clear();
    a.integer(field::kAnnotationNameIid, static_cast<int64_t>(name));
    a.integer(field::kAnnotationInt, value);
    e.message(field::kEventAnnotations, a);
  }
  void annotation(Message& e, Annotation name, std::string_view value) {
    Message& a = annotation_;
    a.clear();
    a.integer(field::kAnnotationNameIid, static_cast<int64_t>(name));
    a.text(field::kAnnotationString, value);
    e.message(field::kEventAnnotations, a);
  }

  void event(uint32_t i) {
    const trace::Event& ev = t_.events[i];
    const auto& threads = thread_track_[ev.process];
    if (threads.empty()) return;
    const uint64_t track = threads[std::min<size_t>(ev.thread, threads.size() - 1)];
    const log::Kind k = ev.eventKind();
    const int64_t at = t_.wallTime(i);
    Message& e = event_;
    e.clear();
    const bool instant = k == log::Kind::User;
    e.integer(field::kEventType, instant ? kInstant : kSliceBegin);
    e.integer(field::kEventTrack, static_cast<int64_t>(track));
    e.integer(field::kEventCategoryIids, static_cast<int64_t>(categoryIid(log::categoryOf(k))));
    e.integer(field::kEventNameIid, trace::isConnectOutcome(ev) ? kConnectOutcomeName : ev.kind);
    annotation(e, kAnnotEvent, i + 1);
    annotation(e, kAnnotNumber, ev.number);
    const uint32_t channel = t_.channelOf(i);
    if (channel != kNone) annotation(e, kAnnotChannel, channelName(channel));
    if (log::isData(k)) annotation(e, kAnnotBytes, ev.value);
    if (ev.result != trace::kResultNeverReturned) annotation(e, kAnnotResult, ev.result);
    if (instant) {
      std::string_view data;
      std::string error;
      if (t_.payloadView(i, &data, &error)) annotation(e, kAnnotData, utf8(data.substr(0, 4096)));
    }
    packet(e, field::kTrackEvent, at);
    if (instant) {
      ++counts_->instants;
      return;
    }
    ++counts_->slices;
    const int64_t end = at + ev.durationNs();
    flows(i, track, at, end);
    e.clear();
    e.integer(field::kEventType, kSliceEnd);
    e.integer(field::kEventTrack, static_cast<int64_t>(track));
    packet(e, field::kTrackEvent, end);
  }

  // A message's flow runs from an instant where its send began to one
  // where its receive ended, each inside its call's slice: the arrow then
  // points at the moments the bytes left and arrived (drawn between
  // slices, it is hard to read which call a message joins). Written
  // between the slice's begin and end, at their times, so that the
  // instants nest in their slices.
  void flows(uint32_t i, uint64_t track, int64_t begin, int64_t end) {
    const trace::Event& ev = t_.events[i];
    const log::Category c = log::categoryOf(ev.eventKind());
    Message& e = event_;
    e.clear();
    if (c == log::Category::Send) {
      for (uint32_t m : t_.messagesFrom(i)) {
        if (t_.events[t_.edges[m].to].flags & trace::kEventPeek) continue;
        e.fixed64(field::kEventFlows, m + 1);
        ++counts_->flows;
      }
    } else if (c == log::Category::Receive && !(ev.flags & trace::kEventPeek)) {
      const auto [first, last] = t_.incoming(i);
      for (const trace::Edge* b = first; b != last; ++b)
        if (b->why == trace::Edge::Why::Message)
          e.fixed64(field::kEventTerminatingFlows, static_cast<uint64_t>(b - t_.edges.data()) + 1);
    }
    if (e.empty()) return;
    const bool sent = c == log::Category::Send;
    e.integer(field::kEventType, kInstant);
    e.integer(field::kEventTrack, static_cast<int64_t>(track));
    e.integer(field::kEventCategoryIids, kMessageCategory);
    e.integer(field::kEventNameIid, sent ? kMessageSentName : kMessageReceivedName);
    packet(e, field::kTrackEvent, sent ? begin : end);  // counted as its flows, not as an instant
  }

  void findings() {
    Message& e = event_;
    for (const trace::Finding& f : t_.findings) {
      const int64_t at = f.events.empty() ? (t_.events.empty() ? 0 : t_.wallTime(0)) : t_.wallTime(f.events.front());
      e.clear();
      e.integer(field::kEventType, kInstant);
      e.integer(field::kEventTrack, kFindingsTrack);
      e.text(field::kEventCategories, "finding");
      e.text(field::kEventName, trace::findingKindName(f.kind));
      annotation(e, kAnnotText, utf8(trace::describe(t_, f)));
      if (!f.events.empty()) annotation(e, kAnnotEvent, f.events.front() + 1);
      packet(e, field::kTrackEvent, at);
      ++counts_->instants;
    }
  }

  const Trace& t_;
  OutputQueue q_;
  PerfettoCounts* counts_;
  bool first_ = true;
  uint64_t next_uuid_ = kFindingsTrack + 1;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> thread_by_tid_;
  std::map<std::string, uint32_t> hosts_;
  std::vector<std::vector<uint64_t>> thread_track_;  // per image: its threads' tracks
  std::vector<std::string> channel_names_;
  Message packet_, head_, event_, annotation_;
};

}  // namespace

bool writePerfetto(const Trace& t, std::FILE* out, PerfettoCounts* counts, std::string* error,
                   const Progress& progress) {
  PerfettoCounts ignored;
  return Writer(t, out, counts ? counts : &ignored).run(error, progress);
}

}  // namespace radar::exporting

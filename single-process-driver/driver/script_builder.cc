#include "driver/script_builder.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include "analysis/narrative.h"
#include "driver/script.h"
#include "fallback/mark.h"
#include "log/asan_options.h"
#include "log/crc32c.h"
#include "log/reader.h"
#include "log/recorder_env.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::driver {
namespace {

using log::Category;
using log::ChannelType;
using log::Kind;
using trace::kNone;
using trace::Process;
using trace::Trace;

std::string eventName(const Trace& t, uint32_t position) {
  return "event " + std::to_string(position + 1) + " (" + t.label(t.events[position].process) + "'s local event " +
         std::to_string(t.events[position].counter) + ")";
}

// The script's tables and data area, filled event by event. The file is
// the header, the data area, then the tables: data_ holds it all as it
// grows, so that a data area of hundreds of megabytes is never copied.
class ScriptWriter {
 public:
  static constexpr size_t kDataStart = (sizeof(ScriptHeader) + 7) & ~size_t{7};

  explicit ScriptWriter(ScriptBytes into) : data_(std::move(into)) { data_.resize(kDataStart); }

  Blob put(const void* bytes, size_t n) {
    if (!n) return {};
    Blob b = begin();
    data_.append(bytes, n);
    b.size = static_cast<uint32_t>(n);
    return b;
  }
  Blob put(std::string_view s) { return put(s.data(), s.size()); }
  // A blob made of several pieces, appended one after the other.
  Blob begin() {
    data_.resize((data_.size() + 7) & ~size_t{7});
    return {data_.size() - kDataStart, 0, 0};
  }
  void append(Blob& b, std::string_view piece) {
    data_.append(piece);
    b.size += static_cast<uint32_t>(piece.size());
  }
  Blob putText(const std::string& s) { return put(s.c_str(), s.size() + 1); }  // with its NUL
  std::string_view view(const Blob& b) const { return data_.view().substr(kDataStart + b.offset, b.size); }

  std::vector<ScriptEvent> events;
  std::vector<ScriptThread> threads;
  std::vector<ScriptFd> inherited;
  std::vector<ScriptOutput> outputs;

  // The whole file; the writer is spent.
  ScriptBytes finish(ScriptHeader h) {
    auto table = [&](const void* p, size_t n) {
      data_.resize((data_.size() + 7) & ~size_t{7});
      const uint64_t at = data_.size();
      data_.append(p, n);
      return at;
    };
    h.data_offset = kDataStart;
    h.data_size = data_.size() - kDataStart;
    h.events_offset = table(events.data(), events.size() * sizeof(ScriptEvent));
    h.threads_offset = table(threads.data(), threads.size() * sizeof(ScriptThread));
    h.inherited_offset = table(inherited.data(), inherited.size() * sizeof(ScriptFd));
    h.outputs_offset = table(outputs.data(), outputs.size() * sizeof(ScriptOutput));
    h.output_count = static_cast<uint32_t>(outputs.size());
    h.file_size = data_.size();
    h.event_count = static_cast<uint32_t>(events.size());
    h.thread_count = static_cast<uint32_t>(threads.size());
    h.inherited_count = static_cast<uint32_t>(inherited.size());
    std::memcpy(data_.data(), &h, sizeof(h));
    return std::move(data_);
  }

 private:
  ScriptBytes data_;
};

// What stands in for an inherited channel end in the re-run.
ScriptFd standInFor(const trace::Endpoint& ep, int fd) {
  ScriptFd f{};
  f.fd = fd;
  f.access = ep.access;
  sa_family_t family = AF_UNIX;
  if (ep.local_address.size() >= sizeof(family)) std::memcpy(&family, ep.local_address.data(), sizeof(family));
  auto socket = [&](int domain, int type) {
    f.stand_in = StandIn::Socket;
    f.domain = domain;
    f.type = type;
  };
  switch (ep.type) {
    case ChannelType::Pipe:
    case ChannelType::Fifo:
      if ((ep.access & O_ACCMODE) == O_WRONLY)
        f.stand_in = StandIn::PipeWrite;
      else if ((ep.access & O_ACCMODE) == O_RDONLY)
        f.stand_in = StandIn::PipeRead;
      else
        socket(AF_UNIX, SOCK_STREAM);
      break;
    case ChannelType::UnixStream:
      socket(AF_UNIX, SOCK_STREAM);
      break;
    case ChannelType::UnixDgram:
      socket(AF_UNIX, SOCK_DGRAM);
      break;
    case ChannelType::UnixSeqpacket:
      socket(AF_UNIX, SOCK_SEQPACKET);
      break;
    case ChannelType::Tcp:
      socket(family == AF_INET6 ? AF_INET6 : AF_INET, SOCK_STREAM);
      break;
    case ChannelType::Udp:
      socket(family == AF_INET6 ? AF_INET6 : AF_INET, SOCK_DGRAM);
      break;
    case ChannelType::EventFd:
      f.stand_in = StandIn::EventFd;
      break;
    case ChannelType::Terminal:
      f.stand_in = StandIn::Terminal;
      if (!f.access) f.access = O_RDWR;
      break;
    default:
      f.stand_in = StandIn::Null;
      if (!f.access) f.access = O_RDWR;
      break;
  }
  return f;
}

// Descriptors an event creates in the program (they are not inherited).
// The calls noteCreated() learns from.
bool makesDescriptors(Kind k) {
  return k == Kind::Pipe || k == Kind::Socketpair || k == Kind::Recvmsg || k == Kind::Socket || k == Kind::Accept ||
         k == Kind::Dup || k == Kind::Popen || k == Kind::Open;
}

// The descriptors `r` made -> the channel they are an end of (0: unknown).
// `defined`: the channels the log defined that no event used yet, by
// descriptor: both ends of a pipe have one each (`r.channel` is the first
// end's), and another thread's events can come between the definitions
// and the call that made them.
// `made`, where given, collects the channels known to be made.
void noteCreated(const log::Record& r, const std::map<int, uint32_t>& defined, std::map<int, uint32_t>* created,
                 std::set<uint32_t>* made = nullptr) {
  auto note = [&](int fd, uint32_t channel) {
    (*created)[fd] = channel;
    if (made && channel) made->insert(channel);
  };
  switch (r.kind) {
    case Kind::Pipe:
    case Kind::Socketpair:
    case Kind::Recvmsg:
      for (int32_t fd : r.fds) {
        const auto it = defined.find(fd);
        note(fd, it != defined.end() ? it->second : 0);
      }
      break;
    case Kind::Socket:
    case Kind::Accept:
    case Kind::Dup:
    case Kind::Popen:
    case Kind::Open:
      if (r.result >= 0) note(static_cast<int>(r.result), r.channel);
      break;
    default:
      break;
  }
}

// A close of `r.fd`: forgotten, unless the number was made again for
// another channel by a call counted before this close (another thread got
// it as soon as the close let it go, before the close's event was written).
void noteClosed(const log::Record& r, std::map<int, uint32_t>* created) {
  const auto it = created->find(r.fd);
  if (it != created->end() && (!it->second || !r.channel || it->second == r.channel)) created->erase(it);
}

// Events after which the program may ask a socket its names.
bool hasSocketNames(Kind k) {
  return k == Kind::Socket || k == Kind::Bind || k == Kind::Listen || k == Kind::Connect || k == Kind::Accept;
}

// A socket receive with MSG_TRUNC returns the message's whole length, even
// where the buffer held less.
bool returnsRealLength(const log::Record& r) {
  return (r.kind == Kind::Recv || r.kind == Kind::Recvfrom || r.kind == Kind::Recvmsg) && (r.flags & MSG_TRUNC);
}

bool isChannelCall(Kind k) {
  const Category c = log::categoryOf(k);
  return c == Category::Send || c == Category::Receive || k == Kind::Close || k == Kind::Dup || k == Kind::Bind ||
         k == Kind::Listen || k == Kind::Connect || k == Kind::Accept || k == Kind::Shutdown;
}

// The descriptors an image's calls made and used, in its log's order: those
// it used without making them it inherited (stand-ins at the start).
struct Descriptors {
  std::map<int, uint32_t> created, created_ever;  // descriptor -> channel (0: unknown)
  std::set<int> inherited;
  std::set<uint32_t> made_channels;
  std::map<int, uint32_t> defined;  // channels the log defined that no event used yet

  void event(const log::Record& r, bool first_image) {
    // (A dup2 of a file onto a channel is recorded for the channel it
    // closed: its source, on no channel, was no inherited end. A channel
    // the image made is none either: its close can be counted after
    // another thread made the number again and closed it too.)
    if (first_image && isChannelCall(r.kind) && r.fd >= 0 && r.channel && !created.count(r.fd) &&
        !made_channels.count(r.channel))
      inherited.insert(r.fd);
    // A close counted after another thread made its number again (the
    // close let the number go, the other took it, and only then was the
    // close counted) leaves the new descriptor made: known by its channel.
    noteCreated(r, defined, &created, &made_channels);
    noteCreated(r, defined, &created_ever);
    if (r.kind == Kind::Pipe || r.kind == Kind::Socketpair || r.kind == Kind::Recvmsg)
      for (int32_t fd : r.fds) defined.erase(fd);
    if (const auto it = defined.find(r.fd); it != defined.end() && it->second == r.channel) defined.erase(it);
    if (r.kind == Kind::Close) noteClosed(r, &created);
  }
};

class Builder {
 public:
  Builder(const Trace& t, Script* out) : t_(t), out_(out), narrator_(t), w_(std::move(out->bytes)) {}

  bool build(uint32_t image, std::string* error) {
    out_->chain = imageChain(t_, image, error);
    if (out_->chain.empty()) return false;
    const auto& chain = out_->chain;
    for (uint32_t p : chain)
      if (!usable(p, error)) return false;
    for (size_t k = 0; k < chain.size(); ++k) {
      uint64_t limit = ~uint64_t{0};
      uint32_t fork_position = kNone;
      if (k + 1 < chain.size()) {
        fork_position = forkOf(chain[k], chain[k + 1], error);
        if (fork_position == kNone) return false;
        limit = t_.events[fork_position].counter;
      }
      if (!addImage(static_cast<uint32_t>(k), chain[k], limit, fork_position, error)) return false;
    }
    if (!resolveReceives(error) || !resolvePeeks(error)) return false;
    linkArrivals();
    linkSynchronizations();
    return finish(error);
  }

 private:
  // Logs the replay must read from start to end.
  bool usable(uint32_t p, std::string* error) const {
    const Process& proc = t_.processes[p];
    if (proc.external || proc.log_path.empty()) {
      *error = t_.label(proc.index) + " was not recorded (it has no log)";
      return false;
    }
    if (!proc.damage.empty()) {
      *error = t_.label(proc.index) + "'s log is damaged, so its re-run would stop short: " + proc.damage;
      return false;
    }
    if (proc.origin == log::Origin::Attached) {
      *error = t_.label(proc.index) +
               " was recorded from radar attach on, not from its start: what it did before is not in the "
               "recording, so it cannot be re-run";
      return false;
    }
    if (proc.control.incomplete) {
      *error = t_.label(proc.index) + " lost " + std::to_string(proc.control.lost_events) +
               " events while it was recorded (from its local event " + std::to_string(proc.control.lost_from_counter) +
               "): it cannot be re-run faithfully";
      return false;
    }
    return true;
  }

  // The parent's FORK that created `child`.
  uint32_t forkOf(uint32_t parent, uint32_t child, std::string* error) const {
    const Process& c = t_.processes[child];
    for (uint32_t pos : t_.counter_events[parent]) {
      const trace::Event& e = t_.events[pos];
      if (e.eventKind() == Kind::Fork && e.counter > c.parent_counter && static_cast<int32_t>(e.value) == c.pid)
        return pos;
    }
    *error = "the fork() that created " + t_.label(c.index) + " is not in " + t_.label(parent) + "'s log";
    return kNone;
  }

  uint32_t threadIndex(uint32_t segment, uint32_t tid, int32_t pid) {
    const auto key = std::make_pair(segment, tid);
    auto it = threads_.find(key);
    if (it != threads_.end()) return it->second;
    ScriptThread th{};
    th.segment = segment;
    th.tid = tid;
    th.first_event = kNoEvent;
    th.main = static_cast<int32_t>(tid) == pid;
    th.end_fd = -1;
    w_.threads.push_back(th);
    last_of_thread_.push_back(kNoEvent);
    const auto index = static_cast<uint32_t>(w_.threads.size() - 1);
    threads_.emplace(key, index);
    return index;
  }

  // What the chain's first image started with: how it was launched, its
  // descriptors, the files among them, the standard ones it had not.
  void firstImage(const log::LogReader& reader) {
    launchOf(reader.header());
    open_at_start_.assign(reader.header().open_fds().begin(), reader.header().open_fds().end());
    for (const proto::StartFile& f : reader.header().start_files()) start_files_[f.fd()] = f;
    // Known from format 1.1 on: a program started with stdin, stdout or
    // stderr closed re-runs so (its first pipe is descriptor 0 again).
    if (reader.control().format_major > 1 || reader.control().format_minor >= 1)
      for (int fd = 0; fd < 3; ++fd)
        if (std::find(open_at_start_.begin(), open_at_start_.end(), fd) == open_at_start_.end())
          closed_at_start_ |= 1u << fd;
    started_realtime_ns_ = reader.header().realtime_ns();
  }

  // How the image was recorded (the last segment's: the image debugged).
  void imageRecordedWith(const log::LogReader& reader) {
    payload_limited_ = reader.header().has_payload_limit();
    nondet_ = reader.header().nondet();
    const auto& env = reader.header().environment();
    recorded_sync_ = std::find(env.begin(), env.end(), "RADAR_SYNC=1") != env.end();
    // Every image of the chain must have kept its writes and interface ioctls.
    const auto& c = reader.control();
    if (c.format_major == 1 && c.format_minor < 5) outputs_recorded_ = false;
    // ... and its calls on message queues.
    if (c.format_major == 1 && c.format_minor < 6) queues_recorded_ = false;
    // ... and its eventfds.
    if (c.format_major == 1 && c.format_minor < 7) eventfds_recorded_ = false;
  }

  bool addImage(uint32_t segment, uint32_t p, uint64_t limit, uint32_t fork_position, std::string* error) {
    const Process& proc = t_.processes[p];
    log::LogError err;
    auto reader = log::LogReader::open(proc.log_path, &err);
    if (!reader) {
      *error = "cannot read " + t_.label(proc.index) + "'s log: " + err.toString();
      return false;
    }
    if (fallback::recordedByTheFallback(reader->header().recorder_version())) {
      *error = t_.label(proc.index) +
               " was recorded by the fallback recorder (ptrace), as a statically linked program, a Go program, one "
               "that uses io_uring, or any with radar record --fallback always is. radar debug answers a re-run's "
               "calls through a library loaded into it (LD_PRELOAD), which such a program does not load or goes "
               "around: it cannot be re-run yet; its events and messages are in the recording (radar events, "
               "radar replay)";
      return false;
    }
    if (segment == 0) firstImage(*reader);
    imageRecordedWith(*reader);
    const bool last = segment + 1 == out_->chain.size();
    // Every thread of the image has a place, even one that recorded nothing
    // (the main thread of a child that only exits through a signal ...).
    threadIndex(segment, static_cast<uint32_t>(proc.pid), proc.pid);
    w_.events.reserve(w_.events.size() + t_.process_events[p].size());
    positions_.reserve(w_.events.capacity());
    Descriptors fds;
    log::Record r;
    uint64_t expected_counter = 1, last_number = 0;
    std::map<uint32_t, proto::ChannelInfo> channels;  // as defined so far
    while (reader->next(r)) {
      if (r.kind == Kind::Channel) {
        proto::ChannelInfo info;
        if (log::LogReader::parseChannel(r.channel_bytes, &info)) {
          channels[info.index()] = info;
          fds.defined[info.fd()] = info.index();
        }
        continue;
      }
      if (r.kind == Kind::Output) {  // written before the fork the chain follows
        if (expected_counter - 1 < limit) noteOutput(r, last_number);
        continue;
      }
      if (!log::isCounted(r.kind)) continue;
      if (r.counter > limit) break;
      if (r.counter != expected_counter || r.counter > t_.counter_events[p].size()) {
        *error = t_.label(proc.index) + "'s log skips from local event " + std::to_string(expected_counter - 1) +
                 " to " + std::to_string(r.counter) + ": it cannot be re-run faithfully";
        return false;
      }
      ++expected_counter;
      const uint32_t position = t_.positionOfCounter(p, r.counter);
      last_number = position + 1;
      // The MPI library's own calls (its transport, its threads) are not
      // made in a re-run: its MPI calls are answered from the recording.
      if (t_.byMpiLibrary(position)) continue;
      fds.event(r, segment == 0);
      if (!addEvent(segment, proc, r, position, position == fork_position, error)) return false;
      if (r.kind == Kind::MpiComm) rankAndSizeIn(channels, r.channel);
      if (hasSocketNames(r.kind) && r.channel) {
        auto it = channels.find(r.channel);
        if (it != channels.end()) {
          w_.events.back().names.local = w_.put(it->second.local_address());
          w_.events.back().names.peer = w_.put(it->second.peer_address());
        }
      }
      if (last) {
        if (!out_->first_number) out_->first_number = position + 1;
        out_->last_number = position + 1;
      }
    }
    if (reader->error()) {
      *error = "cannot read " + t_.label(proc.index) + "'s log: " + reader->error()->toString();
      return false;
    }
    if (limit != ~uint64_t{0} && expected_counter <= limit) {
      *error = t_.label(proc.index) + "'s log ends before its local event " + std::to_string(limit);
      return false;
    }
    // Past the fork: only which descriptors the image makes itself, read
    // from the records of the calls that make them (not through the log:
    // a 100 MB send after the fork would be decompressed for nothing).
    const auto& mine = t_.counter_events[p];
    for (uint64_t counter = limit + 1; limit != ~uint64_t{0} && counter <= mine.size(); ++counter) {
      const uint32_t position = mine[counter - 1];
      if (!makesDescriptors(t_.events[position].eventKind())) continue;
      std::string why;
      if (!t_.record(position, &r, nullptr, nullptr, &why)) {
        *error = "cannot read " + t_.label(proc.index) + "'s log: " + why;
        return false;
      }
      noteCreated(r, {}, &fds.created_ever);
    }
    if (segment == 0) standIns(p, fds.inherited, fds.created_ever);
    if (last) endOf(proc);
    return true;
  }

  // A communicator's: the rank and size in it, after the call's integers.
  void rankAndSizeIn(const std::map<uint32_t, proto::ChannelInfo>& channels, uint32_t channel) {
    ScriptEvent& e = w_.events.back();
    const auto it = channels.find(channel);
    if (it == channels.end()) return;
    const std::string_view had = w_.view(e.fds);
    std::vector<int32_t> ints(had.size() / sizeof(int32_t));
    std::memcpy(ints.data(), had.data(), ints.size() * sizeof(int32_t));
    ints.push_back(it->second.mpi_rank());
    ints.push_back(it->second.mpi_size());
    e.fds = w_.put(ints.data(), ints.size() * sizeof(int32_t));
  }

  void launchOf(const proto::Header& h) {
    Launch& l = out_->launch;
    l.executable = h.executable();
    l.argv.assign(h.argv().begin(), h.argv().end());
    l.cwd = h.cwd();
    l.executable_size = h.executable_size();
    l.executable_mtime_ns = h.executable_mtime_ns();
    if (h.has_nofile_soft() && h.has_nofile_hard() && h.nofile_soft() > 0 && h.nofile_soft() <= h.nofile_hard()) {
      l.nofile_soft = h.nofile_soft();
      l.nofile_hard = h.nofile_hard();
    }
    // Every variable as the program saw it, in its order, radar's own too:
    // a program that copies its environment (Python's os.environ) then
    // fills its heap in the re-run as it did when recorded. radar debug
    // loads its own library in place of LD_PRELOAD's entries.
    for (const std::string& e : h.environment()) {
      l.environment.push_back(e);
      if (e.rfind("LD_PRELOAD=", 0) == 0) {
        // The recorder put itself first; the program's own entries stay.
        std::string list = e.substr(11);
        for (size_t at = 0; at <= list.size();) {
          size_t end = list.find_first_of(": ", at);
          if (end == std::string::npos) end = list.size();
          const std::string entry = list.substr(at, end - at);
          if (!entry.empty() && entry.find("libradar-preload.so") == std::string::npos) l.preloads.push_back(entry);
          at = end + 1;
        }
      }
    }
    for (const std::string& name : h.redacted_environment())
      if (!name.empty() && name.find('=') == std::string::npos && name.find('\0') == std::string::npos)
        l.redacted.push_back(name);
  }

  // A write to a file or device, compared by the re-run (ScriptOutput).
  void noteOutput(const log::Record& r, uint64_t after_number) {
    if (r.fd < 0 || r.fd >= driver::kComparedOutputFds) return;
    ScriptOutput o{};
    o.fd = r.fd;
    o.hash = r.has_hash ? r.hash : 0;
    o.result = r.result;
    o.size = r.size;
    o.next_same_fd = kNoEvent;
    o.after_number = static_cast<uint32_t>(after_number);
    o.data = w_.put(r.payload);
    const auto index = static_cast<uint32_t>(w_.outputs.size());
    if (auto it = last_output_.find(r.fd); it != last_output_.end()) w_.outputs[it->second].next_same_fd = index;
    last_output_[r.fd] = index;
    w_.outputs.push_back(o);
  }

  // Stand-ins for the channel ends the first image started with.
  // `used_before_created`: descriptors its calls used before making them;
  // `made`: descriptors it made at some point (an end it received or
  // accepted is defined as inherited when first seen in use: not one).
  void standIns(uint32_t p, const std::set<int>& used_before_created, const std::map<int, uint32_t>& made) {
    std::map<int, ScriptFd> fds;
    for (const trace::Endpoint& ep : t_.endpoints) {
      if (ep.process != p || !ep.inherited || ep.fd < 0) continue;
      if (made.count(ep.fd) && !used_before_created.count(ep.fd)) continue;
      ScriptFd f = standInFor(ep, ep.fd);
      f.names.local = w_.put(ep.local_address);
      f.names.peer = w_.put(ep.peer_address);
      fds.emplace(ep.fd, f);
    }
    for (int fd : used_before_created) {
      if (fds.count(fd)) continue;
      // An end first seen in use: its kind from the first event on it.
      const trace::Endpoint* ep = nullptr;
      for (uint32_t pos : t_.process_events[p]) {
        const uint32_t e = t_.events[pos].endpoint;
        if (e != kNone && t_.endpoints[e].fd == fd) {
          ep = &t_.endpoints[e];
          break;
        }
      }
      trace::Endpoint unknown;
      unknown.type = ChannelType::Other;
      unknown.access = O_RDWR;
      fds.emplace(fd, standInFor(ep ? *ep : unknown, fd));
    }
    // Every other descriptor open at start holds its number: a file it
    // may read from (a redirected input) reopened where it stood, the rest
    // /dev/null. One the program later made again (dnsmasq closes an
    // inherited 3 without a word, opens /dev/urandom at 4, a socket at 3)
    // is held too: it closes it in the re-run as it did.
    for (int fd : open_at_start_)
      if (!fds.count(fd)) {
        ScriptFd f{};
        f.fd = fd;
        f.stand_in = StandIn::Placeholder;
        f.access = O_RDWR;
        auto file = start_files_.find(fd);
        if (file != start_files_.end()) f.path = w_.put(file->second.path() + std::string(1, '\0'));
        if (file != start_files_.end() && (file->second.flags() & O_ACCMODE) != O_WRONLY) {
          f.stand_in = StandIn::File;
          f.access = O_RDONLY;
          f.offset = file->second.offset();
        }
        fds.emplace(fd, f);
      }
    for (const auto& [fd, f] : fds) w_.inherited.push_back(f);
  }

  void endOf(const Process& proc) {
    switch (proc.end) {
      case Process::End::Exited:
        end_ = ScriptEnd::Exited, end_code_ = proc.end_code;
        break;
      case Process::End::Signaled:
        end_ = ScriptEnd::Signaled, end_code_ = proc.end_code;
        break;
      case Process::End::Execed:
        end_ = ScriptEnd::Execed;
        break;
      case Process::End::Unknown:
        end_ = ScriptEnd::Unknown;
        break;
    }
    const uint32_t segment = static_cast<uint32_t>(out_->chain.size() - 1);
    for (const log::ThreadSlot& slot : proc.control.threads) {
      if (!slot.tid || !slot.kind || log::isSyncKind(static_cast<Kind>(slot.kind))) continue;
      auto it = threads_.find({segment, slot.tid});
      if (it == threads_.end()) continue;
      w_.threads[it->second].end_kind = slot.kind;
      w_.threads[it->second].end_fd = slot.fd;
      if (end_ == ScriptEnd::Unknown) end_ = ScriptEnd::Blocked;
      const std::string call = log::kindName(static_cast<Kind>(slot.kind));
      out_->notes.push_back(
          end_ == ScriptEnd::Exited
              ? t_.label(proc.index) + " (thread " + std::to_string(slot.tid) + ") was in " + call +
                    "() when another thread ended the process: in the re-run it waits there for the exit"
              : t_.label(proc.index) + " was in " + call + "() when the recording stopped: the re-run stops there too");
    }
  }

  // The bytes a receive delivered: its own payload (from outside the
  // recording), or pieces of the sends the matching gave it, fetched later
  // in one pass over each sender's log (resolveReceives).
  bool receivedBytes(const log::Record& r, uint32_t position, std::string* data, std::string* error) {
    uint64_t want = 0;
    if (log::isMultiMessage(r.kind)) {
      for (uint64_t n : r.lengths) want += n;
    } else if (r.result > 0) {
      want = std::min<uint64_t>(static_cast<uint64_t>(r.result), r.size);
    }
    if (!want || (r.flags & log::kFlagPassThrough)) return true;  // none reached the program
    const bool peek = (r.flags & MSG_PEEK) && !log::isMultiMessage(r.kind);
    if (r.payload.size() >= want) {
      data->assign(r.payload.substr(0, want));
      return true;
    }
    if (peek) {  // found later, in the receives that took these bytes
      peeks_.push_back({static_cast<uint32_t>(w_.events.size()), r.fd, want, position});
      return true;
    }
    Pending pending{static_cast<uint32_t>(w_.events.size()), position, want, r.has_hash, r.hash, {}};
    uint64_t found = 0;
    for (const trace::Trace::ReceivedPiece& piece : t_.receivedPieces(position)) {
      pending.pieces.push_back({piece.send, piece.skip, piece.bytes});
      found += piece.bytes;
    }
    if (found < want) {
      *error = "the recording does not have all " + std::to_string(want) + " bytes received at " +
               eventName(t_, position) +
               (r.payload_omitted || payload_limited_ ? " (it was made with --payload-limit, which keeps only the "
                                                        "first bytes of each message)"
                                                      : " (no recorded process sent them)") +
               ": that process cannot be re-run faithfully";
      return false;
    }
    pending_.push_back(std::move(pending));
    return true;
  }

  // The sends' bytes that receives got, read from the senders' logs (a
  // view of each send's record, not a copy: a 100 MB send read in 1 600
  // pieces is read once), then checked against the receives' own hashes.
  bool resolveReceives(std::string* error) {
    for (const Pending& p : pending_) {
      Blob blob = w_.begin();
      uint32_t crc = 0;
      uint64_t left = p.want;
      for (const Piece& piece : p.pieces) {
        std::string_view sent;
        std::string why;
        if (!t_.payloadView(piece.send, &sent, &why)) {
          *error = "cannot read " + eventName(t_, piece.send) + " for the bytes " + eventName(t_, p.position) +
                   " received: " + why;
          return false;
        }
        if (piece.skip + piece.bytes > sent.size()) {
          *error = "the recording does not have all " + std::to_string(p.want) + " bytes received at " +
                   eventName(t_, p.position) +
                   (payload_limited_ ? " (it was made with --payload-limit, which keeps only the first bytes of "
                                       "each message)"
                                     : " (the sender's log lacks them)") +
                   ": that process cannot be re-run faithfully";
          return false;
        }
        const std::string_view bytes = sent.substr(piece.skip, std::min(piece.bytes, left));
        left -= bytes.size();
        crc = crc32c(crc, bytes.data(), bytes.size());
        w_.append(blob, bytes);
      }
      if (p.has_hash && crc != p.hash) {
        *error = "the recording does not say which bytes " + eventName(t_, p.position) +
                 " received: several processes wrote to (or read from) its channel at the same moment, and the "
                 "bytes matched by time are not the ones received";
        return false;
      }
      w_.events[p.event].data = blob;
    }
    return true;
  }

  // A send kept once: the bytes of the receive before it that it names.
  bool sameBytes(uint32_t position, ScriptEvent* e, std::string* error) {
    std::string_view bytes;
    std::string why;
    uint64_t omitted = 0;
    if (!t_.payloadView(position, &bytes, &why, &omitted)) {
      *error = "cannot read the bytes sent at " + eventName(t_, position) + ": " + why;
      return false;
    }
    e->data = w_.put(bytes);
    e->omitted = omitted;
    return true;
  }

  bool addEvent(uint32_t segment, const Process& proc, const log::Record& r, uint32_t position, bool branch,
                std::string* error) {
    ScriptEvent e{};
    e.kind = static_cast<uint16_t>(r.kind);
    e.thread = threadIndex(segment, r.tid ? r.tid : static_cast<uint32_t>(proc.pid), proc.pid);
    e.next_in_thread = kNoEvent;
    e.segment = segment;
    e.counter = r.counter;
    e.number = position + 1;
    e.result = r.result;
    e.error = static_cast<int32_t>(r.error);
    e.fd = r.fd;
    e.size = r.size;
    e.call_flags = r.flags;
    e.peer_pid = r.peer_pid;
    e.status = r.status;
    e.signal = r.signal;
    e.hash = r.hash;
    e.after_arrival = kNoEvent;
    e.after_sync = kNoEvent;
    e.channel = r.channel;
    e.omitted = r.payload_omitted;
    if (r.has_hash) e.flags |= kHashKnown;
    if (branch) e.flags |= kBranchToChild;
    if (r.flags & log::kFlagNeverReturned) e.flags |= kNeverReturns;
    if (r.kind == Kind::Open && r.channel) e.flags |= kOnChannel;

    const Category category = log::categoryOf(r.kind);
    // A value the re-run will hand to the program as a call's result must
    // be one the call could have returned: a read of 16 bytes that
    // "returned" 300 would make the program read past its buffer. With
    // MSG_TRUNC a socket receive returns the message's real length, longer
    // than the buffer (a netlink peek does so); the re-run copies only what
    // fits, as the kernel did.
    if ((category == Category::Receive || category == Category::Send) && !log::isMultiMessage(r.kind) && r.result > 0 &&
        static_cast<uint64_t>(r.result) > r.size && !returnsRealLength(r)) {
      *error = "the log is damaged: its event " + std::to_string(r.counter) + " (" + log::kindName(r.kind) +
               ") moved " + std::to_string(r.result) + " bytes with a buffer of " + std::to_string(r.size);
      return false;
    }
    if (category == Category::Receive) {
      std::string bytes;
      if (!receivedBytes(r, position, &bytes, error)) return false;
      e.data = w_.put(bytes);
    } else {
      e.data = w_.put(r.payload);
      if (r.same_as && !sameBytes(position, &e, error)) return false;
      if (category == Category::Send) {
        const uint32_t ep = t_.events[position].endpoint;
        if (ep != kNone) {
          const trace::Channel& c = t_.channels[t_.endpoints[ep].channel];
          // Output nobody in the recording read (the terminal, a file the
          // recording's stdout went to) still reaches the user.
          if (c.external || c.type == ChannelType::Terminal) e.flags |= kPassThrough;
        }
      }
    }
    e.address = w_.put(r.address);
    e.fds = w_.put(r.fds.data(), r.fds.size() * sizeof(int32_t));
    noteEpollInterest(r);
    if (!r.ready.empty()) {
      std::vector<ScriptReady> ready;
      for (const auto& rf : r.ready) {
        // epoll_wait gives back the program's data, often a pointer: which
        // descriptor it stood for, so that the re-run gives back its own.
        int32_t fd = rf.fd;
        if (fd < 0 && r.kind == Kind::EpollWait) {
          auto it = epoll_data_.find({r.fd, rf.data});
          if (it != epoll_data_.end()) fd = it->second;
        }
        ready.push_back({fd, rf.events, rf.data});
      }
      e.ready = w_.put(ready.data(), ready.size() * sizeof(ScriptReady));
    }
    e.lengths = w_.put(r.lengths.data(), r.lengths.size() * sizeof(uint64_t));
    if (!r.strings.empty()) {
      std::string joined;
      for (auto s : r.strings) joined.append(s).push_back('\0');
      e.strings = w_.put(joined);
    }
    e.text = w_.putText(narrator_.sentence(position));

    const auto index = static_cast<uint32_t>(w_.events.size());
    if (log::isSyncKind(r.kind)) noteSynchronization(r, index, &e);
    script_index_.emplace(position, index);
    positions_.push_back(position);
    ScriptThread& th = w_.threads[e.thread];
    if (th.first_event == kNoEvent) th.first_event = index;
    if (last_of_thread_[e.thread] != kNoEvent) w_.events[last_of_thread_[e.thread]].next_in_thread = index;
    last_of_thread_[e.thread] = index;
    w_.events.push_back(e);
    return true;
  }

  // The send of another thread of the same process, counted after `at`,
  // whose bytes the receive at trace position `receive` got (script index),
  // or kNoEvent.
  uint32_t laterLocalSend(uint32_t receive, const ScriptEvent& at) const {
    uint32_t found = kNoEvent;
    const uint32_t process = t_.events[receive].process;
    for (auto [b, end] = t_.incoming(receive); b != end; ++b) {
      if (b->why != trace::Edge::Why::Message) continue;
      const trace::Event& send = t_.events[b->from];
      if (send.process != process || send.counter <= at.counter) continue;
      auto it = script_index_.find(b->from);
      if (it != script_index_.end() && w_.events[it->second].segment == at.segment &&
          w_.events[it->second].thread != at.thread)
        found = std::min(found, it->second);
    }
    return found;
  }

  // See ScriptEvent::after_arrival: receives, and polls that found a
  // descriptor readable, whose bytes a later-counted call of another thread
  // wrote.
  void linkArrivals() {
    std::map<std::pair<uint32_t, int32_t>, std::vector<uint32_t>> receives_on;  // (segment, fd) -> script indices
    for (uint32_t i = 0; i < w_.events.size(); ++i) {
      const ScriptEvent& e = w_.events[i];
      if (log::categoryOf(static_cast<Kind>(e.kind)) == Category::Receive) receives_on[{e.segment, e.fd}].push_back(i);
    }
    for (uint32_t i = 0; i < w_.events.size(); ++i) {
      ScriptEvent& e = w_.events[i];
      const auto kind = static_cast<Kind>(e.kind);
      if (log::categoryOf(kind) == Category::Receive) {
        e.after_arrival = laterLocalSend(positions_[i], e);
      } else if ((kind == Kind::Poll || kind == Kind::Select) && e.ready.size && e.result > 0) {
        const auto* ready = reinterpret_cast<const ScriptReady*>(w_.view(e.ready).data());
        for (size_t k = 0; k < e.ready.size / sizeof(ScriptReady); ++k) {
          const bool readable = kind == Kind::Poll ? (ready[k].events & (POLLIN | POLLRDNORM)) : (ready[k].events & 1);
          if (!readable) continue;
          // What made it readable: the bytes its next receive got.
          auto list = receives_on.find({e.segment, ready[k].fd});
          if (list == receives_on.end()) continue;
          auto next = std::upper_bound(list->second.begin(), list->second.end(), i);
          if (next == list->second.end()) continue;
          e.after_arrival = std::min(e.after_arrival, laterLocalSend(positions_[*next], e));
        }
      }
    }
  }

  // A synchronization (radar record --sync) on its object, known by the
  // identity the recorder gave it (an address, or for a process-shared one
  // the file and offset first), with the number it took there (0: none, as
  // a failed try).
  void noteSynchronization(const log::Record& r, uint32_t index, ScriptEvent* e) {
    const bool shared = r.address.size() == 4 * sizeof(uint64_t);
    if (shared) e->flags |= kSyncShared;
    // A barrier's parties wait for each other for real: no turn among them.
    if (r.kind == Kind::BarrierWait || !r.offset) return;
    sync_objects_[std::string(r.address)].emplace_back(r.offset, index);
  }

  // See ScriptEvent::after_sync: each operation after the one numbered
  // before it on its object (counted, the order may differ).
  void linkSynchronizations() {
    for (auto& [identity, operations] : sync_objects_) {
      std::sort(operations.begin(), operations.end());
      for (size_t k = 1; k < operations.size(); ++k)
        w_.events[operations[k].second].after_sync = operations[k - 1].second;
    }
    if (!sync_objects_.empty()) sync_ordered_ = true;
  }

  // A MSG_PEEK receive delivered the bytes that the next receives on its
  // descriptor took.
  bool resolvePeeks(std::string* error) {
    for (const Peek& pk : peeks_) {
      std::string bytes;
      for (uint32_t i = pk.event + 1; i < w_.events.size() && bytes.size() < pk.want; ++i) {
        const ScriptEvent& later = w_.events[i];
        if (later.fd != pk.fd) continue;
        if (later.kind == static_cast<uint16_t>(Kind::Close)) break;
        if (log::categoryOf(static_cast<Kind>(later.kind)) != Category::Receive) continue;
        if ((later.call_flags & MSG_PEEK) || !later.data.size) continue;
        bytes.append(w_.view(later.data));
      }
      if (bytes.size() < pk.want) {
        *error = "the bytes peeked at " + eventName(t_, pk.position) +
                 " were never received afterwards, so the recording does not have them";
        return false;
      }
      bytes.resize(pk.want);
      if (w_.events[pk.event].flags & kHashKnown && crc32c(0, bytes.data(), bytes.size()) != w_.events[pk.event].hash) {
        *error = "the bytes peeked at " + eventName(t_, pk.position) + " are not those received afterwards";
        return false;
      }
      w_.events[pk.event].data = w_.put(bytes);
    }
    return true;
  }

  bool finish(std::string*) {
    ScriptHeader h{};
    std::memcpy(h.magic, kScriptMagic, sizeof(h.magic));
    h.version = kScriptVersion;
    h.segment_count = static_cast<uint32_t>(out_->chain.size());
    const Process& debugged = t_.processes[out_->chain.back()];
    h.recorded_pid = debugged.pid;
    h.recorded_generation = debugged.generation;
    h.end = end_;
    h.end_code = end_code_;
    h.closed_at_start = closed_at_start_;
    if (nondet_) h.flags |= kScriptNondet;
    if (outputs_recorded_) h.flags |= kScriptOutputs;
    if (queues_recorded_) h.flags |= kScriptQueues;
    if (eventfds_recorded_) h.flags |= kScriptEventFds;
    if (sync_ordered_) h.flags |= kScriptSync;
    if (recorded_sync_) h.flags |= kScriptRecordedSync;
    h.started_realtime_ns = started_realtime_ns_;
    h.label = w_.putText(t_.label(debugged.index));
    out_->events = static_cast<uint32_t>(w_.events.size());
    out_->bytes = w_.finish(h);
    return true;
  }

  struct Piece {
    uint32_t send;  // trace position
    uint64_t skip;  // bytes of it that earlier receives took
    uint64_t bytes;
  };
  struct Pending {   // a receive whose bytes are in its senders' logs
    uint32_t event;  // in the script
    uint32_t position;
    uint64_t want;
    bool has_hash;
    uint32_t hash;
    std::vector<Piece> pieces;
  };

  struct Peek {
    uint32_t event;  // in the script
    int32_t fd;
    uint64_t want;
    uint32_t position;
  };

  const Trace& t_;
  Script* out_;
  analysis::Narrator narrator_;
  ScriptWriter w_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> threads_;  // (segment, tid) -> index
  std::vector<uint32_t> last_of_thread_;
  std::vector<uint32_t> positions_;                      // per script event: its trace position
  std::unordered_map<uint32_t, uint32_t> script_index_;  // trace position -> script event
  std::vector<Peek> peeks_;
  std::vector<Pending> pending_;
  std::vector<int> open_at_start_;               // the first image's descriptors at start (format 1.1)
  std::map<int, proto::StartFile> start_files_;  // its regular files then (format 1.3)
  std::map<int, uint32_t> last_output_;          // per descriptor: its last output so far
  uint32_t closed_at_start_ = 0;                 // ScriptHeader::closed_at_start
  bool outputs_recorded_ = true;                 // every log of the chain is of format 1.5 or later
  bool queues_recorded_ = true;                  // ... of format 1.6 or later
  bool eventfds_recorded_ = true;                // ... of format 1.7 or later
  bool nondet_ = false;                          // recorded with --nondet
  bool recorded_sync_ = false;                   // recorded with --sync
  // Per synchronized object: (number, script event) of its operations.
  std::map<std::string, std::vector<std::pair<uint64_t, uint32_t>>> sync_objects_;
  bool sync_ordered_ = false;        // the script has synchronizations to replay in order
  int64_t started_realtime_ns_ = 0;  // ScriptHeader::started_realtime_ns
  bool payload_limited_ = false;     // the recording kept only part of each message
  // The epoll registrations so far: (epoll descriptor, the program's data)
  // -> the descriptor registered with it.
  std::map<std::pair<int32_t, uint64_t>, int32_t> epoll_data_;
  void noteEpollInterest(const log::Record& r) {
    if (r.kind != Kind::EpollCtl || r.result != 0 || r.fds.size() < 3) return;
    const int32_t epfd = r.fds[0], op = r.fds[1], fd = r.fds[2];
    for (auto it = epoll_data_.begin(); it != epoll_data_.end();)
      it = it->first.first == epfd && it->second == fd ? epoll_data_.erase(it) : std::next(it);
    if ((op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD) && !r.ready.empty()) epoll_data_[{epfd, r.ready[0].data}] = fd;
  }
  ScriptEnd end_ = ScriptEnd::Unknown;
  int32_t end_code_ = 0;
};

}  // namespace

ScriptBytes ScriptBytes::inFile(int fd) {
  ScriptBytes b;
  b.fd_ = fd;
  return b;
}

ScriptBytes::ScriptBytes(ScriptBytes&& o) noexcept { *this = std::move(o); }

ScriptBytes& ScriptBytes::operator=(ScriptBytes&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    fd_ = o.fd_;
    reserved_ = o.reserved_;
    finished_ = o.finished_;
    o.data_ = nullptr;
    o.size_ = o.capacity_ = o.reserved_ = 0;
    o.fd_ = -1;
    o.finished_ = false;
  }
  return *this;
}

ScriptBytes::~ScriptBytes() { release(); }

void ScriptBytes::release() {
  if (data_) ::munmap(data_, capacity_);
  if (fd_ >= 0) ::close(fd_);
  data_ = nullptr;
  fd_ = -1;
}

void ScriptBytes::reserve(size_t n) {
  if (finished_ && n > size_) throw std::logic_error("the replay script grew after it was finished");
  constexpr size_t kStep = size_t{2} << 20;
  // The file's blocks are reserved first, for what is used (in steps): a
  // page of a mapping that the file system cannot back (a full disk) would
  // be a SIGBUS, not an error.
  if (fd_ >= 0 && n > reserved_) {
    const size_t want = (n + kStep - 1) & ~(kStep - 1);
    if (::fallocate(fd_, 0, static_cast<off_t>(reserved_), static_cast<off_t>(want - reserved_)) != 0)
      throw std::system_error(errno, std::generic_category(), "cannot write the replay script");
    reserved_ = want;
  }
  if (n <= capacity_) return;
  // Not on transparent huge pages: where the kernel compacts memory for
  // them on demand (defrag "madvise", Debian's default), faulting in
  // 100 MB of them took 190 to 300 ms against 60 to 80 for small pages.
  const size_t want = (std::max({n, capacity_ * 2, kStep}) + kStep - 1) & ~(kStep - 1);
  const int share = fd_ >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS;
  void* p = data_ ? ::mremap(data_, capacity_, want, MREMAP_MAYMOVE)
                  : ::mmap(nullptr, want, PROT_READ | PROT_WRITE, share, fd_, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<char*>(p);
  capacity_ = want;
}

bool ScriptBytes::finishFile(std::string* error) {
  if (fd_ < 0) return true;
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    *error = std::string("cannot write the replay script: ") + std::strerror(errno);
    return false;
  }
  finished_ = true;
  return true;
}

void ScriptBytes::append(const void* p, size_t n) {
  if (!n) return;
  reserve(size_ + n);
  std::memcpy(data_ + size_, p, n);
  size_ += n;
}

void ScriptBytes::resize(size_t n) {
  reserve(n);
  if (n > size_) std::memset(data_ + size_, 0, n - size_);
  size_ = n;
}

std::vector<uint32_t> imageChain(const Trace& t, uint32_t image, std::string* error) {
  std::vector<uint32_t> chain{image};
  for (uint32_t p = image; t.processes[p].origin == log::Origin::Forked;) {
    const uint32_t parent = t.processes[p].parent;
    if (parent == kNone || t.processes[parent].external) {
      *error = t.label(p) +
               " was forked by a process whose log is missing: it starts inside its "
               "parent's memory, so the parent must be replayed up to the fork";
      return {};
    }
    chain.insert(chain.begin(), parent);
    p = parent;
  }
  return chain;
}

bool buildScript(const Trace& trace, uint32_t image, Script* out, std::string* error) {
  ScriptBytes into = std::move(out->bytes);
  *out = Script{};
  out->bytes = std::move(into);
  try {
    Builder b(trace, out);
    return b.build(image, error) && out->bytes.finishFile(error);
  } catch (const std::system_error& e) {
    *error = e.what();
  } catch (const std::bad_alloc&) {
    *error = "not enough memory for the replay script";
  }
  return false;
}

}  // namespace radar::driver

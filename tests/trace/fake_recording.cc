#include "fake_recording.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <queue>

#include "../temp_dirs.h"
#include "log/crc32c.h"
#include "log/mpi_event.h"
#include "log/unseen.h"
#include "trace/merge.h"

namespace radar::testing {

FakeProcess& FakeProcess::pipeEnd(uint32_t index, uint64_t ino, bool write_end) {
  Item it{log::Kind::Channel};
  it.annotation = true;
  it.info.index = index;
  it.info.type = log::ChannelType::Pipe;
  it.info.origin = log::ChannelOrigin::Created;
  it.info.dev = 15;
  it.info.ino = ino;
  it.info.access = write_end ? O_WRONLY : O_RDONLY;
  it.info.fd = 3;  // every fake event's descriptor
  items_.push_back(it);
  return *this;
}

FakeProcess& FakeProcess::socketEnd(uint32_t index, uint64_t ino, uint64_t peer_ino, log::ChannelType type) {
  Item it{log::Kind::Channel};
  it.annotation = true;
  it.info.index = index;
  it.info.type = type;
  it.info.origin = log::ChannelOrigin::Created;
  it.info.dev = 8;
  it.info.ino = ino;
  it.info.peer_ino = peer_ino;
  it.info.access = O_RDWR;
  it.info.fd = 3;
  items_.push_back(it);
  return *this;
}

FakeProcess& FakeProcess::tcpEnd(uint32_t index, uint64_t ino, const std::string& local, const std::string& peer) {
  socketEnd(index, ino, 0, log::ChannelType::Tcp);
  items_.back().address = local;
  items_.back().peer_address = peer;
  items_.back().info.domain = AF_INET;
  items_.back().info.socket_type = SOCK_STREAM;
  return *this;
}

FakeProcess& FakeProcess::inheritedPipeEnd(uint32_t index, uint64_t ino, bool write_end) {
  pipeEnd(index, ino, write_end);
  items_.back().info.origin = log::ChannelOrigin::Inherited;
  return *this;
}

FakeProcess& FakeProcess::terminal(uint32_t index) {
  Item it{log::Kind::Channel};
  it.annotation = true;
  it.info.index = index;
  it.info.type = log::ChannelType::Terminal;
  it.info.origin = log::ChannelOrigin::Inherited;
  it.info.dev = 22;
  it.info.ino = 7;
  it.info.external = true;
  items_.push_back(it);
  return *this;
}

FakeProcess& FakeProcess::udpEnd(uint32_t index, uint64_t ino, const std::string& local) {
  socketEnd(index, ino, 0, log::ChannelType::Udp);
  items_.back().address = local;
  items_.back().info.domain = AF_INET;
  items_.back().info.socket_type = SOCK_DGRAM;
  return *this;
}

FakeProcess& FakeProcess::sendTo(uint32_t channel, const std::string& bytes, const std::string& to, int64_t entry,
                                 int64_t ret) {
  send(channel, bytes, entry, ret);
  items_.back().kind = log::Kind::Sendto;
  items_.back().address = to;
  return *this;
}

FakeProcess& FakeProcess::receiveFrom(uint32_t channel, const std::string& bytes, const std::string& from,
                                      int64_t entry, int64_t ret) {
  receive(channel, bytes, entry, ret);
  items_.back().kind = log::Kind::Recvfrom;
  items_.back().address = from;
  return *this;
}

FakeProcess& FakeProcess::send(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret, uint32_t tid) {
  Item it{log::Kind::Write, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size())};
  it.tid = tid;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::sendCut(uint32_t channel, const std::string& bytes, uint64_t omitted, int64_t entry,
                                  int64_t ret) {
  Item it{log::Kind::Write, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size() + omitted)};
  it.omitted = omitted;
  it.size = bytes.size() + omitted;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::sendSameAs(uint32_t channel, const std::string& bytes, uint64_t same_as, uint64_t from,
                                     int64_t entry, int64_t ret) {
  send(channel, bytes, entry, ret);
  items_.back().same_as = same_as;
  items_.back().same_from = from;
  return *this;
}

FakeProcess& FakeProcess::receive(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret,
                                  uint32_t tid) {
  Item it{log::Kind::Read, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size())};
  it.tid = tid;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::receiveKeeping(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret) {
  receive(channel, bytes, entry, ret);
  items_.back().keep = true;
  return *this;
}

FakeProcess& FakeProcess::peek(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret) {
  Item it{log::Kind::Recv, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size())};
  it.flags = MSG_PEEK;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::receiveIntoSmallerBuffer(uint32_t channel, const std::string& bytes, uint64_t buffer,
                                                   int64_t entry, int64_t ret) {
  receive(channel, bytes, entry, ret);
  items_.back().size = buffer;
  return *this;
}

FakeProcess& FakeProcess::failedReceive(uint32_t channel, int err, int64_t entry, int64_t ret) {
  Item it{log::Kind::Read, channel, "", entry, ret, -1, static_cast<uint32_t>(err)};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::failedSend(uint32_t channel, int err, int64_t entry, int64_t ret) {
  Item it{log::Kind::Write, channel, "", entry, ret, -1, static_cast<uint32_t>(err)};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::close(uint32_t channel, int64_t at) {
  items_.push_back(Item{log::Kind::Close, channel, "", at, at});
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::mpiCommunicator(uint32_t index, const std::string& identity, int32_t rank, int32_t size) {
  Item it{log::Kind::Channel};
  it.annotation = true;
  it.info.index = index;
  it.info.type = log::ChannelType::MpiCommunicator;
  it.info.origin = log::ChannelOrigin::Created;
  it.info.fd = -1;
  it.info.mpi_rank = rank;
  it.info.mpi_size = size;
  it.name = identity;
  items_.push_back(it);
  return *this;
}

FakeProcess& FakeProcess::mpiInit(uint32_t channel, int32_t rank, int32_t size, int64_t at) {
  Item it{log::Kind::MpiInit, channel, "", at, at};
  it.ints = {rank, size};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::mpiSend(uint32_t channel, const std::string& bytes, int32_t dest, int32_t tag, int64_t entry,
                                  int64_t ret) {
  Item it{log::Kind::MpiSend, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size())};
  it.peer = dest;
  it.status = tag;
  it.ints = {static_cast<int32_t>(bytes.size())};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::mpiIrecv(uint32_t channel, int32_t source, int32_t tag, uint32_t serial, int64_t at) {
  Item it{log::Kind::MpiIrecv, channel, "", at, at, static_cast<int64_t>(serial)};
  it.ints = {source, tag, 64};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::mpiRecv(uint32_t channel, const std::string& bytes, int32_t source, int32_t tag,
                                  int64_t entry, int64_t ret, uint32_t serial) {
  Item it{log::Kind::MpiRecv, channel, bytes, entry, ret, static_cast<int64_t>(bytes.size())};
  it.peer = source;
  it.status = tag;
  it.size = 64;
  it.ints = {source, tag, 64, static_cast<int32_t>(serial)};
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::mpiRecvAny(uint32_t channel, const std::string& bytes, int32_t source, int32_t tag,
                                     int64_t entry, int64_t ret, bool any_tag) {
  mpiRecv(channel, bytes, source, tag, entry, ret);
  items_.back().ints = {log::kMpiAnySource, any_tag ? log::kMpiAnyTag : tag, 64, 0};
  return *this;
}

FakeProcess& FakeProcess::mpiCollective(uint32_t channel, const std::string& operation, int32_t root, int64_t entry,
                                        int64_t ret) {
  Item it{log::Kind::MpiCollective, channel, "", entry, ret};
  it.peer = root;
  it.name = operation;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::shutdown(uint32_t channel, int how, int64_t at) {
  Item it{log::Kind::Shutdown, channel, "", at, at};
  it.flags = static_cast<uint32_t>(how);
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::fork(int32_t child_pid, int64_t entry, int64_t ret) {
  Item it{log::Kind::Fork, 0, "", entry, ret, child_pid};
  it.peer = child_pid;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::kill(int32_t target_pid, int sig, int64_t entry, int64_t ret) {
  Item it{log::Kind::Kill, 0, "", entry, ret};
  it.peer = target_pid;
  it.signal = sig;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::signal(int32_t from_pid, int sig, int64_t at) {
  Item it{log::Kind::Signal, 0, "", at, at};
  it.peer = from_pid;
  it.signal = sig;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::connect(uint32_t channel, int64_t entry, int64_t ret) {
  items_.push_back({log::Kind::Connect, channel, "", entry, ret});
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::accept(uint32_t channel, int64_t entry, int64_t ret) {
  Item it{log::Kind::Accept, channel, "", entry, ret};
  it.result = 4;  // the new descriptor
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::wait(int32_t child_pid, int status, int64_t entry, int64_t ret) {
  Item it{log::Kind::Wait, 0, "", entry, ret, child_pid};
  it.peer = child_pid;
  it.status = status;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::exit(int status, int64_t at) {
  Item it{log::Kind::Exit, 0, "", at, at};
  it.status = status;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::exec(const std::string& path, int64_t at) {
  Item it{log::Kind::Exec, 0, "", at, at};
  it.name = path;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::user(const std::string& name, int64_t at, const std::string& data) {
  Item it{log::Kind::User, 0, data, at, at};
  it.name = name;
  items_.push_back(it);
  ++counter_;
  return *this;
}

FakeProcess& FakeProcess::unseen(const std::string& what, const std::string& text) {
  Item it{log::Kind::Note};
  it.name = text;
  it.address = what;     // the note's third string
  items_.push_back(it);  // a note has no counter
  return *this;
}

FakeProcess& FakeProcess::blockedIn(log::Kind kind, uint32_t channel, int32_t fd, uint64_t last_counter,
                                    int64_t entry) {
  blocked_.push_back({static_cast<uint32_t>(pid_), static_cast<uint16_t>(kind), 0, fd, channel, entry, last_counter});
  return *this;
}

FakeProcess& FakeProcess::thread(uint32_t tid, log::Kind kind, uint32_t channel, int64_t entry, uint64_t last_counter) {
  blocked_.push_back({tid, static_cast<uint16_t>(kind), 0, 3, channel, entry, last_counter});
  return *this;
}

FakeRecording::FakeRecording() : dir_(TempDirs::make("radar-fake-")) {}

FakeProcess& FakeRecording::process(const std::string& name, int32_t pid) {
  auto p = std::make_unique<FakeProcess>();
  p->name_ = name;
  p->pid_ = pid;
  p->log_id_ = next_log_id_++;
  processes_.push_back(std::move(p));
  return *processes_.back();
}

FakeProcess& FakeRecording::child(FakeProcess& parent, const std::string& name, int32_t pid) {
  FakeProcess& c = process(name, pid);
  c.origin_ = log::Origin::Forked;
  c.parent_log_ = parent.log_id_;
  c.parent_counter_ = parent.counter_;
  return c;
}

FakeProcess& FakeRecording::execed(FakeProcess& before, const std::string& name) {
  FakeProcess& image = process(name, before.pid_);
  image.origin_ = log::Origin::Execed;
  image.parent_log_ = before.log_id_;
  image.parent_counter_ = before.counter_;
  return image;
}

void FakeRecording::notRecorded(int32_t pid, const std::string& executable, const std::string& what) {
  not_recorded_.push_back("problems { pid: " + std::to_string(pid) + " executable: \"" + executable + "\" what: \"" +
                          what + "\" }\n");
}

std::string FakeRecording::write() {
  if (!not_recorded_.empty()) {
    std::ofstream meta(dir_ + "/recording.txt");
    for (const auto& line : not_recorded_) meta << line;
  }
  written_ = true;
  for (const auto& p : processes_) {
    const std::string path = dir_ + "/" + std::to_string(p->pid_) + "-0-" + p->name_ + ".rlog";
    const std::string exe = "/bin/" + p->name_;
    const char* argv[] = {p->name_.c_str(), nullptr};
    log::HeaderFields h;
    h.recording_id = id_;
    h.log_id = p->log_id_;
    h.host_name = p->host_.c_str();
    h.boot_id = p->boot_.c_str();
    h.pid = p->pid_;
    h.ppid = 1;
    h.origin = p->origin_;
    h.parent_log_id = p->parent_log_;
    h.parent_counter = p->parent_counter_;
    h.executable = exe.c_str();
    h.argv = argv;
    h.realtime_ns = 1'700'000'000'000'000'000 - p->clock_lag_ + p->clock_ahead_;
    h.monotonic_ns = 0;
    log::LogWriter w;
    log::WriterOptions options;
    options.tail_capacity = 4096;  // several frames in longer tests
    if (w.open(path.c_str(), h, options) != 0) std::abort();
    std::vector<uint64_t> sent(256, 0), received(256, 0);
    for (const auto& it : p->items_) {
      log::EventFields e;
      e.kind = it.kind;
      if (it.annotation) {
        log::ChannelFields info = it.info;
        if (info.type == log::ChannelType::MpiCommunicator) info.path = it.name.c_str();
        if (!it.address.empty()) {
          info.local_address = it.address.data();
          info.local_address_len = it.address.size();
        }
        if (!it.peer_address.empty()) {
          info.peer_address = it.peer_address.data();
          info.peer_address_len = it.peer_address.size();
        }
        e.channel_info = &info;
        w.append(e);
        continue;
      }
      e.tid = it.tid;
      e.flags = it.flags;
      e.entry_ns = it.entry;
      e.return_ns = it.ret;
      e.fd = 3;
      e.channel = it.channel;
      e.result = it.result;
      e.error = it.error;
      e.peer_pid = it.peer;
      e.status = it.status;
      e.signal = it.signal;
      log::Iov iov{it.bytes.data(), it.bytes.size()};
      const char* name = it.name.c_str();
      if (it.kind == log::Kind::Exec) {
        e.strings = &name;
        e.string_count = 1;
      }
      if (!it.ints.empty()) {
        e.fds = it.ints.data();
        e.fd_count = it.ints.size();
      }
      const char* note[4] = {name, log::kUnseenNote, it.address.c_str(), ""};
      if (it.kind == log::Kind::Note) {
        e.strings = note;
        e.string_count = 4;
        w.append(e);
        continue;
      }
      if (it.kind == log::Kind::MpiCollective) {
        e.strings = &name;
        e.string_count = 1;
      }
      if (it.kind == log::Kind::User) {
        e.strings = &name;
        e.string_count = 1;
        if (!it.bytes.empty()) {  // the event's data
          e.payload = &iov;
          e.payload_iov_count = 1;
          e.payload_len = it.bytes.size();
        }
      }
      if (!it.address.empty()) {
        e.address = it.address.data();
        e.address_len = static_cast<socklen_t>(it.address.size());
      }
      if (log::isData(it.kind)) {
        const bool is_send = log::categoryOf(it.kind) == log::Category::Send;
        e.has_offset = true;
        e.size = it.size ? it.size : it.bytes.empty() ? 64 : it.bytes.size();
        auto& offset = is_send ? sent[it.channel] : received[it.channel];
        e.offset = offset;
        if (it.result > 0) offset += static_cast<uint64_t>(it.result);
        if (is_send && it.same_as) {
          e.same_as = it.same_as;
          e.same_from = it.same_from;
          e.has_hash = true;
          e.hash = crc32c(0, it.bytes.data(), it.bytes.size());
          e.payload_omitted = it.bytes.size();
        } else if (is_send) {
          e.payload = &iov;
          e.payload_iov_count = 1;
          e.payload_len = it.bytes.size();
          e.payload_omitted = it.omitted;
        } else if (it.result > 0) {
          e.has_hash = true;
          e.hash = crc32c(0, it.bytes.data(), it.bytes.size());
          if (it.keep) {
            e.payload = &iov;
            e.payload_iov_count = 1;
            e.payload_len = it.bytes.size();
          }
        }
      }
      w.append(e);
    }
    for (size_t i = 0; i < p->blocked_.size(); ++i) w.control()->threads[i] = p->blocked_[i];
    w.abandon();  // as if the recording stopped here: not closed
  }
  return dir_;
}

std::unique_ptr<trace::Trace> FakeRecording::load(const trace::LoadOptions& options) {
  if (!written_) write();
  std::string error;
  auto t = trace::loadTrace({dir_}, options, &error);
  if (!t) std::abort();
  return t;
}

uint32_t processOfPid(const trace::Trace& t, int32_t pid) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return p.index;
  ADD_FAILURE() << "no process " << pid;
  return 0;
}

bool reaches(const trace::Trace& t, uint32_t a, uint32_t b) {
  std::vector<std::vector<uint32_t>> next(t.events.size());
  for (const auto& e : t.edges)
    if (t.events[e.from].process != t.events[e.to].process) next[e.from].push_back(e.to);  // causal edges only
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const uint32_t pred = t.localPredecessor(i);
    if (pred != trace::kNone) next[pred].push_back(i);
  }
  std::vector<bool> seen(t.events.size(), false);
  std::queue<uint32_t> q;
  q.push(a);
  seen[a] = true;
  while (!q.empty()) {
    const uint32_t x = q.front();
    q.pop();
    for (uint32_t y : next[x]) {
      if (y == b) return true;
      if (!seen[y]) {
        seen[y] = true;
        q.push(y);
      }
    }
  }
  return false;
}

std::string inet4(const char* host, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, host, &a.sin_addr);
  return std::string(reinterpret_cast<const char*>(&a), sizeof a);
}

void clientAndServer(FakeRecording& rec, int rounds) {
  FakeProcess& client = rec.process("client", 100).socketEnd(1, 1, 2);
  FakeProcess& server = rec.process("server", 200).socketEnd(1, 2, 1);
  int64_t now = 10;
  for (int k = 0; k < rounds; ++k, now += 10) {
    client.send(1, "q", now, now + 1).receive(1, "a", now + 2, now + 6);
    server.receive(1, "q", now + 1, now + 2).send(1, "a", now + 4, now + 5);
  }
  client.exit(0, now);
  server.exit(0, now + 1);
}

}  // namespace radar::testing

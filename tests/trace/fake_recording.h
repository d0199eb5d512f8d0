// Test helper: writes hand-made recordings (one log per process) with
// LogWriter, with exact times, channels and contents, so that the merge can
// be checked against known answers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "log/fields.h"
#include "log/writer.h"
#include "trace/load.h"
#include "trace/trace.h"

namespace radar::testing {

class FakeRecording;

class FakeProcess {
 public:
  // Channel ends: `index` is this log's channel index; pipes share `ino`.
  FakeProcess& pipeEnd(uint32_t index, uint64_t ino, bool write_end);
  // A pipe's end the process had from its parent (open from its start).
  FakeProcess& inheritedPipeEnd(uint32_t index, uint64_t ino, bool write_end);
  FakeProcess& socketEnd(uint32_t index, uint64_t ino, uint64_t peer_ino,
                         log::ChannelType type = log::ChannelType::UnixStream);
  FakeProcess& terminal(uint32_t index);
  // A TCP connection's end, by its addresses (sockaddr bytes, inet4()).
  FakeProcess& tcpEnd(uint32_t index, uint64_t ino, const std::string& local, const std::string& peer);
  // A UDP socket bound to `local` (a sockaddr's bytes; port 0: bound by the
  // kernel at its first send, as recorded then).
  FakeProcess& udpEnd(uint32_t index, uint64_t ino, const std::string& local);
  // Events, in the order the process did them; times in ns.
  FakeProcess& send(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret, uint32_t tid = 0);
  // A send of `bytes` and `omitted` more that the log left out (radar
  // record --payload-limit).
  FakeProcess& sendCut(uint32_t channel, const std::string& bytes, uint64_t omitted, int64_t entry, int64_t ret);
  FakeProcess& receive(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret, uint32_t tid = 0);
  // A send kept once (log 1.15): `bytes`, which its log says are those this
  // process received at its event `same_as`, from byte `from` on (its log
  // keeps their checksum only).
  FakeProcess& sendSameAs(uint32_t channel, const std::string& bytes, uint64_t same_as, uint64_t from, int64_t entry,
                          int64_t ret);
  // sendto / recvfrom with the datagram's address (sockaddr bytes).
  FakeProcess& sendTo(uint32_t channel, const std::string& bytes, const std::string& to, int64_t entry, int64_t ret);
  FakeProcess& receiveFrom(uint32_t channel, const std::string& bytes, const std::string& from, int64_t entry,
                           int64_t ret);
  FakeProcess& failedReceive(uint32_t channel, int err, int64_t entry, int64_t ret);
  FakeProcess& failedSend(uint32_t channel, int err, int64_t entry, int64_t ret);
  // A receive whose log keeps the bytes too (as radar record does on
  // sockets a process may share).
  FakeProcess& receiveKeeping(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret);
  // recv(MSG_PEEK): sees the bytes without taking them.
  FakeProcess& peek(uint32_t channel, const std::string& bytes, int64_t entry, int64_t ret);
  // A receive whose log says it moved more bytes than its buffer holds (a
  // damaged or crafted log).
  FakeProcess& receiveIntoSmallerBuffer(uint32_t channel, const std::string& bytes, uint64_t buffer, int64_t entry,
                                        int64_t ret);
  FakeProcess& close(uint32_t channel, int64_t at);
  FakeProcess& shutdown(uint32_t channel, int how, int64_t at);
  // MPI, as libradar-mpi.so records it: a communicator (its identity in the
  // job, this process's rank and its size), MPI_Init, sends, receives (a
  // `serial` names the MPI_Irecv that posted it), posts and collectives.
  FakeProcess& mpiCommunicator(uint32_t index, const std::string& identity, int32_t rank, int32_t size);
  FakeProcess& mpiInit(uint32_t channel, int32_t rank, int32_t size, int64_t at);
  FakeProcess& mpiSend(uint32_t channel, const std::string& bytes, int32_t dest, int32_t tag, int64_t entry,
                       int64_t ret);
  FakeProcess& mpiIrecv(uint32_t channel, int32_t source, int32_t tag, uint32_t serial, int64_t at);
  FakeProcess& mpiRecv(uint32_t channel, const std::string& bytes, int32_t source, int32_t tag, int64_t entry,
                       int64_t ret, uint32_t serial = 0);
  // A receive posted for MPI_ANY_SOURCE (and `tag` or, with `any_tag`,
  // any tag) that got `source`'s message with `tag`.
  FakeProcess& mpiRecvAny(uint32_t channel, const std::string& bytes, int32_t source, int32_t tag, int64_t entry,
                          int64_t ret, bool any_tag = false);
  FakeProcess& mpiCollective(uint32_t channel, const std::string& operation, int32_t root, int64_t entry, int64_t ret);
  FakeProcess& fork(int32_t child_pid, int64_t entry, int64_t ret);
  // kill(target, sig), and a handler's run for a signal `from` sent.
  FakeProcess& kill(int32_t target_pid, int sig, int64_t entry, int64_t ret);
  FakeProcess& signal(int32_t from_pid, int sig, int64_t at);
  // connect() on socket end `channel`, and accept() returning the end
  // `channel` (its socketEnd() given just before, the connecting end's
  // ino as its peer).
  FakeProcess& connect(uint32_t channel, int64_t entry, int64_t ret);
  FakeProcess& accept(uint32_t channel, int64_t entry, int64_t ret);
  FakeProcess& wait(int32_t child_pid, int status, int64_t entry, int64_t ret);
  FakeProcess& exit(int status, int64_t at);
  // A successful exec of `path`: the image ends here (the next one has a
  // log of its own, execed(), or none: a program radar could not record).
  FakeProcess& exec(const std::string& path, int64_t at);
  FakeProcess& user(const std::string& name, int64_t at, const std::string& data = {});
  // The note the recorder writes when the process uses what radar does not
  // see into (log/unseen.h): `what` as log::unseenName names it.
  FakeProcess& unseen(const std::string& what, const std::string& text);
  // The call a thread was blocked in when the recording ended, after its
  // event `last_counter` (0: none said), since `entry` (CLOCK_MONOTONIC).
  FakeProcess& blockedIn(log::Kind kind, uint32_t channel, int32_t fd = 3, uint64_t last_counter = 0,
                         int64_t entry = 0);
  // Another thread, `tid`, in no call when the recording ended (kind 0), or
  // in a call of `kind` on `channel` since `entry`; its last event the
  // process's `last_counter`-th (0: none said).
  FakeProcess& thread(uint32_t tid, log::Kind kind = log::Kind{}, uint32_t channel = 0, int64_t entry = 0,
                      uint64_t last_counter = 0);
  // The process read CLOCK_REALTIME `ns` too early against CLOCK_MONOTONIC
  // (preempted between the two reads at its start).
  FakeProcess& clockLag(int64_t ns) {
    clock_lag_ = ns;
    return *this;
  }
  // Another machine: its host name, boot id, and a wall clock `ahead_ns`
  // ahead of the first machine's.
  FakeProcess& onHost(const std::string& host, const std::string& boot, int64_t ahead_ns) {
    host_ = host;
    boot_ = boot;
    clock_ahead_ = ahead_ns;
    return *this;
  }
  uint64_t counter() const { return counter_; }  // events so far
  uint64_t logId() const { return log_id_; }

 private:
  friend class FakeRecording;
  struct Item {
    log::Kind kind;
    uint32_t channel = 0;
    std::string bytes;
    int64_t entry = 0, ret = 0;
    int64_t result = 0;
    uint32_t error = 0;
    int32_t peer = 0, status = 0, signal = 0;
    uint32_t tid = 0;
    uint64_t size = 0;   // the buffer; 0: as long as the bytes
    uint32_t flags = 0;  // the call's (MSG_PEEK ...)
    bool annotation = false;
    bool keep = false;                    // a receive that keeps its bytes
    uint64_t omitted = 0;                 // a send's bytes left out of the log
    uint64_t same_as = 0, same_from = 0;  // a send kept once
    log::ChannelFields info;
    std::string name;
    std::string address;        // a datagram's, or a socket's local one
    std::string peer_address;   // a TCP end's
    std::vector<int32_t> ints;  // an MPI event's fds
  };
  std::string name_;
  int32_t pid_ = 0;
  uint64_t log_id_ = 0;
  log::Origin origin_ = log::Origin::Root;
  uint64_t parent_log_ = 0, parent_counter_ = 0;
  std::vector<Item> items_;
  uint64_t counter_ = 0;
  int64_t clock_lag_ = 0;
  std::string host_ = "test", boot_ = "boot";
  int64_t clock_ahead_ = 0;
  std::vector<log::ThreadSlot> blocked_;
};

class FakeRecording {
 public:
  FakeRecording();
  FakeProcess& process(const std::string& name, int32_t pid);
  // A child created by `parent`'s fork, linked at the parent's counter now.
  FakeProcess& child(FakeProcess& parent, const std::string& name, int32_t pid);
  // The image `before` exec'd into: the same process, another program.
  FakeProcess& execed(FakeProcess& before, const std::string& name);
  // What radar record says of a process that left no log (recording.txt).
  void notRecorded(int32_t pid, const std::string& executable, const std::string& what);
  // The recording id every log's header carries (16 bytes, the first this).
  void recordingId(uint8_t first) { id_[0] = first; }
  // Writes the logs. Returns the directory.
  std::string write();
  std::unique_ptr<trace::Trace> load(const trace::LoadOptions& options = {});
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<std::string> not_recorded_;  // recording.txt problems, in text format
  std::vector<std::unique_ptr<FakeProcess>> processes_;
  uint64_t next_log_id_ = 1000;
  bool written_ = false;
  uint8_t id_[16] = {9};
};

// The first image of process `pid` (a test failure when there is none).
uint32_t processOfPid(const trace::Trace& t, int32_t pid);

// Brute force: does `a` reach `b` through local order and edges?
bool reaches(const trace::Trace& t, uint32_t a, uint32_t b);

// client[100] asks server[200] `rounds` times over a socket pair: a
// request "q" and its answer "a", a round every 10 ns; then both exit.
void clientAndServer(FakeRecording& rec, int rounds);

// An IPv4 socket address's bytes (struct sockaddr_in), for udpEnd & co.
std::string inet4(const char* host, uint16_t port);

}  // namespace radar::testing

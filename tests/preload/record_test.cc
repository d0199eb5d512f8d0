// `radar record` on small real programs, one per family of calls, checked
// record by record.
#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "log/log_handout.h"
#include "recorded.h"

namespace radar::testing {
namespace {

using log::Kind;

// Every log readable, none incomplete, unless a test says otherwise.
void expectClean(const Recording& rec) {
  for (const auto& l : rec.logs) {
    EXPECT_EQ(l.error, "") << l.path;
    EXPECT_FALSE(l.control.incomplete) << l.path;
  }
}

// Counters of a log run 1, 2, 3 ... with nothing missing.
void expectDenseCounters(const ProcessLog& l) {
  uint64_t expect = 1;
  for (const auto& e : l.events) EXPECT_EQ(e.r.counter, expect++) << l.path;
}

uint64_t inoOf(const ProcessLog& l, const Event& e) {
  const auto* c = l.channel(e.r.channel);
  return c ? c->ino() : 0;
}

TEST(Record, PipesReadsWritesDupsAndErrors) {
  Recording rec = record({programPath("pipes")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 2u) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(parent);
  const auto forks = parent->ofKind(Kind::Fork);
  ASSERT_EQ(forks.size(), 1u);
  const ProcessLog* child = rec.byPid(forks[0]->r.peer_pid);
  ASSERT_TRUE(child);
  expectDenseCounters(*parent);
  expectDenseCounters(*child);

  // The child's two sends, with their bytes and offsets.
  EXPECT_EQ(child->header.origin(), proto::FORKED);
  EXPECT_EQ(child->header.parent_log_id(), parent->header.log_id());
  EXPECT_LT(child->header.parent_counter(), forks[0]->r.counter);
  const auto writes = child->ofKind(Kind::Write);
  const auto writevs = child->ofKind(Kind::Writev);
  ASSERT_EQ(writes.size(), 1u);
  ASSERT_EQ(writevs.size(), 1u);
  EXPECT_EQ(writes[0]->payload, "hello");
  EXPECT_EQ(writes[0]->r.offset, 0u);
  EXPECT_EQ(writes[0]->r.result, 5);
  EXPECT_EQ(writevs[0]->payload, "abcdef");
  EXPECT_EQ(writevs[0]->r.size, 6u);
  EXPECT_EQ(writevs[0]->r.offset, 5u);
  const uint64_t pipe_ino = inoOf(*child, *writes[0]);
  ASSERT_NE(pipe_ino, 0u);
  EXPECT_EQ(child->channel(writes[0]->r.channel)->type(), proto::PIPE_CHANNEL);
  EXPECT_EQ(child->channel(writes[0]->r.channel)->access(), unsigned{O_WRONLY});

  // The parent's receives: every byte, at consecutive offsets, hashed but
  // not stored (the sender's log has them), then EOF.
  std::vector<const Event*> reads;
  for (const auto* e : parent->ofKind(Kind::Read))
    if (inoOf(*parent, *e) == pipe_ino) reads.push_back(e);
  for (const auto* e : parent->ofKind(Kind::Readv)) reads.insert(reads.begin() + 1, e);
  ASSERT_GE(reads.size(), 3u);
  EXPECT_EQ(reads[0]->r.result, 3);
  EXPECT_EQ(reads[0]->r.offset, 0u);
  EXPECT_TRUE(reads[0]->r.has_hash);
  EXPECT_EQ(reads[0]->r.hash, crc("hel"));
  EXPECT_EQ(reads[0]->payload, "");
  EXPECT_EQ(reads[1]->kind(), Kind::Readv);
  EXPECT_EQ(reads[1]->r.offset, 3u);
  EXPECT_EQ(reads[1]->r.size, 8u);
  uint64_t total = 0;
  for (const auto* e : reads) total += e->r.result > 0 ? static_cast<uint64_t>(e->r.result) : 0;
  EXPECT_EQ(total, 11u);
  const Event* eof = nullptr;
  for (const auto* e : reads)
    if (e->r.result == 0) eof = e;
  ASSERT_TRUE(eof);
  EXPECT_EQ(eof->r.offset, 11u);

  // EAGAIN on the non-blocking pipe is an event, with its errno.
  const Event* eagain = nullptr;
  for (const auto* e : parent->ofKind(Kind::Read))
    if (e->r.error == EAGAIN) eagain = e;
  ASSERT_TRUE(eagain);
  EXPECT_EQ(eagain->r.result, -1);
  EXPECT_EQ(eagain->r.size, 1u);

  // dup, dup2, dup3 and F_DUPFD: four copies of one channel.
  const auto dups = parent->ofKind(Kind::Dup);
  ASSERT_EQ(dups.size(), 4u);
  EXPECT_EQ(dups[1]->r.result, 40);
  EXPECT_EQ(dups[2]->r.result, 41);
  EXPECT_GE(dups[3]->r.result, 50);
  std::set<uint32_t> channels;
  std::string sent;
  for (const auto* w : parent->ofKind(Kind::Write)) {
    channels.insert(w->r.channel);
    sent += w->payload;
    EXPECT_EQ(w->r.offset, sent.size() - 1);
  }
  EXPECT_EQ(sent, "1234");
  EXPECT_EQ(channels.size(), 1u) << "all copies write to the same channel";

  // EINTR: the signal is an event, then the interrupted read.
  const auto signals = parent->ofKind(Kind::Signal);
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0]->r.signal, SIGALRM);
  const Event& after = parent->events[signals[0]->r.counter];  // the next event
  EXPECT_EQ(after.kind(), Kind::Read);
  EXPECT_EQ(after.r.error, EINTR);

  const Event* exit = parent->first(Kind::Exit);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->r.status, 0);
  EXPECT_EQ(&parent->events.back(), exit);
}

TEST(Record, UnixSocketsPairsNamesAndDescriptorPassing) {
  const std::string sock = testTempDir() + "/server.sock";
  Recording rec = record({programPath("unix_sockets"), sock});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog* server = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(server);
  const ProcessLog* client = rec.byPid(server->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(client);

  // Three socket pairs, each end naming the other.
  const auto pairs = server->ofKind(Kind::Socketpair);
  ASSERT_EQ(pairs.size(), 3u);
  const proto::ChannelType types[] = {proto::UNIX_STREAM, proto::UNIX_DGRAM, proto::UNIX_SEQPACKET};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(pairs[i]->r.fds.size(), 2u);
    const auto* a = server->channel(pairs[i]->r.channel);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->type(), types[i]);
    EXPECT_NE(a->peer_ino(), 0u);
    EXPECT_NE(a->peer_ino(), a->ino());
  }

  // The accepted connection and the client's socket name each other.
  const Event* accept = server->first(Kind::Accept);
  ASSERT_TRUE(accept);
  const auto* accepted = server->channel(accept->r.channel);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->origin(), proto::ACCEPTED);
  EXPECT_EQ(accepted->path(), sock);
  const Event* connect = client->first(Kind::Connect);
  ASSERT_TRUE(connect);
  EXPECT_EQ(connect->r.result, 0);
  const auto* connected = client->channel(connect->r.channel);
  ASSERT_TRUE(connected);
  EXPECT_EQ(accepted->peer_ino(), connected->ino()) << "sock_diag names the peer";
  EXPECT_EQ(connected->peer_ino(), accepted->ino());
  EXPECT_EQ(client->bytesOn(connected->ino(), true).substr(0, 7), "request");
  // In the story the connection has a name of its own, after the process
  // that connected, and -c selects it alone.
  const std::string conn = "unix socket " + sock + " \u2190 unix_sockets[" + std::to_string(client->header.pid()) + "]";
  const Result stats = radar({"stats", rec.dir});
  EXPECT_NE(stats.out.find(conn), std::string::npos) << stats.out;
  const Result selected = radar({"events", "-c", conn, rec.dir});
  EXPECT_EQ(selected.exit_code, 0) << selected.err;
  EXPECT_NE(selected.out.find(" accepts a connection: " + conn), std::string::npos) << selected.out;
  EXPECT_EQ(selected.out.find("socketpair"), std::string::npos) << selected.out;
  // The socket's own name selects every connection to it.
  const Result all = radar({"events", "-c", "unix socket " + sock, rec.dir});
  EXPECT_NE(all.out.find(" accepts a connection: " + conn), std::string::npos) << all.out;

  // A peek consumes nothing: the next receive starts at the same offset.
  std::vector<const Event*> on_conn;
  for (const auto& e : server->events)
    if (e.r.channel == accept->r.channel && log::categoryOf(e.kind()) == log::Category::Receive) on_conn.push_back(&e);
  ASSERT_GE(on_conn.size(), 2u);
  EXPECT_EQ(on_conn[0]->kind(), Kind::Recv);
  EXPECT_EQ(on_conn[0]->r.flags & MSG_PEEK, unsigned{MSG_PEEK});
  EXPECT_EQ(on_conn[0]->r.offset, 0u);
  EXPECT_EQ(on_conn[1]->r.offset, 0u);
  // Receives on a named socket keep their bytes (the peer could be outside).
  EXPECT_EQ(on_conn[1]->payload.substr(0, 7), "request");

  // SCM_RIGHTS: sent and received descriptors are in the events; the
  // server's writes through the passed pipe land on the client's pipe.
  const Event* sendmsg = client->first(Kind::Sendmsg);
  ASSERT_TRUE(sendmsg);
  EXPECT_EQ(sendmsg->r.fds.size(), 1u);
  const Event* recvmsg = server->first(Kind::Recvmsg);
  ASSERT_TRUE(recvmsg);
  ASSERT_EQ(recvmsg->r.fds.size(), 1u);
  const Event* passed_write = nullptr;
  for (const auto* w : server->ofKind(Kind::Write))
    if (w->payload == "passed") passed_write = w;
  ASSERT_TRUE(passed_write);
  const auto* passed = server->channel(passed_write->r.channel);
  ASSERT_TRUE(passed);
  EXPECT_EQ(passed->type(), proto::PIPE_CHANNEL);
  EXPECT_EQ(client->first(Kind::Pipe) ? client->channel(client->first(Kind::Pipe)->r.channel)->ino() : 0,
            passed->ino());
  EXPECT_TRUE(client->first(Kind::Shutdown));

  // Datagrams on an abstract socket; sendmmsg/recvmmsg as one event each.
  const Event* mm = server->first(Kind::Sendmmsg);
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->r.result, 2);
  EXPECT_EQ(mm->r.lengths, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(mm->payload, "twothree");
  const Event* rm = server->first(Kind::Recvmmsg);
  ASSERT_TRUE(rm);
  EXPECT_EQ(rm->r.lengths, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(rm->r.hash, crc("twothree"));
  const Event* bind = nullptr;
  for (const auto* b : server->ofKind(Kind::Bind))
    if (server->channel(b->r.channel)->path() == "@radar-test-abstract") bind = b;
  EXPECT_TRUE(bind) << "abstract names are shown as @name";
}

void checkTcp(const char* version) {
  Recording rec = record({programPath("tcp"), version});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog* server = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(server);
  const ProcessLog* client = rec.byPid(server->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(client);
  const auto* accepted = server->channel(server->first(Kind::Accept)->r.channel);
  const auto* connected = client->channel(client->first(Kind::Connect)->r.channel);
  ASSERT_TRUE(accepted && connected);
  EXPECT_EQ(accepted->type(), proto::TCP);
  EXPECT_EQ(accepted->domain(), version[0] == '6' ? AF_INET6 : AF_INET);
  // The connection's identity: each end's local address is the other's peer.
  EXPECT_EQ(accepted->local_address(), connected->peer_address());
  EXPECT_EQ(accepted->peer_address(), connected->local_address());
  EXPECT_FALSE(accepted->local_address().empty());
  EXPECT_EQ(client->bytesOn(connected->ino(), true), "GET key");
  EXPECT_EQ(server->bytesOn(accepted->ino(), true), "value");
  // TCP receives keep their bytes: the peer may be another machine.
  EXPECT_EQ(server->bytesOn(accepted->ino(), false), "GET key");
  const Event* udp_in = server->first(Kind::Recvfrom);
  ASSERT_TRUE(udp_in);
  EXPECT_EQ(udp_in->payload, "datagram");
  EXPECT_FALSE(udp_in->address.empty());
  EXPECT_EQ(server->channel(udp_in->r.channel)->type(), proto::UDP);
}

TEST(Record, TcpAndUdpOverIpv4) { checkTcp("4"); }
TEST(Record, TcpAndUdpOverIpv6) { checkTcp("6"); }

// The story keeps the order the kernel imposes on a connection: the
// connect before the accept that returns its connection, the peer's close
// before the end of file it causes (in every run: the server accepts in
// the parent while the child connects, so their calls overlap).
TEST(Record, ConnectComesBeforeItsAcceptAndCloseBeforeEndOfFile) {
  for (int run = 0; run < 5; ++run) {
    SCOPED_TRACE(run);
    Recording rec = record({programPath("tcp"), "4"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const Result events = radar({"events", rec.dir});
    const std::string& out = events.out;
    const size_t connect = out.find(" connects tcp "), accept = out.find(" accepts a connection: tcp ");
    ASSERT_NE(connect, std::string::npos) << out;
    ASSERT_NE(accept, std::string::npos) << out;
    EXPECT_LT(connect, accept) << out;
    const size_t eof = out.find(" reads end of file on tcp ");
    ASSERT_NE(eof, std::string::npos) << out;
    // The client's close of that connection (not of the listening socket
    // it inherited, which it closes first) comes before the end of file.
    const size_t line = out.rfind('\n', connect) + 1;  // "Process CLIENT connects CHANNEL. Event N."
    const std::string client = out.substr(line, connect - line);
    const size_t channel_at = connect + std::string(" connects ").size();
    const std::string channel = out.substr(channel_at, out.find(". Event", channel_at) - channel_at);
    const size_t client_close = out.find(client + " closes its end of " + channel + ". Event");
    ASSERT_NE(client_close, std::string::npos) << client << " | " << channel << "\n" << out;
    EXPECT_LT(client_close, eof) << out;
  }
}

// A non-blocking connect that is still going on (EINPROGRESS) is told as
// such, not as a failure; the EISCONN of a connect() on the connected
// socket is one.
TEST(Record, ConnectInProgressIsToldAsSuch) {
  Recording rec = record({programPath("connect_in_progress")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const Result events = radar({"events", rec.dir});
  const std::string& out = events.out;
  const bool in_progress = rec.out.find("connect: in progress") != std::string::npos;
  if (in_progress) {
    EXPECT_NE(out.find(" starts connecting tcp "), std::string::npos) << out;
    EXPECT_NE(out.find(" (in progress). Event"), std::string::npos) << out;
  }
  const size_t first = out.find(in_progress ? " starts connecting tcp " : " connects tcp ");
  const size_t failure = out.find(" fails to connect tcp ");
  ASSERT_NE(first, std::string::npos) << out;
  ASSERT_NE(failure, std::string::npos) << out;
  EXPECT_LT(first, failure) << out;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// A shell's exec searches PATH, trying each directory: every try that
// failed is told with the program it tried and why, and only the one that
// ran is told as executing.
TEST(Record, AnExecThroughAPathSearchIsToldTryByTry) {
  Recording rec = record({"env", "PATH=/nonexistent-radar-dir:/usr/bin:/bin", "sh", "-c", "exec true"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string out = radar({"events", rec.dir}).out;
  const size_t tried = out.find(" tries to execute /nonexistent-radar-dir/true. Event");
  const size_t failed = out.find(" fails to execute /nonexistent-radar-dir/true: No such file or directory. Event");
  const size_t ran = out.find(" executes /usr/bin/true. Event");
  ASSERT_NE(tried, std::string::npos) << out;
  ASSERT_NE(failed, std::string::npos) << out;
  ASSERT_NE(ran, std::string::npos) << out;
  EXPECT_LT(tried, failed) << out;
  EXPECT_LT(failed, ran) << out;
  EXPECT_EQ(out.find(" fails to execute a program"), std::string::npos) << out;
}

TEST(Record, ProcessesAreFollowedAndLinked) {
  Recording rec = record({programPath("processes")});
  EXPECT_EQ(rec.exit_code, 4) << rec.err;
  expectClean(rec);
  const ProcessLog* main = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(main);
  EXPECT_EQ(main->header.origin(), proto::ROOT);
  expectDenseCounters(*main);

  // fork: the child names the parent's log and counter.
  const Event* fork = main->first(Kind::Fork);
  ASSERT_TRUE(fork);
  const ProcessLog* forked = rec.byPid(fork->r.peer_pid);
  ASSERT_TRUE(forked);
  EXPECT_EQ(forked->header.origin(), proto::FORKED);
  EXPECT_EQ(forked->header.parent_log_id(), main->header.log_id());
  EXPECT_EQ(forked->first(Kind::Exit)->r.status, 3);

  // vfork + exec: the new image links to the VFORK event.
  const Event* vfork = main->first(Kind::Vfork);
  ASSERT_TRUE(vfork);
  const ProcessLog* vforked = nullptr;
  for (const auto& l : rec.logs)
    if (l.header.origin() == proto::VFORKED) vforked = &l;
  ASSERT_TRUE(vforked);
  EXPECT_EQ(vforked->header.parent_log_id(), main->header.log_id());
  EXPECT_EQ(vforked->header.parent_counter(), vfork->r.counter);
  EXPECT_EQ(vforked->header.argv(1), "child");
  EXPECT_EQ(vforked->first(Kind::Exit)->r.status, 7);

  // posix_spawn: the child's pid, and the child's link back.
  const Event* spawn = main->first(Kind::Spawn);
  ASSERT_TRUE(spawn);
  const ProcessLog* spawned = rec.byPid(spawn->r.peer_pid);
  ASSERT_TRUE(spawned);
  EXPECT_EQ(spawned->header.origin(), proto::SPAWNED);
  EXPECT_LT(spawned->header.parent_counter(), spawn->r.counter);

  // system() and popen(): a shell each, started without our exec hook.
  const Event* system = main->first(Kind::System);
  ASSERT_TRUE(system);
  EXPECT_EQ(system->strings.at(0), "exit 5");
  EXPECT_EQ(system->r.status, 5 << 8);
  const Event* popen = main->first(Kind::Popen);
  ASSERT_TRUE(popen);
  const auto shells = rec.byExe("dash").empty() ? rec.byExe("bash") : rec.byExe("dash");
  ASSERT_GE(shells.size(), 2u);
  for (const auto* s : shells) {
    EXPECT_EQ(s->header.ppid(), main->header.pid());
    EXPECT_EQ(s->header.origin(), proto::SHELL_SPAWNED);
  }
  // popen's pipe: what the shell's echo wrote is what the parent read.
  const auto* pipe = main->channel(popen->r.channel);
  ASSERT_TRUE(pipe);
  std::string echoed;
  for (const auto& l : rec.logs) echoed += l.bytesOn(pipe->ino(), true);
  EXPECT_EQ(echoed, "from-popen\n");

  // The wait family reports who ended how.
  const auto waits = main->ofKind(Kind::Wait);
  ASSERT_GE(waits.size(), 4u);
  EXPECT_EQ(waits[0]->r.peer_pid, fork->r.peer_pid);
  EXPECT_EQ(waits[0]->r.status, 3 << 8);
  EXPECT_EQ(waits[2]->r.peer_pid, spawn->r.peer_pid);  // waitid, as a wait status
  EXPECT_EQ(waits[2]->r.status, 7 << 8);

  // kill() and the handler's delivery, with the sender's pid.
  const Event* kill = main->first(Kind::Kill);
  ASSERT_TRUE(kill);
  EXPECT_EQ(kill->r.signal, SIGUSR1);
  const Event* signal = main->first(Kind::Signal);
  ASSERT_TRUE(signal);
  EXPECT_EQ(signal->r.signal, SIGUSR1);
  EXPECT_EQ(signal->r.peer_pid, main->header.pid());

  // Returning 4 from main is the exit status, recorded last.
  EXPECT_EQ(main->events.back().kind(), Kind::Exit);
  EXPECT_EQ(main->events.back().r.status, 4);
  EXPECT_TRUE(rec.meta.problems().empty()) << rec.err;
}

TEST(Record, ReadinessResults) {
  Recording rec = record({programPath("readiness")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog& l = rec.logs.at(0);
  const auto polls = l.ofKind(Kind::Poll);
  ASSERT_EQ(polls.size(), 2u);
  EXPECT_EQ(polls[0]->r.result, 1);
  ASSERT_EQ(polls[0]->r.ready.size(), 1u);
  EXPECT_EQ(polls[0]->r.ready[0].events, unsigned{POLLIN});
  EXPECT_EQ(polls[0]->r.timeout_ms, 1000);
  EXPECT_EQ(polls[1]->r.result, 0);
  EXPECT_EQ(polls[1]->r.timeout_ms, 0);
  EXPECT_TRUE(polls[1]->r.ready.empty());
  const Event* select = l.first(Kind::Select);
  ASSERT_TRUE(select);
  ASSERT_EQ(select->r.ready.size(), 1u);
  EXPECT_EQ(select->r.ready[0].fd, polls[0]->r.ready[0].fd);
  EXPECT_EQ(select->r.ready[0].events, 1u);
  EXPECT_EQ(l.ofKind(Kind::EpollCtl).size(), 2u);
  const Event* wait = l.first(Kind::EpollWait);
  ASSERT_TRUE(wait);
  ASSERT_EQ(wait->r.ready.size(), 1u);
  EXPECT_EQ(wait->r.ready[0].data, 1002u);
}

TEST(Record, StdioStreamsAndUserEvents) {
  Recording rec = record({programPath("stdio_user")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  const ProcessLog* child = rec.byPid(parent->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(parent && child);
  // fprintf/fputs flushed by fclose: bytes written by the C library itself.
  std::string sent;
  for (const auto* w : child->ofKind(Kind::Write)) sent += w->payload;
  EXPECT_EQ(sent, "line 1\nline 2\n");
  EXPECT_TRUE(child->first(Kind::Close)) << "fclose closes a channel";
  // fgets reads through the same path.
  uint64_t received = 0;
  for (const auto* r : parent->ofKind(Kind::Read)) received += static_cast<uint64_t>(std::max<int64_t>(r->r.result, 0));
  EXPECT_EQ(received, 14u);
  const auto users = parent->ofKind(Kind::User);
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0]->strings.at(0), "checkpoint");
  int value = 0;
  ASSERT_EQ(users[0]->payload.size(), sizeof(value));
  std::memcpy(&value, users[0]->payload.data(), sizeof(value));
  EXPECT_EQ(value, 42);
  EXPECT_EQ(users[1]->strings.at(0), "progress");
  EXPECT_EQ(users[1]->payload, "3 of 4");
}

TEST(Record, UserEventsCostNothingWithoutRadar) {
  // The same program, not recorded: radar_event() returns 0 and the program
  // still passes its own checks.
  const int status = std::system((programPath("stdio_user") + " >/dev/null").c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(Record, NondeterminismOnRequest) {
  Recording plain = record({programPath("nondet")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(plain.logs.at(0).first(Kind::Clock));
  EXPECT_FALSE(plain.logs.at(0).first(Kind::Random));

  Recording rec = record({programPath("nondet")}, {.radar_args = {"--nondet"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog& l = rec.logs.at(0);
  EXPECT_TRUE(l.header.nondet());
  const auto clocks = l.ofKind(Kind::Clock);
  ASSERT_GE(clocks.size(), 3u);
  EXPECT_EQ(clocks[0]->r.flags, unsigned{CLOCK_MONOTONIC});
  EXPECT_EQ(clocks[0]->payload.size(), sizeof(struct timespec));
  const auto random = l.ofKind(Kind::Random);
  ASSERT_EQ(random.size(), 2u);
  EXPECT_EQ(random[0]->payload.size(), 16u);  // getrandom
  EXPECT_EQ(random[1]->payload.size(), 8u);   // read of /dev/urandom
  const auto pids = l.ofKind(Kind::Getpid);
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_EQ(pids[0]->r.result, l.header.pid());
  EXPECT_EQ(pids[1]->r.result, l.header.ppid());
}

TEST(Record, ProgramThatClosesEveryDescriptor) {
  Recording rec = record({programPath("closeall")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 2u);
  const ProcessLog* child = rec.byPid(rec.byPid(rec.meta.root_pid())->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(child);
  const Event* pipe = child->first(Kind::Pipe);
  ASSERT_TRUE(pipe);
  EXPECT_EQ(pipe->r.fds, (std::vector<int32_t>{3, 4})) << "descriptor numbers are the program's";
  EXPECT_EQ(child->ofKind(Kind::Write).size(), 100u);
  EXPECT_EQ(child->ofKind(Kind::Read).size(), 100u);
  EXPECT_EQ(child->events.back().kind(), Kind::Exit);
  expectDenseCounters(*child);
}

// A program that closes whatever /proc/self/fd lists, or counts it, sees
// what it sees without radar: our log's descriptor is not listed.
TEST(Record, OwnDescriptorsAreNotListedInProcSelfFd) {
  const Result bare = shell(shellQuote(programPath("proc_fd")));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(bare.out.find("close "), std::string::npos) << bare.out;
  Recording rec = record({programPath("proc_fd")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 1u);
  EXPECT_EQ(rec.logs[0].events.back().kind(), Kind::Exit) << "the log survived the closes";
}

// Calls that move several messages, or look at bytes without taking them,
// are told as they happened and leave no false finding.
TEST(Record, BatchedPeekedAndFailedChannelCallsAreToldTrue) {
  Recording rec = record({programPath("batched_messages")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("bytes sent 23, received 23: 23 matched to their sends, 0 from outside"), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
  const Result events = radar({"events", rec.dir});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  EXPECT_NE(events.out.find("receives a message from itself on socketpair 1 (9 bytes)"), std::string::npos)
      << events.out;
  EXPECT_NE(events.out.find("receives a message from itself on socketpair 1 (7 bytes)"), std::string::npos)
      << events.out;
  EXPECT_NE(events.out.find("peeks at a message from itself on socketpair 2 (4 bytes)"), std::string::npos)
      << events.out;
  EXPECT_NE(events.out.find("fails to create a socket pair"), std::string::npos) << events.out;
  EXPECT_EQ(events.out.find("unknown channel"), std::string::npos) << events.out;
  EXPECT_EQ(events.out.find("outside the recording"), std::string::npos) << events.out;
}

// A process that changes its environment before it forks: the child's log
// leaves out the secrets of the environment it was forked with. Which
// entries are secret is remembered from a process's own log to its
// children's; removing a variable moves the ones after it, so here the
// token comes to stand where a plain variable stood.
TEST(Record, SecretsMovedBeforeAForkAreLeftOut) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 is missing";
  const std::string script = testTempDir() + "/moved.py";
  std::ofstream(script) << "import os, sys\n"
                           "if len(sys.argv) < 2:\n"
                           "    env = {'A_PLAIN': 'visible', 'B_TOKEN': 's3cr3t'}\n"
                           "    os.execve(sys.executable, [sys.executable, sys.argv[0], 'again'], env)\n"
                           "del os.environ['A_PLAIN']\n"
                           "pid = os.fork()\n"
                           "if pid == 0:\n"
                           "    os._exit(0)\n"
                           "os.waitpid(pid, 0)\n";
  const Recording rec = record({"/usr/bin/python3", script});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  size_t children = 0;
  for (const auto& l : rec.logs) {
    SCOPED_TRACE(l.path);
    for (const std::string& entry : l.header.environment()) EXPECT_EQ(entry.find("s3cr3t"), std::string::npos) << entry;
    if (l.header.origin() != proto::FORKED) continue;
    ++children;
    const auto& names = l.header.redacted_environment();
    EXPECT_NE(std::find(names.begin(), names.end(), "B_TOKEN"), names.end());
  }
  EXPECT_EQ(children, 1u);
}

// Secrets in the environment stay out of the logs: by the default
// patterns and by the user's own, names kept, values not.
TEST(Record, SecretsAreLeftOutOfTheLogs) {
  const std::string env = "MY_API_TOKEN=s3cr3t-token DEPLOY_CERT=s3cr3t-cert PLAIN=visible ";
  const std::string dir = testTempDir() + "/rec";
  Result r = shell(env + shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " --redact 'deploy*' -- " +
                   shellQuote(programPath("pipes")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Recording rec = load(dir);
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 2u);
  for (const auto& l : rec.logs) {
    SCOPED_TRACE(l.path);
    const auto& e = l.header.environment();
    EXPECT_NE(std::find(e.begin(), e.end(), "PLAIN=visible"), e.end());
    for (const std::string& entry : e) EXPECT_EQ(entry.find("s3cr3t"), std::string::npos) << entry;
    const auto& names = l.header.redacted_environment();
    EXPECT_NE(std::find(names.begin(), names.end(), "MY_API_TOKEN"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "DEPLOY_CERT"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "PLAIN"), names.end());
  }
  for (const auto& l : rec.logs) {
    const Result dump = radar({"dump", l.path});
    EXPECT_EQ(dump.exit_code, 0) << dump.err;
    EXPECT_EQ(dump.out.find("s3cr3t"), std::string::npos) << dump.out;
    EXPECT_NE(dump.out.find("environment values left out (--redact):"), std::string::npos) << dump.out;
  }
  EXPECT_EQ(slurp(dir + "/recording.txt").find("s3cr3t"), std::string::npos);

  // Without the defaults, only the user's patterns apply.
  const std::string kept = testTempDir() + "/kept";
  r = shell(env + shellQuote(radarPath()) + " record -o " + shellQuote(kept) +
            " --no-default-redact --redact DEPLOY_CERT -- " + shellQuote(programPath("pipes")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Recording again = load(kept);
  const auto& e = again.logs.at(0).header.environment();
  EXPECT_NE(std::find(e.begin(), e.end(), "MY_API_TOKEN=s3cr3t-token"), e.end());
  EXPECT_EQ(std::find(e.begin(), e.end(), "DEPLOY_CERT=s3cr3t-cert"), e.end());

  for (const char* bad : {"A:B", "A=B", ""}) {
    const Result refused = radar({"record", "-o", testTempDir() + "/bad", "--redact", bad, "--", "true"});
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_NE(refused.err.find("--redact"), std::string::npos) << refused.err;
  }
}

// splice(), tee() and vmsplice() move bytes between channels inside the
// kernel: each is a receive and a send (tee's receive a peek), so nothing
// is "never received" and later matches do not shift.
TEST(Record, SpliceTeeAndVmspliceAreMessages) {
  Recording rec = record({"sh", "-c", "printf 'hello world\\n' | " + shellQuote(programPath("splicer")) + " | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "hello world\n[12 bytes]\n");
  expectClean(rec);
  const ProcessLog* splicer = rec.onlyExe("splicer");
  ASSERT_TRUE(splicer);
  const auto splices = splicer->ofKind(Kind::Splice);
  ASSERT_EQ(splices.size(), 2u) << "into its own pipe, and tee's copy to stdout";
  for (const Event* e : splices) {
    EXPECT_EQ(e->r.result, 12);
    EXPECT_EQ(e->r.payload_omitted, 12u);
    EXPECT_TRUE(e->r.flags & log::kFlagPassThrough);
  }
  EXPECT_EQ(splicer->ofKind(Kind::Writev).size(), 1u) << "vmsplice";
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("bytes sent 47, received 47: 47 matched to their sends, 0 from outside"), std::string::npos)
      << check.out;
  const Result events = radar({"events", rec.dir});
  EXPECT_NE(events.out.find("peeks at a message from itself on pipe"), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("(12 bytes)"), std::string::npos) << events.out;
}

// An exec through a raw system call with a scrubbed environment: the new
// image runs unrecorded. radar record, check and the story say so.
TEST(Record, RawExecWithAScrubbedEnvironmentIsReported) {
  Recording rec = record({programPath("raw_exec")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "got 6 bytes, child 0\n");
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(parent);
  const int child = parent->first(Kind::Fork)->r.peer_pid;
  EXPECT_NE(rec.err.find("pid " + std::to_string(child) + " "), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find("without radar seeing it exit"), std::string::npos) << rec.err;
  bool in_recording_txt = false;
  for (const auto& p : rec.meta.problems()) in_recording_txt |= p.pid() == child;
  EXPECT_TRUE(in_recording_txt);
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 1) << check.out;
  EXPECT_NE(check.out.find("not-recorded: raw_exec[" + std::to_string(child) +
                           "] exited with status 0 without radar seeing it exit"),
            std::string::npos)
      << check.out;
  // A program that exits normally is never reported so.
  Recording plain = record({programPath("pipes")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("without radar seeing it exit"), std::string::npos) << plain.err;
}

TEST(Record, ThreadsAndForkFromThreads) {
  Recording rec = record({programPath("threads"), "40"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog* main = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(main);
  EXPECT_EQ(rec.logs.size(), 41u);
  std::set<uint32_t> senders;
  size_t writes = 0;
  std::set<uint32_t> channels;
  for (const auto* w : main->ofKind(Kind::Write)) {
    senders.insert(w->r.tid);
    channels.insert(w->r.channel);
    EXPECT_EQ(w->r.offset, writes * 10);
    ++writes;
  }
  EXPECT_EQ(writes, 4u * 2000);  // the forked children write in their own logs
  EXPECT_EQ(senders.size(), 4u);
  EXPECT_EQ(senders.count(static_cast<uint32_t>(main->header.pid())), 0u);
  uint64_t received = 0;
  for (const auto* r : main->ofKind(Kind::Read)) received += static_cast<uint64_t>(r->r.result);
  EXPECT_EQ(received, (4u * 2000 + 40) * 10);
  size_t forked_writes = 0;
  for (const auto& l : rec.logs)
    if (l.header.origin() == proto::FORKED)
      for (const auto* w : l.ofKind(Kind::Write)) forked_writes += w->payload == "forked:00\n";
  EXPECT_EQ(forked_writes, 40u);
  expectDenseCounters(*main);
}

TEST(Record, SignalHandlerWritingDuringRecordedCalls) {
  Recording rec = record({programPath("sighandler")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const int handled = std::atoi(rec.out.c_str());
  ASSERT_GT(handled, 0);
  const ProcessLog& l = rec.logs.at(0);
  size_t bangs = 0, signals = 0;
  for (const auto* w : l.ofKind(Kind::Write)) bangs += w->payload == "!";
  signals = l.ofKind(Kind::Signal).size();
  EXPECT_EQ(bangs, static_cast<size_t>(handled)) << "every write by the handler is recorded";
  EXPECT_GE(signals, static_cast<size_t>(handled));
  expectDenseCounters(l);
}

// What a thread records inside an MPI call is the MPI library's, as
// libradar-mpi.so tells the interposer; a signal handler that interrupts
// the call runs the program's code, and its calls are the program's.
TEST(Record, CallsInsideAnMpiCallAreTheLibrarysButNotASignalHandlers) {
  Recording rec = record({programPath("inside_mpi")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "told\n");
  const ProcessLog& l = rec.logs.at(0);
  std::string inside, outside;
  for (const auto* w : l.ofKind(Kind::Write)) (w->r.in_mpi_call ? inside : outside) += w->payload;
  EXPECT_EQ(inside, "ll");
  EXPECT_TRUE(outside.starts_with("ahz")) << outside;
  ASSERT_EQ(l.ofKind(Kind::Signal).size(), 1u);
  EXPECT_FALSE(l.ofKind(Kind::Signal)[0]->r.in_mpi_call);
}

// A signal that arrives while fork() is under way is told after the fork,
// as it ran: told before it, a re-run would run its handler before the
// fork, in the child too.
TEST(Record, ASignalDuringAForkIsToldAfterIt) {
  Recording rec = record({programPath("fork_signal")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("child saw 0\n"), std::string::npos) << rec.out;
  EXPECT_NE(rec.out.find("parent saw 1\n"), std::string::npos) << rec.out;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(parent);
  const Event* fork = parent->first(Kind::Fork);
  const Event* signal = parent->first(Kind::Signal);
  ASSERT_TRUE(fork && signal);
  EXPECT_EQ(signal->r.signal, SIGUSR1);
  EXPECT_GT(signal->r.counter, fork->r.counter);
  expectDenseCounters(*parent);
}

TEST(Record, SigkillLosesNoCompletedCall) {
  Recording rec = record({programPath("killed"), "3000"}, {.radar_args = {"--tail", "16K"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  const ProcessLog* child = rec.byPid(parent->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->error, "");
  // The parent saw 3000 acknowledgements, so 3000 of the child's reads had
  // returned (each before the write that acknowledged it) and 2999 of its
  // writes: the last one's bytes reach the parent the moment the system
  // call moves them, possibly before that call returns to the program.
  EXPECT_GE(child->ofKind(Kind::Read).size(), 3000u);
  EXPECT_GE(child->ofKind(Kind::Write).size(), 2999u);
  EXPECT_FALSE(child->first(Kind::Exit));
  expectDenseCounters(*child);
  // The child's last words are in the parent's wait status.
  const auto waits = parent->ofKind(Kind::Wait);
  ASSERT_FALSE(waits.empty());
  EXPECT_TRUE(WIFSIGNALED(waits.back()->r.status));
  EXPECT_EQ(WTERMSIG(waits.back()->r.status), SIGKILL);
  // Where the last write's record was lost, its thread's slot says the
  // child was in it: a note naming that write(), not bytes nobody sent.
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.out.find("warning: no-sender"), std::string::npos) << check.out;
  if (child->ofKind(Kind::Write).size() == 2999u) {
    const std::string pid = std::to_string(parent->first(Kind::Fork)->r.peer_pid);
    EXPECT_NE(check.out.find("[" + pid + "] was in write() on it when its log ended"), std::string::npos) << check.out;
  }
}

TEST(Record, CrashKeepsWhatWasSent) {
  Recording rec = record({programPath("crash")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  const ProcessLog* child = rec.byPid(parent->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->first(Kind::Write)->payload, "last words");
  const auto* wait = parent->first(Kind::Wait);
  ASSERT_TRUE(wait);
  EXPECT_EQ(WTERMSIG(wait->r.status), SIGABRT);
}

// Findings come ranked, errors first, and a finding the story explains is
// a note that names its cause: the parent's kill() explains its child's
// end and the message that child never read; a child that had exited
// before its message was written explains that one. The message a child
// left unread at a time of its own is a warning, also when that child had
// taken a signal that asks nothing of its end; a crash is an error.
TEST(Check, FindingsAreRankedAndANoteNamesItsCause) {
  Recording rec = record({programPath("endings")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const Result check = radar({"check", rec.dir});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  std::vector<std::string> findings;
  std::istringstream lines(check.out);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("error: ") || line.starts_with("warning: ") || line.starts_with("note: "))
      findings.push_back(line);
  ASSERT_EQ(findings.size(), 6u) << check.out;
  const std::string unread =
      R"(never-received: 1 message \(14 bytes\) sent by endings\[\d+\] on pipe \d+ never received)";
  const std::string kill = R"(endings\[(\d+)\] sent \(kill\(\) at event (\d+)\))";
  EXPECT_TRUE(
      std::regex_search(findings[0], std::regex(R"(^error: abnormal-end: endings\[\d+\] crashed: Segmentation fault)")))
      << findings[0];
  for (int k : {1, 2})
    EXPECT_TRUE(std::regex_search(findings[k], std::regex("^warning: " + unread + R"( \(event \d+\)$)")))
        << findings[k];
  std::smatch killed, unread_killed, unread_gone;
  ASSERT_TRUE(std::regex_search(
      findings[3], killed,
      std::regex(R"(^note: abnormal-end: endings\[\d+\] was killed by signal 15 \(Terminated\), which )" + kill)))
      << findings[3];
  // Never-received notes, in their sends' order: the killed child's, then the gone one's.
  ASSERT_TRUE(std::regex_search(findings[4], unread_killed,
                                std::regex("^note: " + unread + ": its receivers ended on a signal " + kill)))
      << findings[4];
  EXPECT_EQ(killed[2], unread_killed[2]) << "not the same kill()";
  ASSERT_TRUE(std::regex_search(
      findings[5], unread_gone,
      std::regex("^note: " + unread +
                 R"(: endings\[(\d+)\], which could have received it, had ended before it was sent \(event (\d+)\))")))
      << findings[5];
  // Each cause is the event it names: the kill() by its sender, the exit.
  const Result kill_event = radar({"events", "--from", killed[2], "--to", killed[2], rec.dir});
  EXPECT_NE(kill_event.out.find("endings[" + killed[1].str() + "] sends signal 15"), std::string::npos)
      << kill_event.out;
  const Result exit_event = radar({"events", "--from", unread_gone[2], "--to", unread_gone[2], rec.dir});
  EXPECT_NE(exit_event.out.find("endings[" + unread_gone[1].str() + "] exits with status 0"), std::string::npos)
      << exit_event.out;
  // --min-severity keeps what is as serious or more; --strict counts only those.
  const Result errors = radar({"check", "--min-severity", "error", "--strict", rec.dir});
  EXPECT_EQ(errors.exit_code, 1);
  EXPECT_NE(errors.out.find("error: abnormal-end"), std::string::npos) << errors.out;
  EXPECT_EQ(errors.out.find("warning: "), std::string::npos) << errors.out;
  EXPECT_EQ(errors.out.find("note: "), std::string::npos) << errors.out;
  EXPECT_EQ(radar({"check", "--min-severity", "bad", rec.dir}).exit_code, 2);
  // In JSON: each finding's severity, and the cause as an event number.
  const Result json = radar({"check", "--json", rec.dir});
  EXPECT_NE(json.out.find(R"("kind":"abnormal-end","severity":"note")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("cause":)" + killed[2].str() + ","), std::string::npos) << json.out;
}

TEST(Record, ExitStatusOfAKilledProgram) {
  Recording rec = record({"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(rec.exit_code, 128 + SIGTERM);
  EXPECT_NE(rec.err.find("killed by signal 15"), std::string::npos) << rec.err;
}

// (radar record's own program, static, is recorded by the fallback:
// fallback_test.cc; with the fallback off, it is reported.)
TEST(Record, StaticProgramsAreReportedByName) {
  Recording direct = record({programPath("static_hello")}, {{"--fallback", "off"}});
  EXPECT_EQ(direct.exit_code, 0);
  EXPECT_NE(direct.err.find("not recorded"), std::string::npos) << direct.err;
  Recording via_shell = record({"sh", "-c", programPath("static_hello") + "; true"}, {{"--fallback", "off"}});
  EXPECT_EQ(via_shell.exit_code, 0);
  EXPECT_NE(via_shell.err.find("static_hello: not recorded: statically linked"), std::string::npos) << via_shell.err;
}

// A program radar cannot record (here, with the fallback recorder off) is
// part of the story: named, with why, on the channels recorded processes
// share with it; nothing that went to it or came from it is blamed on a
// recorded process.
TEST(Record, UnrecordedProgramsAreNamedOnTheirChannelsAndBlameNobody) {
  Recording rec =
      record({"sh", "-c", "echo hello | " + programPath("static_upper") + " | cat"}, {{"--fallback", "off"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "HELLO\n");
  EXPECT_NE(rec.err.find("static_upper: not recorded: statically linked"), std::string::npos) << rec.err;
  const std::string events = radar({"events", rec.dir}).out;
  const std::regex sent(
      R"(sends a message to static_upper\[\d+\], not recorded: statically linked on pipe \d \(6 bytes\))");
  const std::regex received(
      R"(cat\[\d+\] receives a message from static_upper\[\d+\], not recorded: statically linked on pipe \d \(6 bytes\))");
  EXPECT_TRUE(std::regex_search(events, sent)) << events;
  EXPECT_TRUE(std::regex_search(events, received)) << events;
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.out.find("never-received"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("no-sender"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("static_upper: not recorded: statically linked"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
  // It is a process of the story: in stats, with why, and reaped by name.
  const std::string stats = radar({"stats", rec.dir}).out;
  EXPECT_TRUE(std::regex_search(stats, std::regex(R"(\nstatic_upper\[\d+\] +not recorded: statically linked\n)")))
      << stats;
  EXPECT_TRUE(
      std::regex_search(events, std::regex(R"(sh\[\d+\] learns that static_upper\[\d+\] exited with status 0)")))
      << events;
}

TEST(Record, ShellPipeline) {
  Recording rec = record({"sh", "-c", "printf 'one\\ntwo\\n' | tr a-z A-Z | sort -r > /dev/null"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  const ProcessLog* tr = rec.onlyExe("tr");
  const ProcessLog* sort = rec.onlyExe("sort");
  ASSERT_TRUE(tr && sort) << rec.err;
  EXPECT_EQ(tr->header.origin(), proto::EXECED);
  const Event* out = tr->first(Kind::Write);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->payload, "ONE\nTWO\n");
  const uint64_t ino = tr->channel(out->r.channel)->ino();
  uint64_t got = 0;
  for (const auto* r : sort->ofKind(Kind::Read))
    if (sort->channel(r->r.channel)->ino() == ino) got += static_cast<uint64_t>(r->r.result);
  EXPECT_EQ(got, 8u);
}

TEST(Record, PythonMultiprocessingAndSockets) {
  if (std::system("python3 -c 'import multiprocessing' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3 with multiprocessing is not installed";
  Recording rec = record({"python3", programPath("mp_socket.py")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  EXPECT_NE(rec.out.find("285"), std::string::npos);
  EXPECT_GE(rec.logs.size(), 4u) << "the script, two pool workers and a forked child";
  bool hello = false;
  for (const auto& l : rec.logs)
    for (const auto& e : l.events)
      hello |= log::categoryOf(e.kind()) == log::Category::Send && e.payload == "hello from the child";
  EXPECT_TRUE(hello);
  EXPECT_TRUE(rec.meta.problems().empty()) << rec.err;
}

TEST(Record, FullRecordingDirectoryNeverFailsTheProgram) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string mnt = testTempDir();
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=400k") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  Recording rec = record({programPath("pingpong"), "40000"}, {.radar_args = {"--tail", "64K"}, .dir = mnt + "/rec"});
  ::umount2(mnt.c_str(), MNT_DETACH);
  EXPECT_EQ(rec.exit_code, 0) << "the program runs to completion: " << rec.err;
  EXPECT_NE(rec.err.find("log incomplete from event"), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find("No space left on device"), std::string::npos) << rec.err;
  // Every problem is said of its process, with its cause.
  EXPECT_EQ(rec.err.find("pid 0 "), std::string::npos) << rec.err;
  EXPECT_EQ(rec.err.find("No child processes"), std::string::npos) << rec.err;
  for (const auto& l : rec.logs) EXPECT_EQ(l.error, "") << l.path << ": readable as it is";
}

// A log that could not be written to its end (a file size limit, a full
// disk): the program runs on unharmed, and radar check says the events were
// lost -- and blames nobody for what they would have said: no bytes "no
// recorded process sent", no message "never received", no process that
// "did not end".
TEST(Record, FileSizeLimitNeverKillsTheProgram) {
  Recording rec =
      record({programPath("pingpong"), "40000"}, {.radar_args = {"--tail", "64K"}, .shell_prefix = "ulimit -f 200;"});
  EXPECT_EQ(rec.exit_code, 0) << "no SIGXFSZ: " << rec.err;
  EXPECT_NE(rec.err.find("log incomplete from event"), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find("File too large"), std::string::npos) << rec.err;
  bool any_incomplete = false;
  for (const auto& l : rec.logs) {
    if (!l.control.incomplete) continue;
    any_incomplete = true;
    EXPECT_EQ(l.error, "");
    ASSERT_FALSE(l.events.empty());
    EXPECT_EQ(l.events.back().r.counter + 1, l.control.lost_from_counter) << "everything before the loss is readable";
  }
  ASSERT_TRUE(any_incomplete);
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("lost-events: "), std::string::npos) << check.out;
  for (const char* blame : {"no-sender", "never-received", "never-ended", "deadlock"})
    EXPECT_EQ(check.out.find(blame), std::string::npos) << blame << " in:\n" << check.out;
}

// The same limit set by the program itself once its log is open: the
// log's growth stops there (a write past it is SIGXFSZ, even inside the
// file's size), and the program runs on.
TEST(Record, AFileSizeLimitSetLaterNeverKillsTheProgram) {
  // (perl: Python ignores SIGXFSZ.) setrlimit(RLIMIT_FSIZE, 8 KiB), then
  // 20 000 round trips through a pipe.
  if (::access("/usr/bin/perl", X_OK) != 0) GTEST_SKIP() << "/usr/bin/perl is missing";
  const std::string script =
      "my $limit = pack('QQ', 8192, 8192); syscall(160, 1, $limit) == 0 or die 'setrlimit: ' . $!;"
      "pipe(my $r, my $w) or die;"
      "for (1..20000) { syswrite($w, 'x' x 64); sysread($r, my $b, 64); }"
      "print qq(done\\n);";
  const Recording rec = record({"/usr/bin/perl", "-e", script}, {.radar_args = {"--tail", "1M"}});
  EXPECT_EQ(rec.exit_code, 0) << "no SIGXFSZ: " << rec.err;
  EXPECT_EQ(rec.out, "done\n");
  EXPECT_NE(rec.err.find("File too large"), std::string::npos) << rec.err;
}

TEST(Record, RefusesANonEmptyDirectoryWithoutForce) {
  const std::string dir = testTempDir();
  std::FILE* f = std::fopen((dir + "/something").c_str(), "w");
  std::fclose(f);
  const std::string cmd = radarPath() + " record -o " + dir + " -- true 2>/dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  struct stat st {};
  const std::string fresh = testTempDir() + "/new";
  ASSERT_EQ(std::system((radarPath() + " record -o " + fresh + " -- true 2>/dev/null").c_str()), 0);
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (const auto& l : load(fresh).logs) {
    ASSERT_EQ(::stat(l.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
}

TEST(Record, BadCommandLines) {
  // In a directory of its own: a program that cannot be run leaves no
  // recording directory behind.
  const std::string cwd = testTempDir() + "/cwd";
  ASSERT_EQ(::mkdir(cwd.c_str(), 0700), 0);
  auto run = [&](const std::string& args) {
    const int status =
        std::system(("cd " + shellQuote(cwd) + " && " + radarPath() + " record " + args + " >/dev/null 2>&1").c_str());
    return WEXITSTATUS(status);
  };
  EXPECT_EQ(run(""), 2);
  EXPECT_EQ(run("--payload-limit lots -- true"), 2);
  EXPECT_EQ(run("--no-such-option -- true"), 2);
  EXPECT_EQ(run("-- /no/such/program"), 127);
  EXPECT_EQ(run("-- /etc/hostname"), 127) << "not executable: as a shell says, and as the help says";
  EXPECT_TRUE(std::filesystem::is_empty(cwd)) << "a recording directory was left for a program that never ran";
  const std::string help = shell(shellQuote(radarPath()) + " help record").out;
  EXPECT_NE(help.find("127 when PROGRAM cannot\nbe found or executed"), std::string::npos) << help;
}

}  // namespace
}  // namespace radar::testing

namespace radar::testing {
namespace {

TEST(Record, PayloadLimitSaysWhatWasCut) {
  Recording rec = record({programPath("pipes")}, {.radar_args = {"--payload-limit", "3"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  const ProcessLog* child = rec.byPid(parent->first(log::Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(child);
  EXPECT_TRUE(child->header.has_payload_limit());
  const Event* write = child->first(log::Kind::Write);
  ASSERT_TRUE(write);
  EXPECT_EQ(write->payload, "hel");
  EXPECT_EQ(write->r.payload_omitted, 2u);
  EXPECT_TRUE(write->r.has_hash) << "the checksum covers what was cut";
  EXPECT_EQ(write->r.hash, crc("hello"));
  EXPECT_EQ(write->r.result, 5);

  Recording none = record({programPath("pipes")}, {.radar_args = {"--payload-limit", "0"}});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  // Decoded, a message not kept says so, on its send and on its receive.
  const Result decoded = radar({"events", "--decode", none.dir});
  EXPECT_EQ(decoded.out.find("(5 bytes).\n    no bytes"), std::string::npos) << decoded.out;
  EXPECT_NE(decoded.out.find("5 bytes not kept: the recording keeps only the start of each message"), std::string::npos)
      << decoded.out;
  const Result partly = radar({"events", "--decode", rec.dir});
  EXPECT_NE(partly.out.find("and 2 bytes not kept"), std::string::npos) << partly.out;
  for (const auto& l : none.logs)
    for (const auto& e : l.events) {
      if (log::isData(e.kind())) {
        EXPECT_EQ(e.payload, "");
      }
    }
}

// A directory someone else can write into is refused: its owner could plant
// a link where radar writes (and radar would write through it), or replace
// the logs. Here uid 65534 makes a world-writable directory in a sticky one
// and plants recording.txt.partial -> a file of ours.
TEST(Record, RefusesADirectoryOwnedBySomeoneElse) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a directory owned by another user";
  const std::string base = testTempDir();
  ASSERT_EQ(::chmod(base.c_str(), 01777), 0);
  const std::string dir = base + "/theirs", victim = testTempDir() + "/victim";
  { std::ofstream(victim) << "precious"; }
  ASSERT_EQ(::chmod(victim.c_str(), 0644), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::symlink(victim.c_str(), (dir + "/recording.txt.partial").c_str()), 0);
  const Result r = radar({"record", "--force", "-o", dir, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("refusing to record into " + dir + ": it belongs to uid 65534"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(victim), "precious");
  struct stat st {};
  ASSERT_EQ(::stat(victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

// --force replaces the recording in a directory: none of the old logs is
// left to be merged with the new ones.
TEST(Record, ForceReplacesTheOldRecordingWhole) {
  const std::string dir = testTempDir() + "/again";
  ASSERT_EQ(radar({"record", "-o", dir, "--", "sh", "-c", "true; true"}).exit_code, 0);
  ASSERT_EQ(radar({"record", "-o", dir, "--force", "--", "/bin/true"}).exit_code, 0);
  std::vector<std::string> logs;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".rlog") logs.push_back(entry.path().filename());
  ASSERT_EQ(logs.size(), 1u) << "old logs left: " << ::testing::PrintToString(logs);
  EXPECT_NE(logs[0].find("-true.rlog"), std::string::npos) << logs[0];
}

// radar record, in the background, of a shell that waits until `stop`
// exists: its pid, once the recording has begun (recording.txt is written
// once the directory is locked); -1 if it did not begin.
pid_t recordUntilStopped(const std::string& dir, const std::string& stop) {
  const std::string command = shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- sh -c " +
                              shellQuote("while [ ! -e " + shellQuote(stop) + " ]; do sleep 0.02; done; echo first");
  const pid_t recorder = ::fork();
  if (recorder == 0) {
    ::execl("/bin/sh", "sh", "-c", (command + " > /dev/null 2>&1").c_str(), nullptr);
    ::_exit(127);
  }
  for (int i = 0; i < 3000 && !std::ifstream(dir + "/recording.txt").good(); ++i) ::usleep(10000);
  return std::ifstream(dir + "/recording.txt").good() ? recorder : -1;
}

// A directory radar record is writing into is refused to a second one,
// --force or not: their logs would mix, and the first would call its own
// program unrecorded. The first recording is left whole.
TEST(Record, ADirectoryBeingRecordedIntoIsRefusedToASecondRecorder) {
  const std::string dir = testTempDir() + "/busy", stop = testTempDir() + "/stop";
  const pid_t first = recordUntilStopped(dir, stop);
  ASSERT_GT(first, 0);
  for (bool force : {false, true}) {
    std::vector<std::string> args{"record", "-o", dir};
    if (force) args.push_back("--force");
    args.insert(args.end(), {"--", "sh", "-c", "echo second"});
    const Result second = radar(args);
    EXPECT_EQ(second.exit_code, 2) << second.err;
    EXPECT_NE(second.err.find("another radar record is recording into " + dir), std::string::npos) << second.err;
    EXPECT_EQ(second.out, "");
  }
  { std::ofstream(stop) << ""; }
  int status = 0;
  ASSERT_EQ(::waitpid(first, &status, 0), first);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const Recording rec = load(dir);
  EXPECT_EQ(rec.meta.command(2).find("while"), 0u);
  for (const ProcessLog& log : rec.logs) EXPECT_EQ(log.error, "") << log.path;
  const Result check = radar({"check", "--strict", dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  // Once it has ended, the directory is free again.
  EXPECT_EQ(radar({"record", "-o", dir, "--force", "--", "/bin/true"}).exit_code, 0);
}

// A process that drops its privileges (a server's worker after setuid to
// nobody) is recorded, and so are the children it forks then: radar record
// makes their log files, in a directory that stays its own and 0700.
TEST(Record, ProcessesThatDropTheirPrivilegesAreRecorded) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop privileges";
  if (shell("command -v setpriv").exit_code != 0) GTEST_SKIP() << "setpriv is not installed (util-linux)";
  const Recording rec =
      record({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", "echo hi | cat; id -u >&2"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "hi\n");
  EXPECT_NE(rec.err.find("65534\n"), std::string::npos) << "the program ran as nobody: " << rec.err;
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  EXPECT_EQ(rec.byExe("setpriv").size(), 1u);
  EXPECT_EQ(rec.byExe("cat").size(), 1u);
  EXPECT_EQ(rec.byExe("id").size(), 1u);
  EXPECT_GE(rec.byExe("dash").size() + rec.byExe("bash").size(), 2u) << "the shell and its forked child";
  for (const ProcessLog& log : rec.logs) EXPECT_EQ(log.error, "") << log.path;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  struct stat st {};
  ASSERT_EQ(::stat(rec.dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, 0u);
  for (const ProcessLog& log : rec.logs) {
    ASSERT_EQ(::stat(log.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << log.path;
  }
}

// The handout of log files serves only the recording's own processes: a
// process that is not one of them is refused, and nothing is made.
TEST(Record, LogFilesAreHandedOnlyToTheRecordingsProcesses) {
  const std::string dir = testTempDir() + "/rec", stop = testTempDir() + "/stop";
  const pid_t recorder = recordUntilStopped(dir, stop);
  ASSERT_GT(recorder, 0);
  proto::Recording meta;
  {
    std::ifstream in(dir + "/recording.txt");
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &meta));
  }
  ASSERT_EQ(meta.recording_id().size(), 16u);
  const int s = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr;
  const socklen_t len =
      log::handoutAddress(reinterpret_cast<const uint8_t*>(meta.recording_id().data()), dir.c_str(), &addr);
  ASSERT_EQ(::connect(s, reinterpret_cast<const sockaddr*>(&addr), len), 0) << std::strerror(errno);
  const std::string name = "99999-0-intruder.rlog";
  ASSERT_EQ(::send(s, name.data(), name.size(), 0), static_cast<ssize_t>(name.size()));
  int32_t answer = 0;
  EXPECT_EQ(::recv(s, &answer, sizeof(answer), 0), static_cast<ssize_t>(sizeof(answer)));
  EXPECT_EQ(answer, EPERM);
  ::close(s);
  { std::ofstream(stop) << ""; }
  int status = 0;
  ASSERT_EQ(::waitpid(recorder, &status, 0), recorder);
  EXPECT_FALSE(std::ifstream(dir + "/" + name).good());
}

// Two parts of one recording made on one machine (--join) while the first
// still runs: each part hands its own processes their logs.
TEST(Record, TwoPartsOfARecordingOnOneMachineEachHandOutTheirLogs) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop privileges";
  if (shell("command -v setpriv").exit_code != 0) GTEST_SKIP() << "setpriv is not installed (util-linux)";
  const std::string first = testTempDir() + "/part-a", stop = testTempDir() + "/stop";
  const pid_t recorder = recordUntilStopped(first, stop);
  ASSERT_GT(recorder, 0);
  const std::string second = testTempDir() + "/part-b";
  const Result joined = radar({"record", "--join", first, "-o", second, "--", "setpriv", "--reuid=65534",
                               "--regid=65534", "--clear-groups", "sh", "-c", "echo hi | cat"});
  { std::ofstream(stop) << ""; }
  int status = 0;
  ASSERT_EQ(::waitpid(recorder, &status, 0), recorder);
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_EQ(joined.err.find("cannot serve log files"), std::string::npos) << joined.err;
  EXPECT_EQ(joined.err.find("not recorded"), std::string::npos) << joined.err;
  bool cat_logged = false;
  for (const auto& entry : std::filesystem::directory_iterator(second))
    cat_logged |= entry.path().filename().string().find("-cat.rlog") != std::string::npos;
  EXPECT_TRUE(cat_logged) << "cat, run as nobody in the second part, has no log there";
}

// radar record's output read by a process substitution: bash forks the
// reader (cat), then execs radar, which so has cat as a child of its own.
// cat waits for radar's output to end: radar must not wait for cat.
TEST(Record, ChildrenItHadBeforeTheProgramAreNotWaitedFor) {
  if (shell("command -v bash").exit_code != 0) GTEST_SKIP() << "bash is not installed";
  const std::string dir = testTempDir() + "/rec", out = testTempDir() + "/out";
  const Result r = shell("timeout 60 bash -c " + shellQuote(shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
                                                            " -- echo hi > >(cat > " + shellQuote(out) + ")"));
  ASSERT_EQ(r.exit_code, 0) << "radar record waited for the shell's cat (124: timed out)\n" << r.err;
  EXPECT_EQ(r.err.find("not recorded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recorded 1 process,"), std::string::npos) << r.err;
  for (int i = 0; i < 100 && slurp(out) != "hi\n"; ++i) ::usleep(20000);  // cat writes once radar is done
  EXPECT_EQ(slurp(out), "hi\n");
}

// `-o rec/rank-3` where rec/ is not there yet (each rank of a job
// recording itself): the missing directories are made, private.
TEST(Record, MakesTheDirectoriesAboveItsOwn) {
  const std::string parent = testTempDir() + "/runs", dir = parent + "/today/rank-3";
  const Result r = radar({"record", "-o", dir, "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::ifstream(dir + "/recording.txt").good());
  struct stat st {};
  ASSERT_EQ(::stat(parent.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // The recording's own directory is 0700 whatever the umask, made at once
  // or below directories made first.
  for (const std::string& made : {testTempDir() + "/flat", testTempDir() + "/deep/er/rec"}) {
    const Result masked =
        shell("umask 0277; " + shellQuote(radarPath()) + " record -o " + shellQuote(made) + " -- /bin/true 2>&1");
    ASSERT_EQ(masked.exit_code, 0) << masked.out;
    ASSERT_EQ(::stat(made.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << made;
  }
}

TEST(Record, RefusesADirectoryOthersCanWrite) {
  const std::string dir = testTempDir() + "/open";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const Result r = radar({"record", "-o", dir, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("others can write into it"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/recording.txt").good());
}

// Even in a directory of one's own, a link left where radar writes is
// removed, never written through.
TEST(Record, NeverWritesThroughALinkInItsDirectory) {
  const std::string dir = testTempDir() + "/mine", victim = testTempDir() + "/victim";
  { std::ofstream(victim) << "precious"; }
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(victim.c_str(), (dir + "/recording.txt.partial").c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), (dir + "/recording.txt").c_str()), 0);
  Recording rec = record({"/bin/true"}, {.dir = dir});  // with --force
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(slurp(victim), "precious");
  struct stat st {};
  ASSERT_EQ(::lstat((dir + "/recording.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(rec.meta.root_pid() > 0, true);
}

// With few descriptors allowed, the program gets the numbers it gets bare
// and as many before EMFILE: radar's own live above its soft limit.
TEST(Record, SmallDescriptorLimitShiftsNothing) {
  for (const char* limit : {"8", "32", "63"}) {
    SCOPED_TRACE(limit);
    // The limit is set in a shell of its own: dash keeps copies of the
    // descriptors it redirects at 10 and above, which a limit of 8 forbids.
    auto limited = [&](const std::string& command) {
      return shell("sh -c " + shellQuote(std::string("ulimit -S -n ") + limit + "; exec " + command));
    };
    const Result bare = limited(shellQuote(programPath("fd_limit")));
    ASSERT_EQ(bare.exit_code, 0) << bare.err;
    const std::string dir = testTempDir() + "/rec";
    const Result recorded = limited(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                                    shellQuote(programPath("fd_limit")));
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    EXPECT_EQ(recorded.out, bare.out);
    const Recording rec = load(dir);
    expectClean(rec);
    ASSERT_EQ(rec.logs.size(), 1u);
    EXPECT_EQ(rec.logs[0].ofKind(Kind::Write).size(), 1u) << "still recorded";
  }
}

// A hard descriptor limit that leaves radar's own no room above the
// program's (`ulimit -n 16` sets both limits) would shift the numbers the
// program gets: radar record refuses it, saying how to record; a process
// that sets such a limit itself is recorded, and the summary says so.
TEST(Record, AHardDescriptorLimitWithoutRoomIsRefusedOrSaid) {
  const std::string dir = testTempDir() + "/rec";
  const Result refused = shell("sh -c " + shellQuote("ulimit -n 16; exec " + shellQuote(radarPath()) + " record -o " +
                                                     shellQuote(dir) + " -- " + shellQuote(programPath("fd_limit"))));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("radar record: descriptors are limited to 16, and the hard limit (16) leaves radar's "
                             "own none above the program's"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("ulimit -S -n 16"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir));
  const Recording inside = record({"sh", "-c", "ulimit -n 16; exec " + shellQuote(programPath("fd_limit"))});
  EXPECT_EQ(inside.exit_code, 0) << inside.err;
  EXPECT_NE(inside.err.find("fd_limit: its descriptor limit (16, hard 16) left radar's own descriptors no room"),
            std::string::npos)
      << inside.err;
}

// With many descriptors allowed, radar's own stay low enough that the
// kernel's descriptor table keeps 1024 entries (every fork copies it, every
// exit walks it), and the program's descriptors above them are listed.
TEST(Record, ManyDescriptorsAllowedKeepTheTableSmall) {
  if (shell("sh -c 'ulimit -S -n 8192'").exit_code != 0) GTEST_SKIP() << "the hard descriptor limit is below 8192";
  const std::string dir = testTempDir() + "/rec";
  // bash opens 2000 for grep, a copy of its standard output.
  const Result r =
      shell("sh -c " + shellQuote("ulimit -S -n 8192; exec " + shellQuote(radarPath()) + " record -o " +
                                  shellQuote(dir) + " -- bash -c 'grep FDSize /proc/self/status 2000>&1'"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "FDSize:\t2048\n") << "the table grows for the program's descriptor at 2000, not for radar's";
  const Result small =
      shell("sh -c " + shellQuote("ulimit -S -n 8192; exec " + shellQuote(radarPath()) + " record -o " +
                                  shellQuote(dir + "2") + " -- grep FDSize /proc/self/status"));
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_EQ(small.out, "FDSize:\t1024\n");
  const Recording rec = load(dir);
  expectClean(rec);
  const ProcessLog* grep = nullptr;
  for (const auto& l : rec.logs)
    if (l.header.executable().find("grep") != std::string::npos) grep = &l;
  ASSERT_TRUE(grep);
  bool listed = false;
  for (int fd : grep->header.open_fds()) listed |= fd == 2000;
  EXPECT_TRUE(listed) << "the program's descriptor above radar's is in its log's header";
}

// A process image's channels are found among the descriptors listed for its
// log's header; with more than that list holds (1024), they are listed again:
// a pipe end held and never used at 1500 is still defined.
TEST(Record, ChannelsBeyondTheThousandDescriptorsListedAreDefined) {
  if (shell("sh -c 'ulimit -S -n 8192'").exit_code != 0) GTEST_SKIP() << "the hard descriptor limit is below 8192";
  for (int files : {100, 1100}) {
    const std::string dir = testTempDir() + "/rec" + std::to_string(files);
    const std::string script = "for i in $(seq 10 " + std::to_string(10 + files) +
                               "); do eval \"exec $i</dev/null\"; done; exec 1500> >(cat); exec /bin/true";
    const Result r = shell("sh -c " + shellQuote("ulimit -S -n 8192; exec " + shellQuote(radarPath()) + " record -o " +
                                                 shellQuote(dir) + " -- bash -c " + shellQuote(script)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Recording rec = load(dir);
    const ProcessLog* image = nullptr;
    for (const auto& l : rec.logs)
      if (l.header.executable() == "/usr/bin/true") image = &l;
    ASSERT_TRUE(image) << files;
    if (files < 1000) {
      EXPECT_GT(image->header.open_fds_size(), files);
      EXPECT_LT(image->header.open_fds_size(), 1024);
    } else {
      EXPECT_EQ(image->header.open_fds_size(), 1024) << "the list is cut";
    }
    bool defined = false;
    for (const auto& [index, c] : image->channels) defined |= c.fd() == 1500 && c.type() == proto::PIPE_CHANNEL;
    EXPECT_TRUE(defined) << "with " << files << " descriptors open, the pipe at 1500 is a channel of true";
  }
}

// An environment of more variables than an exec hook keeps room for on its
// stack (512 pointers): the room is mapped, every variable reaches each new
// program, and each is recorded.
TEST(Record, AnExecWithAThousandVariablesPassesThemAll) {
  std::string vars;
  for (int i = 0; i < 1000; ++i) vars += " V" + std::to_string(i) + "=" + std::to_string(i);
  const std::string dir = testTempDir() + "/rec";
  const Result r = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- env" + vars +
                         " sh -c 'exec printenv V0 V999'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0\n999\n");
  const Recording rec = load(dir);
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 3u) << "env, sh and printenv";
  for (const auto& l : rec.logs) {
    if (l.header.generation() == 0) continue;  // env(1) itself, given them as arguments
    int found = 0;
    for (const auto& e : l.header.environment()) found += e.rfind("V", 0) == 0;
    EXPECT_EQ(found, 1000) << l.header.executable();
  }
}

// A program built with AddressSanitizer records like any other, also when
// the user preloads the sanitizer's runtime.
TEST(Record, ProgramBuiltWithAddressSanitizer) {
  const Result where = shell("gcc -print-file-name=libasan.so");
  const std::string libasan = where.out.substr(0, where.out.find('\n'));
  Recording rec = record({programPath("pipes_asan")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectClean(rec);
  ASSERT_EQ(rec.logs.size(), 2u) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(parent);
  const ProcessLog* child = rec.byPid(parent->first(Kind::Fork)->r.peer_pid);
  ASSERT_TRUE(child);
  EXPECT_EQ(child->ofKind(Kind::Write).at(0)->payload, "hello");
  if (libasan.empty() || libasan[0] != '/') GTEST_SKIP() << "gcc does not say where libasan.so is";
  Recording preloaded = record({"env", "LD_PRELOAD=" + libasan, programPath("pipes_asan")});
  ASSERT_EQ(preloaded.exit_code, 0) << preloaded.err;
  EXPECT_EQ(preloaded.logs.size(), 3u) << preloaded.err;  // env, then the program and its child
}

// radar's variables must never push an exec over the kernel's limit where
// the program's own arguments and environment fit: the program runs on,
// unrecorded from there, and the log says why.
TEST(Record, ExecNearTheArgumentLimitSucceedsAsBare) {
  const Result bare = shell(shellQuote(programPath("arg_max")));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  Recording rec = record({programPath("arg_max")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  bool said = false;
  for (const auto& l : rec.logs)
    for (const auto& n : l.notes) said |= n.find("too large (E2BIG)") != std::string::npos;
  EXPECT_TRUE(said) << "the largest exec ran unrecorded without a word";
}

}  // namespace
}  // namespace radar::testing

namespace radar::testing {
namespace {

// A program chooses its own argv[0]: a newline or an escape sequence in it
// must not forge a line or drive the terminal when events, check or stats
// print it, nor break the JSON. (A path: a title would name it by its
// program.)
TEST(Commands, PrintProgramSuppliedNamesSafely) {
  if (shell("command -v python3").exit_code != 0) GTEST_SKIP() << "needs python3 to exec with any argv[0]";
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
                     " -- python3 -c 'import os; os.execv(b\"/bin/sh\", [b\"./evil\\nforged line\\x1b[2J\\xc2\\x9b\", "
                     "b\"-c\", b\"exit 3\"])'");
  ASSERT_EQ(rec.exit_code, 3) << rec.err;
  for (const auto& command : {"events", "check", "stats"}) {
    Result r = radar({command, dir});
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << command << ":\n" << r.out;
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << command << ": a C1 control\n" << r.out;
    EXPECT_EQ(r.out.find("\nforged line"), std::string::npos) << command << ":\n" << r.out;
  }
  Result events = radar({"events", dir});
  EXPECT_NE(events.out.find("evil\\nforged line\\e[2J\\xc2\\x9b"), std::string::npos) << events.out;
  Result json = radar({"events", "--json", dir});
  for (char c : json.out) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << int(c);
  EXPECT_NE(json.out.find("evil\\nforged line\\u001b[2J\\u009b"), std::string::npos) << json.out;
}

// Arguments, environment values and paths are bytes, not always UTF-8: a
// log holds them as they were, and every reader reads it.
TEST(Commands, ArgumentsAndEnvironmentThatAreNotUtf8) {
  if (shell("command -v python3").exit_code != 0) GTEST_SKIP() << "needs python3 to exec with any argv";
  const std::string dir = testTempDir() + "/rec";
  Result rec =
      shell("LATIN1=$(printf 'caf\\351') " + shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
            " -- python3 -c 'import os; os.execv(b\"/bin/sh\", [b\"\\xff\\xfe-name\", b\"-c\", b\"exit 4\"])'");
  ASSERT_EQ(rec.exit_code, 4) << rec.err;
  EXPECT_EQ(rec.err.find("damaged"), std::string::npos) << rec.err;
  const Recording r = load(dir);
  expectClean(r);
  bool found = false;
  for (const auto& l : r.logs)
    for (const auto& a : l.header.argv()) found |= a == "\xff\xfe-name";
  EXPECT_TRUE(found) << "argv kept byte for byte";
  Result events = radar({"events", dir});
  EXPECT_EQ(events.exit_code, 0) << events.err;
  EXPECT_NE(events.out.find("\\xff\\xfe-name["), std::string::npos) << events.out;
  Result check = radar({"check", "--strict", dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// A reader that runs out of memory (a 100 MB message under ulimit -v,
// whichever thread allocates) says so, naming the limit and how to raise
// it, exits 4, and leaves no half-written output -- never "terminate
// called after throwing an instance of 'std::bad_alloc'".
TEST(Commands, OutOfMemoryIsAClearErrorNamingTheLimit) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit tested";
#endif
  const Recording rec = record({programPath("big_message"), "100"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::string reader;
  for (const ProcessLog& log : rec.logs)
    if (log.header.pid() != rec.meta.root_pid()) reader = std::to_string(log.header.pid());
  ASSERT_FALSE(reader.empty());
  const std::string out = testTempDir();
  for (const std::vector<std::string>& args : {std::vector<std::string>{"check", rec.dir},
                                               {"events", "--decode", rec.dir},
                                               {"export", "--sqlite", out + "/run.sqlite", rec.dir},
                                               {"debug", "--yes", rec.dir, reader, "--no-gdb"}}) {
    SCOPED_TRACE(args[0]);
    std::string line = "ulimit -v 300000; exec " + shellQuote(radarPath());
    for (const std::string& a : args) line += " " + shellQuote(a);
    const Result r = shell("bash -c " + shellQuote(line) + " > /dev/null");
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_EQ(r.err, "radar " + args[0] +
                         ": out of memory: its address space is limited to 292 MiB (ulimit -v); raise the limit "
                         "(ulimit -v unlimited) or run it where more memory is allowed\n");
    EXPECT_EQ(shell("ls -A " + shellQuote(out)).out, "");
  }
  EXPECT_EQ(radar({"check", rec.dir}).exit_code, 0);  // without the limit
}

// A recording given twice, under two names or as a copy, is refused with
// both paths named: merged with itself it would count every message twice.
TEST(Commands, SameRecordingGivenTwiceIsRefused) {
  const std::string base = testTempDir();
  Recording rec = record({programPath("pipes")}, {.dir = base + "/a"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(shell("cp -r " + shellQuote(base + "/a") + " " + shellQuote(base + "/b")).exit_code, 0);
  const Result twice = radar({"check", base + "/a", base + "/a/."});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("the same recording is given twice: " + base + "/a and " + base + "/a/."), std::string::npos)
      << twice.err;
  const Result copy = radar({"events", base + "/a", base + "/b"});
  EXPECT_EQ(copy.exit_code, 2);
  EXPECT_NE(copy.err.find("and " + base + "/b (a copy of it)"), std::string::npos) << copy.err;
  const Result log_too = radar({"stats", base + "/a", rec.logs.at(0).path});
  EXPECT_EQ(log_too.exit_code, 2);
  EXPECT_NE(log_too.err.find("given twice"), std::string::npos) << log_too.err;
  EXPECT_EQ(radar({"check", base + "/a"}).exit_code, 0);
}

}  // namespace
}  // namespace radar::testing

namespace radar::testing {
namespace {

// A forked child's events come after the fork in the story and in RADAR's
// numbers: the child saw its parent's counter before the fork was
// recorded (at its return), and a SIGCHLD handler may come between.
TEST(Record, AForkedChildComesAfterTheForkThatMadeIt) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
                     " -- sh -c 'for i in 1 2 3 4 5 6; do (echo $i) | cat; done'");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result events = radar({"events", "--json", dir});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  struct Told {
    uint64_t position, number;
  };
  std::map<long, std::vector<Told>> by_pid;
  std::vector<std::pair<long, Told>> forks;  // child pid, the fork
  const std::regex fields(
      R"re("event":(\d+),"number":(\d+),"process":"[^"]*","pid":(\d+),.*"kind":"([a-z_0-9]+)".*"result":(-?\d+))re");
  std::istringstream lines(events.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, fields)) continue;
    const Told t{std::stoull(m[1]), std::stoull(m[2])};
    by_pid[std::stol(m[3])].push_back(t);
    if (m[4] == "fork") forks.push_back({std::stol(m[5]), t});
  }
  ASSERT_GE(forks.size(), 12u);
  for (const auto& [child, fork] : forks) {
    ASSERT_TRUE(by_pid.count(child)) << child;
    for (const Told& e : by_pid[child]) {
      EXPECT_GT(e.position, fork.position) << "child " << child;
      EXPECT_GT(e.number, fork.number) << "child " << child;
    }
  }
}

// Threads of one process writing a pipe that another of its threads
// reads: a reading thread's call often returns, and is logged, before the
// writing thread's. The story still tells each send before its receives.
// A UDP client whose socket the kernel bound at its first sendto (so it
// was recorded unbound) gets the server's replies: each reply is a message
// from the server to it, after its request, and nothing is from outside.
// The same for a client that connected its socket.
TEST(Record, RepliesToAUdpSocketBoundByItsFirstSendAreItsMessages) {
  const std::string dir = testTempDir() + "/rec";
  Result rec =
      shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + shellQuote(programPath("udp_echo")));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result check = radar({"check", "--json", dir});
  EXPECT_NE(check.out.find("\"bytes_matched\":96,\"bytes_external\":0,"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("\"findings\":[]"), std::string::npos) << check.out;
  Result events = radar({"events", "--json", "-k", "receive", dir});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  const std::regex event_re(R"re("event":(\d+))re"), from_re(R"re("from_events":\[(\d+)\])re");
  int receives = 0;
  std::istringstream lines(events.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m, from;
    ASSERT_TRUE(std::regex_search(line, m, event_re)) << line;
    ASSERT_TRUE(std::regex_search(line, from, from_re)) << "a receive from no recorded send: " << line;
    EXPECT_LT(std::stoull(from[1]), std::stoull(m[1])) << line;
    ++receives;
  }
  EXPECT_EQ(receives, 12);
  // The client's socket is named by the address the kernel gave it.
  EXPECT_EQ(radar({"stats", dir}).out.find("udp 0.0.0.0:0"), std::string::npos);
}

TEST(Record, AThreadsSendIsToldBeforeAnotherThreadReceivesIt) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(programPath("threads")) + " 0");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result events = radar({"events", "--json", dir});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  const std::regex event_re(R"re("event":(\d+))re"), to_re(R"re("to_events":\[([0-9,]+)\])re");
  std::istringstream lines(events.out);
  size_t sends = 0, late = 0;
  for (std::string line; std::getline(lines, line);) {
    std::smatch m, to;
    if (!std::regex_search(line, m, event_re) || !std::regex_search(line, to, to_re)) continue;
    ++sends;
    const uint64_t send = std::stoull(m[1]);
    std::istringstream list(to[1].str());
    for (std::string receive; std::getline(list, receive, ',');) late += std::stoull(receive) < send;
  }
  EXPECT_GE(sends, 8000u);
  EXPECT_EQ(late, 0u) << "receives told before the sends whose bytes they got";
  Result check = radar({"check", "--json", dir});
  EXPECT_NE(check.out.find("\"placed_by_time\":0,"), std::string::npos) << check.out;
}

// What radar does not record is said, never hidden and never blamed: a
// parent and child that meet through shared memory, a semaphore, a raw
// system call or io_uring. radar record's
// summary, `radar check` (no finding: it is no fault of the program) and
// `radar events` (where the process began to use it) say what was not
// seen; bytes a pipe got unseen are no `no-sender`; and the re-run of a
// process that wrote them stops there, saying why, rather than run on.
TEST(Record, WhatRadarCannotSeeIsSaid) {
  struct Case {
    const char* program;
    const char* mode;
    const char* said;  // after the process's label
    const char* output;
  };
  for (const Case& c : {Case{"unseen", "shm", "maps shared memory (anonymous, 1 KiB)", "parent read hello"},
                        Case{"unseen", "sem", "opens a POSIX semaphore (/radar-unseen-", "parent was posted"},
                        Case{"unseen", "raw", "makes a raw system call (writev)", "child read 6: hello"},
                        Case{"uring", "writer", "uses io_uring (liburing)", "child read 6: hello"}}) {
    SCOPED_TRACE(c.mode);
    // (io_uring: the interposer's own account. By default radar record has
    // the fallback recorder follow the program's rings: Fallback tests.)
    const bool uring = std::string(c.program) == "uring";
    Recording rec = uring ? record({programPath(c.program), c.mode}, {{"--fallback", "off"}})
                          : record({programPath(c.program), c.mode});
    if (rec.exit_code == 77) {
      EXPECT_TRUE(uring);
      std::printf(
          "[  SKIPPED ] io_uring: the test program was built without liburing (apt-get install liburing-dev)\n");
      continue;
    }
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_NE(rec.out.find(c.output), std::string::npos) << rec.out;
    EXPECT_NE(rec.err.find(std::string(": ") + c.said), std::string::npos) << rec.err;
    EXPECT_NE(rec.err.find("radar: not seen: pid "), std::string::npos) << rec.err;
    const Result check = radar({"check", "--strict", rec.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find(std::string("] ") + c.said), std::string::npos) << check.out;
    EXPECT_NE(check.out.find("not seen: " + std::string(c.program) + "["), std::string::npos) << check.out;
    const Result events = radar({"events", rec.dir});
    EXPECT_NE(events.out.find("  Not seen from here: " + std::string(c.program) + "["), std::string::npos)
        << events.out;
    const bool over_pipe = std::string(c.mode) == "raw" || uring;
    if (!over_pipe) continue;
    EXPECT_EQ(events.out.find("that no recorded process sent"), std::string::npos) << events.out;
    EXPECT_NE(events.out.find("receives a message whose sending radar did not see on pipe"), std::string::npos)
        << events.out;
    const Result decoded = radar({"events", "--decode", rec.dir});
    EXPECT_NE(decoded.out.find("\n    6 bytes no recorded process sent (written unseen"), std::string::npos)
        << decoded.out;
    // The writer's re-run stops where it wrote unseen.
    int parent = 0;
    for (const ProcessLog& log : rec.logs)
      if (log.header.origin() == proto::ROOT) parent = static_cast<int>(log.header.pid());
    const Result rerun = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " " +
                               std::to_string(parent) + " --no-gdb");
    EXPECT_EQ(rerun.exit_code, 1) << rerun.err;
    EXPECT_NE(rerun.err.find(std::string(c.mode) == "raw" ? ") through syscall(), which radar does not record"
                                                          : "sets up io_uring"),
              std::string::npos)
        << rerun.err;
  }
}

// A program that installs a seccomp filter runs as it would alone: radar
// closes its log before the filter is in place (a call of radar's own
// after it could be refused, or kill the process) and says so, with no
// finding; a program it executes under the filter runs without the
// recorder (which would start under the filter); a re-run stops there,
// saying why.
TEST(Record, AProgramThatInstallsASeccompFilterRunsAsAlone) {
  for (const char* mode : {"strict", "exec"}) {
    SCOPED_TRACE(mode);
    const Result bare = shell(shellQuote(programPath("seccomp_filter")) + " " + mode);
    ASSERT_EQ(bare.exit_code, 0) << bare.err;
    Recording rec = record({programPath("seccomp_filter"), mode});
    EXPECT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(rec.out, bare.out);
    EXPECT_NE(rec.err.find(": installs a seccomp filter (prctl()): radar records nothing more of it"),
              std::string::npos)
        << rec.err;
    const Result check = radar({"check", "--strict", rec.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("not seen: seccomp_filter["), std::string::npos) << check.out;
    ASSERT_EQ(rec.logs.size(), 1u);
    const Result rerun = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " " +
                               std::to_string(rec.logs[0].header.pid()) + " --no-gdb");
    EXPECT_NE(rerun.err.find("the program installs a seccomp filter (prctl()), where its recording stopped"),
              std::string::npos)
        << rerun.err;
  }
}

// `radar sql` has `count` messages on channels of the types listed.
void expectMessagesOn(const Recording& rec, const std::string& types, int count) {
  const Result sql = radar({"sql", rec.dir,
                            "select count(*) from messages m join channels c on m.channel = c.channel "
                            "where c.type in (" +
                                types + ")"});
  EXPECT_NE(sql.out.find(" " + std::to_string(count) + "\n"), std::string::npos) << sql.out << sql.err;
}

// Every process of the recording re-runs to its recorded end, status 0.
void expectEveryProcessReRunsAsRecorded(const Recording& rec) {
  for (const ProcessLog& log : rec.logs) {
    const std::string pid = std::to_string(log.header.pid());
    const Result rerun =
        shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " " + pid + " --no-gdb");
    EXPECT_EQ(rerun.exit_code, 0) << pid << rerun.err;
    EXPECT_NE(rerun.err.find("exits with status 0, as recorded"), std::string::npos) << pid << rerun.err;
  }
}

// Processes that talk through POSIX and System V message queues: each
// message a send and a receive with its bytes and priority or type,
// matched to each other (every
// byte, no finding, nothing said unseen), told with the queue's name and
// decoded, in
// SQL and as datagrams in the pcapng export; and every process re-runs as
// recorded, its queue answered from the recording (the sandbox has no such
// queue), a notification's signal and a receive's poll included.
TEST(Record, MessageQueuesAreChannels) {
  struct Case {
    const char* mode;
    const char* totals;
    int messages;
    const char* decoded;  // one message's bytes, as events --decode shows them
    std::vector<std::string> told;
  };
  for (const Case& c :
       {Case{"pair",
             "bytes sent 24, received 24: 24 matched to their sends, 0 from outside the recording, 0 with no recorded "
             "sender",
             4,
             "|high.|",
             {"opens message queue /radar-mq-requests-", "for its attributes", "waits for channels: 1 ready",
              "(5 bytes, priority 7)", "receives a message from message_queues[", "removes message queue "}},
        Case{"notify",
             "bytes sent 5, received 5: 5 matched to their sends, 0 from outside the recording, 0 with no recorded "
             "sender",
             1,
             "|ring.|",
             {"asks to be told when message queue /radar-mq-notify-",
              "receives signal 10 (SIGUSR1) from message_queues[", "receives a message from message_queues[",
              "(5 bytes, priority 3)"}},
        Case{"sysv",
             "bytes sent 25, received 25: 25 matched to their sends, 0 from outside the recording, 0 with no recorded "
             "sender",
             4,
             "|urgent.|",
             {"gets System V queue ", "for its state", "(7 bytes, type 2)", "(5 bytes, type 9)", "(0 bytes, type 3)",
              "receives a message from message_queues[", "removes System V queue "}}}) {
    SCOPED_TRACE(c.mode);
    Recording rec = record({programPath("message_queues"), c.mode});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(rec.err.find("not seen"), std::string::npos) << rec.err;
    const Result check = radar({"check", "--strict", rec.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find(c.totals), std::string::npos) << check.out;
    EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
    const Result events = radar({"events", rec.dir});
    for (const std::string& told : c.told) EXPECT_NE(events.out.find(told), std::string::npos) << told << events.out;
    const Result decoded = radar({"events", "--decode", rec.dir});
    EXPECT_NE(decoded.out.find(c.decoded), std::string::npos) << decoded.out;
    expectMessagesOn(rec, "'message queue', 'System V queue'", c.messages);
    const std::string pcapng = rec.dir + "/queues.pcapng";
    const Result exported = radar({"export", "--pcapng", pcapng, rec.dir});
    EXPECT_NE(exported.err.find(std::to_string(c.messages) + " packets"), std::string::npos) << exported.err;
    expectEveryProcessReRunsAsRecorded(rec);
  }
}

// A receive that got bytes from a recorded send and bytes written unseen
// says how many it got unseen, in the story and in its decoded contents:
// never shown as if the message were only what radar saw.
TEST(Record, BytesWrittenUnseenAreMarkedInTheContents) {
  Recording rec = record({programPath("unseen"), "rawmix"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("child read 16: PING-rawPING-lib"), std::string::npos) << rec.out;
  const Result events = radar({"events", "--decode", rec.dir});
  EXPECT_NE(events.out.find("(16 bytes, 8 of them sent unseen)"), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("\"PING-lib\"\n    and 8 bytes no recorded process sent (written unseen: "),
            std::string::npos)
      << events.out;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("8 with no recorded sender"), std::string::npos) << check.out;
}

// Processes that count through eventfds: each write a send of what it
// adds, each read a receive of what it took, matched to the writes whose
// counts it took (a semaphore's one unit at a time), whoever made the
// eventfd; waited for with poll and epoll; told with its counts, in SQL and the pcapng export; every
// process re-runs as recorded, its eventfds answered from the recording.
// An eventfd closed and another made with the same kernel id ("reuse")
// are two: the second's read is not matched to the first one's count.
TEST(Record, EventFdsAreChannels) {
  struct Case {
    const char* mode;
    const char* totals;
    int messages;
    std::vector<std::string> told;
    const char* finding;  // "" for none
  };
  for (const Case& c :
       {Case{"pair",
             "bytes sent 32, received 32: 32 matched to their sends, 0 from outside the recording, 0 with no recorded "
             "sender",
             5,
             {"creates eventfd 1", "adds 3 to eventfd 1, taken by eventfds[", "waits for channels: 1 ready",
              "takes 7 from eventfd 1, added by eventfds[", "adds 2 to eventfd 2, taken by eventfds[",
              "changes what it waits for", "takes 1 from eventfd 2, added by eventfds[",
              "takes 5 from eventfd 1, added by eventfds["},
             ""},
        Case{"reuse",
             "bytes sent 16, received 8: 8 matched to their sends, 0 from outside the recording, 0 with no recorded "
             "sender",
             2,
             {"creates eventfd 1", "adds 1 to eventfd 1, which nobody takes", "creates eventfd 2",
              "adds 9 to eventfd 2, taken by eventfds[", "takes 9 from eventfd 2, added by eventfds["},
             "never-received: 1 message (8 bytes) sent by eventfds["}}) {
    SCOPED_TRACE(c.mode);
    Recording rec = record({programPath("eventfds"), c.mode});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(rec.err.find("not seen"), std::string::npos) << rec.err;
    const Result check = radar({"check", rec.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find(c.totals), std::string::npos) << check.out;
    if (*c.finding)
      EXPECT_NE(check.out.find(c.finding), std::string::npos) << check.out;
    else
      EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
    const Result events = radar({"events", rec.dir});
    for (const std::string& told : c.told) EXPECT_NE(events.out.find(told), std::string::npos) << told << events.out;
    expectMessagesOn(rec, "'eventfd'", c.messages);
    const std::string pcapng = rec.dir + "/eventfds.pcapng";
    const Result exported = radar({"export", "--pcapng", pcapng, rec.dir});
    EXPECT_EQ(exported.exit_code, 0) << exported.err;
    expectEveryProcessReRunsAsRecorded(rec);
  }
}

// Two images of one pid that run the same program (a shell that execs a
// shell, node re-executing itself) are told apart wherever a process is
// named, "sh[PID.0]" and "sh[PID.1]"; radar debug takes either name, and
// says how when given one that names both.
TEST(Record, TwoImagesOfOnePidWithOneNameAreToldApart) {
  Recording rec = record({"sh", "-c", "exec sh -c 'echo hi | cat'"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const int pid = static_cast<int>(rec.meta.root_pid());
  const std::string first = "sh[" + std::to_string(pid) + ".0]", second = "sh[" + std::to_string(pid) + ".1]";
  const Result stats = radar({"stats", rec.dir});
  EXPECT_NE(stats.out.find(first), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find(second), std::string::npos) << stats.out;
  const Result events = radar({"events", rec.dir});
  EXPECT_NE(events.out.find("Process " + first + " executes "), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("Process " + second + " creates pipe"), std::string::npos) << events.out;
  const Result both = radar({"debug", "--yes", rec.dir, "sh[" + std::to_string(pid) + "]", "--no-gdb"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("name one of them as PID.GENERATION or as shown: " + std::to_string(pid) + ".0 (" + first +
                          ") " + std::to_string(pid) + ".1 (" + second + ")"),
            std::string::npos)
      << both.err;
  const Result one = radar({"debug", "--yes", rec.dir, second, "--no-gdb"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.err.find("re-running " + second), std::string::npos) << one.err;
}

// A process that writes a title over its arguments, as PostgreSQL's
// children do ("postgres: checkpointer") and perl's $0 does, is named by
// it, as ps shows it, and can be picked by it.
TEST(Record, AProcessIsNamedByTheTitleItGaveItself) {
  Recording rec = record({"sh", "-c", "perl -e '$0 = q(worker: idle); print qq(x\\n)' | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog* perl = nullptr;
  for (const ProcessLog& log : rec.logs)
    if (log.exe().starts_with("perl")) perl = &log;
  ASSERT_NE(perl, nullptr);
  const std::string label = "worker: idle[" + std::to_string(perl->header.pid()) + "]";
  const Result stats = radar({"stats", rec.dir});
  EXPECT_NE(stats.out.find(label), std::string::npos) << stats.out;
  const Result events = radar({"events", "--process", label, rec.dir});
  EXPECT_EQ(events.exit_code, 0) << events.err;
  EXPECT_NE(events.out.find("Process " + label + " sends a message to cat["), std::string::npos) << events.out;
}

// A process that changes its title as it goes is named by what its titles
// share: nginx's worker is "nginx: worker process", then "nginx: worker
// process is shutting down" at its end; PostgreSQL's backend is named by
// user, database and client, then "idle", "SELECT" after them.
TEST(Record, AProcessIsNamedByWhatItsTitlesShare) {
  Recording rec = record({"sh", "-c",
                          "perl -e '$| = 1; $0 = q(worker process); print qq(x\\n); "
                          "$0 = q(worker process is shutting down); print qq(y\\n)' | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "x\ny\n");
  const ProcessLog* perl = nullptr;
  for (const ProcessLog& log : rec.logs)
    if (log.exe().starts_with("perl")) perl = &log;
  ASSERT_NE(perl, nullptr);
  const std::string pid = std::to_string(perl->header.pid());
  const Result stats = radar({"stats", rec.dir});
  EXPECT_NE(stats.out.find("worker process[" + pid + "]"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find("shutting down"), std::string::npos) << stats.out;
}

// A process that signals itself (its own process group, as apache2 does at
// its stop; 0; its pid) runs the handler before kill() returns: the story
// still tells each kill before the signal it delivered.
TEST(Record, ASignalToItselfIsToldAfterTheKillThatSentIt) {
  Recording rec = record({"setsid", "perl", "-e",
                          "$SIG{TERM} = sub { print qq(got it\\n) }; kill 'TERM', -getpgrp(); kill 'TERM', 0; "
                          "kill 'TERM', $$; print qq(done\\n)"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "got it\ngot it\ngot it\ndone\n");
  const Result events = radar({"events", rec.dir});
  std::istringstream lines(events.out);
  std::vector<std::string> told;
  for (std::string line; std::getline(lines, line);)
    if (line.find("signal 15") != std::string::npos) told.push_back(line.substr(line.find("] ") + 2, 13));
  EXPECT_EQ(told, (std::vector<std::string>{"sends signal ", "receives sign", "sends signal ", "receives sign",
                                            "sends signal ", "receives sign"}))
      << events.out;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

// libuv (Node) closes, reads and writes through syscall(): those are
// recorded as the calls they are, and re-run so.
TEST(Record, RawCloseReadAndWriteAreRecordedAsTheirCalls) {
  Recording rec = record({programPath("unseen"), "rawrw"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "child read 6: hello\n");
  EXPECT_EQ(rec.err.find("not seen"), std::string::npos) << rec.err;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("bytes sent 6, received 6: 6 matched to their sends"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("not seen"), std::string::npos) << check.out;
  const Result events = radar({"events", rec.dir});
  EXPECT_NE(events.out.find("] sends a message to unseen["), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("] receives a message from unseen["), std::string::npos) << events.out;
  for (const ProcessLog& log : rec.logs) {
    const Result rerun = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " " +
                               std::to_string(log.header.pid()) + " --no-gdb");
    EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
    EXPECT_NE(rerun.err.find("as recorded"), std::string::npos) << rerun.err;
  }
  // A socket made and closed by raw calls stays unseen, and takes the same
  // number in the re-run (no channel of it stands there from the start).
  // (Descriptors 3 to 9 closed, so that the socket takes the lowest.)
  const std::string closed = "exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; ";
  const std::string dir = testTempDir() + "/rawsocket";
  const Result raw = shell(closed + shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                           shellQuote(programPath("unseen")) + " rawsocket");
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(raw.out, "socket 3\n");
  EXPECT_NE(raw.err.find("makes a raw system call (socket)"), std::string::npos) << raw.err;
  const Result rerun = shell(closed + "timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " " +
                             std::to_string(load(dir).meta.root_pid()) + " --no-gdb");
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(rerun.out, "socket 3\n");
  EXPECT_NE(rerun.err.find("as recorded"), std::string::npos) << rerun.err;
}

}  // namespace
}  // namespace radar::testing

// Event kinds, mirrored from proto/radarlog.proto so that code inside
// recorded programs needs no libprotobuf; a test checks that both agree.
#pragma once

#include <cstdint>

namespace radar::log {

enum class Kind : uint16_t {
  Unspecified = 0,
  Header = 1,
  Channel = 2,
  Note = 3,
  Output = 4,
  Write = 10,
  Writev = 11,
  Send = 12,
  Sendto = 13,
  Sendmsg = 14,
  Sendmmsg = 15,
  Sendfile = 16,
  Splice = 17,
  MqSend = 18,
  Msgsnd = 19,
  Read = 20,
  Readv = 21,
  Recv = 22,
  Recvfrom = 23,
  Recvmsg = 24,
  Recvmmsg = 25,
  MqReceive = 26,
  Msgrcv = 27,
  Pipe = 30,
  Socketpair = 31,
  Socket = 32,
  Bind = 33,
  Listen = 34,
  Connect = 35,
  Accept = 36,
  Shutdown = 37,
  Close = 38,
  Dup = 39,
  Open = 40,
  EpollCtl = 41,
  MqNotify = 42,
  MqUnlink = 43,
  Msgget = 44,
  Msgctl = 45,
  Poll = 50,
  Select = 51,
  EpollWait = 52,
  Fork = 60,
  Vfork = 61,
  Spawn = 62,
  System = 63,
  Popen = 64,
  Exec = 65,
  ExecFailed = 66,
  Exit = 67,
  Wait = 68,
  Signal = 69,
  Kill = 70,
  ThreadStart = 71,
  SignalWait = 72,
  User = 80,
  Clock = 90,
  Random = 91,
  Getpid = 92,
  Interface = 93,
  MqAttributes = 94,
  MpiSend = 100,
  MpiRecv = 101,
  MpiIrecv = 102,
  MpiCollective = 103,
  MpiProbe = 104,
  MpiInit = 105,
  MpiComm = 106,
  MpiFinalize = 107,
  MutexLock = 110,
  MutexUnlock = 111,
  SemWait = 112,
  SemPost = 113,
  CondWait = 114,
  CondSignal = 115,
  BarrierWait = 116,
};

enum class Category : uint8_t {
  Annotation,  // not counted: header, channel definitions, notes, outputs
  Send,
  Receive,
  Channel,  // creation, naming and closing of channels
  Readiness,
  Process,
  User,
  Nondeterminism,
  Mpi,      // MPI calls other than its sends and receives
  Sync,     // locks, semaphores, condition variables, barriers (--sync)
  Unknown,  // a kind from a newer minor version
};

constexpr Category categoryOf(Kind k) {
  auto v = static_cast<unsigned>(k);
  if (v >= 1 && v <= 4) return Category::Annotation;
  if ((v >= 10 && v <= 19) || v == 100) return Category::Send;
  if ((v >= 20 && v <= 27) || v == 101) return Category::Receive;
  if (v >= 30 && v <= 45) return Category::Channel;
  if (v >= 50 && v <= 52) return Category::Readiness;
  if (v >= 60 && v <= 72) return Category::Process;
  if (v == 80) return Category::User;
  if (v >= 90 && v <= 94) return Category::Nondeterminism;
  if (v >= 102 && v <= 107) return Category::Mpi;
  if (v >= 110 && v <= 116) return Category::Sync;
  return Category::Unknown;
}

constexpr bool isCounted(Kind k) { return categoryOf(k) != Category::Annotation; }
constexpr bool isData(Kind k) { return categoryOf(k) == Category::Send || categoryOf(k) == Category::Receive; }
constexpr bool isMpiKind(Kind k) { return static_cast<unsigned>(k) >= 100 && static_cast<unsigned>(k) <= 107; }
constexpr bool isSyncKind(Kind k) { return categoryOf(k) == Category::Sync; }
// A synchronization that lets others go on (an unlock, a post, a signal),
// as against one that waits for them.
constexpr bool isSyncRelease(Kind k) { return k == Kind::MutexUnlock || k == Kind::SemPost || k == Kind::CondSignal; }
// A synchronization event's flags (proto/radarlog.proto, MUTEX_LOCK).
inline constexpr uint32_t kSyncTry = 1, kSyncTimed = 2, kSyncRead = 4, kSyncSpin = 8, kSyncRwlock = 16,
                          kSyncBroadcast = 32, kSyncSerial = 64;
constexpr bool isMultiMessage(Kind k) { return k == Kind::Sendmmsg || k == Kind::Recvmmsg; }

// The libc function name a kind stands for (the first of its family).
const char* kindName(Kind k);
// What a category of kinds is called where people read or filter by it:
// "send", "receive", "channel", "readiness", "process", "user",
// "nondeterminism", "mpi", "sync", else "other".
const char* categoryName(Category c);

// Channel types and origins, mirrored from the proto like Kind.
enum class ChannelType : uint8_t {
  Unspecified = 0,
  Pipe = 1,
  Fifo = 2,
  UnixStream = 3,
  UnixDgram = 4,
  UnixSeqpacket = 5,
  Tcp = 6,
  Udp = 7,
  Terminal = 8,
  OtherSocket = 9,
  CharacterDevice = 10,
  Other = 11,
  MessageQueue = 12,
  SysvMessageQueue = 13,
  EventFd = 14,
  MpiCommunicator = 15,
};
enum class ChannelOrigin : uint8_t {
  Unspecified = 0,
  Created = 1,
  Inherited = 2,
  Accepted = 3,
  Opened = 4,
  Received = 5,
};
enum class Origin : uint8_t {
  Unspecified = 0,
  Root = 1,
  Forked = 2,
  Vforked = 3,
  Spawned = 4,
  Execed = 5,
  ShellSpawned = 6,
  Unhooked = 7,
  Attached = 8,  // running before radar attach woke its dormant recorder
};

const char* channelTypeName(ChannelType t);

// What carries a channel's messages, for every stage that asks.
inline bool isUnixSocket(ChannelType t) {
  return t == ChannelType::UnixStream || t == ChannelType::UnixSeqpacket || t == ChannelType::UnixDgram;
}
inline bool isSocket(ChannelType t) {
  return isUnixSocket(t) || t == ChannelType::Tcp || t == ChannelType::Udp || t == ChannelType::OtherSocket;
}
// Bytes in order: what is received is what was sent, cut anywhere.
inline bool isStreamType(ChannelType t) {
  return t == ChannelType::Pipe || t == ChannelType::Fifo || t == ChannelType::UnixStream ||
         t == ChannelType::UnixSeqpacket || t == ChannelType::Tcp || t == ChannelType::Terminal ||
         t == ChannelType::CharacterDevice || t == ChannelType::Other;
}
// A message queue, POSIX or System V: one queue whoever holds it.
inline bool isQueueType(ChannelType t) { return t == ChannelType::MessageQueue || t == ChannelType::SysvMessageQueue; }
// Whole messages, each received once.
inline bool isDatagramType(ChannelType t) {
  return t == ChannelType::Udp || t == ChannelType::UnixDgram || t == ChannelType::OtherSocket || isQueueType(t);
}
// MPI's messages, matched by MPI's rules (communicator, source, tag), not by bytes.
inline bool isMpiType(ChannelType t) { return t == ChannelType::MpiCommunicator; }
// A count added to and taken from (an eventfd), not bytes.
inline bool isCounterType(ChannelType t) { return t == ChannelType::EventFd; }
// Pipes and FIFOs carry one stream from all writers to all readers.
inline bool isOneSided(ChannelType t) { return t == ChannelType::Pipe || t == ChannelType::Fifo; }
// A terminal or a device talks to the outside both ways: what a process
// writes there is not what it (or another) reads.
inline bool isDevice(ChannelType t) {
  return t == ChannelType::Terminal || t == ChannelType::CharacterDevice || t == ChannelType::Other;
}
// The string of the OPEN event an eventfd() call is recorded as.
inline constexpr char kEventFdOpened[] = "eventfd";
// A NOTE [title, kTitleNote]: from here the process calls itself `title`,
// written over its arguments (format 1.12).
inline constexpr char kTitleNote[] = "title";

}  // namespace radar::log

#include "log/kinds.h"

namespace radar::log {

namespace {

// The libc function name of each kind, in the proto's order.
constexpr struct {
  Kind kind;
  const char* name;
} kKindNames[] = {
    {Kind::Unspecified, "unspecified"},
    {Kind::Header, "header"},
    {Kind::Channel, "channel"},
    {Kind::Note, "note"},
    {Kind::Output, "output"},
    {Kind::Write, "write"},
    {Kind::Writev, "writev"},
    {Kind::Send, "send"},
    {Kind::Sendto, "sendto"},
    {Kind::Sendmsg, "sendmsg"},
    {Kind::Sendmmsg, "sendmmsg"},
    {Kind::Sendfile, "sendfile"},
    {Kind::Splice, "splice"},
    {Kind::MqSend, "mq_send"},
    {Kind::Msgsnd, "msgsnd"},
    {Kind::Read, "read"},
    {Kind::Readv, "readv"},
    {Kind::Recv, "recv"},
    {Kind::Recvfrom, "recvfrom"},
    {Kind::Recvmsg, "recvmsg"},
    {Kind::Recvmmsg, "recvmmsg"},
    {Kind::MqReceive, "mq_receive"},
    {Kind::Msgrcv, "msgrcv"},
    {Kind::Pipe, "pipe"},
    {Kind::Socketpair, "socketpair"},
    {Kind::Socket, "socket"},
    {Kind::Bind, "bind"},
    {Kind::Listen, "listen"},
    {Kind::Connect, "connect"},
    {Kind::Accept, "accept"},
    {Kind::Shutdown, "shutdown"},
    {Kind::Close, "close"},
    {Kind::Dup, "dup"},
    {Kind::Open, "open"},
    {Kind::EpollCtl, "epoll_ctl"},
    {Kind::MqNotify, "mq_notify"},
    {Kind::MqUnlink, "mq_unlink"},
    {Kind::Msgget, "msgget"},
    {Kind::Msgctl, "msgctl"},
    {Kind::Poll, "poll"},
    {Kind::Select, "select"},
    {Kind::EpollWait, "epoll_wait"},
    {Kind::Fork, "fork"},
    {Kind::Vfork, "vfork"},
    {Kind::Spawn, "posix_spawn"},
    {Kind::System, "system"},
    {Kind::Popen, "popen"},
    {Kind::Exec, "exec"},
    {Kind::ExecFailed, "exec failed"},
    {Kind::Exit, "exit"},
    {Kind::Wait, "wait"},
    {Kind::Signal, "signal"},
    {Kind::Kill, "kill"},
    {Kind::ThreadStart, "thread start"},
    {Kind::SignalWait, "sigwaitinfo"},
    {Kind::User, "user event"},
    {Kind::Clock, "clock"},
    {Kind::Random, "random"},
    {Kind::Getpid, "getpid"},
    {Kind::Interface, "ioctl"},
    {Kind::MqAttributes, "mq_getattr"},
    {Kind::MpiSend, "MPI_Send"},
    {Kind::MpiRecv, "MPI_Recv"},
    {Kind::MpiIrecv, "MPI_Irecv"},
    {Kind::MpiCollective, "MPI collective"},
    {Kind::MpiProbe, "MPI_Probe"},
    {Kind::MpiInit, "MPI_Init"},
    {Kind::MpiComm, "MPI_Comm_split"},
    {Kind::MpiFinalize, "MPI_Finalize"},
    {Kind::MutexLock, "pthread_mutex_lock"},
    {Kind::MutexUnlock, "pthread_mutex_unlock"},
    {Kind::SemWait, "sem_wait"},
    {Kind::SemPost, "sem_post"},
    {Kind::CondWait, "pthread_cond_wait"},
    {Kind::CondSignal, "pthread_cond_signal"},
    {Kind::BarrierWait, "pthread_barrier_wait"},
};

}  // namespace

const char* kindName(Kind k) {
  for (const auto& entry : kKindNames)
    if (entry.kind == k) return entry.name;
  return "unknown";
}

const char* channelTypeName(ChannelType t) {
  switch (t) {
    case ChannelType::Unspecified:
      return "channel";
    case ChannelType::Pipe:
      return "pipe";
    case ChannelType::Fifo:
      return "fifo";
    case ChannelType::UnixStream:
      return "unix stream socket";
    case ChannelType::UnixDgram:
      return "unix datagram socket";
    case ChannelType::UnixSeqpacket:
      return "unix seqpacket socket";
    case ChannelType::Tcp:
      return "tcp";
    case ChannelType::Udp:
      return "udp";
    case ChannelType::Terminal:
      return "terminal";
    case ChannelType::OtherSocket:
      return "socket";
    case ChannelType::CharacterDevice:
      return "device";
    case ChannelType::Other:
      return "file";
    case ChannelType::MessageQueue:
      return "message queue";
    case ChannelType::SysvMessageQueue:
      return "System V queue";
    case ChannelType::EventFd:
      return "eventfd";
    case ChannelType::MpiCommunicator:
      return "MPI communicator";
  }
  return "channel";
}

const char* categoryName(Category c) {
  switch (c) {
    case Category::Send:
      return "send";
    case Category::Receive:
      return "receive";
    case Category::Channel:
      return "channel";
    case Category::Readiness:
      return "readiness";
    case Category::Process:
      return "process";
    case Category::User:
      return "user";
    case Category::Nondeterminism:
      return "nondeterminism";
    case Category::Mpi:
      return "mpi";
    case Category::Sync:
      return "sync";
    default:
      return "other";
  }
}

}  // namespace radar::log

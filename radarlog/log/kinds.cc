#include "log/kinds.h"

namespace radar::log {

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Unspecified:
      return "unspecified";
    case Kind::Header:
      return "header";
    case Kind::Channel:
      return "channel";
    case Kind::Note:
      return "note";
    case Kind::Output:
      return "output";
    case Kind::Write:
      return "write";
    case Kind::Writev:
      return "writev";
    case Kind::Send:
      return "send";
    case Kind::Sendto:
      return "sendto";
    case Kind::Sendmsg:
      return "sendmsg";
    case Kind::Sendmmsg:
      return "sendmmsg";
    case Kind::Sendfile:
      return "sendfile";
    case Kind::Splice:
      return "splice";
    case Kind::Read:
      return "read";
    case Kind::Readv:
      return "readv";
    case Kind::Recv:
      return "recv";
    case Kind::Recvfrom:
      return "recvfrom";
    case Kind::Recvmsg:
      return "recvmsg";
    case Kind::Recvmmsg:
      return "recvmmsg";
    case Kind::Pipe:
      return "pipe";
    case Kind::Socketpair:
      return "socketpair";
    case Kind::Socket:
      return "socket";
    case Kind::Bind:
      return "bind";
    case Kind::Listen:
      return "listen";
    case Kind::Connect:
      return "connect";
    case Kind::Accept:
      return "accept";
    case Kind::Shutdown:
      return "shutdown";
    case Kind::Close:
      return "close";
    case Kind::Dup:
      return "dup";
    case Kind::Open:
      return "open";
    case Kind::EpollCtl:
      return "epoll_ctl";
    case Kind::Poll:
      return "poll";
    case Kind::Select:
      return "select";
    case Kind::EpollWait:
      return "epoll_wait";
    case Kind::Fork:
      return "fork";
    case Kind::Vfork:
      return "vfork";
    case Kind::Spawn:
      return "posix_spawn";
    case Kind::System:
      return "system";
    case Kind::Popen:
      return "popen";
    case Kind::Exec:
      return "exec";
    case Kind::ExecFailed:
      return "exec failed";
    case Kind::Exit:
      return "exit";
    case Kind::Wait:
      return "wait";
    case Kind::Signal:
      return "signal";
    case Kind::Kill:
      return "kill";
    case Kind::ThreadStart:
      return "thread start";
    case Kind::SignalWait:
      return "sigwaitinfo";
    case Kind::User:
      return "user event";
    case Kind::Clock:
      return "clock";
    case Kind::Random:
      return "random";
    case Kind::Getpid:
      return "getpid";
    case Kind::Interface:
      return "ioctl";
  }
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
    default:
      return "other";
  }
}

}  // namespace radar::log

// Message queues, as the interposer's hooks record them (preload/
// message_queue_hooks.cc), from the system calls the C library makes:
// POSIX queues (mq_*: an open, failed or not, with the queue's name, each
// message sent or taken with its bytes and priority, notifications asked
// for, unlinks, the attributes the kernel returned) and System V ones
// (msgget, msgsnd, msgrcv, msgctl: a channel per queue id).
#include <errno.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/msg.h>
#include <sys/syscall.h>

#include "fallback/events.h"

namespace radar::fallback {
namespace {

using log::Kind;

// The queue's name as the program gave it: the C library passes the
// kernel the name without its leading '/' (a program making the call
// itself may not).
std::string queueName(pid_t tid, uint64_t at) {
  const std::string name = readString(tid, at);
  return name.empty() || name[0] != '/' ? "/" + name : name;
}

void queueOpen(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Open, -1, call);
  if (call.result >= 0) e.channel = image.remade(static_cast<int>(call.result), log::ChannelOrigin::Opened);
  const std::string name = queueName(tid, call.entry.args[0]);
  const char* strings[] = {name.c_str()};
  e.strings = strings;
  e.string_count = 1;
  image.append(tid, e);
}

// A message sent or taken: a send records the bytes sent as its result,
// as other sends do (the call returns 0); the status is the priority.
void queueMessage(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const bool sending = call.entry.nr == SYS_mq_timedsend;
  Transfer t{sending ? Kind::MqSend : Kind::MqReceive, static_cast<int>(a[0])};
  t.iov = {{reinterpret_cast<void*>(a[1]), a[2]}};
  t.size = a[2];
  CallSeen seen = call;
  if (sending) {
    if (call.result == 0) seen.result = static_cast<int64_t>(a[2]);
    t.moved = call.result == 0 ? a[2] : 0;
    t.status = static_cast<int32_t>(a[3]);  // the priority asked, sent or not
  } else {
    t.moved = call.result > 0 ? static_cast<uint64_t>(call.result) : 0;
    uint32_t priority = 0;
    if (call.result >= 0 && a[3]) readMemory(tid, a[3], &priority, sizeof priority);
    t.status = static_cast<int32_t>(priority);
  }
  recordTransfer(image, tid, seen, t);
}

void queueNotify(TracedImage& image, pid_t tid, const CallSeen& call) {
  const int fd = static_cast<int>(call.entry.args[0]);
  const TracedImage::Fd& d = image.descriptor(fd);
  if (d.cls != FdClass::Channel) return;
  log::EventFields e = eventOf(Kind::MqNotify, fd, call);
  e.channel = d.channel;
  struct sigevent how {};
  if (call.entry.args[1] && readMemory(tid, call.entry.args[1], &how, sizeof how) == sizeof how) {
    e.flags = static_cast<uint32_t>(how.sigev_notify) + 1;
    e.signal = how.sigev_notify == SIGEV_SIGNAL ? how.sigev_signo : 0;
  }
  image.append(tid, e);
}

// mq_getattr (the kernel's mq_getsetattr with no new attributes: flags 0)
// or mq_setattr (1): the attributes returned.
void queueAttributes(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const int fd = static_cast<int>(a[0]);
  const TracedImage::Fd& d = image.descriptor(fd);
  if (d.cls != FdClass::Channel) return;
  log::EventFields e = eventOf(Kind::MqAttributes, fd, call);
  e.channel = d.channel;
  e.flags = a[1] ? 1 : 0;
  struct mq_attr returned {};
  const log::Iov payload{&returned, sizeof returned};
  if (call.result == 0 && a[2] && readMemory(tid, a[2], &returned, sizeof returned) == sizeof returned) {
    e.payload = &payload;
    e.payload_iov_count = 1;
    e.payload_len = sizeof returned;
  }
  image.append(tid, e);
}

void queueUnlink(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::MqUnlink, -1, call);
  if (call.result == -EPERM) e.error = EACCES;  // as the C library tells the program
  const std::string name = queueName(tid, call.entry.args[0]);
  const char* strings[] = {name.c_str()};
  e.strings = strings;
  e.string_count = 1;
  image.append(tid, e);
}

// ---- System V queues: a channel per queue id, no descriptor.

void sysvGet(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Msgget, -1, call);
  e.channel = call.result >= 0 ? image.sysvQueue(static_cast<int>(call.result)) : 0;
  e.status = static_cast<int32_t>(call.entry.args[0]);
  e.flags = static_cast<uint32_t>(call.entry.args[1]);
  image.append(tid, e);
}

// msgsnd, msgrcv: the message's type leads the program's buffer (struct
// msgbuf), its text follows; the text is the message's bytes.
void sysvMessage(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const bool sending = call.entry.nr == SYS_msgsnd;
  Transfer t{sending ? Kind::Msgsnd : Kind::Msgrcv, -1};
  t.channel = image.sysvQueue(static_cast<int>(a[0]));
  t.iov = {{reinterpret_cast<void*>(a[1] + sizeof(long)), a[2]}};
  t.size = a[2];
  t.flags = static_cast<int>(sending ? a[3] : a[4]);
  CallSeen seen = call;
  if (sending && call.result == 0) seen.result = static_cast<int64_t>(a[2]);  // the bytes of text sent
  t.moved = seen.result > 0 ? static_cast<uint64_t>(seen.result) : 0;
  if (!t.channel) {  // no queue (a negative id): the call failed, said as the interposer says it
    log::EventFields e = eventOf(t.kind, -1, seen);
    e.size = t.size;
    e.flags = static_cast<uint32_t>(t.flags);
    image.append(tid, e);
    return;
  }
  long type = 0;
  if (call.result >= 0) readMemory(tid, a[1], &type, sizeof type);
  t.status = static_cast<int32_t>(type);
  recordTransfer(image, tid, seen, t);
}

void sysvControl(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const int cmd = static_cast<int>(a[1]);
  const bool info = cmd == IPC_INFO || cmd == MSG_INFO;
  log::EventFields e = eventOf(Kind::Msgctl, -1, call);
  const bool no_queue = call.result < 0 || info || cmd == MSG_STAT || cmd == MSG_STAT_ANY;
  e.channel = no_queue ? 0 : image.sysvQueue(static_cast<int>(a[0]));
  e.flags = static_cast<uint32_t>(cmd);
  const bool fills = cmd == IPC_STAT || cmd == MSG_STAT || cmd == MSG_STAT_ANY || info;
  const size_t size = info ? sizeof(struct msginfo) : sizeof(struct msqid_ds);
  const std::string filled = call.result >= 0 && fills && a[2] ? readBytes(tid, a[2], size) : std::string();
  const log::Iov payload{filled.data(), filled.size()};
  if (!filled.empty()) {
    e.payload = &payload;
    e.payload_iov_count = 1;
    e.payload_len = filled.size();
  }
  image.append(tid, e);
}

}  // namespace

bool recordQueueCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  switch (call.entry.nr) {
    case SYS_mq_open:
      queueOpen(image, tid, call);
      return true;
    case SYS_mq_timedsend:
    case SYS_mq_timedreceive:
      queueMessage(image, tid, call);
      return true;
    case SYS_mq_notify:
      queueNotify(image, tid, call);
      return true;
    case SYS_mq_getsetattr:
      queueAttributes(image, tid, call);
      return true;
    case SYS_mq_unlink:
      queueUnlink(image, tid, call);
      return true;
    case SYS_msgget:
      sysvGet(image, tid, call);
      return true;
    case SYS_msgsnd:
    case SYS_msgrcv:
      sysvMessage(image, tid, call);
      return true;
    case SYS_msgctl:
      sysvControl(image, tid, call);
      return true;
    default:
      return false;
  }
}

}  // namespace radar::fallback

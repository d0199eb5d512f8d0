// POSIX message queues, as the interposer's hooks record mq_* (preload/
// message_queue_hooks.cc) from the system calls the C library makes for
// them: an open (failed or not) with the queue's name, each message sent
// or taken with its bytes and priority, notifications asked for, unlinks,
// and the attributes the kernel returned.
#include <mqueue.h>
#include <signal.h>
#include <sys/syscall.h>

#include "fallback/events.h"

namespace radar::fallback {
namespace {

using log::Kind;

// The queue's name as the program gave it: the C library passes the
// kernel the name without its leading '/'.
std::string queueName(pid_t tid, uint64_t at) { return "/" + readString(tid, at); }

void queueOpen(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Open, -1, call);
  if (call.result >= 0) {
    const int fd = static_cast<int>(call.result);
    image.forget(fd);
    const TracedImage::Fd& d = image.created(fd, log::ChannelOrigin::Opened);
    if (d.cls == FdClass::Channel) e.channel = d.channel;
  }
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
    t.status = call.result == 0 ? static_cast<int32_t>(a[3]) : 0;
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
  const std::string name = queueName(tid, call.entry.args[0]);
  const char* strings[] = {name.c_str()};
  e.strings = strings;
  e.string_count = 1;
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
    default:
      return false;
  }
}

}  // namespace radar::fallback

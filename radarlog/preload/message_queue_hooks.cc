// Message queues, recorded as channels (rules: see hooks.cc). A POSIX
// queue's descriptor (mq_overview(7)) is a channel of its own type, named
// as it was opened and matched across processes by its inode; a System V
// queue (sysvipc(7)) is a channel per queue id. Each message is a send or a
// receive with its bytes and its priority or type. Everything a re-run
// cannot ask a queue it does not open (its attributes, every open's
// outcome) is recorded too.
#include <mqueue.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/msg.h>

#include "inject/hook.h"
#include "preload/recorder.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

using radar::log::Iov;
using radar::log::Kind;
using namespace radar::preload;

namespace {

// An open, failed or not: the re-run answers every one from the recording.
mqd_t queueOpened(const char* name, Call& call, mqd_t q) {
  call.finish(q);
  if (q >= 0) onCreated(q, radar::log::ChannelOrigin::Opened);
  call.extra.channel = q >= 0 ? channelOf(q) : 0;
  const char* strings[] = {name ? name : ""};
  call.extra.strings = strings;
  call.extra.string_count = 1;
  call.record();
  return q;
}

template <class Real>
int queueSend(mqd_t q, const char* msg, size_t len, unsigned prio, Real&& real) {
  if (!active() || !isChannel(q)) return real();
  Call call(Kind::MqSend, q);
  const int r = real();
  call.finish(r == 0 ? static_cast<long>(len) : r);  // the bytes sent, as other sends record
  call.extra.status = static_cast<int32_t>(prio);
  const Iov iov{msg, len};
  call.send(&iov, 1, len, r == 0 ? len : 0);
  return r;
}

template <class Real>
ssize_t queueReceive(mqd_t q, char* msg, size_t len, const unsigned* prio, Real&& real) {
  if (!active() || !isChannel(q)) return real();
  Call call(Kind::MqReceive, q);
  const ssize_t r = real();
  call.finish(r);
  call.extra.status = r >= 0 && prio ? static_cast<int32_t>(*prio) : 0;
  const Iov iov{msg, len};
  call.receive(&iov, 1, len, r > 0 ? static_cast<uint64_t>(r) : 0);
  return r;
}

// mq_getattr (flags 0) or mq_setattr (1): the attributes returned.
int recordAttributes(Call& call, mqd_t q, int r, const struct mq_attr* out, uint32_t flags) {
  call.finish(r);
  call.extra.channel = channelOf(q);
  call.extra.flags = flags;
  const Iov iov{out, sizeof *out};
  if (r == 0 && out) {
    call.extra.payload = &iov;
    call.extra.payload_iov_count = 1;
    call.extra.payload_len = sizeof *out;
  }
  call.record();
  return r;
}

}  // namespace

HOOK mqd_t mq_open(const char* name, int flags, ...) {
  REAL(mq_open);
  mode_t mode = 0;
  struct mq_attr* attr = nullptr;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    attr = va_arg(ap, struct mq_attr*);
    va_end(ap);
  }
  if (!active()) return real_mq_open(name, flags, mode, attr);
  Call call(Kind::Open, -1);
  return queueOpened(name, call, real_mq_open(name, flags, mode, attr));
}

HOOK mqd_t __mq_open_2(const char* name, int flags) {
  REAL(__mq_open_2);
  if (!active()) return real___mq_open_2(name, flags);
  Call call(Kind::Open, -1);
  return queueOpened(name, call, real___mq_open_2(name, flags));
}

// A queue's descriptor is closed as any other (glibc makes the close call).
HOOK int mq_close(mqd_t q) { return close(q); }

HOOK int mq_send(mqd_t q, const char* msg, size_t len, unsigned prio) {
  REAL(mq_send);
  return queueSend(q, msg, len, prio, [&] { return real_mq_send(q, msg, len, prio); });
}

HOOK int mq_timedsend(mqd_t q, const char* msg, size_t len, unsigned prio, const struct timespec* timeout) {
  REAL(mq_timedsend);
  return queueSend(q, msg, len, prio, [&] { return real_mq_timedsend(q, msg, len, prio, timeout); });
}

HOOK ssize_t mq_receive(mqd_t q, char* msg, size_t len, unsigned* prio) {
  REAL(mq_receive);
  return queueReceive(q, msg, len, prio, [&] { return real_mq_receive(q, msg, len, prio); });
}

HOOK ssize_t mq_timedreceive(mqd_t q, char* msg, size_t len, unsigned* prio, const struct timespec* timeout) {
  REAL(mq_timedreceive);
  return queueReceive(q, msg, len, prio, [&] { return real_mq_timedreceive(q, msg, len, prio, timeout); });
}

HOOK int mq_getattr(mqd_t q, struct mq_attr* attr) {
  REAL(mq_getattr);
  if (!active() || !isChannel(q)) return real_mq_getattr(q, attr);
  Call call(Kind::MqAttributes, q);
  return recordAttributes(call, q, real_mq_getattr(q, attr), attr, 0);
}

HOOK int mq_setattr(mqd_t q, const struct mq_attr* attr, struct mq_attr* old) {
  REAL(mq_setattr);
  if (!active() || !isChannel(q)) return real_mq_setattr(q, attr, old);
  Call call(Kind::MqAttributes, q);
  return recordAttributes(call, q, real_mq_setattr(q, attr, old), old, 1);
}

// A notification asked for: by a signal (SIGNAL records its arrival), a
// thread, or none; its removal (no sigevent) too.
HOOK int mq_notify(mqd_t q, const struct sigevent* how) {
  REAL(mq_notify);
  if (!active() || !isChannel(q)) return real_mq_notify(q, how);
  Call call(Kind::MqNotify, q);
  const int r = real_mq_notify(q, how);
  call.finish(r);
  call.extra.channel = channelOf(q);
  call.extra.flags = how ? static_cast<uint32_t>(how->sigev_notify) + 1 : 0;
  call.extra.signal = how && how->sigev_notify == SIGEV_SIGNAL ? how->sigev_signo : 0;
  call.record();
  return r;
}

HOOK int mq_unlink(const char* name) {
  REAL(mq_unlink);
  if (!active()) return real_mq_unlink(name);
  Call call(Kind::MqUnlink, -1);
  const int r = real_mq_unlink(name);
  call.finish(r);
  const char* strings[] = {name};
  call.extra.strings = strings;
  call.extra.string_count = 1;
  call.record();
  return r;
}

// ==== System V message queues ======================================================

namespace {

// The message's type leads the program's buffer (struct msgbuf), its text
// follows.
long messageType(const void* msg) {
  long type = 0;
  __builtin_memcpy(&type, msg, sizeof type);
  return type;
}

}  // namespace

HOOK int msgget(key_t key, int flags) {
  REAL(msgget);
  if (!active()) return real_msgget(key, flags);
  Call call(Kind::Msgget, -1);
  const int r = real_msgget(key, flags);
  call.finish(r);
  call.extra.channel = sysvQueueChannel(r);
  call.extra.status = static_cast<int32_t>(key);
  call.extra.flags = static_cast<uint32_t>(flags);
  call.record();
  return r;
}

HOOK int msgsnd(int id, const void* msg, size_t size, int flags) {
  REAL(msgsnd);
  if (!active()) return real_msgsnd(id, msg, size, flags);
  Call call(Kind::Msgsnd, -1);
  const int r = real_msgsnd(id, msg, size, flags);
  call.finish(r == 0 ? static_cast<long>(size) : r);                        // the bytes of text sent
  call.extra.channel = sysvQueueChannel(id);                                // 0: no queue (a bad id), or too many
  call.extra.status = r == 0 ? static_cast<int32_t>(messageType(msg)) : 0;  // (a bad pointer failed with EFAULT)
  const Iov text{static_cast<const char*>(msg) + sizeof(long), size};
  call.send(&text, 1, size, r == 0 ? size : 0, flags);
  return r;
}

HOOK ssize_t msgrcv(int id, void* msg, size_t size, long type, int flags) {
  REAL(msgrcv);
  if (!active()) return real_msgrcv(id, msg, size, type, flags);
  Call call(Kind::Msgrcv, -1);
  const ssize_t r = real_msgrcv(id, msg, size, type, flags);
  call.finish(r);
  call.extra.channel = sysvQueueChannel(id);
  call.extra.status = r >= 0 ? static_cast<int32_t>(messageType(msg)) : 0;
  call.keepReceived();  // anyone may use the queue by its id
  const Iov text{static_cast<char*>(msg) + sizeof(long), size};
  call.receive(&text, 1, size, r > 0 ? static_cast<uint64_t>(r) : 0, flags);
  return r;
}

HOOK int msgctl(int id, int cmd, struct msqid_ds* buf) {
  REAL(msgctl);
  if (!active()) return real_msgctl(id, cmd, buf);
  Call call(Kind::Msgctl, -1);
  const int r = real_msgctl(id, cmd, buf);
  call.finish(r);
  call.extra.channel =
      r < 0 || cmd == IPC_INFO || cmd == MSG_INFO || cmd == MSG_STAT || cmd == MSG_STAT_ANY ? 0 : sysvQueueChannel(id);
  call.extra.flags = static_cast<uint32_t>(cmd);
  const bool fills = cmd == IPC_STAT || cmd == MSG_STAT || cmd == MSG_STAT_ANY || cmd == IPC_INFO || cmd == MSG_INFO;
  const Iov filled{buf, cmd == IPC_INFO || cmd == MSG_INFO ? sizeof(struct msginfo) : sizeof *buf};
  if (r >= 0 && fills && buf) {
    call.extra.payload = &filled;
    call.extra.payload_iov_count = 1;
    call.extra.payload_len = filled.len;
  }
  call.record();
  return r;
}

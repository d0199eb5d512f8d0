// What the call decoders share: a call's event with its common fields, and
// a transfer of bytes between the program and a descriptor written as the
// interposer writes it (Call::send, Call::receive, Call::multi).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <string>
#include <vector>

#include "fallback/image.h"
#include "fallback/syscalls.h"

namespace radar::fallback {

// The fields every event of a call has: kind, descriptor, times, result.
log::EventFields eventOf(log::Kind kind, int fd, const CallSeen& call);

// Bytes moved between the program's buffers and a descriptor, as the
// interposer records them (only on channels; a write to a file is an
// OUTPUT). `messages`: the lengths of each message of a sendmmsg or a
// recvmmsg (empty for the others).
struct Transfer {
  log::Kind kind;
  int fd;
  std::vector<struct iovec> iov;  // the program's buffers
  uint64_t size = 0;              // what the call asked for
  uint64_t moved = 0;             // what it moved (bytes in the buffers)
  int flags = 0;
  std::string address;       // a sockaddr
  std::vector<int32_t> fds;  // passed with SCM_RIGHTS
  std::vector<uint64_t> messages;
  int32_t status = 0;    // recvmsg's msg_flags
  uint32_t channel = 0;  // a channel with no descriptor (a System V queue): this one, not fd's
};
void recordTransfer(TracedImage& image, pid_t tid, const CallSeen& call, const Transfer& t);

// The socket calls (socket_calls.cc): true when `call` was one.
bool recordSocketCall(TracedImage& image, pid_t tid, const CallSeen& call);
// The POSIX message queue calls (queue_calls.cc): true when `call` was one.
bool recordQueueCall(TracedImage& image, pid_t tid, const CallSeen& call);

}  // namespace radar::fallback

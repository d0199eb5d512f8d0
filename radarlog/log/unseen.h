// What radar does not record, said out loud: a recorded process that uses
// one of these mechanisms writes a NOTE (once per image and mechanism) whose
// strings are [text, "unseen", name, detail], at the point of its story
// where it began. The merge turns them into `unseen` findings; a channel
// whose bytes may have moved through such a mechanism (io_uring, raw system
// calls) is then no `no-sender` or `never-received` finding of its own.
#pragma once

#include <cstdint>
#include <cstring>

namespace radar::log {

enum class Unseen : uint8_t {
  IoUring,           // transfers submitted through an io_uring ring
  RawSystemCall,     // syscall() of a call radar records through its wrapper
  SharedMemory,      // MAP_SHARED writable or anonymous mappings, System V segments
  Semaphore,         // POSIX named semaphores (sem_open)
  MessageQueue,      // POSIX message queues (mq_open): in logs before 1.6, which did not record them
  SysvMessageQueue,  // msgsnd / msgrcv: the same
  SysvSemaphore,     // semop / semtimedop
  EventFd,           // an eventfd shared with another process
  SeccompFilter,     // a seccomp filter the process installs: its recording stops there
  Ptrace,            // another program traces it (the fallback recorder lets it go)
};
inline constexpr unsigned kUnseenCount = 10;
inline constexpr char kUnseenNote[] = "unseen";

// One entry of a table by mechanism, or `fallback` for a value no mechanism has.
inline const char* unseenEntry(const char* const (&table)[kUnseenCount], Unseen u, const char* fallback) {
  const auto k = static_cast<unsigned>(u);
  return k < kUnseenCount ? table[k] : fallback;
}

// The machine name (the note's strings[2], `radar check --json`).
inline const char* unseenName(Unseen u) {
  static const char* const names[kUnseenCount] = {
      "io_uring",           "raw-system-call", "shared-memory", "semaphore",      "message-queue",
      "sysv-message-queue", "sysv-semaphore",  "eventfd",       "seccomp-filter", "ptrace"};
  return unseenEntry(names, u, "unknown");
}

// What the process did, after its label: "uses io_uring".
inline const char* unseenDoes(Unseen u) {
  static const char* const does[kUnseenCount] = {
      "uses io_uring",
      "makes a raw system call",
      "maps shared memory",
      "opens a POSIX semaphore",
      "opens a POSIX message queue",
      "uses a System V message queue",
      "uses a System V semaphore set",
      "uses an eventfd it shares with another process",
      "installs a seccomp filter",
      "is traced by another program",
  };
  return unseenEntry(does, u, "uses something radar does not record");
}

// What radar cannot tell because of it.
inline const char* unseenConsequence(Unseen u) {
  static const char* const what[kUnseenCount] = {
      "what it reads and writes through the ring is not recorded",
      "the call is not recorded",
      "what processes write there is not recorded",
      "its waits and posts are not recorded",
      "its messages are not recorded",
      "its messages are not recorded",
      "its operations are not recorded",
      "its counts are not recorded",
      "radar records nothing more of it (the filter could refuse a call of radar's own, or kill the process for it)",
      "radar records nothing more of it (a process has one tracer, and the fallback recorder was it)",
  };
  return unseenEntry(what, u, "it is not recorded");
}

// Whether bytes of a recorded channel may have moved through it unseen.
inline bool unseenMovesChannelBytes(Unseen u) {
  return u == Unseen::IoUring || u == Unseen::RawSystemCall || u == Unseen::SeccompFilter || u == Unseen::Ptrace;
}

// The mechanism a note's strings[2] names; false when none.
inline bool unseenByName(const char* name, Unseen* out) {
  for (unsigned k = 0; k < kUnseenCount; ++k)
    if (std::strcmp(name, unseenName(static_cast<Unseen>(k))) == 0) {
      *out = static_cast<Unseen>(k);
      return true;
    }
  return false;
}

}  // namespace radar::log

// io_uring under the fallback recorder. A traced image's rings are followed
// from outside: the requests the kernel took at each io_uring_enter are
// read from the ring's submission queue, and each is recorded when its
// completion is posted, as the system call it stands for (a READ as a
// read, a SEND as a send, an ACCEPT as an accept ...), so that its bytes
// are matched like any others. The ring's memory is read where the
// program mapped it (its mmap of the ring's descriptor).
//
// A completion is seen at the next stop of one of the image's threads: the
// io_uring_enter that submitted or waited for it, or any other call. The
// bytes a request moved are read then, from the program's buffer; what the
// kernel copied when it took the request (vectors, message headers,
// addresses) is read at its submission. What cannot be followed is said as
// unseen: a ring the kernel polls, a ring set up or resized in ways radar
// does not know, rings shared with a forked child, requests on registered
// files or into buffers the kernel chooses, operations radar does not
// translate, more completions between two looks than the ring holds,
// requests that cannot be told apart.
#pragma once

#include <linux/io_uring.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fallback/remote.h"

namespace radar::fallback {

class TracedImage;
struct CallSeen;

class Rings {
 public:
  // A call's exit: io_uring_setup (a ring made), mmap (a ring's areas
  // placed), io_uring_enter (requests taken, completions posted),
  // io_uring_register (a ring resized), close, close_range, dup2 and dup3
  // (a ring's descriptor gone). Other calls are no concern of the rings.
  void onCallDone(TracedImage& image, pid_t tid, const CallSeen& call, int64_t now_ns);
  // The completions posted since the last look, recorded, up to the first
  // one whose request radar has not yet seen taken (another thread's
  // io_uring_enter still under way): that one waits for its exit.
  // `tid`: a stopped thread of the image, to read the rings through.
  void complete(TracedImage& image, pid_t tid, int64_t now_ns);
  // A fork: the child shares the rings, and what either submits moves
  // both's queues. They are no longer followed.
  void forked(TracedImage& image);
  // Whether a request is waiting for its completion (worth a look at every stop).
  bool inFlight() const { return in_flight_ > 0; }
  // Whether `fd` is a ring's descriptor (its mappings are no shared memory of the program's).
  bool has(int fd) const { return rings_.count(fd) > 0; }

 private:
  struct Request {
    struct io_uring_sqe sqe;
    pid_t tid = 0;  // the thread that submitted it
    int64_t submitted_ns = 0;
    // What the kernel copied from the program's memory when it took the
    // request (a vector, a message header, an address), as it was then:
    // the program may reuse that memory before the completion.
    std::vector<MemoryCopy> copied;
  };
  struct Ring {
    struct io_uring_params params {};
    uint64_t sq_ring = 0, cq_ring = 0, sqes = 0;  // where the program mapped them (0: not yet)
    uint32_t sq_head = 0;                         // the kernel's submission head at the last look
    uint32_t cq_tail = 0;                         // completions read up to here
    std::multimap<uint64_t, Request> pending;     // by user_data, in the order submitted
    bool followed = true;                         // false once said unseen
  };

  void setUp(TracedImage& image, pid_t tid, const CallSeen& call);
  void mapped(const CallSeen& call);
  Ring* entered(TracedImage& image, const CallSeen& call);
  void takeSubmissions(TracedImage& image, Ring& ring, pid_t tid, const CallSeen& call);
  void take(TracedImage& image, Ring& ring, Request r);
  void record(TracedImage& image, pid_t tid, const Request& r, const struct io_uring_cqe& cqe, int64_t now_ns);
  void completeRing(TracedImage& image, Ring& ring, pid_t tid, int64_t now_ns, bool at_enter);
  void closed(TracedImage& image, int fd);
  void lose(TracedImage& image, Ring& ring, const std::string& why);

  std::map<int, Ring> rings_;  // by descriptor
  size_t in_flight_ = 0;       // requests pending in followed rings
};

}  // namespace radar::fallback

// What the recorder cannot see, said in the log (log/unseen.h): the
// library's side of inject/unseen_hooks.cc.
#include "log/unseen.h"

#include <sys/stat.h>

#include "inject/library.h"
#include "inject/text.h"
#include "log/sys.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {

void sayUnseen(log::Unseen what, const char* detail) {
  if (!active()) return;
  const uint32_t bit = 1u << static_cast<unsigned>(what);
  if (g_process.unseen_said.fetch_or(bit, std::memory_order_relaxed) & bit) return;
  char text[320];
  size_t at = inject::appendStr(text, 0, sizeof(text), log::unseenDoes(what));
  if (detail && detail[0]) {
    at = inject::appendStr(text, at, sizeof(text), " (");
    at = inject::appendStr(text, at, sizeof(text), detail);
    at = inject::appendStr(text, at, sizeof(text), ")");
  }
  at = inject::appendStr(text, at, sizeof(text), ": ");
  inject::appendStr(text, at, sizeof(text), log::unseenConsequence(what));
  const char* strings[4] = {text, log::kUnseenNote, log::unseenName(what), detail ? detail : ""};
  log::EventFields e;
  e.kind = Kind::Note;
  e.strings = strings;
  e.string_count = 4;
  commitEvent(e);
}

}  // namespace radar::preload

namespace radar::inject {
namespace {

// A pipe, FIFO, socket or terminal, or a channel the recorder knows.
bool mayBeChannel(int fd) {
  struct stat st {};
  if (preload::channelOf(fd) != 0) return true;
  return sys::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
}

}  // namespace

void unseenUsed(log::Unseen what, const char* detail, int fd) {
  if (what == log::Unseen::SeccompFilter) {
    // Said while recording; and recorded or not, what the process starts
    // after the filter must not record either.
    if (preload::active()) preload::sayUnseen(what, detail);
    preload::stopRecordingBeforeSeccomp();
    return;
  }
  // A raw read or write of a file is nothing radar would have recorded.
  // (Looked at, not classified: a channel defined here would stand, for a
  // re-run, as one the image held from its start.)
  if (!preload::active() || (fd >= 0 && !mayBeChannel(fd))) return;
  if (what == log::Unseen::Semaphore && preload::recordingSync()) return;  // its waits and posts are recorded
  preload::sayUnseen(what, detail);
}

bool isKnownChannel(int fd) { return preload::active() && preload::channelOf(fd) != 0; }

}  // namespace radar::inject

// Compacting a log after its process has ended: records left in the tail
// (the process was killed, or exec'd) are compressed into a frame, a frame
// cut short by the process's death is dropped (its records are in the
// tail), and the tail's blocks are released.
#pragma once

#include <string>

#include "log/reader.h"

namespace radar::log {

enum class FinalizeResult { AlreadyClosed, Finalized, Damaged, NotCompacted };

// Never call it on the log of a live process. `reader` is a reader of it that
// has read it to its end (its records are what a summary needs anyway: one
// pass over the log does both). On Damaged (the reader stopped at an error)
// and NotCompacted (a full disk, say: the log stays readable as it was),
// *error says why and the file is left as it was.
FinalizeResult finalizeLog(const std::string& path, const LogReader& reader, std::string* error);

}  // namespace radar::log

#include "log/finalize.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "log/check.h"
#include "log/format.h"
#include "log/reader.h"

namespace radar::log {

FinalizeResult finalizeLog(const std::string& path, const LogReader& reader, std::string* error) {
  if (reader.control().closed || reader.control().finalized) return FinalizeResult::AlreadyClosed;
  RADAR_CHECK(reader.atEnd());  // what is compacted is what the reader found
  if (reader.error()) {
    *error = reader.error()->toString();
    return FinalizeResult::Damaged;
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return FinalizeResult::Damaged;
  }
  const std::span<const uint8_t> tail = reader.tailRecords();
  const uint64_t used = tail.size();
  const uint64_t end = reader.framesEnd();
  bool ok = true;
  std::string why;  // what failed, said where it failed (errno is stale after)
  auto failed = [&](const char* what) {
    why = std::string(what) + ": " + std::strerror(errno);
    return false;
  };
  if (reader.interruptedFrame() && ::ftruncate(fd, static_cast<off_t>(end)) != 0) ok = failed("truncating");
  if (ok && used) {
    std::vector<char> frame(ZSTD_compressBound(used));
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), tail.data(), used);
    ZSTD_freeCCtx(cctx);
    if (ok && ZSTD_isError(n)) {
      ok = false;
      why = std::string("compressing: ") + ZSTD_getErrorName(n);
    }
    // Where the tail's frame goes, noted first: a reader that finds it whole
    // drops the tail's copy, should this stop before the tail is emptied.
    const off_t frame_at_field = 8 + offsetof(FileControl, tail_frame_at);
    if (ok && ::pwrite(fd, &end, sizeof(end), frame_at_field) != sizeof(end)) ok = failed("noting the frame");
    if (ok) {
      errno = ENOSPC;  // a short write sets none: the file system is full
      if (::pwrite(fd, frame.data(), n, static_cast<off_t>(end)) != static_cast<ssize_t>(n)) {
        ok = failed("writing the frame");
        // What was written of it goes: the log stays as it was, readable.
        if (::ftruncate(fd, static_cast<off_t>(end)) != 0) why += " (and the part written stays)";
      }
    }
  }
  if (ok) {
    // The frame holds the tail's records now; a reader that sees both
    // drops the tail's copy (tail_frame_at), so the order is safe.
    const uint64_t zero = 0;
    ok = ::pwrite(fd, &zero, sizeof(zero), 8 + offsetof(FileControl, tail_first_counter)) == 8 &&
         ::pwrite(fd, &zero, sizeof(zero), 8 + offsetof(FileControl, tail_frame_at)) == 8;
    uint32_t state = 0;
    const off_t state_at = 8 + offsetof(FileControl, state);
    if (ok && ::pread(fd, &state, sizeof(state), state_at) == sizeof(state)) {
      state |= kStateFinalized;
      ok = ::pwrite(fd, &state, sizeof(state), state_at) == sizeof(state);
    }
    if (!ok && why.empty()) why = std::string("marking it compacted: ") + std::strerror(errno);
    ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, kControlSize, reader.control().tail_capacity);
  }
  ::close(fd);
  if (!ok) {
    if (why.empty()) why = "marking it compacted failed";
    *error = path + ": not compacted (" + why + "); it stays readable as it is";
    return FinalizeResult::NotCompacted;
  }
  return FinalizeResult::Finalized;
}

}  // namespace radar::log

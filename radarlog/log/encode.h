// Encoding of records into the wire format. Used by the writer (inside
// recorded programs: no allocation) and by tests.
#pragma once

#include "log/fields.h"
#include "log/format.h"
#include "log/recorder_env.h"
#include "log/wire.h"

namespace radar::log {

// What the writer decided to spell out for this record under the frame's
// compactness rules (see radarlog.proto).
struct Explicit {
  bool counter = false;
  uint64_t counter_value = 0;
  bool tid = false;
  uint32_t tid_value = 0;
  int64_t entry_delta_ns = 0;
  bool offset = false;
};

template <class Sink>
void encodeHeader(Sink& s, const HeaderFields& h) {
  using namespace wire;
  namespace f = field;
  putString(s, f::kMagic, kHeaderMagic);
  putUint(s, f::kFormatMajor, kFormatMajor);
  putUint(s, f::kFormatMinor, kFormatMinor);
  if (h.recording_id) putBytes(s, f::kRecordingId, h.recording_id, 16);
  putFixed64(s, f::kLogId, h.log_id);
  if (h.host_name) putString(s, f::kHostName, h.host_name);
  if (h.boot_id) putString(s, f::kBootId, h.boot_id);
  putInt(s, f::kPid, h.pid);
  if (h.ppid) putInt(s, f::kPpid, h.ppid);
  putUint(s, f::kOrigin, static_cast<uint32_t>(h.origin));
  if (h.parent_log_id) putFixed64(s, f::kParentLogId, h.parent_log_id);
  if (h.parent_counter) putUint(s, f::kParentCounter, h.parent_counter);
  if (h.generation) putUint(s, f::kGeneration, h.generation);
  if (h.executable) putString(s, f::kExecutable, h.executable);
  if (h.executable_size) putUint(s, f::kExecutableSize, h.executable_size);
  if (h.executable_mtime_ns) putInt(s, f::kExecutableMtime, h.executable_mtime_ns);
  if (h.argv)
    for (const char* const* a = h.argv; *a; ++a) putString(s, f::kArgv, *a);
  if (h.cwd) putString(s, f::kCwd, h.cwd);
  if (h.environment)
    for (const char* const* e = h.environment; *e; ++e) {
      const bool hidden = h.redacted ? h.redacted[e - h.environment] : h.redact && isRedacted(h.redact, *e);
      if (hidden)
        putBytes(s, f::kRedactedEnvironment, *e, variableNameLength(*e));
      else
        putString(s, f::kEnvironment, *e);
    }
  putInt(s, f::kRealtime, h.realtime_ns);
  putInt(s, f::kMonotonic, h.monotonic_ns);
  if (h.has_payload_limit) putUint(s, f::kPayloadLimit, h.payload_limit);
  if (h.nondet) putUint(s, f::kNondet, 1);
  if (h.recorder_version) putString(s, f::kRecorderVersion, h.recorder_version);
  if (h.uid) putInt(s, f::kUid, h.uid);
  if (h.gid) putInt(s, f::kGid, h.gid);
  for (size_t i = 0; i < h.open_fd_count; ++i) putInt(s, f::kOpenFds, h.open_fds[i]);
  if (h.has_nofile) {
    putUint(s, f::kNofileSoft, h.nofile_soft);
    putUint(s, f::kNofileHard, h.nofile_hard);
  }
  for (size_t i = 0; i < h.start_file_count; ++i) {
    const StartFileFields& file = h.start_files[i];
    putMessage(s, f::kStartFiles, [&](auto& body) {
      putInt(body, 1, file.fd);
      if (file.path) putString(body, 2, file.path);
      if (file.offset) putUint(body, 3, file.offset);
      if (file.flags) putUint(body, 4, file.flags);
    });
  }
}

template <class Sink>
void encodeChannel(Sink& s, const ChannelFields& c) {
  using namespace wire;
  namespace f = field;
  putUint(s, f::kIndex, c.index);
  putUint(s, f::kType, static_cast<uint32_t>(c.type));
  putUint(s, f::kChannelOrigin, static_cast<uint32_t>(c.origin));
  if (c.fd) putInt(s, f::kChannelFd, c.fd);
  if (c.dev) putUint(s, f::kDev, c.dev);
  if (c.ino) putUint(s, f::kIno, c.ino);
  if (c.peer_ino) putUint(s, f::kPeerIno, c.peer_ino);
  if (c.local_address_len) putBytes(s, f::kLocalAddress, c.local_address, c.local_address_len);
  if (c.peer_address_len) putBytes(s, f::kPeerAddress, c.peer_address, c.peer_address_len);
  if (c.path && *c.path) putString(s, f::kPath, c.path);
  if (c.access) putUint(s, f::kAccess, c.access);
  if (c.external) putUint(s, f::kExternal, 1);
  if (c.domain) putInt(s, f::kDomain, c.domain);
  if (c.socket_type) putInt(s, f::kSocketType, c.socket_type);
  if (c.protocol) putInt(s, f::kProtocol, c.protocol);
  if (c.rdev) putUint(s, f::kRdev, c.rdev);
  if (c.count) putUint(s, f::kCount, c.count);
  if (c.semaphore) putUint(s, f::kSemaphore, 1);
  if (c.mpi_rank) putInt(s, f::kMpiRank, c.mpi_rank);
  if (c.mpi_size) putInt(s, f::kMpiSize, c.mpi_size);
}

// Everything but the payload bytes themselves: the payload field's tag and
// length come last, so that a large payload can follow from the caller's
// buffers without a copy.
template <class Sink>
void encodeEventPrefix(Sink& s, const EventFields& e, const Explicit& x) {
  using namespace wire;
  namespace f = field;
  putUint(s, f::kKind, static_cast<uint32_t>(e.kind));
  if (x.counter) putUint(s, f::kCounter, x.counter_value);
  if (x.tid) putUint(s, f::kTid, x.tid_value);
  if (x.entry_delta_ns) putSint(s, f::kEntryDelta, x.entry_delta_ns);
  if (e.return_ns != e.entry_ns) putUint(s, f::kDuration, static_cast<uint64_t>(e.return_ns - e.entry_ns));
  if (e.fd && !isSyncKind(e.kind)) putInt(s, f::kFd, e.fd);  // a sync event has none (-1): 11 bytes
  if (e.channel) putUint(s, f::kChannel, e.channel);
  if (x.offset) putUint(s, f::kOffset, e.offset);
  if (e.size) putUint(s, f::kSize, e.size);
  if (e.result) putSint(s, f::kResult, e.result);
  if (e.error) putUint(s, f::kError, e.error);
  if (e.flags) putUint(s, f::kFlags, e.flags);
  if (e.has_hash) putFixed32(s, f::kHash, e.hash);
  if (e.payload_omitted) putUint(s, f::kPayloadOmitted, e.payload_omitted);
  if (e.peer_pid) putInt(s, f::kPeerPid, e.peer_pid);
  if (e.status) putInt(s, f::kStatus, e.status);
  if (e.signal) putInt(s, f::kSignal, e.signal);
  if (e.address_len) putBytes(s, f::kAddress, e.address, e.address_len);
  if (e.fd_count) {
    putMessage(s, f::kFds, [&](auto& body) {
      for (size_t i = 0; i < e.fd_count; ++i) body.varint(static_cast<uint64_t>(int64_t{e.fds[i]}));
    });
  }
  for (size_t i = 0; i < e.string_count; ++i) putString(s, f::kStrings, e.strings[i]);
  for (size_t i = 0; i < e.ready_count; ++i) {
    const ReadyFd& r = e.ready[i];
    putMessage(s, f::kReady, [&](auto& body) {
      if (r.fd) putInt(body, f::kReadyFd, r.fd);
      if (r.events) putUint(body, f::kReadyEvents, r.events);
      if (r.data) putUint(body, f::kReadyData, r.data);
    });
  }
  if (e.header) putMessage(s, f::kHeader, [&](auto& body) { encodeHeader(body, *e.header); });
  if (e.channel_info) putMessage(s, f::kChannelInfo, [&](auto& body) { encodeChannel(body, *e.channel_info); });
  if (e.has_timeout) putSint(s, f::kTimeout, e.timeout_ms);
  if (e.length_count) {
    putMessage(s, f::kLengths, [&](auto& body) {
      for (size_t i = 0; i < e.length_count; ++i) body.varint(e.lengths[i]);
    });
  }
  if (e.same_as) putUint(s, f::kSameAs, e.same_as);
  if (e.same_from) putUint(s, f::kSameFrom, e.same_from);
  if (e.payload_len) {
    s.varint(tag(f::kPayload, kLengthDelimited));
    s.varint(e.payload_len);
  }
}

// Copies the first `len` bytes of the iovecs to `out`.
inline uint8_t* gatherPayload(uint8_t* out, const Iov* iov, size_t count, size_t len) {
  for (size_t i = 0; i < count && len; ++i) {
    size_t n = iov[i].len < len ? iov[i].len : len;
    if (n) std::memcpy(out, iov[i].base, n);
    out += n;
    len -= n;
  }
  return out;
}

}  // namespace radar::log

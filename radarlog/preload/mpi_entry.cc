// The interposer's side of MPI recording: libradar-mpi.so wraps the MPI
// calls through the profiling interface and hands each one here, to be
// written to this process's log like any other event (log/mpi_event.h).
#include <fcntl.h>

#include <cstring>

#include "inject/hook.h"
#include "log/mpi_event.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"

using radar::log::ChannelFields;
using radar::log::EventFields;
using radar::log::Iov;
using radar::log::Kind;
using radar::preload::active;
using radar::preload::commit;
using radar::preload::g_config;
using radar::preload::g_process;
using radar::preload::monotonicNow;

HOOK uint32_t radar_mpi_communicator(const char* identity, int32_t rank, int32_t size) {
  if (!active() || !identity) return 0;
  ChannelFields c;
  c.fd = -1;
  c.origin = radar::log::ChannelOrigin::Created;
  c.type = radar::log::ChannelType::MpiCommunicator;
  c.path = identity;
  c.access = O_RDWR;  // both ways, as a socket
  c.mpi_rank = rank;
  c.mpi_size = size;
  c.index = g_process.channels.fetch_add(1, std::memory_order_relaxed) + 1;
  EventFields e;
  e.kind = Kind::Channel;
  e.channel_info = &c;
  commit(e);
  return c.index;
}

HOOK int radar_mpi_enter(uint16_t kind, int32_t what, uint32_t channel, int64_t entry_ns) {
  return active() && radar::log::isMpiKind(static_cast<Kind>(kind)) &&
         radar::preload::enterCall(static_cast<Kind>(kind), what, channel, entry_ns);
}

HOOK void radar_mpi_leave() { radar::preload::leaveCall(); }

HOOK void radar_mpi_inside(int delta) { radar::preload::t_thread.in_mpi_call += static_cast<uint8_t>(delta); }

HOOK int radar_mpi_record(const radar::log::MpiEvent* m) {
  if (!active() || !m) return 0;
  EventFields e;
  e.kind = static_cast<Kind>(m->kind);
  e.fd = -1;
  e.entry_ns = m->entry_ns;
  e.return_ns = monotonicNow();
  e.channel = m->channel;
  e.peer_pid = m->peer;
  e.status = m->tag;
  e.size = m->size;
  e.result = m->result;
  e.flags = m->flags;
  e.fds = m->ints;
  e.fd_count = m->int_count;
  e.strings = m->strings;
  e.string_count = m->string_count;
  const uint64_t given = m->bytes && m->result > 0 ? static_cast<uint64_t>(m->result) : 0;
  const uint64_t got = m->result_bytes ? m->result_size : 0;
  const uint64_t moved = given + got;
  const Iov bytes[] = {{m->bytes, given}, {m->result_bytes, got}};
  if (moved && !m->keep_bytes) {
    e.has_hash = true;
    e.hash = radar::log::crc32cOfFirst(bytes, 2, moved);
  } else if (moved) {
    e.payload = bytes;
    e.payload_iov_count = 2;
    e.payload_len = moved;
    if (g_config.has_payload_limit && moved > g_config.payload_limit) {
      e.payload_len = g_config.payload_limit;
      e.payload_omitted = moved - g_config.payload_limit;
      e.has_hash = true;
      e.hash = radar::log::crc32cOfFirst(bytes, 2, moved);
    }
  }
  commit(e);
  return 1;
}

// A rank re-run alone: its MPI calls, made to the stand-ins (rerun/mpi),
// answered here from the script. A send or a collective's contribution is
// compared with the recorded bytes; a receive gets the bytes of the send
// the merge matched to it, a collective what the rank got (kept after its
// contribution); the MPI library itself never runs.
#include <cstring>

#include "inject/hook.h"
#include "log/crc32c.h"
#include "log/mpi_event.h"
#include "rerun/mpi_api.h"
#include "rerun/rerun.h"

#include "log/injected.h"

using radar::driver::kHashKnown;
using radar::log::Kind;
using namespace radar::rerun;

namespace {

const int32_t* intsOf(const ScriptEvent* e, size_t* count) {
  *count = e->fds.size / sizeof(int32_t);
  return static_cast<const int32_t*>(blob(e->fds));
}
int32_t intAt(const ScriptEvent* e, size_t i, int32_t otherwise) {
  size_t count = 0;
  const int32_t* ints = intsOf(e, &count);
  return i < count ? ints[i] : otherwise;
}
const char* firstString(const ScriptEvent* e) {
  return e->strings.size ? static_cast<const char*>(blob(e->strings)) : "";
}

bool differs(const ScriptEvent* e, const radar_rerun_mpi_call& c, const char* what, int64_t recorded, int64_t rerun) {
  if (recorded == rerun) return false;
  Report r;
  r << "the program's " << c.what << " has " << what << " " << rerun << " where the recording has " << recorded << ": "
    << text(e);
  diverge(e, r.str());
  return true;
}

// The bytes a send or contribution carries against the recorded ones (the
// first `kept` of `recorded` bytes in the script; the rest by checksum,
// where the checksum is of them alone).
bool sameBytes(const ScriptEvent* e, const radar_rerun_mpi_call& c, uint64_t recorded, uint64_t kept,
               bool checksum_of_these = true) {
  if (c.size != recorded) {
    Report r;
    r << "the program's " << c.what << " gives " << c.size << " bytes where the recording gives " << recorded << ": "
      << text(e);
    diverge(e, r.str());
    return false;
  }
  const auto* expected = static_cast<const uint8_t*>(blob(e->data));
  const auto* got = static_cast<const uint8_t*>(c.bytes);
  const uint64_t common = kept < recorded ? kept : recorded;
  uint64_t at = 0;
  while (at < common && expected[at] == got[at]) ++at;
  const bool hash_differs = at == common && common < recorded && checksum_of_these && (e->flags & kHashKnown) &&
                            radar::crc32c(0, got, recorded) != e->hash;
  if (at == common && !hash_differs) return true;
  Report r;
  r << "the program's " << c.what << " sends other bytes than the recording: " << text(e);
  if (at < common) {
    r << "\n  first difference at byte " << at << "\n  recorded: ";
    r.bytes(expected + at, common - at);
    r << "\n  re-run:   ";
    r.bytes(got + at, common - at);
  } else {
    r << "\n  (beyond the " << kept << " bytes kept: their checksum differs)";
  }
  diverge(e, r.str());
  return false;
}

bool sameSend(const ScriptEvent* e, const radar_rerun_mpi_call& c) {
  if (differs(e, c, "destination rank", e->peer_pid, c.peer) || differs(e, c, "tag", e->status, c.tag) ||
      differs(e, c, "send mode", e->call_flags, c.flags))
    return false;
  return sameBytes(e, c, e->size, e->data.size);
}

bool sameReceive(const ScriptEvent* e, const radar_rerun_mpi_call& c) {
  if (differs(e, c, "source asked", intAt(e, 0, c.peer), c.peer) ||
      differs(e, c, "tag asked", intAt(e, 1, c.tag), c.tag) ||
      differs(e, c, "room for elements:", intAt(e, 2, c.count), c.count))
    return false;
  if (e->kind == static_cast<uint16_t>(Kind::MpiRecv))
    return !differs(e, c, "the receive posted as", intAt(e, 3, 0), static_cast<int64_t>(c.serial));
  return true;
}

// A collective: the operation, its root and the contribution; then what
// the rank got must be in the script and fit.
bool sameCollective(const ScriptEvent* e, const radar_rerun_mpi_call& c) {
  if (std::strcmp(firstString(e), c.operation ? c.operation : "") != 0) {
    Report r;
    r << "the program calls " << c.what << " where the recording has: " << text(e);
    diverge(e, r.str());
    return false;
  }
  if (differs(e, c, "root rank", e->peer_pid, c.peer)) return false;
  if (c.flags & RADAR_RERUN_MPI_IN_PLACE) return true;  // what it gave was recorded after the call
  const uint64_t given = e->result > 0 ? static_cast<uint64_t>(e->result) : 0;
  // The checksum is of what it gave and got (log/mpi_event.h).
  return sameBytes(e, c, given, e->data.size < given ? e->data.size : given, intAt(e, 1, 0) == 0);
}

bool deliverCollective(const ScriptEvent* e, const radar_rerun_mpi_call& c, radar_rerun_mpi_answer* a) {
  const uint64_t given = e->result > 0 ? static_cast<uint64_t>(e->result) : 0;
  size_t ints = 0;
  intsOf(e, &ints);
  const int32_t got = intAt(e, 1, -1);
  Report r;
  if (ints < 2) {
    r << "the recording was made by a radar that did not keep what a collective gave each rank, so " << c.what
      << " cannot be answered: " << text(e);
  } else if (got < 0) {
    r << "the recording does not have what " << c.what
      << " gave this rank (its pieces were not side by side): " << text(e);
  } else if (given + static_cast<uint64_t>(got) > e->data.size) {
    r << "the recording kept only the first bytes of what " << c.what
      << " gave this rank (radar record --payload-limit): " << text(e);
  } else if (static_cast<uint64_t>(got) != c.room) {
    r << "the program's " << c.what << " has room for " << c.room << " bytes where the recording got " << got << ": "
      << text(e);
  } else {
    if (got) std::memcpy(c.into, static_cast<const uint8_t*>(blob(e->data)) + given, static_cast<size_t>(got));
    a->bytes = static_cast<uint64_t>(got);
    return true;
  }
  diverge(e, r.str());
  return false;
}

bool deliverReceive(const ScriptEvent* e, const radar_rerun_mpi_call& c, radar_rerun_mpi_answer* a) {
  const uint64_t got = e->result > 0 ? static_cast<uint64_t>(e->result) : 0;
  if (got > c.room || got > e->data.size) {
    Report r;
    r << "the program's " << c.what << " has room for " << c.room << " bytes where the recording got " << got << ": "
      << text(e);
    diverge(e, r.str());
    return false;
  }
  if (got) std::memcpy(c.into, blob(e->data), static_cast<size_t>(got));
  a->bytes = got;
  return true;
}

bool sameCommunicator(const ScriptEvent* e, const radar_rerun_mpi_call& c) {
  if (std::strcmp(firstString(e), c.operation ? c.operation : "") != 0) {
    Report r;
    r << "the program calls " << c.what << " where the recording has: " << text(e);
    diverge(e, r.str());
    return false;
  }
  if (c.int_count > 1 && differs(e, c, "color", intAt(e, 1, c.ints[1]), c.ints[1])) return false;
  if (c.int_count < 3) return true;
  // MPI_Comm_create's members, where a key is (log/mpi_event.h); 0 in a
  // recording made before they were kept.
  const bool members = std::strcmp(c.operation ? c.operation : "", "MPI_Comm_create") == 0;
  const int64_t recorded = intAt(e, 2, c.ints[2]);
  if (members && recorded == 0) return true;
  return !differs(e, c, members ? "members (as ranks of its parent, in order) whose checksum is" : "key", recorded,
                  c.ints[2]);
}

bool sameCall(const ScriptEvent* e, const radar_rerun_mpi_call& c) {
  // A communicator call names its parent's channel; the rest their own.
  const uint32_t recorded = e->kind == static_cast<uint16_t>(Kind::MpiComm)
                                ? static_cast<uint32_t>(intAt(e, 0, 0))
                                : (e->kind == static_cast<uint16_t>(Kind::MpiInit) ? c.channel : e->channel);
  if (c.channel && recorded && differs(e, c, "communicator channel", recorded, c.channel)) return false;
  switch (static_cast<Kind>(e->kind)) {
    case Kind::MpiSend:
      return sameSend(e, c);
    case Kind::MpiRecv:
    case Kind::MpiIrecv:
      return sameReceive(e, c);
    case Kind::MpiProbe:
      return !differs(e, c, "source asked", intAt(e, 0, c.peer), c.peer) &&
             !differs(e, c, "tag asked", intAt(e, 1, c.tag), c.tag) &&
             !differs(e, c, "probe kind", e->call_flags & 1, c.flags & 1);
    case Kind::MpiCollective:
      return sameCollective(e, c);
    case Kind::MpiComm:
      return sameCommunicator(e, c);
    default:
      return true;
  }
}

void fill(const ScriptEvent* e, radar_rerun_mpi_answer* a) {
  *a = {};
  a->error = e->result < 0 ? static_cast<int32_t>(-e->result) : 0;
  a->peer = e->peer_pid;
  a->tag = e->status;
  a->channel = e->channel;
  a->flags = e->call_flags;
  a->asked_source = intAt(e, 0, 0);
  a->asked_tag = intAt(e, 1, 0);
  switch (static_cast<Kind>(e->kind)) {
    case Kind::MpiInit:
      a->rank = intAt(e, 0, 0);
      a->size = intAt(e, 1, 1);
      break;
    case Kind::MpiComm:
      a->rank = intAt(e, 3, 0);
      a->size = intAt(e, 4, 1);
      break;
    case Kind::MpiIrecv:
      a->serial = static_cast<uint32_t>(e->result);
      a->error = 0;
      break;
    case Kind::MpiRecv:
      a->serial = static_cast<uint32_t>(intAt(e, 3, 0));
      break;
    case Kind::MpiProbe:
      a->bytes = e->result > 0 ? static_cast<uint64_t>(e->result) : 0;
      break;
    default:
      break;
  }
}

}  // namespace

HOOK int radar_rerun_mpi_replay(const radar_rerun_mpi_call* c, radar_rerun_mpi_answer* a) {
  if (!c || !a || !replaying()) return 0;
  const ScriptEvent* e = expect(static_cast<Kind>(c->kind), -1, c->what ? c->what : "an MPI call");
  if (!e || !sameCall(e, *c)) return 0;
  fill(e, a);
  if (e->kind == static_cast<uint16_t>(Kind::MpiRecv) && e->result >= 0 && !deliverReceive(e, *c, a)) return 0;
  if (e->kind == static_cast<uint16_t>(Kind::MpiCollective) && e->result >= 0 && !deliverCollective(e, *c, a)) return 0;
  consume(e);
  return 1;
}

HOOK int radar_rerun_mpi_next(uint16_t kind, radar_rerun_mpi_answer* a) {
  if (!a || !replaying()) return 0;
  const ScriptEvent* e = peekNext(static_cast<Kind>(kind), -1);
  if (!e) return 0;
  fill(e, a);
  return 1;
}

HOOK void radar_rerun_mpi_diverge(const char* report) {
  if (replaying()) diverge(nullptr, report ? report : "an MPI call the re-run cannot answer");
}

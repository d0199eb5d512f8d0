// The groups of a re-run rank (MPI_Comm_group, MPI_Group_incl, ...) and
// MPI_Comm_create. A group is kept as ranks of the communicator it was
// taken from (of its parent, for a duplicate): enough to say whether this
// rank is in it, where, and what MPI_Comm_create makes of it, which the
// recording then confirms (a member's new communicator: its channel, rank
// and size, and the members' checksum; a non-member's MPI_COMM_NULL,
// recorded as nothing).
#include <dlfcn.h>

#include "inject/hook.h"
#include "log/kinds.h"
#include "log/mpi_event.h"
#include "rerun/mpi/stand_ins.h"

#include "log/injected.h"

namespace radar::rerun_mpi {
namespace {

// A group's members: ranks of the communicators whose ranks are those of
// channel `base`. The group of a whole communicator stores none: its i-th
// member is rank i.
struct Group {
  bool used = false, whole = false;
  uint32_t base = 0;
  int me = MPI_UNDEFINED;  // this rank's rank there
  uint32_t first = 0;      // members: g_members[first, first + count), unless whole
  int count = 0;
};
constexpr int kGroups = 1024;
constexpr uint32_t kMembers = 1u << 18;
Group g_groups[kGroups];
int32_t g_members[kMembers];
uint32_t g_members_used = 0;  // given back when the last group made is freed
SpinLock g_groups_lock;

// Open MPI's predefined groups, looked up once (a race looks twice, alike).
MPI_Group emptyGroup() {
  static const auto handle = static_cast<MPI_Group>(dlsym(RTLD_DEFAULT, "ompi_mpi_group_empty"));
  return handle;
}
MPI_Group nullGroup() {
  static const auto handle = static_cast<MPI_Group>(dlsym(RTLD_DEFAULT, "ompi_mpi_group_null"));
  return handle;
}

// A copy of the program's group `handle` (MPI_GROUP_EMPTY: no members, of
// any communicator); false for a handle the stand-ins did not make.
bool groupOf(MPI_Group handle, Group* out) {
  if (handle == emptyGroup()) {
    *out = Group{true, false, 0, MPI_UNDEFINED, 0, 0};
    return true;
  }
  Held held(g_groups_lock);
  for (const Group& g : g_groups) {
    if (g.used && reinterpret_cast<MPI_Group>(const_cast<Group*>(&g)) == handle) {
      *out = g;
      return true;
    }
  }
  return false;
}

int memberAt(const Group& g, int i) { return g.whole ? i : g_members[g.first + static_cast<uint32_t>(i)]; }

int positionOf(const Group& g, int rank) {
  for (int i = 0; i < g.count; ++i)
    if (memberAt(g, i) == rank) return i;
  return MPI_UNDEFINED;
}

int report(const char* call, const char* what, int error) {
  Text t;
  t << "the program's " << call << " " << what;
  cannot(t.str());
  return error;
}

int unknownGroup(const char* call) {
  return report(call, "names a group the MPI stand-ins did not make", MPI_ERR_GROUP);
}

// Ranks `ranks[0, n)` of a group of `count`: each in it, none twice (else
// the MPI library refuses them).
bool validRanks(int n, const int ranks[], int count) {
  if (n < 0 || n > count || (n && !ranks)) return false;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= count) return false;
    for (int j = 0; j < i; ++j)
      if (ranks[j] == ranks[i]) return false;
  }
  return true;
}

// Members picked one by one into a new group of `base`. The table is held
// while they are picked; a report waits until it is let go.
class NewGroup {
 public:
  NewGroup(uint32_t base, int me) : base_(base), me_(me), empty_(emptyGroup()) {
    g_groups_lock.lock();
    first_ = g_members_used;
  }
  ~NewGroup() { release(); }
  NewGroup(const NewGroup&) = delete;
  NewGroup& operator=(const NewGroup&) = delete;

  void add(int rank) {
    if (first_ + count_ >= kMembers) room_ = false;
    if (room_) g_members[first_ + count_++] = rank;
  }
  // Its handle (MPI_GROUP_EMPTY when it has no member, as Open MPI's).
  int make(const char* call, MPI_Group* out) {
    if (room_ && count_ == 0) {
      release();
      *out = empty_;
      return MPI_SUCCESS;
    }
    for (Group& g : g_groups) {
      if (!room_ || g.used) continue;
      g = Group{true, false, base_, me_, first_, static_cast<int>(count_)};
      g_members_used = first_ + count_;
      release();
      *out = reinterpret_cast<MPI_Group>(&g);
      return MPI_SUCCESS;
    }
    release();
    return report(call, "makes a group the MPI stand-ins have no more room for (1024 groups, 262144 members)",
                  MPI_ERR_INTERN);
  }

 private:
  void release() {
    if (held_) g_groups_lock.unlock();
    held_ = false;
  }
  uint32_t base_;
  int me_;
  MPI_Group empty_;
  bool held_ = true, room_ = true;
  uint32_t first_ = 0, count_ = 0;
};

// Two groups the stand-ins know, whose members are ranks of one
// communicator (an empty one is of any).
int twoGroups(const char* call, MPI_Group a, MPI_Group b, Group* ga, Group* gb) {
  if (!groupOf(a, ga) || !groupOf(b, gb)) return unknownGroup(call);
  if (ga->count && gb->count && ga->base != gb->base)
    return report(call,
                  "combines groups of two communicators whose ranks differ: the MPI stand-ins know a group by the "
                  "ranks of the communicator it was taken from",
                  MPI_ERR_GROUP);
  if (!ga->count) ga->base = gb->base, ga->me = gb->me;
  if (!gb->count) gb->base = ga->base, gb->me = ga->me;
  return MPI_SUCCESS;
}

// Union, intersection and difference: the members of `a` that `keep`
// keeps, in a's order, then (union) those of b not in a, in b's.
template <class Keep>
int combined(const char* call, MPI_Group a, MPI_Group b, bool then_b, Keep keep, MPI_Group* out) {
  Group ga, gb;
  if (const int rc = twoGroups(call, a, b, &ga, &gb); rc != MPI_SUCCESS) return rc;
  NewGroup picked(ga.base, ga.me);
  for (int i = 0; i < ga.count; ++i)
    if (keep(positionOf(gb, memberAt(ga, i)) != MPI_UNDEFINED)) picked.add(memberAt(ga, i));
  for (int i = 0; then_b && i < gb.count; ++i)
    if (positionOf(ga, memberAt(gb, i)) == MPI_UNDEFINED) picked.add(memberAt(gb, i));
  return picked.make(call, out);
}

}  // namespace
}  // namespace radar::rerun_mpi

namespace r = radar::rerun_mpi;
using radar::log::Kind;

HOOK int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  {
    r::Held held(r::g_groups_lock);
    for (r::Group& g : r::g_groups) {
      if (g.used) continue;
      g = r::Group{true, true, r::rankSpace(c), c.rank, 0, c.size};
      *group = reinterpret_cast<MPI_Group>(&g);
      return MPI_SUCCESS;
    }
  }
  return r::report("MPI_Comm_group", "makes a group the MPI stand-ins have no more room for (1024 groups)",
                   MPI_ERR_INTERN);
}

HOOK int MPI_Group_size(MPI_Group group, int* size) {
  r::Group g;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Group_size");
  *size = g.count;
  return MPI_SUCCESS;
}

HOOK int MPI_Group_rank(MPI_Group group, int* rank) {
  r::Group g;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Group_rank");
  *rank = r::positionOf(g, g.me);
  return MPI_SUCCESS;
}

HOOK int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* out) {
  r::Group g;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Group_incl");
  if (!r::validRanks(n, ranks, g.count)) return MPI_ERR_RANK;
  r::NewGroup picked(g.base, g.me);
  for (int i = 0; i < n; ++i) picked.add(r::memberAt(g, ranks[i]));
  return picked.make("MPI_Group_incl", out);
}

HOOK int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* out) {
  r::Group g;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Group_excl");
  if (!r::validRanks(n, ranks, g.count)) return MPI_ERR_RANK;
  r::NewGroup picked(g.base, g.me);
  for (int k = 0; k < g.count; ++k) {
    bool excluded = false;
    for (int i = 0; i < n && !excluded; ++i) excluded = ranks[i] == k;
    if (!excluded) picked.add(r::memberAt(g, k));
  }
  return picked.make("MPI_Group_excl", out);
}

HOOK int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* out) {
  r::Group g;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Group_range_incl");
  if (n < 0 || (n && !ranges)) return MPI_ERR_ARG;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || first < 0 || first >= g.count || last < 0 || last >= g.count ||
        (stride > 0 ? first > last : first < last))
      return MPI_ERR_RANK;
    total += (last - first) / stride + 1;
  }
  if (total > g.count) return MPI_ERR_RANK;
  r::NewGroup picked(g.base, g.me);
  for (int i = 0; i < n; ++i) {
    const int64_t first = ranges[i][0], stride = ranges[i][2], runs = (ranges[i][1] - first) / stride + 1;
    for (int64_t j = 0; j < runs; ++j) picked.add(r::memberAt(g, static_cast<int>(first + j * stride)));
  }
  return picked.make("MPI_Group_range_incl", out);
}

HOOK int MPI_Group_translate_ranks(MPI_Group a, int n, const int ranks_a[], MPI_Group b, int ranks_b[]) {
  r::Group ga, gb;
  if (const int rc = r::twoGroups("MPI_Group_translate_ranks", a, b, &ga, &gb); rc != MPI_SUCCESS) return rc;
  if (n < 0 || (n && (!ranks_a || !ranks_b))) return MPI_ERR_ARG;
  for (int i = 0; i < n; ++i) {
    if (ranks_a[i] == MPI_PROC_NULL) {
      ranks_b[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks_a[i] < 0 || ranks_a[i] >= ga.count) return MPI_ERR_RANK;
    ranks_b[i] = r::positionOf(gb, r::memberAt(ga, ranks_a[i]));
  }
  return MPI_SUCCESS;
}

HOOK int MPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return r::combined(
      "MPI_Group_union", a, b, true, [](bool) { return true; }, out);
}

HOOK int MPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return r::combined(
      "MPI_Group_intersection", a, b, false, [](bool in_b) { return in_b; }, out);
}

HOOK int MPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return r::combined(
      "MPI_Group_difference", a, b, false, [](bool in_b) { return !in_b; }, out);
}

HOOK int MPI_Group_compare(MPI_Group a, MPI_Group b, int* result) {
  r::Group ga, gb;
  if (const int rc = r::twoGroups("MPI_Group_compare", a, b, &ga, &gb); rc != MPI_SUCCESS) return rc;
  bool same_order = ga.count == gb.count, same_set = ga.count == gb.count;
  for (int i = 0; i < ga.count && same_set; ++i) {
    same_order &= r::memberAt(ga, i) == r::memberAt(gb, i);
    same_set &= r::positionOf(gb, r::memberAt(ga, i)) != MPI_UNDEFINED;
  }
  *result = same_order ? MPI_IDENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

HOOK int MPI_Group_free(MPI_Group* group) {
  if (!group || *group == r::nullGroup()) return MPI_ERR_GROUP;
  if (*group != r::emptyGroup()) {
    bool found = false;
    {
      r::Held held(r::g_groups_lock);
      for (r::Group& g : r::g_groups) {
        if (!g.used || reinterpret_cast<MPI_Group>(&g) != *group) continue;
        found = true;
        g.used = false;
        if (!g.whole && g.first + static_cast<uint32_t>(g.count) == r::g_members_used) r::g_members_used = g.first;
      }
    }
    if (!found) return r::unknownGroup("MPI_Group_free");
  }
  *group = r::nullGroup();
  return MPI_SUCCESS;
}

// Collective over `comm`: the group's members get a communicator of their
// own, recorded with its channel, rank, size and members; the others
// MPI_COMM_NULL, recorded as nothing.
HOOK int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  *newcomm = r::nullComm();
  r::Communicator parent;
  r::Group g;
  if (!r::communicator(comm, &parent)) return MPI_ERR_COMM;
  if (!r::groupOf(group, &g)) return r::unknownGroup("MPI_Comm_create");
  if (g.count && g.base != r::rankSpace(parent))
    return r::report("MPI_Comm_create",
                     "makes a communicator of a group taken from a communicator whose ranks are not its own: the MPI "
                     "stand-ins know a group by the ranks of the communicator it was taken from",
                     MPI_ERR_GROUP);
  const int rank = r::positionOf(g, parent.rank);
  if (rank == MPI_UNDEFINED) return MPI_SUCCESS;  // not a member: nothing recorded
  if (!parent.channel) {                          // of MPI_COMM_SELF: the recorder had no name for it, nor an event
    *newcomm = r::made(r::Communicator{0, rank, g.count});
    return MPI_SUCCESS;
  }
  uint32_t h = radar::log::kMpiMembersSeed;
  for (int i = 0; i < g.count; ++i) h = radar::log::mpiMembersStep(h, r::memberAt(g, i));
  const int32_t ints[] = {static_cast<int32_t>(parent.channel), -1, radar::log::mpiMembersChecksum(h)};
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiComm);
  call.channel = parent.channel;
  call.operation = "MPI_Comm_create";
  call.ints = ints;
  call.int_count = 3;
  r::Text what;
  what << "MPI_Comm_create(a group of " << g.count << ")";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  if (a.rank != rank || a.size != g.count) {
    r::Text t;
    t << "makes this rank " << rank << " of " << g.count << " where the recording has it " << a.rank << " of "
      << a.size;
    return r::report(what.str(), t.str(), r::kFailed);
  }
  *newcomm = r::made(r::Communicator{a.channel, a.rank, a.size});
  return MPI_SUCCESS;
}

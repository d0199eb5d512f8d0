// The datatypes of a re-run rank: Open MPI's predefined ones, found by
// name, and those the program makes with MPI_Type_contiguous and
// MPI_Type_vector, kept as the byte blocks of one element in the order MPI
// packs them. A message of a type with holes travels packed (the recorder
// packed it with PMPI_Pack, which, between ranks alike, lays the blocks
// side by side in that order).
#include <dlfcn.h>
#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <iterator>

#include "inject/hook.h"
#include "rerun/mpi/stand_ins.h"

#include "log/injected.h"

namespace radar::rerun_mpi {
namespace {

struct TypeName {
  const char* symbol;
  int size;
};
// Open MPI's predefined datatypes whose elements lie side by side.
constexpr TypeName kTypes[] = {{"ompi_mpi_char", 1},
                               {"ompi_mpi_signed_char", 1},
                               {"ompi_mpi_unsigned_char", 1},
                               {"ompi_mpi_byte", 1},
                               {"ompi_mpi_packed", 1},
                               {"ompi_mpi_wchar", 4},
                               {"ompi_mpi_short", 2},
                               {"ompi_mpi_unsigned_short", 2},
                               {"ompi_mpi_int", 4},
                               {"ompi_mpi_unsigned", 4},
                               {"ompi_mpi_long", 8},
                               {"ompi_mpi_unsigned_long", 8},
                               {"ompi_mpi_long_long_int", 8},
                               {"ompi_mpi_unsigned_long_long", 8},
                               {"ompi_mpi_float", 4},
                               {"ompi_mpi_double", 8},
                               {"ompi_mpi_long_double", 16},
                               {"ompi_mpi_int8_t", 1},
                               {"ompi_mpi_uint8_t", 1},
                               {"ompi_mpi_int16_t", 2},
                               {"ompi_mpi_uint16_t", 2},
                               {"ompi_mpi_int32_t", 4},
                               {"ompi_mpi_uint32_t", 4},
                               {"ompi_mpi_int64_t", 8},
                               {"ompi_mpi_uint64_t", 8},
                               {"ompi_mpi_c_bool", 1},
                               {"ompi_mpi_aint", 8},
                               {"ompi_mpi_offset", 8},
                               {"ompi_mpi_count", 8},
                               {"ompi_mpi_c_float_complex", 8},
                               {"ompi_mpi_c_double_complex", 16}};

struct Block {
  int64_t offset;
  uint64_t length;
};
// A datatype's element: blocks[first, first + count) of g_blocks.
struct Layout {
  const Block* blocks = nullptr;
  uint32_t count = 0;
  uint64_t size = 0;
  int64_t extent = 0;
};
// A freed type stays known by its handle (a receive posted with it may
// complete later), and its slot is taken again only when none is left.
struct Derived {
  bool used = false, freed = false;
  Layout layout;
};
constexpr uint32_t kBlocks = 1u << 16;
constexpr int kDerived = 4096;
Block g_blocks[kBlocks];
uint32_t g_blocks_used = 0;  // a freed type's blocks are not given back
Derived g_derived[kDerived];
Block g_predefined_blocks[std::size(kTypes)];
SpinLock g_types_lock;

// Looked up once (a race only looks them up twice, alike).
const MPI_Datatype* predefined() {
  static MPI_Datatype handles[std::size(kTypes)];
  static std::atomic<bool> found{false};
  if (!found.load(std::memory_order_acquire)) {
    for (size_t i = 0; i < std::size(kTypes); ++i) {
      handles[i] = static_cast<MPI_Datatype>(dlsym(RTLD_DEFAULT, kTypes[i].symbol));
      g_predefined_blocks[i] = {0, static_cast<uint64_t>(kTypes[i].size)};
    }
    found.store(true, std::memory_order_release);
  }
  return handles;
}

bool layoutOf(MPI_Datatype type, Layout* out) {
  const MPI_Datatype* handles = predefined();
  for (size_t i = 0; i < std::size(kTypes); ++i) {
    if (handles[i] && handles[i] == type) {
      const auto size = static_cast<uint64_t>(kTypes[i].size);
      *out = {&g_predefined_blocks[i], 1, size, static_cast<int64_t>(size)};
      return true;
    }
  }
  Held held(g_types_lock);
  for (const Derived& d : g_derived) {
    if (d.used && reinterpret_cast<MPI_Datatype>(const_cast<Derived*>(&d)) == type) {
      *out = d.layout;
      return true;
    }
  }
  return false;
}

bool sideBySide(const Layout& l) {
  return l.count == 1 && l.blocks[0].offset == 0 && l.blocks[0].length == l.size &&
         l.extent == static_cast<int64_t>(l.size);
}

Derived* freeSlot() {
  for (Derived& d : g_derived)
    if (!d.used) return &d;
  for (Derived& d : g_derived)
    if (d.freed) return &d;
  return nullptr;
}

// A new type of `copies` runs of `run` elements of `old`, the runs
// `stride` elements apart: its handle; false where the tables are full.
bool madeType(const Layout& old, int copies, int run, int stride, MPI_Datatype* type) {
  Held held(g_types_lock);
  Derived* slot = freeSlot();
  if (!slot) return false;
  Block* first = &g_blocks[g_blocks_used];
  uint32_t n = 0;
  for (int i = 0; i < copies; ++i) {
    for (int j = 0; j < run; ++j) {
      const int64_t base = (int64_t(i) * stride + j) * old.extent;
      for (uint32_t b = 0; b < old.count; ++b) {
        const Block block{base + old.blocks[b].offset, old.blocks[b].length};
        if (n && first[n - 1].offset + int64_t(first[n - 1].length) == block.offset) {
          first[n - 1].length += block.length;  // side by side: one block
          continue;
        }
        if (n >= kBlocks - g_blocks_used) return false;
        first[n++] = block;
      }
    }
  }
  g_blocks_used += n;
  const int64_t extent = copies > 0 && run > 0 ? (int64_t(copies - 1) * stride + run) * old.extent : 0;
  slot->used = true;
  slot->freed = false;
  slot->layout = {first, n, uint64_t(copies) * uint64_t(run) * old.size, extent};
  *type = reinterpret_cast<MPI_Datatype>(slot);
  return true;
}

int typeMade(const char* call, const Layout& old, int copies, int run, int stride, MPI_Datatype* type) {
  if (madeType(old, copies, run, stride, type)) return MPI_SUCCESS;
  Text t;
  t << "the program's " << call << " makes a datatype the MPI stand-ins have no more room for (4096 types of "
    << int64_t{kBlocks} << " blocks in all)";
  cannot(t.str());
  return MPI_ERR_INTERN;
}

}  // namespace

int typeSize(MPI_Datatype type) {
  Layout l;
  return layoutOf(type, &l) ? static_cast<int>(l.size) : -1;
}

bool bytesOf(MPI_Datatype type, int count, const char* call, uint64_t* bytes) {
  Layout l;
  if (!layoutOf(type, &l)) {
    Text t;
    t << "the program's " << call
      << " moves a datatype the MPI stand-ins do not know (they know the predefined ones, and those made with "
         "MPI_Type_contiguous and MPI_Type_vector)";
    cannot(t.str());
    return false;
  }
  *bytes = count > 0 ? uint64_t(count) * l.size : 0;
  return true;
}

Message::Message(const void* buf, int count, MPI_Datatype type, const char* call)
    : buf_(buf), count_(count), type_(type) {
  ok_ = !buf || count <= 0 || bytesOf(type, count, call, &size_);
  Layout l;
  if (!ok_ || !size_ || !layoutOf(type, &l) || sideBySide(l)) return;
  void* m = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    cannot("the MPI stand-ins have no memory to pack a message of a datatype with holes");
    ok_ = false;
    return;
  }
  mapped_ = m;
}

Message::~Message() {
  if (mapped_) munmap(mapped_, size_);
}

const void* Message::packed() {
  if (!mapped_) return buf_;
  Layout l;
  layoutOf(type_, &l);
  auto* out = static_cast<uint8_t*>(mapped_);
  for (int k = 0; k < count_; ++k) {
    for (uint32_t b = 0; b < l.count; ++b) {
      std::memcpy(out, static_cast<const uint8_t*>(buf_) + k * l.extent + l.blocks[b].offset, l.blocks[b].length);
      out += l.blocks[b].length;
    }
  }
  return mapped_;
}

void* Message::room() { return mapped_ ? mapped_ : const_cast<void*>(buf_); }

void Message::unpack(uint64_t got) {
  if (!mapped_) return;
  Layout l;
  layoutOf(type_, &l);
  const auto* in = static_cast<const uint8_t*>(mapped_);
  for (int k = 0; k < count_; ++k) {
    for (uint32_t b = 0; b < l.count; ++b) {
      const uint64_t n = l.blocks[b].length < got ? l.blocks[b].length : got;
      std::memcpy(static_cast<uint8_t*>(const_cast<void*>(buf_)) + k * l.extent + l.blocks[b].offset, in, n);
      in += n;
      got -= n;
      if (!got) return;
    }
  }
}

}  // namespace radar::rerun_mpi

namespace r = radar::rerun_mpi;

namespace {
// A datatype made of one the stand-ins do not know, or with a negative
// stride (legal in MPI: its lower bound is not 0), is said not answered.
int notAnswered(const char* call) {
  r::Text t;
  t << "the program's " << call
    << " makes a datatype of one the MPI stand-ins do not know, or with a negative stride: a rank re-run alone "
       "answers contiguous and vector types of predefined ones";
  r::cannot(t.str());
  return MPI_ERR_TYPE;
}
}  // namespace

HOOK int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* type) {
  r::Layout l;
  if (count < 0 || !r::layoutOf(old, &l)) return notAnswered("MPI_Type_contiguous()");
  return r::typeMade("MPI_Type_contiguous()", l, count, 1, 1, type);
}

HOOK int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* type) {
  r::Layout l;
  if (count < 0 || blocklength < 0 || stride < 0 || !r::layoutOf(old, &l)) return notAnswered("MPI_Type_vector()");
  return r::typeMade("MPI_Type_vector()", l, count, blocklength, stride, type);
}

HOOK int MPI_Type_commit(MPI_Datatype* type) {
  r::Layout l;
  return r::layoutOf(*type, &l) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

HOOK int MPI_Type_free(MPI_Datatype* type) {
  r::Held held(r::g_types_lock);
  for (r::Derived& d : r::g_derived) {
    if (reinterpret_cast<MPI_Datatype>(&d) != *type || !d.used || d.freed) continue;
    d.freed = true;
    *type = static_cast<MPI_Datatype>(dlsym(RTLD_DEFAULT, "ompi_mpi_datatype_null"));
    return MPI_SUCCESS;
  }
  return MPI_ERR_TYPE;  // a predefined type, or one not made
}

HOOK int MPI_Type_size(MPI_Datatype type, int* size) {
  *size = r::typeSize(type);
  return *size < 0 ? MPI_ERR_TYPE : MPI_SUCCESS;
}

HOOK int MPI_Type_get_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent) {
  r::Layout l;
  if (!r::layoutOf(type, &l)) return MPI_ERR_TYPE;
  *lb = 0;
  *extent = l.extent;
  return MPI_SUCCESS;
}

HOOK int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  const int size = r::typeSize(type);
  if (size < 0 || status == MPI_STATUS_IGNORE) return MPI_ERR_TYPE;
  if (size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  *count = status->_ucount % size ? MPI_UNDEFINED : static_cast<int>(status->_ucount / size);
  return MPI_SUCCESS;
}

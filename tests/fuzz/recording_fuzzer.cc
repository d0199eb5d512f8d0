// libFuzzer target, structure-aware: the input is a recording as decoded
// records (fuzz_recording.proto). The mutator changes records, headers and
// recording.txt as values (a counter, a channel, a result, a pid, a record
// inserted or dropped) and the harness encodes them into real logs, so that
// mutations pass the frame checksums and reach what every reader command
// runs: the load and merge, the findings (radar check), the narrative (radar
// events), the statistics (radar stats), the display model (radar replay),
// the network description and message decoding (--net), and the re-run's
// script (radar debug). Any input must give results or clean errors: never
// a crash, a hang, a sanitizer report or an unbounded allocation.
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "analysis/stats.h"
#include "binding/binding.h"
#include "driver/script_builder.h"
#include "fuzz_recording.h"
#include "trace/display.h"
#include "trace/findings.h"
#include "trace/merge.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Rng = std::mt19937_64;

constexpr int kMaxLogs = 12;
constexpr int kMaxEvents = 3000;

const std::string& workDir() {
  static const std::string dir = [] {
    char templ[] = "/tmp/radar-fuzz-recording-XXXXXX";
    const char* made = mkdtemp(templ);
    return std::string(made ? made : "/tmp");
  }();
  return dir;
}

void clearDir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') unlink((dir + "/" + e->d_name).c_str());
    closedir(d);
  }
}

// ---- mutation ------------------------------------------------------------------

template <class T>
T pick(Rng& rng, std::initializer_list<T> values) {
  return values.begin()[rng() % values.size()];
}

int64_t mutateInteger(Rng& rng, int64_t value) {
  const uint64_t v = static_cast<uint64_t>(value);  // wrapping, as a mutation may
  switch (rng() % 8) {
    case 0:
      return static_cast<int64_t>(v + 1);
    case 1:
      return static_cast<int64_t>(v - 1);
    case 2:
      return 0;
    case 3:
      return static_cast<int64_t>(rng() % 16);
    case 4:
      return pick<int64_t>(rng, {-1, INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN, 1LL << 31, 1LL << 40});
    case 5:
      return static_cast<int64_t>(v ^ (uint64_t{1} << (rng() % 64)));
    case 6:
      return static_cast<int64_t>(v * 2);
    default:
      return static_cast<int64_t>(rng());
  }
}

std::string mutateBytes(Rng& rng, std::string s, size_t max) {
  if (rng() % 4 == 0) return std::string(rng() % 64, static_cast<char>(rng()));
  const size_t room = std::min<size_t>(max, s.size() * 2 + 64);
  s.resize(room);
  const size_t n = LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(s.data()), std::min(s.size(), room / 2 + 1), room);
  s.resize(n);
  return s;
}

// Changes one field of `m` (a set one, most often), or adds or drops an
// element of a repeated field; recurses into sub-messages.
void mutateMessage(Message& m, Rng& rng, int depth = 0) {
  const auto* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  std::vector<const FieldDescriptor*> set;
  r->ListFields(m, &set);
  const FieldDescriptor* f = nullptr;
  if (!set.empty() && rng() % 4 != 0)
    f = set[rng() % set.size()];
  else
    f = d->field(static_cast<int>(rng() % static_cast<uint64_t>(d->field_count())));
  if (f->is_repeated()) {
    const int n = r->FieldSize(m, f);
    const uint64_t op = rng() % 4;
    if (op == 0 && n > 0) {  // drop the last element
      r->RemoveLast(&m, f);
      return;
    }
    if (op == 1 || n == 0) {  // add one
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32:
          r->AddInt32(&m, f, static_cast<int32_t>(mutateInteger(rng, 3)));
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          r->AddInt64(&m, f, mutateInteger(rng, 3));
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
          r->AddUInt32(&m, f, static_cast<uint32_t>(mutateInteger(rng, 3)));
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          r->AddUInt64(&m, f, static_cast<uint64_t>(mutateInteger(rng, 3)));
          break;
        case FieldDescriptor::CPPTYPE_STRING:
          r->AddString(&m, f, mutateBytes(rng, "", 64));
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          if (depth < 3) mutateMessage(*r->AddMessage(&m, f), rng, depth + 1);
          break;
        default:
          break;
      }
      return;
    }
    const int i = static_cast<int>(rng() % static_cast<uint64_t>(n));
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        r->SetRepeatedInt32(&m, f, i, static_cast<int32_t>(mutateInteger(rng, r->GetRepeatedInt32(m, f, i))));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->SetRepeatedInt64(&m, f, i, mutateInteger(rng, r->GetRepeatedInt64(m, f, i)));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetRepeatedUInt32(&m, f, i, static_cast<uint32_t>(mutateInteger(rng, r->GetRepeatedUInt32(m, f, i))));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->SetRepeatedUInt64(
            &m, f, i, static_cast<uint64_t>(mutateInteger(rng, static_cast<int64_t>(r->GetRepeatedUInt64(m, f, i)))));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetRepeatedString(&m, f, i, mutateBytes(rng, r->GetRepeatedString(m, f, i), 256));
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 3) mutateMessage(*r->MutableRepeatedMessage(&m, f, i), rng, depth + 1);
        break;
      default:
        break;
    }
    return;
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(&m, f, static_cast<int32_t>(mutateInteger(rng, r->GetInt32(m, f))));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(&m, f, mutateInteger(rng, r->GetInt64(m, f)));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(&m, f, static_cast<uint32_t>(mutateInteger(rng, r->GetUInt32(m, f))));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(&m, f, static_cast<uint64_t>(mutateInteger(rng, static_cast<int64_t>(r->GetUInt64(m, f)))));
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(&m, f, !r->GetBool(m, f));
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      // A known value most often, sometimes one no reader knows.
      const auto* e = f->enum_type();
      const int v = rng() % 8 == 0
                        ? static_cast<int>(mutateInteger(rng, r->GetEnumValue(m, f)))
                        : e->value(static_cast<int>(rng() % static_cast<uint64_t>(e->value_count())))->number();
      r->SetEnumValue(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(&m, f, mutateBytes(rng, r->GetString(m, f), 4096));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (depth < 3) mutateMessage(*r->MutableMessage(&m, f), rng, depth + 1);
      break;
    default:
      break;
  }
}

// Counters 1, 2, 3 ... again after events were added, dropped or moved:
// otherwise the load stops at the first gap and little gets further.
void renumber(radar::fuzz::FuzzLog& l) {
  uint64_t counter = 0;
  for (auto& e : *l.mutable_events())
    if (e.has_counter()) e.set_counter(++counter);
}

void mutateRecording(radar::fuzz::FuzzRecording& rec, Rng& rng) {
  if (rec.logs_size() == 0) {
    rec.add_logs()->mutable_header()->set_pid(100);
    return;
  }
  auto& l = *rec.mutable_logs(static_cast<int>(rng() % static_cast<uint64_t>(rec.logs_size())));
  auto& events = *l.mutable_events();
  const int n = events.size();
  const uint64_t op = rng() % 20;
  if (op < 9 && n > 0) {  // one field of one event
    mutateMessage(events[static_cast<int>(rng() % static_cast<uint64_t>(n))], rng);
  } else if (op < 12) {  // the header: pids, links between processes, origin
    mutateMessage(*l.mutable_header(), rng);
  } else if (op == 12 && n > 0 && n < kMaxEvents) {  // an event again, elsewhere
    const auto copy = events[static_cast<int>(rng() % static_cast<uint64_t>(n))];
    *events.Add() = copy;
    for (int i = events.size() - 1, to = static_cast<int>(rng() % static_cast<uint64_t>(events.size())); i > to; --i)
      events.SwapElements(i, i - 1);
    if (rng() % 2) renumber(l);
  } else if (op == 13 && n > 0) {  // an event dropped
    events.DeleteSubrange(static_cast<int>(rng() % static_cast<uint64_t>(n)), 1);
    if (rng() % 2) renumber(l);
  } else if (op == 14 && n > 1) {  // two events swapped
    events.SwapElements(static_cast<int>(rng() % static_cast<uint64_t>(n)),
                        static_cast<int>(rng() % static_cast<uint64_t>(n)));
    if (rng() % 2) renumber(l);
  } else if (op == 15 && rec.logs_size() > 1 && n < kMaxEvents) {  // an event from another log
    const auto& other = rec.logs(static_cast<int>(rng() % static_cast<uint64_t>(rec.logs_size())));
    if (other.events_size() > 0) {
      *events.Add() = other.events(static_cast<int>(rng() % static_cast<uint64_t>(other.events_size())));
      renumber(l);
    }
  } else if (op == 16 && rec.logs_size() < kMaxLogs) {  // a log twice (a pid reused, a copy)
    const auto copy = l;
    *rec.add_logs() = copy;
  } else if (op == 17 && rec.logs_size() > 1) {  // a log lost
    rec.mutable_logs()->DeleteSubrange(static_cast<int>(rng() % static_cast<uint64_t>(rec.logs_size())), 1);
  } else {  // recording.txt: reaped statuses, problems, a network description
    mutateMessage(*rec.mutable_recording(), rng);
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng rng(seed);
  radar::fuzz::FuzzRecording rec;
  if (rng() % 32 == 0 || !rec.ParseFromArray(data, static_cast<int>(size)))
    return LLVMFuzzerMutate(data, size, max_size);  // now and then the bytes themselves
  const int rounds = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < rounds; ++i) mutateRecording(rec, rng);
  const std::string out = rec.SerializeAsString();
  if (out.size() > max_size) return size;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);  // libprotobuf's complaints about mutated inputs
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  radar::fuzz::FuzzRecording rec;
  if (!rec.ParseFromArray(data, static_cast<int>(size)) || rec.logs_size() > kMaxLogs) return 0;
  for (const auto& l : rec.logs())
    if (l.events_size() > kMaxEvents) return 0;
  const std::string& dir = workDir();
  clearDir(dir);
  if (!radar::fuzz::writeRecording(rec, dir)) return 0;

  // radar check, events, stats.
  radar::trace::LoadOptions options;
  std::string error;
  auto trace = radar::trace::loadTrace({dir}, options, &error);
  if (!trace) return 0;
  radar::analysis::Narrator narrator(*trace);
  const uint32_t events = static_cast<uint32_t>(trace->events.size());
  for (uint32_t i = 0; i < events && i < 4000; ++i) (void)narrator.sentence(i);
  (void)radar::analysis::computeStatistics(*trace);
  // radar replay: the state the window draws, at a few points.
  radar::trace::DisplayModel display(*trace);
  for (uint32_t at : {0u, events / 3, events / 2, events}) (void)display.stateAt(at);
  // --net: the description the recording carries, names and decoding.
  std::vector<std::string> unmatched;
  auto binding = radar::netdesc::Binding::forRecording(*trace, "", true, &unmatched, &error);
  if (binding) trace->described = binding->names();
  for (uint32_t i = 0; i < events && i < 200; ++i) {
    std::string text;
    (void)radar::netdesc::describeContents(binding.get(), *trace, i, &text, &error);
  }
  // radar debug: the script of each process image.
  for (uint32_t p = 0; p < trace->processes.size() && p < 6; ++p) {
    radar::driver::Script script;
    (void)radar::driver::buildScript(*trace, p, &script, &error);
  }
  return 0;
}

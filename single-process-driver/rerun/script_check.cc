#include "rerun/script_check.h"

#include <cstring>

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::rerun {

using driver::ScriptEvent;
using driver::ScriptFd;
using driver::ScriptHeader;
using driver::ScriptThread;

const char* checkScript(const uint8_t* base, size_t size, uint32_t max_threads, ScriptTables* out) {
  if (size < sizeof(ScriptHeader) || std::memcmp(base, driver::kScriptMagic, 8) != 0) return "not a replay script";
  const ScriptHeader& h = *reinterpret_cast<const ScriptHeader*>(base);
  if (h.version != driver::kScriptVersion) return "a replay script of another version";
  auto fits = [&](uint64_t offset, uint64_t count, uint64_t item) {
    return offset % 8 == 0 && offset <= size && count <= (size - offset) / item;
  };
  if (!fits(h.events_offset, h.event_count, sizeof(ScriptEvent)) ||
      !fits(h.threads_offset, h.thread_count, sizeof(ScriptThread)) ||
      !fits(h.inherited_offset, h.inherited_count, sizeof(ScriptFd)) ||
      !fits(h.outputs_offset, h.output_count, sizeof(driver::ScriptOutput)) || !fits(h.data_offset, h.data_size, 1) ||
      h.thread_count > max_threads || h.segment_count == 0)
    return "the replay script is damaged (its tables do not fit the file)";
  const auto* events = reinterpret_cast<const ScriptEvent*>(base + h.events_offset);
  const auto* threads = reinterpret_cast<const ScriptThread*>(base + h.threads_offset);
  const auto* inherited = reinterpret_cast<const ScriptFd*>(base + h.inherited_offset);
  const auto* outputs = reinterpret_cast<const driver::ScriptOutput*>(base + h.outputs_offset);
  const uint8_t* data = base + h.data_offset;
  auto within = [&](const driver::Blob& b) { return b.offset <= h.data_size && b.size <= h.data_size - b.offset; };
  // A text ends with its NUL inside its blob.
  auto ended = [&](const driver::Blob& b) { return !b.size || data[b.offset + b.size - 1] == 0; };
  if (!within(h.label) || !ended(h.label)) return "the replay script is damaged (label)";
  for (uint32_t i = 0; i < h.event_count; ++i) {
    const ScriptEvent& e = events[i];
    if (e.thread >= h.thread_count || (e.next_in_thread != driver::kNoEvent && e.next_in_thread >= h.event_count) ||
        e.segment >= h.segment_count || !within(e.data) || !within(e.address) || !within(e.fds) || !within(e.ready) ||
        !within(e.lengths) || !within(e.strings) || !within(e.text) || !within(e.names.local) ||
        !within(e.names.peer) || !ended(e.text) || !ended(e.strings))
      return "the replay script is damaged (an event points outside it)";
  }
  for (uint32_t i = 0; i < h.thread_count; ++i)
    if (threads[i].first_event != driver::kNoEvent && threads[i].first_event >= h.event_count)
      return "the replay script is damaged (threads)";
  for (uint32_t i = 0; i < h.inherited_count; ++i)
    if (!within(inherited[i].names.local) || !within(inherited[i].names.peer) || !within(inherited[i].path) ||
        !ended(inherited[i].path))
      return "the replay script is damaged (inherited descriptors)";
  // Each descriptor's outputs are a chain forward through the table.
  for (uint32_t i = 0; i < h.output_count; ++i) {
    const uint32_t next = outputs[i].next_same_fd;
    if (outputs[i].fd < 0 || (next != driver::kNoEvent && (next <= i || next >= h.output_count)) ||
        !within(outputs[i].data))
      return "the replay script is damaged (outputs)";
  }
  *out = {events, threads, inherited, outputs, data};
  return nullptr;
}

}  // namespace radar::rerun

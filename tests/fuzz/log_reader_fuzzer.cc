// libFuzzer target: any bytes, read as a log, must give records or a clean
// error; never a crash, a hang or a sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "log/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    char templ[] = "/tmp/radar-fuzz-XXXXXX";
    const int fd = mkstemp(templ);
    close(fd);
    return std::string(templ);
  }();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  using radar::log::LogReader;
  radar::log::LogError error;
  // Read whole, and as radar record's summary reads it (large payloads
  // skipped): where the whole read finds no damage, both find the same
  // events and the skipped payloads where the whole read has them.
  std::vector<radar::log::Record> whole;
  std::vector<std::string> whole_payloads;
  bool whole_clean = false;
  for (auto mode : {LogReader::Payloads::Read, LogReader::Payloads::SkipLarge}) {
    auto reader = LogReader::open(path, &error, mode);
    if (!reader) continue;
    radar::log::Record record;
    std::string payload;
    size_t n = 0;
    while (reader->next(record) && ++n < 100000) {
      if (!record.payload.empty())
        reader->readPayload(record.payload_location, record.payload.size(), &payload, &error);
      if (mode == LogReader::Payloads::Read) {
        whole.push_back(record);
        whole_payloads.emplace_back(record.payload);
        continue;
      }
      if (!whole_clean) continue;
      if (n > whole.size()) __builtin_trap();
      const radar::log::Record& w = whole[n - 1];
      if (record.kind != w.kind || record.counter != w.counter || record.result != w.result ||
          record.entry_ns != w.entry_ns || record.offset != w.offset)
        __builtin_trap();
      if (record.payload.empty() && !whole_payloads[n - 1].empty()) {
        if (!reader->readPayload(record.payload_location, whole_payloads[n - 1].size(), &payload, &error) ||
            payload != whole_payloads[n - 1])
          __builtin_trap();
      } else if (record.payload != whole_payloads[n - 1]) {
        __builtin_trap();
      }
    }
    if (mode == LogReader::Payloads::Read) whole_clean = !reader->error() && n < 100000;
    if (mode == LogReader::Payloads::SkipLarge && whole_clean && (reader->error() || n != whole.size()))
      __builtin_trap();
  }
  return 0;
}

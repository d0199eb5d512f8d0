// libFuzzer target: any bytes, read as a log, must give records or a clean
// error; never a crash, a hang or a sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

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
  // Read whole, and as radar record's summary reads it (large payloads skipped).
  for (auto mode : {LogReader::Payloads::Read, LogReader::Payloads::SkipLarge}) {
    auto reader = LogReader::open(path, &error, mode);
    if (!reader) return 0;
    radar::log::Record record;
    std::string payload;
    size_t n = 0;
    while (reader->next(record) && ++n < 100000) {
      if (!record.payload.empty())
        reader->readPayload(record.payload_location, record.payload.size(), &payload, &error);
    }
  }
  return 0;
}

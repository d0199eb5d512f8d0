// Helpers for the log library's tests: owned events that can be written
// through LogWriter and compared with what LogReader returns.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "log/fields.h"
#include "log/reader.h"
#include "log/writer.h"

namespace radar::log::testing {

struct OwnedChannel {
  uint32_t index = 0;
  ChannelType type = ChannelType::Pipe;
  uint64_t dev = 0, ino = 0;
  std::string path;
  int32_t mpi_rank = 0, mpi_size = 0;  // an MPI communicator's
  ChannelFields fields() const;
};

struct OwnedEvent {
  Kind kind = Kind::Write;
  uint32_t tid = 0;
  int64_t entry_ns = 0, return_ns = 0;
  int32_t fd = 0;
  uint32_t channel = 0;
  bool has_offset = false;
  uint64_t offset = 0, size = 0;
  int64_t result = 0;
  uint32_t error = 0, flags = 0;
  bool has_hash = false;
  uint32_t hash = 0;
  std::string payload;
  uint64_t payload_omitted = 0;
  int32_t peer_pid = 0, status = 0, signal = 0;
  std::string address;
  std::vector<int32_t> fds;
  std::vector<std::string> strings;
  std::vector<ReadyFd> ready;
  std::vector<uint64_t> lengths;
  bool has_timeout = false;
  int32_t timeout_ms = 0;
  bool is_channel = false;
  OwnedChannel channel_info;

  // A view for the writer; valid while this object and `scratch` live.
  EventFields fields(std::vector<const char*>& scratch, ChannelFields& channel_scratch, Iov& iov_scratch) const;
};

// Generates plausible event streams: increasing times, several threads,
// consistent per-channel offsets, payloads of various sizes.
class EventGenerator {
 public:
  EventGenerator(uint64_t seed, int32_t pid, size_t max_payload = 300);
  OwnedEvent next();
  static std::vector<Kind> allKinds();

 private:
  std::mt19937_64 rng_;
  int32_t pid_;
  size_t max_payload_;
  int64_t now_ = 1'000'000'000;
  uint32_t channels_ = 0;
  std::vector<uint64_t> offsets_[2];
};

HeaderFields testHeader(int32_t pid);

// Writes `events` to a new log at `path`. Returns the counters assigned.
std::vector<uint64_t> writeLog(const std::string& path, const std::vector<OwnedEvent>& events,
                               const WriterOptions& options, bool close = true);
// Appends one event through an open writer.
uint64_t appendEvent(LogWriter& w, const OwnedEvent& e);

// Reads every record after the header. Sets *error to the reader's error.
std::vector<Record> readAll(const std::string& path, std::string* error = nullptr,
                            std::vector<std::string>* payloads = nullptr,
                            LogReader::Payloads mode = LogReader::Payloads::Read);

// gtest-friendly comparison: an empty string when equal, else what differs.
std::string compare(const OwnedEvent& expected, const Record& actual, uint64_t counter, const std::string& payload);

// A log as another writer could make it: radar's header for `pid`, then one
// zstd frame of these record bodies, each behind its varint length.
void writeForeignLog(const std::string& path, int32_t pid, const std::vector<std::string>& bodies);

std::string makeTempDir();
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& bytes);

}  // namespace radar::log::testing

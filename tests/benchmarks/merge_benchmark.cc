// The merge at scale.
//   merge_benchmark generate DIR PROCESSES EVENTS [IN_FLIGHT]
//                                                   write a recording: processes in a ring of
//                                                   pipes, each sending to the next; with
//                                                   IN_FLIGHT, about that many messages wait
//                                                   in the pipes at any time
//   merge_benchmark generate-rpc DIR CLIENTS INTERACTIONS
//                                                   write a recording: a server answering its
//                                                   clients over socket pairs, each interaction
//                                                   a request and a reply (4 events)
//   merge_benchmark generate-mpi DIR RANKS EVENTS
//                                                   write a recording as radar's MPI layer
//                                                   does: ranks in a ring on MPI_COMM_WORLD,
//                                                   each MPI_Send to the next matched by its
//                                                   MPI_Recv, and every rank in an
//                                                   MPI_Allreduce every 1000 events a rank
//   merge_benchmark run DIR                         load + merge (in a child, for its peak
//                                                   memory), display state near the start and
//                                                   near the end
//   merge_benchmark merge DIR                       load + merge only
//   merge_benchmark floor DIR MIB                   the in-memory floor: every log decompressed
//                                                   (as many threads as the loader) into MIB MiB
//                                                   of fresh memory, all of it touched: the
//                                                   merge's own peak, so both pay for the faults
//   merge_benchmark touch MIB                       what fresh memory costs here: time to
//                                                   touch MIB MiB, on 4 KiB and on huge pages
// tests/benchmarks/merge_benchmark.sh runs them and compares with `zstd -d`.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zstd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "log/crc32c.h"
#include "log/reader.h"
#include "log/writer.h"
#include "trace/clocks.h"
#include "trace/display.h"
#include "trace/merge.h"

using namespace radar;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// A log of a generated recording (`id_byte`: the first byte of its id),
// with its channels defined; null when it cannot be written.
std::unique_ptr<log::LogWriter> openGeneratedLog(const std::string& dir, uint8_t id_byte, int32_t pid, uint64_t log_id,
                                                 const std::string& name, const std::string& program,
                                                 const std::vector<log::ChannelFields>& channels, uint32_t tail) {
  const uint8_t id[16] = {id_byte};
  const std::string path = dir + "/" + std::to_string(pid) + "-0-" + program + ".rlog";
  const std::string executable = "/bin/" + program;
  const char* argv[] = {name.c_str(), nullptr};
  log::HeaderFields h;
  h.recording_id = id;
  h.log_id = log_id;
  h.host_name = "bench";
  h.boot_id = "boot";
  h.pid = pid;
  h.origin = log::Origin::Root;
  h.executable = executable.c_str();
  h.argv = argv;
  auto w = std::make_unique<log::LogWriter>();
  log::WriterOptions options;
  options.tail_capacity = tail;
  if (w->open(path.c_str(), h, options) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return nullptr;
  }
  for (const auto& c : channels) {
    log::EventFields e;
    e.kind = log::Kind::Channel;
    e.channel_info = &c;
    w->append(e);
  }
  return w;
}

int generate(const std::string& dir, int processes, uint64_t events, uint32_t in_flight) {
  ::mkdir(dir.c_str(), 0700);
  std::vector<std::unique_ptr<log::LogWriter>> logs;
  for (int p = 0; p < processes; ++p) {
    // Pipe p goes from process p to process p+1: our write end and the
    // read end of the pipe from p-1.
    log::ChannelFields out, in;
    out.index = 1;
    out.type = log::ChannelType::Pipe;
    out.dev = 15;
    out.ino = 100000 + p;
    out.access = 1;
    in.index = 2;
    in.type = log::ChannelType::Pipe;
    in.dev = 15;
    in.ino = 100000 + (p + processes - 1) % processes;
    in.access = 0;
    auto w = openGeneratedLog(dir, 1, 1000 + p, 5000 + p, "worker" + std::to_string(p), "worker", {out, in},
                              processes > 200 ? 64 * 1024 : 256 * 1024);
    if (!w) return 1;
    logs.push_back(std::move(w));
  }
  std::mt19937_64 rng(1);
  std::vector<std::deque<uint32_t>> pipe(processes);  // message sizes waiting
  std::vector<uint64_t> sent(processes, 0), received(processes, 0);
  char payload[64];
  std::memset(payload, 'm', sizeof(payload));
  int64_t now = 1'000'000'000;
  for (uint64_t i = 0; i < events; ++i) {
    const int p = static_cast<int>(rng() % processes);
    auto& inbox = pipe[(p + processes - 1) % processes];
    log::EventFields e;
    now += 50 + static_cast<int64_t>(rng() % 500);
    e.entry_ns = now;
    now += 100 + static_cast<int64_t>(rng() % 2000);
    e.return_ns = now;
    e.fd = 3;
    e.has_offset = true;
    // Deep queues: a process reads only when more than its share of the
    // messages in flight wait for it, and then a few.
    const size_t share = in_flight / static_cast<uint32_t>(processes);
    if (inbox.size() > share && rng() % 2) {
      uint32_t n = 0, messages = 0;
      while (!inbox.empty() && n < 128 && (!in_flight || messages++ < 2)) {
        n += inbox.front();
        inbox.pop_front();
      }
      e.kind = log::Kind::Read;
      e.channel = 2;
      e.size = 4096;
      e.result = n;
      e.offset = received[p];
      received[p] += n;
      e.has_hash = true;
      e.hash = static_cast<uint32_t>(rng());
    } else {
      const uint32_t n = 32 + static_cast<uint32_t>(rng() % 32);
      e.kind = log::Kind::Write;
      e.channel = 1;
      e.size = n;
      e.result = n;
      e.offset = sent[p];
      sent[p] += n;
      log::Iov iov{payload, n};
      e.payload = &iov;
      e.payload_iov_count = 1;
      e.payload_len = n;
      pipe[p].push_back(n);
      logs[p]->append(e);
      continue;
    }
    logs[p]->append(e);
  }
  for (auto& w : logs) w->close();
  return 0;
}

long peakRssKiB() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Load and merge in a child: its peak memory is the merge's alone. Prints
// the time and the peak.
int loadAndMerge(const std::string& dir) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) return 1;
  const pid_t child = ::fork();
  if (child == 0) {
    const long before = peakRssKiB();
    const auto t0 = Clock::now();
    std::string error;
    trace::LoadOptions options;
    auto trace = trace::loadTrace({dir}, options, &error);
    const auto t1 = Clock::now();
    if (!trace) {
      std::fprintf(stderr, "%s\n", error.c_str());
      _exit(1);
    }
    const long after = peakRssKiB();
    char line[256];
    const int n = std::snprintf(line, sizeof(line), "%zu %.3f %ld %zu %zu\n", trace->events.size(), seconds(t0, t1),
                                after - before, trace->edges.size(), trace->processes.size());
    if (::write(pipefd[1], line, n) != n) _exit(1);
    _exit(0);
  }
  ::close(pipefd[1]);
  char line[256] = {};
  const ssize_t got = ::read(pipefd[0], line, sizeof(line) - 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  size_t events = 0, edges = 0, procs = 0;
  double load = 0;
  long rss = 0;
  std::sscanf(line, "%zu %lf %ld %zu %zu", &events, &load, &rss, &edges, &procs);
  std::printf("processes: %zu, events: %zu, message edges: %zu\n", procs, events, edges);
  std::printf("load + merge: %.3f s, %.2f M events/s\n", load, events / load / 1e6);
  std::printf("peak memory of load + merge: %.1f MiB, %.1f bytes per event\n", rss / 1024.0,
              rss * 1024.0 / static_cast<double>(events));
  std::fflush(stdout);
  return 0;
}

int run(const std::string& dir) {
  if (loadAndMerge(dir) != 0) return 1;

  // Display state: near the start vs near the end (same cost, thanks to
  // checkpoints).
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  const auto d0 = Clock::now();
  trace::DisplayModel display(*trace);
  const auto d1 = Clock::now();
  std::printf("display checkpoints: %zu every %u events, built in %.3f s\n", display.checkpointCount(),
              display.checkpointInterval(), seconds(d0, d1));
  const uint32_t n = static_cast<uint32_t>(trace->events.size());
  std::mt19937 rng(3);
  auto timeAt = [&](uint32_t lo, uint32_t hi) {
    const auto a = Clock::now();
    size_t sink = 0;
    for (int k = 0; k < 200; ++k) sink += display.stateAt(lo + rng() % (hi - lo)).queued.size();
    const auto b = Clock::now();
    if (sink == 42) std::printf(" ");
    return seconds(a, b) / 200;
  };
  const double start = timeAt(0, n / 100 + 1), end = timeAt(n - n / 100 - 1, n);
  std::printf("display state near the start: %.3f ms, near the end: %.3f ms, ratio %.2f\n", start * 1e3, end * 1e3,
              end / start);
  // happens-before queries, after the clocks are built.
  const auto c0 = Clock::now();
  const auto& clocks = trace->clocks();
  const auto h0 = Clock::now();
  std::printf("happens-before clocks: checkpoint every %u events, %.1f MiB, built in %.3f s\n",
              clocks.checkpointInterval(), clocks.memoryBytes() / 1048576.0, seconds(c0, h0));
  int yes = 0;
  for (int k = 0; k < 2000; ++k) yes += trace->happensBefore(rng() % n, rng() % n);
  const auto h1 = Clock::now();
  std::printf("happens-before: %.1f us per query (%d of 2000 true)\n", seconds(h0, h1) / 2000 * 1e6, yes);
  return 0;
}

// Decompresses `path` (zstd frames) into buffer[*at, end), wrapping at
// the end: what loading a log must at least do with its bytes.
bool decompressInto(const std::string& path, char* buffer, size_t size, size_t* at) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ZSTD_DStream* d = ZSTD_createDStream();
  ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
  bool ok = true;
  while (ok && input.pos < input.size) {
    if (*at >= size) *at = 0;
    ZSTD_outBuffer output{buffer + *at, size - *at, 0};
    const size_t r = ZSTD_decompressStream(d, &output, &input);
    if (ZSTD_isError(r)) {
      // A skippable or damaged frame: skip the rest of this log.
      ok = output.pos > 0 || input.pos > 0;
      break;
    }
    *at += output.pos;
  }
  ZSTD_freeDStream(d);
  return ok;
}

int floorOf(const std::string& dir, size_t mib) {
  const size_t bytes = mib << 20;
  const std::vector<std::string> logs = log::listLogs(dir);
  const trace::LoadOptions loader;
  const int threads = std::max(1, loader.threads);
  const auto t0 = Clock::now();
  char* buffer = static_cast<char*>(trace::allocateBigArray(bytes));
  std::atomic<size_t> next{0}, decompressed{0};
  auto work = [&](int k) {
    // Each thread its slice: the memory is touched once, by one thread.
    const size_t begin = bytes / threads * k, end = k + 1 == threads ? bytes : bytes / threads * (k + 1);
    size_t at = 0, total = 0;
    for (size_t i; (i = next.fetch_add(1)) < logs.size();) {
      const size_t before = at;
      decompressInto(logs[i], buffer + begin, end - begin, &at);
      total += at >= before ? at - before : at + (end - begin - before);
    }
    for (size_t page = at; page < end - begin; page += 4096) buffer[begin + page] = 1;  // the rest, touched
    decompressed += total;
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(work, k);
  work(0);
  for (auto& t : pool) t.join();
  const double s = seconds(t0, Clock::now());
  trace::freeBigArray(buffer, bytes);
  std::printf("floor: %.3f s: %zu logs, %.1f MiB decompressed into %zu MiB of fresh memory, %d threads\n", s,
              logs.size(), static_cast<double>(decompressed.load()) / 1048576.0, mib, threads);
  return 0;
}

// A merge builds hundreds of MiB of arrays; on some virtual machines the
// page faults of fresh memory cost more than the work done in it.
int touch(size_t mib) {
  const size_t bytes = mib << 20;
  for (const bool huge : {false, true}) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    if (huge) ::madvise(p, bytes, MADV_HUGEPAGE);
    const auto a = Clock::now();
    for (size_t k = 0; k < bytes; k += 4096) static_cast<volatile char*>(p)[k] = 1;
    const double s = seconds(a, Clock::now());
    std::printf("fresh memory, %s pages: %.2f s per GiB\n", huge ? "huge" : "4 KiB", s * 1024 / mib);
    ::munmap(p, bytes);
  }
  return 0;
}

}  // namespace

namespace {

std::unique_ptr<log::LogWriter> openRankLog(const std::string& dir, int rank, int ranks) {
  log::ChannelFields world;
  world.index = 1;
  world.type = log::ChannelType::MpiCommunicator;
  world.origin = log::ChannelOrigin::Created;
  world.path = "bench/world";
  world.mpi_rank = rank;
  world.mpi_size = ranks;
  auto w = openGeneratedLog(dir, 3, 3000 + rank, 7000 + static_cast<uint64_t>(rank), "app", "app", {world}, 64 * 1024);
  if (!w) return nullptr;
  log::EventFields e;
  const int32_t init[2] = {rank, ranks};
  e = {};
  e.kind = log::Kind::MpiInit;
  e.channel = 1;
  e.fds = init;
  e.fd_count = 2;
  w->append(e);
  return w;
}

}  // namespace

int generateMpi(const std::string& dir, int ranks, uint64_t events) {
  ::mkdir(dir.c_str(), 0700);
  std::vector<std::unique_ptr<log::LogWriter>> logs;
  for (int r = 0; r < ranks; ++r) {
    logs.push_back(openRankLog(dir, r, ranks));
    if (!logs.back()) return 1;
  }
  std::mt19937_64 rng(5);
  std::vector<uint32_t> waiting(ranks, 0);  // messages from the previous rank not yet received
  std::vector<uint64_t> sent(ranks, 0), received(ranks, 0);
  uint64_t value = 0;
  int64_t now = 1'000'000'000;
  const char* allreduce = "MPI_Allreduce";
  for (uint64_t i = 0; i < events; ++i) {
    log::EventFields e;
    now += 50 + static_cast<int64_t>(rng() % 500);
    e.entry_ns = now;
    now += 100 + static_cast<int64_t>(rng() % 2000);
    e.return_ns = now;
    e.channel = 1;
    e.has_offset = true;
    if (i % (1000 * static_cast<uint64_t>(ranks)) == 0) {  // every rank, one collective
      e.has_offset = false;
      e.kind = log::Kind::MpiCollective;
      e.strings = &allreduce;
      e.string_count = 1;
      for (auto& w : logs) w->append(e);
      continue;
    }
    const int r = static_cast<int>(rng() % ranks);
    const int from = (r + ranks - 1) % ranks;
    char bytes[8];
    std::memcpy(bytes, &value, sizeof bytes);
    log::Iov iov{bytes, sizeof bytes};
    const int32_t sizes[4] = {from, 0, 64, 0};
    if (waiting[r] && rng() % 2) {  // receive the oldest message from the previous rank
      --waiting[r];
      e.kind = log::Kind::MpiRecv;
      e.peer_pid = from;
      e.size = 64;
      e.result = sizeof bytes;
      e.offset = received[r];
      received[r] += sizeof bytes;
      e.fds = sizes;
      e.fd_count = 4;
      e.has_hash = true;
      e.hash = static_cast<uint32_t>(rng());
    } else {
      const int32_t count[1] = {static_cast<int32_t>(sizeof bytes)};
      e.kind = log::Kind::MpiSend;
      e.peer_pid = (r + 1) % ranks;
      e.size = sizeof bytes;
      e.result = sizeof bytes;
      e.offset = sent[r];
      sent[r] += sizeof bytes;
      e.fds = count;
      e.fd_count = 1;
      e.payload = &iov;
      e.payload_iov_count = 1;
      e.payload_len = sizeof bytes;
      ++value;
      ++waiting[(r + 1) % ranks];
      logs[r]->append(e);
      continue;
    }
    logs[r]->append(e);
  }
  for (auto& w : logs) w->close();
  return 0;
}

// A server and its clients, each client on a socket pair of its own: the
// client writes a request, the server reads it and writes a reply, the
// client reads it. Times are consistent: a read returns after its write.
int generateRpc(const std::string& dir, int clients, uint64_t interactions) {
  ::mkdir(dir.c_str(), 0700);
  auto open = [&](int index, const std::string& name, const std::vector<log::ChannelFields>& channels) {
    return openGeneratedLog(dir, 2, 1000 + index, 7000 + static_cast<uint64_t>(index), name, name, channels,
                            clients > 200 ? 64 * 1024 : 256 * 1024);
  };
  auto socket = [](uint32_t index, uint64_t ino, uint64_t peer) {
    log::ChannelFields c;
    c.index = index;
    c.type = log::ChannelType::UnixStream;
    c.dev = 9;
    c.ino = ino;
    c.peer_ino = peer;
    c.access = 2;
    return c;
  };
  std::vector<log::ChannelFields> server_ends;
  for (int c = 0; c < clients; ++c) server_ends.push_back(socket(1 + c, 300000 + c, 200000 + c));
  auto server = open(0, "server", server_ends);
  if (!server) return 1;
  std::vector<std::unique_ptr<log::LogWriter>> client;
  for (int c = 0; c < clients; ++c) {
    client.push_back(open(1 + c, "client", {socket(1, 200000 + c, 300000 + c)}));
    if (!client.back()) return 1;
  }
  std::mt19937_64 rng(2);
  std::vector<uint64_t> to_server(clients, 0), to_client(clients, 0);
  char payload[64];
  std::memset(payload, 'r', sizeof(payload));
  int64_t now = 1'000'000'000;
  auto data = [&](log::LogWriter& w, log::Kind kind, uint32_t channel, uint32_t n, uint64_t* offset, int64_t entry,
                  int64_t ret) {
    log::EventFields e;
    e.kind = kind;
    e.entry_ns = entry;
    e.return_ns = ret;
    e.fd = 3;
    e.channel = channel;
    e.size = kind == log::Kind::Write ? n : 4096;
    e.result = n;
    e.has_offset = true;
    e.offset = *offset;
    *offset += n;
    log::Iov iov{payload, n};
    if (kind == log::Kind::Write) {
      e.payload = &iov;
      e.payload_iov_count = 1;
      e.payload_len = n;
    }
    w.append(e);
  };
  for (uint64_t i = 0; i < interactions; ++i) {
    const int c = static_cast<int>(rng() % clients);
    const uint32_t q = 16 + static_cast<uint32_t>(rng() % 48), a = 16 + static_cast<uint32_t>(rng() % 48);
    const int64_t ask = now + 10 + static_cast<int64_t>(rng() % 200);
    data(*client[c], log::Kind::Write, 1, q, &to_server[c], ask, ask + 300);
    uint64_t server_in = to_server[c] - q, server_out = to_client[c];
    const int64_t take = ask + 100 + static_cast<int64_t>(rng() % 2000);
    data(*server, log::Kind::Read, 1 + c, q, &server_in, ask - 50, take);
    const int64_t answer = take + 200 + static_cast<int64_t>(rng() % 5000);
    data(*server, log::Kind::Write, 1 + c, a, &server_out, answer, answer + 300);
    to_client[c] = server_out;
    uint64_t client_in = to_client[c] - a;
    const int64_t got = answer + 400 + static_cast<int64_t>(rng() % 1000);
    data(*client[c], log::Kind::Read, 1, a, &client_in, ask + 400, got);
    now = got;
  }
  server->close();
  for (auto& w : client) w->close();
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "generate") == 0)
    return generate(argv[2], std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10),
                    argc >= 6 ? static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 10)) : 0);
  if (argc >= 4 && std::strcmp(argv[1], "floor") == 0) return floorOf(argv[2], std::strtoull(argv[3], nullptr, 10));
  if (argc >= 5 && std::strcmp(argv[1], "generate-mpi") == 0)
    return generateMpi(argv[2], std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10));
  if (argc >= 5 && std::strcmp(argv[1], "generate-rpc") == 0)
    return generateRpc(argv[2], std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10));
  if (argc >= 3 && std::strcmp(argv[1], "run") == 0) return run(argv[2]);
  if (argc >= 3 && std::strcmp(argv[1], "merge") == 0) return loadAndMerge(argv[2]);
  if (argc >= 3 && std::strcmp(argv[1], "touch") == 0) return touch(std::strtoul(argv[2], nullptr, 10));
  std::fprintf(stderr,
               "usage: merge_benchmark generate DIR PROCESSES EVENTS [IN_FLIGHT] | generate-mpi DIR RANKS EVENTS | "
               "generate-rpc DIR CLIENTS INTERACTIONS | run DIR | merge DIR | floor DIR MIB | touch MIB\n");
  return 2;
}

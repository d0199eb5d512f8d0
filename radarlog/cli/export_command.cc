// `radar export`: a recording in the formats of the tools people already
// use (Wireshark, Perfetto, SQLite, Parquet).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "export/chrome_json.h"
#include "export/database.h"
#include "export/parquet_export.h"
#include "export/pcapng.h"
#include "export/perfetto.h"
#include "trace/select.h"

namespace radar::cli {

const char kExportHelp[] =
    "usage: radar export [OPTIONS] DIR...\n\n"
    "Writes a recording in the formats of other tools (docs/exporting.md):\n"
    "  --pcapng FILE     every message of every channel as packets, for Wireshark\n"
    "                    and tshark: TCP and UDP keep their addresses; pipes, Unix\n"
    "                    sockets and the like become TCP streams (UDP for datagram\n"
    "                    sockets) between addresses of their own in 127.128.0.0/9.\n"
    "                    Each packet's comment names the process and the event\n"
    "  --decode-as CHANNEL=PROTOCOL\n"
    "                    give the receiving side of a channel that is not TCP or UDP\n"
    "                    the port of PROTOCOL, so that Wireshark decodes it: http,\n"
    "                    pgsql, redis, dns, tls, mysql ... or a port number. CHANNEL\n"
    "                    is its number or its name as `radar events` shows (repeat)\n"
    "  --perfetto FILE   a Perfetto trace (ui.perfetto.dev): a track per process and\n"
    "                    thread, a slice per call, a flow from each send to each\n"
    "                    receive of its bytes, user events and findings as instants\n"
    "  --chrome-json FILE\n"
    "                    the same in Chrome's JSON trace format, for the tools that\n"
    "                    read only that (about:tracing, speedscope)\n"
    "  --sqlite FILE     the recording as an SQLite database: the tables and views\n"
    "                    of `radar sql` (docs/queries.md)\n"
    "  --bytes           with --sqlite: a table `bytes` with every message's bytes\n"
    "  --parquet DIR     the same tables as Parquet files in a new directory, for\n"
    "                    DuckDB, ClickHouse, Spark: events and messages split by\n"
    "                    host and process (DIR/events/host=H/process=N/)\n"
    "FILE '-' is standard output (pcapng, Perfetto, Chrome JSON). A file or\n"
    "directory is written whole\n"
    "or not at all.\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0, or 2 when the recording cannot be read, an option is wrong\n"
    "or a file cannot be written.\n";

const OptionSpec kExportOptionList[] = {{"pcapng", 0, "FILE"},
                                        {"decode-as", 0, "CHANNEL=PROTOCOL", InUsage::kWith},
                                        {"perfetto", 0, "FILE"},
                                        {"chrome-json", 0, "FILE"},
                                        {"sqlite", 0, "FILE"},
                                        {"bytes", 0, nullptr, InUsage::kWith},
                                        {"parquet", 0, "DIR"},
                                        kNetOption,
                                        kNoNetOption,
                                        kMergeUnrelatedOption};
const std::span<const OptionSpec> kExportOptions{kExportOptionList};

namespace {
// --decode-as CHANNEL=PROTOCOL, each into `pcapng`; what is wrong, or "".
std::string decodeAs(const Args& args, exporting::PcapngOptions* pcapng) {
  for (const auto& spec : args.values("decode-as")) {
    const auto eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) return "--decode-as: expected CHANNEL=PROTOCOL";
    const uint16_t port = exporting::decodeAsPort(spec.substr(eq + 1));
    if (!port)
      return "--decode-as: unknown protocol '" + spec.substr(eq + 1) +
             "' (a name such as http, pgsql, redis, or a port number)";
    pcapng->decode_as[spec.substr(0, eq)] = port;
  }
  return "";
}

// Each --decode-as channel as the channels it names, by number, as
// --channel selects them (a named socket's name: every connection to it);
// one the recording does not have, said; else "".
std::string resolveDecodeAs(const trace::Trace& t, exporting::PcapngOptions* pcapng) {
  std::map<std::string, uint16_t> by_number;
  // Names first, then numbers: a channel given by its number is decoded
  // as asked, whatever a name that covers it says.
  for (const bool numbers : {false, true})
    for (const auto& [channel, port] : pcapng->decode_as) {
      if ((channel.find_first_not_of("0123456789") == std::string::npos) != numbers) continue;
      std::set<uint32_t> named;
      if (!trace::selectChannels(t, channel, &named))
        return "--decode-as: no channel '" + channel + "' in this recording";
      for (uint32_t c : named) by_number[std::to_string(c + 1)] = port;
    }
  pcapng->decode_as = std::move(by_number);
  return "";
}
}  // namespace

namespace {

// Seconds since the last call (the first: since it was made): how long each
// file took, beyond loading and merging (docs/performance.md).
class Lap {
 public:
  double seconds() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// A progress line for writing `path`, fed as an exporter's Progress.
struct WritingProgress {
  explicit WritingProgress(const std::string& path) : line("radar export: writing " + path, "events") {}
  exporting::Progress progress() {
    return [this](uint64_t done, uint64_t total) { line.update(done, total); };
  }
  TerminalProgress line;
};

// Writes one export to a file or standard output, then says what it holds
// (`said`, from the counts the writer filled) and how long it took.
bool exportStream(const std::string& path, const std::function<bool(std::FILE*, std::string*)>& write,
                  const std::function<std::string()>& said, Lap& lap, WritingProgress& shown) {
  std::string error;
  const bool written = writeStream(path, write, &error);
  shown.line.finish();
  if (!written) {
    std::fprintf(stderr, "radar export: %s\n", error.c_str());
    return false;
  }
  std::fprintf(stderr, "radar export: %s: %s in %.3f s\n", path.c_str(), said().c_str(), lap.seconds());
  return true;
}

std::string n(uint64_t v) { return std::to_string(v); }

bool exportPcapng(const trace::Trace& t, exporting::PcapngOptions pcapng, const std::string* path, Lap& lap) {
  exporting::PcapngCounts c;
  WritingProgress shown(*path);
  pcapng.progress = shown.progress();
  return exportStream(
      *path, [&](std::FILE* f, std::string* e) { return exporting::writePcapng(t, pcapng, f, &c, e); },
      [&] {
        return n(c.packets) + " packets, " + n(c.payload_bytes) + " bytes of messages, " + n(c.streams) + " channels";
      },
      lap, shown);
}

bool exportPerfetto(const trace::Trace& t, const std::string* path, Lap& lap) {
  exporting::PerfettoCounts c;
  WritingProgress shown(*path);
  return exportStream(
      *path, [&](std::FILE* f, std::string* e) { return exporting::writePerfetto(t, f, &c, e, shown.progress()); },
      [&] {
        return n(c.process_tracks) + " process and " + n(c.thread_tracks) + " thread tracks, " + n(c.slices) +
               " slices, " + n(c.instants) + " instants, " + n(c.flows) + " flows";
      },
      lap, shown);
}

bool exportChromeJson(const trace::Trace& t, const std::string* path, Lap& lap) {
  exporting::ChromeJsonCounts c;
  WritingProgress shown(*path);
  return exportStream(
      *path, [&](std::FILE* f, std::string* e) { return exporting::writeChromeJson(t, f, &c, e, shown.progress()); },
      [&] {
        return n(c.processes) + " processes, " + n(c.threads) + " threads, " + n(c.slices) + " slices, " +
               n(c.instants) + " instants, " + n(c.flows) + " flows";
      },
      lap, shown);
}

bool exportSqlite(const trace::Trace& t, bool bytes, const std::string* path, Lap& lap) {
  std::string error;
  exporting::DatabaseOptions options;
  options.bytes = bytes;
  options.radar_version = RADAR_VERSION;
  WritingProgress shown(*path);
  options.progress = shown.progress();
  exporting::DatabaseCounts counts;
  if (!writeThroughTemporary(
          *path,
          [&](const std::string& partial, std::string* e) {
            ::unlink(partial.c_str());  // writeDatabase makes it
            if (exporting::writeDatabase(t, partial, options, &counts, e)) return true;
            *e = "cannot write " + *path + ": " + *e;
            return false;
          },
          &error)) {
    shown.line.finish();
    std::fprintf(stderr, "radar export: %s\n", error.c_str());
    return false;
  }
  shown.line.finish();
  std::fprintf(stderr, "radar export: %s: %llu events, %llu messages in %.3f s\n", path->c_str(),
               static_cast<unsigned long long>(counts.events), static_cast<unsigned long long>(counts.messages),
               lap.seconds());
  return true;
}

bool exportParquet(const trace::Trace& t, const std::string* dir, Lap& lap) {
  std::string error;
  exporting::ParquetCounts counts;
  WritingProgress shown(*dir);
  const bool written = exporting::writeParquet(t, *dir, RADAR_VERSION, &counts, &error, shown.progress());
  shown.line.finish();
  if (!written) {
    std::fprintf(stderr, "radar export: %s\n", error.c_str());
    return false;
  }
  std::fprintf(stderr, "radar export: %s: %llu events, %llu messages in %llu files in %.3f s\n", dir->c_str(),
               static_cast<unsigned long long>(counts.events), static_cast<unsigned long long>(counts.messages),
               static_cast<unsigned long long>(counts.files), lap.seconds());
  return true;
}

}  // namespace

int runExport(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kExportOptions)) return usageError("export", args.error());
  if (args.positional().empty()) return usageError("export", "no recording given");
  if (!args.has("pcapng") && !args.has("perfetto") && !args.has("chrome-json") && !args.has("sqlite") &&
      !args.has("parquet"))
    return usageError("export",
                      "nothing to export: give --pcapng, --perfetto, --chrome-json or --sqlite FILE, or --parquet DIR");
  if (args.value("sqlite") == "-") return usageError("export", "--sqlite: a database needs a file, not '-'");
  if (args.value("parquet") == "-") return usageError("export", "--parquet: give a directory, not '-'");
  exporting::PcapngOptions pcapng;
  pcapng.application = std::string("radar ") + RADAR_VERSION;
  if (std::string bad = decodeAs(args, &pcapng); !bad.empty()) return usageError("export", bad);
  // The pcapng holds every message's bytes: read once, with the logs, and
  // kept in memory (up to an eighth of it; beyond, read again from the
  // logs) rather than decompressed and decoded a second time.
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  const uint64_t keep_sent_bytes =
      args.value("pcapng") && pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) / 8 : 0;
  const Loaded loaded =
      loadForCommand("export", args.positional(), netChoice(args), args.has("merge-unrelated"), false, keep_sent_bytes);
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  if (std::string bad = resolveDecodeAs(t, &pcapng); !bad.empty()) return usageError("export", bad);
  Lap lap;
  const auto pcapng_path = args.value("pcapng"), perfetto_path = args.value("perfetto");
  const auto sqlite_path = args.value("sqlite"), parquet_dir = args.value("parquet");
  if (pcapng_path && !exportPcapng(t, pcapng, &*pcapng_path, lap)) return kExitUsage;
  if (perfetto_path && !exportPerfetto(t, &*perfetto_path, lap)) return kExitUsage;
  if (const auto chrome = args.value("chrome-json"); chrome && !exportChromeJson(t, &*chrome, lap)) return kExitUsage;
  if (sqlite_path && !exportSqlite(t, args.has("bytes"), &*sqlite_path, lap)) return kExitUsage;
  if (parquet_dir && !exportParquet(t, &*parquet_dir, lap)) return kExitUsage;
  return kExitOk;
}

}  // namespace radar::cli

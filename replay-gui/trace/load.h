// Reading the logs of one or several recording directories into compact
// events, before the merge orders and connects them (merge.h).
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "radar/proto/radarlog.pb.h"
#include "trace/trace.h"

namespace radar::trace {

// The merge's steps (merge.cc), for a progress line that counts them.
inline constexpr int kMergeSteps = 11;

struct LoadOptions {
  // Called now and then with bytes of logs read so far and in all.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Called as each of the merge's kMergeSteps steps ends, with its number.
  std::function<void(int step)> merge_progress;
  const std::atomic<bool>* cancel = nullptr;  // set it to stop loading (the load fails)
  int threads = 2;
  // Directories that share no channel (two runs, say) are merged only when
  // asked: nothing in one would be related to anything in the other.
  bool merge_unrelated = false;
  // Keep each data event's checksum beside the trace (Trace::hashes):
  // radar diff compares messages by them instead of reading their bytes.
  bool keep_hashes = false;
  // Keep the bytes of sends in memory beside the trace, up to this many
  // (Trace::sent_bytes): for a pass over every message's bytes.
  uint64_t keep_sent_bytes = 0;
  // A recording radar record is still making, read as it stood then
  // (CLOCK_REALTIME ns; 0: a finished one): told as a freeze taken at that
  // moment (Trace::frozen_at_ns), so what has not happened yet is no
  // finding, and marked Trace::running.
  int64_t running_at_ns = 0;
};

// What MPI's matching needs of an MPI event beyond its Event (log kinds
// MPI_SEND ... MPI_PROBE): the rank and tag, the receive's post (a
// collective's operation is its Event::value, mpiCollectiveCode()).
struct MpiCall {
  int32_t peer = -1;    // the destination, the source got, a collective's root (-1: none)
  int32_t tag = 0;      // the tag sent or got
  uint32_t serial = 0;  // MPI_IRECV: its serial; MPI_RECV: its MPI_IRECV's (0: it posted itself)
  // MPI_RECV: posted for any source, any tag (or only `asked_tag`).
  bool any_source = false, any_tag = false;
  int32_t asked_tag = 0;
};

// What the merge needs of a synchronization event (log kinds MUTEX_LOCK ...
// BARRIER_WAIT, radar record --sync): its object and the numbers it took.
struct SyncCall {
  uint64_t object[3] = {};  // an address, or a shared file's device, inode and offset
  bool shared = false;      // known by its place in a file: one object across processes
  uint64_t number = 0;      // taken at the operation (0: none, as a failed try)
  uint64_t since = 0;       // a wait's number when it began (a barrier's arrival)
  uint32_t parties = 0;     // a barrier's count
};

// What the logs say, before the merge.
struct RawRecording {
  std::vector<Process> processes;
  std::vector<Endpoint> endpoints;
  // Per endpoint: its data events that did not fail, sends and receives
  // (counted while loading: the matching sizes its tables with them without
  // another pass over millions of events).
  std::vector<uint32_t> data_sends, data_receives;
  BigArray<Event> events;                             // grouped by process, each in counter order
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // per process: [begin, end) in events
  // The earliest and the latest call entry of any event, by the wall clock
  // (entry_ns + its process's realtime_offset); first > second when there
  // are no events, or when damaged times go beyond 64 bits.
  std::pair<int64_t, int64_t> wall_range{1, 0};
  std::map<uint32_t, std::string> addresses;  // datagram events: the other side's address
  // sendmmsg/recvmmsg events: the length of each message they moved (a
  // datagram socket matches them one datagram at a time).
  std::map<uint32_t, std::vector<uint32_t>> message_lengths;
  // An eventfd's writes and reads: the count each added or took.
  std::map<uint32_t, uint64_t> counts;
  // MPI events by process, in its order: each one's offset in the
  // process's range (its position less ranges[p].first) and call. Kept as
  // each log's reading made them: gathering them into one array would fill
  // as much fresh memory again (a map's nodes would cost 3x).
  std::vector<std::vector<std::pair<uint32_t, MpiCall>>> mpi_calls;
  std::vector<std::pair<uint32_t, SyncCall>> sync_calls;  // synchronization events, by position
  const MpiCall* mpiCallAt(uint32_t position) const {
    const uint32_t p = position < events.size() ? events[position].process : kNone;
    if (p >= mpi_calls.size() || p >= ranges.size() || position < ranges[p].first) return nullptr;
    const uint32_t offset = position - ranges[p].first;
    const auto& calls = mpi_calls[p];
    auto it = std::lower_bound(calls.begin(), calls.end(), offset,
                               [](const auto& call, uint32_t o) { return call.first < o; });
    return it != calls.end() && it->first == offset ? &it->second : nullptr;
  }
  std::vector<std::string> boots;
  std::vector<std::string> directories;
  std::vector<std::string> directory_ids;  // by directory: its recording id ("" where unknown)
  std::vector<LoadProblem> problems;
  std::vector<std::string> warnings;         // read, but the user should know (Trace::warnings)
  std::vector<proto::Recording> recordings;  // each directory's recording.txt
  bool keep_hashes = false;                  // LoadOptions::keep_hashes
  int64_t running_at_ns = 0;                 // LoadOptions::running_at_ns
  std::vector<Trace::SentBytes> sent_bytes;  // per process: LoadOptions::keep_sent_bytes
};

// Reads every *.rlog in `dirs` (a log file may also be given directly).
// Damaged and unreadable logs are read up to the damage and reported in
// `problems`; the load fails (returns false, *error) only when nothing at
// all can be read or when cancelled.
bool loadLogs(const std::vector<std::string>& dirs, const LoadOptions& options, RawRecording* out, std::string* error);

// The name a process is shown with: its program, or the script an
// interpreter runs ("mp_socket.py" rather than "python3").
std::string processName(const std::vector<std::string>& argv, const std::string& executable);

// The names of a recording directory's processes, from its logs' headers
// alone (no events read, no merge: quick enough for a shell's TAB), at
// most `most_logs` logs read. Empty where `dir` is not a recording.
std::vector<std::string> processNamesOf(const std::string& dir, size_t most_logs);

}  // namespace radar::trace

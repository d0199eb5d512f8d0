#include "fuzz_recording.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <unistd.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "log/reader.h"
#include "log/wire.h"
#include "log/writer.h"

namespace radar::fuzz {
namespace {

bool appendToFile(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0 && ok;
}

// The header as LogWriter takes it; `storage` keeps what it points to.
struct HeaderView {
  log::HeaderFields fields;
  std::string recording_id;
  std::vector<const char*> argv, environment;
  std::vector<int32_t> open_fds;

  explicit HeaderView(const proto::Header& h) {
    recording_id = h.recording_id();
    recording_id.resize(16, '\0');
    log::HeaderFields& f = fields;
    f.recording_id = reinterpret_cast<const uint8_t*>(recording_id.data());
    f.log_id = h.log_id();
    f.host_name = h.host_name().c_str();
    f.boot_id = h.boot_id().c_str();
    f.pid = h.pid();
    f.ppid = h.ppid();
    f.origin = static_cast<log::Origin>(h.origin() & 0xff);
    f.parent_log_id = h.parent_log_id();
    f.parent_counter = h.parent_counter();
    f.generation = h.generation();
    f.executable = h.executable().c_str();
    f.executable_size = h.executable_size();
    f.executable_mtime_ns = h.executable_mtime_ns();
    for (const auto& a : h.argv()) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    f.argv = argv.data();
    f.cwd = h.cwd().c_str();
    for (const auto& e : h.environment()) environment.push_back(e.c_str());
    environment.push_back(nullptr);
    f.environment = environment.data();
    f.realtime_ns = h.realtime_ns();
    f.monotonic_ns = h.monotonic_ns();
    f.has_payload_limit = h.has_payload_limit();
    f.payload_limit = h.payload_limit();
    f.nondet = h.nondet();
    f.recorder_version = h.recorder_version().c_str();
    f.uid = h.uid();
    f.gid = h.gid();
    open_fds.assign(h.open_fds().begin(), h.open_fds().end());
    f.open_fds = open_fds.data();
    f.open_fd_count = open_fds.size();
    f.has_nofile = h.has_nofile_soft();
    f.nofile_soft = h.nofile_soft();
    f.nofile_hard = h.nofile_hard();
  }
};

}  // namespace

bool writeRecording(const FuzzRecording& recording, const std::string& dir) {
  bool any = false;
  for (int i = 0; i < recording.logs_size(); ++i) {
    const FuzzLog& l = recording.logs(i);
    const std::string path = dir + "/" + std::to_string(i) + ".rlog";
    ::unlink(path.c_str());
    {
      const HeaderView header(l.header());
      log::WriterOptions options;
      options.tail_capacity = 4096;
      log::LogWriter w;
      if (w.open(path.c_str(), header.fields, options) != 0) continue;
      w.close();  // the header is now the first frame
    }
    std::string content;
    for (const proto::Event& e : l.events()) {
      const std::string body = e.SerializeAsString();
      uint8_t len[10];
      content.append(reinterpret_cast<char*>(len), static_cast<size_t>(wire::putVarint(len, body.size()) - len));
      content += body;
    }
    if (!content.empty()) {
      std::string frame(ZSTD_compressBound(content.size()), '\0');
      const size_t n = ZSTD_compress(frame.data(), frame.size(), content.data(), content.size(), 1);
      if (ZSTD_isError(n)) continue;
      frame.resize(n);
      if (!appendToFile(path, frame)) continue;
    }
    any = true;
  }
  const std::string txt = dir + "/recording.txt";
  ::unlink(txt.c_str());
  if (recording.has_recording()) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(recording.recording(), &text);
    std::ofstream(txt) << text;
  }
  return any;
}

bool readRecording(const std::string& dir, FuzzRecording* out, std::string* error) {
  out->Clear();
  for (const std::string& path : log::listLogs(dir)) {
    log::LogError err;
    auto reader = log::LogReader::open(path, &err);
    if (!reader) {
      *error = err.toString();
      return false;
    }
    FuzzLog* l = out->add_logs();
    *l->mutable_header() = reader->header();
    log::Record r;
    int64_t previous_return = 0;  // the frame's time base: every event follows it
    while (reader->next(r)) {
      if (r.kind == log::Kind::Header) continue;  // the FuzzLog's header
      proto::Event* e = l->add_events();
      e->set_kind(static_cast<proto::Kind>(r.kind));
      if (r.kind == log::Kind::Channel) {
        e->mutable_channel_info()->ParseFromArray(r.channel_bytes.data(), static_cast<int>(r.channel_bytes.size()));
        continue;
      }
      if (!log::isCounted(r.kind)) {
        for (auto s : r.strings) e->add_strings(std::string(s));
        continue;
      }
      e->set_counter(r.counter);
      e->set_tid(r.tid);
      e->set_entry_delta_ns(r.entry_ns - previous_return);
      e->set_duration_ns(static_cast<uint64_t>(r.return_ns - r.entry_ns));
      previous_return = r.return_ns;
      e->set_fd(r.fd);
      e->set_channel(r.channel);
      if (r.has_offset) e->set_offset(r.offset);
      e->set_size(r.size);
      e->set_result(r.result);
      e->set_error(r.error);
      e->set_flags(r.flags);
      if (r.has_hash) e->set_hash(r.hash);
      e->set_payload_omitted(r.payload_omitted);
      e->set_payload(std::string(r.payload));
      e->set_peer_pid(r.peer_pid);
      e->set_status(r.status);
      e->set_signal(r.signal);
      e->set_address(std::string(r.address));
      for (int32_t fd : r.fds) e->add_fds(fd);
      for (auto s : r.strings) e->add_strings(std::string(s));
      for (const log::ReadyFd& ready : r.ready) {
        proto::ReadyFd* rf = e->add_ready();
        rf->set_fd(ready.fd);
        rf->set_events(ready.events);
        rf->set_data(ready.data);
      }
      if (r.has_timeout) e->set_timeout_ms(r.timeout_ms);
      for (uint64_t n : r.lengths) e->add_lengths(n);
      e->set_same_as(r.same_as);
      e->set_same_from(r.same_from);
    }
    if (reader->error()) {
      *error = reader->error()->toString();
      return false;
    }
  }
  std::ifstream txt(dir + "/recording.txt");
  if (txt) {
    const std::string text((std::istreambuf_iterator<char>(txt)), std::istreambuf_iterator<char>());
    if (!google::protobuf::TextFormat::ParseFromString(text, out->mutable_recording())) out->clear_recording();
  }
  return true;
}

}  // namespace radar::fuzz

#include "cli/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace radar::cli {

namespace {
// The temporary being written (one at a time): its name, for
// removeTemporaryBeingWritten(), which may run on another thread.
char g_temporary[4096];
std::atomic<bool> g_writing{false};

class TemporaryBeingWritten {
 public:
  explicit TemporaryBeingWritten(const std::string& name) {
    if (name.size() >= sizeof(g_temporary)) return;
    std::memcpy(g_temporary, name.c_str(), name.size() + 1);
    g_writing.store(true);
  }
  ~TemporaryBeingWritten() { g_writing.store(false); }
  TemporaryBeingWritten(const TemporaryBeingWritten&) = delete;
  TemporaryBeingWritten& operator=(const TemporaryBeingWritten&) = delete;
};
}  // namespace

void removeTemporaryBeingWritten() {
  if (g_writing.load()) ::unlink(g_temporary);
}

bool writeThroughTemporary(const std::string& path,
                           const std::function<bool(const std::string& temporary, std::string* error)>& write,
                           std::string* error) {
  // Named after this process: two radar commands making one file (a cached
  // database) never write into each other's; the last rename wins, whole.
  const std::string temporary = path + ".radar-partial." + std::to_string(::getpid());
  ::unlink(temporary.c_str());  // a leftover, or a link: never written through
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  bool ok = false;
  try {
    const TemporaryBeingWritten noted(temporary);
    ok = write(temporary, error);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (ok && ::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) ::unlink(temporary.c_str());
  return ok;
}

bool writeStream(const std::string& path, const std::function<bool(std::FILE*, std::string*)>& write,
                 std::string* error) {
  if (path == "-") return write(stdout, error);
  return writeThroughTemporary(
      path,
      [&](const std::string& temporary, std::string* e) {
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
        if (!f) {
          *e = "cannot write " + path + ": " + std::strerror(errno);
          if (fd >= 0) ::close(fd);
          return false;
        }
        bool ok = write(f, e);
        if (std::fclose(f) != 0 && ok) {
          *e = "cannot write " + path + ": " + std::strerror(errno);
          ok = false;
        }
        return ok;
      },
      error);
}

}  // namespace radar::cli

// Where a program named on a command line is, found the one way execvp()
// finds it: for `radar record`'s program, for a process's exec as its log
// tells it, for gdb, and for a network description's start commands.
#pragma once

#include <unistd.h>

#include <string>
#include <string_view>

namespace radar::log {

// A name with a slash is that path (made absolute from `cwd` when one is
// given); any other is looked up in the directories of `path` (PATH's
// value; an empty entry is the working directory; unset: /bin:/usr/bin),
// the first executable file found. Empty when none is.
inline std::string findExecutable(const std::string& name, const char* path, const std::string& cwd = "") {
  auto absolute = [&](const std::string& p) { return cwd.empty() || p.empty() || p[0] == '/' ? p : cwd + "/" + p; };
  if (name.find('/') != std::string::npos) return absolute(name);
  const std::string_view dirs = path ? path : "/bin:/usr/bin";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string_view::npos) end = dirs.size();
    const std::string dir(dirs.substr(at, end - at));
    const std::string candidate = absolute((dir.empty() ? "." : dir) + "/" + name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

}  // namespace radar::log

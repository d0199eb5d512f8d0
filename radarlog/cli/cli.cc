#include "cli/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "log/escape.h"
#include "log/executables.h"

namespace radar::cli {

namespace {

// Edits (a letter changed, added, removed, or two side by side swapped)
// from a to b.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closestName(const std::string& typed, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::max<size_t>(1, std::min<size_t>(2, typed.size() / 3)) + 1;
  for (const std::string& name : known) {
    const size_t d = editDistance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> usageGroups(std::span<const OptionSpec> options) {
  std::vector<std::string> groups;
  int open = 0;  // brackets open in the last group
  for (const OptionSpec& o : options) {
    std::string shown = o.short_name ? std::string{'-', o.short_name} : std::string("--") + o.long_name;
    if (o.value) shown += std::string(" ") + o.value;
    if (o.in_usage == InUsage::kOr && open > 0) {
      groups.back() += " | " + shown;
    } else if (o.in_usage == InUsage::kWith && open > 0) {
      groups.back() += " [" + shown;
      ++open;
    } else {
      if (open > 0) groups.back() += std::string(open, ']');
      groups.push_back("[" + shown);
      open = 1;
    }
  }
  if (open > 0) groups.back() += std::string(open, ']');
  return groups;
}

bool Args::parse(int argc, char** argv, int first, std::span<const OptionSpec> specs, bool stop_at_positional) {
  auto findLong = [&](const std::string& n) -> const OptionSpec* {
    for (const auto& s : specs)
      if (n == s.long_name) return &s;
    return nullptr;
  };
  auto findShort = [&](char c) -> const OptionSpec* {
    for (const auto& s : specs)
      if (s.short_name && s.short_name == c) return &s;
    return nullptr;
  };
  bool only_positional = false;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (only_positional || a == "-" || a.size() < 2 || a[0] != '-') {
      positional_.push_back(a);
      if (stop_at_positional) only_positional = true;
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    const OptionSpec* spec = nullptr;
    std::string value;
    bool has_inline = false;
    if (a[1] == '-') {
      std::string name = a.substr(2);
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_inline = true;
      }
      spec = findLong(name);
      if (!spec) {
        std::vector<std::string> known;
        for (const auto& sp : specs) known.push_back(sp.long_name);
        const std::string meant = closestName(name, known);
        error_ = "unknown option '--" + name + "'" + (meant.empty() ? "" : "; did you mean '--" + meant + "'?");
        return false;
      }
    } else {
      spec = findShort(a[1]);
      if (!spec) {
        error_ = std::string("unknown option '-") + a[1] + "'";
        return false;
      }
      if (a.size() > 2) {
        value = a.substr(2);
        has_inline = true;
      }
    }
    if (spec->takesValue()) {
      if (!has_inline) {
        if (i + 1 >= argc) {
          error_ = std::string("option '--") + spec->long_name + "' needs a value";
          return false;
        }
        value = argv[++i];
      }
    } else if (has_inline) {
      error_ = std::string("option '--") + spec->long_name + "' takes no value";
      return false;
    }
    values_.emplace(spec->long_name, value);
  }
  return true;
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto range = values_.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;  // the last one given wins
}

std::vector<std::string> Args::values(const std::string& name) const {
  std::vector<std::string> out;
  auto range = values_.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  return out;
}

bool Args::number(const std::string& name, unsigned long long* out, unsigned long long fallback) {
  auto v = value(name);
  if (!v) {
    *out = fallback;
    return true;
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v->c_str(), &end, 10);
  unsigned long long scale = 1;
  if (end && *end) {
    const std::string suffix = end;
    if (suffix == "k" || suffix == "K" || suffix == "KiB")
      scale = 1024ULL;
    else if (suffix == "M" || suffix == "MiB")
      scale = 1024ULL * 1024;
    else if (suffix == "G" || suffix == "GiB")
      scale = 1024ULL * 1024 * 1024;
    else
      scale = 0;
  }
  if (v->empty() || (*v)[0] == '-' || errno == ERANGE || scale == 0 || n > ULLONG_MAX / scale) {
    error_ = "--" + name + ": expected a non-negative number, got '" + *v + "'";
    return false;
  }
  *out = n * scale;
  return true;
}

int usageError(const char* command, const std::string& message) {
  std::fprintf(stderr, "radar %s: %s\nTry 'radar help %s'.\n", command, message.c_str(), command);
  return kExitUsage;
}

std::string selfDirectory() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  buf[n] = 0;
  std::string path(buf);
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string findExecutable(const std::string& name) { return log::findExecutable(name, std::getenv("PATH")); }

namespace {

// Appends to a string, or writes to a stream through a buffer.
struct FileSink {
  std::FILE* f;
  void append(const char* p, size_t n) { std::fwrite(p, 1, n, f); }
  void append(std::string_view s) { append(s.data(), s.size()); }
  FileSink& operator+=(const char* s) {
    append(s, std::strlen(s));
    return *this;
  }
  FileSink& operator+=(char c) {
    std::fputc(c, f);
    return *this;
  }
};

}  // namespace

void printTerminalSafe(std::FILE* f, std::string_view text) {
  FileSink sink{f};
  log::appendEscaped(sink, text, log::Escaping::Terminal);
}

}  // namespace radar::cli

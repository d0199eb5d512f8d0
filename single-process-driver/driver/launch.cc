#include "driver/launch.h"

#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace radar::driver {
namespace {

constexpr char kMagic[] = "radar-launch 3";

}  // namespace

bool writeLaunchFile(const std::string& path, const LaunchSpec& spec, std::string* error) {
  std::string out = kMagic;
  out.push_back('\0');
  auto field = [&](const std::string& s) {
    out += s;
    out.push_back('\0');
  };
  field(spec.cwd);
  field(spec.executable);
  field(std::to_string(spec.argv.size()));
  for (const auto& a : spec.argv) field(a);
  field(std::to_string(spec.environment.size()));
  for (const auto& e : spec.environment) field(e);
  field(std::to_string(spec.nofile_soft));
  field(std::to_string(spec.nofile_hard));
  field(spec.randomize_addresses ? "1" : "0");
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  f.close();
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool readLaunchFile(const std::string& path, LaunchSpec* spec, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> fields;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    if (end == std::string::npos) break;
    fields.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  size_t i = 0;
  auto next = [&](std::string* out) {
    if (i >= fields.size()) return false;
    *out = fields[i++];
    return true;
  };
  auto count = [&](size_t* n) {
    std::string s;
    if (!next(&s) || s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *n = std::stoul(s);
    return *n <= fields.size();
  };
  std::string magic;
  size_t n = 0;
  bool ok = next(&magic) && magic == kMagic && next(&spec->cwd) && next(&spec->executable) && count(&n);
  for (size_t k = 0; ok && k < n; ++k) ok = next(&spec->argv.emplace_back());
  ok = ok && count(&n);
  for (size_t k = 0; ok && k < n; ++k) ok = next(&spec->environment.emplace_back());
  auto number = [&](uint64_t* v) {
    std::string s;
    if (!next(&s) || s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *v = std::stoull(s);
    return true;
  };
  uint64_t randomize = 0;
  ok = ok && number(&spec->nofile_soft) && number(&spec->nofile_hard) && number(&randomize) && randomize <= 1;
  spec->randomize_addresses = randomize == 1;
  if (!ok || i != fields.size()) {
    *error = path + " is not a launch description written by radar debug";
    return false;
  }
  return true;
}

void execLaunch(const LaunchSpec& spec, std::string* error) {
  // The program starts with what it had: 0, 1 and 2, then the stand-ins
  // the replay library makes. A descriptor of ours (or of whoever started
  // radar) would take a number the recording gives to something else.
  ::close_range(3, ~0u, 0);
  if (spec.nofile_soft) {
    // As recorded, within what this process may have.
    struct rlimit now {};
    ::getrlimit(RLIMIT_NOFILE, &now);
    struct rlimit want {
      static_cast<rlim_t>(spec.nofile_soft), static_cast<rlim_t>(spec.nofile_hard)
    };
    if (want.rlim_max > now.rlim_max) want.rlim_max = now.rlim_max;
    if (want.rlim_cur > want.rlim_max) want.rlim_cur = want.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &want) != 0)
      std::fprintf(stderr, "radar debug: cannot set the recorded descriptor limit (%llu): %s\n",
                   static_cast<unsigned long long>(spec.nofile_soft), std::strerror(errno));
  }
  // Off unless asked for, and on when asked for (gdb turns it off for
  // what it starts, and setarch -R for its children).
  const int now = ::personality(0xffffffff);
  const unsigned long want = spec.randomize_addresses ? static_cast<unsigned long>(now) & ~ADDR_NO_RANDOMIZE
                                                      : static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE;
  if (now == -1 || (want != static_cast<unsigned long>(now) && ::personality(want) == -1))
    std::fprintf(stderr,
                 "radar debug: cannot turn address-space randomization %s (%s): addresses will differ "
                 "from the recorded ones\n",
                 spec.randomize_addresses ? "on" : "off", std::strerror(errno));
  if (::chdir(spec.cwd.c_str()) != 0) {
    *error = "cannot enter the recorded working directory " + spec.cwd + ": " + std::strerror(errno);
    return;
  }
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execve(spec.executable.c_str(), argv.data(), envp.data());
  *error = "cannot start " + spec.executable + ": " + std::strerror(errno);
}

}  // namespace radar::driver

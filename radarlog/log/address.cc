#include "log/address.h"

#include <sys/socket.h>

#include <cstdio>
#include <cstring>

namespace radar::log {

std::string formatAddress(const std::string& raw) {
  if (raw.size() < sizeof(sa_family_t)) return "";
  sa_family_t family;
  std::memcpy(&family, raw.data(), sizeof(family));
  char buf[128];
  if (family == AF_INET && raw.size() >= 8) {
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u:%u", b[4], b[5], b[6], b[7], (b[2] << 8) | b[3]);
    return buf;
  }
  if (family == AF_INET6 && raw.size() >= 24) {
    // RFC 5952: the longest run of zero groups becomes "::".
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    unsigned g[8];
    for (int i = 0; i < 8; ++i) g[i] = (b[8 + 2 * i] << 8) | b[9 + 2 * i];
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
      int j = i;
      while (j < 8 && g[j] == 0) ++j;
      if (j - i > best_len) {
        best = i;
        best_len = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    std::string s = "[";
    for (int i = 0; i < 8; ++i) {
      if (i == best) {
        s += "::";
        i += best_len - 1;
        continue;
      }
      if (s.size() > 1 && s.back() != ':') s += ":";
      std::snprintf(buf, sizeof(buf), "%x", g[i]);
      s += buf;
    }
    std::snprintf(buf, sizeof(buf), "]:%u", (b[2] << 8) | b[3]);
    return s + buf;
  }
  if (family == AF_UNIX) {
    std::string path = raw.substr(2);
    if (!path.empty() && path[0] == 0)
      return "@" + std::string(path.c_str() + 1, strnlen(path.c_str() + 1, path.size() - 1));
    return std::string(path.c_str(), strnlen(path.c_str(), path.size()));
  }
  return "";
}

}  // namespace radar::log

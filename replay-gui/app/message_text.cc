#include "message_text.h"

#include <cstdio>

namespace radar::gui {

bool looksLikeText(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
      if (c == 0x7f) return false;
      ++i;
      continue;
    }
    // A UTF-8 sequence: a lead byte and its continuation bytes.
    const int more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (more < 0 || i + more >= s.size()) return false;
    for (int k = 1; k <= more; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += more + 1;
  }
  return true;
}

std::string hexDump(const std::string& bytes, size_t limit) {
  std::string out;
  const size_t n = std::min(bytes.size(), limit);
  char line[128];
  for (size_t at = 0; at < n; at += 16) {
    int w = std::snprintf(line, sizeof(line), "%08zx  ", at);
    std::string text;
    for (size_t k = 0; k < 16; ++k) {
      if (at + k < n) {
        const unsigned char c = static_cast<unsigned char>(bytes[at + k]);
        w += std::snprintf(line + w, sizeof(line) - w, "%02x ", c);
        text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
      } else {
        w += std::snprintf(line + w, sizeof(line) - w, "   ");
      }
      if (k == 7) w += std::snprintf(line + w, sizeof(line) - w, " ");
    }
    out += line;
    out += " |" + text + "|\n";
  }
  if (bytes.size() > n) out += "... " + std::to_string(bytes.size() - n) + " more bytes\n";
  return out;
}

std::string describeMessage(const replay::Trace& t, const replay::Narrator& narrator, uint32_t send) {
  if (send >= t.events.size()) return "No such message.";
  std::string out = narrator.sentence(send) + "\n";
  const auto receivers = narrator.receivers(send);
  if (receivers.empty()) {
    out += "No recorded process received it.\n";
  } else {
    out += "Received by:";
    for (uint32_t p : receivers) out += " " + t.processes[p].label();
    out += "\n";
  }
  std::string bytes, error;
  if (!t.payload(send, &bytes, &error)) return out + "\nThe contents could not be read: " + error + "\n";
  const auto& e = t.events[send];
  out += "\n" + std::to_string(bytes.size()) + " bytes recorded";
  if (bytes.size() < e.value) out += " of " + std::to_string(e.value) + " sent (the rest was cut by --payload-limit)";
  out += ":\n\n";
  if (!bytes.empty() && looksLikeText(bytes)) out += bytes + (bytes.back() == '\n' ? "" : "\n");
  else out += hexDump(bytes);
  return out;
}

}  // namespace radar::gui

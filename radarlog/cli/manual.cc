// `radar help --man [COMMAND]`: a command's help as a manual page (troff's
// man macros), so that `man radar-record` says what `radar help record`
// says. The build writes one page per command and radar(1).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/commands.h"

#ifndef RADAR_VERSION
#define RADAR_VERSION "unknown"
#endif

namespace radar::cli {

namespace {

// A line of text as troff shows it: backslashes escaped, dashes as minus
// signs (which man pages print as the ASCII dash options are typed with,
// where a plain '-' may become a typographic hyphen), a line that starts
// with a dot or an apostrophe (a request to troff) made plain text, and
// characters beyond ASCII named by their code point (troff reads its input
// as Latin-1).
std::string troffLine(const std::string& line) {
  std::string out = line.empty() || (line[0] != '.' && line[0] != '\'') ? "" : "\\&";
  for (size_t i = 0; i < line.size(); ++i) {
    const auto byte = static_cast<unsigned char>(line[i]);
    if (byte < 0x80) {
      // A backslash printed; a dash as the ASCII one an option is typed with.
      out += byte == '\\' ? std::string("\\e") : byte == '-' ? std::string("\\-") : std::string(1, line[i]);
      continue;
    }
    const int length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    uint32_t code = length == 1 ? 0xfffd : byte & (0x7f >> length);
    for (int k = 1; k < length && i + 1 < line.size(); ++k) code = code << 6 | (line[++i] & 0x3f);
    char name[16];
    std::snprintf(name, sizeof name, "\\[u%04X]", code);
    out += name;
  }
  return out;
}

// Text kept as it is laid out (the help's own columns and indents).
std::string asWritten(const std::string& text) {
  std::string out = ".nf\n";
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    out += troffLine(line) + "\n";
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out + ".fi\n";
}

std::string header(const std::string& page, const char* summary) {
  std::string upper;
  for (char ch : page) upper += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  return ".TH " + upper + " 1 \"\" \"radar " RADAR_VERSION "\" \"radar manual\"\n.SH NAME\n" + troffLine(page) +
         " \\- " + troffLine(summary) + "\n";
}

}  // namespace

std::string manualPage(const Command& c) {
  const std::string help = helpText(c);
  const size_t split = help.find("\n\n");
  std::string usage = help.substr(0, split), rest = split == std::string::npos ? "" : help.substr(split + 2);
  // The synopsis without the word "usage:", aligned as the help aligns it.
  std::string synopsis;
  for (size_t at = 0; at < usage.size();) {
    const size_t end = std::min(usage.find('\n', at), usage.size());
    std::string line = usage.substr(at, end - at);
    if (line.rfind("usage: ", 0) == 0 || line.rfind("       ", 0) == 0) line = line.substr(7);
    synopsis += (synopsis.empty() ? "" : "\n") + line;
    at = end + 1;
  }
  return header(std::string("radar-") + c.name, c.summary) + ".SH SYNOPSIS\n" + asWritten(synopsis) +
         ".SH DESCRIPTION\n" + asWritten(rest) + ".SH SEE ALSO\n" + "\\fBradar\\fR(1)\n";
}

std::string manualPage(const char* overview) {
  std::string commands, see_also;
  for (const Command& c : commandTable()) {
    if (c.name[0] == '_') continue;
    commands += ".TP\n\\fBradar " + troffLine(c.name) + "\\fR\n" + troffLine(c.summary) + "\n";
    see_also += std::string(see_also.empty() ? "" : ",\n") + "\\fBradar-" + c.name + "\\fR(1)";
  }
  return header("radar", "record and replay programs made of processes that talk") + ".SH SYNOPSIS\n" +
         "\\fBradar\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]\n.SH DESCRIPTION\n" + asWritten(overview) + ".SH COMMANDS\n" +
         commands + ".SH SEE ALSO\n" + see_also + "\n";
}

}  // namespace radar::cli

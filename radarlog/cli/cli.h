// Small helpers shared by radar's subcommands: option parsing and errors.
#pragma once

#include <cstdio>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "log/escape.h"

namespace radar::cli {

// Exit codes every subcommand follows.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;   // ran, and found something (e.g. check --strict)
inline constexpr int kExitUsage = 2;      // bad command line or unreadable input
inline constexpr int kExitDamaged = 3;    // ran, but a log was damaged or unreadable: the story is partial
inline constexpr int kExitResources = 4;  // ran out of memory: the message names the limit and how to raise it

// Where an option stands in its command's usage line, beside the option
// before it in the command's table.
enum class InUsage : unsigned char {
  kAlone,  // its own brackets: "[--force]"
  kOr,     // an alternative to the one before: "[--json | --format F]"
  kWith,   // goes with the one before, inside its brackets: "[--sqlite FILE [--bytes]]"
};

struct OptionSpec {
  const char* long_name;  // "output" for --output
  char short_name;        // 'o' for -o, or 0
  const char* value;      // what it takes, as the usage names it ("DIR"); null for a flag
  InUsage in_usage = InUsage::kAlone;
  bool takesValue() const { return value != nullptr; }
};

// The options of a table as its usage line shows them, in the table's
// order: "[-o DIR] [--force] [--json | --format F] [--sqlite FILE [--bytes]]"
// (the short form where there is one). One string per bracket group, so
// that a line can be broken between them.
std::vector<std::string> usageGroups(std::span<const OptionSpec> options);

// Parses `argv[first..]`: options may appear anywhere before "--";
// everything after "--" (or after the first positional when
// stop_at_positional is set, as for `record -- PROGRAM ARGS`) is positional.
class Args {
 public:
  bool parse(int argc, char** argv, int first, std::span<const OptionSpec> specs, bool stop_at_positional = false);
  bool parse(int argc, char** argv, int first, std::initializer_list<OptionSpec> specs,
             bool stop_at_positional = false) {
    return parse(argc, argv, first, std::span<const OptionSpec>(specs.begin(), specs.size()), stop_at_positional);
  }
  const std::string& error() const { return error_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  // Numbers with a clear error on junk: "--payload-limit: expected a
  // number of bytes, got 'x'".
  bool number(const std::string& name, unsigned long long* out, unsigned long long fallback);

 private:
  std::multimap<std::string, std::string> values_;
  std::vector<std::string> positional_;
  std::string error_;
};

// Of `known`, the one `typed` most probably meant (a letter or two wrong,
// missing, extra or swapped, as git's "did you mean"); "" when none is
// that close.
std::string closestName(const std::string& typed, const std::vector<std::string>& known);

// Prints "radar CMD: message" and a hint; returns kExitUsage.
int usageError(const char* command, const std::string& message);

// The directory holding the running radar executable.
std::string selfDirectory();

// Where execvp() would find the program `name`: `name` itself when it has
// a slash; else the first executable file of that name in $PATH (an empty
// entry is the working directory; /bin:/usr/bin without $PATH); "" when
// there is none.
std::string findExecutable(const std::string& name);

// Text a recorded program supplied (its argv, paths, names), made safe to
// print on a terminal: control characters (newlines and escape sequences
// included, C1 controls too) and bytes that are not UTF-8 are written as
// \n, \t, \e or \xNN; printable UTF-8 is kept.
using log::terminalSafe;
// The same, written to `out` as it goes (large texts are not copied).
void printTerminalSafe(std::FILE* out, std::string_view text);

}  // namespace radar::cli

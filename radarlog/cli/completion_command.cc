// `radar completion bash|zsh`: shell completion, from the command table
// itself (commands.cc and each command's options), so that it offers what
// the parsers take and nothing else, and the names of a recording's
// processes where a process is asked for. The script asks `radar
// __complete` at each TAB.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "trace/load.h"

#include "cli/cli.h"
#include "cli/commands.h"

namespace radar::cli {

const char kCompletionHelp[] =
    "usage: radar completion bash|zsh\n"
    "\n"
    "Prints a script that makes the shell complete radar's commands, their\n"
    "options, recording directories, files where an option takes one, and\n"
    "the names of a recording's processes where a process is asked for:\n"
    "  source <(radar completion bash)        # this shell (put it in ~/.bashrc)\n"
    "  source <(radar completion zsh)         # zsh (put it in ~/.zshrc; it loads\n"
    "                                         # bashcompinit itself)\n"
    "Installed packages put the bash one in bash-completion's directory.\n";

namespace {

// The script: it asks the radar being completed (the first word) what
// fits, given the words so far; the first line of the answer says what
// kind of thing is wanted, the rest are the candidates.
const char kBashScript[] =
    "# radar's completion (radar completion bash|zsh): bash, and zsh with bashcompinit.\n"
    "# Words are taken by 0-based slices, which both shells read alike.\n"
    "_radar() {\n"
    "  local cur=\"${COMP_WORDS[@]:$COMP_CWORD:1}\" kind line\n"
    "  local -a said\n"
    "  said=()\n"
    "  COMPREPLY=()\n"
    "  while IFS= read -r line; do said+=(\"$line\"); done < <(\"${COMP_WORDS[@]:0:1}\" __complete \"$COMP_CWORD\" "
    "\"${COMP_WORDS[@]}\" 2>/dev/null)\n"
    "  kind=\"${said[@]:0:1}\"\n"
    "  case $kind in\n"
    "    files) while IFS= read -r line; do COMPREPLY+=(\"$line\"); done < <(compgen -f -- \"$cur\") ;;\n"
    "    dirs) while IFS= read -r line; do COMPREPLY+=(\"$line\"); done < <(compgen -d -- \"$cur\") ;;\n"
    "    programs) while IFS= read -r line; do COMPREPLY+=(\"$line\"); done < <(compgen -c -- \"$cur\") ;;\n"
    "    *) COMPREPLY=(\"${said[@]:1}\") ;;\n"
    "  esac\n"
    "}\n"
    "complete -o filenames -F _radar radar\n";

// Options whose value is a file or directory to name (the others take
// numbers, names or patterns: nothing to offer).
bool takesAPath(const char* option) {
  for (const char* p :
       {"output", "net", "pcapng", "perfetto", "chrome-json", "sqlite", "parquet", "join", "snapshot", "frames"})
    if (std::strcmp(option, p) == 0) return true;
  return false;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// The names of the processes of the recordings among `words` (read from
// their logs' headers: no merge at a TAB), those starting with `cur`.
std::vector<std::string> processNames(const std::vector<std::string>& words, const std::string& cur) {
  constexpr size_t kMostLogs = 4096;  // a TAB stays quick on a huge recording
  std::set<std::string> names;
  for (size_t k = 2; k < words.size(); ++k)
    for (std::string& name : trace::processNamesOf(words[k], kMostLogs))
      if (startsWith(name, cur)) names.insert(std::move(name));
  return {names.begin(), names.end()};
}

// Whether the word at `at` names a process: the value of -p/--process, or
// the process `radar debug DIR` re-runs (its second operand).
bool asksForAProcess(const Command& c, const std::vector<std::string>& words, size_t at) {
  const std::string& prev = words[at - 1];
  if (prev == "-p" || prev == "--process")
    return std::any_of(c.options.begin(), c.options.end(),
                       [](const OptionSpec& o) { return std::strcmp(o.long_name, "process") == 0; });
  if (c.name != std::string("debug")) return false;
  size_t operands = 0;
  for (size_t k = 2; k < at; ++k) {
    const std::string& w = words[k];
    const bool value_of_option =
        k > 2 && std::any_of(c.options.begin(), c.options.end(), [&](const OptionSpec& o) {
          return o.takesValue() && (words[k - 1] == std::string("--") + o.long_name ||
                                    (o.short_name && words[k - 1] == std::string{'-', o.short_name}));
        });
    if (!startsWith(w, "-") && !value_of_option) ++operands;
  }
  return operands == 1;
}

// What fits the word at `at` (words[0] is radar), as printed by __complete.
std::vector<std::string> candidates(const std::vector<std::string>& words, size_t at) {
  if (at > words.size()) return {"words"};  // not a line a shell sends
  const std::string cur = at < words.size() ? words[at] : "";
  std::vector<std::string> out{"words"};
  if (at <= 1 || (at == 2 && words[1] == "help")) {
    for (const Command& c : commandTable())
      if (startsWith(c.name, cur) && !startsWith(c.name, "__")) out.push_back(c.name);
    return out;
  }
  const Command* c = findCommand(words[1].c_str());
  if (!c) return out;
  if (c->name == std::string("completion")) {
    for (const char* shell : {"bash", "zsh"})
      if (at == 2 && startsWith(shell, cur)) out.push_back(shell);
    return out;
  }
  for (size_t k = 2; k < at; ++k)
    if (words[k] == "--")
      return {(c->name == std::string("record") || c->name == std::string("run")) && k + 1 == at ? "programs"
                                                                                                 : "files"};
  if (asksForAProcess(*c, words, at)) {
    for (std::string& name : processNames(words, cur)) out.push_back(std::move(name));
    return out;
  }
  const std::string prev = words[at - 1];
  for (const OptionSpec& o : c->options)
    if (o.takesValue() &&
        (prev == std::string("--") + o.long_name || (o.short_name && prev == std::string{'-', o.short_name})))
      return {takesAPath(o.long_name) ? "files" : "words"};
  if (startsWith(cur, "-")) {
    for (const OptionSpec& o : c->options)
      if (startsWith(std::string("--") + o.long_name, cur)) out.push_back(std::string("--") + o.long_name);
    return out;
  }
  return {c->name == std::string("dump") ? "files" : "dirs"};  // recordings are directories
}

}  // namespace

int runCompletion(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, {})) return usageError("completion", args.error());
  const auto& shell = args.positional();
  if (shell.size() != 1 || (shell[0] != "bash" && shell[0] != "zsh"))
    return usageError("completion", "name the shell: bash or zsh");
  if (shell[0] == "zsh")
    std::fputs(
        "(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -u; }\n"
        "autoload -U +X bashcompinit && bashcompinit\n",
        stdout);
  std::fputs(kBashScript, stdout);
  return kExitOk;
}

// `radar __complete CWORD WORD...`: the candidates for word CWORD of the
// command line WORD... (the shell's COMP_CWORD and COMP_WORDS).
int runCompleteWords(int argc, char** argv) {
  if (argc < 3) return kExitUsage;
  const long at = std::strtol(argv[1], nullptr, 10);
  const std::vector<std::string> words(argv + 2, argv + argc);
  if (at < 0) return kExitUsage;
  for (const std::string& line : candidates(words, static_cast<size_t>(at))) std::printf("%s\n", line.c_str());
  return kExitOk;
}

}  // namespace radar::cli

#!/usr/bin/env python3
"""Runs a document's shell sessions and compares what they print with the
document.

    doc_test.py SOURCE_DIR BUILD_DIR DOC.md

A session is a fenced block whose first line starts with "$ ": each "$ "
line is a command (a trailing backslash continues it, a here-document
written `<< 'EOF'` takes the lines up to its word), and the lines up to
the next command are what it prints, standard output and standard error
interleaved as a terminal shows them. The commands of a document run in
order, in one fresh directory that holds `build` (the build),
`sample-programs` and `tests` (the sources), as from the repository's
root; `$?` is
the status of the command before. A block after the comment
`<!-- not run: REASON -->` is not run (a window that stays open, say).
After `<!-- per process: REASON -->`, a narrative's lines are compared
process by process: each process's events in their order, but not how
the processes' events interleave, which is the scheduler's and varies
where they are concurrent. After `<!-- channel numbers vary: REASON -->`,
a channel's number (`pipe 3`) is compared as a number that varies. After
`<!-- figures vary: REASON -->` (a real server's latencies, pids and
ports), every number is compared as one that varies, and runs of spaces
and of dashes (a table's columns) as one: the words, the columns and the
rows must still be as written. `<!-- needs: PROGRAM... -->` anywhere in a
document says the programs its sessions run besides radar's own; where
one is missing, the document is skipped, saying which.

What differs from run to run and from machine to machine is compared as
such, not as digits: a process's pid (`name[123]`), an event's place in
the replay (`Event 45`, `event 43 to 48`), a count of events (`replayed
N of N events` where both are the same), a file's inode, sizes in
KiB or MiB, a duration in seconds, an address (`0x...`), the
repository's path (the documents show it as `~/radar`), the machine's
name (they show `vm`), and gdb's value
of an argument at entry, which only an optimized build shows. Everything else
must be as written: a command that prints anything else, prints less, or
fails where the document shows it succeed fails the test, naming the
document's line.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

DOC_ROOT = "~/radar"
DOC_HOST = "vm"  # the host the documents' recordings were made on
MARK = re.compile(r"<!--\s*(not run|per process|channel numbers vary|figures vary):\s*(.+?)\s*-->")
NEEDS = re.compile(r"<!--\s*needs:\s*(.+?)\s*-->")
FIGURE = re.compile(r"-?\d+(\.\d+)?")
CHANNEL_NUMBER = re.compile(r"\b(pipe|socketpair|fifo) \d+\b")
PROCESS = re.compile(r"^Process (.+?)\[")  # names with spaces too: "ring rank 0[", "nginx: worker process["
HEREDOC = re.compile(r"(?<![<$(])<<\s*'(\w+)'")  # << 'EOF' only (not <<<, not $((a << b)))


class Command:
    def __init__(self, line, text, mark):
        self.line = line  # the document's line of the "$ "
        self.text = text
        self.per_process = mark == "per process"
        self.channel_numbers_vary = mark == "channel numbers vary"
        self.figures_vary = mark == "figures vary"
        self.expected = []


def sessions(path):
    """The commands of the document's sessions, in order."""
    lines = open(path, encoding="utf-8").read().split("\n")
    commands, i, mark = [], 0, None
    while i < len(lines):
        m = MARK.search(lines[i])
        if m:
            mark = m.group(1)
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        block = lines[i + 1:end]
        if block and block[0].startswith("$ ") and mark != "not run":
            commands += parse_block(block, i + 2, mark)
        mark = None
        i = end + 1
    return commands


def parse_block(block, first_line, mark):
    commands, k = [], 0
    while k < len(block):
        line = block[k]
        if line.startswith("$ "):
            text, start = line[2:], k
            while text.endswith("\\") and k + 1 < len(block):
                k += 1
                text = text + "\n" + block[k]  # bash reads the backslash-newline as one line
            here = HEREDOC.search(text)
            while here and k + 1 < len(block):  # a here-document is the command's, up to its word
                k += 1
                text = text + "\n" + block[k]
                if block[k] == here.group(1):
                    break
            commands.append(Command(first_line + start, text, mark))
        elif commands:
            commands[-1].expected.append(line)
        k += 1
    return commands


RULES = [
    (re.compile(r"([\w.-]+)\[\d+\](?!:| =)"), r"\1[PID]"),  # not a decoded field's index, node[3]:
    (re.compile(r"\b(pid) \d+"), r"\1 PID"),
    (re.compile(r"\b([Ee]vents?) \d+ to \d+"), r"\1 N to N"),
    (re.compile(r"\b([Ee]vent) \d+"), r"\1 N"),
    (re.compile(r"\b(\d+) of \1 events\b"), "N of N events"),  # all of them, however many
    (re.compile(r"\b\d+ events\b"), "N events"),
    (re.compile(r"\b(inode) \d+"), r"\1 N"),
    (re.compile(r"\b\d+(\.\d+)? (KiB|MiB|GiB)\b"), "SIZE"),
    (re.compile(r"\b\d+(\.\d+)? s\b"), "T s"),
    (re.compile(r"\b\d+\.\d+ ms\b"), "T ms"),
    (re.compile(r"\b0x[0-9a-f]+\b"), "0xADDR"),
    # gdb shows an argument's value at entry too where the build is
    # optimized (below=below@entry=5), not in a debug build (below=5).
    (re.compile(r"\b(\w+)=\1@entry="), r"\1="),
]


def normalize(line):
    """What differs from run to run, made the same on both sides."""
    for pattern, replacement in RULES:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def path_replacer(work, source, build):
    """The run's paths as the documents show them: the build first, since
    it may lie inside the sources."""
    builds = sorted({build, os.path.realpath(build)}, key=len, reverse=True)
    roots = sorted({work, os.path.realpath(work), source, os.path.realpath(source)}, key=len, reverse=True)

    # Where the documents show the host: an interface ("pipe on vm"), a
    # partition ("host=vm"), a process ("name[pid@vm]").
    name = re.escape(socket.gethostname())
    host = re.compile(r"((?<=\bon )|(?<=host=)|(?<=@))%s\b" % name)

    def replace(line):
        for b in builds:
            line = line.replace(b, DOC_ROOT + "/build")
        for r in roots:
            line = line.replace(r, DOC_ROOT)
        return host.sub(DOC_HOST, line)

    return replace


def figures(line):
    """A line whose numbers vary, compared by its words and columns."""
    return re.sub(r"-+", "-", re.sub(r" +", " ", FIGURE.sub("N", line))).strip()


def by_process(lines):
    """The lines with each process's kept in order, the processes apart."""
    def process(line):
        m = PROCESS.match(line)
        return m.group(1) if m else ""

    return sorted(lines, key=process)


def interleaves(expected, out, err):
    """Whether expected is out and err interleaved, each in its order."""
    n, m = len(out), len(err)
    reach = {(0, 0)}
    for line in expected:
        reach = {(i + 1, j) for i, j in reach if i < n and out[i] == line} | \
                {(i, j + 1) for i, j in reach if j < m and err[j] == line}
        if not reach:
            return False
    return (n, m) in reach


def lines_of(text):
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


COMMAND_TIMEOUT = 120  # well inside the test's own limit (tests/docs/CMakeLists.txt)


def run_command(text, status, work, env):
    """One command as bash runs it, after one that exited with `status`;
    None when it did not end in time (then it and everything it started
    are killed)."""
    p = subprocess.Popen(["bash", "-c", "(exit %d); %s\nexit $?" % (status, text)], cwd=work, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    try:
        out, err = p.communicate(timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def report(doc, c, status, want, out, err):
    print("%s:%d: differs: $ %s (exit %d)" % (doc, c.line, c.text, status))
    for title, lines in (("the document says", want), ("standard output", out), ("standard error", err)):
        print("  %s (as compared):" % title)
        print("".join("    | %s\n" % x for x in lines), end="")


def needs_sandbox(c):
    return " debug " in c.text


def run(commands, source, build, doc, no_sandbox=None):
    """Runs the commands; where `no_sandbox` says why re-runs cannot be
    made here, the re-runs (and an `echo $?` of one) are left out, saying
    so: a re-run touches nothing outside itself, so the others do not
    depend on it."""
    work = tempfile.mkdtemp(prefix="radar-doc-")
    os.symlink(build, os.path.join(work, "build"))
    os.symlink(os.path.join(source, "sample-programs"), os.path.join(work, "sample-programs"))
    os.symlink(os.path.join(source, "tests"), os.path.join(work, "tests"))
    paths = path_replacer(work, source, build)
    # `radar` as installed: the build's, first on the PATH.
    env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ.get("PATH", ""))
    if os.geteuid() == 0:  # Open MPI's mpirun refuses root unless told, as a root user's setup would
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    failures, status, skipped, left_out = 0, 0, False, 0
    try:
        for c in commands:
            if no_sandbox and (needs_sandbox(c) or (skipped and c.text.strip() == "echo $?")):
                print("%s:%d: skipped (%s): $ %s" % (doc, c.line, no_sandbox, c.text.split("\n")[0]))
                skipped = True
                left_out += 1
                continue
            skipped = False
            r = run_command(c.text, status, work, env)
            if r is None:
                print("%s:%d: did not end within %d s: $ %s" % (doc, c.line, COMMAND_TIMEOUT, c.text))
                failures += 1
                status = 124
                continue
            status = r.returncode
            out = [normalize(paths(x)) for x in lines_of(r.stdout)]
            err = [normalize(paths(x)) for x in lines_of(r.stderr)]
            want = [normalize(x) for x in c.expected]
            while want and not want[-1]:
                want.pop()
            if c.per_process:
                want, out = by_process(want), by_process(out)
            if c.channel_numbers_vary:
                want, out, err = ([CHANNEL_NUMBER.sub(r"\1 N", x) for x in lines] for lines in (want, out, err))
            if c.figures_vary:
                want, out, err = ([figures(x) for x in lines] for lines in (want, out, err))
            if interleaves(want, out, err):
                print("%s:%d: ok: $ %s" % (doc, c.line, c.text.split("\n")[0]))
            else:
                failures += 1
                report(doc, c, status, want, out, err)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures, left_out


def missing_prerequisite(commands):
    """Why the document's re-runs (radar debug) cannot run as written
    here, if so: they need gdb and namespaces for the sandbox."""
    if not any(needs_sandbox(c) for c in commands):
        return None
    if shutil.which("gdb") is None:
        return "gdb is not installed"
    probe = ["unshare", "--user", "--map-root-user", "--mount", "--net", "--ipc", "--uts", "--pid", "--fork", "true"]
    if shutil.which("unshare") is None or subprocess.run(probe, stdout=subprocess.DEVNULL,
                                                         stderr=subprocess.DEVNULL).returncode != 0:
        return "the kernel refuses namespaces here, and the documents show re-runs in radar debug's sandbox"
    return None


def missing_programs(path):
    """The programs a document says it needs that are not installed here."""
    needed = [p for m in NEEDS.finditer(open(path, encoding="utf-8").read()) for p in m.group(1).split()]
    return [p for p in needed if shutil.which(p) is None]


def main():
    source, build, doc = (os.path.abspath(a) for a in sys.argv[1:4])
    missing = missing_programs(doc)
    if missing:
        print("%s: skipped: not installed here: %s" % (doc, " ".join(missing)))
        return 77
    commands = sessions(doc)
    if not commands:
        print("%s: no session to run" % doc)
        return 1
    why = missing_prerequisite(commands)
    if why and all(needs_sandbox(c) for c in commands):
        print("%s: skipped: %s" % (doc, why))
        return 77
    failures, left_out = run(commands, source, build, doc, why)
    print("%d of %d commands as the document says%s" %
          (len(commands) - failures - left_out, len(commands),
           "; %d left out: %s" % (left_out, why) if left_out else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

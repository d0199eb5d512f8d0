#!/usr/bin/env python3
"""Functions that do not fit a screen: every function body in the production
sources longer than LIMIT lines (default 100; 80 in the front door,
radarlog/cli, whose commands only parse, call and print), by file and name.

  long_functions.py list                 prints LINES FILE NAME, longest first
  long_functions.py check ALLOWED_FILE [ROOT]
                                         fails on a function over the limit
                                         that the allow-list does not name, or
                                         longer or shorter than the list says;
                                         and on an entry no longer needed (the
                                         list only shrinks, with its functions)

A function is found where a statement at namespace or class level (one
line or several) ends its signature with '{'; its body ends at the matching brace (strings, character
literals and comments skipped). Lambdas count in the function around them."""
import os
import re
import subprocess
import sys

LIMIT = int(os.environ.get("LIMIT", "100"))
# The front door's commands only parse, call and print: a shorter limit.
DOOR, DOOR_LIMIT = "radarlog/cli/", min(LIMIT, 80)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDERS = ("radarlog", "replay-gui", "single-process-driver", "netdesc", "sample-programs")
KEYWORDS = {"if", "for", "while", "switch", "catch", "do", "else", "namespace", "struct", "class", "union", "enum",
            "return"}
SIGNATURE = re.compile(r"([A-Za-z_~][\w:~]*(?:<[^()]*>)?|operator\s*[^\s(]+)\s*\([^;]*\)[^;(){}]*\{\s*$")


def sources():
    try:
        out = subprocess.run(["git", "ls-files", *FOLDERS], cwd=ROOT, capture_output=True, text=True, check=True)
        names = out.stdout.split()
        if not names:
            raise OSError("not a git tree")
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(d, f), ROOT) for folder in FOLDERS
                 for d, _, fs in os.walk(os.path.join(ROOT, folder)) for f in fs]
    return sorted(n for n in names if n.endswith((".cc", ".h", ".c")) and "/generated/" not in n)


def code_of(line, in_comment):
    """The line without comments, strings and character literals."""
    out, i = [], 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_comment = end + 2, False
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            i, in_comment = i + 2, True
            continue
        if line[i] in "\"'":
            quote, i = line[i], i + 1
            while i < len(line) and line[i] != quote:
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out), in_comment


def limit_of(path):
    return DOOR_LIMIT if path.startswith(DOOR) else LIMIT


def long_functions(path):
    found = []
    in_comment, depth, start, name, body_depth = False, 0, None, None, 0
    pending, pending_start = "", None  # a statement begun on an earlier line
    # Depths at which a function may begin: file, namespace and class level.
    scopes = [True]
    with open(os.path.join(ROOT, path), errors="replace") as f:
        lines = f.read().split("\n")
    for number, raw in enumerate(lines, 1):
        code, in_comment = code_of(raw, in_comment)
        if code.lstrip().startswith("#"):
            continue
        opens_function = False
        if start is None and scopes[-1]:
            # A signature may span lines: the statement so far, joined.
            joined = (pending + " " + code) if pending else code
            m = SIGNATURE.search(re.sub(r"__attribute__\s*\(\(.*?\)\)", "", joined))
            if m and m.group(1).split("::")[-1] not in KEYWORDS and "=" not in joined.split("(")[0]:
                opens_function = True
            if any(c in code for c in ";{}"):
                pending, pending_start = "", None
            elif code.strip():
                pending, pending_start = joined, pending_start or number
        for ch in code:
            if ch == "{":
                if opens_function and start is None:
                    start, name, body_depth = pending_start or number, m.group(1), depth
                    pending, pending_start = "", None
                depth += 1
                container = start is None and re.search(r"\b(namespace|class|struct|union)\b[^;]*$", code) is not None
                scopes.append(container or (start is None and depth == 1 and not opens_function))
            elif ch == "}":
                depth -= 1
                if len(scopes) > 1:
                    scopes.pop()
                if start is not None and depth == body_depth:
                    if number - start + 1 > limit_of(path):
                        found.append((number - start + 1, path, name))
                    start = None
    return found


def all_long():
    found = []
    for path in sources():
        found += long_functions(path)
    return sorted(found, key=lambda f: (-f[0], f[1], f[2]))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "list":
        for lines, path, name in all_long():
            print(lines, path, name)
        return 0
    if len(sys.argv) not in (3, 4) or sys.argv[1] != "check":
        print(__doc__)
        return 2
    if len(sys.argv) == 4:  # another tree (a scratch copy with a planted violation)
        global ROOT
        ROOT = os.path.abspath(sys.argv[3])
    allowed = {}
    with open(sys.argv[2]) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                lines, path, name = line.split()
                allowed[(path, name)] = int(lines)
    found = {}
    for lines, path, name in all_long():
        found[(path, name)] = max(lines, found.get((path, name), 0))
    failures = []
    for (path, name), lines in sorted(found.items()):
        if (path, name) not in allowed:
            failures.append(f"{path}: {name} is {lines} lines (more than {limit_of(path)}): split it into named "
                            "steps")
        elif lines > allowed[(path, name)]:
            failures.append(f"{path}: {name} grew to {lines} lines (the allow-list has {allowed[(path, name)]}): "
                            "it may only shrink")
        elif lines < allowed[(path, name)]:
            failures.append(f"{path}: {name} shrank to {lines} lines: lower its entry in "
                            f"{os.path.basename(sys.argv[2])} to that")
    for (path, name), lines in sorted(allowed.items()):
        if (path, name) not in found:
            failures.append(f"{path}: {name} fits a screen now: remove it from {os.path.basename(sys.argv[2])}")
    for failure in failures:
        print(failure)
    print(f"{len(found)} functions over {LIMIT} lines, {len(allowed)} allowed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

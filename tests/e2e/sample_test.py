#!/usr/bin/env python3
"""End to end over one sample program, in the record -> check -> replay ->
compare style:

  1. record the sample with `radar record`, as a user would;
  2. `radar check`: every received byte matched to its send, and exactly the
     findings the sample is about (the deadlock's cycle), nothing else;
  3. `radar events`: the sample's story appears in the narrative, in an order
     consistent with causality (every receive after the sends it got);
  4. `radar debug --no-gdb`: every process image re-runs alone, fed from the
     recording, with zero divergences (tried again, for a sample that says
     so, only where radar blames memory its threads shared unsynchronized);
  5. `radar replay --snapshot`: the replay window renders the recording
     headless at its last event (when the GUI is built);
  6. `radar events --net SAMPLE.netdesc --decode`: the sample's network
     description matches the recording in every part, renames its channels,
     and decodes every message without a complaint.

    sample_test.py BUILD_DIR SAMPLE

A failure keeps the recording and prints the command that reproduces the
failing step. Exit 77 (skipped) when the sample needs what is missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


UNRECORDED_SYNC = "memory one thread wrote and another read with no synchronization radar records"


class Sample:
    def __init__(self, command, stdin="", status=0, stdout=(), story=(), findings=(), allowed=(), needs=(),
                 net=None, record_options=(), record_tries=1):
        self.command = command      # relative to the build's bin directory, or a program on PATH
        # Recordings to make while a re-run diverges where radar blames memory
        # the threads shared without a synchronization it records (a known
        # limit: CPython's interpreter lock hands over through an atomic flag
        # its holder reads between bytecodes, so each recording fixes an order
        # the re-run may not meet; a new recording is a new order).
        self.record_tries = record_tries
        self.record_options = list(record_options)  # radar record's, before the command
        self.stdin = stdin
        self.status = status        # the program's exit status
        self.stdout = stdout        # regexes its output must match
        self.story = story          # causal chains: regexes that narrative lines must match, in order
        self.findings = findings    # (kind, regex) that `radar check` must report, and no other ...
        self.allowed = allowed      # ... except these, which it may report (what the program leaves behind)
        self.needs = needs          # programs that must be installed
        self.net = net              # its network description in the build's bin directory (default: NAME.netdesc)


P = r"\[\d+\]"  # a pid in a label

SAMPLES = {
    "static_net": Sample(
        ["static_net"],
        stdout=[r"proc3"],
        story=[
            [rf"proc1{P} sends a message to proc3{P}", rf"proc3{P} receives a message from proc1{P}",
             rf"proc3{P} sends a message to proc1{P}", rf"proc1{P} receives a message from proc3{P}"],
            [rf"proc2{P} sends a message to proc3{P}", rf"proc3{P} receives a message from proc2{P}"],
            [rf"proc3{P} sends a message to proc2{P}", rf"proc2{P} receives a message from proc3{P}"],
        ],
    ),
    "broadcast": Sample(
        ["broadcast"],
        stdin="5\n7\n999\n",
        stdout=[r"receiver1: 5", r"receiver2: 7"],
        story=[
            [rf"sender{P} receives a message from outside the recording",
             rf"sender{P} sends a message to receiver1{P}", rf"receiver1{P} receives a message from sender{P}"],
            [rf"sender{P} sends a message to receiver2{P}", rf"receiver2{P} receives a message from sender{P}"],
        ],
    ),
    "calc": Sample(
        ["calc"],
        stdin="(2 + 3) * x - 4 / 2\n10 - (2 + 3)\n",
        stdout=[r"= 33", r"= -5"],
        story=[
            [rf"scanner{P} receives a message from outside the recording",
             rf"scanner{P} sends a message to parser{P}", rf"parser{P} receives a message from scanner{P}",
             rf"parser{P} sends a message to interpreter{P}", rf"interpreter{P} receives a message from parser{P}",
             rf"interpreter{P} sends a message to outside the recording"],
            [rf"scanner{P} sends a message to interpreter{P}", rf"interpreter{P} receives a message from scanner{P}"],
        ],
    ),
    "mpx": Sample(
        ["mpx", "2", "20"],
        stdout=[r"server"],
        story=[
            [rf"initiator{P} sends a message to server{P}", rf"server{P} receives a message from initiator{P}",
             rf"server{P} sends a message to initiator{P}", rf"initiator{P} receives a message from server{P}"],
        ],
    ),
    "deadlock_ring": Sample(
        ["deadlock", "ring"],
        net="deadlock.netdesc",
        status=3,
        stdout=[r"workers killed after 2 s"],
        story=[
            [rf"deadlock{P} receives signal 14 \(SIGALRM\)", rf"deadlock{P} sends signal 19 \(SIGSTOP\) to alpha{P}",
             rf"deadlock{P} sends signal 9 \(SIGKILL\) to alpha{P}"],
        ],
        findings=[
            ("deadlock", rf"alpha{P} waits for gamma{P} on pipe \d+, gamma{P} waits for beta{P} on pipe \d+, "
                         rf"beta{P} waits for alpha{P}"),
            ("abnormal-end", rf"alpha{P} was killed by signal 9"),
            ("abnormal-end", rf"beta{P} was killed by signal 9"),
            ("abnormal-end", rf"gamma{P} was killed by signal 9"),
        ],
    ),
    "deadlock_chain": Sample(
        ["deadlock", "chain"],
        net="deadlock.netdesc",
        story=[
            [rf"alpha{P} sends a message to beta{P}", rf"beta{P} receives a message from alpha{P}",
             rf"beta{P} sends a message to gamma{P}", rf"gamma{P} receives a message from beta{P}",
             rf"gamma{P} sends a message to alpha{P}", rf"alpha{P} receives a message from gamma{P}"],
        ],
    ),
    "race": Sample(
        ["race"],
        stdout=[r"hits = \d+"],
        story=[
            [rf"client{P} sends a message to server{P} on socketpair", rf"server{P} receives a message from client{P}",
             rf"server{P} sends a message to client{P}", rf"client{P} receives a message from server{P}"],
        ],
    ),
    "kvstore4": Sample(
        ["kvstore", "4"],
        net="kvstore.netdesc",
        story=[
            # The launcher learns the port from the server, then starts the clients.
            [rf"server{P} listens on tcp 127\.0\.0\.1:\d+", rf"server{P} sends a message to kvstore{P}",
             rf"kvstore{P} receives a message from server{P}", rf"client{P} connects tcp 127\.0\.0\.1:\d+",
             rf"client{P} sends a message to server{P} on tcp", rf"server{P} receives a message from client{P}",
             rf"server{P} sends a message to client{P}", rf"client{P} receives a message from server{P}"],
        ],
    ),
    "kvstore6": Sample(
        ["kvstore", "6", "3"],
        net="kvstore.netdesc",
        story=[
            [rf"server{P} listens on tcp \[::1\]:\d+", rf"client{P} connects tcp \[::1\]:\d+",
             rf"client{P} sends a message to server{P} on tcp \[::1\]", rf"server{P} receives a message from client{P}",
             rf"server{P} sends a message to client{P}", rf"client{P} receives a message from server{P}"],
        ],
    ),
    "pipeline": Sample(
        ["pipeline.sh"],
        stdout=[r"consumer: 10 lines, 148 bytes"],
        story=[
            [rf"pipeline_producer{P} sends a message to pipeline_filter{P}",
             rf"pipeline_filter{P} receives a message from pipeline_producer{P}",
             rf"pipeline_filter{P} sends a message to pipeline_consumer{P}",
             rf"pipeline_consumer{P} receives a message from pipeline_filter{P}"],
        ],
    ),
    "pool": Sample(
        ["python3", "pool.py"],
        stdout=[r"sum of squares 1\.\.100 = 338350"],
        story=[
            [rf"pool\.py{P} creates pool\.py{P}", rf"pool\.py{P} sends a message to pool\.py{P}",
             rf"pool\.py{P} receives a message from pool\.py{P}"],
        ],
        # The pool sends its threads and workers more end-of-work sentinels
        # than they read before they stop.
        allowed=[("never-received", rf"sent by pool\.py{P} on pipe \d+ never received")],
        needs=["python3"],
        # Its threads meet through locks (the pool's handler threads end
        # together at shutdown), and its worker handler polls the workers
        # on the clock (a failed waitpid, then a timed wait, until they
        # end): their order and the clock's readings, recorded, make the
        # re-run exact however the machine is loaded.
        record_options=["--sync", "--nondet"],
        record_tries=3,
    ),
    "ports_demo": Sample(
        ["python3", "ports_demo.py", "launch"],
        story=[
            [rf"ports_demo\.py{P} sends a message to ports_demo\.py{P}",
             rf"ports_demo\.py{P} receives a message from ports_demo\.py{P}"],
        ],
        needs=["python3"],
    ),
}


class Failure(Exception):
    pass


class UnrecordedSyncDivergence(Failure):
    pass


class Attempt:
    """Where one recording of a sample is in its steps, to say what failed and how to reproduce it."""
    def __init__(self, rec):
        self.rec = rec
        self.step = "record"
        self.reproduce = ""


def run(argv, stdin="", timeout=120, env=None):
    return subprocess.run(argv, input=stdin.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, env=env)


def sandbox_available():
    """Whether radar debug can make its sandbox's namespaces here (not where a
    container's seccomp profile or a chroot refuses them): where it cannot,
    the re-runs are made with --no-sandbox, so that they are still tested."""
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--user", "--map-root-user", "--mount", "--net", "--ipc", "--uts", "--pid", "--fork", "true"]
    return subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def text(b):
    return b.decode(errors="replace")


def exercise(build, name, sample, attempt):
    """Records the sample into attempt.rec and takes the recording through every
    command; returns its events and process images. Raises Failure."""
    bin_dir = os.path.join(build, "bin")
    radar = os.path.join(bin_dir, "radar")
    rec = attempt.rec
    command = [os.path.join(bin_dir, c) if os.path.exists(os.path.join(bin_dir, c)) else c for c in sample.command]
    record = [radar, "record", "-o", rec] + sample.record_options + ["--"] + command
    attempt.reproduce = " ".join(record)
    # 1. record
    r = run(record, sample.stdin)
    out = text(r.stdout)
    if r.returncode != sample.status:
        raise Failure("the program exited %d, expected %d:\n%s" % (r.returncode, sample.status, text(r.stderr)))
    for pattern in sample.stdout:
        if not re.search(pattern, out):
            raise Failure("its output lacks /%s/:\n%s" % (pattern, out))

    # 2. check
    attempt.step = "check"
    attempt.reproduce = "%s check --json %s" % (radar, rec)
    r = run([radar, "check", "--json", rec])
    if r.returncode != 0:
        raise Failure("radar check exited %d: %s" % (r.returncode, text(r.stderr)))
    check = json.loads(r.stdout)
    if check["bytes_unmatched"] or check["bytes_received"] != check["bytes_matched"] + check["bytes_external"]:
        raise Failure("received bytes not all matched: %s" % r.stdout.decode())
    if check["problems"]:
        raise Failure("problems reading the recording: %s" % check["problems"])
    # Every finding about processes is one click from an event.
    for f in check["findings"]:
        if f["kind"] in ("deadlock", "abnormal-end", "never-ended") and len(f["events"]) < 1:
            raise Failure("finding without an event to go to: %s" % f)
    found = [(f["kind"], f["text"]) for f in check["findings"]]
    for kind, pattern in sample.findings:
        match = [f for f in found if f[0] == kind and re.search(pattern, f[1])]
        if not match:
            raise Failure("no %s finding like /%s/ in %s" % (kind, pattern, found))
        found.remove(match[0])
    found = [f for f in found if not any(f[0] == kind and re.search(p, f[1]) for kind, p in sample.allowed)]
    if found:
        raise Failure("unexpected findings: %s" % found)

    # 3. the narrative: the story in order, receives after their sends
    attempt.step = "events"
    attempt.reproduce = "%s events --json %s" % (radar, rec)
    r = run([radar, "events", "--json", rec])
    if r.returncode != 0:
        raise Failure("radar events exited %d: %s" % (r.returncode, text(r.stderr)))
    events = [json.loads(line) for line in r.stdout.splitlines()]
    if not events or [e["event"] for e in events] != list(range(1, len(events) + 1)):
        raise Failure("events are not numbered 1, 2, 3 ...")
    # A process with several threads has its events in the order its
    # calls returned, not a causal order between threads: `radar check`
    # counts where that placed a receive before its send.
    threaded = {e["pid"] for e in events if e["thread"] > 0}
    backwards = 0
    for e in events:
        for sender in e.get("from_events") or []:
            other = events[sender - 1]
            if sender < e["event"] or other["pid"] == e["pid"]:
                continue
            if (other["pid"] in threaded or e["pid"] in threaded) and check["placed_by_time"] > backwards:
                backwards += 1
                continue
            raise Failure("event %d receives from event %d, which comes later" % (e["event"], sender))
    for chain in sample.story:
        at = 0
        for pattern in chain:
            while at < len(events) and not re.search(pattern, events[at]["text"]):
                at += 1
            if at == len(events):
                raise Failure("the narrative lacks /%s/ (after the events before it in %s)" % (pattern, chain))
            at += 1

    # 4. every process image re-runs alone with zero divergences
    attempt.step = "debug"
    images = sorted(f[:-5] for f in os.listdir(rec) if f.endswith(".rlog"))
    for image in images:
        pid, generation = image.split("-")[:2]
        spec = "%s.%s" % (pid, generation)
        argv = [radar, "debug", "--yes", rec, spec, "--no-gdb"] + ([] if sandbox_available() else ["--no-sandbox"])
        attempt.reproduce = " ".join(argv)
        r = run(argv, timeout=60)
        report = text(r.stderr)
        if r.returncode != 0:
            blame = UnrecordedSyncDivergence if UNRECORDED_SYNC in report else Failure
            raise blame("the re-run of %s exited %d:\n%s" % (image, r.returncode, report))
        if not re.search(r"as recorded|execs here", report):
            raise Failure("the re-run of %s did not say it matched the recording:\n%s" % (image, report))

    # 5. the replay window, headless, at the last event
    attempt.step = "replay"
    if os.path.exists(os.path.join(build, "libexec", "radar", "radar-replay")):
        png = rec + "-end.png"
        argv = [radar, "replay", rec, "--snapshot", png, "--at-event", str(len(events)), "--size", "800x600"]
        attempt.reproduce = " ".join(argv)
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        r = run(argv, env=env)
        if r.returncode != 0:
            raise Failure("radar replay exited %d: %s" % (r.returncode, text(r.stderr)))
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                raise Failure("the snapshot is not a PNG")
        if text(r.stdout).strip() != events[-1]["text"] + ". Event %d." % len(events):
            raise Failure("the replay's narrative at the end is %r, radar events says %r"
                          % (text(r.stdout).strip(), events[-1]["text"]))

    # 6. its network description: every part matches, channels take its
    #    names, every message decodes without a complaint
    attempt.step = "netdesc"
    net = os.path.join(bin_dir, sample.net or name + ".netdesc")
    argv = [radar, "events", "--json", "--decode", "--net", net, rec]
    attempt.reproduce = " ".join(argv)
    r = run(argv)
    if r.returncode != 0 or r.stderr:
        raise Failure("radar events --net exited %d:\n%s" % (r.returncode, text(r.stderr)))
    described = [json.loads(line) for line in r.stdout.splitlines()]
    renamed = {e.get("channel") for e in described} - {e.get("channel") for e in events}
    if not renamed:
        raise Failure("no channel took a name from %s" % net)
    for e in described:
        problem = re.search(r"^  \(.*\)$", e.get("decoded", ""), re.M)
        if problem:
            raise Failure("event %d does not decode cleanly: %s\n%s" % (e["event"], problem.group(0), e["decoded"]))

    # 7. SQL over the recording: its answers agree with radar stats and
    #    radar check, and `radar events --format jsonl` is the events table
    attempt.step = "sql"
    def sql(query):
        argv = [radar, "sql", "--no-cache", "--format", "json", rec, query]
        r = run(argv)
        if r.returncode != 0:
            raise Failure("%s exited %d: %s" % (" ".join(argv), r.returncode, text(r.stderr)))
        return json.loads(r.stdout or "[]")
    attempt.reproduce = "%s stats --json %s" % (radar, rec)
    stats = json.loads(run([radar, "stats", "--json", rec]).stdout)
    rows = sql("select p.process, count(e.event) events, total(kind = 'send' and not failed) sends, "
               "total(kind = 'receive' and not failed and not peek and bytes > 0) receives, "
               "total(case when kind = 'send' and not failed then bytes end) bytes_sent, "
               "total(case when kind = 'receive' and not failed and not peek then bytes end) bytes_received "
               "from processes p left join events e using (process) group by p.process order by p.process")
    told = [(p["events"], p["sends"], p["receives"], p["bytes_sent"], p["bytes_received"])
            for p in stats["processes"]]
    asked = [(r["events"], r["sends"], r["receives"], r["bytes_sent"], r["bytes_received"]) for r in rows]
    if told != asked:
        raise Failure("radar stats says %s per process, SQL says %s" % (told, asked))
    rows = sql("select c.name, count(e.event) messages, total(e.bytes) bytes from channels c "
               "join events e on e.channel = c.channel and e.kind = 'send' and not e.failed group by c.channel")
    told = sorted((c["channel"], c["messages"], c["bytes"]) for c in stats["channels"] if c["messages"])
    asked = sorted((r["name"], r["messages"], r["bytes"]) for r in rows)
    if told != asked:
        raise Failure("radar stats says %s per channel, SQL says %s" % (told, asked))
    findings = sorted((f["kind"], f["text"]) for f in sql("select kind, text from findings"))
    if findings != sorted((f["kind"], f["text"]) for f in check["findings"]):
        raise Failure("the findings table is %s, radar check says %s" % (findings, check["findings"]))
    matched = sql("select total(bytes) b from messages where receive is not null")[0]["b"]
    if matched != check["bytes_matched"]:
        raise Failure("messages received hold %d bytes, radar check matched %d" % (matched, check["bytes_matched"]))
    attempt.reproduce = "%s events --format jsonl %s" % (radar, rec)
    table = [json.loads(line) for line in run([radar, "events", "--format", "jsonl", rec]).stdout.splitlines()]
    if table != sql("select * from events order by event"):
        raise Failure("radar events --format jsonl differs from the events table")
    if [t["event"] for t in table] != [e["event"] for e in events] or \
            [t["number"] for t in table] != [e["number"] for e in events]:
        raise Failure("the events table is not the story radar events tells")
    return events, images


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in SAMPLES:
        print("usage: sample_test.py BUILD_DIR SAMPLE (one of %s)" % ", ".join(SAMPLES), file=sys.stderr)
        return 2
    build, name = sys.argv[1], sys.argv[2]
    sample = SAMPLES[name]
    for program in sample.needs:
        if not shutil.which(program):
            print("SKIP: %s needs %s, which is not installed" % (name, program))
            return 77
    work = tempfile.mkdtemp(prefix="radar-e2e-%s-" % name)
    for tried in range(1, sample.record_tries + 1):
        attempt = Attempt(os.path.join(work, "rec%d" % tried))
        try:
            events, images = exercise(build, name, sample, attempt)
            break
        except UnrecordedSyncDivergence as failure:
            if tried == sample.record_tries:
                return report_failure(name, attempt, failure)
            print("recording %d of %s: %s\nrecording it again" % (tried, name, failure), file=sys.stderr)
        except (Failure, subprocess.TimeoutExpired) as failure:
            return report_failure(name, attempt, failure)
    shutil.rmtree(work)
    print("ok: %s recorded (%d events), checked, re-run image by image (%d), replayed, described, queried"
          % (name, len(events), len(images)))
    return 0


def report_failure(name, attempt, failure):
    print("FAIL (%s step of %s): %s" % (attempt.step, name, failure), file=sys.stderr)
    print("The recording is kept in %s; reproduce with:\n  %s" % (attempt.rec, attempt.reproduce), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

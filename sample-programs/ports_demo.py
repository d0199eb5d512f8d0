#!/usr/bin/env python3
"""ports_demo.py -- a worker written with radar_ports.py: it echoes every
message it receives on port INPUT to port OUTPUT, until end of file.

A message is a 4-byte big-endian length followed by that many bytes.

    python3 ports_demo.py             the worker: needs RADAR_PORT_INPUT and
                                      RADAR_PORT_OUTPUT (a launcher sets them)
    python3 ports_demo.py launch      a tiny launcher, to run it standalone:
                                      it creates two pipes, starts the worker
                                      (argv[0] "echo") with its ports, sends
                                      three messages, and prints the echoes

    build/bin/radar record -o rec -- python3 build/bin/ports_demo.py launch
"""
import os
import struct
import subprocess
import sys

import radar_ports


def worker():
    while True:
        header = radar_ports.receive("INPUT", 4)
        if not header:
            return 0
        (length,) = struct.unpack(">I", header)
        body = radar_ports.receive("INPUT", length) if length else b""
        radar_ports.send("OUTPUT", header + body)


def launch():
    to_worker_r, to_worker_w = os.pipe()
    from_worker_r, from_worker_w = os.pipe()
    env = dict(os.environ,
               RADAR_PORT_INPUT=str(to_worker_r),
               RADAR_PORT_OUTPUT=str(from_worker_w),
               # Python finds its library from argv[0] unless told where it is.
               PYTHONHOME=f"{sys.base_prefix}:{sys.base_exec_prefix}")
    # argv[0] "echo" names the worker; executable= says what to run.
    echo = subprocess.Popen(["echo", os.path.abspath(__file__)],
                            executable=sys.executable, env=env,
                            pass_fds=(to_worker_r, from_worker_w),
                            stdin=subprocess.DEVNULL)
    os.close(to_worker_r)
    os.close(from_worker_w)
    # The launcher talks to the worker through the same helpers, with its
    # own ends of the pipes as ports.
    os.environ["RADAR_PORT_TO_ECHO"] = str(to_worker_w)
    os.environ["RADAR_PORT_FROM_ECHO"] = str(from_worker_r)
    for text in ["hello", "ports", "demo"]:
        body = text.encode()
        radar_ports.send("TO_ECHO", struct.pack(">I", len(body)) + body)
        (length,) = struct.unpack(">I", radar_ports.receive("FROM_ECHO", 4))
        print("echo:", radar_ports.receive("FROM_ECHO", length).decode(), flush=True)
    os.close(to_worker_w)
    status = echo.wait()
    os.close(from_worker_r)
    return status


if __name__ == "__main__":
    sys.exit(launch() if sys.argv[1:] == ["launch"] else worker())

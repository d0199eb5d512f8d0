"""radar_ports.py -- find and use a process's communication ports (Python 3).

The port convention shared by radar's sample launchers and `radar run`: a
process finds each of its ports in an environment variable

    RADAR_PORT_<NAME>=<fd>[,<fd>...]        e.g. RADAR_PORT_OUTPUT=4,5

where NAME is the port name in upper case. An output port with several fds
is connected to several inputs: send() replicates each message to every fd.
Several processes may hold the write end of the same pipe (many-to-one).
The same helpers exist in C: radar_ports.h.
"""
import os
import re


def port_fds(name):
    """The port's fds, as a list; [] if the variable is missing or malformed."""
    value = os.environ.get("RADAR_PORT_" + name.upper(), "")
    if not re.fullmatch(r"[0-9]+(,[0-9]+)*", value):
        return []
    return [int(fd) for fd in value.split(",")]


def send(name, data):
    """Writes all of data (bytes) to every fd of the port."""
    fds = port_fds(name)
    if not fds:
        raise OSError(f"no port {name} (RADAR_PORT_{name.upper()})")
    for fd in fds:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]


def receive(name, size):
    """Reads exactly size bytes from the port's first fd. Returns them, or b''
    at end of file before any byte; raises EOFError if the file ends inside
    the message."""
    fds = port_fds(name)
    if not fds:
        raise OSError(f"no port {name} (RADAR_PORT_{name.upper()})")
    data = b""
    while len(data) < size:
        chunk = os.read(fds[0], size - len(data))
        if not chunk:
            if data:
                raise EOFError(f"port {name}: end of file inside a message")
            return b""
        data += chunk
    return data

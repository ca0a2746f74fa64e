#!/usr/bin/env python3
"""An adapter that misbehaves on purpose, for the tests: `misbehave.py MODE PIDFILE`.

It writes its pid to PIDFILE, answers the handshake, and then, by MODE:
crash   exits with status 3 on the first reset, after a line on stderr;
hang    reads the reset and never answers;
garbage answers the reset with a line that is not JSON;
late    serves the reference adapter for 5 actions, then raises an exception.
"""
import json
import os
import sys
import time

# The pid first, before the slower imports: the test reads it even when pagecheck kills this process early.
mode, pidfile = sys.argv[1], sys.argv[2]
with open(pidfile, "w") as f:
    f.write(str(os.getpid()))

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "adapters", "python"))
import adapter  # noqa: E402


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


server = None
actions = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        out({"type": "hello", "protocol": 1, "adapter": "misbehaving " + mode, "observes": ["holder", "table", "phase"]})
    elif msg["type"] == "reset":
        if mode == "crash":
            sys.stderr.write("boom: the allocator could not be built\n")
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("allocator ready!!")
            sys.stdout.flush()
            continue
        server = adapter.Server(msg["config"])
        out({"type": "ready"})
    elif msg["type"] == "action":
        actions += 1
        if mode == "late" and actions > 5:
            raise RuntimeError("allocator state corrupted")
        accepted = getattr(server, msg["kind"])(msg["request"])
        out({"type": "state", "accepted": accepted, "state": server.observe()})
    elif msg["type"] == "bye":
        out({"type": "bye"})
        break

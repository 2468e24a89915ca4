"""A misbehaving bot for the referee's fault tests (never installed as a plugin).

    python tests/bots/hostile.py MODE [ARG]

It speaks the protocol with raw pyzmq so it can break it in every way.
Modes: play (a well-behaved random bot), crash-start, crash-mid N, hang,
slow SECONDS, garbage, oversize BYTES, illegal, wrong-token,
memory (allocate without bound), spin (burn CPU),
child MARKER, record PATH (a well-behaved bot that
writes every message it receives to PATH, one JSON per line).
"""

import json
import os
import random
import subprocess
import sys
import time

import zmq

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""
if mode == "crash-start":
    sys.exit(3)

context = zmq.Context()
socket = context.socket(zmq.DEALER)
socket.setsockopt(zmq.LINGER, 1000)
socket.connect(os.environ["ARENA_CONNECT"])
token = "0" * 32 if mode == "wrong-token" else os.environ["ARENA_TOKEN"]
socket.send_json({"type": "hello", "version": 1, "token": token, "name": f"hostile-{mode}"})
if mode == "child":
    # A grandchild left behind: it must be reaped with the bot's process group.
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", arg])
record = open(arg, "a") if mode == "record" else None  # noqa: SIM115
rng = random.Random(0)
answered = 0
while True:
    raw = socket.recv()
    message = json.loads(raw)
    if record:
        record.write(raw.decode() + "\n")
        record.flush()
    if message["type"] == "bye":
        break
    if message["type"] != "act":
        continue
    if mode in ("hang", "wrong-token"):
        time.sleep(3600)
    if mode == "crash-mid" and answered >= int(arg):
        os._exit(1)
    if mode == "slow":
        time.sleep(float(arg))
    if mode == "memory":
        hoard = [bytearray(64 * 1024 * 1024) for _ in range(10_000)]
    if mode == "spin":
        while True:
            pass
    if mode == "garbage":
        socket.send(b"\x00\xff this is not json {")
        continue
    if mode == "oversize":
        socket.send_json(
            {"type": "action", "version": 1, "seq": message["seq"], "action": "x" * int(arg)}
        )
        continue
    action = "claim 999 red" if mode == "illegal" else rng.choice(message["legal"])
    socket.send_json({"type": "action", "version": 1, "seq": message["seq"], "action": action})
    answered += 1

"""A misbehaving bot for the referee's fault tests (never installed as a plugin).

    python tests/bots/hostile.py MODE [ARG]

It speaks the protocol with raw pyzmq so it can break it in every way.
Modes: play (a well-behaved random bot), crash-start, crash-mid N, hang,
slow SECONDS, garbage, oversize BYTES, illegal, wrong-token,
memory (allocate without bound), spin (burn CPU),
child MARKER, record NAME (a well-behaved bot that
writes every message it receives to NAME in its scratch folder $TMPDIR, one JSON
per line: a sandboxed bot may write nowhere else),
flood BYTES (writes that much to stdout and stderr, then plays),
snoop [SECRET PORT] (tries to read the file SECRET, to connect to the TCP port
PORT (both also from ARENA_TEST_SECRET and ARENA_TEST_PORT), to signal its
parent, to read its parent's environment, and to impersonate seat 0 with a
made-up token; it reports each attempt on stderr, and if any succeeds it sends
garbage, so that a leak shows as a fault).
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
if mode == "flood":
    chunk = b"y" * 65536
    for _ in range(int(arg) // len(chunk)):
        sys.stdout.buffer.write(chunk)
        sys.stderr.buffer.write(chunk)
    sys.stdout.flush()
leaked = []
if mode == "snoop":
    import socket as tcp

    def attempt(what, action):
        try:
            action()
        except OSError as error:
            print(f"denied: {what}: {error}", file=sys.stderr, flush=True)
        else:
            print(f"ALLOWED: {what}", file=sys.stderr, flush=True)
            leaked.append(what)

    # The targets: on the command line (snoop SECRET PORT), else in the environment.
    secret_path = arg or os.environ["ARENA_TEST_SECRET"]
    port = int(sys.argv[3] if len(sys.argv) > 3 else os.environ["ARENA_TEST_PORT"])

    def read_secret():
        with open(secret_path, "rb") as secret:
            secret.read()

    def connect_elsewhere():
        with tcp.create_connection(("127.0.0.1", port), 2):
            pass

    print(f"network namespace: {os.readlink('/proc/self/ns/net')}", file=sys.stderr, flush=True)
    attempt("read the results store", read_secret)
    attempt("connect to another port", connect_elsewhere)
    attempt("signal the referee", lambda: os.kill(os.getppid(), 0))

    def read_environment():
        with open(f"/proc/{os.getppid()}/environ", "rb") as environ:
            environ.read()

    attempt("read the referee's environment", read_environment)
    impostor = context.socket(zmq.DEALER)
    impostor.connect(os.environ["ARENA_CONNECT"])
    impostor.send_json({"type": "hello", "version": 1, "token": "1" * 32, "name": "seat 0"})
    print("tried: hello as another seat with a made-up token", file=sys.stderr, flush=True)
if mode == "child":
    # A grandchild left behind: it must be reaped with the bot's process group.
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", arg])
record = (
    open(os.path.join(os.environ.get("TMPDIR", "."), arg), "a")  # noqa: SIM115
    if mode == "record"
    else None
)
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
    if mode == "garbage" or leaked:
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

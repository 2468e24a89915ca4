"""The hostile zoo: misbehaving bots for the referee's tests (never installed as a plugin).

    python tests/bots/hostile.py MODE [ARG ...]

It speaks the protocol with raw pyzmq, written from PROTOCOL.md alone, so it
can break it in every way. Every mode first says on stderr (flushed)
"hostile MODE started; environment: NAME NAME ..." (the names of every
environment variable it sees), then:

well-behaved      play (a random bot, seeded by each game's seed); work N (the same, after a
                  fixed computation of N steps at each decision: an honest bot's thinking,
                  for benchmarks/isolation.py); record NAME (also writes
                  every message it receives to stdout, one JSON per line: its scratch
                  folder does not outlive it, its log does)
process           crash-start; crash-mid N (exits after N answers); hang; slow SECONDS;
                  sluggish (thinks 0.5 s over each of its first 3 decisions, then plays);
                  drop N (closes its connection after its N-th answer, and lives on);
                  memory (allocates without bound); spin (burns CPU);
                  child MARKER (leaves a child process behind);
                  setsid MARKER (a child that calls setsid() and sleeps, the bot plays on);
                  fork-exit N (the launched process forks, its child plays, and the
                  launched process exits, status 3, after the child's N-th answer)
messages          garbage; badtype (its seq as a string); badutf8 (an action whose JSON
                  string is not UTF-8); oversize BYTES (an action of that size); oversize-leave
                  BYTES (the same, then, its connection closed, it leaves with status 0, as
                  PROTOCOL.md's "When the referee is gone" says); illegal;
                  wrong-token; ansi-name (its hello's name and version hold terminal escapes, a
                  newline and a NUL, to forge a line of the organiser's output);
                  wrong-seq (answers with a request id it was not given);
                  twice (answers every request twice); late (answers illegally, then,
                  given a new request, answers the old one again before the new one);
                  early (sends junk, a hello that is not UTF-8 and an action before its
                  hello);
                  others-seq (also answers request ids that could be other seats')
connections       once welcomed: reconnect (a second socket says hello with the same
                  token and answers too); sockets N (opens N more sockets, each saying
                  hello); junk N (N more sockets sending junk without pause)
output            flood BYTES (that much to stdout and to stderr, then plays)
spying            snoop SECRET PORT [PID] (tries to read the file SECRET, to connect to the
                  TCP port PORT, to signal the process PID (default: its parent), to read
                  its environment, and to impersonate seat 0 with a made-up token; reports
                  each attempt on
                  stderr, and sends garbage if any succeeds, so that a leak shows as a fault);
                  rebuild [SPEC] (tries to rebuild the whole deal from everything
                  it receives, and from the tournament file SPEC when given: reports
                  "REBUILT" on stderr and sends garbage if it can)
colluding seats   collude-write TAG (at each decision, writes its hand into every place
                  another bot could read: /dev/shm/TAG, a System V shared memory segment and
                  a POSIX message queue named after TAG, /tmp/TAG, /var/tmp/TAG, an abstract
                  Unix socket; reports each on stderr); collude-read TAG (at each decision,
                  looks in each of them: reports "SAW PLACE" on stderr and sends garbage if
                  it finds any, so that a leak shows as a fault)
other bots' time  burner N [SECONDS] (at its first decision, forks N children that spin for
                  ever, then plays on: they compute while the others think; it thinks
                  SECONDS over each of its first 4 decisions); spin-after-over (at each
                  game_over, forks a child that spins for ever, sending nothing)
disk              fill BYTES (at its first decision, writes BYTES into 16 KiB files in its
                  scratch folder and BYTES into /dev/shm, until refused; reports what it
                  wrote on stderr, then plays on)
raw ZMTP          zmtp BYTES (no ZeroMQ library: speaks the ZMTP 3.0 wire protocol by hand
                  on a second connection and sends one multi-part message of 60 KiB
                  frames that never ends, BYTES in all, while its first connection plays)
"""

import json
import os
import random
import re
import subprocess
import sys
import threading
import time

mode = sys.argv[1]
args = sys.argv[2:]
arg = args[0] if args else ""
names = " ".join(sorted(os.environ))
print(f"hostile {mode} started; environment: {names}", file=sys.stderr, flush=True)
if mode == "crash-start":
    sys.exit(3)

ENDPOINT = os.environ["ARENA_CONNECT"]
TOKEN = os.environ["ARENA_TOKEN"]
HELLO = {"type": "hello", "version": 1, "token": TOKEN, "name": f"hostile-{mode}"}

if mode == "fork-exit":
    # The launched process forks before anything else; the child plays the seat, and the
    # launched process exits (status 3) once the child has answered N times. (A status 0
    # in a PID namespace, whose end closes the child's connection with it, looks like a bot
    # leaving after its connection dropped, and may be charged oversize: see PROTOCOL.md.)
    reader, writer = os.pipe()
    if os.fork() != 0:
        os.close(writer)
        os.read(reader, 1)
        print("launched process exiting; its child plays on", file=sys.stderr, flush=True)
        os._exit(3)
    os.close(reader)
if mode == "setsid" and os.fork() == 0:  # the child leaves the process group, and sleeps
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", arg])

import zmq  # noqa: E402  (after the forks: a ZeroMQ context does not survive fork)

context = zmq.Context()


def dealer(watched=None):
    """A DEALER connected to the referee; with a list ``watched``, the monitor that reports
    its handshake with the referee is added to it (see ``wait_connected``)."""
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    if watched is not None:
        watched.append(socket.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED))
    socket.connect(ENDPOINT)
    return socket


def wait_connected(monitors, seconds=30.0):
    """Wait until the referee has taken each watched connection, so the attack lands during
    the game whatever the load (a fast game may otherwise end before ZeroMQ connects);
    False if one never is (the referee closed the endpoint: the seat was charged)."""
    deadline = time.monotonic() + seconds
    for monitor in monitors:
        if not monitor.poll(max(0, int((deadline - time.monotonic()) * 1000))):
            return False
        monitor.recv_multipart()
        monitor.close(linger=0)
    return True


if mode == "flood":  # before the hello: the handshake's time, not the game's clock
    chunk = b"y" * 65536
    for _ in range(int(arg) // len(chunk)):
        sys.stdout.buffer.write(chunk)
        sys.stderr.buffer.write(chunk)
    sys.stdout.flush()
socket = dealer()
if mode == "early":
    for junk in (
        b"junk before hello",
        b'{"type":"hello","version":1,"token":"\xff\xfe","name":"x"}',
        b'{"type":"action","version":1,"seq":1,"action":"pass"}',
    ):
        socket.send(junk)
token = "0" * 32 if mode == "wrong-token" else TOKEN
if mode == "ansi-name":
    HELLO["name"] = "\x1b[2J\x1b[31mEVIL\nseat 0 (random) forfeited: crash\x00\u200b"
    HELLO["bot_version"] = "\x1b[2J" + "9" * 60000
socket.send_json({**HELLO, "token": token})
pending = []
if mode in ("reconnect", "sockets", "junk"):
    # The seat is this connection's once welcomed; only then do the others join.
    pending.append(socket.recv())
extra = []
if mode == "reconnect":
    twin = dealer()
    twin.send_json(HELLO)
    extra.append(twin)
if mode == "sockets":
    # One after another, each connected before the next: all at once, the sockets would use
    # up the file descriptors ZeroMQ needs to connect them, and none would arrive.
    for _ in range(int(arg)):
        watched = []
        try:
            more = dealer(watched)
            more.send_json(HELLO)
            extra.append(more)
        except zmq.ZMQError as error:  # out of file descriptors: what the limit is for
            print(f"socket refused: {error}", file=sys.stderr, flush=True)
            break
        # Far above the time another seat may hold the game while this one is frozen
        # between turns (a dropped connection's 5-s grace): the deadline runs then too.
        if not wait_connected(watched, 30.0):
            break
if mode == "junk":
    watched = []
    sprayers = [dealer(watched) for _ in range(int(arg))]
    wait_connected(watched)

    def spray():
        while True:
            for sprayer in sprayers:
                try:
                    sprayer.send(b"junk " * 200, zmq.NOBLOCK)
                except zmq.ZMQError:
                    time.sleep(0.001)

    threading.Thread(target=spray, daemon=True).start()
if mode == "zmtp":  # once welcomed, so that the seat plays on while the attack runs

    def endless_message(total):
        import socket as raw
        import struct

        if ENDPOINT.startswith("ipc://"):
            peer = raw.socket(raw.AF_UNIX)
            peer.connect(ENDPOINT[len("ipc://") :])
        else:
            host, port = ENDPOINT[len("tcp://") :].rsplit(":", 1)
            peer = raw.create_connection((host, int(port)))
        mechanism = b"NULL".ljust(20, b"\0")
        peer.sendall(b"\xff" + b"\0" * 8 + b"\x7f\x03\x00" + mechanism + b"\0" * 32)
        greeting = b""
        while len(greeting) < 64:
            greeting += peer.recv(64 - len(greeting))
        ready = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
        peer.sendall(b"\x04" + bytes([len(ready)]) + ready)
        frame = b"\x03" + struct.pack(">Q", 60 * 1024) + b"z" * (60 * 1024)  # MORE, long
        for _ in range(total // len(frame)):
            peer.sendall(frame)
        print(f"zmtp: sent {total} bytes of one unfinished message", file=sys.stderr, flush=True)
        time.sleep(3600)

    pending.append(socket.recv())
    threading.Thread(target=endless_message, args=(int(arg),), daemon=True).start()
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

    secret_path, port = arg, int(args[1])
    target = int(args[2]) if len(args) > 2 else os.getppid()  # the referee

    def read_secret():
        with open(secret_path, "rb") as secret:
            secret.read()

    def connect_elsewhere():
        with tcp.create_connection(("127.0.0.1", port), 2):
            pass

    print(f"network namespace: {os.readlink('/proc/self/ns/net')}", file=sys.stderr, flush=True)
    attempt("read the results store", read_secret)
    attempt("connect to another port", connect_elsewhere)
    attempt("signal the referee", lambda: os.kill(target, 0))

    def read_environment():
        with open(f"/proc/{target}/environ", "rb") as environ:
            environ.read()

    attempt("read the referee's environment", read_environment)
    impostor = dealer()
    impostor.send_json({"type": "hello", "version": 1, "token": "1" * 32, "name": "seat 0"})
    print("tried: hello as another seat with a made-up token", file=sys.stderr, flush=True)
if mode == "child":
    # A grandchild left behind: it must be reaped with the bot.
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", arg])


def collusion_places(tag):
    """Every place two bots of one machine could share, as (name, write, read) functions:
    write(text) stores it, read() returns what is there or raises OSError."""
    import ctypes
    import socket as unix
    import zlib

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    key = zlib.crc32(tag.encode()) & 0x7FFFFFFF
    queue = f"/{tag}".encode()

    def failed(what):
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")

    def segment(flags):
        shmid = libc.shmget(key, 4096, flags)
        if shmid < 0:
            failed("shmget")
        address = libc.shmat(shmid, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            failed("shmat")
        return address

    def shm_write(text):
        data = text.encode()[:4000] + b"\0"
        ctypes.memmove(segment(0o1000 | 0o666), data, len(data))  # IPC_CREAT

    def shm_read():
        return ctypes.string_at(segment(0o666), 4000).split(b"\0", 1)[0].decode()

    def mq_write(text):
        fd = libc.mq_open(queue, os.O_CREAT | os.O_WRONLY | os.O_NONBLOCK, 0o666, None)
        if fd < 0:
            failed("mq_open")
        data = text.encode()[:4000]
        libc.mq_send(fd, data, len(data), 0)  # a full queue keeps its older hands
        os.close(fd)

    def mq_read():
        fd = libc.mq_open(queue, os.O_RDONLY | os.O_NONBLOCK)
        if fd < 0:
            failed("mq_open")
        buffer = ctypes.create_string_buffer(65536)
        size = libc.mq_receive(fd, buffer, 65536, None)
        os.close(fd)
        return buffer.raw[: max(size, 0)].decode() or "(an empty queue of the other seat)"

    def file_place(path):
        def write(text):
            with open(path, "w") as out:
                out.write(text)

        def read():
            with open(path) as found:
                return found.read()

        return write, read

    listener = []

    def abstract_write(text):
        if not listener:
            server = unix.socket(unix.AF_UNIX, unix.SOCK_STREAM)
            server.bind(f"\0{tag}")
            server.listen(8)
            listener.append(server)

    def abstract_read():
        client = unix.socket(unix.AF_UNIX, unix.SOCK_STREAM)
        client.connect(f"\0{tag}")
        client.close()
        return "(connected to the other seat's socket)"

    places = [
        ("/dev/shm", *file_place(f"/dev/shm/{tag}")),
        ("System V shared memory", shm_write, shm_read),
        ("POSIX message queue", mq_write, mq_read),
        ("/tmp", *file_place(f"/tmp/{tag}")),
        ("/var/tmp", *file_place(f"/var/tmp/{tag}")),
        ("abstract Unix socket", abstract_write, abstract_read),
    ]
    return places


def collude(message, tag):
    """collude-write / collude-read at one decision (see the module's docstring)."""
    hand = json.dumps(message["observation"].get("hand"), sort_keys=True)
    for place, write, read in collusion_places(tag):
        try:
            if mode == "collude-write":
                write(hand)
            else:
                found = read()
        except (OSError, ValueError) as error:
            if not reported.get(place):
                print(f"denied: {place}: {error}", file=sys.stderr, flush=True)
                reported[place] = True
            continue
        if mode == "collude-write":
            if not reported.get(place):
                print(f"wrote: {place}", file=sys.stderr, flush=True)
                reported[place] = True
        else:
            print(f"SAW {place}: {found[:200]}", file=sys.stderr, flush=True)
            leaked.append(place)


def spin_for_ever():
    """A child that computes and never stops (its parent plays on)."""
    if os.fork() == 0:
        while True:
            pass


def fill(total):
    """Write ``total`` bytes into 16 KiB files in the scratch folder and into /dev/shm."""
    chunk = b"f" * 16384
    for folder in (os.environ["TMPDIR"], "/dev/shm"):
        written = files = 0
        stopped = "reached the target"
        try:
            while written < total:
                with open(
                    os.path.join(folder, f"ttr-arena-fill-{os.getpid()}-{files}"), "wb"
                ) as out:
                    files += 1
                    out.write(chunk)
                    written += len(chunk)
        except OSError as error:
            stopped = error.strerror
        print(
            f"fill {folder}: {written} bytes in {files} files ({stopped})",
            file=sys.stderr,
            flush=True,
        )


reported = {}


def rebuild(start, received):
    """Try every seed this bot could know of: the numbers 0 to 999, every number (decimal
    or hex, and its top 63 bits) in anything it was sent, and the seeds of the tournament
    file's schedule. Returns the seed that deals exactly what the bot was dealt, or None."""
    from arena.variants import new_game

    text = json.dumps(received)
    candidates = set(range(1000)) | {int(n) for n in re.findall(r"\d+", text) if len(n) < 30}
    candidates |= {int(h, 16) for h in re.findall(r"[0-9a-f]{8,}", text)}
    candidates |= {c >> 1 for c in candidates}
    if arg:
        from arena.tournament.schedule import fixed_schedule
        from arena.tournament.spec import TournamentSpec

        spec = TournamentSpec.from_toml(__import__("pathlib").Path(arg))
        candidates |= {match.seed for match in fixed_schedule(spec)}
    mine = start["observation"]
    for seed in sorted(candidates):
        if seed >= 2**63:
            continue
        try:
            state = new_game(start["variant"], start["players"], seed)
        except Exception:
            continue
        if state.observation(start["seat"]) == mine:
            return seed
    return None


record = sys.stdout if mode == "record" else None
rng = random.Random(0)
answered = 0
received = []
previous = None


def answer(seq, action, via=None):
    (via or socket).send_json({"type": "action", "version": 1, "seq": seq, "action": action})


while True:
    raw = pending.pop() if pending else socket.recv()
    message = json.loads(raw)
    if record:
        record.write(raw.decode() + "\n")
        record.flush()
    if mode == "rebuild":
        received.append(message)
        if message["type"] == "game_start":
            seed = rebuild(message, received)
            print(
                f"rebuild: {'REBUILT seed ' + str(seed) if seed is not None else 'failed'}",
                file=sys.stderr,
                flush=True,
            )
            if seed is not None:
                leaked.append("the deal")
    if message["type"] == "bye":
        break
    if message["type"] == "game_start":
        rng = random.Random(message["seed"])  # each game replays exactly, warm process or not
    if message["type"] == "game_over" and mode == "spin-after-over":
        spin_for_ever()
        print("spin-after-over: a spinning child started", file=sys.stderr, flush=True)
    if message["type"] != "act":
        continue
    seq = message["seq"]
    if mode in ("collude-write", "collude-read"):
        collude(message, arg)
    if mode == "burner" and not answered:
        for _ in range(int(arg)):
            spin_for_ever()
        print(f"burner: {arg} spinning children started", file=sys.stderr, flush=True)
    if mode == "burner" and len(args) > 1 and answered < 4:
        time.sleep(float(args[1]))
    if mode == "fill" and not answered:
        fill(int(arg))
    if mode in ("hang", "wrong-token"):
        time.sleep(3600)
    if mode == "crash-mid" and answered >= int(arg):
        os._exit(1)
    if mode == "slow":
        time.sleep(float(arg))
    if mode == "work":
        total = 0
        for step in range(int(arg)):
            total += step * step
    if mode == "sluggish" and answered < 3:
        time.sleep(0.5)
    if mode == "memory":
        hoard = [bytearray(64 * 1024 * 1024) for _ in range(10_000)]
    if mode == "spin":
        while True:
            pass
    if mode == "badtype":
        socket.send_json({"type": "action", "version": 1, "seq": str(seq), "action": "pass"})
        continue
    if mode == "badutf8":  # valid JSON, but its string is not UTF-8
        socket.send(b'{"type":"action","version":1,"seq":%d,"action":"\xff\xfe"}' % seq)
        continue
    if mode == "garbage" or leaked:
        socket.send(b"\x00\xff this is not json {")
        continue
    if mode == "oversize":
        answer(seq, "x" * int(arg))
        continue
    if mode == "oversize-leave":
        gone = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        answer(seq, "x" * int(arg))
        if gone.poll(60_000):
            print("the referee closed the connection: leaving", file=sys.stderr, flush=True)
            socket.close(linger=0)
            os._exit(0)
    choice = "claim 999 red" if mode == "illegal" else rng.choice(message["legal"])
    if mode == "wrong-seq":
        seq += 1
    if mode == "late":
        if previous is None:
            previous = seq
            answer(seq, "claim 999 red")  # forgiven, and a new request follows
            continue
        answer(previous, choice)  # the answer to the last request, late
        previous = None
    if mode == "others-seq":
        for guess in (seq - 1, seq + 1, seq + 2, rng.randrange(1, 2**53)):
            answer(guess, choice)
    for twin in extra if mode == "reconnect" else ():
        answer(seq, choice, via=twin)
    answer(seq, choice)
    if mode == "twice":
        answer(seq, choice)
    answered += 1
    if mode == "drop" and answered == int(arg):  # while the next seat thinks: not its clock
        socket.close(linger=0)
        time.sleep(3600)
    if mode == "fork-exit" and answered == int(arg):
        # Play on only once the launched process is gone (a busy machine may take a while
        # to run it; a fast game could end first): in a PID namespace this child dies with
        # it; elsewhere it is re-parented and answers on, as the attack means to.
        launcher = os.getppid()
        os.write(writer, b"x")
        while os.getppid() == launcher:
            time.sleep(0.001)

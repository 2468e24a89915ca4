"""``arena host`` benchmark: the ladder's pace under the server against ``arena tournament
run``'s on the same workers; with and without readers; the disk a stored match takes; how
long the boards take to start on a big store; the leaderboard page's latency on a big
competition while the ladder runs and clients read pages at once.

    python benchmarks/host.py [--workers 2] [--ladder-matches 200] [--bots 1000]
                              [--matches 100000] [--clients 20] [--seconds 30]
                              [--window 40] [--pairs 3] [--reader-rate 300]
                              [--startup 10000,100000,1000000]

1. Throughput. Four file bots (examples/python-bot) play a 2-player ladder of
   ``--ladder-matches`` matches with ``arena tournament run --format ladder --bot '*'``;
   then ``arena host`` with four participants uploading the same bots, timed over
   as many ladder matches once the first has landed. Target: within 10 %.
2. Latency. A competition with ``--bots`` registered versions (synthetic accounts)
   and ``--matches`` stored 2-player ladder matches among them (written in bulk
   through the store's API), plus two real participants whose bots the ladder
   plays; once every board has folded its matches in, ``--clients`` threads read
   the leaderboard page for ``--seconds``. Target: p95 under 100 ms.
3. Readers. The server's ladder (four participants, unpaced) in alternated windows of
   ``--window`` seconds, ``--pairs`` times A then B and a last A: A without readers, B
   with ``--clients`` threads reading the leaderboard page, together ``--reader-rate``
   pages a second (0: each as fast as it is answered); matches per minute of each, the
   machine's load, each B against the mean of the A windows either side. Then the
   bytes each stored match takes with the default retention applied (``arena admin
   prune``): the results store's growth and the bots' log files kept, per match.
   Target: B keeps 0.9 of A; 8 KB a match.
4. Start-up. A store of N ladder matches among ``--bots`` bots written by direct SQL
   inserts (plausible rows, not played), a board checkpoint as a running server leaves
   it (``TAIL`` matches before the end), then ``arena host`` started on it: seconds until
   the board page shows every match rated. Target: 5 s at 10^6.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.server.accounts import Accounts
from arena.server.competition import Competition
from arena.server.ladder import ladder_spec
from arena.tournament.results import MATCH_ID_STRIDE, MatchResult
from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, competition_text, wait_until

ARENA = Path(sys.executable).with_name("arena")
BOTS = [PYTHON_BOT / "bot.py", PYTHON_BOT / "greedy.py"] * 2


def cli_ladder(folder: Path, matches: int, workers: int) -> float:
    """Matches per minute of ``arena tournament run``'s ladder over four registered bots."""
    data = folder / "data"
    for i, path in enumerate(BOTS):
        subprocess.run(
            [ARENA, "submit", f"b{i}", "--file", str(path), "--data-dir", str(data),
             "--games", "1"], check=True, capture_output=True,
        )  # fmt: skip
    # Timed as the server is: from the first stored match to ``matches`` more (start-up,
    # workers and cold bot processes left out of both).
    run = subprocess.Popen(
        [ARENA, "tournament", "run", "--name", "bench", "--format", "ladder", "--bot", "*",
         "--players", "2", "--games", str(matches + 1), "--workers", str(workers),
         "--no-progress", "--data-dir", str(data), "--bank-ms", "20000", "--move-ms", "2000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until(
            lambda: _has(data, "bench") and stored(data, "bench") >= 1,
            "the benchmark's condition",
            600,
        )
        started = time.monotonic()
        wait_until(lambda: stored(data, "bench") >= matches + 1, "the benchmark's condition", 3600)
        return matches / (time.monotonic() - started) * 60
    finally:
        run.wait(600)


def stored(data: Path, name: str) -> int:
    with ResultsStore.reader(data) as store:
        return len(store.done_indices(store.tournament_info(name).id))  # type: ignore[union-attr]


def host_ladder(folder: Path, matches: int, workers: int) -> float:
    """Matches per minute of the server's ladder over four participants' bots."""
    host = HostProcess(
        folder, competition_text() + UNPACED, options=("--workers", str(workers))
    ).start()
    try:
        for i, path in enumerate(BOTS):
            visitor = host.visitor()
            visitor.signup(f"p{i}")
            answer = visitor.upload(f"b{i}", path.name, path.read_bytes())
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        name = "test-cup-usa-2p"
        wait_until(
            lambda: (host.data / "results.sqlite").exists() and _has(host.data, name),
            "the benchmark's condition",
            600,
        )
        # The ladder starts as soon as two bots pass: timed from when all four play.
        wait_until(lambda: stored(host.data, name) >= 1, "the ladder plays", 600)
        base = stored(host.data, name)
        started = time.monotonic()
        wait_until(lambda: stored(host.data, name) >= base + matches, "the matches", 3600)
        return matches / (time.monotonic() - started) * 60
    finally:
        host.stop()


def _has(data: Path, name: str) -> bool:
    with ResultsStore.reader(data) as store:
        return store.tournament_info(name) is not None


def big_competition(folder: Path, bots: int, matches: int) -> list[str]:
    """``bots`` synthetic registered versions and ``matches`` stored ladder matches."""
    data = folder / "data"
    (folder / "competition.toml").write_text(competition_text())
    competition = Competition.from_toml(folder / "competition.toml")
    accounts = Accounts(data)
    labels = []
    with accounts.transaction() as db:
        for user in range((bots + 3) // 4):
            cursor = db.execute(
                "INSERT INTO users (name, password, role, created_at) VALUES (?, ?, ?, ?)",
                (f"u{user}", accounts.dummy, "participant", time.time()),
            )
            for bot in range(min(4, bots - 4 * user)):
                db.execute(
                    "INSERT INTO submissions (user_id, bot, upload, status, version, active,"
                    " created_at) VALUES (?, ?, '', 'ok', 1, 0, ?)",
                    (cursor.lastrowid, f"b{bot}", time.time()),
                )
                labels.append(f"u{user}.b{bot}@1")
    spec = ladder_spec(competition, "usa", 2)
    rng = random.Random(1)
    with ResultsStore(data) as store:
        tid = store.tournament(spec.name, spec.fingerprint, spec.to_json())
        for begin in range(0, matches, 10_000):
            batch = []
            for idx in range(begin, min(matches, begin + 10_000)):
                ranks = (1, 2) if rng.random() < 0.5 else (2, 1)
                batch.append(
                    MatchResult(
                        idx=idx, variant="usa", seed=idx, bots=tuple(rng.sample(labels, 2)),
                        scores=(100 - 10 * ranks[0], 100 - 10 * ranks[1]), ranks=ranks,
                        engine_ranks=ranks, faults=(None, None), breakdown=({}, {}),
                        decisions=300, seconds=0.1, worker="bench",
                    )
                )  # fmt: skip
            store.record_many(tid, batch)
    return labels


def latency(folder: Path, bots: int, matches: int, clients: int, seconds: float) -> dict:
    """The leaderboard page's latency under ``clients`` readers while the ladder plays on a
    competition of ``bots`` versions and ``matches`` stored matches."""
    planted_competition(folder, bots, matches)
    host = HostProcess(folder).start()
    try:
        host.visitor().wait_for("/boards/usa/2", rf'id="rated">{matches}<', seconds=7200)
        for i, path in enumerate(BOTS[:2]):
            visitor = host.visitor()
            visitor.signup(f"real{i}")
            answer = visitor.upload(f"r{i}", path.name, path.read_bytes())
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        name = "test-cup-usa-2p"
        wait_until(
            lambda: stored(host.data, name) > matches, "the benchmark's condition", 3600
        )  # the ladder plays
        before = stored(host.data, name)
        read = read_for(host.url, clients, seconds, rate=0)
        ladder = stored(host.data, name) - before
    finally:
        host.stop()
    return {**read, "ladder_matches_meanwhile": ladder}


TAIL = 232  # matches a killed server may leave after its newest checkpoint (SAVE_EVERY + 32)
UNPACED = "\n[ladder]\nmatches_per_hour = 1000000\n"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} on {os.cpu_count()} cores"


def readers_and_bytes(
    folder: Path, workers: int, clients: int, window: float, pairs: int, rate: float
) -> None:
    """The ladder in windows A/B, ``pairs`` times, and a last A (B: ``clients`` readers
    asking for ``rate`` pages a second in all), then bytes per match."""
    from arena.server.competition import RetentionTable
    from arena.server.retention import disk_use, prune

    host = HostProcess(folder, competition_text() + UNPACED, options=("--workers", str(workers)))
    host.start()
    try:
        for i, path in enumerate(BOTS):
            visitor = host.visitor()
            visitor.signup(f"p{i}")
            answer = visitor.upload(f"b{i}", path.name, path.read_bytes())
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        name = "test-cup-usa-2p"
        wait_until(lambda: _has(host.data, name) and stored(host.data, name) >= 4, "plays", 600)
        prune(host.data, RetentionTable())
        first, first_bytes = stored(host.data, name), footprint(host.data)
        paces: dict[str, list[float]] = {"A": [], "B": []}
        for kind in "AB" * pairs + "A":
            before, began = stored(host.data, name), time.monotonic()
            cpu = server_cpu(host)
            found = remote_readers(host.url, clients, window, rate) if kind == "B" else {}
            if kind == "A":
                time.sleep(window)
            cpu = server_cpu(host) - cpu
            pace = (stored(host.data, name) - before) / (time.monotonic() - began) * 60
            paces[kind].append(pace)
            extra = (
                f", {found['requests'] / window:.0f} requests/s, p95 {found['p95_ms']:.0f} ms, "
                f"the readers used {found['cpu_s']:.1f} CPU s"
                if found
                else ""
            )
            print(
                f"  window {kind}: {pace:.1f} matches/min{extra}; the web server used "
                f"{cpu:.1f} CPU s; {load()}",
                flush=True,
            )
        failures = [
            line for line in (host.data / "server.log").read_text().splitlines()
            if "the worker died" in line or "Error:" in line or "Damaged:" in line
        ]  # fmt: skip
        if failures:  # a pace measured over a dead worker means nothing: say so
            print("  the worker failed meanwhile:\n    " + "\n    ".join(failures[:4]), flush=True)
        a, b = statistics.mean(paces["A"]), statistics.mean(paces["B"])
        # Each B against the A windows either side of it: the ladder's own pace drifts
        # (its store grows, its bots' games vary), which a plain A-then-B pairing counts
        # against B.
        ratios = [
            b_pace / statistics.mean(paces["A"][i : i + 2]) for i, b_pace in enumerate(paces["B"])
        ]
        print(
            f"ladder, {workers} workers: {a:.1f} matches/min alone, {b:.1f} with {clients} "
            f"readers asking for {f'{rate:.0f} pages/s' if rate else 'pages unpaced'}: each B "
            f"against the A windows either side {', '.join(f'{r:.2f}' for r in ratios)}, "
            f"mean {statistics.mean(ratios):.2f}x",
            flush=True,
        )
        pruned = prune(host.data, RetentionTable())
        last = stored(host.data, name)
        per_match = (footprint(host.data) - first_bytes) / max(1, last - first)
        logs = disk_use(host.data / "bot-logs")
        wal = sum(disk_use(p) for p in host.data.glob("*.sqlite-*"))
        print(
            f"disk: {per_match / 1000:.1f} KB per stored ladder match over {last - first} "
            f"matches with the default retention ({pruned.folders} log folders pruned, "
            f"{logs / 1000:.0f} KB of bot logs kept; the stores' -wal and -shm files, a "
            f"bounded {wal / 1e6:.1f} MB, left out); {load()}",
            flush=True,
        )
    finally:
        host.stop()


def footprint(data: Path) -> int:
    """The data folder's disk use less the stores' -wal and -shm files (bounded: SQLite
    merges the log into the store every thousand pages), after merging what it can."""
    from arena.server.retention import disk_use

    db = sqlite3.connect(data / "results.sqlite", timeout=30)
    try:
        db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        db.close()
    return disk_use(data) - sum(disk_use(p) for p in data.glob("*.sqlite-*"))


def server_cpu(host: HostProcess) -> float:
    """CPU seconds the web server's process (not its worker) has used so far."""
    assert host.process is not None
    fields = Path(f"/proc/{host.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


READER_NICE = 10  # --reader-nice


def remote_readers(url: str, clients: int, seconds: float, rate: float) -> dict:
    """``read_for`` in a process of its own at a lower CPU priority (``--reader-nice``):
    the readers stand for visitors on other machines, so what the ladder loses should be
    the web server's work, not the benchmark's HTTP clients' (2-3 times the server's per
    request with httpx; see ``PageReader``); 0 runs them at the ladder's priority."""
    done = subprocess.run(
        [sys.executable, __file__, "--read", url, str(clients), str(seconds), str(rate)],
        capture_output=True, text=True, check=True, preexec_fn=lambda: os.nice(READER_NICE),
    )  # fmt: skip
    return json.loads(done.stdout)


def read_for(url: str, clients: int, seconds: float, rate: float) -> dict:
    """``clients`` threads reading the leaderboard page for ``seconds``: each as fast as
    it is answered (``rate`` 0), or together ``rate`` pages a second (each asks every
    ``clients / rate`` seconds; one answered late asks again at once)."""
    times: list[float] = []
    errors: list[str] = []
    begin = time.monotonic()
    stop = begin + seconds
    every = clients / rate if rate > 0 else 0.0

    def client(index: int) -> None:
        due = begin + every * index / clients  # spread over the first interval
        reader = PageReader(url, "/boards/usa/2")
        try:
            while time.monotonic() < stop:
                if every:
                    time.sleep(max(0.0, due - time.monotonic()))
                    due = max(due + every, time.monotonic() - every)
                began = time.perf_counter()
                status = reader.get()
                times.append(time.perf_counter() - began)
                if status != 200:
                    errors.append(str(status))
        finally:
            reader.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times.sort()
    return {
        "requests": len(times),
        "errors": len(errors),
        "p50_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
        "max_ms": 1000 * times[-1],
        "cpu_s": time.process_time(),  # the readers' own CPU (their process: --read)
    }


class PageReader:
    """One keep-alive HTTP/1.1 connection asking for one page again and again, in a few
    system calls a page, its cookies kept and sent back as a browser does: the readers
    stand for visitors on other machines, so the benchmark's own client should cost the
    machine little (httpx costs 1.4 ms of CPU a page, more than the server's work)."""

    def __init__(self, url: str, path: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.head = f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        self.cookies: dict[str, str] = {}
        self.sock: socket.socket | None = None
        self.file: Any = None

    def get(self) -> int:
        """The page's status (its body read and dropped); 0 if the connection failed."""
        try:
            if self.sock is None:
                self.sock = socket.create_connection(self.address, timeout=60)
                self.file = self.sock.makefile("rb")
            jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            cookie = f"Cookie: {jar}\r\n" if jar else ""
            self.sock.sendall(f"{self.head}{cookie}\r\n".encode())
            status = int(self.file.readline().split()[1])
            length, close = 0, False
            while (line := self.file.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection":
                    close = b"close" in value.lower()
                elif name == b"set-cookie":
                    pair = value.decode("latin-1").split(";", 1)[0].strip()
                    self.cookies.update([pair.split("=", 1)])
            self.file.read(length)
        except (OSError, ValueError, IndexError):
            self.close()  # the next page on a new connection
            return 0
        if close:
            self.close()
        return status

    def close(self) -> None:
        if self.sock is not None:
            self.file.close()
            self.sock.close()
            self.sock = None


def plant(data: Path, tid: int, labels: list[str], start: int, count: int, seed: int) -> None:
    """``count`` plausible 2-player ladder matches from index ``start``, by direct SQL."""
    rng = random.Random(seed)
    db = sqlite3.connect(data / "results.sqlite", isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    now = time.time() - 7 * 86400  # played last week: the ladder's pace counts the last hour
    for begin in range(start, start + count, 50_000):
        matches, seats = [], []
        for idx in range(begin, min(start + count, begin + 50_000)):
            key = tid * MATCH_ID_STRIDE + idx
            first = rng.random() < 0.5
            matches.append((key, tid, idx, "usa", idx, 2, "done", 300, 0.1, 1, "bench", now))
            for seat, bot in enumerate(rng.sample(labels, 2)):
                rank = 1 if (seat == 0) == first else 2
                seats.append((key, seat, bot, 110 - 10 * rank, rank, rank, "{}", None, None))
        db.executemany("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", matches)
        db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", seats)
    db.execute("COMMIT")
    db.close()


def planted_competition(folder: Path, bots: int, matches: int) -> None:
    """A competition of ``bots`` versions and ``matches`` stored ladder matches, with the
    board checkpoint a running server leaves (all but the last ``TAIL`` matches folded)."""
    from arena.server import boardstate
    from arena.server.boards import LiveBoard

    labels = big_competition(folder, bots, 0)
    data = folder / "data"
    competition = Competition.from_toml(folder / "competition.toml")
    with ResultsStore(data) as store:
        tid = store.tournament_id_of(competition.ladder_name("usa", 2))
    assert tid is not None
    planted = min(matches - TAIL, 10_000)
    plant(data, tid, labels, 0, planted, 1)
    with ResultsStore(data) as store:  # the board over the first matches...
        live = LiveBoard(competition.ladder_name("usa", 2), save=False)
        live.update(store, set())
    plant(data, tid, labels, planted, matches - TAIL - planted, 2)
    with ResultsStore(data) as store:  # ...kept as the checkpoint a running server leaves
        live.state.position = tid * MATCH_ID_STRIDE + matches - TAIL - 1
        live.state.seen = live.state.rated = matches - TAIL
        assert boardstate.save(store, tid, live.state)
    plant(data, tid, labels, matches - TAIL, TAIL, 3)


def startup(folder: Path, bots: int, matches: int) -> tuple[float, float]:
    """Seconds from ``arena host``'s start, and from its address printed (the process up),
    to a complete board over ``matches`` matches."""
    planted_competition(folder, bots, matches)
    host = HostProcess(folder, competition_text() + UNPACED)
    began = time.monotonic()
    host.start()
    up = time.monotonic()
    try:
        reader = host.visitor()
        reader.wait_for("/boards/usa/2", rf'id="rated">{matches}<', seconds=7200)
        return time.monotonic() - began, time.monotonic() - up
    finally:
        host.stop()


def main() -> None:
    global READER_NICE
    if sys.argv[1:2] == ["--read"]:  # remote_readers' process
        url, clients, seconds, rate = sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:6])
        print(json.dumps(read_for(url, clients, seconds, rate)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ladder-matches", type=int, default=200)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--window", type=float, default=40)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--reader-rate", type=float, default=300)
    parser.add_argument("--reader-nice", type=int, default=READER_NICE)
    parser.add_argument("--startup", default="10000,100000,1000000")
    args = parser.parse_args()
    READER_NICE = args.reader_nice
    print(f"benchmarks/host.py {' '.join(sys.argv[1:])}; {load()}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="arena-host-bench-"))
    try:
        if not args.skip_throughput:
            (folder / "cli").mkdir()
            (folder / "host").mkdir()
            cli = cli_ladder(folder / "cli", args.ladder_matches, args.workers)
            served = host_ladder(folder / "host", args.ladder_matches, args.workers)
            print(
                f"ladder, {args.workers} workers: arena tournament run {cli:.1f} matches/min, "
                f"arena host {served:.1f} matches/min ({100 * (served / cli - 1):+.0f} %)",
                flush=True,
            )
        if args.window > 0:
            (folder / "readers").mkdir()
            readers_and_bytes(
                folder / "readers", args.workers, args.clients, args.window, args.pairs,
                args.reader_rate,
            )  # fmt: skip
        for size in [int(n) for n in args.startup.split(",") if n]:
            (folder / f"start-{size}").mkdir()
            total, boards = startup(folder / f"start-{size}", args.bots, size)
            print(f"start-up: boards complete {boards:.1f} s after arena host printed its "
                  f"address ({total:.1f} s after it was started), {size:,} matches, "
                  f"{args.bots} bots; {load()}", flush=True)  # fmt: skip
        if args.skip_latency:
            return
        (folder / "big").mkdir()
        found = latency(folder / "big", args.bots, args.matches, args.clients, args.seconds)
        print(
            f"leaderboard page, {args.bots} bots, {args.matches:,} matches, {args.clients} "
            f"clients: {found['requests']} requests, p50 {found['p50_ms']:.0f} ms, p95 "
            f"{found['p95_ms']:.0f} ms, max {found['max_ms']:.0f} ms, {found['errors']} errors, "
            f"{found['ladder_matches_meanwhile']} ladder matches meanwhile"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""``arena host`` benchmark: the ladder's pace under the server against ``arena tournament
run``'s on the same workers, and the leaderboard page's latency on a big competition
while the ladder runs and clients read pages at once.

    python benchmarks/host.py [--workers 2] [--ladder-matches 200] [--bots 1000]
                              [--matches 100000] [--clients 20] [--seconds 30]

1. Throughput. Four file bots (examples/python-bot) play a 2-player ladder of
   ``--ladder-matches`` matches with ``arena tournament run --format ladder --bot '*'``;
   then ``arena host`` with four participants uploading the same bots, timed over
   as many ladder matches once the first has landed. Target: within 10 %.
2. Latency. A competition with ``--bots`` registered versions (synthetic accounts)
   and ``--matches`` stored 2-player ladder matches among them (written in bulk
   through the store's API), plus two real participants whose bots the ladder
   plays; once every board has folded its matches in, ``--clients`` threads read
   the leaderboard page for ``--seconds``. Target: p95 under 200 ms.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.server.accounts import Accounts
from arena.server.competition import Competition
from arena.server.ladder import ladder_spec
from arena.tournament.results import MatchResult
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
    host = HostProcess(folder, competition_text(), options=("--workers", str(workers))).start()
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


def big_competition(folder: Path, bots: int, matches: int) -> None:
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


def latency(folder: Path, bots: int, matches: int, clients: int, seconds: float) -> dict:
    big_competition(folder, bots, matches)
    host = HostProcess(folder).start()
    try:
        for i, path in enumerate(BOTS[:2]):
            visitor = host.visitor()
            visitor.signup(f"real{i}")
            answer = visitor.upload(f"r{i}", path.name, path.read_bytes())
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        reader = host.visitor()
        reader.wait_for("/boards/usa/2", rf'id="rated">{matches}', seconds=7200)
        name = "test-cup-usa-2p"
        wait_until(
            lambda: stored(host.data, name) > matches, "the benchmark's condition", 3600
        )  # the ladder plays
        before = stored(host.data, name)
        times: list[float] = []
        errors: list[str] = []
        stop = time.monotonic() + seconds

        def client() -> None:
            with httpx.Client(base_url=host.url, timeout=60) as http:
                while time.monotonic() < stop:
                    began = time.perf_counter()
                    answer = http.get("/boards/usa/2")
                    times.append(time.perf_counter() - began)
                    if answer.status_code != 200:
                        errors.append(str(answer.status_code))

        threads = [threading.Thread(target=client) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ladder = stored(host.data, name) - before
    finally:
        host.stop()
    times.sort()
    return {
        "requests": len(times),
        "errors": len(errors),
        "p50_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
        "max_ms": 1000 * times[-1],
        "ladder_matches_meanwhile": ladder,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ladder-matches", type=int, default=200)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
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

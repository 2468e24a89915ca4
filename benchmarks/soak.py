"""Soak: a ladder of many matches on Ray mixing normal and hostile bots, then every check.

    RAY_AUTH_MODE=disabled python benchmarks/soak.py [--matches 1000] [--ray ADDRESS]

Run from a checkout (the hostile bots live in tests/bots/hostile.py and are
never installed). Without --ray it starts a local Ray with --workers CPUs.
Checks, each reported and turned into the exit status:

- a result for every scheduled match, stored exactly once;
- no hung match: every match ended within its time bound;
- every faulting hostile bot forfeited with its fault in every match it played,
  ranked last; the quiet hostile ones (flooding, forking, snooping, the protocol
  abusers) and every normal bot were never faulted, so no snoop succeeded;
- each protocol abuser's ignored messages are in the match logs, by kind;
- no bot process or grandchild left behind (setsid ones included);
- the driver's memory stable (resident size after 10% of the run vs at the end),
  and the referee's (each match log records its worker's resident size).

tests/test_soak.py runs the same with 100 matches in CI.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "bots" / "hostile.py"
sys.path.insert(0, str(ROOT))  # the hostile bots and their helpers live in the checkout's tests/

from arena.referee.matchlog import MatchLog  # noqa: E402
from tests.referee_helpers import processes_with  # noqa: E402

NORMAL = ("random", "ticket-by-ticket", "greedy-claims")
# Hostile bots that must forfeit, with the fault(s) each may be charged with. The memory
# hog fills pages until the address-space limit kills it, which under load can take
# longer than its time control: whichever limit stops it first is the right fault.
FAULTING = {
    "crasher": ("crash-mid 3", ("crash",)),
    "hanger": ("hang", ("timeout",)),
    "sleeper": ("slow 1.0", ("timeout",)),
    "garbler": ("garbage", ("malformed",)),
    "mangler": ("badutf8", ("malformed",)),
    "cheater": ("illegal", ("illegal",)),
    "hog": ("memory", ("crash", "timeout")),
    "shouter": ("oversize 1000000", ("oversize",)),
    "giant": ("oversize 2097152", ("oversize",)),
    "liar": ("wrong-seq", ("timeout",)),
    "quitter": ("fork-exit 3", ("crash",)),
    "socketer": ("sockets 500", ("flood",)),
    "sprayer": ("junk 4", ("flood",)),
}
# Quiet protocol abusers: never faulted, but what they sent is in the match log, by kind.
ABUSERS = {
    "echo": ("twice", "duplicate"),
    "laggard": ("late", "stale"),
    "twin": ("reconnect", "hello-again"),
    "early": ("early", "before-hello"),
    "meddler": ("others-seq", "wrong-seq"),
}
MATCH_BOUND_S = 60.0  # far above what the time control allows a match


@dataclass
class SoakReport:
    matches: int
    seconds: float
    problems: list[str] = field(default_factory=list)
    figures: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run_soak(matches: int, data_dir: Path, ray_address: str | None, workers: int) -> SoakReport:
    """Play the soak ladder into ``data_dir`` and check everything; returns the report."""
    from arena.referee.faults import TimeControl
    from arena.referee.process import ProcessLimits
    from arena.tournament.rayexec import RayExecutor
    from arena.tournament.runner import TournamentRunner
    from arena.tournament.spec import TournamentSpec
    from arena.tournament.store import ResultsStore

    marker = f"soak-{uuid.uuid4().hex[:8]}"
    listener = socket.create_server(("127.0.0.1", 0))
    store_path = (data_dir / "results.sqlite").resolve()
    python = sys.executable
    quiet = {
        "flooder": f"flood {100 * 10**6}",
        "forker": f"child {marker}",
        "hermit": f"setsid {marker}",
        "snoop": f"snoop {store_path} {listener.getsockname()[1]} {os.getpid()}",
        **{label: mode for label, (mode, _) in ABUSERS.items()},
    }
    commands = {
        label: f"{label}=cmd:{python} {HOSTILE} {mode}"
        for label, mode in {**{k: v[0] for k, v in FAULTING.items()}, **quiet}.items()
    }
    spec = TournamentSpec(
        name="soak",
        variant="usa",
        bots=(*NORMAL, *commands.values()),
        players=(3, 4),
        format="ladder",
        games=matches,
        seed=2026,
        # Tight, so that hostile bots are charged quickly, but with room for an honest bot
        # (or a quiet abuser) that a loaded machine does not schedule for a moment: a bank
        # of 1.2 s once charged a quiet bot whose one decision waited 2.6 s at load 9.
        time_control=TimeControl(move_ms=400, bank_ms=3000, handshake_ms=20000, retries=2),
    )
    store = ResultsStore(data_dir)
    executor = RayExecutor(ray_address, workers, data_dir)
    samples: list[tuple[int, float]] = []
    runner = TournamentRunner(
        spec, store, executor, data_dir, ProcessLimits(memory_mb=512), show_progress=False
    )
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.5):
            samples.append((runner.stored, rss_mb()))

    sampler = threading.Thread(target=sample, daemon=True)
    started = time.monotonic()
    sampler.start()
    try:
        runner.run()
    finally:
        stop.set()
        sampler.join()
        executor.close()
        listener.close()
    report = SoakReport(matches, time.monotonic() - started)
    check_store(report, data_dir, matches, commands)
    check_logs(report, data_dir)
    store.close()
    time.sleep(0.5)
    me = os.getpid()
    left = processes_with(str(HOSTILE), exclude=me) + processes_with(marker, exclude=me)
    if left:
        report.problems.append(f"processes left behind: {sorted(set(left))}")
    early = [mb for done, mb in samples if done >= matches // 10]
    if early:
        report.figures["driver_rss_mb_at_10pct"] = early[0]
        report.figures["driver_rss_mb_at_end"] = samples[-1][1]
    report.figures["matches_per_minute"] = matches / report.seconds * 60
    return report


def check_store(report: SoakReport, data_dir: Path, matches: int, commands: dict[str, str]) -> None:
    from arena.tournament.store import ResultsStore

    with ResultsStore.reader(data_dir) as store:
        results = store.results("soak")  # with fault details: an unexpected fault says why
        info = store.tournament_info("soak")
        planned = len(store.planned(info.id)) if info is not None else 0
    indices = [r.idx for r in results]
    if sorted(set(indices)) != list(range(matches)) or planned != matches:
        report.problems.append(f"stored match indices are not 0..{matches - 1}")
    if len(indices) != len(set(indices)):
        report.problems.append("a match is stored more than once")
    slowest = max((r.seconds for r in results), default=0.0)
    report.figures["slowest_match_s"] = slowest
    if slowest > MATCH_BOUND_S:
        report.problems.append(f"a match took {slowest:.1f} s (bound {MATCH_BOUND_S} s)")
    played = dict.fromkeys(commands, 0)
    for result in results:
        last = result.players - len(result.faulted) + 1  # the rank every forfeit shares
        for bot, rank, fault, detail in zip(
            result.bots, result.ranks, result.faults, result.details_by_seat, strict=True
        ):
            played[bot] = played.get(bot, 0) + 1
            if bot in FAULTING:
                expected = FAULTING[bot][1]
                if fault not in expected:
                    report.problems.append(
                        f"match {result.idx}: {bot} charged {fault!r}, not {expected}"
                    )
                if rank < last:
                    report.problems.append(
                        f"match {result.idx}: forfeited {bot} ranked {rank}, not last"
                    )
            elif fault is not None:
                report.problems.append(f"match {result.idx}: {bot} was charged {fault!r}: {detail}")
    report.figures.update({f"seats_{bot}": n for bot, n in sorted(played.items())})


def check_logs(report: SoakReport, data_dir: Path) -> None:
    """The abusers' ignored messages are logged by kind; the referee's memory stays flat."""
    from arena.tournament.store import ResultsStore

    seen: dict[str, set[str]] = {label: set() for label in ABUSERS}
    rss: list[float] = []
    with ResultsStore.reader(data_dir) as store:
        for result in store.results("soak", details=False):  # in schedule order
            log = MatchLog.from_jsonl(store.match_log(result.match_id))
            names = [seat["bot"] for seat in log.header["seats"]]
            for event in log.events:
                if names[event["seat"]] in seen and event["kind"] == "ignored":
                    seen[names[event["seat"]]] |= set(event["counts"])
            rss.append((log.result or {}).get("referee", {}).get("rss_mb", 0.0))
    for label, (_, kind) in ABUSERS.items():
        if report.figures.get(f"seats_{label}") and kind not in seen[label]:
            report.problems.append(f"{label}'s {kind} messages are not in its match logs")
    tenth = max(1, len(rss) // 10)
    if rss:
        early, late = sorted(rss[:tenth])[tenth // 2], sorted(rss[-tenth:])[tenth // 2]
        report.figures["referee_rss_mb_early"] = early
        report.figures["referee_rss_mb_late"] = late
        report.figures["referee_rss_mb_max"] = max(rss)
        if late - early > 50:
            report.problems.append(f"the referee's memory grew from {early} to {late} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--ray", default=None, help="a Ray cluster address (default: local)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    data_dir = Path(args.data_dir or f"soak-data-{uuid.uuid4().hex[:6]}")
    report = run_soak(args.matches, data_dir, args.ray, args.workers)
    print(f"soak: {report.matches} matches in {report.seconds:.0f} s, data in {data_dir}")
    for name, value in report.figures.items():
        print(f"  {name:28} {value:10.1f}")
    for problem in report.problems:
        print(f"  PROBLEM: {problem}")
    print("  all checks passed" if report.ok else f"  {len(report.problems)} problem(s)")
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()

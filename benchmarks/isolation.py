"""Isolation benchmark: an honest bot's decision time beside CPU burners, and what freezing
bots between their turns costs the referee and a tournament.

    python benchmarks/isolation.py [--rounds 5] [--work 300000] [--matches 16] [--cost-only]

Run from a checkout (the bots are tests/bots/hostile.py's ``work N``, ``play`` and
``burner N``). Everything is alternated round after round (the order rotates), so that the
load of a shared machine moves every side alike; figures are medians of per-round ratios.

1. **Beside a burner.** The honest bot does a fixed computation at each decision (``work``);
   the referee's time for its decisions (its clock) is measured in a 2-player USA game:
   - beside an idle opponent (``play``): the reference;
   - beside a burner in the same match (``burner 3``: three children that spin for ever
     from its first decision on);
   - beside an idle opponent while another worker (a process of its own) plays matches
     of two idle bots (``play``), flat out: what any parallel match costs on this machine;
   - the same while the other worker's matches have a burner in them.
   With the bots' isolation (the default: a cgroup each, one CPU's worth, frozen while not
   asked) and without it (``ProcessLimits(freeze=False, cgroup=False)``: how it was).
   The goal: each burner ratio within 1.2x of the idle one, with isolation.
2. **The cost of freezing.** Per decision of 4-player games of bot processes: the
   referee's wall time, its CPU time, and the CPU time of the referee and the bots
   together; and a process tournament's matches per minute (``--matches``
   4-player USA matches on ``--workers`` local workers (default 2: a machine of 2 cores
   kept busy), warm processes, one executor for both ways),
   each with freezing on and off (``ProcessLimits(freeze=False)``). The goal: under 10% of
   the tournament's throughput: on a machine the tournament keeps busy, that is the CPU
   time of the referee and the bots per decision (the wall-time figures of a shared machine
   move with its other load). Both are measured with each lineup of ``--lineup``
   (default: four ``random`` bots, the cheapest decisions there are and so the worst case
   for a fixed cost per turn, and four ``planner`` bots, a bot that thinks).
   ``--cost-only`` measures this part alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tournament import rate, tasks  # benchmarks/tournament.py (beside this script)

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.process import ProcessLimits
from arena.referee.seats import RemoteSeat
from arena.tournament.executors import LocalExecutor
from arena.tournament.matchrun import MatchTask
from arena.variants import get_variant

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "bots" / "hostile.py"
USA = get_variant("usa")
PATIENT = TimeControl(move_ms=10_000, bank_ms=120_000)
ISOLATED, OPEN = ProcessLimits(), ProcessLimits(freeze=False, cgroup=False)


def bot(mode: str) -> BotEntry:
    return BotEntry.parse(f"cmd:{sys.executable} {HOSTILE} {mode}")


def honest_ms(opponent: str, limits: ProcessLimits, work: int, seed: int, logs: str) -> float:
    """The referee's mean time (ms) for the honest bot's decisions in one game."""
    entries = [bot(f"work {work}"), bot(opponent)]
    with ProcessMatch(USA, entries, PATIENT, limits, log_dir=Path(logs)) as referee:
        outcome = referee.play(seed)
    assert not outcome.faults, outcome.faults
    mine = [a["ms"] for a in outcome.log.actions if a["seat"] == 0 and a["by"] == "bot"]
    return statistics.fmean(mine)


class Neighbour:
    """Another worker: a process playing matches of ``play`` against ``opponent``, again and
    again."""

    def __init__(self, limits: ProcessLimits, opponent: str, logs: str) -> None:
        isolated = "1" if limits == ISOLATED else "0"
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--neighbour", isolated, opponent, logs],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        self.process.stdout.readline()  # its first match is under way, the burner burning

    def stop(self) -> None:
        """Kill it: its bots die with it (``PR_SET_PDEATHSIG``)."""
        self.process.kill()
        self.process.wait(30)


def neighbour(isolated: bool, opponent: str, logs: str) -> None:
    """``--neighbour``: play matches of ``play`` against ``opponent`` until killed."""
    limits = ISOLATED if isolated else OPEN
    for number in range(10**6):
        entries = [bot("play"), bot(opponent)]
        with ProcessMatch(USA, entries, PATIENT, limits, log_dir=Path(logs)) as referee:
            if number == 0:
                print("started", flush=True)  # handshake done: the burner burns from its turn
            referee.play(number)


def referee_us(
    limits: ProcessLimits, seed: int, logs: str, bot: str = "random"
) -> tuple[float, float, float]:
    """Per decision (µs) of 4-player games of ``bot`` processes: the referee's wall time,
    its CPU time, and the CPU time of the referee and every bot together (their cgroups'
    ``cpu.stat``). CPU time, unlike wall time, hardly moves with the machine's load: it is
    what a tournament that fills the machine pays for each decision."""
    entries = [BotEntry.parse(bot)] * 4
    with ProcessMatch(USA, entries, PATIENT, limits, log_dir=Path(logs)) as referee:
        processes = [
            seat.process
            for seat in referee.seats
            if isinstance(seat, RemoteSeat) and seat.process is not None
        ]
        bots_before = sum(process.usage().cpu_seconds for process in processes)
        total = decisions = cpu = 0.0
        for game in range(3):
            started = time.process_time()
            outcome = referee.play(seed + game)
            cpu += time.process_time() - started
            total, decisions = total + outcome.seconds, decisions + outcome.decisions
        bots = sum(process.usage().cpu_seconds for process in processes) - bots_before
    return total / decisions * 1e6, cpu / decisions * 1e6, (cpu + bots) / decisions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=int, default=300_000, help="the honest bot's steps")
    parser.add_argument("--matches", type=int, default=16, help="tournament matches per round")
    parser.add_argument("--cost-only", action="store_true", help="only the cost of freezing")
    parser.add_argument("--workers", type=int, default=2, help="the tournament's workers")
    parser.add_argument(
        "--lineup",
        action="append",
        help="a bot that fills the 4 seats of the tournament's matches (repeatable; "
        "default: random, then planner)",
    )
    parser.add_argument("--neighbour", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.neighbour:
        neighbour(args.neighbour[0] == "1", args.neighbour[1], args.neighbour[2])
        return
    sides = [
        (f"{name}, {label}", limits)
        for label, limits in (("isolated", ISOLATED), ("open", OPEN))
        for name in ("idle", "burner", "quiet-neighbour", "neighbour")
        if not args.cost_only
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in sides}
    kinds = ("wall", "cpu", "all-cpu")
    lineups = args.lineup or ["random", "planner"]
    costs: dict[str, list[float]] = {
        f"{bot} {kind} {switch}": []
        for bot in lineups
        for kind in kinds
        for switch in ("on", "off")
    }
    rates: dict[str, list[float]] = {
        f"{bot} {switch}": [] for bot in lineups for switch in ("on", "off")
    }
    shared = LocalExecutor(args.workers)  # one for both ways: two executors differed by up to 1.4x
    way = {"on": ISOLATED, "off": dataclasses.replace(ISOLATED, freeze=False)}

    def batch(bot: str, switch: str, count: int, offset: int, logs: str) -> list[MatchTask]:
        return [dataclasses.replace(t, limits=way[switch]) for t in tasks(count, logs, offset, bot)]

    try:
        with tempfile.TemporaryDirectory() as logs:
            for bot in lineups:  # start-up: workers, first processes
                for switch in way:
                    rate(shared, batch(bot, switch, 4, 10_000, logs))
            for number in range(args.rounds):
                shift = number % max(1, len(sides))
                for name, limits in sides[shift:] + sides[:shift]:
                    seed = 100 * number + 1
                    if "neighbour" in name:
                        burning = name.startswith("neighbour")
                        other = Neighbour(limits, "burner 3" if burning else "play", logs)
                        try:
                            times[name].append(honest_ms("play", limits, args.work, seed, logs))
                        finally:
                            other.stop()
                    else:
                        opponent = "burner 3" if name.startswith("burner") else "play"
                        times[name].append(honest_ms(opponent, limits, args.work, seed, logs))
                order = ["on", "off"] if number % 2 == 0 else ["off", "on"]
                for bot in lineups:
                    for switch in order:
                        for kind, value in zip(
                            kinds, referee_us(way[switch], number, logs, bot), strict=True
                        ):
                            costs[f"{bot} {kind} {switch}"].append(value)
                    for switch in order:
                        played = batch(bot, switch, args.matches, number * 1000, logs)
                        rates[f"{bot} {switch}"].append(rate(shared, played))
                shown = ", ".join(f"{name} {values[-1]:.1f}" for name, values in times.items())
                ratios = ", ".join(
                    f"{bot} {rates[f'{bot} on'][-1] / rates[f'{bot} off'][-1]:.3f}"
                    for bot in lineups
                )
                print(
                    f"round {number + 1}: honest ms per decision: {shown or '-'}; "
                    f"tournament frozen/not: {ratios}",
                    flush=True,
                )
    finally:
        shared.close()
    report(args, times, costs, rates, lineups)


def report(args, times, costs, rates, lineups) -> None:
    print(
        f"isolation benchmark: {args.rounds} rounds, honest bot 'work {args.work}', "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end"
    )
    for label in ("isolated", "open") if times else ():
        idle = times[f"idle, {label}"]
        print(f"  {label}: honest bot beside an idle opponent {statistics.median(idle):.1f} ms")
        quiet = times[f"quiet-neighbour, {label}"]
        for name, where, reference in (
            ("burner", "a burner in the same match", idle),
            ("quiet-neighbour", "a parallel match of idle bots", idle),
            ("neighbour", "a burner in a parallel match", idle),
            ("neighbour", "a burner in a parallel match, to idle bots there", quiet),
        ):
            measured = times[f"{name}, {label}"]
            ratios = [m / i for m, i in zip(measured, reference, strict=True)]
            print(
                f"    beside {where}: median ratio {statistics.median(ratios):.2f}x "
                f"(rounds {', '.join(f'{r:.2f}' for r in ratios)})"
            )
    for bot, kind, what in (
        (bot, kind, what)
        for bot in lineups
        for kind, what in (
            ("wall", "the referee's wall time"),
            ("cpu", "the referee's CPU time"),
            ("all-cpu", "the CPU time of the referee and the bots"),
        )
    ):
        on, off = costs[f"{bot} {kind} on"], costs[f"{bot} {kind} off"]
        print(
            f"  4-player games of 4 x {bot}, {what} per decision: {statistics.median(on):.0f}"
            f" us frozen between turns, {statistics.median(off):.0f} us not (median ratio "
            f"{statistics.median([a / b for a, b in zip(on, off, strict=True)]):.3f}x)"
        )
    for bot in lineups:
        on, off = rates[f"{bot} on"], rates[f"{bot} off"]
        ratios = [a / b for a, b in zip(on, off, strict=True)]
        print(
            f"  process tournament of 4 x {bot} ({args.matches} 4-player matches, "
            f"{args.workers} workers, "
            f"warm): {statistics.median(on):.1f} matches/min frozen, "
            f"{statistics.median(off):.1f} not; median ratio {statistics.median(ratios):.3f} "
            f"(rounds {', '.join(f'{r:.3f}' for r in ratios)})"
        )


if __name__ == "__main__":
    main()

"""Challenges beside the ladder: the ladder's pace with a challenge queue kept full,
against its pace with none, on one ``arena host`` (its worker shares its workers).

    python benchmarks/challenges.py [--workers 2] [--windows 6] [--seconds 90] [--share 0.2]
                                    [--pace MATCHES_PER_HOUR]

Four participants upload the example bots (examples/python-bot) to a 2-player usa
board. Then windows of ``--seconds`` alternate: A, no challenge queue (the previous
one drained first, untimed); B, one participant keeps challenges queued (a new one
whenever fewer than two are open), so the worker may give them up to ``--share`` of
its matches. Per window: ladder matches per minute, challenge matches, and the
machine's load average. Alternating A and B spreads the machine's other load over
both. Target: B's ladder pace at least 0.9 of A's, with challenges at the share.

``--pace`` sets the board's ``[ladder] matches_per_hour`` (the default, 0, lifts it: the
ladder alone keeps the workers busy). A hosted competition is paced (300 matches an hour
per board by default), so challenges run on the capacity the pace leaves; unpaced, the
ladder can keep at most 1 - share of the workers' matches while challenges are queued.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.server.accounts import Accounts
from arena.server.pacing import BURST_SHARE
from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

BOTS = [PYTHON_BOT / "bot.py", PYTHON_BOT / "greedy.py"] * 2
LADDER = "test-cup-usa-2p"


def counts(data: Path) -> tuple[int, int]:
    """(ladder matches, challenge matches) stored so far."""
    with ResultsStore.reader(data) as store:
        ladder = challenge = 0
        for info in store.tournaments():
            done = len(store.done_indices(info.id))
            if info.name == LADDER:
                ladder = done
            elif info.name.startswith("test-cup-challenge-"):
                challenge += done
        return ladder, challenge


def open_challenges(data: Path) -> int:
    return len(Accounts(data).open_challenges())


def challenge(visitor: Visitor, games: int) -> None:
    answer = visitor.post(
        "/challenges",
        {"board": "usa-2p", "bot": "p0.b0@1", "opponent": "p1.b1@1", "games": str(games)},
        page="/boards/usa/2",
    )
    if answer.status_code != 303:
        raise RuntimeError(f"the challenge was refused: {answer.status_code} {answer.text[-300:]}")


def window(host: HostProcess, visitor: Visitor | None, seconds: float) -> dict:
    """One timed window; with a ``visitor``, challenges kept queued throughout."""
    ladder0, challenge0 = counts(host.data)
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if visitor is not None and open_challenges(host.data) < 2:
            challenge(visitor, 40)
        time.sleep(1.0)
    elapsed = time.monotonic() - started
    ladder1, challenge1 = counts(host.data)
    return {
        "ladder_per_minute": (ladder1 - ladder0) / elapsed * 60,
        "challenge_matches": challenge1 - challenge0,
        "ladder_matches": ladder1 - ladder0,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--windows", type=int, default=6, help="A and B windows in all (even)")
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--share", type=float, default=0.2)
    parser.add_argument("--pace", type=int, default=0, help="ladder matches an hour (0: none)")
    args = parser.parse_args()
    pace = args.pace or 1_000_000
    text = competition_text() + (
        f"\n[ladder]\nmatches_per_hour = {pace}\n"
        f"\n[challenges]\ngames_per_hour = 100000\npair_games_per_day = 100000\n"
        f"max_games = 40\nshare = {args.share}\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        host = HostProcess(Path(folder), text, options=("--workers", str(args.workers))).start()
        try:
            people = []
            for i, path in enumerate(BOTS):
                visitor = host.visitor()
                visitor.signup(f"p{i}")
                answer = visitor.upload(f"b{i}", path.name, path.read_bytes())
                visitor.wait_for(answer.headers["location"], r'id="status">ok<', 600)
                people.append(visitor)
            # paced, the ladder first spends its bucket (five minutes' worth): windows
            # start at its steady pace
            warm = 10 + (args.pace // BURST_SHARE if args.pace else 0)
            wait_until(lambda: counts(host.data)[0] >= warm, "the ladder plays", 1800)
            rows: dict[str, list] = {"A": [], "B": []}
            for index in range(args.windows):
                kind = "AB"[index % 2]
                if kind == "A":  # no queue: what the previous B left is played out, untimed
                    wait_until(lambda: open_challenges(host.data) == 0, "the queue drains", 3600)
                found = window(host, people[0] if kind == "B" else None, args.seconds)
                rows[kind].append(found)
                print(
                    f"{kind}: {found['ladder_per_minute']:.1f} ladder matches/min, "
                    f"{found['challenge_matches']} challenge matches, load {found['load']:.2f}",
                    flush=True,
                )
        finally:
            host.stop()
    a = statistics.mean(r["ladder_per_minute"] for r in rows["A"])
    b = statistics.mean(r["ladder_per_minute"] for r in rows["B"])
    played = sum(r["challenge_matches"] for r in rows["B"])
    total = played + sum(r["ladder_matches"] for r in rows["B"])
    print(
        f"ladder pace with challenges queued: {b:.1f}/min against {a:.1f}/min without: "
        f"ratio {b / a:.2f} (target >= 0.90); challenges took {played} of the {total} matches "
        f"of the B windows ({played / max(total, 1):.0%}; the cap, {args.share:.0%}, binds "
        "while the ladder keeps the workers busy: paced, challenges have what it leaves); "
        f"{args.workers} workers, {os.cpu_count()} cores, ladder paced at "
        f"{f'{args.pace} matches/hour' if args.pace else 'no limit'}, mean load "
        f"{statistics.mean(r['load'] for r in rows['A'] + rows['B']):.2f}"
    )


if __name__ == "__main__":
    main()

"""The FDG 2017 agents as their authors' code plays them, next to the authors' code itself.

    python benchmarks/published.py [--games4 250] [--games2 84] [--workers 2]
                                   [--swap-fixed 0] [--out FILE]

4 players: a round robin of the four agents (all four in every game, seats rotated, fresh
agents every game): 4 x 250 = 1,000 games. 2 players: every pair, both seat orders, 84
times: 6 x 2 x 84 = 1,008 games. Trusted built-in bots play in process (the same games as
through the protocol, action for action). A win is the highest score, ties all winning
(how the original engine counts). Our win rates are printed next to the reference's
(the authors' code in the authors' engine, ../shared/reference/fdg-agents.md), both with
95% Wilson intervals; an agent whose rate lies outside the reference's interval is
flagged. ``--swap-fixed N`` also plays N rotations of 4-player games for each agent with
its ``-fixed`` variant in its place, the other three as published: what its quirks cost.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from arena.tournament.executors import LocalExecutor
from arena.tournament.frames import seats_frame
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore

AGENTS = ("fdg-long-route", "fdg-destination-hungry", "fdg-one-step", "fdg-route-focus")
# The authors' code in the authors' engine (USA), fresh agents every game: wins of games.
REFERENCE = {
    4: {
        "fdg-long-route": (70, 160),
        "fdg-destination-hungry": (45, 160),
        "fdg-one-step": (41, 160),
        "fdg-route-focus": (6, 160),
    },
    2: {
        "fdg-long-route": (41, 60),
        "fdg-destination-hungry": (40, 60),
        "fdg-one-step": (27, 60),
        "fdg-route-focus": (14, 60),
    },
}
# The 2019 adaptation's table (rtealw/Ticket-to-Ride-Engine, output/summary.txt): its
# 4-player games reuse the same four agent objects, which cripples two of them.
ADAPTATION_2019 = {
    4: {
        "fdg-long-route": 917,
        "fdg-destination-hungry": 47,
        "fdg-route-focus": 35,
        "fdg-one-step": 6,
    },
    2: {
        "fdg-long-route": 320,
        "fdg-destination-hungry": 310,
        "fdg-one-step": 259,
        "fdg-route-focus": 117,
    },
}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Row:
    bot: str
    games: int
    wins: int
    mean_score: float
    mean_failed: float  # points lost to failed tickets, a game

    @property
    def rate(self) -> float:
        return self.wins / self.games


def play(name: str, bots: tuple[str, ...], players: int, games: int, workers: int) -> list[Row]:
    """One in-process round robin through our tournaments; a row per bot."""
    spec = TournamentSpec(
        name=name, variant="usa", bots=bots, players=(players,), games=games, seed=2017
    )
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        store = ResultsStore(data)
        try:
            TournamentRunner(
                spec, store, LocalExecutor(workers), data, show_progress=False, in_process=True
            ).run()
            seats = seats_frame(store, spec.name)
        finally:
            store.close()
    return rows(seats, bots)


def rows(seats: pd.DataFrame, bots: tuple[str, ...]) -> list[Row]:
    """Wins as the original engine counts them: every seat with the match's top score."""
    top = seats.groupby("match_id").score.transform("max")
    seats = seats.assign(won=seats.score == top)
    return [
        Row(
            bot,
            int((mine := seats[seats.bot == bot]).shape[0]),
            int(mine.won.sum()),
            float(mine.score.mean()),
            float(mine.score_tickets_failed.mean()),
        )
        for bot in bots
    ]


def percent(low: float, high: float) -> str:
    return f"{100 * low:.0f}–{100 * high:.0f}"


def comparison(players: int, table: list[Row]) -> list[str]:
    matches = sum(r.games for r in table) // players
    reference_games = next(iter(REFERENCE[players].values()))[1]
    lines = [
        f"\n{players} players, {matches} games, fresh agents every game "
        f"(reference: the authors' code, {reference_games} games per agent)\n",
        "| agent | our wins | our win % (95% CI) | reference win % (95% CI) | mean score | |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in sorted(table, key=lambda r: -r.rate):
        ref_wins, ref_games = REFERENCE[players][row.bot]
        low, high = wilson(ref_wins, ref_games)
        flag = "" if low <= row.rate <= high else "**outside**"
        lines.append(
            f"| {row.bot} | {row.wins}/{row.games} | {100 * row.rate:.1f} "
            f"({percent(*wilson(row.wins, row.games))}) | {100 * ref_wins / ref_games:.0f} "
            f"({percent(low, high)}) | {row.mean_score:.1f} | {flag} |"
        )
    old = ", ".join(f"{bot} {wins}" for bot, wins in ADAPTATION_2019[players].items())
    lines.append(f"\nFor the record, the 2019 adaptation's wins of about 1,000 games: {old}.")
    return lines


def swap_fixed(rotations: int, workers: int) -> list[str]:
    """Each agent replaced by its -fixed variant, the other three as published."""
    lines = [
        f"\nWhat the quirks cost: 4 players, {4 * rotations} games each, one agent fixed\n",
        "| agent | win % as published (95% CI) | win % fixed (95% CI) "
        "| mean score, published → fixed | failed-ticket points, published → fixed |",
        "|---|---:|---:|---:|---:|",
    ]
    baseline = {r.bot: r for r in play("fdg-published", AGENTS, 4, rotations, workers)}
    for bot in AGENTS:
        fixed = f"{bot}-fixed"
        bots = tuple(fixed if b == bot else b for b in AGENTS)
        row = next(r for r in play(f"fdg-{fixed}", bots, 4, rotations, workers) if r.bot == fixed)
        base = baseline[bot]
        lines.append(
            f"| {bot} | {100 * base.rate:.1f} ({percent(*wilson(base.wins, base.games))}) "
            f"| {100 * row.rate:.1f} ({percent(*wilson(row.wins, row.games))}) "
            f"| {base.mean_score:.1f} → {row.mean_score:.1f} "
            f"| {base.mean_failed:.1f} → {row.mean_failed:.1f} |"
        )
    return lines


def count(text: str) -> int:
    """A whole number of games, 0 or more (argparse reports anything else in one line)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, not '{text}'")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games4", type=count, default=250, help="rotations of 4 games")
    parser.add_argument("--games2", type=count, default=84, help="rounds of 12 games")
    parser.add_argument("--workers", type=count, default=2)
    parser.add_argument("--swap-fixed", type=count, default=0, help="rotations per agent")
    parser.add_argument("--out", type=Path, default=None, help="also write the tables here")
    args = parser.parse_args()
    if args.out and not args.out.parent.is_dir():
        parser.error(f"--out: no folder {args.out.parent} to write {args.out.name} in")
    lines: list[str] = []
    for players, games in ((4, args.games4), (2, args.games2)):
        if games:
            table = play(f"fdg2017-{players}p", AGENTS, players, games, args.workers)
            lines += comparison(players, table)
    if args.swap_fixed:
        lines += swap_fixed(args.swap_fixed, args.workers)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

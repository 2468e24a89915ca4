"""The FDG 2017 experiments, run through our tournaments: the four published agents on USA.

    python benchmarks/published.py [--games4 250] [--games2 84] [--workers 2]

4 players: one round robin of the four agents (all four in every game, seats
rotated): 4 x 250 = 1,000 games. 2 players: every pair, both seat orders, 84
times: 6 x 2 x 84 = 1,008 games. Trusted built-in bots play in process (the
same games as through the protocol, action for action). Prints our wins next
to the paper's and writes the table to --out (Markdown).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from arena.tournament.executors import LocalExecutor
from arena.tournament.frames import seats_frame
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore

AGENTS = ("long-route", "destination-hungry", "route-focus", "one-step")
PAPER = {  # wins reported in the paper, about 1,000 games each
    4: {"long-route": 917, "destination-hungry": 47, "route-focus": 35, "one-step": 6},
    2: {"long-route": 320, "destination-hungry": 310, "one-step": 259, "route-focus": 117},
}


def run(players: int, games: int, workers: int, data: Path) -> dict[str, dict[str, float]]:
    spec = TournamentSpec(
        name=f"fdg2017-{players}p",
        variant="usa",
        bots=AGENTS,
        players=(players,),
        games=games,
        seed=2017,
    )
    store = ResultsStore(data)
    TournamentRunner(
        spec, store, LocalExecutor(workers), data, show_progress=False, in_process=True
    ).run()
    seats = seats_frame(store, spec.name)
    matches = seats.match_id.nunique()
    table = {}
    for bot in AGENTS:
        mine = seats[seats.bot == bot]
        table[bot] = {
            "games": len(mine),
            "wins": int((mine["rank"] == 1).sum()),
            "mean_score": mine.score.mean(),
            "matches": matches,
        }
    store.close()
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games4", type=int, default=250)
    parser.add_argument("--games2", type=int, default=84)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for players, games in ((4, args.games4), (2, args.games2)):
            table = run(players, games, args.workers, Path(folder))
            matches = next(iter(table.values()))["matches"]
            lines.append(f"\n{players} players, {matches} games (paper: about 1,000)\n")
            lines.append("| agent | our wins | our win % | our mean score | paper wins |")
            lines.append("|---|---:|---:|---:|---:|")
            for bot in sorted(AGENTS, key=lambda b: -table[b]["wins"]):
                row = table[bot]
                lines.append(
                    f"| {bot} | {row['wins']} | {100 * row['wins'] / row['games']:.1f} "
                    f"| {row['mean_score']:.1f} | {PAPER[players][bot]} |"
                )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

"""How many stored ladder matches reproduce identically from their bundles? Counted, not assumed.

A ladder of deterministic built-in bots (2, 3 and 4 players in turn, every seat its own
process, warm processes reused across matches as on a server) is played into a results
store in a temporary folder. Then every match is bundled (``bundle_of``, what ``arena
tournament bundle`` and the host's download write) and played again from the bundle alone
through the real referee with fresh processes (``replay_bundle``, what ``arena replay
--reproduce`` runs), and compared decision by decision::

    python benchmarks/reproduce.py --matches 100

It prints one JSON object: the matches, how many reproduced identically, and the first
differing decision of each that did not.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.referee.faults import TimeControl
from arena.tournament.bundle import Bundle, bundle_of, encode, load_bundle
from arena.tournament.executors import LocalExecutor
from arena.tournament.reproduce import first_difference, replay_bundle, seat_bots
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore

BOTS = ("ticket-by-ticket", "planner", "greedy-claims", "long-claims", "random", "ticket-collector")


def play_ladder(folder: Path, matches: int, workers: int, seed: int) -> None:
    spec = TournamentSpec(
        name="ladder",
        variant="usa",
        bots=BOTS,
        players=(2, 3, 4),
        format="ladder",
        games=matches,
        seed=seed,
        time_control=TimeControl(move_ms=1000, bank_ms=30000),
    )
    with ResultsStore(folder) as store, LocalExecutor(workers) as executor:
        TournamentRunner(spec, store, executor, folder, show_progress=False).run()


def reproduce_one(data: bytes, folder: str) -> tuple[int, int, str | None]:
    """Play one bundle again (in a worker); its index, decisions and first difference."""
    bundle: Bundle = load_bundle(data)
    bots = seat_bots(bundle, {}, None)
    root = Path(folder)
    log = replay_bundle(bundle, bots, root, root / "bot-logs" / f"replay-{bundle.match_index}")
    difference = first_difference(bundle, log)
    line = difference.line(bundle.game_id) if difference else None
    return bundle.match_index, len(bundle.moves), line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2, help="processes playing matches")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-reproduce-") as temp:
        folder = Path(temp)
        started = time.monotonic()
        play_ladder(folder, args.matches, args.workers, args.seed)
        played = time.monotonic() - started
        with ResultsStore(folder, read_only=True) as store:
            indices = [r.idx for r in store.results("ladder", details=False)]
            bundles = [encode(bundle_of(store, "ladder", index)) for index in indices]
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(args.workers, mp_context=context) as pool:
            done = list(pool.map(reproduce_one, bundles, [temp] * len(bundles)))
        differing = {index: line for index, _, line in done if line is not None}
        print(
            json.dumps(
                {
                    "matches": len(done),
                    "identical": len(done) - len(differing),
                    "decisions": sum(decisions for _, decisions, _ in done),
                    "players": sorted({load_bundle(b).players for b in bundles}),
                    "differing": differing,
                    "play_seconds": round(played, 1),
                    "reproduce_seconds": round(time.monotonic() - started - played, 1),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()

"""One digest per variant of many seeded random games: what the engine does, in one value.

    python tests/engine_digest.py [--games N]    prints {variant: sha256} as JSON
    python tests/engine_digest.py --record       records them as the reference


Each game has a seed, a player count (cycling through the variant's range) and a
random policy seeded alike; the digest hashes, move by move, the number of legal
actions and the notation of the one played, then the final position (its
``fingerprint``, hidden parts and generator included) and the scores. Every
seventh move the game goes on from a ``copy()`` of the state, so copies are in it
too. Two engines give the same digests only if they play the same games.
``tests/test_engine_builds.py`` compares the pure-Python engine, its compiled
build and the digests recorded in ``tests/fixtures/engine_digests.json``:
record them again (``--record``) only when the games are meant to change, that is
with a new ``rules_version`` of the variant (docs/RULES.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

import arena
from arena.variants import all_variants

RECORDED = Path(__file__).resolve().parent / "fixtures" / "engine_digests.json"
GAMES = 400  # per variant, in the test and the record


def digest(name: str, games: int) -> str:
    variant = all_variants()[name]
    counts = range(variant.min_players, variant.max_players + 1)
    sha = hashlib.sha256()
    for seed in range(games):
        state = variant.new_game(counts[seed % len(counts)], seed)
        rng = random.Random(seed)
        move = 0
        while not state.is_over:
            actions = state.legal_actions()
            action = actions[rng.randrange(len(actions))]
            sha.update(f"{len(actions)} {action};".encode())
            state.apply(action)
            move += 1
            if move % 7 == 0:
                state = state.copy()
        sha.update(state.fingerprint().encode())
        sha.update(repr(state.result().scores).encode())
    return sha.hexdigest()


def playable() -> list[str]:
    return sorted(name for name, variant in all_variants().items() if variant.playable)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES, help="games per variant")
    parser.add_argument("--record", action="store_true", help=f"write {RECORDED.name}")
    args = parser.parse_args()
    names = playable()
    digests = {name: digest(name, args.games) for name in names}
    if args.record:
        versions = {name: all_variants()[name].rules_version for name in names}
        record = {"games": args.games, "rules_versions": versions, "digests": digests}
        RECORDED.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({"build": getattr(arena, "ENGINE_BUILD", "pure"), "digests": digests}))


if __name__ == "__main__":
    main()

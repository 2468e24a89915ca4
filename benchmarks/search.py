"""A search bot against copies of other built-in bots: win rates with 95% intervals.

    python benchmarks/search.py [--bot mcts-fast] [--opponent monte-carlo ...]
                                [--players 4] [--variant usa] [--games 400]
                                [--first 0] [--seed 50000] [--workers 2]
                                [--set NAME=VALUE ...] [--every N] [--log FILE]

For each ``--opponent`` (repeatable; ``all`` means every other built-in bot of the
variant but the ``-timed`` ones), the bot under test plays ``--games`` games against
``players - 1`` copies of it, taking each seat in turn (seats rotate game by game). Game
g (counting from ``--first``) is dealt with seed ``--seed`` + g, the same deals for
every opponent, so fresh seeds are one ``--first`` or ``--seed`` away. Every bot's seed
is derived from the game's seed (the referee is keyed from it, ``MatchKey.for_seed``),
so the same command plays the same games: the results are the same on every run, but the
decision times (and a game where a machine too busy made a search bot's wall-clock
backstop cut a decision, counted as "ended by the time cap"). Reports per opponent: wins
(the top rank) with their 95% Wilson interval, the mean margin over the best opponent,
where the bot's points came from and its decision times. ``--set samples=40``
(repeatable) passes a keyword argument to the bot under test, to try its settings.
Built-in bots play in process (the same games as through the protocol); games are spread
over ``--workers`` processes; ``--every N`` prints the tally so far every N games;
``--log FILE`` writes each game (its seed's index, the bot's seat, the scores, a digest
of its actions) as a JSON line.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import inspect
import json
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, cast

from published import wilson

from arena.referee.faults import TimeControl
from arena.referee.keys import MatchKey
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots import all_bots, get_bot
from bots.sdk import Bot


class Timed:
    """Wraps a bot, recording how long each of its decisions takes."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.times: list[float] = []
        self.capped = 0  # decisions whose search the time cap ended, not the budget

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def choose(self, observation, legal_actions):
        start = time.perf_counter()
        self.bot.out_of_time = False
        action = self.bot.choose(observation, legal_actions)
        self.times.append(time.perf_counter() - start)
        self.capped += self.bot.out_of_time
        return action


def play(
    game: int, bot: str, opponent: str, players: int, variant: str, seed: int, settings: dict
) -> dict:
    seat = game % players
    timed = Timed(functools.partial(get_bot(bot).factory, **settings)(0))
    factory = get_bot(opponent).factory
    seats = [
        InProcessSeat(cast(Bot, timed), bot) if s == seat else InProcessSeat(factory(0), opponent)
        for s in range(players)
    ]
    # The referee seeds every bot from its key: keyed from the game's seed, the same command
    # plays the same games (ARENA_SECRET, when set, keys them with a secret of its own).
    key = MatchKey.for_seed("benchmark:search", seed + game)
    outcome = Referee(get_variant(variant), seats, TimeControl(), key=key).play(seed + game)
    scores = outcome.result.scores
    actions = json.dumps([a["action"] for a in outcome.log.actions]).encode()
    return {
        "game": game,
        "seat": seat,
        "scores": list(scores),
        "actions": hashlib.sha256(actions).hexdigest(),
        "won": outcome.ranks[seat] == 1,
        "margin": scores[seat] - max(s for i, s in enumerate(scores) if i != seat),
        "row": outcome.result.breakdown[seat],
        "times": timed.times,
        "capped": timed.capped,
    }


def opponents(names: list[str], bot: str, variant: str) -> list[str]:
    """The opponents asked for, ``all`` standing for every other bot playing ``variant``."""
    if "all" not in names:
        return names
    # (not the -timed search bots: their games depend on the machine's speed)
    return [
        n
        for n, spec in sorted(all_bots().items())
        if n != bot and spec.supports(variant) and not n.endswith("-timed")
    ]


def report(bot: str, opponent: str, players: int, variant: str, games: list[dict]) -> None:
    wins = sum(g["won"] for g in games)
    low, high = wilson(wins, len(games))
    times = sorted(t for g in games for t in g["times"])
    rows = [g["row"] for g in games]
    print(f"{bot} vs {players - 1} x {opponent}, {len(games)} {players}-player {variant} games")
    print(
        f"  wins {wins}/{len(games)} ({100 * wins / len(games):.1f}%, 95% CI "
        f"{100 * low:.1f}-{100 * high:.1f}), mean margin over the best opponent "
        f"{statistics.mean(g['margin'] for g in games):+.1f}"
    )
    print(
        "  mean points: "
        + ", ".join(
            f"{key} {statistics.mean(row[key] for row in rows):.1f}"
            for key in ("total", "routes", "tickets_completed", "tickets_failed")
        )
        + f", tickets completed {statistics.mean(row['completed_tickets'] for row in rows):.1f}"
    )
    print(
        f"  decision time: mean {statistics.mean(times) * 1000:.0f} ms, "
        f"95th percentile {times[int(0.95 * len(times))] * 1000:.0f} ms, max {max(times):.2f} s"
        f" ({len(times)} decisions; {sum(g['capped'] for g in games)} ended by the time cap)",
        flush=True,
    )


def settings_from(items: list[str], accepts: Callable[..., Any] | None = None) -> dict[str, Any]:
    """``NAME=VALUE`` items (``--set``) as keyword settings, each value a Python literal. An
    item of another form, a value that is not a literal, or a name that ``accepts`` (the
    bot's factory, the style's class) does not take ends the run in one line."""
    settings: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise SystemExit(f"error: {item!r} is not NAME=VALUE")
        try:
            settings[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise SystemExit(
                f"error: {item!r}: the value is not a Python literal (1, 0.5, True, 'text')"
            ) from None
    if accepts is not None:
        signature = inspect.signature(accepts)
        try:
            signature.bind_partial(**settings)
        except TypeError as error:
            named = [p for p in signature.parameters if p not in ("seed", "self")]
            raise SystemExit(f"error: {error} (the settings are: {', '.join(named)})") from None
    return settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="mcts-fast")
    parser.add_argument("--opponent", action="append", help="repeatable; 'all': every other")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="usa")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--seed", type=int, default=50_000, help="seed of game 0")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--every", type=int, default=0, help="print the tally every N games")
    parser.add_argument("--log", help="write one JSON line per game to this file")
    args = parser.parse_args()
    settings = settings_from(args.set, get_bot(args.bot).factory)
    started = time.perf_counter()
    indices = range(args.first, args.first + args.games)
    log = open(args.log, "w") if args.log else None  # noqa: SIM115 (closed below)
    with ProcessPoolExecutor(args.workers) as pool:
        for opponent in opponents(args.opponent or ["monte-carlo"], args.bot, args.variant):
            one = functools.partial(
                play,
                bot=args.bot,
                opponent=opponent,
                players=args.players,
                variant=args.variant,
                seed=args.seed,
                settings=settings,
            )
            games = []
            for game in pool.map(one, indices):
                games.append(game)
                if log is not None:
                    fields = ("game", "seat", "scores", "actions", "won", "margin")
                    row = {"opponent": opponent, **{k: game[k] for k in fields}}
                    log.write(json.dumps(row) + "\n")
                if args.every and len(games) % args.every == 0 and len(games) < args.games:
                    wins = sum(g["won"] for g in games)
                    print(f"  ... {wins}/{len(games)} wins so far vs {opponent}", flush=True)
            label = " ".join([args.bot, *args.set])
            report(label, opponent, args.players, args.variant, games)
    if log is not None:
        log.close()
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()

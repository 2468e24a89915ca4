"""Environment benchmark: each API's moves per CPU second over the bare engine's, per build.

    python benchmarks/envs.py [--players 2 4] [--moves 20000] [--rounds 4] [--envs 64]
    python benchmarks/envs.py --build compiled      # one build only (default: both)
    python benchmarks/envs.py --parts               # where a vector-env game step goes

Every API plays seeded random games, choosing uniformly among the legal actions its mask
marks, for about ``--moves`` moves a run, in CPU time (the load of other processes on a
shared machine moves it far less than wall time), in one process per engine build
(``ARENA_ENGINE``: compiled, pure):

- engine: ``legal_actions()``, a uniform choice, ``apply()`` (the reference, A);
- aec: PettingZoo AEC, ``env.last()`` (observation vector and mask), ``env.step(index)``;
- parallel: PettingZoo parallel, ``env.step({agent: index})``, every agent's observation;
- gym: Gymnasium, the learner's seat against a ``random`` bot (the bot's moves count as
  moves: they go through the environment too);
- vector: ``arena.envs.vector`` with ``--envs`` games (self-play), one ``step`` per batch,
  every game's choice in one NumPy call (the argmax of random numbers over the mask, from a
  pool of random tables); a batch step is ``--envs`` moves.

``--parts`` times, in this process's build, what one game's step in the vector env is made of
(USA self-play by default, microseconds of CPU per game step): the whole ``env.step`` and
the benchmark's policy, then each part on its own over the same kind of positions: the
move (``apply``), the observation's changes (the writer's ``update``), ``legal_actions``,
and the lookup of their action-space indices; the rest of ``env.step`` is the batch's NumPy
calls, the action check and new games. Parts timed one by one carry the timer's own cost.

Each round runs the engine and every API, in reverse order every other round (A B C ..., then
... C B A); each API's ratio is its rate over the engine's in the same round, and the table
gives the median and every round's ratio. The goal: >= 0.5 for each (for the vector, 0.5 x N
engines: its moves per second over one engine's). The machine's load average is printed
before and after each build's run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
APIS = ("aec", "parallel", "gym", "vector")


def engine(variant: str, players: int, moves: int, seed: int, envs: int) -> int:
    from arena.variants import get_variant

    rules, played, game = get_variant(variant), 0, 0
    while played < moves:
        state = rules.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while not state.is_over:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            played += 1
        game += 1
    return played


def aec(variant: str, players: int, moves: int, seed: int, envs: int) -> int:
    import arena.envs

    env, played, game = arena.envs.aec(variant, players), 0, 0
    while played < moves:
        env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            played += 1
        game += 1
    return played


def parallel(variant: str, players: int, moves: int, seed: int, envs: int) -> int:
    import arena.envs

    env, played, game = arena.envs.parallel(variant, players), 0, 0
    while played < moves:
        observations, _ = env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        while env.agents:
            mover = env.game.agent_selection
            legal = np.flatnonzero(observations[mover]["action_mask"])
            observations, *_ = env.step({mover: int(legal[rng.randrange(len(legal))])})
            played += 1
        game += 1
    return played


def gym(variant: str, players: int, moves: int, seed: int, envs: int) -> int:
    import arena.envs

    env = arena.envs.gym(variant, opponents=["random"] * (players - 1))
    counted = env.game.step
    played, game = 0, 0

    def step(action: int) -> None:  # every move, the learner's and the bots'
        nonlocal played
        played += 1
        counted(action)

    env.game.step = step  # type: ignore[method-assign]
    while played < moves:
        _, info = env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(int(legal[rng.randrange(len(legal))]))
        game += 1
    return played


class RandomLegal:
    """A uniform choice among each game's legal actions: the legal action with the largest
    random number. 64 x 1,076 fresh random numbers a step would cost more than the step, so
    they come from a pool of tables, one drawn per step (a policy's cost, not the env's)."""

    def __init__(self, shape: tuple[int, ...], seed: int) -> None:
        self.pool = np.random.default_rng(seed).random((16, *shape), dtype=np.float32)
        self.pick = random.Random(seed)

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        return np.argmax(self.pool[self.pick.randrange(16)] * mask, axis=1)


def vector(variant: str, players: int, moves: int, seed: int, envs: int) -> int:
    import arena.envs

    env = arena.envs.vector(variant, num_envs=envs, players=players)
    _, info = env.reset(seed=seed)
    policy = RandomLegal(info["action_mask"].shape, seed)
    played = 0
    while played < moves:
        _, _, _, _, info = env.step(policy(info["action_mask"]))
        played += envs
    return played


RUNS: dict[str, Callable[[str, int, int, int, int], int]] = {
    "engine": engine,
    "aec": aec,
    "parallel": parallel,
    "gym": gym,
    "vector": vector,
}


def rate(name: str, *job: object) -> float:
    """Moves per CPU second of one run."""
    start = time.process_time()
    count = RUNS[name](*job)  # type: ignore[arg-type]
    return count / (time.process_time() - start)


def parts(args: argparse.Namespace) -> None:
    """Microseconds of CPU per game step of the vector env, whole and part by part."""
    import arena
    import arena.envs
    from arena.envs.fastobs import legal_indices

    players, envs, moves = args.players[0], args.envs, args.moves
    engine_rate = rate("engine", args.variant, players, moves, args.seed, envs)
    env = arena.envs.vector(args.variant, num_envs=envs, players=players)
    _, info = env.reset(seed=args.seed)
    choose = RandomLegal(info["action_mask"].shape, args.seed)
    pick = choose.pick
    clock = time.process_time_ns
    policy = stepping = played = 0
    while played < moves:
        start = clock()
        actions = choose(info["action_mask"])
        chosen = clock()
        _, _, _, _, info = env.step(actions)
        policy, stepping, played = (
            policy + chosen - start,
            stepping + clock() - chosen,
            played + envs,
        )
    spent = {"apply": 0, "observation changes": 0, "legal_actions": 0, "their indices": 0}
    writer, space, counted = env.writer, env.space, 0
    if writer is None:
        raise SystemExit(f"error: {args.variant} is not written by fastobs; --parts times it")
    while counted < moves:
        for i, state in enumerate(env.states):
            if state.is_over:
                env.reset(seed=args.seed + counted)
                break
            legal = state.legal_actions()
            action = legal[pick.randrange(len(legal))]
            t0 = clock()
            state.apply(action)
            t1 = clock()
            if state.is_over:
                continue
            seat = state.to_move
            assert seat is not None  # the game is not over
            writer.update(state, seat, env._memories[i][seat], 0, [], [])  # type: ignore[arg-type]
            t2 = clock()
            state.legal_actions()
            t3 = clock()
            legal_indices(state, space, space._by_id, 0, [])  # type: ignore[arg-type]
            t4 = clock()
            spent["apply"] += t1 - t0
            spent["observation changes"] += t2 - t1
            spent["legal_actions"] += t3 - t2
            spent["their indices"] += (t4 - t3) - (t3 - t2)
            counted += 1
    print(
        f"{arena.ENGINE_BUILD} engine, {args.variant}, {players} players, vector env of {envs} "
        f"games; load average {os.getloadavg()[0]:.1f}; microseconds of CPU per game step"
    )
    print(f"  engine move (legal_actions, a choice, apply)  {1e6 / engine_rate:6.2f}")
    print(f"  vector env step, whole                        {stepping / played / 1e3:6.2f}")
    print(f"  the benchmark's policy (argmax over the mask) {policy / played / 1e3:6.2f}")
    for name, total in spent.items():
        print(f"    {name:<44}{total / counted / 1e3:6.2f}")


def measure(args: argparse.Namespace) -> dict[str, object]:
    """This process's build: rounds of every run, alternated; each API's per-round ratios."""
    import arena

    names = ["engine", *APIS]
    figures: dict[str, object] = {"build": arena.ENGINE_BUILD, "load": [os.getloadavg()[0]]}
    for players in args.players:
        job = (args.variant, players, args.moves, args.seed, args.envs)
        for name in names:  # warm up: spaces, encoders, imports
            rate(name, args.variant, players, 2000, args.seed, args.envs)
        rates: dict[str, list[float]] = {name: [] for name in names}
        for round_ in range(args.rounds):
            for name in names[:: 1 if round_ % 2 == 0 else -1]:
                rates[name].append(rate(name, *job))
        figures[str(players)] = rates
    figures["load"].append(os.getloadavg()[0])  # type: ignore[attr-defined]
    return figures


def report(figures: dict[str, object], args: argparse.Namespace) -> None:
    load = figures["load"]
    print(
        f"{figures['build']} engine, {args.variant}; load average {load[0]:.1f} before, "  # type: ignore[index]
        f"{load[1]:.1f} after ({os.cpu_count()} cores); CPU time, {args.rounds} rounds "  # type: ignore[index]
        f"alternated, ~{args.moves:,} moves a run; vector: {args.envs} games"
    )
    print(f"  {'players':<8}{'API':<10}{'moves/s':>10}  {'/ engine':>8}  per round")
    for players in args.players:
        rates: dict[str, list[float]] = figures[str(players)]  # type: ignore[assignment]
        base = rates["engine"]
        print(f"  {players:<8}{'engine':<10}{statistics.median(base):>10,.0f}")
        for name in APIS:
            ratios = [r / b for r, b in zip(rates[name], base, strict=True)]
            print(
                f"  {'':<8}{name:<10}{statistics.median(rates[name]):>10,.0f}  "
                f"{statistics.median(ratios):>8.2f}  {', '.join(f'{r:.2f}' for r in ratios)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="usa")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--moves", type=int, default=20_000, help="moves per run (about)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--envs", type=int, default=64, help="games in the vector env")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--build", choices=("both", "compiled", "pure"), default="both")
    parser.add_argument("--parts", action="store_true", help="a vector-env step, part by part")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.parts:
        parts(args)
        return
    if args.json:  # a child: this process's build
        print(json.dumps(measure(args)))
        return
    builds = ("compiled", "pure") if args.build == "both" else (args.build,)
    for build in builds:
        command = [sys.executable, __file__, "--json", *sys.argv[1:]]
        done = subprocess.run(
            command,
            env={**os.environ, "ARENA_ENGINE": build, "PYTHONPATH": str(HERE)},
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"error: the {build} build's run failed: {last}")
        report(json.loads(done.stdout), args)
        if done.stderr.strip():  # e.g. ARENA_ENGINE=compiled without a compiled build
            print(f"  ({done.stderr.strip().splitlines()[-1]})")


if __name__ == "__main__":
    main()

"""Train a Ticket to Ride policy on CPU with plain numpy, then save it as a bot.

    python examples/rl/train.py                    # several minutes on 2 shared cores
    python examples/rl/train.py --games 40 --epochs 1 --finetune 10 --eval 20   # a smoke run

1. Behaviour cloning: the ``planner`` bot plays 2-player USA games against itself in the
   PettingZoo environment (``arena.envs.aec``); every decision is recorded as (the mover's
   encoded observation, its action mask, the planner's action index).
2. A small MLP (examples/rl/bot/mlp.py) learns to predict those actions: masked softmax
   cross-entropy, Adam.
3. Fine-tuning against ``planner`` (``--against``) in the vectorised environment
   (``arena.envs.vector``, ``--envs`` games stepped together, one forward pass for all):
   REINFORCE on the final score margin, sampling from the masked softmax.
4. Evaluation: greedy play against ``random`` and ``planner`` (the learner's seat drawn per
   game), in the vectorised environment too, with 95% Wilson intervals; the model is saved
   to examples/rl/bot/model.npz, which examples/rl/bot/bot.py loads:
   ``arena submit rl-mlp --file examples/rl/bot``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

try:
    from arena.envs import aec, vector
except ImportError as missing:  # the rl extra is not installed: one line, what to do
    sys.exit(f"error: {missing}")
import numpy as np

from bots import get_bot

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "bot"))
from mlp import MLP  # noqa: E402


def collect(games: int, teacher: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The teacher's decisions in self-play: observations, masks, chosen indices."""
    env = aec("usa", players=2)
    spec = get_bot(teacher)
    xs, masks, ys = [], [], []
    for game in range(games):
        env.reset(seed=seed + game)
        state, board = env.state, env.variant.board.public_json()
        assert state is not None
        seeds = [f"teacher-{seed + game}-{s}" for s in range(2)]  # our own bots: plain seeds
        players = [spec.factory(seeds[s]) for s in range(2)]
        for s, bot in enumerate(players):
            bot.start_game(seeds[s], state.observation(s), board)
        while not state.is_over:
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            observed = env.observe(agent)
            action = players[seat].choose(env.raw_observation(agent), state.legal_actions())
            index = env.space.index(env.variant.parse_action(str(action)))
            xs.append(observed["observation"])
            masks.append(observed["action_mask"])
            ys.append(index)
            env.step(index)
    return np.stack(xs), np.stack(masks), np.asarray(ys)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    logits = np.where(masks > 0, logits, -1e9)
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


class Adam:
    def __init__(self, params: dict[str, np.ndarray], names: list[str], lr: float) -> None:
        self.params, self.names, self.lr, self.t = params, names, lr, 0
        self.m = {n: np.zeros_like(params[n]) for n in names}
        self.v = {n: np.zeros_like(params[n]) for n in names}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for n in self.names:
            self.m[n] = 0.9 * self.m[n] + 0.1 * grads[n]
            self.v[n] = 0.999 * self.v[n] + 0.001 * grads[n] ** 2
            m = self.m[n] / (1 - 0.9**self.t)
            v = self.v[n] / (1 - 0.999**self.t)
            self.params[n] -= self.lr * m / (np.sqrt(v) + 1e-8)


TRAINED = ["W1", "b1", "W2", "b2"]


def gradients(
    model: MLP, x: np.ndarray, masks: np.ndarray, target: np.ndarray, weights: np.ndarray
) -> tuple[dict[str, np.ndarray], float]:
    """Gradients of the weighted masked cross-entropy of ``target`` (and the mean loss)."""
    p = model.params
    z = (x - p["mean"]) / p["scale"]
    h_pre = z @ p["W1"] + p["b1"]
    h = np.maximum(h_pre, 0.0)
    probs = masked_softmax(h @ p["W2"] + p["b2"], masks)
    rows = np.arange(len(target))
    loss = float(-(weights * np.log(probs[rows, target] + 1e-12)).mean())
    d_logits = probs
    d_logits[rows, target] -= 1.0
    d_logits *= (weights / len(target))[:, None]
    d_h = (d_logits @ p["W2"].T) * (h_pre > 0)
    grads = {
        "W2": h.T @ d_logits,
        "b2": d_logits.sum(axis=0),
        "W1": z.T @ d_h,
        "b1": d_h.sum(axis=0),
    }
    return grads, loss


def clone(
    model: MLP,
    x: np.ndarray,
    masks: np.ndarray,
    y: np.ndarray,
    epochs: int,
    rng: np.random.Generator,
    batch: int = 256,
) -> None:
    optimiser = Adam(model.params, TRAINED, lr=1e-3)
    ones = np.ones(batch, np.float32)
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        losses = []
        for start in range(0, len(y), batch):
            take = order[start : start + batch]
            grads, loss = gradients(model, x[take], masks[take], y[take], ones[: len(take)])
            optimiser.step(grads)
            losses.append(loss)
        agree = accuracy(model, x[:5000], masks[:5000], y[:5000])
        print(
            f"  epoch {epoch + 1}: loss {np.mean(losses):.3f}, agrees with the teacher on "
            f"{agree:.1%} of decisions",
            flush=True,
        )


def accuracy(model: MLP, x: np.ndarray, masks: np.ndarray, y: np.ndarray) -> float:
    logits = np.where(masks > 0, model.logits(x), -np.inf)
    return float((logits.argmax(axis=1) == y).mean())


def finetune(
    model: MLP, games: int, opponent: str, rng: np.random.Generator, seed: int, envs: int
) -> None:
    """REINFORCE against ``opponent``: the final score margin (in units of 50 points) minus a
    running baseline, so that a game won or lost by more counts more. ``envs`` games are
    played at once; each updates the model when it ends."""
    env = vector("usa", num_envs=min(envs, games), opponents=[opponent], seat=None)
    optimiser = Adam(model.params, TRAINED, lr=2e-5)
    baseline, wins, done = 0.0, 0, 0
    observations, info = env.reset(seed=seed)
    trails: list[tuple[list, list, list]] = [([], [], []) for _ in range(env.num_envs)]
    while done < games:
        masks = info["action_mask"]
        probs = masked_softmax(model.logits(observations), masks)
        actions = np.array([rng.choice(len(p), p=p / p.sum()) for p in probs])
        for i, (xs, ms, ys) in enumerate(trails):
            xs.append(observations[i])
            ms.append(masks[i])
            ys.append(actions[i])
        observations, margins, ended, _, info = env.step(actions)
        for i in np.flatnonzero(ended):
            xs, ms, ys = trails[i]
            trails[i] = ([], [], [])
            if done == games:
                continue
            done += 1
            wins += margins[i] > 0
            reward = margins[i] / 50
            advantage = reward - baseline
            baseline += 0.05 * (reward - baseline)
            weights = np.full(len(ys), advantage, np.float32)
            grads, _ = gradients(model, np.stack(xs), np.stack(ms), np.asarray(ys), weights)
            optimiser.step(grads)
            if done % 50 == 0:
                print(f"  {done} games, {wins} won while exploring", flush=True)


def evaluate(model: MLP, opponent: str, games: int, seed: int, envs: int) -> tuple[int, int]:
    """Greedy games against ``opponent`` (seat drawn per game): wins (rank 1 alone) and
    games. The first ``games`` games to start count (not the first to end, which would
    favour short games); the games started after them are played out and ignored."""
    env = vector("usa", num_envs=min(envs, games), opponents=[opponent], seat=None)
    observations, info = env.reset(seed=seed)
    counts = [True] * env.num_envs  # whether each env's current game is one of ``games``
    started, wins, played = env.num_envs, 0, 0
    while played < games:
        logits = np.where(info["action_mask"] > 0, model.logits(observations), -np.inf)
        seats = info["seat"]
        observations, _, ended, _, info = env.step(np.argmax(logits, axis=1))
        for i in np.flatnonzero(ended):
            if counts[i]:
                ranks = list(info["ranks"][i])
                played += 1
                wins += ranks[seats[i]] == 1 and ranks.count(1) == 1
            counts[i] = started < games
            started += counts[i]
    return wins, games


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,  # --help shows each default
    )
    parser.add_argument("--games", type=int, default=800, help="teacher games to clone")
    parser.add_argument("--teacher", default="planner", help="the bot whose moves are cloned")
    parser.add_argument("--epochs", type=int, default=4, help="passes over the cloned moves")
    parser.add_argument("--hidden", type=int, default=256, help="the network's hidden units")
    parser.add_argument("--finetune", type=int, default=200, help="REINFORCE games")
    parser.add_argument("--against", default="planner", help="the fine-tuning opponent")
    parser.add_argument("--eval", type=int, default=200, help="evaluation games per opponent")
    parser.add_argument("--envs", type=int, default=16, help="games played at once (3., 4.)")
    parser.add_argument("--seed", type=int, default=1, help="seeds games and weights")
    parser.add_argument(
        "--out", type=Path, default=HERE / "bot" / "model.npz", help="where the model is saved"
    )
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    began = time.perf_counter()

    print(f"1. {args.teacher} plays {args.games} games against itself ...", flush=True)
    x, masks, y = collect(args.games, args.teacher, seed=10_000_000 + args.seed * 100_000)
    print(
        f"   {len(y):,} decisions, observation {x.shape[1]} numbers, "
        f"{masks.shape[1]} actions ({time.perf_counter() - began:.0f} s)",
        flush=True,
    )

    model = MLP.new(x.shape[1], args.hidden, masks.shape[1], rng)
    model.params["mean"] = x.mean(axis=0)
    model.params["scale"] = x.std(axis=0) + 1.0
    print("2. behaviour cloning ...", flush=True)
    clone(model, x, masks, y, args.epochs, rng)
    del x, masks, y

    if args.finetune:
        print(f"3. fine-tuning against {args.against} ({args.finetune} games) ...", flush=True)
        finetune(
            model, args.finetune, args.against, rng, 20_000_000 + args.seed * 100_000, args.envs
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    print(f"   saved {args.out} ({time.perf_counter() - began:.0f} s)", flush=True)

    print("4. evaluation (greedy, 2-player USA, seat drawn per game; fresh seeds):", flush=True)
    for opponent in ("random", args.teacher):
        wins, games = evaluate(
            model, opponent, args.eval, 30_000_000 + args.seed * 100_000, args.envs
        )
        low, high = wilson(wins, games)
        print(
            f"   vs {opponent:<10} won {wins}/{games} = {wins / games:.1%} "
            f"(95% interval {low:.1%}-{high:.1%})",
            flush=True,
        )
    print(f"done in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()

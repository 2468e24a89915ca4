"""Budgets, not clocks: each search bot's default budget, not its time cap, ends its searches
on the reference positions (so its games are reproducible given its seed), and the bot plays
the same moves there on the pure and the compiled build (the engine and the search bots'
planner, ``bots/policy.py``); its cap still ends a search the budget would not, and the
``-timed`` variants search until their clock says stop.

What is checked here holds at any speed: the rollouts each budget plays (counted, the cap
lifted), within the budget's ceiling, the same on both builds and on a second run, and the
moves they lead to. Whether the budgets' decisions fit their caps in CPU time is a figure,
not a test: ``benchmarks/budgets.py`` measures it (docs/BOTS.md "Budgets, not clocks"), since
a machine sharing its cores and caches with other work spends more CPU on the same rollouts.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena import native
from bots.budgets import SEARCH_BOTS, decide, percentile, reference_positions, started

ROOT = Path(__file__).resolve().parent.parent
MOVES = [sys.executable, str(ROOT / "tests" / "budget_moves.py")]


def run_moves(engine: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ARENA_ENGINE": engine}
    return subprocess.Popen(
        MOVES, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(run: subprocess.Popen[str]) -> dict:
    out, err = run.communicate(timeout=1200)
    assert run.returncode == 0, err
    return json.loads(out)


def test_default_budgets_end_the_search_before_the_cap_and_play_alike_pure_and_compiled():
    """On each bot's heaviest reference positions: the budget's rollouts (never more than
    its ceiling, ``samples`` a candidate), the same count and the same moves on both builds
    and on a second run."""
    runs = {"pure": run_moves("pure")}
    compiled = native.compiled_is_current() is None
    if compiled:
        runs["compiled"] = run_moves("compiled")
    results = {engine: finish(run) for engine, run in runs.items()}
    assert results["pure"]["build"] == results["pure"]["planner"] == "pure"
    if not compiled:
        lacking = native.toolchain_problem()
        if lacking is None:
            pytest.fail(f"this machine can compile the engine, but {native.compiled_is_current()}")
        pytest.skip(f"{lacking}: only the pure-Python engine exists here")
    # the compiled run searched with the compiled planner, not the engine alone
    assert results["compiled"]["build"] == results["compiled"]["planner"] == "compiled"
    pure, fast = results["pure"]["bots"], results["compiled"]["bots"]
    assert sorted(pure) == sorted(fast) == sorted(SEARCH_BOTS)
    for name in SEARCH_BOTS:
        rows, twins = fast[name]["decisions"], pure[name]["decisions"]
        assert rows and [r["position"] for r in rows] == [r["position"] for r in twins]
        assert [r["action"] for r in rows] == [r["action"] for r in twins], name
        assert all(r["action"] == r["again"] for r in rows + twins), f"{name}: not repeatable"
        assert [r["rollouts"] for r in rows] == [r["rollouts"] for r in twins], name
        assert all(r["rollouts"] > 1 for r in rows), f"{name}: a position it does not search"
        assert all(r["rollouts"] <= r["ceiling"] for r in rows), f"{name}: past its budget"
        assert all(r["rollouts"] == r["again_rollouts"] for r in rows + twins), name


class Ticking:
    """A clock that moves ``step`` seconds each time it is read: a search's time, counted
    in clock reads, whatever the machine's speed."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture(scope="module")
def positions():
    """Searched positions of one reference game: setup, a ticket keep, the end game."""
    return reference_positions("usa", 4, 1)


def searched(name, states, count):
    found = []
    for index, state in enumerate(states):
        bot = started(name, state, f"probe:{index}", budget_s=1e9)
        if len(bot.candidates(state, state.legal_actions())) > 1:
            found.append(state)
    step = max(1, len(found) // count)
    return found[::step][:count]


@pytest.mark.parametrize("name", SEARCH_BOTS)
def test_the_cap_still_ends_a_search_its_budget_would_not(name, positions):
    """With a clock that reaches the cap after four reads, the search stops there, says so,
    and plays a legal move; with the cap lifted the same position plays the whole budget."""
    for state in searched(name, positions, 2):
        legal = {str(a) for a in state.legal_actions()}
        bot = started(name, state, "cap")
        cut = decide(bot, state.copy(), clock=Ticking(bot.budget_s / 4))
        full = decide(started(name, state, "cap", budget_s=1e9), state.copy())
        assert cut.out_of_time and not full.out_of_time
        assert 0 < cut.rollouts < full.rollouts
        assert cut.action in legal and full.action in legal


@pytest.mark.parametrize("name", ["monte-carlo", "mcts-fast"])
def test_a_machine_too_busy_to_give_the_cpu_meets_the_wall_clock_backstop(name, positions):
    """The cap is read on CPU time; should the machine give the bot none, the wall clock
    stops the search at three times the cap and at least a second (here after three
    rollouts' worth of reads of a wall clock that moves 0.3 s a read)."""
    state = searched(name, positions, 1)[0]
    bot = started(name, state, "busy")
    bot.cpu_clock = lambda: 0.0
    bot.wall_clock = Ticking(0.3)
    decision = decide(bot, state.copy())
    assert decision.out_of_time and decision.rollouts > 0
    full = decide(started(name, state, "busy", budget_s=1e9), state.copy())
    assert not full.out_of_time and full.rollouts > decision.rollouts


@pytest.mark.parametrize(
    "name", ["monte-carlo-timed", "monte-carlo-fast-timed", "mcts-timed", "mcts-fast-timed"]
)
def test_a_timed_variant_searches_until_its_clock_says_stop(name, positions):
    """A ``-timed`` bot has no rollout budget: it samples until its time is spent (here a
    clock that moves a fixed step a read, so twice the reads its time allows means about
    twice the rollouts), and the clock ending it is not a cap overrun."""
    for state in searched(name, positions, 2):
        played = []
        for reads in (12, 24):
            bot = started(name, state, "t")
            decision = decide(bot, state.copy(), clock=Ticking(bot.budget_s / reads))
            assert not decision.out_of_time
            assert decision.action in {str(a) for a in state.legal_actions()}
            played.append(decision.rollouts)
        assert 0 < played[0] < played[1]


def test_percentile_is_the_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 0.5) == 50.0
    assert percentile([3.0], 0.99) == 3.0
    assert math.isclose(percentile(list(itertools.repeat(1.0, 7)), 0.95), 1.0)

"""Every built-in bot: a plugin with a description, plays over the protocol, deterministic,
and the heuristic ones (ours and the FDG 2017 agents) clearly better than random."""

from __future__ import annotations

import pytest

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch, in_process_referee
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant
from bots import all_bots

USA = get_variant("usa")
BUILT_IN = [
    "random",
    "ticket-collector",
    "ticket-by-ticket",
    "greedy-claims",
    "long-claims",
    "fdg-destination-hungry",
    "fdg-route-focus",
    "fdg-one-step",
    "fdg-long-route",
    "fdg-destination-hungry-fixed",
    "fdg-route-focus-fixed",
    "fdg-one-step-fixed",
    "fdg-long-route-fixed",
    "monte-carlo",
    "monte-carlo-fast",
    "planner",
    "mcts",
    "mcts-fast",
    "monte-carlo-timed",
    "monte-carlo-fast-timed",
    "mcts-timed",
    "mcts-fast-timed",
    "cardgame-greedy",
]
TIMED = [b for b in BUILT_IN if b.endswith("-timed")]
PLAYABLE_FAST = [b for b in BUILT_IN if b not in ("monte-carlo", "mcts", *TIMED)]
# The time-budgeted bots search until their clock says stop: not reproducible, by design.
DETERMINISTIC = PLAYABLE_FAST


@pytest.fixture
def budget_governs(monkeypatch):
    """The search bots' clocks stand still: their rollout budget, never the time cap that a
    loaded machine reaches first, ends each search (the cap makes a bot's moves depend on
    the machine's speed, which is what this must not test)."""
    from bots.search import MonteCarloBot

    for clock in ("cpu_clock", "wall_clock"):
        monkeypatch.setattr(MonteCarloBot, clock, staticmethod(lambda: 0.0))


def home(name):
    """A variant the bot plays: USA for the board bots, the Card Game for its own bot."""
    return USA if all_bots()[name].supports("usa") else get_variant("cardgame")


def test_every_built_in_bot_is_a_plugin_with_a_description():
    bots = all_bots()
    for name in BUILT_IN:
        assert name in bots and len(bots[name].description) > 10


@pytest.mark.parametrize("name", [*PLAYABLE_FAST, "mcts-fast-timed"])
def test_each_bot_plays_full_games_over_the_protocol(name, tmp_path):
    entries = [BotEntry.parse(name), BotEntry.parse("random"), BotEntry.parse(name)]
    with ProcessMatch(
        home(name), entries, TimeControl(move_ms=3000, bank_ms=30000), log_dir=tmp_path
    ) as referee:
        outcome = referee.play(5)
    assert outcome.faults == []
    assert verify(MatchLog.from_jsonl(outcome.log.to_jsonl())).is_over


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_each_bot_is_deterministic_given_its_seed(name, budget_governs):
    def actions(seed):
        other = "greedy-claims" if home(name) is USA else "random"
        referee = in_process_referee(
            home(name), [BotEntry.parse(name), BotEntry.parse(other)], TimeControl()
        )
        return [a["action"] for a in referee.play(seed).log.actions]

    assert actions(3) == actions(3)


HEURISTIC = ["ticket-collector", "ticket-by-ticket", "greedy-claims", "long-claims"]
FDG = ["fdg-destination-hungry", "fdg-route-focus", "fdg-one-step", "fdg-long-route"]


@pytest.mark.parametrize("name", HEURISTIC + FDG)
def test_the_heuristic_bots_beat_random(name):
    wins = 0
    for seed in range(10):
        referee = in_process_referee(
            USA, [BotEntry.parse(name), BotEntry.parse("random")], TimeControl()
        )
        wins += referee.play(seed).ranks[0] == 1
    assert wins >= 9

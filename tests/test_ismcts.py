"""The ``mcts`` search bot: it decides from its observation alone, is deterministic given
its seed, spends its rollout budget by sequential halving and only proposes legal moves."""

from __future__ import annotations

import random

from arena.engine.actions import DRAW_DECK, DrawCard
from arena.engine.state import BoardState
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, in_process_referee
from arena.variants import get_variant
from bots import get_bot
from bots.ismcts import FAST_SEARCHED_FROM, SearchBot, ticket_corridors
from bots.policy import Planner, Rollout, Style
from tests.journey import Journey
from tests.test_search import played

USA = get_variant("usa")
UNCAPPED = 60.0  # no time cap in tests: the rollout budget alone ends every search


def started(state, seed: int = 0, **settings) -> SearchBot:
    bot = SearchBot(seed, budget_s=UNCAPPED, **settings)
    seat = state.to_move
    bot.start_game(seed, state.observation(seat), state.variant.board.public_json())
    return bot


def test_it_decides_from_the_observation_alone():
    """Two real states that look the same to the seat get the same decision, at setup
    and in the middle of a game (where the threats are judged on samples too)."""
    for seed, steps in ((5, 0), (7, 40), (8, 70)):
        state, _ = played("usa", 4, seed, steps)
        seat = state.to_move
        other = state.resample(seat, random.Random(99))
        assert other.observation(seat) == state.observation(seat)
        assert [list(state.hand(p)) for p in range(4)] != [list(other.hand(p)) for p in range(4)]
        choices = [
            started(real, seed, samples=3).choose(real.observation(seat), real.legal_actions())
            for real in (state, other)
        ]
        assert choices[0] == choices[1]


def test_its_experimental_belief_and_end_game_moves_read_the_observation_alone():
    """The settings tried for strength: a ticket belief from the routes each seat claimed on
    near-shortest paths (off by default), and the end game's plan claims and face-up draws
    (on); still the same move for two states the seat cannot tell apart."""
    settings = {"corridor": 3.0, "plan_claims": True, "face_up": True}
    for seed, steps in ((7, 40), (9, 215), (9, 225)):  # the last two in the end game
        state, _ = played("usa", 4, seed, steps)
        seat = state.to_move
        other = state.resample(seat, random.Random(99))
        assert other.observation(seat) == state.observation(seat)
        choices = [
            started(real, seed, samples=3, **settings).choose(
                real.observation(seat), real.legal_actions()
            )
            for real in (state, other)
        ]
        assert choices[0] == choices[1]


def test_its_end_game_starts_at_the_same_share_of_every_map_s_pieces():
    """Every turn is searched from 22 of USA's and Europe's 45 trains and 7 of New York's
    15 taxis (the share tuned on USA), unless a number is given; mcts-fast's table waits
    for 14 of 45 (5 of 15) with 4 players or more, and plays 2 and 3 players as mcts."""
    cases = (
        ("usa", 4, 22, 14),
        ("usa", 5, 22, 14),
        ("europe", 3, 22, 22),
        ("usa", 2, 22, 22),
        ("newyork", 2, 7, 7),
        ("newyork", 4, 7, 5),
    )
    for name, players, mcts, fast in cases:
        state, _ = played(name, players, 3, 0)
        assert started(state).endgame_trains == mcts, (name, players)
        assert started(state, endgame_table=FAST_SEARCHED_FROM).endgame_trains == fast
        assert started(state, endgame_trains=12).endgame_trains == 12


def test_the_fast_bots_use_the_fast_table():
    """What the bot specs build: mcts-fast and mcts-fast-timed wait for 14 trains in a
    4-player game, mcts and mcts-timed for 22."""
    state, _ = played("usa", 4, 3, 0)
    observation = state.observation(state.to_move)
    board = state.variant.board.public_json()
    for name, expected in (
        ("mcts", 22),
        ("mcts-timed", 22),
        ("mcts-fast", 14),
        ("mcts-fast-timed", 14),
    ):
        bot = get_bot(name).factory(0)
        bot.start_game(0, observation, board)
        assert bot.endgame_trains == expected, name


def end_game_turns(seed: int, count: int) -> list[BoardState]:
    """The first ``count`` turns of a 2-player USA planner game once a seat is down to 22
    trains (copies)."""
    state, planner = played("usa", 2, seed, 0)
    found: list[BoardState] = []
    while not state.is_over and len(found) < count:
        if state.phase == "turn" and min(state.trains) <= 22:
            found.append(state.copy())
        state.apply(planner.move(state, planner.plan(state, state.to_move)))
    return found


def face_up_colours(state, actions) -> set[int]:
    """The colours face up that ``actions`` draw."""
    return {state.display[a.slot] for a in actions if type(a) is DrawCard and a.slot is not None}


def test_its_end_game_candidates_hold_its_plan_s_claims_and_each_face_up_colour():
    """Once some seat is down to its end-game trains: the planner's move, a blind draw, the
    longest payable claims, and also every payable claim of its plan and a draw of each
    distinct face-up colour, all legal and each once; before that, the planner's move and
    (its plan done) a ticket draw only."""
    plan_claims = face_up_draws = 0
    for seed in range(3):
        for state in end_game_turns(seed, 6):
            bot = started(state, seed)
            legal = state.legal_actions()
            found = bot.candidates(state, legal)
            assert len(found) == len(set(found)) and all(a in legal for a in found)
            assert DRAW_DECK in found or DRAW_DECK not in legal
            seat = state.to_move
            for r in bot.planner.plan(state, seat):
                pay = bot.planner.payment(state, seat, r, None)
                if pay is not None:
                    assert pay in found
                    plan_claims += 1
            wanted = face_up_colours(state, legal)
            assert wanted == face_up_colours(state, found)
            face_up_draws += len(wanted)
    assert plan_claims and face_up_draws
    early, _ = played("usa", 2, 1, 20)
    assert min(early.trains) > 22 and early.phase == "turn"
    assert len(started(early).candidates(early, early.legal_actions())) <= 2


def test_a_rollout_cut_by_its_step_limit_counts_as_an_even_game_not_a_crash():
    """A rollout the planner does not finish (its step limit reached: on Europe, seats that
    try a tunnel and withdraw, over and over) is valued 0 rather than raising (which
    forfeited 2 of 240 games of a Europe round robin)."""
    state, _ = played("europe", 4, 5, 60)
    bot = started(state)
    unfinished = bot.rollout.play(state.copy(), limit=3)
    assert not unfinished.is_over
    assert bot.value(unfinished, state.to_move) == 0.0
    finished = bot.rollout.play(state.copy())
    scores = finished.result().scores
    margin = (scores[0] - max(scores[1:])) / 50.0
    assert finished.is_over
    assert bot.value(finished, 0) == margin + (bot.win_bonus if margin > 0 else 0.0)


def test_a_tickets_corridor_holds_its_shortest_path():
    """Every route of a shortest path between a ticket's cities (claims charged a train, as
    the planners charge them) is in its corridor, even with no slack."""
    board = USA.board
    planner = Planner(USA, Style(route_overhead=1.0))
    for slack in (0.0, 2.0):
        corridors = ticket_corridors(board, slack)
        for t, lane in enumerate(corridors):
            _, routes = planner.path(planner.weights, board.ticket_a[t], board.ticket_b[t])
            assert routes and set(routes) <= lane
    assert all(a <= b for a, b in zip(ticket_corridors(board, 0.0), corridors, strict=True))


def test_it_is_deterministic_given_its_seed():
    def actions(seed):
        bot = SearchBot(seed, samples=2, budget_s=UNCAPPED)
        referee = in_process_referee(
            USA,
            [BotEntry.parse("greedy-claims"), BotEntry.parse("planner")],
            TimeControl(),
        )
        referee.seats[0].bot = bot
        return [a["action"] for a in referee.play(seed).log.actions]

    assert actions(3) == actions(3)


class CountingRollout(Rollout):
    """Counts the rollouts a search plays, per first move."""

    def __init__(self, planner, log):
        super().__init__(planner)
        self.log = log

    def play(self, state, limit=2000):
        self.log.append(state.copy())
        return super().play(state, limit)


def test_sequential_halving_spends_the_budget_on_the_best_candidates():
    state, _ = played("usa", 4, 11, 0)  # setup: four ways to keep tickets
    bot = started(state, 11, samples=10)
    log: list = []
    bot.rollout = CountingRollout(bot.planner, log)
    legal = state.legal_actions()
    bot.observation = state.observation(state.to_move)
    bot.started = 0.0
    bot.budget_s = float("inf")
    best = bot.search(bot.observation, list(legal))
    assert 0 <= best < len(legal)
    assert len(legal) <= len(log) <= 40
    # 10 x 4 = 40 rollouts: round one 5 samples of all four, round two 10 of the best two.
    assert len(log) == 4 * 5 + 2 * 10


def test_its_rollouts_play_its_own_seat_in_its_own_style():
    state, _ = played("usa", 4, 4, 30)
    seat = state.to_move
    bot = started(state, 4, samples=2)
    policy = bot.rollout.planner
    assert policy.planner(seat) is bot.planner
    assert bot.planner.style.route_overhead > policy.planner((seat + 1) % 4).style.route_overhead
    final = bot.rollout.play(state.copy())
    assert final.is_over


def test_out_of_time_it_plays_the_first_candidate_or_the_best_played():
    assert SearchBot.best([0, 1, 2], [0.0, 0.0, 0.0], [0, 0, 0]) == 0
    assert SearchBot.best([0, 1, 2], [1.0, 3.0, 0.0], [1, 1, 0]) == 1
    assert SearchBot.best([0, 1, 2], [-1.0, 0.0, 5.0], [1, 0, 0]) == 0


def test_a_user_plays_mcts_fast_through_the_arena_command(tmp_path):
    """``arena play`` with the search bot in its own sandboxed process: a finished game,
    and the bot asked for a game it does not play gets one line and exit status 2."""
    journey = Journey(tmp_path)
    played_game = journey("play", "--bot", "mcts-fast", "--bot", "random", "--seed", 3)
    assert played_game.code == 0, played_game.text
    assert "mcts-fast" in played_game.out and "actions in" in played_game.out
    refused = journey("play", "--variant", "cardgame", "--bot", "mcts-fast", "--bot", "random")
    assert refused.code == 2
    assert "mcts-fast" in refused.one_line_error() and "cardgame" in refused.one_line_error()

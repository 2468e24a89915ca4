"""The rating models beside today's TrueSkill: TrueSkill with τ = 0 and a global
Bradley–Terry fit. Each keeps the leaderboards' guarantees: the same board whatever
the executor (the order matches arrive in), and folding matches in parts equals a full
recompute, bit for bit."""

from __future__ import annotations

import random

import pytest

from arena.tournament.ratings import MODELS, bradley_terry, pairwise
from arena.tournament.results import MatchResult
from arena.tournament.spec import SpecError, TournamentSpec
from leaderboards.standings import Board, Standings
from tests.journey import Journey

STRENGTH = {"a": 2.0, "b": 1.0, "c": 0.0, "d": -1.0, "e": -3.0}


def synthetic(count: int, seed: int = 1) -> list[MatchResult]:
    """Matches of 2-5 bots finishing by strength plus noise (with an occasional tie)."""
    rng = random.Random(seed)
    matches = []
    for index in range(count):
        bots = rng.sample(sorted(STRENGTH), rng.randint(2, 5))
        noisy = {bot: STRENGTH[bot] + rng.gauss(0, 1.5) for bot in bots}
        order = sorted(bots, key=lambda bot: -noisy[bot])
        ranks = [order.index(bot) + 1 for bot in bots]
        if rng.random() < 0.05:
            ranks = [1 if r <= 2 else r for r in ranks]  # the first two tie
        matches.append(
            MatchResult(
                match_id=index + 1,
                tournament="t",
                idx=index,
                variant="usa",
                seed=index,
                bots=tuple(bots),
                scores=tuple(10 * len(bots) - r for r in ranks),
                ranks=tuple(ranks),
                engine_ranks=tuple(ranks),
                faults=tuple(None for _ in bots),
                finished_at=float(index),
            )
        )
    return matches


def test_pairwise_results_give_ties_half_and_seat_a_bot_once():
    assert pairwise(["b", "a", "c"], [2, 1, 2]) == [
        ("a", "b", 1.0),
        ("a", "c", 1.0),
        ("b", "c", 0.5),
    ]
    assert pairwise(["a", "a", "b"], [3, 1, 2]) == [("a", "b", 1.0)]


def test_bradley_terry_recovers_the_order_and_stays_finite_for_a_bot_that_always_wins():
    board = Board("bradley-terry")
    for match in synthetic(600):
        board.add(match)
    estimates = board.estimates()
    assert sorted(estimates, key=lambda bot: -estimates[bot][0]) == ["a", "b", "c", "d", "e"]
    unbeaten = bradley_terry({("x", "y"): [20.0, 20.0]})
    assert 1500 < unbeaten["x"][0] < 2500 and unbeaten["x"][1] > 0


def test_a_bradley_terry_board_is_the_same_in_any_order_and_in_parts():
    matches = synthetic(300)
    whole = Board("bradley-terry")
    for match in matches:
        whole.add(match)
    shuffled = list(matches)
    random.Random(7).shuffle(shuffled)
    other = Board("bradley-terry")
    for match in shuffled:
        other.add(match)
    assert other.rows() == whole.rows()  # bit for bit: exact sums, a fit in sorted order


@pytest.mark.parametrize("model", MODELS)
def test_folding_in_parts_equals_a_full_recompute(model):
    matches = synthetic(200, seed=3)
    full = Standings("usa", model)
    full.add_all(matches)
    parts = Standings("usa", model)
    parts.add_all(matches[:77])
    parts.add_all(matches[77:])
    for count, board in full.boards().items():
        assert parts.boards()[count].rows() == board.rows()


def test_trueskill_without_drift_is_a_model_of_its_own():
    matches = synthetic(200, seed=5)
    boards = {}
    for model in ("trueskill", "trueskill-static"):
        standings = Standings("usa", model)
        standings.add_all(matches)
        boards[model] = {row["bot"]: row["sigma"] for row in standings.board().rows()}
    assert all(boards["trueskill-static"][b] < boards["trueskill"][b] for b in STRENGTH)


def test_a_tournament_file_names_its_rating_outside_its_identity():
    base = {"name": "t", "variant": "usa", "bots": ["random", "greedy-claims"], "players": 2}
    chosen = TournamentSpec.from_dict(base | {"rating": "trueskill-static"})
    assert chosen.rating == "trueskill-static"
    assert chosen.fingerprint == TournamentSpec.from_dict(base).fingerprint
    assert TournamentSpec.from_json(chosen.to_json()) == chosen
    with pytest.raises(SpecError, match="rating: 'glicko' is not one of trueskill"):
        TournamentSpec.from_dict(base | {"rating": "glicko"})


def test_finals_and_leaderboards_use_the_chosen_model(tmp_path):
    arena = Journey(tmp_path, columns=100)
    (tmp_path / "final.toml").write_text(
        'name = "final"\nvariant = "newyork"\nplayers = 2\nformat = "duplicate"\ngames = 3\n'
        'bots = ["random", "greedy-claims", "ticket-by-ticket"]\nrating = "bradley-terry"\n'
    )
    done = arena("tournament", "run", "final.toml", "--in-process", "--no-progress")
    assert done.code == 0, done.text
    assert "final: standings (bradley-terry)" in done.out and "±" in done.out, done.out
    rows = [line.split()[0] for line in done.out.splitlines() if "±" in line]
    assert rows[0] == "ticket-by-ticket" and rows[-1] == "random", done.out
    for model in MODELS:
        board = arena("leaderboard", "--variant", "newyork", "--rating", model)
        assert board.code == 0 and "ticket-by-ticket" in board.out, board.text
    wrong = arena("leaderboard", "--variant", "newyork", "--rating", "glicko")
    assert wrong.code == 2 and "rating 'glicko' is not one of" in wrong.one_line_error()

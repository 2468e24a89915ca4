"""The sequential test of ``arena test``: its statistics (pure), its spec, its schedule and
keys, and its runner (in-process bots: the same games as through processes)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.referee.keys import MatchKey, RoleKey
from arena.tournament import sprt
from arena.tournament.executors import LocalExecutor
from arena.tournament.runner import TournamentRunner
from arena.tournament.schedule import fixed_schedule, sprt_groups, sprt_roles
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import ResultsStore

H = sprt.Hypotheses(0.0, 5.0, 0.05, 0.05)
WIDE = sprt.Hypotheses(0.0, 50.0, 0.05, 0.05)


def counts_strategy(players: int = 2):
    return st.lists(st.integers(0, 40), min_size=2 * players + 1, max_size=2 * players + 1).filter(
        lambda c: sum(c) >= 2
    )


@settings(max_examples=200, deadline=None)
@given(counts_strategy(), st.data())
def test_a_better_group_never_lowers_the_exact_ratio(counts, data):
    values = sprt.grid(2)
    movable = [i for i, c in enumerate(counts) if c and i < len(values) - 1]
    assume(movable)  # (every group in the best outcome: none can get better)
    low = data.draw(st.sampled_from(movable))
    high = data.draw(st.integers(low + 1, len(values) - 1))
    moved = list(counts)
    moved[low] -= 1
    moved[high] += 1
    exact = sprt.llr_exact
    assert exact(moved, values, H.s0, H.s1) >= exact(counts, values, H.s0, H.s1) - 1e-9


@settings(max_examples=200, deadline=None)
@given(counts_strategy(3))
def test_the_ratio_leans_to_the_hypothesis_nearer_the_mean(counts):
    values = sprt.grid(3)
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / sum(counts)
    for ratio in (
        sprt.llr(counts, values, WIDE.s0, WIDE.s1),
        sprt.llr_exact(counts, values, WIDE.s0, WIDE.s1),
    ):
        if mean >= WIDE.s1:
            assert ratio > 0
        elif mean <= WIDE.s0:
            assert ratio < 0


@settings(max_examples=200, deadline=None)
@given(counts_strategy(4))
def test_the_ratio_is_finite_and_its_sign_is_the_regularised_mean_s(counts):
    """The regularising group keeps the variance above 0 whatever was seen: never an
    infinite or undefined ratio, and it is positive exactly when the regularised mean is
    nearer s1 than s0."""
    values = sprt.grid(4)
    ratio = sprt.llr(counts, values, H.s0, H.s1)
    assert math.isfinite(ratio)
    n = sum(counts) + sprt.PRIOR_GROUPS
    mean = (sum(c * v for c, v in zip(counts, values, strict=True)) + sprt.PRIOR_GROUPS / 2) / n
    middle = (H.s0 + H.s1) / 2
    if abs(mean - middle) > 1e-9:
        assert (ratio > 0) == (mean > middle)


def test_the_ratio_agrees_with_the_exact_one_once_groups_vary():
    values = sprt.grid(2)
    counts = [30, 120, 300, 140, 40]  # a pentanomial spread, mean a little above 0.5
    normal, exact = sprt.llr(counts, values, H.s0, H.s1), sprt.llr_exact(counts, values, H.s0, H.s1)
    assert normal == pytest.approx(exact, rel=0.02)


def test_a_bot_that_wins_every_group_is_decided_in_tens_of_games():
    """No spread is strong evidence: all wins decide +5 Elo's test within 50 groups (the
    exact ratio, blind to the spread, would need ln(s1/s0) a group: over 200). Constant
    draws (a deterministic bot against itself) lean to H0, at +50 Elo's test within 25
    groups (a draw is half as far from the middle of s0 and s1 as a win). Two wins in a row
    decide nothing: the regularising group is a spread as wide as a score can have."""
    values = sprt.grid(2)
    won = sprt.sequential([1.0] * 1000, H, 2)
    assert won.accepted == "H1" and won.groups < 50
    drawn = sprt.sequential([0.5] * 1000, WIDE, 2)
    assert drawn.accepted == "H0" and drawn.groups < 25
    assert sprt.sequential([1.0, 1.0], H, 2).accepted is None
    assert sprt.llr_exact([0, 0, 0, 0, 10], values, H.s0, H.s1) == pytest.approx(
        10 * math.log(H.s1 / H.s0), rel=1e-3
    )
    four = sprt.sequential([1.0] * 1000, H, 4)
    assert four.accepted == "H1" and four.groups < 50


def test_the_verdict_is_that_of_the_first_crossing_in_order():
    scores = [1.0] * 30 + [0.0] * 100  # groups played ahead after the crossing
    first = sprt.sequential(scores, WIDE, 2)
    assert first.accepted == "H1"
    assert sprt.sequential(scores[: first.groups], WIDE, 2) == first
    assert sprt.sequential([0.0] * 30, WIDE, 2).accepted == "H0"
    assert sprt.sequential([0.5, 0.25, 0.75], WIDE, 2).accepted is None
    with pytest.raises(ValueError, match="grid"):
        sprt.sequential([0.3], WIDE, 2)


def test_group_scores_are_head_to_head_results():
    assert sprt.group_score([(1, 2), (2, 1)]) == 0.5
    assert sprt.group_score([(1, 3), (2, 3), (3, 3), (4, 1)]) == 0.625
    assert sprt.grid(4)[5] == 0.625


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"elo0": 5, "elo1": 0}, "greater than elo0"),
        ({"elo0": 0, "elo1": 0}, "greater than elo0"),
        ({"alpha": 0}, "alpha must lie"),
        ({"beta": 0.7}, "beta must lie"),
        ({"elo1": math.inf}, "finite"),
        ({"elo1": 5000}, "2000"),
    ],
)
def test_impossible_hypotheses_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(sprt.BadHypotheses, match=message):
        sprt.Hypotheses(**kwargs)


def test_estimates_read_as_elo_with_an_interval():
    assert sprt.score_of_elo(0) == 0.5 and sprt.elo_of_score(sprt.score_of_elo(120)) == (
        pytest.approx(120)
    )
    balanced = sprt.estimate([0.5, 0.75, 0.25, 0.5] * 25)
    assert balanced.text() == f"+0 ± {(balanced.high - balanced.low) / 2:.0f} Elo"
    assert sprt.estimate([1.0] * 5).text().startswith("+inf Elo (95%: +")
    assert sprt.fixed_groups(H, 0.0625) > 10_000  # 5 Elo is a small difference


# ---------------------------------------------------------------- spec, schedule, keys


def spec(**changes) -> TournamentSpec:
    fields = {
        "name": "t",
        "variant": "newyork",
        "bots": ("ticket-by-ticket", "random"),
        "players": (2,),
        "format": "sprt",
        "games": 400,
        "seed": 3,
        "sprt": WIDE,
    }
    return TournamentSpec(**(fields | changes))


def test_a_test_keeps_its_hypotheses_in_its_description_and_others_are_unchanged():
    s = spec()
    assert TournamentSpec.from_json(s.to_json()) == s
    assert s.fingerprint != spec(sprt=H).fingerprint  # a resume decides by the same ones
    other = TournamentSpec(name="r", variant="usa", bots=("random", "greedy-claims"), players=(2,))
    assert "sprt" not in other.to_json()  # fingerprints of other formats stay as they were
    from_file = TournamentSpec.from_dict(
        {
            "name": "f",
            "variant": "newyork",
            "bots": ["random", "random", "greedy-claims"],
            "players": 3,
            "format": "sprt",
            "games": 30,
            "sprt": {"elo1": 20},
        }
    )
    assert from_file.sprt == sprt.Hypotheses(0.0, 20.0)
    with pytest.raises(SpecError, match="elo1"):
        TournamentSpec.from_dict(from_file.to_json() | {"sprt": {"elo0": 3, "elo1": 1}})
    with pytest.raises(SpecError, match="NEW, BASE and 1 opponent"):
        spec(players=(3,))
    with pytest.raises(SpecError, match="format 'sprt'"):
        TournamentSpec(
            name="r", variant="usa", bots=("random", "greedy-claims"), players=(2,), sprt=H
        )


def test_deal_groups_share_a_deal_across_rotations_and_roles_follow_the_seats():
    s = spec(players=(3,), bots=("a", "b", "c"))
    groups = sprt_groups(s, 2, 2)
    assert [m.index for m in groups] == [6, 7, 8, 9, 10, 11]
    assert len({m.seed for m in groups[:3]}) == 1 and groups[0].seed != groups[3].seed
    for match in groups:
        roles = sprt_roles(match.index, 3)
        assert tuple(s.bots[r] for r in roles) == match.bots
    assert sprt_groups(s, 0, 3)[6:] == groups[:3]  # a group is the same whatever the wave


def test_only_a_test_keys_bot_seeds_by_role():
    secret = b"k" * 32
    plain, new, base = MatchKey(secret), RoleKey(secret, (0, 1)), RoleKey(secret, (1, 0))
    assert plain.game_seed(7) == new.game_seed(7) and plain.game_id(7, 0) == new.game_id(7, 0)
    assert new.bot_seed(7, 0, "g") != base.bot_seed(7, 0, "g")  # NEW and BASE in seat 0
    assert new.bot_seed(7, 0, "g") == RoleKey(secret, (0, 1)).bot_seed(7, 0, "g")
    assert plain.bot_seed(7, 0, "g") == MatchKey(secret).bot_seed(7, 0, "g")
    duplicate = TournamentSpec(
        name="d", variant="newyork", bots=("random", "greedy-claims"), players=(2,)
    )
    assert len(fixed_schedule(duplicate)) == 2  # other formats: no roles, plain keys


# ---------------------------------------------------------------- the runner


def run(s: TournamentSpec, folder, workers: int = 1, stop_after: int | None = None):
    store = ResultsStore(folder)
    with LocalExecutor(workers) as executor:
        runner = TournamentRunner(
            s,
            store,
            executor,
            folder,
            show_progress=False,
            in_process=True,
            should_stop=(lambda: len(store.done_indices(1)) >= stop_after) if stop_after else None,
        )
        runner.run()
    results = {r.idx: (r.bots, r.scores, r.ranks) for r in store.results(s.name, details=False)}
    store.close()
    return runner, results


def test_the_verdict_is_the_same_with_any_worker_count_and_after_a_resume(tmp_path):
    s = spec()
    one, played_one = run(s, tmp_path / "one")
    two, played_two = run(s, tmp_path / "two", workers=2)
    assert one.verdict is not None and one.verdict.accepted == "H1"
    assert two.verdict == one.verdict
    decided = range(one.verdict.groups * 2)
    assert {i: played_one[i] for i in decided} == {i: played_two[i] for i in decided}
    stopped, _ = run(s, tmp_path / "resumed", stop_after=4)
    assert stopped.stopped and stopped.verdict is not None and stopped.verdict.accepted is None
    resumed, played = run(s, tmp_path / "resumed")
    assert resumed.verdict == one.verdict
    assert {i: played[i] for i in decided} == {i: played_one[i] for i in decided}


def test_an_a_a_test_is_a_real_one_and_accepts_h0(tmp_path):
    """Two copies of the random bot get their own seeds in the same seat of the same deal,
    so their games differ (under one seed each pair would mirror exactly: 0.5 every time)."""
    runner, played = run(spec(bots=("random", "random"), sprt=sprt.Hypotheses(0, 100)), tmp_path)
    assert runner.verdict is not None and runner.verdict.accepted == "H0"
    groups = [(played[2 * g], played[2 * g + 1]) for g in range(runner.verdict.groups)]
    assert any(a[1] != tuple(reversed(b[1])) for a, b in groups), "the games mirror each other"


@settings(max_examples=200, deadline=None)
@given(counts_strategy(4), st.floats(0.05, 0.95))
def test_the_constrained_fit_is_a_distribution_with_the_asked_mean(counts, mean):
    values = sprt.grid(4)
    regular = [c + sprt.EPSILON for c in counts]
    fitted = sprt._constrained([c / sum(regular) for c in regular], values, mean)
    assert all(p > 0 for p in fitted) and sum(fitted) == pytest.approx(1.0)
    assert sum(p * v for p, v in zip(fitted, values, strict=True)) == pytest.approx(mean, abs=1e-6)

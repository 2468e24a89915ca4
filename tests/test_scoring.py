"""Scoring: tickets, the exact longest path, the bonus, ranks and every tie-break."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.result import GameResult
from arena.engine.scoring import (
    competition_ranks,
    component_labels,
    components,
    connected,
    longest_trail,
)
from tests.helpers import finish, position, route_id, started


def brute_force_trail(edges):
    """Longest trail by trying every ordering of every subset of edges (tiny graphs only)."""
    best = 0
    for size in range(1, len(edges) + 1):
        for subset in itertools.permutations(range(len(edges)), size):
            for start in (edges[subset[0]][0], edges[subset[0]][1]):
                node, total, ok = start, 0, True
                for i in subset:
                    a, b, length = edges[i]
                    if node == a:
                        node = b
                    elif node == b:
                        node = a
                    else:
                        ok = False
                        break
                    total += length
                if ok:
                    best = max(best, total)
    return best


def test_longest_trail_simple_path_and_branches():
    assert longest_trail([]) == 0
    assert longest_trail([(0, 1, 3)]) == 3
    # A "Y": the longest path uses the two longest arms.
    assert longest_trail([(0, 1, 2), (0, 2, 5), (0, 3, 4)]) == 9


def test_longest_trail_loop_counts_every_edge():
    triangle = [(0, 1, 1), (1, 2, 2), (2, 0, 3)]
    assert longest_trail(triangle) == 6
    # A loop with a tail: go round the loop and out along the tail.
    assert longest_trail([*triangle, (2, 3, 4)]) == 10


def test_longest_trail_may_pass_a_city_twice_but_no_route_twice():
    figure_eight = [(0, 1, 1), (1, 2, 1), (2, 0, 1), (0, 3, 1), (3, 4, 1), (4, 0, 1)]
    assert longest_trail(figure_eight) == 6
    # Two separate components: the longer one counts.
    assert longest_trail([(0, 1, 2), (5, 6, 6), (6, 7, 1)]) == 7


@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 6)).filter(
            lambda e: e[0] != e[1]
        ),
        max_size=6,
    )
)
def test_longest_trail_matches_brute_force(edges):
    assert longest_trail(edges) == brute_force_trail(edges)


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=14))
def test_component_labels_join_the_nodes_components_joins(edges):
    """The list labels the end of a game scores tickets with say what ``components`` says."""
    comp = components(edges)
    label = component_labels(10, edges)
    for a in range(10):
        assert (label[a] >= 0) == (a in comp)
        for b in range(10):
            assert (label[a] >= 0 and label[a] == label[b]) == connected(comp, a, b)


def test_competition_ranks_share_ties():
    assert competition_ranks([(10,), (20,), (10,), (5,)]) == [2, 1, 2, 4]


def rows(*totals_and_stats):
    return [
        {"routes": total, "completed_tickets": done, "longest_path": path}
        for total, done, path in totals_and_stats
    ]


def test_tie_break_most_completed_tickets_then_longest_path_then_shared():
    result = GameResult.from_breakdown(
        rows((50, 2, 10), (50, 3, 5), (50, 2, 12), (50, 2, 12), (60, 0, 0)),
        ("routes",),
        ("completed_tickets", "longest_path"),
    )
    assert result.ranks == (5, 2, 3, 3, 1)
    assert result.winners == (4,)


def ticket_id(state, a, b):
    for t in state.board.tickets:
        if {t.a, t.b} == {a, b}:
            return t.id
    raise KeyError((a, b))


def score(players, routes=(), tickets=()):
    """The result of a USA game that ends with these routes (seat, a, b[, colour]) claimed
    and these tickets (seat, a, b) held, and nothing else."""
    state = started(players)
    ids = [(seat, route_id(state, *ends)) for seat, *ends in routes]
    held = [(seat, ticket_id(state, a, b)) for seat, a, b in tickets]

    def change(data):
        for seat, route in ids:
            data["routes"][seat].append(route)
        for seat, ticket in held:
            data["ticket_deck"].remove(ticket)
            data["tickets"][seat].append(ticket)

    return finish(state, change)


DENVER_EL_PASO = [(0, "denver", "santa-fe"), (0, "el-paso", "santa-fe")]  # 2 + 2, path 4


def test_tickets_add_when_connected_and_subtract_when_not():
    # Seat 0 connects Denver-El Paso via Santa Fe (ticket Denver-El Paso, 4 points).
    both = [(0, "denver", "el-paso"), (1, "denver", "el-paso")]
    result = score(2, DENVER_EL_PASO, both[:1])
    a, _ = result.breakdown
    assert a["tickets_completed"] == 4 and a["tickets_failed"] == 0 and a["completed_tickets"] == 1
    result = score(2, DENVER_EL_PASO, both[1:])
    _, b = result.breakdown
    assert b["tickets_completed"] == 0 and b["tickets_failed"] == -4 and b["failed_tickets"] == 1


def test_another_players_route_does_not_connect_a_ticket():
    routes = [(0, "denver", "santa-fe"), (1, "el-paso", "santa-fe")]
    result = score(2, routes, [(0, "denver", "el-paso")])
    assert result.breakdown[0]["tickets_failed"] == -4


def test_totals_are_the_sum_of_the_breakdown_and_longest_path_bonus_is_shared_on_ties():
    routes = [(0, "denver", "santa-fe"), (1, "el-paso", "santa-fe"), (2, "atlanta", "nashville")]
    result = score(3, routes)
    bonus = [row["longest_path_bonus"] for row in result.breakdown]
    assert bonus == [10, 10, 0]
    for row in result.breakdown:
        assert row["total"] == sum(row[c] for c in result.categories)
    assert result.ranks == (1, 1, 3)


def test_equal_totals_rank_by_completed_tickets():
    # Seat 1: routes worth 8 and a path of 4 too: 8 + 10 == 4 + 4 + 10.
    others = [
        (1, "atlanta", "charleston"),
        (1, "charleston", "raleigh"),
        (1, "montreal", "toronto"),
    ]
    result = score(2, DENVER_EL_PASO + others, [(0, "denver", "el-paso")])
    assert result.scores == (18, 18)
    assert result.ranks == (1, 2)


def test_equal_totals_and_tickets_rank_by_longest_path():
    # Seat 1: 14 points in four routes apart, paths of 3 at most; seat 0: 4 + the bonus.
    others = [
        (1, "montreal", "toronto"),
        (1, "los-angeles", "phoenix"),
        (1, "chicago", "duluth"),
        (1, "atlanta", "charleston"),
    ]
    result = score(2, DENVER_EL_PASO + others)
    assert result.scores == (14, 14)
    assert [row["longest_path"] for row in result.breakdown] == [4, 3]
    assert result.ranks == (1, 2)


def test_no_bonus_when_nobody_has_a_route():
    result = score(2)
    assert [r["longest_path_bonus"] for r in result.breakdown] == [0, 0]
    assert result.ranks == (1, 1)


@pytest.mark.parametrize("seed", range(3))
def test_real_game_longest_paths_match_brute_force_on_small_players(seed):
    import random

    from arena.variants import new_game

    state = new_game("usa", 5, seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    board = state.board
    for seat, row in enumerate(state.result().breakdown):
        routes = [r - 1 for r in position(state)["routes"][seat]]
        edges = [(board.route_a[r], board.route_b[r], board.route_length[r]) for r in routes]
        assert row["longest_path"] == longest_trail(edges)
        if len(edges) <= 7:
            assert row["longest_path"] == brute_force_trail(edges)

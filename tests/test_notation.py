"""The action notation: every action round-trips; bad text gets a clear error."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine import (
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    NotationError,
    Pass,
    parse_action,
)
from tests.helpers import started

actions = st.one_of(
    st.builds(DrawCard, st.none() | st.integers(0, 20)),
    st.builds(
        ClaimRoute,
        st.integers(1, 200),
        st.sampled_from(["red", "blue", "pink", "green"]),
        st.integers(0, 5),
    ),
    st.integers(1, 8).map(lambda n: ClaimRoute(7, None, n)),
    st.just(DrawTickets()),
    st.just(Pass()),
    st.sets(st.integers(0, 5), min_size=1).map(lambda s: KeepTickets(tuple(sorted(s)))),
)


@given(actions)
def test_format_then_parse_gives_the_same_action(action):
    assert parse_action(str(action)) == action


def test_examples_from_the_docs():
    assert parse_action("draw deck") == DrawCard(None)
    assert parse_action("draw 2") == DrawCard(2)
    assert parse_action("claim 57 red w2") == ClaimRoute(57, "red", 2)
    assert parse_action("claim 57 red w0") == ClaimRoute(57, "red", 0)
    assert str(ClaimRoute(57, "red", 0)) == "claim 57 red"
    assert parse_action("claim 57 w4") == ClaimRoute(57, None, 4)
    assert parse_action("tickets") == DrawTickets()
    assert parse_action("keep 0 2") == KeepTickets((0, 2))
    assert parse_action("  pass ") == Pass()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fly",
        "draw",
        "draw top",
        "draw -1",
        "claim",
        "claim x red",
        "claim 5 red 2",
        "claim 5 RED",
        "claim 5 red wx",
        "keep",
        "keep 2 1",
        "keep 1 1",
        "tickets 3",
        "pass now",
        "draw 1 2",
        "x" * 300,
    ],
)
def test_bad_text_is_a_notation_error(text):
    with pytest.raises(NotationError):
        parse_action(text)


def test_non_text_is_a_notation_error():
    with pytest.raises(NotationError):
        parse_action(42)  # type: ignore[arg-type]


def test_legal_actions_of_a_real_game_round_trip():
    state = started()
    for action in state.legal_actions():
        assert parse_action(str(action)) == action

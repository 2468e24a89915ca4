"""Fuzzing with hypothesis: the referee's message decoding, the action notation parser and
every variant's apply() against arbitrary input. No crash; every bad input is a clear,
typed error; a rejected action leaves the game untouched."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import IllegalActionError, NotationError
from arena.engine.actions import parse_action
from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import all_variants, new_game
from bots import get_bot
from bots.sdk import Bot
from protocols.messages import Action, Hello, ProtocolError, decode_from_bot, decode_from_referee

WORDS = [
    "draw",
    "deck",
    "claim",
    "tickets",
    "keep",
    "pass",
    "place",
    "token",
    "station",
    "pay",
    "withdraw",
    "play",
    "none",
    "red",
    "blue",
    "wild",
    "w0",
    "w1",
    "w2",
    "w99",
    "0",
    "1",
    "2",
    "57",
    "-1",
    "999999999999",
    "sunset",
    "wien",
    "x",
    "\x00",
    "é",
    "∞",
]
# Text that looks like the notation: joined words, numbers and near misses.
notation_like = st.lists(st.sampled_from(WORDS), min_size=0, max_size=5).map(" ".join)
any_text = st.one_of(st.text(max_size=60), notation_like)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=3000)
@given(any_text)
def test_the_notation_parser_never_crashes_and_round_trips_what_it_accepts(text):
    try:
        action = parse_action(text)
    except NotationError as error:
        assert str(error)  # a message saying what is wrong
        return
    assert parse_action(str(action)) == action


@settings(max_examples=2000)
@given(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["hello", "action", "act", "bye", "x"])},
        optional={
            "version": json_values,
            "seq": json_values,
            "action": json_values,
            "token": json_values,
            "name": json_values,
            "extra": json_values,
        },
    )
)
def test_decoding_message_shaped_json_gives_a_message_or_a_protocol_error(message):
    data = json.dumps(message).encode()
    try:
        decoded = decode_from_bot(data)
    except ProtocolError as error:
        assert error.code in ("malformed", "version", "oversize") and str(error)
        return
    assert isinstance(decoded, Hello | Action)


@settings(max_examples=500)
@given(st.binary(max_size=400))
def test_bots_decoding_arbitrary_bytes_from_a_referee_never_crash(data):
    try:
        decode_from_referee(data)
    except ProtocolError as error:
        assert error.code in ("malformed", "version", "oversize")


PLAYABLE = [name for name, variant in all_variants().items() if variant.playable]


@pytest.mark.parametrize("name", PLAYABLE)
@settings(max_examples=300)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 60), text=any_text)
def test_apply_takes_any_text_and_rejects_bad_input_without_a_trace(name, seed, steps, text):
    state = new_game(name, 2, seed)
    for _ in range(steps):  # somewhere into the game
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[(seed + state.turn) % len(legal)])
    if state.is_over:
        return
    before = state.fingerprint()
    legal = {str(a) for a in state.legal_actions()}
    try:
        state.apply(text)
    except (IllegalActionError, NotationError) as error:
        assert str(error)
        assert state.fingerprint() == before, "a rejected action changed the game"
        return
    assert str(parse_action(text)) in legal, "apply() accepted an action that is not legal"


class Babbler(Bot):
    """Answers with arbitrary text: the referee must charge it and finish the game."""

    def __init__(self, texts):
        super().__init__(0)
        self.texts = texts

    def choose(self, observation, legal_actions):
        return self.texts[observation["turn"] % len(self.texts)]


@settings(max_examples=40)
@given(st.lists(any_text, min_size=1, max_size=5))
def test_the_referee_charges_a_bot_answering_nonsense_and_finishes(texts):
    seats = [
        InProcessSeat(get_bot("random").factory("1:0"), "random"),
        InProcessSeat(Babbler(texts), "babbler"),
    ]
    outcome = Referee(all_variants()["usa"], seats, TimeControl()).play(3)
    assert outcome.result is not None
    for fault in outcome.faults:
        assert fault.seat == 1 and fault.code == "illegal"

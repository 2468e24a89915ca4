"""The protocol: schema up to date, decoding never crashes, bots see only their own secrets."""

from __future__ import annotations

import contextlib
import json
import re

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.process import ProcessLimits
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots.sdk import Bot
from protocols.gen_schema import SCHEMA_PATH, schema_text
from protocols.messages import (
    MAX_BOT_MESSAGE,
    MAX_NOTE,
    Act,
    Action,
    Hello,
    ProtocolError,
    decode_from_bot,
    decode_from_referee,
    encode,
)
from tests.referee_helpers import hostile, recorded
from tests.test_properties import hide_what_seat_cannot_see


def test_the_checked_in_schema_is_generated_from_messages_py():
    assert SCHEMA_PATH.read_text() == schema_text(), (
        "protocols/schema is stale: run 'python -m protocols.gen_schema'"
    )


def test_the_transcript_in_protocol_md_is_what_the_referee_really_says():
    """PROTOCOL.md's transcript is recorded from a real game (python -m tools.transcript
    --write); replaying it must give the same messages, the illegal claim rejected for the
    reason shown, and every message valid for the schema's types."""
    from tools import transcript

    def steady(text: str) -> str:  # the clocks are the only thing that may differ
        return re.sub(r'"(deadline_ms|bank_ms)":\d+', r'"\1":N', text)

    conversation = transcript.record()
    assert steady(transcript.documented()) == steady(transcript.render(conversation)), (
        "PROTOCOL.md's transcript is stale: run 'python -m tools.transcript --write'"
    )
    for who, message in conversation:
        raw = json.dumps(message).encode()
        if who == "bot":
            decode_from_bot(raw)
        else:
            decode_from_referee(raw)
    (error,) = [m for _, m in conversation if m["type"] == "error"]
    assert error["retry"] and "claim 99 red" in error["message"]


def test_messages_round_trip():
    hello = Hello(token="t", name="n")
    assert decode_from_bot(encode(hello)) == hello
    action = Action(seq=3, action="draw deck")
    assert json.loads(encode(action)) == {
        "type": "action",
        "version": 1,
        "seq": 3,
        "action": "draw deck",
    }


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "malformed"),
        (b"{", "malformed"),
        (b"[]", "malformed"),
        (b'{"type": "action"}', "malformed"),
        (b'{"type": "act", "version": 1}', "malformed"),
        (b'{"type": "action", "version": 1, "seq": "x", "action": "pass"}', "malformed"),
        (b'{"type": "action", "version": 9, "seq": 1, "action": "pass"}', "version"),
        (b"x" * (MAX_BOT_MESSAGE + 1), "oversize"),
        # Valid JSON but not UTF-8 inside a string: msgspec raises UnicodeDecodeError, which
        # once escaped the referee and voided the match (a losing bot's way out).
        (b'{"type": "action", "version": 1, "seq": 1, "action": "\xff\xfe"}', "malformed"),
        (b'{"type": "hello", "version": 1, "token": "\xc3", "name": "x"}', "malformed"),
        (b'{"type": "action", "version": 1, "seq": 1, "action": "\xed\xa0\x80"}', "malformed"),
    ],
)
def test_bad_messages_are_protocol_errors(data, code):
    with pytest.raises(ProtocolError) as error:
        decode_from_bot(data)
    assert error.value.code == code


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (b'{"type": "action", "version": 1, "seq": "7", "action": "draw deck"}', "$.seq"),
        (b'{"type": "action", "version": 1, "seq": 7, "action": ["draw deck"]}', "$.action"),
        (b'{"type": "hello", "version": 1, "token": 12, "name": "me"}', "$.token"),
        (b'{"type": "action", "version": "1", "seq": 7, "action": "pass"}', "$.version"),
        (b'{"type": "draw", "version": 1}', "$.type"),
    ],
)
def test_a_wrong_field_type_is_malformed_with_the_field_s_path(data, path):
    """Valid JSON of the wrong shape says which field is wrong (it used to say "not valid
    JSON", as if the bytes were the problem)."""
    with pytest.raises(ProtocolError) as error:
        decode_from_bot(data)
    assert error.value.code == "malformed"
    assert path in error.value.detail and "not valid JSON" not in error.value.detail


def test_a_bot_sending_a_wrong_field_type_forfeits_with_the_path(tmp_path):
    from tests.test_referee import play

    outcome = play(["random", hostile("badtype")], tmp_path=tmp_path)
    (fault,) = outcome.faults
    assert fault.code == "malformed" and "$.seq" in fault.detail


@given(st.binary(max_size=300))
def test_decoding_arbitrary_bytes_never_crashes(data):
    with contextlib.suppress(ProtocolError):
        decode_from_bot(data)


@given(st.sampled_from(["action", "token", "name", "type"]), st.binary(max_size=40))
def test_arbitrary_bytes_inside_a_valid_message_never_crash(field, data):
    """Arbitrary bytes rarely make valid JSON; these are a well-formed message whose one
    string holds any bytes at all (invalid UTF-8, control characters, quotes)."""
    fields = {"type": b'"action"', "version": b"1", "seq": b"5", "action": b'"pass"'}
    if field in ("token", "name"):
        fields = {"type": b'"hello"', "version": b"1", "token": b'"t"', "name": b'"n"'}
    fields[field] = b'"' + data + b'"'
    message = b"{" + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in fields.items()) + b"}"
    with contextlib.suppress(ProtocolError):
        decode_from_bot(message)


def test_bots_are_sent_nothing_they_may_not_know(tmp_path):
    """Record every message to every seat over several games and check each observation."""
    import random

    from arena.referee.matchlog import MatchLog
    from arena.variants import new_game

    entries = [BotEntry.parse(hostile("record", "seat.jsonl")) for _ in range(4)]
    tc = TimeControl(move_ms=2000, bank_ms=5000)
    limits = ProcessLimits(log_bytes=64 * 2**20)  # the recordings are the bots' stdout
    with ProcessMatch(get_variant("usa"), entries, tc, limits, log_dir=tmp_path) as referee:
        outcomes = [referee.play(seed) for seed in (21, 22, 23)]
    texts = [recorded(tmp_path, s, "seat.jsonl") for s in range(4)]
    received = [[json.loads(line) for line in text.splitlines()] for text in texts]
    rng = random.Random(0)
    checked = 0
    for outcome in outcomes:
        log = MatchLog.from_jsonl(outcome.log.to_jsonl())
        state = new_game("usa", 4, log.header["seed"])
        acts = [
            [m for m in messages if m["type"] == "act" and m["game_id"] == log.header["game_id"]]
            for messages in received
        ]
        position = [0] * 4
        for line in log.actions:
            seat = line["seat"]
            typed = Act[get_variant("usa").observation_type]  # the wire JSON, typed
            message = msgspec.convert(acts[seat][position[seat]], typed, str_keys=True)
            position[seat] += 1
            assert message.observation == state.observation(seat)
            hidden = hide_what_seat_cannot_see(state, seat, rng)
            assert message.observation == hidden.observation(seat)
            assert message.legal == [str(a) for a in state.legal_actions()]
            state.apply(line["action"])
            checked += 1
    assert checked > 500


def test_game_start_carries_the_printed_board(tmp_path):
    entries = [BotEntry.parse("random"), BotEntry.parse(hostile("record", "rec.jsonl"))]
    with ProcessMatch(get_variant("usa"), entries, TimeControl(), log_dir=tmp_path) as referee:
        referee.play(1)
    text = recorded(tmp_path, 1, "rec.jsonl")
    start = next(json.loads(line) for line in text.splitlines() if '"game_start"' in line)
    board = start["board"]
    assert len(board["routes"]) == 100 and len(board["cities"]) == 36
    assert len(board["tickets"]) == 30 and board["route_points"]["6"] == 15
    assert board["routes"][0] == {
        "id": 1,
        "a": "atlanta",
        "b": "charleston",
        "length": 2,
        "color": "gray",
        "tunnel": False,
        "locomotives": 0,
    }


def test_command_line_bots_can_be_labelled():
    entry = BotEntry.parse("mine=cmd:node bot.js --fast")
    assert (entry.name, entry.command, entry.labelled) == (
        "mine",
        ("node", "bot.js", "--fast"),
        True,
    )
    plain = BotEntry.parse("cmd:node bot.js")
    assert (plain.name, plain.labelled) == ("bot", False)


class _Noting(Bot):
    """A bot that says why: each action with a note, one of them too long to keep whole."""

    name = "noting"

    def choose(self, observation, legal_actions):
        self.note(f"turn {observation.turn}, seat {self.seat} of {self.variant_name}" + "!" * 600)
        return legal_actions[0]


def test_a_bot_note_rides_with_its_action_into_the_match_log_capped():
    """A bot may attach a short note to an action (protocol ``action.note``, at most
    MAX_NOTE characters: a longer one is malformed); the SDK cuts it, the log keeps it."""
    note = "x" * MAX_NOTE
    assert decode_from_bot(encode(Action(seq=1, action="draw deck", note=note))).note == note
    with pytest.raises(ProtocolError, match=f"length <= {MAX_NOTE}"):
        decode_from_bot(encode(Action(seq=1, action="draw deck", note=note + "x")))
    assert "note" not in json.loads(encode(Action(seq=1, action="draw deck")))
    seats = [InProcessSeat(_Noting(0), "noting"), InProcessSeat(_Noting(1), "noting")]
    outcome = Referee(get_variant("usa"), seats, TimeControl()).play(5)
    notes = [line.get("note") for line in outcome.log.actions]
    assert all(n and len(n) == MAX_NOTE for n in notes)
    assert notes[0].startswith(f"turn 0, seat {outcome.log.actions[0]['seat']} of usa!")

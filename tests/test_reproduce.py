"""Reproducing a stored match from its bundle: real tournaments, real bot processes, the real
referee; ``arena tournament bundle`` and ``arena replay --reproduce`` run as a user runs them.

A tournament of deterministic bots (built-in ones and a registered file bot) is played
once for the module; a sample of its matches is bundled and played again: each is
identical. A changed copy of the registered bot is named at its first changed decision; a
bot that timed out has its clock drawn; a bundle that is not intact is one line, exit 2.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import sys
from pathlib import Path

import msgspec
import pytest

from arena.referee.keys import MAX_SEQ, MatchKey, RecordedKey
from arena.tournament.bundle import Bundle, bundle_json, encode, load_bundle
from arena.tournament.store import ResultsStore
from tests.journey import PYTHON_BOT, Journey

DIFFERS = re.compile(
    r"^differs: game (\w+), decision (\d+), seat (\d+), observation turn (\d+): "
    r"recorded '(.+)', replayed '(.+)'$"
)
CHANGED_DECISION = 5  # the changed copy of claim-first decides its 5th decision otherwise


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Journey:
    """A round robin of 2 and 4 players between three built-in deterministic bots and the
    example bot registered as ``claim-first`` (a file bot, stored with its code hash)."""
    journey = Journey(tmp_path_factory.mktemp("reproduce"))
    done = journey("submit", "claim-first", "--file", PYTHON_BOT, "--games", "1")
    assert done.code == 0, done.text
    done = journey(
        "tournament", "run", "--name", "rr", "--bot", "ticket-by-ticket", "--bot", "planner",
        "--bot", "greedy-claims", "--bot", "claim-first", "--players", "2", "--players", "4",
        "--workers", "2", "--no-progress",
    )  # fmt: skip
    assert done.code == 0, done.text
    return journey


def bundle(journey: Journey, tournament: str, index: int) -> Path:
    out = journey.folder / f"{tournament}-{index}.json"
    done = journey("tournament", "bundle", tournament, index, "-o", out)
    assert done.code == 0, done.text
    return out


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_a_sample_of_matches_reproduces_identically(played: Journey) -> None:
    rows = played.rows("SELECT idx, players, decisions FROM matches ORDER BY idx")
    assert len(rows) == 16  # 6 pairs in 2 seatings, 1 group of 4 in 4
    four = [row for row in rows if row[1] == 4]
    two = [row for row in rows if row[1] == 2]
    for index, _players, decisions in [*four[:2], *two[::4]][:5]:
        done = played("replay", "--reproduce", bundle(played, "rr", index))
        assert done.code == 0, done.text
        assert last_line(done.out) == f"identical: {decisions} decisions", done.text
        assert "claim-first@1" not in done.out or "registered here" in done.out, done.out


def test_a_changed_copy_of_a_bot_is_named_at_its_first_changed_decision(
    played: Journey, tmp_path: Path
) -> None:
    copy = tmp_path / "my-bot"
    shutil.copytree(PYTHON_BOT, copy)
    index = next(
        idx
        for idx, bots in played.rows("SELECT idx, bots FROM schedule ORDER BY idx")
        if "claim-first" in bots
    )
    path = bundle(played, "rr", index)
    recorded = load_bundle(path.read_bytes())
    seat = next(s.seat for s in recorded.seats if s.bot == "claim-first@1")

    same = played("replay", "--reproduce", path, "--bot", f"claim-first@1={copy}")
    assert same.code == 0, same.text
    assert f"seat {seat} 'claim-first@1' (version 1): your copy {copy}: the same code" in same.out
    assert last_line(same.out) == f"identical: {len(recorded.moves)} decisions"

    source = (copy / "bot.py").read_text().replace("def choose(", "def first_choice(")
    (copy / "bot.py").write_text(
        source
        + f"""
    def on_game_start(self, observation):
        self.asked = 0

    def choose(self, observation, legal_actions):
        self.asked += 1
        choice = self.first_choice(observation, legal_actions)
        if self.asked == {CHANGED_DECISION}:
            return next(a for a in reversed(legal_actions) if a != choice)
        return choice
"""
    )
    changed = played("replay", "--reproduce", path, "--bot", f"claim-first={copy}")
    assert changed.code == 1, changed.text
    assert "NOT the code the server ran" in changed.out
    found = DIFFERS.match(last_line(changed.out))
    assert found is not None, changed.out
    game, decision, at, turn, was, now = found.groups()
    own = [n for n, m in enumerate(recorded.moves, start=1) if m.seat == seat and m.by == "bot"]
    assert (game, int(decision), int(at)) == (recorded.game_id, own[CHANGED_DECISION - 1], seat)
    assert was == recorded.moves[int(decision) - 1].action and now != was
    assert int(turn) >= 0


def test_a_bundle_holds_the_match_s_derived_values_never_the_secret(played: Journey) -> None:
    path = bundle(played, "rr", 1)
    data = path.read_bytes()
    recorded = load_bundle(data)
    with ResultsStore(played.data, read_only=True) as store:  # as the host serves it
        assert bundle_json(store, recorded.match_id) == data
    with sqlite3.connect(played.data / "results.sqlite") as db:
        (secret,) = db.execute("SELECT secret FROM tournament_keys").fetchone()
        (schedule_seed,) = db.execute("SELECT seed FROM schedule WHERE idx = 1").fetchone()
    assert secret.hex().encode() not in data and secret not in data
    key = MatchKey(secret)  # the values are the ones the referee derived for this match
    assert recorded.game_seed == key.game_seed(schedule_seed)
    assert recorded.game_id == key.game_id(recorded.game_seed, 1)
    for seat in recorded.seats:
        assert seat.bot_seed == key.bot_seed(recorded.game_seed, seat.seat, recorded.game_id)
    assert recorded.seqs == [key.seq(recorded.game_id, r) for r in range(1, len(recorded.seqs) + 1)]
    # every decision a bot made was a request: each has its number
    assert len(recorded.seqs) >= sum(move.by == "bot" for move in recorded.moves)


def test_a_recorded_key_answers_as_the_secret_key_did() -> None:
    key = MatchKey(b"k" * 32)
    game_id = key.game_id(77, 1)
    seeds = tuple(key.bot_seed(77, seat, game_id) for seat in range(3))
    recorded = RecordedKey(game_id, seeds, tuple(key.seq(game_id, r) for r in range(1, 11)))
    assert recorded.game_id(77, 1) == game_id
    assert [recorded.bot_seed(77, s, game_id) for s in range(3)] == list(seeds)
    assert [recorded.seq(game_id, r) for r in range(1, 11)] == [
        key.seq(game_id, r) for r in range(1, 11)
    ]
    beyond = recorded.seq(game_id, 11)  # past the record: still a valid request number
    assert 1 <= beyond <= MAX_SEQ and beyond != key.seq(game_id, 11)
    with pytest.raises(ValueError):
        recorded.bot_seed(77, 0, "another-game")


SLEEPY = """
import time

from bots.sdk import Bot


class Sleepy(Bot):
    name = "sleepy"

    def on_game_start(self, observation):
        self.asked = 0

    def choose(self, observation, legal_actions):
        self.asked += 1
        if self.asked == 4:
            time.sleep(8)  # far past the move time and the bank
        for action in legal_actions:
            if str(action).startswith("claim"):
                return action
        return legal_actions[0]
"""


def test_a_bot_that_timed_out_has_its_clock_drawn(tmp_path: Path) -> None:
    journey = Journey(tmp_path)
    sleepy = tmp_path / "sleepy.py"
    sleepy.write_text(SLEEPY)
    done = journey(
        "tournament", "run", "--name", "slow", "--bot", "greedy-claims",
        "--bot", f"sleepy=cmd:{sys.executable} -m bots.filebot {sleepy}", "--players", "2",
        "--move-ms", "1000", "--bank-ms", "1000", "--no-progress",
    )  # fmt: skip
    assert done.code == 0, done.text
    path = bundle(journey, "slow", 0)
    recorded = load_bundle(path.read_bytes())
    (fault,) = recorded.faults
    seat = fault.seat
    assert (fault.code, recorded.seats[seat].bot) == ("timeout", "sleepy")

    missing = journey("replay", "--reproduce", path)  # not built in, not registered
    assert missing.code == 2
    assert "--bot sleepy=PATH" in missing.one_line_error()

    chart = tmp_path / "clock.png"
    done = journey("replay", "--reproduce", path, "--bot", f"sleepy={sleepy}", "--chart", chart)
    assert done.code == 0, done.text
    lines = done.out.splitlines()
    title = f"seat {seat} 'sleepy' (timeout at decision {fault.decision + 1}): move time 1000 ms"
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    steps = lines[start + 1 : start + 5]  # its four decisions, the last one forfeited
    assert [int(line.split()[0][1:]) for line in steps] == [
        n for n, m in enumerate(recorded.moves, start=1) if m.seat == seat
    ][:4]
    assert steps[-1].endswith("TIMEOUT") and "bank        0 ms" in steps[-1]
    timed_out = recorded.moves[int(steps[-1].split()[0][1:]) - 1]
    assert ("▒" in steps[-1]) == (timed_out.ms > 1000)  # past the move time: from the bank
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert last_line(done.out) == f"identical: {len(recorded.moves)} decisions"


def test_a_bundle_that_is_not_intact_is_one_line_and_exit_2(
    played: Journey, tmp_path: Path
) -> None:
    path = bundle(played, "rr", 0)
    good = load_bundle(path.read_bytes())
    raw = msgspec.json.decode(path.read_bytes())

    def attempt(name: str, data: bytes, expected: str) -> None:
        target = tmp_path / name
        target.write_bytes(data)
        done = played("replay", "--reproduce", target)
        assert done.code == 2, done.text
        assert expected in done.one_line_error(), done.err
        assert done.out == ""  # refused before anything was played

    edited = raw | {"moves": [raw["moves"][0] | {"action": "draw deck"}, *raw["moves"][1:]]}
    attempt("edited.json", msgspec.json.encode(edited), "altered or damaged")
    version_2 = msgspec.json.encode(raw | {"bundle": 2})
    attempt("v2.json", version_2, "of version 2: this arena reads version 1")
    attempt("cut.json", path.read_bytes()[:200], "not JSON")
    attempt("log.json", b'{"type": "header"}', "no 'bundle' version field")
    attempt("extra.json", msgspec.json.encode(raw | {"secret": "x"}), "not a valid match bundle")
    resealed = msgspec.structs.replace(good, scores=[s + 1 for s in good.scores])
    attempt("resealed.json", encode(resealed), "not its recorded")
    unknown = msgspec.structs.replace(good, variant="atlantis")
    attempt("variant.json", encode(unknown), "'atlantis', which is not installed here")

    done = played("replay", "--reproduce", path, "--bot", "nobody=x.py")
    assert done.code == 2 and "no seat of this match plays 'nobody'" in done.one_line_error()
    done = played("tournament", "bundle", "rr", 999, "-o", tmp_path / "b.json")
    assert done.code == 2 and "no finished match 999" in done.one_line_error()
    done = played("tournament", "bundle", "nope", 0, "-o", tmp_path / "b.json")
    assert done.code == 2 and "no tournament named 'nope'" in done.one_line_error()
    assert isinstance(good, Bundle)

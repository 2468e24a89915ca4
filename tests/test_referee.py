"""The referee with real bot processes and real sockets: games, faults, reaping, logs."""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import threading
import time

import pytest

from arena.referee.containment import PROCESS_GROUP, pid_namespace
from arena.referee.faults import TimeControl
from arena.referee.gamelog import LogError
from arena.referee.keys import MatchKey
from arena.referee.launch import BotEntry, ProcessMatch, in_process_referee
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant
from tests.journey import HANG_S, as_from_a_terminal
from tests.referee_helpers import HOSTILE, hostile, left_behind, processes_with, recorded

USA = get_variant("usa")
# Where a bot must be charged a time-out, in seconds: a hung or slow bot is charged within
# 2 s, while an honest one on a loaded machine would need a second's wait for a core on top
# of its bank's second, move after move (at 0.3 s a move and a 0.7-s bank, under two CPU
# burners, an honest seat was charged now and then).
FAST = TimeControl(move_ms=1000, bank_ms=1000, handshake_ms=15000, retries=2)
# Where none may be: an honest bot on a loaded machine (CI runners, other tests' processes)
# can wait a second for a core; a second is a fault under FAST, never under this.
CALM = TimeControl(move_ms=5000, bank_ms=5000, handshake_ms=15000, retries=2)
# CALM, with a bot that never says a valid hello charged as a no-show at 10 s.
NO_SHOW = dataclasses.replace(CALM, handshake_ms=10000)


def play(bots, seed=1, tc=CALM, tmp_path=None, games=1, key=None, limits=None, variant=USA):
    entries = [BotEntry.parse(b) for b in bots]
    with ProcessMatch(variant, entries, tc, limits, log_dir=tmp_path, key=key) as referee:
        outcomes = [referee.play(seed + g) for g in range(games)]
    assert not left_behind(str(HOSTILE)), "a bot process was left running"
    return outcomes if games > 1 else outcomes[0]


def check_complete(outcome, forfeited: dict[int, str]):
    """The game finished, replays, and exactly the given seats forfeited with those codes."""
    assert {f.seat: f.code for f in outcome.faults} == forfeited
    log = MatchLog.from_jsonl(outcome.log.to_jsonl())
    assert verify(log).is_over
    last = len(outcome.ranks) - len(forfeited) + 1
    for seat in forfeited:
        assert outcome.ranks[seat] == last, "a forfeit ranks last"
    for seat in range(len(outcome.ranks)):
        if seat not in forfeited:
            assert outcome.ranks[seat] < last
    return log


def test_a_full_game_with_four_bot_processes(tmp_path):
    outcome = play(["random"] * 4, seed=7, tmp_path=tmp_path)
    log = check_complete(outcome, {})
    assert all(a["by"] == "bot" for a in log.actions)
    assert [s["bot"] for s in log.header["seats"]] == ["random"] * 4


def test_the_in_process_path_plays_the_same_game_as_the_zmq_path(tmp_path):
    key = MatchKey(b"the same secret on both paths")
    for seed in (3, 11):
        remote = play(["random"] * 4, seed=seed, tmp_path=tmp_path, key=key)
        local = in_process_referee(USA, [BotEntry.parse("random")] * 4, CALM, key).play(seed)
        assert [a["action"] for a in remote.log.actions] == [a["action"] for a in local.log.actions]
        assert remote.result == local.result and remote.ranks == local.ranks


def test_one_connection_plays_several_games(tmp_path):
    outcomes = play(
        ["random", "random", hostile("record", "rec.jsonl")],
        seed=5,
        tmp_path=tmp_path,
        games=3,
    )
    assert [o.log.header["seed"] for o in outcomes] == [5, 6, 7]
    lines = recorded(tmp_path, 2, "rec.jsonl").splitlines()
    kinds = [line.split('"type":"', 1)[1].split('"', 1)[0] for line in lines]
    assert kinds.count("game_start") == 3 and kinds.count("game_over") == 3
    assert kinds[:2] == ["welcome", "game_start"]
    for outcome in outcomes:
        check_complete(outcome, {})


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("crash-start", "crash"),
        ("crash-mid 5", "crash"),
        ("hang", "timeout"),
        ("slow 1.6", "timeout"),
        ("garbage", "malformed"),
        ("badutf8", "malformed"),
        ("oversize 200000", "oversize"),
        ("illegal", "illegal"),
        ("wrong-token", "no-show"),
    ],
)
def test_each_fault_forfeits_and_the_others_finish(mode, code, tmp_path):
    bot = hostile(*mode.split(" ", 1))
    # FAST where a time-out is the point; else no honest seat may be charged one.
    tc = {"timeout": FAST, "no-show": NO_SHOW}.get(code, CALM)
    outcome = play(["random", bot, "random"], seed=2, tc=tc, tmp_path=tmp_path)
    log = check_complete(outcome, {1: code})
    fallback = [a for a in log.actions if a["seat"] == 1 and a["by"] == "fallback"]
    assert fallback, "the forfeited seat's turns are played by the fallback policy"
    assert all(a["by"] == "bot" for a in log.actions if a["seat"] != 1)


def test_illegal_actions_get_errors_naming_the_rule_before_the_forfeit(tmp_path):
    outcome = play(["random", hostile("illegal")], seed=4, tmp_path=tmp_path)
    (fault,) = outcome.faults
    assert fault.code == "illegal" and "after 2 retries" in fault.detail
    assert "claim 999 red" in fault.detail


def test_a_bot_leaving_a_child_process_behind_is_reaped(tmp_path):
    marker = f"ttr-arena-child-{random.randrange(10**9)}"
    outcome = play(["random", hostile("child", marker)], seed=8, tmp_path=tmp_path)
    check_complete(outcome, {})
    assert not left_behind(marker), "the bot's child process survived the match"


def test_bot_output_is_captured_with_a_size_cap(tmp_path):
    from arena.referee.process import ProcessLimits

    entries = [
        BotEntry.parse("random"),
        BotEntry.parse("cmd:/bin/sh -c 'head -c 3000000 /dev/zero | tr \"\\0\" x; exit 1'"),
    ]
    limits = ProcessLimits(log_bytes=10000)
    with ProcessMatch(USA, entries, CALM, limits, log_dir=tmp_path) as referee:
        outcome = referee.play(1)
    assert outcome.faults[0].code == "crash"
    (stdout,) = list(tmp_path.rglob("seat1-*.stdout"))
    text = stdout.read_text()
    assert text.startswith("x" * 10000) and "bytes dropped at the 10000-byte cap" in text
    assert len(text) < 10200


def test_a_timeout_says_what_the_bot_s_processes_were_doing(tmp_path):
    """A timeout's detail tells a bot that never answered from one that could not run: its
    processes' states (``S``: sleeping, able to run) and whether its cgroup was frozen
    (and asked to be) at the deadline."""
    from arena.referee.cgroup import usable_parent

    outcome = play(["random", hostile("hang")], tc=FAST, tmp_path=tmp_path)
    (fault,) = outcome.faults
    assert fault.code == "timeout" and "its processes: " in fault.detail, fault.detail
    states = fault.detail.split("its processes: ", 1)[1]
    assert states[:1] in ("S", "R", "D"), fault.detail  # alive and not stopped
    if usable_parent() is not None:
        assert "frozen 0, asked 0" in fault.detail, fault.detail


def test_a_bot_s_log_is_written_as_it_comes_not_when_it_ends(tmp_path):
    """While a bot hangs mid-game, what it wrote is already in its log file (it used to reach
    the file only when the pipe closed: at the end, or never while a child held it open)."""
    entries = [BotEntry.parse("random"), BotEntry.parse(hostile("hang"))]
    outcomes = []

    def run() -> None:
        with ProcessMatch(USA, entries, TimeControl(4000, 0), log_dir=tmp_path) as referee:
            outcomes.append(referee.play(1))

    match = threading.Thread(target=run)
    match.start()
    text, deadline = "", time.monotonic() + 15
    while "hostile hang started" not in text and time.monotonic() < deadline:
        logs = list(tmp_path.rglob("seat1-*.stderr"))
        text = logs[0].read_text() if logs else ""
        time.sleep(0.05)
    hanging = match.is_alive()
    match.join()
    assert hanging and "hostile hang started" in text, "the log was empty while the bot ran"
    check_complete(outcomes[0], {1: "timeout"})


def test_a_wrong_token_is_ignored_and_logged(tmp_path):
    outcome = play(
        ["random", hostile("wrong-token")],
        seed=3,
        tc=NO_SHOW,
        tmp_path=tmp_path,
    )
    (fault,) = outcome.faults
    assert fault.code == "no-show" and "ignored: 1 bad-token" in fault.detail
    (event,) = [e for e in outcome.log.events if e["seat"] == 1]
    assert event["kind"] == "ignored" and event["counts"] == {"bad-token": 1}


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_every_bot_process_is_reaped_when_the_referee_is_interrupted(signal_name, tmp_path):
    import signal
    import subprocess
    import sys

    marker = f"ttr-arena-orphan-{random.randrange(10**9)}"  # a setsid grandchild
    command = [
        sys.executable,
        "-X",
        "faulthandler",  # SIGABRT prints its threads' stacks, should it fail to stop
        "-m",
        "arena.cli",
        "play",
        "--seed",
        "1",
        "--move-ms",
        "5000",
        "--bot-logs",
        str(tmp_path),
        "--bot",
        hostile("slow", "0.05"),
        "--bot",
        hostile("hang"),
        "--bot",
        hostile("setsid", marker),
    ]

    referee = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal
    )
    try:
        deadline = time.monotonic() + 20
        # Two bots (each with its PID namespace's keeper, where the system gives one).
        while len(processes_with(str(HOSTILE), referee.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(processes_with(str(HOSTILE), referee.pid)) >= 2, "the bots did not start"
        time.sleep(1.0)  # mid-game: the second bot hangs on its first decision
        referee.send_signal(getattr(signal, signal_name))
        try:
            referee.wait(30)
        except subprocess.TimeoutExpired:
            referee.send_signal(signal.SIGABRT)
            _, stderr = referee.communicate(timeout=10)
            pytest.fail(
                f"the referee did not stop within 30 s of {signal_name}; where it was:\n"
                + stderr.decode(errors="replace")[-6000:]
            )
    finally:
        referee.kill()
    assert not left_behind(str(HOSTILE)), f"bots survived the referee's {signal_name}"
    if pid_namespace()[0] != PROCESS_GROUP:
        assert not left_behind(marker), f"a setsid grandchild survived {signal_name}"


@pytest.mark.parametrize(
    ("mode", "limits"),
    [
        ("memory", {"memory_mb": 400}),
        ("spin", {"cpu_seconds": 1}),
    ],
)
def test_resource_limits_stop_a_greedy_bot(mode, limits, tmp_path):
    from arena.referee.process import ProcessLimits

    entries = [BotEntry.parse("random"), BotEntry.parse(hostile(mode))]
    # A clock far beyond the limit: on a loaded machine one CPU second can take many seconds
    # of wall time, and the fault's code (crash, not timeout) says which one stopped the bot.
    tc = TimeControl(move_ms=120_000, bank_ms=0)
    with ProcessMatch(USA, entries, tc, ProcessLimits(**limits), log_dir=tmp_path) as referee:
        outcome = referee.play(1)
    check_complete(outcome, {1: "crash"})


def test_a_person_who_resigns_forfeits_at_once_and_the_bot_finishes(tmp_path):
    """A person's seat has no process and no clock: the hub watches the person instead, so a
    resignation ends their waiting turn at once (not after a clock that does not exist)."""
    from arena.human import HumanGame

    game = HumanGame(USA, [BotEntry.parse("random")], 0, 5, log_dir=tmp_path).start()
    bridge = game.bridge
    deadline = time.monotonic() + 60
    while bridge.snapshot()["status"] != "to-move" and time.monotonic() < deadline:
        bridge.wait_change(bridge.snapshot()["version"], 1)
    bridge.resign()
    # No clock would ever end the person's turn: the game ends only because they resigned.
    assert game.done.wait(HANG_S) and game.error is None
    assert [(f.seat, f.code) for f in game.outcome.faults] == [(0, "resigned")]
    assert game.outcome.ranks == [2, 1]
    assert bridge.snapshot()["status"] == "over", "the page learns the game is over"


def test_a_person_given_the_same_seed_meets_the_same_bots_moves(tmp_path):
    """``arena play --human --seed N`` (and the play form's seed) keys what the bots are told
    from the seed: the same seed twice is the same game, the bots' moves included."""
    import msgspec

    from arena.human import HumanGame
    from arena.referee.keys import MatchKey

    def first_turn(run: str) -> dict:
        bots = [BotEntry.parse("random"), BotEntry.parse("random")]
        key = MatchKey.for_seed("play", 7)
        game = HumanGame(USA, bots, 2, 7, log_dir=tmp_path / run, key=key).start()
        bridge = game.bridge
        deadline = time.monotonic() + 60
        for turn in range(2):  # the tickets kept, then the first turn after the bots' first
            while bridge.snapshot()["status"] != "to-move" and time.monotonic() < deadline:
                bridge.wait_change(bridge.snapshot()["version"], 1)
            seen = bridge.snapshot()
            if turn == 0:
                assert bridge.submit(seen["legal"][0]) is None
        bridge.resign()
        assert game.done.wait(60) and game.error is None
        return msgspec.to_builtins(seen["observation"])

    first, second = first_turn("a"), first_turn("b")
    assert first["public"] == second["public"] and first["display"] == second["display"]
    assert first["claimed"] == second["claimed"] and first["deck_size"] == second["deck_size"]
    assert first["hand"] == second["hand"]


@pytest.mark.parametrize("seed", range(6))
def test_the_page_of_a_person_who_resigned_learns_the_game_is_over(seed, tmp_path):
    """The referee drops a resigned seat and sends it neither the game's end nor a bye:
    the page's long poll was left on "resigned" for ever in about three games of four
    (CI); the finished game must wake it."""
    from arena.human import HumanGame

    game = HumanGame(USA, [BotEntry.parse("random")], 0, seed, log_dir=tmp_path).start()
    bridge = game.bridge
    deadline = time.monotonic() + 60
    while bridge.snapshot()["status"] != "to-move" and time.monotonic() < deadline:
        bridge.wait_change(bridge.snapshot()["version"], 1)
    bridge.resign()
    resigned = bridge.snapshot()["version"]
    assert game.done.wait(60) and game.error is None
    woken = bridge.wait_change(resigned, HANG_S)
    assert woken["status"] == "over", woken


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'{"type":"header","x":"\xff"}\n', "line 1: not JSON"),  # not UTF-8 (a damaged file)
        (b'{"type":"header"}\n{"type"', "line 2: not JSON"),
        (b"[1]\n", "line 1: every line is an object with a 'type'"),
    ],
)
def test_a_damaged_match_log_is_a_log_error_naming_its_line(data, error):
    """``arena replay`` and the site read match logs from files a user may have damaged:
    anything wrong is a ``LogError`` (one line for the user), never another exception."""
    with pytest.raises(LogError, match=error):
        MatchLog.from_jsonl(data)


def test_a_sigterm_while_a_bot_is_forked_is_delivered_after_not_lost():
    """A SIGTERM whose handler raised inside ``fork``'s at-fork hooks was swallowed there
    ("Exception ignored"), and ``arena submit`` went on validating: it is held back while
    the bot process is forked, then delivered to the same handler."""
    from arena.referee.process import signals_deferred

    def stop(*_):
        raise SystemExit(143)

    previous = signal.signal(signal.SIGTERM, stop)
    reached_the_end = False
    try:
        with pytest.raises(SystemExit), signals_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler would run here: it is held
            reached_the_end = True
        assert reached_the_end
        assert signal.getsignal(signal.SIGTERM) is stop
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Answering:
    """A random bot (``bots.random_bot``) that answers in another form: ``"same"`` the legal
    object itself, ``"equal"`` an equal action it builds, ``"text"`` the notation; with
    ``stray``, an illegal claim first at every third decision (then, retried, its choice)."""

    def __init__(self, form: str, stray: bool = False) -> None:
        from bots.random_bot import RandomBot

        self.bot, self.form, self.stray, self.asked = RandomBot(0), form, stray, 0

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def choose(self, observation, legal):
        self.asked += 1
        if self.stray and self.asked % 4 == 1:
            return "claim 999 red"
        choice = self.bot.choose(observation, legal)
        if self.form == "equal":
            from arena.engine.actions import parse_action

            return parse_action(str(choice))
        return str(choice) if self.form == "text" else choice


@pytest.mark.parametrize("form", ["equal", "text"])
def test_an_in_process_bot_may_answer_with_any_form_of_its_action_and_the_game_is_the_same(form):
    """The in-process referee checks a legal object by identity and anything else by its
    notation, as it reads a remote answer: the same game whatever the form, and an illegal
    answer retried is logged and leaves the game as it would be without it."""
    from arena.referee.referee import Referee
    from arena.referee.seats import InProcessSeat

    def game(form: str, stray: bool = False):
        seats = [InProcessSeat(_Answering(form, stray), f"r{s}") for s in range(3)]  # type: ignore[arg-type]
        return Referee(USA, seats, TimeControl(retries=1), key=MatchKey(b"k" * 32)).play(11)

    base = game("same")
    other, strayed = game(form), game(form, stray=True)
    for outcome in (other, strayed):
        assert [(a["seat"], a["action"]) for a in outcome.log.actions] == [
            (a["seat"], a["action"]) for a in base.log.actions
        ]
        assert outcome.result.scores == base.result.scores and not outcome.faults
    illegal = [e for e in strayed.log.events if e["kind"] == "illegal"]
    assert illegal and all(e["action"] == "claim 999 red" for e in illegal)
    assert all(e["retries_left"] == 0 for e in illegal)
    assert not [e for e in base.log.events if e["kind"] == "illegal"]

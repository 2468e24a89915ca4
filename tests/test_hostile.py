"""Hostile bots against the sandbox and the log caps: real processes, real sockets.

The rest of the zoo (crash at start and mid-game, hang, too slow, garbage,
oversize, endless illegal actions, a wrong token, a child process, unbounded
memory, a CPU spin) is in tests/test_referee.py; the soak on Ray mixes them
all (tests/test_soak.py).
"""

from __future__ import annotations

import os
import socket

import pytest

from arena.referee.process import ProcessLimits
from arena.referee.sandbox import landlock_abi, network_namespace_available
from tests.referee_helpers import hostile
from tests.test_referee import FAST, USA, check_complete, play

ABI = landlock_abi()


@pytest.mark.skipif(ABI == 0, reason="this kernel has no Landlock")
def test_a_sandboxed_bot_cannot_read_the_store_connect_elsewhere_or_signal(tmp_path, monkeypatch):
    store = tmp_path / "arena-data" / "results.sqlite"
    store.parent.mkdir()
    store.write_bytes(b"SQLite format 3\0 secret results")
    listener = socket.create_server(("127.0.0.1", 0))
    monkeypatch.setenv("ARENA_TEST_SECRET", str(store))
    monkeypatch.setenv("ARENA_TEST_PORT", str(listener.getsockname()[1]))
    try:
        outcome = play(["random", hostile("snoop"), "random"], seed=3, tmp_path=tmp_path / "logs")
    finally:
        listener.close()
    check_complete(outcome, {})  # every attempt failed, so the bot played on
    (stderr,) = (tmp_path / "logs").rglob("seat1-*.stderr")
    report = stderr.read_text()
    assert "ALLOWED" not in report
    assert "denied: read the results store" in report
    assert "denied: read the referee's environment" in report
    if ABI >= 4:
        assert "denied: connect to another port" in report
    if ABI >= 6:
        assert "denied: signal the referee" in report
    assert "tried: hello as another seat" in report
    if network_namespace_available():  # the bot has a network of its own: nothing
        assert f"network namespace: {os.readlink('/proc/self/ns/net')}" not in report
        assert "network namespace: net:[" in report


def test_without_the_sandbox_the_same_bot_is_caught_reading(tmp_path, monkeypatch):
    """The control experiment: the snooping bot does read the store when nothing stops it,
    so the test above fails if the sandbox stops working."""
    from arena.referee.launch import BotEntry, ProcessMatch

    store = tmp_path / "results.sqlite"
    store.write_bytes(b"secret")
    listener = socket.create_server(("127.0.0.1", 0))
    monkeypatch.setenv("ARENA_TEST_SECRET", str(store))
    monkeypatch.setenv("ARENA_TEST_PORT", str(listener.getsockname()[1]))
    entries = [BotEntry.parse(b) for b in ("random", hostile("snoop"))]
    try:
        with ProcessMatch(
            USA, entries, FAST, ProcessLimits(sandbox=False), log_dir=tmp_path
        ) as referee:
            outcome = referee.play(3)
    finally:
        listener.close()
    assert [f.code for f in outcome.faults] == ["malformed"]


def test_a_bot_flooding_stdout_and_stderr_is_capped_and_plays_on(tmp_path):
    from arena.referee.launch import BotEntry, ProcessMatch

    entries = [BotEntry.parse(b) for b in ("random", hostile("flood", str(20 * 2**20)))]
    limits = ProcessLimits(log_bytes=10_000)
    with ProcessMatch(USA, entries, FAST, limits, log_dir=tmp_path) as referee:
        outcome = referee.play(2)
    check_complete(outcome, {})
    for stream in ("stdout", "stderr"):
        (path,) = tmp_path.rglob(f"seat1-*.{stream}")
        text = path.read_text()
        assert len(text) < 10_200 and "bytes dropped at the 10000-byte cap" in text

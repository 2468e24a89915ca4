"""The example bot in another language plays full games through the protocol."""

import shutil
from pathlib import Path

import pytest

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant

JS_BOT = Path(__file__).resolve().parent.parent / "examples" / "js-bot"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_bot_plays_full_games(tmp_path):
    assert (JS_BOT / "node_modules" / "zeromq").is_dir(), "run 'make test' (npm install) first"
    entries = [BotEntry.parse(f"cmd:node {JS_BOT / 'bot.js'}"), BotEntry.parse("random")] * 2
    tc = TimeControl(move_ms=2000, bank_ms=10000)
    with ProcessMatch(get_variant("usa"), entries, tc, log_dir=tmp_path) as referee:
        outcomes = [referee.play(seed) for seed in (1, 2)]
    for outcome in outcomes:
        assert outcome.faults == []
        log = MatchLog.from_jsonl(outcome.log.to_jsonl())
        assert verify(log).is_over
        assert log.header["seats"][0]["bot"] == "js-bot"
        assert sum(1 for a in log.actions if a["seat"] == 0) > 20

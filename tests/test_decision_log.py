"""What the referee records per decision, seen by a user: ``arena play`` with a real bot
process, sandbox on, in a fresh folder. The referee reads how far a bot's stderr log has
grown from the log drain's own counter (no file-system call per decision): every line the
bot writes still reaches the match log, once, in order, at the bot's own steps."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.referee.matchlog import MatchLog
from tests.journey import Journey

TALKER = Path(__file__).resolve().parent / "bots" / "talker.py"


def test_a_bots_stderr_lines_reach_the_match_log_once_in_order_at_its_steps(tmp_path):
    arena = Journey(tmp_path)
    done = arena(
        "play",
        "--bot", f"talker=cmd:{sys.executable} {TALKER}",
        "--bot", "random",
        "--seed", "3",
        "--match-log", "game.jsonl",
    )  # fmt: skip
    assert done.code == 0, done.text
    log = MatchLog.from_jsonl((tmp_path / "game.jsonl").read_bytes())
    seat = next(s["seat"] for s in log.header["seats"] if s["bot"] == "talker")
    own = [line for line in log.actions if line["seat"] == seat]
    said = [f"talker decision {k}: taking {line['action']}" for k, line in enumerate(own, 1)]
    assert all(line["seat"] == seat for line in log.actions if line.get("stderr"))
    # The referee copies what the bot wrote before its answer at that step, however busy
    # the machine (the log's own thread may lag): each line at its own decision, the last too.
    heard = [line.get("stderr", []) for line in own]
    assert heard == [[text] for text in said], [
        (k, h) for k, (h, s) in enumerate(zip(heard, said, strict=True), 1) if h != [s]
    ][:5]

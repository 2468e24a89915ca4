"""docs/FIRST-BOT.md works as written: its bot file is written, its Python example runs and
its commands run in order in a fresh folder, as a newcomer would run them after the README."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.journey import Journey

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "FIRST-BOT.md"


def blocks(text: str, marker: str, language: str) -> list[tuple[str, str]]:
    """(what the marker says, code) for each ``language`` block right after ``marker``."""
    found = []
    for part in text.split(f"<!-- {marker}:")[1:]:
        said, rest = part.split("-->", 1)
        code = rest.split(f"```{language}\n", 1)[1].split("```", 1)[0]
        found.append((said.strip(), code))
    return found


def test_the_first_bot_page_runs_as_written(tmp_path):
    text = DOC.read_text()
    readme = (ROOT / "README.md").read_text()
    assert "docs/FIRST-BOT.md" in readme.split("## What works today", 1)[0], "linked at the top"
    arena = Journey(tmp_path)
    files = [(said, code) for said, code in blocks(text, "first-bot", "python") if "/" in said]
    assert [said for said, _ in files] == ["my-bot/bot.py"]
    for said, code in files:
        (tmp_path / said).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / said).write_text(code)
    examples = [code for said, code in blocks(text, "first-bot", "python") if said == "run"]
    assert examples
    for code in examples:
        ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                             text=True)  # fmt: skip
        assert ran.returncode == 0 and ran.stdout.strip(), ran.stderr
        assert re.search(r"\{\d+: \d", ran.stdout), "claimed: route ids as ints"
    [(_, script)] = blocks(text, "first-bot-commands", "sh")
    commands = [
        words for line in script.replace("\\\n", " ").splitlines()
        if (words := shlex.split(line, comments=True))
    ]  # fmt: skip
    assert len(commands) >= 8 and all(words[0] == "arena" for words in commands)
    for words in commands:
        done = arena(*words[1:])
        assert done.code == 0, f"{shlex.join(words)}:\n{done.text}"
        assert "Traceback" not in done.text and "forfeited" not in done.out, done.text
    # The bot's notes reached the match log and the replay page.
    lines = [json.loads(line) for line in (arena.data / "first.jsonl").read_text().splitlines()]
    seats = lines[0]["seats"]
    mine = next(s["seat"] for s in seats if s["bot"].startswith("my-first-bot"))
    notes = [line["note"] for line in lines if line.get("seat") == mine and "note" in line]
    assert notes and all(note.startswith("longest claimable: route ") for note in notes)
    assert "longest claimable: route " in (arena.data / "first.html").read_text()

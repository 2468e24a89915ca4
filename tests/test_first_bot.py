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
    first_bot = readme.split("## Your first bot", 1)[1].split("\n## ", 1)[0]
    assert "(docs/FIRST-BOT.md)" in first_bot, "linked from the README's first-bot section"
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
    assert notes and all(note.startswith("claims route ") for note in notes)
    assert "claims route " in (arena.data / "first.html").read_text()


def test_the_first_bot_clearly_beats_random_on_fixed_deals(tmp_path):
    """The page's bot does what its docstring says well enough to be a first lesson: over
    20 two-player games on fixed seeds (seats alternated, in the referee's own process), it
    beats ``random`` in most, by a wide mean margin."""
    from arena.referee.faults import TimeControl
    from arena.referee.launch import InProcessSeat
    from arena.referee.referee import Referee
    from arena.variants import get_variant
    from bots import get_bot
    from bots.filebot import load_factory

    [(_, code)] = [(s, c) for s, c in blocks(DOC.read_text(), "first-bot", "python") if "/" in s]
    (tmp_path / "bot.py").write_text(code)
    factory = load_factory(tmp_path / "bot.py")
    usa, wins, margin = get_variant("usa"), 0, 0
    for seed in range(20):
        mine = seed % 2
        seats = [InProcessSeat(get_bot("random").factory(seed), "random", "1")] * 2
        seats[mine] = InProcessSeat(factory(seed), "first-bot", "1")
        outcome = Referee(usa, seats, TimeControl(60_000, 600_000)).play(seed)
        assert not outcome.faults, outcome.faults
        wins += outcome.ranks[mine] == 1
        margin += outcome.result.scores[mine] - outcome.result.scores[1 - mine]
    assert wins >= 16 and margin / 20 > 30, (wins, margin / 20)


def doc_commands(path: Path, marker: str) -> list[list[str]]:
    """The ``arena`` commands of a doc's ``sh`` block after ``marker``, one list of words
    each (continued lines joined, comments dropped)."""
    [(_, script)] = blocks(path.read_text(), marker, "sh")
    return [
        words for line in script.replace("\\\n", " ").splitlines()
        if (words := shlex.split(line, comments=True))
    ]  # fmt: skip


def test_a_new_user_tests_a_second_version_and_the_leaderboards_do_not_move(tmp_path):
    """A fresh folder, FIRST-BOT's commands up to its leaderboard, then docs/TESTING.md's
    second version and its test, then FIRST-BOT's clean-up: the leaderboard after the test
    is exactly the one before it (and so is the site's: the new version, which only played
    the test, has no bot page), the test's end says how to delete its games, and with
    --include-tests its games count."""
    from leaderboards.site import slug

    arena = Journey(tmp_path)
    [(_, code)] = [(s, c) for s, c in blocks(DOC.read_text(), "first-bot", "python") if "/" in s]
    (tmp_path / "my-bot").mkdir()
    (tmp_path / "my-bot" / "bot.py").write_text(code)
    first = doc_commands(DOC, "first-bot-commands")
    board_at = next(i for i, words in enumerate(first) if words[1] == "leaderboard")
    testing = doc_commands(ROOT / "docs" / "TESTING.md", "testing-commands")
    said: dict[str, list[str]] = {}  # each command's outputs, in order
    for words in [*first[: board_at + 1], *testing]:
        done = arena(*words[1:])
        assert done.code == 0, f"{shlex.join(words)}:\n{done.text}"
        assert "Traceback" not in done.text, done.text
        said.setdefault(shlex.join(words[1:]), []).append(done.out)
        if words[1] == "test":
            listed = arena("tournament", "list").out
            assert "sprt" in listed and "a test ('arena test'), not on the leaderboards" in listed
            site = arena("site", "site")
            tested = arena("site", "with-tests", "--include-tests")
            assert site.code == tested.code == 0, site.text + tested.text
            page = f"bots/{slug('my-first-bot@2')}.html"
            assert not (tmp_path / "site" / page).exists(), "a test's bot is not on the site"
            assert (tmp_path / "with-tests" / page).exists()
    board = shlex.join(first[board_at][1:])
    before, after = said[board]
    assert "my-first-bot@1" in before and "my-first-bot@2" not in after
    assert after == before, "the leaderboard after the test is the one before it"
    [[tested]] = [outs for key, outs in said.items() if key.startswith("test ")]
    assert "do not count on the leaderboards" in tested
    name = re.search(r"arena tournament delete (test-\S+) --yes", tested).group(1)
    assert name.startswith("test-my-first-bot_2-vs-my-first-bot_1-"), tested
    assert "my-first-bot@2" in said[board + " --include-tests"][0]
    for words in first[board_at + 1 :]:
        done = arena(*words[1:])
        assert done.code == 0, f"{shlex.join(words)}:\n{done.text}"
    assert "no tournaments stored" in arena("tournament", "list").out

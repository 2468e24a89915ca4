"""What a user of the engine meets on the command line: bot processes read typed observations,
and a game recorded under older rules is refused in one line instead of a wrong replay."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from arena.tournament.compact import unpack_log
from arena.variants import all_variants

TYPED_BOT = """
from arena.engine import BoardObservation
from arena.variants.europe import EuropeObservation
from bots.sdk import Bot


class Typed(Bot):
    name = "typed"

    def on_game_start(self, observation):
        assert isinstance(observation, BoardObservation), type(observation)

    def choose(self, observation, legal_actions):
        assert isinstance(observation, {kind}), type(observation)
        assert observation["phase"] == observation.phase  # reading by key still works
        assert observation.public[observation.seat].trains >= 0
        return legal_actions[0]
"""


def arena(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("variant", "kind"), [("usa", "BoardObservation"), ("europe", "EuropeObservation")]
)
def test_a_bot_process_reads_its_variants_typed_observation(tmp_path, variant, kind):
    (tmp_path / "bot.py").write_text(textwrap.dedent(TYPED_BOT.format(kind=kind)))
    bot = "cmd:{python} -m bots.filebot bot.py"
    out = arena(
        "play", "--variant", variant, "--bot", bot, "--bot", "random", "--seed", "2", cwd=tmp_path
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "forfeited" not in out.stdout, out.stdout  # a failed assertion would be a crash


def test_logs_recorded_under_older_rules_are_refused_in_one_line(tmp_path):
    out = arena("play", "--seed", "3", "--match-log", "g.jsonl", "--log", "g.log", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert arena("replay", "g.jsonl", cwd=tmp_path).returncode == 0
    assert arena("replay", "g.log", cwd=tmp_path).returncode == 0
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    version = all_variants()["usa"].rules_version
    assert header["rules"] == version
    del header["rules"]  # as every log written before rule versions
    (tmp_path / "old.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    text = [line for line in (tmp_path / "g.log").read_text().splitlines()]
    assert f"# rules: {version}" in text
    unversioned = [t for t in text if t != f"# rules: {version}"]
    (tmp_path / "old.log").write_text("\n".join(unversioned) + "\n")
    for old in ("old.jsonl", "old.log"):
        out = arena("replay", old, cwd=tmp_path)
        assert out.returncode == 2, out.stdout + out.stderr
        message = " ".join(out.stderr.split())  # errors go to stderr
        assert "recorded under version 1 of the rules of 'usa'" in message
        assert f"this arena plays version {version}" in message
        assert "Traceback" not in out.stdout + out.stderr
    # A header no game can start from: one line saying why, never an "unexpected" error.
    for change, says in (
        ({"players": 9}, "variant 'usa' is for 2-5 players, not 9"),
        ({"seed": "7"}, "the seed must be an integer, not str"),
        ({"variant": "toll"}, "no variant named 'toll'; installed: "),
        ({"variant": None}, "the header has no 'variant'"),
    ):
        bad = {k: v for k, v in {**header, "rules": version, **change}.items() if v is not None}
        (tmp_path / "bad.jsonl").write_text("\n".join([json.dumps(bad), *lines[1:]]) + "\n")
        out = arena("replay", "bad.jsonl", cwd=tmp_path)
        assert out.returncode == 2, out.stdout + out.stderr
        assert out.stderr.startswith(f"error: cannot start the game: {says}"), out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_data_folder_from_before_rule_versions_keeps_its_results_and_says_why_no_replay(
    tmp_path,
):
    """The site of a data folder whose logs predate rule versions: the leaderboards count
    the stored results; each match page says in one line why it has no replay (no viewer
    that fails in the browser)."""
    run = arena(
        "tournament", "run", "--bot", "random", "--bot", "ticket-by-ticket", "--players", "2",
        "--in-process", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(tmp_path / "arena-data" / "results.sqlite") as db:
        # as every log of the first rules version was written: no "rules" in the header
        for match_id, jsonl in db.execute("SELECT match_id, jsonl FROM logs").fetchall():
            header, *rest = unpack_log(bytes(jsonl)).decode().splitlines()  # (stored packed)
            old = {k: v for k, v in json.loads(header).items() if k != "rules"}
            text = "\n".join([json.dumps(old), *rest]) + "\n"
            # (written back plain, as releases of then stored it: read as such)
            db.execute("UPDATE logs SET jsonl = ? WHERE match_id = ?", (text.encode(), match_id))
    built = arena("site", "site", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    pages = sorted((tmp_path / "site" / "matches").glob("*.html"))
    assert len(pages) == 2 and not list((tmp_path / "site" / "matches").glob("*.js"))
    for page in pages:
        html = page.read_text()
        assert "No replay: this game was recorded under version 1 of the rules of" in html
        assert "replay.js" not in html and 'id="download"' in html
    board = arena("leaderboard", "--variant", "usa", cwd=tmp_path)
    assert board.returncode == 0 and "ticket-by-ticket" in board.stdout


NOSY_BOT = """
import sys

from bots.random_bot import RandomBot
from toll_arena import TollObservation


class Nosy(RandomBot):
    name = "nosy"

    def on_game_start(self, observation):
        assert isinstance(observation, TollObservation), type(observation)
        try:
            open("{secret}").read()
            print("secret: read", file=sys.stderr)
        except (PermissionError, FileNotFoundError):  # refused, or not there to be named
            print("secret: denied", file=sys.stderr)
"""


def install_toll_plugin(folder):
    """tests/toll_variant.py installed as a third party's plugin would be: a module plus its
    distribution's entry point, in ``folder`` (an import path entry, like a checkout installed
    in development mode)."""
    from pathlib import Path

    folder.mkdir()
    source = Path(__file__).with_name("toll_variant.py").read_text()
    (folder / "toll_arena.py").write_text(source)
    info = folder / "toll_arena-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toll-arena\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena.variants]\ntoll = toll_arena\n")


def test_a_third_party_variant_installed_as_a_plugin_plays_in_sandboxed_bots(tmp_path):
    """A variant plugin from outside the arena's folders (pytest's, usually under /tmp):
    listed, played by sandboxed bot processes that load it (its file is readable to them,
    the folder around it is not), and by bots that cannot load it (its actions reach them as
    text, their choice still counts)."""
    from tests.journey import Journey

    install_toll_plugin(tmp_path / "plugins")
    (tmp_path / "plugins" / "secret.txt").write_text("the organiser's")
    journey = Journey(tmp_path / "work")
    journey.env["PYTHONPATH"] = str(tmp_path / "plugins")
    listed = journey("variants")
    assert listed.code == 0 and "toll" in listed.out, listed.text
    (journey.folder / "spy.py").write_text(
        NOSY_BOT.format(secret=tmp_path / "plugins" / "secret.txt")
    )
    (journey.folder / "t.toml").write_text(
        'name = "tolls"\nvariant = "toll"\nplayers = 2\ngames = 2\nbot_env = ["PYTHONPATH"]\n'
        'bots = ["nosy=cmd:{python} -m bots.filebot spy.py", "ticket-by-ticket"]\n'
    )
    run = journey("tournament", "run", "t.toml", "--workers", "1", "--logs-dir", "bot-logs")
    assert run.code == 0, run.text
    assert "forfeited" not in run.out, run.out
    logs = [log.read_text() for log in (journey.folder / "bot-logs").rglob("*.stderr")]
    assert logs and not [log for log in logs if "Error:" in log or "not installed" in log]
    assert sum("secret: denied" in log for log in logs) == 4, "the plugin's file only"
    # Bots that do not see the plugin (no bot_env): the toll actions arrive as plain text.
    play = journey("play", "--variant", "toll", "--players", "2", "--seed", "5")
    assert play.code == 0 and "forfeited" not in play.out, play.text

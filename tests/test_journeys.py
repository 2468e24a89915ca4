"""The journeys users walk, end to end: the ``arena`` command as a subprocess, the real
sandbox on, a fresh folder; assertions on what the user sees and what was stored.

(Stopping a tournament with Ctrl-C/SIGTERM and ``--ray ADDRESS`` with nothing there
are tested in detail with the tournament driver that implements them; the first test
here walks them together, as one bot author would in one afternoon.)
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from arena import chaos
from arena.referee.containment import private_mounts
from arena.tournament.forfeits import error_line, reason
from arena.tournament.store import ResultsStore
from arena.variants import all_variants
from leaderboards.standings import Standings
from leaderboards.tables import leaderboard_frame
from tests.journey import (
    ARENA,
    PYTHON_BOT,
    Journey,
    column_text,
    interrupt_terminal,
    run_in_terminal,
)
from tests.referee_helpers import left_behind

CRASHING_BOT = """
from bots.sdk import Bot


class Broken(Bot):
    name = "broken"

    def choose(self, observation, legal_actions):
        raise ValueError("my bot is broken: no plan for this board")
"""


def write_bot(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    return folder


def forfeits(journey: Journey, tournament: str) -> list[tuple]:
    return journey.rows(
        "SELECT s.bot, s.fault, s.fault_detail FROM seats s JOIN matches m ON m.id = s.match_id"
        " JOIN tournaments t ON t.id = m.tournament_id WHERE t.name = ? AND s.fault IS NOT NULL",
        tournament,
    )


def recomputed_csv(data: Path, variant: str) -> str:
    """The leaderboard CSV of a full recompute (every match folded in from nothing)."""
    standings = Standings(variant)
    with ResultsStore.reader(data) as store:
        standings.add_all(store.results(variant=variant, details=False))
    frame = leaderboard_frame(standings.board())
    frame["last_played"] = frame["last_played"].dt.strftime("%Y-%m-%d %H:%M:%S")
    return frame.to_csv(index=False)


# ---------------------------------------------------------------- submit, then play


def test_submit_play_stop_with_ctrl_c_resume_and_watch_in_one_folder(tmp_path):
    """One bot author's afternoon, every step as docs/COMMANDS.md gives it, in one folder:
    submit a bot, start a tournament in a terminal, stop it with Ctrl-C, run the same
    command again, then read the standings, build the site and open a match in the
    viewer. Each step takes what the previous one left."""
    arena = Journey(tmp_path)
    submitted = arena("submit", "my-bot", "--file", PYTHON_BOT)
    assert submitted.code == 0 and "registered my-bot@1" in submitted.out, submitted.text
    command = (
        "tournament", "run", "--name", "walk", "--bot", "my-bot", "--bot", "random",
        "--players", "2", "--games", "5", "--workers", "2",
    )  # fmt: skip
    driver, output = run_in_terminal([*ARENA, *command], tmp_path, arena.env)
    stored = "SELECT count(*) FROM matches"
    arena.wait_for_matches(driver, 2)
    shown, _ = interrupt_terminal(driver, output, signal.SIGINT)
    assert driver.returncode == 130 and "Traceback" not in shown, shown
    assert "run the same command to resume" in shown.strip().splitlines()[-1]
    before = arena.rows(stored)[0][0]
    assert before < 10, "Ctrl-C stopped the tournament before its end"
    early = arena("leaderboard", "--variant", "usa")  # keeps a rating checkpoint of those
    assert early.code == 0 and "my-bot@1" in early.out, early.text
    resumed = arena(*command, "--no-progress")
    assert resumed.code == 0, resumed.text
    assert f"{10 - before} matches played now" in resumed.out, resumed.out
    assert arena.rows(stored)[0][0] == 10 and forfeits(arena, "walk") == []
    status = arena("tournament", "show", "walk")
    assert "10 of 10 planned matches played" in status.out and "finished" in status.out
    board = arena("leaderboard", "--variant", "usa", "--format", "csv")
    assert board.code == 0 and board.out == recomputed_csv(arena.data, "usa"), board.text
    site = arena("site", "site")
    assert site.code == 0, site.text
    logs = sorted((tmp_path / "site" / "matches").glob("*.jsonl"))
    assert len(logs) == 10 and (tmp_path / "site" / "matches" / f"{logs[0].stem}.html").exists()
    viewed = arena("view", logs[0], "--out", "match.html", "--no-open")
    assert viewed.code == 0, viewed.text
    assert "my-bot@1" in (tmp_path / "match.html").read_text()


def test_bots_submitted_from_a_folder_a_plugin_and_a_command_play_their_tournament(tmp_path):
    """The submitted bot's stored code must be readable by its own sandbox in a
    tournament (it was not: a forfeit in every game), and it is on the leaderboard,
    the site, ``arena bots`` and playable with ``arena play``."""
    arena = Journey(tmp_path)
    greedy = PYTHON_BOT / "greedy.py"
    for args in (
        ("my-bot", "--file", PYTHON_BOT),
        ("rf", "--plugin", "ticket-by-ticket"),
        ("greedy", "--cmd", f"{sys.executable} -m bots.filebot {greedy}"),
    ):
        done = arena("submit", *args)
        assert done.code == 0, done.text
        assert f"registered {args[0]}@1" in done.out
    done = arena(
        "tournament", "run", "--name", "subs", "--bot", "my-bot", "--bot", "rf",
        "--bot", "greedy", "--players", "2",
    )  # fmt: skip
    assert done.code == 0, done.text
    assert forfeits(arena, "subs") == [], "submitted bots play without forfeits"
    played = arena.rows("SELECT DISTINCT bot FROM seats ORDER BY bot")
    assert played == [("greedy@1",), ("my-bot@1",), ("rf@1",)]
    board = arena("leaderboard", "--variant", "usa")
    assert board.code == 0 and all(f"{b}@1" in board.out for b in ("my-bot", "rf", "greedy"))
    site = arena("site", "site")
    assert site.code == 0, site.text
    pages = {p.name for p in (tmp_path / "site" / "bots").glob("*.html")}
    assert all(any(page.startswith(f"{b}-1") for page in pages) for b in ("my-bot", "rf"))
    listed = arena("bots")
    assert re.search(r"my-bot\s+registered \(file\)\s+@1", listed.out), listed.out
    game = arena("play", "--bot", "my-bot", "--bot", "rf@1", "--seed", "3")
    assert game.code == 0 and "my-bot@1" in game.out and "forfeited" not in game.out, game.text


def test_submit_validates_under_the_tournament_sandbox_with_the_data_folder_protected(tmp_path):
    """Validation runs under the tournament's sandbox and data-folder protection: a bot
    that reads a file of the data folder other than its own code fails validation."""
    arena = Journey(tmp_path)
    (arena.data).mkdir()
    (arena.data / "secret.txt").write_text("the results store's neighbour")
    nosy = write_bot(
        tmp_path / "nosy",
        CRASHING_BOT.replace(
            'raise ValueError("my bot is broken: no plan for this board")',
            f"open({str(arena.data.resolve() / 'secret.txt')!r}).read()\n"
            "        return legal_actions[0]",
        ),
    )
    done = arena("submit", "nosy", "--file", nosy)
    assert done.code == 2
    line = done.one_line_error()
    # Where bots have private mounts the data folder is empty to them: the file is not there.
    refused = "FileNotFoundError" if private_mounts() else "PermissionError"
    assert "rejected" in line and refused in line, line
    assert arena.rows("SELECT * FROM bots") == []
    assert not (arena.data / "bots" / "nosy").exists(), "no copy of a rejected bot is kept"


LISTER = Path(__file__).resolve().parent / "bots" / "lister.py"


def lister_bot(folder: Path, give_up: bool) -> Path:
    """The bot that lists all it can reach (tests/bots/lister.py), as a submitted folder."""
    source = LISTER.read_text().replace("GIVE_UP = True", f"GIVE_UP = {give_up}")
    return write_bot(folder, source)


def test_a_submitted_bot_names_nothing_of_the_data_folder_in_validation_or_a_tournament(
    tmp_path,
):
    """A submitted bot that lists everything it can reach (tests/bots/lister.py), rejected
    on purpose in validation, then registered and seated in a tournament: its reports name
    nothing of the organiser's folder or of the data folder (another participant's bot and
    the hash of its code, the results store, the logs), where its own paths used to name
    them all (its code, scratch and working folders were inside them)."""
    tag = f"{os.getpid()}{time.monotonic_ns() % 10**6}"
    arena = Journey(tmp_path / f"organiser-{tag}")
    done = arena("submit", f"rival-{tag}", "--file", PYTHON_BOT)
    assert done.code == 0, done.text
    (rival_hash,) = [p.name for p in (arena.data / "bots" / f"rival-{tag}").iterdir()]
    secret = [arena.folder.name, "arena-data", "results.sqlite", f"rival-{tag}", rival_hash]
    secret += ["submissions", "bot-logs"]
    rejected = arena("submit", "spy", "--file", lister_bot(tmp_path / "spy", give_up=True))
    assert rejected.code == 2 and "rejected" in rejected.text, rejected.text
    done = arena("submit", "watcher", "--file", lister_bot(tmp_path / "watcher", give_up=False))
    assert done.code == 0, done.text
    done = arena(
        "tournament", "run", "--name", "spied", "--bot", "watcher", "--bot", f"rival-{tag}",
        "--players", "2",
    )  # fmt: skip
    assert done.code == 0 and forfeits(arena, "spied") == [], done.text
    reports = {
        "validation (rejected)": sorted(
            (arena.data / "submissions" / "spy").rglob("seat0-*.stderr")
        ),
        "validation": sorted((arena.data / "submissions" / "watcher").rglob("seat0-*.stderr")),
        "tournament": sorted((arena.data / "bot-logs").rglob("seat*-watcher@1.stderr")),
    }
    for stage, paths in reports.items():
        texts = [p.read_text() for p in paths if "END OF REPORT" in p.read_text()]
        assert texts, f"no complete report from {stage}"
        for text in texts:
            assert [name for name in secret if name in text] == [], (stage, text)


def test_a_submitted_folder_holds_plain_files_of_a_bounded_size_and_a_stopped_submit_keeps_none(
    tmp_path,
):
    """A link in the folder was followed (``ln -s / root`` copied the file system into the
    data folder without end), any size was copied, and SIGTERM left the half copy."""
    arena = Journey(tmp_path / "work")
    linked = tmp_path / "linked"
    shutil.copytree(PYTHON_BOT, linked)
    (linked / "root").symlink_to("/")
    big = tmp_path / "big"
    shutil.copytree(PYTHON_BOT, big)
    with open(big / "model.bin", "wb") as sparse:  # 300 MiB on paper, no disk used
        sparse.truncate(300 * 2**20)
    for folder, message in ((linked, "root is a symbolic link"), (big, "more than 10,000 files")):
        done = arena("submit", "mine", "--file", folder)
        assert done.code == 2 and message in done.one_line_error(), done.text
        assert arena.files() == set(), "nothing is written for a refused folder"

    slow = write_bot(
        tmp_path / "slow",
        CRASHING_BOT.replace(
            'raise ValueError("my bot is broken: no plan for this board")',
            "import time\n        time.sleep(0.2)\n        return legal_actions[0]",
        ),
    )
    submitting = arena.start("submit", "slow", "--file", slow)
    deadline = time.monotonic() + 60
    while not list((arena.data / "submissions").glob("slow/*/*stderr*")):
        assert submitting.poll() is None and time.monotonic() < deadline, submitting.stderr
        time.sleep(0.05)
    assert (arena.data / "bots" / "slow").is_dir(), "its copy is there while it validates"
    submitting.send_signal(signal.SIGTERM)
    _, err = submitting.communicate(timeout=30)
    assert submitting.returncode == 143 and "Traceback" not in err, err
    assert not (arena.data / "bots").exists(), "a stopped submit keeps no copy"
    assert arena.rows("SELECT * FROM bots") == []


def test_a_submitted_pipe_socket_or_device_is_refused_at_once_and_nothing_is_copied(tmp_path):
    """Issue 29: a folder holding a named pipe blocked ``arena submit`` for ever (it opened
    the pipe to hash it), and a device node was copied into the data folder before the
    bot was validated; only symbolic links were refused."""
    arena = Journey(tmp_path / "work")
    special: dict[str, Callable[[Path], object]] = {
        "a named pipe": os.mkfifo,
        "a socket": lambda path: socket.socket(socket.AF_UNIX).bind(str(path)),
        "a character device": lambda path: os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3)),
    }
    for kind, make in special.items():
        folder = tmp_path / kind.replace(" ", "-")
        shutil.copytree(PYTHON_BOT, folder)
        try:
            make(folder / "entry")
        except PermissionError:
            pytest.skip(f"cannot make {kind} here (mknod needs root)")
        done = arena("submit", "mine", "--file", folder, timeout=60)
        assert done.code == 2, done.text
        assert f"{folder / 'entry'} is {kind}" in done.one_line_error()
        assert arena.files() == set(), f"nothing is written for a folder holding {kind}"
    piped = tmp_path / "piped"  # its bot.py is a pipe
    piped.mkdir()
    os.mkfifo(piped / "bot.py")
    done = arena("submit", "mine", "--file", piped, timeout=60)
    assert done.code == 2 and "bot.py is a named pipe" in done.one_line_error(), done.text
    os.mkfifo(tmp_path / "bot.py")  # the file named is a pipe itself
    done = arena("submit", "mine", "--file", tmp_path / "bot.py", timeout=60)
    assert done.code == 2 and "bot.py is a named pipe" in done.one_line_error(), done.text
    assert arena.files() == set()


# ---------------------------------------------------------------- crashes, explained


def test_a_crashing_bot_is_rejected_with_its_error_and_forfeits_with_it_on_the_site(tmp_path):
    arena = Journey(tmp_path)
    broken = write_bot(tmp_path / "broken", CRASHING_BOT)
    done = arena("submit", "broken", "--file", broken)
    assert done.code == 2
    line = done.one_line_error()
    assert "ValueError: my bot is broken: no plan for this board" in line, line
    stderr_log = Path(line.rsplit("its stderr: ", 1)[1])
    assert "Traceback" in (tmp_path / stderr_log).read_text(), "the full log is kept"
    assert arena.rows("SELECT * FROM bots") == [] and not (arena.data / "bots").exists()

    bot = f"broken=cmd:{sys.executable} -m bots.filebot {broken}"
    done = arena("tournament", "run", "--name", "t", "--bot", bot, "--bot", "random",
                 "--players", "2")  # fmt: skip
    assert done.code == 0, done.text
    summary = [line for line in done.out.splitlines() if "forfeited" in line]
    assert len(summary) == 1 and "broken forfeited 2 games" in summary[0], done.out
    assert "ValueError: my bot is broken" in summary[0] and "stderr: arena-data/" in summary[0]
    assert {row[1] for row in forfeits(arena, "t")} == {"crash"}
    assert arena("site", "site").code == 0
    pages = list((tmp_path / "site" / "matches").glob("*.html"))
    assert len(pages) == 2
    for page in pages:
        html = page.read_text()
        assert re.search(r"forfeited at step \d+: <span[^>]*>crash: ValueError: my bot is", html)
        (stderr_href,) = re.findall(r'href="([^"]+)" class="log-link">stderr log', html)
        assert "ValueError: my bot is broken" in (page.parent / stderr_href).read_text()
        match_log = re.search(r'href="(\d+\.jsonl)" download', html).group(1)
        assert (page.parent / match_log).read_text().startswith('{"type":"header"')


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        (  # Node.js: the version line comes last, the error well before it
            "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\n"
            "Error: Cannot find module 'zeromq'\nRequire stack:\n- /b/bot.js\n"
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n"
            "    at node:internal/main/run_main_module:28:49 {\n"
            "  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/b/bot.js' ]\n}\n\nNode.js v20.20.2\n",
            "Error: Cannot find module 'zeromq'",
        ),
        (  # Python, chained: the exception that stopped the bot
            "Traceback (most recent call last):\n  File \"bot.py\", line 3\nKeyError: 'x'\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            'Traceback (most recent call last):\n  File "bot.py", line 5\n'
            "RuntimeError: no route\n",
            "RuntimeError: no route",
        ),
        (  # Java: stack frames after the exception
            'Exception in thread "main" java.lang.IllegalStateException: bad hand\n'
            "\tat Bot.choose(Bot.java:12)\n\tat Bot.main(Bot.java:3)\n",
            'Exception in thread "main" java.lang.IllegalStateException: bad hand',
        ),
        (  # Rust: the message is on the line after the panic
            "thread 'main' panicked at src/main.rs:2:5:\nout of trains\n"
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
            "thread 'main' panicked at src/main.rs:2:5: out of trains",
        ),
        ("panic: deck is empty\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: deck is empty"),
    ],
)
def test_the_forfeit_reason_names_the_error_not_the_last_line(stderr, expected):
    assert error_line(stderr) == expected
    assert reason("crash", "the bot process exited", stderr) == f"crash: {expected}"


def test_a_crash_with_an_empty_stderr_ends_at_its_words():
    """``arena submit echo --cmd "echo hello"`` said '...before the handshake:; its stderr'."""
    detail = "the bot process exited with status 0 before the handshake: "
    assert reason("crash", detail, "") == (
        "crash: the bot process exited with status 0 before the handshake"
    )


def test_a_js_style_crash_is_explained_by_its_error_line(tmp_path):
    """The JavaScript example bot without its npm dependency: the user saw 'Node.js v20'."""
    arena = Journey(tmp_path)
    script = tmp_path / "fake-node.sh"
    script.write_text(
        "#!/bin/sh\necho \"Error: Cannot find module 'zeromq'\" >&2\n"
        "echo '    at Module._load (node:internal/modules/cjs/loader:1038:27)' >&2\n"
        "echo 'Node.js v20.20.2' >&2\nexit 1\n"
    )
    script.chmod(0o755)
    done = arena("play", "--bot", f"js=cmd:{script}", "--bot", "random", "--seed", "1")
    assert done.code == 0, done.text
    (line,) = [line for line in done.out.splitlines() if "forfeited" in line]
    assert "crash: Error: Cannot find module 'zeromq'" in line and "Node.js" not in line


# ---------------------------------------------------------------- a bot that cannot start


def test_a_bot_that_cannot_start_forfeits_and_the_tournament_goes_on(tmp_path):
    arena = Journey(tmp_path)
    done = arena("tournament", "run", "--name", "t", "--bot", "random", "--bot", "ticket-by-ticket",
                 "--bot", "cmd:/nonexistent/bot", "--players", "2", "--in-process")  # fmt: skip
    # --in-process refuses command-line bots: a usage error, nothing stored.
    assert done.code == 2 and "command-line bot" in done.one_line_error()
    done = arena("tournament", "run", "--name", "t", "--bot", "random", "--bot", "ticket-by-ticket",
                 "--bot", "cmd:/nonexistent/bot", "--players", "2")  # fmt: skip
    assert done.code == 0, done.text
    assert "warning: bot 'cmd:/nonexistent/bot' cannot be started" in done.err
    assert "Traceback" not in done.text
    lost = forfeits(arena, "t")
    assert len(lost) == 4 and {row[0] for row in lost} == {"cmd:/nonexistent/bot"}
    assert all("could not start" in row[2] for row in lost)
    assert arena.rows("SELECT COUNT(*) FROM matches") == [(6,)], "every match was played"


# ---------------------------------------------------------------- bad input, one line


def tournament_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\nvariant = "usa"\nbots = ["random", "ticket-by-ticket"]\n' + body)
    return path


RUN = ("tournament", "run", "--bot", "random", "--bot", "ticket-by-ticket", "--players", "2")
BAD_INPUTS = {
    # name: (args (a "{toml:BODY}" argument writes a tournament file), exit code, message part)
    "play a missing program": (
        ("play", "--bot", "cmd:/nonexistent", "--bot", "random"),
        2,
        "bot 'cmd:/nonexistent' cannot be started: /nonexistent: no such file",
    ),
    "play an unknown bot": (("play", "--bot", "nosuch", "--bot", "random"), 2, "no bot named"),
    "play an escaping label": (
        ("play", "--bot", "../../x=cmd:ls", "--bot", "random"),
        2,
        "bot label '../../x' is not allowed",
    ),
    "play an unknown variant": (("play", "--variant", "narnia"), 2, "no variant named 'narnia'"),
    "play too many players": (("play", "--players", "7"), 2, "usa is played by 2-5 players"),
    "play a zero clock": (("play", "--move-ms", "0"), 2, "--move-ms"),
    "play a log into no folder": (("play", "--log", "no/such/x.log"), 2, "does not exist"),
    "play in process a command": (
        ("play", "--in-process", "--bot", "cmd:ls", "--bot", "random"),
        2,
        "command-line bot",
    ),
    "submit a missing program": (("submit", "x", "--cmd", "/nonexistent"), 2, "no such file"),
    "submit an escaping name": (
        ("submit", "../../../x", "--file", PYTHON_BOT),
        2,
        "bot name '../../../x' is not allowed",
    ),
    "submit a name with spaces": (("submit", "bad name!", "--file", PYTHON_BOT), 2, "not allowed"),
    "submit a plugin's name": (("submit", "random", "--plugin", "random"), 2, "plugin's name"),
    "submit nothing": (("submit", "x"), 2, "exactly one of --plugin, --file or --cmd"),
    "submit a missing file": (("submit", "x", "--file", "nothere"), 2, "no such file or folder"),
    "submit a folder without bot.py": (("submit", "x", "--file", "."), 2, "has no bot.py"),
    "submit an unknown plugin": (("submit", "x", "--plugin", "nosuch"), 2, "no bot named"),
    "submit for an unknown variant": (
        ("submit", "x", "--plugin", "random", "--variant", "europa"),
        2,
        "no variant named 'europa'",
    ),
    "toml: a wrong type": ((*RUN[:2], "{toml:games = 'three'}"), 2, "games: expected a whole"),
    "toml: an unknown key in a table": (
        (*RUN[:2], "{toml:[time_control]\nbank_msec = 3}"),
        2,
        "time_control.bank_msec: unknown key",
    ),
    "toml: a negative clock": (
        (*RUN[:2], "{toml:players = 2\n[time_control]\nmove_ms = -5}"),
        2,
        "time_control.move_ms: must be a whole number >= 1",
    ),
    "toml: not toml": ((*RUN[:2], "{toml:games = [}"), 2, "not valid TOML"),
    "toml: games beyond any plan": (  # was: 18 GB planning 2e8 matches, deaf to Ctrl-C
        (*RUN[:2], "{toml:players = 2\ngames = 100000000}"),
        2,
        "games = 100000000: this round-robin would plan 200,000,000 matches, more than 100,000",
    ),
    "flags: a bot named twice": (
        ("tournament", "run", "--bot", "random", "--bot", "random", "--players", "2"),
        2,
        "bots: random named twice",
    ),
    "toml: a missing file": ((*RUN[:2], "nothere.toml"), 2, "nothere.toml: no such file"),
    "toml and flags": ((*RUN[:2], "{toml:players = 2}", "--bot", "x"), 2, "drop --bot"),
    "flags: a negative clock": ((*RUN, "--bank-ms", "-1"), 2, "--bank-ms"),
    "flags: a zero move clock": ((*RUN, "--move-ms", "0"), 2, "--move-ms"),
    "flags: too many players": (
        ("tournament", "run", "--bot", "random", "--bot", "ticket-by-ticket", "--players", "7"),
        2,
        "usa is played by 2-5 players, not 7",
    ),
    "flags: too few bots": (
        ("tournament", "run", "--bot", "random"),
        2,
        "4-player games need at least 4 bots, 1 given",
    ),
    "flags: an escaping tournament name": ((*RUN, "--name", "../x"), 2, "tournament name"),
    "flags: an unknown bot": ((*RUN, "--bot", "nosuch"), 2, "no bot named 'nosuch'"),
    "flags: a bad version": ((*RUN, "--bot", "random@0"), 2, "whole number from 1"),
    "flags: a bad format": ((*RUN, "--format", "swiss"), 2, "format 'swiss' is not one of"),
    "flags: an open pool in a round robin": (  # was: refused after storing the tournament
        ("tournament", "run", "--bot", "*", "--bot", "random", "--players", "2"),
        2,
        "'*' (every registered bot) is for a ladder",
    ),
    "flags: an open pool too small": (  # was: 'unexpected IndexError', tournament stored
        ("tournament", "run", "--bot", "*", "--bot", "random", "--format", "ladder"),
        2,
        "the ladder's pool ('*' and the bots named) holds 1 bots",
    ),
    "flags: a bot of another game": (
        ("tournament", "run", "--bot", "cardgame-greedy", "--bot", "random", "--players", "2"),
        2,
        "does not play variant 'usa'",
    ),
    "flags: nothing can start": (
        ("tournament", "run", "--bot", "random", "--bot", "cmd:/nonexistent", "--players", "2"),
        1,
        "nothing can be played",
    ),
    "an unknown option": (("play", "--nope"), 2, "No such option: --nope"),
    "leaderboard of an unknown variant": (
        ("leaderboard", "--variant", "europa"),
        2,
        "no variant named 'europa'",
    ),
    "leaderboard of an impossible count": (
        ("leaderboard", "--players", "9"),
        2,
        "usa is played by 2-5 players, not 9",
    ),
    "results without a store": (("results", "--out", "x.csv"), 1, "no results store"),
    "site without a store": (("site", "out"), 1, "no results store"),
    "remove an unknown bot": (("bots", "remove", "nosuch"), 2, "no registered bot 'nosuch'"),
    "remove a plugin": (("bots", "remove", "random"), 2, "an installed plugin"),
    "delete an unknown tournament": (
        ("tournament", "delete", "nosuch"),
        2,
        "no tournament named 'nosuch'",
    ),
    "replay a missing log": (("replay", "nothere.jsonl"), 2, "nothere.jsonl"),
    "replay a folder": (("replay", "."), 2, ".: cannot be read (Is a directory)"),  # [Errno 21]
}


def run_bad_input(tmp_path: Path, name: str) -> None:
    args, code, message = BAD_INPUTS[name]
    folder = tmp_path / re.sub(r"\W+", "-", name)
    arena = Journey(folder)
    written = []
    for i, arg in enumerate(args):
        if isinstance(arg, str) and arg.startswith("{toml:"):
            written.append(tournament_file(folder, arg[6:-1]))
            args = (*args[:i], written[-1].name, *args[i + 1 :])
    before = arena.files()
    done = arena(*args)
    assert done.code == code, f"{name}: {done.text}"
    line = done.one_line_error()
    assert message in line, f"{name}: {line}"
    assert arena.files() == before, f"{name}: nothing may be stored or written"
    assert not (tmp_path.parent / "x").exists()


def test_every_bad_input_gets_one_line_the_right_status_and_stores_nothing(tmp_path):
    def check(name: str) -> str | None:
        try:
            run_bad_input(tmp_path, name)
        except AssertionError as error:
            return f"{name}: {str(error).splitlines()[0]}"
        return None

    with ThreadPoolExecutor(4) as pool:  # each case its own process and folder
        failed = [problem for problem in pool.map(check, BAD_INPUTS) if problem]
    assert not failed, "\n".join(failed)


ESCAPES = "\x1b[2J\x1b[31m\nerror: forged\u202e"  # clear, red, a forged line, bidi override
SHOWN = "\\x1b[2J\\x1b[31m"  # (a command line is cut into words at the newline)
ECHOED = {
    "a tournament name": ("tournament", "run", "--name", f"t{ESCAPES}", "--bot", "random"),
    "a tournament file's name": ("tournament", "run", "{toml:name}"),
    "a tournament file": ("tournament", "run", f"t{ESCAPES}.toml"),
    "a tournament to show": ("tournament", "show", f"t{ESCAPES}"),
    "a bot name to submit": ("submit", f"b{ESCAPES}", "--plugin", "random"),
    "a file to submit": ("submit", "mine", "--file", f"f{ESCAPES}"),
    "a command to submit": ("submit", "mine", "--cmd", f"c{ESCAPES}"),
    "a variant": ("play", "--variant", f"v{ESCAPES}"),
    "a bot to play": ("play", "--bot", f"b{ESCAPES}", "--bot", "random"),
    "a plugin to run": ("bot", "run", f"b{ESCAPES}", "--connect", "tcp://x:1", "--token", "t"),
    "a log to replay": ("replay", f"r{ESCAPES}"),
    "an option": ("play", f"--x{ESCAPES}"),
}


def test_what_a_user_typed_is_echoed_in_errors_with_its_escapes_shown_not_obeyed(tmp_path):
    """Issue 29: a tournament name with terminal escapes was refused, but its error line
    printed the escape bytes raw (clearing the screen, recolouring it, forging lines)."""

    def check(name: str) -> str | None:
        folder = tmp_path / re.sub(r"\W+", "-", name)
        arena = Journey(folder)
        args = ECHOED[name]
        if args[-1] == "{toml:name}":
            spec = folder / "t.toml"
            spec.write_text('name = "t\\u001b[2J\\u001b[31m\\nerror: forged\\u202e"\n'
                            'variant = "usa"\nbots = ["random", "random"]\n')  # fmt: skip
            args = (*args[:-1], spec.name)
        done = arena(*args, timeout=120)
        try:
            line = done.one_line_error()  # a raw newline would have made it two lines
            assert done.code == 2 and not {"\x1b", "\u202e"} & set(done.err), repr(done.err)
            assert SHOWN in line, line
        except AssertionError as error:
            return f"{name}: {str(error).splitlines()[0]}"
        return None

    with ThreadPoolExecutor(2) as pool:
        failed = [problem for problem in pool.map(check, ECHOED) if problem]
    assert not failed, "\n".join(failed)
    # A bot's own words, shown with its forfeit: the error line of its stderr.
    bot = r"""cmd:/bin/sh -c 'printf "RuntimeError: \033[2Jboom\n" >&2; exit 1'"""
    done = Journey(tmp_path / "forfeit")("play", "--bot", bot, "--bot", "random", "--seed", "1")
    (line,) = [line for line in done.out.splitlines() if "forfeited" in line]
    assert "crash: RuntimeError: \\x1b[2Jboom" in line and "\x1b" not in done.out, line


def test_a_damaged_store_is_one_line_and_debug_shows_the_traceback(tmp_path):
    arena = Journey(tmp_path)
    arena.data.mkdir()
    (arena.data / "results.sqlite").write_bytes(b"this is not a database" * 100)
    done = arena("leaderboard")
    assert done.code == 1 and "results store" in done.one_line_error()
    debug = arena("--debug", "leaderboard")
    assert debug.code == 1 and "Traceback" in debug.err


@contextmanager
def listener(reply: bytes | None) -> Iterator[int]:
    """A loopback port where something that is not a Ray head answers: ``reply`` to whatever
    it is sent (a web server), or nothing at all (``None``: a silent port)."""
    server = socket.create_server(("127.0.0.1", 0))
    connections: list[socket.socket] = []

    def serve() -> None:
        with suppress(OSError):
            while True:
                connection, _ = server.accept()
                connections.append(connection)
                if reply is not None:
                    connection.recv(1024)
                    connection.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for connection in connections:
            connection.close()


def test_ray_address_where_something_else_answers_is_one_line_before_ray_is_tried(tmp_path):
    """A wrong port is the commonest mistake: a web server or a silent port there kept
    ``ray.init`` trying for 62 s, printing Ray's own warnings, before any error. The line
    comes from the arena's own greeting check, made before Ray is imported: no Ray warning
    on the terminal (one line), however busy the machine."""
    http = b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    arena = Journey(tmp_path)
    with listener(http) as web, listener(None) as silent, ThreadPoolExecutor(2) as pool:
        runs = pool.map(
            lambda port: arena(*RUN, "--ray", f"127.0.0.1:{port}", timeout=300), (web, silent)
        )
        for port, done in zip((web, silent), list(runs), strict=True):
            assert done.code == 1, done.text
            line = done.one_line_error()
            assert f"something answers at 127.0.0.1:{port} but not as a Ray head" in line
    assert arena.files() == set(), "nothing stored"


def test_ctrl_c_on_a_ray_cluster_restores_the_display_and_the_same_command_resumes(
    tmp_path, ray_cluster
):
    """On Ray as locally: a tournament with its live display, stopped from its terminal by
    Ctrl-C, stops, starts nothing more, leaves the cursor shown and no process, and the
    same command finishes it. (SIGTERM on a cluster and Ctrl-C on a local Ray:
    tests/test_ray_journeys.py; both signals with the display locally: tests/test_store.py.)
    One match stalls (the chaos hook): the run cannot end before the signal, whatever the
    machine's speed."""
    arena = Journey(tmp_path)
    marker = f"ray-display-{tmp_path.name}"
    arena.env["ARENA_TEST_MARKER"] = marker
    stall = str(tmp_path / "stall")
    arena.env[chaos.STALL_IN_MATCH] = stall
    command = [*ARENA, *RUN, "--name", "shown", "--games", "3", "--ray", ray_cluster]
    stored = "SELECT count(*) FROM matches"
    driver, output = run_in_terminal(command, tmp_path, arena.env)
    try:
        deadline = time.monotonic() + 180
        while not arena.rows(stored) or arena.rows(stored)[0][0] < 1 or not chaos.claimed(stall):
            assert driver.poll() is None and time.monotonic() < deadline, output
            time.sleep(0.05)
        begun = set(os.listdir(arena.data / "bot-logs" / "shown"))
    except BaseException:
        driver.kill()
        raise
    shown, took = interrupt_terminal(driver, output, signal.SIGINT)
    assert driver.returncode == 130, (took, shown[-2000:])
    assert shown.rfind("\x1b[?25h") > shown.rfind("\x1b[?25l") >= 0, "cursor not restored"
    assert "run the same command to resume" in shown.strip().splitlines()[-1]
    assert len(set(os.listdir(arena.data / "bot-logs" / "shown")) - begun) <= 2
    assert not left_behind(marker, where="environ"), "processes left behind"
    done = arena(*command[len(ARENA) :], "--no-progress")
    assert done.code == 0 and arena.rows(stored) == [(6,)], done.text


# ---------------------------------------------------------------- managing what is stored


def test_list_and_remove_bots_list_and_delete_tournaments(tmp_path):
    arena = Journey(tmp_path)
    quick = ("--variant", "usa", "--games", "1")
    for _ in range(2):
        assert arena("submit", "rf", "--plugin", "ticket-by-ticket", *quick).code == 0
    assert arena("submit", "mine", "--file", PYTHON_BOT, *quick).code == 0
    code = list((arena.data / "bots" / "mine").iterdir())
    assert len(code) == 1, "the stored copy of mine@1"
    for name, bots in (("keep", ("rf@2", "random")), ("drop", ("rf@1", "mine"))):
        done = arena("tournament", "run", "--name", name, "--bot", bots[0], "--bot", bots[1],
                     "--players", "2")  # fmt: skip
        assert done.code == 0, done.text

    listed = arena("bots")
    assert re.search(r"rf\s+registered \(plugin\)\s+@1-@2", listed.out), listed.out
    long = arena("bots", "--long")
    assert "bots/mine/" in long.out and long.out.count("rf") >= 2
    tournaments = arena("tournament", "list")
    assert re.search(r"keep\s+usa\s+round-robin\s+2\s+2/2\s+finished", tournaments.out)
    assert re.search(r"drop\s+usa\s+round-robin\s+2\s+2/2\s+finished", tournaments.out)

    asked = arena("tournament", "delete", "drop")  # no terminal, no --yes: nothing happens
    assert asked.code == 2 and "--yes" in asked.one_line_error()
    assert "mine@1" in arena("leaderboard", "--format", "csv").out
    done = arena("tournament", "delete", "drop", "--yes")
    assert done.code == 0 and "deleted tournament 'drop' (2 matches)" in done.out
    board = arena("leaderboard", "--format", "csv").out
    assert "mine@1" not in board and "rf@2" in board, "the leaderboard is recomputed"
    assert not (arena.data / "bot-logs" / "drop").exists()
    assert "drop" not in arena("tournament", "list").out

    # A bot that a running tournament plays is not removed under it (it was: the run could
    # start no new process of it and could not resume).
    busy = arena.start("tournament", "run", "--name", "busy", "--bot", "mine", "--bot", "random",
                       "--players", "2", "--games", "50")  # fmt: skip
    deadline = time.monotonic() + 60
    while not arena.rows("SELECT count(*) FROM matches m JOIN tournaments t ON"
                         " t.id = m.tournament_id WHERE t.name = 'busy'")[0][0]:  # fmt: skip
        assert busy.poll() is None and time.monotonic() < deadline, busy.communicate()
        time.sleep(0.05)
    refused = arena("bots", "remove", "mine", "--yes")
    busy.send_signal(signal.SIGINT)
    assert busy.wait(30) == 130
    assert refused.code == 1 and "'busy' is being run by" in refused.one_line_error()
    assert "mine" in arena("bots").out and (arena.data / "bots" / "mine").is_dir()

    assert arena("bots", "remove", "rf@1", "--yes").code == 0
    assert re.search(r"rf\s+registered \(plugin\)\s+@2\b", arena("bots").out)
    assert arena("bots", "remove", "mine", "--yes").code == 0
    assert "mine" not in arena("bots").out and not (arena.data / "bots" / "mine").exists()
    gone = arena("play", "--bot", "mine", "--bot", "random")
    assert gone.code == 2 and "no bot named 'mine'" in gone.one_line_error()


# ---------------------------------------------------------------- output for a terminal


def test_output_fits_80_columns_and_the_standings_are_printed_once(tmp_path):
    arena = Journey(tmp_path, columns=80)
    long_name = "a-bot-with-a-name-much-longer-than-any-column-has-room-for"
    assert arena("submit", long_name, "--plugin", "ticket-collector").code == 0
    done = arena("tournament", "run", "--name", "t", "--bot", long_name, "--bot",
                 "ticket-collector", "--bot", "ticket-by-ticket", "--players", "2",
                 "--in-process")  # fmt: skip
    assert done.code == 0, done.text
    assert done.out.count("standings") == 1, done.out
    assert all(len(line) <= 80 for line in done.out.splitlines()), done.out
    board = arena("leaderboard")
    csv = arena("leaderboard", "--format", "csv").out.splitlines()
    assert all(len(line) <= 80 for line in board.out.splitlines()), board.out
    rows = [line.split() for line in board.out.splitlines() if re.match(r"\s*\d+\s", line)]
    assert len(rows) == 3
    for row, record in zip(rows, csv[1:], strict=True):
        fields = record.split(",")  # rank,bot,rating,mu,sigma,games,wins,win_rate,mean_score,...
        assert fields[1].startswith(row[1]), "a name is folded, never cut"
        mu, score = float(fields[3]), float(fields[8])
        assert row[3] == f"{mu:.2f}" and row[7] == f"{score:.1f}", "numbers are never cut"
    for command in ("variants", "bots"):
        out = arena(command).out.splitlines()
        assert all(len(line) <= 80 for line in out)
    lines = arena("variants").out.splitlines()
    for name in all_variants():
        assert sum(line.split()[:1] == [name] for line in lines) == 1, "one line per variant"
    long = arena("bots", "--long").out
    assert all(len(line) <= 80 for line in long.splitlines())
    assert "cardgame, cardgame-peek" in long, "words are never broken (was 'cardgame-pe|ek')"

    # A long ladder, stopped: the list keeps its counts and dates whole at 80 columns.
    ladder = arena.start(
        "tournament", "run", "--name", "weekly-ladder-of-every-bot", "--format", "ladder",
        "--games", "100000", "--players", "2", "--bot", "ticket-collector",
        "--bot", "ticket-by-ticket", "--in-process",
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while arena.rows("SELECT count(*) FROM matches")[0][0] < 7:
        assert ladder.poll() is None and time.monotonic() < deadline, ladder.communicate()
        time.sleep(0.05)
    ladder.send_signal(signal.SIGINT)
    assert ladder.wait(30) == 130
    listed = arena("tournament", "list").out
    assert all(len(line) <= 80 for line in listed.splitlines()), listed
    created = r"\d{4}-\d\d-\d\d \d\d:\d\d"
    assert re.search(
        rf"weekly-\S*\s+usa\s+ladder\s+2\s+\d+/100000\s+unfinished\s+{created}", listed
    )
    assert "…" not in listed and column_text(listed, "weekly-") == "weekly-ladder-of-every-bot"


def test_help_shows_the_defaults(tmp_path):
    arena = Journey(tmp_path, columns=120)
    help_text = arena("tournament", "run", "--help").out
    assert re.search(r"--players .*\[default: \(?4\)?\]", help_text), help_text
    assert "[default: round-robin]" in help_text and "[default: arena-data]" in help_text
    play_help = arena("play", "--help").out
    assert "name[@N]" in play_help and "[default: (--players random bots)]" in play_help


def test_parquet_export_without_pyarrow_says_which_extra_to_install(tmp_path):
    """``make run`` installs no pyarrow (it is the ``parquet`` extra)."""
    blocker = tmp_path / "no-pyarrow" / "pyarrow"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('pyarrow is not installed')\n")
    arena = Journey(tmp_path / "work")
    arena.env["PYTHONPATH"] = str(blocker.parent)
    done = arena("results", "--out", "x.parquet", "--format", "parquet")
    assert done.code == 1 and "pip install 'ttr-arena[parquet]'" in done.one_line_error()

"""People's games on a real ``arena host``: the worker plays them (the bot is the worker's
descendant, never a child of the web process), one live game per participant and
``[play] games`` on the server (429 saying why), and a game nobody looks at is resigned
after ``[play] abandon_minutes`` and stored apart from the ladder."""

from __future__ import annotations

import re
from pathlib import Path

from arena.server.play import Games
from arena.tournament.store import ResultsStore
from tests.host_helpers import HostProcess, competition_text, wait_until

PLAY = {"board": "usa-2", "bot": "random", "seat": "0"}


def parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[1])


def ancestors(pid: int) -> list[int]:
    found = []
    while pid > 1:
        pid = parent(pid)
        found.append(pid)
    return found


def bot_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"bots" in command and b"random" in command and b"-m" in command:
                found.append(int(entry.name))
    return found


def test_limits_abandonment_and_where_the_game_runs(tmp_path: Path) -> None:
    text = competition_text() + "[play]\ngames = 1\nabandon_minutes = 0.1\n"
    host = HostProcess(tmp_path, text).start()
    try:
        alice, bob = host.visitor(), host.visitor()
        assert alice.signup("alice").status_code == 303
        assert bob.signup("bob").status_code == 303
        before = set(bot_processes())
        started = alice.post("/play", PLAY, page="/play")
        assert started.status_code == 303, started.text
        game_id = started.headers["location"].rsplit("/", 1)[1]
        # The bot runs under the worker (the web process's child), not the web process.
        assert host.process is not None
        web = host.process.pid
        # (other tests' servers start bots too: this server's are those it is an ancestor of)
        bots = wait_until(
            lambda: {p for p in set(bot_processes()) - before if web in ancestors(p)},
            "the bot's process",
        )
        for pid in bots:
            line = ancestors(pid)
            assert line.index(web) > 0, line  # a grandchild at least, never the web's child
            worker = line[line.index(web) - 1]
            assert b"worker" in Path(f"/proc/{worker}/cmdline").read_bytes()
        again = alice.post("/play", PLAY, page="/play")
        assert again.status_code == 429
        assert "already have a game being played" in again.text
        full = bob.post("/play", PLAY, page="/play")
        assert full.status_code == 429 and "its most at once" in full.text
        assert re.search(r"back to it", alice.get("/play").text)
        # Nobody looks at it: resigned after abandon_minutes, the bot finishes, stored.
        games = Games(host.data)
        game = wait_until(
            lambda: (found := games.get(game_id)) is not None and not found.live and found,
            "the abandoned game ends",
        )
        assert game.status == "over" and game.match_id is not None, game
        with ResultsStore.reader(host.data) as store:
            result = store.match_result(game.match_id)
            assert store.results("test-cup-usa-2p", details=False) == []  # not the ladder's
        assert result is not None and result.tournament == "test-cup-play"
        assert result.faults[0] == "resigned" and "abandoned" in (result.fault_details[0] or "")
        assert bob.post("/play", PLAY, page="/play").status_code == 303  # room again
        assert alice.get(f"/play/{game_id}").status_code == 200
        assert bob.get(f"/play/{game_id}").status_code == 404  # hers, not his
    finally:
        host.stop()

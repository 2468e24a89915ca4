"""The accounts store upgrades in place: a data folder made before the schema had a version
(``tests/fixtures/accounts-unversioned.sqlite``, written by that release's own code) opens
with every account, session, token, submission, void and final kept, and each later step
applied once; a store of a newer arena is refused in one line."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.server import schema
from arena.server.accounts import FILE_NAME, Accounts
from arena.tournament.store import ResultsStore

FIXTURE = Path(__file__).parent / "fixtures" / "accounts-unversioned.sqlite"


def old_data_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copyfile(FIXTURE, folder / FILE_NAME)
    return folder


def version_of(folder: Path) -> int:
    with sqlite3.connect(folder / FILE_NAME) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_an_unversioned_store_is_upgraded_with_nothing_lost(tmp_path: Path) -> None:
    folder = old_data_folder(tmp_path)
    assert version_of(folder) == 0
    accounts = Accounts(folder)
    assert version_of(folder) == schema.VERSION
    assert [(u.name, u.role) for u in accounts.users()] == [
        ("root", "admin"),
        ("alice", "participant"),
        ("bob", "participant"),
    ]
    alice = accounts.sign_in("alice", "correct horse battery", "127.0.0.1")
    assert alice is not None and alice.name == "alice"
    assert accounts.playing() == {"alice.first@1": "alice"}
    assert [s["status"] for s in accounts.submissions()] == ["ok", "rejected"]
    assert accounts.voided() == {1000000001}
    [kept] = accounts.final_rounds("usa-2p")  # the final before rounds: round 1
    assert (kept.number, kept.bots) == (1, ["alice.first@1"])
    assert len(accounts.tokens(alice)) == 1
    # Opening it again applies nothing more and changes nothing.
    Accounts(folder)
    assert version_of(folder) == schema.VERSION


def test_every_step_applies_to_the_store_of_the_step_before(tmp_path: Path) -> None:
    """Each step on its own, in order, from the oldest store: no step relies on a later one."""
    folder = old_data_folder(tmp_path)
    db = sqlite3.connect(folder / FILE_NAME, isolation_level=None)
    for step in sorted(schema.STEPS):
        db.execute("BEGIN IMMEDIATE")
        for statement in schema.statements(schema.STEPS[step]):
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {step}")
        db.execute("COMMIT")
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    assert version_of(folder) == schema.VERSION
    assert len(Accounts(folder).users()) == 3


def test_two_processes_opening_one_old_store_at_once_upgrade_it_once(tmp_path: Path) -> None:
    folder = old_data_folder(tmp_path)
    opener = f"from arena.server.accounts import Accounts; Accounts({str(folder)!r})"
    children = [subprocess.Popen([sys.executable, "-c", opener]) for _ in range(3)]
    threads = [threading.Thread(target=Accounts, args=(folder,)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [child.wait(120) for child in children] == [0, 0, 0]
    assert version_of(folder) == schema.VERSION
    assert len(Accounts(folder).users()) == 3


def test_a_store_of_a_newer_arena_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = old_data_folder(tmp_path)
    with sqlite3.connect(folder / FILE_NAME) as db:
        db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    with pytest.raises(schema.SchemaError, match="newer ttr-arena") as refused:
        Accounts(folder)
    assert "\n" not in str(refused.value)


def test_a_new_store_is_made_at_the_last_version(tmp_path: Path) -> None:
    Accounts(tmp_path / "new")
    assert version_of(tmp_path / "new") == schema.VERSION


def test_arena_host_serves_a_data_folder_of_the_unversioned_release(tmp_path: Path) -> None:
    """The upgrade path end to end: the old release's data folder (its accounts store and a
    results store), a new ``arena host`` on it: it starts, and its accounts sign in."""
    from tests.host_helpers import HostProcess

    folder = old_data_folder(tmp_path)
    ResultsStore(folder).close()
    host = HostProcess(tmp_path).start()
    try:
        alice = host.visitor()
        assert alice.signin("alice", "correct horse battery").status_code == 303
        assert "alice.first@1" in alice.get("/me").text
    finally:
        host.stop()
    assert version_of(folder) == schema.VERSION


def test_arena_host_refuses_a_data_folder_of_a_newer_arena_in_one_line(tmp_path: Path) -> None:
    from tests.host_helpers import ARENA, competition_text

    folder = old_data_folder(tmp_path)
    ResultsStore(folder).close()
    with sqlite3.connect(folder / FILE_NAME) as db:
        db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    (tmp_path / "competition.toml").write_text(competition_text())
    done = subprocess.run(
        [ARENA, "host", str(tmp_path / "competition.toml"), "--data-dir", str(folder),
         "--port", "0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "newer ttr-arena" in done.stderr and "upgrade ttr-arena" in done.stderr
    assert "serving" not in done.stdout


def test_an_upgraded_store_keeps_teams_and_counts_their_playing_versions(tmp_path: Path) -> None:
    """The teams step on the old release's store: its accounts make a team, and what they
    had playing before counts for the team (``active_bots`` per team, one side a table)."""
    from arena.server.accounts import AccountError

    accounts = Accounts(old_data_folder(tmp_path))
    alice, bob = accounts.user_named("alice"), accounts.user_named("bob")
    assert alice is not None and bob is not None and alice.team is None
    team = accounts.create_team(alice, "pair", max_size=2)
    # Bob's own playing version and Alice's old one would be two: over a limit of one.
    sid = accounts.add_submission(bob, "second", "uploads/x/bot")
    accounts.passed(sid, 1, active_limit=1)
    _, code = accounts.new_team_invite(alice, max_size=2)
    with pytest.raises(AccountError, match="would have 2 versions playing"):
        accounts.join_team(bob, code, max_size=2, active_limit=1)
    accounts.join_team(bob, code, max_size=2, active_limit=2)
    bob = accounts.user_named("bob")
    assert bob is not None and bob.team == "pair" and bob.mates == {"alice", "bob"}
    side = f"team:{team.id}"
    assert accounts.sides() == {"alice.first@1": side, "bob.second@1": side}
    assert accounts.playing() == {"alice.first@1": "alice", "bob.second@1": "bob"}
    third = accounts.add_submission(alice, "third", "uploads/y/bot")
    accounts.passed(third, 1, active_limit=2)  # the team's third: it rests
    assert accounts.submission(third)["active"] == 0  # type: ignore[index]
    Accounts(tmp_path / "data")  # opened again: nothing changes
    assert version_of(tmp_path / "data") == schema.VERSION
    assert [t.members for t in Accounts(tmp_path / "data").teams()] == [("alice", "bob")]

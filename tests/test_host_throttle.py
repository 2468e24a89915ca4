"""Sign-in delays and the sign-up cap against a real ``arena host``: a guesser waits longer
at each failure and is told so at once (429), a class of 30 behind one address signs up
and in, an invite code lifts the cap, an admin clears a delay, every refusal is logged.

The waits are real seconds here (ARENA_HOST_THROTTLE_SECOND can shorten them): a try made
right after a failure meets its wait, however busy the machine; nothing here measures how
long anything took."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from tests.host_helpers import HostProcess, competition_text, fail_signins, told_wait

SECOND = "1"  # a whole second: a busy machine still asks again within the waits


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    folder = tmp_path_factory.mktemp("throttle")
    server = HostProcess(folder, env={"ARENA_HOST_THROTTLE_SECOND": SECOND}).start()
    yield server
    server.stop()


def server_log(host: HostProcess) -> str:
    return (host.data / "server.log").read_text()


def test_a_guesser_waits_longer_at_each_failure_and_is_told_at_once(host: HostProcess) -> None:
    owner = host.visitor()
    assert owner.signup("victim").status_code == 303
    guesser = host.visitor()
    found = fail_signins(guesser, "victim", 8)
    # Three free, then 1, 2, 4, 8, 16 seconds: each failure's answer names its wait.
    assert [wait for wait, _ in found] == [0, 0, 0, 1, 2, 4, 8, 16]
    # A try within the wait is answered at once with 429 and what is left of it (the first
    # such answer after a 4 and an 8 second wait: some of it, at most all of it).
    for wait, refused in found[5:7]:
        assert 0 < refused <= wait, found
    answer = guesser.signin("victim", "correct horse battery")  # right, but within the wait
    assert answer.status_code == 429 and 8 <= told_wait(answer) <= 16
    assert answer.headers["retry-after"] == str(told_wait(answer))
    assert "arena_session" not in answer.headers.get("set-cookie", "")
    assert re.search(
        r"sign-in delayed for 'victim' from 127\.0\.0\.1: try again in \d+ s", server_log(host)
    )
    # A name nobody has is slowed the same way (the delays say nothing of who exists).
    assert [w for w, _ in fail_signins(host.visitor(), "nobody-here", 5)] == [0, 0, 0, 1, 2]


def test_an_admin_clears_a_delay_on_the_admin_page_and_from_the_command_line(
    host: HostProcess,
) -> None:
    participant = host.visitor()
    assert participant.signup("slowed").status_code == 303
    user = Accounts(host.data).user_named("slowed")
    assert user is not None
    admin = host.admin("boss")
    for how in ("page", "cli"):
        guesser = host.visitor()
        assert [w for w, _ in fail_signins(guesser, "slowed", 6)][-1] == 4
        if how == "page":
            row = re.search(r'<tr data-user="slowed">.*?</tr>', admin.get("/admin").text)
            assert row and '<td class="failed">6</td>' in row.group()
            assert f'action="/admin/users/{user.id}/unthrottle"' in row.group()
            # Not for a participant (the page does not exist), nor without CSRF token ...
            assert participant.post(f"/admin/users/{user.id}/unthrottle").status_code == 404
            no_token = admin.client.post(f"/admin/users/{user.id}/unthrottle")
            assert no_token.status_code == 403
            assert '<td class="failed">6</td>' in admin.get("/admin").text
            answer = admin.post(f"/admin/users/{user.id}/unthrottle", page="/admin")
            assert answer.status_code == 303  # ... the admin's, with its CSRF token, is done
            assert "admin boss cleared the sign-in delays of slowed (6 failures)" in server_log(
                host
            )
        else:
            done = host.arena("admin", "unthrottle", "slowed", "--data-dir", str(host.data))
            assert done.returncode == 0 and "cleared the sign-in delays of slowed" in done.stdout
            assert "admin (command line) cleared the sign-in delays of slowed" in server_log(host)
        # Forgotten, not merely waited out: the count starts afresh (three free failures).
        assert [w for w, _ in fail_signins(guesser, "slowed", 3)] == [0, 0, 0]
        assert host.visitor().signin("slowed").status_code == 303
    nobody = host.arena("admin", "unthrottle", "nobody", "--data-dir", str(host.data))
    assert nobody.returncode != 0 and "no account named 'nobody'" in nobody.stderr
    assert len(nobody.stderr.strip().splitlines()) == 1


CLASS = 30


def test_a_class_behind_one_address_signs_up_and_in_and_an_invite_lifts_the_cap(
    tmp_path: Path,
) -> None:
    text = competition_text(signups_per_address=str(CLASS)).replace(
        'mode = "open"', 'mode = "open"\ninvite_codes = ["class-7b"]\nunlimited_invites = true'
    )
    host = HostProcess(tmp_path, text).start()
    try:
        for number in range(CLASS):
            assert host.visitor().signup(f"pupil{number}").status_code == 303
        for number in range(CLASS):  # each mistypes once, from another browser
            browser = host.visitor()
            assert browser.signin(f"pupil{number}", "a wrong password").status_code == 401
            assert browser.signin(f"pupil{number}").status_code == 303
        late = host.visitor()
        answer = late.signup("latecomer")
        assert answer.status_code == 429 and "too many sign-ups from this address" in answer.text
        assert (
            f"sign-up refused for 'latecomer' from 127.0.0.1: {CLASS} sign-ups from this address"
            in server_log(host)
        )
        fields = {"name": "latecomer", "password": "correct horse battery"}
        wrong = late.post("/signup", fields | {"invite": "guess"}, page="/signup")
        assert wrong.status_code == 400 and "invite code is not valid" in wrong.text
        assert "sign-up refused for 'latecomer' from 127.0.0.1: invite" in server_log(host)
        invited = late.post("/signup", fields | {"invite": "class-7b"}, page="/signup")
        assert invited.status_code == 303
        assert "sign-up latecomer from 127.0.0.1 (invited)" in server_log(host)
        assert len(Accounts(host.data).users()) == CLASS + 1
    finally:
        host.stop()


def test_the_failures_table_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Old failures are deleted at each new one, and at most MAX_ROWS rows stay (the newest):
    a flood of guesses over endless names cannot fill the disk."""
    import sqlite3
    import time

    from arena.server import throttle

    accounts = Accounts(tmp_path)
    with accounts.transaction() as db:
        db.execute("INSERT INTO failures (key, at) VALUES ('signin:old 1.2.3.4', ?)",
                   (time.time() - throttle.WINDOW - 60,))  # fmt: skip
    monkeypatch.setattr(throttle, "MAX_ROWS", 50)
    for number in range(200):
        accounts.throttle.fail(throttle.keys_for(f"name{number}", "10.0.0.1", None))
    with sqlite3.connect(tmp_path / "accounts.sqlite") as db:
        keys = [key for (key,) in db.execute("SELECT key FROM failures")]
    assert len(keys) == 50 and "signin:old 1.2.3.4" not in keys
    assert "signin:name199 10.0.0.1" in keys and "signin:name0 10.0.0.1" not in keys

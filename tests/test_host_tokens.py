"""API tokens are credentials for the API, not logins: attacks on a real ``arena host``
over HTTP with the tokens of a participant and of an admin. A token reaches ``/api/``
only, with the scopes chosen when it was made; on every other route (``/admin``, the
forms, the token pages) it is refused (403) and changes nothing; an account holds at most
``MAX_LIVE_TOKENS`` live tokens; a token made before scopes existed has submit and read."""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.routing import Route

from arena.server.accounts import MAX_LIVE_TOKENS, Accounts, digest
from arena.server.api import check_routes
from tests.host_helpers import HostProcess, Visitor

BOT_FILE = Path(__file__).resolve().parents[1] / "examples" / "python-bot" / "bot.py"
GOOD_BOT = BOT_FILE.read_bytes()
OLD_STORE = Path(__file__).parent / "fixtures" / "accounts-unversioned.sqlite"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("tokens")).start()
    yield server
    server.stop()


def count(host: HostProcess, table: str) -> int:
    with sqlite3.connect(host.data / "accounts.sqlite") as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def signed_up(host: HostProcess, name: str) -> Visitor:
    visitor = host.visitor()
    assert visitor.signup(name).status_code == 303
    return visitor


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_upload(host: HostProcess, token: str, bot: str = "b"):
    files = {"file": ("bot.py", GOOD_BOT)}
    return host.visitor().client.post(
        "/api/submissions", data={"bot": bot}, files=files, headers=bearer(token)
    )


def test_an_admin_token_reaches_no_admin_page(host: HostProcess) -> None:
    admin = host.admin("chief")
    victim = signed_up(host, "victim")
    victim_id = Accounts(host.data).user_named("victim").id  # type: ignore[union-attr]
    tokens = [admin.token(), admin.token(("submit", "read", "admin"))]
    thief = host.visitor()  # has the token, not the admin's browser
    for token in tokens:
        for path in ("/admin", "/admin/export", "/me"):
            answer = thief.get(path, headers=bearer(token))
            assert answer.status_code == 403, path
            assert "reaches /api/ only" in answer.text and answer.text.count("<p>") == 1
        for path in (f"/admin/users/{victim_id}/disable", "/admin/matches/1/void"):
            answer = thief.client.post(path, headers=bearer(token))
            assert answer.status_code == 403, path
    accounts = Accounts(host.data)
    assert not accounts.user_named("victim").disabled  # type: ignore[union-attr]
    assert accounts.voided() == set()
    assert victim.get("/me").status_code == 200  # still signed in
    # The token alongside the admin's own session cookie is still refused: never a session.
    answer = admin.get("/admin", headers=bearer(tokens[1]))
    assert answer.status_code == 403
    assert "refused on GET '/admin'" in (host.data / "server.log").read_text()


def test_a_participant_token_cannot_make_revoke_or_use_the_forms(host: HostProcess) -> None:
    owner = signed_up(host, "owner")
    token = owner.token()
    thief = host.visitor()
    before = {t: count(host, t) for t in ("tokens", "submissions", "sessions")}
    answer = thief.client.post("/me/tokens", data={"label": "mine", "scope": "submit"},
                               headers=bearer(token))  # fmt: skip
    assert answer.status_code == 403 and "arena_" not in answer.text
    assert thief.get("/me", headers=bearer(token)).status_code == 403
    answer = thief.client.post("/upload", data={"bot": "x"}, files={"file": ("b.py", GOOD_BOT)},
                               headers=bearer(token))  # fmt: skip
    assert answer.status_code == 403
    own = Accounts(host.data).tokens(Accounts(host.data).user_named("owner"))  # type: ignore[arg-type]
    for path in (f"/me/tokens/{own[0]['id']}/revoke", "/signout", "/submissions/1/play"):
        assert thief.client.post(path, headers=bearer(token)).status_code == 403, path
    assert {t: count(host, t) for t in before} == before
    # The token still works where it belongs, and revoking it (from the page) ends it.
    assert thief.get("/api/submissions", headers=bearer(token)).status_code == 200
    assert owner.post(f"/me/tokens/{own[0]['id']}/revoke").status_code == 303
    assert thief.get("/api/submissions", headers=bearer(token)).status_code == 401


def test_each_api_route_needs_its_scope(host: HostProcess) -> None:
    reader = signed_up(host, "reader")
    read_only = reader.token(("read",))
    before = count(host, "submissions")
    answer = api_upload(host, read_only)
    assert answer.status_code == 403
    assert "lacks the 'submit' scope" in answer.json()["error"]
    assert count(host, "submissions") == before
    assert host.visitor().get("/api/submissions", headers=bearer(read_only)).json() == {
        "submissions": []
    }
    submit_only = reader.token(("submit",))
    answer = api_upload(host, submit_only)
    assert answer.status_code == 200, answer.text
    sid = answer.json()["id"]
    assert count(host, "submissions") == before + 1
    api = host.visitor()
    for path in (f"/api/submissions/{sid}", "/api/submissions"):
        answer = api.get(path, headers=bearer(submit_only))
        assert answer.status_code == 403 and "lacks the 'read' scope" in answer.json()["error"]
    answer = api.get(f"/api/submissions/{sid}", headers=bearer(read_only))
    assert answer.status_code == 200 and answer.json()["bot"] == "b"
    listed = api.get("/api/submissions", headers=bearer(read_only)).json()["submissions"]
    assert [s["id"] for s in listed] == [sid]
    # The page lists each token's scopes.
    page = reader.get("/me").text
    assert '<span class="scopes">read</span>' in page
    assert '<span class="scopes">submit</span>' in page
    assert 'value="admin"' not in page  # a participant is not offered the admin scope


def test_the_admin_scope_is_asked_for_shown_and_logged(host: HostProcess) -> None:
    mallory = signed_up(host, "mallory")
    before = count(host, "tokens")
    answer = mallory.post("/me/tokens", {"label": "x", "scope": ["submit", "admin"]})
    assert answer.status_code == 400 and "only an admin" in answer.text
    for scopes in ([], ["root"]):
        answer = mallory.post("/me/tokens", {"label": "x", "scope": scopes})
        assert answer.status_code == 400 and answer.text.count("<p class") == 1
    assert count(host, "tokens") == before
    assert mallory.get("/api/admin/export").status_code == 404  # her session: not an admin
    boss = host.admin("boss")
    plain = boss.token()
    assert 'value="admin">' in boss.get("/me").text  # offered, not ticked
    answer = host.visitor().get("/api/admin/export", headers=bearer(plain))
    assert answer.status_code == 403 and "lacks the 'admin' scope" in answer.json()["error"]
    exporter = boss.token(("admin",))
    assert '<span class="scopes">admin</span>' in boss.get("/me").text
    answer = host.visitor().get("/api/admin/export", headers=bearer(exporter))
    assert answer.status_code == 200 and answer.json()["competition"] == "test-cup"
    log = (host.data / "server.log").read_text()
    assert "of boss used: GET '/api/admin/export'" in log
    # An admin scope does not outlive the account's admin role (another admin stays).
    host.admin("deputy")
    Accounts(host.data).set_role("boss", "participant")
    answer = host.visitor().get("/api/admin/export", headers=bearer(exporter))
    assert answer.status_code == 403


def test_live_tokens_per_account_are_capped(host: HostProcess) -> None:
    hoarder = signed_up(host, "hoarder")
    accounts = Accounts(host.data)
    user = accounts.user_named("hoarder")
    assert user is not None
    accounts.new_token(user, "old", seconds=-1)  # expired: holds no slot
    tokens = [hoarder.token() for _ in range(MAX_LIVE_TOKENS)]
    answer = hoarder.post("/me/tokens", {"label": "one more", "scope": ["submit", "read"]})
    assert answer.status_code == 400
    assert f"at most {MAX_LIVE_TOKENS} live API tokens" in answer.text
    assert answer.text.count("<p class") == 1
    assert len(accounts.tokens(user)) == MAX_LIVE_TOKENS + 1
    # Revoking one frees its slot.
    first = accounts.tokens(user)[1]
    assert hoarder.post(f"/me/tokens/{first['id']}/revoke").status_code == 303
    assert host.visitor().get("/api/submissions", headers=bearer(tokens[0])).status_code == 401
    assert hoarder.token()
    assert len([t for t in accounts.tokens(user) if t["live"]]) == MAX_LIVE_TOKENS


def test_the_command_line_says_which_scope_a_token_lacks(host: HostProcess) -> None:
    cli = signed_up(host, "cli")
    for scopes, words in (
        (("read",), "refused the upload: this token lacks the 'submit' scope"),
        (("submit",), "uploaded as submission"),
    ):
        done = host.arena(
            "submit", "b", "--file", str(BOT_FILE), "--server", host.url,
            "--token", cli.token(scopes),
        )  # fmt: skip
        assert done.returncode != 0
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr
        assert "Traceback" not in done.stderr
    assert "lacks the 'read' scope" in done.stderr


def test_a_token_made_before_scopes_has_submit_and_read(tmp_path: Path) -> None:
    """The data folder of the release before scopes, with a token of its admin's made then
    (its row as that release wrote it: no scopes column): after the upgrade the token
    uploads and reads, and still reaches neither the admin's export nor /admin."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(OLD_STORE, data / "accounts.sqlite")
    token = "arena_made-before-scopes-existed-0123456789abcdef"
    with sqlite3.connect(data / "accounts.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
        db.execute("UPDATE submissions SET active = 0")  # their files are not in the fixture
        db.execute(
            "INSERT INTO tokens (user_id, token_hash, label, created_at, expires_at)"
            " VALUES (1, ?, 'old admin cli', ?, ?)",
            (digest(token), time.time(), time.time() + 86400),
        )
    host = HostProcess(tmp_path).start()
    try:
        with sqlite3.connect(data / "accounts.sqlite") as db:
            assert {row[0] for row in db.execute("SELECT scopes FROM tokens")} == {"submit,read"}
        api = host.visitor()
        answer = api_upload(host, token, "old")
        assert answer.status_code == 200, answer.text
        status = api.get(f"/api/submissions/{answer.json()['id']}", headers=bearer(token))
        assert status.status_code == 200 and status.json()["bot"] == "old"
        answer = api.get("/api/admin/export", headers=bearer(token))
        assert answer.status_code == 403 and "lacks the 'admin' scope" in answer.json()["error"]
        assert api.get("/admin/export", headers=bearer(token)).status_code == 403
        alice = host.visitor()
        assert alice.signin("alice").status_code == 303
        assert '<span class="scopes">submit, read</span>' in alice.get("/me").text
    finally:
        host.stop()


def test_an_api_route_without_a_scope_is_refused_when_the_app_is_built() -> None:
    def handler(request):  # never called: the table is refused first
        raise AssertionError

    with pytest.raises(ValueError, match="declares no scope"):
        check_routes([Route("/api/unguarded", handler)])
    check_routes([Route("/pages/fine", handler)])

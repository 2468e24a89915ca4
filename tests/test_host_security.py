"""Attacks on ``arena host`` over real HTTP against a real server on 127.0.0.1: two
accounts attacking each other, CSRF on every form, every endpoint without a session,
stolen and expired tokens, session fixation, sign-in brute force, script in every
string a participant controls, oversized and slow requests. Each is refused in one
line and stores nothing."""

from __future__ import annotations

import io
import socket
import sqlite3
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from tests.host_helpers import HostProcess, Visitor, fail_signins

SCRIPT = "<script>alert(1)</script>"
CRASHING_BOT = f"import sys\nprint({SCRIPT!r}, file=sys.stderr)\nraise SystemExit({SCRIPT!r})\n"
GOOD_BOT = (Path(__file__).resolve().parents[1] / "examples" / "python-bot" / "bot.py").read_bytes()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    folder = tmp_path_factory.mktemp("host")
    server = HostProcess(folder, env={"ARENA_HOST_THROTTLE_SECOND": "1"}).start()
    yield server
    server.stop()


def rows(host: HostProcess, table: str) -> int:
    with sqlite3.connect(host.data / "accounts.sqlite") as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def signed_up(host: HostProcess, name: str) -> Visitor:
    visitor = host.visitor()
    answer = visitor.signup(name)
    assert answer.status_code == 303, answer.text
    return visitor


def test_two_accounts_attack_each_other(host: HostProcess) -> None:
    alice, bob = signed_up(host, "alice"), signed_up(host, "bob")
    answer = alice.upload("crasher", "bot.py", CRASHING_BOT.encode())
    assert answer.status_code == 303
    page = answer.headers["location"]
    sid = int(page.rsplit("/", 1)[1])
    text = alice.wait_for(page, r'id="status">rejected')
    # Alice sees why and her stderr, escaped; Bob sees none of it, whatever the id.
    assert "&lt;script&gt;" in text and SCRIPT not in text
    for path in (page, f"{page}/code", f"/api/submissions/{sid}"):
        assert bob.get(path).status_code == 404, path
        assert "&lt;script" not in bob.get(path).text
    before = alice.get(page).text
    assert bob.post(f"{page}/play", {"play": "1"}).status_code == 404
    assert alice.get(page).text == before
    token = bob.token()
    stolen = host.visitor()
    answer = stolen.get(f"/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 404
    assert alice.get(f"{page}/code").content == CRASHING_BOT.encode()
    # Neither is an admin.
    for visitor in (alice, bob):
        assert visitor.get("/admin").status_code == 404
        assert visitor.get("/admin/export").status_code == 404
        assert visitor.post("/admin/users/1/disable").status_code == 404


FORMS = [
    ("/signup", {"name": "mallory", "password": "correct horse battery"}),
    ("/signin", {"name": "carol", "password": "correct horse battery"}),
    ("/signout", {}),
    ("/me/tokens", {"label": "x"}),
    ("/me/tokens/1/revoke", {}),
    ("/upload", {"bot": "x"}),
    ("/submissions/1/play", {"play": "1"}),
    ("/admin/submissions/1/disable", {}),
    ("/admin/users/1/disable", {}),
    ("/admin/matches/1/void", {}),
    ("/play", {"board": "usa-2", "bot": "random", "seat": "0"}),
    ("/play/0123456789ab/action", {"action": "draw deck"}),
    ("/play/0123456789ab/resign", {}),
]


@pytest.mark.parametrize(("path", "data"), FORMS, ids=[p for p, _ in FORMS])
def test_csrf_on_every_form(host: HostProcess, path: str, data: dict) -> None:
    carol = host.visitor()
    if carol.get("/signin").status_code == 200 and not hasattr(host, "carol"):
        assert carol.signup("carol").status_code == 303
        host.carol = True  # type: ignore[attr-defined]
    else:
        assert carol.signin("carol").status_code == 303
    counts = {t: rows(host, t) for t in ("users", "sessions", "tokens", "submissions", "voided")}
    for token in (None, "wrong", carol.token_from("/me") + "x"):
        fields = dict(data) if token is None else {**data, "csrf": token}
        answer = carol.client.post(path, data=fields, files={"file": ("bot.py", GOOD_BOT)})
        assert answer.status_code == 403, (path, answer.status_code)
        assert answer.text.count("<p>") == 1 and "CSRF" in answer.text
    assert {t: rows(host, t) for t in counts} == counts
    assert carol.get("/me").status_code == 200  # still signed in: signout was refused


PAGES = ["/me", "/submissions/1", "/submissions/1/code", "/admin", "/admin/export",
         "/matches/1/stderr/0", "/play", "/play/0123456789ab"]  # fmt: skip


def test_every_endpoint_without_a_session(host: HostProcess) -> None:
    stranger = host.visitor()
    for path in PAGES:
        answer = stranger.get(path)
        assert answer.status_code in (303, 404), path
        if answer.status_code == 303:
            assert answer.headers["location"] == "/signin"
    counts = {t: rows(host, t) for t in ("users", "tokens", "submissions", "voided")}
    for path, data in FORMS[2:]:  # with the visitor's own (valid) form token: still refused
        answer = stranger.post(path, data, page="/signin", files={"file": ("b.py", GOOD_BOT)})
        assert answer.status_code in (303, 404), path
    answer = stranger.client.post("/api/submissions", files={"file": ("b.py", GOOD_BOT)})
    assert answer.status_code == 403  # no token, no cookie: no CSRF token either
    assert stranger.get("/api/submissions/1").status_code == 401
    assert {t: rows(host, t) for t in counts} == counts


def test_a_stolen_revoked_or_expired_token_is_refused(host: HostProcess) -> None:
    dave = signed_up(host, "dave")
    token = dave.token()
    api = host.visitor()
    auth = {"Authorization": f"Bearer {token}"}
    files = {"file": ("bot.py", GOOD_BOT)}
    forged = {"Authorization": "Bearer arena_" + "A" * 43}
    answer = api.client.post("/api/submissions", data={"bot": "b"}, files=files, headers=forged)
    assert answer.status_code == 401 and "unknown, revoked or expired" in answer.text
    accounts = Accounts(host.data)
    user = accounts.user_named("dave")
    assert user is not None
    expired = accounts.new_token(user, "old", seconds=-1)
    answer = api.client.post(
        "/api/submissions", data={"bot": "b"}, files=files,
        headers={"Authorization": f"Bearer {expired}"},
    )  # fmt: skip
    assert answer.status_code == 401
    for row in accounts.tokens(user):
        if row["label"] == "cli":
            accounts.revoke_token(user, row["id"])
    answer = api.client.post("/api/submissions", data={"bot": "b"}, files=files, headers=auth)
    assert answer.status_code == 401
    assert accounts.submissions(user) == []


def test_session_fixation_and_forged_cookies(host: HostProcess) -> None:
    signed_up(host, "erin")
    attacker = signed_up(host, "frank")
    planted = attacker.client.cookies["arena_session"]
    victim = host.visitor()
    victim.client.cookies.set("arena_session", planted, domain="127.0.0.1", path="/")
    assert victim.signin("erin").status_code == 303
    assert victim.client.cookies["arena_session"] != planted
    assert 'id="me">erin<' in victim.get("/me").text
    # The planted id never became Erin's; a cookie with a bad signature is nobody's.
    replay = host.visitor()
    replay.client.cookies.set("arena_session", planted, domain="127.0.0.1", path="/")
    assert "erin" not in replay.get("/me").text
    forged = host.visitor()
    session = victim.client.cookies["arena_session"].rpartition(".")[0]
    forged.client.cookies.set("arena_session", session + ".0000", domain="127.0.0.1", path="/")
    assert forged.get("/me").status_code == 303
    # Signing out ends the session on the server, not only in the browser.
    stolen = victim.client.cookies["arena_session"]
    assert victim.post("/signout").status_code == 303
    thief = host.visitor()
    thief.client.cookies.set("arena_session", stolen, domain="127.0.0.1", path="/")
    assert thief.get("/me").status_code == 303


def test_a_stranger_s_guesses_never_keep_the_owner_out(host: HostProcess) -> None:
    """Failed sign-ins slow the guesser, never lock the account: the owner's browser (its
    device cookie) is judged by its own failures only, even from the guesser's address, and
    guesses from another address never slow the owner's."""
    grace = signed_up(host, "grace")
    assert grace.post("/signout").status_code == 303
    thief = host.visitor()  # the same address as grace's (one school NAT)
    waits = [wait for wait, _ in fail_signins(thief, "grace", 5)]
    answer = grace.signin("grace")  # grace is not slowed, from the same address ...
    assert answer.status_code == 303 and 'id="me">grace<' in grace.get("/me").text
    assert waits[-1] > 0  # ... the thief is
    # What told grace's browser apart: its device cookie, HttpOnly, for her name only.
    device = [c for c in grace.client.cookies.jar if c.name == "arena_device_grace"]
    assert device and device[0].has_nonstandard_attr("HttpOnly")
    # Grace's sign-in forgave her own device, not the thief: his next guess waits longer.
    assert fail_signins(thief, "grace", 1)[0][0] == 2 * waits[-1]
    # Guesses from another address (127.0.0.2) never slow a browser here, device or not.
    signed_up(host, "ivy").post("/signout")
    fail_signins(host.visitor(source="127.0.0.2"), "ivy", 6)
    assert host.visitor().signin("ivy").status_code == 303
    log = (host.data / "server.log").read_text()
    assert "sign-in delayed for 'grace' from 127.0.0.1" in log
    assert "sign-in delayed for 'ivy' from 127.0.0.2" in log


def test_script_in_every_string_a_participant_controls(host: HostProcess) -> None:
    mallory = host.visitor()
    answer = mallory.signup(SCRIPT)
    assert answer.status_code == 400 and SCRIPT not in answer.text
    signed_up(host, "heidi")
    heidi = host.visitor()
    heidi.signin("heidi")
    assert SCRIPT not in heidi.upload(SCRIPT, "bot.py", GOOD_BOT).text
    assert SCRIPT not in heidi.post("/me/tokens", {"label": SCRIPT, "scope": "read"}).text
    assert "&lt;script&gt;" in heidi.get("/me").text
    answer = heidi.upload("x", f"{SCRIPT}.zip", b"not a zip")
    assert answer.status_code == 400 and SCRIPT not in answer.text


def archive(kind: str, members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for name, data in members.items():
                out.writestr(name, data)
            for name, target in (links or {}).items():
                info = zipfile.ZipInfo(name)
                info.external_attr = (0o120777) << 16
                out.writestr(info, target)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as out:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                out.addfile(info, io.BytesIO(data))
            for name, target in (links or {}).items():
                info = tarfile.TarInfo(name)
                info.type = tarfile.SYMTYPE
                info.linkname = target
                out.addfile(info)
    return buffer.getvalue()


ATTACKS = {
    "zip traversal": ("zip", {"bot.py": GOOD_BOT, "../../evil.py": b"x"}, None, "outside"),
    "tar traversal": ("tar.gz", {"bot.py": GOOD_BOT, "/etc/evil": b"x"}, None, "outside"),
    "zip link": ("zip", {"bot.py": GOOD_BOT}, {"data": "/etc/passwd"}, "link"),
    "tar link": ("tar.gz", {"bot.py": GOOD_BOT}, {"data": "/etc/passwd"}, "link"),
    "zip bomb": ("zip", {"bot.py": GOOD_BOT, "zeros": bytes(5_000_000)}, None, "unpacks to more"),
    "tar bomb": ("tar.gz", {"bot.py": GOOD_BOT, "z": bytes(5_000_000)}, None, "unpacks to more"),
    "too many files": ("zip", {f"f{i}": b"x" for i in range(30)} | {"bot.py": b""}, None, "files"),
    "no bot.py": ("zip", {"main.py": GOOD_BOT}, None, "no bot.py"),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_archive_attacks_are_refused_and_store_nothing(host: HostProcess, attack: str) -> None:
    kind, members, links, message = ATTACKS[attack]
    ivan = host.visitor()
    if ivan.signin("ivan").status_code != 303:
        assert ivan.signup("ivan").status_code == 303
    before = rows(host, "submissions")
    uploads = set((host.data / "uploads").glob("*"))
    answer = ivan.upload("attack", f"bot.{kind}", archive(kind, members, links))
    assert answer.status_code == 400, answer.text
    assert message in answer.text and answer.text.count("<p class") == 1
    assert rows(host, "submissions") == before
    assert set((host.data / "uploads").glob("*")) == uploads
    assert not (host.folder / "evil.py").exists()


def test_oversized_and_slow_requests(host: HostProcess) -> None:
    judy = signed_up(host, "judy")
    before = rows(host, "submissions")
    answer = judy.upload("big", "bot.py", b"#" * 400_000)
    assert answer.status_code == 413 and "at most" in answer.text
    # A body that trickles is cut off (the server's deadline, shortened for the test).
    port = int(host.url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(
            b"POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded"
            b"\r\nContent-Length: 1000\r\n\r\nname=a"
        )
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 408")
    assert rows(host, "submissions") == before


def test_an_error_shows_an_id_and_logs_the_traceback(host: HostProcess) -> None:
    kim = signed_up(host, "kim")
    server_log = host.data / "server.log"
    assert "sign-up kim" in server_log.read_text()
    answer = kim.get("/matches/999999999999")
    assert answer.status_code == 404 and "Traceback" not in answer.text


def test_no_traceback_reaches_a_page(tmp_path: Path) -> None:
    """An unexpected error answers a short page with an id; the traceback is in the log
    under that id (a real uvicorn on loopback, an application that fails)."""
    import logging
    import threading

    import httpx
    import uvicorn

    from arena.server.web import ErrorPages
    from tests.conftest import free_port

    async def failing(scope, receive, send) -> None:
        if scope["type"] == "http":
            raise RuntimeError("secret internals")

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("arena.host").addHandler(handler)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(ErrorPages(failing), port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        answer = None
        for _ in range(200):  # bounded: until the server answers
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/x", timeout=10)
                break
            except httpx.ConnectError:
                thread.join(0.1)
        assert answer is not None and answer.status_code == 500
        assert "secret internals" not in answer.text and "Traceback" not in answer.text
        error_id = answer.text.split("error id ")[1].split(")")[0]
        assert any(error_id in r.getMessage() and r.exc_info for r in records)
    finally:
        server.should_exit = True
        thread.join(30)
        logging.getLogger("arena.host").removeHandler(handler)


def test_a_disabled_account_is_signed_out_everywhere(host: HostProcess) -> None:
    larry = signed_up(host, "larry")
    token = larry.token()
    admin = host.admin("boss")
    user = Accounts(host.data).user_named("larry")
    assert user is not None
    disable = f"/admin/users/{user.id}/disable"
    assert admin.post(disable, {"confirm": "yes"}, page="/admin").status_code == 303
    assert larry.get("/me").status_code == 303  # its session ended
    assert host.visitor().signin("larry").status_code == 401
    api = host.visitor().get("/api/submissions/1", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 401
    assert "admin boss: disable larry" in (host.data / "server.log").read_text()


def test_invite_codes_closed_registration_and_the_daily_limit(tmp_path: Path) -> None:
    from tests.host_helpers import competition_text

    text = competition_text().replace('mode = "open"', 'mode = "invite"\ninvite_codes = ["s3cret"]')
    text = text.replace("submissions_per_day = 6", "submissions_per_day = 1")
    (tmp_path / "invite").mkdir()
    host = HostProcess(tmp_path / "invite", text).start()
    try:
        guest = host.visitor()
        fields = {"name": "guest", "password": "correct horse battery", "invite": "guess"}
        answer = guest.post("/signup", fields, page="/signup")
        assert answer.status_code == 400 and "invite code is not valid" in answer.text
        assert rows(host, "users") == 0
        assert (
            guest.post("/signup", fields | {"invite": "s3cret"}, page="/signup").status_code == 303
        )
        assert guest.upload("one", "one.py", GOOD_BOT).status_code == 303
        answer = guest.upload("two", "two.py", GOOD_BOT)
        assert answer.status_code == 400 and "at most 1 submissions a day" in answer.text
        assert rows(host, "submissions") == 1
    finally:
        host.stop()
    (tmp_path / "closed").mkdir()
    closed = HostProcess(tmp_path / "closed", competition_text().replace('"open"', '"closed"'))
    closed.start()
    try:
        fields = {"name": "nobody", "password": "correct horse battery"}
        answer = closed.visitor().post("/signup", fields, page="/signin")  # no form to fill
        assert answer.status_code == 403 and "registration is closed" in answer.text
        assert rows(closed, "users") == 0
    finally:
        closed.stop()

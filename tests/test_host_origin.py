"""Forms sent from another origin, CSRF tokens and sessions planted in a victim's browser,
cookies a sibling host could set, the log a flood of requests writes, and the pages'
Content-Security-Policy: attacks on a real ``arena host`` over real sockets. (The
planted-cookie sign-in in a real Chromium is ``tests/test_host_login_csrf.py``.)"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.host_helpers import CSRF, HostProcess, Visitor

EVIL = "http://evil.example"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("host-origin")).start()
    yield server
    server.stop()


def rows(host: HostProcess) -> dict[str, int]:
    with sqlite3.connect(host.data / "accounts.sqlite") as db:
        return {
            table: int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for table in ("users", "sessions", "tokens", "submissions")
        }


def signed_up(host: HostProcess, name: str) -> Visitor:
    visitor = host.visitor()
    assert visitor.signup(name).status_code == 303
    return visitor


def test_a_form_from_another_origin_is_refused(host: HostProcess) -> None:
    mallory = signed_up(host, "mallory")
    stranger = host.visitor()
    own = host.url.rstrip("/")
    forms = [
        (stranger, "/signin", "/signin", {"name": "mallory", "password": PASSWORD}),
        (stranger, "/signup", "/signup", {"name": "newcomer", "password": PASSWORD}),
        (mallory, "/me/tokens", "/me", {"label": "stolen"}),
    ]
    foreign = [
        {"Origin": EVIL},
        {"Origin": "null"},  # a page that hides its origin (Referrer-Policy: no-referrer)
        {"Origin": own.replace("127.0.0.1", "localhost")},  # another host name
        {"Origin": own.replace("http://", "https://")},  # another scheme
        {"Origin": own.rsplit(":", 1)[0] + ":1"},  # another port of this host
        {"Origin": EVIL, "Referer": own + "/signin"},  # Origin decides when both are sent
        {"Referer": EVIL + "/page.html"},  # no Origin: the Referer's origin decides
    ]
    before = rows(host)
    for visitor, path, page, data in forms:
        for headers in foreign:
            answer = visitor.post(path, data, page=page, headers=headers)  # a valid CSRF token
            assert answer.status_code == 403, (path, headers, answer.status_code)
            assert answer.text.count("<p>") == 1 and "another site" in answer.text
            assert "arena_session" not in answer.headers.get("set-cookie", "")
    assert rows(host) == before
    assert mallory.get("/me").status_code == 200 and stranger.get("/me").status_code == 303
    log = (host.data / "server.log").read_text()
    for path in ("/signin", "/signup", "/me/tokens"):
        assert f"cross-origin POST '{path}' refused: Origin '{EVIL}'" in log
    assert "cross-origin POST '/signin' refused: Referer 'http://evil.example/page.html'" in log
    # The same forms from this server's own pages (Origin, or only a Referer) go through.
    for headers in ({"Origin": own}, {"Referer": own + "/signin"}, {"Origin": own + "/"}):
        assert (
            stranger.post("/signin", forms[0][3], page="/signin", headers=headers).status_code
            == 303
        )
        stranger.post("/signout", headers={"Origin": own})
    made = mallory.post(
        "/me/tokens", {"label": "mine", "scope": ["submit", "read"]}, headers={"Origin": own}
    )
    assert made.status_code == 200 and "new-token" in made.text, made.text
    # A request with neither header is no browser's cross-origin request: the command line
    # (a Bearer token, no Origin) uploads as before; a form still needs its CSRF token.
    token = mallory.token()
    api = httpx.post(
        host.url + "api/submissions", data={"bot": "api"}, files={"file": ("bot.py", b"x = 1\n")},
        headers={"Authorization": f"Bearer {token}"}, timeout=60,
    )  # fmt: skip
    assert api.status_code == 200 and api.json()["status"] == "queued", api.text
    bare = host.visitor()
    assert (
        bare.client.post("/signin", data={"name": "mallory", "password": PASSWORD}).status_code
        == 403
    )


def test_a_seed_and_token_planted_from_another_address_are_refused(host: HostProcess) -> None:
    """The login CSRF of a planted cookie, without the browser's Origin (as a browser that
    sent none would): the attacker fetches the sign-in form from their own address, plants
    its seed cookie in the victim's browser and makes it post the form with their name."""
    signed_up(host, "trudy")
    attacker = httpx.Client(
        base_url=host.url, transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=60
    )
    found = CSRF.search(attacker.get("/signin").text)
    assert found is not None
    seed = attacker.cookies["arena_csrf"]
    victim = host.visitor()
    victim.client.cookies.set("arena_csrf", seed, domain="127.0.0.1", path="/")
    fields = {"csrf": found.group(1), "name": "trudy", "password": PASSWORD}
    answer = victim.client.post("/signin", data=fields)
    assert answer.status_code == 403 and "CSRF" in answer.text
    assert "arena_session" not in victim.client.cookies
    assert victim.get("/me").status_code == 303  # not signed in as trudy
    # From the attacker's own address the pair is theirs and works: it is bound, not broken.
    assert attacker.post("/signin", data=fields).status_code == 303


def test_a_session_cookie_sent_twice_is_nobodys(host: HostProcess) -> None:
    """Cookie tossing: a second ``arena_session`` planted beside the victim's own (another
    path, a parent domain) would make one of the two win; neither is trusted."""
    victim, attacker = signed_up(host, "victor"), signed_up(host, "oscar")
    mine, planted = victim.client.cookies["arena_session"], attacker.client.cookies["arena_session"]
    for order in ((mine, planted), (planted, mine)):
        cookie = f"arena_session={order[0]}; arena_session={order[1]}"
        answer = httpx.get(host.url + "me", headers={"Cookie": cookie}, timeout=60)
        assert answer.status_code == 303 and answer.headers["location"] == "/signin"
    assert 'id="me">victor<' in victim.get("/me").text  # alone, the victim's cookie still is


def test_secure_cookies_take_the_host_prefix(tmp_path: Path) -> None:
    """Behind a TLS proxy (``--behind-proxy``, the proxy on loopback saying https) cookies
    are ``__Host-`` prefixed (a sibling host cannot set them) and the server's own origin
    is the public one the proxy forwards (Host, X-Forwarded-Proto)."""
    host = HostProcess(tmp_path, options=("--behind-proxy",)).start()
    public = "https://cup.example.org"
    proxied = {"Host": "cup.example.org", "X-Forwarded-Proto": "https"}
    try:
        form = httpx.get(host.url + "signup", headers=proxied, timeout=60)
        set_cookie = form.headers["set-cookie"]
        assert set_cookie.startswith("__Host-arena_csrf="), set_cookie
        assert "; Secure" in set_cookie and "; Path=/" in set_cookie
        assert "domain" not in set_cookie.lower()
        seed = set_cookie.split(";")[0].split("=", 1)[1]
        found = CSRF.search(form.text)
        assert found is not None
        fields = {"csrf": found.group(1), "name": "penny", "password": PASSWORD}

        def post(headers: dict[str, str], cookie: str) -> httpx.Response:
            return httpx.post(
                host.url + "signup", data=fields, headers={**headers, "Cookie": cookie},
                timeout=60,
            )  # fmt: skip

        # A seed planted under the unprefixed name (what a sibling host can set) is ignored.
        assert post(proxied, f"arena_csrf={seed}").status_code == 403
        # The public origin over http, or the socket's own address, is another origin.
        cookie = f"__Host-arena_csrf={seed}"
        assert post({**proxied, "Origin": "http://cup.example.org"}, cookie).status_code == 403
        assert post({**proxied, "Origin": host.url.rstrip("/")}, cookie).status_code == 403
        assert post({"Host": "cup.example.org", "Origin": public}, cookie).status_code == 403
        signed = post({**proxied, "Origin": public}, cookie)
        assert signed.status_code == 303, signed.text
        session = signed.headers["set-cookie"]
        assert session.startswith("__Host-arena_session=") and "; Secure" in session
        value = session.split(";")[0].split("=", 1)[1]
        me = httpx.get(
            host.url + "me", headers={**proxied, "Cookie": f"__Host-arena_session={value}"},
            timeout=60,
        )  # fmt: skip
        assert 'id="me">penny<' in me.text
        # The same session under the unprefixed name is nobody's.
        plain = httpx.get(
            host.url + "me", headers={**proxied, "Cookie": f"arena_session={value}"}, timeout=60
        )
        assert plain.status_code == 303
    finally:
        host.stop()


def test_server_log_is_rotated_by_size(tmp_path: Path) -> None:
    """A flood of refused requests, each a long line in ``server.log``, leaves at most the
    log and its 5 rotated files, each near the size limit (small here, 10 MB by default)."""
    limit = 10_000
    host = HostProcess(tmp_path, env={"ARENA_HOST_LOG_BYTES": str(limit)}).start()
    try:
        visitor = host.visitor()
        long_path = "/" + "x" * 1000
        for index in range(150):  # ~150 KB of log lines: CSRF refusals naming the path
            answer = visitor.client.post(f"{long_path}{index}", data={"csrf": "wrong"})
            assert answer.status_code == 403
        last = f"{long_path}149"
        files = sorted(p.name for p in host.data.glob("server.log*"))
        assert files == ["server.log"] + [f"server.log.{n}" for n in range(1, 6)], files
        for path in host.data.glob("server.log*"):
            assert path.stat().st_size <= limit + 2_000, (path.name, path.stat().st_size)
        assert last in (host.data / "server.log").read_text()  # the log goes on after rotating
    finally:
        host.stop()


def test_pages_send_a_strict_content_security_policy(host: HostProcess) -> None:
    for path in ("/", "/signin", "/nowhere"):
        policy = host.visitor().get(path).headers["content-security-policy"]
        directives = {part.strip() for part in policy.split(";")}
        for needed in ("base-uri 'none'", "form-action 'self'", "object-src 'none'",
                       "default-src 'self'", "frame-ancestors 'none'"):  # fmt: skip
            assert needed in directives, (path, policy)
    assert re.search(r"script-src|'unsafe-inline'", policy) is None

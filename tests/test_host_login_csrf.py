"""Login CSRF by a planted cookie, in a real Chromium (Playwright driving Debian's
browser): a page on another origin of the same host (another loopback port: cookies are
not kept apart by port, as a sibling subdomain's are not by name) plants the attacker's
CSRF seed cookie for the competition's host and auto-submits its sign-in form with the
attacker's name, password and the token that goes with that seed. The victim's browser
must not end up signed in as the attacker (what they upload next would be the
attacker's)."""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests import test_browser
from tests.host_helpers import HostProcess
from tests.test_browser import CHROMIUM

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
)
WAIT_MS = 120_000  # every wait is for a condition, bounded by this
PASSWORD = "correct horse battery"
browser = test_browser.browser  # the same Chromium fixture as the site's tests


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("host-login-csrf")).start()
    yield server
    server.stop()


def attack_page(target: str, seed: str, fields: dict[str, str]) -> tuple[bytes, str]:
    """The attacker's page and the cookie it sets: the seed, for every port of the host."""
    inputs = "".join(
        f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
        for name, value in fields.items()
    )
    body = (
        f'<!doctype html><title>win a prize</title><form id="f" method="post" '
        f'action="{target}">{inputs}</form><script>document.forms.f.submit()</script>'
    )
    return body.encode(), f"arena_csrf={seed}; Path=/"


class AttackerSite:
    """A tiny HTTP server on another loopback port: the attacker's origin."""

    def __init__(self, page: bytes, cookie: str) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Set-Cookie", cookie)
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> AttackerSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(30)


def test_a_planted_cookie_does_not_sign_the_victim_in_as_the_attacker(
    browser, host: HostProcess
) -> None:
    attacker = host.visitor()
    assert attacker.signup("mallory", PASSWORD).status_code == 303
    attacker.client.cookies.clear()
    token = attacker.token_from("/signin")  # a seed and its token, as any visitor gets them
    seed = attacker.client.cookies["arena_csrf"]
    fields = {"csrf": token, "name": "mallory", "password": PASSWORD}
    page_html, cookie = attack_page(host.url + "signin", seed, fields)
    context = browser.new_context()
    victim = context.new_page()
    victim.set_default_timeout(WAIT_MS)
    try:
        victim.goto(host.url + "signin")  # the victim has been here before: a seed of their own
        with AttackerSite(page_html, cookie) as site:
            assert not site.url.startswith(host.url)  # another origin, the same host
            with victim.expect_response(lambda r: r.url == host.url + "signin") as posted:
                victim.goto(site.url)
            answer = posted.value
        # The attacker's cookie did land in the victim's browser, for the competition too ...
        planted = {c["name"]: c["value"] for c in context.cookies(host.url)}
        assert planted.get("arena_csrf") == seed
        # ... and the form was sent, from the attacker's origin; it was refused.
        assert answer.request.method == "POST"
        assert answer.request.headers.get("origin") == site.url.rstrip("/")
        assert answer.status == 403
        assert "arena_session" not in planted
        victim.goto(host.url + "me")
        assert re.search(r"/signin$", victim.url), victim.url  # signed in as nobody
        assert 'id="me">mallory<' not in victim.content()
        # The victim's own sign-in on this server's page still works with the seed planted.
        victim.goto(host.url + "signup")
        victim.fill("input[name=name]", "victim")
        victim.fill("input[name=password]", PASSWORD)
        victim.click("#signup-button")
        victim.wait_for_url(re.compile(r"/me$"))
        assert victim.locator("#me").inner_text() == "victim"
    finally:
        context.close()
    log = (host.data / "server.log").read_text()
    assert f"cross-origin POST '/signin' refused: Origin '{site.url.rstrip('/')}'" in log

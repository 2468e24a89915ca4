"""Browser journeys on ``arena host`` in a real Chromium (Playwright driving Debian's
browser, as tests/test_browser.py does): two participants sign up and upload (one from
the page, one from the command line), watch validation and the leaderboard move without
a reload, each sees their own logs only; an admin disables a bot and voids a match; the
deadline closes submissions and the final's table appears. Screenshots land in
``test-artifacts/`` (the README's come from here)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests import test_browser
from tests.host_helpers import PYTHON_BOT, HostProcess, competition_text, sign_in
from tests.test_browser import ARTIFACTS, CHROMIUM, replay_url

# The journeys follow one competition in order: one xdist worker runs them (--dist loadgroup).
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
    ),
    pytest.mark.xdist_group("host-browser"),
]
WAIT_MS = 300_000  # every wait is for a condition, bounded by this
browser = test_browser.browser  # the same Chromium fixture as the site's tests


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("host-browser")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def people(browser, host: HostProcess):
    """One browser context (its own cookies) per person."""
    contexts = {name: browser.new_context(viewport={"width": 1100, "height": 900}) for name in
                ("alice", "bob", "root")}  # fmt: skip
    pages = {name: context.new_page() for name, context in contexts.items()}
    errors: list[str] = []
    for page in pages.values():
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(WAIT_MS)
    yield pages
    assert errors == []
    for context in contexts.values():
        context.close()


def sign_up(page, host: HostProcess, name: str) -> None:
    page.goto(host.url + "signup")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "correct horse battery")
    page.click("#signup-button")
    page.wait_for_url(re.compile(r"/me$"))


def test_two_participants_upload_and_watch_the_ladder(people, host: HostProcess) -> None:
    from playwright.sync_api import expect

    alice, bob = people["alice"], people["bob"]
    sign_up(alice, host, "alice")
    alice.fill("input[name=bot]", "planner")
    alice.set_input_files("input[name=file]", str(PYTHON_BOT / "bot.py"))
    alice.click("#upload")
    alice.wait_for_url(re.compile(r"/submissions/\d+$"))
    # The submission page follows validation live: no reload.
    expect(alice.locator("#status")).to_have_text("ok", timeout=WAIT_MS)
    alice.goto(host.url + "me")
    alice.fill("input[name=bot]", "second")
    alice.set_input_files("input[name=file]", str(PYTHON_BOT / "greedy.py"))
    alice.click("#upload")
    expect(alice.locator("#status")).to_have_text("ok", timeout=WAIT_MS)
    sign_up(bob, host, "bob")
    bob.click("#make-token")
    token = bob.locator("#new-token").inner_text()
    done = host.arena(
        "submit", "greedy", "--file", str(PYTHON_BOT / "greedy.py"), "--server", host.url,
        "--token", token,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    alice.goto(host.url + "boards/usa/2")
    games = alice.locator('tr[data-bot="bob.greedy@1"] .games')
    expect(games).to_have_text(re.compile(r"[1-9]\d*"), timeout=WAIT_MS)
    seen = int(games.inner_text())
    alice.evaluate("window.notReloaded = true")
    expect(games).not_to_have_text(str(seen), timeout=WAIT_MS)  # the board moved ...
    assert alice.evaluate("window.notReloaded") is True  # ... without a reload
    alice.screenshot(path=str(ARTIFACTS / "host-leaderboard.png"), full_page=True)
    bob.goto(host.url + "me")
    bob.screenshot(path=str(ARTIFACTS / "host-participant.png"), full_page=True)


def test_each_sees_their_own_logs_only(people, host: HostProcess) -> None:
    from playwright.sync_api import expect

    alice, bob = people["alice"], people["bob"]
    alice.goto(host.url + "boards/usa/2")
    alice.click("ul.matches li a")
    # A click only starts the navigation: wait for the match's page before looking at it.
    alice.wait_for_url(replay_url(r"/matches/\d+"))
    match_url = alice.url
    expect(alice.locator("a.stderr")).to_have_count(1)
    mine = alice.locator("a.stderr").get_attribute("href")
    bob.goto(match_url)
    assert bob.locator("a.stderr").count() == 1
    theirs = bob.locator("a.stderr").get_attribute("href")
    assert mine != theirs
    assert alice.goto(host.url + theirs.lstrip("/")).status == 404
    assert bob.goto(host.url + mine.lstrip("/")).status == 404
    assert alice.goto(host.url + mine.lstrip("/")).status == 200


def test_an_admin_disables_a_bot_and_voids_a_match(people, host: HostProcess) -> None:
    from playwright.sync_api import expect

    done = host.arena(
        "admin", "create", "root", "--data-dir", str(host.data), "--password-stdin",
        stdin="admin password 1\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    root = people["root"]
    sign_in(root, host, "root", "admin password 1")
    root.goto(host.url + "admin")
    row = root.locator("tr[data-submission]", has_text="second")
    row.locator("input[name=reason]").fill("a test of disabling")
    row.locator("button", has_text="disable").click()
    expect(root.locator("#question")).to_contain_text("a test of disabling")
    root.click("#confirm")  # the page that asks first
    expect(root.locator("tr[data-submission]", has_text="second")).to_contain_text("(disabled")
    root.goto(host.url + "boards/usa/2")
    root.click("ul.matches li a")
    root.click("#void")
    expect(root.locator("strong.voided")).to_have_text("voided")
    people["alice"].goto(host.url + "me")
    expect(people["alice"].locator("tr[data-submission]", has_text="second")).to_contain_text(
        "disabled by an admin: a test of disabling"
    )


def test_the_deadline_closes_submissions_and_the_final_appears(people, host: HostProcess) -> None:
    from playwright.sync_api import expect

    host.stop()
    host.file.write_text(competition_text(deadline="2020-01-01T00:00:00Z"))
    host.options = ("--final-now",)  # a deadline already past: the organiser says so
    host.start()
    alice = people["alice"]
    alice.goto(host.url + "me")
    expect(alice.locator("main")).to_contain_text("Submissions are closed.")
    assert alice.locator("#upload").count() == 0
    alice.goto(host.url + "final")
    expect(alice.locator(".final-status").first).to_have_text(
        "This is the competition's result.", timeout=WAIT_MS
    )
    table = alice.locator("table.leaderboard").first
    expect(table).to_contain_text("alice.planner@1")
    expect(table).to_contain_text("bob.greedy@1")
    assert "alice.second@1" not in table.inner_text()  # disabled: not in the final
    alice.screenshot(path=str(ARTIFACTS / "host-final.png"), full_page=True)

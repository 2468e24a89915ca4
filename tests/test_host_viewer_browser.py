"""Browser journeys on ``arena host`` in a real Chromium: a participant watches a ladder
match of their bot on the map (the static site's viewer under the host's CSP), then plays
a game against that bot in the browser and resigns; the game is stored, its replay is
theirs, and it is on no board. With ``ARENA_SCREENSHOTS=1`` the match page's screenshot
is saved as the README's (docs/images/host-match.png)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournament.store import ResultsStore
from tests import test_browser
from tests.host_helpers import PYTHON_BOT, HostProcess, sign_in, wait_until
from tests.test_browser import ARTIFACTS, CHROMIUM
from tests.test_host_replays import talker

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
    ),
    pytest.mark.xdist_group("host-viewer-browser"),
]
WAIT_MS = 300_000  # every wait is for a condition, bounded by this
DOCS_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
browser = test_browser.browser


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("host-viewer")).start()
    try:
        alice, bob = server.visitor(), server.visitor()
        greedy = (PYTHON_BOT / "greedy.py").read_bytes()
        for visitor, name, code in ((alice, "alice", talker("alice")), (bob, "bob", greedy)):
            assert visitor.signup(name).status_code == 303
            answer = visitor.upload("bot", "bot.py", code)
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def alice(browser, host: HostProcess):
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))

    # A script or style the CSP refuses is a console error: none may happen (the browser's
    # own request for /favicon.ico, which the host does not serve, aside).
    def console(message) -> None:
        where = message.location.get("url", "")
        if message.type == "error" and not where.endswith("/favicon.ico"):
            problems.append(f"{message.text} ({where})")

    page.on("console", console)
    page.on("dialog", lambda dialog: dialog.accept())
    page.set_default_timeout(WAIT_MS)
    sign_in(page, host, "alice")
    page.wait_for_url(re.compile(r"/me$"))
    yield page
    assert problems == []
    context.close()


def ladder_matches(host: HostProcess, name: str = "test-cup-usa-2p") -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(name, details=False)


def test_a_match_plays_on_the_map(alice, host: HostProcess) -> None:
    from playwright.sync_api import expect

    match = wait_until(lambda: ladder_matches(host), "a ladder match")[0]
    alice.goto(f"{host.url}matches/{match.match_id}")
    expect(alice.locator("#map")).to_be_visible()
    expect(alice.locator("#step")).to_contain_text("step 0 /")
    assert alice.locator("#map .claimed").count() == 0  # the deal: nothing claimed yet
    alice.keyboard.press("ArrowRight")
    expect(alice.locator("#step")).to_contain_text("step 1 /")
    alice.keyboard.press("End")
    expect(alice.locator("#step")).to_contain_text("game over")
    claimed = alice.locator("#map .claimed").count()
    assert claimed > 0
    # Halfway, fewer routes are claimed than at the end: the map follows the steps.
    last = int(re.search(r"/ (\d+)", alice.inner_text("#step")).group(1))
    alice.evaluate(f"window.REPLAY.show({last // 2})")
    expect(alice.locator("#step")).to_contain_text(f"step {last // 2} /")
    assert 0 < alice.locator("#map .claimed").count() < claimed
    # Her own seat's hand is on the page; the other seat's is not.
    mine = next(i for i, bot in enumerate(match.bots) if bot.startswith("alice."))
    expect(alice.locator(f'[data-hand-seat="{mine}"]')).to_have_count(1)
    expect(alice.locator(f'[data-hand-seat="{1 - mine}"]')).to_have_count(0)
    alice.screenshot(path=str(ARTIFACTS / "host-match.png"), full_page=True)
    if os.environ.get("ARENA_SCREENSHOTS") == "1":
        shutil.copy(ARTIFACTS / "host-match.png", DOCS_IMAGES / "host-match.png")
    with alice.expect_download() as download:
        alice.click("#download")
    text = Path(download.value.path()).read_text()
    assert text.startswith('{"type":"header"') and '"seed"' not in text


def test_a_participant_plays_their_own_bot_and_the_game_is_on_no_board(
    alice, host: HostProcess
) -> None:
    from playwright.sync_api import expect

    alice.goto(host.url + "play")
    alice.select_option("select[name=board]", "usa-2")
    alice.select_option("select.opponent", "alice.bot@1")
    alice.click("#start")
    alice.wait_for_url(re.compile(r"/play/[0-9a-f]+$"))
    status = alice.locator("#status")
    expect(status).to_have_attribute("data-status", "to-move")
    # The first decision: keep two of the tickets offered.
    alice.locator("input[data-offer]").nth(0).check()
    alice.locator("input[data-offer]").nth(1).check()
    seen = status.get_attribute("data-version")
    alice.click("button.keep")
    expect(status).not_to_have_attribute("data-version", seen)
    expect(status).to_have_attribute("data-status", "to-move")  # the bot has played
    seen = status.get_attribute("data-version")
    alice.click("#table .deck")  # a card from the deck
    expect(status).not_to_have_attribute("data-version", seen)
    alice.click("#resign")  # the dialog is accepted; the bot finishes the game
    replay = alice.locator("#replay-link")
    expect(replay).to_be_visible()
    href = replay.get_attribute("href")
    match_id = int(href.rsplit("/", 1)[1])
    with ResultsStore.reader(host.data) as store:
        played = store.match_result(match_id)
    assert played is not None and played.tournament == "test-cup-play"
    assert played.bots[0] == "alice" and played.faults[0] == "resigned"
    assert all(m.match_id != match_id for m in ladder_matches(host))
    alice.click("#replay-link")
    expect(alice.locator("#map")).to_be_visible()
    alice.goto(host.url + "boards/usa/2")
    assert 'data-bot="alice"' not in alice.content()  # the person is on no board
    stranger = host.visitor()
    assert stranger.get(f"/matches/{match_id}").status_code == 404  # hers only
    # The game is over: a new one may start.
    alice.goto(host.url + "play")
    assert alice.locator("#live-game").count() == 0

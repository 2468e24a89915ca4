"""The site, the replay viewer, the live server and the play page in headless Chromium
(Playwright driving Debian's browser), on one small real tournament shared by the tests.

Screenshots land in ``test-artifacts/``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee.matchlog import MatchLog
from arena.tournament.store import ResultsStore
from leaderboards.data import stored_matches
from leaderboards.site import build_site
from leaderboards.tables import leaderboard

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
ARENA = Path(sys.executable).with_name("arena")
CLAIM_FIRST = f"claim-first=cmd:{{python}} -m bots.filebot {ROOT / 'examples' / 'python-bot'}"
TALKER = f"talker=cmd:{{python}} {ROOT / 'tests' / 'bots' / 'talker.py'} 6"
CHROMIUM = shutil.which("chromium")
LAUNCH = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
)


def arena(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [str(ARENA), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One small real tournament (real bot processes, one that talks on stderr and crashes),
    and its static site."""
    data = tmp_path_factory.mktemp("browser")
    arena(
        "tournament", "run", "--name", "small", "--bot", "random", "--bot", CLAIM_FIRST,
        "--bot", TALKER, "--players", "2", "--players", "3", "--seed", "3", "--no-progress",
        cwd=data,
    )  # fmt: skip
    store = ResultsStore(data / "arena-data")
    forfeit = next(m.match_id for m in stored_matches(store) if any(m.faults))
    index = build_site(store, data / "site")
    yield store, index, forfeit, data
    store.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert not errors, errors


def stored_scores(store: ResultsStore, match_id: int) -> list[int]:
    return list(next(m for m in stored_matches(store) if m.match_id == match_id).scores)


def test_leaderboards_by_player_count_in_the_right_order(site, page):
    store, index, _, _ = site
    page.goto(index.as_uri())
    page.click("text=Ticket to Ride (USA)")
    for count, table_id in ((None, "leaderboard"), (2, "leaderboard-2"), (3, "leaderboard-3")):
        expected = list(leaderboard(store, "usa", count).bot)
        shown = page.locator(f"#{table_id} td.bot").all_inner_texts()
        assert shown == expected, f"the {count or 'all'}-player board shows its bots in order"
    page.screenshot(path=str(ARTIFACTS / "leaderboard.png"), full_page=True)


def test_a_replay_steps_and_autoplays_to_the_stored_final_scores(site, page):
    store, index, _, _ = site
    match = next(m for m in stored_matches(store) if not any(m.faults))
    page.goto((index.parent / "matches" / f"{match.match_id}.html").as_uri())
    assert page.title().startswith(f"Match {match.match_id} ")
    last = int(re.search(r"/ (\d+):", page.inner_text("#step")).group(1))
    assert page.inner_text("#step").startswith(f"step 0 / {last}: the deal")
    assert page.locator(".claimed").count() == 0
    page.keyboard.press("ArrowRight")
    for _ in range(9):
        page.click("#next")
    assert page.inner_text("#step").startswith(f"step 10 / {last}: ")
    words = page.inner_text("#step").split(": ", 1)[1]
    assert words.split()[0] in ("random", "claim-first"), "each step says who did what"
    page.click("#prev")
    assert page.inner_text("#step").startswith(f"step 9 / {last}")
    page.select_option("#speed", "25")
    page.click("#play")
    page.wait_for_function(
        f"document.getElementById('step').textContent.startsWith('step {last} / {last}')",
        timeout=60_000,
    )
    assert "game over" in page.inner_text("#step")
    finals = [int(x) for x in page.locator("#scores .final-score").all_inner_texts()]
    assert finals == stored_scores(store, match.match_id), "the last step shows the stored scores"
    assert page.locator(".claimed").count() > 0
    assert page.locator(".claimed.longest").count() > 0, "the longest trail is highlighted"
    assert page.locator(".ticket.done, .ticket.failed").count() > 0, "tickets are scored"
    page.screenshot(path=str(ARTIFACTS / "replay.png"), full_page=True)


def test_a_seats_view_shows_no_other_seats_hand(site, page):
    store, index, _, _ = site
    match = next(m for m in stored_matches(store) if len(m.bots) == 3)
    page.goto((index.parent / "matches" / f"{match.match_id}.html").as_uri() + "#step=40")
    everyone = {
        seat: page.locator(f"[data-ticket-seat='{seat}'] .ticket").all_inner_texts()
        for seat in range(3)
    }
    assert page.locator("[data-hand-seat]").count() == 3, "the organiser sees every hand"
    page.select_option("#view", "1")
    assert page.locator("[data-hand-seat]").count() == 1
    assert page.locator("[data-hand-seat='1']").count() == 1, "seat 1 sees its own hand"
    assert page.locator("[data-ticket-seat]").count() == 1
    text = page.inner_text("body")
    own = page.locator("[data-ticket-seat='1'] .ticket").all_inner_texts()
    assert own == everyone[1]
    for seat in (0, 2):
        for ticket in everyone[seat]:
            assert ticket.lstrip("✓○ ") not in text, f"seat {seat}'s ticket {ticket} is hidden"
    page.screenshot(path=str(ARTIFACTS / "replay-seat-view.png"), full_page=True)


def test_a_forfeit_shows_its_reason_and_links_to_the_logs(site, page):
    store, index, forfeit, _ = site
    page.goto((index.parent / "matches" / f"{forfeit}.html").as_uri())
    item = page.locator("#fault-list li").first
    assert "talker" in item.inner_text() and "crash" in item.inner_text()
    assert "RuntimeError: talker gives up" in item.inner_text(), "the error, not only the code"
    stderr_link = item.locator("a.log-link", has_text="stderr log")
    href = stderr_link.get_attribute("href")
    log_text = (index.parent / "matches" / href).read_text()
    assert "RuntimeError: talker gives up after 6 decisions" in log_text
    download = item.locator("a.log-link", has_text="match log").get_attribute("href")
    copied = (index.parent / "matches" / download).read_bytes()
    assert copied == store.match_log(forfeit), "the match log downloads as stored"
    match_log = MatchLog.from_jsonl(copied)
    decision = match_log.faults[0]["decision"]
    talked = next(line["n"] for line in match_log.actions if line.get("stderr"))
    page.goto((index.parent / "matches" / f"{forfeit}.html").as_uri() + f"#step={decision}")
    assert "talker forfeited: crash" in page.inner_text("#events")
    assert page.locator("#events a.log-link").count() >= 2
    page.goto((index.parent / "matches" / f"{forfeit}.html").as_uri() + f"#step={talked - 1}")
    page.click("#next")
    talk = page.locator("#events .stderr")
    assert "talker decision" in talk.inner_text(), "a bot's stderr lines at its steps"
    page.screenshot(path=str(ARTIFACTS / "forfeit.png"), full_page=True)


def play_by_clicking(page) -> tuple[str | None, int]:
    """Click through a person's game until it is over; returns the message of the one
    illegal click made on purpose and the number of clicks."""
    illegal = None
    clicks = 0
    # A click the page answers itself (a stale route, "not your turn yet" while the bots
    # move on a loaded machine) costs a turn of this loop without a move: room for many.
    for _ in range(1500):
        page.wait_for_function(
            "['to-move', 'over'].includes(document.getElementById('status').dataset.status)",
            timeout=120_000,
        )
        if page.get_attribute("#status", "data-status") == "over":
            break
        version = page.get_attribute("#status", "data-version")
        if illegal is None and page.locator(".route:not(.legal):not(.taken)").count():
            page.locator(".layer-routes .route:not(.legal):not(.taken) .hit").first.click(
                force=True
            )
            page.wait_for_selector("#message:not([hidden])")
            illegal = page.inner_text("#message")
            page.screenshot(path=str(ARTIFACTS / "play-illegal.png"), full_page=True)
        elif page.locator("input[data-offer]").count():
            page.locator("input[data-offer]").first.check()
            page.locator("input[data-offer]").last.check()
            page.click("button.keep")
        elif page.locator(".route.legal").count():
            page.locator(".route.legal .hit").first.click(force=True)
            if page.locator("button.choice").count():
                page.locator("button.choice").first.click()
        elif page.locator("button.choice").count():
            page.locator("button.choice").first.click()
        else:
            page.click(".deck")
        clicks += 1
        page.wait_for_function(
            f"document.getElementById('status').dataset.version !== '{version}'"
            " || !document.getElementById('message').hidden",
            timeout=120_000,
        )
    return illegal, clicks


def test_a_person_plays_a_game_to_the_end_by_clicking(tmp_path, page):
    """A person against two bots, every decision a click on the map or the cards; the
    game ends, its result is printed and stored."""
    process = subprocess.Popen(
        [str(ARENA), "play", "--human", "--variant", "newyork", "--bot", "random",
         "--bot", "ticket-by-ticket", "--seed", "5", "--no-open", "--port", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/play/\w+", line).group(0)
        page.goto(url)
        try:
            illegal, clicks = play_by_clicking(page)
        except Exception as error:  # say where it stopped: the page, the referee, the bots
            process.kill()
            said = process.stdout.read()[-3000:]
            logs = (tmp_path / "arena-data" / "bot-logs").rglob("*.stderr")
            tails = "\n".join(f"{p.name}: {p.read_text()[-800:]}" for p in logs)
            raise AssertionError(
                f"{error}\nstatus: {page.inner_text('#status')}; message: "
                f"{page.inner_text('#message')}\n--- arena play:\n{said}\n--- bots:\n{tails}"
            ) from error
        status = page.get_attribute("#status", "data-status")
        assert status == "over", f"{status} after {clicks} clicks: {page.inner_text('#message')}"
        page.wait_for_selector("#replay-link", timeout=30_000)
        assert illegal and "illegal action" in illegal and "[rule " in illegal, illegal
        assert clicks >= 5
        page.screenshot(path=str(ARTIFACTS / "play.png"), full_page=True)
        shown = [int(x) for x in page.locator("#result .final-score").all_inner_texts()]
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, out
    assert "stored as match" in out
    store = ResultsStore(tmp_path / "arena-data")
    (match,) = stored_matches(store)
    assert match.tournament == "human-play" and match.bots == ("you", "random", "ticket-by-ticket")
    assert list(match.scores) == shown
    assert not match.faults[0], "the person never forfeits for a slow or illegal click"


def test_the_live_page_shows_a_match_appearing_while_a_tournament_runs(tmp_path, page):
    server = subprocess.Popen(
        [str(ARENA), "serve", "--port", "0", "--data-dir", str(tmp_path / "arena-data")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    tournament = None
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline()).group(0)
        page.goto(url)
        assert page.locator("#matches tr[data-match]").count() == 0
        tournament = subprocess.Popen(
            [str(ARENA), "tournament", "run", "--name", "live", "--bot", "random",
             "--bot", "greedy-claims", "--players", "2", "--games", "2", "--no-progress"],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        page.wait_for_selector("#matches tr.new-match", timeout=90_000)
        assert tournament.poll() is None or page.locator("tr.new-match").count() >= 1
        first = page.locator("#matches tr[data-match]").count()
        page.screenshot(path=str(ARTIFACTS / "live.png"), full_page=True)
        assert tournament.wait(120) == 0
        stored = len(stored_matches(ResultsStore(tmp_path / "arena-data")))
        page.wait_for_function(
            f"document.querySelectorAll('#matches tr[data-match]').length === {stored}",
            timeout=30_000,
        )
        assert 1 <= first <= stored
        page.click("#matches a >> nth=0")
        page.wait_for_selector("#map", timeout=30_000)  # a live match opens in the viewer
        assert page.inner_text("#step").startswith("step 0 / ")
    finally:
        for process in (tournament, server):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(30)
    assert server.returncode == 0


def test_pages_fit_a_390_px_screen(site, browser):
    store, index, _, _ = site
    match = next(m for m in stored_matches(store) if len(m.bots) == 3)
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    pages = {
        "mobile-replay.png": (index.parent / "matches" / f"{match.match_id}.html").as_uri()
        + "#step=60",
        "mobile-leaderboard.png": (index.parent / "usa" / "index.html").as_uri(),
    }
    for name, url in pages.items():
        page.goto(url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{url} scrolls sideways ({width} px)"
        page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    page.goto(pages["mobile-replay.png"])
    map_width = page.evaluate("document.getElementById('map').getBoundingClientRect().width")
    assert map_width >= 360, "the map uses the screen's width"
    page.close()
    assert os.path.getsize(ARTIFACTS / "mobile-replay.png") > 10_000

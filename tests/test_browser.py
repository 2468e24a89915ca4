"""The site, the replay viewer, the live server and the play page in headless Chromium
(Playwright driving Debian's browser), on one small real tournament shared by the tests.

Screenshots land in ``test-artifacts/``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee.matchlog import MatchLog
from arena.tournament.store import ResultsStore
from leaderboards.data import stored_matches
from leaderboards.replay import SECOND_PERSON
from leaderboards.site import build_site
from leaderboards.tables import leaderboard
from tests.journey import as_from_a_terminal

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
# Elements wider than a 390 px screen, or than their own box (a table cut off inside a box
# that scrolls sideways passes a check of the page's width alone).
CUT_OFF = """[...document.querySelectorAll('.scroll, table, pre, svg, img, section')]
  .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > 391)
  .map((e) => `${e.tagName}#${e.id}.${e.className.baseVal ?? e.className} ${e.scrollWidth}px`)"""
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
)


def replay_url(path: str) -> re.Pattern[str]:
    """The URL of a replay's page (``path``, a regular expression), with or without the
    fragment its script writes once loaded (``#step=0``): on a busy machine the fragment
    can be there before a wait for the page begins."""
    return re.compile(path + r"(#.*)?$")


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
    # What the served pages' Content-Security-Policy blocked (an inline script, a style
    # attribute): the browser says so on the console only.
    page.on(
        "console",
        lambda m: "Content Security Policy" in m.text and errors.append(f"CSP: {m.text}"),
    )
    yield page
    page.close()
    assert not errors, errors


def wait_until(page, expression: str, timeout: float) -> None:
    """``page.wait_for_function`` for served pages: their CSP forbids the ``eval`` it runs
    in the page (``page.evaluate`` goes around the page's scripts), so poll instead."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still not true after {timeout} ms: {expression}"
        page.wait_for_timeout(50)


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
    assert re.search(r"decided in [\d.]+ ms", page.inner_text("#events")), "the bot's time"
    page.click("#prev")
    assert page.inner_text("#step").startswith(f"step 9 / {last}")
    page.select_option("#speed", "25")
    page.click("#play")
    page.wait_for_function(
        f"document.getElementById('step').textContent.startsWith('step {last} / {last}')",
        timeout=60_000,
    )
    assert page.inner_text("#step").startswith(f"step {last} / {last}: game over: ")
    finals = [int(x) for x in page.locator("#scores .final-score").all_inner_texts()]
    assert finals == stored_scores(store, match.match_id), "the last step shows the stored scores"
    winner = match.bots[list(match.ranks).index(1)]
    assert f"{winner} wins" in page.inner_text("#step") or "tie for first" in page.inner_text(
        "#step"
    )
    assert page.locator(".claimed").count() > 0
    assert page.locator(".claimed.longest").count() > 0, "the longest trail is highlighted"
    assert page.locator(".ticket.done, .ticket.failed").count() > 0, "tickets are scored"
    page.screenshot(path=str(ARTIFACTS / "replay.png"), full_page=True)
    page.click("#prev")  # the last action is a step of its own, before the game over
    assert "game over" not in page.inner_text("#step")
    assert page.locator("#scores").count() == 0 and page.locator(".claimed.longest").count() == 0


def test_each_editions_pieces_are_drawn_in_its_replay(tmp_path, page):
    """Europe's tunnels, ferries and stations, New York's attractions, and the Card Game's
    own view (Train Yards, On-the-Track piles: the organiser's alone) in ``arena view``."""
    for variant in ("europe", "newyork", "cardgame"):
        arena("play", "--variant", variant, "--players", "3", "--seed", "4", "--in-process",
              "--match-log", f"{variant}.jsonl", cwd=tmp_path)  # fmt: skip
        arena("view", f"{variant}.jsonl", "--out", f"{variant}.html", "--no-open", cwd=tmp_path)
    page.goto((tmp_path / "europe.html").as_uri() + "#step=100000")
    assert (
        page.locator(".route .casing.tunnel").count() > 0
        and page.locator(".mark.ferry").count() > 0
    )
    assert page.locator(".station").count() > 0, "the stations built, in their owners' colours"
    texts = page.evaluate("window.MATCH.steps.map((s) => s.text)")
    assert any(re.search(r" builds a station in [A-Z]\w+ with ", t) for t in texts)
    page.screenshot(path=str(ARTIFACTS / "replay-europe.png"), full_page=True)
    page.goto((tmp_path / "newyork.html").as_uri())
    assert page.locator(".city .attraction").count() > 0
    page.goto((tmp_path / "cardgame.html").as_uri())
    texts = page.evaluate("window.MATCH.steps.map((s) => s.text)")
    assert not [t for t in texts if ": " in t and not t.startswith("game over")], "all in words"
    completed = [t for t in texts if " completes " in t and "On-the-Track pile" in t]
    assert completed and all(re.search(r"completes \w.*–.* \(\d+\)", t) for t in completed)
    page.evaluate(f"window.REPLAY.show({texts.index(completed[0]) - 1})")  # just before scoring
    assert page.locator("#map").count() == 0, "the Card Game has no map"
    assert page.locator("[data-seat] .track").count() == 3, "the organiser sees every pile"
    assert page.locator("[data-seat] .track .card").count() > 0
    assert page.locator("[data-seat] .yard").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "replay-cardgame.png"), full_page=True)
    page.select_option("#view", "1")
    others = page.locator("[data-seat]:not([data-seat='1']) .track")
    assert others.count() == 0, "a seat sees no other seat's pile"


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
    marker = page.locator(".marker.fault")  # a fault is marked on the timeline, and jumps
    assert marker.count() == 1
    marker.click()
    # It goes to its first step; markers a few pixels apart are one (a cluster, rebuilt when
    # the timeline's width changes, e.g. once a scrollbar shows): the fault's must hold it.
    page.wait_for_function(
        """(decision) => {
            const m = document.querySelector(".marker.fault");
            return m && window.REPLAY.step === Number(m.dataset.step)
                && m.dataset.steps.split(" ").includes(String(decision));
        }""",
        arg=decision,
    )
    page.screenshot(path=str(ARTIFACTS / "forfeit.png"), full_page=True)


def test_a_bot_page_shows_its_seats_worst_losses_and_faults(site, page):
    """Reached from the leaderboard: the rating plot, wins by player count and seat, the
    matches it lost by the most, its faults with the error its stderr names."""
    store, index, _, _ = site
    played = [(m, m.bots.index("talker")) for m in stored_matches(store) if "talker" in m.bots]
    page.goto((index.parent / "usa" / "index.html").as_uri())
    page.click("#leaderboard td.bot a >> text=talker")
    assert page.locator("h1").inner_text() == "talker"
    assert page.locator("img.plot").evaluate("img => img.complete && img.naturalWidth") > 0
    seats: dict[tuple[int, int], list[int]] = {}
    for m, seat in played:
        row = seats.setdefault((len(m.bots), seat), [0, 0])
        row[0] += 1
        row[1] += m.ranks[seat] == 1
    shown = {
        (int(tr.get_attribute("data-players")), int(tr.get_attribute("data-seat"))): [
            int(x) for x in tr.locator("td").all_inner_texts()[2:4]
        ]
        for tr in page.locator("table.by-seat tr[data-players]").all()
    }
    assert shown == seats, "wins by seat, each player count on its own"
    margins = sorted((max(m.scores) - m.scores[seat] for m, seat in played if m.ranks[seat] > 1),
                     reverse=True)  # fmt: skip
    behind = [
        int(tr.locator("td").nth(3).inner_text())
        for tr in page.locator("table.worst tr:has(td)").all()
    ]
    assert behind == margins[: len(behind)] and len(behind) == min(5, len(margins))
    faults = page.locator("ul.faults li")
    assert faults.count() == sum(bool(m.faults[seat]) for m, seat in played) > 0
    assert "RuntimeError: talker gives up" in faults.first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "bot-page.png"), full_page=True)


def play_a_card(page) -> bool:
    """The Card Game: click the cards of the hand until one offers a play; play it."""
    for card in page.locator("[data-hand-seat] [data-colour]").all():
        card.click()
        if page.locator("button.choice[data-action^='play ']").count():
            page.locator("button.choice[data-action^='play ']").first.click()
            return True
    return False


def station_city(page) -> str | None:
    """A city where the person may build a station now (the legal actions the page holds)."""
    legal = page.evaluate(
        "fetch(location.pathname + '/state?version=-2').then((r) => r.json())"
        ".then((s) => s.legal || [])"
    )
    return next((a.split()[1] for a in legal if a.startswith("station ")), None)


def play_by_clicking(page) -> dict[str, object]:
    """Click through a person's game until it is over: the message of the one illegal click
    made on purpose, the number of clicks and of tickets completed by a click."""
    said: dict[str, object] = {
        "illegal": None, "clicks": 0, "completed": 0, "station": None, "tunnel": 0
    }  # fmt: skip
    # A click the page answers itself (a stale route, "not your turn yet" while the bots
    # move on a loaded machine) costs a turn of this loop without a move: room for many.
    last_message, repeated = "", 0
    for _ in range(1500):
        wait_until(
            page,
            "['to-move', 'over'].includes(document.getElementById('status').dataset.status)",
            timeout=120_000,
        )
        if page.get_attribute("#status", "data-status") == "over":
            break
        page.evaluate("document.getElementById('message').hidden = true")
        version = page.get_attribute("#status", "data-version")
        offers = page.locator("input[data-offer]")
        has_map = page.locator("#map").count() > 0
        if said["illegal"] is None and (
            page.locator(".route:not(.legal):not(.taken)").count()
            or (offers.count() and not has_map)
        ):  # a route that cannot be claimed; or a face-up card while tickets are to be kept
            target = (
                ".layer-routes .route:not(.legal):not(.taken) .hit"
                if has_map
                else ".display .card[data-slot]"
            )
            page.locator(target).first.click(force=True)
            page.wait_for_selector("#message:not([hidden])", timeout=60_000)
            said["illegal"] = page.inner_text("#message")
            page.screenshot(path=str(ARTIFACTS / "play-illegal.png"), full_page=True)
        elif said["station"] is None and (city := station_city(page)):  # Europe: a city
            page.locator(f".city[data-city='{city}'] circle").click(force=True)
            if page.locator("button.choice[data-action^='station ']").count():
                page.locator("button.choice[data-action^='station ']").first.click()
            said["station"] = city
        elif not said["tunnel"] and page.locator(".route.legal:has(.casing.tunnel)").count():
            # (a real click in its middle: where routes cross, the claimable one is taken)
            page.locator(".route.legal:has(.casing.tunnel) .hit").first.click(force=True)
            if page.locator("button.choice").count():
                page.locator("button.choice").first.click()
            said["tunnel"] = int(said["tunnel"]) + 1  # type: ignore[call-overload]
        elif page.locator("button.choice[data-action^='complete ']").count():
            page.locator("button.choice[data-action^='complete ']").first.click()
            said["completed"] = int(said["completed"]) + 1  # type: ignore[call-overload]
        elif offers.count():
            offers.first.check()
            offers.last.check()
            page.click("button.keep")
        elif page.locator(".route.legal").count():  # not a tunnel again: it may cost a turn
            plain = page.locator(".route.legal:not(:has(.casing.tunnel)) .hit")
            (plain if plain.count() else page.locator(".route.legal .hit")).first.click(force=True)
            if page.locator("button.choice").count():
                page.locator("button.choice").first.click()
        elif page.locator("#choices", has_text="Click a card of your hand").count() and play_a_card(
            page
        ):
            pass
        elif page.locator("button.choice").count():
            page.locator("button.choice").first.click()
        elif page.inner_text(".deck") == "deck 0":  # what can still be drawn is outlined
            page.locator("#table .legal").first.click()
        else:
            page.click(".deck")
        said["clicks"] = int(said["clicks"]) + 1  # type: ignore[call-overload]
        wait_until(
            page,
            f"document.getElementById('status').dataset.version !== '{version}'"
            " || !document.getElementById('message').hidden",
            timeout=120_000,
        )
        message = page.inner_text("#message") if page.is_visible("#message") else ""
        repeated = repeated + 1 if message and message == last_message else 0
        last_message = message
        assert repeated < 5, f"the same answer to five clicks in a row: {message}"
    return said


def match_id_in(out: str) -> str:
    return re.search(r"stored as match (\d+)", out).group(1)


def person_game(tmp_path: Path, page, variant: str, bots: list[str], seed: int):
    """``arena play --human`` in a fresh folder, played to the end by clicks in ``page``;
    returns what ``play_by_clicking`` saw, the scores the page shows, the command's output
    and the stored match."""
    command = [str(ARENA), "play", "--human", "--variant", variant, "--seed", str(seed),
               "--no-open", "--port", "0"]  # fmt: skip
    for bot in bots:
        command += ["--bot", bot]
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=as_from_a_terminal,  # the person's Ctrl-C below, as in a terminal
    )
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/play/\w+", line).group(0)
        page.goto(url)
        try:
            said = play_by_clicking(page)
        except Exception as error:  # say where it stopped: the page, the referee, the bots
            process.kill()
            told = process.stdout.read()[-3000:]
            logs = (tmp_path / "arena-data" / "bot-logs").rglob("*.stderr")
            tails = "\n".join(f"{p.name}: {p.read_text()[-800:]}" for p in logs)
            raise AssertionError(
                f"{error}\nstatus: {page.inner_text('#status')}; message: "
                f"{page.inner_text('#message')}\n--- arena play:\n{told}\n--- bots:\n{tails}"
            ) from error
        status = page.get_attribute("#status", "data-status")
        assert status == "over", f"{status} after {said}: {page.inner_text('#message')}"
        page.wait_for_selector("#replay-link", timeout=30_000)
        shown = [int(x) for x in page.locator("#result .final-score").all_inner_texts()]
        told = []  # the command's lines once the game is over, up to its Ctrl-C line
        while not told or "press Ctrl-C to stop serving" not in told[-1]:
            told.append(process.stdout.readline())
            assert told[-1], "arena play --human ended: " + "".join(told)
        # The game is over and stored, and the page's replay link still answers.
        page.click("#replay-link")
        page.wait_for_selector("#step", timeout=30_000)
        assert page.inner_text("#step").startswith("step 0 / ")
        assert "human-play" in page.inner_text("h1")
        mine = page.evaluate(
            "MATCH.steps.filter((s) => s.action && s.seat === 0).map((s) => s.text)"
        )
        assert mine and all(t.split()[1] in SECOND_PERSON.values() for t in mine), mine[:5]
        process.send_signal(signal.SIGINT)  # the person stops serving
        rest, _ = process.communicate(timeout=60)
        out = "".join(told) + rest
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, out
    assert "stored as match" in out and f"/matches/{match_id_in(out)}.html" in out
    (match,) = stored_matches(ResultsStore(tmp_path / "arena-data"))
    assert match.tournament == "human-play" and list(match.scores) == shown
    assert not match.faults[0], "the person never forfeits for a slow or illegal click"
    return said, out, match


def test_a_person_plays_a_game_to_the_end_by_clicking(tmp_path, page):
    """A person against two bots, every decision a click on the map or the cards; the
    game ends, its result is printed and stored; the page fits a phone."""
    said, _, match = person_game(tmp_path, page, "newyork", ["random", "ticket-by-ticket"], 5)
    illegal = str(said["illegal"])
    assert "illegal action" in illegal and "[rule " in illegal, illegal
    assert int(said["clicks"]) >= 5  # type: ignore[call-overload]
    assert match.bots == ("you", "random", "ticket-by-ticket")
    page.screenshot(path=str(ARTIFACTS / "play.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(CUT_OFF) == [], "the play page fits a phone"
    page.screenshot(path=str(ARTIFACTS / "mobile-play.png"), full_page=True)


def test_a_person_builds_a_station_and_digs_tunnels_in_europe_by_clicking(tmp_path, page):
    """Europe by clicks: a station by clicking its city, tunnels claimed (and their extra
    cards paid or withdrawn by a button), to the end of the game."""
    said, _, match = person_game(tmp_path, page, "europe", ["random"], 3)
    assert said["station"] and int(said["tunnel"]) >= 1, said  # type: ignore[call-overload]
    log = MatchLog.from_jsonl(ResultsStore(tmp_path / "arena-data").match_log(match.match_id))
    mine = [line["action"] for line in log.actions if line["seat"] == 0]
    assert f"station {said['station']} " in " ".join(mine) + " ", mine[:10]
    assert any(a.startswith("claim ") for a in mine)
    page.screenshot(path=str(ARTIFACTS / "play-europe.png"), full_page=True)


def test_a_person_completes_tickets_in_the_card_game_by_clicking(tmp_path, page):
    """The Card Game has no map: cards are played by clicking them in the hand, and at a
    scoring each ticket the On-the-Track pile completes is a click."""
    said, _, match = person_game(tmp_path, page, "cardgame", ["cardgame-greedy"], 2)
    assert match.bots == ("you", "cardgame-greedy")
    assert "illegal action" in str(said["illegal"]), said
    assert int(said["completed"]) >= 1, said  # type: ignore[call-overload]
    store = ResultsStore(tmp_path / "arena-data")
    (detailed,) = store.results(details=True)
    assert detailed.breakdown[0]["tickets_completed"] > 0, detailed.breakdown[0]
    page.screenshot(path=str(ARTIFACTS / "play-cardgame.png"), full_page=True)


def serving(folder: Path) -> tuple[subprocess.Popen, str]:
    """``arena serve`` on a free port over ``folder``'s data folder, and the address it
    printed; the caller stops it."""
    server = subprocess.Popen(
        [str(ARENA), "serve", "--port", "0", "--data-dir", str(folder / "arena-data")],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        return server, re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline()).group(0)
    except Exception:  # no address printed: stopped here, as no caller can
        server.kill()
        server.wait(30)
        raise


def test_the_live_page_shows_a_match_appearing_while_a_tournament_runs(tmp_path, page):
    server, url = serving(tmp_path)
    tournament = None
    told_path = tmp_path / "tournament.out"
    told = told_path.open("w")
    try:
        page.goto(url)
        assert page.locator("#matches tr[data-match]").count() == 0
        page.evaluate("window.sameDocument = true")
        tournament = subprocess.Popen(
            [str(ARENA), "tournament", "run", "--name", "live", "--bot", "random",
             "--bot", "greedy-claims", "--players", "2", "--games", "2", "--no-progress"],
            cwd=tmp_path, stdout=told, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            page.wait_for_selector("#matches tr.new-match", timeout=90_000)
        except Exception as error:  # say what the tournament and the store did meanwhile
            stored = len(stored_matches(ResultsStore(tmp_path / "arena-data")))
            raise AssertionError(
                f"{error}\ntournament exit: {tournament.poll()}, matches stored: {stored}, "
                f"rows shown: {page.locator('#matches tr[data-match]').count()}\n"
                f"--- arena tournament run:\n{told_path.read_text()[-2000:]}"
            ) from error
        assert tournament.poll() is None or page.locator("tr.new-match").count() >= 1
        first = page.locator("#matches tr[data-match]").count()
        page.screenshot(path=str(ARTIFACTS / "live.png"), full_page=True)
        assert tournament.wait(120) == 0
        stored = len(stored_matches(ResultsStore(tmp_path / "arena-data")))
        wait_until(
            page,
            f"document.querySelectorAll('#matches tr[data-match]').length === {stored}",
            timeout=30_000,
        )
        assert 1 <= first <= stored
        # Every match landed after the page was opened: each row stays marked new, also
        # through the swaps that brought nothing new (the tournament's last changes).
        assert page.locator("#matches tr.new-match").count() == stored
        assert page.evaluate("window.sameDocument") is True, "swapped in, never reloaded"
        counts = page.locator("#variants td.num").first.inner_text()
        assert int(counts) == stored, "the leaderboards' summary refreshed too, with no reload"
        page.click("#matches a >> nth=0")
        page.wait_for_selector("#map", timeout=30_000)  # a live match opens in the viewer
        assert page.inner_text("#step").startswith("step 0 / ")
    finally:
        for process in (tournament, server):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(30)
        told.close()
    assert server.returncode == 0


def test_a_click_pressed_while_a_match_lands_is_not_lost(tmp_path, page):
    """A click is a press and a release on one element: a live page does not swap the link
    being pressed away (the click would be lost); it swaps once the press has ended."""

    def tournament(name: str) -> None:
        done = subprocess.run(
            [str(ARENA), "tournament", "run", "--name", name, "--bot", "random",
             "--bot", "greedy-claims", "--players", "2", "--games", "1", "--no-progress"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr

    tournament("first")
    server, url = serving(tmp_path)
    try:
        page.goto(url)
        rows = page.locator("#matches tr[data-match]")
        before = rows.count()
        link = page.locator("#matches tr[data-match] a").first
        target = link.evaluate("a => a.href")
        box = link.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        with page.expect_response(lambda response: response.url == url, timeout=120_000):
            tournament("second")  # a match lands: the page fetches itself again
        page.wait_for_timeout(500)  # time for a swap, were one to come while pressed
        assert rows.count() == before, "swapped while a press was in progress"
        page.mouse.up()
        page.wait_for_url(replay_url(re.escape(target)), timeout=60_000)
    finally:
        server.terminate()
        server.wait(30)


def test_the_play_form_of_arena_serve_starts_a_game_the_page_can_resign(tmp_path, page):
    """Every POST to ``arena serve`` needs the token of its own pages: the play
    form sends it as a hidden field, the play page's clicks and resignation as a header."""
    server, url = serving(tmp_path)
    try:
        page.goto(url + "play")
        assert page.input_value("#variant") == "usa", "the form offers USA first, not the Card Game"
        page.click("#start")
        page.wait_for_url(re.compile(r".*/play/\w+$"), timeout=30_000)
        page.wait_for_selector("#status[data-status='to-move']", timeout=60_000)
        # Payment buttons in words with counts ("pay hite wild" for white, no counts, before).
        length, plain, mixed, wild = page.evaluate(
            """(() => { const r = BOARD.routes.find((x) => x.color === "white" && x.length > 2);
              return [r.length, TTR.paymentWords(`claim ${r.id} white`, BOARD),
                      TTR.paymentWords(`claim ${r.id} white w1`, BOARD),
                      TTR.paymentWords(`claim ${r.id} white w${r.length}`, BOARD)]; })()"""
        )
        assert plain == f"pay {length} white" and mixed == f"pay {length - 1} white + 1 wild"
        assert wild == f"pay {length} wild"
        # A station costs as many cards as its builder's stations then (the 3rd: 3 cards).
        station = page.evaluate(
            "[TTR.paymentWords('station wien red w1', BOARD, 3),"
            " TTR.paymentWords('station wien red', BOARD, 1)]"
        )
        assert station == ["pay 2 red + 1 wild", "pay 1 red"]
        assert page.is_visible("#resign")
        page.on("dialog", lambda dialog: dialog.accept())
        page.click("#resign")
        page.wait_for_selector("#replay-link", timeout=60_000)
        assert page.get_attribute("#status", "data-status") == "over"
        assert page.is_hidden("#resign"), "nothing to resign once the game is over"
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert server.returncode == 0, out
    (match,) = stored_matches(ResultsStore(tmp_path / "arena-data"))
    assert match.tournament == "human-play" and match.bots == ("you", "random")


def test_pages_fit_a_390_px_screen(site, browser):
    """No sideways scrolling, and nothing cut off inside a scrolling box either: the
    replay mid-game and at its game over (the scoring table), every leaderboard, the
    head-to-head matrix and a bot page."""
    store, index, _, _ = site
    match = next(m for m in stored_matches(store) if len(m.bots) == 3)
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    replay = (index.parent / "matches" / f"{match.match_id}.html").as_uri()
    pages = {
        "mobile-replay.png": replay + "#step=60",
        "mobile-game-over.png": replay + "#step=100000",
        "mobile-leaderboard.png": (index.parent / "usa" / "index.html").as_uri(),
        "mobile-h2h.png": (index.parent / "usa" / "h2h.html").as_uri(),
        "mobile-bot.png": next((index.parent / "bots").glob("talker-*.html")).as_uri(),
    }
    for name, url in pages.items():
        page.goto(url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{url} scrolls sideways ({width} px)"
        assert page.evaluate(CUT_OFF) == [], f"{url}: cut off on a phone"
        page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    page.goto(pages["mobile-game-over.png"])
    assert page.locator("#scores .final-score").count() == 3
    page.goto(pages["mobile-replay.png"])
    map_width = page.evaluate("document.getElementById('map').getBoundingClientRect().width")
    assert map_width >= 360, "the map uses the screen's width"
    page.close()
    assert os.path.getsize(ARTIFACTS / "mobile-replay.png") > 10_000


MAP_BOX = """(() => { const svg = document.getElementById('map');
  const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  return {x, y, w, h, zoom: Number(svg.dataset.zoom)}; })()"""
LABELS_OUTSIDE = """(() => { const svg = document.getElementById('map');
  const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  return [...svg.querySelectorAll('.city-name')].map((t) => [t.textContent, t.getBBox()])
    .filter(([, b]) => b.x < x - 0.5 || b.y < y - 0.5 || b.x + b.width > x + w + 0.5
                       || b.y + b.height > y + h + 0.5).map(([name]) => name); })()"""
# How far apart, on screen, the two tracks of the first double route are drawn (centre to centre).
DOUBLE_APART = """(() => { const r = BOARD.routes.find((x) => x.double && x.track === 0);
  const twin = BOARD.routes.find((x) => x.double && x.id !== r.id && x.a === r.a && x.b === r.b);
  const centre = (id) => { const b = document.querySelector(`.route[data-route='${id}'] .slots`)
    .getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; };
  const [p, q] = [centre(r.id), centre(twin.id)];
  return Math.hypot(p[0] - q[0], p[1] - q[1]); })()"""
PINCH = """(() => { const svg = document.getElementById('map'), r = svg.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const send = (type, id, x) => svg.dispatchEvent(new PointerEvent(type, { pointerId: id,
    clientX: x, clientY: cy, bubbles: true, pointerType: 'touch', isPrimary: id === 1 }));
  send('pointerdown', 1, cx - 20); send('pointerdown', 2, cx + 20);
  send('pointermove', 1, cx - 60); send('pointermove', 2, cx + 60);
  send('pointerup', 1, cx - 60); send('pointerup', 2, cx + 60); })()"""


# The steps the timeline's markers stand for, each once, in order.
MARKED = """[...document.querySelectorAll('.marker')]
  .flatMap((m) => m.dataset.steps.split(' ').map(Number))"""
# Markers whose boxes overlap a neighbour's, or that are not what a click at their middle hits.
MARKERS_IN_THE_WAY = """(() => { const ms = [...document.querySelectorAll('.marker')];
  const boxes = ms.map((m) => m.getBoundingClientRect());
  const overlapping = boxes.slice(1).flatMap((b, i) => b.left < boxes[i].right ? [i + 1] : []);
  const covered = ms.flatMap((m, i) => { const b = boxes[i], x = b.left + b.width / 2;
    return document.elementFromPoint(x, b.top + b.height / 2) === m ? [] : [i]; });
  return { overlapping, covered, count: ms.length }; })()"""
# The step of the claim whose route's middle is furthest from the map's middle, sideways.
FAR_CLAIM = """(() => { const city = Object.fromEntries(BOARD.cities.map((c) => [c.id, c]));
  const route = Object.fromEntries(BOARD.routes.map((r) => [String(r.id), r]));
  let best = null, far = -1;
  MATCH.steps.forEach((s, n) => { if (!/^claim /.test(s.action || '')) return;
    const r = route[s.action.split(' ')[1]], x = (city[r.a].x + city[r.b].x) / 2;
    if (Math.abs(x - BOARD.width / 2) > far) { far = Math.abs(x - BOARD.width / 2); best = n; } });
  return best; })()"""
# Whether the last move's halo has its middle inside the map as shown.
LAST_MOVE_SHOWN = """(() => { const m = document.getElementById('map').getBoundingClientRect();
  const b = document.querySelector('.last-move-halo').getBoundingClientRect();
  const x = b.left + b.width / 2, y = b.top + b.height / 2;
  return x > m.left && x < m.right && y > m.top && y < m.bottom; })()"""


def test_the_viewer_keeps_its_keys_its_markers_and_the_last_move_at_1280_and_390_px(site, browser):
    """Every key the viewer handles moves the replay, never the page (End included); the
    timeline's markers never overlap, each is what a click on it hits, and together they
    stand for every marked step once; on a phone, "+" zooms in on the last move (the claim
    furthest from the map's middle stays in view)."""
    store, index, _, _ = site
    match = next(m for m in stored_matches(store) if len(m.bots) == 3)
    url = (index.parent / "matches" / f"{match.match_id}.html").as_uri()
    for width, height in ((1280, 800), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        marked = page.evaluate(
            "MATCH.steps.flatMap((s, n) => (s.faults && s.faults.length) || "
            "/^(claim|station) /.test(s.action || '') || s.action === 'tickets' ? [n] : [])"
        )
        assert page.evaluate(MARKED) == marked
        in_the_way = page.evaluate(MARKERS_IN_THE_WAY)
        assert in_the_way["overlapping"] == [] and in_the_way["covered"] == [], in_the_way
        assert in_the_way["count"] < len(marked), f"close markers are clustered at {width} px"
        cluster = page.locator(".marker.cluster").first
        assert int(cluster.inner_text()) == len(cluster.get_attribute("data-steps").split())
        cluster.click()
        assert page.evaluate("window.REPLAY.step") == int(cluster.get_attribute("data-step"))

        last = page.evaluate("window.REPLAY.last")
        assert page.evaluate("document.documentElement.scrollHeight > innerHeight")
        page.evaluate("document.activeElement.blur(); window.scrollTo(0, 120)")
        for key, step in (("End", last), ("Home", 0), ("ArrowRight", 1), ("ArrowLeft", 0)):
            page.keyboard.press(key)
            assert page.evaluate("window.REPLAY.step") == step, key
            assert page.evaluate("window.scrollY") == 120, f"{key} scrolled the page at {width}"
        page.keyboard.press(" ")
        page.keyboard.press(" ")  # play, pause
        assert page.evaluate("window.scrollY") == 120, f"space scrolled the page at {width}"
        page.close()

    phone = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    phone.goto(url)
    far = phone.evaluate(FAR_CLAIM)
    phone.goto(url + f"#step={far}")
    phone.click(".zoom-in")
    phone.click(".zoom-in")
    assert phone.evaluate(MAP_BOX)["zoom"] > 2.5
    assert phone.evaluate(LAST_MOVE_SHOWN), "zoomed in, the last move is still on screen"
    phone.screenshot(path=str(ARTIFACTS / "mobile-zoom-last-move.png"))
    phone.close()


def test_the_first_bots_replay_reads_at_1366_and_390_px(tmp_path, browser):
    """docs/FIRST-BOT.md's bot in a game, its replay as a person expects it: the last move
    outlined on the map, a move list and timeline markers that jump, a score-over-time chart,
    the bot's notes at their steps, phases in words, every city name inside the map; on a
    390 px phone the map zooms (buttons, pinch) and pans, with names readable."""
    from tests.test_first_bot import DOC, blocks

    [(_, code)] = [b for b in blocks(DOC.read_text(), "first-bot", "python") if "/" in b[0]]
    (tmp_path / "my-bot").mkdir()
    (tmp_path / "my-bot" / "bot.py").write_text(code)
    arena("play", "--bot", "cmd:{python} -m bots.filebot my-bot", "--bot", "greedy-claims",
          "--seed", "2", "--match-log", "game.jsonl", cwd=tmp_path)  # fmt: skip
    arena("view", "game.jsonl", "--out", "replay.html", "--no-open", cwd=tmp_path)
    url = (tmp_path / "replay.html").as_uri()
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    steps = page.evaluate("window.MATCH.steps.map((s) => [s.action || '', s.note || '', s.seat])")
    last = len(steps) - 1
    claims = [n for n, (action, _, _) in enumerate(steps) if action.startswith("claim ")]
    draws = [n for n, (action, _, _) in enumerate(steps) if action == "tickets"]
    noted = next(n for n, (_, note, _) in enumerate(steps) if note)

    # The last move on the map, and the bot's note beside its time at that step.
    page.goto(url + f"#step={noted}")
    route = steps[noted][0].split()[1]
    assert page.locator(".claimed.last-move").count() == 1
    assert page.get_attribute(".claimed.last-move", "data-route") == route
    assert page.locator(f".last-move-halo[data-route='{route}']").count() == 1
    assert page.inner_text("#events .bot-note .note-text") == steps[noted][1]
    assert "longest-first's note" in page.inner_text("#events .bot-note")
    page.screenshot(path=str(ARTIFACTS / "replay-1366.png"), full_page=True)

    # The move list and the timeline's markers jump to their step.
    assert page.locator("#moves li").count() == last + 1
    page.locator(f"#moves li[data-step='{claims[2]}']").click()
    assert page.evaluate("window.REPLAY.step") == claims[2]
    assert page.locator("#moves li.current").get_attribute("data-step") == str(claims[2])
    assert page.evaluate(MARKED) == sorted(claims + draws), "every claim and draw is marked"
    page.locator(".marker").last.click()
    assert page.evaluate("window.REPLAY.step") == int(
        page.locator(".marker").last.get_attribute("data-step")
    )

    # A score line per seat, its cursor at the step; a click on the chart goes there.
    assert page.locator("#score-chart .score-line").count() == 2
    before = page.get_attribute("#chart-cursor", "x1")
    box = page.locator("#score-chart").bounding_box()
    page.locator("#score-chart").click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    assert page.get_attribute("#chart-cursor", "x1") != before
    assert abs(page.evaluate("window.REPLAY.step") - last / 2) <= last / 10

    # Phases in words; every city name inside the map.
    page.goto(url + "#step=1")
    assert "_" not in page.inner_text("#table .phase")
    assert "choosing first tickets" in page.inner_text("#table .phase")
    assert page.evaluate(LABELS_OUTSIDE) == []
    page.goto(url + f"#step={last}")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "first-bot-replay.png"), full_page=True)
    page.close()

    # A phone: zoom and pan, names readable once zoomed.
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                             has_touch=True)  # fmt: skip
    phone.on("pageerror", lambda e: errors.append(str(e)))
    phone.goto(url + f"#step={claims[len(claims) // 2]}")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.evaluate(CUT_OFF) == [], "the replay fits a phone"
    whole = phone.evaluate(MAP_BOX)
    phone.click(".zoom-in")
    phone.click(".zoom-in")
    zoomed = phone.evaluate(MAP_BOX)
    assert zoomed["zoom"] > 2.5 and zoomed["w"] < whole["w"] / 2.5
    sizes = phone.evaluate(
        "[...document.querySelectorAll('.city-name')].map((t) => t.getBoundingClientRect().height)"
    )
    assert min(sizes) >= 10, f"city names {min(sizes):.1f} px high on a zoomed phone map"
    apart = phone.evaluate(DOUBLE_APART)
    assert apart >= 6, f"a double route's tracks {apart:.1f} px apart: they merge"
    box = phone.locator("#map").bounding_box()
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    rightwards = zoomed["x"] > 0  # "+" centred the last move: the map may be at its west edge
    phone.mouse.move(*middle)
    phone.mouse.down()
    phone.mouse.move(middle[0] + (80 if rightwards else -80), middle[1] + 40, steps=4)
    phone.mouse.up()
    panned = phone.evaluate(MAP_BOX)
    moved_west = panned["x"] < zoomed["x"]
    assert moved_west == rightwards and panned["x"] != zoomed["x"], "a drag pans"
    assert panned["w"] == zoomed["w"]
    phone.screenshot(path=str(ARTIFACTS / "mobile.png"), full_page=False)
    phone.click(".zoom-reset")
    assert phone.evaluate(MAP_BOX)["w"] == whole["w"]
    phone.evaluate(PINCH)
    assert phone.evaluate(MAP_BOX)["zoom"] > 2, "fingers apart zoom in"
    phone.close()
    assert not errors, errors

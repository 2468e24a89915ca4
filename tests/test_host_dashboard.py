"""A participant's side of a hosted competition over real HTTP: a bot's page lists every
match it played (paged, filtered, newest first), its win rates and margins with their
intervals, its rating over time; a crash reads as the exception its stderr names for the
bot's owner only; the dashboard (``/me``) shows each of a participant's bots. The ladder is
played by real bots: one crashes whenever it sits second (validation seats it first, so it
passes), the other is the greedy example. The competition is then closed and its final
played, so the stored matches no longer change while the pages are read. In a browser, a
participant goes from the dashboard to a loss, downloads its bundle and reproduces it with
``arena replay --reproduce``."""

from __future__ import annotations

import contextlib
import math
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.botstats import Sums, mean_interval, wilson
from arena.tournament.bundle import load_bundle
from arena.tournament.store import ResultsStore
from tests import test_browser
from tests.host_helpers import (
    ARENA,
    PYTHON_BOT,
    HostProcess,
    Visitor,
    competition_text,
    sign_in,
    wait_until,
)
from tests.test_browser import CHROMIUM, replay_url

pytestmark = pytest.mark.xdist_group("host-dashboard")
ROOT = Path(__file__).resolve().parents[1]
LADDER = "test-cup-usa-2p"
FINAL = "test-cup-final-usa-2p"
CRASHY = b'''"""Plays the first legal action; sitting second, it reads past the end of its list."""
from bots.sdk import Bot


class SecondSeatCrash(Bot):
    name = "second-seat-crash"

    def choose(self, observation, legal_actions):
        if self.seat == 1:
            return legal_actions[len(legal_actions)]
        return legal_actions[0]
'''
ENOUGH = 12  # ladder matches of the crashing bot before the competition closes


class Cup:
    def __init__(self, host: HostProcess, alice: Visitor, bob: Visitor) -> None:
        self.host, self.alice, self.bob = host, alice, bob


def seats_of(host: HostProcess, key: str) -> list[tuple]:
    """Every stored (match result, seat) of ``key``'s versions in the cup, ladder and final."""
    found = []
    with ResultsStore.reader(host.data) as store:
        for name in (LADDER, FINAL):
            for result in store.results(name):
                for seat, bot in enumerate(result.bots):
                    if bot.rpartition("@")[0] == key:
                        found.append((result, seat))
    return found


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    host = HostProcess(tmp_path_factory.mktemp("dashboard")).start()
    try:
        alice, bob = host.visitor(), host.visitor()
        assert alice.signup("alice").status_code == 303
        assert bob.signup("bob").status_code == 303
        for visitor, name, code in ((alice, "crashy", CRASHY), (bob, "greedy", None)):
            data = code if code is not None else (PYTHON_BOT / "greedy.py").read_bytes()
            answer = visitor.upload(name, f"{name}.py", data)
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')

        def enough() -> bool:
            played = [r for r, _ in seats_of(host, "alice.crashy") if r.tournament == LADDER]
            return len(played) >= ENOUGH and any(r.faults[1] == "crash" for r in played)

        wait_until(enough, f"{ENOUGH} ladder matches of alice.crashy, one of them a crash")
        host.stop()  # the deadline passes: the ladder stops and the final is played
        host.file.write_text(competition_text(deadline="2020-01-01T00:00:00Z"))
        host.options = (*host.options, "--final-now")
        host.start()
        for visitor in (alice, bob):
            assert visitor.signin(visitor.name).status_code == 303
        alice.wait_for("/final", r"This is the competition(&#39;|')s result\.")
        yield Cup(host, alice, bob)
    finally:
        host.stop()


def listed(visitor: Visitor, path: str) -> list[int]:
    page = visitor.get(path)
    assert page.status_code == 200, (path, page.text[-500:])
    return [int(m) for m in re.findall(r'<tr data-match="(\d+)"', page.text)]


def total_of(visitor: Visitor, query: str) -> int:
    page = visitor.get(f"/bots/alice.crashy{query}")
    assert page.status_code == 200, (query, page.text[-500:])
    found = re.search(r'<span id="total">(\d+)</span>', page.text)
    assert found, page.text[-1000:]
    return int(found.group(1))


def test_the_bot_page_lists_every_match_newest_first_in_pages(cup: Cup) -> None:
    stored = seats_of(cup.host, "alice.crashy")
    assert len(stored) >= ENOUGH
    seen: list[int] = []
    page = 1
    while True:
        rows = listed(cup.bob, f"/bots/alice.crashy?per=5&page={page}")
        assert 0 < len(rows) <= 5
        seen += rows
        if len(rows) < 5 or len(seen) == len(stored):
            break
        page += 1
    assert len(seen) == len(set(seen)) == len(stored)
    assert set(seen) == {r.match_id for r, _ in stored}
    # Newest first: in the order the store received them, latest first.
    finished = {r.match_id: r.finished_at for r, _ in stored}
    assert [finished[m] for m in seen] == sorted((finished[m] for m in seen), reverse=True)
    assert cup.bob.get(f"/bots/alice.crashy?per=5&page={page + 1}").status_code == 404
    # Every match links to its page (replays are public).
    text = cup.bob.get("/bots/alice.crashy?per=5").text
    assert len(re.findall(r'<a class="match" href="/matches/\d+"', text)) == 5


@pytest.mark.parametrize(
    "query",
    ["per=0", "per=101", "per=abc", "page=0", "page=-1", "page=1e3", "page=99999999999",
     "board=nowhere", "result=draw", "fault=bored", "opponent=nobody", "opponent=alice.crashy",
     "per=%00", "page=%F0%9F%92%A5"],
)  # fmt: skip
def test_a_query_out_of_range_is_refused_in_one_line(cup: Cup, query: str) -> None:
    answer = cup.bob.get(f"/bots/alice.crashy?{query}")
    assert answer.status_code == 400, (query, answer.status_code)
    assert re.search(r"refused: \w+: ", answer.text)
    assert "Traceback" not in answer.text


def test_the_filters_split_the_matches_and_their_counts_add_up(cup: Cup) -> None:
    stored = seats_of(cup.host, "alice.crashy")
    everything = total_of(cup.bob, "")
    assert everything == len(stored)
    won = total_of(cup.bob, "?result=won")
    assert won == sum(r.ranks[s] == 1 for r, s in stored)
    assert won + total_of(cup.bob, "?result=lost") == everything
    faults = total_of(cup.bob, "?fault=yes")
    assert faults == sum(r.faults[s] is not None for r, s in stored) > 0
    assert faults + total_of(cup.bob, "?fault=no") == everything
    assert total_of(cup.bob, "?fault=crash") == faults  # its only fault
    assert total_of(cup.bob, "?fault=timeout") == 0
    ladder, final = total_of(cup.bob, "?board=usa-2p"), total_of(cup.bob, "?board=final-usa-2p")
    assert ladder + final == everything and final >= 1
    assert total_of(cup.bob, "?opponent=bob.greedy") == everything  # its only opponent
    lost_crashes = total_of(cup.bob, "?result=lost&fault=crash&board=usa-2p")
    assert lost_crashes == sum(
        r.tournament == LADDER and r.faults[s] == "crash" and r.ranks[s] > 1 for r, s in stored
    )
    rows = listed(cup.bob, "/bots/alice.crashy?result=lost&fault=crash&board=usa-2p&per=100")
    assert len(rows) == lost_crashes or lost_crashes > 100


def test_win_rates_and_margins_are_shown_with_their_intervals(cup: Cup) -> None:
    text = cup.bob.get("/bots/alice.crashy").text
    for slug, name in (("usa-2p", LADDER), ("final-usa-2p", FINAL)):
        mine = [(r, s) for r, s in seats_of(cup.host, "alice.crashy") if r.tournament == name]
        sums = Sums()
        for result, seat in mine:
            margin = result.scores[seat] - result.scores[1 - seat]
            sums.add(1, int(result.ranks[seat] == 1), margin, margin * margin)
        row = re.search(rf'<tr data-board="{slug}">(.*?)</tr>', text)
        assert row, text[-3000:]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
        assert int(cells[1]) == len(mine) and int(cells[2]) == sums.wins
        low, high = wilson(sums.wins, sums.n)
        assert cells[3].startswith(f"{100 * sums.wins / sums.n:.0f}% ")
        assert f"({100 * low:.0f}–{100 * high:.0f}%)" in cells[3]
        margin = f"{sums.margin / sums.n:+.1f}"
        assert cells[4].startswith(margin)
        found = mean_interval(sums.margin, sums.square, sums.n)
        if found is not None:
            assert f"({found[1]:+.1f} to {found[2]:+.1f})" in cells[4]
    opponent = re.search(r'<tr data-board="usa-2p" data-opponent="bob.greedy">', text)
    assert opponent


def test_the_intervals_are_wilsons_and_students() -> None:
    # Published values: Wilson for 0 of 10 and 8 of 10 (z = 1.96); t with 9 degrees of
    # freedom is 2.262.
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    values = [3, -1, 4, 1, -5, 9, 2, 6, -5, 3]
    n, mean = len(values), sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    found = mean_interval(sum(values), sum(v * v for v in values), n)
    assert found == pytest.approx((mean, mean - 2.262 * sd / n**0.5, mean + 2.262 * sd / n**0.5))
    assert mean_interval(5, 25, 1) is None


def test_the_owner_sees_the_exception_line_of_a_crash_and_no_one_else(cup: Cup) -> None:
    crashes = [
        (r, s) for r, s in seats_of(cup.host, "alice.crashy")
        if r.tournament == LADDER and r.faults[s] == "crash"
    ]  # fmt: skip
    assert crashes
    result = crashes[0][0]
    error = "IndexError: list index out of range"
    mine = cup.alice.get(f"/matches/{result.match_id}").text
    assert error in mine
    assert "ranks last, whatever its score" in mine and 'id="fault-crash"' in mine
    theirs = cup.bob.get(f"/matches/{result.match_id}").text
    assert error not in theirs and "IndexError" not in theirs
    assert "ranks last, whatever its score" in theirs
    # The bot page: the owner's crashes each with the line; another's without.
    page = cup.alice.get("/bots/alice.crashy?fault=crash&per=100").text
    assert page.count(error) == min(total_of(cup.alice, "?fault=crash"), 100)
    assert "IndexError" not in cup.bob.get("/bots/alice.crashy?fault=crash&per=100").text
    assert "IndexError" not in cup.host.visitor().get("/bots/alice.crashy?fault=crash").text
    # Every fault code in words, in one place, on the bot page.
    assert re.search(r'<dt id="fault-timeout"><code>timeout</code></dt><dd>[^<]+\.</dd>', page)


def test_the_rating_chart_has_a_point_per_game(cup: Cup) -> None:
    text = cup.bob.get("/bots/alice.crashy").text
    games = re.search(
        r'<tr data-bot="alice\.crashy@1">.*?class="num games">(\d+)<', text
    )  # the ratings table
    assert games
    svg = re.search(r'<svg class="rating-chart"[^>]*data-points="(\d+)"[^>]*>(.*?)</svg>', text)
    assert svg, text[-2000:]
    count = int(games.group(1))
    assert int(svg.group(1)) == count >= ENOUGH
    for line in ("mu", "conservative"):
        points = re.search(rf'<polyline class="{line}" points="([^"]+)"', svg.group(2))
        assert points and len(points.group(1).split()) == count
    assert "style=" not in svg.group(0) and "<script" not in text  # the CSP's rules


def test_the_dashboard_shows_each_of_ones_bots(cup: Cup) -> None:
    page = cup.alice.get("/me").text
    section = re.search(
        r'<section class="my-bot" data-bot="alice\.crashy">(.*?)</section>', page, re.S
    )
    assert section, page[-2000:]
    body = section.group(1)
    assert '<a class="bot-page" href="/bots/alice.crashy">' in body
    assert re.search(r'<tr data-bot="alice\.crashy@1"><td><a href="/boards/usa/2">', body)
    last = re.search(r"<h4>Last matches</h4>(.*?)</table>", body, re.S)
    assert last and len(re.findall(r"<tr data-match=", last.group(1))) == 5
    faults = re.search(r"<h4>Recent faults</h4>(.*?)</table>", body, re.S)
    assert faults and "IndexError: list index out of range" in faults.group(1)
    other = cup.bob.get("/me").text
    assert '<section class="my-bot" data-bot="bob.greedy">' in other
    assert '<section class="my-bot" data-bot="alice.crashy">' not in other


browser = test_browser.browser  # the same Chromium fixture as the site's tests
SCREENSHOTS = ROOT / "docs" / "images"  # written with ARENA_SCREENSHOTS=1 (the README's)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_participant_finds_a_loss_from_the_dashboard_in_a_browser(cup: Cup, browser) -> None:
    from playwright.sync_api import expect

    with alice_signed_in(cup, browser) as (page, errors):
        mine = page.locator('section.my-bot[data-bot="alice.crashy"]')
        expect(mine.locator("table.bot-matches:not(.faults) tr[data-match]")).to_have_count(5)
        expect(mine.locator(".faults")).to_contain_text("IndexError: list index out of range")
        shoot(page, "host-dashboard.png")
        mine.locator("a.losses").click()
        page.wait_for_url(re.compile(r"/bots/alice\.crashy\?result=lost"))
        rows = page.locator("table.bot-matches tr[data-match]")
        expect(rows.first).to_be_visible()
        assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.result)")) == {"lost"}
        expect(page.locator("svg.rating-chart")).to_be_visible()
        shoot(page, "host-bot.png")
        loss = rows.first.get_attribute("data-match")
        # The page is live: a match that lands swaps the table in, so the row is named.
        page.locator(f'table.bot-matches tr[data-match="{loss}"] a.match').click()
        page.wait_for_url(replay_url(rf"/matches/{loss}"))
        seat = page.locator("table.seats tr", has_text="alice.crashy@1")
        expect(seat).to_have_count(1)
        assert seat.locator("td").nth(3).inner_text() != "1"  # a loss: not ranked first
    assert errors == []  # no script error, nothing the CSP refused


# The participant's copy changed from its third decision on: the first decision after
# that with a choice is played otherwise.
CHANGED = CRASHY.replace(
    b"        return legal_actions[0]\n",
    b"        self.decisions = getattr(self, 'decisions', 0) + 1\n"
    b"        return legal_actions[-1 if self.decisions >= 3 else 0]\n",
)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_participant_reproduces_a_loss_from_its_match_page_bundle(
    cup: Cup, browser, tmp_path: Path
) -> None:
    """From the dashboard to a loss without a fault (the bot sat first), its match on the
    map, its bundle downloaded, and ``arena replay --reproduce`` with the participant's own
    copy of the bot (identical), then with a changed copy (the first differing decision)."""
    from playwright.sync_api import expect

    assert CHANGED != CRASHY
    with alice_signed_in(cup, browser) as (page, errors):
        page.locator('section.my-bot[data-bot="alice.crashy"] a.losses').click()
        page.wait_for_url(re.compile(r"/bots/alice\.crashy\?result=lost"))
        page.select_option("form.filters select[name=fault]", "no")  # a loss, not a crash
        page.click("#filter")
        page.wait_for_url(re.compile(r"fault=no"))
        rows = page.locator("table.bot-matches tr[data-match]")
        expect(rows.first).to_be_visible()
        assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.result)")) == {"lost"}
        assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.fault)")) == {""}
        loss = int(rows.first.get_attribute("data-match") or 0)
        # The page is live: a match that lands swaps the table in, so the row is named.
        page.locator(f'table.bot-matches tr[data-match="{loss}"] a.match').click()
        page.wait_for_url(replay_url(rf"/matches/{loss}"))
        expect(page.locator("#map")).to_be_visible()  # the match plays on the map
        expect(page.locator("#step")).to_contain_text("step 0 /")
        with page.expect_download() as download:
            page.click("#bundle")
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
    assert errors == []
    assert saved.name.endswith("-bundle.json"), saved.name
    bundle = load_bundle(saved.read_bytes())
    assert bundle.match_id == loss
    seat = next(s.seat for s in bundle.seats if s.bot.startswith("alice.crashy@"))
    assert bundle.ranks[seat] != 1 and not bundle.faults  # her bot lost, nobody forfeited

    own, changed = tmp_path / "mine" / "crashy.py", tmp_path / "changed" / "crashy.py"
    for path, code in ((own, CRASHY), (changed, CHANGED)):
        path.parent.mkdir()
        path.write_bytes(code)
    greedy = bundle.seats[1 - seat].bot  # the other seat: the public example, bob's bot

    def reproduce(copy: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [ARENA, "replay", "--reproduce", str(saved), "--bot", f"alice.crashy={copy}",
             "--bot", f"{greedy}={PYTHON_BOT / 'greedy.py'}"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )  # fmt: skip

    same = reproduce(own)
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"your copy {own}: the same code as the server ran" in same.stdout
    assert same.stdout.strip().splitlines()[-1] == f"identical: {len(bundle.moves)} decisions"

    differs = reproduce(changed)
    assert differs.returncode == 1, differs.stdout + differs.stderr
    assert "NOT the code the server ran" in differs.stdout
    line = differs.stdout.strip().splitlines()[-1]
    found = re.match(
        rf"differs: game {bundle.game_id}, decision (\d+), seat {seat}, observation turn \d+: "
        r"recorded '(.+)', replayed '(.+)'$",
        line,
    )
    assert found, line
    decision = int(found.group(1))
    hers = [n for n, m in enumerate(bundle.moves, start=1) if m.seat == seat]
    assert decision in hers[2:]  # her third decision or later, as the copy was changed
    assert found.group(2) == bundle.moves[decision - 1].action != found.group(3)


@contextlib.contextmanager
def alice_signed_in(cup: Cup, browser) -> Iterator[tuple]:
    """A Chromium page signed in as alice (on ``/me``), and the list of the script errors
    and CSP refusals it meets (empty at the end of a clean journey)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if csp(message.text) else None)
    page.set_default_timeout(60_000)
    try:
        sign_in(page, cup.host, "alice")
        page.wait_for_url(re.compile(r"/me$"))
        yield page, errors
    finally:
        context.close()


def csp(text: str) -> bool:
    """A console line saying the page broke the CSP (inline script or style refused)."""
    return "Content Security Policy" in text


def shoot(page, name: str) -> None:
    if os.environ.get("ARENA_SCREENSHOTS") == "1":
        page.screenshot(path=str(SCREENSHOTS / name), full_page=True)

"""The bot author's side of a hosted competition, over real HTTP and real processes: a
usa board at 2 and at 4 players. A bot that crashes only in 4-player games fails
validation on that board only, plays the 2-player ladder and never a 4-player match,
and its owner is told why; a board short of participants says how many it needs; a
challenge against a chosen bot runs to its end, unranked, with its intervals; the
quota refuses the next with 429 and when; and a participant makes a challenge from the
board's page in a real Chromium and sees its result."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board
from tests import test_browser
from tests.host_helpers import (
    PYTHON_BOT,
    HostProcess,
    Visitor,
    competition_text,
    sign_in,
    wait_until,
)
from tests.test_browser import CHROMIUM

# The tests follow one competition in order: one xdist worker runs them (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("host-challenges")
CRASH_4 = (Path(__file__).parent / "bots" / "four_player_crash.py").read_bytes()
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
TWO, FOUR = "test-cup-usa-2p", "test-cup-usa-4p"
CHALLENGES = """
[challenges]
games_per_hour = 12
pair_games_per_day = 100
max_games = 8
share = 0.2
"""
browser = test_browser.browser  # the same Chromium fixture as the site's tests


class Cup:
    def __init__(self, host: HostProcess, people: dict[str, Visitor]) -> None:
        self.host, self.people = host, people


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    text = competition_text(players="[2, 4]") + CHALLENGES
    host = HostProcess(tmp_path_factory.mktemp("challenges"), text).start()
    people = {}
    for name in ("alice", "bob", "carol", "dave", "erin"):
        people[name] = host.visitor()
        assert people[name].signup(name).status_code == 303
    try:
        yield Cup(host, people)
    finally:
        host.stop()


def stored(host: HostProcess, name: str) -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(name, details=False)


def upload(visitor: Visitor, bot: str, code: bytes) -> str:
    answer = visitor.upload(bot, f"{bot}.py", code)
    assert answer.status_code == 303, answer.text
    page = answer.headers["location"]
    visitor.wait_for(page, r'id="status">(ok|rejected)<')
    return page


def test_a_bot_that_crashes_with_four_players_fails_that_board_only(cup: Cup) -> None:
    alice = cup.people["alice"]
    page = upload(alice, "two", CRASH_4)
    text = alice.get(page).text
    assert 'id="status">ok<' in text
    two = re.search(r'data-board="usa-2p">(.*?)</tr>', text, re.S)
    four = re.search(r'data-board="usa-4p">(.*?)</tr>', text, re.S)
    assert two and four, text
    assert "passed" in two.group(1)
    assert "failed" in four.group(1) and "usa with 4 players" in four.group(1)
    assert "four players: this bot was only written for two" in text  # its stderr, for it
    sid = int(page.rsplit("/", 1)[1])
    token = alice.token(("read",))
    api = alice.client.get(f"/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"})
    boards = {b["board"]: b for b in api.json()["boards"]}
    assert boards["usa-2p"]["passed"] is True and boards["usa-4p"]["passed"] is False
    assert "usa with 4 players" in boards["usa-4p"]["reason"]
    accounts = Accounts(cup.host.data)
    assert "alice.two@1" in accounts.playing("usa-2p")
    assert "alice.two@1" not in accounts.playing("usa-4p")
    # Nobody else sees why.
    assert cup.people["bob"].get(page).status_code == 404


def test_a_board_says_how_many_participants_it_needs(cup: Cup) -> None:
    for name in ("bob", "carol"):
        assert 'id="status">ok<' in cup.people[name].get(upload(cup.people[name], "g", GREEDY)).text
    board = cup.people["erin"].get("/boards/usa/4").text
    needs = r'id="needs">Needs 4 participants with a bot that passed this board[^<]*: 2 so far'
    assert re.search(needs, board), board  # alice's bot failed it: bob's and carol's
    home = cup.host.visitor().get("/").text
    assert re.search(r'id="needs-usa-4">Needs 4 participants[^<]*: 2 so far', home), home
    assert 'id="needs-usa-2"' not in home  # three play the 2-player board
    for name in ("dave", "erin"):
        upload(cup.people[name], "g", GREEDY)
    cup.people["erin"].wait_for("/boards/usa/4", r'class="num games">[1-9]')
    assert 'id="needs"' not in cup.people["erin"].get("/boards/usa/4").text


def test_the_crashing_bot_plays_two_players_and_never_four(cup: Cup) -> None:
    wait_until(lambda: any("alice.two@1" in r.bots for r in stored(cup.host, TWO)), "alice 2p")
    wait_until(lambda: len(stored(cup.host, FOUR)) >= 6, "six 4-player matches")
    assert not any("alice.two@1" in r.bots for r in stored(cup.host, FOUR))
    # Nor did it forfeit a 2-player match: its validation was right to pass it there.
    assert not any(
        r.faults[r.bots.index("alice.two@1")]
        for r in stored(cup.host, TWO)
        if "alice.two@1" in r.bots
    )


def test_a_challenge_runs_to_its_end_unranked_with_its_intervals(cup: Cup) -> None:
    bob = cup.people["bob"]
    form = bob.get("/boards/usa/2").text
    assert 'id="challenge-form"' in form and "carol.g@1" in form and "random (built-in)" in form
    answer = bob.post(
        "/challenges", {"board": "usa-2p", "bot": "bob.g@1", "opponent": "carol.g@1",
                        "games": "8"}, page="/boards/usa/2",
    )  # fmt: skip
    assert answer.status_code == 303, answer.text
    page = answer.headers["location"]
    text = bob.wait_for(page, r'id="challenge-status">done<')
    assert re.search(r'id="played">8<', text)
    assert re.search(r'id="challenge-ranked">unranked<', text)
    row = re.search(r'data-opponent="carol\.g@1">(.*?)</tr>', text, re.S)
    assert row and re.search(r"\d+% \(\d+–\d+%\)", row.group(1)), text  # a 95% interval
    assert re.search(r"[+-]\d+\.\d \([+-]\d+\.\d to [+-]\d+\.\d\)", row.group(1))
    challenge = stored(cup.host, "test-cup-challenge-1")
    assert len(challenge) == 8
    assert {frozenset(r.bots) for r in challenge} == {frozenset({"bob.g@1", "carol.g@1"})}
    deals: dict[int, set] = {}
    for result in challenge:  # duplicate deals: each deal in both seat orders
        deals.setdefault(result.idx // 2, set()).add(result.bots)
    assert all(len(seatings) == 2 for seatings in deals.values()) and len(deals) == 4
    # Unranked: the boards are their ladders' matches only, not one challenge game.
    ids = {r.match_id for r in challenge}
    with ResultsStore.reader(cup.host.data) as store, store.read_snapshot():
        for ladder in (TWO, FOUR):
            live = LiveBoard(ladder)
            rows = live.rows(store, set())
            full = Board()
            for result in store.results(ladder, details=False):
                assert result.match_id not in ids
                full.add(result)
            assert rows == full.rows()
    # The challenged bot's owner sees it; another participant does not.
    assert cup.people["carol"].get(page).status_code == 200
    assert cup.people["dave"].get(page).status_code == 404
    assert "#1" in cup.people["carol"].get("/me").text and "challenged by bob" in (
        cup.people["carol"].get("/me").text
    )


def test_a_ranked_challenge_is_refused_where_the_file_does_not_allow_it(cup: Cup) -> None:
    bob = cup.people["bob"]
    form = bob.get("/boards/usa/2").text
    assert 'id="challenge-form"' in form and 'name="ranked"' not in form
    assert "Challenges are unranked" in form
    count = len(Accounts(cup.host.data).challenges())
    answer = bob.post(
        "/challenges", {"board": "usa-2p", "bot": "bob.g@1", "opponent": "carol.g@1",
                        "games": "2", "ranked": "1"}, page="/boards/usa/2",
    )  # fmt: skip
    assert answer.status_code == 400, answer.text
    assert "this competition plays challenges unranked only" in answer.text
    assert len(Accounts(cup.host.data).challenges()) == count  # nothing queued


def test_the_quota_refuses_the_next_challenge_with_when(cup: Cup) -> None:
    bob = cup.people["bob"]
    answer = bob.post(
        "/challenges", {"board": "usa-2p", "bot": "bob.g@1", "opponent": "random",
                        "games": "8"}, page="/boards/usa/2",
    )  # fmt: skip
    assert answer.status_code == 429, answer.text
    assert "at most 12 challenge games an hour" in answer.text
    assert re.search(
        r"allowed at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in \d+ minutes\)", answer.text
    )
    assert 0 < int(answer.headers["Retry-After"]) <= 3600  # when the first leaves the hour
    # A smaller one still fits the hour (8 + 4 <= 12): the quota counts games.
    small = bob.post(
        "/challenges", {"board": "usa-2p", "bot": "bob.g@1", "opponent": "random",
                        "games": "4", "verdict": "1", "elo1": "200"}, page="/boards/usa/2",
    )  # fmt: skip
    assert small.status_code == 303, small.text
    text = bob.wait_for(small.headers["location"], r'id="challenge-status">done<')
    assert 'id="verdict"' in text and "LLR" in text


def test_a_challenge_made_from_the_board_page_in_chromium(cup: Cup, browser) -> None:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (make test does)")
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(300_000)
    try:
        sign_in(page, cup.host, "dave")
        page.goto(cup.host.url + "boards/usa/4")
        form = page.locator("#challenge-form")
        for index, bot in enumerate(("erin.g@1", "random", "bob.g@1")):
            form.locator("select[name=opponent]").nth(index).select_option(bot)
        form.locator("input[name=games]").fill("4")
        page.click("#challenge-button")
        page.wait_for_url(re.compile(r"/challenges/\d+$"))
        expect(page.locator("#challenge-status")).to_have_text("done", timeout=300_000)
        expect(page.locator('tr[data-opponent="erin.g@1"] .rate')).to_have_text(
            re.compile(r"\d+% \(\d+–\d+%\)")
        )
        page.screenshot(path=str(test_browser.ARTIFACTS / "host-challenge.png"), full_page=True)
        page.goto(cup.host.url + "me")
        expect(page.locator("ul.challenges li").first).to_contain_text("usa-4p")
    finally:
        context.close()
    assert errors == []

"""Ranked challenges on a real ``arena host`` whose competition file allows them
(``[challenges] ranked = true``), over real HTTP and real processes: a ranked
challenge's games are its board's ladder matches, so they move the board (its page,
its full recompute, the export and ``arena leaderboard --data-dir`` agree), an admin
voids one as any ladder match, and one killed midway resumes at the ladder indices
reserved for it; an unranked challenge on the same host leaves the board as it was;
a ranked one against a built-in bot, or with a sequential verdict, is refused. The ladder plays at
most one match an hour here, so the board moves only by what the tests do."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

# The tests follow one competition in order: one xdist worker runs them (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("host-ranked-challenges")
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
# The same bot, a tenth of a second a move (well inside the time control): a game takes
# many seconds, so a kill after a challenge's first game lands leaves most unplayed.
SLOW = b"import time\n" + GREEDY.replace(
    b"    def choose(self, observation, legal_actions):\n",
    b"    def choose(self, observation, legal_actions):\n        time.sleep(0.1)\n",
)
LADDER = "test-cup-usa-2p"
RANKED = """
[challenges]
games_per_hour = 40
max_games = 8
ranked = true
[ladder]
matches_per_hour = 1
"""
BOB, CAROL = "bob.g@1", "carol.g@1"


class Cup:
    def __init__(self, host: HostProcess, people: dict[str, Visitor]) -> None:
        self.host, self.people = host, people


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    host = HostProcess(tmp_path_factory.mktemp("ranked"), competition_text() + RANKED).start()
    people = {}
    try:
        for name in ("bob", "carol"):
            people[name] = host.visitor()
            assert people[name].signup(name).status_code == 303
            answer = people[name].upload("g", "g.py", GREEDY)
            assert answer.status_code == 303, answer.text
            people[name].wait_for(answer.headers["location"], r'id="status">ok<')
        # The ladder's one match of the hour: the board holds still after it.
        wait_until(lambda: ladder(host), "the ladder's first match")
        yield Cup(host, people)
    finally:
        host.stop()


def ladder(host: HostProcess) -> list[MatchResult]:
    with ResultsStore.reader(host.data) as store:
        return store.results(LADDER, details=False)


def board(host: HostProcess, voided: set[int] | None = None) -> list[dict[str, Any]]:
    """The board as the server rates it (a fresh LiveBoard, as a restart reads it)."""
    voided = Accounts(host.data).voided() if voided is None else voided
    with ResultsStore.reader(host.data) as store:
        return LiveBoard(LADDER, save=False).update(store, voided).rows()


def folded(matches: list[MatchResult]) -> list[dict[str, Any]]:
    full = Board()
    for match in matches:
        full.add(match)
    return full.rows()


def board_page_showing(host: HostProcess, bot: str, games: int) -> str:
    """A visitor's USA 2-player board page once it shows ``bot`` with ``games`` games: it
    may be a second behind the stores (``SETTLE``), or the last one while another request
    makes it anew (a void refolds the board)."""
    pattern = rf'(?s)data-bot="{re.escape(bot)}">.*?class="num games">{games}<'
    return host.visitor().wait_for("/boards/usa/2", pattern, seconds=60)


def row_of(rows: list[dict[str, Any]], bot: str) -> dict[str, Any]:
    return next(row for row in rows if row["bot"] == bot)


def challenge(visitor: Visitor, **asked: str) -> str:
    fields = {"board": "usa-2p", "bot": BOB, "opponent": CAROL, "games": "4", **asked}
    answer = visitor.post("/challenges", fields, page="/boards/usa/2")
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def test_a_ranked_challenge_moves_the_board_as_ladder_games_do(cup: Cup) -> None:
    bob = cup.people["bob"]
    form = bob.get("/boards/usa/2").text
    assert 'id="challenge-ranked"' in form and "ranked (its games count on this board)" in form
    before = ladder(cup.host)
    page = challenge(bob, ranked="1")
    text = bob.wait_for(page, r'id="challenge-status">done<')
    assert re.search(r'id="challenge-ranked">ranked<', text)
    assert re.search(r'id="played">4<', text)
    assert re.search(r'data-opponent="carol\.g@1">.*?\d+% \(\d+–\d+%\)', text, re.S)
    assert re.search(
        rf"{re.escape(BOB)} v {re.escape(CAROL)}, 4 games, ranked,", bob.get("/me").text
    )
    # Its four games are the ladder's matches, at the indices reserved for it.
    record = Accounts(cup.host.data).challenge(int(page.rsplit("/", 1)[1]))
    assert record is not None and record["ranked"] and record["ladder_start"] is not None
    after = ladder(cup.host)
    start = record["ladder_start"]
    games = [r for r in after if start <= r.idx < start + 4]
    assert len(games) == 4 and len(after) == len(before) + 4
    assert {frozenset(r.bots) for r in games} == {frozenset({BOB, CAROL})}
    deals: dict[int, set] = {}
    for result in games:  # duplicate deals: each deal in both seat orders
        deals.setdefault(result.seed, set()).add(result.bots)
    assert len(deals) == 2 and all(len(seatings) == 2 for seatings in deals.values())
    # The board is the full recompute of the ladder with them, and they moved it.
    rows = board(cup.host)
    assert rows == folded(after)
    assert row_of(rows, BOB)["games"] == sum(BOB in r.bots for r in after)
    assert row_of(rows, BOB)["games"] == row_of(folded(before), BOB)["games"] + 4
    assert row_of(rows, BOB)["mu"] != row_of(folded(before), BOB)["mu"]
    # The web board shows the same games and rating.
    shown = board_page_showing(cup.host, BOB, row_of(rows, BOB)["games"])
    cells = re.search(rf'data-bot="{re.escape(BOB)}">(.*?)</tr>', shown, re.S)
    assert cells, shown
    assert f'class="num games">{row_of(rows, BOB)["games"]}<' in cells.group(1)
    assert f'class="num rating">{row_of(rows, BOB)["rating"]:.2f}<' in cells.group(1)
    # The export and `arena leaderboard --data-dir` count them as the board does.
    done = cup.host.arena("admin", "export", "--data-dir", str(cup.host.data), "--format", "json")
    assert done.returncode == 0, done.stderr
    exported = {
        r["label"]: r for r in json.loads(done.stdout)["standings"] if r["board"] == "usa-2p"
    }
    for row in rows:
        assert exported[row["bot"]]["games"] == row["games"]
        assert exported[row["bot"]]["mu"] == pytest.approx(row["mu"])
    done = cup.host.arena(
        "leaderboard", "--data-dir", str(cup.host.data), "--variant", "usa", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    listed = {r["bot"]: r for r in json.loads(done.stdout) if r["board"] == f"ladder {LADDER}"}
    assert {bot: r["games"] for bot, r in listed.items()} == {r["bot"]: r["games"] for r in rows}


def test_an_unranked_challenge_leaves_the_board_as_it_was(cup: Cup) -> None:
    bob = cup.people["bob"]
    before, rows = ladder(cup.host), board(cup.host)
    page = challenge(bob)
    text = bob.wait_for(page, r'id="challenge-status">done<')
    assert re.search(r'id="challenge-ranked">unranked<', text)
    assert re.search(r'id="played">4<', text)
    with ResultsStore.reader(cup.host.data) as store:
        own = store.results(f"test-cup-challenge-{page.rsplit('/', 1)[1]}", details=False)
    assert len(own) == 4  # a tournament of its own
    assert ladder(cup.host) == before
    assert board(cup.host) == rows


def test_a_ranked_challenge_is_against_participants_bots_only(cup: Cup) -> None:
    bob = cup.people["bob"]
    count = len(Accounts(cup.host.data).challenges())
    fields = {"board": "usa-2p", "bot": BOB, "opponent": "random", "games": "4", "ranked": "1"}
    answer = bob.post("/challenges", fields, page="/boards/usa/2")
    assert answer.status_code == 400
    assert "a ranked challenge is against other participants" in answer.text
    verdict = {**fields, "opponent": CAROL, "verdict": "1", "elo1": "50"}
    answer = bob.post("/challenges", verdict, page="/boards/usa/2")
    assert answer.status_code == 400 and "without a sequential verdict" in answer.text
    assert len(Accounts(cup.host.data).challenges()) == count


def test_an_admin_voids_a_ranked_challenge_game_as_a_ladder_match(cup: Cup) -> None:
    ranked = next(c for c in Accounts(cup.host.data).challenges() if c["ranked"])
    start = ranked["ladder_start"]
    victim = next(r for r in ladder(cup.host) if r.idx == start)
    games = row_of(board(cup.host), BOB)["games"]
    admin = cup.host.admin()
    answer = admin.post(
        f"/admin/matches/{victim.match_id}/void", page=f"/matches/{victim.match_id}"
    )
    assert answer.status_code == 303
    rows = board(cup.host)
    assert rows == folded([r for r in ladder(cup.host) if r.match_id != victim.match_id])
    assert row_of(rows, BOB)["games"] == games - 1
    board_page_showing(cup.host, BOB, games - 1)


def test_a_ranked_challenge_killed_midway_resumes_at_its_indices(cup: Cup) -> None:
    dave = cup.host.visitor()
    assert dave.signup("dave").status_code == 303
    answer = dave.upload("slow", "slow.py", SLOW)
    assert answer.status_code == 303, answer.text
    dave.wait_for(answer.headers["location"], r'id="status">ok<', seconds=600)
    before = ladder(cup.host)
    fields = {"board": "usa-2p", "bot": "dave.slow@1", "opponent": BOB, "games": "8", "ranked": "1"}
    answer = dave.post("/challenges", fields, page="/boards/usa/2")
    assert answer.status_code == 303, answer.text
    page = answer.headers["location"]
    number = int(page.rsplit("/", 1)[1])

    def landed() -> list[MatchResult]:
        record = Accounts(cup.host.data).challenge(number)
        assert record is not None
        start = record["ladder_start"]
        return [] if start is None else [r for r in ladder(cup.host) if r.idx >= start]

    wait_until(landed, "the challenge's first game", seconds=600)
    cup.host.kill()  # kill -9 after its first game: the rest are in flight or not begun
    assert len(landed()) < 8  # each game takes a slow bot many seconds: most remain
    record = Accounts(cup.host.data).challenge(number)
    assert record is not None
    start = record["ladder_start"]
    cup.host.start()
    assert dave.signin("dave").status_code == 303
    text = dave.wait_for(page, r'id="challenge-status">done<', seconds=900)
    assert re.search(r'id="played">8<', text)
    record = Accounts(cup.host.data).challenge(number)
    assert record is not None and record["ladder_start"] == start  # the same reservation
    after = ladder(cup.host)
    assert len(after) == len(before) + 8  # each game once, none lost
    assert sorted(r.idx for r in after if r.idx >= start) == list(range(start, start + 8))
    voided = Accounts(cup.host.data).voided()
    assert board(cup.host) == folded([r for r in after if r.match_id not in voided])

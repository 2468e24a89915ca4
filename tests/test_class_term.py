"""The parts of running a class that need no server: places and ties in a final, the
export's CSV, the deadline in force, and reset codes that expire (real SQLite, real
TrueSkill); the journeys over a real ``arena host`` are in ``test_host_term.py``."""

from __future__ import annotations

import csv
import datetime
import io
from pathlib import Path

import pytest

from arena.server.accounts import AccountError, Accounts
from arena.server.boards import FINAL_ENV
from arena.server.competition import Competition
from arena.server.deadline import Deadline
from arena.server.export import as_csv
from arena.server.places import placed
from arena.tournament.ratings import rate


def rows_of(games: list[tuple[str, str]]) -> list[dict]:
    """Rows of a final whose games (winner, loser) are rated as the final is."""
    ratings = rate([((w, lo), (1, 2)) for w, lo in games], FINAL_ENV)
    order = sorted(ratings, key=lambda b: -(ratings[b].mu - 3 * ratings[b].sigma))
    return [{"bot": b, "mu": ratings[b].mu, "sigma": ratings[b].sigma} for b in order]


def test_a_few_games_leave_places_tied_and_many_set_them_apart() -> None:
    few = placed(rows_of([("a", "b"), ("b", "c"), ("a", "c")]))
    assert [r["rank"] for r in few] == [1, 1, 1] and all(r["tied"] for r in few)
    many = placed(rows_of([("a", "b"), ("b", "c"), ("a", "c")] * 40))
    assert [r["bot"] for r in many] == ["a", "b", "c"]
    assert [r["rank"] for r in many] == [1, 2, 3] and not any(r["tied"] for r in many)
    # Chained: c is within the noise of b, b not of a: a alone, then b and c tied at 2.
    split = placed(rows_of([("a", "b"), ("a", "c")] * 40 + [("b", "c"), ("c", "b")] * 3))
    assert (split[0]["bot"], split[0]["rank"], split[0]["tied"]) == ("a", 1, False)
    assert {r["rank"] for r in split[1:]} == {2} and all(r["tied"] for r in split[1:])


def test_a_csv_cell_never_starts_a_spreadsheet_formula() -> None:
    row = {
        "board": "usa-2p", "owner": "bob", "team": "", "bot": "x", "version": 1, "label": "bob.x@1",
        "final_round": None, "final_rank": None, "final_tied": None, "ladder_rank": None,
        "rating": None, "mu": None, "sigma": None, "games": 0, "wins": 0, "final_games": 0,
        "final_wins": 0, "disabled": '=HYPERLINK("http://evil")', "faults": {"timeout": 2},
    }  # fmt: skip
    [parsed] = list(csv.DictReader(io.StringIO(as_csv([row]))))
    assert parsed["disabled"].startswith("'=") and parsed["faults_timeout"] == "2"


def competition(deadline: str) -> Competition:
    return Competition.from_dict(
        {"name": "c", "title": "t", "ranked": [{"variant": "usa"}],
         "final": {"deadline": datetime.datetime.fromisoformat(deadline)}}
    )  # fmt: skip


def test_a_deadline_moved_on_the_page_holds_until_the_file_changes(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path)
    first = competition("2030-01-01T00:00:00+00:00")
    earlier = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    Deadline(first, accounts).move(earlier)
    assert Deadline(first, accounts).current() == earlier and Deadline(first, accounts).closed()
    edited = competition("2031-01-01T00:00:00+00:00")  # the file changed since: it wins
    assert Deadline(edited, accounts).current() == edited.final.deadline
    assert not Deadline(edited, accounts).closed()


def test_a_reset_code_expires(tmp_path: Path) -> None:
    accounts = Accounts(tmp_path)
    user = accounts.create_user("dora", "correct horse battery")
    stale = accounts.new_reset_code(user, None, seconds=-1)
    with pytest.raises(AccountError, match="not valid"):
        accounts.reset_password(stale, "a new password 1")
    fresh = accounts.new_reset_code(user, None)
    accounts.new_reset_code(user, None)  # a newer code replaces it
    with pytest.raises(AccountError, match="not valid"):
        accounts.reset_password(fresh, "a new password 1")

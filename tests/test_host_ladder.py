"""A hosted competition end to end over real HTTP and real processes: two participants
sign up and upload (one from the page, one with ``arena submit --server``), validation
runs, the ladder plays (never two bots of one participant at a table), each sees their
own logs and not the other's, an admin disables a bot and voids a match, a ``kill -9``
loses nothing and the ladder resumes, and at the deadline submissions close and the
final's table is the result."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

# The tests follow one competition in order: one xdist worker runs them (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("host-ladder")
LADDER = "test-cup-usa-2p"
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()


class Cup:
    def __init__(self, host: HostProcess, alice: Visitor, bob: Visitor, admin: Visitor) -> None:
        self.host, self.alice, self.bob, self.admin = host, alice, bob, admin


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    host = HostProcess(tmp_path_factory.mktemp("cup")).start()
    alice, bob = host.visitor(), host.visitor()
    assert alice.signup("alice").status_code == 303
    assert bob.signup("bob").status_code == 303
    try:
        yield Cup(host, alice, bob, host.admin())
    finally:
        host.stop()


def stored(host: HostProcess, name: str = LADDER) -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(name, details=False)


def test_upload_from_the_page_and_from_the_command_line(cup: Cup) -> None:
    answer = cup.alice.upload(
        "planner", "bot.zip", _zip({"bot.py": (PYTHON_BOT / "bot.py").read_bytes()})
    )
    assert answer.status_code == 303
    page = answer.headers["location"]
    text = cup.alice.wait_for(page, r'id="status">ok<')
    assert "alice.planner@1" in text
    token = cup.bob.token()
    done = cup.host.arena(
        "submit", "greedy", "--file", str(PYTHON_BOT / "greedy.py"),
        "--server", cup.host.url, "--token", token,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "registered bob.greedy@1" in done.stdout
    bad = cup.host.arena(
        "submit", "x", "--file", str(PYTHON_BOT), "--server", cup.host.url, "--token", "arena_no"
    )
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "refused" in bad.stderr


def test_the_ladder_plays_and_the_board_moves(cup: Cup) -> None:
    first = cup.alice.wait_for(
        "/boards/usa/2", r'data-bot="bob\.greedy@1">.*?class="num games">[1-9]'
    )
    assert "alice.planner@1" in first
    # A second bot of Alice's plays too, but never at a table with her first.
    answer = cup.alice.upload("second", "second.py", GREEDY)
    cup.alice.wait_for(answer.headers["location"], r'id="status">ok<')
    wait_until(
        lambda: any("alice.second@1" in r.bots for r in stored(cup.host)), "alice.second plays"
    )
    for result in stored(cup.host):
        owners = [bot.split(".")[0] for bot in result.bots]
        assert len(set(owners)) == len(owners), result.bots
    # Versions are kept and the participant chooses which play (at most active_bots = 2).
    answer = cup.alice.upload("third", "third.py", GREEDY)
    third = answer.headers["location"]
    assert "playing" not in cup.alice.wait_for(third, r'id="status">ok<')
    refused = cup.alice.post(f"{third}/play", {"play": "1"})
    assert refused.status_code == 400 and "at most 2 versions play at once" in refused.text
    assert "alice.third@1" not in Accounts(cup.host.data).playing()
    # The board page moves without a reload: its event stream says 'change'.
    with cup.alice.client.stream("GET", "/events") as events:
        for line in events.iter_lines():
            if line == "event: change":
                break


def test_a_live_page_is_told_of_a_change_it_missed(cup: Cup) -> None:
    """A page made before a change (its state in the event URL) hears of it at once."""
    with cup.alice.client.stream("GET", "/events?since=stale") as events:
        lines = events.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: change"


def test_each_sees_their_own_logs_and_not_the_others(cup: Cup) -> None:
    result = stored(cup.host)[-1]
    page = cup.alice.get(f"/matches/{result.match_id}").text
    alice_seat = next(i for i, bot in enumerate(result.bots) if bot.startswith("alice."))
    bob_seat = 1 - alice_seat
    assert f"/stderr/{alice_seat}" in page and f"/stderr/{bob_seat}" not in page
    assert cup.alice.get(f"/matches/{result.match_id}/stderr/{alice_seat}").status_code == 200
    assert cup.alice.get(f"/matches/{result.match_id}/stderr/{bob_seat}").status_code == 404
    assert cup.bob.get(f"/matches/{result.match_id}/stderr/{bob_seat}").status_code == 200
    stranger = cup.host.visitor()
    assert stranger.get(f"/matches/{result.match_id}").status_code == 200  # replays: public
    assert stranger.get(f"/matches/{result.match_id}/stderr/{bob_seat}").status_code == 303


def test_an_admin_disables_a_bot_and_voids_a_match(cup: Cup) -> None:
    accounts = Accounts(cup.host.data)
    second = next(s for s in accounts.submissions() if s["bot"] == "second")
    assert (
        cup.admin.post(
            f"/admin/submissions/{second['id']}/disable", {"confirm": "yes"}, page="/admin"
        ).status_code
        == 303
    )
    assert "alice.second@1" not in accounts.playing()
    seen = len(stored(cup.host))
    later = wait_until(lambda: stored(cup.host)[seen + 4 :], "four more matches")
    # A table planned before the disable may still play; none planned after it.
    assert not any("alice.second@1" in r.bots for r in later[2:])
    victim = stored(cup.host)[0]
    answer = cup.admin.post(
        f"/admin/matches/{victim.match_id}/void", page=f"/matches/{victim.match_id}"
    )
    assert answer.status_code == 303
    assert "voided" in cup.alice.get(f"/matches/{victim.match_id}").text
    # The board is a full recompute without it (read from one state of the store).
    with ResultsStore.reader(cup.host.data) as store, store.read_snapshot():
        live = LiveBoard(LADDER)
        live.update(store, set())
        rows = live.rows(store, {victim.match_id})
        full = Board()
        for result in store.results(LADDER, details=False):
            if result.match_id != victim.match_id:
                full.add(result)
    assert rows == full.rows()
    assert victim.bots[0] in {row["bot"] for row in rows}
    # Others cannot do it.
    assert cup.bob.post(f"/admin/matches/{victim.match_id}/void", page="/me").status_code == 404


def test_kill_9_loses_nothing_and_the_ladder_resumes(cup: Cup) -> None:
    before = len(stored(cup.host))
    wait_until(lambda: len(stored(cup.host)) > before, "a match lands")
    cup.host.kill()
    kept = {r.match_id for r in stored(cup.host)}
    accounts_before = [(u.name, u.role) for u in Accounts(cup.host.data).users()]
    half_done = cup.host.data / "uploads" / "killed-before-its-record"
    (half_done / "bot").mkdir(parents=True)  # what a kill between unpacking and recording leaves
    cup.host.start()
    assert not half_done.exists()
    assert [(u.name, u.role) for u in Accounts(cup.host.data).users()] == accounts_before
    assert cup.alice.signin("alice").status_code == 303
    wait_until(lambda: len(stored(cup.host)) > len(kept), "the ladder resumes")
    assert kept <= {r.match_id for r in stored(cup.host)}
    with ResultsStore(cup.host.data, check=True):
        pass


def test_the_deadline_closes_submissions_and_the_final_is_the_result(cup: Cup) -> None:
    cup.host.stop()
    cup.host.file.write_text(competition_text(deadline="2020-01-01T00:00:00Z"))
    cup.host.options = ("--final-now",)
    cup.host.start()
    assert cup.alice.signin("alice").status_code == 303
    answer = cup.alice.upload("late", "late.py", GREEDY)
    assert answer.status_code == 400 and "submissions are closed" in answer.text
    text = cup.alice.wait_for(
        "/final", r"This is the competition&#39;s result\.|This is the competition's result\."
    )
    assert "alice.planner@1" in text and "bob.greedy@1" in text
    final = stored(cup.host, "test-cup-final-usa-2p")
    assert final and all(len(set(r.bots)) == 2 for r in final)
    assert re.search(r"τ = 0", text)


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    return buffer.getvalue()


def test_replays_and_bot_pages_for_participants_or_owners_only(tmp_path: Path) -> None:
    text = competition_text().replace(
        'replays = "public"', 'replays = "owners"\nbot_pages = "participants"'
    )
    host = HostProcess(tmp_path, text).start()
    try:
        alice, bob, carol = host.visitor(), host.visitor(), host.visitor()
        for visitor, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            assert visitor.signup(name).status_code == 303
        for visitor, name in ((alice, "one"), (bob, "two")):
            answer = visitor.upload(name, f"{name}.py", GREEDY)
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        match = wait_until(lambda: stored(host), "a match")[0].match_id
        stranger = host.visitor()
        assert alice.get(f"/matches/{match}").status_code == 200
        assert bob.get(f"/matches/{match}").status_code == 200
        assert carol.get(f"/matches/{match}").status_code == 404  # played no part in it
        assert stranger.get(f"/matches/{match}").status_code == 404
        assert carol.get("/bots/alice.one").status_code == 200
        assert stranger.get("/bots/alice.one").status_code == 404
    finally:
        host.stop()

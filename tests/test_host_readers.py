"""Readers cost the ladder little: the boards are folded by the server's own thread as
matches land (read or not), and a visitor's board page is made once per change, however
many read it (a real store, the real application in process)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from starlette.testclient import TestClient

import arena.server.host as host_module
from arena.server.app import create_app, server_secret
from arena.server.competition import Competition
from arena.server.ladder import ladder_spec
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from tests.host_helpers import competition_text, wait_until
from tests.store_helpers import two_player_match

BOTS = [f"u{i}.b@1" for i in range(6)]


def match(idx: int) -> MatchResult:
    return two_player_match(idx, BOTS)


def test_boards_fold_as_matches_land_and_a_page_is_made_once_per_change(tmp_path: Path):
    (tmp_path / "c.toml").write_text(competition_text())
    competition = Competition.from_toml(tmp_path / "c.toml")
    data = tmp_path / "data"
    spec = ladder_spec(competition, "usa", 2)
    store = ResultsStore(data)
    tid = store.tournament(spec.name, spec.fingerprint, spec.to_json())
    store.record_many(tid, [match(i) for i in range(30)])
    app = create_app(competition, data, server_secret(data))
    host = app.state.host
    live = host.boards["usa", 2]
    wait_until(lambda: live.matches == 30, "the boards' thread folds the stored matches", 60)
    store.record_many(tid, [match(i) for i in range(30, 40)])
    # No one reads: the server's thread folds them in all the same.
    wait_until(lambda: live.matches == 40, "the matches that land are folded unread", 60)
    made: list[str] = []
    get_template = host.env.get_template

    def counted(name: str, *args, **kwargs):
        made.append(name)
        return get_template(name, *args, **kwargs)

    host.env.get_template = counted
    with TestClient(app) as client:
        first = client.get("/boards/usa/2")
        assert first.status_code == 200 and 'id="rated">40<' in first.text
        per_page = len(made)
        assert per_page >= 1
        for _ in range(50):
            assert client.get("/boards/usa/2").text == first.text
        assert len(made) == per_page, "fifty readers, one page made"
        store.record_many(tid, [match(40)])  # a change: the page is made once more
        wait_until(lambda: live.matches == 41, "the new match folded", 60)
        wait_until(
            lambda: 'id="rated">41<' in client.get("/boards/usa/2").text,
            "the visitor's page shows the new match (at most a second behind)",
            60,
        )
        assert len(made) <= 2 * per_page + per_page  # once (a read may race the fold once)
    store.close()


def test_a_visitors_board_page_is_made_at_most_once_a_second_and_catches_up(
    tmp_path: Path, monkeypatch
) -> None:
    """However fast matches land, the visitor's board page is made at most once in
    ``SETTLE`` seconds (the clock is the test's); once they have passed, the next read
    shows every match."""
    (tmp_path / "c.toml").write_text(competition_text())
    competition = Competition.from_toml(tmp_path / "c.toml")
    data = tmp_path / "data"
    spec = ladder_spec(competition, "usa", 2)
    store = ResultsStore(data)
    tid = store.tournament(spec.name, spec.fingerprint, spec.to_json())
    store.record_many(tid, [match(0)])
    clock = [1000.0]
    monkeypatch.setattr(
        host_module, "time", SimpleNamespace(monotonic=lambda: clock[0], sleep=time.sleep)
    )
    app = create_app(competition, data, server_secret(data))
    live = app.state.host.boards["usa", 2]
    wait_until(lambda: live.matches == 1, "the stored match folded", 60)
    with TestClient(app) as client:
        assert 'id="rated">1<' in client.get("/boards/usa/2").text
        for count in range(2, 6):  # four matches land within the second
            store.record_many(tid, [match(count - 1)])
            wait_until(lambda n=count: live.matches == n, "the new match folded", 60)
            assert 'id="rated">1<' in client.get("/boards/usa/2").text  # the kept page
        clock[0] += host_module.SETTLE["board-page"]
        assert 'id="rated">5<' in client.get("/boards/usa/2").text  # made anew, current
    store.close()

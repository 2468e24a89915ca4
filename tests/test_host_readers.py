"""Readers cost the ladder little: the boards are folded by the server's own thread as
matches land (read or not), and a visitor's board page is made once per change, however
many read it (a real store, the real application in process)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace

from starlette.testclient import TestClient

import arena.server.host as host_module
from arena.server.app import create_app, server_secret
from arena.server.competition import Competition
from arena.server.ladder import ladder_spec
from arena.server.visitors import VisitorBoards
from arena.server.web import HEADERS
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from tests.host_helpers import competition_text, wait_until
from tests.store_helpers import two_player_match

BOTS = [f"u{i}.b@1" for i in range(6)]


def match(idx: int) -> MatchResult:
    return two_player_match(idx, BOTS)


def ladder_with(tmp_path: Path, stored: int) -> tuple[Competition, Path, ResultsStore, int]:
    """A competition and its 2-player USA ladder's store holding ``stored`` matches."""
    (tmp_path / "c.toml").write_text(competition_text())
    competition = Competition.from_toml(tmp_path / "c.toml")
    data = tmp_path / "data"
    spec = ladder_spec(competition, "usa", 2)
    store = ResultsStore(data)
    tid = store.tournament(spec.name, spec.fingerprint, spec.to_json())
    store.record_many(tid, [match(i) for i in range(stored)])
    return competition, data, store, tid


def test_boards_fold_as_matches_land_and_a_page_is_made_once_per_change(tmp_path: Path):
    competition, data, store, tid = ladder_with(tmp_path, 30)
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
    competition, data, store, tid = ladder_with(tmp_path, 1)
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


def test_a_visitors_kept_board_is_answered_ahead_of_the_stack_and_nothing_else(
    tmp_path: Path,
) -> None:
    """``VisitorBoards`` answers a kept visitor's board itself (the same bytes and
    security headers as the full path) and sends every other request down the stack: a
    participant's, a first visit, an API token, a query, a POST, a board not kept."""
    competition, data, store, _ = ladder_with(tmp_path, 5)
    app = create_app(competition, data, server_secret(data))
    host = app.state.host
    wait_until(lambda: host.boards["usa", 2].matches == 5, "the stored matches folded", 60)
    with TestClient(app) as client:
        full = client.get("/boards/usa/2")  # a first visit: the full path, the seed set
        assert full.status_code == 200 and "arena_csrf" in full.headers["set-cookie"]
        seed = f"arena_csrf={client.cookies['arena_csrf']}"

    below: list[str] = []

    async def stack(scope, receive, send) -> None:
        below.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    front = VisitorBoards(stack, host, secure=False)

    def ask(path: str, method: str = "GET", query: bytes = b"", **headers: str) -> dict:
        answer: dict = {"body": b""}
        scope = {
            "type": "http", "method": method, "path": path, "query_string": query,
            "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        }  # fmt: skip

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                answer.update(status=message["status"], headers=dict(message["headers"]))
            else:
                answer["body"] += message["body"]

        asyncio.run(front(scope, receive, send))
        return answer

    kept = ask("/boards/usa/2", cookie=seed)
    assert below == [] and kept["status"] == 200
    assert kept["body"] == full.content  # the same page
    for name, value in HEADERS:
        assert kept["headers"][name] == value == full.headers[name.decode()].encode()
    assert kept["headers"][b"content-type"] == full.headers["content-type"].encode()
    session = "arena_session=abc.def"
    for args, headers in [
        (("/boards/usa/2",), {"cookie": f"{seed}; {session}"}),  # a participant's
        (("/boards/usa/2",), {}),  # a first visit: the full path sets the seed
        (("/boards/usa/2",), {"cookie": seed, "authorization": "Bearer x"}),
        (("/boards/usa/2", "GET", b"x=1"), {"cookie": seed}),
        (("/boards/usa/2", "POST"), {"cookie": seed}),
        (("/boards/usa/4",), {"cookie": seed}),  # not kept yet
        (("/boards/usa/2/extra",), {"cookie": seed}),
    ]:
        below.clear()
        assert ask(*args, **headers)["status"] == 204, (args, headers)
        assert below, (args, headers)
    store.close()


def test_a_commit_is_folded_even_when_the_files_look_the_same(tmp_path: Path, monkeypatch) -> None:
    """A writer's log grows a moment before its commit is visible: a fold in between
    reads nothing new under a signature that has already moved. The boards' thread also
    watches SQLite's commit count, so with the files' signature held still (as it is
    after such a fold) a match that lands is folded in all the same, and the visitor's
    kept page is made anew."""
    competition, data, store, tid = ladder_with(tmp_path, 1)
    monkeypatch.setattr(host_module, "signature", lambda data_dir: "still")
    monkeypatch.setitem(host_module.SETTLE, "board-page", 0.0)
    app = create_app(competition, data, server_secret(data))
    live = app.state.host.boards["usa", 2]
    wait_until(lambda: live.matches == 1, "the stored match folded", 60)
    with TestClient(app) as client:
        assert 'id="rated">1<' in client.get("/boards/usa/2").text
        store.record_many(tid, [match(1)])
        wait_until(lambda: live.matches == 2, "the match folded by the commit count", 60)
        wait_until(
            lambda: 'id="rated">2<' in client.get("/boards/usa/2").text,
            "the kept page made anew",
            60,
        )
    store.close()

"""The replay viewer's data, ``arena view``, ``arena serve`` and ``arena play --human``'s
errors, without a browser (tests/test_browser.py drives the pages)."""

from __future__ import annotations

import ctypes
import html
import http.client
import json
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee.gamelog import GameLog, LogError
from arena.referee.gamelog import replay as replay_text
from arena.referee.matchlog import MatchLog, replay, verify
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from arena.variants import all_variants, new_game
from leaderboards.data import stored_matches
from leaderboards.replay import MISSING, apply_patch, json_patch, replay_steps
from tests.journey import as_from_a_terminal

ARENA = Path(sys.executable).with_name("arena")
PLAYABLE = [name for name, v in all_variants().items() if v.playable]
USA_HEADER = (
    b'{"type": "header", "variant": "usa", "players": 2, "seed": 1, "rules": %d}\n'
    % all_variants()["usa"].rules_version
)


def random_log(variant: str, players: int, seed: int) -> tuple[MatchLog, list[list[dict]]]:
    """A random game as a match log, and every seat's observation after every step."""
    state = new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    seen = [[state.observation(s).to_json() for s in range(players)]]
    actions = []
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        actions.append({"n": len(actions) + 1, "seat": state.to_move, "action": str(action)})
        state.apply(action)
        seen.append([state.observation(s).to_json() for s in range(players)])
    result = state.result()
    header = {
        "variant": variant,
        "rules": state.variant.rules_version,  # the rules it was played under
        "players": players,
        "seed": seed,
        "seats": [{"seat": s, "bot": f"bot{s}"} for s in range(players)],
    }
    log = MatchLog(
        header=header,
        actions=actions,
        result={
            "scores": list(result.scores),
            "ranks": list(result.ranks),
            "engine_ranks": list(result.ranks),
            "forfeits": {},
        },
    )
    return log, seen


def arena(*args: str, cwd: Path, expect: int = 0) -> subprocess.CompletedProcess:
    out = subprocess.run([str(ARENA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert out.returncode == expect, out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    return out


# ---------------------------------------------------------------------------- one replay loop


def test_one_replay_loop_walks_the_deal_then_every_action():
    log, seen = random_log("usa", 3, seed=4)
    steps = list((line, state.observation(0)) for line, state in replay(log))
    assert steps[0][0] is None and len(steps) == len(log.actions) + 1
    assert [obs.to_json() for _, obs in steps] == [obs[0] for obs in seen]
    assert verify(log).is_over


def test_the_replay_loop_names_the_first_line_that_does_not_replay():
    log, _ = random_log("usa", 2, seed=5)
    log.actions[3]["seat"] = 1 - log.actions[3]["seat"]
    with pytest.raises(LogError, match=r"action 4: seat .* acts, but seat .* is to move"):
        verify(log)
    text = GameLog("usa", 2, 5, ["a", "b"], actions=["keep 0 1", "claim 999 red"])
    with pytest.raises(LogError, match=r"action 2 \('claim 999 red'\) does not replay"):
        replay_text(text)


# ---------------------------------------------------------------------------- full-state steps


@pytest.mark.parametrize("variant", PLAYABLE)
def test_every_step_holds_every_seats_observation_exactly(variant):
    """Patches rebuild, at every step, exactly what each seat's observation held; the last
    step scores every ticket and the longest trail as the engine does."""
    players = min(4, all_variants()[variant].max_players)
    log, seen = random_log(variant, players, seed=11)
    data = replay_steps(log)
    *played, over = data["steps"]
    assert len(played) == len(seen) and "over" not in played[-1], "the last action is a step"
    assert over["over"] and over["text"].startswith("game over: "), "then the game over"
    observations: list = [None] * players
    for step, expected in zip([*played, over], [*seen, seen[-1]], strict=True):
        observations = [apply_patch(o, p) for o, p in zip(observations, step["obs"], strict=True)]
        assert observations == expected
    final = data["final"]
    for seat, row in enumerate(final["breakdown"]):
        tickets = final["tickets"][seat]
        assert sum(t["completed"] for t in tickets) == row["completed_tickets"]
        assert sum(not t["completed"] for t in tickets) == row["failed_tickets"]
        if "longest_path" in row:
            routes = {r["id"]: r for r in new_game(variant, 2, 0).board.public_json()["routes"]}
            trail = sum(routes[r]["length"] for r in final["longest"][seat])
            assert trail == row["longest_path"]


def test_steps_are_named_in_words_with_city_names():
    log, _ = random_log("usa", 2, seed=3)
    texts = [step["text"] for step in replay_steps(log)["steps"]]
    assert texts[0] == "the deal"
    claims = [t for t in texts if " claims " in t]
    assert claims and all(re.search(r"claims \S.*–.* \(\w+, \d\) with ", t) for t in claims)
    assert all(t.startswith(("bot0 ", "bot1 ")) for t in texts[1:-1])
    winner = log.result["ranks"].index(1)
    assert texts[-1].startswith(f"game over: bot{winner} wins (bot0 ")


def test_card_game_steps_say_which_ticket_a_pile_completes():
    log, _ = random_log("cardgame", 3, seed=4)
    steps = replay_steps(log)["steps"]
    pairs = zip(log.actions, steps[1:-1], strict=True)
    texts = {line["action"]: step["text"] for line, step in pairs}
    completes = [t for a, t in texts.items() if a.startswith("complete ")]
    assert completes and all(re.search(r" completes \w.*–.* \(\d+\) with the On-the-Track", t)
                             for t in completes)  # fmt: skip
    assert not [t for t in texts.values() if ": " in t], "every Card Game step in words"
    tracks = [step["org"] for step in steps]
    assert "tracks" in tracks[0]["$v"], "the organiser sees the On-the-Track piles"


def test_what_a_newer_referee_records_is_shown_and_what_is_missing_is_tolerated():
    log, _ = random_log("usa", 2, seed=6)
    log.header["future_field"] = {"anything": 1}
    log.actions[2]["forgiven"] = ["claim 5 red: paying needs 2 red cards"]
    for line in log.actions:
        line.pop("seat")  # a text game log's lines name no seat
    data = replay_steps(log)
    assert data["steps"][3]["notes"] == {"forgiven": ["claim 5 red: paying needs 2 red cards"]}
    assert all("notes" not in step for i, step in enumerate(data["steps"]) if i != 3)
    assert data["final"]["scores"] == log.result["scores"]


def test_a_hand_edited_fault_line_still_shows_at_the_deal():
    """A fault naming no whole-number step or seat (a foreign or edited log) is shown, not
    a crash of the page or of ``arena view``."""
    from leaderboards.site import fault_rows

    log, _ = random_log("usa", 2, seed=2)
    log.faults.append({"type": "fault", "seat": "x", "code": "crash", "decision": "soon"})
    log.faults.append({"type": "fault", "seat": 7, "code": "hang", "decision": -3})
    steps = replay_steps(log)["steps"]
    assert [f["code"] for f in steps[0]["faults"]] == ["crash", "hang"]
    assert [row["seat"] for row in fault_rows(log, None, [])] == [0, 7]


def test_a_repeated_bot_name_is_told_apart_by_seat():
    log, _ = random_log("newyork", 2, seed=1)
    for seat in log.header["seats"]:
        seat["bot"] = "random"
    assert replay_steps(log)["seats"] == ["random (seat 0)", "random (seat 1)"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@given(JSON, JSON)
@settings(max_examples=300, deadline=None)
def test_a_patch_turns_the_old_value_into_the_new(old, new):
    patch = json_patch(old, new)
    assert apply_patch(old, patch if patch is not MISSING else {"$v": old}) == new


# ---------------------------------------------------------------------------- arena view


def test_arena_view_writes_one_self_contained_page(tmp_path):
    arena("play", "--variant", "newyork", "--players", "2", "--seed", "2", "--in-process",
          "--match-log", "g.jsonl", "--log", "g.log", cwd=tmp_path)  # fmt: skip
    out = arena("view", "g.jsonl", "--out", "g.html", "--no-open", cwd=tmp_path)
    assert "replay written" in out.stdout
    page = (tmp_path / "g.html").read_text()
    assert "window.MATCH" in page and "window.BOARD" in page and "<style>" in page
    assert 'src="' not in page, "nothing to fetch: the page opens anywhere, offline"
    arena("view", "g.log", "--out", "t.html", "--no-open", cwd=tmp_path)
    assert "window.MATCH" in (tmp_path / "t.html").read_text()


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read"),
        (b"{not json\n", "is not a match log"),
        (b'{"type": "header", "variant": "nope", "players": 2, "seed": 1}\n', "cannot start"),
        (USA_HEADER.replace(b'"players": 2', b'"players": -1'), "2-5 players"),
        (USA_HEADER.replace(b'"seed": 1', b'"seed": "x"'), "seed must be"),
    ],
)
def test_arena_view_refuses_what_is_not_a_match_log_in_one_line(tmp_path, content, message):
    if content is not None:
        (tmp_path / "bad.jsonl").write_bytes(content)
    out = arena("view", "bad.jsonl", "--no-open", cwd=tmp_path, expect=2)
    assert message in out.stderr and out.stderr.count("error:") == 1
    assert not list(tmp_path.glob("*.html"))


# ---------------------------------------------------------------------------- arena serve


def record(index: int, bots: tuple[str, ...], log: bytes = b"") -> MatchResult:
    n = len(bots)
    return MatchResult(
        idx=index,
        variant="usa",
        seed=index,
        bots=bots,
        scores=tuple(range(n)),
        ranks=tuple(range(n, 0, -1)),
        engine_ranks=tuple(range(n, 0, -1)),
        breakdown=tuple({"total": s} for s in range(n)),
        faults=(None,) * n,
        decisions=1,
        seconds=0.1,
        log=log,
    )


@pytest.fixture
def served(tmp_path):
    store = ResultsStore(tmp_path / "data")
    tid = store.tournament("t", "t", {})
    store.record(tid, record(0, ("a", "b")))
    process = subprocess.Popen(
        [str(ARENA), "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    line = process.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
    yield port, store, tid
    process.terminate()
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0 and "Traceback" not in err, err
    store.close()


def get(port: int, path: str, method: str = "GET", body: bytes | None = None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return response.status, response.read().decode("utf-8", "replace")


def page_token(port: int) -> str:
    """The token the server's own play form carries (what its pages post with)."""
    status, body = get(port, "/play")
    assert status == 200, body
    found = re.search(r'name="token" value="([^"]+)"', body)
    assert found, "the play form carries the server's token"
    return found.group(1)


def test_serve_answers_the_sites_pages_and_nothing_else(served):
    port, _, _ = served
    status, body = get(port, "/")
    assert status == 200 and "ttr-arena leaderboards" in body and "data-live" in body
    assert get(port, "/usa/index.html")[0] == 200
    assert get(port, "/usa/")[0] == 200
    for path in (
        "/../../etc/passwd",
        "/static/../site.py",
        "/matches/999.html",
        "/matches/1.js",  # stored without a log: no replay, no error page with a traceback
        "/bots/nobody.html",
        "/static/%2e%2e/site.py",
        "/play/nosuchgame",
    ):
        status, body = get(port, path)
        assert status == 404, path
        assert "Traceback" not in body


def test_serve_refuses_a_bad_play_request_with_its_reason(served):
    port, _, _ = served
    form = {"Content-Type": "application/x-www-form-urlencoded", "X-Arena-Token": page_token(port)}
    status, body = get(port, "/play", "POST", b"variant=nope&bot=random", form)
    assert status == 400 and "nope" in body
    status, body = get(port, "/play", "POST", b"variant=amsterdam&bot=random", form)
    assert status == 400 and "cannot be played" in body
    status, body = get(port, "/play", "POST", b"variant=usa&bot=", form)
    assert status == 400 and "choose at least one bot" in body
    status, body = get(port, "/play", "POST", b"variant=usa&bot=random&seat=7", form)
    assert status == 400 and "seat" in body
    status, body = get(port, "/play", "POST", b"variant=usa&bot=random&seat=abc", form)
    assert status == 400 and "whole numbers" in body and "int()" not in body
    status, body = get(port, "/play", "POST", b"variant=usa&bot=random&name=random", form)
    assert status == 400 and "is a bot&#39;s name" in body, "a person never plays as a bot"
    status, body = get(port, "/play", "POST", b"variant=usa&bot=random&name=%3Cb%3Ex", form)
    assert status == 400 and "your name" in body and "<b>x" not in body
    json_headers = {"Content-Type": "application/json", "X-Arena-Token": form["X-Arena-Token"]}
    assert get(port, "/play", "POST", b"[1, 2", json_headers)[0] == 400
    assert get(port, "/play/none/action", "POST", b'{"action": "x"}', json_headers)[0] == 404
    status, body = get(port, "/play")
    assert status == 200 and 'name="variant"' in body


def test_serve_refuses_what_another_site_asks_through_the_browser(served):
    """A page elsewhere may post the play form to localhost (it would start bot commands
    here) or reach the server under its own host name (DNS rebinding): both are refused."""
    port, _, _ = served
    form = {"Content-Type": "application/x-www-form-urlencoded", "X-Arena-Token": page_token(port)}
    evil = dict(form, Origin="http://evil.example")
    status, _ = get(port, "/play", "POST", b"variant=usa&bot=cmd:/bin/true", evil)
    assert status == 403, "a cross-site form post starts nothing"
    assert get(port, "/play", "POST", b"x", dict(form, Origin="null"))[0] == 403
    assert get(port, "/", headers={"Host": f"evil.example:{port}"})[0] == 403
    assert get(port, "/", headers={"Host": f"localhost:{port}"})[0] == 200
    own = dict(form, Origin=f"http://127.0.0.1:{port}")
    status, body = get(port, "/play", "POST", b"variant=usa&bot=", own)
    assert status == 400 and "choose at least one bot" in body, "the page's own post is served"


def test_serve_starts_nothing_for_a_post_without_its_own_pages_token(served, tmp_path):
    """Issue 29: a POST to /play with no Origin header started the bot commands it named
    (the check was on Origin alone, which a local process or a browser extension leaves
    out). Every POST needs the token only the server's own pages carry."""
    port, _, _ = served
    form = {"Content-Type": "application/x-www-form-urlencoded"}

    def play(marker: str) -> bytes:
        command = quote(f"cmd:/bin/sh -c 'echo started-{marker} >&2'")
        return f"variant=usa&bot={command}&token=".encode()

    def started(marker: str) -> bool:
        logs = (tmp_path / "data" / "bot-logs").rglob("*.stderr")
        return any(f"started-{marker}" in log.read_text(errors="replace") for log in logs)

    attempts = {
        "no token, no Origin": (play("a"), form),
        "a wrong token, no Origin": (play("b") + b"x" * 43, form),
        "a wrong token header": (play("c"), dict(form, **{"X-Arena-Token": "x" * 43})),
        "a wrong token from its own origin": (
            play("d") + b"guess",
            dict(form, Origin=f"http://127.0.0.1:{port}"),
        ),
        "an empty token": (play("e"), dict(form, **{"X-Arena-Token": ""})),
    }
    for what, (body, headers) in attempts.items():
        assert get(port, "/play", "POST", body, headers)[0] == 403, what
    token = page_token(port)
    # The control: the same request with the page's token starts its bot at once.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/play", body=play("ok") + token.encode(), headers=form)
    response = connection.getresponse()
    assert response.status == 303, response.read()
    game = response.getheader("Location")
    deadline = time.monotonic() + 60
    while not started("ok"):
        assert time.monotonic() < deadline, "the page's own request starts its bot"
        time.sleep(0.05)
    assert not [m for m in "abcde" if started(m)], "no request without the token started a bot"
    # A started game's clicks and its resignation need the token too.
    json_headers = {"Content-Type": "application/json"}
    for path, body in ((f"{game}/action", b'{"action": "draw deck"}'), (f"{game}/resign", b"{}")):
        assert get(port, path, "POST", body, json_headers)[0] == 403, path
        other = "B" if token.endswith("A") else "A"  # never the token itself (1 in 64)
        wrong = dict(json_headers, **{"X-Arena-Token": token[:-1] + other})
        assert get(port, path, "POST", body, wrong)[0] == 403, path
    assert (
        get(port, f"{game}/resign", "POST", b"{}", dict(json_headers, **{"X-Arena-Token": token}))[
            0
        ]
        == 200
    )


def test_serve_refuses_an_odd_token_in_one_line(served):
    """A token that is no ASCII string (non-ASCII, a lone surrogate in JSON, invalid UTF-8,
    in the form, the JSON body or the header) is refused like a wrong one (403), never a
    500 (the fixture checks the server's stderr holds no traceback)."""
    port, _, _ = served
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    json_headers = {"Content-Type": "application/json"}
    attempts = [
        (b"variant=usa&bot=&token=%C3%A9", form),
        (b"variant=usa&bot=&token=\xed\xa0\x80", form),
        (b'{"token": "\\ud800"}', json_headers),
        (b'{"token": "\xc3\xa9"}', json_headers),
        (b"{}", dict(json_headers, **{"X-Arena-Token": "\xe9\xff"})),
    ]
    for body, headers in attempts:
        assert get(port, "/play", "POST", body, headers)[0] == 403, body


def test_serve_says_change_when_a_match_lands(served):
    port, store, tid = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.getheader("Content-Type") == "text/event-stream"
    assert response.readline().startswith(b"retry:")
    time.sleep(1)
    store.record(tid, record(1, ("a", "c")))
    deadline = time.monotonic() + 20
    lines = []
    while time.monotonic() < deadline:
        line = response.readline()
        lines.append(line)
        if line.startswith(b"event: change"):
            break
    assert lines[-1].startswith(b"event: change"), lines
    _, body = get(port, "/")
    assert body.count("data-match=") == 2, "the next page view shows the new match"


def test_a_live_page_hears_of_a_match_that_landed_before_its_stream_opened(served):
    """The page says which state of the store it was made from (its event URL): a match
    that lands between the page and its event stream is told at once, never missed."""
    port, store, tid = served
    _, body = get(port, "/")
    url = "/" + re.search(r'data-live="(events\?since=\w+)"', body).group(1)
    store.record(tid, record(2, ("a", "d")))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", url)
    response = connection.getresponse()
    lines = [response.readline() for _ in range(4)]
    assert b"event: change\n" in lines, lines
    assert get(port, "/")[1].count("data-match=") == 2, "and the page fetched again shows it"


def test_a_stream_says_change_once_more_after_the_last_of_a_burst(served):
    """A page fetched at a change may be one the server kept (``arena host`` makes a
    visitor's board at most once a second): the stream says ``change`` once more after
    the last change, with nothing landing meanwhile, so the page ends current."""
    port, store, tid = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.readline().startswith(b"retry:")
    store.record(tid, record(3, ("b", "c")))
    told = []
    while b"data: 2\n" not in told:  # a read past 30 s without it fails the test
        line = response.readline()
        if line.startswith(b"data:"):
            told.append(line)
    assert told[0] == b"data: 1\n", told  # the change itself, then the trailing one
    connection.close()


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = arena("serve", "--port", str(port), "--data-dir", "d", cwd=tmp_path, expect=2)
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr and "--port" in out.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--human-seat", "5"], "--human-seat must be 0 to 3"),
        (["--variant", "amsterdam"], "cannot be played"),
        (["--variant", "newyork", "--players", "6"], "2-4 players"),
    ],
)
def test_play_human_refuses_a_clumsy_command_in_one_line(tmp_path, args, message):
    out = arena("play", "--human", "--no-open", "--port", "0", *args, cwd=tmp_path, expect=2)
    assert message in out.stderr, out.stderr
    assert out.stderr.count("error:") == 1


# tgkill(2)'s number: a signal to one thread of another process (Python has none for that).
TGKILL = {"x86_64": 234, "aarch64": 131}.get(platform.machine())


def signal_a_thread_other_than_main(pid: int, signum: int) -> None:
    """Deliver ``signum`` to a thread of ``pid`` that is not its main thread and does not
    block it, as the kernel may do with a process-directed Ctrl-C when the main thread is
    busy or has a signal pending."""
    bit = 1 << (signum - 1)
    for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
        status = (task / "status").read_text()
        blocked = int(re.search(r"^SigBlk:\s*(\w+)", status, re.M).group(1), 16)
        if int(task.name) != pid and not blocked & bit:
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.syscall(TGKILL, pid, int(task.name), signum) == 0
            return
    raise AssertionError("no thread other than the main one takes the signal")


@pytest.mark.skipif(TGKILL is None, reason="tgkill's number is known on x86_64 and aarch64")
def test_a_ctrl_c_handed_to_another_thread_stops_play_human(tmp_path):
    """Ctrl-C reaches a process, not a thread: when the kernel hands it to the server's
    thread, the main thread (waiting for the person's game) still stops the game: the bots
    finish it, its result is stored, the command ends."""
    process = subprocess.Popen(
        [str(ARENA), "play", "--human", "--no-open", "--port", "0", "--seed", "3",
         "--bot", "random"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=as_from_a_terminal,
    )  # fmt: skip
    try:
        assert "play in your browser" in process.stdout.readline()
        signal_a_thread_other_than_main(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=120)  # a hang bound: untimed, it never ended
    finally:
        process.kill()
    assert process.returncode == 0 and "stored as match" in out, out
    assert "Traceback" not in out


def test_leaderboard_cli_shows_every_player_count(tmp_path):
    store = ResultsStore(tmp_path)
    tid = store.tournament("t", "t", {})
    for index, bots in enumerate([("a", "b"), ("b", "a"), ("a", "b", "c")]):
        store.record(tid, record(index, bots))
    store.close()
    out = arena("leaderboard", "--data-dir", str(tmp_path), cwd=tmp_path).stdout
    titles = re.findall(r"usa leaderboard, ([\w ]+) \(", out)
    assert titles == ["all player counts", "2 players", "3 players"]
    one = arena("leaderboard", "--players", "3", "--data-dir", str(tmp_path), cwd=tmp_path)
    assert re.findall(r"usa leaderboard, ([\w ]+) \(", one.stdout) == ["3 players"]
    rows = json.loads(
        arena("leaderboard", "--players", "2", "--format", "json", "--data-dir", str(tmp_path),
              cwd=tmp_path).stdout
    )  # fmt: skip
    assert {r["bot"]: r["games"] for r in rows} == {"a": 2, "b": 2}


def test_a_bots_rating_plot_counts_its_own_games_in_whole_numbers(tmp_path):
    """The plot's x-axis is the bot's own games (1, 2, 3 for a bot in 3 of 9 matches, not
    the variant's match numbers), with whole-number ticks and the legend beside the lines."""
    from leaderboards.site import Site

    store = ResultsStore(tmp_path)
    tid = store.tournament("t", "t", {})
    for index in range(9):
        store.record(tid, record(index, ("a", "b", "c") if index in (2, 5, 7) else ("a", "b")))
    figure = Site(store).rating_figure("c", "usa")
    figure.canvas.draw()
    axes = figure.axes[0]
    assert [list(line.get_xdata()) for line in axes.lines] == [[1, 2, 3], [1, 2, 3]]
    low, high = axes.get_xlim()
    ticks = [t for t in axes.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    legend, inside = axes.get_legend().get_window_extent(), axes.get_window_extent()
    assert legend.x0 >= inside.x1, "the legend stands beside the axes, over no line"
    assert len(axes.collections) == 1, "the μ ± 3σ band"
    store.close()


@pytest.fixture(scope="module")
def play_server(tmp_path_factory):
    """``arena serve``'s server in this process, on a free port."""
    import threading

    from arena.server.serving import LocalServer

    server = LocalServer(tmp_path_factory.mktemp("play"), port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.close()


def post_json(port: int, path: str, data: dict, token: str) -> tuple[int, dict]:
    status, body = get(port, path, "POST", json.dumps(data).encode(), {
        "Content-Type": "application/json", "X-Arena-Token": token
    })  # fmt: skip
    return status, json.loads(body)


@pytest.mark.parametrize("variant", PLAYABLE)
def test_a_person_can_play_every_playable_variant_to_the_end(play_server, variant):
    """Through the play page's own requests: the state the page reads, the clicks it posts
    (a random legal action each time, and one illegal one that the referee explains)."""
    port = play_server.port
    game = play_server.new_game(variant, ["random"], human_seat=1, seed=7, person="ann")
    token = play_server.token  # what the play page posts with
    rng = random.Random(7)
    version, illegal = -1, None
    for _ in range(2000):
        _, body = get(port, f"/play/{game.game_id}/state?version={version}")
        state = json.loads(body)
        version = state["version"]
        if state["status"] == "over" and state.get("match_id"):
            break
        if state["status"] != "to-move":
            continue
        if illegal is None:
            wrong = {"action": "claim 999 red"}
            assert post_json(port, f"/play/{game.game_id}/action", wrong, token)[0] == 200
            while not (state.get("message") and state["status"] == "to-move"):
                state = json.loads(get(port, f"/play/{game.game_id}/state?version={version}")[1])
                version = state["version"]
            illegal = state["message"]
        status, answer = post_json(
            port, f"/play/{game.game_id}/action", {"action": rng.choice(state["legal"])}, token
        )
        assert status == 200, answer
    assert state["status"] == "over", state
    assert "illegal action 'claim 999 red'" in illegal
    assert state["final"]["scores"] == list(game.outcome.result.scores)
    store = ResultsStore(play_server.data_dir)
    (match,) = [m for m in stored_matches(store) if m.match_id == state["match_id"]]
    assert match.tournament == "human-play" and match.bots[1] == "ann" and not match.faults[1]
    store.close()


def wait_to_move(port: int, game_id: str) -> dict:
    version = -1
    for _ in range(200):
        state = json.loads(get(port, f"/play/{game_id}/state?version={version}")[1])
        if state["status"] == "to-move":
            return state
        version = state["version"]
    raise AssertionError(f"never the person's turn: {state}")


def test_a_person_plays_without_javascript_by_the_pages_forms(play_server):
    """The play page without JavaScript: the legal moves in words in a form that posts to
    the same address as the page's clicks (a 303 back to the page), a page that reloads
    itself while the bots play, a resign button; the game is then stored and linked."""
    port, token = play_server.port, play_server.token
    game = play_server.new_game("usa", ["random"], human_seat=0, seed=3, person="nojs")
    base = f"/play/{game.game_id}"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    played = []
    for _ in range(300):
        status, page = get(port, base)
        assert status == 200
        moves = re.findall(r'<option value="([^"]+)">([^<]+)</option>', page)
        if not moves:  # the bots' turn (or connecting): the page reloads itself
            assert '<noscript><meta http-equiv="refresh"' in page, page
            time.sleep(0.2)
            continue
        assert f'action="{base}/action"' in page and f'value="{token}"' in page
        action = html.unescape(moves[0][0])
        assert action in html.unescape(moves[0][1]), "the words name the notation too"
        body = f"action={quote(action)}&token={token}".encode()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("POST", f"{base}/action", body=body, headers=form)
        response = connection.getresponse()
        assert response.status == 303 and response.getheader("Location") == base
        played.append(action)
        if len(played) == 3:
            break
    assert len(played) == 3, played
    assert get(port, f"{base}/resign", "POST", b"token=", form)[0] == 403
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", f"{base}/resign", body=f"token={token}".encode(), headers=form)
    assert connection.getresponse().status == 303
    assert game.done.wait(120), "the bots finish a resigned game"
    status, page = get(port, base)
    found = re.search(r'<a href="/matches/(\d+)\.html">its replay</a>', page)
    assert found and int(found.group(1)) == game.match_id, page
    log = MatchLog.from_jsonl(ResultsStore(play_server.data_dir).match_log(game.match_id))
    mine = [line["action"] for line in log.actions if line["seat"] == 0]
    assert mine[:3] == played, "the form's moves are the person's moves"


def test_a_page_that_fails_is_a_short_page_and_one_line_on_stderr(play_server, monkeypatch, capfd):
    """No traceback reaches a page or the person's terminal: the page says an error id, the
    server's stderr one line with the same id and the error."""

    def broken(path: str) -> bytes:
        raise RuntimeError("the \x1b[2Jpage broke")

    monkeypatch.setattr(play_server.local, "render", broken)
    status, body = get(play_server.port, "/index.html")
    assert status == 500 and "Traceback" not in body and "broke" not in body
    error_id = re.search(r"error id (\w+)", body).group(1)
    err = capfd.readouterr().err
    (line,) = [line for line in err.splitlines() if error_id in line]
    assert line.startswith("arena serve: error ") and "RuntimeError: the \\x1b[2Jpage broke" in line
    assert "Traceback" not in err and "\x1b" not in err


def test_long_polls_of_play_pages_never_hold_up_other_pages(play_server):
    """Each open play page waits on its state (up to 20 s, in a thread): fifty of them at
    once, more than the server's pool of threads, and the site still answers at once."""
    port = play_server.port
    game = play_server.new_game("usa", ["random"], human_seat=0, seed=4, person="poller")
    state = wait_to_move(port, game.game_id)  # nothing changes until the person moves
    path = f"/play/{game.game_id}/state?version={state['version']}"
    with ThreadPoolExecutor(50) as pool:
        polls = [pool.submit(get, port, path) for _ in range(50)]
        time.sleep(1)
        assert not any(p.done() for p in polls), "the long polls wait for a change"
        for page in ("/", "/play", "/static/style.css"):
            assert get(port, page)[0] == 200, page
        assert not any(p.done() for p in polls), "pages answered while the long polls wait"
        headers = {"Content-Type": "application/json", "X-Arena-Token": play_server.token}
        assert get(port, f"/play/{game.game_id}/resign", "POST", b"{}", headers)[0] == 200
        answers = [json.loads(p.result(timeout=30)[1]) for p in polls]
    assert {a["status"] for a in answers} <= {"resigned", "over"}, "each poll woke at the change"
    assert game.done.wait(120)


def test_a_claim_of_a_white_route_is_told_with_its_white_cards():
    """ "claim N white" was told "with nothing": "white" was read as a wild ("wN")."""
    from arena.variants import new_game
    from leaderboards.replay import BoardFacts, describe

    state = new_game("usa", 2, seed=1)
    facts = BoardFacts(state.board.public_json())
    route = next(r for r in state.board.public_json()["routes"] if r["color"] == "white")
    view = state.observation(0).to_json()
    n, length = route["id"], route["length"]
    told = describe(f"claim {n} white", 0, "me", facts, view, view)
    assert told.endswith(f"with {length} white")
    told = describe(f"claim {n} white w1", 0, "me", facts, view, view)
    assert told.endswith(f"with {length - 1} white + 1 wild")

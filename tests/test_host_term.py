"""Running a class for a term, over real processes: account care from ``arena admin`` and
``/admin`` (each change confirmed first), one-time password-reset codes, bots disabled with
a reason and enabled again, the standings export for grading (equal to the boards, voided
matches left out), ``arena leaderboard --data-dir`` with ladder and final apart, and a
deadline moved twice: each final kept, submissions reopened, the home page never showing
"open" and "result" together."""

from __future__ import annotations

import csv
import datetime
import io
import itertools
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.accounts import Accounts
from arena.server.places import apart
from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

pytestmark = pytest.mark.xdist_group("host-term")
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
LADDER = "test-cup-usa-2p"
ROW = re.compile(
    r'<tr data-bot="([^"]+)"><td class="num rank">(=?)(\d+)</td>.*?class="num games">(\d+)<'
)


class Term:
    def __init__(self, host: HostProcess, admin: Visitor, students: dict[str, Visitor]) -> None:
        self.host, self.admin, self.students = host, admin, students


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Term]:
    host = HostProcess(tmp_path_factory.mktemp("term")).start()
    students = {}
    for name in ("alice", "bob", "carol"):
        visitor = host.visitor()
        assert visitor.signup(name).status_code == 303
        students[name] = visitor
    try:
        yield Term(host, host.admin(), students)
    finally:
        host.stop()


def one_line_exit_2(done) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def server_log(host: HostProcess) -> str:
    return (host.data / "server.log").read_text()


def user_id(host: HostProcess, name: str) -> int:
    found = Accounts(host.data).user_named(name)
    assert found is not None
    return found.id


def confirm(admin: Visitor, path: str, fields: dict | None = None):
    """An admin's action as the pages do it: the form, then 'yes' on the page that asks."""
    asked = admin.post(path, fields, page="/admin")
    assert asked.status_code == 200 and "Are you sure?" in asked.text, asked.text
    found = re.search(r'name="csrf" value="([^"]+)"', asked.text)
    assert found is not None
    return admin.client.post(
        path, data={"csrf": found.group(1), "confirm": "yes", **(fields or {})}
    )


def test_admin_create_on_an_existing_name_refuses_and_says_what_to_use(term: Term) -> None:
    done = term.host.arena(
        "admin", "create", "alice", "--data-dir", str(term.host.data), "--password-stdin",
        stdin="a new password 1\n",
    )  # fmt: skip
    said = one_line_exit_2(done)
    assert "arena admin promote alice" in said and "arena admin reset-password alice" in said
    assert Accounts(term.host.data).user_named("alice").role == "participant"  # type: ignore[union-attr]
    assert term.students["alice"].signin("alice").status_code == 303  # the password unchanged


def test_promote_and_demote_from_the_command_line_and_the_page(term: Term) -> None:
    bob, data = term.students["bob"], str(term.host.data)
    assert term.host.arena("admin", "promote", "bob", "--data-dir", data).returncode == 0
    assert bob.get("/admin").status_code == 200
    assert term.host.arena("admin", "demote", "bob", "--data-dir", data).returncode == 0
    assert bob.get("/admin").status_code == 404
    one_line_exit_2(term.host.arena("admin", "demote", "bob", "--data-dir", data))
    one_line_exit_2(term.host.arena("admin", "promote", "nobody", "--data-dir", data))
    # On the page: nothing happens until the admin says yes.
    path = f"/admin/users/{user_id(term.host, 'bob')}/promote"
    asked = term.admin.post(path, page="/admin")
    assert "Are you sure?" in asked.text and bob.get("/admin").status_code == 404
    assert confirm(term.admin, path).status_code == 303
    assert bob.get("/admin").status_code == 200
    assert (
        confirm(term.admin, f"/admin/users/{user_id(term.host, 'bob')}/demote").status_code == 303
    )
    assert bob.get("/admin").status_code == 404
    log = server_log(term.host)
    assert "admin (command line): promote bob" in log and "admin root: promote bob" in log
    assert "admin root: demote bob" in log


def test_a_reset_code_works_once_and_ends_every_session(term: Term) -> None:
    carol = term.students["carol"]
    assert carol.get("/me").status_code == 200  # signed in since sign-up
    page = confirm(term.admin, f"/admin/users/{user_id(term.host, 'carol')}/reset-password")
    code = re.search(r'id="reset-code">([^<]+)<', page.text)
    assert page.status_code == 200 and code is not None
    stored = (term.host.data / "accounts.sqlite").read_bytes()
    assert code.group(1).encode() not in stored  # kept hashed
    elsewhere = term.host.visitor()
    fields = {"code": code.group(1), "password": "carol's new password"}
    assert elsewhere.post("/reset", fields, page="/reset").status_code == 303
    assert elsewhere.get("/me").status_code == 200  # signed in with it
    assert carol.get("/me").status_code == 303  # the old session ended
    again = term.host.visitor().post(
        "/reset", {**fields, "password": "another one 2"}, page="/reset"
    )
    assert again.status_code == 400 and "not valid" in again.text
    assert term.host.visitor().signin("carol").status_code == 401  # the old password
    assert carol.signin("carol", "carol's new password").status_code == 303
    # From the command line: a code printed for the admin to hand over.
    done = term.host.arena("admin", "reset-password", "carol", "--data-dir", str(term.host.data))
    assert done.returncode == 0, done.stderr
    printed = done.stdout.strip().splitlines()[-1]
    back = {"code": printed, "password": "correct horse battery"}
    assert term.host.visitor().post("/reset", back, page="/reset").status_code == 303
    assert carol.get("/me").status_code == 303
    assert carol.signin("carol").status_code == 303
    assert "password of carol reset with a one-time code" in server_log(term.host)


def test_disable_and_enable_an_account(term: Term) -> None:
    bob, data = term.students["bob"], str(term.host.data)
    path = f"/admin/users/{user_id(term.host, 'bob')}/disable"
    assert confirm(term.admin, path).status_code == 303
    assert bob.get("/me").status_code == 303 and bob.signin("bob").status_code == 401
    assert (
        confirm(term.admin, f"/admin/users/{user_id(term.host, 'bob')}/enable").status_code == 303
    )
    assert bob.signin("bob").status_code == 303
    assert term.host.arena("admin", "disable", "bob", "--data-dir", data).returncode == 0
    assert bob.get("/me").status_code == 303
    assert term.host.arena("admin", "enable", "bob", "--data-dir", data).returncode == 0
    assert bob.signin("bob").status_code == 303
    log = server_log(term.host)
    assert "admin root: disable bob" in log and "admin (command line): enable bob" in log


def board_rows(visitor: Visitor) -> dict[str, tuple[int, int]]:
    """The ladder board as its page shows it: bot -> (rank, games)."""
    text = visitor.get("/boards/usa/2").text
    return {bot: (int(rank), int(games)) for bot, _, rank, games in ROW.findall(text)}


def test_a_disabled_bot_leaves_the_boards_and_its_owner_sees_why(term: Term) -> None:
    for name in ("alice", "bob"):
        answer = term.students[name].upload("greedy", "greedy.py", GREEDY)
        term.students[name].wait_for(answer.headers["location"], r'id="status">ok<')
    wait_until(lambda: len(board_rows(term.admin)) == 2, "both bots on the board")
    bob = term.students["bob"]
    sid = next(s["id"] for s in Accounts(term.host.data).submissions() if s["owner"] == "bob")
    path = f"/admin/submissions/{sid}/disable"
    asked = term.admin.post(path, {"reason": "copied from alice"}, page="/admin")
    assert "Are you sure?" in asked.text and "bob.greedy@1" in board_rows(term.admin)
    assert confirm(term.admin, path, {"reason": "copied from alice"}).status_code == 303
    assert "bob.greedy@1" not in board_rows(term.admin)
    assert "bob.greedy@1" not in Accounts(term.host.data).playing()
    assert "disabled by an admin: copied from alice" in bob.get("/me").text
    assert "copied from alice" in bob.get(f"/submissions/{sid}").text
    assert confirm(term.admin, f"/admin/submissions/{sid}/enable").status_code == 303
    assert "bob.greedy@1" in board_rows(term.admin)
    assert "copied from alice" not in bob.get("/me").text
    assert bob.post(f"/submissions/{sid}/play", {"play": "1"}).status_code == 303
    log = server_log(term.host)
    assert f"disabled submission {sid} (bob.greedy@1): copied from alice" in log
    assert f"enabled submission {sid} (bob.greedy@1) again" in log


def test_the_export_equals_the_boards_without_voided_matches(term: Term) -> None:
    wait_until(lambda: len(stored(term.host)) >= 4, "four ladder matches")
    victim = stored(term.host)[0]
    path = f"/admin/matches/{victim.match_id}/void"
    assert term.admin.post(path, page=f"/matches/{victim.match_id}").status_code == 303
    # Both bots rest, and a restart skips what was planned with them: the store holds still.
    for name in ("alice", "bob"):
        sid = next(s["id"] for s in Accounts(term.host.data).submissions() if s["owner"] == name)
        term.students[name].post(f"/submissions/{sid}/play", {"play": "0"})
    term.host.stop()
    term.host.start()
    kept = [r for r in stored(term.host) if r.match_id != victim.match_id]
    games: dict[str, int] = {}
    for match in kept:
        for bot in match.bots:
            games[bot] = games.get(bot, 0) + 1
    board = board_rows(term.admin)
    assert {bot: count for bot, (_, count) in board.items()} == games  # the void left out
    answer = term.admin.get("/admin/export?format=csv")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert answer.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert {r["label"]: (int(r["ladder_rank"]), int(r["games"])) for r in rows} == board
    assert all(r["owner"] == r["label"].split(".")[0] and r["board"] == "usa-2p" for r in rows)
    done = term.host.arena("admin", "export", "--data-dir", str(term.host.data), "--format", "json")
    assert done.returncode == 0, done.stderr
    standings = json.loads(done.stdout)["standings"]
    assert {r["label"]: (r["ladder_rank"], r["games"]) for r in standings} == board
    # arena leaderboard: the ladder's own board, the voided match left out.
    shown = term.host.arena("leaderboard", "--data-dir", str(term.host.data), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    listed = json.loads(shown.stdout)
    assert {r["bot"]: (r["rank"], r["games"]) for r in listed} == board
    assert {r["board"] for r in listed} == {f"ladder {LADDER}"}
    assert "exported the standings" in server_log(term.host)


def stored(host: HostProcess, name: str = LADDER) -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(name, details=False)


def deadline_in(seconds: float) -> str:
    moment = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def without_top(text: str) -> str:
    """The test competition with every bot in the final (no ``top``)."""
    return re.sub(r"^top = .*\n", "", text, flags=re.M)


def test_a_past_deadline_or_a_bad_date_at_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    host = HostProcess(tmp_path, without_top(competition_text("2020-01-01T00:00:00Z")))
    start = ("host", str(host.file), "--data-dir", str(host.data), "--port", "0")
    said = one_line_exit_2(host.arena(*start))
    assert "final.deadline 2020-01-01T00:00:00+00:00 has passed" in said and "--final-now" in said
    host.file.write_text(competition_text('"2026-12-01 18:00"'))
    said = one_line_exit_2(host.arena(*start))
    assert "e.g. deadline = 2026-12-01T18:00:00Z" in said
    host.file.write_text(without_top(competition_text("2020-01-01T00:00:00Z")))
    host.options = ("--final-now", "--behind-proxy")
    host.start()
    process = host.process
    assert process is not None and process.stdout is not None
    try:
        assert "Submissions are closed" in host.visitor().get("/").text
    finally:
        host.stop()
    said = process.stdout.read().decode()
    assert "stopped" in said and "add --behind-proxy" not in said  # it was given


def home(visitor: Visitor) -> str:
    """The home page, which never says both that submissions are open and the result."""
    text = visitor.get("/").text
    result = "This is the competition's result" in text
    assert not ("Submissions close" in text and result), text
    return text


def finals_of(host: HostProcess) -> dict[str, list[dict]]:
    """``arena leaderboard --data-dir``'s boards, by title: ladders and finals apart."""
    done = host.arena("leaderboard", "--data-dir", str(host.data), "--format", "json")
    assert done.returncode == 0, done.stderr
    boards: dict[str, list[dict]] = {}
    for row in json.loads(done.stdout):
        boards.setdefault(row["board"], []).append(row)
    return boards


def test_a_deadline_moved_three_times_keeps_each_final_and_reopens_submissions(
    tmp_path: Path,
) -> None:
    host = HostProcess(tmp_path, without_top(competition_text())).start()
    try:
        visitors = {name: host.visitor() for name in ("alice", "bob", "carol")}
        for name, visitor in visitors.items():
            assert visitor.signup(name).status_code == 303
            answer = visitor.upload("greedy", "greedy.py", GREEDY)
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        wait_until(lambda: stored(host), "a ladder match")
        admin = host.admin()
        assert "Submissions close 2030" in home(admin)
        # Moved on /admin to two seconds ahead: the final plays, every bot in it.
        assert confirm(admin, "/admin/deadline", {"deadline": deadline_in(2)}).status_code == 303
        wait_until(lambda: "competition's result" in home(admin), "the first final's result")
        first = finals_of(host)["final test-cup-final-usa-2p"]
        playing = {f"{name}.greedy@1" for name in visitors}
        assert {row["bot"] for row in first} == playing
        for upper, lower in itertools.pairwise(first):
            told = apart((upper["mu"], upper["sigma"]), (lower["mu"], lower["sigma"]))
            assert lower["tied"] == (not told) and (lower["rank"] == upper["rank"]) == (not told)
        late = visitors["alice"].upload("late", "late.py", GREEDY)
        assert late.status_code == 400 and "submissions are closed" in late.text
        # Moved again in the file (an hour ahead), and restarted: open, the first final kept.
        host.stop()
        host.file.write_text(without_top(competition_text(deadline_in(3600))))
        host.start()
        assert "Submissions close" in home(admin)
        assert "an earlier final" in admin.get("/final").text
        assert visitors["alice"].upload("second", "second.py", GREEDY).status_code == 303
        played = len(stored(host))
        wait_until(lambda: len(stored(host)) > played, "the ladder plays again")
        # The third move, on the page again, to two seconds ahead: the second final plays.
        assert confirm(admin, "/admin/deadline", {"deadline": deadline_in(2)}).status_code == 303
        text = admin.wait_for("/final", r"\(round 2\)</h2>", seconds=300)
        wait_until(lambda: "competition's result" in home(admin), "the second final's result")
        text = admin.get("/final").text
        assert "This is the competition's result" in text and "an earlier final" in text
        boards = finals_of(host)
        assert set(boards) == {
            f"ladder {LADDER}",
            "final test-cup-final-usa-2p",
            "final test-cup-final-usa-2p-round2",
        }
        assert boards["final test-cup-final-usa-2p"] == first  # history, unchanged
        assert stored(host, "test-cup-final-usa-2p-round2")
        log = server_log(host)
        assert "admin root moved the deadline to" in log
        assert "final test-cup-final-usa-2p-round2 finished" in log
    finally:
        host.stop()


def test_tournament_list_fits_80_columns_with_the_host_s_names(tmp_path: Path) -> None:
    """A hosted competition's long tournament names fold, whole, in a column wide enough
    to read (the endless ladder's planned count no longer takes their room)."""
    import os
    import subprocess

    from arena.server.ladder import ENDLESS

    names = [f"spring-term-{kind}-usa-2p" for kind in ("ladder", "final", "final-round2")]
    with ResultsStore(tmp_path) as store:
        for name in names:
            fmt = "ladder" if "ladder" in name else "round-robin"
            spec = {"name": name, "variant": "usa", "format": fmt, "bots": ["a", "b"],
                    "players": [2], "games": ENDLESS if fmt == "ladder" else 8}  # fmt: skip
            store.tournament(name, name, spec)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("arena")), "tournament", "list", "--data-dir",
         str(tmp_path)],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"}, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines()[3:] if line.strip()]
    assert all(len(line) <= 80 for line in done.stdout.splitlines())
    firsts = [line.split()[0] for line in lines]
    joined = "".join(firsts)
    assert all(name in joined for name in names), done.stdout
    starts = [first for first in firsts if first.startswith("spring")]
    assert len(starts) == 3 and min(map(len, starts)) >= 10, done.stdout

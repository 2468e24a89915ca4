"""A compressed term, end to end, in a real Chromium: the organiser raised the sign-up cap,
so 30 students sign up from one address (the 31st is refused) and pair up in teams of two
(invite codes from ``/me/team``); an admin hands a student a password-reset code from
``/admin`` and clears the sign-in delays of a student who mistyped; the deadline moves on
``/admin`` (a final, then submissions reopen, then a second final, the first kept as
history); in both finals no table seats two bots of one team; the final ranks every
team's bot with ties shown "=" as the page shows them; the CSV the admin downloads holds
the standings the pages show.

Kept cheap (the suite runs on two cores): the small ``newyork`` map at two players, the
example greedy bot, one round of the final, the ladder paced to a match an hour. What a
person repeats thirty times (sign-ups, most teams, uploads) goes over HTTP, as the other
host tests do; one of each step is done in the browser."""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterator

import pytest

from tests import test_browser
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, sign_in
from tests.test_browser import CHROMIUM
from tests.test_host_teams import invite, upload
from tests.test_host_term import ROW, deadline_in, stored, without_top

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Debian's chromium is not installed (make test does)"
    ),
    pytest.mark.xdist_group("host-term-journey"),
]
WAIT_MS = 300_000  # every wait is for a condition, bounded by this
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
STUDENTS = [f"s{number:02d}" for number in range(30)]
TEAMS = {f"team{k:02d}": (STUDENTS[2 * k], STUDENTS[2 * k + 1]) for k in range(15)}
FIRST = ("s00", "s01", "s02")  # bots in the first final: team00's two, team01's one
SECOND = ("s04", "s06", "s08")  # uploaded once submissions reopen: team02, 03, 04
FINAL = "test-cup-final-newyork-2p"
browser = test_browser.browser  # the same Chromium fixture as the site's tests


def competition() -> str:
    """The test competition on the small map, 30 sign-ups allowed from one address and
    their browsers' connections (32 at once, the default, is too few for 30 people behind
    one address), teams of two, every bot in a one-round final, the ladder paced to a
    match an hour."""
    text = competition_text(variant='"newyork"', signups_per_address="30").replace(
        "signups_per_address = 30", "signups_per_address = 30\nconnections_per_address = 128"
    )
    return without_top(text) + "[teams]\nmax_size = 2\n[ladder]\nmatches_per_hour = 1\n"


@pytest.fixture
def host(tmp_path) -> Iterator[HostProcess]:
    # One "second" of sign-in delay lasts 20 here: a student locked out stays locked
    # while the browser steps run, however busy the machine.
    server = HostProcess(tmp_path, competition(), env={"ARENA_HOST_THROTTLE_SECOND": "20"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def new_page(browser) -> Iterator:
    """Pages of their own browser contexts (their own cookies: one person each); no script
    error may happen on any."""
    contexts = []
    errors: list[str] = []

    def opened():
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(WAIT_MS)
        return page

    yield opened
    for context in contexts:
        context.close()
    assert errors == []


def move_deadline(admin, host: HostProcess, deadline: str) -> None:
    """On ``/admin``: the new deadline, then "yes" on the page that asks."""
    admin.goto(host.url + "admin")
    admin.fill("input[name=deadline]", deadline)
    admin.click("button:has-text('move the deadline')")
    admin.click("#confirm")
    admin.wait_for_url(re.compile(r"/admin$"))


def team_of(label: str) -> str:
    owner = label.partition(".")[0]
    return next(team for team, members in TEAMS.items() if owner in members)


def assert_teams_apart(host: HostProcess, name: str, matches: int) -> None:
    """The final ``name`` as stored: ``matches`` matches, none with two bots of a team."""
    played = stored(host, name)
    assert len(played) == matches, [m.bots for m in played]
    for match in played:
        assert len({team_of(bot) for bot in match.bots}) == len(match.bots), match.bots


def final_table(text: str, number: int) -> list[tuple[str, bool, int]]:
    """Round ``number``'s table on ``/final`` as shown: (bot, shown tied, rank) by row."""
    table = re.search(rf'id="board-final-newyork-r{number}-2">(.*?)</table>', text, re.S)
    assert table, text
    return [(bot, tied == "=", int(rank)) for bot, tied, rank, _ in ROW.findall(table.group(1))]


def test_a_term_from_sign_up_to_the_downloaded_grades(host: HostProcess, new_page) -> None:
    students: dict[str, Visitor] = {}
    for name in STUDENTS:  # one address (127.0.0.1) for the whole class
        students[name] = host.visitor()
        assert students[name].signup(name).status_code == 303, name
    assert host.visitor().signup("s30").status_code == 429  # the cap the organiser set
    root = host.admin()  # made on the command line
    admin = new_page()
    sign_in(admin, host, "root", "admin password 1")
    admin.wait_for_url(re.compile(r"/me$"))

    # Teams of two: the first pair in the browser, the other fourteen as the same forms.
    owner, mate = new_page(), new_page()
    for page, name in ((owner, "s00"), (mate, "s01")):
        sign_in(page, host, name)
        page.wait_for_url(re.compile(r"/me$"))
    owner.fill("input[name=name]", "team00")
    owner.click("#create-team")
    owner.click("#make-invite")
    code = owner.text_content("#new-invite")
    mate.fill("input[name=code]", code or "")
    mate.click("#join-team")
    mate.wait_for_selector("#team-name")
    assert mate.text_content("#team-name") == "team00"
    for team, (first, second) in list(TEAMS.items())[1:]:
        assert students[first].post("/me/team", {"name": team}).status_code == 303
        joined = students[second].post("/me/team/join", {"code": invite(students[first])})
        assert joined.status_code == 303, joined.text
    assert len(re.findall(r'data-team="team\d\d"', root.get("/admin").text)) == 15

    # A forgotten password: the admin makes a one-time code, the student signs in with it.
    admin.goto(host.url + "admin")
    admin.click("tr[data-user=s05] button:has-text('reset password')")
    admin.click("#confirm")
    reset_code = admin.text_content("#reset-code")
    student = new_page()
    student.goto(host.url + "reset")
    student.fill("input[name=code]", reset_code or "")
    student.fill("input[name=password]", "s05's new password")
    student.click("#reset-button")
    student.wait_for_url(re.compile(r"/me$"))
    assert "s05" in student.content()

    # A mistyped password, four times: the fourth makes the next try wait; the admin
    # clears the delays and the right password is let in at once.
    locked = new_page()
    for _ in range(4):
        sign_in(locked, host, "s07", "a wrong password")
        locked.wait_for_selector("text=/wrong name or password|try again in/")
    sign_in(locked, host, "s07")
    locked.wait_for_selector("text=/too many failed sign-ins: try again in/")
    admin.goto(host.url + "admin")
    admin.click("tr[data-user=s07] button:has-text('clear sign-in delays')")
    admin.wait_for_url(re.compile(r"/admin$"))
    sign_in(locked, host, "s07")
    locked.wait_for_url(re.compile(r"/me$"))

    # Three bots (two of team00), then the deadline moved to now: the first final.
    for name in FIRST:
        upload(students[name], "greedy", GREEDY, plays=True)
    move_deadline(admin, host, deadline_in(2))
    admin.goto(host.url + "final")
    admin.wait_for_selector(".final-status[data-round='1']:has-text(\"competition's result\")")
    # team00's two bots never met: two pairs (each with team01's), both seats, one round.
    assert_teams_apart(host, FINAL, matches=4)
    late = students["s04"].upload("greedy", "greedy.py", GREEDY)
    assert late.status_code == 400 and "submissions are closed" in late.text

    # Moved later: submissions reopen, three more teams upload; moved to now again.
    move_deadline(admin, host, deadline_in(3600))
    for name in SECOND:
        upload(students[name], "greedy", GREEDY, plays=True)
    move_deadline(admin, host, deadline_in(2))
    admin.goto(host.url + "final")
    admin.wait_for_selector(".final-status[data-round='2']:has-text(\"competition's result\")")
    text = admin.content()
    assert "an earlier final" in text and final_table(text, 1)  # the first, kept as history
    # Six bots of five teams: 15 pairs less team00's own, both seats, one round.
    assert_teams_apart(host, f"{FINAL}-round2", matches=28)

    # Every team with a bot is ranked; a place the games could not settle shows "=".
    rows = final_table(text, 2)
    assert {team_of(bot) for bot, _, _ in rows} == {team_of(f"{n}.") for n in FIRST + SECOND}
    assert len(rows) == len(FIRST + SECOND)
    # A place is its row's, or the first of its tied group's; "=" marks a shared rank.
    ranks = [rank for _, _, rank in rows]
    assert ranks[0] == 1, rows
    for place, (above, rank) in enumerate(itertools.pairwise(ranks), 2):
        assert rank in (above, place), rows
    assert all(tied == (ranks.count(rank) > 1) for _, tied, rank in rows), rows
    assert any(tied for _, tied, _ in rows), rows  # one round of two games cannot part all

    # The grades: the CSV from /admin holds the final's and the ladder's standings.
    admin.goto(host.url + "admin")
    with admin.expect_download() as download:
        admin.click("a[href='/admin/export?format=csv']")
    exported = list(csv.DictReader(io.StringIO(download.value.path().read_text())))
    assert {r["board"] for r in exported} == {"newyork-2p"}
    final_rows = {(r["label"], r["final_tied"] == "yes", int(r["final_rank"])) for r in exported}
    assert final_rows == set(rows)
    assert {r["final_round"] for r in exported} == {"2"}
    assert {r["label"]: r["team"] for r in exported} == {bot: team_of(bot) for bot, _, _ in rows}
    # The ladder's board as its page shows it (whoever the paced ladder has rated so far).
    board = {bot: int(rank) for bot, _, rank, _ in ROW.findall(root.get("/boards/newyork/2").text)}
    assert {r["label"]: int(r["ladder_rank"]) for r in exported if r["ladder_rank"]} == board

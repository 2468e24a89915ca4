"""A class's pages on a real ``arena host``: announcements an admin posts (shown escaped on
the home page, deleted again, refused to participants), the rules page rendered from the
competition file and the variants' rules, the rating explained on each board, and the
ladder's faults per bot on ``/admin`` with a bot that forfeits most of its games flagged
there, to its owner (and no one else) and once in ``server.log``."""

from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server import ladderfaults
from arena.server.rules import rules_text, variant_section
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

pytestmark = pytest.mark.xdist_group("host-class-pages")
ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "<script>alert('x')</script>"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    started = HostProcess(tmp_path_factory.mktemp("class-pages")).start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def root(host: HostProcess) -> Visitor:
    return host.admin()


@pytest.fixture(scope="module")
def pupil(host: HostProcess) -> Visitor:
    visitor = host.visitor()
    assert visitor.signup("pupil").status_code == 303
    return visitor


def announced(visitor: Visitor) -> list[str]:
    """The announcements' titles on the home page, top to bottom."""
    page = visitor.get("/").text
    return [
        html.unescape(t)
        for t in re.findall(r'<article class="announcement"[^>]*><h3>([^<]*)', page)
    ]


def test_an_admin_posts_announcements_shown_newest_first_escaped(
    host: HostProcess, root: Visitor, pupil: Visitor
) -> None:
    first = root.post(
        "/admin/announcements", {"title": "Welcome", "body": f"line one\r\nline two {SCRIPT}"},
        page="/admin",
    )  # fmt: skip
    assert first.status_code == 303, first.text
    second = root.post(
        "/admin/announcements", {"title": f"Deadline {SCRIPT}", "body": ""}, page="/admin"
    )
    assert second.status_code == 303, second.text
    anyone = host.visitor()
    assert announced(anyone) == [f"Deadline {SCRIPT}", "Welcome"]
    page = anyone.get("/").text
    assert SCRIPT not in page  # escaped in the title and in the text
    assert "line one<br>line two &lt;script&gt;" in page
    assert announced(pupil) == [f"Deadline {SCRIPT}", "Welcome"]


def test_an_announcement_needs_a_title(root: Visitor) -> None:
    answer = root.post("/admin/announcements", {"title": "  ", "body": "x"}, page="/admin")
    assert answer.status_code == 400
    assert "give the announcement a title" in answer.text
    answer = root.post("/admin/announcements", {"title": "x" * 201}, page="/admin")
    assert answer.status_code == 400 and "at most 200 characters" in answer.text


def test_a_participant_can_neither_post_nor_delete(
    host: HostProcess, root: Visitor, pupil: Visitor
) -> None:
    root.post("/admin/announcements", {"title": "Kept", "body": ""}, page="/admin")
    ids = re.findall(r'data-announcement="(\d+)"', root.get("/admin").text)
    assert ids
    before = announced(pupil)
    answer = pupil.post("/admin/announcements", {"title": "Mine", "body": ""})
    assert answer.status_code == 404
    for found in ids:
        assert pupil.post(f"/admin/announcements/{found}/delete").status_code == 404
    stranger = host.visitor()  # signed out: sent to sign in, nothing posted
    answer = stranger.post("/admin/announcements", {"title": "Anon"}, page="/signin")
    assert answer.status_code == 303 and answer.headers["location"] == "/signin"
    assert announced(pupil) == before


def test_an_admin_deletes_an_announcement(host: HostProcess, root: Visitor) -> None:
    root.post("/admin/announcements", {"title": "Going soon", "body": ""}, page="/admin")
    admin_page = root.get("/admin").text
    found = re.search(r'data-announcement="(\d+)">Going soon', admin_page)
    assert found, admin_page
    answer = root.post(f"/admin/announcements/{found.group(1)}/delete", page="/admin")
    assert answer.status_code == 303
    assert "Going soon" not in announced(host.visitor())
    again = root.post(f"/admin/announcements/{found.group(1)}/delete", page="/admin")
    assert again.status_code == 404


def values_on(page: str) -> dict[str, str]:
    return dict(re.findall(r'<span id="([a-z-]+)">([^<]*)</span>', page))


def test_the_rules_page_shows_the_competition_file(tmp_path: Path) -> None:
    host = HostProcess(tmp_path).start()
    try:
        page = host.visitor().get("/rules")
        assert page.status_code == 200
        values = values_on(page.text)
        assert values["move-ms"] == "2,000" and values["bank-ms"] == "20,000"
        assert values["upload-bytes"] == "200,000"
        assert values["submissions-per-day"] == "6" and values["active-bots"] == "2"
        assert values["validation-games"] == "1"
        assert values["deadline"] == "2030-01-01 00:00 UTC"
        assert 'href="/boards/usa/2">usa, 2 players' in page.text
        assert "replays of matches: anyone" in page.text
        assert 'id="rules-usa"' in page.text and "<h2>Ticket to Ride (USA)" in page.text
        assert "110 train cards" in page.text  # the variant's rules, from RULES.md
        assert 'href="/rules"' in host.visitor().get("/").text  # in the nav
        host.stop()
        host.file.write_text(
            competition_text(move_ms="1500", submissions_per_day="9")
            .replace('replays = "public"', 'replays = "owners"')
            .replace(
                "players = [2]", 'players = [2]\n[[ranked]]\nvariant = "newyork"\nplayers = [2]'
            )
        )
        host.start()
        page = host.visitor().get("/rules")
        values = values_on(page.text)
        assert values["move-ms"] == "1,500" and values["submissions-per-day"] == "9"
        assert "replays of matches: the bots&#39; owners" in page.text
        assert 'id="rules-newyork"' in page.text
        assert "The city editions" in page.text  # what the city editions share, then New York
        assert "Tourist Attraction" in page.text
    finally:
        host.stop()


def test_each_board_explains_mu_sigma_and_the_rank(host: HostProcess, pupil: Visitor) -> None:
    for visitor in (host.visitor(), pupil):
        page = visitor.get("/boards/usa/2").text
        found = re.search(r'<p class="muted" id="rating-explained">(.*?)</p>', page, re.S)
        assert found, page[-2000:]
        words = html.unescape(found.group(1))
        assert "TrueSkill" in words and "μ is a bot's estimated skill" in words
        assert "σ how uncertain" in words and "μ − 3σ" in words


def test_the_packaged_rules_are_docs_rules() -> None:
    """The package's copy (served on /rules) is docs/RULES.md: edit both together."""
    assert (ROOT / "protocols" / "RULES.md").read_text() == (ROOT / "docs" / "RULES.md").read_text()
    assert rules_text() == (ROOT / "docs" / "RULES.md").read_text()


def test_a_variant_section_stops_at_the_next_of_its_level() -> None:
    text = (
        "# Title\n\nintro\n\n## Shared\n\nshared words\n\n### A — `a`\n\nrule a\n\n"
        "### B — `b`\n\nrule b\n\n## C — `c`\n\nrule c\n"
    )
    assert variant_section(text, "a") == "## Shared\n\nshared words\n\n### A — `a`\n\nrule a\n"
    assert variant_section(text, "c") == "## C — `c`\n\nrule c\n"
    assert variant_section(text, "d") is None


def test_the_flag_needs_most_of_enough_games() -> None:
    assert not ladderfaults.flagged(9, 9)  # too few to say
    assert ladderfaults.flagged(10, 6)
    assert not ladderfaults.flagged(20, 10)  # half is not most
    assert ladderfaults.flagged(20, 11)


# ---------------------------------------------------------------- a bot that crashes

LADDER = "test-cup-usa-3p"
CRASHY = b'''"""Plays the first legal action first at the table (validation seats it there); in any
other seat, it reads past the end of its list."""
from bots.sdk import Bot


class OtherSeatCrash(Bot):
    name = "other-seat-crash"

    def choose(self, observation, legal_actions):
        if self.seat != 0:
            return legal_actions[len(legal_actions)]
        return legal_actions[0]
'''


def window(data: Path, label: str) -> tuple[int, int, int]:
    """``label``'s ladder matches stored, and its newest ``WINDOW``'s size and forfeits, read
    from the results store as the server reads it (in the order they were stored)."""
    db = sqlite3.connect(f"file:{data / 'results.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT s.fault FROM seats s JOIN matches m ON m.id = s.match_id JOIN tournaments t"
            " ON t.id = m.tournament_id WHERE s.bot = ? AND t.name = ? ORDER BY s.rowid DESC",
            (label, LADDER),
        ).fetchall()
    finally:
        db.close()
    newest = rows[: ladderfaults.WINDOW]
    return len(rows), len(newest), sum(fault is not None for (fault,) in newest)


def shown_window(page: str, label: str) -> tuple[int, int] | None:
    row = re.search(rf'<tr data-faults="{re.escape(label)}".*?</tr>', page, re.S)
    found = re.search(r"(\d+) of (\d+) forfeited", row.group()) if row else None
    return (int(found.group(2)), int(found.group(1))) if found else None


def flag_lines(host: HostProcess) -> int:
    text = (host.data / "server.log").read_text(errors="replace")
    return len(re.findall(r"bot alice\.crashy@1 of alice flagged", text))


def test_a_bot_forfeiting_most_games_is_flagged_to_admins_and_its_owner(tmp_path: Path) -> None:
    host = HostProcess(tmp_path, competition_text(players="[3]")).start()
    try:
        root = host.admin()
        alice, bob, carol = host.visitor(), host.visitor(), host.visitor()
        others = []
        for visitor, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            assert visitor.signup(name).status_code == 303
            if visitor is alice:
                answer = visitor.upload("crashy", "crashy.py", CRASHY)
            else:
                answer = visitor.upload(
                    "greedy", "greedy.py", (PYTHON_BOT / "greedy.py").read_bytes()
                )
                others.append(answer.headers["location"])
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')

        def most_forfeited() -> bool:
            _, played, forfeits = window(host.data, "alice.crashy@1")
            return played >= 12 and 2 * forfeits >= played + 4  # more than half, with room

        wait_until(most_forfeited, "alice.crashy forfeiting most of its ladder games", 600)
        for location in others:  # the ladder stops: two bots cannot fill a 3-player table
            sid = location.rsplit("/", 1)[1]
            disable = f"/admin/submissions/{sid}/disable"  # confirmed, as the page asks
            assert root.post(disable, {"confirm": "yes"}, page="/admin").status_code == 303

        def settled() -> str | None:
            page = root.get("/admin").text
            _, played, forfeits = window(host.data, "alice.crashy@1")
            return page if shown_window(page, "alice.crashy@1") == (played, forfeits) else None

        page = wait_until(settled, "/admin showing the stored record of alice.crashy", 300)
        _, played, forfeits = window(host.data, "alice.crashy@1")
        assert ladderfaults.flagged(played, forfeits), (played, forfeits)
        row = re.search(r'<tr data-faults="alice\.crashy@1" class="flagged">.*?</tr>', page, re.S)
        assert row, page
        assert "most often crash: IndexError: list index out of range" in row.group()
        assert re.search(r"crash \d+", row.group())  # forfeits by code
        assert re.search(r'<tr data-faults="bob\.greedy@1">', page) is None  # no longer plays

        for path in ("/me", "/bots/alice.crashy"):  # as stored when read (a last match may land)

            def owner_sees(path: str = path) -> str | None:
                text = html.unescape(alice.get(path).text)
                _, played, forfeits = window(host.data, "alice.crashy@1")
                notice = f"crashy (alice.crashy@1) forfeited {forfeits} of its last {played} games"
                return text if notice in text else None

            text = wait_until(owner_sees, f"{path} showing alice the stored flag", 120)
            assert "most often crash: IndexError: list index out of range" in text
        for visitor in (bob, host.visitor(), root):  # not to others (admins: on /admin)
            assert 'class="message fault-flag"' not in visitor.get("/bots/alice.crashy").text
        assert 'class="message fault-flag"' not in bob.get("/me").text

        wait_until(lambda: flag_lines(host) >= 1, "the flag in server.log", 60)
        logged = flag_lines(host)
        for _ in range(3):
            root.get("/admin")
            alice.get("/me")
            alice.get("/bots/alice.crashy")
        assert flag_lines(host) == logged  # once when flagged, not on every request
    finally:
        host.stop()

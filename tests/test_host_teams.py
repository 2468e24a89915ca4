"""Teams on a real ``arena host`` (``[teams] max_size = 2``): making one, invite codes,
joining, leaving and removing, each refusal in one line and each change in ``server.log``;
a team's bots are the team's (a member downloads a teammate's code and reads its seat's
stderr and hand in a match, a stranger gets 404), ``active_bots`` counts the team's, two
of a team's bots never share a ladder table, and the export and ``/admin`` name the team."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Iterator

import pytest

from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, competition_text, wait_until

pytestmark = pytest.mark.xdist_group("host-teams")
LADDER = "test-cup-usa-2p"
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
MATCHES = 6  # ladder matches watched: a 2-player table of two teammates' bots among 3
# bots of 2 sides would come up in one of them with odds 1 - (2/3)^6 (91 %) if allowed
TALKER = b'''
import sys
from bots.sdk import Bot


class Talker(Bot):
    """Writes its hand to stderr, marked: what only its owner's side may read."""

    name = "talker"

    def choose(self, observation, legal_actions):
        print("alice-secret hand", dict(observation.hand), file=sys.stderr, flush=True)
        for start in ("claim", "draw deck"):
            for action in legal_actions:
                if str(action).startswith(start):
                    return action
        return legal_actions[0]
'''


class Class:
    def __init__(self, host: HostProcess, people: dict[str, Visitor], root: Visitor) -> None:
        self.host, self.people, self.root = host, people, root
        self.submissions: dict[str, int] = {}

    def __getattr__(self, name: str) -> Visitor:
        return self.people[name]

    def log(self) -> str:
        return (self.host.data / "server.log").read_text(errors="replace")


@pytest.fixture(scope="module")
def school(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Class]:
    text = competition_text() + "[teams]\nmax_size = 2\n"
    host = HostProcess(tmp_path_factory.mktemp("teams"), text).start()
    try:
        people = {}
        for name in ("alice", "bob", "carol", "dave"):
            people[name] = host.visitor()
            assert people[name].signup(name).status_code == 303
        yield Class(host, people, host.admin())
    finally:
        host.stop()


def invite(owner: Visitor) -> str:
    answer = owner.post("/me/team/invite")
    assert answer.status_code == 200, answer.text
    found = re.search(r'id="new-invite">([^<]+)<', answer.text)
    assert found, answer.text
    return found.group(1)


def refused(answer, words: str) -> None:
    assert answer.status_code == 400, answer.text
    assert words in html.unescape(answer.text) and "Traceback" not in answer.text


def test_make_invite_join_remove_and_leave_with_every_refusal(school: Class) -> None:
    refused(school.bob.post("/me/team/join", {"code": "no-such-code"}), "invite code is not valid")
    assert school.alice.post("/me/team", {"name": "pair"}).status_code == 303
    taken = school.carol.post("/me/team", {"name": "PAIR"})
    refused(taken, "the team name 'PAIR' is taken")
    refused(school.bob.post("/me/team/invite"), "you are in no team")
    first, second = invite(school.alice), invite(school.alice)
    assert school.bob.post("/me/team/join", {"code": first}).status_code == 303
    assert 'id="team-name">pair<' in school.bob.get("/me").text
    refused(school.dave.post("/me/team/join", {"code": first}), "invite code is not valid")
    refused(school.dave.post("/me/team/join", {"code": second}), "team pair is full (2 members)")
    refused(school.alice.post("/me/team/invite"), "team pair is full")
    # A second team: Carol's. Bob, in one already, cannot join it; Dave can, and leaves.
    assert school.carol.post("/me/team", {"name": "solo"}).status_code == 303
    carols = invite(school.carol)
    refused(school.bob.post("/me/team/join", {"code": carols}), "you are in team pair: leave it")
    refused(school.bob.post("/me/team/remove", {"member": "alice"}), "only the team's owner")
    assert school.dave.post("/me/team/join", {"code": carols}).status_code == 303
    assert school.dave.post("/me/team/leave").status_code == 303
    assert school.carol.post("/me/team/leave").status_code == 303  # the last one: it is gone
    assert "team-name" not in school.carol.get("/me").text
    # The owner removes Bob; the code the full team refused still works, once.
    assert school.alice.post("/me/team/remove", {"member": "bob"}).status_code == 303
    assert "team-name" not in school.bob.get("/me").text
    assert school.bob.post("/me/team/join", {"code": second.upper()}).status_code == 303
    members = re.findall(r'data-member="([^"]+)"', school.alice.get("/me").text)
    assert members == ["alice", "bob"]
    admin = school.root.get("/admin").text
    assert re.search(r'data-team="pair">.*?class="members">alice, bob<', admin)
    assert 'data-team="solo"' not in admin


def test_each_membership_change_is_one_line_in_the_server_log(school: Class) -> None:
    log = school.log()
    for line in (
        "team pair created by alice, its owner",
        "team pair: bob joined with an invite code",
        "team solo created by carol",
        "team solo: dave joined",
        "team solo: dave left; its owner is carol",
        "team solo: carol left; it had no other member: it is gone",
        "team pair: bob removed by alice, its owner",
    ):
        assert line in log, line
    assert log.count("team pair: bob joined with an invite code") == 2
    assert "team join refused to dave: team pair is full" in log


def upload(visitor: Visitor, bot: str, data: bytes, plays: bool) -> int:
    answer = visitor.upload(bot, "bot.py", data)
    assert answer.status_code == 303, answer.text
    visitor.wait_for(answer.headers["location"], r'id="status">ok<')
    sid = int(answer.headers["location"].rsplit("/", 1)[1])
    row = re.search(rf'data-submission="{sid}">.*?</tr>', visitor.get("/me").text, re.S)
    assert row and f"<td>{'yes' if plays else 'no'}</td>" in row.group(), row
    return sid


def test_active_bots_count_the_teams_versions_together(school: Class) -> None:
    school.submissions["alice"] = upload(school.alice, "talker", TALKER, plays=True)
    school.submissions["bob"] = upload(school.bob, "greedy", GREEDY, plays=True)
    # active_bots = 2: Bob's second bot is the team's third, so it rests, and may not play.
    third = upload(school.bob, "spare", GREEDY, plays=False)
    refused(school.bob.post(f"/submissions/{third}/play", {"play": "1"}), "at most 2 versions")
    # One side so far: the board waits for a second participant.
    assert "1 so far" in school.dave.get("/boards/usa/2").text
    rules = school.dave.get("/rules").text
    assert 'id="team-size">2<' in rules and "(or of a team, together)" in rules


def stored(host: HostProcess) -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(LADDER, details=False)


def test_two_bots_of_one_team_never_share_a_table(school: Class) -> None:
    school.submissions["carol"] = upload(school.carol, "greedy", GREEDY, plays=True)
    matches = wait_until(lambda: len(stored(school.host)) >= MATCHES and stored(school.host),
                         f"{MATCHES} ladder matches")  # fmt: skip
    for match in matches:
        owners = sorted(bot.partition(".")[0] for bot in match.bots)
        assert owners in (["alice", "carol"], ["bob", "carol"]), match.bots


def test_a_member_sees_the_teammates_code_and_seats_as_its_owner(school: Class) -> None:
    code = f"/submissions/{school.submissions['alice']}/code"
    assert school.bob.get(code).content == TALKER
    assert school.bob.get(f"/submissions/{school.submissions['alice']}").status_code == 200
    match = next(m for m in stored(school.host) if "alice.talker@1" in m.bots)
    seat = match.bots.index("alice.talker@1")
    stderr = f"/matches/{match.match_id}/stderr/{seat}"
    assert "alice-secret hand" in school.bob.get(stderr).text
    replay = school.bob.get(f"/matches/{match.match_id}/replay.json").text
    assert "alice-secret hand" in replay and '"hand"' in replay
    for stranger in (school.carol, school.dave):  # Carol played the match; Dave did not
        assert stranger.get(code).status_code == 404
        assert stranger.get(f"/submissions/{school.submissions['alice']}").status_code == 404
        assert stranger.get(stderr).status_code == 404
        seen = stranger.get(f"/matches/{match.match_id}/replay.json").text
        assert "alice-secret" not in seen
    # Carol sees her own seat's hand, and only hers.
    assert '"hand"' in school.carol.get(f"/matches/{match.match_id}/replay.json").text
    # Bob sees the teammate's submission on his page, linked.
    assert f'href="/submissions/{school.submissions["alice"]}"' in school.bob.get("/me").text


def test_the_export_names_each_versions_team(school: Class) -> None:
    answer = school.root.get("/admin/export?format=csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    teams = {row["owner"]: row["team"] for row in rows}
    assert teams == {"alice": "pair", "bob": "pair", "carol": ""}, teams
    done = school.host.arena(
        "admin", "export", "--data-dir", str(school.host.data), "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    standings = json.loads(done.stdout)["standings"]
    assert {row["owner"]: row["team"] for row in standings} == teams


def test_leaving_the_team_ends_the_sharing(school: Class) -> None:
    """Leaving ends the sharing: Bob, out of the team, no longer reads Alice's code."""
    code = f"/submissions/{school.submissions['alice']}/code"
    assert school.bob.post("/me/team/leave").status_code == 303
    assert school.bob.get(code).status_code == 404
    assert "team pair: bob left; its owner is alice" in school.log()

"""A match on the host's map, seen by each visitor as the competition allows: a real
``arena host``, two participants whose bots write to stderr and attach notes, and each
visitor's copy of the viewer's data and of the match log checked field by field: the
owner sees their seat's hand, tickets, stderr and notes; nobody sees another seat's. The
match's bundle (its seed) is its bots' owners' and the organiser's only.
``replays = "owners"`` hides the match, its data and its log from everyone else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from arena.server.replays import PUBLIC_FIELDS
from arena.tournament.bundle import load_bundle
from arena.tournament.results import match_id
from arena.tournament.store import ResultsStore
from leaderboards.replay import apply_patch
from tests.host_helpers import HostProcess, Visitor, competition_text, wait_until

pytestmark = pytest.mark.xdist_group("host-replays")
LADDER = "test-cup-usa-2p"
PRIVATE = ("hand", "tickets", "offered_tickets", "track", "own_choice")


def talker(secret: str) -> bytes:
    """A bot that claims the longest route it can and says so on stderr and in a note,
    each line marked with ``secret`` (what no other participant may read)."""
    return f'''
import sys
from bots.sdk import Bot


class Talker(Bot):
    name = "talker"

    def on_game_start(self, observation):
        self.length = {{r["id"]: r["length"] for r in self.board["routes"]}}

    def choose(self, observation, legal_actions):
        print("{secret} hand", dict(observation.hand), file=sys.stderr, flush=True)
        self.note("{secret} plan")
        claims = [a for a in legal_actions if str(a).startswith("claim")]
        if claims:
            return max(claims, key=lambda a: (self.length[a.route], -a.wilds, -a.route))
        for action in legal_actions:
            if str(action) == "draw deck":
                return action
        return legal_actions[0]
'''.encode()


class Cup:
    def __init__(self, host: HostProcess, people: dict[str, Visitor], match: Any) -> None:
        self.host, self.people, self.match = host, people, match
        self.seat = {name: self.seat_of(name) for name in ("alice", "bob")}

    def seat_of(self, name: str) -> int:
        return next(i for i, bot in enumerate(self.match.bots) if bot.startswith(name + "."))


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    host = HostProcess(tmp_path_factory.mktemp("replays")).start()
    try:
        people = {name: host.visitor() for name in ("alice", "bob", "carol")}
        for name, visitor in people.items():
            assert visitor.signup(name).status_code == 303
        for name in ("alice", "bob"):
            answer = people[name].upload("talker", "talker.py", talker(f"{name}-secret"))
            assert answer.status_code == 303, answer.text
            people[name].wait_for(answer.headers["location"], r'id="status">ok<')
        people["root"] = host.admin()
        people["stranger"] = host.visitor()

        def ladder_match():
            with ResultsStore.reader(host.data) as store:
                found = store.results(LADDER, details=False)
            return found[0] if found else None

        yield Cup(host, people, wait_until(ladder_match, "a ladder match"))
    finally:
        host.stop()


def observations(data: dict[str, Any]) -> list[tuple[dict[str, Any], list[Any], Any]]:
    """Every step of the viewer's data with each seat's observation and the score data."""
    obs: list[Any] = [None] * len(data["seats"])
    org: Any = None
    out = []
    for step in data["steps"]:
        obs = [apply_patch(o, p) for o, p in zip(obs, step["obs"], strict=True)]
        org = apply_patch(org, step["org"])
        out.append((step, obs, org))
    return out


def replay_of(cup: Cup, who: str) -> tuple[dict[str, Any], str]:
    answer = cup.people[who].get(f"/matches/{cup.match.match_id}/replay.json")
    assert answer.status_code == 200, answer.text
    return answer.json(), answer.text


def assert_hidden(data: dict[str, Any], text: str, seat: int, secret: str) -> None:
    """Nothing of ``seat`` beyond what the table saw, field by field."""
    assert secret not in text
    for step, obs, org in observations(data):
        assert set(obs[seat]) <= PUBLIC_FIELDS, set(obs[seat]) - PUBLIC_FIELDS
        assert not any(key in obs[seat] for key in PRIVATE)
        assert set(org["score"][seat]) <= {"routes", "tickets_done", "total"}
        assert org["done"][seat] == [] and "tracks" not in org
        if step.get("seat") == seat:
            assert not {"stderr", "note", "notes", "events"} & set(step)
        for fault in step.get("faults", []):
            assert fault["seat"] != seat or "detail" not in fault
    assert data["final"]["tickets"][seat] == [] and data["final"]["borrowed"][seat] == []
    assert "seed" not in data
    assert all(set(s) <= {"seat", "bot", "version"} for s in data["seat_info"])


def test_an_owner_sees_their_seats_hand_and_stderr_and_no_other(cup: Cup) -> None:
    mine, theirs = cup.seat["alice"], cup.seat["bob"]
    data, text = replay_of(cup, "alice")
    assert_hidden(data, text, theirs, "bob-secret")
    steps = observations(data)
    assert all("hand" in obs[mine] and "tickets" in obs[mine] for _, obs, _ in steps)
    assert sum(sum(obs[mine]["hand"].values()) for _, obs, _ in steps) > 0
    own = [step for step, _, _ in steps if step.get("seat") == mine and step.get("by") == "bot"]
    assert own and all(step.get("note") == "alice-secret plan" for step in own)
    assert any("alice-secret hand" in line for step in own for line in step.get("stderr", []))
    assert "tickets_open" in steps[-2][2]["score"][mine]  # with its tickets, for its owner
    assert data["final"]["tickets"][mine]  # its tickets completed and failed, at the end
    assert data["download"] == f"/matches/{cup.match.match_id}/log.jsonl"
    # The match page embeds the same data (a JSON block, no inline script).
    page = cup.people["alice"].get(f"/matches/{cup.match.match_id}").text
    assert '<script type="application/json" id="match-data">' in page
    assert "alice-secret" in page and "bob-secret" not in page
    assert "<script>" not in page


def test_others_see_no_seats_hidden_information(cup: Cup) -> None:
    for who in ("carol", "stranger"):
        data, text = replay_of(cup, who)
        for seat, name in ((cup.seat["alice"], "alice"), (cup.seat["bob"], "bob")):
            assert_hidden(data, text, seat, f"{name}-secret")
        page = cup.people[who].get(f"/matches/{cup.match.match_id}").text
        assert "-secret" not in page and '"hand"' not in page and '"seed"' not in page
        # What the table saw is there: the moves, the routes claimed, the hand sizes.
        assert any(step.get("action", "").startswith("claim ") for step in data["steps"])
        last = observations(data)[-1][1]
        assert all("hand_size" in row and "routes" in row for obs in last for row in obs["public"])


def test_the_organiser_sees_everything(cup: Cup) -> None:
    data, text = replay_of(cup, "root")
    assert "seed" in data and "alice-secret" in text and "bob-secret" in text
    last = observations(data)[-1][1]
    assert all("hand" in obs for obs in last)


def test_the_match_log_download_is_filtered_the_same_way(cup: Cup) -> None:
    path = f"/matches/{cup.match.match_id}/log.jsonl"
    with ResultsStore.reader(cup.host.data) as store:
        stored = store.match_log(cup.match.match_id)
    answer = cup.people["root"].get(path)
    assert answer.status_code == 200 and answer.content == stored  # the organiser's: as stored
    assert "attachment" in answer.headers["content-disposition"]
    mine = cup.seat["alice"]
    lines = [json.loads(line) for line in cup.people["alice"].get(path).text.splitlines()]
    header = lines[0]
    assert header["type"] == "header" and "seed" not in header
    assert all(set(s) == {"seat", "bot", "version"} for s in header["seats"])  # no server path
    actions = [line for line in lines if line["type"] == "action"]
    assert len(actions) == sum(1 for raw in stored.splitlines() if b'"type":"action"' in raw)
    for line in actions:
        if line["seat"] == mine and line["by"] == "bot":
            assert line["note"] == "alice-secret plan"
        else:
            assert "note" not in line and "stderr" not in line
    assert lines[-1]["type"] == "result" and lines[-1]["scores"] == list(cup.match.scores)
    text = cup.people["alice"].get(path).text
    assert "bob-secret" not in text and "alice-secret hand" in text
    for who in ("stranger", "carol", "bob"):
        text = cup.people[who].get(path).text
        assert "alice-secret" not in text and '"seed"' not in text
        assert text.count('"type":"action"') == len(actions)


def test_the_bundle_is_its_seats_owners_and_of_a_finished_match_only(cup: Cup) -> None:
    """The bundle holds the game's seed (every hand follows): the owners of the match's
    bots and the organiser download it; a visitor who may watch the match gets 404 and
    no link; a match not stored (planned, playing) has no bundle for anyone."""
    match = cup.match.match_id
    path = f"/matches/{match}/bundle.json"
    with ResultsStore.reader(cup.host.data) as store:
        seed = json.loads(store.match_log(match).split(b"\n", 1)[0])["seed"]
    for who in ("alice", "bob", "root"):
        answer = cup.people[who].get(path)
        assert answer.status_code == 200, (who, answer.text[-500:])
        disposition = answer.headers["content-disposition"]
        assert disposition == f'attachment; filename="{LADDER}-{cup.match.idx}-bundle.json"'
        bundle = load_bundle(answer.content)  # intact: its digest matches
        assert (bundle.match_id, bundle.game_seed) == (match, seed)
        assert [s.bot for s in bundle.seats] == list(cup.match.bots)
        assert 'id="bundle"' in cup.people[who].get(f"/matches/{match}").text
    for who in ("carol", "stranger"):
        assert cup.people[who].get(path).status_code == 404, who
        page = cup.people[who].get(f"/matches/{match}")
        assert page.status_code == 200 and 'id="bundle"' not in page.text
    # Matches planned but not stored: 404 while unplayed (one may finish meanwhile).
    with ResultsStore.reader(cup.host.data) as store:
        info = store.tournament_info(LADDER)
        assert info is not None
        planned = [m.index for m in store.planned(info.id)]
        done = {r.idx for r in store.results(LADDER, details=False)}
    for index in [i for i in planned if i not in done] + [max(planned) + 1]:
        unplayed = match_id(info.id, index)
        answer = cup.people["alice"].get(f"/matches/{unplayed}/bundle.json")
        if answer.status_code != 404:  # served: only once it was stored, so finished
            with ResultsStore.reader(cup.host.data) as store:
                assert store.match_result(unplayed) is not None, answer.status_code


def test_replays_for_owners_hide_the_match_from_others(cup: Cup) -> None:
    """Last: the competition file changes and the server restarts."""
    cup.host.stop()
    cup.host.file.write_text(competition_text().replace('replays = "public"', 'replays = "owners"'))
    cup.host.start()
    match = cup.match.match_id
    for path in (
        f"/matches/{match}",
        f"/matches/{match}/replay.json",
        f"/matches/{match}/log.jsonl",
        f"/matches/{match}/bundle.json",
    ):
        assert cup.people["carol"].get(path).status_code == 404, path
        assert cup.people["stranger"].get(path).status_code == 404, path
        assert cup.people["alice"].get(path).status_code == 200, path
        assert cup.people["root"].get(path).status_code == 200, path

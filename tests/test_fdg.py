"""The FDG 2017 agents as their authors' code plays them (bots/fdg): every quirk changes play
the way docs/BOTS.md says and its switch turns it off; the documented fallback; plugins,
other maps, and the command line."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.engine import BoardObservation, BoardState
from arena.engine.actions import Action, ClaimRoute, DrawCard, DrawTickets, KeepTickets
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch, in_process_referee
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant, new_game
from bots import all_bots
from bots.fdg import AGENTS
from bots.fdg.common import FdgAgent, fallback, pair_of
from bots.fdg.destination_hungry import DestinationHungry, Paths
from bots.fdg.long_route import LongRoute
from bots.fdg.route_focus import RouteFocus
from bots.planning import View, board_observation
from tests.helpers import (
    Position,
    claim_for,
    collect,
    edit,
    hold,
    owner,
    set_display,
    set_hand,
    spend_trains,
    started,
)

OTHERS = [cls.name for cls in AGENTS]
USA = get_variant("usa")


Difference = tuple[BoardObservation, list[Action], Action, Action]


def first_difference(
    cls: type[FdgAgent], quirk: str, players: int = 4, seeds: Iterable[int] = range(40)
) -> Difference:
    """Play USA games, ``cls`` as published in seat 0 against the other agents; at each of
    seat 0's decisions also ask a twin with ``quirk`` switched off (it sees the same game).
    Return the first decision where the two differ: (observation, legal, published, twin)."""
    fixed = dataclasses.replace(cls.Quirks(), **{quirk: False})
    others = [all_bots()[n].factory for n in OTHERS if n != cls.name]
    for seed in seeds:
        state = new_game("usa", players, seed)
        board = state.board.public_json()
        seats = [cls(0), *(others[i % len(others)](0) for i in range(players - 1))]
        twin = cls(0, quirks=fixed)
        for seat, bot in enumerate(seats):
            bot.start_game(f"{seed}:{seat}", state.observation(seat), board)
        twin.start_game(f"{seed}:0", state.observation(0), board)  # seat 0's seed
        while (mover := state.to_move) is not None:
            observation, legal = state.observation(mover), state.legal_actions()
            action = seats[mover].choose(observation, legal)
            if mover == 0:
                other = twin.choose(observation, legal)
                if other != action:
                    return board_observation(observation), legal, action, other
            state.apply(action)
    raise AssertionError(f"{cls.name}: switching {quirk} off never changed a decision")


def colour_shown(observation: BoardObservation, action: Action) -> str | None:
    assert type(action) is DrawCard
    return None if action.slot is None else observation.display[action.slot]


# -- Route Focus -------------------------------------------------------------------------------


def test_route_focus_draws_blind_where_its_fix_takes_a_face_up_card() -> None:
    observation, _, published, fixed = first_difference(RouteFocus, "blind_draws_only")
    assert published == DrawCard(None)
    assert type(fixed) is DrawCard and colour_shown(observation, fixed) not in (None, "wild")


def test_route_focus_never_claims_a_route_as_long_as_its_trains() -> None:
    state = started(4, seed=3)
    seat = state.to_move
    state = edit(state, lambda data: hold(data, seat, []))  # no ticket: the shortest route
    state = spend_trains(set_hand(state, seat, blue=1), seat, state.rules.pieces_per_player - 1)
    assert state.observation(seat).public[seat].trains == 1
    assert any(type(a) is ClaimRoute for a in state.legal_actions())
    _, moves = decisions(["fdg-route-focus", "fdg-route-focus-fixed"], state)
    assert moves["fdg-route-focus"] == DrawCard(None)
    claimed = moves["fdg-route-focus-fixed"]
    assert type(claimed) is ClaimRoute and state.board.route_length[claimed.route - 1] == 1


def test_route_focus_with_no_card_to_draw_plays_the_fallback() -> None:
    """The authors' agent returns no move here (their engine then aborts the game)."""
    state = started(4, seed=5)
    seat = state.to_move

    def no_deck(data: Position) -> None:
        """Four cards face up, no deck, no discards, an empty hand for ``seat`` (nothing to
        claim with): every other card in the other seats' hands."""
        collect(data)
        deck: list[str] = data["deck"]
        data["display"] = ["red", "blue", "green", "black", None]
        for name in data["display"][:4]:
            deck.remove(name)
        others = [s for s in range(data["players"]) if s != seat]
        for i, name in enumerate(deck):
            data["hands"][others[i % len(others)]][name] += 1
        deck.clear()

    state = edit(state, no_deck)
    observation, legal = state.observation(seat), state.legal_actions()
    assert observation.deck_size == 0 and not any(observation.discards.values())
    assert DrawCard(None) not in legal and not any(type(a) is ClaimRoute for a in legal)
    bot = RouteFocus(0)
    bot.start_game("s", observation, state.board.public_json())
    assert bot.choose(observation, legal) == fallback(legal) == legal[0]


# -- One Step Thinker and Long Route Junkie ------------------------------------------------------


def decisions(names: Sequence[str], state: BoardState) -> tuple[Any, dict[str, Action]]:
    """What each named bot, fresh, decides at this position for the seat to move."""
    seat = state.to_move
    assert seat is not None
    observation, legal = state.observation(seat), state.legal_actions()
    moves = {}
    for name in names:
        bot = all_bots()[name].factory(0)
        bot.start_game("s", observation, state.board.public_json())
        moves[name] = bot.choose(observation, legal)
    return observation, moves


def test_one_step_keeps_only_its_lowest_drawn_ticket_until_fixed() -> None:
    state = started(4, seed=2)
    seat = state.to_move
    rivals = [(seat + k) % 4 for k in (1, 2, 3)]
    state.apply("tickets")
    points = state.board.ticket_points
    by_value = sorted(range(len(points)), key=lambda t: points[t])
    lowest = by_value[0]
    cut_off = state.board.ticket_a[lowest]  # every route into one of its cities taken
    for k, r in enumerate(state.board.city_routes[cut_off]):
        if owner(state, r + 1) < 0:  # a rival per track: one seat never holds both
            state = claim_for(state, rivals[k % 2], r + 1)
    offer = [by_value[-1] + 1, lowest + 1, by_value[-2] + 1]  # ticket ids: 1-based
    state = edit(state, lambda data: hold(data, seat, offer, pile="offers"))
    _, moves = decisions(["fdg-one-step", "fdg-one-step-fixed"], state)
    assert moves["fdg-one-step"] == KeepTickets((1,))
    assert type(moves["fdg-one-step-fixed"]) is KeepTickets
    assert 1 not in moves["fdg-one-step-fixed"].indices


def test_long_route_keeps_its_two_lowest_tickets_until_fixed() -> None:
    observation, _, published, fixed = first_difference(LongRoute, "keeps_lowest_tickets")
    offered = observation.offered_tickets
    assert observation.phase == "setup_tickets"
    order = sorted(range(len(offered)), key=lambda i: (offered[i].points, i))
    assert published == KeepTickets(tuple(sorted(order[:2])))
    assert type(fixed) is KeepTickets


def test_long_route_never_takes_a_gray_objective_s_colour_face_up_until_fixed() -> None:
    observation, _, published, fixed = first_difference(LongRoute, "gray_colour_never_drawn")
    wanted = colour_shown(observation, fixed)
    held = observation.hand
    assert wanted is not None and wanted != "wild"
    assert held[wanted] == max(n for c, n in held.items() if c != "wild")
    assert type(published) is DrawCard and colour_shown(observation, published) in (None, "wild")


def test_one_step_never_takes_a_gray_objective_s_colour_face_up_until_fixed() -> None:
    state = started(4, seed=4)
    seat = state.to_move
    trains = state.rules.pieces_per_player
    # No ticket, and a seat below 8 trains: no more tickets. Its objective: the best-suited
    # free route of its 2 trains' length, gray (its hand suits no colour of that length).
    state = edit(state, lambda data: hold(data, seat, []))
    state = spend_trains(state, (seat + 1) % 4, trains - 5)
    state = spend_trains(set_hand(state, seat, red=1), seat, trains - 2)
    state = set_display(state, ["wild", "red", "blue", "green", "black"])
    _, moves = decisions(["fdg-one-step", "fdg-one-step-fixed"], state)
    assert moves["fdg-one-step"] == DrawCard(0)  # the face-up wild
    assert moves["fdg-one-step-fixed"] == DrawCard(1)  # red, the colour it holds most


# -- Destination Hungry --------------------------------------------------------------------------


def test_destination_hungry_asks_for_tickets_on_its_stale_threshold() -> None:
    _, _, published, fixed = first_difference(DestinationHungry, "stale_ticket_threshold")
    assert DrawTickets() in (published, fixed)


def test_destination_hungry_takes_the_colour_its_plan_needs_most_only_when_fixed() -> None:
    observation, _, published, fixed = first_difference(
        DestinationHungry, "most_needed_colour_unused"
    )
    assert type(fixed) is DrawCard and colour_shown(observation, fixed) not in (None, "wild")
    assert published != fixed


def test_destination_hungry_margin_override_keeps_a_plan_inside_its_margin() -> None:
    observation, _, published, fixed = first_difference(DestinationHungry, "margin_override")
    assert observation.phase in ("setup_tickets", "keep_tickets")
    trains = observation.public[observation.seat].trains
    needs = {}
    for name, choice in (("published", published), ("fixed", fixed)):
        assert type(choice) is KeepTickets
        agent = DestinationHungry(0)
        agent.start_game("s", observation, USA.board.public_json())
        view = View(agent.graph, observation)
        cities, _ = agent.held_cities(view)
        kept = [observation.offered_tickets[i] for i in choice.indices]
        plan = agent.make_plan(view, Paths(view), cities + [c for t in kept for c in (t.a, t.b)])
        assert plan is not None
        needs[name] = plan.trains
    assert trains - 5 < needs["published"] <= trains  # fits only inside the margin
    assert needs["fixed"] <= trains - 5


def test_destination_hungry_plan_quirk_of_the_nearest_city_changes_its_play() -> None:
    _, legal, published, fixed = first_difference(DestinationHungry, "nearest_not_reset")
    assert published in legal and fixed in legal


def test_destination_hungry_stops_replanning_after_keeping_tickets_until_fixed() -> None:
    state = started(4, seed=6)
    seat = state.to_move
    state = edit(state, lambda data: hold(data, seat, []))
    rivals = [(seat + k) % 4 for k in (1, 2, 3)]
    for rival, route in zip(rivals, (57, 34, 80), strict=True):
        state = claim_for(state, rival, route)  # the rivals have scored: 11 points in all
    assert sum(p.route_points for p in state.observation(seat).public) == 11
    published, fixed = DestinationHungry(0), DestinationHungry(0, DestinationHungry.fixed())
    for agent in (published, fixed):
        agent.start_game("s", state.observation(seat), state.board.public_json())
        agent.choose(state.observation(seat), state.legal_actions())  # a turn: it plans
    state.apply("tickets")
    keeps = [
        agent.choose(state.observation(seat), state.legal_actions()) for agent in (published, fixed)
    ]
    assert all(type(keep) is KeepTickets for keep in keeps)
    state.apply(keeps[0])  # it holds the tickets the published agent kept
    assert published.plan is not None and fixed.plan is not None
    # A rival takes a single-track route of both plans, scoring less than the rivals had.
    taken = next(
        track
        for pairs in published.plan.routes.values()
        for pair in pairs
        if len(published.pairs[pair]) == 1
        and (track := published.pairs[pair][0]).length <= 4
        and any(pair in p for p in fixed.plan.routes.values())
    )
    state = claim_for(state, rivals[0], taken.id)
    state = edit(state, lambda data: data.update(to_move=seat))  # its turn again
    for agent in (published, fixed):
        agent.choose(state.observation(seat), state.legal_actions())
    planned = [
        agent.plan is not None and any(pair_of(taken) in p for p in agent.plan.routes.values())
        for agent in (published, fixed)
    ]
    assert planned == [True, False]  # published: its stale plan; fixed: replanned around it


# -- every agent ---------------------------------------------------------------------------------


def test_fixed_variants_are_plugins_with_every_switch_off() -> None:
    bots = all_bots()
    for cls in AGENTS:
        published = bots[cls.name].factory(0)
        fixed = bots[f"{cls.name}-fixed"].factory(0)
        assert isinstance(published, cls) and isinstance(fixed, cls)
        assert all(dataclasses.astuple(published.quirks))
        assert not any(dataclasses.astuple(fixed.quirks))
        assert "FDG 2017" in bots[cls.name].description


@pytest.mark.parametrize("variant", ["europe", "newyork"])
def test_the_agents_play_other_maps_by_their_rules(variant: str) -> None:
    names = OTHERS if variant == "europe" else [f"{n}-fixed" for n in OTHERS[:3]]
    entries = [BotEntry.parse(n) for n in names]
    outcome = in_process_referee(get_variant(variant), entries, TimeControl()).play(4)
    assert outcome.faults == [] and outcome.result is not None


def test_the_same_game_in_process_and_through_processes(tmp_path: Path) -> None:
    """Nothing in the agents depends on the process (set order, hashing, a global random)."""
    entries = [BotEntry.parse(n) for n in OTHERS]
    local = in_process_referee(USA, entries, TimeControl()).play(8)
    with ProcessMatch(USA, entries, TimeControl(move_ms=3000), log_dir=tmp_path) as referee:
        remote = referee.play(8)
    assert remote.faults == []
    assert [a["action"] for a in remote.log.actions] == [a["action"] for a in local.log.actions]


def test_arena_lists_and_plays_the_agents_through_the_sandbox(tmp_path: Path) -> None:
    arena = [sys.executable, "-m", "arena.cli"]
    listed = subprocess.run([*arena, "bots"], capture_output=True, text=True, cwd=tmp_path)
    # 80 columns (no terminal): the names must still show whole
    assert listed.returncode == 0
    for cls in AGENTS:
        assert cls.name in listed.stdout and f"{cls.name}-fixed" in listed.stdout
    bots = [arg for name in OTHERS for arg in ("--bot", name)]
    played = subprocess.run(
        [*arena, "play", *bots, "--seed", "3", "--match-log", "game.jsonl"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    assert "actions in" in played.stdout
    log = MatchLog.from_jsonl((tmp_path / "game.jsonl").read_text())
    assert [seat["bot"] for seat in log.header["seats"]] == OTHERS
    assert log.faults == [] and verify(log).is_over
    wrong = subprocess.run(
        [*arena, "play", "--bot", "fdg-route-focus-fix", "--bot", "random", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert wrong.returncode == 2
    message = wrong.stdout + wrong.stderr
    assert "no bot named 'fdg-route-focus-fix'" in message and "Traceback" not in message

"""A third party extends the engine without touching it: a toy variant (tests/toll_variant.py)
registered from a test plugin brings a new action verb, its own state, observation and
position fields, and a new score category with its label."""

from __future__ import annotations

import random

import pytest
from rich.console import Console

from arena.commands.report import result_table
from arena.engine import IllegalActionError, NotationError, parse_action, verb
from arena.plugins import plugin_manager
from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import all_variants, get_variant, new_game
from bots import get_bot
from tests import toll_variant
from tests.helpers import edit, give, started


@pytest.fixture(scope="module")
def toll():
    plugin_manager().register(toll_variant)
    yield get_variant("toll")
    plugin_manager().unregister(toll_variant)


def toll_game(seed=1):
    """Two seats past the setup, the seat to move owning route 4 and holding a red card."""
    state = started(2, seed, "toll")
    seat = state.to_move
    state = edit(state, lambda data: data["routes"][seat].append(4))
    return give(state, seat, "red", 1), seat


def test_the_plugin_adds_a_variant_and_its_verb_to_the_notation(toll):
    assert "toll" in all_variants() and toll.playable
    assert parse_action("toll 4 red") == toll_variant.PayToll(4, "red")
    assert toll.parse_action("toll 4 red") == toll_variant.PayToll(4, "red")
    with pytest.raises(NotationError, match="not an action of"):
        get_variant("usa").parse_action("toll 4 red")
    usa = new_game("usa", 2, 1)
    while usa.phase == "setup_tickets":
        usa.apply(usa.legal_actions()[0])
    with pytest.raises(IllegalActionError) as error:
        usa.apply("toll 4 red")
    assert error.value.rule == "action.unknown"


def test_a_verb_belongs_to_one_parser():
    with pytest.raises(ValueError, match="already read by"):

        @verb("claim")
        def parse_my_claim(args, text):  # pragma: no cover - never registered
            raise AssertionError


def test_the_new_action_plays_and_scores_in_its_own_category(toll):
    state, seat = toll_game()
    assert "toll 4 red" in {str(a) for a in state.legal_actions()}
    state.apply("toll 4 red")
    view = state.observation(1 - seat)
    assert isinstance(view, toll_variant.TollObservation)
    assert view.public[seat].tolls == [4] and view.public[seat].hand_size == 0
    with pytest.raises(IllegalActionError):
        state.apply("toll 4 red")  # not its turn, and the route has its toll
    result = edit(state, lambda data: data.update(phase="over")).result()
    assert result.categories[-1] == "tolls"
    assert result.breakdown[seat]["tolls"] == toll_variant.TOLL_POINTS
    assert toll.score_labels["tolls"].heading == "toll"


def test_its_positions_and_samples_carry_the_extra_state(toll):
    state, _ = toll_game(3)
    state.apply("toll 4 red")
    twin = toll.from_position(state.to_position())
    assert twin.fingerprint() == state.fingerprint()
    sample = state.resample(state.to_move, random.Random(0))
    assert sample.observation(state.to_move) == state.observation(state.to_move)


def test_random_games_of_the_toy_variant_end_and_read_back(toll):
    for seed in range(40):
        state = new_game("toll", 2, seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_actions()))
            assert toll.from_position(state.to_position()).fingerprint() == state.fingerprint()
        assert "tolls" in state.result().categories


def test_bots_play_it_through_the_referee_and_the_table_names_the_category(toll):
    names = ("ticket-by-ticket", "random")
    seats = [InProcessSeat(get_bot(n).factory(f"5:{i}"), n) for i, n in enumerate(names)]
    outcome = Referee(toll, seats, TimeControl()).play(5)
    assert outcome.faults == [] and outcome.result.categories[-1] == "tolls"
    console = Console(width=120, record=True)
    console.print(result_table(outcome.result, list(names), "toll", labels=toll.score_labels))
    text = " ".join(console.export_text().split())
    assert " toll " in text and "toll tolls on owned routes" in text  # heading, legend


# What only one edition has; ferries are not here: a map feature several editions share (Europe,
# San Francisco), read from the map data by the base board like a route's colour and length.
EDITION_PIECES = ("station", "tunnel", "merchandise", "tourist", "taxi", "attraction", "yard")


def test_the_engine_folder_names_no_edition():
    """The engine holds what every game shares: no edition's name, title or own piece."""
    from importlib.metadata import entry_points
    from pathlib import Path

    import arena.engine

    built_in = {entry.name for entry in entry_points(group="arena.variants")}
    words = set(EDITION_PIECES)
    for variant in all_variants().values():
        if variant.name.split("-")[0] in built_in:
            words.add(variant.name)
            title = variant.title.removeprefix("Ticket to Ride").strip(" :")
            words.add(title.removeprefix("The ").strip("()").lower())
    assert {"usa", "europe", "card game", "new york", "san francisco"} <= words
    found = [
        f"{path.name}:{number}: {word}"
        for path in sorted(Path(arena.engine.__file__).parent.glob("*.py"))
        for number, line in enumerate(path.read_text().lower().splitlines(), start=1)
        for word in words
        if word in line
    ]
    assert found == []

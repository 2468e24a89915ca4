"""Observations are kept between moves: each seat's public view is rebuilt only when a move
changes it, and the claimed routes are updated claim by claim. An observation after any
sequence of moves (and on copies) equals the observation of a fresh state read from the same
position, for every seat, on every variant; an edition whose moves reach other seats does not
inherit the shortcut."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest

from arena.engine import BoardState, DrawCard
from arena.variants import all_variants
from arena.variants.mapdata import board_variant
from tests.city_fixtures import every_playable_variant, variant_id
from tests.toll_variant import TINY_MAP, TINY_RULES

ALL_VARIANTS = every_playable_variant()


class GenerousState(BoardState):
    """A test edition whose blind draw also gives the next seat a card: a move that changes
    another seat's public data (its hand size), declared nowhere."""

    __slots__ = ()

    ACTIONS: ClassVar = {**BoardState.ACTIONS, DrawCard: "_generous_draw"}

    def _generous_draw(self, action: DrawCard) -> None:
        neighbour = (self._to_move + 1) % self.num_players
        self._draw_card(action)
        if action.slot is None and self._deck:
            self._hands[neighbour][self._deck.pop()] += 1


GENEROUS = board_variant(
    "generous", "a draw gives the next seat a card", TINY_RULES, TINY_MAP, game=GenerousState
)


def assert_observations_fresh(variant, state):
    fresh = variant.from_position(state.to_position())
    for seat in range(state.num_players):
        assert state.observation(seat) == fresh.observation(seat), (variant.name, seat)
        assert state.observation(seat).to_json() == fresh.observation(seat).to_json()


def play_observing(variant, players, seed):
    """A random game observed by every seat after every move, compared with fresh states;
    a copy taken mid-game goes its own way and is compared too."""
    state = variant.new_game(players, seed)
    rng = random.Random(seed)
    copy, step = None, 0
    while not state.is_over:
        assert_observations_fresh(variant, state)
        if step == 40:
            copy = state.copy()
        state.apply(rng.choice(state.legal_actions()))
        step += 1
        if copy is not None and not copy.is_over:
            copy.apply(rng.choice(copy.legal_actions()))
            assert_observations_fresh(variant, copy)
    assert_observations_fresh(variant, state)


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=variant_id)
def test_an_observation_after_moves_equals_a_fresh_one(variant):
    for seed in range(2):
        players = variant.min_players + seed % (variant.max_players - variant.min_players + 1)
        play_observing(variant, players, seed)


def test_an_edition_whose_moves_reach_other_seats_does_not_inherit_the_shortcut():
    assert BoardState.MOVES_CHANGE_ONLY_THE_MOVER
    assert not GenerousState.MOVES_CHANGE_ONLY_THE_MOVER
    for seed in range(3):
        play_observing(GENEROUS, 2, seed)


def test_an_observation_is_its_own_a_bot_changing_it_changes_no_other():
    state = all_variants()["usa"].new_game(2, 5)
    rng = random.Random(5)
    while len(state.observation(0).claimed) < 3:
        state.apply(rng.choice(state.legal_actions()))
    seen = state.observation(0)
    seen.claimed.clear()
    seen.hand.clear()
    assert state.observation(0) == state.observation(0)
    assert len(state.observation(0).claimed) >= 3
    assert state.observation(1).claimed == state.observation(0).claimed

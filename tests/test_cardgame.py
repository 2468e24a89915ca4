"""Ticket to Ride: The Card Game: every rule of the issue, edge cases included, the exact
ticket search against brute force, property tests over random games, and the bots through
the referee."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import IllegalActionError
from arena.engine.cardgame import CardTicket, best_ticket_set
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant, new_game

CG = get_variant("cardgame")
COLOURS = CG.rules.colours
W = len(COLOURS)


def c(name: str) -> int:
    return W if name == "wild" else COLOURS.index(name)


def total_cards(state) -> int:
    return (
        len(state._deck)
        + sum(1 for x in state._display if x >= 0)
        + sum(state._discards)
        + sum(map(sum, state._hands))
        + sum(map(sum, state._track))
        + sum(g[0] + g[1] for yard in state._yard for g in yard)
    )


def started(players=2, seed=1, keep="keep 0 1 2 3 4 5"):
    state = new_game("cardgame", players, seed)
    while state.phase == "setup_tickets":
        state.apply(keep)
    return state


def hand(state, seat, **cards):
    """Exactly these cards in ``seat``'s hand; the rest of its hand goes to the deck's bottom."""
    h = state._hands[seat]
    for card, n in enumerate(h):
        state._deck[:0] = [card] * n
        h[card] = 0
    for name, n in cards.items():
        for _ in range(n):
            state._deck.remove(c(name))
        h[c(name)] = n


def yard(state, seat, colour, cards, wilds=0):
    """Put a group in ``seat``'s Train Yard, taken from the deck."""
    for card, n in ((c(colour), cards), (W, wilds)):
        for _ in range(n):
            state._deck.remove(card)
    state._yard[seat][c(colour)] = [cards, wilds]


# -- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    state = new_game("cardgame", players, 3)
    assert total_cards(state) == 96
    assert all(sum(h) == 8 and h[W] >= 1 for h in state._hands)
    assert sum(1 for x in state._display if x >= 0) == 5
    assert all(len(o) == 6 for o in state._offers)
    assert len(state.legal_actions()) == 63  # keep 1 to 6 of 6
    assert [b for b, _ in state.board.big_cities] == [
        "seattle",
        "los-angeles",
        "chicago",
        "dallas",
        "new-york",
        "miami",
    ]
    with pytest.raises(ValueError, match="2-4 players"):
        new_game("cardgame", 5, 1)


def test_initial_returns_are_shuffled_back_once_everyone_has_chosen():
    state = new_game("cardgame", 2, 5)
    state.apply("keep 0")
    assert len(state._ticket_deck) == 46 - 12
    assert state.observation(1)["public"][0]["tickets"] is None  # hidden until all chose
    state.apply("keep 0 1")
    assert len(state._ticket_deck) == 46 - 3 and state.phase == "turn"


# -- phase 1 ----------------------------------------------------------------------------------


def test_phase_one_moves_one_card_of_every_group_from_the_second_turn_on():
    state = started()
    first = state.to_move
    hand(state, first, red=3, blue=1, green=1, white=1)
    state.apply("play red 2")  # first turn: no phase 1
    state.apply("draw deck")
    state.apply("draw deck")
    assert state._yard[first][c("red")] == [1, 0] and state._track[first][c("red")] == 1
    assert state.observation(first)["public"][first]["track_size"] == 1
    state.apply("play blue green white")
    state.apply("draw deck")
    state.apply("draw deck")
    assert state._yard[first][c("red")] == [0, 0]
    assert sum(state._track[first]) == 5 and state._track[first][c("blue")] == 1


def test_phase_one_moves_a_coloured_card_before_the_locomotives():
    state = started()
    seat = state.to_move
    state._played[seat] = True
    state._yard[seat][c("red")] = [1, 2]
    state._deck.remove(c("red"))
    for _ in range(2):
        state._deck.remove(W)
    state._begin_turn()
    assert state._yard[seat][c("red")] == [0, 2] and state._track[seat][c("red")] == 1
    state._begin_turn()
    assert state._yard[seat][c("red")] == [0, 1] and state._track[seat][W] == 1


# -- drawing ----------------------------------------------------------------------------------


def test_a_face_up_locomotive_counts_two_and_a_deck_one_counts_one():
    state = started()
    seat = state.to_move
    state._display[0] = W
    state._deck.append(c("red"))  # replaces the taken card at once
    state.apply("draw 0")
    assert state._hands[seat][W] >= 1 and state.to_move != seat
    assert state._display[0] == c("red")
    seat = state.to_move
    state._deck.append(W)
    state.apply("draw deck")
    assert state.phase == "second_draw"
    state._display[1] = W
    assert "draw 1" not in {str(a) for a in state.legal_actions()}
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 1")
    assert error.value.rule == "draw.second-wild"


def test_three_face_up_locomotives_do_not_reset_the_display():
    state = started()
    state._display[:3] = [W, W, W]
    state.apply("draw 3")
    assert state._display[:3] == [W, W, W]


# -- playing into the Train Yard --------------------------------------------------------------


def test_groups_trios_and_what_is_not_a_play():
    state = started()
    seat = state.to_move
    hand(state, seat, red=2, blue=1, green=1, wild=2)
    legal = {str(a) for a in state.legal_actions() if str(a).startswith("play")}
    assert {"play red 2", "play red 1 w1", "play red 2 w2", "play blue 1 w1"} <= legal
    assert "play blue green red" in legal
    assert not any(a.endswith(" 1") for a in legal)  # a group is 2 or more cards
    assert not any("wild" in a for a in legal)  # no locomotive in a trio
    for text in ("play red 1", "play wild 2", "play blue 2"):
        with pytest.raises(IllegalActionError):
            state.apply(text)
    state.apply("play red 1 w1")
    assert state._yard[seat][c("red")] == [1, 1] and state._hands[seat][W] == 1


def test_a_colour_in_the_own_yard_cannot_be_played_again():
    state = started()
    seat = state.to_move
    yard(state, seat, "red", 1)
    hand(state, seat, red=3, blue=1, green=1)
    legal = {str(a) for a in state.legal_actions()}
    assert not any("red" in a for a in legal if a.startswith("play"))
    with pytest.raises(IllegalActionError) as error:
        state.apply("play red 3")
    assert "already in the player's Train Yard" in error.value.reason


def test_train_robbing_needs_more_cards_and_discards_the_victims():
    state = started(players=3)
    seat = state.to_move
    victims = [(seat + 1) % 3, (seat + 2) % 3]
    yard(state, victims[0], "red", 2, 1)
    yard(state, victims[1], "red", 1)
    hand(state, seat, red=3, wild=1, blue=1, green=1)
    with pytest.raises(IllegalActionError) as error:
        state.apply("play red 3")  # 3 is not more than 3
    assert "rob" in error.value.reason
    assert "play blue green red" not in {str(a) for a in state.legal_actions()}
    discards = list(state._discards)
    state.apply("play red 3 w1")
    assert state._yard[victims[0]][c("red")] == [0, 0] == state._yard[victims[1]][c("red")]
    assert state._discards[c("red")] == discards[c("red")] + 3
    assert state._discards[W] == discards[W] + 1
    assert state._yard[seat][c("red")] == [3, 1] and total_cards(state) == 96


# -- tickets ----------------------------------------------------------------------------------


def test_drawing_four_tickets_keeping_any_number_even_none():
    state = started()
    bottom = state._ticket_deck[:2]
    state.apply("tickets")
    offer = list(state._offers[state.to_move])
    assert len(offer) == 4 and len(state.legal_actions()) == 16
    state.apply("keep none")
    assert state._ticket_deck[:4] == list(reversed(offer)) and state._ticket_deck[4:6] == bottom


# -- the end of a round ------------------------------------------------------------------------


def leave_one_card(state):
    """Only one card left in the deck: the others go to the discards (nothing is lost)."""
    for card in state._deck[:-1]:
        state._discards[card] += 1
    del state._deck[:-1]


def last_turn_taking_tickets(state):
    state.apply("tickets")
    state.apply("keep none")


def test_the_last_card_gives_every_player_one_last_turn_and_a_lone_card_can_be_drawn():
    state = started(players=3)
    drawer = state.to_move
    leave_one_card(state)
    state.apply("draw deck")  # the only card left: the draw ends with it
    assert state.to_move == (drawer + 1) % 3 and state.observation(0)["last_round"]
    for _ in range(3):  # one last turn each, the drawer included
        assert not state.is_over
        last_turn_taking_tickets(state)
    assert state.is_over  # 3 players: one pass through the deck
    assert total_cards(state) == 96


def test_four_players_play_a_second_round_keeping_hands_and_incomplete_tickets():
    state = started(players=4, keep="keep 0 1")
    first = state._tickets[0][0]
    state._ticket_deck.insert(0, state._tickets[0][1])  # its other ticket back to the deck
    state._tickets[0] = [first]
    for card, n in enumerate(state.board.tickets[first].cards):
        for _ in range(n):
            state._deck.remove(card)
        state._track[0][card] += n  # seat 0's pile completes its ticket exactly
    yard(state, 1, "red", 2)
    held_by_1 = list(state._tickets[1])
    leave_one_card(state)
    drawer = state.to_move
    state.apply("draw deck")
    hands = [sum(h) for h in state._hands]
    for _ in range(4):
        assert state._round == 1
        last_turn_taking_tickets(state)
    assert state._round == 2 and not state.is_over
    assert state._completed[0] == [first] and state._tickets[0] == []
    assert state._tickets[1] == held_by_1  # incomplete tickets stay with their players
    assert all(not any(g[0] or g[1] for g in state._yard[p]) for p in range(4))
    assert all(sum(t) == 0 for t in state._track)
    assert [sum(h) for h in state._hands] == [n + 4 for n in hands]  # hands kept, +4 each
    assert state.to_move == (drawer + 1) % 4  # left of the one who played last
    assert total_cards(state) == 96 and sum(state._discards) == 0


def test_a_second_round_resumes_left_of_the_last_player_with_four_new_cards():
    state = started(players=4, keep="keep 0")
    hands = [sum(h) for h in state._hands]
    state._end_round(2)
    assert state._round == 2 and state.to_move == 3
    assert [sum(h) for h in state._hands] == [n + 4 for n in hands]
    assert state.phase == "turn" and total_cards(state) == 96


# -- scoring ----------------------------------------------------------------------------------


def ticket(i, points, **cards):
    return CardTicket(i, "a", "b", points, tuple(cards.get(col, 0) for col in COLOURS))


def brute_force(tickets, track):
    best = 0
    for r in range(len(tickets) + 1):
        for subset in itertools.combinations(tickets, r):
            need = [sum(t.cards[k] for t in subset) for k in range(W)]
            short = sum(max(0, n - h) for n, h in zip(need, track, strict=False))
            if short <= track[W]:
                best = max(best, sum(t.points for t in subset))
    return best


def test_locomotives_stand_in_and_each_card_serves_one_ticket():
    tickets = [ticket(1, 10, red=2), ticket(2, 6, red=1, blue=1), ticket(3, 5, green=1)]
    track = [0] * (W + 1)
    track[c("red")], track[W] = 2, 1
    chosen, points = best_ticket_set(tickets, track, W)
    assert points == 15 and sorted(t.id for t in chosen) == [1, 3]  # the locomotive: green
    track[c("blue")] = 1
    chosen, points = best_ticket_set(tickets, track, W)
    assert points == 16  # red 2 for ticket 1; red by a locomotive + blue for ticket 2


@settings(max_examples=300)
@given(st.integers(0, 2**32))
def test_the_ticket_search_is_exact(seed):
    rng = random.Random(seed)
    tickets = [
        ticket(i, rng.randint(5, 22), **{rng.choice(COLOURS): rng.randint(1, 2) for _ in range(3)})
        for i in range(rng.randint(0, 9))
    ]
    track = [rng.randint(0, 3) for _ in range(W)] + [rng.randint(0, 3)]
    chosen, points = best_ticket_set(tickets, track, W)
    assert points == sum(t.points for t in chosen) == brute_force(tickets, track)


def finish_with(state, completed, held):
    for seat in range(state.num_players):
        state._completed[seat] = list(completed.get(seat, []))
        state._tickets[seat] = list(held.get(seat, []))
        state._track[seat] = [0] * (W + 1)
    state._phase = 4  # OVER
    state._result = None
    return state.result()


def ids(state, *pairs):
    """Ticket indices by (a, b) pairs (the first such ticket)."""
    out = []
    for a, b in pairs:
        out.append(next(i for i, t in enumerate(state.board.tickets) if {t.a, t.b} == {a, b}))
    return out


def test_big_city_bonuses_go_to_the_most_tickets_and_ties_share_them():
    state = started()
    ny_chicago = ids(state, ("chicago", "new-york"))[0]  # names two big cities
    result = finish_with(state, {0: [ny_chicago]}, {})
    bonus = dict(state.board.big_cities)
    assert result.breakdown[0]["big_cities"] == bonus["chicago"] + bonus["new-york"]
    assert result.breakdown[0]["big_city_cards"] == 2
    other = next(
        i
        for i, t in enumerate(state.board.tickets)
        if i != ny_chicago and {t.a, t.b} == {"chicago", "new-york"}
    )
    result = finish_with(state, {0: [ny_chicago], 1: [other]}, {})
    assert result.breakdown[0]["big_cities"] == result.breakdown[1]["big_cities"] == 27


def test_incomplete_tickets_subtract_and_the_tie_breaks():
    state = started()
    a, b = ids(state, ("chicago", "new-york"), ("chicago", "dallas"))
    result = finish_with(state, {0: [a]}, {1: [b]})
    points = state.board.tickets
    assert result.breakdown[1]["tickets_failed"] == -points[b].points
    assert result.tie_breaks == ("completed_tickets", "big_city_cards")
    assert result.ranks == (1, 2)


# -- what each seat sees -----------------------------------------------------------------------


def test_the_observation_hides_hands_tickets_and_every_track_pile():
    state = started()
    seat = state.to_move
    state._track[seat][c("red")] = 2
    state._deck.remove(c("red"))
    state._deck.remove(c("red"))
    view = state.observation(seat)
    assert view["track"] is None and view["public"][seat]["track_size"] == 2
    peek = get_variant("cardgame-peek").new_game(2, 1)
    while peek.phase == "setup_tickets":
        peek.apply("keep 0")
    assert peek.observation(0)["track"] is not None


def hide(state, seat, rng):
    """Shuffle everything ``seat`` may not see: other hands, every track pile's content
    (its size stays), tickets and the decks."""
    other = state.copy()
    others = [p for p in range(other.num_players) if p != seat]
    visible_track = other.rules.owner_sees_track
    pool = list(other._deck)
    for p in others:
        for card, n in enumerate(other._hands[p]):
            pool += [card] * n
    for p in range(other.num_players):
        if p in others or not visible_track:
            for card, n in enumerate(other._track[p]):
                pool += [card] * n
    rng.shuffle(pool)
    for p in others:
        size = sum(other._hands[p])
        other._hands[p] = [0] * (W + 1)
        for _ in range(size):
            other._hands[p][pool.pop()] += 1
    for p in range(other.num_players):
        if p in others or not visible_track:
            size = sum(other._track[p])
            other._track[p] = [0] * (W + 1)
            for _ in range(size):
                other._track[p][pool.pop()] += 1
    other._deck = pool
    tickets = list(other._ticket_deck) + list(other._setup_returns)
    for p in others:
        tickets += other._tickets[p] + other._offers[p]
    rng.shuffle(tickets)
    for p in others:
        for pile in (other._tickets, other._offers):
            pile[p] = [tickets.pop() for _ in pile[p]]
    other._setup_returns = [tickets.pop() for _ in other._setup_returns]
    other._ticket_deck = tickets
    return other


@pytest.mark.parametrize("name", ["cardgame", "cardgame-peek"])
@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**63))
def test_random_games_keep_the_invariants(name, players, seed):
    variant = get_variant(name)
    state = variant.new_game(players, seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_over:
        assert len(actions) < 5000
        assert total_cards(state) == 96
        held = (
            len(state._ticket_deck)
            + len(state._setup_returns)
            + sum(map(len, state._tickets))
            + sum(map(len, state._offers))
            + sum(map(len, state._completed))
        )
        assert held == 46
        if rng.random() < 0.2:
            for seat in range(players):
                view = state.observation(seat)
                json.dumps(view)
                assert view == hide(state, seat, rng).observation(seat)
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(str(action))
    result = state.result()
    for row in result.breakdown:
        assert row["total"] == sum(row[k] for k in result.categories)
    again = variant.new_game(players, seed)
    for action in actions:
        again.apply(action)
    assert again.fingerprint() == state.fingerprint()


def test_random_and_heuristic_bots_play_through_the_referee(tmp_path):
    names = ("cardgame-greedy", "random", "cardgame-greedy", "random")
    entries = [BotEntry.parse(n) for n in names]
    with ProcessMatch(CG, entries, TimeControl(move_ms=3000), log_dir=tmp_path) as referee:
        outcome = referee.play(5)
    assert outcome.faults == []
    assert verify(MatchLog.from_jsonl(outcome.log.to_jsonl())).is_over
    assert outcome.result.categories == ("tickets_completed", "tickets_failed", "big_cities")


def test_a_tournament_refuses_a_bot_that_does_not_play_the_card_game(tmp_path):
    from arena.tournament.executors import LocalExecutor
    from arena.tournament.runner import TournamentRunner
    from arena.tournament.spec import SpecError, TournamentSpec
    from arena.tournament.store import ResultsStore

    spec = TournamentSpec(
        name="cg", variant="cardgame", bots=("ticket-by-ticket", "random"), players=(2,)
    )
    store = ResultsStore(tmp_path)
    with pytest.raises(SpecError, match="'ticket-by-ticket' does not play variant 'cardgame'"):
        TournamentRunner(spec, store, LocalExecutor(1), tmp_path, show_progress=False)
    store.close()

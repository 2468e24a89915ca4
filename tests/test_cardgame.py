"""Ticket to Ride: The Card Game: every rule of the issue, edge cases included, the exact
ticket search against brute force, property tests over random games, and the bots through
the referee."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import IllegalActionError
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant, new_game
from arena.variants.cardgame import CardTicket, best_ticket_set
from tests.helpers import edit, load, position, set_hand, total_cards

CG = get_variant("cardgame")
COLOURS = CG.rules.colours
W = len(COLOURS)


def started(players=2, seed=1, keep="keep 0 1 2 3 4 5"):
    state = new_game("cardgame", players, seed)
    while state.phase == "setup_tickets":
        state.apply(keep)
    return state


def hand(state, seat, **cards):
    """Exactly these cards in ``seat``'s hand, swapped with the deck."""
    return set_hand(state, seat, **cards)


def from_deck(data, counts):
    for name, n in counts.items():
        for _ in range(n):
            data["deck"].remove(name)


def yard(state, seat, colour, cards, wilds=0):
    """A group in ``seat``'s Train Yard, taken from the deck."""

    def change(data):
        from_deck(data, {colour: cards, "wild": wilds})
        data["yards"][seat][colour] = {"cards": cards, "wilds": wilds}

    return edit(state, change)


def pile(state, seat, **cards):
    """These cards added to ``seat``'s On-the-Track pile, taken from the deck."""

    def change(data):
        from_deck(data, cards)
        for name, n in cards.items():
            data["tracks"][seat][name] += n

    return edit(state, change)


def leave_cards(state, left):
    """Only ``left`` cards in the deck: the others go to the discards (nothing is lost)."""

    def change(data):
        for name in data["deck"][: len(data["deck"]) - left]:
            data["discards"][name] += 1
        del data["deck"][: len(data["deck"]) - left]

    return edit(state, change)


def legal(state):
    return [str(a) for a in state.legal_actions()]


# -- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    state = new_game("cardgame", players, 3)
    assert total_cards(state) == 96
    hands = position(state)["hands"]
    assert all(sum(h.values()) == 8 and h["wild"] >= 1 for h in hands)
    assert None not in position(state)["display"]
    assert all(len(o) == 6 for o in position(state)["offers"])
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
    assert len(position(state)["ticket_deck"]) == 46 - 12
    assert state.observation(1).public[0].tickets is None  # hidden until all chose
    state.apply("keep 0 1")
    assert len(position(state)["ticket_deck"]) == 46 - 3 and state.phase == "turn"


# -- phase 1 ----------------------------------------------------------------------------------


def test_phase_one_moves_one_card_of_every_group_from_the_second_turn_on():
    state = started()
    first = state.to_move
    state = hand(state, first, red=3, blue=1, green=1, white=1)
    state.apply("play red 2")  # first turn: no phase 1
    state.apply("draw deck")
    state.apply("draw deck")
    data = position(state)
    assert data["yards"][first]["red"] == {"cards": 1, "wilds": 0}
    assert data["tracks"][first]["red"] == 1
    assert state.observation(first).public[first].track_size == 1
    state.apply("play blue green white")
    state.apply("draw deck")
    state.apply("draw deck")
    data = position(state)
    assert "red" not in data["yards"][first]
    assert sum(data["tracks"][first].values()) == 5 and data["tracks"][first]["blue"] == 1


def test_phase_one_moves_a_coloured_card_before_the_locomotives():
    state = started()
    seat = (state.to_move + 1) % 2  # it has had a turn: phase 1 applies when its next begins
    state = yard(
        edit(state, lambda data: data["played"].__setitem__(seat, True)), seat, "red", 1, 2
    )
    state.apply("draw deck")
    state.apply("draw deck")
    data = position(state)
    assert data["yards"][seat]["red"] == {"cards": 0, "wilds": 2}
    assert data["tracks"][seat]["red"] == 1
    for _ in range(4):  # its turn and the other seat's
        state.apply("draw deck")
    data = position(state)
    assert data["yards"][seat]["red"] == {"cards": 0, "wilds": 1}
    assert data["tracks"][seat]["wild"] == 1


# -- drawing ----------------------------------------------------------------------------------


def test_a_face_up_locomotive_counts_two_and_a_deck_one_counts_one():
    state = started()
    seat = state.to_move

    def locomotive_face_up(data):
        data["deck"].remove("wild")
        data["deck"].append(data["display"][0])  # the card that was there...
        data["display"][0] = "wild"
        data["deck"].remove("red")
        data["deck"].append("red")  # ...and a red one replaces the locomotive taken

    state = edit(state, locomotive_face_up)
    wilds = position(state)["hands"][seat]["wild"]
    state.apply("draw 0")
    assert position(state)["hands"][seat]["wild"] == wilds + 1 and state.to_move != seat
    assert position(state)["display"][0] == "red"
    state = edit(
        state, lambda data: data["deck"].append(data["deck"].pop(data["deck"].index("wild")))
    )
    state.apply("draw deck")
    assert state.phase == "second_draw"

    def another_face_up(data):
        data["deck"].remove("wild")
        data["deck"].append(data["display"][1])
        data["display"][1] = "wild"

    state = edit(state, another_face_up)
    assert "draw 1" not in legal(state)
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 1")
    assert error.value.rule == "draw.second-wild"


def test_three_face_up_locomotives_do_not_reset_the_display():
    state = started()

    def three(data):
        for slot in range(3):
            data["deck"].remove("wild")
            data["deck"].insert(0, data["display"][slot])
            data["display"][slot] = "wild"

    state = edit(state, three)
    state.apply("draw 3")
    assert position(state)["display"][:3] == ["wild"] * 3


def test_the_second_card_is_optional():
    """'draws up to 2 Train cards': after one card the player may stop ('pass')."""
    state = started()
    seat = state.to_move
    before = sum(position(state)["hands"][seat].values())
    state.apply("draw deck")
    assert state.phase == "second_draw" and legal(state)[-1] == "pass"
    state.apply("pass")
    assert state.to_move != seat and state.phase == "turn"
    assert sum(position(state)["hands"][seat].values()) == before + 1
    assert position(state)["passes"] == 0, "a draw of one card is not a passed turn"


def test_with_one_card_left_only_that_card_may_be_drawn():
    state = leave_cards(started(players=3), 1)
    seat = state.to_move
    draws = [a for a in legal(state) if a.startswith("draw")]
    assert draws == ["draw deck"], "the face-up cards stay where they are"
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 2")
    assert error.value.rule == "draw.last-card"
    state.apply("draw deck")  # the last card ends the draw and starts the last turns
    assert state.to_move != seat and state.observation(0).last_round
    # Nobody may draw any more: the others draw tickets or play to their yard.
    assert not [a for a in legal(state) if a.startswith("draw")]
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 0")
    assert error.value.rule == "draw.last-card"


def test_drawing_the_second_to_last_card_leaves_only_the_last_one_as_second_card():
    state = leave_cards(started(), 2)
    state.apply("draw 0")  # replaced from the deck: one card is left
    assert [a for a in legal(state) if a.startswith("draw")] == ["draw deck"]


# -- playing into the Train Yard --------------------------------------------------------------


def test_groups_trios_and_what_is_not_a_play():
    state = started()
    seat = state.to_move
    state = hand(state, seat, red=2, blue=1, green=1, wild=2)
    plays = {a for a in legal(state) if a.startswith("play")}
    assert {"play red 2", "play red 1 w1", "play red 2 w2", "play blue 1 w1"} <= plays
    assert "play blue green red" in plays
    assert not any(a.endswith(" 1") for a in plays)  # a group is 2 or more cards
    assert not any("wild" in a for a in plays)  # no locomotive in a trio
    for text in ("play red 1", "play wild 2", "play blue 2"):
        with pytest.raises(IllegalActionError):
            state.apply(text)
    state.apply("play red 1 w1")
    data = position(state)
    assert data["yards"][seat]["red"] == {"cards": 1, "wilds": 1}
    assert data["hands"][seat]["wild"] == 1


def test_a_colour_in_the_own_yard_cannot_be_played_again():
    state = started()
    seat = state.to_move
    state = hand(yard(state, seat, "red", 1), seat, red=3, blue=1, green=1)
    assert not any("red" in a for a in legal(state) if a.startswith("play"))
    with pytest.raises(IllegalActionError) as error:
        state.apply("play red 3")
    assert "already in the player's Train Yard" in error.value.reason


def test_train_robbing_needs_more_cards_and_discards_the_victims():
    state = started(players=3)
    seat = state.to_move
    victims = [(seat + 1) % 3, (seat + 2) % 3]
    state = yard(yard(state, victims[0], "red", 2, 1), victims[1], "red", 1)
    state = hand(state, seat, red=3, wild=1, blue=1, green=1)
    with pytest.raises(IllegalActionError) as error:
        state.apply("play red 3")  # 3 is not more than 3
    assert "rob" in error.value.reason
    assert "play blue green red" not in legal(state)
    discards = position(state)["discards"]
    state.apply("play red 3 w1")
    data = position(state)
    assert "red" not in data["yards"][victims[0]] and "red" not in data["yards"][victims[1]]
    assert data["discards"]["red"] == discards["red"] + 3
    assert data["discards"]["wild"] == discards["wild"] + 1
    assert data["yards"][seat]["red"] == {"cards": 3, "wilds": 1} and total_cards(state) == 96


# -- tickets ----------------------------------------------------------------------------------


def test_drawing_four_tickets_keeping_any_number_even_none():
    state = started()
    bottom = position(state)["ticket_deck"][:2]
    state.apply("tickets")
    offer = position(state)["offers"][state.to_move]
    assert len(offer) == 4 and len(state.legal_actions()) == 16
    state.apply("keep none")
    deck = position(state)["ticket_deck"]
    assert deck[:4] == list(reversed(offer)) and deck[4:6] == bottom


# -- the end of a round: the players choose the tickets their piles complete ------------------


def last_turn_taking_tickets(state):
    state.apply("tickets")
    state.apply("keep none")


def complete_all_turns(state, players):
    """Play every seat's last turn (ticket draws, nothing kept)."""
    for _ in range(players):
        last_turn_taking_tickets(state)


def test_the_last_card_gives_every_player_one_last_turn_and_a_lone_card_can_be_drawn():
    state = leave_cards(started(players=3), 1)
    drawer = state.to_move
    state.apply("draw deck")  # the only card left: the draw ends with it
    assert state.to_move == (drawer + 1) % 3 and state.observation(0).last_round
    for _ in range(3):  # one last turn each, the drawer included
        assert not state.is_over
        last_turn_taking_tickets(state)
    assert state.is_over  # 3 players, piles completing nothing: one pass through the deck
    assert total_cards(state) == 96


def ticket_ids(state, *pairs):
    """Ticket ids by (a, b) pairs (the first such ticket)."""
    return [next(t.id for t in state.board.tickets if {t.a, t.b} == {a, b}) for a, b in pairs]


def holding(state, seat, tickets, **track):
    """``seat`` holds exactly ``tickets`` (ids) and its pile these cards."""

    def change(data):
        for piles in (data["tickets"], data["offers"]):
            for held in piles:
                data["ticket_deck"] += [t for t in held if t in tickets]
                held[:] = [t for t in held if t not in tickets]
        data["ticket_deck"] = [t for t in data["ticket_deck"] if t not in tickets]
        data["ticket_deck"] += data["tickets"][seat]
        data["tickets"][seat] = list(tickets)

    return pile(edit(state, change), seat, **track)


def cards_of(state, ticket):
    t = state.board.tickets[ticket - 1]
    return {COLOURS[c]: n for c, n in enumerate(t.cards) if n}


def to_scoring(state, players):
    """Draw the deck's last card, play every seat's last turn: the round is scored."""
    state = leave_cards(state, 1)
    state.apply("draw deck")
    complete_all_turns(state, players)
    assert state.phase == "complete_tickets"
    return state


def test_completing_tickets_is_the_players_choice():
    state = started()
    seat = state.to_move
    a, b = ticket_ids(state, ("chicago", "new-york"), ("chicago", "dallas"))
    needs = Counter(cards_of(state, a)) + Counter(cards_of(state, b))
    state = to_scoring(holding(state, seat, [a, b], **needs), 2)  # the pile completes both
    # The other seat chooses first (it played before the last player, this seat) but its
    # pile completes nothing, so it is done at once.
    assert state.to_move == seat
    view = state.observation(seat)
    assert view.track == {name: needs.get(name, 0) for name in view.track}, "its own pile"
    assert state.observation(1 - seat).track is not None, "each seat sees its own pile"
    assert sorted(legal(state)) == sorted([f"complete {a}", f"complete {b}", "pass"])
    state.apply(f"complete {b}")  # only one of the two, by choice
    assert [t.id for t in state.observation(seat).own_choice] == [b]
    assert state.observation(1 - seat).public[seat].completed == [], "shown once all chose"
    state.apply("pass")
    assert state.is_over
    assert [t.id for t in state.observation(0).public[seat].completed] == [b]
    assert [t.id for t in state.observation(seat).tickets] == [a]
    row = state.result().breakdown[seat]
    points = state.board.tickets
    assert row["tickets_completed"] == points[b - 1].points
    assert row["tickets_failed"] == -points[a - 1].points


def test_a_ticket_the_pile_cannot_complete_is_refused():
    state = started()
    seat = state.to_move
    a, b = ticket_ids(state, ("chicago", "new-york"), ("chicago", "dallas"))
    assert not Counter(cards_of(state, b)) <= Counter(cards_of(state, a))
    state = to_scoring(holding(state, seat, [a, b], **cards_of(state, a)), 2)
    assert sorted(legal(state)) == [f"complete {a}", "pass"]
    for text, rule in ((f"complete {b}", "complete.cards"), ("complete 46", "complete.ticket")):
        with pytest.raises(IllegalActionError) as error:
            state.apply(text)
        assert error.value.rule == rule
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "turn.phase"
    state.apply(f"complete {a}")
    assert state.is_over, "nothing more to complete: the seat is done, and so is the game"


def test_four_players_score_then_play_a_second_round_with_a_new_deck_and_display():
    state = started(players=4, keep="keep 0 1")
    first = position(state)["tickets"][0][0]
    state = holding(state, 0, [first], **cards_of(state, first))  # seat 0's pile completes it
    state = yard(state, 1, "red", 2)
    held_by_1 = position(state)["tickets"][1]
    state = leave_cards(state, 1)
    drawer = state.to_move
    state.apply("draw deck")
    hands = [sum(h.values()) for h in position(state)["hands"]]
    complete_all_turns(state, 4)
    assert state.phase == "complete_tickets" and state.observation(0).round == 1
    assert state.to_move == 0, "the only seat whose pile completes something"
    while state.phase == "complete_tickets":
        options = [a for a in legal(state) if a.startswith("complete")]
        state.apply(options[0] if options else "pass")
    data = position(state)
    assert data["round"] == 2 and not state.is_over
    assert data["completed"][0] == [first] and data["tickets"][0] == []
    assert data["tickets"][1] == held_by_1  # incomplete tickets stay with their players
    assert all(not yard for yard in data["yards"])
    assert all(sum(t.values()) == 0 for t in data["tracks"])
    assert [sum(h.values()) for h in data["hands"]] == [n + 4 for n in hands]  # +4 each
    assert state.to_move == (drawer + 1) % 4  # left of the one who played last
    assert sum(data["discards"].values()) == 0, "every other card is in the new deck"
    assert None not in data["display"] and total_cards(state) == 96


def test_the_second_round_discards_the_face_up_cards_too():
    """'all other Train cards ... are discarded': the display is turned anew."""
    state = leave_cards(started(players=4, keep="keep 0"), 1)

    def five_wilds(data):  # a display no fresh deal shows: the old one is easy to tell
        for name in data["display"]:
            data["discards"][name] += 1
        data["discards"]["wild"] -= 5
        data["display"] = ["wild"] * 5

    state = edit(state, five_wilds)
    state.apply("draw deck")
    complete_all_turns(state, 4)  # no pile completes anything: the choices are made at once
    data = position(state)
    assert data["round"] == 2
    assert data["display"] != ["wild"] * 5, "five new cards are turned face up"
    # The new display came from the shuffled deck: the old five joined that deck.
    assert (Counter(data["deck"]) + Counter(data["display"]))["wild"] >= 5
    assert total_cards(state) == 96


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
    track[COLOURS.index("red")], track[W] = 2, 1
    chosen, points = best_ticket_set(tickets, track, W)
    assert points == 15 and sorted(t.id for t in chosen) == [1, 3]  # the locomotive: green
    track[COLOURS.index("blue")] = 1
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
    """The result of ``state`` ended with these tickets (ids) completed and held."""

    def change(data):
        every = data["ticket_deck"] + data["setup_returns"]
        for piles in (data["tickets"], data["offers"], data["completed"]):
            for p in piles:
                every += p
                p.clear()
        data["setup_returns"] = []
        for seat in range(data["players"]):
            data["completed"][seat] = list(completed.get(seat, []))
            data["tickets"][seat] = list(held.get(seat, []))
        taken = {t for ids in (*completed.values(), *held.values()) for t in ids}
        data["ticket_deck"] = [t for t in every if t not in taken]
        data["phase"] = "over"

    return edit(state, change).result()


def test_big_city_bonuses_go_to_the_most_tickets_and_ties_share_them():
    state = started()
    ny_chicago = ticket_ids(state, ("chicago", "new-york"))[0]  # names two big cities
    result = finish_with(state, {0: [ny_chicago]}, {})
    bonus = dict(state.board.big_cities)
    assert result.breakdown[0]["big_cities"] == bonus["chicago"] + bonus["new-york"]
    assert result.breakdown[0]["big_city_cards"] == 2
    other = next(
        t.id
        for t in state.board.tickets
        if t.id != ny_chicago and {t.a, t.b} == {"chicago", "new-york"}
    )
    result = finish_with(state, {0: [ny_chicago], 1: [other]}, {})
    assert result.breakdown[0]["big_cities"] == result.breakdown[1]["big_cities"] == 27


def test_incomplete_tickets_subtract_and_the_tie_breaks():
    state = started()
    a, b = ticket_ids(state, ("chicago", "new-york"), ("chicago", "dallas"))
    result = finish_with(state, {0: [a]}, {1: [b]})
    points = state.board.tickets
    assert result.breakdown[1]["tickets_failed"] == -points[b - 1].points
    assert result.tie_breaks == ("completed_tickets", "big_city_cards")
    assert result.ranks == (1, 2)


# -- what each seat sees -----------------------------------------------------------------------


def test_the_observation_hides_hands_tickets_and_every_track_pile():
    state = started()
    seat = state.to_move
    state = pile(state, seat, red=2)
    view = state.observation(seat)
    assert view.track is None and view.public[seat].track_size == 2
    peek = get_variant("cardgame-peek").new_game(2, 1)
    while peek.phase == "setup_tickets":
        peek.apply("keep 0")
    assert peek.observation(0).track is not None


def hide(state, seat, rng):
    """Shuffle everything ``seat`` may not see: other hands, the content of every track pile
    it cannot see into (its size stays), the other seats' tickets and the decks. While a
    round is scored the other seats' tickets and piles stay (their choices depend on them)."""
    data = position(state)
    others = [p for p in range(state.num_players) if p != seat]
    scoring = data["phase"] == "complete_tickets"
    hidden_tracks = [
        p
        for p in range(state.num_players)
        if not scoring and (p in others or not state.rules.owner_sees_track)
    ]
    cards = list(data["deck"])
    for counts in [data["hands"][p] for p in others] + [data["tracks"][p] for p in hidden_tracks]:
        cards += Counter(counts).elements()
    rng.shuffle(cards)
    for counts in [data["hands"][p] for p in others] + [data["tracks"][p] for p in hidden_tracks]:
        size = sum(counts.values())
        counts.update(dict.fromkeys(counts, 0))
        for _ in range(size):
            counts[cards.pop()] += 1
    data["deck"] = cards
    piles = [data["setup_returns"]] + [data["offers"][p] for p in others]
    if not scoring:
        piles += [data["tickets"][p] for p in others]
    tickets = list(data["ticket_deck"])
    for held in piles:
        tickets += held
    rng.shuffle(tickets)
    for held in piles:
        held[:] = [tickets.pop() for _ in held]
    data["ticket_deck"] = tickets
    return load(state, data)


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
        if rng.random() < 0.05:
            assert total_cards(state) == 96
            data = position(state)
            tickets = data["ticket_deck"] + data["setup_returns"]
            for piles in (data["tickets"], data["offers"], data["completed"]):
                tickets += [t for held in piles for t in held]
            assert sorted(tickets) == list(range(1, 47))
            for seat in range(players):
                view = state.observation(seat)
                msgspec.json.encode(view)
                assert view == hide(state, seat, rng).observation(seat)
            if state.phase != "setup_tickets":
                seat = rng.randrange(players)
                assert state.resample(seat, rng).observation(seat) == state.observation(seat)
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

"""A person's games are a person's, not a bot's: listed as what they are, off the boards and
the site's bot pages, and told in the second person ("you draw"); the ``arena`` command as a
user runs it on a real store."""

from __future__ import annotations

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from arena.tournament.views import PERSON_KIND
from leaderboards.replay import BoardFacts, board_drawing, describe, game_over_words
from leaderboards.site import slug
from tests.journey import Journey


def finished(idx: int, bots: tuple[str, ...], ranks: tuple[int, ...]) -> MatchResult:
    return MatchResult(
        idx=idx,
        variant="usa",
        seed=idx,
        bots=bots,
        scores=tuple(100 - 10 * r for r in ranks),
        ranks=ranks,
        engine_ranks=ranks,
        faults=(None,) * len(bots),
        breakdown=({},) * len(bots),
        worker="test",
    )


def test_a_persons_games_are_listed_as_such_and_have_no_bot_page_nor_a_place_on_the_boards(
    tmp_path,
):
    with ResultsStore(tmp_path / "arena-data") as store:
        ranked = store.tournament("ranked", "ranked", {"format": "round-robin", "variant": "usa"})
        store.record_many(ranked, [finished(i, ("random", "planner"), (2, 1)) for i in range(3)])
        # What 'arena play --human' stores (arena.server.local.LocalSite.store_game).
        person = store.tournament("human-play", "human-play", {"kind": PERSON_KIND})
        store.record_many(person, [finished(i, ("you", "random"), (1, 2)) for i in range(2)])
    arena = Journey(tmp_path)

    listed = arena("tournament", "list")
    assert listed.code == 0, listed.text
    rows = [line.split() for line in listed.out.splitlines()]
    assert next(r for r in rows if r[:1] == ["ranked"])[:3] == ["ranked", "usa", "round-robin"]
    assert not any(r[:1] == ["human-play"] for r in rows), "not a row of the tournament table"
    assert "human-play: 2 games played by a person ('arena play --human')" in listed.out
    shown = arena("tournament", "show", "human-play")
    assert shown.code == 0 and "played by a person" in shown.out, shown.text

    board = arena("leaderboard", "--format", "csv")
    assert board.code == 0, board.text
    assert [line.split(",")[1] for line in board.out.splitlines()[1:]] == ["planner", "random"]
    assert arena("site", "site").code == 0
    assert (tmp_path / "site" / "bots" / f"{slug('random')}.html").exists()
    assert not (tmp_path / "site" / "bots" / f"{slug('you')}.html").exists()
    assert "you" not in (tmp_path / "site" / "usa" / "index.html").read_text().split()


def test_a_persons_moves_are_said_to_them():
    facts = BoardFacts(board_drawing("usa"))
    view = {"display": ["red"] * 5, "public": [{}, {}]}
    assert describe("draw deck", 0, "you", facts, view, view) == "you draw a card from the deck"
    assert describe("draw deck", 1, "ann", facts, view, view) == "ann draws a card from the deck"
    assert describe("draw 2", 0, "you", facts, view, view) == "you take the face-up red (slot 2)"
    assert describe("keep 1 2", 0, "you", facts, view, view) == "you keep 2 tickets"
    assert describe("tickets", 0, "you", facts, view, view) == "you draw destination tickets"
    claim = describe("claim 1 w2", 0, "you", facts, view, view)
    assert claim.startswith("you claim ") and " with " in claim, claim
    assert game_over_words(["you", "random"], {"ranks": [1, 2]}, [90, 40]) == (
        "game over: you win (you 90, random 40)"
    )
    assert game_over_words(["planner", "you"], {"ranks": [1, 2]}, [90, 40]).startswith(
        "game over: planner wins"
    )

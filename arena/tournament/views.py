"""Which stored tournaments the leaderboards count: rankings, not tests or people's games.

Every stored tournament is one of three kinds, read from its stored description:

- a **test** (format ``sprt``: what ``arena test`` runs) asks whether one bot is stronger
  than another; its games are left off the leaderboards unless asked (``arena
  leaderboard --include-tests``, ``arena site --include-tests``), so a test of a new
  version never moves the boards of bots it did not play;
- a **person's games** (``arena play --human``, the ``/play`` page) have a person in a
  seat, without a clock: never on the leaderboards, and the person gets no bot page;
- everything else is a **ranking** (round-robin, duplicate, ladder): on the boards.

The store filters its queries by tournament id (``ResultsStore.left_out``); the
leaderboards' rating checkpoints hold the default view only (``leaderboards.checkpoints``).
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["ranking", "test", "person"]
PERSON_KIND = "person vs bots"  # the stored description of a person's games ("kind")


def kind_of(spec: dict[str, Any]) -> Kind:
    """What a tournament with this stored description is."""
    if spec.get("kind") == PERSON_KIND:
        return "person"
    if spec.get("format") == "sprt":
        return "test"
    return "ranking"


def on_boards(spec: dict[str, Any], include_tests: bool = False) -> bool:
    """Whether the leaderboards count this tournament's games."""
    kind = kind_of(spec)
    return kind == "ranking" or (include_tests and kind == "test")

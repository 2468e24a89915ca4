"""The deadline in force: the competition file's, unless an admin moved it on ``/admin``
since the file last set it (the later word wins: editing the file's deadline and
restarting overrides a move made on the page before).

A moved deadline reopens a competition whose final has run: submissions and the
ladder resume until the new deadline, when a new final (the board's next round) is
played; the old one is kept as history (``Accounts.final_rounds``).
"""

from __future__ import annotations

import datetime
import json

from arena.server.accounts import Accounts
from arena.server.competition import Competition

KEY = "deadline"


def stamp(moment: datetime.datetime | None) -> str:
    """How a deadline is stored and compared: ISO 8601 in UTC; '' for none."""
    return moment.astimezone(datetime.UTC).isoformat() if moment else ""


class Deadline:
    """The competition's deadline, read anew at each question (an admin may move it while
    the server runs; the web and worker processes both see the change at once)."""

    def __init__(self, competition: Competition, accounts: Accounts) -> None:
        self.competition = competition
        self.accounts = accounts

    def current(self) -> datetime.datetime | None:
        given = self.competition.final.deadline
        found = self.accounts.setting(KEY)
        if found:
            moved = json.loads(found)
            if moved["file"] == stamp(given):  # the file has not changed since the move
                when = moved["deadline"]
                return datetime.datetime.fromisoformat(when) if when else None
        return given

    def closed(self, now: datetime.datetime | None = None) -> bool:
        """Whether the deadline in force has passed: no more submissions, the final plays."""
        deadline = self.current()
        return deadline is not None and (now or datetime.datetime.now(datetime.UTC)) >= deadline

    def move(self, deadline: datetime.datetime | None) -> None:
        """An admin's new deadline (None: the ladder runs without end), in force until the
        competition file's deadline changes."""
        moved = {"deadline": stamp(deadline), "file": stamp(self.competition.final.deadline)}
        self.accounts.set_setting(KEY, json.dumps(moved))

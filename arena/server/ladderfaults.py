"""Ladder faults per bot: each playing version's recent ladder matches and forfeits by
fault code, and a flag on a version that forfeits most of its recent games.

A bot that crashes in every game sinks to the bottom of its board with nothing else to
say so: its owner may not look, and the organiser has no list of such bots. The flag is
shown on ``/admin``, to the owner on ``/me`` and on the bot's page, and written once to
``server.log`` when a version becomes flagged (again once if it clears and is flagged
anew). A watcher thread checks after every change of the stores, so the log line comes
without anyone opening a page.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.server.seatlogs import fault_reason
from arena.tournament.store import BotFilter

if TYPE_CHECKING:
    from arena.server.host import Host

log = logging.getLogger("arena.host")
RECENT = 50  # ladder matches of each playing version counted on /admin
WINDOW = 20  # the newest matches the flag looks at
AT_LEAST = 10  # games played in the window before a version can be flagged
CHECK_SECONDS = 10.0  # how often the watcher looks for a change of the stores


@dataclass
class BotFaults:
    """One playing version's recent ladder record."""

    label: str  # USER.BOT@N
    owner: str
    played: int = 0  # of its RECENT newest (voided matches left out)
    forfeits: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    window: int = 0  # its WINDOW newest
    window_forfeits: int = 0
    common: str = ""  # the most frequent code in the window
    reason: str = ""  # that code's newest forfeit, in one line (the owner's and admins')

    @property
    def key(self) -> str:
        return self.label.rpartition("@")[0]

    @property
    def bot(self) -> str:
        return self.key.partition(".")[2]

    @property
    def flagged(self) -> bool:
        return flagged(self.window, self.window_forfeits)

    def by_code(self) -> list[tuple[str, int]]:
        return sorted(self.codes.items(), key=lambda item: (-item[1], item[0]))

    def notice(self) -> str:
        """The flag in one sentence for the owner and the log."""
        return (
            f"your bot {self.bot} ({self.label}) forfeited {self.window_forfeits} of its last "
            f"{self.window} games: most often {self.reason or self.common}"
        )


def flagged(played: int, forfeits: int) -> bool:
    """Whether a record of ``forfeits`` in ``played`` newest games is to be flagged: more
    than half of them, with at least ``AT_LEAST`` played."""
    return played >= AT_LEAST and 2 * forfeits > played


def ladder_faults(host: Host) -> list[BotFaults]:
    """Every playing version's recent ladder faults, most forfeits in the window first."""
    tournaments = [host.competition.ladder_name(*board) for board in host.competition.boards]
    voided = host.accounts.voided()
    found = []
    for label, owner in sorted(host.accounts.playing().items()):
        _, matches = host.store.bot_matches([label], tournaments, BotFilter(), RECENT, 0)
        record = BotFaults(label, owner)
        newest: dict[str, tuple[int, int, str | None]] = {}  # code: match, seat, detail
        window_codes: Counter[str] = Counter()
        for match in (m for m in matches if m["match_id"] not in voided):  # newest first
            seat = match["seats"][match["seat"]]
            code = seat["fault"]
            in_window = record.played < WINDOW
            record.played += 1
            record.window += in_window
            if not code:
                continue
            record.forfeits += 1
            record.codes[code] += 1
            if in_window:
                record.window_forfeits += 1
                window_codes[code] += 1
                newest.setdefault(code, (match["match_id"], match["seat"], seat["fault_detail"]))
        if window_codes:
            record.common = min(window_codes, key=lambda code: (-window_codes[code], code))
            if record.flagged:
                match_id, seat_no, detail = newest[record.common]
                record.reason = fault_reason(host, match_id, seat_no, record.common, detail)
        found.append(record)
    found.sort(key=lambda r: (-r.window_forfeits, r.label))
    return found


class FaultWatch:
    """The ladder faults as of the stores' last change, and which versions were flagged
    when last looked at (so each becoming flagged is logged once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.logged: set[str] = set()

    def report(self, host: Host) -> list[BotFaults]:
        """The current records (made once per change of the stores), logging each version
        newly flagged."""
        records = host.shared(("ladder-faults",), lambda: (ladder_faults(host), True))
        with self.lock:
            now = {r.label for r in records if r.flagged}
            for record in records:
                if record.label in now - self.logged:
                    log.warning(
                        "bot %s of %s flagged: forfeited %d of its last %d ladder games, "
                        "most often %s",
                        record.label, record.owner, record.window_forfeits, record.window,
                        record.reason or record.common,
                    )  # fmt: skip
            self.logged = now
        return records

    def flags_of(self, host: Host, owner: str, key: str | None = None) -> list[BotFaults]:
        """The flagged versions of ``owner`` (of one bot, with ``key``)."""
        return [
            r
            for r in self.report(host)
            if r.flagged and r.owner == owner and (key is None or r.key == key)
        ]

    def watch(self, host: Host) -> None:
        """Look after each change of the stores, until the server stops (a daemon thread)."""
        while not host.stopping.is_set():
            try:
                self.report(host)
            except Exception:  # a store being replaced, a full disk: looked at again later
                log.exception("checking the ladder's faults failed; checked again shortly")
            threading.Event().wait(CHECK_SECONDS)

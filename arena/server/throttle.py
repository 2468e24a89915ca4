"""Sign-in delays that slow guessing without ever locking anyone out, and the sign-up count
per address; both kept in the ``failures`` table of ``accounts.sqlite`` (key, time).

A lock that a stranger can trigger is a denial of service, so nothing here locks: failed
sign-ins make the next try wait, the wait doubling per failure (free for the first
``FREE_FAILURES``, then 1 s, 2 s, 4 s ... up to ``MAX_WAIT``), and a refusal is answered at
once ("try again in N seconds"), never by holding a server thread. What the wait is
counted on (OWASP's "device cookie" scheme):

- a browser holding a valid device cookie for the name (given at each successful sign-in):
  that device's own failures only. A stranger hammering the name, even from the same
  address, never slows it.
- any other browser: the failures of that name from that address (``signin:``), and the
  address's failures over every name (``address:``, a guard against password spraying
  that starts after ``ADDRESS_FREE`` failures in ``ADDRESS_WINDOW``: far more than a class
  behind one school NAT makes).

Failures are forgotten after ``WINDOW`` (or at a success, or when an admin clears them);
the table holds at most ``MAX_ROWS`` rows (the oldest go first), so it stays bounded
whatever the traffic.
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

FREE_FAILURES = 3  # failures of one name from one address (or one device) before any wait
ADDRESS_FREE = 100  # failures from one address over every name, in ADDRESS_WINDOW
ADDRESS_WINDOW = 3600.0
MAX_WAIT = 300  # seconds: the longest a wait grows
WINDOW = 86400.0  # failures older than this are forgotten (and deleted)
SIGNUP_WINDOW = 15 * 60  # limits.signups_per_address counts sign-ups over this
MAX_ROWS = 100_000
# How long one second of delay lasts. Tests shrink it (ARENA_HOST_THROTTLE_SECOND=0.1): the
# waits a person is told stay in whole seconds (1, 2, 4 ...), and pass ten times faster.
SECOND = float(os.environ.get("ARENA_HOST_THROTTLE_SECOND", "1"))


def wait_after(failures: int, free: int) -> int:
    """Seconds to wait after ``failures`` failures when the first ``free`` cost nothing."""
    if failures <= free:
        return 0
    return min(MAX_WAIT, 2 ** min(failures - free - 1, 30))


def signin_key(name: str, address: str) -> str:
    return f"signin:{name.lower()[:64]} {address}"


def device_key(name: str, device: str) -> str:
    return f"device:{name.lower()[:64]} {device}"


def address_key(address: str) -> str:
    return f"address:{address}"


def signup_key(address: str) -> str:
    return f"signup:{address}"


def keys_for(name: str, address: str, device: str | None) -> list[str]:
    """What a failed sign-in counts against, and what its next try is judged by."""
    if device is not None:
        return [device_key(name, device)]
    return [signin_key(name, address), address_key(address)]


class Throttle:
    """The ``failures`` table seen as waits; ``db`` and ``transaction`` are the accounts
    store's (one connection per thread)."""

    def __init__(
        self,
        db: Callable[[], sqlite3.Connection],
        transaction: Callable[[], AbstractContextManager[sqlite3.Connection]],
    ) -> None:
        self.db, self.transaction = db, transaction

    def wait(self, keys: Iterable[str]) -> int:
        """Whole seconds until a sign-in judged by ``keys`` may be tried (0: now)."""
        now = time.time()
        longest = 0.0
        for last, seconds in self._counted(keys, now):
            longest = max(longest, last + seconds * SECOND - now)
        return math.ceil(longest / SECOND) if longest > 0 else 0

    def penalty(self, keys: Iterable[str]) -> int:
        """The wait the last failures of ``keys`` set, in whole seconds (what a failure's
        answer says: it was just counted)."""
        return max((seconds for _, seconds in self._counted(keys, time.time())), default=0)

    def _counted(self, keys: Iterable[str], now: float) -> list[tuple[float, int]]:
        """(the last failure's time, the wait the failures set) of each key that has any."""
        found = []
        for key in keys:
            free, window = (
                (ADDRESS_FREE, ADDRESS_WINDOW) if key.startswith("address:") else
                (FREE_FAILURES, WINDOW)
            )  # fmt: skip
            query = "SELECT COUNT(*), MAX(at) FROM failures WHERE key = ? AND at > ?"
            count, last = self.db().execute(query, (key, now - window)).fetchone()
            if count and last is not None:
                found.append((last, wait_after(count, free)))
        return found

    def fail(self, keys: Iterable[str]) -> None:
        """Count a failure against ``keys``."""
        now = time.time()
        with self.transaction() as db:
            db.executemany("INSERT INTO failures (key, at) VALUES (?, ?)", [(k, now) for k in keys])
            self._prune(db, now)

    def clear(self, keys: Iterable[str]) -> None:
        """Forget the failures of ``keys`` (a success: the next mistake starts afresh)."""
        with self.transaction() as db:
            db.executemany("DELETE FROM failures WHERE key = ?", [(k,) for k in keys])

    def clear_account(self, name: str) -> int:
        """Forget every failed sign-in of ``name``, from any address or device; how many."""
        removed = 0
        with self.transaction() as db:
            for prefix in (signin_key(name, ""), device_key(name, "")):
                removed += db.execute(
                    "DELETE FROM failures WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)
                ).rowcount
        return removed

    def failed_signins(self) -> Counter[str]:
        """Failed sign-ins still counted, per account name (lowercase), for the admin page."""
        rows = self.db().execute(
            "SELECT key FROM failures WHERE (substr(key, 1, 7) = 'signin:'"
            " OR substr(key, 1, 7) = 'device:') AND at > ?",
            (time.time() - WINDOW,),
        )
        return Counter(key[7:].rpartition(" ")[0] for (key,) in rows)

    def count(self, key: str, seconds: float) -> int:
        """Events of ``key`` over the last ``seconds`` (sign-ups from an address)."""
        query = "SELECT COUNT(*) FROM failures WHERE key = ? AND at > ?"
        return int(self.db().execute(query, (key, time.time() - seconds)).fetchone()[0])

    def record(self, key: str) -> None:
        now = time.time()
        with self.transaction() as db:
            db.execute("INSERT INTO failures (key, at) VALUES (?, ?)", (key, now))
            self._prune(db, now)

    @staticmethod
    def _prune(db: sqlite3.Connection, now: float) -> None:
        """Old rows go, and at most ``MAX_ROWS`` stay (rowids grow with each insert)."""
        db.execute("DELETE FROM failures WHERE at < ?", (now - WINDOW,))
        db.execute(
            "DELETE FROM failures WHERE rowid <= (SELECT MAX(rowid) FROM failures) - ?",
            (MAX_ROWS,),
        )

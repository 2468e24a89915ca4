"""How fast a board's ladder plays: at most ``matches_per_hour`` matches in any hour,
spread over it rather than played in one burst.

Two rules, both by the pacer's own clock (a test gives it a fast one): a bucket that
fills at ``matches_per_hour`` and holds five minutes' worth (so matches come at an even
pace, and a ladder that was idle may catch up a little), and a window of the matches
started in the last hour (so no hour ever holds more than the limit, a burst included).
At start the window is filled from the board's matches stored in the last hour, so a
restart does not buy a second hour's worth.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable

HOUR = 3600.0
BURST_SHARE = 12  # the bucket holds an hour's matches / BURST_SHARE: five minutes' worth


class Pacer:
    """Counts the matches a board may start now; ``spend`` records the ones it starts."""

    def __init__(
        self,
        matches_per_hour: int,
        clock: Callable[[], float] = time.time,
        started: Iterable[float] = (),
    ) -> None:
        self.per_hour = matches_per_hour
        self.clock = clock
        self.burst = max(1, matches_per_hour // BURST_SHARE)
        now = clock()
        self.started: deque[float] = deque(sorted(t for t in started if now - t < HOUR))
        self.tokens = float(max(0, self.burst - len(self.started)))
        self.filled_at = now

    def _refill(self, now: float) -> None:
        self.tokens = min(
            float(self.burst), self.tokens + (now - self.filled_at) * self.per_hour / HOUR
        )
        self.filled_at = now
        while self.started and now - self.started[0] >= HOUR:
            self.started.popleft()

    def allowance(self) -> int:
        """How many matches may start now (0: wait)."""
        self._refill(self.clock())
        return max(0, min(int(self.tokens), self.per_hour - len(self.started)))

    def spend(self, count: int) -> None:
        """Note that ``count`` matches start now."""
        now = self.clock()
        self._refill(now)
        self.tokens -= count
        self.started.extend([now] * count)

    def wait_seconds(self) -> float:
        """How long until one more match may start (0: now)."""
        now = self.clock()
        self._refill(now)
        bucket = max(0.0, (1 - self.tokens) * HOUR / self.per_hour)
        window = 0.0
        if len(self.started) >= self.per_hour:
            window = HOUR - (now - self.started[len(self.started) - self.per_hour])
        return max(bucket, window)

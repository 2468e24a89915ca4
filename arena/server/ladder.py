"""The competition's ladder: for each ranked variant and player count a tournament that
never ends, fed wave by wave to the same executors and store as ``arena tournament run``.

Each board is an ``arena.tournament.runner.TournamentRunner`` (a ladder whose pool
is the versions that play now): it holds the tournament's lease, plans each wave
before playing it, stores every match as it lands and resumes after a kill exactly
as a tournament does. What differs is who meets whom (``next_table``): a focus
bot drawn with weight σ² / (1 + games), so new and uncertain bots play more;
opponents near it in μ; never two bots of one participant (or of one team) at one
table (Halite III's rule); seats rotated with the table's index.

A ranked challenge's games are this tournament's matches too (``reserve``): planned at
the next free indices, played by the challenge's runner and stored and rated here, so
every reader of the board counts them as it counts the ladder's own. The ladder plays
only the tables it planned itself (their seeds say so).
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import trueskill

from arena.server import boardstate
from arena.server.competition import Competition
from arena.server.pacing import Pacer
from arena.tournament.ladder import FLOOR, SPREAD
from arena.tournament.ratings import ENV, rate
from arena.tournament.results import MatchResult
from arena.tournament.runner import TournamentRunner
from arena.tournament.schedule import MatchSpec, derive_seed
from arena.tournament.spec import OPEN_POOL, TournamentSpec
from arena.tournament.store import ResultsStore
from leaderboards.standings import GAMES

ENDLESS = 10**9 - 1  # a ladder's "games": it stops at the deadline, not at a count


def next_table(
    pool: Mapping[str, str],
    players: int,
    ratings: Mapping[str, trueskill.Rating],
    games: Mapping[str, int],
    rng: random.Random,
    index: int,
) -> tuple[str, ...] | None:
    """Who sits where at the next table, from ``pool`` (bot -> its side: its team, else
    its owner); None when fewer than ``players`` sides have a bot that plays."""
    bots = sorted(pool)
    if len({pool[b] for b in bots}) < players:
        return None
    rating = {b: ratings.get(b, ENV.create_rating()) for b in bots}
    focus = rng.choices(bots, weights=[rating[b].sigma ** 2 / (1 + games.get(b, 0)) for b in bots])[
        0
    ]
    chosen = [focus]
    while len(chosen) < players:
        taken = {pool[b] for b in chosen}
        others = [b for b in bots if pool[b] not in taken]
        weights = [math.exp(-abs(rating[b].mu - rating[focus].mu) / SPREAD) + FLOOR for b in others]
        chosen.append(rng.choices(others, weights=weights)[0])
    turn = index % players  # seats rotated
    return tuple(chosen[turn:] + chosen[:turn])


WAVE = 8  # in the tournament's description (its fingerprint): the same for every run


def ladder_spec(competition: Competition, variant: str, players: int) -> TournamentSpec:
    return TournamentSpec(
        name=competition.ladder_name(variant, players),
        variant=variant,
        bots=(OPEN_POOL,),
        players=(players,),
        format="ladder",
        games=ENDLESS,
        seed=competition.seed,
        time_control=competition.time_control,
        ladder_wave=WAVE,
    )


class BoardLadder(TournamentRunner):
    """One board's endless ladder; ``play_wave`` plans (if needed) and plays one wave.

    ``pool`` says which bots play now and whose they are (their side: team or owner);
    ``voided`` the matches an admin voided (left out of the ratings tables are chosen by)."""

    def __init__(
        self,
        spec: TournamentSpec,
        store: ResultsStore,
        executor,
        data_dir: Path,
        pool: Callable[[], dict[str, str]],
        voided: Callable[[], set[int]],
        should_stop: Callable[[], bool],
        wave: int = WAVE,
        matches_per_hour: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.pool = pool
        self.wave = wave  # tables planned together: enough to keep the workers busy
        self.voided = voided
        self.known_voids: set[int] = set()
        super().__init__(
            spec, store, executor, data_dir, show_progress=False, should_stop=should_stop
        )
        self.holder = store.take_lease(self.tournament_id, spec.name)
        self.pacer = None
        if matches_per_hour is not None:  # the last hour's stored matches count against it
            recent = store.latest_finishes(self.tournament_id, matches_per_hour)
            self.pacer = Pacer(matches_per_hour, clock, recent)
        self.ratings: dict[str, trueskill.Rating] = {}
        self.games: Counter[str] = Counter()
        self.skipped: set[int] = set()
        # Every index below it is played, skipped or a ranked challenge's: each wave reads
        # the plan and the stored matches from here on, not the whole tournament's.
        self.floor = 0
        self._rerate()

    def _ladder_pool(self) -> list[str]:
        return sorted(self.pool())

    def _rerate(self) -> None:
        """Ratings from every stored match but the voided ones, in rating order: the board's
        newest stored checkpoint (``arena.server.boardstate``) and the matches after it."""
        self.known_voids = set(self.voided())
        folded, _ = boardstate.resume(self.store, self.tournament_id, self.known_voids)
        self.ratings = dict(folded.board.ratings)
        self.games = Counter({bot: t[GAMES] for bot, t in folded.board.tallies.items()})

    def play_wave(self) -> bool:
        """Play what is planned and missing (a resumed wave first), else plan and play a new
        wave; False when no table can be filled (too few participants' bots play) or the
        board's pace allows none now."""
        tasks = self.wave_tasks()
        if tasks:
            self.executor.run(tasks, self)
        return bool(tasks)

    def wave_tasks(self) -> list:
        """The next wave's match tasks (planned if needed), for the caller to play with
        this ladder as their sink (the worker adds challenge matches to the same run);
        [] when no table can be filled or the board's pace allows none now."""
        if set(self.voided()) != self.known_voids:
            self._rerate()
        pool = self.pool()
        planned = self.store.planned(self.tournament_id, start=self.floor)
        done = self.store.done_indices(self.tournament_id, start=self.floor)
        todo = [
            m
            for m in planned
            if m.index not in done and m.index not in self.skipped and self._own(m)
        ]
        # A planned table whose bot stopped playing (disabled, replaced) is skipped.
        gone = [m for m in todo if not set(m.bots) <= set(pool)]
        self.skipped.update(m.index for m in gone)
        todo = [m for m in todo if m not in gone]
        if not todo:
            allowed = self.wave if self.pacer is None else min(self.wave, self.pacer.allowance())
            if allowed == 0:
                return []
            start = self.floor = self.store.next_index(self.tournament_id)
            todo = self._plan(pool, start, allowed)
            if todo and self.pacer is not None:
                self.pacer.spend(len(todo))
        else:
            self.floor = todo[0].index  # the plan comes in index order
        return [self._task(m) for m in todo]

    def _plan(self, pool: dict[str, str], start: int, count: int) -> list[MatchSpec]:
        players = self.spec.players[0]
        rng = random.Random(derive_seed(self.spec.seed, "competition-wave", start))
        games = Counter(self.games)
        wave = []
        for index in range(start, start + count):
            seats = next_table(pool, players, self.ratings, games, rng, index)
            if seats is None:
                break
            games.update(seats)
            wave.append(MatchSpec(index, derive_seed(self.spec.seed, "ladder", index), seats))
        if wave:
            self.store.plan(self.tournament_id, wave)
        return wave

    def _own(self, match: MatchSpec) -> bool:
        """Whether the ladder planned ``match`` (a ranked challenge's games are not its to play)."""
        return match.seed == derive_seed(self.spec.seed, "ladder", match.index)

    def reserve(self, matches: list[MatchSpec]) -> int:
        """Plan a ranked challenge's ``matches`` (indexed from 0) at the ladder's next free
        indices; the first of them. The ladder's next wave is planned after them."""
        start = self.store.next_index(self.tournament_id)
        self.store.plan(
            self.tournament_id, [MatchSpec(start + m.index, m.seed, m.bots) for m in matches]
        )
        return start

    def holds(self, start: int, matches: list[MatchSpec]) -> bool:
        """Whether ``matches`` are planned from ``start`` on (a reservation made before)."""
        return all(
            self.store.planned_match(self.tournament_id, start + m.index)
            == MatchSpec(start + m.index, m.seed, m.bots)
            for m in matches
        )

    def task_at(self, index: int):
        """The task of the planned match at ``index`` (a ranked challenge's), stored here."""
        match = self.store.planned_match(self.tournament_id, index)
        assert match is not None  # reserved before it is handed out
        return self._task(match)

    def _entry(self, name: str):
        self.entries.pop(name, None)  # a registration can change between waves: read it again
        return super()._entry(name)

    def result(self, result: MatchResult) -> None:
        if self.store.record(self.tournament_id, result):
            self.stored += 1
            rate([(result.bots, result.ranks)], ratings=self.ratings)
            self.games.update(result.bots)

    def failed(self, task, attempts: int, reason: str) -> None:
        self.store.record_failure(self.tournament_id, task.match.index, attempts, reason)
        self.failed_count += 1

    def release(self) -> None:
        if self.holder is not None:
            self.store.release_lease(self.tournament_id, self.holder)
            self.holder = None

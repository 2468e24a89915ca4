"""The tournament driver: plan, play on an executor, store each match as it arrives.

Every match is planned (stored in the schedule) before it is played, so a
resumed tournament plays exactly the plan of the interrupted one: the fixed
schedule of a round robin or duplicate, and for a ladder each wave as it was
drawn. The runner holds the tournament's lease while it runs (a second driver
refuses), and stops within seconds when ``should_stop`` says so.
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from arena.referee.keys import SECRET_ENV, MatchKey
from arena.referee.launch import BotEntry
from arena.referee.process import ProcessLimits
from arena.tournament import ladder
from arena.tournament.bots import bot_limits, resolve, result_label
from arena.tournament.lease import RENEW_SECONDS, Holder
from arena.tournament.matchrun import MatchTask, tournament_folder
from arena.tournament.ratings import rate
from arena.tournament.results import MatchResult
from arena.tournament.schedule import MatchSpec, fixed_schedule
from arena.tournament.spec import OPEN_POOL, SpecError, TournamentSpec
from arena.tournament.store import ResultsStore, StoreError, TournamentBusy
from arena.variants import get_variant


class Standings:
    """Running totals per bot for the live table."""

    def __init__(self) -> None:
        self.games: dict[str, int] = defaultdict(int)
        self.wins: dict[str, int] = defaultdict(int)
        self.rank_sum: dict[str, int] = defaultdict(int)
        self.forfeits: dict[str, int] = defaultdict(int)

    def add(self, result: MatchResult) -> None:
        for seat, (bot, rank) in enumerate(zip(result.bots, result.ranks, strict=True)):
            self.games[bot] += 1
            self.wins[bot] += rank == 1
            self.rank_sum[bot] += rank
            self.forfeits[bot] += result.faults[seat] is not None

    def table(self, top: int = 5) -> Table:
        """The ``top`` bots by win rate; the rest are counted ("+3 more"), so a bot out of
        sight is not taken for a bot out of the tournament."""
        more = len(self.games) - top
        caption = f"+{more} more (every bot in the standings at the end)" if more > 0 else None
        table = Table(title="standings (win rate)", expand=False, caption=caption)
        for column in ("bot", "games", "wins", "win %", "mean rank", "forfeits"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        order = sorted(self.games, key=lambda b: (-self.wins[b] / self.games[b], b))
        for bot in order[:top]:
            games = self.games[bot]
            table.add_row(
                bot,
                str(games),
                str(self.wins[bot]),
                f"{100 * self.wins[bot] / games:.0f}",
                f"{self.rank_sum[bot] / games:.2f}",
                str(self.forfeits[bot]),
            )
        return table


class TournamentRunner:
    """Runs ``spec`` on ``executor`` with results in ``store``; resumable at any point.

    It is the executor's sink: ``result`` stores a match, ``failed`` records a match
    the arena could not play, ``tick`` renews the lease and says whether to go on.
    """

    def __init__(
        self,
        spec: TournamentSpec,
        store: ResultsStore,
        executor,
        data_dir: Path,
        limits: ProcessLimits | None = None,
        console: Console | None = None,
        show_progress: bool = True,
        in_process: bool = False,
        logs_dir: Path | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        self.spec = spec
        self.in_process = in_process
        self.store = store
        self.executor = executor
        self.data_dir = Path(data_dir)
        self.logs_dir = Path(logs_dir or self.data_dir / "bot-logs").resolve()
        # The results store is off limits to every bot, whatever its command line names.
        limits = bot_limits(self.data_dir, limits)
        # The organiser's list of variables bots may see, from the tournament file.
        self.limits = replace(limits, env=(*limits.env, *spec.bot_env))
        self.console = console or Console()
        self.show_progress = show_progress
        self.should_stop = should_stop or (lambda: False)
        self.workdir = os.getcwd()
        get_variant(spec.variant).new_game(min(spec.players), 0)  # fail early: unplayable
        self.entries: dict[str, BotEntry] = {}
        for name in spec.bots:  # fail early: a bot that does not play this game
            if name == "*":
                continue
            entry = self._entry(name)
            if entry.spec is not None and not entry.spec.supports(spec.variant):
                raise SpecError(f"bot '{name}' does not play variant '{spec.variant}'")
        if OPEN_POOL in spec.bots and len(self._ladder_pool()) < max(spec.players):
            raise SpecError(
                f"the ladder's pool ('{OPEN_POOL}' and the bots named) holds "
                f"{len(self._ladder_pool())} bots; {max(spec.players)}-player games need at "
                f"least {max(spec.players)}: register more with 'arena submit' or name them"
            )
        self.tournament_id = store.tournament(spec.name, spec.fingerprint, spec.to_json())
        stored = len(store.done_indices(self.tournament_id))
        fresh = MatchKey.fresh(f"tournament:{spec.name}").secret
        self.secret = store.tournament_secret(self.tournament_id, fresh)
        # A tournament with stored matches but no key (a damage took it, or its store predates
        # keys) is keyed anew: its missing matches get new deals. Pinned, it is the same key.
        self.new_key = bool(stored) and self.secret == fresh and not os.environ.get(SECRET_ENV)
        self.standings = Standings()
        self.stored = 0  # matches stored by this run
        self.failed_count = 0  # matches this run could not play
        self.stopped = False  # should_stop() said stop before the end
        self.holder: Holder | None = None
        self.renewed = 0.0
        self.progress: Progress | None = None
        self.bar: TaskID | None = None
        self.live: Live | None = None
        self.started = 0.0

    def _entry(self, name: str):
        if name not in self.entries:
            entry = resolve(name, self.store)
            if name in self.spec.fresh_process:
                entry = replace(entry, fresh_process=True)
            self.entries[name] = entry
        return self.entries[name]

    def _task(self, match: MatchSpec) -> MatchTask:
        entries = tuple(self._entry(bot) for bot in match.bots)
        # Registered bots are stored as name@version; plugins and commands as named.
        labels = tuple(
            result_label(bot, entry) for bot, entry in zip(match.bots, entries, strict=True)
        )
        return MatchTask(
            tournament=self.spec.name,
            variant=self.spec.variant,
            match=match,
            entries=entries,
            labels=labels,
            in_process=self.in_process,
            time_control=self.spec.time_control,
            limits=self.limits,
            log_dir=str(self.logs_dir / tournament_folder(self.spec.name)),
            workdir=self.workdir,
            data_dir=str(self.data_dir),
            secret=self.secret,
            matches_per_process=self.spec.matches_per_process,
        )

    @property
    def total(self) -> int:
        """How many matches the whole tournament has."""
        return self.spec.games if self.spec.format == "ladder" else self.spec.planned_matches()

    def run(self) -> int:
        """Play every missing match; returns how many were stored by this run."""
        self.holder = self.store.take_lease(self.tournament_id, self.spec.name)
        self.renewed = time.monotonic()
        if self.new_key:
            self.console.print(
                f"note: tournament '{self.spec.name}' had lost its secret key (a damaged or "
                "old store): the matches still missing get new deals, unlike the stored ones "
                f"(set {SECRET_ENV} to pin a key and reproduce a run)",
                style="yellow",
                soft_wrap=True,
            )
        try:
            stored = self.store.results(self.tournament_id, details=False)
            for result in stored:
                self.standings.add(result)
            with self._display(len(stored)):
                if self.spec.format == "ladder":
                    self._run_ladder()
                else:
                    self._run_fixed()
            if not self.stopped and not self.store.failures(self.tournament_id):
                self.store.finish_tournament(self.tournament_id)
        finally:
            with suppress(StoreError):
                self.store.release_lease(self.tournament_id, self.holder)
        return self.stored

    def _run_fixed(self) -> None:
        self.store.plan(self.tournament_id, fixed_schedule(self.spec))
        self._play(self.store.planned(self.tournament_id))

    def _play(
        self, planned: Iterable[MatchSpec], skip: frozenset[int] | set[int] = frozenset()
    ) -> list[int]:
        """Play the planned matches not yet stored (nor in ``skip``); returns their indices."""
        done = self.store.done_indices(self.tournament_id)
        todo = [m for m in planned if m.index not in done and m.index not in skip]
        if todo and not self.should_stop():
            self.executor.run([self._task(m) for m in todo], self)
        return [m.index for m in todo]

    def _run_ladder(self) -> None:
        """Waves: play what is planned and missing, then plan the next wave from the results
        of every match before it, in schedule order, until ``games`` are planned."""
        spec = self.spec
        tried: set[int] = set()  # a match that failed in this run is not tried again in it
        while not self.stopped and not self.should_stop():
            planned = self.store.planned(self.tournament_id)
            played = self._play(planned, tried)
            if played:
                tried.update(played)
                continue
            # The next wave starts at its boundary before the first unplanned index (a plan
            # lost to damage is drawn again: the same, given the same earlier results).
            indices = {m.index for m in planned}
            first = next((i for i in range(spec.games) if i not in indices), spec.games)
            if first >= spec.games:
                return
            start = first - first % spec.ladder_wave
            history = [
                r for r in self.store.results(self.tournament_id, details=False) if r.idx < start
            ]
            ratings = rate((r.bots, r.ranks) for r in history)
            games = Counter(bot for r in history for bot in r.bots)
            count = min(spec.ladder_wave, spec.games - start)
            wave = ladder.next_wave(spec, self._ladder_pool(), ratings, games, start, count)
            self.store.plan(self.tournament_id, wave)

    def _ladder_pool(self) -> list[str]:
        """The ladder's bots; ``*`` stands for every registered bot (an open pool)."""
        pool = []
        for name in self.spec.bots:
            if name == "*":
                pool += [f"{b['name']}@{b['version']}" for b in self.store.bots()]
            else:
                pool.append(name)
        return sorted(set(pool))

    # ---------------------------------------------------------------- the executor's sink

    def result(self, result: MatchResult) -> None:
        if self.store.record(self.tournament_id, result):
            self.stored += 1
            self.standings.add(result)
        self._advance()

    def failed(self, task: MatchTask, attempts: int, reason: str) -> None:
        self.store.record_failure(self.tournament_id, task.match.index, attempts, reason)
        self.failed_count += 1
        self._advance()

    def tick(self) -> bool:
        """Renew the lease now and then; False once asked to stop."""
        if time.monotonic() - self.renewed > RENEW_SECONDS:
            self.renewed = time.monotonic()
            assert self.holder is not None  # taken before the first match
            if not self.store.renew_lease(self.tournament_id, self.holder):
                raise TournamentBusy(
                    f"another driver took tournament '{self.spec.name}' over (this one had "
                    "stopped renewing its lease); this driver stops"
                )
        if self.should_stop():
            self.stopped = True
        return not self.stopped

    # ---------------------------------------------------------------- progress display

    @contextmanager
    def _display(self, already: int) -> Iterator[None]:
        self.progress = progress = Progress(
            TextColumn(f"[bold]{self.spec.name}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} matches/min{task.fields[failed]}"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.show_progress,
        )
        self.bar = progress.add_task(
            "matches", total=self.total, completed=already, rate="-", failed=""
        )
        self.started = time.monotonic()
        self.live = (
            Live(
                self._renderable(),
                console=self.console,
                refresh_per_second=4,
                transient=True,  # gone at the end: the command prints the final standings once
            )
            if self.show_progress
            else None
        )
        if self.live is not None:
            self.live.start()
        try:
            yield
        finally:
            if self.live is not None:
                self.live.stop()  # also when stopped or failing: the terminal is restored

    def _renderable(self) -> Group:
        assert self.progress is not None  # made by _display before anything renders
        return Group(self.progress, self.standings.table())

    def _advance(self) -> None:
        minutes = (time.monotonic() - self.started) / 60
        assert self.progress is not None and self.bar is not None  # made by _display
        self.progress.update(
            self.bar,
            advance=1,
            rate=f"{self.stored / minutes:.0f}" if minutes else "-",
            failed=f", {self.failed_count} failed" if self.failed_count else "",
        )
        if self.live is not None:
            self.live.update(self._renderable())

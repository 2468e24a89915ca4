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
from rich.text import Text

from arena.referee.keys import SECRET_ENV, MatchKey
from arena.referee.launch import BotEntry
from arena.referee.process import ProcessLimits
from arena.tournament import ladder, sprt
from arena.tournament.bots import bot_limits, resolve, result_label
from arena.tournament.lease import RENEW_SECONDS, Holder
from arena.tournament.matchrun import MatchTask, tournament_folder
from arena.tournament.ratings import rate
from arena.tournament.results import MatchResult
from arena.tournament.schedule import MatchSpec, fixed_schedule, sprt_groups, sprt_roles
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
        # A sequential test: (NEW's rank, BASE's rank) of each stored match, by index.
        self.pairs: dict[int, tuple[int, int]] = {}
        self.verdict: sprt.Verdict | None = None
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
            roles=sprt_roles(match.index, match.players) if self.spec.format == "sprt" else (),
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
        if self.spec.format in ("ladder", "sprt"):  # a test: at most this many
            return self.spec.games
        return self.spec.planned_matches()

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
                self._count(result)
            with self._display(len(stored)):
                if self.spec.format == "ladder":
                    self._run_ladder()
                elif self.spec.format == "sprt":
                    self._run_sprt()
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

    def _run_sprt(self) -> None:
        """Deal groups in waves until the test decides (or ``games`` are planned): the same
        loop as the ladder's, with a stopping rule. The verdict is computed from the stored
        groups in index order, so waves played ahead of it never change it."""
        spec = self.spec
        (players,) = spec.players
        most = spec.games // players
        wave = 2 * max(1, getattr(self.executor, "workers", None) or 4)
        tried: set[int] = set()
        while not self.stopped and not self.should_stop():
            if self._decide().accepted is not None:
                return
            planned = self.store.planned(self.tournament_id)
            played = self._play(planned, tried)
            if played:
                tried.update(played)
                continue
            first = len(planned) // players  # groups are planned whole and in order
            if first >= most or any(i not in self.pairs for i in tried):
                return  # every group planned, or a match the arena could not play: a gap
            self.store.plan(self.tournament_id, sprt_groups(spec, first, min(wave, most - first)))

    def group_scores(self) -> list[float]:
        """A test's deal-group scores, in index order, up to the first incomplete group."""
        (players,) = self.spec.players
        scores = []
        for group in range(self.spec.games // players):
            games = [self.pairs.get(group * players + turn) for turn in range(players)]
            if any(game is None for game in games):
                break
            scores.append(sprt.group_score([g for g in games if g is not None]))
        return scores

    def _decide(self) -> sprt.Verdict:
        """The test's verdict from the complete deal groups stored, in index order."""
        assert self.spec.sprt is not None  # checked by the spec
        self.verdict = sprt.sequential(self.group_scores(), self.spec.sprt, self.spec.players[0])
        return self.verdict

    def _count(self, result: MatchResult) -> None:
        """Add a stored match to the live standings (and to a test's pairs)."""
        self.standings.add(result)
        if self.spec.format == "sprt":
            roles = sprt_roles(result.idx, len(result.ranks))
            self.pairs[result.idx] = (
                result.ranks[roles.index(0)],
                result.ranks[roles.index(1)],
            )

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
            self._count(result)
            if self.spec.format == "sprt":
                self._decide()
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
        decided = self.verdict is not None and self.verdict.accepted is not None
        return not (self.stopped or decided)

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
        if self.spec.format == "sprt":
            return Group(self.progress, self._llr_line())
        return Group(self.progress, self.standings.table())

    def _llr_line(self) -> Text:
        """The test's log-likelihood ratio between its bounds, and the estimate so far."""
        hypotheses, verdict = self.spec.sprt, self.verdict
        assert hypotheses is not None  # checked by the spec
        ratio = verdict.llr if verdict is not None else 0.0
        groups = verdict.groups if verdict is not None else 0
        width = 30
        where = (ratio - hypotheses.lower) / (hypotheses.upper - hypotheses.lower)
        mark = min(width - 1, max(0, int(where * width)))
        bar = "".join("|" if i == mark else "-" for i in range(width))
        line = (
            f"LLR {ratio:+.2f}  H0 {hypotheses.lower:+.2f} [{bar}] {hypotheses.upper:+.2f} H1"
            f"  after {groups * len(self.spec.bots)} games"
        )
        if verdict is not None and verdict.groups:
            line += f": NEW − BASE {verdict.estimate.text()}"
        return Text(line)

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

"""The tournament driver: schedule, run on an executor, store each match as it arrives."""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.referee.keys import MatchKey
from arena.referee.process import ProcessLimits
from arena.tournament import ladder
from arena.tournament.bots import bot_limits, resolve, result_label
from arena.tournament.matchrun import MatchTask
from arena.tournament.ratings import rate
from arena.tournament.schedule import MatchSpec, fixed_schedule
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import MatchRecord, ResultsStore
from arena.variants import get_variant


class Standings:
    """Running totals per bot for the live table."""

    def __init__(self) -> None:
        self.games: dict[str, int] = defaultdict(int)
        self.wins: dict[str, int] = defaultdict(int)
        self.rank_sum: dict[str, int] = defaultdict(int)
        self.forfeits: dict[str, int] = defaultdict(int)

    def add(self, bots, ranks, faulted) -> None:
        for seat, (bot, rank) in enumerate(zip(bots, ranks, strict=True)):
            self.games[bot] += 1
            self.wins[bot] += rank == 1
            self.rank_sum[bot] += rank
            self.forfeits[bot] += seat in faulted

    def table(self, top: int = 5) -> Table:
        table = Table(title="standings (win rate)", expand=False)
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
    """Runs ``spec`` on ``executor`` with results in ``store``; resumable at any point."""

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
    ) -> None:
        self.spec = spec
        self.in_process = in_process
        self.store = store
        self.executor = executor
        self.data_dir = Path(data_dir)
        # The results store is off limits to every bot, whatever its command line names.
        limits = bot_limits(self.data_dir, limits)
        # The organiser's list of variables bots may see, from the tournament file.
        self.limits = replace(limits, env=(*limits.env, *spec.bot_env))
        self.console = console or Console()
        self.show_progress = show_progress
        get_variant(spec.variant).new_game(min(spec.players), 0)  # fail early: unplayable
        self.entries = {}
        for name in spec.bots:  # fail early: a bot that does not play this game
            if name == "*":
                continue
            entry = self._entry(name)
            if entry.spec is not None and not entry.spec.supports(spec.variant):
                raise SpecError(f"bot '{name}' does not play variant '{spec.variant}'")
        self.tournament_id = store.tournament(spec.name, spec.fingerprint, spec.to_json())
        fresh = MatchKey.fresh(f"tournament:{spec.name}").secret
        self.secret = store.tournament_secret(self.tournament_id, fresh)
        self.standings = Standings()
        self.stored = 0

    def _entry(self, name: str):
        if name not in self.entries:
            self.entries[name] = resolve(name, self.store)
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
            log_dir=str(self.data_dir / "bot-logs" / self.spec.name),
            data_dir=str(self.data_dir),
            secret=self.secret,
        )

    def _stored_rows(self) -> list[tuple[int, list[str], list[int], set[int]]]:
        rows = self.store.db.execute(
            "SELECT m.idx, s.seat, s.bot, s.rank, s.fault FROM matches m JOIN seats s"
            " ON s.match_id = m.id WHERE m.tournament_id = ? ORDER BY m.idx, s.seat",
            (self.tournament_id,),
        ).fetchall()
        matches: dict[int, tuple[list[str], list[int], set[int]]] = {}
        for idx, seat, bot, rank, fault in rows:
            bots, ranks, faulted = matches.setdefault(idx, ([], [], set()))
            bots.append(bot)
            ranks.append(rank)
            if fault:
                faulted.add(seat)
        return [(idx, *matches[idx]) for idx in sorted(matches)]

    def run(self) -> int:
        """Play every missing match; returns how many were stored by this run."""
        stored = self._stored_rows()
        for _, bots, ranks, faulted in stored:
            self.standings.add(bots, ranks, faulted)
        total = self.spec.games if self.spec.format == "ladder" else len(fixed_schedule(self.spec))
        progress = Progress(
            TextColumn(f"[bold]{self.spec.name}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} matches/min"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.show_progress,
        )
        bar = progress.add_task("matches", total=total, completed=len(stored), rate="-")
        started = time.monotonic()

        def on_result(record: MatchRecord) -> None:
            if self.store.record(self.tournament_id, record):
                self.stored += 1
                self.standings.add(record.bots, record.ranks, set(record.faults))
            minutes = (time.monotonic() - started) / 60
            progress.update(bar, advance=1, rate=f"{self.stored / minutes:.0f}" if minutes else "-")
            if live is not None:
                live.update(Group(progress, self.standings.table()))

        live = (
            Live(
                Group(progress, self.standings.table()),
                console=self.console,
                refresh_per_second=4,
                transient=True,  # gone at the end: the command prints the final standings once
            )
            if self.show_progress
            else None
        )
        if live is not None:
            live.start()
        try:
            if self.spec.format == "ladder":
                self._run_ladder(on_result)
            else:
                done = self.store.done_indices(self.tournament_id)
                tasks = [self._task(m) for m in fixed_schedule(self.spec) if m.index not in done]
                self.executor.run(tasks, on_result)
            self.store.finish_tournament(self.tournament_id)
        finally:
            if live is not None:
                live.stop()
        return self.stored

    def _run_ladder(self, on_result) -> None:
        spec = self.spec
        while True:
            history = self._stored_rows()
            if len(history) >= spec.games:
                return
            pool = self._ladder_pool()
            ratings = rate((bots, ranks) for _, bots, ranks, _ in history)
            games: dict[str, int] = defaultdict(int)
            for _, bots, _, _ in history:
                for bot in bots:
                    games[bot] += 1
            start = len(history)
            count = min(spec.ladder_wave, spec.games - start)
            wave = ladder.next_wave(spec, pool, ratings, games, start, count)
            self.executor.run([self._task(m) for m in wave], on_result)

    def _ladder_pool(self) -> list[str]:
        """The ladder's bots; ``*`` stands for every registered bot (an open pool)."""
        pool = []
        for name in self.spec.bots:
            if name == "*":
                pool += [f"{b['name']}@{b['version']}" for b in self.store.bots()]
            else:
                pool.append(name)
        return sorted(set(pool))

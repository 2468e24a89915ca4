"""``arena test NEW BASE``: is NEW stronger than BASE? A sequential test on duplicate deals.

It is a tournament of format ``sprt`` (``arena/tournament/sprt.py`` for the statistics):
stored and resumable like any other, its hypotheses part of its description, so
the same command resumes the same test and a changed one starts a new test.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated

import typer

from arena.commands.botargs import bot_entries, check_startable
from arena.commands.common import (
    DATA_DIR,
    BankMs,
    DataDir,
    InProcess,
    LogsDir,
    MoveMs,
    Ray,
    Workers,
    console,
    counted,
    fail,
    unwind_on_sigterm,
    writing_store,
)
from arena.commands.running import run_or_exit
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS, SpecError, TournamentSpec
from arena.tournament.sprt import BadHypotheses, Hypotheses, Verdict, elo_of_score


def _slug(text: str, limit: int = 20) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._-")[:limit] or "bot"


def default_name(spec: TournamentSpec) -> str:
    """``test-NEW-vs-BASE-HASH``: the hash covers everything played (hypotheses included),
    so the same command resumes its test and a changed one is a new test."""
    described = {k: v for k, v in spec.to_json().items() if k != "name"}
    digest = hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:8]
    return f"test-{_slug(spec.bots[0])}-vs-{_slug(spec.bots[1])}-{digest}"


def hypotheses_from(
    elo0: float | None,
    elo1: float | None,
    p0: float | None,
    p1: float | None,
    alpha: float,
    beta: float,
) -> Hypotheses:
    """The hypotheses as given: in Elo, or as NEW's chance of finishing ahead of BASE."""
    if (p0 is None) != (p1 is None):
        raise BadHypotheses("give both --p0 and --p1 (or --elo0 and --elo1)")
    if p0 is not None and p1 is not None:
        if elo0 is not None or elo1 is not None:
            raise BadHypotheses("give the hypotheses in Elo or as probabilities, not both")
        for flag, p in (("--p0", p0), ("--p1", p1)):
            if not 0.0 < p < 1.0:
                raise BadHypotheses(f"{flag} is a probability strictly between 0 and 1, not {p:g}")
        elo0, elo1 = elo_of_score(p0), elo_of_score(p1)
    return Hypotheses(0.0 if elo0 is None else elo0, 5.0 if elo1 is None else elo1, alpha, beta)


def verdict_line(verdict: Verdict, hypotheses: Hypotheses, new: str, base: str, games: int) -> str:
    """One line: which hypothesis, after how many games, and NEW − BASE with its interval."""
    estimate = verdict.estimate.text()
    if verdict.accepted == "H1":
        what = "stronger than" if hypotheses.elo0 >= 0 else "not weaker than"
        return f"H1 accepted after {games} games: {new} is {what} {base}, {estimate}"
    if verdict.accepted == "H0":
        what = "weaker than" if hypotheses.elo1 <= 0 else "not stronger than"
        return f"H0 accepted after {games} games: {new} is {what} {base}, {estimate}"
    return (
        f"no verdict after {games} games (the most allowed): LLR {verdict.llr:+.2f} is between "
        f"{hypotheses.lower:+.2f} and {hypotheses.upper:+.2f}; {new} − {base}: {estimate}"
    )


def test(
    new: Annotated[str, typer.Argument(help="the bot under test: registered, plugin or cmd:...")],
    base: Annotated[str, typer.Argument(help="the bot to compare it with")],
    variant: Annotated[str, typer.Option(help="variant name")] = "usa",
    players: Annotated[int, typer.Option(help="players per game (2-5)", min=2, max=5)] = 2,
    opponent: Annotated[
        list[str] | None,
        typer.Option(help="a bot for the other seats (3-5 players), repeatable; used in turn"),
    ] = None,
    elo0: Annotated[
        float | None, typer.Option(help="H0: NEW − BASE in Elo", show_default="0")
    ] = None,
    elo1: Annotated[
        float | None, typer.Option(help="H1: NEW − BASE in Elo", show_default="5")
    ] = None,
    p0: Annotated[
        float | None, typer.Option(help="H0 instead as NEW's chance to finish ahead of BASE")
    ] = None,
    p1: Annotated[float | None, typer.Option(help="H1 as NEW's chance to finish ahead")] = None,
    alpha: Annotated[float, typer.Option(help="chance of accepting H1 when H0 holds")] = 0.05,
    beta: Annotated[float, typer.Option(help="chance of accepting H0 when H1 holds")] = 0.05,
    max_games: Annotated[int, typer.Option(help="stop undecided after this many games")] = 20000,
    seed: Annotated[int, typer.Option(help="fixes the deals and every game")] = 0,
    name: Annotated[
        str | None,
        typer.Option(help="the test's name (resume key)", show_default="test-NEW-vs-BASE-HASH"),
    ] = None,
    move_ms: MoveMs = 1000,
    bank_ms: BankMs = 30000,
    workers: Workers = 1,
    ray: Ray = None,
    data_dir: DataDir = DATA_DIR,
    logs_dir: LogsDir = None,
    progress: Annotated[
        bool, typer.Option(help="show the log-likelihood ratio between its bounds (on a terminal)")
    ] = True,
    in_process: InProcess = False,
    matches_per_process: Annotated[
        int,
        typer.Option(help="matches a warm bot process plays before a fresh one replaces it", min=1),
    ] = DEFAULT_MATCHES_PER_PROCESS,
) -> None:
    """Is NEW stronger than BASE? Plays duplicate deals (each deal in every seat rotation)
    until a sequential probability ratio test accepts H0 or H1; the same command resumes."""
    try:
        hypotheses = hypotheses_from(elo0, elo1, p0, p1, alpha, beta)
    except BadHypotheses as error:
        raise fail(f"impossible hypotheses: {error}") from None
    others = list(opponent or ())
    if players > 2 and not others:
        raise fail(
            f"{players}-player games need opponents for the other {players - 2} seat(s): "
            "--opponent NAME (repeatable; used in turn)"
        )
    if players == 2 and others:
        raise fail("--opponent is for 3-5 players: add --players 3 (or more)")
    seated = [others[i % len(others)] for i in range(players - 2)] if others else []
    try:
        spec = TournamentSpec.with_clock(
            move_ms,
            bank_ms,
            name=name or "test",
            variant=variant,
            bots=(new, base, *seated),
            players=(players,),
            format="sprt",
            games=max_games,
            seed=seed,
            matches_per_process=matches_per_process,
            sprt=hypotheses,
        )
        if name is None:
            spec = TournamentSpec(**{**vars(spec), "name": default_name(spec)})
    except SpecError as error:
        raise fail(str(error)) from None
    named = sorted(set(spec.bots))
    check_startable(spec, named, bot_entries(named, data_dir, check_start=False), in_process)
    unwind_on_sigterm()
    with writing_store(data_dir, check=True) as store:
        done = run_or_exit(
            spec,
            store,
            workers=workers,
            ray=ray,
            logs_dir=logs_dir,
            progress=progress,
            in_process=in_process,
        )
    verdict = done.runner.verdict
    assert verdict is not None  # decided at least once by the run
    games = verdict.groups * players
    console.print(verdict_line(verdict, hypotheses, new, base, games), soft_wrap=True)
    console.print(
        f"these {counted(games, 'game')} are a test: they do not count on the leaderboards"
    )
    console.print("('arena leaderboard --include-tests' counts them); to delete them:")
    elsewhere = "" if data_dir == DATA_DIR else f" --data-dir {data_dir}"
    console.print(f"  arena tournament delete {spec.name} --yes{elsewhere}", soft_wrap=True)
    if done.failures:
        raise fail(
            f"{len(done.failures)} match(es) could not be played (arena faults): the test "
            f"stopped at the first; see 'arena tournament show {spec.name}'; the same command "
            "retries them",
            1,
        )

"""The competition's worker process: validates uploads and runs the ladders and the final.

The web process never starts a bot: it records uploads in ``accounts.sqlite`` and
reads the results store. This process (started by ``arena host``, dying with it)
does the playing, in its own main thread, as ``arena tournament run`` does:

- a thread plays people's games (``arena.server.play``): a participant in the browser
  against bots, each bot sandboxed as in validation;
- a validator thread takes each queued submission (also those a kill interrupted)
  through ``arena.tournament.submit.submit``: the same sandbox and games as
  ``arena submit``; a pass registers ``USER.BOT@N`` and makes it play;
- the main thread plays one wave of each board in turn on one executor (local
  workers or Ray), until the deadline; then each board's final, whose players are
  fixed once (a restart plays the same final) and which resumes like any tournament.
  Challenges' matches join the waves' runs, at most the competition file's share of
  the matches played (``arena.server.challenge_runs``).
  A deadline moved later after a final (the file, or ``/admin``) reopens the ladder;
  at the new deadline the board's next final plays, the old one kept as history.

A full disk pauses both (``arena.server.diskspace``): before each wave and each
validation the free space is checked, and a write that meets the disk's end
anyway (the store's StoreFull) is rolled back by SQLite and waited out; the
match it was storing stays planned and is played again once space returns.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from arena.server import retention
from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.server.challenge_runs import ChallengeQueue, Share, Together
from arena.server.competition import Competition
from arena.server.deadline import Deadline, stamp
from arena.server.diskspace import is_full_error, space
from arena.server.finals import finalists, ladder_rows, one_round, rounds_that_fit
from arena.server.ladder import BoardLadder, ladder_spec
from arena.server.play import serve_games
from arena.server.shown import bot_folder, forms, shown
from arena.tournament.forfeits import read_tail
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore, StoreError, StoreFull
from arena.tournament.submit import BoardOutcomes, SubmissionRejected, code_hash, submit

log = logging.getLogger("arena.host")
POLL_SECONDS = 0.5
SPACE_POLL_SECONDS = 2.0  # how often a paused worker looks at the free space again


def wait_for_space(data_dir: Path, stop: threading.Event, what: str) -> None:
    """Return once the data folder's disk has more than its reserve free (or on stop),
    saying in the log that ``what`` paused and resumed."""
    found = space(data_dir)
    if not found.full:
        return
    log.warning(
        "the disk holding %s is full (%d bytes free, %d kept in reserve): %s paused until "
        "space is freed",
        data_dir,
        found.free,
        found.reserve,
        what,
        extra={"fields": {"event": "disk_full", "free": found.free, "paused": what}},
    )
    while not stop.wait(SPACE_POLL_SECONDS):
        found = space(data_dir)
        if not found.full:
            log.info(
                "space is back on the disk holding %s (%d bytes free): %s resumed",
                data_dir,
                found.free,
                what,
                extra={"fields": {"event": "disk_space_back", "free": found.free}},
            )
            return


def validate(accounts: Accounts, competition: Competition, data_dir: Path, sid: int) -> None:
    """Validate one submission on every ranked board and record what came of it: the
    outcome of each board (a version plays only the boards it passed), and the
    submission's status (rejected only when it failed every board)."""
    record = accounts.submission(sid)
    if record is None:
        return
    accounts.set_status(sid, "validating")
    store = ResultsStore(data_dir)

    folders = validated_folders(data_dir, record)

    def told(text: str) -> str:  # what its owner reads: paths relative to the bot's folder
        return shown(text, data_dir, folders) or ""

    def checked(outcomes: BoardOutcomes) -> None:  # kept before the version is registered
        accounts.set_board_results(
            sid,
            [
                {"board": f"{variant}-{players}p", "passed": why is None,
                 "reason": told(_why(why)) if why else "",
                 "stderr": told(_stderr(why)) if why else ""}
                for (variant, players), why in outcomes.items()
            ],
        )  # fmt: skip

    try:
        version = registered_before(store, accounts, record, data_dir / record["upload"])
        if version is not None:
            accounts.passed(sid, version, competition.limits.active_bots)
            log.info("submission %d had passed as %s@%d", sid, record["key"], version)
            return
        done = submit(
            store,
            record["key"],
            path=data_dir / record["upload"],
            boards=list(competition.boards),
            checked=checked,
            games=competition.limits.validation_games,
            time_control=competition.time_control,
        )
    except StoreFull:
        raise  # not the bot's fault: it stays pending, validated again once space returns
    except SubmissionRejected as error:
        if _disk_is_full(data_dir):  # its games failed for lack of space: not its fault
            raise StoreFull(f"the disk holding {data_dir} is full") from error
        accounts.set_status(sid, "rejected", told(_why(error)), told(_stderr(error)))
        log.info("submission %d of %s rejected: %s", sid, record["owner"], _why(error))
        return
    except (ValueError, KeyError, StoreError) as error:
        why = str(error).split("; its stderr:")[0]
        accounts.set_status(
            sid, "rejected", shown(why, data_dir, validated_folders(data_dir, record))
        )
        log.info("submission %d of %s refused: %s", sid, record["owner"], error)
        return
    finally:
        store.close()
    accounts.passed(sid, done.version, competition.limits.active_bots)
    failed = ", ".join(f"{v} {p}p" for v, p in done.failed_boards)
    log.info(
        "submission %d of %s passed as %s@%d%s", sid, record["owner"], done.name, done.version,
        f" (failed: {failed}, not played there)" if failed else "",
    )  # fmt: skip


def _why(error: SubmissionRejected) -> str:
    """A rejection's one line, without the server's path to its stderr."""
    return str(error).split("; its stderr:")[0]


def _stderr(error: SubmissionRejected) -> str:
    """The end of the stderr of the game that rejected it (its owner sees it)."""
    if error.stderr is not None:
        return read_tail(error.stderr)
    if error.log is None:
        return ""
    found = sorted(Path(error.log).glob("**/*.stderr")) if error.log.is_dir() else []
    return read_tail(found[0]) if found else read_tail(error.log)


def _disk_is_full(data_dir: Path) -> bool:
    return space(data_dir).full


def registered_before(
    store: ResultsStore, accounts: Accounts, record: dict[str, Any], path: Path
) -> int | None:
    """The version this submission's validation already registered, when the results store
    has it and accounts does not (a kill between the two writes, or a backup whose
    snapshots fell between them): the bot's newest version, of this upload's very content,
    that no submission claims. None otherwise (validate it)."""
    newest = store.bot(record["key"])
    if newest is None or not path.exists() or newest["content_hash"] != code_hash(path.resolve()):
        return None
    claimed = {s["version"] for s in accounts.submissions() if s["key"] == record["key"]}
    return None if newest["version"] in claimed else newest["version"]


def validated_folders(data_dir: Path, record: dict) -> list[str]:
    """Where the submission's bot.py was while it was validated (patterns for ``shown``):
    its stored copy, ``bots/KEY/HASH[/FOLDER]`` (the hash not known here), and its upload."""
    upload = Path(record["upload"])
    stored = [re.escape(str(f)) for f in forms(Path(data_dir) / "bots" / record["key"])]
    tail = "" if upload.suffix == ".py" else "/" + re.escape(upload.name)
    found = [f"{base}/[0-9a-f]{{16}}{tail}" for base in stored]
    found += [re.escape(str(f)) for f in forms(bot_folder(data_dir, str(upload)))]
    return found


def validator(accounts: Accounts, competition: Competition, data_dir: Path, stop: threading.Event):
    while not stop.is_set():
        for sid in accounts.pending():
            if stop.is_set():
                return
            wait_for_space(data_dir, stop, "validation")
            try:
                validate(accounts, competition, data_dir, sid)
            except Exception as error:
                if is_full_error(error):  # stays pending: validated once space returns
                    wait_for_space(data_dir, stop, "validation")
                    stop.wait(SPACE_POLL_SECONDS)
                    break
                log.exception("validating submission %d failed", sid)
                accounts.set_status(sid, "rejected", "the arena failed while validating it")
        stop.wait(POLL_SECONDS)


class Worker:
    def __init__(self, competition: Competition, data_dir: Path, workers: int, ray: str | None):
        self.competition = competition
        self.data_dir = data_dir
        self.accounts = Accounts(data_dir)
        self.deadline = Deadline(competition, self.accounts)
        self.accounts.settle_old_finals(stamp(self.deadline.current()), self.deadline.closed())
        self.stop = threading.Event()
        self.workers = workers
        self.ray = ray
        self.ladders: dict[tuple[str, int], BoardLadder] = {}
        self.challenges: ChallengeQueue | None = None
        self.share = Share(competition.challenges.share, idle=max(2, 2 * workers))

    def run(self) -> None:
        from arena.tournament.drive import make_executor

        checker = threading.Thread(
            target=validator,
            args=(self.accounts, self.competition, self.data_dir, self.stop),
            daemon=True,
        )
        checker.start()
        if self.competition.play.games:  # people's games in the browser (arena.server.play)
            threading.Thread(
                target=serve_games,
                args=(self.competition, self.data_dir, self.stop),
                name="people's games",
                daemon=True,
            ).start()
        threading.Thread(
            target=retention.keep,
            args=(self.data_dir, self.competition.retention, self.stop),
            name="retention",
            daemon=True,
        ).start()  # bot logs pruned by the competition's [retention], the budget watched
        store = ResultsStore(self.data_dir)
        executor = make_executor(self.ray, self.workers, self.data_dir)
        self.challenges = ChallengeQueue(
            self.accounts, self.competition, store, executor, self.data_dir, self.stop.is_set,
            functools.partial(self.board_ladder, store, executor),
        )  # fmt: skip
        try:
            while not self.stop.is_set():
                if self.deadline.closed():
                    try:
                        self.finals(store, executor)
                    except Exception as error:
                        if not is_full_error(error):
                            raise
                        wait_for_space(self.data_dir, self.stop, "the final")
                        self.stop.wait(SPACE_POLL_SECONDS)  # never a tight loop
                        continue  # the final resumes as a restarted one does
                    # Played: the deadline may yet move later, reopening the ladder.
                    self.stop.wait(POLL_SECONDS)
                    continue
                wait_for_space(self.data_dir, self.stop, "the ladder")
                try:
                    played = self.play_waves(store, executor)
                except Exception as error:
                    if not is_full_error(error):
                        raise
                    log.warning("a write met the full disk (%s): the ladder pauses", error)
                    wait_for_space(self.data_dir, self.stop, "the ladder")
                    self.stop.wait(SPACE_POLL_SECONDS)  # never a tight loop
                    continue  # the match it was storing stays planned: played again
                if not played:
                    self.stop.wait(POLL_SECONDS)
        finally:
            self.stop.set()
            for ladder in self.ladders.values():
                with contextlib.suppress(StoreError):  # a full disk: the lease dies with us
                    ladder.release()
            with contextlib.suppress(StoreError):
                self.challenges.release()
            executor.close()
            store.close()
            checker.join(5)

    def play_waves(self, store: ResultsStore, executor) -> bool:
        """One wave of each board whose ladder can play, each with the challenge matches
        the share allows in the same run; when no ladder can play, challenges alone.
        False if nothing was played."""
        assert self.challenges is not None  # made by run
        played = False
        for variant, players in self.competition.boards:
            ladder = self.ladder(store, executor, variant, players)
            tasks = ladder.wave_tasks() if ladder is not None else []
            if ladder is None or not tasks:
                continue
            self.share.ladder_played(len(tasks))
            extra = self.challenges.tasks(self.share.allowed())
            self.share.challenges_played(len(extra))
            self.play_together(executor, [ladder], tasks + extra)
            played = True
        if not played:  # the ladder is idle: challenges have the workers
            extra = self.challenges.tasks(self.share.idle)
            if extra:
                self.play_together(executor, [], extra)
                played = True
        self.challenges.refresh()  # the challenges played out are finished at once
        return played

    def play_together(self, executor, ladders: list[BoardLadder], tasks: list) -> None:
        """One executor run of a wave and challenge matches, each result to its runner."""
        assert self.challenges is not None  # made by run
        runners: list = list(ladders)
        for name in {task.tournament for task in tasks} - {ladder.spec.name for ladder in ladders}:
            run = self.challenges.sink(name)
            if run is not None:
                runners.append(run)
        executor.run(tasks, Together(runners, self.stop.is_set))

    def board_ladder(self, store, executor, board: str) -> BoardLadder:
        """The ladder of ``board`` (``usa-2p``) for a ranked challenge's games, made now
        even if too few participants play it for a ladder table."""
        named = [b for b in self.competition.boards if f"{b[0]}-{b[1]}p" == board]
        if not named:  # the competition file no longer has it
            raise ValueError(f"the competition has no board {board} now")
        found = self.ladder(store, executor, *named[0], needed=False)
        assert found is not None  # made whoever plays
        return found

    def ladder(
        self, store, executor, variant: str, players: int, needed: bool = True
    ) -> BoardLadder | None:
        """The board's ladder, made once enough participants have bots that play (or,
        ``needed`` False, at once: a ranked challenge's games are stored in it)."""
        if (variant, players) in self.ladders:
            return self.ladders[variant, players]
        # bot -> side (its team, or its owner): never two bots of one side at a table
        pool = functools.partial(self.accounts.sides, f"{variant}-{players}p")
        if needed and len(set(pool().values())) < players:
            return None
        spec = ladder_spec(self.competition, variant, players)
        ladder = BoardLadder(
            spec, store, executor, self.data_dir, pool, self.accounts.voided, self.stop.is_set,
            wave=max(2, 2 * self.workers),
            matches_per_hour=self.competition.ladder.matches_per_hour,
        )  # fmt: skip
        self.ladders[variant, players] = ladder
        log.info("ladder %s started", spec.name)
        return ladder

    def finals(self, store: ResultsStore, executor) -> None:
        """Past the deadline in force: each board's final for that deadline (its bots fixed
        once, resumable), unless it has finished. A final for an earlier deadline stays as
        it is: history, a round of its own."""
        for ladder in self.ladders.values():
            ladder.release()
        self.ladders.clear()
        if self.challenges is not None:
            self.challenges.close("the deadline passed before it was played out")
        deadline = stamp(self.deadline.current())
        for variant, players in self.competition.boards:
            board = f"{variant}-{players}p"
            fixed = self.accounts.final_round(board, deadline)
            if fixed is not None and fixed.finished:
                continue
            if fixed is None:
                live = LiveBoard(self.competition.ladder_name(variant, players))
                rows = ladder_rows(live.rows(store, self.accounts.voided()), self.accounts.hidden())
                chosen = finalists(
                    self.competition, rows, self.accounts.playing(board), self.accounts.eligible()
                )
                sides = self.accounts.sides_of(chosen)
                fixed = self.accounts.fix_final(board, deadline, chosen, sides)
            self.play_final(store, executor, variant, players, fixed)

    def play_final(self, store: ResultsStore, executor, variant: str, players: int, fixed) -> None:
        name = self.competition.final_name(variant, players, fixed.number)
        apart = fixed.apart()  # each team's (or participant's) bots never meet
        rounds = rounds_that_fit(fixed.bots, apart, players, self.competition.final.games)
        if not rounds:
            log.info(
                "final %s: %d bots of %d sides cannot play a %d-player round robin: no final",
                name, len(fixed.bots), len(apart) or len(fixed.bots), players,
            )  # fmt: skip
            self.accounts.finish_final(fixed.board, fixed.number)
            return
        if rounds < self.competition.final.games:
            log.warning(
                "final %s: %d rounds instead of %d (a round of %d bots is %d matches)",
                name, rounds, self.competition.final.games, len(fixed.bots),
                one_round(fixed.bots, apart, players),
            )  # fmt: skip
        spec = TournamentSpec(
            name=name,
            variant=variant,
            bots=tuple(fixed.bots),
            players=(players,),
            format=self.competition.final.format,
            games=rounds,
            seed=self.competition.seed,
            time_control=self.competition.time_control,
            apart=apart,
        )
        log.info("final %s starts (round %d): %s", name, fixed.number, ", ".join(fixed.bots))
        runner = TournamentRunner(
            spec, store, executor, self.data_dir, show_progress=False,
            should_stop=self.stop.is_set,
        )  # fmt: skip
        runner.run()
        if not self.stop.is_set():
            self.accounts.finish_final(fixed.board, fixed.number)
            log.info("final %s finished", name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="arena-host-worker")
    parser.add_argument("competition", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--ray", default=None)
    parser.add_argument("--parent", type=int, default=None)
    parser.add_argument("--log-format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    from arena.referee.process import die_with_parent
    from arena.server.logs import setup_logging

    die_with_parent(args.parent)
    setup_logging(args.data_dir, args.log_format)
    competition = Competition.from_toml(args.competition)
    worker = Worker(competition, args.data_dir, args.workers, args.ray)
    signal.signal(signal.SIGTERM, lambda *_: worker.stop.set())
    signal.signal(signal.SIGINT, lambda *_: worker.stop.set())
    try:
        worker.run()
    except Exception:
        log.exception("the worker failed")
        sys.exit(1)


if __name__ == "__main__":
    main()

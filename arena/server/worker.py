"""The competition's worker process: validates uploads and runs the ladders and the final.

The web process never starts a bot: it records uploads in ``accounts.sqlite`` and
reads the results store. This process (started by ``arena host``, dying with it)
does the playing, in its own main thread, as ``arena tournament run`` does:

- a validator thread takes each queued submission (also those a kill interrupted)
  through ``arena.tournament.submit.submit``: the same sandbox and games as
  ``arena submit``; a pass registers ``USER.BOT@N`` and makes it play;
- the main thread plays one wave of each board in turn on one executor (local
  workers or Ray), until the deadline; then each board's final, whose players are
  fixed once (a restart plays the same final) and which resumes like any tournament.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from arena.server import retention
from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.server.competition import Competition
from arena.server.ladder import BoardLadder, ladder_spec
from arena.tournament.forfeits import read_tail
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore, StoreError
from arena.tournament.submit import SubmissionRejected, submit

log = logging.getLogger("arena.host")
POLL_SECONDS = 0.5


def validate(accounts: Accounts, competition: Competition, data_dir: Path, sid: int) -> None:
    """Validate one submission and record what came of it."""
    record = accounts.submission(sid)
    if record is None:
        return
    accounts.set_status(sid, "validating")
    variants = sorted({variant for variant, _ in competition.boards})
    store = ResultsStore(data_dir)
    try:
        done = submit(
            store,
            record["key"],
            path=data_dir / record["upload"],
            variants=variants,
            games=competition.limits.validation_games,
            time_control=competition.time_control,
        )
    except SubmissionRejected as error:
        why = str(error).split("; its stderr:")[0]
        stderr = ""
        if error.log is not None:
            found = sorted(Path(error.log).glob("**/*.stderr")) if error.log.is_dir() else []
            stderr = read_tail(found[0]) if found else read_tail(error.log)
        accounts.set_status(sid, "rejected", why, stderr)
        log.info("submission %d of %s rejected: %s", sid, record["owner"], why)
        return
    except (ValueError, KeyError, StoreError) as error:
        accounts.set_status(sid, "rejected", str(error).split("; its stderr:")[0])
        log.info("submission %d of %s refused: %s", sid, record["owner"], error)
        return
    finally:
        store.close()
    accounts.passed(sid, done.version, competition.limits.active_bots)
    log.info("submission %d of %s passed as %s@%d", sid, record["owner"], done.name, done.version)


def validator(accounts: Accounts, competition: Competition, data_dir: Path, stop: threading.Event):
    while not stop.is_set():
        for sid in accounts.pending():
            if stop.is_set():
                return
            try:
                validate(accounts, competition, data_dir, sid)
            except Exception:
                log.exception("validating submission %d failed", sid)
                accounts.set_status(sid, "rejected", "the arena failed while validating it")
        stop.wait(POLL_SECONDS)


class Worker:
    def __init__(self, competition: Competition, data_dir: Path, workers: int, ray: str | None):
        self.competition = competition
        self.data_dir = data_dir
        self.accounts = Accounts(data_dir)
        self.stop = threading.Event()
        self.workers = workers
        self.ray = ray
        self.ladders: dict[tuple[str, int], BoardLadder] = {}

    def run(self) -> None:
        from arena.tournament.drive import make_executor

        checker = threading.Thread(
            target=validator,
            args=(self.accounts, self.competition, self.data_dir, self.stop),
            daemon=True,
        )
        checker.start()
        threading.Thread(
            target=retention.keep,
            args=(self.data_dir, self.competition.retention, self.stop),
            name="retention",
            daemon=True,
        ).start()  # bot logs pruned by the competition's [retention], the budget watched
        store = ResultsStore(self.data_dir)
        executor = make_executor(self.ray, self.workers, self.data_dir)
        try:
            while not self.stop.is_set():
                if self.competition.closed():
                    self.finals(store, executor)
                    self.stop.wait()
                    break
                played = False
                for variant, players in self.competition.boards:
                    ladder = self.ladder(store, executor, variant, players)
                    if ladder is not None and ladder.play_wave():
                        played = True
                if not played:
                    self.stop.wait(POLL_SECONDS)
        finally:
            self.stop.set()
            for ladder in self.ladders.values():
                ladder.release()
            executor.close()
            store.close()
            checker.join(5)

    def ladder(self, store, executor, variant: str, players: int) -> BoardLadder | None:
        """The board's ladder, made once enough participants have bots that play."""
        if (variant, players) in self.ladders:
            return self.ladders[variant, players]
        pool = self.accounts.playing
        if len(set(pool().values())) < players:
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
        """At the deadline: each board's top bots play a final (fixed once, resumable)."""
        for ladder in self.ladders.values():
            ladder.release()
        self.ladders.clear()
        final = self.competition.final
        for variant, players in self.competition.boards:
            board = f"{variant}-{players}p"
            if self.accounts.final_finished(board):
                continue
            chosen = self.accounts.final_bots(board)
            if chosen is None:
                live = LiveBoard(self.competition.ladder_name(variant, players))
                playing = self.accounts.eligible()
                rows = live.rows(store, self.accounts.voided())
                top = [row["bot"] for row in rows if row["bot"] in playing][: final.top]
                chosen = self.accounts.fix_final(board, top)
            if len(chosen) < players:
                log.info("final %s: too few bots (%d) to play", board, len(chosen))
                self.accounts.finish_final(board)
                continue
            spec = TournamentSpec(
                name=self.competition.final_name(variant, players),
                variant=variant,
                bots=tuple(chosen),
                players=(players,),
                format=final.format,
                games=final.games,
                seed=self.competition.seed,
                time_control=self.competition.time_control,
            )
            log.info("final %s starts: %s", spec.name, ", ".join(chosen))
            runner = TournamentRunner(
                spec, store, executor, self.data_dir, show_progress=False,
                should_stop=self.stop.is_set,
            )  # fmt: skip
            runner.run()
            if not self.stop.is_set():
                self.accounts.finish_final(board)
                log.info("final %s finished", spec.name)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="arena-host-worker")
    parser.add_argument("competition", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--ray", default=None)
    parser.add_argument("--parent", type=int, default=None)
    args = parser.parse_args(argv)
    from arena.referee.process import die_with_parent
    from arena.server.logs import setup_logging

    die_with_parent(args.parent)
    setup_logging(args.data_dir)
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

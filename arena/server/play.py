"""People's games on a hosted competition: a signed-in participant against their own bot or
a built-in one, unranked, stored apart from the ladder (a tournament of its own).

Where each part runs:

- the web process records the request (``Games``, in ``play.sqlite``: not the accounts
  store, whose changes refresh every live page) and then speaks for the person: it
  connects a ``HumanBridge`` (``arena.human``) to the referee's endpoint with the seat's
  one-time token, as a bot would. It never starts a bot.
- the worker process (``serve_games``, a thread beside validation and the ladder) plays
  it: the referee, and each bot a process under the same limits and sandbox as
  validation and the ladder (``bot_limits``: the data folder hidden from it).

A game nobody looks at (no state poll, click or page for ``abandon_minutes``) is resigned
for the person, and so is a game whose web process went away; a game the worker was
playing when it died is marked failed when the next worker starts.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.human import person_entry
from arena.referee.hub import Hub, ProcessWatch, Reply
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.referee import GameOutcome
from arena.referee.seats import RemoteSeat
from arena.server.competition import Competition
from arena.tournament.bots import bot_limits, entry_for_record
from arena.tournament.names import split_ref
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from arena.variants import get_variant
from bots import get_bot

log = logging.getLogger("arena.host")
POLL_SECONDS = 0.5
ALIVE_CHECK_SECONDS = 1.0  # how often the worker reads whether the person is still there
LIVE = ("queued", "ready")
STORING = threading.Lock()  # one game stored at a time: each takes the next index

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    user TEXT NOT NULL,
    variant TEXT NOT NULL,
    players INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    bots TEXT NOT NULL,          -- JSON: the opponents' names, by seat (the person left out)
    status TEXT NOT NULL,        -- queued | ready | over | failed
    endpoint TEXT,
    token TEXT,
    created REAL NOT NULL,
    seen REAL NOT NULL,          -- the last sign of the person (a page, a poll, a click)
    resigned INTEGER NOT NULL DEFAULT 0,
    match_id INTEGER,
    error TEXT
);
CREATE INDEX IF NOT EXISTS games_match ON games (match_id);
"""


class PlayRefused(ValueError):
    """A game that cannot be started now; the message says why and what to do."""


@dataclass(frozen=True)
class Game:
    id: str
    user: str
    variant: str
    players: int
    seat: int
    bots: list[str]
    status: str
    endpoint: str | None
    token: str | None
    created: float
    seen: float
    resigned: bool
    match_id: int | None
    error: str | None

    @property
    def live(self) -> bool:
        return self.status in LIVE

    def names(self) -> list[str]:
        """Every seat's name: the opponents, with the person at their seat."""
        names = list(self.bots)
        names.insert(self.seat, self.user)
        return names


class Games:
    """The people's games of one data folder (``play.sqlite``): one connection per thread."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / "play.sqlite"
        self.local = threading.local()
        with self.db:
            self.db.executescript(SCHEMA)

    @property
    def db(self) -> sqlite3.Connection:
        db = getattr(self.local, "db", None)
        if db is None:
            db = self.local.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.row_factory = sqlite3.Row
        return db

    def _game(self, row: sqlite3.Row | None) -> Game | None:
        if row is None:
            return None
        data = dict(row)
        data["bots"] = json.loads(data["bots"])
        data["resigned"] = bool(data["resigned"])
        return Game(**data)

    def open(
        self, user: str, variant: str, players: int, seat: int, bots: list[str], per_server: int
    ) -> Game:
        """Record a new game for the worker to play, within the limits: one live game per
        participant, ``per_server`` on the server."""
        game_id = uuid.uuid4().hex[:12]
        now = time.time()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            mine = db.execute(
                "SELECT id FROM games WHERE user = ? AND status IN (?, ?)", (user, *LIVE)
            ).fetchone()
            if mine is not None:
                raise PlayRefused(
                    "you already have a game being played: finish or resign it first "
                    f"(/play/{mine['id']})"
                )
            count = db.execute(
                "SELECT COUNT(*) FROM games WHERE status IN (?, ?)", LIVE
            ).fetchone()[0]
            if count >= per_server:
                raise PlayRefused(
                    f"{count} games are being played on this server, its most at once: "
                    "try again when one ends"
                )
            db.execute(
                "INSERT INTO games (id, user, variant, players, seat, bots, status, created,"
                " seen) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
                (game_id, user, variant, players, seat, json.dumps(bots), now, now),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        found = self.get(game_id)
        assert found is not None
        return found

    def get(self, game_id: str) -> Game | None:
        return self._game(
            self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        )

    def by_match(self, match_id: int) -> Game | None:
        row = self.db.execute("SELECT * FROM games WHERE match_id = ?", (match_id,)).fetchone()
        return self._game(row)

    def live_of(self, user: str) -> Game | None:
        row = self.db.execute(
            "SELECT * FROM games WHERE user = ? AND status IN (?, ?)", (user, *LIVE)
        ).fetchone()
        return self._game(row)

    def queued(self) -> list[Game]:
        rows = self.db.execute("SELECT * FROM games WHERE status = 'queued' ORDER BY created")
        return [game for game in map(self._game, rows) if game is not None]

    def ready(self, game_id: str, endpoint: str, token: str) -> None:
        self.db.execute(
            "UPDATE games SET status = 'ready', endpoint = ?, token = ? WHERE id = ?",
            (endpoint, token, game_id),
        )

    def touch(self, game_id: str) -> None:
        self.db.execute("UPDATE games SET seen = ? WHERE id = ?", (time.time(), game_id))

    def resign(self, game_id: str) -> None:
        self.db.execute("UPDATE games SET resigned = 1 WHERE id = ?", (game_id,))

    def finish(self, game_id: str, match_id: int | None, error: str | None) -> None:
        status = "over" if error is None else "failed"
        self.db.execute(
            "UPDATE games SET status = ?, match_id = ?, error = ?, token = NULL WHERE id = ?",
            (status, match_id, error, game_id),
        )

    def resign_live(self) -> None:
        """The web process starts: the person's side of every live game is gone with the
        last one, so each is resigned (the bots finish it)."""
        self.db.execute("UPDATE games SET resigned = 1 WHERE status IN (?, ?)", LIVE)

    def fail_unfinished(self, why: str) -> None:
        """The worker starts: the games the last one was playing died with it (a game still
        queued is played, unless its person is gone)."""
        self.db.execute(
            "UPDATE games SET status = 'failed', error = ?, token = NULL"
            " WHERE status = 'ready' OR (status = 'queued' AND resigned = 1)",
            (why,),
        )


# ---------------------------------------------------------------- the worker's side


class PersonSeat(RemoteSeat):
    """The person's seat as the worker's referee sees it: a remote seat (no clock, an
    illegal click never forfeits) whose other end is the web process's bridge. It is gone
    once the person resigns or has shown no sign for ``abandon_seconds``."""

    person = True

    def __init__(self, hub: Hub, seat: int, name: str, games: Games, game_id: str, abandon: float):
        super().__init__(hub, seat, None, name)
        self.games, self.game_id, self.abandon = games, game_id, abandon
        self.checked = 0.0
        self.why: str | None = None

    def alive(self) -> bool:
        now = time.monotonic()
        if self.why is None and now - self.checked >= ALIVE_CHECK_SECONDS:
            self.checked = now
            game = self.games.get(self.game_id)
            if game is None or game.resigned:
                self.why = "the person resigned"
            elif time.time() - game.seen > self.abandon:
                self.why = f"abandoned: no sign of the person for {self.abandon / 60:g} minutes"
        return self.why is None

    def ask(self, act: Any, legal: Any, deadline: float) -> Reply:
        reply = super().ask(act, legal, deadline)
        if reply.fault and self.why is not None:
            reply = Reply(fault="resigned", detail=self.why, elapsed=reply.elapsed)
        return reply

    def isolation(self) -> dict[str, object]:
        return {"processes": "person"}


class PersonMatch(ProcessMatch):
    """A ``ProcessMatch`` whose seat ``game.seat`` is the web process's bridge."""

    def __init__(self, *args: Any, game: Game, games: Games, abandon: float, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.game, self.games, self.abandon = game, games, abandon
        self.person: PersonSeat | None = None

    def resigned(self, outcome: GameOutcome) -> GameOutcome:
        """The outcome with the person's absence said as what it is: the hub charges a seat
        gone between its turns as a ``crash``, a person who left resigned."""
        why = self.person.why if self.person is not None else None
        seat = self.game.seat
        if why is None:
            return outcome
        outcome.faults = [
            replace(f, code="resigned", detail=why) if f.seat == seat else f for f in outcome.faults
        ]
        for line in outcome.log.faults:
            if line.get("seat") == seat:
                line.update(code="resigned", detail=why)
        return outcome

    def _seat(self, hub: Hub, s: int, entry: BotEntry, folder: Path) -> RemoteSeat:
        if s != self.game.seat:
            return super()._seat(hub, s, entry, folder)
        endpoint, token = hub.add_seat(s)
        seat = PersonSeat(hub, s, entry.name, self.games, self.game.id, self.abandon)
        hub.watch(s, ProcessWatch(None, seat.alive, lambda: seat.why or "left the game"))
        self.games.ready(self.game.id, endpoint, token)
        self.person = seat
        return seat


def play_tournament(competition: Competition) -> str:
    """The tournament people's games are stored in: not a board's, never rated."""
    return f"{competition.name}-play"


def opponent_entry(name: str, store: ResultsStore, data_dir: Path) -> BotEntry:
    """A registered bot (``user.bot@N``) or a built-in one, as the ladder runs it."""
    if "@" in name:
        key, version = split_ref(name)
        record = store.bot(key, version)
        if record is None:
            raise ValueError(f"no bot {name}")
        return entry_for_record(record, data_dir)
    return BotEntry.for_plugin(get_bot(name))


def play_one(competition: Competition, data_dir: Path, games: Games, game: Game) -> None:
    """Play one person's game to its end and store it (never raises: a failure is recorded)."""
    store = ResultsStore(data_dir)
    match_id, error = None, None
    try:
        variant = get_variant(game.variant)
        entries = [opponent_entry(name, store, data_dir) for name in game.bots]
        entries.insert(game.seat, person_entry(game.user))
        abandon = competition.play.abandon_minutes * 60.0
        match = PersonMatch(
            variant, entries, competition.time_control, bot_limits(data_dir),
            data_dir / "play-logs", logs_relative_to=data_dir, game=game, games=games,
            abandon=abandon,
        )  # fmt: skip
        with match as referee:
            outcome = referee.play(secrets.randbelow(2**31), game_id=f"play-{game.id}")
        outcome = match.resigned(outcome)
        name = play_tournament(competition)
        with STORING:
            tid = store.tournament(name, name, {"kind": "person vs bot", "unranked": True})
            index = store.next_index(tid)
            result = MatchResult.from_outcome(outcome, index, variant.name, game.names(), "person")
            store.record(tid, result)
            found = store.latest_results(name, 1)
        match_id = found[0].match_id if found else None
    except Exception as failure:  # said on the page in one line; the traceback to the log
        log.exception("game %s of %s failed", game.id, game.user)
        error = f"the game failed: {type(failure).__name__}: {failure}"
    finally:
        store.close()
        games.finish(game.id, match_id, error)
    log.info("game %s of %s ended (match %s)", game.id, game.user, match_id)


def serve_games(competition: Competition, data_dir: Path, stop: threading.Event) -> None:
    """The worker's thread for people's games: each queued one played in a thread of its own."""
    games = Games(data_dir)
    games.fail_unfinished("the server restarted while the game was being played")
    started: set[str] = set()
    while not stop.wait(POLL_SECONDS):
        for game in games.queued():
            if game.id in started:
                continue
            started.add(game.id)
            threading.Thread(
                target=play_one,
                args=(competition, data_dir, games, game),
                name=f"play-{game.id}",
                daemon=True,
            ).start()

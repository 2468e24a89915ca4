"""The results store's schema: the tables of a new store, and what each schema version
added to the one before it (``MIGRATIONS``). A store written by any release is brought up
to ``SCHEMA_VERSION`` when a writer opens it (``storebase.StoreBase``); a new one is made
with every version at once (``storefile.create_store_file``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

FILE_NAME = "results.sqlite"
APPLICATION_ID = 0x54545241  # "TTRA"
SCHEMA_VERSION = 5

SCHEMA = """
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL,            -- plugin | file | command
    target TEXT NOT NULL,          -- plugin name, stored path, or command line
    variants TEXT NOT NULL,        -- JSON list
    content_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (name, version)
);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    spec TEXT NOT NULL,            -- JSON
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,        -- tournament_id * 1e9 + idx
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    players INTEGER NOT NULL,
    status TEXT NOT NULL,          -- done
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    worker TEXT NOT NULL,
    finished_at REAL NOT NULL,
    UNIQUE (tournament_id, idx)
);
CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    engine_rank INTEGER NOT NULL,
    breakdown TEXT NOT NULL,       -- JSON
    fault TEXT,
    fault_detail TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE logs (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    jsonl BLOB NOT NULL
);
CREATE INDEX seats_bot ON seats(bot);
"""
# Version 1: the planned schedule, failed matches and driver leases.
SCHEMA_V1 = """
CREATE TABLE schedule (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,            -- JSON list, by seat
    planned_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE failures (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    error TEXT NOT NULL,
    failed_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE leases (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    since REAL NOT NULL,
    heartbeat REAL NOT NULL
);
"""
# Version 2: each tournament's secret key (arena/referee/keys.py), kept so a resumed
# tournament plays the same games.
SCHEMA_V2 = """
CREATE TABLE tournament_keys (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
    secret BLOB NOT NULL
);
"""
# Version 3: rating checkpoints (leaderboards/checkpoints.py). A checkpoint holds every
# leaderboard of a variant after its matches up to ``position`` (a match id: ids sort in
# rating order). The triggers drop every checkpoint a stored match changes under, in the
# writer's own transaction, so no writer (an older driver included) needs to know about
# them; ``epoch`` counts removals, so a checkpoint computed from a read is saved only if
# nothing it covers went or came meanwhile (ResultsStore.save_rating_checkpoints).
SCHEMA_V3 = """
CREATE TABLE rating_checkpoints (
    variant TEXT NOT NULL,
    position INTEGER NOT NULL,     -- id of the last match it holds
    matches INTEGER NOT NULL,      -- how many of the variant's matches it holds
    model TEXT NOT NULL,           -- the rating model and state format it was made with
    state BLOB NOT NULL,
    digest TEXT NOT NULL,          -- sha256 of state
    saved_at REAL NOT NULL,
    PRIMARY KEY (variant, position)
);
CREATE TABLE ratings_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epoch INTEGER NOT NULL
);
INSERT OR IGNORE INTO ratings_epoch (id, epoch) VALUES (1, 0);
CREATE INDEX IF NOT EXISTS matches_variant ON matches(variant, id);
CREATE TRIGGER IF NOT EXISTS checkpoints_match_added AFTER INSERT ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE variant = NEW.variant AND position >= NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_match_removed AFTER DELETE ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE variant = OLD.variant AND position >= OLD.id;
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_match_changed AFTER UPDATE ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE position >= MIN(OLD.id, NEW.id);
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_seat_changed AFTER UPDATE ON seats BEGIN
    DELETE FROM rating_checkpoints WHERE position >= MIN(OLD.match_id, NEW.match_id);
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
"""
# Version 4: each variant's count of stored matches, kept by triggers in the writer's own
# transaction (an older writer's too), so that how many of a variant's matches sort at or
# before a checkpoint is its count less those after it: a count of the few matches stored
# since the checkpoint, not of the whole store.
SCHEMA_V4 = """
CREATE TABLE variant_counts (
    variant TEXT PRIMARY KEY,
    matches INTEGER NOT NULL
);
INSERT OR IGNORE INTO variant_counts (variant, matches)
    SELECT variant, COUNT(*) FROM matches GROUP BY variant;
CREATE TRIGGER IF NOT EXISTS counts_match_added AFTER INSERT ON matches BEGIN
    INSERT INTO variant_counts (variant, matches) VALUES (NEW.variant, 1)
        ON CONFLICT (variant) DO UPDATE SET matches = matches + 1;
END;
CREATE TRIGGER IF NOT EXISTS counts_match_removed AFTER DELETE ON matches BEGIN
    UPDATE variant_counts SET matches = matches - 1 WHERE variant = OLD.variant;
END;
CREATE TRIGGER IF NOT EXISTS counts_match_moved AFTER UPDATE OF variant ON matches
    WHEN OLD.variant IS NOT NEW.variant BEGIN
    UPDATE variant_counts SET matches = matches - 1 WHERE variant = OLD.variant;
    INSERT INTO variant_counts (variant, matches) VALUES (NEW.variant, 1)
        ON CONFLICT (variant) DO UPDATE SET matches = matches + 1;
END;
"""
# Version 5: a competition's board checkpoints (arena/server/boardstate.py): one ladder's
# board after its matches up to ``position``, less the ones voided then (``voided``), so a
# server starts from the newest instead of rating every match again. Each tournament's count
# of stored matches is kept, as the variants' are, so that how many of its matches sort at
# or before a position is the count less the few after it. The triggers drop every board
# checkpoint a stored match changes under, in the writer's own transaction.
SCHEMA_V5 = """
CREATE TABLE board_checkpoints (
    tournament_id INTEGER NOT NULL,
    position INTEGER NOT NULL,     -- id of the last match it holds
    matches INTEGER NOT NULL,      -- the tournament's stored matches up to it, voided ones too
    voided TEXT NOT NULL,          -- JSON list: the ids up to it left out (voided by an admin)
    model TEXT NOT NULL,           -- the rating model and state format it was made with
    state BLOB NOT NULL,
    digest TEXT NOT NULL,          -- sha256 of state
    saved_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE tournament_counts (
    tournament_id INTEGER PRIMARY KEY,
    matches INTEGER NOT NULL
);
INSERT OR IGNORE INTO tournament_counts (tournament_id, matches)
    SELECT tournament_id, COUNT(*) FROM matches GROUP BY tournament_id;
CREATE TRIGGER IF NOT EXISTS boards_match_added AFTER INSERT ON matches BEGIN
    DELETE FROM board_checkpoints
        WHERE tournament_id = NEW.tournament_id AND position >= NEW.id;
    INSERT INTO tournament_counts (tournament_id, matches) VALUES (NEW.tournament_id, 1)
        ON CONFLICT (tournament_id) DO UPDATE SET matches = matches + 1;
END;
CREATE TRIGGER IF NOT EXISTS boards_match_removed AFTER DELETE ON matches BEGIN
    DELETE FROM board_checkpoints
        WHERE tournament_id = OLD.tournament_id AND position >= OLD.id;
    UPDATE tournament_counts SET matches = matches - 1 WHERE tournament_id = OLD.tournament_id;
END;
CREATE TRIGGER IF NOT EXISTS boards_match_changed AFTER UPDATE ON matches BEGIN
    DELETE FROM board_checkpoints WHERE position >= MIN(OLD.id, NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS boards_seat_changed AFTER UPDATE ON seats BEGIN
    DELETE FROM board_checkpoints WHERE position >= MIN(OLD.match_id, NEW.match_id);
END;
"""
# What each version adds to the one before it.
MIGRATIONS = {1: SCHEMA_V1, 2: SCHEMA_V2, 3: SCHEMA_V3, 4: SCHEMA_V4, 5: SCHEMA_V5}


def statements(script: str) -> Iterator[str]:
    """The SQL statements of ``script`` one by one (a trigger's body holds semicolons)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""

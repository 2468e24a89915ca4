"""The accounts store's schema, versioned: ``PRAGMA user_version`` names the last step
applied, and opening a store applies the steps after it, each in its own transaction.

A competition runs for weeks, and the arena is upgraded under it: a data folder made by
an older arena must open in a newer one with nothing lost, and a data folder made by a
newer arena must be refused in one line rather than half understood. Steps are only ever
appended; a released step is never edited (a test opens a data folder made by the first
versioned release and checks every step on it).
"""

from __future__ import annotations

import sqlite3

from arena.tournament.store import StoreError, statements

# The first version: the tables as the arena first made them. Its statements say
# IF NOT EXISTS, so a data folder made before the schema had a version (user_version 0,
# the same tables) takes this step as a no-op and is marked version 1.
VERSION_1 = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password TEXT NOT NULL,         -- argon2id hash
    role TEXT NOT NULL,             -- participant | admin
    disabled INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,       -- sha256 of the cookie's id
    user_id INTEGER NOT NULL REFERENCES users(id),
    csrf TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    token_hash TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS failures (
    key TEXT NOT NULL,              -- account:NAME or address:IP
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS failures_key ON failures(key, at);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    bot TEXT NOT NULL,              -- the participant's name for it
    upload TEXT NOT NULL,           -- the upload as kept, relative to the data folder
    status TEXT NOT NULL,           -- queued | validating | ok | rejected
    reason TEXT NOT NULL DEFAULT '',
    stderr TEXT NOT NULL DEFAULT '',
    version INTEGER,                -- its version in the results store, once it passed
    active INTEGER NOT NULL DEFAULT 0,
    disabled INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_user ON submissions(user_id, created_at);
CREATE TABLE IF NOT EXISTS voided (
    match_id INTEGER PRIMARY KEY,
    by_user INTEGER NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS finals (
    board TEXT PRIMARY KEY,         -- VARIANT-PLAYERSp
    bots TEXT NOT NULL,             -- JSON list: who plays it, fixed at the deadline
    finished INTEGER NOT NULL DEFAULT 0
);
"""

# Tokens carry the scopes chosen when they were made (comma-separated: submit, read,
# admin). A token made before scopes existed keeps what it could do on the API then:
# upload and read its owner's submissions, never the admin scope.
TOKEN_SCOPES = """
ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'submit,read';
"""

# Validation per ranked board: each submission's outcome on each board (variant and
# player count) it was validated on; a version plays only the boards it passed. A
# submission with no rows (validated before boards were) plays every board, as it did.
# Challenges: a participant's games against chosen opponents on a board, played as a
# tournament of their own (never on the boards).
BOARDS_AND_CHALLENGES = """
CREATE TABLE board_results (
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    board TEXT NOT NULL,            -- VARIANT-PLAYERSp
    passed INTEGER NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    stderr TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (submission_id, board)
);
CREATE TABLE challenges (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    board TEXT NOT NULL,            -- VARIANT-PLAYERSp
    bots TEXT NOT NULL,             -- JSON list: the challenger's bot, then its opponents
    owners TEXT NOT NULL,           -- JSON list: each bot's owner ('' for a built-in bot)
    games INTEGER NOT NULL,
    elo1 REAL,                      -- a sequential verdict (H0 0 Elo, H1 elo1), or NULL
    status TEXT NOT NULL,           -- queued | done
    reason TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX challenges_user ON challenges(user_id, created_at);
"""

# Announcements: what the organisers tell everyone on the home page (plain text).
ANNOUNCEMENTS = """
CREATE TABLE announcements (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),  -- the admin who posted it
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

# Running a class for a term. Finals are kept per round: a deadline moved after a final
# plays a new round (the old one stays as history), each round with the deadline it was
# played at (round 1: those played before rounds existed). One-time password-reset codes
# an admin hands over (hashed, expiring, used once). The reason an admin gave for
# disabling a submission, shown to its owner. Settings an admin changes while the server
# runs (the deadline moved on /admin) and what the arena must know without the
# competition file (its name and boards, for ``arena admin export``).
CLASS_TERM = """
CREATE TABLE final_rounds (
    board TEXT NOT NULL,            -- VARIANT-PLAYERSp
    round INTEGER NOT NULL,         -- 1, 2, ...: a new one each time the deadline moves
    deadline TEXT,                  -- the deadline (ISO 8601) it was played at
    bots TEXT NOT NULL,             -- JSON list: who plays it, fixed at the deadline
    finished INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (board, round)
);
INSERT INTO final_rounds (board, round, deadline, bots, finished)
    SELECT board, 1, NULL, bots, finished FROM finals;
DROP TABLE finals;
CREATE TABLE password_resets (
    code_hash TEXT PRIMARY KEY,     -- sha256 of the code the admin hands over
    user_id INTEGER NOT NULL REFERENCES users(id),
    by_user INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL
);
ALTER TABLE submissions ADD COLUMN disabled_reason TEXT NOT NULL DEFAULT '';
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    at REAL NOT NULL
);
"""

# Teams: participants working together (``[teams] max_size``). An account is in at most
# one team (``team_members.user_id`` is the key); its owner hands out one-time invite
# codes (hashed, expiring, used once, as password resets are).
TEAMS = """
CREATE TABLE teams (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    owner_id INTEGER NOT NULL REFERENCES users(id),
    created_at REAL NOT NULL
);
CREATE TABLE team_members (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    team_id INTEGER NOT NULL REFERENCES teams(id),
    joined_at REAL NOT NULL
);
CREATE INDEX team_members_team ON team_members(team_id);
CREATE TABLE team_invites (
    code_hash TEXT PRIMARY KEY,     -- sha256 of the code the owner hands over
    team_id INTEGER NOT NULL REFERENCES teams(id),
    by_user INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL,
    used_by INTEGER
);
"""

# Ranked challenges (``[challenges] ranked = true``): a ranked challenge's games are
# stored as its board's ladder matches, at the ladder indices from ``ladder_start`` on
# (reserved when the worker first plans it; NULL until then).
RANKED_CHALLENGES = """
ALTER TABLE challenges ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN ladder_start INTEGER;
"""

# A final's sides, fixed with its bots: each bot's team (``team:ID``) or owner, so that a
# restart plays the same tables however teams changed since (NULL: fixed before sides
# were kept, played with no two bots kept apart, as it was planned).
FINAL_SIDES = """
ALTER TABLE final_rounds ADD COLUMN sides TEXT;
"""

# Step N brings a store from version N-1 to N. Append only.
STEPS: dict[int, str] = {
    1: VERSION_1,
    2: TOKEN_SCOPES,
    3: BOARDS_AND_CHALLENGES,
    4: ANNOUNCEMENTS,
    5: CLASS_TERM,
    6: TEAMS,
    7: RANKED_CHALLENGES,
    8: FINAL_SIDES,
}
VERSION = max(STEPS)


class SchemaError(StoreError):
    """The accounts store cannot be opened by this arena; the message says what to do."""


def migrate(db: sqlite3.Connection, path: object) -> int:
    """Bring the store open on ``db`` (autocommit mode) up to ``VERSION``; the version it
    had. Each step and its new ``user_version`` commit together, and the version is read
    again inside each step's transaction: a kill between steps leaves a store of the last
    whole step, and two processes opening one store at once apply each step once."""
    first = current(db, path)
    while True:
        db.execute("BEGIN IMMEDIATE")
        try:
            found = current(db, path)
            if found == VERSION:
                db.execute("COMMIT")
                return first
            for statement in statements(STEPS[found + 1]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {found + 1}")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def current(db: sqlite3.Connection, path: object) -> int:
    """The store's version; a store of a newer arena is refused in one line."""
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found > VERSION:
        raise SchemaError(
            f"{path} was written by a newer ttr-arena (accounts version {found}; this one "
            f"knows up to {VERSION}): upgrade ttr-arena to serve this data folder"
        )
    return found

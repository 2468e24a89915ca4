"""The results store: one SQLite file; its modules (``store*.py``) are the only ones that
read or write SQL.

Tables: ``bots`` (registered submissions), ``tournaments``, ``schedule`` (every
planned match, stored before it is played: a resumed tournament replays the
same plan), ``matches`` (one row per finished game; its id is a function of
tournament and schedule index), ``seats`` (per-seat results), ``logs`` (the
JSON-lines match logs, zlib-compressed: ``arena.tournament.compact``), ``failures``
(matches the arena could not play) and ``leases`` (which driver is running a
tournament), ``rating_checkpoints`` (the leaderboards' state after a prefix of a
variant's matches, ``leaderboards.checkpoints``).

Durability: WAL journal, ``synchronous=FULL``, one transaction per finished
match, so a kill at any moment (or a power cut) leaves either the whole match
or nothing, and a full disk or a read-only folder fails the transaction
without touching what is stored. The file carries an application id and a
schema version (``PRAGMA application_id`` / ``user_version``); a file that is
empty, not SQLite, someone else's, newer, or damaged is refused with one line
that says what to do, never taken for a new store; so is a folder that holds no
store but the traces of a replacement or backup cut short (``replacement_traces``).
Stores written before the schema had a version are migrated when opened.

``ResultsStore`` is made of one part per concern, each a class over the one shared
connection (``storebase.StoreBase``: opening, migrating, errors, transactions):
``storetournaments`` (tournaments, leases, the schedule, failures, keys),
``storematches`` (storing and reading matches), ``storecheckpoints`` (rating and board
checkpoints) and ``storebots`` (the bots' registry and one bot's matches). The schema is
in ``storeschema``, the file's checks and errors in ``storefile``; looking after a store
(check, recover, backup) in ``storecare``. Every name is importable from here.
"""

from __future__ import annotations

from arena.tournament.storebase import StoreBase
from arena.tournament.storebots import BotFilter, StoreBots
from arena.tournament.storecheckpoints import (
    CHECKPOINT_WAIT_SECONDS,
    MATCHES_AFTER,
    MATCHES_OF_UP_TO,
    MATCHES_UP_TO,
    VARIANT_COUNT,
    StoreCheckpoints,
    StoredCheckpoint,
    count_up_to,
    ids_after,
    left_out_ids,
)
from arena.tournament.storefile import (
    CHECK_HINT,
    DAMAGED_SUFFIX,
    PARTIAL_SUFFIX,
    RECOVER_SUFFIX,
    SQLITE_HEADER,
    TRACES,
    StoreCutShort,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreMissing,
    StoreReadOnly,
    TournamentBusy,
    _uri,
    create_store_file,
    inspect_file,
    integrity_problems,
    replacement_traces,
)
from arena.tournament.storematches import StoreMatches
from arena.tournament.storeschema import (
    APPLICATION_ID,
    FILE_NAME,
    MIGRATIONS,
    SCHEMA,
    SCHEMA_VERSION,
    statements,
)
from arena.tournament.storetournaments import Failure, StoreTournaments, TournamentInfo

__all__ = [
    "APPLICATION_ID",
    "CHECKPOINT_WAIT_SECONDS",
    "CHECK_HINT",
    "DAMAGED_SUFFIX",
    "FILE_NAME",
    "MATCHES_AFTER",
    "MATCHES_OF_UP_TO",
    "MATCHES_UP_TO",
    "MIGRATIONS",
    "PARTIAL_SUFFIX",
    "RECOVER_SUFFIX",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SQLITE_HEADER",
    "TRACES",
    "VARIANT_COUNT",
    "BotFilter",
    "Failure",
    "ResultsStore",
    "StoreBase",
    "StoreCutShort",
    "StoreDamaged",
    "StoreError",
    "StoreFull",
    "StoreMissing",
    "StoreReadOnly",
    "StoredCheckpoint",
    "TournamentBusy",
    "TournamentInfo",
    "_uri",
    "count_up_to",
    "create_store_file",
    "ids_after",
    "inspect_file",
    "integrity_problems",
    "left_out_ids",
    "replacement_traces",
    "statements",
]


class ResultsStore(StoreTournaments, StoreMatches, StoreCheckpoints, StoreBots):
    """The results store ``results.sqlite`` in ``data_dir``.

    Opened for writing (the default; the folder and the store are created if
    new), or with ``read_only=True`` for readers (leaderboards, exports, the
    site), which never write, also on an archived copy in a read-only folder.
    ``check=True`` runs SQLite's quick integrity check on open.
    """

"""Rating checkpoints: every way the stored matches can change under a checkpoint gives the
boards of a full recompute, bit for bit (real SQLite, real processes, the ``arena`` command
as a user runs it)."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import msgspec
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.ratings import rate
from arena.tournament.results import MatchResult, match_id
from arena.tournament.store import SCHEMA_VERSION, ResultsStore
from arena.tournament.views import PERSON_KIND, on_boards
from leaderboards import checkpoints
from leaderboards.checkpoints import current_standings, to_checkpoint
from leaderboards.site import Site
from leaderboards.standings import Standings
from leaderboards.tables import rate_with_history
from tests.store_helpers import arena, folder_state, read_only

NAMES = [f"bot{i}" for i in range(7)]


def synthetic(idx: int, rng: random.Random, variant: str = "usa", players: int = 0) -> MatchResult:
    """A finished match: random seats (now and then a bot twice), ranks with ties, forfeits."""
    players = players or rng.choice([2, 3, 4])
    bots = rng.sample(NAMES, players)
    if rng.random() < 0.1:
        bots[-1] = bots[0]
    ranks = sorted(rng.randint(1, players) for _ in range(players))
    rng.shuffle(ranks)
    faults = tuple("timeout" if rng.random() < 0.05 else None for _ in range(players))
    return MatchResult(
        idx=idx,
        variant=variant,
        seed=idx,
        bots=tuple(bots),
        scores=tuple(rng.randint(0, 150) for _ in range(players)),
        ranks=tuple(ranks),
        engine_ranks=tuple(ranks),
        faults=faults,
        breakdown=({},) * players,
        decisions=1,
        seconds=0.01,
        worker="test",
    )


def fill(
    store: ResultsStore, name: str, indices, seed: int = 0, spec: dict | None = None, **kind
) -> int:
    rng = random.Random(f"{name}-{seed}")
    tid = store.tournament(name, name, spec or {})
    matches = {i: synthetic(i, rng, **kind) for i in range(max(indices) + 1)}
    store.record_many(tid, [matches[i] for i in indices])
    return tid


def view_matches(
    store: ResultsStore, variant: str = "usa", include_tests: bool = False
) -> list[MatchResult]:
    """The variant's matches a view of the boards counts, chosen here from every stored
    match by its tournament's description (not by the store's own filter)."""
    specs = {t.name: t.spec for t in store.tournaments()}
    everything = store.results(variant=variant, details=False)
    return [m for m in everything if on_boards(specs[m.tournament], include_tests)]


def full_recompute(
    store: ResultsStore, variant: str = "usa", include_tests: bool = False
) -> Standings:
    standings = Standings(variant)
    standings.add_all(view_matches(store, variant, include_tests))
    return standings


def assert_identical(
    got: Standings, store: ResultsStore, variant: str = "usa", include_tests: bool = False
) -> None:
    """``got`` holds the boards of a full recompute of its view, and each board's ratings are
    those of the bare rating rule over that board's matches, to the last bit."""
    want = full_recompute(store, variant, include_tests)
    assert (got.position, got.matches) == (want.position, want.matches)
    assert set(got.by_count) == set(want.by_count)
    matches = view_matches(store, variant, include_tests)
    for players in (None, *want.by_count):
        assert got.board(players).rows() == want.board(players).rows(), players
        chosen = [m for m in matches if players in (None, len(m.bots))]
        bare = rate((m.bots, m.ranks) for m in chosen)
        exact = {bot: (r.pi, r.tau) for bot, r in got.board(players).ratings.items()}
        assert exact == {bot: (r.pi, r.tau) for bot, r in bare.items()}, players


def with_id(match: MatchResult, key: int) -> MatchResult:
    return msgspec.structs.replace(match, match_id=key)


def stored(data: Path, variant: str = "usa") -> list[tuple[int, int]]:
    with ResultsStore.reader(data) as store:
        return store.rating_checkpoints(variant)


@pytest.fixture
def spaced(monkeypatch):
    """Milestone checkpoints every 5 matches (keeping the 3 newest dense), so a few dozen
    matches have several."""
    monkeypatch.setattr(checkpoints, "SPACING", 5)
    monkeypatch.setattr(checkpoints, "RECENT", 3)
    monkeypatch.setattr(checkpoints, "SPARSE", 2)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), total=st.integers(1, 24), cut=st.integers(0, 24))
def test_standings_saved_and_resumed_equal_standings_folded_in_one_go(seed, total, cut):
    rng = random.Random(seed)
    matches = [with_id(synthetic(i, rng), match_id(1, i)) for i in range(total)]
    whole = Standings("usa")
    whole.add_all(matches)
    first = Standings("usa")
    first.add_all(matches[: min(cut, total)])
    resumed = Standings.from_bytes(first.to_bytes())
    resumed.add_all(matches[min(cut, total) :])
    assert resumed.to_bytes() == whole.to_bytes()
    for players in (None, 2, 3, 4):
        assert resumed.board(players).rows() == whole.board(players).rows()


def test_a_new_match_folds_into_the_checkpoint_and_an_earlier_one_resumes_before_it(
    tmp_path, spaced
):
    store = ResultsStore(tmp_path)
    tid = fill(store, "t", [i for i in range(30) if i != 12])
    assert_identical(current_standings(store, "usa"), store)
    kept = stored(tmp_path)
    assert kept[0] == (match_id(tid, 29), 29), "the newest state is kept"
    assert [count for _, count in kept[1:]] == [25, 20, 15, 10], "and the milestones"

    # The checkpoint is what the next answer starts from: a planted one shows through.
    planted = full_recompute(store)
    planted.by_count[2].tallies["bot0"][2] += 100_000  # score
    store.save_rating_checkpoints([to_checkpoint(planted)], store.ratings_epoch() or 0)
    assert current_standings(store, "usa").board(2).tallies["bot0"][2] >= 100_000
    store.save_rating_checkpoints([to_checkpoint(full_recompute(store))], 0)

    # One new match after it: folded in, and the new state replaces the old newest one.
    store.record(tid, synthetic(30, random.Random(1)))
    assert_identical(current_standings(store, "usa"), store)
    assert stored(tmp_path)[0] == (match_id(tid, 30), 30)

    # A resumed tournament fills the gap at 12: every checkpoint at or after it goes in the
    # same transaction; the answer resumes from the one before it (10 matches in).
    store.record(tid, synthetic(12, random.Random(2)))
    assert [count for _, count in stored(tmp_path)] == [10]
    assert_identical(current_standings(store, "usa"), store)
    assert stored(tmp_path)[0] == (match_id(tid, 30), 31)


def test_damaged_checkpoints_are_skipped_and_dropped(tmp_path, spaced):
    store = ResultsStore(tmp_path)
    fill(store, "t", range(22))
    current_standings(store, "usa")
    newest = stored(tmp_path)[0][0]
    damage = {
        "bytes changed": "UPDATE rating_checkpoints SET state = CAST('{\"x\":' AS BLOB)",
        "state with a matching digest but no standings": (
            "UPDATE rating_checkpoints SET state = CAST('[]' AS BLOB),"
            f" digest = '{hashlib.sha256(b'[]').hexdigest()}'"
        ),
        "count that does not match the store": "UPDATE rating_checkpoints SET matches = 3",
        "another rating model": "UPDATE rating_checkpoints SET model = 'elo'",
    }
    for what, sql in damage.items():
        store.db.execute(sql + " WHERE position = ?", (newest,))
        assert_identical(current_standings(store, "usa"), store)
        assert stored(tmp_path)[0] == (newest, 22), f"{what}: replaced by a sound one"
    store.db.execute("DELETE FROM rating_checkpoints")
    store.db.execute("UPDATE ratings_epoch SET epoch = epoch + 5")  # as by deleted matches
    assert_identical(current_standings(store, "usa"), store)


def test_a_stale_computation_is_not_saved_over_newer_matches(tmp_path):
    """A leaderboard computed from a read, saved after a writer changed what it covers, is
    refused: a match added at or before its position, or any match removed meanwhile."""
    store = ResultsStore(tmp_path)
    tid = fill(store, "t", [0, 1, 3, 4])
    epoch = store.ratings_epoch() or 0
    stale = to_checkpoint(full_recompute(store))
    store.record(tid, synthetic(2, random.Random(0)))  # a gap filled meanwhile
    assert not store.save_rating_checkpoints([stale], epoch)
    fresh = to_checkpoint(full_recompute(store))
    fill(store, "u", [0])
    store.delete_tournament("u")
    assert not store.save_rating_checkpoints([fresh], epoch), "a removal since the read"
    assert store.save_rating_checkpoints([fresh], store.ratings_epoch() or 0)
    assert stored(tmp_path) == [(fresh.position, 5)]


WRITER = """
import random, sys
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
data, name, order = sys.argv[1], sys.argv[2], sys.argv[3]
store = ResultsStore(data)
tid = store.tournament(name, name, {})
rng = random.Random(name)
indices = [*range(0, 30, 2), *range(1, 30, 2)] if order == "gaps" else range(30)
for i in indices:
    bots, ranks = rng.sample(sys.argv[4:], 3), [rng.randint(1, 3) for _ in range(3)]
    store.record(tid, MatchResult(i, "usa", i, tuple(bots), (1, 2, 3), tuple(ranks),
                                  tuple(ranks), (None,) * 3, log=b"{}"))
"""


def test_two_drivers_writing_while_leaderboards_are_read_and_saved(tmp_path):
    data = tmp_path / "data"
    ResultsStore(data).close()
    root = Path(__file__).resolve().parent.parent
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(data), name, order, *NAMES], cwd=root)
        for name, order in (("first", "gaps"), ("second", "in-order"))
    ]
    store = ResultsStore(data)
    while any(w.poll() is None for w in writers):
        current_standings(store, "usa")  # saves as it goes, racing the writers
    assert [w.returncode for w in writers] == [0, 0]
    assert_identical(current_standings(store, "usa"), store)
    assert stored(data)[0][1] == 60


def test_leaderboard_journey_through_deletes_removals_archives_and_an_old_schema(tmp_path):
    data = tmp_path / "data"
    with ResultsStore(data) as store:
        fill(store, "first", range(25))
        second = fill(store, "second", [i for i in range(20) if i != 7])
        fill(store, "europe", range(6), variant="europe")
        store.register_bot("bot1", "command", "python -m somebot", ["usa"], "0" * 64)

    def board(*extra: str) -> list[dict]:
        out = arena("leaderboard", "--format", "json", *extra, data_dir=data)
        assert out.code == 0, out.text
        return json.loads(out.out)

    def expected(players: int | None = None) -> list[dict]:
        with ResultsStore.reader(data) as store:
            return full_recompute(store).board(players).rows()

    def same(shown: list[dict], players: int | None = None) -> None:
        want = expected(players)
        assert [row["bot"] for row in shown] == [row["bot"] for row in want]
        for got, row in zip(shown, want, strict=True):
            assert got["games"] == row["games"] and got["forfeits"] == row["forfeits"]
            assert got["mu"] == pytest.approx(row["mu"], rel=1e-9)
            assert got["sigma"] == pytest.approx(row["sigma"], rel=1e-9)

    table = arena("leaderboard", data_dir=data)
    assert table.code == 0 and "usa leaderboard, 4 players" in table.out, table.text
    assert stored(data)[0][1] == 44, "the first answer saved its checkpoint"

    with ResultsStore(data) as store:  # the second tournament resumed: its gap filled
        store.record(second, synthetic(7, random.Random(7)))
    removed = arena("bots", "remove", "bot1", "--yes", data_dir=data)
    assert removed.code == 0, removed.text  # its matches stay: the same boards
    same(board())
    assert stored(data)[0][1] == 45
    deleted = arena("tournament", "delete", "first", "--yes", data_dir=data)
    assert deleted.code == 0, deleted.text
    assert stored(data) == [], "every checkpoint held the deleted tournament's matches"
    same(board())

    with ResultsStore(data) as store:  # a later tournament after the checkpoint
        fill(store, "third", range(3))
    before = folder_state(data)
    with read_only(data):  # an archive: answers from the checkpoint plus 3, writes nothing
        same(board())
        assert folder_state(data) == before

    # A store of the schema before checkpoints, read as it is, then migrated by a writer.
    db = sqlite3.connect(data / "results.sqlite", isolation_level=None)
    for kind, name in db.execute(
        "SELECT type, name FROM sqlite_master WHERE (name LIKE '%checkpoint%'"
        " OR name IN ('ratings_epoch', 'matches_variant')) AND name NOT LIKE 'sqlite_%'"
        " ORDER BY type = 'table'"
    ).fetchall():
        db.execute(f"DROP {kind.upper()} {name}")
    db.execute("PRAGMA user_version = 2")
    db.close()
    before = (data / "results.sqlite").read_bytes()
    same(board())
    assert (data / "results.sqlite").read_bytes() == before, "a reader never migrates"
    with ResultsStore(data) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    europe = arena("leaderboard", "--variant", "europe", "--format", "json", data_dir=data)
    assert europe.code == 0 and len(json.loads(europe.out)) > 1, europe.text
    assert stored(data, "europe")[0][1] == 6 and stored(data) == []


def test_the_site_and_a_live_server_resume_from_checkpoints_and_their_last_read(tmp_path):
    store = ResultsStore(tmp_path)
    tid = fill(store, "t", range(12))
    current_standings(store, "usa")
    site = Site(ResultsStore.reader(tmp_path), live=True)
    assert_identical(site.snapshot.standings("usa"), store)
    planted = full_recompute(store)
    planted.by_count[3].tallies["bot2"][0] += 1000  # games: shows where boards come from
    store.save_rating_checkpoints([to_checkpoint(planted)], store.ratings_epoch() or 0)
    site.refresh()
    assert site.snapshot.standings("usa").board(3).tallies["bot2"][0] >= 1000
    store.db.execute("DELETE FROM rating_checkpoints")
    site.refresh()  # its own last read (no checkpoint left): still the planted numbers
    assert site.snapshot.standings("usa").board(3).tallies["bot2"][0] >= 1000
    before = site.snapshot.history("usa")  # the bot pages' plots: extended the same way
    store.record(tid, synthetic(12, random.Random(5)))  # a match lands: folded into it
    site.refresh()
    assert site.snapshot.standings("usa").board(3).tallies["bot2"][0] >= 1000
    history = site.snapshot.history("usa")
    assert history is not before and history.rows[: len(before.rows)] == before.rows
    pd.testing.assert_frame_equal(
        history.frame(), rate_with_history(store.results(variant="usa", details=False))[1]
    )
    fill(store, "u", [0])
    store.delete_tournament("u")
    site.refresh()  # a removal: its last read no longer counts, a full recompute
    assert_identical(site.snapshot.standings("usa"), store)


@pytest.mark.parametrize(
    "state",
    [
        b"[" * 100_000,  # nested past the recursion limit
        b"\xff\xfe",
        b"null",
        b'{"variant": "usa"}',
        b'{"variant":"usa","position":1,"matches":1,"all":null,'
        b'"by_count":{"2":{"a":[1,0,0,0,0,0,NaN,1]}}}',
        b'{"variant":"usa","position":1,"matches":1,"all":null,'
        b'"by_count":{"2":{"a":[1,5,0,0,0,0]}}}',  # more wins than games
        b'{"variant":"usa","position":1,"matches":1,"all":null,'
        b'"by_count":{"2":{"a":[1,0,0,0,0,0]},"3":{"a":[1,0,0,0,0,0]}}}',
    ],
)
def test_a_hostile_state_with_a_matching_digest_is_refused_not_a_crash(tmp_path, state):
    with pytest.raises(ValueError):
        Standings.from_bytes(state)
    store = ResultsStore(tmp_path)
    fill(store, "t", range(3))
    current_standings(store, "usa")
    store.db.execute(
        "UPDATE rating_checkpoints SET state = ?, digest = ?",
        (state, hashlib.sha256(state).hexdigest()),
    )
    assert_identical(current_standings(store, "usa"), store)


def test_dropping_a_damaged_newer_checkpoint_keeps_the_sound_one_it_fell_back_to(tmp_path):
    store = ResultsStore(tmp_path)
    tid = fill(store, "t", range(4))
    current_standings(store, "usa")
    sound = stored(tmp_path)
    assert sound == [(match_id(tid, 3), 4)]
    store.db.execute(  # a checkpoint past every stored match: unsound
        "INSERT INTO rating_checkpoints VALUES ('usa', ?, 4, 'x', X'00', 'x', 0)",
        (match_id(tid, 50),),
    )
    assert_identical(current_standings(store, "usa"), store)
    assert stored(tmp_path) == sound


def test_nothing_new_writes_nothing(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, "t", range(4))
    current_standings(store, "usa")
    saved_at = "SELECT position, saved_at FROM rating_checkpoints"
    before = store.db.execute(saved_at).fetchall()
    assert_identical(current_standings(store, "usa"), store)
    assert store.db.execute(saved_at).fetchall() == before


def test_the_kept_count_of_each_variant_follows_every_write_and_a_migration(tmp_path):
    """``matches_up_to`` reads a count kept by triggers (the newest checkpoint's check costs
    the matches stored since it, not the whole store): after adds, an earlier gap filled,
    a deletion, a moved match and a migration from version 3 it equals a full count."""

    def full(db: sqlite3.Connection, variant: str, position: int) -> int:
        query = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id <= ?"
        return int(db.execute(query, (variant, position)).fetchone()[0])

    def check(store: ResultsStore) -> None:
        ids = [row[0] for row in store.db.execute("SELECT id FROM matches ORDER BY id")]
        for variant in ("usa", "europe"):
            for position in [0, *ids[:: max(1, len(ids) // 7)], *ids[-2:], 10**12]:
                want = full(store.db, variant, position)
                assert store.matches_up_to(variant, position) == want, (variant, position)

    with ResultsStore(tmp_path) as store:
        fill(store, "a", [0, 1, 2, 5, 6])
        fill(store, "b", range(4), variant="europe")
        check(store)
        fill(store, "a2", [3, 4])
        store.record_many(store.tournament("a", "a", {}), [synthetic(3, random.Random(1))])
        check(store)
        first = "(SELECT MIN(id) FROM matches)"
        store.db.execute(f"UPDATE matches SET variant = 'europe' WHERE id = {first}")
        check(store)
        store.delete_tournament("b")
        check(store)
        assert store.matches_up_to("usa", 10**12) == full(store.db, "usa", 10**12) > 0
        store.db.execute("DROP TABLE variant_counts")  # back to version 3: no kept count
        for trigger in ("counts_match_added", "counts_match_removed", "counts_match_moved"):
            store.db.execute(f"DROP TRIGGER {trigger}")
        store.db.execute("PRAGMA user_version = 3")
    with ResultsStore.reader(tmp_path) as reader:
        check(reader)  # an older store read as it is: counted the old way
    with ResultsStore(tmp_path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        check(store)  # migrated: counted from the stored matches
        fill(store, "c", range(3))
        check(store)


TEST = {"format": "sprt"}  # what 'arena test' stores
PERSON = {"kind": PERSON_KIND}  # a person's games


def test_tests_and_peoples_games_stay_off_the_default_boards_and_no_checkpoint_crosses_views(
    tmp_path, spaced
):
    """The default boards count rankings only; with tests, tests too; people's games never.
    Each answer equals a full recompute of its own view; the checkpoints hold the default
    view (their counts are its counts, and they are used again), the view with tests never
    reads them, and a checkpoint that counted every match (saved before tests were left
    out) is not taken for the default view."""
    store = ResultsStore(tmp_path)
    first = fill(store, "rank", [i for i in range(20) if i % 4 != 3])
    fill(store, "a-test", range(14), spec=TEST)
    fill(store, "a-person", range(3), spec=PERSON)
    fill(store, "later", range(9))

    def both() -> None:
        assert_identical(current_standings(store, "usa"), store)
        assert_identical(current_standings(store, "usa", include_tests=True), store, "usa", True)

    both()
    default, tests = full_recompute(store), full_recompute(store, include_tests=True)
    assert default.matches == 15 + 9 and tests.matches == 15 + 14 + 9
    assert "bot0" in tests.board().tallies and default.board().rows() != tests.board().rows()
    newest = stored(tmp_path)[0]
    assert newest == (default.position, default.matches), "checkpoints count the default view"
    saved_at = "SELECT position, saved_at FROM rating_checkpoints"
    before = store.db.execute(saved_at).fetchall()
    both()
    assert store.db.execute(saved_at).fetchall() == before, "used again, as they were"

    # A ranking's gap filled under the test's matches: resumed before it, both views right.
    store.record(first, synthetic(3, random.Random(3)))
    both()
    assert stored(tmp_path)[0] == (default.position, default.matches + 1)

    # A sound checkpoint of every match (the tests and the person's games counted, as one
    # saved before they were left out): its count is not the default view's, never read.
    everything = Standings("usa")
    everything.add_all(store.results(variant="usa", details=False))
    store.db.execute("DELETE FROM rating_checkpoints")
    assert store.save_rating_checkpoints([to_checkpoint(everything)], 0) is False
    old = to_checkpoint(everything)
    store.db.execute(
        "INSERT INTO rating_checkpoints VALUES (?, ?, ?, ?, ?, ?, 0)",
        ("usa", old.position, old.matches, old.model, old.state, old.digest),
    )
    both()

    # The test deleted: the default boards do not move; the view with tests is them now.
    shown = current_standings(store, "usa").board().rows()
    store.delete_tournament("a-test")
    assert current_standings(store, "usa").board().rows() == shown
    assert current_standings(store, "usa", include_tests=True).board().rows() == shown
    both()

"""A competition's disk over weeks: match logs stored compressed (old plain ones still
read), the bots' per-match log files pruned by the competition's retention and its
budget (never a result), and a ladder paced to its matches per hour (by its own clock,
made fast). Real tournaments, real SQLite, the ``arena`` command as a user runs it."""

from __future__ import annotations

import logging
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.referee.matchlog import MatchLog, verify
from arena.server.competition import RetentionTable
from arena.server.ladder import BoardLadder, ladder_spec
from arena.server.pacing import HOUR, Pacer
from arena.server.retention import DAY, disk_use, match_folders, prune, report
from arena.tournament.compact import is_packed
from arena.tournament.executors import LocalExecutor
from arena.tournament.store import ResultsStore
from leaderboards.site import Site
from tests.host_helpers import competition_text
from tests.store_helpers import arena

ROOT = Path(__file__).resolve().parents[1]
TALKER = f"talker=cmd:{sys.executable} {ROOT / 'tests' / 'bots' / 'talker.py'}"
CRASHER = f"crasher=cmd:{sys.executable} {ROOT / 'tests' / 'bots' / 'talker.py'} 3"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real round robin: a bot that writes stderr at every decision, one that crashes
    after three (a fault), two that write nothing."""
    data = tmp_path_factory.mktemp("played")
    out = arena(
        "tournament", "run", "--name", "cup", "--variant", "usa", "--players", "2",
        "--bot", TALKER, "--bot", CRASHER, "--bot", "random", "--bot", "greedy-claims",
        "--games", "1", "--seed", "4", "--workers", "2", data_dir=data,
    )  # fmt: skip
    assert out.code == 0, out.text
    return data


def copy_of(played: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(played, tmp_path / "data")
    return tmp_path / "data"


def raw_logs(data: Path) -> list[bytes]:
    db = sqlite3.connect(data / "results.sqlite")
    try:
        return [bytes(row[0]) for row in db.execute("SELECT jsonl FROM logs ORDER BY match_id")]
    finally:
        db.close()


def test_match_logs_are_stored_compressed_and_read_back_whole(played: Path) -> None:
    stored = raw_logs(played)
    assert len(stored) >= 6 and all(is_packed(raw) for raw in stored)
    with ResultsStore.reader(played) as store:
        for result in store.results("cup"):
            text = store.match_log(result.match_id)
            assert text.startswith(b'{"type":"header"')
            verify(MatchLog.from_jsonl(text))  # the whole game replays to its result
            assert len(text) > 4 * len(stored[0]) / 2  # compressed to well under half


def test_plain_logs_of_an_older_release_still_read_everywhere(played: Path, tmp_path: Path):
    data = copy_of(played, tmp_path)
    with ResultsStore.reader(data) as store:
        first = store.results("cup")[0].match_id
        plain = store.match_log(first)
    db = sqlite3.connect(data / "results.sqlite")
    with db:  # as an older release stored it: the JSON lines as they are
        db.execute("UPDATE logs SET jsonl = ? WHERE match_id = ?", (plain, first))
    db.close()
    assert not is_packed(raw_logs(data)[0])
    with ResultsStore.reader(data) as store:
        assert store.match_log(first) == plain
        site = Site(store)  # the static site and 'arena serve': the replay and its file
        assert site.render(f"matches/{first}.jsonl") == plain
        assert b"window.MATCH" in (site.render(f"matches/{first}.js") or b"")
        second = store.results("cup")[1].match_id  # a compressed one beside it
        assert site.render(f"matches/{second}.jsonl") == store.match_log(second)
    # A log file as the store keeps it (compressed) replays with 'arena replay', as does
    # the plain one.
    packed = next(raw for raw in raw_logs(data) if is_packed(raw))
    (tmp_path / "packed.jsonl").write_bytes(packed)
    (tmp_path / "plain.jsonl").write_bytes(plain)
    for name in ("packed.jsonl", "plain.jsonl"):
        out = arena("replay", str(tmp_path / name))
        assert out.code == 0 and "verified against the recorded result" in out.text, out.text


def test_prune_keeps_every_result_and_removes_logs_no_rule_keeps(played: Path, tmp_path):
    data = copy_of(played, tmp_path)
    with ResultsStore.reader(data) as store:
        results = store.results("cup")
        folders = match_folders(data, store)
    assert len(folders) == len(results)
    empty = {f.path.name for f in folders if f.empty}
    faulted = {f.path.name for f in folders if f.faulted and not f.empty}
    assert empty and faulted, "the quiet bot's matches write nothing; the crasher faults"
    # Every match finished 3 days ago: past log_days (2), within faulted_days (14).
    db = sqlite3.connect(data / "results.sqlite")
    with db:
        db.execute("UPDATE matches SET finished_at = finished_at - ?", (3 * DAY,))
    db.close()
    (tmp_path / "cup.toml").write_text(
        competition_text() + "[retention]\nlogs_per_bot = 1\nlog_days = 2\nfaulted_days = 14\n"
    )
    before = disk_use(data / "bot-logs")
    out = arena("admin", "prune", str(tmp_path / "cup.toml"), data_dir=data)
    assert out.code == 0, out.text
    assert out.text.startswith("pruned ") and "MB freed" in out.text
    left = {p.name for p in (data / "bot-logs" / "cup").iterdir()}
    assert not left & empty, "a match whose bots wrote nothing keeps no folder"
    assert faulted <= left, "faulted matches are kept faulted_days"
    # Besides those, each bot's newest match with logs stays (logs_per_bot = 1): no other.
    written = [f for f in folders if not f.empty]
    bots = {bot for f in written for bot in f.bots}
    newest = {max(f.finished or 0 for f in written if bot in f.bots) for bot in bots}
    assert left == faulted | {f.path.name for f in written if f.finished in newest}
    assert len(left) < len(written)
    assert disk_use(data / "bot-logs") < before
    with ResultsStore.reader(data) as store:  # every result and match log is still there
        assert [r.match_id for r in store.results("cup")] == [r.match_id for r in results]
        for result in results:
            verify(MatchLog.from_jsonl(store.match_log(result.match_id)))
    again = arena("admin", "prune", str(tmp_path / "cup.toml"), data_dir=data)
    assert again.code == 0 and again.text.startswith("pruned 0 match log folders"), again.text


def test_over_its_budget_the_folder_loses_old_logs_faults_last_never_results(
    played: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = copy_of(played, tmp_path)
    with ResultsStore.reader(data) as store:
        results = store.results("cup")
        folders = match_folders(data, store)
    kept = [f for f in folders if not f.empty]
    logs = disk_use(data / "bot-logs")
    # A budget that fits everything but two of the kept folders (generous retention).
    used = disk_use(data)
    budget = used - sum(sorted(f.size for f in kept)[-2:]) // 2
    retention = RetentionTable(log_days=30, logs_per_bot=100, faulted_days=30, budget_bytes=budget)
    pruned = prune(data, retention)
    assert pruned.used <= budget and pruned.freed > 0
    left = {p.name for p in (data / "bot-logs" / "cup").iterdir()}
    gone_with_fault = [f for f in kept if f.faulted and f.path.name not in left]
    gone_clean = [f for f in kept if not f.faulted and f.path.name not in left]
    assert gone_clean, "the oldest logs without a fault go first"
    assert not gone_with_fault or not [f for f in kept if not f.faulted and f.path.name in left]
    # A budget below what the results take: every log goes, every result stays, a warning.
    tiny = RetentionTable(budget_bytes=1000)
    with caplog.at_level(logging.INFO, logger="arena.host"):
        report(prune(data, tiny))
    assert not list((data / "bot-logs" / "cup").iterdir())
    assert "over its budget" in caplog.text
    with ResultsStore.reader(data) as store:
        assert len(store.results("cup")) == len(results)
    assert logs > 0


def test_the_budget_warns_in_the_server_log_past_four_fifths(played: Path, tmp_path, caplog):
    data = copy_of(played, tmp_path)
    used = disk_use(data)
    with caplog.at_level(logging.INFO, logger="arena.host"):
        report(prune(data, RetentionTable(log_days=30, faulted_days=30, budget_bytes=2 * used)))
        assert "of its budget" not in caplog.text
        report(prune(data, RetentionTable(log_days=30, faulted_days=30, budget_bytes=used + 4096)))
    assert "% of its budget" in caplog.text


class Clock:
    """The pacer's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_pacer_allows_at_most_its_matches_in_any_hour_and_spreads_them() -> None:
    clock = Clock()
    pacer = Pacer(60, clock)
    starts: list[float] = []
    for _ in range(4 * 3600):  # four hours, a look every second
        allowed = pacer.allowance()
        if allowed:
            take = min(allowed, 4)  # a wave of 4 at most
            pacer.spend(take)
            starts += [clock.now] * take
        clock.now += 1
    for first in range(len(starts)):
        in_hour = [t for t in starts[first:] if t - starts[first] < HOUR]
        assert len(in_hour) <= 60
    assert len(starts) >= 4 * 60 - 5, "the pace is kept, not just capped"
    first_five_minutes = [t for t in starts if t - starts[0] < 300]
    assert len(first_five_minutes) <= 5 + 5, "a burst of five minutes' worth at most"


def test_a_paced_ladder_plays_its_matches_per_hour_by_its_own_clock(tmp_path: Path) -> None:
    """A real board ladder (real store, real games) with the competition's pace, its clock
    moved five minutes between waves: per hour it plans and plays at most its pace; a
    restart counts the last hour's matches."""
    from arena.server.competition import Competition

    (tmp_path / "c.toml").write_text(competition_text() + "[ladder]\nmatches_per_hour = 12\n")
    competition = Competition.from_toml(tmp_path / "c.toml")
    assert competition.ladder.matches_per_hour == 12
    spec = ladder_spec(competition, "usa", 2)
    data = tmp_path / "data"
    clock = Clock()
    pool = {"random": "a", "greedy-claims": "b"}
    played: list[tuple[float, int]] = []
    with ResultsStore(data) as store, LocalExecutor(1) as executor:

        def ladder() -> BoardLadder:
            made = BoardLadder(
                spec, store, executor, data, lambda: pool, set, lambda: False, wave=4,
                matches_per_hour=competition.ladder.matches_per_hour, clock=clock,
            )  # fmt: skip
            made.in_process = True  # trusted plugin bots: the same games, no processes
            return made

        board = ladder()
        for _ in range(24):  # two hours, a wave every five minutes
            before = len(store.done_indices(board.tournament_id))
            board.play_wave()
            played.append((clock.now, len(store.done_indices(board.tournament_id)) - before))
            clock.now += 300
        board.release()
        total = sum(count for _, count in played)
        assert 20 <= total <= 24, played
        for start, _ in played:
            assert sum(c for t, c in played if start <= t < start + HOUR) <= 12
        # A restart within the hour: the hour's matches count, no second hour's worth.
        for index in store.done_indices(board.tournament_id):
            store.db.execute(
                "UPDATE matches SET finished_at = ? WHERE tournament_id = ? AND idx = ?",
                (clock.now - 60, board.tournament_id, index),
            )
        again = ladder()
        assert again.pacer is not None and again.pacer.allowance() == 0
        assert not again.play_wave()
        again.release()

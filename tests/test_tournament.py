"""Tournaments: schedules, the results store, executors (local and a real Ray cluster),
resuming after kill -9, retried matches, the ladder, submission, pandas and export."""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest
import trueskill

from arena import chaos
from arena.tournament.executors import LocalExecutor
from arena.tournament.frames import matches_frame, seats_frame
from arena.tournament.ladder import next_wave
from arena.tournament.runner import TournamentRunner
from arena.tournament.schedule import fixed_schedule
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import ResultsStore, StoreError
from arena.tournament.submit import SubmissionRejected, submit
from tests.journey import ARENA
from tests.referee_helpers import HOSTILE, left_behind

PLAYER = f"cmd:{sys.executable} {HOSTILE} play"
JS = f"cmd:node {Path(__file__).parent.parent / 'examples' / 'js-bot' / 'bot.js'}"
BOTS = ["random", PLAYER, f"cmd:{sys.executable} {HOSTILE} illegal"]


def spec(name="t", **kw):
    base = dict(name=name, variant="usa", bots=tuple(BOTS), players=(2,), games=2, seed=5)
    base.update(kw)
    return TournamentSpec(**base)


def signature(data_dir: Path, name: str):
    """Everything about the results that must not depend on how they were computed."""
    with ResultsStore.reader(data_dir) as store:
        seats = seats_frame(store, name)
    keep = ["idx", "seat", "bot", "score", "rank", "engine_rank", "fault"]
    return seats[keep].sort_values(["idx", "seat"]).reset_index(drop=True)


# Faults that a loaded machine can cause in an honest bot (a process that did not start, or
# did not answer, in time): a match with one in only one of two runs is another game.
LOAD_FAULTS = {"timeout", "no-show"}


def assert_same_results(expected: pd.DataFrame, actual: pd.DataFrame) -> None:
    """Two runs of one tournament (``signature``s) hold the same matches with the same
    bots, and the same results for every match that load did not disturb: a match where a
    bot timed out in one run only is named in a warning and compared only for its bots,
    and any other difference fails, with the faults of the matches concerned shown."""
    keys = ["idx", "seat", "bot"]
    pd.testing.assert_frame_equal(expected[keys], actual[keys])
    differ = ((expected != actual) & ~(expected.isna() & actual.isna())).any(axis=1)
    timed_out = expected.fault.isin(LOAD_FAULTS) | actual.fault.isin(LOAD_FAULTS)
    loaded = sorted(set(expected.idx[timed_out]) & set(expected.idx[differ]))
    if loaded:
        warnings.warn(f"matches {loaded} differ by a time-out (load)", stacklevel=2)
    bad = sorted(set(expected.idx[differ]) - set(loaded))
    assert not bad, (
        f"matches {bad} differ:\n{expected[expected.idx.isin(bad)].to_string()}\n"
        f"against\n{actual[actual.idx.isin(bad)].to_string()}"
    )


def run_cli(*args, data_dir, check=True, timeout=600):
    quiet = ["--no-progress"] if args[0] == "tournament" else []
    out = subprocess.run(
        [*ARENA, *args, "--data-dir", str(data_dir), *quiet],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


def cli_args(s: TournamentSpec):
    args = [
        "tournament",
        "run",
        "--name",
        s.name,
        "--variant",
        s.variant,
        "--games",
        str(s.games),
        "--seed",
        str(s.seed),
        "--format",
        s.format,
    ]
    for bot in s.bots:
        args += ["--bot", bot]
    for count in s.players:
        args += ["--players", str(count)]
    return args


# ---------------------------------------------------------------- schedules


def test_round_robin_rotates_seats_so_seat_order_favours_nobody():
    s = spec(bots=("a", "b", "c", "d", "e"), players=(4,), games=3)
    matches = fixed_schedule(s)
    assert len(matches) == 5 * 4 * 3  # groups x rotations x games
    seats = collections.Counter((bot, seat) for m in matches for seat, bot in enumerate(m.bots))
    assert len(set(seats.values())) == 1, "every bot sits in every seat equally often"
    assert len({m.seed for m in matches}) == len(matches), "round robin: a new deal each game"


def test_duplicate_plays_each_deal_once_per_rotation():
    matches = fixed_schedule(spec(format="duplicate", players=(3,), games=2))
    by_seed = collections.defaultdict(list)
    for m in matches:
        by_seed[m.seed].append(m.bots)
    assert len(by_seed) == 2
    for seatings in by_seed.values():
        assert len(seatings) == 3 and len({s[0] for s in seatings}) == 3


@pytest.mark.parametrize("format", ["round-robin", "duplicate"])
@pytest.mark.parametrize("players", [(2,), (3,), (2, 4), (2, 3, 4, 5)])
def test_the_planned_count_is_the_schedule_length_without_building_it(format, players):
    """What the size limit, the progress bar and 'tournament list' count, unplanned."""
    s = spec(bots=("a", "b", "c", "d", "e", "f"), players=players, games=3, format=format)
    assert s.planned_matches() == len(fixed_schedule(s))


@pytest.mark.parametrize("players", [(2,), (3,), (2, 3)])
def test_bots_kept_apart_never_share_a_table_and_the_count_says_so(players):
    """A hosted final's sides: no group holds two of one ``apart`` group; the others are
    planned with the deals they have without it; the planned count is the schedule's."""
    bots = ("a1", "a2", "a3", "b1", "b2", "c")
    apart = (("a1", "a2", "a3"), ("b1", "b2"))
    s = spec(bots=bots, players=players, games=2, apart=apart)
    matches = fixed_schedule(s)
    side = {bot: bot[0] for bot in bots}
    assert matches and all(len({side[b] for b in m.bots}) == m.players for m in matches)
    assert s.planned_matches() == len(matches)
    free = {(m.bots, m.seed) for m in fixed_schedule(spec(bots=bots, players=players, games=2))}
    assert {(m.bots, m.seed) for m in matches} == {
        pair for pair in free if len({side[b] for b in pair[0]}) == len(pair[0])
    }
    assert TournamentSpec.from_json(s.to_json()) == s
    assert s.fingerprint != spec(bots=bots, players=players, games=2).fingerprint
    assert "apart" not in spec(bots=bots, players=players, games=2).to_json()


def test_apart_groups_that_leave_no_table_are_refused():
    for apart, words in (
        ((("a", "z"),), "'z' is not one of the bots"),
        ((("a", "b"), ("b", "c")), "'b' is in two groups"),
        ((("a", "b", "c"),), "no table of these bots"),
    ):
        with pytest.raises(SpecError, match=words):
            spec(bots=("a", "b", "c"), players=(2,), apart=apart)


def test_schedules_are_fixed_by_the_seed():
    assert fixed_schedule(spec()) == fixed_schedule(spec())
    assert fixed_schedule(spec()) != fixed_schedule(spec(seed=6))


def test_spec_from_toml_and_its_errors(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "x"\nvariant = "usa"\nbots = ["a", "b"]\nplayers = [2]\n'
        'format = "duplicate"\ngames = 3\nseed = 9\n'
        "[time_control]\nmove_ms = 500\nbank_ms = 2000\n"
    )
    s = TournamentSpec.from_toml(path)
    assert (s.format, s.games, s.seed, s.time_control.move_ms) == ("duplicate", 3, 9, 500)
    for bad in (
        'name = "x"\nvariant = "usa"\nbots = ["a"]\nplayers = [2]\n',
        'name = "x"\nvariant = "usa"\nbots = ["a", "b"]\nformat = "swiss"\n',
        'name = "x"\nbots = ["a", "b"]\n',
        'name = "x"\nvariant = "usa"\nbots = ["a"]\nx=1\n',
        "not toml [",
    ):
        path.write_text(bad)
        with pytest.raises(SpecError):
            TournamentSpec.from_toml(path)
    # How it runs: bots as tables, the matches of a warm process (outside the fingerprint).
    head = 'name = "x"\nvariant = "usa"\nplayers = 2\n'
    path.write_text(head + 'bots = ["a", { bot = "b", fresh_process = true }]\n')
    warm = TournamentSpec.from_toml(path)
    assert warm.bots == ("a", "b") and warm.fresh_process == ("b",)
    path.write_text(head + 'bots = ["a", "b"]\nmatches_per_process = 7\n')
    assert TournamentSpec.from_toml(path).matches_per_process == 7
    assert TournamentSpec.from_toml(path).fingerprint == warm.fingerprint
    for bad, error in (
        (
            'bots = ["a", { bot = "b", fresh = true }]',
            "bots[1].fresh: unknown key (known keys: bot, fresh_process)",
        ),
        ('bots = ["a", { fresh_process = true }]', "bots[1].bot: missing"),
        ('bots = ["a", 2]', "bots[1]: expected a string or a table, got a whole number 2"),
        (
            'bots = ["a", "b"]\nmatches_per_process = 0',
            "matches_per_process: must be a whole number >= 1",
        ),
        (
            'bots = ["a", "b"]\nmatches_per_process = "many"',
            "matches_per_process: expected a whole number, got a string 'many'",
        ),
    ):
        path.write_text(head + bad + "\n")
        with pytest.raises(SpecError, match=re.escape(error)):
            TournamentSpec.from_toml(path)


# ---------------------------------------------------------------- the store and local runs


def test_local_tournament_stores_every_match_once_with_faults(tmp_path):
    s = spec()
    store = ResultsStore(tmp_path)
    with LocalExecutor(2) as executor:  # closed: its workers' warm bots stop with it
        runner = TournamentRunner(s, store, executor, tmp_path, show_progress=False)
        assert runner.run() == len(fixed_schedule(s)) == 12
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    seats = seats_frame(store, "t")
    assert len(seats) == 24
    illegal = seats[seats.bot.str.endswith("illegal")]
    assert set(illegal.fault) == {"illegal"} and set(illegal["rank"]) == {2}
    matches = matches_frame(store, "t")
    assert sorted(matches.idx) == list(range(12)) and set(matches.status) == {"done"}
    # A second run has nothing left to do; a record delivered twice is stored once.
    with LocalExecutor(1) as executor:
        assert TournamentRunner(s, store, executor, tmp_path, show_progress=False).run() == 0
    match_id = int(matches.match_id[0])
    log = store.match_log(match_id)
    assert log.startswith(b'{"type":"header"')
    with pytest.raises(ValueError, match="different description"):
        TournamentRunner(spec(games=3), store, LocalExecutor(1), tmp_path, show_progress=False)


def test_results_export_csv_and_parquet(tmp_path):
    data = tmp_path / "data"
    run_cli(*cli_args(spec(bots=("random", PLAYER), games=1)), data_dir=data)
    run_cli("results", "--out", str(tmp_path / "s.csv"), data_dir=data)
    run_cli(
        "results",
        "--out",
        str(tmp_path / "m.parquet"),
        "--format",
        "parquet",
        "--table",
        "matches",
        data_dir=data,
    )
    assert len(pd.read_csv(tmp_path / "s.csv")) == 4
    assert len(pd.read_parquet(tmp_path / "m.parquet")) == 2


# ---------------------------------------------------------------- same results everywhere


def test_identical_results_across_executors_and_worker_counts(tmp_path, ray_cluster):
    s = spec(name="same")
    run_cli(*cli_args(s), "--workers", "1", data_dir=tmp_path / "one")
    run_cli(*cli_args(s), "--workers", "2", data_dir=tmp_path / "two")
    run_cli(*cli_args(s), "--ray", ray_cluster, data_dir=tmp_path / "ray")
    reference = signature(tmp_path / "one", "same")
    assert len(reference) == 24
    pd.testing.assert_frame_equal(reference, signature(tmp_path / "two", "same"))
    pd.testing.assert_frame_equal(reference, signature(tmp_path / "ray", "same"))
    # Exports and the site's replay pages are the same, byte for byte and name for name.
    exports, pages = set(), set()
    for folder in ("one", "two", "ray"):
        out = tmp_path / f"{folder}.csv"
        run_cli("results", "--out", str(out), data_dir=tmp_path / folder)
        exports.add(out.read_bytes())
        run_cli("site", str(tmp_path / f"{folder}-site"), data_dir=tmp_path / folder)
        site = tmp_path / f"{folder}-site" / "matches"
        pages.add(frozenset(p.name for p in site.glob("*.html")))
    assert len(exports) == 1 and len(pages) == 1 and len(next(iter(pages))) == 12
    store = ResultsStore(tmp_path / "ray")
    workers = set(matches_frame(store, "same").worker)
    assert len(workers) >= 2, "the matches ran on more than one Ray worker"


def stored_count(data_dir: Path) -> int:
    """Matches stored so far (0 while there is no store yet); never creates the store."""
    if not (data_dir / "results.sqlite").exists():
        return 0
    try:
        with ResultsStore.reader(data_dir) as store:
            return sum(t.played for t in store.tournaments())
    except StoreError:  # being created at this moment
        return 0


def wait_for_matches(data_dir: Path, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stored_count(data_dir) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} matches stored in time")


def test_resume_after_kill_9_of_the_driver_loses_and_duplicates_nothing(tmp_path):
    s = spec(name="resume", games=3)
    run_cli(*cli_args(s), data_dir=tmp_path / "calm")
    command = [*ARENA, *cli_args(s), "--data-dir", str(tmp_path / "hurt"), "--no-progress"]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_matches(tmp_path / "hurt", 3)
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        driver.kill()
    store = ResultsStore(tmp_path / "hurt")
    interrupted = len(store.done_indices(1))
    store.close()
    assert 3 <= interrupted < 18
    run_cli(*cli_args(s), data_dir=tmp_path / "hurt")
    result = signature(tmp_path / "hurt", "resume")
    assert sorted(set(result.idx)) == list(range(18)) and len(result) == 36
    assert_same_results(signature(tmp_path / "calm", "resume"), result)
    assert not left_behind(str(HOSTILE)), "bots left behind by the killed driver"


def start_stalling(command: list[str], marker: Path) -> subprocess.Popen:
    """Start a driver whose first match to be played stalls, its bots greeted, until killed
    (``arena.chaos.stall_in_match``): the test then knows which worker plays an unfinished
    match, whatever the machine's speed."""
    env = {**os.environ, chaos.STALL_IN_MATCH: str(marker)}
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def kill_a_worker_mid_match(driver: subprocess.Popen, marker: Path, timeout: float = 240) -> int:
    """Wait until the worker playing the stalled match has claimed ``marker``, then kill -9
    it there; return the match's index."""
    deadline = time.monotonic() + timeout
    while (claim := chaos.claimed(str(marker))) is None:
        assert driver.poll() is None, driver.communicate()[0]
        assert time.monotonic() < deadline, "no worker reached a match"
        time.sleep(0.05)
    pid, index = claim
    assert pid not in (driver.pid, os.getpid())
    os.kill(pid, signal.SIGKILL)
    return int(index)


@pytest.mark.parametrize(
    "executor", ["local", pytest.param("ray", marks=pytest.mark.on_ray_cluster)]
)
def test_a_worker_killed_mid_match_is_retried(executor, tmp_path, request):
    s = spec(name=f"retry-{executor}", bots=(PLAYER, "random", JS), games=3)
    run_cli(*cli_args(s), data_dir=tmp_path / "calm")
    extra = ["--workers", "2"]
    if executor == "ray":
        extra = ["--ray", request.getfixturevalue("ray_cluster")]
    command = [*ARENA, *cli_args(s), *extra, "--data-dir", str(tmp_path / "hurt"), "--no-progress"]
    driver = start_stalling(command, tmp_path / "stalled")
    try:
        index = kill_a_worker_mid_match(driver, tmp_path / "stalled")
        output, _ = driver.communicate(timeout=600)
    finally:
        driver.kill()
    assert driver.returncode == 0, output
    result = signature(tmp_path / "hurt", s.name)
    assert sorted(set(result.idx)) == list(range(18)) and len(result) == 36
    assert_same_results(signature(tmp_path / "calm", s.name), result)
    if executor == "local":  # (Ray retries a task itself, uncounted)
        store = ResultsStore(tmp_path / "hurt")
        attempts = matches_frame(store, s.name).set_index("idx").attempts
        store.close()
        assert attempts[index] == 2, "the killed worker's match was retried"
        assert (attempts.drop(index) == 1).all()


# ---------------------------------------------------------------- the ladder


def test_ladder_prefers_uncertain_newcomers_and_near_ratings_but_allows_any_pairing():
    s = spec(name="ladder", format="ladder", bots=("a", "b", "c", "d", "new"), games=400)
    settled = trueskill.Rating(mu=25, sigma=1.0)
    ratings = {
        "a": trueskill.Rating(40, 1.0),
        "b": settled,
        "c": trueskill.Rating(24, 1.0),
        "d": trueskill.Rating(10, 1.0),
    }
    games = {"a": 50, "b": 50, "c": 50, "d": 50}
    wave = next_wave(s, ["a", "b", "c", "d", "new"], ratings, games, 0, 400)
    played = collections.Counter(bot for m in wave for bot in m.bots)
    assert played["new"] == max(played.values()), "the uncertain newcomer plays most"
    pairs = collections.Counter(frozenset(m.bots) for m in wave)
    assert pairs[frozenset({"b", "c"})] > pairs[frozenset({"a", "d"})] > 0
    assert next_wave(s, ["a", "b", "c", "d", "new"], ratings, games, 0, 40) == wave[:40]


def test_ladder_runs_n_matches_the_same_with_any_worker_count(tmp_path):
    s = spec(name="lad", format="ladder", bots=("random", PLAYER, JS), games=10)
    for workers, folder in ((1, "one"), (2, "two")):
        store = ResultsStore(tmp_path / folder)
        with LocalExecutor(workers) as executor:
            runner = TournamentRunner(s, store, executor, tmp_path / folder, show_progress=False)
            assert runner.run() == 10
        store.close()
    pd.testing.assert_frame_equal(
        signature(tmp_path / "one", "lad"), signature(tmp_path / "two", "lad")
    )


# ---------------------------------------------------------------- submission


def test_submit_registers_versions_and_rejects_faulty_bots(tmp_path):
    store = ResultsStore(tmp_path)
    first = submit(store, "rnd", plugin="random", variants=["usa"])
    again = submit(store, "rnd", plugin="random", variants=["usa"])
    assert (first.version, again.version) == (1, 2) and first.validation_games == 2
    filed = submit(store, "filed", path=Path(__file__).parent.parent / "examples" / "python-bot")
    assert filed.kind == "file" and Path(filed.target).is_dir()
    with pytest.raises(SubmissionRejected, match="illegal") as rejected:
        submit(store, "bad", command=f"{sys.executable} {HOSTILE} illegal")
    assert rejected.value.log.is_dir()
    assert store.bot("bad") is None
    # Registered bots play tournaments under name@version.
    s = spec(name="reg", bots=("rnd", "filed"), games=1)
    with LocalExecutor(1) as executor:
        assert TournamentRunner(s, store, executor, tmp_path, show_progress=False).run() == 2
    assert set(seats_frame(store, "reg").bot) == {"rnd@2", "filed@1"}


def test_submit_on_the_command_line(tmp_path):
    out = run_cli(
        "submit",
        "mine",
        "--file",
        str(Path(__file__).parent.parent / "examples" / "python-bot"),
        data_dir=tmp_path,
    )
    assert "registered mine@1" in out.stdout
    out = run_cli(
        "submit",
        "crashy",
        "--cmd",
        f"{sys.executable} {HOSTILE} crash-start",
        data_dir=tmp_path,
        check=False,
    )
    assert out.returncode == 2 and "rejected" in out.stderr and "crash" in out.stderr


# ---------------------------------------------------------------- warm bot processes


def replayed(data_dir: Path, name: str) -> dict[int, list]:
    """Each stored match's game as its log tells it (actions, events, faults, result),
    without what may differ between runs (timings, ids, log paths, memory)."""
    games = {}
    with ResultsStore.reader(data_dir) as store:
        for row in matches_frame(store, name).itertuples():
            lines = [json.loads(line) for line in store.match_log(int(row.match_id)).splitlines()]
            kept = []
            for line in lines:
                line.pop("ms", None)
                if line["type"] == "result":
                    line.pop("referee")
                if line["type"] == "fault":
                    line.pop("detail")
                if line["type"] != "header":
                    kept.append(line)
            games[int(row.idx)] = kept
    return games


def test_warm_processes_play_the_same_games_as_fresh_ones(tmp_path):
    """One tournament twice: every bot process new for each match, then warm processes
    (the default; a bot marked fresh_process, and one that forfeits, get new ones)."""
    illegal = f"cmd:{sys.executable} {HOSTILE} illegal"
    (tmp_path / "t.toml").write_text(
        'name = "warm"\nvariant = "usa"\nplayers = 2\nseed = 3\n'
        f'bots = ["random", {{ bot = "greedy-claims", fresh_process = true }}, "{illegal}"]\n'
    )
    run_cli(
        "tournament",
        "run",
        str(tmp_path / "t.toml"),
        "--matches-per-process",
        "1",
        data_dir=tmp_path / "cold",
    )
    run_cli("tournament", "run", str(tmp_path / "t.toml"), data_dir=tmp_path / "warm")
    cold, warm = signature(tmp_path / "cold", "warm"), signature(tmp_path / "warm", "warm")
    assert len(cold) == 12 and set(cold[cold.bot.str.contains("illegal")].fault) == {"illegal"}
    pd.testing.assert_frame_equal(cold, warm)
    assert replayed(tmp_path / "cold", "warm") == replayed(tmp_path / "warm", "warm")

    def started(data_dir: Path, bot: str) -> int:  # a process's scratch folder: one per start
        return len(list((data_dir / "bot-logs").glob(f"warm/*/*/seat*-{bot}.tmp")))

    assert [started(tmp_path / "cold", b) for b in ("random", "greedy-claims", "illegal")] == [
        4,
        4,
        4,
    ]
    # Warm: random's one process played its 4 matches; the others started for each match.
    assert [started(tmp_path / "warm", b) for b in ("random", "greedy-claims", "illegal")] == [
        1,
        4,
        4,
    ]
    # Each match still has its own logs of every seat.
    assert len(list((tmp_path / "warm" / "bot-logs").glob("warm/*/*/seat*.stderr"))) == 12
    assert not left_behind(str(HOSTILE))

"""A board's ladder and the ranked challenges reserved in it, on a real store with real
games (trusted plugin bots, in process): a reservation takes the ladder's next indices
and the ladder's next wave is planned after it; the ladder never plays a reserved table
itself (one left unplayed, e.g. by a challenge closed at the deadline, stays so); a
reservation made before is recognised (a restart plays the same indices)."""

from __future__ import annotations

from pathlib import Path

from arena.server.competition import Competition
from arena.server.ladder import BoardLadder, ladder_spec
from arena.tournament.executors import LocalExecutor
from arena.tournament.schedule import MatchSpec, derive_seed
from arena.tournament.store import ResultsStore
from tests.host_helpers import competition_text
from tests.store_helpers import two_player_match

POOL = {"random": "a", "greedy-claims": "b"}


def test_a_reserved_block_is_the_ladders_but_never_played_by_it(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(competition_text())
    competition = Competition.from_toml(tmp_path / "c.toml")
    spec = ladder_spec(competition, "usa", 2)
    data = tmp_path / "data"
    with ResultsStore(data) as store, LocalExecutor(1) as executor:
        ladder = BoardLadder(
            spec, store, executor, data, lambda: POOL, set, lambda: False, wave=2
        )  # fmt: skip
        ladder.in_process = True  # trusted plugin bots: the same games, no processes
        assert ladder.play_wave()  # indices 0 and 1
        block = [MatchSpec(i, 1000 + i // 2, ("random", "greedy-claims")[:: 1 - 2 * (i % 2)])
                 for i in range(4)]  # fmt: skip
        start = ladder.reserve(block)
        assert start == 2 and ladder.holds(start, block)
        assert not ladder.holds(start + 1, block)
        # The ladder plans its next wave after the block, and plays only that.
        tasks = ladder.wave_tasks()
        assert [t.match.index for t in tasks] == [6, 7]
        executor.run(tasks, ladder)
        tasks = ladder.wave_tasks()
        assert [t.match.index for t in tasks] == [8, 9]  # the block is still not its own
        # The block's tasks are the ladder's: stored and rated as its matches.
        executor.run([ladder.task_at(start), ladder.task_at(start + 1)], ladder)
        stored = {r.idx: r for r in store.results(spec.name, details=False)}
        assert stored[2].seed == stored[3].seed != stored[6].seed  # the same deal (keyed)
        assert stored[2].bots == stored[3].bots[::-1]  # seats swapped
        assert 4 not in stored and 5 not in stored  # left unplayed: the ladder never took them
        ladder.release()


class CountingStore(ResultsStore):
    """The real store, counting the plan rows and stored indices each read hands back."""

    rows_read = 0

    def planned(self, tournament_id: int, start: int = 0) -> list[MatchSpec]:
        found = super().planned(tournament_id, start)
        self.rows_read += len(found)
        return found

    def done_indices(self, tournament_id: int, start: int = 0, stop: int | None = None) -> set[int]:
        found = super().done_indices(tournament_id, start, stop)
        self.rows_read += len(found)
        return found


def test_a_wave_reads_what_is_still_open_not_the_whole_tournament(tmp_path: Path) -> None:
    """A competition's ladder holds millions of matches after weeks: a wave reads the plan
    and the stored matches from the first one still open, whatever came before (a restart
    reads the rest once), and still plays a planned match left unplayed."""
    (tmp_path / "c.toml").write_text(competition_text())
    competition = Competition.from_toml(tmp_path / "c.toml")
    spec = ladder_spec(competition, "usa", 2)
    data = tmp_path / "data"
    stored = 3000
    with CountingStore(data) as store, LocalExecutor(1) as executor:
        tid = store.tournament(spec.name, spec.fingerprint, spec.to_json())
        old = [two_player_match(i, ["u0.b@1", "u1.b@1", "u2.b@1"]) for i in range(stored)]
        store.plan(tid, [MatchSpec(r.idx, r.seed, r.bots) for r in old])
        store.record_many(tid, old)
        ladder = BoardLadder(
            spec, store, executor, data, lambda: POOL, set, lambda: False, wave=2
        )  # fmt: skip
        ladder.in_process = True
        store.rows_read = 0
        assert ladder.play_wave()  # the first wave after a restart reads the rest once
        first_read = store.rows_read
        assert first_read >= stored
        for _ in range(3):
            store.rows_read = 0
            assert ladder.play_wave()
            assert store.rows_read <= 4, "a wave reads its own few rows"
        # A match planned and left unplayed (a worker killed mid-wave) is played next.
        index = ladder.floor + 2
        left = MatchSpec(index, derive_seed(spec.seed, "ladder", index), ("random", "random"))
        store.plan(tid, [left])
        tasks = ladder.wave_tasks()
        assert [t.match.index for t in tasks] == [left.index]
        executor.run(tasks, ladder)
        assert left.index in store.done_indices(tid, start=left.index)
        ladder.release()

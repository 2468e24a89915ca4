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
from arena.tournament.schedule import MatchSpec
from arena.tournament.store import ResultsStore
from tests.host_helpers import competition_text

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

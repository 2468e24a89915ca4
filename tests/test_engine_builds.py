"""The engine's builds play the same games: the pure-Python source, its mypyc-compiled build
(``make compiled``), and the engine before the copy-on-write generator (recorded digests);
and a copy shares its original's future without sharing its draws."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena import native
from arena.engine import Action, GameState
from arena.engine.game import shuffle
from arena.variants import all_variants
from tests.engine_digest import GAMES, RECORDED, playable
from tests.journey import Journey

ROOT = Path(__file__).resolve().parent.parent
DIGEST = [sys.executable, str(ROOT / "tests" / "engine_digest.py"), "--games", str(GAMES)]


def start_digest(engine: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ARENA_ENGINE": engine}
    return subprocess.Popen(
        DIGEST, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(run: subprocess.Popen[str]) -> dict[str, object]:
    out, err = run.communicate(timeout=900)
    assert run.returncode == 0, err
    return json.loads(out)


def test_both_builds_play_the_recorded_games() -> None:
    """400 seeded games per variant (2,000 a build), pure and compiled side by side, against the
    digests recorded on the engine before this change."""
    recorded = json.loads(RECORDED.read_text())
    versions = {name: all_variants()[name].rules_version for name in playable()}
    assert recorded["rules_versions"] == versions, (
        "a variant's rules changed: record the digests again (python tests/engine_digest.py "
        "--record) if its games are meant to change"
    )
    runs = {"pure": start_digest("pure")}
    compiled = native.compiled_is_current() is None
    if compiled:
        runs["compiled"] = start_digest("compiled")
    results = {engine: finish(run) for engine, run in runs.items()}
    assert results["pure"]["build"] == "pure"
    assert results["pure"]["digests"] == recorded["digests"]
    if not compiled:
        lacking = native.toolchain_problem()
        if lacking is None:
            pytest.fail(f"this machine can compile the engine, but {native.compiled_is_current()}")
        pytest.skip(f"{lacking}: only the pure-Python engine exists here")
    assert results["compiled"]["build"] == "compiled"
    assert results["compiled"]["digests"] == recorded["digests"]


def generator(state: GameState) -> object:
    return json.loads(state.to_position())["rng"]


def play_out(state: GameState, moves: list[Action]) -> str:
    for move in moves:
        state.apply(move)
    return state.fingerprint()


@pytest.mark.parametrize("name", playable())
def test_a_copy_has_the_same_future_and_draws_apart(name: str) -> None:
    """Copies taken along a game and played with the moves the game went on with end in its
    final position, shuffles included, whether a copy plays its future before the
    original (it draws from their generator first) or after."""
    variant = all_variants()[name]
    draws = 0  # moves that drew from the game's generator (shuffles)
    for seed in range(6):
        players = variant.min_players + seed % 2
        state, rng, moves = variant.new_game(players, seed), random.Random(seed), []
        while not state.is_over:
            actions = state.legal_actions()
            before = generator(state)
            moves.append(actions[rng.randrange(len(actions))])
            state.apply(moves[-1])
            draws += generator(state) != before
        final = state.fingerprint()
        state, later = variant.new_game(players, seed), []
        for done, move in enumerate(moves):
            if done % 9 == 0:
                if done % 2:
                    later.append((done, state.copy()))
                else:
                    assert play_out(state.copy(), moves[done:]) == final
            state.apply(move)
        assert state.fingerprint() == final
        for done, copy in later:
            assert play_out(copy, moves[done:]) == final
    assert draws, "no move drew from the generator: the test proves nothing"


def test_the_engine_shuffles_as_random_does() -> None:
    """``arena.engine.game.shuffle`` (compiled with the engine) deals the permutation that
    ``random.Random.shuffle`` deals and leaves the generator where that leaves it."""

    class Dice(random.Random):
        def random(self) -> float:
            return 0.5

    for seed in range(300):
        items = list(range(seed % 120))
        ours, theirs = random.Random(seed), random.Random(seed)
        mine = items[:]
        shuffle(ours, mine)
        theirs.shuffle(items)
        assert mine == items
        assert ours.getstate() == theirs.getstate()
    # A generator that draws otherwise (here, random() overridden) shuffles by its own method.
    mine, expected = list(range(10)), list(range(10))
    shuffle(Dice(1), mine)
    Dice(1).shuffle(expected)
    assert mine == expected


def test_the_build_is_chosen_by_arena_engine(tmp_path: Path) -> None:
    """ARENA_ENGINE=pure runs the source; a value it does not know is said in one line and
    the game is played all the same, identically."""
    journey = Journey(tmp_path)
    args = ("play", "--variant", "usa", "--bot", "random", "--bot", "random", "--seed", "7")
    outcomes = {}
    for engine in ("pure", "auto", "quick"):
        journey.env["ARENA_ENGINE"] = engine
        outcomes[engine] = journey(*args)
        assert outcomes[engine].code == 0, outcomes[engine].text
    assert outcomes["pure"].err == outcomes["auto"].err == ""
    warning = "arena: ARENA_ENGINE='quick' is not one of auto, pure, compiled; using 'auto'\n"
    assert outcomes["quick"].err == warning
    scores = [o.out.split("actions in")[0] for o in outcomes.values()]
    assert scores[0] == scores[1] == scores[2]
    journey.env["ARENA_ENGINE"] = "pure"
    probe = "import arena, arena.engine.state as s; print(arena.ENGINE_BUILD, s.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe], env=journey.env, capture_output=True, text=True
    )
    assert done.stdout.split()[0] == "pure" and done.stdout.strip().endswith("state.py")


def test_a_stale_or_foreign_build_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled build runs only if built from the sources on disk, for this Python."""
    manifest = tmp_path / "_native.json"
    monkeypatch.setattr(native, "MANIFEST", manifest)
    assert native.compiled_is_current() == "the compiled engine is not built (make compiled)"
    suffix, sources = native.extension_suffix(), native.source_hashes()
    manifest.write_text(json.dumps({"suffix": ".cpython-27.so", "sources": sources}))
    assert native.compiled_is_current() == (
        "the compiled engine was built for another Python (make compiled)"
    )
    edited = {**sources, "arena.engine.state": "0" * 64}
    manifest.write_text(json.dumps({"suffix": suffix, "sources": edited}))
    assert native.compiled_is_current() == (
        "the compiled engine is older than its sources (make compiled)"
    )


def test_the_compiled_build_runs_the_compiled_planner() -> None:
    """The search bots' planner and rollouts (``bots/policy.py``) are part of the compiled
    build: loaded from it when it runs (the search bots use that very module), from their
    source when the pure engine runs."""
    probe = (
        "import arena, bots.policy as p, bots.ismcts as i, bots.search as s; "
        "assert s.Planner is p.Planner and i.SeatPlanners is p.SeatPlanners; "
        "print(arena.ENGINE_BUILD, p.__file__)"
    )
    for engine in ("pure", "compiled"):
        env = {**os.environ, "ARENA_ENGINE": engine}
        done = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=ROOT
        )
        assert done.returncode == 0, done.stderr
        build, path = done.stdout.split()
        if engine == "compiled" and build == "pure":
            lacking = native.toolchain_problem()
            if lacking is None:
                pytest.fail(f"this machine can compile the engine, but {done.stderr.strip()}")
            pytest.skip(f"{lacking}: only the pure-Python build exists here")
        assert build == engine
        suffix = native.extension_suffix() if engine == "compiled" else ".py"
        assert Path(path) == ROOT / "bots" / ("policy" + suffix)

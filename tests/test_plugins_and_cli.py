"""Variants and bots are plugins; the command line plays, logs and replays games."""

import os
import random
import subprocess
import sys
import types
from importlib.metadata import entry_points

import pytest

from arena.engine import VariantUnavailableError
from arena.plugins import PLUGINS_ENV, hookimpl, plugin_manager, plugin_modules
from arena.variants import all_variants, get_variant, new_game
from arena.variants.mapdata import board_variant
from bots import all_bots
from tests.toll_variant import TINY_MAP, TINY_RULES


def cli(*args):
    """``arena ARGS`` in the test's folder (its data folder lands there, not in the checkout)."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(autouse=True)
def in_own_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def third_party_plugin():
    plugin = types.ModuleType("tiny_plugin")

    @hookimpl
    def arena_variants():
        return [
            board_variant("tiny", "a test map", TINY_RULES, TINY_MAP),
            board_variant(
                "gappy", "a map with gaps", TINY_RULES, {**TINY_MAP, "missing": ["tickets"]}
            ),
        ]

    plugin.arena_variants = arena_variants
    plugin_manager().register(plugin)
    yield plugin
    plugin_manager().unregister(plugin)


def test_builtin_usa_registers_through_the_entry_point():
    names = {ep.name for ep in entry_points(group="arena.variants")}
    assert "usa" in names
    assert "random" in {ep.name for ep in entry_points(group="arena.bots")}
    assert get_variant("usa").playable
    assert "random" in all_bots()


def test_a_bot_process_loads_the_plugins_its_referee_names_without_searching(tmp_path):
    """The referee names the installed plugins' modules to each bot process it starts
    (``ARENA_PLUGINS``); a process given them finds the same bots and variants without
    reading any distribution's metadata (skipping one it cannot import), and one given
    nothing still finds them itself."""
    named = plugin_modules()
    assert {"arena.variants.usa", "bots.random_bot"} <= set(named.split(","))
    probe = (
        "import sys; from bots import all_bots; from arena.variants import all_variants; "
        "print(sorted(all_bots())); print(sorted(all_variants())); "
        "print('importlib.metadata' in sys.modules)"
    )

    def listed(env: dict[str, str]) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    base = {k: v for k, v in os.environ.items() if k != PLUGINS_ENV}
    # A module named but not on the bot's path (the organiser's PYTHONPATH not passed on)
    # is skipped, as the bot's own search would not have found it.
    given = listed({**base, PLUGINS_ENV: f"{named},not_on_this_path.plugin"})
    searched = listed(base)
    assert given[:2] == searched[:2] == [str(sorted(all_bots())), str(sorted(all_variants()))]
    assert (given[2], searched[2]) == ("False", "True")


def test_a_third_party_variant_plays_on_the_same_engine(third_party_plugin):
    assert {"tiny", "gappy", "usa"} <= set(all_variants())
    for seed in range(200):
        state = new_game("tiny", 2, seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_actions()))
        assert len(state.result().scores) == 2


def test_an_incomplete_variant_says_what_is_missing(third_party_plugin):
    variant = get_variant("gappy")
    assert not variant.playable and variant.status == "incomplete data"
    with pytest.raises(VariantUnavailableError, match="Missing: tickets"):
        new_game("gappy", 2, 1)


def test_unknown_variant_lists_the_installed_ones():
    with pytest.raises(KeyError, match=r"installed: .*usa"):
        get_variant("narnia")


def test_cli_lists_variants_and_bots():
    out = cli("variants")
    assert out.returncode == 0 and "usa" in out.stdout and "playable" in out.stdout
    out = cli("bots")
    assert out.returncode == 0 and "random" in out.stdout


def test_cli_play_writes_a_log_that_replays(tmp_path):
    log = tmp_path / "game.log"
    out = cli("play", "--variant", "usa", "--players", "4", "--seed", "7", "--log", str(log))
    assert out.returncode == 0, out.stderr
    assert "Ticket to Ride (USA)" in out.stdout
    text = log.read_text().splitlines()
    assert text[:5] == [
        "# ttr-arena game log 1",
        "# variant: usa",
        "# players: 4",
        "# seed: 7",
        "# seats: random random random random",
    ]
    assert text[-1].startswith("# result: scores")
    again = cli(
        "play",
        "--variant",
        "usa",
        "--players",
        "4",
        "--seed",
        "7",
        "--log",
        str(tmp_path / "again.log"),
    )
    assert (tmp_path / "again.log").read_text() == log.read_text(), "same seed, same game"
    out = cli("replay", str(log))
    assert out.returncode == 0 and "verified" in out.stdout, out.stdout + out.stderr
    assert again.returncode == 0


def test_cli_replay_rejects_a_tampered_log(tmp_path):
    log = tmp_path / "game.log"
    assert cli("play", "--seed", "3", "--log", str(log)).returncode == 0
    lines = log.read_text().splitlines()
    words = lines[-1].split()
    words[3] = str(int(words[3]) + 1000)  # '#', 'result:', 'scores', first score
    lines[-1] = " ".join(words)
    log.write_text("\n".join(lines) + "\n")
    out = cli("replay", str(log))
    assert out.returncode == 2 and "differs" in out.stderr
    lines.insert(7, "claim 999 red")
    log.write_text("\n".join(lines) + "\n")
    out = cli("replay", str(log))
    assert out.returncode == 2 and "action 3 ('claim 999 red') does not replay" in out.stderr


def test_cli_refuses_unknown_variant_and_bad_player_count():
    out = cli("play", "--variant", "narnia")
    assert out.returncode == 2 and "no variant named 'narnia'" in out.stderr
    out = cli("play", "--players", "7")
    assert out.returncode == 2 and "2-5 players" in out.stderr


def test_copy_is_independent_and_replays_the_same_future():
    state = new_game("usa", 3, 11)
    rng = random.Random(2)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    twin = state.copy()
    assert twin.fingerprint() == state.fingerprint()
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
        assert twin.fingerprint() == state.fingerprint()
    assert twin.result() == state.result()

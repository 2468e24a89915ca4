"""A newcomer's first hour: what cost minutes or trust, each walked as a user does,
with the ``arena`` command in a fresh folder on an 80-column terminal."""

from __future__ import annotations

import json
import re
import select
import signal

from rich.console import Console

from arena.tournament.results import MatchResult
from arena.tournament.runner import Standings
from tests.journey import HANG_S, PYTHON_BOT, Journey, column_text

# A one-file bot that checks the typed observation as a bot author reads it: route ids as ints.
CLAIMED_KEYS_BOT = """
import sys
from bots.sdk import Bot


class Checker(Bot):
    name = "checker"

    def choose(self, observation, legal_actions):
        claimed = observation.claimed
        if not all(type(key) is int for key in claimed):
            raise TypeError(f"claimed keys are not ints: {list(claimed)[:3]}")
        if claimed and not getattr(self, "said", False):
            self.said = True
            route = next(iter(claimed))
            owner = observation.claimed.get(route)
            print(f"route {route} is claimed by seat {owner}", file=sys.stderr)
        return legal_actions[0]
"""


def fits(text: str, columns: int = 80) -> bool:
    return all(len(line) <= columns for line in text.splitlines())


def actions(path) -> list[tuple]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [(line["seat"], line["action"]) for line in lines if line["type"] == "action"]


def test_the_same_seed_is_the_same_game_in_processes_and_in_process(tmp_path):
    """`--seed 7` twice was two games (the bots' seeds were keyed with a fresh key each run)."""
    arena = Journey(tmp_path)
    arena.env.pop("ARENA_SECRET", None)
    logs = []
    for n, extra in enumerate([[], [], ["--in-process"]]):
        log = tmp_path / f"{n}.jsonl"
        done = arena("play", "--players", "3", "--seed", "7", "--match-log", log, *extra)
        assert done.code == 0, done.text
        logs.append(log)
    first = actions(logs[0])
    assert first == actions(logs[1]) == actions(logs[2])
    header = [json.loads(log.read_text().splitlines()[0]) for log in logs]
    assert header[0]["game_id"] == header[1]["game_id"] == header[2]["game_id"]
    # ARENA_SECRET keys a seeded game: the same secret, the same game; another, another.
    keyed = []
    for n, secret in enumerate(["one secret", "one secret", "another secret"]):
        arena.env["ARENA_SECRET"] = secret
        log = tmp_path / f"keyed{n}.jsonl"
        assert arena("play", "--players", "3", "--seed", "7", "--match-log", log).code == 0
        keyed.append(actions(log))
    assert keyed[0] == keyed[1] and keyed[0] != first and keyed[2] != keyed[0]
    # Without --seed each run is a fresh, unguessable game.
    del arena.env["ARENA_SECRET"]
    seeds = {re.search(r"seed (\d+)", arena("play", "--players", "2").out)[1] for _ in range(2)}
    assert len(seeds) == 2 and all(len(seed) > 12 for seed in seeds)


def test_a_bot_reads_claimed_routes_by_their_int_ids(tmp_path):
    """`obs.claimed.get(57)` returned None (the keys were text): a bot thought every route
    free. The typed observation has int keys; the JSON on the wire keeps text keys."""
    bot = tmp_path / "checker.py"
    bot.write_text(CLAIMED_KEYS_BOT)
    arena = Journey(tmp_path / "work")
    done = arena("play", "--bot", f"cmd:{{python}} -m bots.filebot {bot}", "--bot", "random",
                 "--seed", "3", "--match-log", "game.jsonl")  # fmt: skip
    assert done.code == 0 and "forfeit" not in done.out, done.text
    stderr = next((arena.data / "bot-logs").rglob("seat0-*.stderr")).read_text()
    assert re.search(r"route \d+ is claimed by seat [01]\b", stderr), stderr


def test_submit_star_is_every_board_variant_and_says_what_validation_checks(tmp_path):
    """`--variant '*'` registered a board bot for the Card Game (it passes by playing legal
    moves): '*' is every board variant, as for a plugin; 'any' adds the Card Game."""
    arena = Journey(tmp_path)
    done = arena("submit", "claim-first", "--file", PYTHON_BOT, "--variant", "*", "--games", "1")
    assert done.code == 0, done.text
    registered = re.search(r"registered claim-first@1 \(file\) for (.*) after", done.out)
    assert registered and "cardgame" not in registered[1] and "usa" in registered[1], done.out
    assert "without a forfeit, not that it plays well" in done.out and fits(done.out)
    assert re.search(r"after 3 validation\s+games against random", done.out), "1 a variant"


def test_live_standings_count_the_bots_out_of_sight():
    """Only the top five showed: a newcomer's losing bot vanished with no "+N more"."""
    standings = Standings()
    bots = tuple(f"bot-{n}" for n in range(7))
    for n in range(6):
        ranks = tuple(1 if i == n else 2 for i in range(7))
        scores = tuple(10 if i == n else 0 for i in range(7))
        standings.add(MatchResult(n, "usa", n, bots, scores, ranks, ranks, (None,) * 7))
    console = Console(width=80, record=True)
    console.print(standings.table())
    shown = console.export_text()
    assert "+2 more" in shown and fits(shown), shown


def test_play_folds_long_names_at_80_columns(tmp_path):
    """A long bot name is shown whole, folded over lines in its column (it is what the user
    types next); the numbers keep their width and every line fits 80 columns."""
    arena = Journey(tmp_path)
    long_name = "a-bot-with-a-name-much-longer-than-any-column-has-room-for"
    done = arena("play", "--bot", f"{long_name}=cmd:{{python}} -m bots.filebot {PYTHON_BOT}",
                 "--bot", "random", "--seed", "3")  # fmt: skip
    assert done.code == 0, done.text
    assert fits(done.out), done.out
    assert "…" not in done.out and column_text(done.out, "a-bot-with") == long_name, done.out


def test_tournament_and_store_lines_fit_80_columns_and_counts_agree(tmp_path):
    """The summary, `tournament show`, `store check`, `store recover` ran past 80 columns;
    "1 games"; `store recover --replace` on a healthy store swapped it as "the damaged one"."""
    arena = Journey(tmp_path)
    name = "a-tournament-whose-name-is-long-enough-to-push-lines-out-past-80"
    run = arena("tournament", "run", "--name", name, "--bot", "random", "--bot", "planner",
                "--players", "2", "--in-process")  # fmt: skip
    assert run.code == 0, run.text
    assert fits(run.out), run.out
    shown = arena("tournament", "show", name)
    assert shown.code == 0 and fits(shown.out), shown.out
    assert re.search(r"\b1 game,", shown.out) and "1 games" not in shown.out, shown.out
    check = arena("store", "check")
    assert check.code == 0 and fits(check.out), check.out
    assert "1 tournament," in check.out and "tournament(s)" not in check.out, check.out
    recovered = arena("store", "recover")
    assert recovered.code == 0 and fits(recovered.out), recovered.out
    before = (arena.data / "results.sqlite").read_bytes()
    replaced = arena("store", "recover", "--replace")
    assert replaced.code == 0 and "is healthy" in replaced.out, replaced.text
    assert "damaged" not in replaced.out and fits(replaced.out)
    assert not (arena.data / "results.sqlite.damaged").exists()
    assert (arena.data / "results.sqlite").read_bytes() == before


def test_bot_run_says_that_no_referee_answers_and_ctrl_c_stops_it(tmp_path):
    """`arena bot run --connect ...` printed nothing while no referee answered; the line
    it prints says Ctrl-C stops it, and it does."""
    arena = Journey(tmp_path)
    process = arena.start("bot", "run", "random", "--connect", "tcp://127.0.0.1:9", "--token", "T")
    try:
        ready, _, _ = select.select([process.stderr], [], [], HANG_S)
        assert ready, "nothing said while waiting"
        line = process.stderr.readline()
        assert "waiting for a referee at tcp://127.0.0.1:9" in line, line
        assert len(line.rstrip("\n")) <= 80 or "Ctrl-C" in line
        process.send_signal(signal.SIGINT)
        assert process.wait(HANG_S) == 130, "Ctrl-C did not stop it"
    finally:
        if process.poll() is None:
            process.kill()
    assert "Traceback" not in process.stderr.read()

"""``arena test`` as a user walks it: the command as a subprocess in a fresh folder, bots as
real processes (sandbox on): start in a terminal, Ctrl-C, the same command resumes and
decides in one line; bad inputs are one line each and store nothing."""

from __future__ import annotations

import re
import signal

import pytest

from tests.journey import ARENA, PYTHON_BOT, Journey, interrupt_terminal, run_in_terminal

STORED = "SELECT count(*) FROM matches"
VERDICT = re.compile(
    r"^H([01]) accepted after (\d+) games: (.+) is (stronger than|not stronger than) (.+), "
    r"[+-](\d+|inf) (± \d+ Elo|Elo \(95%: .+\))$"
)


def test_start_stop_with_ctrl_c_resume_and_decide_in_one_line(tmp_path):
    arena = Journey(tmp_path)
    command = (
        "test", "ticket-by-ticket", "random", "--variant", "newyork", "--elo1", "50",
        "--seed", "4", "--workers", "2", "--matches-per-process", "1",
    )  # fmt: skip
    driver, output = run_in_terminal([*ARENA, *command], tmp_path, arena.env)
    arena.wait_for_matches(driver, 2)
    shown, _ = interrupt_terminal(driver, output, signal.SIGINT)
    assert driver.returncode == 130 and "Traceback" not in shown, shown
    assert "LLR" in shown and "H0 -2.94" in shown and "+2.94 H1" in shown, shown
    assert "run the same command to resume" in shown.strip().splitlines()[-1], shown
    before = arena.rows(STORED)[0][0]
    resumed = arena(*command, "--no-progress")
    assert resumed.code == 0 and resumed.err == "", resumed.text
    line, *after = resumed.out.strip().splitlines()
    assert "do not count on the leaderboards" in after[0], after  # a test, not a ranking
    assert re.fullmatch(r"  arena tournament delete test-ticket-by-ticket-vs-random-\w+ --yes",
                        after[-1]), after  # fmt: skip
    found = VERDICT.match(line)
    assert found and found.group(1) == "1", line
    assert found.group(3) == "ticket-by-ticket" and found.group(5) == "random"
    games = int(found.group(2))
    assert games >= before and arena.rows(STORED)[0][0] >= games
    # Decided: the same command again plays nothing and says the same.
    again = arena(*command, "--no-progress")
    assert again.code == 0 and again.out == resumed.out and arena.rows(STORED)[0][0] >= games
    listed = arena("tournament", "list").out
    assert "sprt" in listed and "finished" in listed, listed


def test_any_bot_form_plays_a_test(tmp_path):
    """A registered bot (a submitted file), a plugin and a command line, 3 players."""
    arena = Journey(tmp_path)
    assert arena("submit", "my-bot", "--file", PYTHON_BOT).code == 0
    done = arena(
        "test", "my-bot", "greedy=cmd:{python} -P -m bots greedy-claims".replace(
            "{python}", ARENA[0].rsplit("/", 1)[0] + "/python"
        ),
        "--players", "3", "--opponent", "random", "--variant", "newyork",
        "--elo0", "-200", "--elo1", "200", "--max-games", "30", "--no-progress",
    )  # fmt: skip
    assert done.code == 0 and "Traceback" not in done.text, done.text
    line, *_ = done.out.strip().splitlines()
    assert "my-bot" in line and "greedy" in line and " games" in line, line
    bots = {b for (b,) in arena.rows("SELECT DISTINCT bot FROM seats")}
    assert bots == {"my-bot@1", "greedy", "random"}, bots


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("no-such-bot", "random"), "no bot named 'no-such-bot'"),
        (("random", "random", "--elo0", "5", "--elo1", "0"), "impossible hypotheses: elo1"),
        (("random", "random", "--alpha", "0.7"), "impossible hypotheses: alpha"),
        (("random", "random", "--p0", "0.5"), "impossible hypotheses: give both --p0"),
        (("random", "random", "--p0", "0.5", "--p1", "1.2"), "strictly between 0 and 1"),
        (("random", "random", "--players", "3"), "need opponents for the other 1 seat"),
        (("random", "random", "--opponent", "random"), "--opponent is for 3-5 players"),
        (("random", "random", "--players", "6"), "--players"),
        (("random", "random", "--variant", "nowhere"), "variant"),
        (("random", "random", "--max-games", "1"), "deal group is 2 games"),
        (("random", "cmd:/nonexistent/bot"), "nothing can be played"),
    ],
)
def test_a_bad_input_is_one_line_and_stores_nothing(tmp_path, args, message):
    arena = Journey(tmp_path)
    done = arena("test", *args, "--no-progress", timeout=120)
    assert done.code in (1, 2), done.text
    assert message in done.one_line_error(), done.text
    assert not arena.rows(STORED) or arena.rows(STORED)[0][0] == 0


def test_the_same_test_on_local_workers_and_on_ray_says_the_same(tmp_path, ray_cluster):
    """With the key pinned (ARENA_SECRET), a test in another store plays the same deals: on
    one local worker, two, and a two-node Ray cluster it stops after the same games."""
    lines = set()
    for where in (("--workers", "1"), ("--workers", "2"), ("--ray", ray_cluster)):
        arena = Journey(tmp_path / where[0].strip("-") / where[1].replace(":", "_"))
        arena.env["ARENA_SECRET"] = "a pinned key for this test"
        done = arena(
            "test", "ticket-by-ticket", "greedy-claims", "--variant", "newyork",
            "--elo1", "50", "--seed", "9", "--in-process", "--no-progress", *where,
        )  # fmt: skip
        assert done.code == 0, done.text
        lines.add(done.out.strip())
    assert len(lines) == 1
    assert VERDICT.match(lines.pop().splitlines()[0])  # the verdict, then the delete hint

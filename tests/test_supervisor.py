"""The worker's supervisor with real processes: a worker that keeps dying is reaped each time,
started again after doubling delays (never in a tight loop), reported as failing after
``FAILING_AFTER`` deaths in a row, and a stop starts no other."""

from __future__ import annotations

import sys

from arena.server.supervisor import FAILING_AFTER, Supervisor, exit_text
from tests.host_helpers import wait_until


def test_a_worker_that_keeps_dying_is_retried_ever_more_slowly_and_reported() -> None:
    supervisor = Supervisor(
        [sys.executable, "-c", "import sys; sys.exit(3)"], first_delay=0.05, max_delay=0.4
    )
    supervisor.start()
    try:
        state = wait_until(
            lambda: (s := supervisor.state()).deaths >= FAILING_AFTER + 1 and s, "deaths", 120
        )
    finally:
        supervisor.stop()
    assert state.failing
    assert state.last_death is not None and state.last_death.how == "exit status 3"
    assert state.restarts == state.starts - 1 >= FAILING_AFTER
    # The delays doubled up to the cap, and the cap holds once it is failing.
    assert supervisor.delays[:4] == [0.05, 0.1, 0.2, 0.4]
    assert set(supervisor.delays[FAILING_AFTER - 1 :]) == {0.4}
    after = supervisor.state()
    assert not after.alive and after.starts == supervisor.state().starts  # none after the stop


def test_a_stop_is_not_a_death() -> None:
    supervisor = Supervisor([sys.executable, "-c", "import time; time.sleep(600)"], first_delay=5)
    supervisor.start()
    pid = supervisor.state().pid
    assert pid is not None and supervisor.state().alive
    supervisor.stop()
    state = supervisor.state()
    assert state.deaths == 0 and state.starts == 1 and not state.alive


def test_a_worker_that_stayed_up_long_enough_starts_again_after_the_first_delay() -> None:
    """Each death after a steady run (here: any run) counts as the first of a series."""
    supervisor = Supervisor(
        [sys.executable, "-c", "import sys; sys.exit(1)"], first_delay=0.05, steady_seconds=0
    )
    supervisor.start()
    try:
        wait_until(lambda: supervisor.state().deaths >= FAILING_AFTER + 1, "deaths", 120)
    finally:
        supervisor.stop()
    assert set(supervisor.delays) == {0.05}
    assert not supervisor.state().failing


def test_how_a_process_ended_is_said_in_words() -> None:
    assert exit_text(-9) == "killed by SIGKILL"
    assert exit_text(1) == "exit status 1"

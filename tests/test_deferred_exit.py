"""A stop signal that lands in a callback Python calls from C (here an at-fork hook, as
while a worker starts a bot process) still stops the process, with no traceback.

Real processes: each case is a small script whose own signal arrives inside an at-fork
hook of a ``subprocess`` start; the control shows what happens without
``arena.deferred_exit``, so the check can fail."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.journey import as_from_a_terminal

SCRIPT = textwrap.dedent(
    """
    import os, signal, subprocess, sys, time
    from arena import deferred_exit

    if sys.argv[1] == "install":
        deferred_exit.install()
    signum = getattr(signal, sys.argv[2])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def stop_me_here():  # the signal is handled inside the hook, where raising is ignored
        os.kill(os.getpid(), signum)
        for _ in range(100_000):
            pass

    os.register_at_fork(after_in_parent=stop_me_here)
    try:
        subprocess.run(["true"], preexec_fn=lambda: None)  # as the pool starts a bot
        time.sleep(float(sys.argv[3]))
        print("still running")
    except KeyboardInterrupt:
        print("stopped by Ctrl-C")
        sys.exit(130)
    """
)


def run_script(mode: str, signal_name: str, sleep: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, signal_name, str(sleep)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=as_from_a_terminal,  # SIGINT as in a terminal, whatever started pytest
    )


@pytest.mark.parametrize(("signal_name", "status"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_stop_inside_an_at_fork_hook_stops_the_process_without_a_traceback(signal_name, status):
    done = run_script("install", signal_name, sleep=60)  # a hang is the failure
    assert done.returncode == status, (done.stdout, done.stderr)
    assert "still running" not in done.stdout
    assert done.stderr == ""


def test_without_it_python_prints_the_traceback_and_carries_on():
    done = run_script("control", "SIGTERM", sleep=0.1)
    assert "Exception ignored" in done.stderr and "SystemExit: 143" in done.stderr
    assert "still running" in done.stdout and done.returncode == 0

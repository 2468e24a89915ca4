"""An exit that lands where Python cannot raise it is raised again a moment later.

A signal handler that raises (SystemExit on SIGTERM, KeyboardInterrupt on Ctrl-C) runs
at whatever line of Python is executing. When that line is in a callback Python calls
from C (an at-fork hook, which every subprocess start runs: logging's releases its lock;
a ``__del__``; a weakref finalizer), the exception cannot propagate: Python prints
"Exception ignored in ..." with a traceback, drops the exception and carries on, so the
user sees a traceback and the process that was told to stop does not stop.

``install`` routes such an exit to a one-shot timer (SIGALRM, ``RETRY_SECONDS``) whose
handler raises it again, by then outside the callback; every other unraisable exception
is reported as Python reports it. During interpreter shutdown the exit is dropped: the
process is ending, which is what it asked for.
"""

from __future__ import annotations

import atexit
import signal
import sys
from types import FrameType
from typing import Any

RETRY_SECONDS = 0.01
_pending: list[BaseException] = []  # the exit to raise when the timer fires


def _raise_pending(signum: int, frame: FrameType | None) -> None:
    if _pending:
        exit_ = _pending.pop()
        raise type(exit_)(*exit_.args)


def _hook(unraisable: Any) -> None:
    if not isinstance(unraisable.exc_value, SystemExit | KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
    elif not sys.is_finalizing():
        _pending[:] = [unraisable.exc_value]
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)


def _cancel() -> None:
    """At exit, before Python puts SIGALRM's default (which kills) back."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    _pending.clear()


def install() -> None:
    """From the main thread of a process whose signal handlers raise to stop it."""
    signal.signal(signal.SIGALRM, _raise_pending)
    sys.unraisablehook = _hook
    atexit.register(_cancel)

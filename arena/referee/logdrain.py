"""A bot's output, logged as it writes: stdout and stderr go through pipes to capped files,
copied chunk by chunk by a thread of the referee (``LogDrain``), so a log is complete up
to the moment it is read and a bot never blocks on its output."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import threading
from collections.abc import Mapping
from pathlib import Path

DRAIN_SLICE_S = 0.2
CATCH_UP_READS = 16  # 1 MiB at most copied by the referee itself per step


def _open_log(path: Path) -> int | None:
    """A log file to write, or None if it cannot be created (its output is then dropped)."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    except OSError:
        return None


class LogDrain(threading.Thread):
    """Copies a bot's stdout and stderr into capped files chunk by chunk, as they come.

    It keeps reading past the cap (counting what it drops), so a bot never
    blocks on its output, also when a file cannot be written (a full or
    read-only disk costs the log, never the match). ``finish`` ends it once the
    bot is gone, even if a stray process still holds a pipe open.
    """

    def __init__(self, streams: Mapping[int, Path], cap: int) -> None:
        super().__init__(daemon=True)
        for fd in streams:
            os.set_blocking(fd, False)  # ``catch_up`` may empty a pipe the selector saw ready
        self.cap = cap
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # ``switch`` (a warm bot's next match) vs the copying
        self._ended = False  # both pipes closed: nothing more will be written
        self._outputs = {fd: _open_log(path) for fd, path in streams.items()}
        self._written = dict.fromkeys(streams, 0)
        self._dropped = dict.fromkeys(streams, 0)

    def run(self) -> None:
        # Ctrl-C and SIGTERM must reach the main thread: a process-directed signal that
        # lands here would leave the referee blocked in a receive until its timeout.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        selector = selectors.DefaultSelector()
        for fd in self._outputs:
            selector.register(fd, selectors.EVENT_READ)
        try:
            while selector.get_map() and not self._stopping.is_set():
                for key, _ in selector.select(DRAIN_SLICE_S):
                    if self._take(key.fd) is False:  # its end
                        selector.unregister(key.fd)
        finally:
            selector.close()
            with self._lock:
                self._ended = True
                for fd in self._outputs:
                    self._close_output(fd)

    def _close_output(self, fd: int) -> None:
        """Close ``fd``'s log file, noting what the cap dropped."""
        out, self._outputs[fd] = self._outputs[fd], None
        if out is None:
            return
        with contextlib.suppress(OSError):
            if self._dropped[fd]:
                note = f"\n[ttr-arena: {self._dropped[fd]} more bytes dropped at the "
                os.write(out, (note + f"{self.cap}-byte cap]\n").encode())
        os.close(out)

    def switch(self, streams: Mapping[int, Path]) -> None:
        """Write from now on into new files, each with a fresh cap (a warm bot process's
        next match: each match's logs are in its own folder)."""
        with self._lock:
            for fd, path in streams.items():
                self._close_output(fd)
                self._outputs[fd] = None if self._ended else _open_log(path)
                self._written[fd] = self._dropped[fd] = 0

    def catch_up(self, fd: int) -> None:
        """Copy now what the bot has written to ``fd`` so far (its pipe holds every byte it
        wrote before its answer arrived): the referee's step gets the bot's lines of this
        decision, however far behind a busy machine has left this thread."""
        for _ in range(CATCH_UP_READS):
            if not self._take(fd):
                return

    def _take(self, fd: int) -> bool | None:
        """Copy one chunk of ``fd``: True if one was, None if nothing is ready now, False at
        its end (or once the drain has ended). Read and written under the lock, so that this
        thread and ``catch_up`` keep the bytes in order."""
        with self._lock:
            if self._ended:
                return False
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return None
            except OSError:
                return False
            if not chunk:
                return False
            self._keep(fd, chunk)
            return True

    def _keep(self, fd: int, chunk: bytes) -> None:
        out = self._outputs[fd]
        room = self.cap - self._written[fd] if out is not None else 0
        if out is not None and room > 0:
            kept = chunk[:room]
            try:
                os.write(out, kept)
            except OSError:  # the disk is full or gone read-only: the log ends here
                os.close(out)
                self._outputs[fd] = None
            self._written[fd] += len(kept)
        self._dropped[fd] += max(0, len(chunk) - max(room, 0))

    def written(self, fd: int) -> int:
        """Bytes of ``fd`` in its file so far (counted after each write: no system call)."""
        return self._written[fd]

    def finish(self, timeout: float) -> None:
        """Let the drain reach the end of both pipes within ``timeout``, then stop it."""
        self.join(timeout)
        self._stopping.set()
        self.join(DRAIN_SLICE_S * 5)

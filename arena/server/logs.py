"""The server's own log: who did what (sign-ins, uploads, admin actions) and every error's
traceback with the id its error page showed, in ``server.log`` in the data folder.

It is rotated by size (``LOG_BYTES``, 10 MB, then ``server.log.1`` ... ``server.log.5``, the
oldest dropped), so a flood of requests that each log a line cannot fill the disk."""

from __future__ import annotations

import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

LOG_FILE = "server.log"
# The size at which server.log is rotated (ARENA_HOST_LOG_BYTES: smaller, for tests).
LOG_BYTES = int(os.environ.get("ARENA_HOST_LOG_BYTES", str(10 * 1024 * 1024)))
LOG_BACKUPS = 5


class SharedRotatingFile(RotatingFileHandler):
    """A size-rotated log that two processes write (the web server and its worker):
    whichever finds it full rotates it, and the other, still holding the file that was
    renamed away, opens the new ``server.log`` before its next line."""

    def emit(self, record: logging.LogRecord) -> None:
        stream = self.stream
        if stream is not None and self._moved(stream.fileno()):
            stream.close()
            self.stream = None  # type: ignore[assignment]  # reopened by emit
        super().emit(record)

    def _moved(self, held_fd: int) -> bool:
        try:
            on_disk = os.stat(self.baseFilename)
        except FileNotFoundError:
            return True
        held = os.fstat(held_fd)
        return (on_disk.st_dev, on_disk.st_ino) != (held.st_dev, held.st_ino)


def setup_logging(data_dir: Path) -> None:
    logger = logging.getLogger("arena.host")
    if logger.handlers:
        return
    logger.setLevel(logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(process)d %(message)s")
    for handler in (
        SharedRotatingFile(Path(data_dir) / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS),
        logging.StreamHandler(sys.stderr),
    ):
        handler.setFormatter(formatter)
        logger.addHandler(handler)
    logger.propagate = False

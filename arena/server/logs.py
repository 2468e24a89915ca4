"""The server's own log: who did what (sign-ins, uploads, admin actions), the worker's deaths,
pauses and restarts, and every error's traceback with the id its error page showed, in
``server.log`` in the data folder and on stderr.

Two formats (``arena host --log-format``): ``text``, a line a person reads, and ``json``,
one JSON object a line for a log collector: ``time`` (UTC, ISO 8601), ``level``,
``event`` (a short name where the code gives one, else the message), ``message``,
``pid``, the event's own fields (``extra={"fields": {...}}``) and ``error`` (a
traceback), if any.

It is rotated by size (``LOG_BYTES``, 10 MB, then ``server.log.1`` ... ``server.log.5``, the
oldest dropped), so a flood of requests that each log a line cannot fill the disk."""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

LOG_FILE = "server.log"
FORMATS = ("text", "json")
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


class JsonLines(logging.Formatter):
    """One JSON object per record, on one line (a traceback is a field, not more lines)."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        fields: dict[str, Any] = dict(getattr(record, "fields", None) or {})
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": fields.pop("event", None) or message,
            "message": message,
            "pid": record.process,
            "logger": record.name,
        }
        entry.update((key, value) for key, value in fields.items() if key not in entry)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def formatter(log_format: str) -> logging.Formatter:
    if log_format == "json":
        return JsonLines()
    return logging.Formatter("%(asctime)s %(process)d %(message)s")


def setup_logging(data_dir: Path, log_format: str = "text", echo: bool = True) -> None:
    """``server.log`` in the data folder in ``log_format``, and stderr too unless ``echo`` is
    False (a command such as ``arena admin unthrottle`` that says what it did itself)."""
    logger = logging.getLogger("arena.host")
    if logger.handlers:
        return
    logger.setLevel(logging.INFO)
    handlers: list[logging.Handler] = [
        SharedRotatingFile(Path(data_dir) / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS)
    ]
    if echo:
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setFormatter(formatter(log_format))
        logger.addHandler(handler)
    logger.propagate = False


def adopt_uvicorn_logs() -> None:
    """uvicorn's own messages (a bad request line, a stop) through the server's handlers, in
    its format: called after uvicorn has set up its logging, for the JSON format."""
    ours = logging.getLogger("arena.host").handlers
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = list(ours) if name == "uvicorn" else []
        logger.propagate = name != "uvicorn"

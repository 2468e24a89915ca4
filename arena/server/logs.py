"""The server's own log: who did what (sign-ins, uploads, admin actions) and every error's
traceback with the id its error page showed, in ``server.log`` in the data folder."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOG_FILE = "server.log"


def setup_logging(data_dir: Path, echo: bool = True) -> None:
    """``server.log`` in the data folder, and stderr too unless ``echo`` is False (a command
    such as ``arena admin unthrottle`` that says what it did in its own words)."""
    logger = logging.getLogger("arena.host")
    if logger.handlers:
        return
    logger.setLevel(logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(process)d %(message)s")
    handlers: list[logging.Handler] = [logging.FileHandler(Path(data_dir) / LOG_FILE)]
    if echo:
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setFormatter(formatter)
        logger.addHandler(handler)
    logger.propagate = False

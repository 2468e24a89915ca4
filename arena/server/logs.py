"""The server's own log: who did what (sign-ins, uploads, admin actions) and every error's
traceback with the id its error page showed, in ``server.log`` in the data folder."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

LOG_FILE = "server.log"


def setup_logging(data_dir: Path) -> None:
    logger = logging.getLogger("arena.host")
    if logger.handlers:
        return
    logger.setLevel(logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(process)d %(message)s")
    for handler in (
        logging.FileHandler(Path(data_dir) / LOG_FILE),
        logging.StreamHandler(sys.stderr),
    ):
        handler.setFormatter(formatter)
        logger.addHandler(handler)
    logger.propagate = False

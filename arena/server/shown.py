"""What a participant is shown of their bot's output (a validation's reason and stderr, a
ladder match's stderr) names no path of the server's.

A bot's traceback names its files by absolute path: the data folder (where the
competition's accounts and every bot live), the Python installation, the arena's own
source. The participant needs only where in their own code it failed: paths inside the
bot's folder become relative to it (``File "bot.py", line 3``), the data folder becomes
``<data>``, the arena's source ``<arena>``, Python's ``<python>``, the home folder ``~``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

ARENA_ROOT = Path(__file__).resolve().parents[2]  # the folder holding arena/ and bots/
# A path ends where a path's characters do: '/data' is not the start of '/data2/x'.
END = r"(?![\w.\-])"


def forms(path: Path) -> list[str]:
    """The ways ``path`` may be written: as given (made absolute) and resolved."""
    found = {str(path.absolute()), str(path.resolve())}
    return sorted((f for f in found if f != "/"), key=len, reverse=True)


def bot_folder(data_dir: Path, target: str) -> Path:
    """The folder holding a stored file bot's bot.py: ``target`` (relative to the data
    folder) is that folder, or its single file bot.py."""
    stored = Path(data_dir) / target
    return stored.parent if stored.suffix == ".py" else stored


def shown(text: str, data_dir: Path, bot_folders: Iterable[str] = ()) -> str:
    """``text`` with the server's paths taken out. ``bot_folders`` are regular
    expressions for the bot's folder (``re.escape`` of a path, or a pattern where part
    of it is not known, such as its content hash); inside them paths become relative."""
    if not text:
        return text
    for folder in bot_folders:
        text = re.sub(f"(?:{folder})/", "", text)
        text = re.sub(f"(?:{folder}){END}", ".", text)
    named = [(form, "<data>") for form in forms(Path(data_dir))]
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        named += [(form, "<python>") for form in forms(Path(prefix))]
    named += [(form, "<arena>") for form in forms(ARENA_ROOT)]
    named += [(form, "~") for form in forms(Path.home())]
    for prefix, name in sorted(named, key=lambda pair: len(pair[0]), reverse=True):
        text = re.sub(re.escape(prefix) + END, name, text)
    return text

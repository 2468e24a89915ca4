"""Run a bot from a Python file or folder (a submitted bot) as a bot process.

    python -m bots.filebot PATH      # PATH: bot.py, or a folder containing bot.py

The file defines exactly one subclass of ``bots.sdk.Bot`` (or a function
``make_bot(seed)``). Endpoint and token come from ARENA_CONNECT / ARENA_TOKEN.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path

from bots.runner import run_bot
from bots.sdk import Bot


def load_factory(path: Path) -> Callable[[int | str], Bot]:
    """The bot factory defined by a file (or a folder's bot.py)."""
    file = path / "bot.py" if path.is_dir() else path
    if not file.is_file():
        raise FileNotFoundError(f"no bot file at {file}")
    sys.path.insert(0, str(file.parent))
    spec = importlib.util.spec_from_file_location(f"submitted_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise ImportError(f"{file} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if callable(getattr(module, "make_bot", None)):
        return module.make_bot
    classes = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Bot)
        and obj is not Bot
        and obj.__module__ == module.__name__
    ]
    if len(classes) != 1:
        raise ValueError(f"{file} must define exactly one Bot subclass or make_bot(seed)")
    return classes[0]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        factory = load_factory(Path(sys.argv[1]))
    except (OSError, ImportError, ValueError) as error:
        print(f"bots.filebot: {error}", file=sys.stderr)
        return 2
    connect, token = os.environ.get("ARENA_CONNECT"), os.environ.get("ARENA_TOKEN")
    if not connect or not token:
        # Run by hand: no referee told it where to connect. Say how it is meant to run.
        print(
            "bots.filebot plays for a referee, which starts it and sets ARENA_CONNECT and "
            f'ARENA_TOKEN: to play it, run: arena play --bot "cmd:{sys.executable} -m '
            f'bots.filebot {sys.argv[1]}" --bot random',
            file=sys.stderr,
        )
        return 2
    bot = factory(0)
    name = getattr(bot, "name", "bot")
    return run_bot(bot, connect, token, name)


if __name__ == "__main__":
    sys.exit(main())

"""A bot that probes what its sandbox lets it touch, for the sandbox's tests (a file bot, run
by ``bots.filebot``; never installed as a plugin).

At its first decision it writes to stderr, one line each, what came of: reading its own code
(``__file__``), writing a file into its ``HOME`` and one into its ``TMPDIR`` (and reading them
back), and, for each path the test wrote into ``PROBES`` when it copied this file (read FILE,
list FOLDER, write FOLDER), trying exactly that. Each line is ``PROBE PATH: ok ...`` or
``PROBE PATH: refused (REASON)``; then "END OF PROBES", and it plays on (random legal actions).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

from bots.sdk import Bot

PROBES: list[tuple[str, str]] = []  # (read|list|write, path): filled in by the test's copy


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def _attempt(probe: str, path: str) -> None:
    try:
        if probe == "read":
            with open(path) as found:
                _say(f"read {path}: ok {found.read(200)!r}")
        elif probe == "list":
            _say(f"list {path}: ok {' '.join(sorted(os.listdir(path)))}")
        else:
            planted = os.path.join(path, f"planted-{os.getpid()}")
            with open(planted, "w") as out:
                out.write("written by a bot")
            _say(f"write {path}: ok {planted}")
    except OSError as error:
        _say(f"{probe} {path}: refused ({error.strerror})")


def _own_places() -> None:
    _attempt("read", os.path.abspath(__file__))
    for name in ("HOME", "TMPDIR"):
        folder = os.environ[name]
        try:
            with tempfile.NamedTemporaryFile("w+", dir=folder, prefix=f"{name}-") as note:
                note.write("a note to itself")
                note.flush()
                note.seek(0)
                assert note.read() == "a note to itself"
            _say(f"{name} {folder}: written and read back")
        except OSError as error:
            _say(f"{name} {folder}: refused ({error.strerror})")
    _say(f"cwd: {os.getcwd()}")


class Prober(Bot):
    name = "prober"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)
        self.probed = False

    def choose(self, observation, legal_actions):
        if not self.probed:
            self.probed = True
            _own_places()
            for probe, path in PROBES:
                _attempt(probe, path)
            _say("END OF PROBES")
            sys.stderr.flush()
        return self.rng.choice(legal_actions)

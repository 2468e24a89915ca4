"""A submitted bot that lists everything it can reach, for the sandbox's tests (a file bot:
``arena submit NAME --file tests/bots/lister.py``; never installed as a plugin).

At its first decision it writes to stderr, one line each, every name it can find out
without being told: its working folder, the paths in its environment, its command line
and its import path, and every folder above each; a walk of ``/`` (bounded; ``/proc``,
``/sys``, ``/dev`` and the Python installation's trees are not walked, being the
kernel's and the runtime's); each process it can see in ``/proc`` with its ``cwd`` and
``root`` links and its environment where readable. Then "END OF REPORT" (so that a
truncated log is told apart), and it crashes (``GIVE_UP``, to fail validation on purpose,
as an attacker reads their stderr on the submission page) or plays on.
"""

from __future__ import annotations

import os
import random
import sys

from bots.sdk import Bot

GIVE_UP = True
MAX_FOLDERS = 3000
MAX_DEPTH = 8
SKIPPED = ("/proc", "/sys", "/dev")


def _say(line: str) -> None:
    print(line, file=sys.stderr)


def _folders_above(path: str) -> list[str]:
    found = []
    path = os.path.abspath(path)
    while True:
        found.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            return found
        path = parent


def _listing(folder: str) -> None:
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        _say(f"cannot list {folder}: {error.strerror}")
    else:
        _say(f"list {folder}: {' '.join(names)}")


def _walk(runtime: list[str]) -> int:
    walked = 0
    for root, folders, files in os.walk("/"):
        walked += 1
        depth = root.count("/")
        _say(f"walk {root}: {' '.join(sorted(folders + files))}")
        folders[:] = [
            f
            for f in folders
            if depth < MAX_DEPTH
            and os.path.join(root, f) not in SKIPPED
            and not any(os.path.join(root, f) == r for r in runtime)
        ]
        if walked >= MAX_FOLDERS:
            _say("walk stopped at its bound")
            break
    return walked


def _processes() -> None:
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError as error:
        _say(f"cannot list /proc: {error.strerror}")
        pids = ["1", "self"]
    _say(f"processes: {' '.join(sorted(pids))}")
    for pid in sorted(set(pids) | {"1", "self"}):
        for link in ("cwd", "root", "exe"):
            try:
                _say(f"/proc/{pid}/{link} -> {os.readlink(f'/proc/{pid}/{link}')}")
            except OSError as error:
                _say(f"/proc/{pid}/{link}: {error.strerror}")
        _listing(f"/proc/{pid}/cwd")
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                variables = environ.read().replace(b"\0", b" ").decode(errors="replace")
            _say(f"/proc/{pid}/environ: {variables}")
        except OSError as error:
            _say(f"/proc/{pid}/environ: {error.strerror}")


def report() -> None:
    """Everything this process can name, on stderr."""
    _say(f"cwd: {os.getcwd()}")
    _say(f"argv: {sys.argv}")
    _say(f"import path: {sys.path}")
    for name, value in sorted(os.environ.items()):
        _say(f"env {name}={value}")
    places = {os.getcwd(), __file__, *sys.argv, *sys.path, *os.environ.values()}
    places |= {v[len("ipc://") :] for v in os.environ.values() if v.startswith("ipc://")}
    above = sorted({f for p in places if p.startswith("/") for f in _folders_above(p)})
    for folder in above:
        _listing(folder)
    _processes()
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    walked = _walk(sorted(os.path.realpath(p) for p in prefixes))
    _say(f"walked {walked} folders")
    _say("END OF REPORT")
    sys.stderr.flush()


class Lister(Bot):
    name = "lister"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)
        self.reported = False

    def choose(self, observation, legal_actions):
        if not self.reported:
            self.reported = True
            report()
            if GIVE_UP:
                raise SystemExit("listed what it could reach")
        return self.rng.choice(legal_actions)

"""Which build of the engine runs: the mypyc-compiled one or the pure-Python source.

``make compiled`` (part of ``make setup`` when a C compiler is present) compiles
the engine's hot modules, and the search bots' planner (``bots/policy.py``), with mypyc
into extension modules beside their sources and records each source's hash in
``arena/_native.json``. Python
imports an extension module before a source file of the same name, so the
compiled build runs whenever it exists; this module makes sure it runs only
when it was built from the sources now on disk, for this Python, and when
``ARENA_ENGINE`` does not ask otherwise:

- ``ARENA_ENGINE=auto`` (the default): compiled if built and current, else pure;
- ``ARENA_ENGINE=pure``: always the Python source (to compare, or to debug);
- ``ARENA_ENGINE=compiled``: compiled, or a one-line warning and the pure engine.

The choice is all or nothing (compiled modules call each other natively) and
is made once, when ``arena`` is first imported. Both builds play identical
games (``tests/test_engine_builds.py``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "_native.json"
# The modules mypyc compiles, in one group (its shared library is ``arena._native__mypyc``):
# the base game and the Card Game. The editions run interpreted on the compiled base
# (``allow_interpreted_subclasses``): their modules define msgspec Structs, and a class
# compiled by mypyc loses the precise annotations msgspec reads.
COMPILED_MODULES = (
    "arena.engine.game",
    "arena.engine.state",
    "arena.engine.scoring",
    "arena.variants.cardgame.game",
    # The search bots' planner and rollouts (bots/search.py, bots/ismcts.py): the hot code
    # of mcts-fast and its kin, calling the compiled engine natively.
    "bots.policy",
    # The learning environments' observation writer (arena/envs/fastobs.py): it reads the
    # compiled engine's state natively.
    "arena.envs.fastobs",
)
GROUP = "arena._native"
PACKAGES = ("arena.", "bots.")  # where a compiled module (and so a stray ``.so``) may be
CHOICES = ("auto", "pure", "compiled")


def source_path(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def source_hashes() -> dict[str, str]:
    """The sha256 of each compiled module's source, as the build records them."""
    return {m: hashlib.sha256(source_path(m).read_bytes()).hexdigest() for m in COMPILED_MODULES}


def extension_suffix() -> str:
    """The file suffix of this Python's extension modules (``.cpython-311-x86_64-...so``)."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def compiled_is_current() -> str | None:
    """None when the compiled build exists, for this Python, from the sources on disk;
    else why not (one line)."""
    try:
        manifest = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return "the compiled engine is not built (make compiled)"
    if manifest.get("suffix") != extension_suffix():
        return "the compiled engine was built for another Python (make compiled)"
    if manifest.get("sources") != source_hashes():
        return "the compiled engine is older than its sources (make compiled)"
    for module in (*COMPILED_MODULES, GROUP + "__mypyc"):
        if not source_path(module).with_suffix(extension_suffix()).exists():
            return f"the compiled engine lacks {module} (make compiled)"
    return None


def toolchain_problem() -> str | None:
    """None when this machine can build the compiled engine; else what it lacks (one line)."""
    command = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(command) is None and shutil.which("cc") is None:
        return "no C compiler found (install gcc or clang to compile the engine)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "Python's C headers are missing (the python3-dev package)"
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (the dev extra: make setup)"
    return None


class SourceFirst:
    """Finds the Python source of ``arena``'s and ``bots``' modules ahead of any extension
    module beside it, except the compiled modules when the compiled build runs (so that a
    stray or stale ``.so`` is never imported)."""

    def __init__(self, compiled: bool) -> None:
        self.compiled = compiled

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(PACKAGES) or (self.compiled and fullname in COMPILED_MODULES):
            return None
        source = source_path(fullname)
        if not source.is_file():
            return None  # a package, or the compiled build's shared library
        loader = importlib.machinery.SourceFileLoader(fullname, str(source))
        return importlib.util.spec_from_file_location(fullname, source, loader=loader)


def select() -> str:
    """Choose the build (see the module's docstring) and return it: 'compiled' or 'pure'."""
    wanted = os.environ.get("ARENA_ENGINE", "auto").strip().lower() or "auto"
    if wanted not in CHOICES:
        print(
            f"arena: ARENA_ENGINE={wanted!r} is not one of {', '.join(CHOICES)}; using 'auto'",
            file=sys.stderr,
        )
        wanted = "auto"
    problem = "ARENA_ENGINE=pure" if wanted == "pure" else compiled_is_current()
    if problem is not None and wanted == "compiled":
        print(f"arena: {problem}; using the pure-Python engine", file=sys.stderr)
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, SourceFirst)]
    sys.meta_path.insert(0, SourceFirst(compiled=problem is None))
    return "compiled" if problem is None else "pure"

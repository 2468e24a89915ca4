"""Compile the engine's hot modules with mypyc, in place (``make compiled`` runs it).

    python tools/build_engine.py          build, unless the build is already current
    python tools/build_engine.py --force  build again
    python tools/build_engine.py --clean  remove the compiled build

Without a C compiler, Python's headers or mypyc it says so in one line and
exits 0, and so it does when compiling fails (the compiler's output is in
build/native/build.log): the pure-Python engine is then used, as it is
whenever the compiled build is missing or older than its sources
(arena/native.py decides at import).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["ARENA_ENGINE"] = "pure"  # importing arena must not load a stale build
sys.path.insert(0, str(ROOT))

from arena import native  # noqa: E402


def clean() -> None:
    """Remove every extension module under arena/ and bots/ (all are this build's, current
    or not)."""
    native.MANIFEST.unlink(missing_ok=True)
    for package in native.PACKAGES:
        for path in (ROOT / package.rstrip(".")).rglob("*" + native.extension_suffix()):
            path.unlink()


def build() -> None:
    """mypyc on the listed modules as one group; then the manifest of what was built."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    sources = [str(native.source_path(m).relative_to(ROOT)) for m in native.COMPILED_MODULES]
    hashes = native.source_hashes()  # before compiling: the build is of these sources
    clean()
    os.chdir(ROOT)
    extensions = mypycify(
        # A cache of its own: `make test` type-checks beside this build (.mypy_cache).
        ["--follow-imports=silent", "--cache-dir=build/native/mypy-cache", *sources],
        opt_level="3",
        group_name=native.GROUP,
        target_dir="build/native",
    )
    dist = Distribution({"name": "ttr-arena-engine", "ext_modules": extensions})
    command = dist.get_command_obj("build_ext")
    command.inplace = True
    command.build_temp = "build/native/temp"
    dist.run_command("build_ext")
    native.MANIFEST.write_text(
        json.dumps({"suffix": native.extension_suffix(), "sources": hashes}, indent=1) + "\n"
    )


LOG = ROOT / "build" / "native" / "build.log"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even if current")
    parser.add_argument("--clean", action="store_true", help="remove the compiled build")
    parser.add_argument("--compile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile:  # the build itself, in a child process whose output goes to the log
        build()
        return 0
    if args.clean:
        clean()
        print("compiled engine removed: the pure-Python engine runs")
        return 0
    if not args.force and native.compiled_is_current() is None:
        print("compiled engine is current")
        return 0
    problem = native.toolchain_problem()
    if problem is not None:
        print(f"{problem}: the pure-Python engine runs")
        return 0
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with LOG.open("w") as log:
        done = subprocess.run(
            [sys.executable, __file__, "--compile"], stdout=log, stderr=subprocess.STDOUT
        )
    if done.returncode != 0:
        clean()
        print(f"compiling the engine failed (see {LOG}): the pure-Python engine runs")
        return 0
    print(f"compiled engine built: {len(native.COMPILED_MODULES)} modules with mypyc")
    return 0


if __name__ == "__main__":
    sys.exit(main())

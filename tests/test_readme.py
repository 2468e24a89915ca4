"""The documented commands work on a fresh clone after ``make run``, in the order written.

The repository's files (what a clone holds: tracked and not ignored) are copied
to a fresh folder; ``make run`` runs there with this test run's environment (so
nothing is installed again: ``-o`` tells make the install is done) but with only
what ``make run`` installs importable (every other installed package is blocked,
so a command needing pytest, pyarrow or Playwright fails here as after ``make run``),
and with its JavaScript step (npm) for real; then every command of the list in
docs/COMMANDS.md (the tour the README points to after ``make run``), in order, then
docs/ENGINE.md's Python example.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
MARKER = "<!-- readme-commands"


def readme_commands(text: str) -> list[list[str]]:
    """The commands of docs/COMMANDS.md's marked ``sh`` block, continuation lines joined."""
    block = text.split(MARKER, 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = block.replace("\\\n", " ").splitlines()
    return [words for line in lines if (words := shlex.split(line, comments=True))]


def python_example(text: str) -> str:
    section = text.split("## Using the engine", 1)[1]
    return section.split("```python", 1)[1].split("```", 1)[0]


def fresh_copy(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


# What only `make test` may bring: test and browser tools, Parquet, Ray's dashboard extras
# (prometheus-client is the host's own: its /metrics).
NOT_FOR_RUNNING = {
    "pytest", "pytest-xdist", "hypothesis", "ruff", "mypy", "playwright", "pyarrow",
    "aiohttp", "grpcio", "opencensus", "py-spy", "smart-open", "virtualenv",
}  # fmt: skip
VENV_BASE = {"pip", "setuptools", "wheel"}  # what `python -m venv` itself installs


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def run_closure(root: str = "ttr-arena") -> set[str]:
    """The distributions ``pip install -e .`` brings: the project's requirements without
    extras, and theirs, as the installed metadata states them."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = canonical(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        with contextlib.suppress(metadata.PackageNotFoundError):
            for text in metadata.distribution(name).requires or []:
                wanted = Requirement(text)
                if wanted.marker is None or wanted.marker.evaluate({"extra": ""}):
                    todo.append(wanted.name)
    return seen


def block_all_but(allowed: set[str], folder: Path) -> Path:
    """A folder for PYTHONPATH that makes every installed module outside ``allowed``
    distributions fail to import, as it would after ``make run`` alone."""
    for module, dists in metadata.packages_distributions().items():
        if module.isidentifier() and not {canonical(d) for d in dists} & allowed:
            (folder / module).mkdir(parents=True, exist_ok=True)
            (folder / module / "__init__.py").write_text(
                f"raise ImportError('{module} is not installed by make run')\n"
            )
    return folder


def test_make_run_installs_only_what_running_needs(tmp_path):
    """`make run` installs the project without extras; that brings no test, browser or
    Parquet tool and Ray without its dashboard (it brought Playwright, 1.1 GB, before)."""
    dry = subprocess.run(
        ["make", "-n", "run", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
        text=True,
    )  # fmt: skip
    installs = [line for line in dry.stdout.splitlines() if "pip install" in line]
    assert installs and all(line.rstrip().endswith(" -e .") for line in installs), dry.stdout
    assert "ray" in run_closure() and not run_closure() & NOT_FOR_RUNNING


@pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("make") is None or not (ROOT / ".git").exists(),
    reason="needs git, make and a git checkout",
)
def test_the_readme_commands_run_in_order_on_a_fresh_clone_after_make_run(tmp_path):
    arena = VENV / "bin" / "arena"
    if not arena.exists():
        pytest.skip("the tests do not run in the project's virtual environment")
    clone = tmp_path / "clone"
    fresh_copy(clone)
    blocked = block_all_but(run_closure() | VENV_BASE, tmp_path / "not-installed")
    # As a user's shell runs it: not a sub-make of `make test` (which would add make's own
    # "Leaving directory" line after what `make run` says last).
    outer_make = ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")
    env = {k: v for k, v in os.environ.items() if k not in outer_make}
    env.update(COLUMNS="80", PYTHONPATH=str(blocked))
    done = subprocess.run(
        ["make", "-o", f"{VENV}/.installed-run", "run", f"VENV={VENV}"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "site written:" in done.stdout

    readme = (clone / "README.md").read_text()
    text = (clone / "docs" / "COMMANDS.md").read_text()
    assert "docs/COMMANDS.md" in readme, "the README points to the tour of commands"
    commands = readme_commands(text)
    assert len(commands) >= 15 and all(words[0] == "arena" for words in commands)
    # `make run` prepares the JavaScript bot when npm is there, else says how; only then
    # are the list's node commands left out.
    js_ready = shutil.which("npm") is not None and shutil.which("node") is not None
    if not js_ready:
        assert "npm not found: the JavaScript example bot needs Node.js" in done.stdout
    # A new shell has no `arena` on PATH ("command not found" after `make run`): the
    # README says to activate .venv (and so does the list's page, before its commands), and
    # `make run` ends saying it too; the commands run so.
    activate = ". .venv/bin/activate"
    two_commands = readme.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    assert activate in two_commands and activate in text.split(MARKER, 1)[0]
    assert "bin/activate" in done.stdout.splitlines()[-1]
    (clone / ".venv").symlink_to(VENV)
    bin_dir = str(VENV / "bin")
    path = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != bin_dir)
    shell_env = {**env, "PATH": path}
    root_before = set(os.listdir(clone))
    for words in commands:
        if "node" in " ".join(words) and not js_ready:
            continue
        ran = subprocess.run(
            ["bash", "-c", f'{activate} && exec "$@"', "arena", *words], cwd=clone,
            env=shell_env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert ran.returncode == 0, f"{shlex.join(words)}:\n{ran.stdout[-2000:]}{ran.stderr}"
        assert "Traceback" not in ran.stdout + ran.stderr
        assert "forfeited" not in ran.stdout, f"{shlex.join(words)}:\n{ran.stdout}"
        if words[1:3] == ["submit", "my-bot"]:
            assert re.search(r"registered my-bot@1", ran.stdout)
    assert (clone / "site" / "index.html").is_file()
    assert (clone / "arena-data" / "seats.csv").is_file()
    # Everything the commands write goes to the data folder (ignored by git), not the root.
    assert set(os.listdir(clone)) - root_before <= {"arena-data"}, set(os.listdir(clone))

    example = subprocess.run(
        [sys.executable, "-c", python_example((clone / "docs" / "ENGINE.md").read_text())],
        cwd=clone, capture_output=True, text=True,
    )  # fmt: skip
    assert example.returncode == 0 and example.stdout.strip(), example.stderr

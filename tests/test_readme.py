"""The README's commands work on a fresh clone after ``make run``, in the order written.

The repository's files (what a clone holds: tracked and not ignored) are copied
to a fresh folder; ``make run`` runs there with this test run's environment (so
nothing is installed again: ``-o`` tells make the install is done), then every
command of the README's list, in order, then its Python example.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
MARKER = "<!-- readme-commands"


def readme_commands(text: str) -> list[list[str]]:
    """The commands of the README's marked ``sh`` block, continuation lines joined."""
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
    node_modules = Path("examples/js-bot/node_modules")
    if (ROOT / node_modules).is_dir():  # a copy: the sandbox does not follow a symlink out
        shutil.copytree(ROOT / node_modules, clone / node_modules, symlinks=True)
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        ["make", "-o", f"{VENV}/.installed-run", "-o", str(node_modules), "run", f"VENV={VENV}"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "site written:" in done.stdout

    text = (clone / "README.md").read_text()
    commands = readme_commands(text)
    assert len(commands) >= 15 and all(words[0] == "arena" for words in commands)
    js_ready = shutil.which("node") is not None and (clone / node_modules).is_dir()
    for words in commands:
        if "node" in " ".join(words) and not js_ready:
            continue  # the JavaScript bot needs Node.js and its npm package
        ran = subprocess.run(
            [str(arena), *words[1:]], cwd=clone, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert ran.returncode == 0, f"{shlex.join(words)}:\n{ran.stdout[-2000:]}{ran.stderr}"
        assert "Traceback" not in ran.stdout + ran.stderr
        assert "forfeited" not in ran.stdout, f"{shlex.join(words)}:\n{ran.stdout}"
        if words[1:3] == ["submit", "my-bot"]:
            assert re.search(r"registered my-bot@1", ran.stdout)
    assert (clone / "site" / "index.html").is_file() and (clone / "seats.csv").is_file()

    example = subprocess.run(
        [sys.executable, "-c", python_example(text)], cwd=clone, capture_output=True, text=True
    )
    assert example.returncode == 0 and example.stdout.strip(), example.stderr

"""``examples/deploy`` checked as far as it can be without a network or a container
runtime: the systemd unit passes ``systemd-analyze verify`` (where installed); the unit's
and the container's command lines parse with ``arena host``'s own options; the
Containerfile copies files that exist and everything the package is built from; the
three files name the same port."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer

from arena.cli import app

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "examples" / "deploy"
ARENA = Path(sys.executable).with_name("arena")


def unit_command() -> list[str]:
    text = (DEPLOY / "arena.service").read_text()
    found = re.search(r"^ExecStart=(.+)$", text, flags=re.M)
    assert found, "the unit has no ExecStart"
    return shlex.split(found.group(1))


def container_command() -> list[str]:
    text = (DEPLOY / "Containerfile").read_text()
    found = re.search(r"^CMD (\[.+\])$", text, flags=re.M)
    assert found, "the Containerfile has no CMD in JSON form"
    return json.loads(found.group(1))


def host_command() -> Any:
    """``arena host`` as the command line parses it (typer's click command)."""
    return typer.main.get_command(app).commands["host"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [unit_command, container_command])
def test_the_command_lines_parse_with_arena_hosts_options(command) -> None:
    argv = command()
    assert Path(argv[0]).name == "arena" and argv[1] == "host"
    context = host_command().make_context("host", argv[2:])  # raises on an unknown option
    assert context.params["data_dir"] == Path("/var/lib/arena")
    assert context.params["bind"] == "127.0.0.1" and context.params["behind_proxy"]
    shown = subprocess.run([ARENA, "host", "--help"], capture_output=True, text=True)
    for option in (word for word in argv if word.startswith("--")):
        assert option in shown.stdout, option


def test_the_unit_runs_as_its_own_user_delegates_cgroups_and_restarts() -> None:
    text = (DEPLOY / "arena.service").read_text()
    settings = dict(re.findall(r"^(\w+)=(.*)$", text, flags=re.M))
    assert settings["User"] == "arena" and settings["StateDirectory"] == "arena"
    assert settings["Delegate"] == "yes" and settings["Restart"] == "on-failure"
    # What would break the bot sandbox is left out (and named in a comment, with why).
    for breaking in ("ProtectKernelTunables", "ProtectControlGroups", "PrivateUsers"):
        assert breaking not in settings and f"{breaking}" in text
    assert set(settings["RestrictNamespaces"].split()) >= {"user", "pid", "mnt", "ipc", "net"}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    """Verified as installed, its ExecStart pointing at this checkout's ``arena`` (verify
    checks that the program exists)."""
    text = (DEPLOY / "arena.service").read_text()
    unit = tmp_path / "arena.service"
    unit.write_text(text.replace("/opt/arena/bin/arena", str(ARENA)))
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True
    )
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if "arena.service" in line  # (the machine's own units may have problems of theirs)
    ]
    assert done.returncode == 0 or not problems, done.stderr
    assert problems == [], problems


def test_the_containerfile_copies_what_exists_and_all_the_package_is_built_from() -> None:
    text = (DEPLOY / "Containerfile").read_text()
    copied = []
    for line in re.findall(r"^COPY (.+)$", text, flags=re.M):
        *sources, _ = line.split()
        copied += sources
    for source in copied:
        assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = project["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in packages:
        assert package.rstrip("*") in copied, f"the package {package} is not copied"
    assert project["project"]["readme"] in copied
    assert "util-linux" in text and re.search(r"^USER arena$", text, flags=re.M)


def test_the_proxy_reaches_the_port_the_server_listens_on() -> None:
    caddy = (DEPLOY / "Caddyfile").read_text()
    found = re.search(r"reverse_proxy 127\.0\.0\.1:(\d+)", caddy)
    assert found
    for argv in (unit_command(), container_command()):
        assert argv[argv.index("--port") + 1] == found.group(1)

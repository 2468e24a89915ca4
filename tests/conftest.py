import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


os.environ.setdefault("RAY_AUTH_MODE", "disabled")
# Tournaments key their games with a fresh secret each (arena/referee/keys.py); the tests that
# compare separate stores of the same tournament pin it, as an organiser reproducing a run would.
os.environ.setdefault("ARENA_SECRET", "ttr-arena test suite")
RAY = str(Path(sys.executable).parent / "ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_command(*args: str, attempts: int = 1) -> None:
    """Run ``ray ARGS``; on a loaded machine a node may fail to register in Ray's own
    time limit, so it is tried ``attempts`` times; a failure shows what Ray said."""
    for attempt in range(attempts):
        done = subprocess.run([RAY, *args], capture_output=True, text=True, timeout=180)
        if done.returncode == 0:
            return
        if attempt + 1 < attempts:
            time.sleep(2)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
    raise RuntimeError(f"`ray {' '.join(args)}` failed ({done.returncode}):\n{tail}")


@pytest.fixture(scope="session")
def ray_cluster():
    """A real two-node Ray cluster on loopback, started as an organiser would; one per session."""
    port = free_port()
    # Short: Ray's socket paths live below it (at most 107 bytes), and pytest-xdist's
    # per-worker temporary folders are deep.
    temp = Path(tempfile.mkdtemp(prefix="ray-"))
    common = ["--node-ip-address=127.0.0.1", "--disable-usage-stats", "--num-cpus=1"]
    address = f"127.0.0.1:{port}"
    try:
        ray_command(
            "start", "--head", f"--port={port}", "--include-dashboard=false",
            f"--temp-dir={temp}", *common,
        )  # fmt: skip
        ray_command("start", f"--address={address}", *common, attempts=3)
        yield address
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs the tests in parallel, ``--dist loadgroup``),
    every test that starts or joins Ray runs in one worker, one after another: the cluster
    fixture ends with ``ray stop --force``, which ends every Ray on the machine."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        module = getattr(getattr(item, "module", None), "__name__", "")
        if "ray_cluster" in fixtures or module.endswith("test_ray_journeys"):
            item.add_marker(pytest.mark.xdist_group("ray"))

import os
import shutil
import socket
import subprocess
import sys
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


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A real two-node Ray cluster on loopback, started as an organiser would; one per session."""
    port = free_port()
    temp = tmp_path_factory.mktemp("ray")
    common = ["--node-ip-address=127.0.0.1", "--disable-usage-stats", "--num-cpus=1"]
    subprocess.run(
        [
            RAY,
            "start",
            "--head",
            f"--port={port}",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
            *common,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    address = f"127.0.0.1:{port}"
    try:
        subprocess.run(
            [RAY, "start", f"--address={address}", *common],
            check=True,
            capture_output=True,
            timeout=120,
        )
        yield address
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs the tests in parallel, ``--dist loadgroup``),
    every test that starts or joins Ray runs in one worker, one after another: the cluster
    fixture ends with ``ray stop --force``, which ends every Ray on the machine."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        module = getattr(getattr(item, "module", None), "__name__", "")
        if "ray_cluster" in fixtures or module.endswith("test_ray_journeys"):
            item.add_marker(pytest.mark.xdist_group("ray"))

import os
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


# Every port a Ray node opens, given free ones, so that several Rays on one machine (a
# cluster per test worker, a test's own head) never meet on a default port.
NODE_PORTS = ("node-manager", "object-manager", "metrics-export", "runtime-env-agent",
              "dashboard-agent-listen", "dashboard-agent-grpc")  # fmt: skip


def own_ports() -> list[str]:
    """``ray start`` options giving a node free ports of its own."""
    return [f"--{name}-port={free_port()}" for name in NODE_PORTS]


# The arena asks nothing of Ray's log forwarding (its driver sets log_to_driver=False): a
# node's log monitor would only poll its log files, a tenth of a core all session long.
QUIET_NODE = ("--include-log-monitor=false",)


def start_head(temp: Path, port: int, *extra: str) -> None:
    """``ray start --head`` on loopback, its files in ``temp`` and every port its own."""
    ray_command(
        "start", "--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}",
        "--node-ip-address=127.0.0.1", "--disable-usage-stats", "--num-cpus=1", *own_ports(),
        *QUIET_NODE, *extra,
    )  # fmt: skip


def stop_ray_in(temp: Path) -> None:
    """Kill every process of the Ray whose files are in ``temp`` (``ray stop`` would end
    every Ray on the machine, other test workers' included), then remove its files."""
    from arena.tournament.rayexec import end_session

    end_session(str(temp))


@pytest.fixture(scope="session")
def ray_cluster():
    """A real two-node Ray cluster on loopback, started as an organiser would; one per test
    worker that needs one (the tests using it are spread over ``RAY_GROUPS`` workers)."""
    port = free_port()
    # Short: Ray's socket paths live below it (at most 107 bytes), and pytest-xdist's
    # per-worker temporary folders are deep.
    temp = Path(tempfile.mkdtemp(prefix="ray-"))
    address = f"127.0.0.1:{port}"
    try:
        start_head(temp, port)
        ray_command(
            "start", f"--address={address}", "--node-ip-address=127.0.0.1",
            "--disable-usage-stats", "--num-cpus=1", *own_ports(), *QUIET_NODE, attempts=3,
        )  # fmt: skip
        yield address
    finally:
        stop_ray_in(temp)


# The tests on the session's cluster, in this many groups, each in one test worker with a
# cluster of its own; the longest tests first, each in a group of its own.
RAY_GROUPS = 2
LONGEST_ON_RAY = ("test_the_chaos_loop", "test_a_soak_on_ray")
# The files whose tests take longest (minutes each, end to end): they start first, so that
# the last minutes of a run are not one worker finishing a long test while the rest wait.
LONGEST_FILES = (
    "test_chaos.py", "test_soak.py", "test_properties.py", "test_readme.py",
    "test_budgets.py", "test_engine_builds.py", "test_host_term.py", "test_host_ladder.py",
    "test_ray_journeys.py", "test_tournament.py", "test_first_bot.py", "test_host_throttle.py",
    "test_host_operations.py", "test_host_backup.py", "test_legal_actions.py",
)  # fmt: skip


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs the tests in parallel, ``--dist loadgroup``),
    the tests using the session's Ray cluster run in ``RAY_GROUPS`` groups, each in one
    worker (one cluster per group: a cluster costs seconds to start, and a worker's tests
    share it). A test that starts a Ray of its own runs anywhere: every Ray here has its
    own ports and folder, and none is stopped by ``ray stop`` outside a PID namespace."""
    on_ray = [item for item in items if _uses_the_cluster(item)]
    longest = [i for i in on_ray if i.name.startswith(LONGEST_ON_RAY)]
    # The longest first, one a group; then the rest dealt in turn, so that the groups
    # (each one worker's, end to end) take about as long as each other.
    for index, item in enumerate(longest + [i for i in on_ray if i not in longest]):
        item.add_marker(pytest.mark.xdist_group(f"ray-{index % RAY_GROUPS}"))
    items.sort(key=lambda item: item.path.name not in LONGEST_FILES)  # stable: else as found


def _uses_the_cluster(item: pytest.Item) -> bool:
    """The test asks for ``ray_cluster``, or gets it by ``request.getfixturevalue`` in a
    case marked ``on_ray_cluster``."""
    fixtures = getattr(item, "fixturenames", ())
    return "ray_cluster" in fixtures or item.get_closest_marker("on_ray_cluster") is not None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "on_ray_cluster: the case gets the ray_cluster fixture by getfixturevalue"
    )

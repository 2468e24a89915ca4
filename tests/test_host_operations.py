"""Running a competition unattended, against a real ``arena host``: its worker killed with
``kill -9`` under a running ladder is reaped and replaced and the ladder flows again with
nothing charged to any bot; ``/readyz`` says so meanwhile; ``/metrics`` parses and its
counters move; ``--log-format json`` writes JSON lines; and a data folder on a small
file system filled during the ladder is a state (uploads answer 503, the worker pauses,
it resumes by itself when space returns, both stores sound), not a crash."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.procfs import child_pids, stat_fields
from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, wait_until

pytestmark = pytest.mark.xdist_group("host-operations")
LADDER = "test-cup-usa-2p"
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()
DISK_FULL = "disk is full, try again later"


def stored(host: HostProcess) -> list:
    with ResultsStore.reader(host.data) as store:
        return store.results(LADDER, details=False)


def worker_pid(host: HostProcess) -> int | None:
    """The running worker process: the server's child running ``arena.server.worker``."""
    assert host.process is not None
    for pid in child_pids(host.process.pid):
        with contextlib.suppress(OSError):
            if b"arena.server.worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
    return None


def scrape(visitor: Visitor) -> dict[str, float]:
    """/metrics parsed by prometheus_client's own parser: each sample's value by name and
    labels (``name{label=value,...}``)."""
    answer = visitor.get("/metrics")
    assert answer.status_code == 200, answer.text
    found = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"] = sample.value
    return found


def two_bots_play(host: HostProcess) -> Visitor:
    alice, bob = host.visitor(), host.visitor()
    for visitor, name in ((alice, "alice"), (bob, "bob")):
        assert visitor.signup(name).status_code == 303
        answer = visitor.upload("greedy", "greedy.py", GREEDY)
        visitor.wait_for(answer.headers["location"], r'id="status">ok<')
    wait_until(lambda: len(stored(host)) >= 2, "the ladder plays")
    return alice


def no_faults(host: HostProcess) -> None:
    """No bot was charged: no fault in any stored match, and no match given up on."""
    for result in stored(host):
        assert not any(result.faults), (result.bots, result.faults)
    with ResultsStore.reader(host.data) as store:
        assert store.failures(LADDER) == []


def integrity(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


# ---------------------------------------------------------------- a killed worker


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    # A long first delay: the gap between the worker's death and its successor is seen.
    host = HostProcess(
        tmp_path_factory.mktemp("operations"),
        env={"ARENA_HOST_RESTART_SECONDS": "8"},
        options=("--log-format", "json"),
    ).start()
    try:
        two_bots_play(host)
        yield host
    finally:
        host.stop()


def test_health_and_metrics_while_the_ladder_runs(cup: HostProcess) -> None:
    visitor = cup.visitor()
    assert visitor.get("/healthz").json() == {"alive": True}
    ready = wait_until(lambda: visitor.get("/readyz").status_code == 200, "ready")
    assert ready
    assert visitor.get("/readyz").json() == {"ready": True, "reasons": []}
    before = scrape(visitor)
    landed = len(stored(cup))
    wait_until(lambda: len(stored(cup)) >= landed + 2, "two more matches")
    after = scrape(visitor)
    key = "arena_matches_stored_total{board=usa-2p}"
    assert after[key] >= before[key] + 2
    assert after[key] <= len(stored(cup))
    assert after["arena_validation_queue{}"] == 0
    assert after["arena_worker_up{}"] == 1
    assert after["arena_disk_free_bytes{}"] > 0 and after["arena_disk_used_bytes{}"] > 0
    assert after["arena_request_seconds_count{method=GET,route=/readyz}"] >= 2
    assert after["arena_matches_per_minute{board=usa-2p}"] > 0
    # Read from this machine only: a request a proxy forwarded is refused.
    forwarded = visitor.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
    assert forwarded.status_code == 403


def test_a_killed_worker_is_replaced_and_the_ladder_flows_again(cup: HostProcess) -> None:
    visitor = cup.visitor()
    wait_until(lambda: visitor.get("/readyz").status_code == 200, "ready")
    old = worker_pid(cup)
    assert old is not None
    landed = len(stored(cup))
    os.kill(old, signal.SIGKILL)
    # Unready while no worker runs (the restart waits 8 s), naming why.
    gone = wait_until(
        lambda: (
            (answer := visitor.get("/readyz")).status_code == 503
            and "the worker is not running" in answer.json()["reasons"]
        ),
        "/readyz unready: the worker is not running",
        60,
    )
    assert gone
    # Reaped: no zombie is left of it.
    fields = stat_fields(old)
    assert fields is None or fields[0] != "Z"
    new = wait_until(lambda: worker_pid(cup), "a new worker", 120)
    assert new != old
    wait_until(lambda: visitor.get("/readyz").status_code == 200, "ready again", 120)
    wait_until(lambda: len(stored(cup)) >= landed + 3, "matches land again", 120)
    no_faults(cup)
    metrics = scrape(visitor)
    assert metrics["arena_worker_restarts_total{}"] == 1
    assert metrics["arena_worker_deaths_total{}"] == 1
    admin = cup.admin()
    page = admin.get("/admin").text
    assert "killed by SIGKILL" in page and "1 deaths, 1 restarts" in page
    assert f"running (pid {new}," in page


def test_log_lines_are_json_objects(cup: HostProcess) -> None:
    lines = (cup.data / "server.log").read_text().splitlines()
    entries = [json.loads(line) for line in lines if line.strip()]
    assert entries and all({"time", "level", "event", "pid"} <= entry.keys() for entry in entries)
    died = [entry for entry in entries if entry["event"] == "worker_died"]
    assert len(died) == 1 and died[0]["how"] == "killed by SIGKILL"
    assert died[0]["level"] == "warning"
    # stderr carries the same lines (the web process's, the worker's and uvicorn's).
    errors = [line for line in cup.stderr().splitlines() if line.strip()]
    assert errors and all(isinstance(json.loads(line), dict) for line in errors)


# ---------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 20 MiB tmpfs as the data folder (skipped where mounting is not permitted)."""
    data = tmp_path / "data"
    data.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(data)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a 20 MiB tmpfs here ({done.stderr.strip()}): run as root")
    try:
        yield tmp_path
    finally:
        subprocess.run(["umount", "-l", str(data)], capture_output=True)


def fill(folder: Path, leave: int = 0) -> Path:
    """A file taking the disk's free space but ``leave`` bytes (0: to ENOSPC itself)."""
    filler = folder / "filler"
    with filler.open("wb") as out:
        for chunk in (1 << 20, 1 << 14, 1 << 10, 1):
            while os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize > leave + chunk:
                try:
                    out.write(b"\0" * chunk)
                    out.flush()
                except OSError:
                    break
    return filler


def test_a_full_disk_pauses_the_competition_and_it_resumes(small_disk: Path) -> None:
    host = HostProcess(small_disk).start()
    try:
        alice = two_bots_play(host)
        admin = host.admin()
        carol = host.visitor()
        assert carol.signup("carol").status_code == 303
        token = carol.token()
        filler = fill(host.data)  # to the last byte, while the ladder plays
        wait_until(lambda: "the ladder paused" in host.stderr(), "the worker pauses", 120)
        # The competition is paused, not dead: the same worker, no death.
        wait_until(
            lambda: (
                "the disk holding the data folder is full: the worker is paused"
                in alice.get("/readyz").json()["reasons"]
            ),
            "/readyz says the disk is full",
            60,
        )
        # Some room back, but less than the reserve: uploads are refused in a clear line.
        filler.unlink()
        fill(host.data, leave=512 * 1024)
        page = carol.upload("late", "late.py", GREEDY)
        assert page.status_code == 503 and DISK_FULL in page.text
        api = carol.client.post(
            "/api/submissions",
            data={"bot": "late"},
            files={"file": ("late.py", GREEDY)},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert api.status_code == 503 and DISK_FULL in api.json()["error"]
        text = admin.get("/admin").text
        assert 'id="disk-full"' in text and "uploads are refused" in text
        paused = len(stored(host))
        # Space returns: everything resumes by itself.
        (host.data / "filler").unlink()
        wait_until(lambda: len(stored(host)) >= paused + 2, "the ladder resumes", 120)
        wait_until(lambda: alice.get("/readyz").status_code == 200, "ready again", 120)
        answer = carol.upload("late", "late.py", GREEDY)
        assert answer.status_code == 303
        carol.wait_for(answer.headers["location"], r'id="status">ok<')
        metrics = scrape(alice)
        assert metrics["arena_worker_deaths_total{}"] == 0
        assert metrics["arena_disk_full{}"] == 0
        no_faults(host)
    finally:
        host.stop()
    assert integrity(host.data / "results.sqlite") == "ok"
    assert integrity(host.data / "accounts.sqlite") == "ok"

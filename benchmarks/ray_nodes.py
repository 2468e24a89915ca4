"""Scaling across machines: the same tournament on a 1-node and a 2-node Ray cluster.

    python benchmarks/ray_nodes.py [--matches 16] [--rounds 2]

Starts Ray clusters on loopback with `ray start` (a head, and for the 2-node
cluster a second node joining it), each node limited to one CPU, so that one
node stands for one single-core machine. Every round runs the same tournament
(4-player USA, four quick built-in bots as external processes, each match in its own referee and
bot processes) once on each cluster, alternating, through the `arena` command
as an organiser would (`arena tournament run --ray ADDRESS`). Each
measurement times two commands on the same cluster, a short tournament and a
long one: the difference is the long one's extra matches without the fixed
cost of a driver (joining the cluster, starting Ray's workers), which is
reported apart. It prints matches per minute on both clusters and their
ratio per round.

Both nodes share this machine's cores, memory and disk, and the bots' own
processes are not counted in Ray's CPUs: on a 2-core machine the 2-node
cluster has the whole machine to itself, the 1-node cluster has half of it
as Ray sees it but its bots may still use the other core. The ratio is thus
a lower bound on what a second real machine adds.

Stops every Ray on this machine (`ray stop --force`) before and after: do not
run it beside a Ray you need.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
RAY = str(BIN / "ray")
ARENA = str(BIN / "arena")
BOTS = ("random", "greedy-claims", "long-claims", "ticket-by-ticket")  # quick heuristic bots
SHORT = 2  # matches of the short tournament, whose time is the driver's fixed cost
NODE = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ray(*args: str) -> None:
    """Run one `ray` command; its chatter goes nowhere, a failure ends the benchmark."""
    done = subprocess.run([RAY, *args], capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        sys.exit(f"error: `ray {args[0]}` failed: {' '.join(tail)}")


def start_cluster(nodes: int, temp_dir: str) -> str:
    """A head and ``nodes - 1`` more nodes on loopback, one CPU each; returns the address."""
    port = free_port()
    ray("start", "--head", "--port", str(port), "--include-dashboard=false",
        "--temp-dir", temp_dir, *NODE)  # fmt: skip
    address = f"127.0.0.1:{port}"
    for _ in range(nodes - 1):
        ray("start", "--address", address, *NODE)
    return address


def stop_clusters() -> None:
    subprocess.run([RAY, "stop", "--force"], capture_output=True)


def run_tournament(
    target: list[str], name: str, games: int, data_dir: Path, wanted: str = ""
) -> float:
    """Seconds taken by one `arena tournament run` of the quick bots with ``--games games`` on
    ``target`` (its `--ray`/`--workers` options), start-up included; a failure, or output
    without ``wanted``, ends the benchmark in one line."""
    command = [ARENA, "tournament", "run", "--name", name, "--players", "4",
               "--games", str(games), "--no-progress", "--data-dir", str(data_dir),
               *target]  # fmt: skip
    for bot in BOTS:
        command += ["--bot", bot]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or wanted not in done.stdout:
        sys.exit(f"error: the tournament on {target} failed: {done.stderr.strip()[-300:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=24, help="matches of the long tournament")
    parser.add_argument("--rounds", type=int, default=2, help="alternated rounds of 1 and 2 nodes")
    args = parser.parse_args()
    if args.matches < 2 * SHORT or args.rounds < 1:
        parser.error(f"--matches must be at least {2 * SHORT} and --rounds at least 1")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    rates: dict[int, list[float]] = {1: [], 2: []}
    overheads: dict[int, list[float]] = {1: [], 2: []}
    stop_clusters()
    with tempfile.TemporaryDirectory(prefix="ray-nodes-", dir="/tmp") as scratch:
        try:
            for round_ in range(args.rounds):
                for nodes in (1, 2) if round_ % 2 == 0 else (2, 1):
                    temp_dir = os.path.join(scratch, f"ray-{round_}-{nodes}")
                    address = start_cluster(nodes, temp_dir)
                    data_dir = Path(scratch, f"data-{round_}-{nodes}")
                    short = run_tournament(["--ray", address], "short", SHORT, data_dir)
                    full = run_tournament(["--ray", address], "full", args.matches, data_dir)
                    rates[nodes].append((args.matches - SHORT) / (full - short) * 60)
                    overheads[nodes].append(short - SHORT * (full - short) / (args.matches - SHORT))
                    stop_clusters()
                    shutil.rmtree(temp_dir, ignore_errors=True)
        finally:
            stop_clusters()
    print(
        f"Ray scaling: {args.matches} 4-player USA matches of 4 bot processes per "
        f"tournament, {args.rounds} alternated round(s), nodes of 1 CPU each on "
        f"{os.cpu_count()} cores"
    )
    for round_ in range(args.rounds):
        one, two = rates[1][round_], rates[2][round_]
        print(
            f"  round {round_ + 1}: 1 node {one:6.1f} matches/min, 2 nodes {two:6.1f} "
            f"matches/min, ratio {two / one:.2f}x"
        )
    for nodes in (1, 2):
        print(
            f"  fixed cost of a driver, {nodes} node(s): "
            f"{statistics.median(overheads[nodes]):.1f} s"
        )
    ratios = [two / one for one, two in zip(rates[1], rates[2], strict=True)]
    print(f"  median ratio 2 nodes / 1 node: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()

"""Ray against the local executor: matches per minute of the same tournament, start-up included.

    python benchmarks/ray_warm.py [--matches 200] [--rounds 2] [--workers 2]

Each round runs the same tournament (4-player USA, four quick built-in bots
as sandboxed processes, warm between matches) through the `arena` command as
an organiser would, once on each target, the order rotating from round to
round:

- ``local``: `arena tournament run --workers N` (the reference);
- ``ray``: `--ray --workers N`, a local Ray the command starts and stops;
- ``2 nodes``: `--ray ADDRESS`, a cluster of two nodes of one CPU each on
  loopback (`ray start`), started once before the first round: an
  organiser's cluster already runs. Its driver still joins it and starts its
  workers in each run.

Every run is timed from the command's start to its end (Python's start, the
driver's, Ray's and the workers', the first bot processes: all included),
in a data folder of its own. It prints each run's matches per minute, each
round's ratio to ``local`` and the medians, with the load average (one
minute) before and after. The cluster is ended by killing its own processes
(never `ray stop`, which would end every Ray on the machine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

# benchmarks/ray_nodes.py (beside this script)
from ray_nodes import BOTS, free_port, ray, run_tournament

SEATINGS = 4  # a round robin of 4 bots at 4 seats plays each game in 4 seatings
NODE_PORTS = ("node-manager", "object-manager", "metrics-export", "runtime-env-agent",
              "dashboard-agent-listen", "dashboard-agent-grpc")  # fmt: skip


def own_ports() -> list[str]:
    """Free ports for every port a node opens: other Rays on this machine are left alone."""
    return [f"--{name}-port={free_port()}" for name in NODE_PORTS]


def start_cluster(temp_dir: str) -> str:
    """A head and a second node on loopback, one CPU each, every port free; its address."""
    port = free_port()
    node = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    ray("start", "--head", f"--port={port}", "--include-dashboard=false",
        f"--temp-dir={temp_dir}", *node, *own_ports())  # fmt: skip
    address = f"127.0.0.1:{port}"
    ray("start", f"--address={address}", *node, *own_ports())
    return address


def end_cluster(temp_dir: str) -> None:
    """Kill the processes of the cluster kept in ``temp_dir`` (only them), remove it: as the
    arena ends a local Ray of its own (``rayexec.end_session``)."""
    from arena.tournament.rayexec import end_session

    end_session(temp_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per run")
    parser.add_argument("--rounds", type=int, default=2, help="alternated rounds")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.matches < SEATINGS or args.matches % SEATINGS or args.rounds < 1:
        parser.error(f"--matches must be a multiple of {SEATINGS}, --rounds at least 1")
    games = args.matches // SEATINGS
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    load_before = os.getloadavg()[0]
    rates: dict[str, list[float]] = {"local": [], "ray": [], "2 nodes": []}
    with tempfile.TemporaryDirectory(prefix="ray-warm-", dir="/tmp") as scratch:
        cluster = os.path.join(scratch, "ray")  # short: Ray's socket paths live below it
        try:
            address = start_cluster(cluster)
            targets = {
                "local": ["--workers", str(args.workers)],
                "ray": ["--ray", "--workers", str(args.workers)],
                "2 nodes": ["--ray", address],
            }
            names = list(targets)
            for number in range(args.rounds):
                order = names[number % len(names) :] + names[: number % len(names)]
                for name in order:
                    data_dir = Path(scratch, f"data-{number}-{name.replace(' ', '-')}")
                    wanted = f"{games * SEATINGS} matches played now"
                    seconds = run_tournament(targets[name], "bench", games, data_dir, wanted)
                    rates[name].append(args.matches / seconds * 60)
                    shutil.rmtree(data_dir, ignore_errors=True)
                last = {name: measured[-1] for name, measured in rates.items()}
                shown = ", ".join(
                    f"{name} {last[name]:.1f}/min ({last[name] / last['local']:.2f}×)"
                    for name in names
                )
                print(f"round {number + 1}: {shown}", flush=True)
        finally:
            end_cluster(cluster)
    load_after = os.getloadavg()[0]
    print(
        f"Ray against the local executor: {args.matches} 4-player USA matches of {len(BOTS)} "
        f"bot processes per run, start-up included, {args.rounds} alternated round(s), "
        f"{args.workers} workers / a 2-node cluster of 1 CPU each, {os.cpu_count()} cores; "
        f"load {load_before:.1f} before, {load_after:.1f} after"
    )
    for name in names:
        ratios = [r / ref for r, ref in zip(rates[name], rates["local"], strict=True)]
        print(
            f"  {name:8s} median {statistics.median(rates[name]):6.1f} matches/min; ratio to "
            f"local: median {statistics.median(ratios):.2f} "
            f"(rounds {', '.join(f'{x:.2f}' for x in ratios)})"
        )


if __name__ == "__main__":
    main()

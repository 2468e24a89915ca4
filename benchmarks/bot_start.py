"""Bot start benchmark: the CPU it costs to start one sandboxed bot process, and its parts.

    python benchmarks/bot_start.py [--rounds 20] [--bot random]

Every fresh bot process of a match (``--matches-per-process 1``, ``arena play``, a
validation) pays this before its first decision. Three things are started, alternated
round after round (the order rotates); the figures are medians of the CPU time of each
whole process tree:

- ``interpreter``: ``python -I -S -c pass``, the floor any Python process pays;
- ``PID 1``: the bot's containment (``unshare``: its PID, mount and IPC namespaces where
  this machine allows them) and its PID 1 (``arena/referee/confine.py``) laying out the
  view and applying the Landlock policy that a real bot gets, then running ``/bin/true``
  in the bot's place;
- ``bot``: the bot itself through the referee's own launcher (``BotProcess``: the same
  containment, PID 1, cgroup, limits and environment as in a tournament), from its start
  to its first message (``hello``) on a ROUTER socket, then stopped: its cgroup's CPU time
  (``cpu.stat``: ``unshare``, PID 1 and the bot), which is how a bot's use is counted.

The first two are this process's reaped children (``RUSAGE_CHILDREN``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import zmq

from arena.plugins import PLUGINS_ENV, plugin_modules
from arena.referee.containment import containment_prefix
from arena.referee.process import BotProcess, ProcessLimits
from arena.referee.sandbox import Mount, SandboxPolicy, confine_command, landlock_abi
from arena.referee.view import View


def children_cpu(start: Callable[[], None]) -> float:
    """CPU seconds of every process ``start`` ran and reaped (all their descendants)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def interpreter() -> None:
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)


def pid_1(scratch: Path, bot: list[str]) -> None:
    """The containment and PID 1 of a bot, with a real bot's policy, mounts and view."""
    prefix = containment_prefix(True, mounts=True)
    policy = SandboxPolicy.for_bot(bot, scratch, "tcp://127.0.0.1:9", shm=True)
    mounts = [Mount("/dev/shm", 1 << 20, 256), Mount("/tmp/scratch", 1 << 20, 256)]
    view = View.plan([], policy.read, {}, None, ("/usr", "/etc"))
    command = [*prefix, *confine_command(policy, landlock_abi(), mounts, view), "/bin/true"]
    subprocess.run(command, check=True)


def bot_to_hello(folder: Path, bot: list[str]) -> float:
    """Start ``bot`` as the referee does, wait for its hello, stop it: the CPU seconds its
    cgroup used until the hello."""
    context: zmq.Context = zmq.Context.instance()
    router = context.socket(zmq.ROUTER)
    try:
        port = router.bind_to_random_port("tcp://127.0.0.1")
        endpoint = f"tcp://127.0.0.1:{port}"
        env = {"ARENA_CONNECT": endpoint, "ARENA_TOKEN": "t", PLUGINS_ENV: plugin_modules()}
        process = BotProcess(bot, env, folder / "bot", ProcessLimits(), endpoint=endpoint)
        try:
            if not router.poll(60_000):
                raise RuntimeError("the bot never said hello")
            router.recv_multipart()
            return process.usage().cpu_seconds
        finally:
            process.stop(grace=0)
    finally:
        router.close(linger=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--bot", default="random", help="a built-in bot")
    args = parser.parse_args()
    bot = [sys.executable, "-m", "bots", args.bot]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        sides: dict[str, Callable[[], float]] = {
            "interpreter": lambda: children_cpu(interpreter),
            "PID 1": lambda: children_cpu(lambda: pid_1(root, bot)),
            "bot": lambda: bot_to_hello(root, bot),
        }
        for side in sides.values():  # warm-up: probes, caches
            side()
        taken: dict[str, list[float]] = {name: [] for name in sides}
        names = list(sides)
        for round_ in range(args.rounds):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in order:
                taken[name].append(sides[name]())
    load = os.getloadavg()[0]
    print(f"bot start benchmark: {args.rounds} rounds, `{' '.join(bot[1:])}`, load {load:.1f}")
    for name, values in taken.items():
        low, high = min(values), max(values)
        print(f"  {name:12s} {statistics.median(values) * 1000:6.1f} ms of CPU"
              f"   (rounds {low * 1000:.1f}-{high * 1000:.1f})")  # fmt: skip


if __name__ == "__main__":
    main()

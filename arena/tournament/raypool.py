"""Warm bot processes on Ray: long-lived actors, each keeping a ``BotPool`` as a local worker does.

A Ray task starts fresh bot processes for every match (about 2 s of CPU per
match); an actor lives as long as the run, so its pool's processes are seated
again in its next matches, under exactly the local pool's rules (sandbox,
reuse, faults, freezing: ``arena/referee/pool.py``). The driver keeps the
queue and hands a match to each actor as it becomes free.

- **One actor per CPU of the cluster** (1 CPU each, one match at a time),
  spread over the nodes, so a 2-node cluster plays on both.
- **A lost actor loses its pool and nothing else.** An actor that dies (its
  node lost, its worker killed) fails its match in flight, which is retried
  under the executor's ``MAX_ATTEMPTS`` rule as a dead local worker's is, and a
  new actor is started while the cluster has room for it. An actor gets no
  match until it answers: one that cannot be placed (its node gone) holds
  nothing up.
- **Its bots die with it.** The match runs in the actor's main thread, the
  bots' parent: killed (``ray.kill``, a lost node, the driver's end, which
  ends the actors it owns), it takes them along by the kernel's parent-death
  signal, as a killed local worker does; when the driver stops an actor on its
  own machine it also kills the bots' process groups, as the local executor
  does. At the end of a run each idle actor first closes its pool (``bye``,
  then the processes are stopped).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.procfs import child_pids, held_groups, kill_groups, process_start
from arena.referee.pool import BotPool
from arena.tournament.matchrun import MatchTask, play_match
from arena.tournament.results import MatchResult

CAPACITY_EVERY = 1.0  # seconds between two looks at the cluster's CPUs
CLOSE_GRACE_SECONDS = 3.0  # for idle actors to close their pools at the end of a run


class WarmPlayer:
    """An actor's state: the warm bot processes of one worker slot."""

    def __init__(self) -> None:
        self.pool = BotPool()

    def ready(self) -> tuple[str, int, str]:
        """Answered once the actor is placed and its pool made (it may then get matches):
        its node, its pid and that process's start (which tells it from a reused pid)."""
        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid(), process_start(os.getpid())

    def play(self, task: MatchTask) -> MatchResult:
        return play_match(task, self.pool)

    def close(self) -> None:
        """Say ``bye`` to the pool's idle processes and stop them."""
        self.pool.close()


@dataclass
class Slot:
    """One actor on the driver's side: whether it answered, and its call in flight."""

    actor: Any
    ready: bool = False
    where: tuple[str, int, str] = ("", 0, "")  # its node, pid and the pid's start (ready)
    task: MatchTask | None = None  # the match it plays
    ref: Any = None  # its call in flight (``ready`` or ``play``), None while idle


class Players:
    """The driver's actors: started up to the cluster's CPUs, handed matches when idle."""

    def __init__(self, ray: Any, actor_class: Any, capacity: Callable[[], int]) -> None:
        self.ray = ray
        self.here = ray.get_runtime_context().get_node_id()  # the driver's node
        self.actor_class = actor_class
        self.capacity = capacity
        self.slots: list[Slot] = []
        self._room = 0
        self._looked = float("-inf")

    def busy(self) -> int:
        return sum(slot.task is not None for slot in self.slots)

    def room(self) -> int:
        """How many actors the cluster has CPUs for (looked up at most once a second)."""
        if time.monotonic() - self._looked >= CAPACITY_EVERY:
            self._room = max(0, self.capacity())
            self._looked = time.monotonic()
        return self._room

    def start(self, queued: int) -> None:
        """Start actors while there are matches for them and CPUs in the cluster."""
        wanted = queued + self.busy()
        while len(self.slots) < wanted and len(self.slots) < self.room():
            slot = Slot(self.actor_class.remote())
            slot.ref = slot.actor.ready.remote()
            self.slots.append(slot)

    def hand(self, take: Callable[[], MatchTask | None]) -> None:
        """Give each idle, ready actor the next match ``take`` gives."""
        for slot in self.slots:
            if slot.ready and slot.ref is None:
                task = take()
                if task is None:
                    return
                slot.task, slot.ref = task, slot.actor.play.remote(task)

    def wait(self, timeout: float) -> list[Slot]:
        """The slots whose call ended within ``timeout`` seconds."""
        calls = {slot.ref: slot for slot in self.slots if slot.ref is not None}
        if not calls:
            time.sleep(timeout)
            return []
        done, _ = self.ray.wait(list(calls), num_returns=1, timeout=timeout)
        if done:  # every other call that has ended too, without waiting
            done, _ = self.ray.wait(list(calls), num_returns=len(calls), timeout=0)
        return [calls[ref] for ref in done]

    def drop(self, slot: Slot) -> None:
        """Forget an actor (dead, or killed) and make sure it is gone."""
        self.slots.remove(slot)
        with contextlib.suppress(Exception):
            self.ray.kill(slot.actor, no_restart=True)

    def stop_busy(self) -> None:
        """Kill the actors playing a match (a stop): their bots die with them; on this
        machine their process groups are killed too, which reach what the bots started
        (each bot leads its own group), as the local executor does."""
        bots: list[tuple[int, int | None]] = []
        for slot in [slot for slot in self.slots if slot.task is not None]:
            node, pid, started = slot.where
            if node == self.here and pid and process_start(pid) == started:
                bots += held_groups(child_pids(pid))
            self.drop(slot)
        kill_groups(bots)

    def close(self) -> None:
        """Let the idle actors close their pools (bounded in time), then kill them all."""
        closing = [s.actor.close.remote() for s in self.slots if s.ready and s.ref is None]
        if closing:
            with contextlib.suppress(Exception):
                self.ray.wait(closing, num_returns=len(closing), timeout=CLOSE_GRACE_SECONDS)
        for slot in list(self.slots):
            self.drop(slot)

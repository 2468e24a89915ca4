"""Referee benchmark: cost per decision against a raw ZeroMQ round trip of the same payload.

    python benchmarks/referee.py [--rounds 30] [--games 1] [--players 4]

The sides run in one process, alternated every round (referee, raw, bare bot, then the
reverse order), each round short (one game, about 300 decisions, then as many round trips
on each other side), so that the load of a shared machine moves all of them alike; the
figure is the median of the per-round ratios (the issue's goal: <= 2x).

- The referee: ``--games`` USA games of ``--players`` external random-bot processes
  (one process per seat, started once and reused across rounds) and the referee's wall time
  per decision: observation, legal actions, encode, send, the bot's answer, decode,
  validation, apply and logging.
- Raw: as many pyzmq DEALER/ROUTER round trips as the round's decisions, on loopback,
  carrying a payload of the same mean size as the referee's ``act`` messages (measured on a
  warm-up game) and a reply the size of an ``action``, with a minimal echo peer in another
  process (also kept).
- Bare bot (for context): the same random bot, unsandboxed, fed the warm-up game's ``act``
  messages by a bare ROUTER: the round trip without the referee, the bot's own work (decode,
  choose, encode) included. Referee over bare bot is what the referee itself adds.

The same rounds are also measured in CPU time, which the load of a shared machine moves
far less than wall time: this process's (``time.process_time``: every thread, ZeroMQ's
I/O thread included) plus the peer processes' (each thread's ``/proc/PID/task/TID/
schedstat``, in nanoseconds): the referee side counts the referee and the four bot
processes, the raw side this end and the echo peer, the bare side this end and the bare
bot. Two CPU ratios per round: the referee's process alone over a raw round trip (both
ends), and the whole decision (referee and bot) over it.

It also reports the wall time of one whole game: start four bot processes, handshake,
play, reap.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable

import zmq

from arena.procfs import process_tree
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.referee import GameOutcome, Referee
from arena.referee.seats import RemoteSeat
from arena.variants import get_variant
from protocols.messages import Act, Bye, GameStart, Welcome, encode

ECHO_PEER = """
import sys, zmq
ctx = zmq.Context(); s = ctx.socket(zmq.DEALER); s.connect(sys.argv[1])
reply = b'{"type":"action","version":1,"seq":1,"action":"claim 57 red w2"}'
s.send(b"ready")
while True:
    msg = s.recv()
    if msg == b"stop":
        break
    s.send(reply)
"""


def cpu_of(pids: Iterable[int]) -> float:
    """CPU seconds used so far by every thread of these processes (their schedstat)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9


def tree_of(pids: Iterable[int]) -> list[int]:
    return [p for pid in pids for p in process_tree(pid)]


class RawPeer:
    """A ROUTER here and a DEALER echo peer in another process: the bare transport."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        self.router = self.context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.bind("tcp://127.0.0.1:*")
        endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        self.peer = subprocess.Popen([sys.executable, "-c", ECHO_PEER, endpoint])
        self.identity, _ready = self.router.recv_multipart()

    def round_trip(self, payload_size: int, trips: int) -> float:
        """Mean seconds for ROUTER -> DEALER -> ROUTER with this payload size."""
        router, identity, payload = self.router, self.identity, b"x" * payload_size
        for _ in range(20):  # warm up
            router.send_multipart([identity, payload])
            router.recv_multipart()
        start = time.perf_counter()
        for _ in range(trips):
            router.send_multipart([identity, payload])
            router.recv_multipart()
        return (time.perf_counter() - start) / trips

    def close(self) -> None:
        self.router.send_multipart([self.identity, b"stop"])
        self.peer.wait(10)
        self.router.close()
        self.context.term()


class BareBot(RawPeer):
    """The random bot's process (``python -m bots random``, no sandbox) on a bare ROUTER."""

    def __init__(self, acts: list[bytes]) -> None:
        self.acts = acts
        self.context = zmq.Context()
        self.router = self.context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.bind("tcp://127.0.0.1:*")
        endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        command = [sys.executable, "-m", "bots", "random", "--connect", endpoint]
        self.peer = subprocess.Popen([*command, "--token", "t" * 32])
        self.identity, _hello = self.router.recv_multipart()
        state = get_variant("usa").new_game(4, 0)
        start = GameStart(
            board=state.board.public_json(),
            game_id="bare",
            variant="usa",
            seat=0,
            players=4,
            seed="0",
            move_ms=5000,
            bank_ms=60000,
            observation=state.observation(0),
        )
        self.router.send_multipart([self.identity, encode(Welcome(seat=0, match_id="bare"))])
        self.router.send_multipart([self.identity, encode(start)])

    def round_trip(self, payload_size: int, trips: int) -> float:
        """Mean seconds for one recorded act and the bot's action (``payload_size`` unused)."""
        router, identity, acts = self.router, self.identity, self.acts
        for i in range(20):  # warm up
            router.send_multipart([identity, acts[i % len(acts)]])
            router.recv_multipart()
        start = time.perf_counter()
        for i in range(trips):
            router.send_multipart([identity, acts[i % len(acts)]])
            router.recv_multipart()
        return (time.perf_counter() - start) / trips

    def close(self) -> None:
        self.router.send_multipart([self.identity, encode(Bye())])
        self.peer.wait(10)
        self.router.close()
        self.context.term()


def acts_of(outcome: GameOutcome) -> list[bytes]:
    """The act messages of a played game (replayed from its log), encoded."""
    usa = get_variant("usa")
    state = usa.new_game(outcome.log.header["players"], outcome.log.header["seed"])
    acts = []
    for line in outcome.log.actions:
        seat = state.to_move
        assert seat is not None, "a logged action is played by a seat"
        act = Act(
            game_id=outcome.log.header["game_id"],
            seq=line["n"],
            observation=state.observation(seat),
            legal=[str(a) for a in state.legal_actions()],
            deadline_ms=1000,
            bank_ms=30000,
        )
        acts.append(encode(act))
        state.apply(line["action"])
    return acts


def referee_round(referee: Referee, games: int, first_seed: int) -> tuple[float, int]:
    """Seconds per decision over ``games`` games, and the decisions played."""
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        outcome = referee.play(first_seed + g)
        assert not outcome.faults, outcome.faults
        decisions += outcome.decisions
    return (time.perf_counter() - start) / decisions, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--games", type=int, default=1, help="referee games per round")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    args = parser.parse_args()
    usa = get_variant("usa")
    entries = [BotEntry.parse("random")] * args.players
    tc = TimeControl(move_ms=5000, bank_ms=60000)
    referee_us, raw_us, bare_us, ratios, own, decisions = [], [], [], [], [], 0
    cpu_referee, cpu_whole, cpu_raw, cpu_ratio, cpu_whole_ratio = [], [], [], [], []
    raw = RawPeer()
    try:
        with ProcessMatch(usa, entries, tc) as referee:
            acts = acts_of(referee.play(10_000))  # warm-up game
            payload = round(sum(map(len, acts)) / len(acts))
            bare = BareBot(acts)
            try:
                for round_ in range(args.rounds):
                    seed = 1000 * round_
                    trips = 300 * args.games  # about a round's decisions, before the first
                    order = ["referee", "raw", "bare"]
                    if round_ % 2:
                        order.reverse()
                    bots = [
                        seat.process.pid
                        for seat in referee.seats
                        if isinstance(seat, RemoteSeat) and seat.process is not None
                    ]
                    for side in order:
                        if side == "referee":
                            here = time.process_time()
                            bot_cpu = cpu_of(tree_of(bots))
                            per, played = referee_round(referee, args.games, seed)
                            referee_cpu = time.process_time() - here
                            bot_cpu = cpu_of(tree_of(bots)) - bot_cpu
                            trips = played
                        elif side == "raw":
                            peer = tree_of([raw.peer.pid])
                            here, there = time.process_time(), cpu_of(peer)
                            trip = raw.round_trip(payload, trips)
                            raw_cpu = time.process_time() - here + cpu_of(peer) - there
                            raw_cpu /= trips + 20  # (its warm-up trips counted too)
                        else:
                            bare_trip = bare.round_trip(payload, trips)
                    decisions += played
                    cpu_referee.append(referee_cpu / played * 1e6)
                    cpu_whole.append((referee_cpu + bot_cpu) / played * 1e6)
                    cpu_raw.append(raw_cpu * 1e6)
                    cpu_ratio.append(cpu_referee[-1] / cpu_raw[-1])
                    cpu_whole_ratio.append(cpu_whole[-1] / cpu_raw[-1])
                    referee_us.append(per * 1e6)
                    raw_us.append(trip * 1e6)
                    bare_us.append(bare_trip * 1e6)
                    ratios.append(per / trip)
                    own.append(per / bare_trip)
            finally:
                bare.close()
        small = raw.round_trip(64, 1000)
    finally:
        raw.close()
    start = time.perf_counter()
    with ProcessMatch(usa, entries, tc) as referee:
        one = referee.play(99)
    whole_game = time.perf_counter() - start
    print(
        f"referee benchmark: {args.players} external random bots on USA, {args.rounds} rounds of "
        f"{args.games} game(s) ({decisions} decisions), each with as many raw and bare round "
        "trips, alternated"
    )
    print(f"  referee cost per decision (median)    {statistics.median(referee_us):9.0f} us")
    print(
        f"  raw DEALER/ROUTER round trip, {payload:5d} B {statistics.median(raw_us):9.0f} us"
        "   (the mean act message; median)"
    )
    print(f"  raw DEALER/ROUTER round trip,    64 B {small * 1e6:9.0f} us")
    print(
        f"  ratio referee / raw (same payload)    {statistics.median(ratios):9.2f} x   "
        f"(per round: {', '.join(f'{r:.2f}' for r in ratios)}; goal: <= 2x)"
    )
    print("  in CPU time, per decision (medians; every thread of every process counted):")
    print(f"    the referee's process                {statistics.median(cpu_referee):9.0f} us")
    print(f"    the referee's and the bots' together {statistics.median(cpu_whole):9.0f} us")
    print(f"    a raw round trip, both ends          {statistics.median(cpu_raw):9.0f} us")
    print(
        f"    ratio referee / raw                  {statistics.median(cpu_ratio):9.2f} x"
        f"   (rounds {min(cpu_ratio):.2f}-{max(cpu_ratio):.2f}; goal: <= 2x)"
    )
    print(
        f"    ratio referee and bots / raw         {statistics.median(cpu_whole_ratio):9.2f} x"
        f"   (rounds {min(cpu_whole_ratio):.2f}-{max(cpu_whole_ratio):.2f})"
    )
    print(
        f"  bare bot round trip (no referee)      {statistics.median(bare_us):9.0f} us"
        f"   (referee / bare bot: {statistics.median(own):.2f} x)"
    )
    print(
        f"  one whole game with {args.players} bot processes   {whole_game:9.2f} s "
        f"(start, handshake, {one.decisions} decisions, reap)"
    )


if __name__ == "__main__":
    main()

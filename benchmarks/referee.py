"""Referee benchmark: cost per decision against a raw ZeroMQ round trip of the same payload.

    python benchmarks/referee.py [--rounds 6] [--games 4] [--trips 1500]

Both sides run in one process, alternated every round (referee then raw, then raw then
referee), so that the load of a shared machine moves both alike; the figure is the median
of the per-round ratios (the issue's goal: <= 2x).

- The referee: ``--games`` 4-player USA games with four external random-bot processes
  (one process per seat, started once and reused across rounds) and the referee's wall time
  per decision: observation, legal actions, encode, send, the bot's answer, decode,
  validation, apply and logging.
- Raw: ``--trips`` pyzmq DEALER/ROUTER round trips on loopback carrying a payload of the
  same mean size as the referee's ``act`` messages (measured on a warm-up game) and a reply
  the size of an ``action``, with a minimal echo peer in another process (also kept).

It also reports the wall time of one whole game: start four bot processes, handshake,
play, reap.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import zmq

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.referee import GameOutcome
from arena.variants import get_variant
from protocols.messages import Act, encode

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
        for _ in range(100):  # warm up
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


def act_size(outcome: GameOutcome) -> int:
    """The mean size of the act messages of a played game (replayed from its log)."""
    usa = get_variant("usa")
    state = usa.new_game(4, outcome.log.header["seed"])
    sizes = []
    for line in outcome.log.actions:
        act = Act(
            game_id=outcome.log.header["game_id"],
            seq=line["n"],
            observation=state.observation(state.to_move),
            legal=[str(a) for a in state.legal_actions()],
            deadline_ms=1000,
            bank_ms=30000,
        )
        sizes.append(len(encode(act)))
        state.apply(line["action"])
    return round(sum(sizes) / len(sizes))


def referee_round(referee: ProcessMatch, games: int, first_seed: int) -> tuple[float, int]:
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
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=4, help="referee games per round")
    parser.add_argument("--trips", type=int, default=1500, help="raw round trips per round")
    args = parser.parse_args()
    usa = get_variant("usa")
    entries = [BotEntry.parse("random")] * 4
    tc = TimeControl(move_ms=5000, bank_ms=60000)
    referee_us, raw_us, ratios, decisions = [], [], [], 0
    raw = RawPeer()
    try:
        with ProcessMatch(usa, entries, tc) as referee:
            payload = act_size(referee.play(10_000))  # warm-up game
            for round_ in range(args.rounds):
                seed = 1000 * round_
                if round_ % 2 == 0:
                    per, played = referee_round(referee, args.games, seed)
                    trip = raw.round_trip(payload, args.trips)
                else:
                    trip = raw.round_trip(payload, args.trips)
                    per, played = referee_round(referee, args.games, seed)
                decisions += played
                referee_us.append(per * 1e6)
                raw_us.append(trip * 1e6)
                ratios.append(per / trip)
        small = raw.round_trip(64, args.trips)
    finally:
        raw.close()
    start = time.perf_counter()
    with ProcessMatch(usa, entries, tc) as referee:
        one = referee.play(99)
    whole_game = time.perf_counter() - start
    print(
        f"referee benchmark: 4 external random bots on USA, {args.rounds} rounds of "
        f"{args.games} games ({decisions} decisions) and {args.trips} raw round trips, alternated"
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
    print(
        f"  one whole game with 4 bot processes   {whole_game:9.2f} s "
        f"(start, handshake, {one.decisions} decisions, reap)"
    )


if __name__ == "__main__":
    main()

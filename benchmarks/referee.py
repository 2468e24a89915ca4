"""Referee benchmark: cost per decision against a raw ZeroMQ round trip of the same payload.

    python benchmarks/referee.py [--games 20]

1. Plays ``--games`` 4-player USA games with four external random-bot processes
   (one process per seat, reused across games) and reports the referee's wall
   time per decision: observation, legal actions, encode, send, the bot's
   answer, decode, validation, apply and logging.
2. Measures a raw pyzmq DEALER/ROUTER round trip on loopback carrying a
   payload of the same mean size as the referee's ``act`` messages (and a reply
   the size of an ``action``), with a minimal echo peer in another process.
3. Reports the wall time of one whole game: start four bot processes,
   handshake, play, reap.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import zmq

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
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


def raw_round_trip(payload_size: int, rounds: int) -> float:
    """Mean seconds for ROUTER -> DEALER -> ROUTER with this payload size."""
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.bind("tcp://127.0.0.1:*")
    endpoint = router.getsockopt_string(zmq.LAST_ENDPOINT)
    peer = subprocess.Popen([sys.executable, "-c", ECHO_PEER, endpoint])
    try:
        identity, _ready = router.recv_multipart()
        payload = b"x" * payload_size
        for _ in range(200):  # warm up
            router.send_multipart([identity, payload])
            router.recv_multipart()
        start = time.perf_counter()
        for _ in range(rounds):
            router.send_multipart([identity, payload])
            router.recv_multipart()
        elapsed = time.perf_counter() - start
        router.send_multipart([identity, b"stop"])
    finally:
        peer.wait(10)
        router.close()
        context.term()
    return elapsed / rounds


def referee_games(games: int) -> dict[str, float]:
    usa = get_variant("usa")
    entries = [BotEntry.parse("random")] * 4
    tc = TimeControl(move_ms=5000, bank_ms=60000)
    sizes: list[int] = []
    with ProcessMatch(usa, entries, tc) as referee:
        referee.play(10_000)  # warm-up game
        start = time.perf_counter()
        decisions = 0
        outcomes = []
        for g in range(games):
            outcome = referee.play(g)
            decisions += outcome.decisions
            outcomes.append(outcome)
            assert not outcome.faults, outcome.faults
        elapsed = time.perf_counter() - start
    # The payload the referee sent: the mean size of every act message of these games.
    for outcome in outcomes:
        state = usa.new_game(4, outcome.log.header["seed"])
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
    start = time.perf_counter()
    with ProcessMatch(usa, entries, tc) as referee:
        one = referee.play(99)
    whole_game = time.perf_counter() - start
    return {
        "per_decision": elapsed / decisions,
        "decisions_per_game": decisions / games,
        "payload": round(sum(sizes) / len(sizes)),
        "whole_game": whole_game,
        "whole_game_decisions": one.decisions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5000)
    args = parser.parse_args()
    figures = referee_games(args.games)
    raw = raw_round_trip(figures["payload"], args.rounds)
    raw_small = raw_round_trip(64, args.rounds)
    per = figures["per_decision"]
    print(
        f"referee benchmark: 4 external random bots on USA, {args.games} games, "
        f"{figures['decisions_per_game']:.0f} decisions per game"
    )
    print(f"  referee cost per decision            {per * 1e6:9.0f} us")
    print(
        f"  raw DEALER/ROUTER round trip, {figures['payload']:5d} B {raw * 1e6:9.0f} us"
        "   (the mean act message of these games)"
    )
    print(f"  raw DEALER/ROUTER round trip,    64 B {raw_small * 1e6:9.0f} us")
    print(f"  ratio referee / raw (same payload)   {per / raw:9.2f} x   (goal: <= 2x)")
    print(
        f"  one whole game with 4 bot processes   {figures['whole_game']:9.2f} s "
        f"(start, handshake, {figures['whole_game_decisions']} decisions, reap)"
    )


if __name__ == "__main__":
    main()

"""The example transcript of PROTOCOL.md, recorded from a real game (never written by hand).

    python -m tools.transcript            # print it (from the checkout's root)
    python -m tools.transcript --write    # put it into protocols/PROTOCOL.md

Two bots play a 2-player game of USA through the real referee and sockets;
seat 1 (the bot whose side is shown) answers its first turn with an action it
may not take, then plays the first legal action every time. The messages are
shortened where marked with ``…`` (the token, observations, long lists), and
nothing else is changed: tests/test_protocol.py checks that PROTOCOL.md holds
exactly what this prints. It lives in tools/, not protocols/: it drives the referee, and
the protocol's own modules import nothing of the arena but the engine (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import zmq

SEED = 1  # the organiser's seed of the game (a bot is never told it)
MATCH_ID = "f8be6e45705d"
KEY = b"the protocol transcript's own key"
FIRST_TURN_ANSWER = "claim 99 red"  # Seattle-Vancouver, 1 gray: this seat holds no red card
BEGIN, END = "<!-- transcript: begin -->", "<!-- transcript: end -->"
PROTOCOL_MD = Path(__file__).resolve().parent.parent / "protocols" / "PROTOCOL.md"
OBSERVATION_KEYS = ("phase", "to_move", "hand", "offered_tickets")


def _bot(
    endpoint: str, token: str, name: str, record: list[tuple[str, dict[str, Any]]] | None
) -> None:
    """A bot on a real DEALER socket: the first legal action, except on its first turn."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.connect(endpoint)

    def send(message: dict[str, Any]) -> None:
        if record is not None:
            record.append(("bot", message))
        socket.send_json(message)

    send({"type": "hello", "version": 1, "token": token, "name": name, "bot_version": "1"})
    tried = False
    while True:
        message: dict[str, Any] = json.loads(socket.recv())  # a referee message: an object
        if record is not None:
            record.append(("ref", message))
        if message["type"] == "bye":
            break
        if message["type"] != "act":
            continue
        action = message["legal"][0]
        if message["observation"]["phase"] == "turn" and not tried and record is not None:
            action, tried = FIRST_TURN_ANSWER, True
        send({"type": "action", "version": 1, "seq": message["seq"], "action": action})
    socket.close()
    context.term()


def record() -> list[tuple[str, dict[str, Any]]]:
    """Play the game; returns seat 1's conversation in order: ("bot" | "ref", message)."""
    from arena.referee.faults import TimeControl
    from arena.referee.hub import Hub
    from arena.referee.keys import MatchKey
    from arena.referee.referee import Referee
    from arena.referee.seats import RemoteSeat
    from arena.variants import get_variant

    hub = Hub(MATCH_ID)
    conversation: list[tuple[str, dict[str, Any]]] = []
    threads = []
    for seat, name, log in ((0, "first-legal", None), (1, "my-bot", conversation)):
        endpoint, token = hub.add_seat(seat)
        thread = threading.Thread(target=_bot, args=(endpoint, token, name, log), daemon=True)
        threads.append(thread)
    seats = [RemoteSeat(hub, 0, None, "first-legal"), RemoteSeat(hub, 1, None, "my-bot")]
    referee = Referee(get_variant("usa"), seats, TimeControl(), MATCH_ID, MatchKey(KEY), hub)
    try:
        for thread in threads:
            thread.start()
        hub.handshake({0, 1}, time.monotonic() + 20)
        outcome = referee.play(SEED)
        assert not outcome.faults, outcome.faults
    finally:
        referee.close()
        for thread in threads:
            thread.join(10)
        hub.close()
    return conversation


def _short(message: dict[str, Any]) -> dict[str, Any]:
    """The message with long parts elided (marked with … by ``render``)."""
    short = dict(message)
    if "token" in short:
        short["token"] = "…"
    if "observation" in short:
        observation = short["observation"]
        short["observation"] = {k: observation[k] for k in OBSERVATION_KEYS if k in observation}
        short["observation"]["…"] = True
    if "board" in short:
        short["board"] = {"…": True}
    if "legal" in short and len(short["legal"]) > 8:
        short["legal"] = [*short["legal"][:8], "…"]
    if "breakdown" in short:
        short["breakdown"] = [short["breakdown"][0], "…"]
    return short


def render(conversation: list[tuple[str, dict[str, Any]]]) -> str:
    """The transcript as PROTOCOL.md shows it: the start, the first turn with its illegal
    answer and retry, then the end of the game."""
    retry = next(i for i, (_, m) in enumerate(conversation) if m["type"] == "error")
    shown = conversation[: retry + 3]
    tail = [(who, m) for who, m in conversation if m["type"] in ("game_over", "bye")]
    lines = []
    for who, message in [*shown, ("gap", {}), *tail]:
        if who == "gap":
            lines.append("   … the game goes on …")
            continue
        text = json.dumps(_short(message), separators=(",", ":"), ensure_ascii=False)
        text = text.replace(',"…":true', ",…").replace('{"…":true}', "{…}").replace('"…"', "…")
        lines.append(f"{'bot → ' if who == 'bot' else 'ref → '}{text}")
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    doc = PROTOCOL_MD.read_text()
    start, end = doc.index(BEGIN), doc.index(END)
    PROTOCOL_MD.write_text(f"{doc[: start + len(BEGIN)]}\n```\n{text}```\n{doc[end:]}")


def documented() -> str:
    """The transcript as PROTOCOL.md holds it now."""
    doc = PROTOCOL_MD.read_text()
    block = doc[doc.index(BEGIN) + len(BEGIN) : doc.index(END)]
    return block.strip().removeprefix("```").removesuffix("```").lstrip("\n")


if __name__ == "__main__":
    transcript = render(record())
    if "--write" in sys.argv:
        write(transcript)
        print("wrote the transcript into", PROTOCOL_MD)
    else:
        print(transcript, end="")

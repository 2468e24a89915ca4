"""The run loop of a bot process: connect, handshake, answer, exit cleanly.

    arena bot run random --connect tcp://127.0.0.1:5555 --token 0123...

The endpoint and token may also come from the environment (``ARENA_CONNECT``
and ``ARENA_TOKEN``), which is how the referee starts every bot.

The bot leaves when the referee says ``bye``, when its connection to the
referee closes (a socket monitor reports it: the referee is gone, or dropped
this bot), when its parent changes (the referee that started it died), or
after ``IDLE_SECONDS`` without a message outside a game (a warm process waiting for its
next match: leaving costs it nothing, it is replaced). Within a game it waits as long as
the others take: a person's seat has no clock, and leaving mid-game is a forfeit.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import msgspec
import zmq

from arena.engine.actions import Action, parse_action
from arena.engine.errors import NotationError, VariantUnavailableError
from arena.variants import get_variant
from bots.sdk import Bot, UnknownAction
from protocols.messages import (
    MAX_REFEREE_MESSAGE,
    Act,
    Bye,
    Error,
    GameOver,
    GameStart,
    Hello,
    ProtocolError,
    Welcome,
    decode_from_referee,
    encode,
)
from protocols.messages import (
    Action as ActionMessage,
)

POLL_MS = 500
# With no message from the referee for this long between games, the bot assumes it is gone.
IDLE_SECONDS = 900.0
WAIT_NOTICE_SECONDS = 3.0  # by hand: silence longer than this is said


class ActionCache(dict[str, Action]):
    """Parsed legal actions by their text: the same strings recur all game long. A verb of a
    variant not installed here is kept as text (``UnknownAction``): the bot still plays."""

    def __missing__(self, text: str) -> Action:
        try:
            action: Action = parse_action(text)
        except NotationError:
            action = UnknownAction(text)
        self[text] = action
        return action


def typed_observations(variant: str) -> type[Any] | None:
    """The observation Struct of ``variant``, or None (plain JSON) when it is not installed
    here."""
    try:
        return get_variant(variant).observation_type
    except (KeyError, VariantUnavailableError):
        print(f"variant '{variant}' is not installed here: untyped observations", file=sys.stderr)
        return None


def run_bot(
    bot: Bot, endpoint: str, token: str, name: str, version: str = "1", *, by_hand: bool = False
) -> int:
    """Serve the referee until it says bye or disappears. Returns the exit status.

    ``by_hand`` (``arena bot run``): a person is watching, so silence is explained: a line
    when no referee has answered after a few seconds (a bot process's stderr stays its own)."""
    context = zmq.Context()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.setsockopt(zmq.MAXMSGSIZE, MAX_REFEREE_MESSAGE)
    socket.setsockopt(zmq.RCVTIMEO, POLL_MS)
    monitor = socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
    socket.connect(endpoint)
    socket.send(encode(Hello(token=token, name=name, bot_version=version)))
    parent = os.getppid()
    cache = ActionCache()
    observation_type = None  # the variant's observation Struct, once a game has started
    idle = 0.0
    in_game = False  # between game_start and game_over: silence is the others thinking
    unheard = by_hand  # no referee has answered yet, and a person waits to know it
    try:
        while True:
            try:
                data = socket.recv()  # the hot path: one blocking call, no poller
            except zmq.Again:
                idle += POLL_MS / 1000
                if unheard and idle >= WAIT_NOTICE_SECONDS:
                    unheard = False
                    print(
                        f"waiting for a referee at {endpoint}: none has answered yet (giving "
                        f"up after {IDLE_SECONDS:.0f} s; Ctrl-C stops)",
                        file=sys.stderr,
                        flush=True,
                    )
                if monitor.poll(0):
                    print("the referee closed the connection: exiting", file=sys.stderr)
                    return 0
                if os.getppid() != parent or (idle > IDLE_SECONDS and not in_game):
                    print("referee gone: exiting", file=sys.stderr)
                    return 0
                continue
            idle, unheard = 0.0, False
            try:
                message = decode_from_referee(data, observation_type)
            except ProtocolError as error:
                print(f"ignored a bad message from the referee: {error}", file=sys.stderr)
                continue
            if isinstance(message, Act):
                legal = [cache[text] for text in message.legal]
                choice = bot.choose(message.observation, legal)
                note = bot.take_note() or msgspec.UNSET  # no note: none on the wire
                socket.send(encode(ActionMessage(seq=message.seq, action=str(choice), note=note)))
            elif isinstance(message, GameStart):
                in_game = True
                observation_type = typed_observations(message.variant)
                observation = message.observation
                if observation_type is not None:
                    try:
                        observation = msgspec.convert(observation, observation_type, str_keys=True)
                    except msgspec.ValidationError as error:
                        print(f"untyped observations: {error}", file=sys.stderr)
                        observation_type = None
                bot.start_game(message.seed, observation, message.board)
            elif isinstance(message, GameOver):
                in_game = False
                bot.on_game_over(message.observation, message.result())
            elif isinstance(message, Error):
                print(f"referee error {message.code}: {message.message}", file=sys.stderr)
            elif isinstance(message, Bye):
                return 0
            elif isinstance(message, Welcome):
                pass
    finally:
        socket.disable_monitor()
        monitor.close(linger=0)
        socket.close()
        context.term()

"""Every message of the referee–bot protocol: the single source of truth.

Messages are JSON objects with a ``type`` tag and the protocol ``version``.
They are msgspec Structs, so decoding validates types and tags in one pass
and anything malformed becomes a ``msgspec.ValidationError`` or
``msgspec.DecodeError`` (a protocol fault, never a crash). The JSON Schema in
``protocols/schema/`` is generated from these definitions
(``python -m protocols.schema``) and a test fails when it is stale.

Flow (PROTOCOL.md has a full transcript)::

    bot -> hello        referee -> welcome
    referee -> game_start
    referee -> act      bot -> action     (referee -> error, then act again, on a bad action)
    referee -> game_over
    ... more games on the same connection ...
    referee -> bye
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, TypeVar

import msgspec

# The observation's type: the variant's Struct (``Variant.observation_type``, in the JSON
# Schema's $defs) where the reader knows the variant, plain JSON where it does not.
Obs = TypeVar("Obs")

VERSION = 1
# Largest message a bot may send; larger ones are a protocol fault ("oversize"). The referee's
# endpoints refuse bigger frames in the transport itself (ZeroMQ's MAXMSGSIZE), so a bot
# cannot make the referee hold more than this per message, whatever it sends.
MAX_BOT_MESSAGE = 64 * 1024
# Largest message the referee sends (a bot's SDK refuses bigger ones).
MAX_REFEREE_MESSAGE = 1024 * 1024
# Longest note a bot may attach to an action (characters); a longer one is a malformed
# message. Its bytes count in the message and in the seat's per-decision budget like any.
MAX_NOTE = 500


class Message(msgspec.Struct, tag_field="type", kw_only=True, forbid_unknown_fields=False):
    """Base of every message: the protocol version travels with each one (optional from a
    bot, where it defaults to 1; always sent by the referee)."""

    version: int = VERSION


class Hello(Message, tag="hello"):
    """Bot to referee, first message: the one-time token proves which seat it is."""

    token: str
    name: str
    bot_version: str = "1"


class Welcome(Message, tag="welcome"):
    """Referee to bot: the handshake succeeded."""

    seat: int
    match_id: str


class GameStart(Message, Generic[Obs], tag="game_start"):
    """Referee to bot: a new game begins on this connection.

    ``seed`` is the bot's own seed for the game (32 hex digits), so a
    deterministic bot replays exactly; it is derived under the organiser's
    secret key and says nothing about the deal.
    """

    game_id: str
    variant: str
    seat: int
    players: int
    seed: str
    move_ms: int
    bank_ms: int
    observation: Obs
    board: dict[str, Any] = {}  # the printed board: cities, routes, tickets, route points


class Act(Message, Generic[Obs], tag="act"):
    """Referee to bot: decide. Answer with an ``Action`` carrying the same ``seq``."""

    game_id: str
    seq: int  # this request's number: unpredictable, 1 to 2**53 - 1, never reused in a game
    observation: Obs
    legal: list[str]
    deadline_ms: int  # free time for this decision
    bank_ms: int  # time bank left, used up once the free time has run out


class Action(Message, tag="action"):
    """Bot to referee: one of the legal actions, in the notation, and optionally a short
    ``note`` (why, in the bot's words): the match log keeps it and the replay viewer shows
    it at that step."""

    seq: int
    action: str
    # Absent (UNSET) unless the bot wrote one: no "note": null on the wire.
    note: Annotated[str, msgspec.Meta(max_length=MAX_NOTE)] | msgspec.UnsetType = msgspec.UNSET


class Error(Message, tag="error"):
    """Referee to bot: the last message was wrong; ``retry`` says whether a new act follows."""

    code: str
    message: str
    retry: bool
    seq: int | None = None


class GameOver(Message, Generic[Obs], tag="game_over"):
    """Referee to bot: the game has ended."""

    game_id: str
    scores: list[int]
    ranks: list[int]
    breakdown: list[dict[str, int]]
    forfeits: dict[str, str]  # seat (as text) -> fault code
    observation: Obs

    def result(self) -> dict[str, Any]:
        """The result as bots' ``on_game_over`` hooks receive it."""
        return {
            "scores": self.scores,
            "ranks": self.ranks,
            "breakdown": self.breakdown,
            "forfeits": self.forfeits,
        }


class Bye(Message, tag="bye"):
    """Referee to bot: no more games; close the connection and exit."""

    reason: str = "done"


BotMessage = Hello | Action
RefereeMessage = Welcome | GameStart[Any] | Act[Any] | Error | GameOver[Any] | Bye
AnyMessage = Hello | Welcome | GameStart[Any] | Act[Any] | Action | Error | GameOver[Any] | Bye

_encoder = msgspec.json.Encoder()
_bot_decoder = msgspec.json.Decoder(BotMessage)
_referee_decoder = msgspec.json.Decoder(RefereeMessage)


def encode(message: Message) -> bytes:
    return _encoder.encode(message)


def decode_from_bot(data: bytes) -> Hello | Action:
    """Decode a bot's message; raises ``ProtocolError`` with a code on anything wrong."""
    if len(data) > MAX_BOT_MESSAGE:
        raise ProtocolError(
            "oversize", f"message of {len(data)} bytes; the limit is {MAX_BOT_MESSAGE}"
        )
    try:
        message: Hello | Action = _bot_decoder.decode(data)
    except msgspec.ValidationError as error:  # valid JSON, wrong shape: the path says where
        raise ProtocolError("malformed", f"not a valid bot message: {error}") from None
    except msgspec.DecodeError as error:
        raise ProtocolError("malformed", f"not valid JSON: {error}") from None
    except UnicodeDecodeError as error:  # msgspec's error for a string that is not UTF-8
        raise ProtocolError("malformed", f"not valid UTF-8: {error}") from None
    if message.version != VERSION:
        raise ProtocolError("version", f"protocol version {message.version}; expected {VERSION}")
    return message


_typed_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def _typed_referee_decoder(observation: Any) -> msgspec.json.Decoder[Any]:
    """The decoder of referee messages whose observations are ``observation`` Structs."""
    decoder = _typed_decoders.get(observation)
    if decoder is None:
        decoder = _typed_decoders[observation] = msgspec.json.Decoder(
            Welcome
            | GameStart[observation]
            | Act[observation]
            | Error
            | GameOver[observation]
            | Bye
        )
    return decoder


def decode_from_referee(
    data: bytes, observation: type[Any] | None = None
) -> Welcome | GameStart[Any] | Act[Any] | Error | GameOver[Any] | Bye:
    """Decode a referee's message; ``observation`` (the variant's observation Struct, once
    the game's variant is known) types its observations, else they are plain JSON."""
    if len(data) > MAX_REFEREE_MESSAGE:
        raise ProtocolError("oversize", f"message of {len(data)} bytes from the referee")
    decoder = _referee_decoder if observation is None else _typed_referee_decoder(observation)
    try:
        message: Welcome | GameStart[Any] | Act[Any] | Error | GameOver[Any] | Bye
        message = decoder.decode(data)
        return message
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ProtocolError("malformed", str(error)) from None


class ProtocolError(ValueError):
    """A message that breaks the protocol; ``code`` is the fault code reported."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.detail = message

"""Everything a bot is told is derived from a secret it never sees.

A bot may import the arena's own packages, so a deal is only hidden if the
game's seed is: anything a bot receives that is computed from the seed in a
way the bot can repeat (``"<seed>:<seat>"``, an id holding the seed, a
public schedule seed) lets it rebuild the whole deal with
``new_game(variant, players, seed)``. So the referee derives the bots'
seeds, the game ids and the request numbers with HMAC-SHA256 under a
``MatchKey``, and tournaments derive their games' seeds under the
tournament's key too. The key stays with the organiser (the driver and its
workers, the results store); a replay needs only the match log, which
records the game's real seed.

The key is drawn at random for each new tournament (and kept in its results
store, so a resumed tournament plays the same games) and for each ``arena
play`` run given no ``--seed``. ``arena play --seed N`` derives it from the
seed, so that the same seed is the same game every run (in processes and in
process), and a person who says "seed 7 does X" can be believed: then the
key is only as secret as the seed, unless ``ARENA_SECRET`` is set, which
keys the derivation (the organiser keeps the same ``--seed`` reproducible
and makes it unguessable). ``ARENA_SECRET`` in the organiser's environment
also pins every other key, to reproduce a run exactly; a bot never sees
that variable.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

SECRET_ENV = "ARENA_SECRET"
SEED_BITS = 63  # game seeds are non-negative 63-bit integers, like the schedule's
MAX_SEQ = 2**53 - 1  # request numbers stay exact in every JSON implementation
# What keys a seeded game without ARENA_SECRET: public on purpose (the seed is the secret).
PUBLIC_SECRET = "ttr-arena: a seeded game, keyed without a secret"


class MatchKey:
    """A secret and the one-way derivations made with it (HMAC-SHA256, hex or integers)."""

    __slots__ = ("_keyed", "secret")

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a match key needs at least 16 bytes of secret")
        self.secret = secret
        # The HMAC with the key already absorbed: each derivation copies it (the referee
        # derives a number for every request).
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)

    @classmethod
    def fresh(cls, purpose: str) -> MatchKey:
        """A new key for ``purpose`` (``"play"``, ``"tournament:NAME"``): random, or derived
        from ``ARENA_SECRET`` when the organiser pins it to reproduce a run."""
        pinned = os.environ.get(SECRET_ENV)
        if pinned:
            return cls(hmac.new(pinned.encode(), purpose.encode(), hashlib.sha256).digest())
        return cls(secrets.token_bytes(32))

    @classmethod
    def for_seed(cls, purpose: str, seed: int) -> MatchKey:
        """The key of a game given its seed (``arena play --seed``): the same every run, so the
        game is; keyed with ``ARENA_SECRET`` when set, else as guessable as the seed."""
        pinned = os.environ.get(SECRET_ENV) or PUBLIC_SECRET
        message = f"{purpose}:seed:{seed}".encode()
        return cls(hmac.new(pinned.encode(), message, hashlib.sha256).digest())

    def _digest(self, *parts: object) -> bytes:
        text = "\x1f".join(str(part) for part in parts)
        keyed = self._keyed.copy()
        keyed.update(text.encode())
        return keyed.digest()

    def _number(self, *parts: object) -> int:
        return int.from_bytes(self._digest(*parts)[:8], "big")

    def game_seed(self, schedule_seed: int) -> int:
        """The engine seed of a scheduled game: its public schedule seed, keyed."""
        return self._number("game-seed", schedule_seed) >> (64 - SEED_BITS)

    def bot_seed(self, game_seed: int, seat: int, game_id: str) -> str:
        """The seed a seat's bot gets for a game (so a deterministic bot replays exactly)."""
        return self._digest("bot-seed", game_seed, seat, game_id)[:16].hex()

    def game_id(self, game_seed: int, ordinal: int) -> str:
        """An opaque id for the ``ordinal``-th game of a match (it names the game in logs)."""
        return self._digest("game-id", game_seed, ordinal)[:8].hex()

    def seq(self, game_id: str, request: int) -> int:
        """The number of the ``request``-th request of a game: unpredictable, never 0."""
        return self._number("seq", game_id, request) % MAX_SEQ + 1


class RoleKey(MatchKey):
    """A match key whose bot seeds also depend on each seat's role (``arena test``: 0 is
    NEW, 1 BASE, then the opponents). In a sequential test's duplicate deals, NEW and BASE
    sit in the same seat of the same deal; under a plain key they would get the same seed
    there, and two copies of one program (an A/A test) would play identical games, so
    their difference would never vary. Everything else is derived as by ``MatchKey``."""

    __slots__ = ("roles",)

    def __init__(self, secret: bytes, roles: tuple[int, ...]) -> None:
        super().__init__(secret)
        self.roles = roles

    def bot_seed(self, game_seed: int, seat: int, game_id: str) -> str:
        return self._digest("bot-seed", game_seed, seat, game_id, "role", self.roles[seat])[
            :16
        ].hex()


def play_seed(key: MatchKey) -> int:
    """The game seed of an ``arena play`` run given none: keyed, so no bot can guess it (and
    ``ARENA_SECRET`` reproduces it); 62 bits, so that ``--games N`` counts up from it."""
    return key.game_seed(0) >> 1


class RecordedKey(MatchKey):
    """The derivations of one recorded game, answered from the record instead of a secret:
    a match bundle (``arena/tournament/bundle.py``) carries its game's id, each seat's bot
    seed and the request numbers up to the game's end, so that ``arena replay --reproduce``
    tells the bots exactly what the server told them without the tournament's secret.

    A request past the recorded ones (a changed bot that makes more, after the game has
    already gone another way) gets a number from a key public to anyone holding the bundle:
    it only needs to be unpredictable to the bot, as the recorded ones were."""

    __slots__ = ("recorded_id", "seeds", "seqs")

    def __init__(self, game_id: str, seeds: tuple[str, ...], seqs: tuple[int, ...]) -> None:
        beyond = hmac.new(PUBLIC_SECRET.encode(), f"beyond:{game_id}".encode(), hashlib.sha256)
        super().__init__(beyond.digest())
        self.recorded_id = game_id
        self.seeds = seeds
        self.seqs = seqs

    def game_seed(self, schedule_seed: int) -> int:
        raise ValueError("a recorded key derives no game seed: the record holds its game's")

    def game_id(self, game_seed: int, ordinal: int) -> str:
        if ordinal != 1:
            raise ValueError("a recorded key answers for the one game it recorded")
        return self.recorded_id

    def bot_seed(self, game_seed: int, seat: int, game_id: str) -> str:
        if game_id != self.recorded_id:
            raise ValueError(f"a recorded key answers for game {self.recorded_id}, not {game_id}")
        return self.seeds[seat]

    def seq(self, game_id: str, request: int) -> int:
        if game_id == self.recorded_id and 1 <= request <= len(self.seqs):
            return self.seqs[request - 1]
        return super().seq(game_id, request)

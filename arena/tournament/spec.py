"""What a tournament is: variant, player counts, bots, format, games, seed, time control.

Described by a small TOML file or by command-line flags::

    name = "usa-weekly"
    variant = "usa"
    players = [4]                 # one or more player counts
    bots = ["random", "greedy", "cmd:node examples/js-bot/bot.js"]
    format = "round-robin"        # round-robin | duplicate | ladder
    games = 2                     # rounds (round robin), deals (duplicate), matches (ladder)
    seed = 1
    bot_env = ["OMP_NUM_THREADS=1"]  # optional: variables bots may see ("NAME" passes yours on)
    [time_control]
    move_ms = 1000
    bank_ms = 30000
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.referee.faults import TimeControl

FORMATS = ("round-robin", "duplicate", "ladder")


class SpecError(ValueError):
    """A tournament description that cannot be run; the message says why."""


@dataclass(frozen=True)
class TournamentSpec:
    name: str
    variant: str
    bots: tuple[str, ...]
    players: tuple[int, ...] = (4,)
    format: str = "round-robin"
    games: int = 1
    seed: int = 0
    time_control: TimeControl = field(default_factory=TimeControl)
    ladder_wave: int = 8  # ladder matches scheduled together from the same ratings
    # Environment variables bots may see besides the arena's: "NAME" passes the organiser's
    # value on, "NAME=VALUE" sets one (arena/referee/process.py, bot_environment).
    bot_env: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for item in self.bot_env:
            name = item.partition("=")[0] if isinstance(item, str) else ""
            if not name.isidentifier():
                raise SpecError(f"bot_env: {item!r} is not NAME or NAME=VALUE")
        if self.format not in FORMATS:
            raise SpecError(f"format '{self.format}' is not one of {', '.join(FORMATS)}")
        if not self.bots:
            raise SpecError("a tournament needs bots")
        if len(set(self.bots)) != len(self.bots):
            raise SpecError("a bot is named twice")
        for count in self.players:
            if count > len(self.bots):
                raise SpecError(f"{count}-player games need at least {count} bots")
            if count < 2:
                raise SpecError("games need at least 2 players")
        if self.games < 1:
            raise SpecError("games must be at least 1")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["players"] = list(self.players)
        if self.bot_env:
            data["bot_env"] = list(self.bot_env)
        else:
            del data["bot_env"]  # so tournaments stored before it keep their fingerprint
        return data

    @property
    def fingerprint(self) -> str:
        """Identifies the schedule: the same fingerprint resumes the same tournament."""
        text = json.dumps(self.to_json(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentSpec:
        known = {
            "name",
            "variant",
            "bots",
            "players",
            "format",
            "games",
            "seed",
            "time_control",
            "ladder_wave",
            "bot_env",
        }
        unknown = set(data) - known
        if unknown:
            raise SpecError(f"unknown keys: {', '.join(sorted(unknown))}")
        try:
            players = data.get("players", [4])
            tc = TimeControl(**data.get("time_control", {}))
            return cls(
                name=str(data["name"]),
                variant=str(data["variant"]),
                bots=tuple(data["bots"]),
                players=tuple(players if isinstance(players, list) else [players]),
                format=data.get("format", "round-robin"),
                games=int(data.get("games", 1)),
                seed=int(data.get("seed", 0)),
                time_control=tc,
                ladder_wave=int(data.get("ladder_wave", 8)),
                bot_env=tuple(_string_list(data.get("bot_env", []), "bot_env")),
            )
        except KeyError as missing:
            raise SpecError(f"missing key: {missing.args[0]}") from None
        except TypeError as error:
            raise SpecError(str(error)) from None

    @classmethod
    def from_toml(cls, path: Path) -> TournamentSpec:
        try:
            return cls.from_dict(tomllib.loads(path.read_text()))
        except tomllib.TOMLDecodeError as error:
            raise SpecError(f"{path}: {error}") from None


def _string_list(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SpecError(f"{key}: expected a list of strings")
    return value

"""What a tournament is: variant, player counts, bots, format, games, seed, time control.

Described by a small TOML file or by command-line flags::

    name = "usa-weekly"
    variant = "usa"
    players = [4]                 # one or more player counts
    bots = ["random", "my-bot@2", "js=cmd:node examples/js-bot/bot.js",
            { bot = "greedy", fresh_process = true }]  # a table: a new process every match
    format = "round-robin"        # round-robin | duplicate | ladder | sprt
    games = 2                     # rounds (round robin), deals (duplicate), matches (ladder),
                                  # at most this many matches (sprt)
    seed = 1
    bot_env = ["OMP_NUM_THREADS=1"]  # optional: variables bots may see ("NAME" passes yours on)
    matches_per_process = 100     # optional: matches a warm bot process plays (1: always fresh)
    rating = "bradley-terry"      # optional: the model of the final standings' ratings
    [time_control]
    move_ms = 1000                # free time per decision, > 0
    bank_ms = 30000               # time bank per bot and game, >= 0
    [sprt]                        # format "sprt" only (what ``arena test`` runs): bots are
    elo0 = 0.0                    # NEW, BASE, then the other seats' opponents; H0: NEW − BASE
    elo1 = 5.0                    # = elo0 Elo, H1: = elo1; alpha, beta: the error rates
    alpha = 0.05
    beta = 0.05

The file is decoded into typed msgspec structures (``SpecFile``), so a wrong type
or an unknown key is reported with its path (``time_control.bank_msec: unknown
key``); ``TournamentSpec`` then checks what needs more than types (player counts
against the variant and the bots, names).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
import typing
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from arena.referee.faults import DEFAULT_MATCHES_PER_PROCESS, TimeControl
from arena.tournament.names import BadName, check_name, split_ref
from arena.tournament.ratings import FINALS_MODEL, MODELS
from arena.tournament.sprt import BadHypotheses, Hypotheses

FORMATS = ("round-robin", "duplicate", "ladder", "sprt")
Format = Literal["round-robin", "duplicate", "ladder", "sprt"]
OPEN_POOL = "*"  # in a ladder: every registered bot
# A round robin or duplicate is planned whole before it plays (schedule.py): beyond this it
# would take minutes and gigabytes before the first match (a ladder plans wave by wave).
MAX_PLANNED_MATCHES = 100_000
FIXED = ("round-robin", "duplicate")  # planned whole before they play
# How it runs or is read, not what is played: no part of its identity.
RUN_SETTINGS = ("matches_per_process", "fresh_process", "rating")


class SpecError(ValueError):
    """A tournament description that cannot be run; the message says why."""


class TimeControlTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The ``[time_control]`` table; defaults are the referee's."""

    move_ms: Annotated[int, msgspec.Meta(gt=0)] = TimeControl.move_ms
    bank_ms: Annotated[int, msgspec.Meta(ge=0)] = TimeControl.bank_ms
    handshake_ms: Annotated[int, msgspec.Meta(gt=0)] = TimeControl.handshake_ms
    retries: Annotated[int, msgspec.Meta(ge=0)] = TimeControl.retries
    cpus: Annotated[float, msgspec.Meta(ge=0)] = TimeControl.cpus


class BotTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A bot of ``bots`` written as a table, with its settings."""

    bot: str
    fresh_process: bool = False  # a new process for every match, never a warm one


class SprtTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The ``[sprt]`` table: the hypotheses and error rates of a sequential test."""

    elo0: float = Hypotheses.elo0
    elo1: float = Hypotheses.elo1
    alpha: float = Hypotheses.alpha
    beta: float = Hypotheses.beta


class SpecFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A tournament file as written: the keys, their types and their simple bounds."""

    name: str
    variant: str
    bots: list[str | BotTable]
    players: Annotated[int, msgspec.Meta(ge=2)] | list[Annotated[int, msgspec.Meta(ge=2)]] = 4
    format: Format = "round-robin"
    games: Annotated[int, msgspec.Meta(ge=1)] = 1
    seed: int = 0
    time_control: TimeControlTable = TimeControlTable()
    ladder_wave: Annotated[int, msgspec.Meta(ge=1)] = 8
    bot_env: list[str] = []
    matches_per_process: Annotated[int, msgspec.Meta(ge=1)] = DEFAULT_MATCHES_PER_PROCESS
    sprt: SprtTable | None = None
    rating: str = FINALS_MODEL


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
    # How it is run, not what is played (outside the fingerprint): the matches a warm bot
    # process plays (arena/referee/pool.py), and the bots that get a new one every match.
    matches_per_process: int = DEFAULT_MATCHES_PER_PROCESS
    fresh_process: tuple[str, ...] = ()
    # A sequential test (format "sprt"): its hypotheses, part of what is played (a resumed
    # test decides by the same ones). Bots are NEW, BASE, then the opponents of the other seats.
    sprt: Hypotheses | None = None
    # The rating model of the final standings (how results are read, not what is played).
    rating: str = FINALS_MODEL
    # Bots that never share a table in a round robin or duplicate, as groups (a hosted
    # final: each team's or participant's bots); a group with two of them is not played.
    apart: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        # Checked in the order a person fixes them: what is played, then by whom.
        try:
            check_name(self.name, "tournament name")
        except BadName as error:
            raise SpecError(str(error)) from None
        if self.format not in FORMATS:
            raise SpecError(f"format '{self.format}' is not one of {', '.join(FORMATS)}")
        self._check_players()
        check_time_control(self.time_control)
        if not self.bots:
            raise SpecError("a tournament needs bots")
        for bot in self.bots:
            check_bot_text(bot)
        if self.format == "sprt":
            self._check_sprt()
        elif self.sprt is not None:
            raise SpecError("[sprt] hypotheses are for format 'sprt' (arena test)")
        elif len(set(self.bots)) != len(self.bots):
            twice = sorted({b for b in self.bots if self.bots.count(b) > 1})
            raise SpecError(f"bots: {', '.join(twice)} named twice: name each bot once")
        if OPEN_POOL in self.bots and self.format != "ladder":
            raise SpecError(
                f"'{OPEN_POOL}' (every registered bot) is for a ladder: name the bots of a "
                f"{self.format}, or use format 'ladder'"
            )
        if OPEN_POOL not in self.bots and self.format != "sprt":  # an open pool: when it runs
            for count in self.players:
                if count > len(self.bots):
                    raise SpecError(
                        f"{count}-player games need at least {count} bots, {len(self.bots)} "
                        "given: add bots or choose fewer players"
                    )
        self._check_apart()
        if self.games < 1:
            raise SpecError("games must be at least 1")
        if self.ladder_wave < 1:
            raise SpecError("ladder_wave must be at least 1")
        if self.format == "sprt" and self.games < max(self.players):
            raise SpecError(
                f"games = {self.games}: a sequential test's deal group is {max(self.players)} "
                "games (one per seat rotation); allow at least that many"
            )
        if self.format in FIXED and self.planned_matches() > MAX_PLANNED_MATCHES:
            raise SpecError(
                f"games = {self.games}: this {self.format} would plan "
                f"{self.planned_matches():,} matches, more than {MAX_PLANNED_MATCHES:,} in one "
                "tournament: give fewer games, bots or player counts, or use format 'ladder'"
            )
        if self.rating not in MODELS:
            raise SpecError(f"rating: '{self.rating}' is not one of {', '.join(MODELS)}")
        if self.matches_per_process < 1:
            raise SpecError("matches_per_process must be at least 1 (1: a new process each match)")
        for bot in self.fresh_process:
            if bot not in self.bots:
                raise SpecError(f"fresh_process: '{bot}' is not one of the bots")
        for index, item in enumerate(self.bot_env):
            if not item.partition("=")[0].isidentifier():
                raise SpecError(f"bot_env[{index}]: {item!r} is not NAME or NAME=VALUE")

    def _check_sprt(self) -> None:
        """NEW, BASE and one opponent for each other seat, one player count, hypotheses."""
        if len(self.players) != 1:
            raise SpecError("a sequential test is played at one player count")
        if OPEN_POOL in self.bots:
            raise SpecError(f"'{OPEN_POOL}' is for a ladder: a test names NEW and BASE")
        (count,) = self.players
        if len(self.bots) != count:
            raise SpecError(
                f"a {count}-player test needs NEW, BASE and {count - 2} opponent(s) for the "
                f"other seats, {len(self.bots)} bot(s) given"
            )
        if self.sprt is None:
            raise SpecError("format 'sprt' needs its hypotheses ([sprt] elo0, elo1)")

    def _check_apart(self) -> None:
        """``apart``: groups of named bots, each bot in one group at most."""
        if self.apart and self.format not in FIXED:
            raise SpecError(f"apart is for a round robin or duplicate, not a {self.format}")
        seen: set[str] = set()
        for group in self.apart:
            for bot in group:
                if bot not in self.bots:
                    raise SpecError(f"apart: '{bot}' is not one of the bots")
                if bot in seen:
                    raise SpecError(f"apart: '{bot}' is in two groups: put it in one")
                seen.add(bot)
        if self.apart and not self.planned_matches():
            raise SpecError(
                "apart: no table of these bots is without two of one group: add bots of "
                "other groups or choose fewer players"
            )

    def sides(self) -> dict[str, int]:
        """Each bot's side: the index of its ``apart`` group, or a side of its own."""
        side = {bot: index for index, group in enumerate(self.apart) for bot in group}
        for index, bot in enumerate(self.bots):
            side.setdefault(bot, len(self.apart) + index)
        return side

    def planned_matches(self) -> int:
        """How many matches a round robin or duplicate plays: each group of bots of each
        player count (no two of one ``apart`` group), in each seat rotation, ``games``
        times (schedule.fixed_schedule)."""
        sizes = Counter(self.sides().values()).values()
        groups = sum(tables(list(sizes), count) * count for count in self.players)
        return groups * self.games

    def _check_players(self) -> None:
        from arena.variants import get_variant  # the registry loads every variant plugin

        try:
            variant = get_variant(self.variant)
        except KeyError as error:
            raise SpecError(f"variant: {error.args[0]}") from None
        if not self.players:
            raise SpecError("give at least one player count")
        low, high = variant.min_players, variant.max_players
        for count in self.players:
            if not low <= count <= high:
                raise SpecError(f"{variant.name} is played by {low}-{high} players, not {count}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["players"] = list(self.players)
        # Left out at their defaults, so tournaments stored before them keep their fingerprint.
        for key in ("bot_env", "fresh_process"):
            if data[key]:
                data[key] = list(data[key])
            else:
                del data[key]
        if self.matches_per_process == DEFAULT_MATCHES_PER_PROCESS:
            del data["matches_per_process"]
        if self.sprt is None:
            del data["sprt"]
        if self.rating == FINALS_MODEL:
            del data["rating"]
        if self.apart:
            data["apart"] = [list(group) for group in self.apart]
        else:
            del data["apart"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentSpec:
        """The inverse of ``to_json`` (a description as the store keeps it)."""
        return cls(
            **data
            | {
                "bots": tuple(data["bots"]),
                "players": tuple(data["players"]),
                "bot_env": tuple(data.get("bot_env", ())),
                "fresh_process": tuple(data.get("fresh_process", ())),
                "time_control": TimeControl(**data["time_control"]),
                "sprt": Hypotheses(**data["sprt"]) if data.get("sprt") else None,
                "apart": tuple(tuple(group) for group in data.get("apart", ())),
            }
        )

    @classmethod
    def with_clock(cls, move_ms: int, bank_ms: int, **fields: Any) -> TournamentSpec:
        """A tournament described by flags (``arena tournament run``, ``arena test``): its
        time control given as its two numbers."""
        return cls(time_control=TimeControl(move_ms=move_ms, bank_ms=bank_ms), **fields)

    @property
    def fingerprint(self) -> str:
        """Identifies the schedule: the same fingerprint resumes the same tournament."""
        described = {k: v for k, v in self.to_json().items() if k not in RUN_SETTINGS}
        text = json.dumps(described, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentSpec:
        try:
            typed = msgspec.convert(data, SpecFile)
        except msgspec.ValidationError as error:
            raise SpecError(explain(str(error), SpecFile, data)) from None
        players = typed.players if isinstance(typed.players, list) else [typed.players]
        bots = [b if isinstance(b, str) else b.bot for b in typed.bots]
        fresh = [b.bot for b in typed.bots if isinstance(b, BotTable) and b.fresh_process]
        return cls(
            name=typed.name,
            variant=typed.variant,
            bots=tuple(bots),
            players=tuple(players),
            format=typed.format,
            games=typed.games,
            seed=typed.seed,
            time_control=TimeControl(**msgspec.structs.asdict(typed.time_control)),
            ladder_wave=typed.ladder_wave,
            bot_env=tuple(typed.bot_env),
            matches_per_process=typed.matches_per_process,
            fresh_process=tuple(fresh),
            sprt=hypotheses(typed.sprt, typed.format),
            rating=typed.rating,
        )

    @classmethod
    def from_toml(cls, path: Path) -> TournamentSpec:
        data = read_toml(path, "a tournament file")
        try:
            return cls.from_dict(data)
        except SpecError as error:
            raise SpecError(f"{path}: {error}") from None


def tables(sides: list[int], count: int) -> int:
    """How many groups of ``count`` bots have no two of one side, the sides holding
    ``sides`` bots each (the elementary symmetric polynomial of the sizes: no listing)."""
    ways = [1] + [0] * count  # ways[k]: groups of k bots from the sides so far
    for size in sides:
        for k in range(count, 0, -1):
            ways[k] += ways[k - 1] * size
    return ways[count]


def read_toml(path: Path, what: str, error: type[ValueError] = SpecError) -> dict[str, Any]:
    """The table a TOML file holds (a tournament or competition file), or ``error`` in one
    line saying why it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not {what}") from None
    except (OSError, UnicodeDecodeError) as problem:
        raise error(f"{path}: cannot be read ({problem})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{path}: not valid TOML: {problem}") from None


def hypotheses(table: SprtTable | None, format: str) -> Hypotheses | None:
    """The ``[sprt]`` table as checked hypotheses (the defaults for a test without one)."""
    if table is None and format != "sprt":
        return None
    try:
        return Hypotheses(**msgspec.structs.asdict(table or SprtTable()))
    except BadHypotheses as error:
        raise SpecError(f"sprt: {error}") from None


def check_time_control(tc: TimeControl) -> None:
    """Refuse clocks no bot could play under (every bot would time out)."""
    for key, low in (("move_ms", 1), ("bank_ms", 0), ("handshake_ms", 1), ("retries", 0)):
        value = getattr(tc, key)
        if not isinstance(value, int) or value < low:
            raise SpecError(f"time_control.{key}: must be a whole number >= {low}, not {value!r}")
    if isinstance(tc.cpus, bool) or not isinstance(tc.cpus, int | float) or tc.cpus < 0:
        raise SpecError(f"time_control.cpus: must be a number >= 0, not {tc.cpus!r}")


def check_bot_text(text: str) -> None:
    """A bot as written in a tournament: ``*``, ``[LABEL=]cmd:LINE``, or ``name[@N]``."""
    if text == OPEN_POOL:
        return
    from arena.referee.launch import split_label  # the referee's modules: only when checked

    label, command = split_label(text)
    try:
        if command is not None:
            if label is not None:
                check_name(label, "bot label")
            if not command.strip():
                raise SpecError(f"'{text}': 'cmd:' needs a command line")
            return
        split_ref(text)
    except BadName as error:
        raise SpecError(str(error)) from None


# ---------------------------------------------------------------- msgspec errors, in words

_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$")
_TYPES = {
    "int": "a whole number",
    "str": "a string",
    "array": "a list",
    "object": "a table",
    "float": "a decimal number",
    "bool": "true or false",
    "null": "nothing",
}


def explain(message: str, root: type, data: Any = None) -> str:
    """A msgspec validation message as ``path: what is wrong (how to fix)``.

    msgspec says ``Object contains unknown field `bank_msec` - at `$.time_control```;
    a person reads ``time_control.bank_msec: unknown key (known: move_ms, ...)``.
    """
    match = _AT.match(message)
    assert match is not None  # the pattern matches every string
    what, path = match.group("what"), (match.group("path") or "").lstrip(".")
    if found := re.fullmatch(r"Object contains unknown field `(.+)`", what):
        key = f"{path}.{found.group(1)}" if path else found.group(1)
        known = ", ".join(_field_names(_type_at(root, path)))
        return f"{key}: unknown key (known keys: {known})"
    if found := re.fullmatch(r"Object missing required field `(.+)`", what):
        key = f"{path}.{found.group(1)}" if path else found.group(1)
        return f"{key}: missing (it is required)"
    if found := re.fullmatch(r"Expected `([\w |]+)`, got `(\w+)`", what):
        expected = " or ".join(_TYPES.get(t, t) for t in found.group(1).split(" | "))
        got = _TYPES.get(found.group(2), found.group(2))
        value = _value_at(data, path)
        if isinstance(value, bool):
            shown = str(value).lower()
        elif isinstance(value, str | int | float):
            shown = f"{got} {value!r}"
        else:
            shown = got
        return f"{path or 'the file'}: expected {expected}, got {shown}"
    if found := re.fullmatch(r"Expected `(\w+)` (>=|>|<=|<) (-?\d+)", what):
        kind, op, bound = found.groups()
        return f"{path}: must be {_TYPES.get(kind, kind)} {op} {bound}"
    if found := re.fullmatch(r"Invalid enum value (.+)", what):
        choices = typing.get_args(_type_at(root, path))
        return f"{path}: {found.group(1)} is not one of {', '.join(choices)}"
    return f"{path}: {what}" if path else what


def _type_at(root: Any, path: str) -> Any:
    """The declared type of the field at a dotted ``path`` under a Struct type."""
    current = root
    for part in filter(None, re.split(r"\.|\[\d+\]", path)):
        hints = typing.get_type_hints(current, include_extras=False)
        current = _struct_in(hints.get(part))
    return current


def _struct_in(hint: Any) -> Any:
    """The Struct a list or union type holds (``list[str | BotTable]``: BotTable), else
    ``hint`` itself."""
    for arg in typing.get_args(hint) if typing.get_origin(hint) is not Literal else ():
        found = _struct_in(arg)
        if hasattr(found, "__struct_fields__"):
            return found
    return hint


def _value_at(data: Any, path: str) -> Any:
    """The value at a msgspec ``path`` (``a.b[1]``) in the decoded data, or None."""
    for part in filter(None, re.split(r"\.|(\[\d+\])", path)):
        try:
            data = data[int(part[1:-1])] if part.startswith("[") else data[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return data


def _field_names(struct: Any) -> list[str]:
    return list(getattr(struct, "__struct_fields__", ()))

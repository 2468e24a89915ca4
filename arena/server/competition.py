"""What a hosted competition is: the competition file, typed and checked like a tournament
file (``arena.tournament.spec``), so a wrong key or value is one line naming its path::

    name = "autumn-2026"            # the key its ladders and final are stored under
    title = "Autumn bots 2026"
    seed = 1
    [[ranked]]                      # one ladder per variant and player count
    variant = "usa"
    players = [2, 4]
    [time_control]
    move_ms = 1000
    [limits]
    upload_bytes = 5_000_000
    [registration]
    mode = "open"                   # open | invite | closed
    invite_codes = ["class-7b"]     # asked for in invite mode; optional in open mode
    unlimited_invites = true        # a sign-up with a code skips limits.signups_per_address
    [visibility]
    replays = "public"              # public | participants | owners
    [final]
    deadline = 2026-12-01T18:00:00Z  # a date and time with its zone, no quotes
    # top = 8                       # only the ladder's top 8 play it (unset: every bot)
    games = 8                       # rounds of the round robin (benchmarks/ratings.py)
    with_ladder = false             # true: the final's ratings start from the ladder's games
    [play]                          # people against bots in the browser, unranked
    games = 2                       # at once on the server (one per participant); 0: none
    abandon_minutes = 10            # a game left alone this long is resigned
    [challenges]                    # games against chosen opponents, unranked by default
    games_per_hour = 40             # per participant
    pair_games_per_day = 200        # per two participants (or one and a built-in bot)
    max_games = 40                  # per challenge
    share = 0.2                     # at most this part of the matches the worker plays
    ranked = false                  # true: a participant may ask for a ranked challenge
    [ladder]
    matches_per_hour = 300          # per board: what the disk fills with grows with it
    [teams]
    max_size = 2                    # members a team may have; 1 (the default): no teams
    [retention]                     # the bots' stdout/stderr files of each match
    log_days = 1                    # kept this long, and the newest logs_per_bot of each bot;
    logs_per_bot = 20
    faulted_days = 7                # a match with a fault: this long
    budget_bytes = 1_073_741_824    # the data folder: warn at 80 %, prune old logs above
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from arena.referee.faults import TimeControl
from arena.tournament.names import BadName, check_name
from arena.tournament.spec import (
    SpecError,
    TimeControlTable,
    check_time_control,
    explain,
    read_toml,
)

Count = Annotated[int, msgspec.Meta(ge=1)]
Days = Annotated[float, msgspec.Meta(ge=0)]


DEADLINE_FORM = (
    "give a date and time with its time zone, without quotes, e.g. "
    "deadline = 2026-12-01T18:00:00Z (UTC) or 2026-12-01T18:00:00+01:00"
)


def parse_deadline(text: str) -> datetime.datetime:
    """A deadline typed on ``/admin`` or the command line, in the competition file's form;
    a ``ValueError`` saying the form otherwise."""
    try:
        found = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"'{text[:40]}' is not a deadline: {DEADLINE_FORM}") from None
    if found.tzinfo is None:
        raise ValueError(f"'{text[:40]}' is a local time: {DEADLINE_FORM}")
    return found.astimezone(datetime.UTC)


class CompetitionError(ValueError):
    """A competition file that cannot be served; the message is one line saying why."""


class RankedTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A variant ranked by the ladder, at one or more player counts (a board each)."""

    variant: str
    players: list[Annotated[int, msgspec.Meta(ge=2)]] = msgspec.field(default_factory=lambda: [2])


class LimitsTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What one upload and one participant may take: the server's disk and CPU are shared."""

    upload_bytes: Count = 5 * 2**20  # the archive or file as sent
    unpacked_bytes: Count = 50 * 2**20  # what an archive may unpack to
    files: Count = 500  # files in an archive
    ratio: Count = 100  # unpacked bytes per archive byte (a bomb is refused while unpacking)
    submissions_per_day: Count = 20  # per participant, over the last 24 hours
    active_bots: Count = 2  # versions of a participant that play at once
    validation_games: Count = 2  # per variant, against the random bot
    signups_per_address: Count = 10  # new accounts from one address per 15 minutes
    # connections open at once from one address (a class behind one school address: each
    # browser keeps a few open); behind --behind-proxy the proxy's address is not capped
    connections_per_address: Count = 32


class RegistrationTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Who may make an account. Invite codes are asked for in invite mode, and may be given
    in open mode; with ``unlimited_invites`` a sign-up with a valid code is not counted
    against ``limits.signups_per_address`` (a class behind one school address)."""

    mode: Literal["open", "invite", "closed"] = "open"
    invite_codes: list[Annotated[str, msgspec.Meta(min_length=1)]] = []
    unlimited_invites: bool = False


class VisibilityTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What a visitor sees beyond names and ratings (owners see their own; admins, all)."""

    replays: Literal["public", "participants", "owners"] = "public"
    bot_pages: Literal["public", "participants"] = "public"


class PlayTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """People's games in the browser (``/play``): a participant against a bot, unranked."""

    games: Annotated[int, msgspec.Meta(ge=0)] = 2  # at once on the server; 0: no /play
    abandon_minutes: Annotated[float, msgspec.Meta(gt=0)] = 10  # no sign of the person: resigned


# Rounds of the final's round robin (each pair plays both seats each round): with 8
# bots, adjacent places 200 Elo apart are told apart at 95% in 84% of simulated finals,
# 100 Elo apart in half; closer places are shown tied. The table that says so: docs/HOSTING.md,
# "Running a class" (made by ``benchmarks/ratings.py --final-games``).
FINAL_GAMES = 8


class FinalTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """At the deadline submissions close and the board's bots play it out: every bot that
    may play, or the ladder's ``top`` when set; ``with_ladder``: the final's ratings start
    from the ladder's games (the final then decides between bots the ladder left close)."""

    deadline: datetime.datetime | None = None
    format: Literal["round-robin", "duplicate"] = "round-robin"
    top: Annotated[int, msgspec.Meta(ge=2)] | None = None
    games: Count = FINAL_GAMES
    with_ladder: bool = False


class ChallengesTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Challenges: a participant's games against opponents they choose on a board, played
    by the ladder's worker; what one participant may ask. Unranked unless ``ranked``
    allows a participant to ask for a ranked one: its games are then the board's too
    (stored as the board's ladder matches, ``arena.server.challenge_runs``)."""

    games_per_hour: Count = 40  # games a participant may ask for over the last hour
    pair_games_per_day: Count = 200  # between two participants (or one and a built-in bot)
    max_games: Count = 40  # in one challenge
    share: Annotated[float, msgspec.Meta(gt=0, lt=1)] = 0.2  # of the matches the worker plays
    builtin: list[str] = msgspec.field(default_factory=lambda: ["random"])  # bots anyone meets
    ranked: bool = False  # whether a participant may ask for a ranked challenge


class LadderTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """How fast each board's ladder plays. The disk a competition fills grows with it: at
    the default, 30 bots on two boards store well under 1 GB a week (docs/HOSTING.md:
    Running it for weeks)."""

    matches_per_hour: Count = 300  # per board


# The largest team a competition file may allow: teams are a class's pairs or small
# groups (Battlecode's are up to 4), not a way to pool a whole class's bots.
MAX_TEAM_SIZE = 8


class TeamsTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Participants who work together: a team's members share its bots (they see each
    other's code and logs, ``limits.active_bots`` counts the team's, and two of its bots
    never share a ladder table). ``max_size`` 1: everyone plays alone."""

    max_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_TEAM_SIZE)] = 1


class RetentionTable(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """How long the bots' per-match stdout and stderr files are kept (results and match
    logs, which replays need, are kept for good), and the data folder's budget."""

    log_days: Days = 1.0  # every match's bot logs, this long
    logs_per_bot: Annotated[int, msgspec.Meta(ge=0)] = 20  # and each bot's newest this many
    faulted_days: Days = 7.0  # a match where a bot faulted: this long
    budget_bytes: Count = 2**30  # the data folder: a warning at 80 %, old logs pruned above


class CompetitionFile(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    title: str
    ranked: list[RankedTable]
    seed: int = 0
    time_control: TimeControlTable = TimeControlTable()
    limits: LimitsTable = LimitsTable()
    registration: RegistrationTable = RegistrationTable()
    visibility: VisibilityTable = VisibilityTable()
    final: FinalTable = FinalTable()
    play: PlayTable = PlayTable()
    challenges: ChallengesTable = ChallengesTable()
    ladder: LadderTable = LadderTable()
    retention: RetentionTable = RetentionTable()
    teams: TeamsTable = TeamsTable()


@dataclass(frozen=True)
class Competition:
    """A checked competition file; ``boards`` are its (variant, players) ladders."""

    name: str
    title: str
    boards: tuple[tuple[str, int], ...]
    seed: int
    time_control: TimeControl
    limits: LimitsTable
    registration: RegistrationTable
    visibility: VisibilityTable
    final: FinalTable
    play: PlayTable
    challenges: ChallengesTable
    ladder: LadderTable
    retention: RetentionTable
    teams: TeamsTable

    def ladder_name(self, variant: str, players: int) -> str:
        return ladder_name(self.name, variant, players)

    def final_name(self, variant: str, players: int, number: int = 1) -> str:
        return final_name(self.name, variant, players, number)

    def challenge_name(self, challenge_id: int) -> str:
        return f"{self.name}-challenge-{challenge_id}"

    @classmethod
    def from_dict(cls, data: dict) -> Competition:
        try:
            typed = msgspec.convert(data, CompetitionFile)
        except msgspec.ValidationError as error:
            said = explain(str(error), CompetitionFile, data)
            if said.startswith("final.deadline:"):
                said = f"final.deadline: {DEADLINE_FORM}"
            raise CompetitionError(said) from None
        try:
            check_name(typed.name, "competition name")
        except BadName as error:
            raise CompetitionError(str(error)) from None
        if not typed.title.strip():
            raise CompetitionError("title: give the competition a title")
        if not typed.ranked:
            raise CompetitionError("ranked: name at least one variant to rank")
        boards = _boards(typed.ranked)
        time_control = TimeControl(**msgspec.structs.asdict(typed.time_control))
        try:
            check_time_control(time_control)
        except SpecError as error:
            raise CompetitionError(str(error)) from None
        limits = typed.limits
        if limits.unpacked_bytes < limits.upload_bytes:
            raise CompetitionError("limits.unpacked_bytes: must be at least limits.upload_bytes")
        registration = typed.registration
        if registration.mode == "invite" and not registration.invite_codes:
            raise CompetitionError("registration.invite_codes: invite mode needs at least one code")
        if registration.unlimited_invites and not registration.invite_codes:
            raise CompetitionError(
                "registration.unlimited_invites: give invite_codes (the codes that lift the cap)"
            )
        deadline = typed.final.deadline
        if deadline is not None and deadline.tzinfo is None:
            raise CompetitionError(f"final.deadline: a local time: {DEADLINE_FORM}")
        _check_challenges(typed.challenges, boards)
        return cls(
            typed.name,
            typed.title,
            boards,
            typed.seed,
            time_control,
            limits,
            registration,
            typed.visibility,
            typed.final,
            typed.play,
            typed.challenges,
            typed.ladder,
            typed.retention,
            typed.teams,
        )

    @classmethod
    def from_toml(cls, path: Path) -> Competition:
        data = read_toml(path, "a competition file", CompetitionError)
        try:
            return cls.from_dict(data)
        except CompetitionError as error:
            raise CompetitionError(f"{path}: {error}") from None


def ladder_name(competition: str, variant: str, players: int) -> str:
    return f"{competition}-{variant}-{players}p"


def final_name(competition: str, variant: str, players: int, number: int = 1) -> str:
    """The tournament of a board's final; ``number``: its round (the deadline moved after
    a final: the next one is a new tournament, the old one kept)."""
    name = f"{competition}-final-{variant}-{players}p"
    return name if number == 1 else f"{name}-round{number}"


def _boards(ranked: list[RankedTable]) -> tuple[tuple[str, int], ...]:
    """Every (variant, players) ladder, checked against the variants installed."""
    from arena.variants import get_variant

    boards: list[tuple[str, int]] = []
    for index, table in enumerate(ranked):
        where = f"ranked[{index}]"
        try:
            variant = get_variant(table.variant)
        except KeyError as error:
            raise CompetitionError(f"{where}.variant: {error.args[0]}") from None
        if not variant.playable:
            raise CompetitionError(f"{where}.variant: '{table.variant}' cannot be played yet")
        if not table.players:
            raise CompetitionError(f"{where}.players: give at least one player count")
        for count in table.players:
            if not variant.min_players <= count <= variant.max_players:
                raise CompetitionError(
                    f"{where}.players: {variant.name} is played by "
                    f"{variant.min_players}-{variant.max_players} players, not {count}"
                )
            if (table.variant, count) in boards:
                raise CompetitionError(f"{where}: {table.variant} with {count} players twice")
            boards.append((table.variant, count))
    return tuple(boards)


def _check_challenges(table: ChallengesTable, boards: tuple[tuple[str, int], ...]) -> None:
    """Built-in bots that exist and play every board's variant."""
    from bots import all_bots

    if table.max_games > table.games_per_hour:
        raise CompetitionError("challenges.max_games: must be at most challenges.games_per_hour")
    installed = all_bots()
    for name in table.builtin:
        if name not in installed:
            raise CompetitionError(
                f"challenges.builtin: no bot plugin '{name}' (installed: {', '.join(installed)})"
            )
        for variant, _ in boards:
            if not installed[name].supports(variant):
                raise CompetitionError(
                    f"challenges.builtin: '{name}' does not play variant '{variant}'"
                )

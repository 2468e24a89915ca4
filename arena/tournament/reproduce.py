"""Playing a match bundle again through the real referee and comparing it, decision by decision.

Each seat's bot is found as the server ran it: a participant's own copy given as
``NAME=PATH`` (a ``.py`` file or a folder with ``bot.py``, run as ``arena submit``
runs it, or ``NAME=cmd:LINE``), else the same registration in the local store (same
code hash), else the installed plugin it names. The referee plays with process seats
under the bundle's time control, dealt from the recorded game seed, and tells each
bot what the server told it (``Bundle.key``: the recorded bot seeds, game id and
request numbers). A deterministic bot then makes the same decisions; the first that
is not the same is named with where it happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.referee.launch import BotEntry, ProcessMatch, split_label
from arena.referee.matchlog import MatchLog
from arena.referee.process import ProcessLimits
from arena.tournament.bots import bot_limits, cannot_start, file_entry
from arena.tournament.bundle import Bundle, BundleError, BundleSeat, data_hash, plugin_hash
from arena.tournament.store import ResultsStore
from arena.tournament.submit import code_hash
from arena.variants import get_variant
from bots import all_bots, get_bot


@dataclass(frozen=True)
class SeatBot:
    """The bot a seat is replayed with, and where it came from (said to the user)."""

    seat: int
    entry: BotEntry
    source: str  # "your copy PATH", "registered here", "built in"
    same_code: bool | None  # its code hash is the server's (None: no hash to compare)


@dataclass(frozen=True)
class Difference:
    """The first decision that is not as recorded."""

    decision: int  # the move's number in the game, from 1
    seat: int
    recorded: str
    replayed: str
    turn: int | None  # the turn in the seat's observation at that decision

    def line(self, game_id: str) -> str:
        turn = f", observation turn {self.turn}" if self.turn is not None else ""
        return (
            f"differs: game {game_id}, decision {self.decision}, seat {self.seat}{turn}: "
            f"recorded {self.recorded}, replayed {self.replayed}"
        )


def overrides(texts: Sequence[str]) -> dict[str, str]:
    """``NAME=PATH`` (or ``NAME=cmd:LINE``) pairs, by name."""
    found = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name or not value:
            raise BundleError(
                f"--bot '{text}': write NAME=PATH (a seat's bot name and a local copy of it)"
            )
        found[name] = value
    return found


def seat_bots(bundle: Bundle, given: dict[str, str], store: ResultsStore | None) -> list[SeatBot]:
    """The bot of every seat (``BundleError`` when one cannot be found or started)."""
    names = {seat.bot for seat in bundle.seats} | {seat.bot.split("@")[0] for seat in bundle.seats}
    for name in given:
        if name not in names:
            shown = ", ".join(seat.bot for seat in bundle.seats)
            raise BundleError(f"--bot {name}=...: no seat of this match plays '{name}' ({shown})")
    chosen = []
    for seat in bundle.seats:
        value = given.get(seat.bot, given.get(seat.bot.split("@")[0]))
        found = _given(seat, value) if value is not None else _known(seat, store)
        if problem := cannot_start(found.entry):
            raise BundleError(f"seat {seat.seat} '{seat.bot}' cannot be started: {problem}")
        chosen.append(found)
    return chosen


def _given(seat: BundleSeat, value: str) -> SeatBot:
    label, command = split_label(f"{seat.bot}={value}")
    if command is not None and label is not None:  # NAME=cmd:LINE
        entry = BotEntry.parse(f"{seat.bot}=cmd:{command}")
        return SeatBot(seat.seat, entry, f"your command {command}", None)
    path = Path(value).expanduser().resolve()
    if path.is_dir() and not (path / "bot.py").is_file():
        raise BundleError(f"--bot {seat.bot}={value}: the folder has no bot.py")
    if not path.is_dir() and not (path.is_file() and path.suffix == ".py"):
        raise BundleError(
            f"--bot {seat.bot}={value}: no Python file (.py) or folder with bot.py there"
        )
    same = _same_code(path, seat.code_hash) if seat.code_hash else None
    return SeatBot(seat.seat, file_entry(seat.bot, path, seat.version), f"your copy {path}", same)


def _same_code(path: Path, recorded: str) -> bool:
    """Whether the copy at ``path`` is the code hashed as ``recorded``. A single file is
    also compared as ``bot.py``: ``arena host`` stores an uploaded ``.py`` under that name,
    and the participant's own copy keeps the name they gave it."""
    if code_hash(path) == recorded:
        return True
    return path.is_file() and code_hash(path, named="bot.py") == recorded


def _known(seat: BundleSeat, store: ResultsStore | None) -> SeatBot:
    name, at, version = seat.bot.partition("@")
    record = store.bot(name, int(version)) if store and at and version.isdigit() else None
    if record is not None and record["content_hash"] == seat.code_hash:
        from arena.tournament.bots import entry_for_record

        entry = entry_for_record(record, store.data_dir)  # type: ignore[union-attr]
        return SeatBot(seat.seat, entry, "registered here", True)
    plugin = seat.plugin if seat.kind == "plugin" else None
    if plugin is not None and plugin in all_bots():
        entry = BotEntry.for_plugin(get_bot(plugin), name=seat.bot)
        same = plugin_hash(plugin) == seat.code_hash if seat.code_hash else None
        return SeatBot(seat.seat, entry, "built in", same)
    why = (
        "the bot registered here under that name has other code"
        if record is not None
        else "it is neither built in nor registered here"
    )
    raise BundleError(
        f"seat {seat.seat} '{seat.bot}': {why}; give a local copy with "
        f"--bot {seat.bot}=PATH (its .py file or folder)"
    )


def check_installed(bundle: Bundle) -> list[str]:
    """Refuse (``BundleError``) a bundle this arena cannot deal; return warnings for what
    differs but may still play the same (another arena version or engine build)."""
    try:
        variant = get_variant(bundle.variant)
    except KeyError:
        raise BundleError(
            f"the match was played on variant '{bundle.variant}', which is not installed here"
        ) from None
    if variant.rules_version != bundle.rules:
        raise BundleError(
            f"the match was played under version {bundle.rules} of the rules of "
            f"'{bundle.variant}'; this arena plays version {variant.rules_version}"
        )
    if data_hash(bundle.variant) != bundle.data_hash:
        raise BundleError(
            f"the map data of '{bundle.variant}' here differs from the server's: install the "
            f"arena version {bundle.engine or '(unknown)'} that played it"
        )
    from arena import ENGINE_BUILD
    from arena.referee.referee import ENGINE_VERSION

    notes = []
    if bundle.engine and bundle.engine != ENGINE_VERSION:
        notes.append(f"the server ran arena {bundle.engine}, this is {ENGINE_VERSION}")
    if bundle.build and bundle.build != ENGINE_BUILD:
        notes.append(
            f"the server ran the {bundle.build} engine, this the {ENGINE_BUILD} one (both "
            "play identical games)"
        )
    return notes


def replay_bundle(
    bundle: Bundle,
    bots: Sequence[SeatBot],
    data_dir: Path,
    log_dir: Path,
    limits: ProcessLimits | None = None,
) -> MatchLog:
    """Play the bundle's game again with ``bots``, each its own process as the server ran
    them, and return the replay's match log."""
    variant = get_variant(bundle.variant)
    with ProcessMatch(
        variant,
        [bot.entry for bot in bots],
        bundle.time_control.time_control(),
        bot_limits(data_dir, limits),
        log_dir,
        bundle.key(),
        logs_relative_to=data_dir,
    ) as referee:
        return referee.play(bundle.game_seed, bundle.game_id).log


def _shown(action: str, by: str) -> str:
    return f"'{action}'" if by == "bot" else f"'{action}' (played for it: it had forfeited)"


def first_difference(bundle: Bundle, replayed: MatchLog) -> Difference | None:
    """The first decision of ``replayed`` that is not the bundle's (its seat, move, or
    whether the bot or the fallback made it); then a fault not as recorded."""
    moves, actions = bundle.moves, replayed.actions
    for n in range(1, max(len(moves), len(actions)) + 1):
        old = moves[n - 1] if n <= len(moves) else None
        new = actions[n - 1] if n <= len(actions) else None
        if old is not None and new is not None:
            if (old.seat, old.action, old.by) == (new["seat"], new["action"], new["by"]):
                continue
            return Difference(
                n,
                old.seat,
                _shown(old.action, old.by),
                _shown(new["action"], new["by"]),
                _turn(bundle, n, old.seat),
            )
        if old is not None:
            return Difference(n, old.seat, _shown(old.action, old.by), "nothing (it ended)", None)
        assert new is not None
        replayed_move = _shown(new["action"], new["by"])
        return Difference(n, new["seat"], "nothing (it ended)", replayed_move, None)
    recorded = {(f.seat, f.code, f.decision) for f in bundle.faults}
    again = {(f["seat"], f["code"], f["decision"]) for f in replayed.faults}
    for seat, code, decision in sorted(recorded ^ again, key=lambda f: (f[2], f[0])):
        was = f"a {code} fault" if (seat, code, decision) in recorded else "no such fault"
        now = f"a {code} fault" if (seat, code, decision) in again else "no such fault"
        return Difference(decision + 1, seat, was, now, None)
    return None


def _turn(bundle: Bundle, decision: int, seat: int) -> int | None:
    """The turn in ``seat``'s observation just before move ``decision`` of the record."""
    for n, state in enumerate(bundle.states(), start=1):
        if n == decision:
            return getattr(state.observation(seat), "turn", None)
    return None

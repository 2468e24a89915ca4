"""Submitting a bot: validate it in real games, then register it under a name and version.

Validation plays the bot exactly as a tournament will: the same command built
from the same registration (``bots.entry_for_record``), under the same sandbox
with the data folder protected (``bots.bot_limits``). So a bot that passes can
play, and one that cannot play does not pass. Nothing is registered, and no copy
of its code is kept, unless it passes.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
import shlex
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.tournament.bots import bot_limits, cannot_start, entry_for_record
from arena.tournament.forfeits import read_tail, reason
from arena.tournament.names import check_name
from arena.tournament.store import ResultsStore
from arena.variants import all_variants, get_variant
from bots import all_bots, get_bot
from bots.sdk import BotSpec, plays


class SubmissionRejected(RuntimeError):
    """The bot faulted in a validation game; ``log`` is where its output was kept,
    ``stderr`` the bot's own stderr file in it (when the game wrote one)."""

    def __init__(self, message: str, log: Path | None = None, stderr: Path | None = None):
        super().__init__(message)
        self.log = log
        self.stderr = stderr


# A board: a variant at a player count (a competition ranks each on a ladder of its own).
Board = tuple[str, int]
# What validation found on each board: None (passed) or why the bot failed it.
BoardOutcomes = dict[Board, SubmissionRejected | None]


@dataclass(frozen=True)
class Submission:
    name: str
    version: int
    kind: str
    target: str
    variants: tuple[str, ...]
    content_hash: str
    validation_games: int
    failed_boards: tuple[Board, ...] = ()  # boards validated and failed (the others passed)


# What a submitted folder may hold: the bot, its data and models, not a home folder.
MAX_FOLDER_BYTES = 256 * 2**20
MAX_FOLDER_FILES = 10_000


def _kind(path: Path) -> str | None:
    """What ``path`` is when it is not a plain file or a folder (``lstat``: never opened,
    never followed), else None."""
    mode = path.lstat().st_mode
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISFIFO: "a named pipe",
        stat.S_ISSOCK: "a socket",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
    }
    return next((kind for test, kind in kinds.items() if test(mode)), "not a plain file")


def _refuse_special(path: Path) -> None:
    """Refuse an entry that is not a plain file or a folder, before anything opens it:
    reading a named pipe blocks for ever, copying a device copies the device, and a
    symbolic link could lead out of the folder, even to ``/`` (the bot's sandbox reads
    only its own copy)."""
    kind = _kind(path)
    if kind is not None:
        raise ValueError(
            f"{path} is {kind}: a submitted bot is plain files and folders only "
            "(copy what it needs into its folder as plain files)"
        )


def _folder_files(root: Path) -> list[Path]:
    """The files of a submitted folder, checked before anything is read or copied: plain
    files and folders only (``_refuse_special``), within MAX_FOLDER_FILES and
    MAX_FOLDER_BYTES."""
    files: list[Path] = []
    size = 0
    for folder, subfolders, names in os.walk(root):  # never follows a link
        for name in sorted(subfolders + names):
            _refuse_special(Path(folder) / name)
        files += [Path(folder) / name for name in names]
        size += sum((Path(folder) / name).lstat().st_size for name in names)
        if len(files) > MAX_FOLDER_FILES or size > MAX_FOLDER_BYTES:
            raise ValueError(
                f"{root} holds more than {MAX_FOLDER_FILES:,} files or "
                f"{MAX_FOLDER_BYTES // 2**20} MiB: submit the bot's own folder (its bot.py and "
                "what it reads)"
            )
    return sorted(files)


def code_hash(root: Path, named: str | None = None) -> str:
    """The content hash a bot is registered with: its file's (or folder's files') names and
    bytes. A match bundle carries it, so a participant's local copy can be checked against
    what the server ran. ``named``: a single file's hash as if it had that name (the host
    stores an uploaded ``.py`` as ``bot.py``)."""
    digest = hashlib.sha256()
    files = [root] if root.is_file() else _folder_files(root)
    for path in files:
        name = str(path.relative_to(root.parent if root.is_file() else root))
        digest.update((named if named is not None and root.is_file() else name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def plugin_code_hash(spec: BotSpec) -> str:
    """The content hash of an installed plugin: the source file of its bot's class."""
    return code_hash(Path(inspect.getfile(type(spec.factory(0)))))


def _chosen_variants(
    variants: list[str] | None, claimed: list[str] | Callable[[str], bool]
) -> list[str]:
    """The variants to validate: those asked for, else what the bot claims (``claimed``: a
    list of names, or a plugin's ``supports``). ``*`` is every playable board variant and
    ``any`` every playable variant, the Card Game too, as in a plugin's ``BotSpec``: a bot
    that plays legal moves passes any game's validation, so '*' never enters a board bot in
    the Card Game."""
    playable = [v for v, variant in all_variants().items() if variant.playable]
    if variants and "any" in variants:
        return playable
    if variants and "*" in variants:
        return [v for v in playable if plays(("*",), v)]
    if variants:
        chosen = list(variants)
    elif callable(claimed):
        return [v for v in playable if claimed(v)]
    else:
        chosen = list(claimed)
    for name in chosen:
        variant = get_variant(name)  # KeyError: no such variant, with the installed ones
        if not variant.playable:
            raise ValueError(f"variant '{name}' cannot be played: {variant.status}")
    return chosen


def submit(
    store: ResultsStore,
    name: str,
    *,
    plugin: str | None = None,
    path: Path | None = None,
    command: str | None = None,
    variants: list[str] | None = None,
    games: int = 2,
    time_control: TimeControl | None = None,
    boards: list[Board] | None = None,
    checked: Callable[[BoardOutcomes], None] | None = None,
) -> Submission:
    """Validate and register a bot. Exactly one of ``plugin``, ``path``, ``command``.

    With ``boards`` (a competition's), validation plays each board (variant and player
    count) against the random bot in the other seats, and the bot is registered if it
    passes at least one: ``checked`` is told each board's outcome before anything is
    registered, and the variants registered are those of the boards it passed.

    Raises ``ValueError``/``KeyError`` for input that cannot be used (checked before
    anything is written) and ``SubmissionRejected`` when the bot faults in a game (with
    ``boards``: in a game of every board)."""
    if sum(x is not None for x in (plugin, path, command)) != 1:
        raise ValueError("give exactly one of --plugin, --file or --cmd")
    check_name(name)
    if name in all_bots():
        raise ValueError(f"'{name}' is an installed bot plugin's name: choose another name")
    if games < 1:
        raise ValueError("--games: at least 1 validation game")
    data_dir = store.data_dir
    copied: Path | None = None
    claimed: list[str] | Callable[[str], bool]
    if plugin is not None:
        spec = get_bot(plugin)
        kind, target = "plugin", plugin
        content_hash = plugin_code_hash(spec)
        claimed = spec.supports  # '*': every board variant, 'any': every variant
    elif path is not None:
        path = Path(path).resolve()
        if not path.exists():
            raise ValueError(f"no such file or folder: {path}")
        _refuse_special(path)
        if path.is_dir():
            _folder_files(path)  # every entry checked before any is looked into
        if path.is_dir() and not (path / "bot.py").is_file():
            raise ValueError(f"{path} has no bot.py: a folder bot starts from its bot.py")
        if path.is_file() and path.suffix != ".py":
            raise ValueError(f"{path} is not a Python file (.py); for other programs use --cmd")
        content_hash = code_hash(path)
        # Kept relative to the data folder, so the folder can be moved as a whole.
        target = str(Path("bots") / name / content_hash[:16] / path.name)
        stored = data_dir / target
        kind, claimed = "file", ["usa"]
    else:
        words = shlex.split(command or "")
        if not words:
            raise ValueError("--cmd: an empty command line")
        assert command is not None  # neither plugin nor path: a command
        digest = hashlib.sha256(command.encode())
        for word in words:
            if Path(word).is_file():
                digest.update(Path(word).read_bytes())
        kind, target, content_hash, claimed = "command", command, digest.hexdigest(), ["usa"]
    newest = store.bot(name)
    record = {"name": name, "version": newest["version"] + 1 if newest else 1}
    try:
        if kind == "file" and path is not None and not stored.exists():
            copied = stored.parent
            stored.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, stored)
        entry = entry_for_record(record | {"kind": kind, "target": target}, data_dir)
        if problem := cannot_start(entry):
            raise ValueError(f"the bot cannot be started: {problem}")
        failed: tuple[Board, ...] = ()
        if boards is not None:
            _chosen_variants(sorted({v for v, _ in boards}), claimed)  # each one playable
            outcomes = _validate_boards(store, name, entry, boards, games, time_control)
            if checked is not None:
                checked(outcomes)
            passed = [board for board, why in outcomes.items() if why is None]
            if not passed:
                raise next(why for why in outcomes.values() if why is not None)
            chosen = sorted({variant for variant, _ in passed})
            failed = tuple(board for board, why in outcomes.items() if why is not None)
            played = games * len(boards)
        else:
            chosen = _chosen_variants(variants, claimed)
            played = _validate(store, name, entry, chosen, games, time_control)
    except BaseException:
        if copied is not None:  # nothing half-written: the copy goes with the rejection
            shutil.rmtree(copied, ignore_errors=True)
            _remove_empty(copied.parent)  # bots/NAME
            _remove_empty(copied.parent.parent)  # bots/
        raise
    version = store.register_bot(name, kind, target, list(chosen), content_hash)
    where = str(stored.resolve()) if kind == "file" else target
    return Submission(name, version, kind, where, tuple(chosen), content_hash, played, failed)


def _validate(store, name, entry, chosen, games, time_control) -> int:
    """Play ``games`` games per variant against the random bot; the first fault rejects."""
    tc = time_control or TimeControl(move_ms=2000, bank_ms=20000)
    limits = bot_limits(store.data_dir)
    log_dir = store.data_dir / "submissions" / name
    opponent = BotEntry.for_plugin(get_bot("random"))
    played = 0
    for variant_name in chosen:
        variant = get_variant(variant_name)
        with ProcessMatch(
            variant, [entry, opponent], tc, limits, log_dir, logs_relative_to=store.data_dir
        ) as referee:
            for game in range(games):
                outcome = referee.play(seed=game)
                played += 1
                for fault in outcome.faults:
                    if fault.seat == 0:
                        raise _rejection(store.data_dir, name, variant_name, game, fault, outcome)
    return played


def _validate_boards(store, name, entry, boards, games, time_control) -> BoardOutcomes:
    """Play ``games`` games of each board with the bot in one seat (turning with each game)
    and the random bot in the others; a board's first fault of the bot fails that board."""
    tc = time_control or TimeControl(move_ms=2000, bank_ms=20000)
    limits = bot_limits(store.data_dir)
    log_dir = store.data_dir / "submissions" / name
    opponent = BotEntry.for_plugin(get_bot("random"))
    outcomes: BoardOutcomes = {}
    for variant_name, players in boards:
        variant = get_variant(variant_name)
        outcomes[variant_name, players] = None
        for game in range(games):
            seat = game % players
            entries = [opponent] * players
            entries[seat] = entry
            with ProcessMatch(
                variant, entries, tc, limits, log_dir, logs_relative_to=store.data_dir
            ) as referee:
                outcome = referee.play(seed=game)
            fault = next((f for f in outcome.faults if f.seat == seat), None)
            if fault is not None:
                where = f"{variant_name} with {players} players"
                outcomes[variant_name, players] = _rejection(
                    store.data_dir, name, where, game, fault, outcome, seat
                )
                break
    return outcomes


def _rejection(
    data_dir: Path, name, variant_name, game, fault, outcome, seat: int = 0
) -> SubmissionRejected:
    """Why the bot was rejected, in one line naming its stderr log (``log``: that game's
    log folder)."""
    stderr = outcome.log.header["seats"][seat].get("stderr")
    path = data_dir / stderr if stderr else None
    why = reason(fault.code, fault.detail, read_tail(path))
    where = f"; its stderr: {path}" if path else ""
    return SubmissionRejected(
        f"'{name}' forfeited a validation game of {variant_name} (seed {game}): {why}{where}",
        log=path.parent if path else data_dir / "submissions" / name,
        stderr=path,
    )


def _remove_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty: other versions of the bot stay

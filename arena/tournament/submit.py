"""Submitting a bot: validate it in real games, then register it under a name and version."""

from __future__ import annotations

import hashlib
import inspect
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.referee.faults import TimeControl
from arena.referee.launch import PYTHON, BotEntry, ProcessMatch
from arena.referee.process import ProcessLimits
from arena.tournament.store import ResultsStore
from arena.variants import all_variants, get_variant
from bots import get_bot


class SubmissionRejected(RuntimeError):
    """The bot faulted in a validation game; ``log`` is where its output was kept."""

    def __init__(self, message: str, log: Path | None = None) -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Submission:
    name: str
    version: int
    kind: str
    target: str
    variants: tuple[str, ...]
    content_hash: str
    validation_games: int


def _hash_files(root: Path) -> str:
    digest = hashlib.sha256()
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        digest.update(str(path.relative_to(root.parent if root.is_file() else root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


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
) -> Submission:
    """Validate and register a bot. Exactly one of ``plugin``, ``path``, ``command``."""
    if sum(x is not None for x in (plugin, path, command)) != 1:
        raise ValueError("give exactly one of a plugin name, a file or folder, or a command line")
    if not name or "@" in name or name.startswith("cmd:"):
        raise ValueError("a bot name may not be empty, contain '@' or start with 'cmd:'")
    data_dir = store.data_dir
    if plugin is not None:
        spec = get_bot(plugin)
        kind, target = "plugin", plugin
        source = Path(inspect.getfile(type(spec.factory(0))))
        content_hash = _hash_files(source)
        claimed = list(spec.variants)
        entry = BotEntry.for_plugin(spec, name=name)
    elif path is not None:
        path = Path(path).resolve()
        if not path.exists():
            raise ValueError(f"no such file or folder: {path}")
        content_hash = _hash_files(path)
        stored = data_dir / "bots" / name / content_hash[:16] / path.name
        if not stored.exists():
            stored.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, stored)
        kind, target = "file", str(stored)
        claimed = ["usa"]
        entry = BotEntry(name, (PYTHON, "-P", "-m", "bots.filebot", target))
    else:
        words = shlex.split(command or "")
        if not words:
            raise ValueError("an empty command line")
        digest = hashlib.sha256(command.encode())
        for word in words:
            if Path(word).is_file():
                digest.update(Path(word).read_bytes())
        kind, target, content_hash = "command", command, digest.hexdigest()
        claimed = ["usa"]
        entry = BotEntry(name, tuple(words))
    chosen = variants or claimed
    if "*" in chosen:
        chosen = [v for v, variant in all_variants().items() if variant.playable]
    tc = time_control or TimeControl(move_ms=2000, bank_ms=20000)
    played = 0
    for variant_name in chosen:
        variant = get_variant(variant_name)
        if not variant.playable:
            raise ValueError(f"variant '{variant_name}' cannot be played: {variant.status}")
        log_dir = data_dir / "submissions" / name
        random_bot = BotEntry.parse("random")
        with ProcessMatch(variant, [entry, random_bot], tc, ProcessLimits(), log_dir) as referee:
            for game in range(games):
                outcome = referee.play(seed=game)
                played += 1
                for fault in outcome.faults:
                    if fault.seat == 0:
                        raise SubmissionRejected(
                            f"'{name}' faulted in a validation game of {variant_name} "
                            f"(seed {game}): {fault.code}: {fault.detail}",
                            log=log_dir,
                        )
    version = store.register_bot(name, kind, target, list(chosen), content_hash)
    return Submission(name, version, kind, target, tuple(chosen), content_hash, played)

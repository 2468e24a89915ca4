"""Finding what a data folder holds, without creating anything: its results store (opened
read-only unless asked) and the record of a bot registered with ``arena submit``.

The public door for callers outside the commands (the learning environments find their
opponents here; docs/ARCHITECTURE.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.tournament.names import split_ref
from arena.tournament.store import ResultsStore, StoreCutShort, replacement_traces


def existing_store(data_dir: Path, write: bool = False) -> ResultsStore | None:
    """The store in ``data_dir`` if there is one; reading commands never create one and
    open it read-only (an archived copy in a read-only folder reads as well)."""
    if not (Path(data_dir) / "results.sqlite").is_file():
        traces = replacement_traces(Path(data_dir))
        if traces is not None:  # the results are there, under another name
            raise StoreCutShort(traces)
        return None
    return ResultsStore(data_dir, read_only=not write)


def registered_bot(ref: str, data_dir: Path) -> dict[str, Any] | None:
    """The record of the bot registered as ``ref`` (``name`` or ``name@N``) in ``data_dir``,
    or None when no such name is registered there (an installed bot may have it). A
    version that is not registered raises ``KeyError``; text that is not a bot's name,
    ``BadName``."""
    name, version = split_ref(ref)
    store = existing_store(data_dir)
    record = None
    if store is not None:
        try:
            record = store.bot(name, version)
        finally:
            store.close()
    if record is None and version is not None:
        raise KeyError(f"no registered bot '{name}' version {version} in {data_dir}")
    return record

"""What a forfeit's owner is told of it: the end of the seat's stderr, and the reason in one
line. Its own module, so that the host's fault watch (``ladderfaults.py``) and the pages
both use it without the host importing the pages."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from arena.tournament.forfeits import read_tail, reason

if TYPE_CHECKING:
    from arena.server.host import Host


def _log(host: Host, match_id: int) -> list[dict[str, Any]]:
    lines = []
    for raw in host.store.match_log(match_id).splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue
    return lines


def seat_stderr(host: Host, match_id: int, seat: int) -> str:
    """The end of one seat's stderr log in a match ('' if none): for its owner's eyes only."""
    header = next((line for line in _log(host, match_id) if line.get("type") == "header"), {})
    seats = header.get("seats", [])
    path = seats[seat].get("stderr") if seat < len(seats) else None
    file = (host.data_dir / path).resolve() if path else None
    inside = file is not None and host.data_dir.resolve() in file.parents  # never elsewhere
    return read_tail(file) if inside else ""


def fault_reason(host: Host, match_id: int, seat: int, code: str, detail: str | None) -> str:
    """A forfeit in one line for its owner: the code and the error its stderr names (a
    crash's exception line), else the referee's words."""
    stderr = seat_stderr(host, match_id, seat) if code in ("crash", "no-show") else ""
    return reason(code, detail or "", stderr)

"""Bots' stdout and stderr logs on the site: why a bot forfeited, one click away.

A match log's header names each seat's log files relative to the data folder
(``"stderr": "bot-logs/T/20250101-120000-ab12cd/seat1-x.stderr"``). For every
forfeit the site copies that seat's logs (their last ``CAP`` bytes: the end is
where the error is) to ``logs/`` beside the pages, as ``.txt``, and the match page links
them together with the match log itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.tournament.forfeits import reason

CAP = 64 * 1024
STREAMS = ("stderr", "stdout")


def copy_capped(source: Path, target: Path, cap: int = CAP) -> bool:
    """Copy the last ``cap`` bytes of ``source`` to ``target``; False if there is no source."""
    try:
        with open(source, "rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - cap))
            data = file.read()
    except OSError:
        return False
    if size > cap:
        data = f"[ttr-arena: the first {size - cap} bytes are left out]\n".encode() + data
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


def forfeit_links(
    header: dict[str, Any], faults: list[dict[str, Any]], data_dir: Path, site: Path
) -> list[dict[str, Any]]:
    """Per forfeit: seat, bot, code, the one-line reason, and site-relative links to the
    seat's copied logs (``None`` where a log is no longer kept). Copies the logs."""
    links = []
    for fault in faults:
        seat = header["seats"][fault["seat"]]
        entry = {"seat": fault["seat"], "bot": seat.get("bot", "?"), "code": fault["code"]}
        stderr_text = ""
        for stream in STREAMS:
            name = seat.get(stream)
            entry[stream] = None
            if not name or Path(name).is_absolute() or ".." in Path(name).parts:
                continue  # only logs inside the data folder are published
            copy = site / "logs" / f"{name}.txt"  # .txt: a browser shows it, even offline
            if copy_capped(data_dir / name, copy):
                entry[stream] = f"logs/{name}.txt"
                if stream == "stderr":
                    stderr_text = copy.read_text("utf-8", "replace")
        entry["reason"] = reason(fault["code"], fault.get("detail", ""), stderr_text)
        links.append(entry)
    return links

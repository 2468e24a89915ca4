"""``arena serve`` (the live site, and a seat for a person) and ``arena view`` (one match log
in the browser)."""

from __future__ import annotations

import signal
import tempfile
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

DATA_DIR = Path("arena-data")


def open_server(data_dir: Path, port: int, max_replays: int | None = None):
    """The web application's local mode on 127.0.0.1:``port`` (the live site and the play
    pages; ``arena.server.serving.LocalServer``), or a one-line error (exit 2)."""
    from arena.commands.common import fail
    from arena.server.serving import LocalServer

    if not 0 <= port <= 65535:
        raise fail("--port is 0 to 65535")
    try:
        return LocalServer(data_dir, port, max_replays)
    except OSError as error:
        raise fail(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}; "
            "choose another --port (0 picks a free one)"
        ) from None


def serve(
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free port)")] = 8765,
    data_dir: Annotated[Path, typer.Option(help="where the results store lives")] = DATA_DIR,
    max_replays: Annotated[
        int | None, typer.Option(help="replay pages for only the newest N matches per variant")
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="open the site in the browser")
    ] = False,
) -> None:
    """Serve the site on localhost, live as matches land; /play seats you against bots."""
    from arena.commands.common import console

    server = open_server(data_dir, port, max_replays)
    # uvicorn stops on SIGTERM and SIGINT, then raises them again: here, after its stop.
    signal.signal(signal.SIGTERM, lambda *_: setattr(server.server, "should_exit", True))
    print(f"serving {data_dir} at {server.url} (Ctrl-C stops)", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    console.print("stopped")


def view(
    log: Annotated[Path, typer.Argument(help="a JSON-lines match log (or a text game log)")],
    out: Annotated[
        Path | None, typer.Option(help="write the page here (default: a temporary file)")
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="open the page in the browser")
    ] = True,
    data_dir: Annotated[
        Path, typer.Option(help="the data folder the log's bot-log paths are relative to")
    ] = DATA_DIR,
) -> None:
    """Open any match log in the replay viewer: one self-contained HTML page."""
    from arena.commands.common import console, fail
    from arena.referee.gamelog import GameLog, LogError
    from arena.referee.matchlog import MatchLog
    from leaderboards.site import standalone_replay

    try:
        data = log.read_bytes()
        if data.lstrip().startswith(b"{"):
            match = MatchLog.from_jsonl(data)
        else:
            match = GameLog.from_text(data.decode()).to_match_log()
        page = standalone_replay(
            match, f"{log.name}", download=log.resolve().as_uri(), base=data_dir
        )
    except IsADirectoryError:
        raise fail(f"{log} is a folder: give a match log file") from None
    except OSError as error:
        raise fail(f"cannot read {log}: {error.strerror or error}") from None
    except (LogError, UnicodeDecodeError) as error:
        raise fail(f"{log} is not a match log that replays: {error}") from None
    if out is None:
        folder = Path(tempfile.gettempdir()) / "ttr-arena-view"
        folder.mkdir(exist_ok=True)
        out = folder / f"{log.stem}.html"
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as error:
        raise fail(f"cannot write {out}: {error.strerror or error}") from None
    console.print(f"replay written: {out.resolve()}", soft_wrap=True)
    if open_browser:
        webbrowser.open(out.resolve().as_uri())

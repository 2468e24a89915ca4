"""``arena play --human``: take a seat yourself, in the browser, against bots."""

from __future__ import annotations

import signal
import sys
import threading
import webbrowser
from pathlib import Path

from arena.engine.variant import Variant
from arena.referee.keys import MatchKey

DATA_DIR = Path("arena-data")


# How often the main thread wakes while it waits: Ctrl-C is a signal to the whole process,
# which the kernel may hand to any of its threads (the server's, the bots' bridges); Python
# acts on it only when the main thread runs again, and an untimed wait never returns.
WAKE_S = 0.25


def wait_interruptibly(event: threading.Event) -> None:
    """Wait for ``event``; a Ctrl-C raises KeyboardInterrupt within ``WAKE_S``."""
    while not event.wait(WAKE_S):
        pass


def stop_serving(*_: object) -> None:
    """SIGTERM once the game is stored: stop serving as Ctrl-C does (exit 0)."""
    raise KeyboardInterrupt


def play_as_person(
    variant: Variant,
    bots: list[str],
    seed: int,
    seat: int,
    port: int,
    open_browser: bool,
    match_log: Path | None,
    key: MatchKey | None = None,
) -> None:
    """Serve the play page, wait until the game is over, print and store its result; then
    keep serving (the page's replay link, the leaderboards) until Ctrl-C."""
    from arena.commands.common import RUNTIME, console, fail
    from arena.commands.report import print_faults, result_table
    from arena.commands.serve import open_server

    server = open_server(DATA_DIR, port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        try:
            game = server.new_game(variant.name, bots, seat, seed, key=key)
        except (ValueError, KeyError) as error:
            raise fail(str(error.args[0] if error.args else error)) from None
        url = f"{server.url}play/{game.game_id}"
        interrupted = False
        try:  # from the line that shows the page on, Ctrl-C resigns the person's game
            print(f"play in your browser: {url}", flush=True)
            if open_browser:
                webbrowser.open(url)
            wait_interruptibly(game.done)
        except KeyboardInterrupt:
            interrupted = True
            if game.bridge is not None:
                game.bridge.resign()
            game.done.wait(60)
        if game.error or game.outcome is None:
            raise fail(f"the game failed: {game.error}", RUNTIME)
        outcome = game.outcome
        names = [entry.name for entry in game.entries]
        title = f"{variant.title} — seed {seed}"
        labels = variant.score_labels
        console.print(result_table(outcome.result, names, title, outcome.ranks, labels=labels))
        print_faults(outcome, names, DATA_DIR)
        if match_log:
            match_log.write_bytes(outcome.log.to_jsonl())
            console.print(f"match log written to {match_log}")
        console.print(f"stored as match {game.match_id} in {DATA_DIR}", soft_wrap=True)
        if not interrupted and game.match_id is not None:
            keep_serving(f"{server.url}matches/{game.match_id}.html")
    finally:
        server.shutdown()
        server.close()


def keep_serving(replay: str) -> None:
    """The game is over and stored: the page's replay link (and the leaderboards) answer
    until the person stops this with Ctrl-C."""
    from arena.commands.common import console

    signal.signal(signal.SIGTERM, stop_serving)
    console.print(f"watch the replay: {replay}", soft_wrap=True)
    console.print("still serving the replay and the leaderboards: press Ctrl-C to stop serving")
    sys.stdout.flush()
    try:
        wait_interruptibly(threading.Event())
    except KeyboardInterrupt:
        console.print("stopped")

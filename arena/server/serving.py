"""Serving the application with uvicorn, in either mode: the listening socket (bound
first, so a busy port is one line before anything starts), uvicorn's settings, and the
local mode's server object (``LocalServer``: ``arena serve`` in the foreground,
``arena play --human`` in a thread)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn

from arena.referee.process import ProcessLimits
from arena.server.connections import PER_ADDRESS, guarded_protocol
from arena.server.local import LocalSite


def listen(bind: str, port: int, family: int = socket.AF_INET) -> socket.socket:
    """A listening socket on ``bind``:``port`` (0: any free port); OSError if it is taken."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bind, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    return sock


PROXIES = "127.0.0.1,::1"  # where a reverse proxy in front of ``arena host`` may be


# The local mode's one address (the person's browser and scripts): more at once, such as
# many play pages' long polls.
LOCAL_PER_ADDRESS = 64


def uvicorn_config(
    app: Any, behind_proxy: bool = False, per_address: int = PER_ADDRESS
) -> uvicorn.Config:
    """uvicorn's settings for both modes: quiet, bounded (connections, and per address;
    header sizes; the time a request head may take; idle keep-alive), a short graceful
    stop."""
    proxies = frozenset(PROXIES.split(",")) if behind_proxy else frozenset()
    return uvicorn.Config(
        app,
        # Request heads in time and in size, connections per address (httptools's parser:
        # arena.server.connections); uvloop's event loop where it is installed.
        http=guarded_protocol(per_address=per_address, uncapped=proxies),
        loop="auto",
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,
        limit_concurrency=256,
        server_header=False,
        proxy_headers=behind_proxy,  # X-Forwarded-For only from the proxy on loopback
        forwarded_allow_ips=PROXIES,
    )


class Server(uvicorn.Server):
    """uvicorn's server, telling the application first when it stops (``on_stop``): live
    event streams end and long polls wake, instead of holding the stop up."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_stop = on_stop

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stop()
        await super().shutdown(sockets)


class LocalServer:
    """The local mode on 127.0.0.1:``port`` (0: any free port): the live site and the play
    pages of one data folder. ``OSError`` at once if the port is taken."""

    def __init__(
        self,
        data_dir: Path,
        port: int = 8765,
        max_replays: int | None = None,
        limits: ProcessLimits | None = None,
    ) -> None:
        from arena.server.app import create_local_app

        self.sock = listen("127.0.0.1", port)
        try:
            self.local = LocalSite(data_dir, max_replays, limits)
        except BaseException:
            self.sock.close()
            raise
        self.port = self.sock.getsockname()[1]
        self.app = create_local_app(self.local)
        config = uvicorn_config(self.app, per_address=LOCAL_PER_ADDRESS)
        self.server = Server(config, self.local.stop)
        self.finished = threading.Event()
        self.running = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def data_dir(self) -> Path:
        return self.local.data_dir

    @property
    def token(self) -> str:
        return self.local.token

    def new_game(self, *args: Any, **kwargs: Any) -> Any:
        return self.local.new_game(*args, **kwargs)

    def serve_forever(self) -> None:
        """Serve until ``shutdown`` (or, in the main thread, SIGINT or SIGTERM)."""
        self.running = True
        try:
            self.server.run(sockets=[self.sock])
        finally:
            self.finished.set()

    def shutdown(self) -> None:
        """Stop serving (from another thread) and wait until it has stopped."""
        self.server.should_exit = True
        if self.running:
            self.finished.wait(30)

    def close(self) -> None:
        """Every running person's game is resigned and waited for (the bots finish it and
        are reaped); the socket is closed."""
        self.local.close()
        self.sock.close()

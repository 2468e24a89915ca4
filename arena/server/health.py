"""Is the competition alive, and is it doing its work: ``/healthz`` and ``/readyz`` (JSON, for a
load balancer, systemd's watchdog scripts or a container's health check), and the worker's
and disk's state that ``/admin`` shows.

``/healthz`` answers 200 while the web process serves. ``/readyz`` answers 200 only while
the stores open, the worker runs, the disk is not full and every board's ladder is held
by a live driver (or waits for players: fewer participants have a bot that plays than a
table seats); else 503 with the reasons, one line each. Neither says anything private:
anyone may ask.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.server.diskspace import Space, space
from arena.server.host import Host, host_of, log
from arena.server.supervisor import WorkerState


def _when(seconds: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds)) if seconds else ""


@dataclass(frozen=True)
class Status:
    """The worker and the disk, as the admin page shows them."""

    worker: WorkerState | None
    disk: Space

    def worker_lines(self) -> list[str]:
        state = self.worker
        if state is None:
            return ["no worker is supervised by this process"]
        lines = []
        if state.alive:
            lines.append(f"running (pid {state.pid}, since {_when(state.started)})")
        else:
            lines.append(f"not running: the next one starts at {_when(state.next_start)}")
        lines.append(f"{state.deaths} deaths, {state.restarts} restarts since the server started")
        if state.last_death is not None:
            death = state.last_death
            lines.append(
                f"last death: {death.how} at {_when(death.when)}, after {death.uptime:.0f} s up"
            )
        if state.failing:
            lines.append(
                "it keeps dying: it is retried every minute; read server.log for its errors"
            )
        return lines


def status(host: Host) -> Status:
    worker = host.worker.state() if host.worker is not None else None
    return Status(worker, space(host.data_dir))


def unready(host: Host) -> list[str]:
    """Why the competition is not doing its work now, one line a reason; empty: ready."""
    reasons = []
    try:
        host.accounts.pending()
        leases = host.store.leases()
        playing = host.accounts.sides()  # a team counts once: its bots never meet
    except Exception:
        log.exception("/readyz: a store cannot be read")
        return ["a store cannot be read (server.log says why)"]
    now = status(host)
    if now.worker is None or not now.worker.alive:
        reasons.append("the worker is not running")
    if now.disk.full:
        reasons.append("the disk holding the data folder is full: the worker is paused")
    if not host.deadline.closed():
        participants = len(set(playing.values()))
        for variant, players in host.competition.boards:
            holder = leases.get(host.competition.ladder_name(variant, players))
            if participants < players:
                continue  # waiting for players: nothing to run yet
            if holder is None or holder.is_gone():
                reasons.append(f"the ladder of {variant} {players}p is not running")
    return reasons


def healthz(request: Request) -> Response:
    return JSONResponse({"alive": True})


def readyz(request: Request) -> Response:
    host = host_of(request)
    reasons = unready(host)
    body: dict[str, Any] = {"ready": not reasons, "reasons": reasons}
    return JSONResponse(body, status_code=503 if reasons else 200)

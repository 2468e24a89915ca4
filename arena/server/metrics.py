"""The competition's Prometheus metrics (``/metrics``, prometheus-client's text format).

The worker is another process: what it does is read where it leaves it, at each scrape
(the results store for matches and faults, ``accounts.sqlite`` for the validation
queue, the supervisor in this process for its deaths and restarts, the file system for
the disk), so no number is lost when the worker dies and no second port is opened.
The request latencies are this process's own (``RequestTimer``, a middleware).

Who may read it: loopback only, and only a request that no proxy forwarded (no
``X-Forwarded-For``, ``Forwarded`` nor ``X-Real-IP``; with ``--behind-proxy`` the
client is the forwarded one anyway), so a scraper on the host machine (or through an
SSH tunnel) reads it and nobody through the site's address does.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.server.diskspace import space
from arena.server.host import Host, host_of

RATE_MINUTES = 5  # matches per minute: the mean over this many minutes
FORWARDING = (b"x-forwarded-for", b"forwarded", b"x-real-ip")
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class CompetitionCollector(Collector):
    """What the stores, the supervisor and the disk say now, read at each scrape."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def collect(self) -> Iterator[Metric]:
        host = self.host
        stored = CounterMetricFamily(
            "arena_matches_stored", "Matches stored, per board", labels=["board"]
        )
        faults = CounterMetricFamily(
            "arena_faults", "Seats faulted in stored matches, per board and code",
            labels=["board", "code"],
        )  # fmt: skip
        rate = GaugeMetricFamily(
            "arena_matches_per_minute",
            f"Matches stored per minute, the mean of the last {RATE_MINUTES} minutes",
            labels=["board"],
        )
        since = time.time() - RATE_MINUTES * 60
        for variant, players in host.competition.boards:
            board = f"{variant}-{players}p"
            for name, labels in (
                (host.competition.ladder_name(variant, players), [board]),
                (host.competition.final_name(variant, players), [f"final-{board}"]),
            ):
                count, codes = host.store.tally(name)
                stored.add_metric(labels, count)
                for code, seats in sorted(codes.items()):
                    faults.add_metric([*labels, code], seats)
                rate.add_metric(labels, host.store.stored_since(name, since) / RATE_MINUTES)
        yield from (stored, faults, rate)
        yield GaugeMetricFamily(
            "arena_validation_queue",
            "Submissions waiting for validation (or being validated)",
            value=len(host.accounts.pending()),
        )
        yield from self.worker()
        disk = space(host.data_dir)
        for name, value, text in (
            ("free", disk.free, "Bytes free on the data folder's disk"),
            ("used", disk.used, "Bytes used on the data folder's disk"),
            ("total", disk.total, "Size of the data folder's disk in bytes"),
            ("reserve", disk.reserve, "Free bytes below which the disk counts as full"),
        ):
            yield GaugeMetricFamily(f"arena_disk_{name}_bytes", text, value=value)
        yield GaugeMetricFamily(
            "arena_disk_full", "1 while the disk counts as full (uploads refused, worker paused)",
            value=int(disk.full),
        )  # fmt: skip

    def worker(self) -> Iterator[Metric]:
        state = self.host.worker.state() if self.host.worker is not None else None
        yield GaugeMetricFamily(
            "arena_worker_up", "1 while the worker process runs",
            value=int(state is not None and state.alive),
        )  # fmt: skip
        yield CounterMetricFamily(
            "arena_worker_restarts", "Worker processes started again after a death",
            value=state.restarts if state else 0,
        )  # fmt: skip
        yield CounterMetricFamily(
            "arena_worker_deaths", "Worker processes that died (not asked to stop)",
            value=state.deaths if state else 0,
        )  # fmt: skip


class Metrics:
    """One application's registry: the competition's numbers and the request latencies."""

    def __init__(self, host: Host) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(CompetitionCollector(host))
        self.latency = Histogram(
            "arena_request_seconds",
            "Time to answer a request, per route and method",
            labelnames=["route", "method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def text(self) -> bytes:
        return generate_latest(self.registry)


class RequestTimer:
    """Times each request, labelled with its route's pattern (``/boards/{variant}/...``:
    never the path itself, so the labels stay few) or ``unmatched``."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            method = scope["method"] if scope["method"] in ("GET", "HEAD", "POST") else "other"
            self.metrics.latency.labels(route, method).observe(time.perf_counter() - started)


def from_this_machine(scope: Scope) -> bool:
    """A request from loopback that no proxy forwarded."""
    headers = {key for key, _ in scope.get("headers", [])}
    if headers & set(FORWARDING):
        return False
    client = scope.get("client")
    try:
        return client is not None and ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


def metrics(request: Request) -> Response:
    if not from_this_machine(request.scope):
        return PlainTextResponse(
            "refused: /metrics is read from the host machine only (loopback)", status_code=403
        )
    host = host_of(request)
    assert host.metrics is not None  # made with the application
    return Response(host.metrics.text(), media_type=CONTENT_TYPE_LATEST)

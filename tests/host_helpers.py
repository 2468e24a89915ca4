"""A real ``arena host`` for the tests: a process on a free loopback port, its data folder
in a temporary folder, and visitors that talk to it over HTTP as a browser does."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ARENA = Path(sys.executable).with_name("arena")
PYTHON_BOT = Path(__file__).resolve().parents[1] / "examples" / "python-bot"
START_SECONDS = 120.0

COMPETITION = """
name = "test-cup"
title = "Test cup"
seed = 3
[[ranked]]
variant = "usa"
players = [2]
[time_control]
move_ms = 2000
bank_ms = 20000
[limits]
upload_bytes = 200_000
unpacked_bytes = 1_000_000
files = 20
ratio = 50
submissions_per_day = 6
active_bots = 2
validation_games = 1
signups_per_address = 200
[registration]
mode = "open"
[visibility]
replays = "public"
[final]
deadline = {deadline}
top = 4
games = 1
"""


def competition_text(deadline: str = "2030-01-01T00:00:00Z", **replace: str) -> str:
    text = COMPETITION.format(deadline=deadline)
    for key, value in replace.items():
        text = re.sub(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
    return text


class HostProcess:
    """``arena host`` started as an organiser would (``--port 0``), stopped by its pid."""

    def __init__(
        self,
        folder: Path,
        text: str | None = None,
        env: dict[str, str] | None = None,
        options: tuple[str, ...] = (),
        cwd: Path | None = None,
    ) -> None:
        self.folder = folder
        self.options = options  # more of arena host's options (--workers N)
        self.cwd = cwd  # the organiser's current folder (None: the tests')
        self.data = folder / "data"
        self.file = folder / "competition.toml"
        if text is not None or not self.file.exists():
            self.file.write_text(text or competition_text())
        self.env = {**os.environ, "ARENA_HOST_BODY_SECONDS": "3", **(env or {})}
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.port = 0  # after the first start, a restart listens where it did

    def start(self) -> HostProcess:
        log = (self.folder / "host-stderr.txt").open("ab")
        self.process = subprocess.Popen(
            [ARENA, "host", str(self.file), "--data-dir", str(self.data), "--port", str(self.port),
             *self.options],
            stdout=subprocess.PIPE, stderr=log, env=self.env, start_new_session=True, cwd=self.cwd,
        )  # fmt: skip
        assert self.process.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + START_SECONDS
        line = b""
        while b"\n" not in line and time.monotonic() < deadline:
            if selector.select(timeout=1):
                chunk = os.read(self.process.stdout.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
        found = re.search(rb"http://127\.0\.0\.1:\d+/", line)
        if found is None:
            self.stop()
            raise RuntimeError(f"arena host did not start: {line!r}; {self.stderr()}")
        self.url = found.group().decode()
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
        return self

    def stderr(self) -> str:
        path = self.folder / "host-stderr.txt"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process = None

    def kill(self) -> None:
        """``kill -9`` of the server; its worker and bots die with it (PDEATHSIG)."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        self.process = None

    def visitor(self, source: str | None = None) -> Visitor:
        return Visitor(self.url, source)

    def arena(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [ARENA, *args], capture_output=True, text=True, input=stdin, timeout=600, env=self.env
        )

    def admin(self, name: str = "root", password: str = "admin password 1") -> Visitor:
        done = self.arena(
            "admin", "create", name, "--data-dir", str(self.data), "--password-stdin",
            stdin=password + "\n",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        visitor = self.visitor()
        assert visitor.signin(name, password).status_code == 303
        return visitor


CSRF = re.compile(r'name="csrf" value="([^"]+)"')


# A connection left idle is not used again after 2 s: the server closes one idle for 5 s
# (uvicorn's keep-alive), and httpx's own 5 s made a race: a request sent on a connection
# the server was closing at that moment met a reset (a browser would send it again).
IDLE = httpx.Limits(keepalive_expiry=2.0)


class Visitor:
    """One browser: its own cookies, the CSRF token of the pages it was shown."""

    def __init__(self, url: str, source: str | None = None) -> None:
        """``source``: the loopback address it connects from (127.0.0.2: another machine)."""
        transport = httpx.HTTPTransport(local_address=source) if source else None
        self.client = httpx.Client(
            base_url=url, follow_redirects=False, timeout=60, transport=transport, limits=IDLE
        )
        self.name = ""

    def get(self, path: str, **options: Any) -> httpx.Response:
        return self.client.get(path, **options)

    def token_from(self, path: str) -> str:
        found = CSRF.search(self.get(path).text)
        assert found, f"no form on {path}"
        return found.group(1)

    def post(self, path: str, data: dict | None = None, *, page: str = "/me", **options: Any):
        """A form as the browser sends it: with the CSRF token of ``page``."""
        fields = {"csrf": self.token_from(page), **(data or {})}
        return self.client.post(path, data=fields, **options)

    def signup(self, name: str, password: str = "correct horse battery") -> httpx.Response:
        self.name = name
        return self.post("/signup", {"name": name, "password": password}, page="/signup")

    def signin(self, name: str, password: str = "correct horse battery") -> httpx.Response:
        self.name = name
        return self.post("/signin", {"name": name, "password": password}, page="/signin")

    def upload(self, bot: str, filename: str, data: bytes) -> httpx.Response:
        return self.post("/upload", {"bot": bot}, files={"file": (filename, data)})

    def token(self, scopes: tuple[str, ...] = ("submit", "read")) -> str:
        """A new API token with ``scopes`` (the boxes ticked on the page), from ``/me``."""
        page = self.post("/me/tokens", {"label": "cli", "scope": list(scopes)}).text
        found = re.search(r'id="new-token">([^<]+)<', page)
        assert found, page
        return found.group(1)

    def wait_for(self, path: str, pattern: str, seconds: float = 300.0) -> str:
        """The page once ``pattern`` shows on it (a bounded loop: fails after ``seconds``)."""
        deadline = time.monotonic() + seconds
        text = ""
        while time.monotonic() < deadline:
            text = self.get(path).text
            if re.search(pattern, text):
                return text
            time.sleep(0.5)
        raise AssertionError(f"{pattern!r} never showed on {path}: {text[-2000:]}")


def wait_until(condition, what: str, seconds: float = 300.0):
    """``condition()``'s value once it is true (a bounded loop: fails after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"never happened: {what}")


WAIT = re.compile(r"try again in (\d+) seconds")


def told_wait(answer: httpx.Response) -> int:
    """The wait a sign-in answer names ("try again in N seconds"), 0 if none."""
    found = WAIT.search(answer.text)
    return int(found.group(1)) if found else 0


def fail_signins(
    visitor: Visitor, name: str, times: int, seconds: float = 120.0
) -> list[tuple[int, int]]:
    """``times`` failed sign-ins of ``name`` with a wrong password, each tried again while
    the server answers 429 (a bounded loop: fails after ``seconds``). For each failure:
    (the wait its 401 names, the wait the first 429 after it named, 0 if none came)."""
    deadline = time.monotonic() + seconds
    found: list[tuple[int, int]] = []
    refused = 0
    while len(found) < times:
        assert time.monotonic() < deadline, f"sign-ins of {name} still refused: {found}"
        answer = visitor.signin(name, "a wrong password")
        if answer.status_code == 429:
            assert answer.headers["retry-after"] == str(told_wait(answer))
            if found and not refused:
                refused = told_wait(answer)
                found[-1] = (found[-1][0], refused)
            time.sleep(0.05)
            continue
        assert answer.status_code == 401, answer.text
        found.append((told_wait(answer), 0))
        refused = 0
    return found


def sign_in(page, host: HostProcess, name: str, password: str = "correct horse battery") -> None:
    """Sign ``name`` in on a browser page (Playwright) as a person does: the sign-in form."""
    page.goto(host.url + "signin")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("#signin-button")

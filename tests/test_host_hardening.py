"""Attacks on a real ``arena host`` (and ``arena serve``) over real sockets: ids out of
SQLite's range in every URL and form, request heads sent one byte at a time or too
large, more connections from one address than it may hold, archive names that are not
UTF-8 or hold control characters, and a bot whose traceback would show the server's
paths.
Each is refused in one line (or cut off), never a 500, never a traceback in the log."""

from __future__ import annotations

import contextlib
import html
import io
import socket
import sqlite3
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arena.server.connections import MAX_HEAD, PER_ADDRESS
from tests.host_helpers import PYTHON_BOT, HostProcess, Visitor, wait_until

HEAD_SECONDS = 2  # the server's deadline for a request head, shortened for the tests
BOUND = 60.0  # what the tests wait at most for a cut (many times the deadline)
GOOD_BOT = (PYTHON_BOT / "bot.py").read_bytes()
BAD_IDS = [
    "9223372036854775808",  # 2**63: one past SQLite's largest integer
    "99999999999999999999999",
    "9" * 4000,
    "-1",
    "+1",
    "1e9",
    "0x10",
    "01",
    "1.0",
    "\u0661\u0662\u0663",  # Arabic-Indic digits: str.isdigit() says yes
    "\u00b2",  # superscript two: isdigit() yes, int() no
    " 1",
]
ID_ROUTES = [
    ("GET", "/boards/usa/{}"),
    ("GET", "/matches/{}"),
    ("GET", "/matches/{}/bundle.json"),
    ("GET", "/matches/{}/stderr/0"),
    ("GET", "/matches/1/stderr/{}"),
    ("GET", "/submissions/{}"),
    ("GET", "/submissions/{}/code"),
    ("GET", "/api/submissions/{}"),
    ("POST", "/submissions/{}/play"),
    ("POST", "/me/tokens/{}/revoke"),
    ("POST", "/admin/submissions/{}/disable"),
    ("POST", "/admin/users/{}/disable"),
    ("POST", "/admin/matches/{}/void"),
]


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    env = {"ARENA_HOST_HEAD_SECONDS": str(HEAD_SECONDS)}
    server = HostProcess(tmp_path_factory.mktemp("host"), env=env).start()
    yield server
    server.stop()


def rows(host: HostProcess, table: str) -> int:
    with sqlite3.connect(host.data / "accounts.sqlite") as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def participant(host: HostProcess, name: str) -> Visitor:
    visitor = host.visitor()
    if visitor.signin(name).status_code != 303:
        assert visitor.signup(name).status_code == 303
    return visitor


def server_log(host: HostProcess) -> str:
    path = host.data / "server.log"
    return path.read_text(errors="replace") if path.exists() else ""


# ------------------------------------------------------------------ ids in range


def test_ids_out_of_range_are_404_on_every_route(host: HostProcess) -> None:
    admin = host.admin()
    csrf = admin.token_from("/me")
    for method, route in ID_ROUTES:
        for bad in [*BAD_IDS, "9223372036854775807"]:  # the largest id: in range, unknown
            path = route.format(bad)
            if method == "GET":
                answer = admin.get(path)
            else:
                answer = admin.client.post(path, data={"csrf": csrf, "play": "1"})
            if bad in BAD_IDS:
                assert answer.status_code in (400, 404), (path[:60], answer.status_code)
            else:  # an unknown id in range reaches the handler: its own answer, never a 500
                assert answer.status_code < 500, (path, answer.status_code)
            assert "Traceback" not in answer.text
    # A bearer token (the API) meets the same router.
    token = participant(host, "apiuser").token()
    for bad in BAD_IDS:
        answer = httpx.get(
            f"{host.url}api/submissions/{bad}", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 404, bad
    text = server_log(host)
    assert "Traceback" not in text and "OverflowError" not in text


def test_the_local_mode_parses_ids_in_range(tmp_path: Path) -> None:
    """``arena serve``: the site's match files by path, the play pages' numbers."""
    from arena.server.serving import LocalServer

    server = LocalServer(tmp_path, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = httpx.Client(base_url=server.url, timeout=60)
        for bad in [*BAD_IDS, "9223372036854775807"]:
            for path in (
                f"/matches/{bad}.html",
                f"/matches/{bad}.jsonl",
                f"/matches/{bad}.js",
                f"/matches/{bad}/seat0-stderr.txt",
                f"/play/{bad}",
                f"/play/{bad}/state?version={bad}",
            ):
                answer = client.get(path)
                assert answer.status_code == 404, (path[:60], answer.status_code)
        for field, bad in [
            ("seat", "\u00b2"),
            ("seat", "99999999999999999999"),
            ("seed", "9" * 30),
        ]:
            answer = client.post(
                "/play",
                data={field: bad, "bot": "random", "variant": "usa"},
                headers={"X-Arena-Token": server.token},
            )
            assert answer.status_code == 400, (field, bad, answer.status_code)
            assert "whole number" in answer.text and "invalid literal" not in answer.text
        assert not server.local.games  # nothing started
    finally:
        server.shutdown()
        server.close()


# ------------------------------------------------------------- slow heads, many sockets


def port_of(host: HostProcess) -> int:
    return int(host.url.rsplit(":", 1)[1].strip("/"))


def closed(sock: socket.socket) -> bytes | None:
    """What the server sent before closing the socket, or None while it is still open."""
    received = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return received or b"(closed)"
            received += chunk
    except BlockingIOError:
        return None
    except OSError:  # reset: closed without (readable) words
        return received or b"(reset)"


def test_a_request_head_sent_one_byte_at_a_time_is_cut_off(host: HostProcess) -> None:
    port = port_of(host)
    # Heads that never end (one more header line, one byte at a time), on fresh connections
    # and on a keep-alive connection after a first request was answered.
    endless = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: a\r\n" * 10_000
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
    kept = socket.create_connection(("127.0.0.1", port))
    kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    first = b""
    while b"</html>" not in first.lower():
        chunk = kept.recv(65536)
        assert chunk, first
        first += chunk
    assert first.startswith(b"HTTP/1.1 200")
    slow.append(kept)
    for sock in slow:
        sock.setblocking(False)
    cut: dict[int, bytes] = {}
    answered_meanwhile = 0
    sent = 0
    deadline = time.monotonic() + BOUND
    while len(cut) < len(slow) and time.monotonic() < deadline:
        for index, sock in enumerate(slow):
            if index in cut:
                continue
            with contextlib.suppress(OSError):
                sock.send(endless[sent : sent + 1])
            found = closed(sock)
            if found is not None:
                cut[index] = found
        sent += 1
        if answered_meanwhile < 3 and sent % 4 == 0:  # another client is served meanwhile
            assert httpx.get(host.url, timeout=30).status_code == 200
            answered_meanwhile += 1
        time.sleep(0.25)
    for sock in slow:
        sock.close()
    assert len(cut) == len(slow), f"{len(slow) - len(cut)} slow heads still open after {BOUND}s"
    assert answered_meanwhile >= 1
    assert sent < len(endless)  # cut while the head was still coming
    # Those that could read it were told why (a reset may swallow it).
    assert all(
        c.startswith(b"HTTP/1.1 408") or c in (b"(closed)", b"(reset)") for c in cut.values()
    )
    assert any(c.startswith(b"HTTP/1.1 408") for c in cut.values())


def test_a_request_head_over_the_size_limit_is_refused(host: HostProcess) -> None:
    """A head of many headers or one long one, sent at once: 431 and closed, while a head
    just under the limit is served (the parser itself bounds nothing)."""
    port = port_of(host)
    heads = {
        "many": b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Many: aaaaaaaaaaaaaaaa\r\n" * 1000,
        "long": b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (MAX_HEAD + 1) + b"\r\n",
        "target": b"GET /?" + b"a" * (MAX_HEAD + 1) + b" HTTP/1.1\r\nHost: x\r\n",
    }
    for kind, head in heads.items():
        with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as sock:
            with contextlib.suppress(OSError):  # the server may close before all is sent
                sock.sendall(head + b"\r\n")
            answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 431"), (kind, answer[:80])
        assert b"too large" in answer
    fits = b"GET / HTTP/1.1\r\nHost: x\r\nX-Fits: " + b"a" * (MAX_HEAD - 200) + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as sock:
        sock.sendall(fits)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (a reset ends it too)."""
    received = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            received += chunk
    return received


def stream(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection that holds: a live page's event stream (its head sent whole)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    return sock


def first_bytes(sock: socket.socket) -> bytes:
    """The server's first answer on ``sock`` (empty: closed without one)."""
    sock.settimeout(BOUND)
    try:
        return sock.recv(4096)
    except OSError:
        return b""


def served_from(port: int, source: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=30) as client:
        return client.get(f"http://127.0.0.1:{port}/").status_code


# The address that holds streams below: one no other test of the module's host connects
# from (a connection of an earlier test from 127.0.0.1 could still hold a slot when the
# streams open, and free it before the check that one more is refused: seen once, quiet).
HOLDER = "127.0.0.3"


def test_one_address_holds_a_bounded_number_of_connections(host: HostProcess) -> None:
    port = port_of(host)
    held = [stream(port, HOLDER) for _ in range(PER_ADDRESS + 10)]
    try:
        answers = [first_bytes(sock) for sock in held]
        served = [a for a in answers if a.startswith(b"HTTP/1.1 200")]
        assert len(served) <= PER_ADDRESS
        assert len(answers) - len(served) >= 10  # the rest closed at once, unanswered
        assert all(a == b"" for a in answers if not a.startswith(b"HTTP/1.1 200"))
        # Another address is served meanwhile; one more from this one is not.
        assert served_from(port, "127.0.0.2") == 200
        with pytest.raises(httpx.TransportError):
            served_from(port, HOLDER)
        # The streams that were served outlive the head deadline: a head's limit is not
        # a connection's.
        time.sleep(HEAD_SECONDS + 1)
        open_streams = [s for s, a in zip(held, answers, strict=True) if a.startswith(b"HTTP")]
        for sock in open_streams:
            sock.setblocking(False)
            assert closed(sock) is None
    finally:
        for sock in held:
            sock.close()
    # Once they are closed, the address is served again.
    assert wait_until(lambda: _served_quietly(port), f"{HOLDER} served again", BOUND)


def _served_quietly(port: int) -> bool:
    try:
        return served_from(port, HOLDER) == 200
    except httpx.TransportError:
        return False


# ------------------------------------------------------------------ archive names


def tar_with(name: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, errors="surrogateescape"
    ) as out:
        for member, data in (("bot.py", GOOD_BOT), (name, b"x = 1\n")):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_with(name: str, raw: bytes | None = None) -> bytes:
    """A zip holding bot.py and ``name``; with ``raw``, the name's bytes replaced by
    ``raw`` (same length): a name that is not ASCII is flagged UTF-8, so a hostile packer
    can flag bytes that are not."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        out.writestr("bot.py", GOOD_BOT)
        out.writestr(name, b"x = 1\n")
    data = buffer.getvalue()
    if raw is not None:
        assert len(raw) == len(name.encode())
        data = data.replace(name.encode(), raw)
    return data


NAMES = {
    "tar name not UTF-8": ("bot.tar.gz", tar_with("lib\udcff\udcfe.py"), "not UTF-8"),
    "zip name not UTF-8": ("bot.zip", zip_with("lib\u00e9.py", b"lib\xff\xfe.py"), "not UTF-8"),
    "tar newline": ("bot.tar.gz", tar_with("evil\n.py"), "control character"),
    "tar escape": ("bot.tar.gz", tar_with("a\x1b[31m.py"), "control character"),
    "zip return": ("bot.zip", zip_with("x\r.py"), "control character"),
}


@pytest.mark.parametrize("case", list(NAMES))
def test_archive_names_not_utf8_or_with_controls_are_refused(host: HostProcess, case: str) -> None:
    filename, data, message = NAMES[case]
    olga = participant(host, "olga")
    before = rows(host, "submissions")
    uploads = set((host.data / "uploads").glob("*"))
    answer = olga.upload("names", filename, data)
    assert answer.status_code == 400, answer.text
    assert message in answer.text and answer.text.count("<p class") == 1
    assert rows(host, "submissions") == before
    assert set((host.data / "uploads").glob("*")) == uploads


# ------------------------------------------------------------- tracebacks shown


RAISING_BOT = b"""from bots.sdk import Bot


def fail():
    raise RuntimeError("on purpose")


fail()
"""
HELPER = b"""def fail():
    raise RuntimeError("on purpose")
"""


def archive_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    return buffer.getvalue()


def server_paths(host: HostProcess) -> list[str]:
    """Absolute paths of the server that a participant must not see."""
    found = {str(host.data), str(host.data.resolve()), str(host.folder.resolve())}
    found |= {sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])}
    return sorted(found)


@pytest.mark.parametrize(
    "upload",
    [
        ("bot.py", RAISING_BOT, 'bot.py", line 5'),
        (
            "bot.zip",
            archive_of(
                {"mybot/bot.py": b"import helper\n\nhelper.fail()\n", "mybot/helper.py": HELPER}
            ),
            'helper.py", line 2',
        ),
    ],
    ids=["file", "folder"],
)
def test_a_traceback_shows_paths_relative_to_the_bot(
    host: HostProcess, upload: tuple[str, bytes, str]
) -> None:
    filename, data, where = upload
    pia = participant(host, "pia")
    answer = pia.upload("raiser", filename, data)
    assert answer.status_code == 303, answer.text
    text = html.unescape(pia.wait_for(answer.headers["location"], r'id="status">rejected'))
    assert where in text and "on purpose" in text
    for path in server_paths(host):
        assert path not in text, path


TRACING_BOT = b"""import sys
import traceback

from bots.sdk import Bot


class Tracing(Bot):
    name = "tracing"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        traceback.print_stack(file=sys.stderr)

    def choose(self, observation, legal_actions):
        for action in legal_actions:
            if str(action).startswith("claim"):
                return action
        return legal_actions[0]
"""


def test_a_ladder_match_stderr_shows_paths_relative_to_the_bot(host: HostProcess) -> None:
    quinn, rosa = participant(host, "quinn"), participant(host, "rosa")
    for visitor, bot in ((quinn, TRACING_BOT), (rosa, GOOD_BOT)):
        answer = visitor.upload("laddered", "bot.py", bot)
        assert answer.status_code == 303, answer.text
        visitor.wait_for(answer.headers["location"], r'id="status">ok<')

    def quinns_match() -> tuple[int, int] | None:
        query = (
            "SELECT q.match_id, q.seat FROM seats q JOIN seats r ON q.match_id = r.match_id"
            " WHERE q.bot LIKE 'quinn.laddered@%' AND r.bot LIKE 'rosa.laddered@%'"
        )
        with sqlite3.connect(host.data / "results.sqlite") as db:
            found = db.execute(query).fetchone()
        return (int(found[0]), int(found[1])) if found else None

    match_id, seat = wait_until(quinns_match, "a ladder match of quinn's bot", 300)
    text = quinn.get(f"/matches/{match_id}/stderr/{seat}").text
    assert 'bot.py", line 12' in text and "print_stack" in text
    for path in server_paths(host):
        assert path not in text, path

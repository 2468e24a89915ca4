"""Odd bytes in every field of every form and in every header a request's handling reads,
sent over raw sockets to a real ``arena host``: non-ASCII, very long values, NUL, UTF-8
encoded surrogates and invalid UTF-8 (raw and percent-encoded), urlencoded and multipart,
from a stranger, a participant and an admin with valid CSRF tokens (so each field reaches
the code behind the token check). Nothing may answer 500 or leave a traceback in
``server.log`` or on the server's stderr."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from urllib.parse import quote_from_bytes

import pytest

from tests.host_helpers import HostProcess, Visitor

ODD = [
    "é".encode(),
    "💥 Ünïcödé".encode(),
    b"\xc3\xa9" * 20_000,  # long, and under a multipart part's 64 KB
    b"x" * 100_000,  # longer than a multipart part may be
    b"a\x00b",
    b"\xed\xa0\x80",  # a lone surrogate, as UTF-8 would encode it
    b"\xed\xa0\x80\xed\xb0\x80",  # a surrogate pair, likewise
    b"\xff\xfe\xc0\xaf",  # invalid UTF-8
    b"\x1b[31m\r\nforged log line",
]
PASSWORD = b"correct horse battery"
# Each form with its fields' ordinary values; one field at a time is made odd.
FORMS: dict[str, dict[str, bytes]] = {
    "/signup": {"name": b"fuzz", "password": PASSWORD, "invite": b"none"},
    "/signin": {"name": b"fuzzer", "password": PASSWORD},
    "/signout": {},
    "/me/tokens": {"label": b"cli"},
    "/me/tokens/1/revoke": {},
    "/upload": {"bot": b"fuzzbot"},
    "/submissions/1/play": {"play": b"1"},
    "/admin/submissions/999/disable": {},
    "/admin/users/999/disable": {},
    "/admin/matches/999/void": {},
}
# Each header with the text around the odd bytes (a cookie's value, quoted or not: a
# quoted one may hold any byte).
HEADERS: dict[bytes, list[tuple[bytes, bytes]]] = {
    b"cookie": [(b"arena_session=", b""), (b"arena_session=x.", b""), (b'arena_session="x.', b'"'),
                (b"arena_csrf=", b""), (b'arena_csrf="', b'"'), (b"arena_csrf=a; b=", b"")],
    b"origin": [(b"", b""), (b"http://", b"")],
    b"referer": [(b"", b""), (b"http://", b"/x"), (b"http://127.0.0.1/", b"")],
    b"authorization": [(b"Bearer ", b""), (b"", b""), (b"Basic ", b"")],
    b"host": [(b"", b""), (b"127.0.0.1:", b"")],
}  # fmt: skip


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostProcess]:
    server = HostProcess(tmp_path_factory.mktemp("host-odd")).start()
    yield server
    server.stop()


def send(port: int, head: list[bytes], body: bytes = b"") -> int:
    """One request over a fresh connection; the answer's status (0: closed without one)."""
    lines = [*head, b"Connection: close", b"Content-Length: %d" % len(body)]
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    parts = reply.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def urlencoded(fields: dict[str, bytes], raw: bool) -> tuple[bytes, bytes]:
    pairs = (
        name.encode() + b"=" + (value if raw else quote_from_bytes(value).encode())
        for name, value in fields.items()
    )
    return b"&".join(pairs), b"application/x-www-form-urlencoded"


def multipart(fields: dict[str, bytes], filename: bytes, data: bytes) -> tuple[bytes, bytes]:
    boundary = b"oddboundary7f3a"
    body = b""
    for name, value in fields.items():
        body += b"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n" % (
            boundary, name.encode(), value,
        )  # fmt: skip
    body += (
        b'--%s\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n%s\r\n--%s--\r\n"
    ) % (boundary, filename, data, boundary)
    return body, b"multipart/form-data; boundary=" + boundary


class Sender:
    """Requests as one browser (its cookies) or the command line (its token) sends them."""

    def __init__(self, host: HostProcess, visitor: Visitor | None, page: str = "/signin"):
        self.host, self.port = host, host.port
        self.cookie = b""
        self.csrf = b""
        self.bearer = b""
        if visitor is not None:
            self.csrf = visitor.token_from(page).encode()
            self.cookie = "; ".join(f"{k}={v}" for k, v in visitor.client.cookies.items()).encode()

    def post(self, path: str, body: bytes, kind: bytes, extra: list[bytes] | None = None) -> int:
        head = [b"POST " + path.encode() + b" HTTP/1.1", b"Host: 127.0.0.1:%d" % self.port,
                b"Content-Type: " + kind, *(extra or [])]  # fmt: skip
        if self.cookie:
            head.append(b"Cookie: " + self.cookie)
        if self.bearer:
            head.append(b"Authorization: Bearer " + self.bearer)
        return send(self.port, head, body)


def tracebacks(host: HostProcess) -> int:
    logs = [host.data / "server.log", host.folder / "host-stderr.txt"]
    return sum(p.read_text(errors="replace").count("Traceback") for p in logs if p.exists())


def test_odd_bytes_in_every_field_of_every_form(host: HostProcess) -> None:
    stranger = host.visitor()
    participant = host.visitor()
    assert participant.signup("fuzzer").status_code == 303
    token = participant.token()
    admin = host.admin()
    senders = {
        "stranger": Sender(host, stranger),
        "participant": Sender(host, participant, "/me"),
        "admin": Sender(host, admin, "/admin"),
        "nobody": Sender(host, None),
    }
    api = Sender(host, None)
    api.bearer = token.encode()
    before = tracebacks(host)
    seen: dict[tuple, int] = {}
    for number, odd in enumerate(ODD):
        for path, ordinary in FORMS.items():
            who = "admin" if path.startswith("/admin") else (
                "stranger" if path in ("/signup", "/signin") else "participant"
            )  # fmt: skip
            for field in ["csrf", *ordinary]:
                sender = senders["nobody" if field == "csrf" and number % 2 else who]
                fields = {"csrf": sender.csrf, **ordinary}
                if path == "/signup" and field != "name":
                    fields["name"] = b"fuzz%d" % len(seen)  # a new account when all else is fine
                fields[field] = odd
                for raw in (True, False):
                    body, kind = urlencoded(fields, raw)
                    seen[(path, field, number, "raw" if raw else "quoted")] = sender.post(
                        path, body, kind
                    )
                body, kind = multipart(fields, b"bot.py", b"x = 1\n")
                seen[(path, field, number, "multipart")] = sender.post(path, body, kind)
            body, kind = multipart({"csrf": senders[who].csrf, **ordinary}, odd, b"x")
            seen[(path, "filename", number, "multipart")] = senders[who].post(path, body, kind)
        # The command line's upload: a Bearer token, no CSRF token.
        body, kind = multipart({"bot": odd}, b"bot.py", b"x = 1\n")
        seen[("/api/submissions", "bot", number, "multipart")] = api.post(
            "/api/submissions", body, kind
        )
        body, kind = multipart({"bot": b"fuzzapi"}, odd, b"x")
        seen[("/api/submissions", "filename", number, "multipart")] = api.post(
            "/api/submissions", body, kind
        )
    failed = {key: status for key, status in seen.items() if status in (0, 500)}
    assert failed == {}, failed
    assert 403 in seen.values() and 303 in seen.values()  # refusals, and forms that went through
    assert tracebacks(host) == before


def test_odd_bytes_in_every_header(host: HostProcess) -> None:
    visitor = host.visitor()
    assert visitor.signup("headers").status_code == 303
    sender = Sender(host, visitor, "/me")
    before = tracebacks(host)
    seen: dict[tuple, int] = {}
    requests = [
        (b"GET", "/me", b"", b""),
        (b"POST", "/signin", *urlencoded({"csrf": sender.csrf, "name": b"headers",
                                          "password": PASSWORD}, raw=True)),
        (b"POST", "/me/tokens", *urlencoded({"csrf": sender.csrf, "label": b"x"}, raw=True)),
        (b"POST", "/api/submissions", *multipart({"bot": b"h"}, b"bot.py", b"x = 1\n")),
    ]  # fmt: skip
    for number, odd in enumerate(ODD):
        if b"\n" in odd or len(odd) > 10_000:
            odd = odd.replace(b"\r\n", b" ")[:8_000]  # a header is one line, its head bounded
        for name, around in HEADERS.items():
            for prefix, suffix in around:
                for method, path, body, kind in requests:
                    head = [method + b" " + path.encode() + b" HTTP/1.1"]
                    values = {
                        b"host": b"127.0.0.1:%d" % host.port,
                        b"cookie": sender.cookie,
                        b"content-type": kind,
                        name: prefix + odd + suffix,
                    }
                    head += [key + b": " + value for key, value in values.items() if value]
                    key = (method, path, name, prefix, number)
                    seen[key] = send(host.port, head, body)
    failed = {key: status for key, status in seen.items() if status in (0, 500)}
    assert failed == {}, failed
    assert tracebacks(host) == before

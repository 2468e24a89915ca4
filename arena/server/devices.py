"""Device cookies: the browser that signed in to an account once is known again at its
next sign-in, so failures of others on that name never slow it (OWASP, "Slow down online
guessing attacks with device cookies").

After each successful sign-in (or sign-up) the browser gets ``arena_device_NAME``: a random
id signed with the server's secret together with the account's name, HttpOnly, for
``DEVICE_SECONDS``. One cookie per account, so a shared computer is known for each of its
users. A cookie is only ever good for the name it was signed with; a forged or copied-over
value is worth nothing and the sign-in is judged as from an unknown browser.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

DEVICE_PREFIX = "arena_device_"
DEVICE_SECONDS = 180 * 86400


def device_cookie_name(name: str) -> str:
    """The cookie's name for an account (names are 1-32 of ``[A-Za-z0-9_-]``: cookie-safe)."""
    return DEVICE_PREFIX + name.lower()


def _mac(secret: bytes, name: str, device: str) -> str:
    message = f"device:{name.lower()}:{device}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def new_device(secret: bytes, name: str) -> tuple[str, str]:
    """A new device id and the cookie value that carries it."""
    device = secrets.token_urlsafe(18)
    return device, f"{device}.{_mac(secret, name, device)}"


def device_of(secret: bytes, name: str, cookies: dict[str, str]) -> str | None:
    """The device id of the browser's cookie for ``name`` if its signature holds, else None."""
    value = cookies.get(device_cookie_name(name), "")
    device, _, mac = value.rpartition(".")
    if device and hmac.compare_digest(mac.encode(), _mac(secret, name, device).encode()):
        return device
    return None

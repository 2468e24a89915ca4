"""``arena submit NAME --file PATH --server URL``: upload a bot to a hosted competition
with an API token and wait for its validation, in one line either way. Uploading needs
the token's ``submit`` scope, following the validation its ``read`` scope; a token
without one is told which in one line."""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path

WAIT_SECONDS = 600.0
POLL_SECONDS = 1.0


class ClientError(RuntimeError):
    """The upload did not get through or was refused; one line saying why."""


def pack(path: Path) -> tuple[str, bytes]:
    """(file name, bytes) to upload: a .py or an archive as it is, a folder as a .tar.gz of
    its plain files (links are refused here as the server would)."""
    if path.is_file():
        return path.name, path.read_bytes()
    if not path.is_dir():
        raise ClientError(f"no such file or folder: {path}")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for item in sorted(path.rglob("*")):
            if item.is_symlink():
                raise ClientError(
                    f"{item} is a symbolic link: a bot's folder holds plain files only"
                )
            if "__pycache__" in item.parts:
                continue
            if item.is_file():
                archive.add(item, arcname=str(item.relative_to(path)), recursive=False)
    return f"{path.name or 'bot'}.tar.gz", buffer.getvalue()


def submit_remote(
    server: str, token: str, name: str, path: Path, wait: float = WAIT_SECONDS
) -> dict:
    """Upload, then wait (at most ``wait`` seconds) for the verdict; the submission's status."""
    import httpx

    filename, data = pack(path)
    base = server.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            answer = client.post(
                "/api/submissions", data={"bot": name}, files={"file": (filename, data)}
            )
            if answer.status_code != 200:
                raise ClientError(f"the server refused the upload: {_why(answer)}")
            status = answer.json()
            deadline = time.monotonic() + wait
            while status["status"] in ("queued", "validating"):
                if time.monotonic() > deadline:
                    raise ClientError(
                        f"still {status['status']} after {wait:.0f} s: see the submission's page"
                    )
                time.sleep(POLL_SECONDS)
                answer = client.get(f"/api/submissions/{status['id']}")
                if answer.status_code == 403:  # a token of scope submit without read
                    raise ClientError(
                        f"uploaded as submission {status['id']}, but its validation cannot be "
                        f"followed: {_why(answer)} (or see {base}/submissions/{status['id']})"
                    )
                if answer.status_code != 200:
                    raise ClientError(f"the server answered: {_why(answer)}")
                status = answer.json()
    except httpx.HTTPError as error:
        raise ClientError(f"cannot reach {base}: {error}") from None
    return status


def _why(answer) -> str:
    try:
        return str(answer.json().get("error") or answer.status_code)
    except ValueError:
        text = answer.text.strip()
        if "<p>" in text:
            text = text.split("<p>", 1)[1].split("</p>", 1)[0]
        return f"{answer.status_code} {text[:200]}"

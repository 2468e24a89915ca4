"""An uploaded bot against ``arena host``'s worker: it lists all it can reach, fails its
validation on purpose, and its owner reads its stderr; nothing of the data folder or of
the organiser's folder may show in it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.referee.containment import private_mounts
from arena.referee.sandbox import landlock_abi
from tests.host_helpers import PYTHON_BOT, HostProcess

LISTER = Path(__file__).resolve().parent / "bots" / "lister.py"


@pytest.mark.skipif(not private_mounts(), reason="no private mounts here (arena doctor)")
@pytest.mark.skipif(landlock_abi() == 0, reason="this kernel has no Landlock")
def test_an_uploaded_bot_names_nothing_of_the_data_folder_or_the_server_s(tmp_path):
    """Bob's bot is accepted; Alice uploads a bot that lists everything it can reach
    (tests/bots/lister.py: its folders and every folder above, the paths in its
    environment and command line, /proc's processes with their cwd, root and environment,
    a walk of /) and fails validation on purpose. Her stderr, on her submission page and in
    the data folder, names nothing of the data folder (accounts, the server's secret,
    uploads, the results store, Bob's bot and the hash of its code) nor the folder the
    organiser started ``arena host`` in: it named them all."""
    tag = f"{os.getpid()}{time.monotonic_ns() % 10**6}"
    folder = tmp_path / f"organiser-{tag}"
    folder.mkdir()
    host = HostProcess(folder, cwd=folder).start()
    try:
        bob, alice = host.visitor(), host.visitor()
        assert bob.signup("bob").status_code == 303
        assert alice.signup("alice").status_code == 303
        rival = f"rival{tag}"
        answer = bob.upload(rival, "bot.py", (PYTHON_BOT / "bot.py").read_bytes())
        assert answer.status_code == 303, answer.text
        bob.wait_for(answer.headers["location"], r'id="status">ok<')
        answer = alice.upload("spy", "bot.py", LISTER.read_bytes())
        assert answer.status_code == 303, answer.text
        page = alice.wait_for(answer.headers["location"], r'id="status">rejected<')
    finally:
        host.stop()
    (hashed,) = [p.name for p in (host.data / "bots" / f"bob.{rival}").iterdir()]
    secret = [folder.name, "accounts.sqlite", "server-secret", "results.sqlite", "uploads"]
    secret += [rival, hashed]
    (log,) = (host.data / "submissions" / "alice.spy").rglob("seat0-*.stderr")
    report = log.read_text()
    assert "END OF REPORT" in report and "bytes dropped" not in report, report[-2000:]
    assert [name for name in [*secret, "submissions"] if name in report] == [], report
    assert [name for name in secret if name in page] == [], page
    assert "list /tmp/bot:" in report  # it did list what it could: its own folder

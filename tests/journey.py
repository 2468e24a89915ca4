"""Running the ``arena`` command the way a user does, for journey tests.

``Journey(folder)`` runs ``arena ...`` as a subprocess in ``folder`` (a fresh
``tmp_path``), with the sandbox on (the default), and hands back what the user
sees: the exit status, stdout, stderr. It also reads the results store the way
a test needs to check what was (or was not) stored.

    journey = Journey(tmp_path)
    done = journey("submit", "my-bot", "--file", EXAMPLES / "python-bot")
    assert done.code == 0, done.text
"""

from __future__ import annotations

import os
import pty
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A bound only a hang passes: what must happen "at once" (a stop, a refusal, a charge) is
# checked by what happened (the matches begun, the fault charged, the line printed); this
# bound is many times what the slowest busy machine takes, and catches only a wait that does
# not end (or one the test made enormous on purpose, such as a ten-minute time bank). The
# figures themselves are measured in benchmarks/.
HANG_S = 300.0
EXAMPLES = ROOT / "examples"
PYTHON_BOT = EXAMPLES / "python-bot"
BIN = Path(sys.executable).parent
# The console script a user runs: its sys.path starts with its own folder, never the cwd
# (a user's own bots/ or arena/ folder must not be imported in place of ours).
ARENA = (
    [str(BIN / "arena")] if (BIN / "arena").exists() else [sys.executable, "-P", "-m", "arena.cli"]
)


@dataclass(frozen=True)
class Outcome:
    """What ``arena`` showed: exit status, stdout, stderr."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    def one_line_error(self) -> str:
        """The single ``error: ...`` line a failure must print (asserts it is exactly that:
        one line, on stderr, no traceback, nothing else on stderr)."""
        lines = self.err.strip().splitlines()
        assert "Traceback" not in self.text, self.text
        assert len(lines) == 1 and lines[0].startswith("error: "), self.text
        return lines[0]


class Journey:
    """The ``arena`` command, run in ``folder`` with a terminal ``columns`` wide."""

    def __init__(self, folder: Path, columns: int = 80) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if k != "ARENA_DEBUG"}
        self.env["COLUMNS"] = str(columns)

    def __call__(self, *args: object, timeout: float = 600, stdin: str = "") -> Outcome:
        done = subprocess.run(
            [*ARENA, *map(str, args)],
            cwd=self.folder,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Outcome(done.returncode, done.stdout, done.stderr)

    def start(self, *args: object) -> subprocess.Popen:
        """Start ``arena ...`` without waiting (for signals, or to run several at once), as
        from a terminal: a Ctrl-C (SIGINT) sent to it is a person's."""
        return subprocess.Popen(
            [*ARENA, *map(str, args)],
            cwd=self.folder,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_from_a_terminal,
        )

    def wait_for_matches(self, driver: subprocess.Popen, count: int, limit: float = 120) -> None:
        """Wait until ``count`` matches are stored while ``driver`` runs (killed if they do
        not come: a condition, not a time, is what the test waits for)."""
        try:
            deadline = time.monotonic() + limit
            while (self.rows("SELECT count(*) FROM matches") or [(0,)])[0][0] < count:
                assert time.monotonic() < deadline and driver.poll() is None, "no match stored"
                time.sleep(0.05)
        except BaseException:
            driver.kill()
            raise

    @property
    def data(self) -> Path:
        return self.folder / "arena-data"

    def rows(self, query: str, *params: object) -> list[tuple]:
        """Rows of a query on the results store (read only); [] when there is no store."""
        path = self.data / "results.sqlite"
        if not path.exists():
            return []
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return db.execute(query, params).fetchall()

    def files(self) -> set[str]:
        """Every file under the folder (relative), to check that nothing was written."""
        return {str(p.relative_to(self.folder)) for p in self.folder.rglob("*") if p.is_file()}


def as_from_a_terminal() -> None:
    """A child's ``preexec_fn``: SIGINT and SIGTERM neither ignored nor blocked, as in a
    terminal where a person presses Ctrl-C. A child inherits both from whatever started
    the tests: a script's background job (``make test &``, ``nohup``) ignores SIGINT, and a
    command that inherits SIG_IGN rightly keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def run_in_terminal(args, cwd, env):
    """Start ``args`` on a pseudo-terminal (so the progress display is live); returns the
    process and a list that fills with its output."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    output: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            output.append(chunk)
        os.close(master)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    process.reader = reader
    return process, output


def interrupt_terminal(driver, output, signum) -> tuple[str, float]:
    """Signal a driver started by ``run_in_terminal`` as its terminal does (the whole
    foreground group: Ctrl-C sends SIGINT to it); what it showed, and the seconds it took
    to exit after the signal."""
    try:
        signalled = time.monotonic()
        os.killpg(driver.pid, signum)
        driver.wait(30)
        took = time.monotonic() - signalled
    finally:
        driver.kill()
    driver.reader.join(10)
    return b"".join(output).decode(errors="replace"), took


def column_text(out: str, start: str) -> str:
    """The text of the column that begins with ``start`` on its row, read down the lines
    below it while they hold something there (a name folded over several lines)."""
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if start in line)
    left = lines[row].index(start)
    found = lines[row][left:].split()[0]
    for line in lines[row + 1 :]:
        piece = line[left:].split()[:1] if line[:left].strip() == "" else []
        if not piece:
            break
        found += piece[0]
    return found

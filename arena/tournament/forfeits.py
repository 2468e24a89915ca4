"""Why a bot forfeited, in one line a person can act on.

A forfeit is stored as a code (``crash``, ``timeout``, ...) and the referee's
detail; for a crash, the useful part is usually in the bot's stderr log, and
not on its last line: Node.js ends with its version, Java and Go with stack
frames, Python with the exception. ``error_line`` finds the line that names the
error; ``reason`` puts code, error and the referee's words together.
"""

from __future__ import annotations

import re
from pathlib import Path

# A line that names an error in the common runtimes: Python and JavaScript exceptions
# (``ValueError: ...``, ``Error: Cannot find module``), Java (``Exception in thread``,
# ``java.lang.IllegalStateException: ...``), Go and Rust panics, C/C++ and shell errors.
_ERROR = re.compile(
    r"^\s*(?:"
    r"(?:[\w$]+\.)*[\w$]*(?:Error|Exception|Exit|Interrupt|Fault)\b(?!\s+at\b)"
    r"|panic:|fatal(?: error)?:|error(?:\[\w+\])?:|thread '.*' panicked"
    r"|Segmentation fault|Killed|Aborted|.*: (?:command )?not found$"
    r"|.*: No such file or directory$|.*: Permission denied$"
    r")",
    re.IGNORECASE,
)
# Lines that never explain anything: stack frames, runtime banners, object dumps.
_NOISE = re.compile(
    r"^\s*(?:at\s|Node\.js v\d|Require stack:|- /|\}|code: |requireStack: |\^+\s*$"
    r"|File \"|Traceback \(most recent call last\)|During handling of the above"
    r"|The above exception was|note: run with|goroutine \d|\[ttr-arena: )"
)
MAX_LINE = 300
TAIL_BYTES = 64 * 1024


def error_line(text: str, fallback: bool = True) -> str | None:
    """The line of ``text`` (a bot's stderr) that names its error, or None.

    The last error-looking line wins (a chained Python exception ends with the one
    that stopped the bot); without one, with ``fallback``, the last line that is
    not noise."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    for i in range(len(lines) - 1, -1, -1):
        if _ERROR.match(lines[i]) and not _NOISE.match(lines[i]):
            line = lines[i].strip()
            # ``thread 'main' panicked at src/main.rs:2:5:`` says the message comes next.
            if line.endswith(":") and i + 1 < len(lines) and not _NOISE.match(lines[i + 1]):
                line += " " + lines[i + 1].strip()
            return _cut(line)
    for line in reversed(lines if fallback else []):
        if not _NOISE.match(line):
            return _cut(line.strip())
    return None


def read_tail(path: Path | None) -> str:
    """The end of a log file ('' when it is not there any more)."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - TAIL_BYTES))
            return file.read().decode("utf-8", "replace")
    except OSError:
        return ""


def reason(code: str, detail: str, stderr: str = "") -> str:
    """One line: the fault code, then what went wrong.

    For a crash or a bot that never said hello, the error its stderr names; for
    every other fault (timeout, illegal, malformed, ...) the referee's own words,
    which say exactly what the bot did."""
    detail = detail.strip()
    # A detail that announced output which never came ("...before the handshake: ") ends
    # at its words, not at a dangling colon.
    headline = detail.splitlines()[0].strip().rstrip(":").rstrip() if detail else ""
    if code in ("crash", "no-show"):
        found = error_line(stderr, fallback=False) or error_line(detail, fallback=False)
        if found:
            return f"{code}: {found}"
        last = error_line(stderr)
        if last:
            headline = f"{headline.rstrip(': ')} (stderr ends: {last})"
    return f"{code}: {_cut(headline)}" if headline else code


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"

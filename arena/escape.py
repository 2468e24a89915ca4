"""Showing what users and bots typed without letting it drive the terminal.

Names, variants, bot specs, paths and a bot's own words are echoed in error lines;
a terminal escape or a newline in them must be seen, not obeyed (it could clear the
screen, recolour or forge lines of the organiser's output). ``escaped`` is the one
place that decides how: every line that echoes such text goes through it.
"""

from __future__ import annotations

import unicodedata

# Control (C0, C1, DEL), format (bidi overrides, zero-width), line and paragraph
# separators, and lone surrogates (undecodable bytes of a file name).
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """``text`` with each control or format character written as its escape (``\\x1b``,
    ``\\n``, ``\\u202e``); printable text, spaces included, is left as it is."""
    if text.isprintable():
        return text
    return "".join(
        _escape(char) if unicodedata.category(char) in _HIDDEN else char for char in text
    )

"""Match logs as stored: zlib-compressed JSON lines (a 12 KB log keeps about 1.6 KB), and
logs stored plain by earlier releases read as they are.

A plain log always starts with ``{`` (its header line); a compressed one with zlib's
two-byte header (``0x78`` and a check byte), so the two can never be taken for each
other and no schema change or rewrite of old rows is needed.
"""

from __future__ import annotations

import zlib

LEVEL = 9  # logs are written once and read rarely: the smallest zlib makes


def pack_log(jsonl: bytes) -> bytes:
    """The log as stored (compressed); an empty log stays empty."""
    return zlib.compress(jsonl, LEVEL) if jsonl else jsonl


def is_packed(data: bytes) -> bool:
    """Whether ``data`` starts with a zlib header (a JSON-lines log never does)."""
    return len(data) >= 2 and data[0] == 0x78 and (data[0] * 256 + data[1]) % 31 == 0


def unpack_log(data: bytes) -> bytes:
    """The JSON lines of a stored log, compressed or plain (as older releases stored it).
    A compressed log that does not decompress raises ValueError."""
    if not is_packed(data):
        return data
    try:
        return zlib.decompress(data)
    except zlib.error as error:
        raise ValueError(f"a stored match log is damaged ({error})") from None

"""Numbers read from text (ids in URLs and file names, numbers in query strings and
forms), parsed once and only within their range.

SQLite's integers are signed 64-bit: a larger Python ``int`` given to a query raises
``OverflowError``. So an id is ASCII digits (no sign, no other script's digits, no
leading zeros) of at most ``MAX_ID``; anything else is not an id at all. The web
application's routes match ids with the same pattern (``arena.server.ids``).
"""

from __future__ import annotations

import re

MAX_ID = 2**63 - 1  # SQLite's largest INTEGER


def below_or_equal(limit: str) -> str:
    """A regular expression for the strings of exactly ``len(limit)`` ASCII digits whose
    value is at most ``limit`` (itself digits without a leading zero)."""
    choices = [limit]
    for at, digit in enumerate(limit):
        if digit == "0":
            continue
        lowest = "1" if at == 0 else "0"
        smaller = int(digit) - 1
        if smaller < int(lowest):
            continue
        rest = len(limit) - at - 1
        choices.append(f"{limit[:at]}[{lowest}-{smaller}][0-9]{{{rest}}}")
    return "|".join(choices)


# 0, or 1 to 18 digits without a leading zero, or 19 digits up to MAX_ID.
ID_PATTERN = f"0|[1-9][0-9]{{0,{len(str(MAX_ID)) - 2}}}|{below_or_equal(str(MAX_ID))}"
_ID = re.compile(f"(?:{ID_PATTERN})")


def parse_id(text: str | None, high: int = MAX_ID) -> int | None:
    """``text`` as a number from 0 to ``high`` (at most ``MAX_ID``), or None if it is
    anything else (a sign, a leading zero, another script's digits, too large)."""
    if text is None or not _ID.fullmatch(text):
        return None
    value = int(text)
    return value if value <= high else None


def parse_signed(text: str | None) -> int | None:
    """``text`` as a number from -MAX_ID to MAX_ID (an optional '-'), or None."""
    if text is None:
        return None
    negative = text.startswith("-")
    value = parse_id(text[1:] if negative else text)
    if value is None or (negative and value == 0):
        return None
    return -value if negative else value

"""Ids in URLs: ``{name:id}`` in a route matches only ids in SQLite's range
(``leaderboards.ids``), so any other path is a plain 404 from the router and no handler
ever sees an out-of-range number.
"""

from __future__ import annotations

from starlette.convertors import Convertor, register_url_convertor

from leaderboards.ids import ID_PATTERN, MAX_ID


class IdConvertor(Convertor[int]):
    """``{name:id}`` in a route: an id in SQLite's range, matched by the router itself."""

    regex = f"(?:{ID_PATTERN})"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        if not 0 <= value <= MAX_ID:
            raise ValueError(f"an id is from 0 to {MAX_ID}")
        return str(value)


register_url_convertor("id", IdConvertor())

"""Names people give things that end up as folder names: bots, versions, tournaments.

A name is 1-64 letters, digits, ``-``, ``_`` and ``.``, starting with a letter or a
digit (so never ``.``, ``..`` or a hidden file); a registered bot may carry a
version suffix ``@N``. A name that passes can be joined to a folder without ever
leaving it, which is why every name is checked before anything is written.
"""

from __future__ import annotations

import re

NAME_RULE = "1-64 letters, digits, '-', '_' or '.', starting with a letter or digit"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_VERSION = re.compile(r"[1-9][0-9]{0,8}")


class BadName(ValueError):
    """A name that breaks the rule; the message says which and why."""


def check_name(name: str, what: str = "bot name") -> str:
    """``name`` itself if it follows the rule, else a ``BadName`` saying what is wrong."""
    if not _NAME.fullmatch(name):
        raise BadName(f"{what} '{name}' is not allowed: use {NAME_RULE}")
    return name


def split_ref(text: str, what: str = "bot name") -> tuple[str, int | None]:
    """``name`` or ``name@N`` -> (name, N or None), both checked."""
    name, at, version = text.partition("@")
    check_name(name, what)
    if not at:
        return name, None
    if not _VERSION.fullmatch(version):
        raise BadName(f"'{text}': the version after '@' is a whole number from 1 (name@2)")
    return name, int(version)

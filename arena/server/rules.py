"""The rules page (``/rules``): the competition as its file sets it (boards, clocks, limits,
validation, the deadline and the final, who sees what) and, for each board's variant, the
rules as the engine plays them.

The variants' rules are ``docs/RULES.md``, shipped in the package as ``protocols/RULES.md``
(beside the bot protocol, ``protocols/PROTOCOL.md``: what a bot plays by); a test keeps the
two files equal. Each variant's section is the one whose heading names it in backticks
(``## Ticket to Ride (USA) — `usa```), with the introduction of the section it sits in
(the city editions share theirs), rendered from Markdown with raw HTML left as text.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from arena.server.host import host_of
from arena.variants import get_variant

HEADING = re.compile(r"^(#{1,6})\s")


@functools.lru_cache(maxsize=1)
def rules_text() -> str:
    """The rules of every variant, as shipped with the package."""
    return resources.files("protocols").joinpath("RULES.md").read_text(encoding="utf-8")


def level(line: str) -> int:
    """A Markdown heading's level (``##`` is 2), 0 for any other line."""
    found = HEADING.match(line)
    return len(found.group(1)) if found else 0


def variant_section(text: str, variant: str) -> str | None:
    """The part of ``text`` about ``variant``: its section, after the introduction of the
    section holding it; None when no heading names it."""
    lines = text.splitlines()
    tag = f"`{variant}`"
    start = next((i for i, line in enumerate(lines) if level(line) and tag in line), None)
    if start is None:
        return None
    depth = level(lines[start])
    end = next(
        (i for i in range(start + 1, len(lines)) if 0 < level(lines[i]) <= depth), len(lines)
    )
    section = lines[start:end]
    parent = next((i for i in range(start - 1, -1, -1) if 0 < level(lines[i]) < depth), None)
    if parent is not None and level(lines[parent]) > 1:  # the page's title is no parent
        intro_end = next(i for i in range(parent + 1, start + 1) if level(lines[i]))
        intro = "\n".join(lines[parent:intro_end]).strip()
        section = [intro, "", *section]
    return "\n".join(section).strip() + "\n"


@functools.lru_cache(maxsize=16)
def variant_rules(variant: str) -> Markup | None:
    """``variant``'s rules as HTML (Markdown's raw HTML shown as text), or None."""
    section = variant_section(rules_text(), variant)
    if section is None:
        return None
    return Markup(MarkdownIt("commonmark", {"html": False}).enable("table").render(section))


def rules(request: Request) -> Response:
    host = host_of(request)
    variants: list[dict[str, Any]] = []
    for variant in dict.fromkeys(variant for variant, _ in host.competition.boards):
        found = get_variant(variant)
        variants.append({"name": variant, "title": found.title, "rules": variant_rules(variant)})
    return host.page(request, "rules.html", variants=variants)

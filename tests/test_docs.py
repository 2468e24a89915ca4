"""The README stays a front page, and the documentation's links lead somewhere.

Every relative link of README.md, SECURITY.md and docs/*.md (Markdown links and the
``src``/``href`` of inline HTML) must name a file or folder of the repository, and a
``#fragment`` into a Markdown file must name one of its headings, slugged as GitHub does.
Code blocks are skipped: what is in them is code, not links.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300
MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HTML_LINK = re.compile(r"""\b(?:src|href)="([^"]+)\"""")
FENCE = re.compile(r"^\s*(```|~~~)")


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped (but - and _), spaces
    to -. Inline code's backticks and a link's brackets go with the punctuation."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in ``path`` (a repeated heading numbered as GitHub does), and
    every explicit ``<a id="...">``."""
    seen: dict[str, int] = {}
    found = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        found.update(re.findall(r'<a\s+(?:id|name)="([^"]+)"', line))  # an explicit anchor
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    found = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        found += MARKDOWN_LINK.findall(line) + HTML_LINK.findall(line)
    return found


def broken_links(path: Path) -> list[str]:
    """What is wrong with each relative link of ``path``, one line each."""
    wrong = []
    for link in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto:, file: ...
            continue
        target, _, fragment = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            wrong.append(f"{link}: no such file ({file})")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file):
            wrong.append(f"{link}: {file.name} has no heading with the anchor #{fragment}")
    return wrong


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_readme_maps_every_doc():
    """Each page of docs/ has its line in the README's map of the docs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The docs", 1)[1]
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{doc.name})" in table, f"the README's map of the docs lacks {doc.name}"


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(path: Path):
    assert broken_links(path) == []


def test_a_broken_link_and_a_wrong_anchor_are_caught(tmp_path: Path):
    """The check itself: a missing file, a missing heading and GitHub's slugs."""
    (tmp_path / "other.md").write_text(
        "# Title\n\n## Backup, restore: `arena admin` (v2)\n\n## Twice\n\n## Twice\n"
        "```sh\n# not a heading\n```\n"
        '<a id="kept"></a>**A paragraph** with an anchor of its own.\n'
    )
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#backup-restore-arena-admin-v2) [ok](other.md#twice-1) [ok](#here)\n"
        "[ok](other.md#kept)\n"
        "## Here\n"
        "[gone](missing.md) [bad](other.md#not-a-heading) [bad](other.md#twice-2)\n"
        '<img src="nowhere.png"> [web](https://example.org/x.md#y)\n'
        "```\n[in code](ignored.md)\n```\n"
    )
    found = broken_links(page)
    assert [line.split(":")[0] for line in found] == [
        "missing.md", "other.md#not-a-heading", "other.md#twice-2", "nowhere.png",
    ]  # fmt: skip


def test_paths_named_in_messages_and_examples_exist():
    """A message or a comment that sends the reader to docs/X.md names a page that exists."""
    sources = [*ROOT.glob("arena/**/*.py"), *ROOT.glob("examples/**/*.toml"), ROOT / "Makefile"]
    sources += [*ROOT.glob("examples/deploy/*")]
    named = {
        (source.relative_to(ROOT), name)
        for source in sources
        if source.is_file()
        for name in re.findall(r"\bdocs/[A-Z][A-Z-]*\.md", source.read_text(errors="replace"))
    }
    assert named, "no source names a doc: is the pattern wrong?"
    missing = [f"{source}: {name}" for source, name in sorted(named) if not (ROOT / name).exists()]
    assert missing == []

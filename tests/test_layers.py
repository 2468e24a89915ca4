"""The package keeps the layered shape docs/ARCHITECTURE.md describes: every module placed
in a layer, no import of a higher layer, no import cycle.

The layer table is read from docs/ARCHITECTURE.md (its one home); the imports are read
from the source with ``ast``: absolute and relative, at module level and inside
functions, but not those under ``if TYPE_CHECKING:`` (types only, nothing runs)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("arena", "bots", "protocols", "leaderboards")


@dataclass(frozen=True)
class Layer:
    name: str
    order: int
    places: tuple[str, ...]  # folders (ending in '/') and files, relative to the root
    uses: frozenset[str]  # layer names
    doors: frozenset[str]  # single modules (files) of a higher layer it may import


@cache
def layers() -> tuple[Layer, ...]:
    """The rows of the table under '## Layers' in docs/ARCHITECTURE.md, lowest first."""
    text = ARCHITECTURE.read_text()
    section = text.split("\n## Layers\n", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    found = []
    for order, row in enumerate(rows):
        name, places, uses, _purpose = (cell.strip() for cell in row.strip("|").split("|"))
        words = [word.strip() for word in uses.split(",") if word.strip()]
        found.append(
            Layer(
                name=name,
                order=order,
                places=tuple(re.findall(r"`([^`]+)`", places)),
                uses=frozenset(w for w in words if not w.startswith("`")),
                doors=frozenset(w.strip("`") for w in words if w.startswith("`")),
            )
        )
    return tuple(found)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every Python module of the four packages, by dotted name (example bots in other
    languages under bots/ are not Python modules)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def layer_of(path: Path) -> Layer | None:
    """The layer whose longest matching entry (a folder or the file itself) holds ``path``."""
    relative = path.relative_to(ROOT).as_posix()
    best: tuple[int, Layer] | None = None
    for layer in layers():
        for place in layer.places:
            holds = relative == place or (place.endswith("/") and relative.startswith(place))
            if holds and (best is None or len(place) > best[0]):
                best = (len(place), layer)
    return best[1] if best else None


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def resolve(name: str) -> str | None:
    """The module of ours that importing ``name`` runs last: ``name`` itself, or the
    nearest package above it (``from arena.engine import Action``); None if not ours."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


class Imports(ast.NodeVisitor):
    """The modules of ours that one module imports, with the line of each import."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: dict[str, int] = {}

    def add(self, name: str | None, line: int) -> None:
        target = resolve(name) if name else None
        if target is not None and target != self.module:
            self.found.setdefault(target, line)

    def visit_If(self, node: ast.If) -> None:
        if is_type_checking(node.test):
            for child in node.orelse:  # the else branch runs
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            self.add(submodule if submodule in modules() else source, node.lineno)


@cache
def graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: line of the import}."""
    edges = {}
    for name, path in modules().items():
        visitor = Imports(name, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(), str(path)))
        edges[name] = visitor.found
    return edges


def where(module: str, line: int) -> str:
    return f"{modules()[module].relative_to(ROOT)}:{line}"


def test_the_table_is_an_order() -> None:
    """Each layer uses only layers listed below it, and its doors are existing modules."""
    by_name = {layer.name: layer for layer in layers()}
    assert len(by_name) >= 10, f"no layer table found in {ARCHITECTURE}"
    for layer in layers():
        for used in layer.uses:
            assert used in by_name, f"{layer.name} uses '{used}': no such layer"
            assert by_name[used].order < layer.order, f"{layer.name} uses higher '{used}'"
        for door in layer.doors:
            assert (ROOT / door).is_file(), f"{layer.name}'s door {door} does not exist"
        for place in layer.places:
            assert (ROOT / place).exists(), f"{layer.name} names {place}: it does not exist"


def test_every_module_has_a_layer() -> None:
    unplaced = [str(p.relative_to(ROOT)) for p in modules().values() if layer_of(p) is None]
    assert not unplaced, f"place these in docs/ARCHITECTURE.md's table: {unplaced}"


def test_no_module_imports_a_higher_layer() -> None:
    wrong = []
    for module, imported in graph().items():
        mine = layer_of(modules()[module])
        assert mine is not None
        for target, line in imported.items():
            theirs = layer_of(modules()[target])
            assert theirs is not None
            door = modules()[target].relative_to(ROOT).as_posix() in mine.doors
            if theirs != mine and theirs.name not in mine.uses and not door:
                wrong.append(
                    f"{where(module, line)}: {module} ({mine.name}) imports {target} "
                    f"({theirs.name})"
                )
    assert not wrong, "imports of a layer not below:\n" + "\n".join(wrong)


def test_protocols_use_only_the_engine_and_variants_of_the_arena() -> None:
    """The protocol is the bots' side of the wire: of the arena it may name the rules and
    the variants, never the referee that speaks it (tools/transcript.py records the
    referee's side)."""
    wrong = [
        f"{where(module, line)}: {module} imports {target}"
        for module, imported in graph().items()
        if module.split(".")[0] == "protocols"
        for target, line in imported.items()
        if target.split(".")[0] == "arena"
        and target.split(".")[:2] not in (["arena", "engine"], ["arena", "variants"])
    ]
    assert not wrong, "protocols/ imports more of the arena than the engine:\n" + "\n".join(wrong)


def cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def loop_in(component: list[str]) -> list[str]:
    """One loop through a component, as the imports that make it (shortest from its first
    module back to it)."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph()[node]):
            if child == start:
                path = paths[node]
                return [
                    f"{where(a, graph()[a][b])}: {a} imports {b}"
                    for a, b in zip(path, [*path[1:], start], strict=True)
                ]
            if child in members and child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"no loop in {component}")


def test_no_import_cycle() -> None:
    found = cycles()
    assert not found, "import cycles:\n" + "\n\n".join("\n".join(loop_in(c)) for c in found)


def test_the_reader_sees_every_kind_of_import() -> None:
    """The reader's own rules, on a known module: a relative import, an import inside a
    function, and a TYPE_CHECKING import left out."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import gamelog\n"
        "from .keys import MatchKey\n"
        "if TYPE_CHECKING:\n"
        "    from arena.tournament.store import ResultsStore\n"
        "def f():\n"
        "    import arena.engine.actions\n"
    )
    visitor = Imports("arena.referee.view", is_package=False)
    visitor.visit(ast.parse(source))
    assert visitor.found == {
        "arena.referee.gamelog": 2,
        "arena.referee.keys": 3,
        "arena.engine.actions": 7,
    }


# The engine's state and its editions may stay whole (the hot path, one edition a module);
# every other module has one job and stays readable in one sitting.
LONGEST_LINES = 700
WHOLE = ("arena/engine/", "arena/variants/")


def test_modules_stay_small_and_the_command_line_only_builds_the_tree() -> None:
    folders = (*PACKAGES, "tools", "benchmarks")
    long = {
        str(path.relative_to(ROOT)): lines
        for folder in folders
        for path in (ROOT / folder).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_LINES
        and not str(path.relative_to(ROOT)).startswith(WHOLE)
    }
    assert long == {}, f"split these along a seam: {long}"
    assert len((ROOT / "arena" / "cli.py").read_text().splitlines()) <= 150

"""Build the package's own map data files from the shared fact tables.

Run by a developer when the fact tables change (never at run time):

    python tools/build_maps.py ../shared/maps

Each fact table becomes ``arena/variants/data/<variant>.json``. Facts are
copied, validated and normalised; nothing is invented. A table's ``missing``
list is carried over verbatim, so a variant knows exactly what it lacks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "arena" / "variants" / "data"
KEEP = (
    "variant",
    "title",
    "sources",
    "checks",
    "missing",
    "uncertain",
    "partial_facts",
    "components",
    "route_points",
    "big_cities",
    "cities",
    "routes",
    "tickets",
    # San Francisco, once known: {"<location id>": "<symbol>"} for the printed stacks, and
    # the seven symbol names (the players choose which of the unprinted stacks to place).
    "tourist_stacks",
    "tourist_symbol_names",
)


def validate(table: dict) -> None:
    """Fail loudly on a table that contradicts itself."""
    cities = {c["id"] for c in table.get("cities", [])}
    for i, route in enumerate(table.get("routes", []), start=1):
        if route["id"] != i:
            raise ValueError(
                f"{table['variant']}: route ids must be 1..N in order, got {route['id']}"
            )
        if route["a"] not in cities or route["b"] not in cities:
            raise ValueError(f"{table['variant']}: route {i} names an unknown city")
        if not route["a"] < route["b"]:
            raise ValueError(f"{table['variant']}: route {i} endpoints not sorted")
    if cities:
        for ticket in table.get("tickets", []):
            if ticket["a"] not in cities or ticket["b"] not in cities:
                raise ValueError(f"{table['variant']}: ticket {ticket} names an unknown city")


def build(source_dir: Path) -> list[Path]:
    written = []
    for path in sorted(source_dir.glob("*.json")):
        table = json.loads(path.read_text())
        validate(table)
        data = {key: table[key] for key in KEEP if key in table}
        data.setdefault("missing", [])
        out = OUT / path.name
        out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        written.append(out)
    return written


if __name__ == "__main__":
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/maps")
    for written_path in build(src):
        print("wrote", written_path)

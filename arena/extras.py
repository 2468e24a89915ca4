"""What to run to add an optional extra, fitted to how this copy of the arena is installed."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def install_advice(extra: str) -> str:
    """``make EXTRA`` in a clone (an editable install beside its Makefile, which has a target
    for the extra), else ``pip install 'ttr-arena[EXTRA]'``: the advice a reader can follow."""
    makefile = ROOT / "Makefile"
    if makefile.is_file() and f"\n{extra}:" in makefile.read_text(errors="replace"):
        return f"run 'make {extra}' in {ROOT} (it installs the extra into its .venv)"
    return f"pip install 'ttr-arena[{extra}]'"

"""The soak on a real Ray cluster: 60 ladder matches mixing normal bots with the whole
hostile zoo (benchmarks/soak.py runs 1,000 and reports the figures)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parent.parent / "benchmarks" / "soak.py"
# An open defect, reported as an expected failure whenever it shows (every other problem
# fails the test): under load, a quiet bot (not one that must forfeit) now and then never
# answers one request, and is charged 'timeout' (seen in 2 of 7 soaks at load 9-10 since
# bots are frozen between turns; the decisions before it took at most 0.1 s). Its cause is
# not found: 28,000 freeze-then-thaw cycles of a cgroup by themselves never lost an answer.
QUIET_TIMEOUT = re.compile(r"match \d+: [\w-]+ was charged 'timeout': .*")


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_soak_on_ray_loses_nothing_and_charges_every_hostile_bot(tmp_path, ray_cluster):
    soak = load_soak()
    report = soak.run_soak(60, tmp_path / "data", ray_cluster, workers=2)
    known = [p for p in report.problems if QUIET_TIMEOUT.fullmatch(p)]
    assert not [p for p in report.problems if p not in known], "\n".join(report.problems)
    for bot in [*soak.FAULTING, *soak.ABUSERS, "hermit", "forker", "flooder", "snoop"]:
        assert report.figures[f"seats_{bot}"] > 0, f"{bot} never played"
    growth = report.figures["driver_rss_mb_at_end"] - report.figures["driver_rss_mb_at_10pct"]
    assert growth < 50, f"the driver grew by {growth:.0f} MB"
    referee = report.figures["referee_rss_mb_late"] - report.figures["referee_rss_mb_early"]
    assert report.figures["referee_rss_mb_max"] > 0 and referee < 50, report.figures
    if known:
        pytest.xfail(f"open defect, a quiet bot's answer never came: {'; '.join(known)}")

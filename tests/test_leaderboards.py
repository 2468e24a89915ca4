"""Leaderboards: TrueSkill per variant in a fixed order, tables, exports, and the HTML site
(opened in headless Chromium)."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from arena.tournament.executors import LocalExecutor
from arena.tournament.results import MatchResult
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore
from leaderboards.site import build_site, slug
from leaderboards.tables import head_to_head, leaderboard, rating_history

CLAIM_FIRST = "claim-first=cmd:{python} -m bots.filebot examples/python-bot"


def record(index, bots, ranks, scores=None, faults=None, variant="usa"):
    n = len(bots)
    faults = faults or {}
    return MatchResult(
        idx=index,
        variant=variant,
        seed=index,
        bots=tuple(bots),
        scores=tuple(scores or [100 - 10 * r for r in ranks]),
        ranks=tuple(ranks),
        engine_ranks=tuple(ranks),
        faults=tuple(faults.get(s, (None,))[0] for s in range(n)),
        breakdown=tuple({"total": 0} for _ in range(n)),
        decisions=1,
        seconds=0.1,
    )


def fill(store, records, name="t"):
    tid = store.tournament(name, name, {})
    for r in records:
        assert store.record(tid, r)
    return tid


SAMPLE = [
    record(0, ["a", "b", "c"], [1, 2, 3]),
    record(1, ["b", "c", "a"], [2, 3, 1]),
    record(2, ["c", "a", "b"], [3, 1, 2]),
    record(3, ["a", "b"], [1, 2]),
    record(4, ["c", "b"], [2, 1], faults={0: ("timeout", "slow")}),
    record(5, ["a", "c"], [1, 1]),
]


def test_leaderboard_ranks_by_conservative_rating_with_its_columns(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, SAMPLE)
    table = leaderboard(store, "usa")
    assert list(table.columns) == [
        "rank",
        "bot",
        "rating",
        "mu",
        "sigma",
        "games",
        "wins",
        "win_rate",
        "mean_score",
        "mean_rank",
        "forfeits",
        "last_played",
    ]
    assert list(table.bot) == ["a", "b", "c"] and list(table["rank"]) == [1, 2, 3]
    assert (table.rating == table.mu - 3 * table.sigma).all()
    assert list(table.rating) == sorted(table.rating, reverse=True)
    a = table.set_index("bot").loc["a"]
    assert (a.games, a.wins, a.mean_rank) == (5, 5, 1.0)
    assert table.set_index("bot").loc["c", "forfeits"] == 1
    assert leaderboard(store, "newyork").empty


def test_the_same_results_give_the_same_leaderboard_whatever_the_finishing_order(tmp_path):
    first, second = ResultsStore(tmp_path / "1"), ResultsStore(tmp_path / "2")
    fill(first, SAMPLE)
    fill(second, list(reversed(SAMPLE)))  # stored in the opposite order
    drop = ["last_played"]
    pd.testing.assert_frame_equal(
        leaderboard(first, "usa").drop(columns=drop), leaderboard(second, "usa").drop(columns=drop)
    )


def test_ties_stay_ties(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, [record(0, ["x", "y"], [1, 1])])
    table = leaderboard(store, "usa").set_index("bot")
    assert table.loc["x", "mu"] == pytest.approx(table.loc["y", "mu"])


def test_leaderboard_per_player_count(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, SAMPLE)
    assert leaderboard(store, "usa", players=3).games.sum() == 9
    assert leaderboard(store, "usa", players=2).games.sum() == 6


def test_head_to_head_and_history(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, SAMPLE)
    h2h = head_to_head(store, "usa").set_index(["bot", "opponent"])
    assert h2h.loc[("a", "b")].games == 4 and h2h.loc[("a", "b")].ahead == 4
    assert h2h.loc[("b", "a")].ahead == 0
    assert h2h.loc[("a", "c")].tied == 1 and h2h.loc[("c", "a")].tied == 1
    history = rating_history(store, "usa")
    assert list(history[history.bot == "a"].step) == [1, 2, 3, 4, 6]
    last = history[history.bot == "a"].iloc[-1]
    assert last.rating == pytest.approx(leaderboard(store, "usa").set_index("bot").loc["a"].rating)


def test_cli_exports(tmp_path):
    store = ResultsStore(tmp_path)
    fill(store, SAMPLE)
    store.close()

    def arena(*args):
        out = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args, "--data-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    assert "a" in arena("leaderboard", "--variant", "usa")
    rows = json.loads(arena("leaderboard", "--format", "json"))
    assert [r["bot"] for r in rows] == ["a", "b", "c"]
    csv = arena("leaderboard", "--format", "csv").splitlines()
    assert csv[0].startswith("rank,bot,rating") and csv[1].startswith("1,a,")
    assert arena("leaderboard", "--format", "md").splitlines()[0].startswith("|")


@pytest.fixture(scope="module")
def played_site(tmp_path_factory):
    """A real small tournament (real games, real logs) and its site."""
    data = tmp_path_factory.mktemp("site-data")
    spec = TournamentSpec(
        name="site", variant="usa", bots=("random", CLAIM_FIRST), players=(2,), games=2, seed=3
    )
    store = ResultsStore(data)
    TournamentRunner(spec, store, LocalExecutor(2), data, show_progress=False).run()
    out = data / "site"
    index = build_site(store, out)
    return store, out, index


def test_site_files(played_site):
    store, out, index = played_site
    assert index == out / "index.html"
    for bot in ("random", "claim-first"):
        assert (out / "bots" / f"{slug(bot)}.html").is_file()
        assert (out / "bots" / f"{slug(bot)}-usa.png").stat().st_size > 5000
    assert len(list((out / "matches").glob("*.html"))) == 4
    for page in (out / "matches").glob("*.html"):
        match_id = int(page.stem)
        assert f"<title>Match {match_id} · site, game " in page.read_text(), "titled as named"
        assert (out / "matches" / f"{match_id}.jsonl").read_bytes() == store.match_log(match_id)
        assert (out / "matches" / f"{match_id}.js").stat().st_size > 10_000
    variant_page = (out / "usa" / "index.html").read_text()
    assert 'id="leaderboard"' in variant_page and 'id="leaderboard-2"' in variant_page
    assert (out / "usa" / "h2h.html").is_file()
    for page in out.rglob("*.html"):
        assert "http://" not in page.read_text().replace("http://www.w3.org", ""), page
        assert "https://" not in page.read_text(), f"{page} must work offline"

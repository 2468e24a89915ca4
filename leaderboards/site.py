"""The static HTML site: leaderboards, head-to-head, bot pages with plots, replays.

Everything is written under one folder and works offline (no CDN): open
``index.html`` in a browser.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections import defaultdict
from importlib import resources
from pathlib import Path

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from arena.referee.matchlog import MatchLog
from arena.tournament.store import ResultsStore
from arena.variants import get_variant
from leaderboards.botlogs import forfeit_links
from leaderboards.data import StoredMatch, stored_matches
from leaderboards.replay import board_drawing, replay_steps
from leaderboards.tables import head_to_head_from, leaderboard_from, rate_with_history

RECENT = 20


def slug(name: str) -> str:
    """A file name for a bot: readable, and unique thanks to a short hash."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:40] or "bot"
    return f"{readable}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


def _safe_json(data: object) -> str:
    """JSON to embed in a <script> element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


class SiteBuilder:
    def __init__(self, store: ResultsStore, out: Path, max_replays: int | None = None) -> None:
        self.store = store
        self.out = Path(out)
        self.max_replays = max_replays
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("leaderboards", "templates"),
            autoescape=jinja2.select_autoescape(["html"]),
        )
        self.generated = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    def render(self, template: str, path: Path, **context) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        depth = len(path.relative_to(self.out).parts) - 1
        page = self.env.get_template(template).render(
            root="../" * depth,
            generated=self.generated,
            nav_variants=self.variant_names,
            **context,
        )
        path.write_text(page, encoding="utf-8")

    def build(self) -> Path:
        self.out.mkdir(parents=True, exist_ok=True)
        static = self.out / "static"
        static.mkdir(exist_ok=True)
        for name in ("style.css", "replay.js"):
            source = resources.files("leaderboards").joinpath("static", name)
            (static / name).write_text(source.read_text("utf-8"), encoding="utf-8")
        by_variant: dict[str, list[StoredMatch]] = defaultdict(list)
        for match in stored_matches(self.store):
            by_variant[match.variant].append(match)
        self.variant_names = sorted(by_variant)
        summary = []
        bot_pages: dict[str, list[dict]] = defaultdict(list)
        for name in self.variant_names:
            matches = by_variant[name]
            ratings, history = rate_with_history(matches)
            table = leaderboard_from(matches, ratings)
            title = get_variant(name).title
            summary.append(
                {
                    "name": name,
                    "title": title,
                    "matches": len(matches),
                    "bots": len(table),
                    "leader": table.bot.iloc[0] if len(table) else "",
                }
            )
            self._variant_pages(name, title, matches, table, history, bot_pages)
            drawing = board_drawing(name)
            (static / f"board-{name}.js").write_text(
                f"window.BOARD = {_safe_json(drawing)};\n", encoding="utf-8"
            )
            self._replays(name, title, matches)
        for bot, sections in bot_pages.items():
            self.render(
                "bot.html", self.out / "bots" / f"{slug(bot)}.html", bot=bot, variants=sections
            )
        self.render("index.html", self.out / "index.html", variants=summary)
        return self.out / "index.html"

    def _variant_pages(self, name, title, matches, table, history, bot_pages) -> None:
        rows = [dict(row, slug=slug(row["bot"])) for row in table.to_dict("records")]
        for row in rows:
            row["last_played"] = row["last_played"].strftime("%Y-%m-%d %H:%M")
        recent = [
            {
                "match_id": m.match_id,
                "tournament": m.tournament,
                "idx": m.idx,
                "seats": list(zip(m.bots, m.ranks, strict=True)),
                "scores": m.scores,
            }
            for m in matches[-RECENT:][::-1]
        ]
        self.render(
            "variant.html", self.out / name / "index.html", title=title, rows=rows, recent=recent
        )
        h2h = head_to_head_from(matches)
        cells = {(r["bot"], r["opponent"]): r for r in h2h.to_dict("records")}
        self.render(
            "h2h.html", self.out / name / "h2h.html", title=title, bots=list(table.bot), cells=cells
        )
        for row in rows:
            bot = row["bot"]
            plot = f"{slug(bot)}-{name}.png"
            self._plot(history[history.bot == bot], bot, title, self.out / "bots" / plot)
            played = [(m, seat) for m in matches for seat, b in enumerate(m.bots) if b == bot]
            bot_pages[bot].append(
                {
                    "name": name,
                    "title": title,
                    "rank": row["rank"],
                    "of": len(rows),
                    "rating": row["rating"],
                    "mu": row["mu"],
                    "sigma": row["sigma"],
                    "games": row["games"],
                    "wins": row["wins"],
                    "plot": plot,
                    "recent": [
                        {
                            "match_id": m.match_id,
                            "tournament": m.tournament,
                            "idx": m.idx,
                            "seat": seat,
                            "score": m.scores[seat],
                            "rank": m.ranks[seat],
                            "fault": m.faults[seat],
                        }
                        for m, seat in played[-RECENT:][::-1]
                    ],
                }
            )

    @staticmethod
    def _plot(history, bot: str, title: str, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        figure, axes = plt.subplots(figsize=(7, 3), dpi=100)
        axes.plot(history.step, history.mu, label="μ", color="#1f77b4")
        axes.fill_between(
            history.step,
            history.mu - 3 * history.sigma,
            history.mu + 3 * history.sigma,
            color="#1f77b4",
            alpha=0.15,
        )
        axes.plot(history.step, history.rating, label="μ − 3σ (rating)", color="#d62728")
        axes.set_xlabel(f"{title}: matches rated")
        axes.set_ylabel("TrueSkill")
        axes.set_title(bot, fontsize=10)
        axes.legend(loc="lower right", fontsize=8)
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)

    def _replays(self, name: str, title: str, matches: list[StoredMatch]) -> None:
        chosen = matches if self.max_replays is None else matches[-self.max_replays :]
        for match in chosen:
            raw = self.store.match_log(match.match_id)
            log = MatchLog.from_jsonl(raw)
            data = replay_steps(log)
            (self.out / "matches").mkdir(parents=True, exist_ok=True)
            (self.out / "matches" / f"{match.match_id}.jsonl").write_bytes(raw)
            forfeits = forfeit_links(log.header, log.faults, self.store.data_dir, self.out)
            self.render(
                "match.html",
                self.out / "matches" / f"{match.match_id}.html",
                title=f"{match.tournament} #{match.idx}",
                variant=name,
                variant_title=title,
                seed=data["seed"],
                faults=data["faults"],
                forfeits=forfeits,
                match_log=f"{match.match_id}.jsonl",
                match_json=_safe_json(data),
            )


def build_site(store: ResultsStore, out: Path, max_replays: int | None = None) -> Path:
    """Write the whole site under ``out``; returns the path of its index page."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    for stale in ("matches", "logs"):  # replays and logs of matches no longer stored must go
        if (out / stale).is_dir():
            shutil.rmtree(out / stale)
    return SiteBuilder(store, out, max_replays).build()

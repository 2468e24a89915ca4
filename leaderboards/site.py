"""The HTML site: leaderboards (all player counts and each count), head-to-head, bot pages
with plots, and a full-state replay viewer for every match.

One ``Site`` renders any page of the site from the results store on demand:
``build_site`` writes every page under one folder (works offline, no CDN: open
``index.html``), and ``arena serve`` (``arena.server.local``) answers the same
pages over HTTP while a tournament runs.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import time
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from arena.referee.matchlog import LogError, MatchLog, check_rules
from arena.tournament.forfeits import read_tail, reason
from arena.tournament.store import ResultsStore
from arena.variants import get_variant
from leaderboards.checkpoints import newest_sound, resumed
from leaderboards.data import StoredMatch, stored_matches
from leaderboards.ids import parse_id
from leaderboards.replay import board_drawing, replay_steps, seat_names, whole_number
from leaderboards.standings import Standings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from leaderboards.tables import RatingHistory

# pandas (leaderboards/tables.py) and matplotlib cost a second of CPU to import: they are
# imported where a board, a head-to-head or a chart is made, not by every server (the
# competition's pages use this module's replays and its safe_json) at its start.

RECENT = 20
WORST = 5
STATIC = ("style.css", "board.js", "replay.js", "live.js", "play.js")
LOG_CAP = 256 * 1024  # bytes of a bot's log copied into the site
LOG_SUFFIXES = (".stderr", ".stdout", ".log", ".txt")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".png": "image/png",
    ".jsonl": "application/x-ndjson",
    ".txt": "text/plain; charset=utf-8",
}


def slug(name: str) -> str:
    """A file name for a bot: readable, and unique thanks to a short hash."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:40] or "bot"
    return f"{readable}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


def safe_json(data: object) -> str:
    """JSON to embed in a <script> element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def static_text(name: str) -> str:
    return resources.files("leaderboards").joinpath("static", name).read_text("utf-8")


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("leaderboards", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
    )


def seat_log_paths(seat_entry: dict[str, Any], base: Path | None) -> dict[str, Path]:
    """The bot's own log files named in a match-log header's seat entry, where they exist:
    ``{"stderr": PATH, "stdout": PATH}`` (also ``{"logs": {...}}``, ``stderr_log`` and
    ``stderr_path``). The referee names them relative to the data folder ``base``; from a
    store only such paths count (never an absolute one, never ``..``), so a hand-edited
    log cannot copy other files into the site. ``base=None`` (a log opened on its own)
    also takes absolute paths."""
    logs = seat_entry.get("logs")
    named = dict(logs) if isinstance(logs, dict) else {}
    for kind in ("stderr", "stdout"):
        for key in (kind, f"{kind}_log", f"{kind}_path"):
            if isinstance(seat_entry.get(key), str):
                named[kind] = seat_entry[key]
    found = {}
    for kind, text in named.items():
        if kind not in ("stderr", "stdout") or not isinstance(text, str) or not text:
            continue
        path = Path(text)
        if ".." in path.parts or (path.is_absolute() and base is not None):
            continue
        if not path.is_absolute():
            path = (base if base is not None else Path.cwd()) / path
        if path.suffix in LOG_SUFFIXES and path.is_file():
            found[kind] = path
    return found


def read_capped(path: Path, cap: int = LOG_CAP) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(cap + 1)
    if len(data) > cap:
        data = data[:cap] + f"\n[ttr-arena: cut at {cap} bytes]\n".encode()
    return data


def match_title(match: StoredMatch | None, match_id: int | str) -> str:
    if match is None:
        return f"Match {match_id}"
    return f"Match {match.match_id} · {match.tournament}, game {match.idx}"


def seat_links(log: MatchLog, base: Path | None, href) -> list[dict[str, str]]:
    """Per seat, the links to its bot's log files (``href(seat, kind, path)`` makes each)."""
    return [
        {kind: href(seat, kind, path) for kind, path in seat_log_paths(entry, base).items()}
        for seat, entry in enumerate(log.header.get("seats", []))
    ]


def fault_rows(
    log: MatchLog, base: Path | None, links: list[dict[str, str]]
) -> list[dict[str, Any]]:
    """The match's faults for the page: who, at which step, the reason (the error the bot's
    stderr names, for a crash), links to logs."""
    rows = []
    seats = log.header.get("seats", [])
    for fault in log.faults:
        seat = whole_number(fault.get("seat"))
        own = links[seat] if seat < len(links) else {}
        stderr = seat_log_paths(seats[seat], base).get("stderr") if seat < len(seats) else None
        why = reason(str(fault.get("code", "")), str(fault.get("detail") or ""), read_tail(stderr))
        rows.append(dict(fault, seat=seat, reason=why, links=list(own.items())))
    return rows


def match_page_data(log: MatchLog, download: str | None, logs: list[dict[str, str]]) -> dict:
    """The viewer's data for one match: its steps plus where its files are."""
    data = replay_steps(log)
    data["download"] = download
    data["seat_logs"] = logs
    return data


@dataclass
class Snapshot:
    """Everything the pages need, computed once from one read of the store. ``starts``:
    standings to resume each variant's boards from (``leaderboards.checkpoints.resumed``:
    one that does not hold exactly the matches read is not used); ``earlier_histories``:
    rating histories of an earlier read to extend, the same way."""

    matches: list[StoredMatch]
    starts: dict[str, list[Standings]] = field(default_factory=dict)
    earlier_histories: dict[str, RatingHistory] = field(default_factory=dict)
    by_variant: dict[str, list[StoredMatch]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        grouped: dict[str, list[StoredMatch]] = defaultdict(list)
        for match in self.matches:
            grouped[match.variant].append(match)
        self.by_variant = dict(sorted(grouped.items()))
        self.by_id = {m.match_id: m for m in self.matches}
        self._histories: dict[str, RatingHistory] = {}
        self._standings: dict[str, Standings] = {}
        self._boards: dict[str, dict] = {}

    def history(self, variant: str) -> RatingHistory:
        """The variant's rating history, extending an earlier read's that holds exactly the
        first of these matches."""
        if variant not in self._histories:
            matches = self.by_variant[variant]
            ids = [m.match_id for m in matches]
            earlier = self.earlier_histories.get(variant)
            if earlier is not None and bisect_right(ids, earlier.position) == earlier.steps:
                history = earlier.copy()
            else:
                from leaderboards.tables import RatingHistory

                history = RatingHistory()
            self._histories[variant] = history.extend(matches[history.steps :])
        return self._histories[variant]

    def computed_histories(self) -> dict[str, RatingHistory]:
        return dict(self._histories)

    def standings(self, variant: str) -> Standings:
        if variant not in self._standings:
            starts = self.starts.get(variant, [])
            self._standings[variant] = resumed(variant, self.by_variant[variant], starts)
        return self._standings[variant]

    def computed_standings(self) -> dict[str, Standings]:
        """The standings computed so far (the next read can resume from them)."""
        return dict(self._standings)

    def boards(self, variant: str) -> dict:
        if variant not in self._boards:
            from leaderboards.tables import frames

            self._boards[variant] = frames(self.standings(variant))
        return self._boards[variant]

    @cached_property
    def bots(self) -> list[str]:
        return sorted({bot for m in self.matches for bot in m.bots})


class Site:
    """Renders the pages of the site from the results store."""

    def __init__(
        self,
        store: ResultsStore,
        max_replays: int | None = None,
        live: bool = False,
        include_tests: bool = False,
    ) -> None:
        self.store = store
        self.max_replays = max_replays
        self.live = live
        # The boards count rankings; tests only when asked; people's games never
        # (``arena.tournament.views``). Every stored match still has its replay page.
        self.include_tests = include_tests
        # What the live pages' event stream is told the page was made from (``arena
        # serve`` sets it at each rendering): a change in between is then told at once.
        self.live_since = ""
        self.env = environment()
        self._previous: Snapshot | None = None
        self.epoch: int | None = None
        self.refresh()

    def refresh(self) -> None:
        """Read the store again (new matches). The boards resume from the store's rating
        checkpoints (of the default view only: with tests included, from nothing), or from
        this site's own boards of the last read (``arena serve`` never writes, so it keeps
        its own), whichever goes further."""
        with self.store.read_snapshot():
            epoch = self.store.ratings_epoch()
            leave_out = self.store.left_out(self.include_tests)
            matches = stored_matches(self.store, leave_out=leave_out)
            variants = {m.variant for m in matches}
            starts: dict[str, list[Standings]] = {}
            if not self.include_tests:
                starts = {
                    v: [newest_sound(self.store, v, self.store.rating_checkpoints(v), leave_out)[0]]
                    for v in variants
                }
        previous = self._previous
        histories = {}
        if previous is not None and epoch is not None and epoch == self.epoch:
            for variant, standings in previous.computed_standings().items():
                starts.setdefault(variant, []).append(standings)
            histories = previous.computed_histories()
        self.epoch = epoch
        self.snapshot = self._previous = Snapshot(matches, starts, histories)
        self.generated = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())

    # ---------------------------------------------------------------- the pages

    def paths(self) -> list[str]:
        """Every file of the site (relative paths)."""
        snap = self.snapshot
        paths = ["index.html", *(f"static/{name}" for name in STATIC)]
        for name, matches in snap.by_variant.items():
            paths += [f"static/board-{name}.js", f"{name}/index.html", f"{name}/h2h.html"]
            table = snap.boards(name)[None]
            paths += [f"bots/{slug(bot)}-{name}.png" for bot in table.bot]
            chosen = matches if self.max_replays is None else matches[-self.max_replays :]
            for match in chosen:
                base = f"matches/{match.match_id}"
                paths += [f"{base}.html", f"{base}.js", f"{base}.jsonl"]
                paths += [f"{base}/{name}" for name in self._log_files(match.match_id)]
        paths += [f"bots/{slug(bot)}.html" for bot in snap.bots]
        return paths

    def render(self, path: str) -> bytes | None:
        """The bytes of one page or file, or None when the site has no such path."""
        parts = path.strip("/").split("/")
        snap = self.snapshot
        try:
            if parts == ["index.html"] or parts == [""]:
                return self._index()
            if parts[0] == "static" and len(parts) == 2:
                name = parts[1]
                if name in STATIC:
                    return static_text(name).encode()
                found = re.fullmatch(r"board-(.+)\.js", name)
                if found:  # any installed variant (a replay off the boards needs its map too)
                    drawing = board_drawing(found.group(1))
                    return f"window.BOARD = {safe_json(drawing)};\n".encode()
                return None
            if len(parts) == 2 and parts[0] in snap.by_variant:
                if parts[1] == "index.html":
                    return self._variant(parts[0])
                if parts[1] == "h2h.html":
                    return self._h2h(parts[0])
                return None
            if parts[0] == "bots" and len(parts) == 2:
                return self._bot_file(parts[1])
            if parts[0] == "matches":
                return self._match_file(parts[1:])
        except (KeyError, LogError, OSError):
            return None
        return None

    def page(self, template: str, path: str, **context: Any) -> bytes:
        depth = path.count("/")
        return (
            self.env.get_template(template)
            .render(
                root="../" * depth,
                generated=self.generated,
                nav_variants=list(self.snapshot.by_variant),
                live=self.live,
                live_since=self.live_since,
                **context,
            )
            .encode()
        )

    def _index(self) -> bytes:
        summary = []
        for name, matches in self.snapshot.by_variant.items():
            table = self.snapshot.boards(name)[None]
            summary.append(
                {
                    "name": name,
                    "title": get_variant(name).title,
                    "matches": len(matches),
                    "bots": len(table),
                    "leader": table.bot.iloc[0] if len(table) else "",
                }
            )
        recent = [self._match_row(m) for m in self.snapshot.matches[-RECENT:][::-1]]
        return self.page("index.html", "index.html", variants=summary, recent=recent)

    def _match_row(self, m: StoredMatch) -> dict[str, Any]:
        return {
            "match_id": m.match_id,
            "title": match_title(m, m.match_id),
            "variant": m.variant,
            "players": len(m.bots),
            "seats": list(zip(m.bots, m.ranks, m.faults, strict=True)),
            "scores": m.scores,
        }

    def _variant(self, name: str) -> bytes:
        boards = []
        for count, table in self.snapshot.boards(name).items():
            rows = [dict(row, slug=slug(row["bot"])) for row in table.to_dict("records")]
            for row in rows:
                row["last_played"] = row["last_played"].strftime("%Y-%m-%d %H:%M")
            label = "all player counts" if count is None else f"{count} players"
            boards.append({"count": count or "all", "label": label, "rows": rows})
        matches = self.snapshot.by_variant[name]
        recent = [self._match_row(m) for m in matches[-RECENT:][::-1]]
        return self.page(
            "variant.html",
            f"{name}/index.html",
            title=get_variant(name).title,
            boards=boards,
            recent=recent,
        )

    def _h2h(self, name: str) -> bytes:
        from leaderboards.tables import head_to_head_from

        matches = self.snapshot.by_variant[name]
        h2h = head_to_head_from(matches)
        cells = {(r["bot"], r["opponent"]): r for r in h2h.to_dict("records")}
        bots = list(self.snapshot.boards(name)[None].bot)
        return self.page(
            "h2h.html", f"{name}/h2h.html", title=get_variant(name).title, bots=bots, cells=cells
        )

    # ---------------------------------------------------------------- bot pages

    def _bot_file(self, name: str) -> bytes | None:
        for bot in self.snapshot.bots:
            base = slug(bot)
            if name == f"{base}.html":
                return self._bot_page(bot)
            for variant in self.snapshot.by_variant:
                if name == f"{base}-{variant}.png":
                    return self._plot(bot, variant)
        return None

    def _bot_page(self, bot: str) -> bytes:
        sections = []
        for variant, matches in self.snapshot.by_variant.items():
            played = [(m, seat) for m in matches for seat, b in enumerate(m.bots) if b == bot]
            if not played:
                continue
            table = self.snapshot.boards(variant)[None]
            row = table[table.bot == bot].iloc[0]
            # Seat 0 of a 2-player game is not seat 0 of a 4-player one: per count.
            by_seat: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
            for m, seat in played:
                by_seat[len(m.bots), seat][0] += 1
                by_seat[len(m.bots), seat][1] += m.ranks[seat] == 1
            losses = [
                (max(m.scores) - m.scores[seat], m, seat) for m, seat in played if m.ranks[seat] > 1
            ]
            losses.sort(key=lambda item: (-item[0], item[1].match_id))
            sections.append(
                {
                    "name": variant,
                    "title": get_variant(variant).title,
                    "rank": int(row["rank"]),
                    "of": len(table),
                    "rating": row["rating"],
                    "mu": row["mu"],
                    "sigma": row["sigma"],
                    "games": int(row["games"]),
                    "wins": int(row["wins"]),
                    "plot": f"{slug(bot)}-{variant}.png",
                    "seats": [
                        {"players": n, "seat": s, "games": g, "wins": w, "rate": w / g}
                        for (n, s), (g, w) in sorted(by_seat.items())
                    ],
                    "worst": [
                        dict(self._game_row(m, seat), margin=margin)
                        for margin, m, seat in losses[:WORST]
                    ],
                    "faults": [
                        dict(self._game_row(m, seat), reason=self._fault_reason(m, seat))
                        for m, seat in played
                        if m.faults[seat]
                    ][::-1],
                    "recent": [self._game_row(m, seat) for m, seat in played[-RECENT:][::-1]],
                }
            )
        return self.page("bot.html", f"bots/{slug(bot)}.html", bot=bot, variants=sections)

    @staticmethod
    def _game_row(m: StoredMatch, seat: int) -> dict[str, Any]:
        return {
            "match_id": m.match_id,
            "title": match_title(m, m.match_id),
            "seat": seat,
            "players": len(m.bots),
            "score": m.scores[seat],
            "best": max(m.scores),
            "rank": m.ranks[seat],
            "fault": m.faults[seat],
        }

    def _fault_reason(self, m: StoredMatch, seat: int) -> str:
        log = self._log(m.match_id)
        rows = [row for row in fault_rows(log, self.store.data_dir, []) if row["seat"] == seat]
        return rows[-1]["reason"] if rows else "(no detail recorded)"

    def rating_figure(self, bot: str, variant: str) -> Figure:
        """The bot page's rating plot of ``bot`` in ``variant`` (``rating_figure``)."""
        history = self.snapshot.history(variant).frame()
        return rating_figure(history[history.bot == bot], bot, get_variant(variant).title)

    def _plot(self, bot: str, variant: str) -> bytes:
        figure = self.rating_figure(bot, variant)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        pyplot().close(figure)
        return buffer.getvalue()

    # ---------------------------------------------------------------- matches

    def _log(self, match_id: int) -> MatchLog:
        return MatchLog.from_jsonl(self.store.match_log(match_id))

    def _log_files(self, match_id: int) -> list[str]:
        """The bots' log files of a match that can be copied into the site."""
        try:
            header = self._log(match_id).header
        except (KeyError, LogError):
            return []
        return [
            f"seat{s}-{kind}.txt"
            for s, entry in enumerate(header.get("seats", []))
            for kind in seat_log_paths(entry, self.store.data_dir)
        ]

    def _match_file(self, parts: list[str]) -> bytes | None:
        # Ids by parse_id only: ASCII digits in SQLite's range (a larger one would overflow
        # the query; another script's digits would be another name for the same match).
        found = re.fullmatch(r"([0-9]+)\.(html|js|jsonl)", parts[0]) if len(parts) == 1 else None
        match_id = parse_id(found.group(1)) if found else None
        if found and match_id is not None:
            kind = found.group(2)
            if kind == "jsonl":
                return self.store.match_log(match_id)
            log = self._log(match_id)
            if kind == "js":
                logs = self._seat_links(match_id, log)
                data = match_page_data(log, f"{match_id}.jsonl", logs)
                match = self.snapshot.by_id.get(match_id)
                if match is not None:
                    data["bot_links"] = [f"../bots/{slug(b)}.html" for b in match.bots]
                return f"window.MATCH = {safe_json(data)};\n".encode()
            return self._match_page(match_id, log)
        match_id = parse_id(parts[0]) if len(parts) == 2 else None
        if match_id is not None:
            seat_file = re.fullmatch(r"seat([0-9]{1,3})-(stderr|stdout)\.txt", parts[1])
            if seat_file:
                seats = self._log(match_id).header.get("seats", [])
                seat, kind = int(seat_file.group(1)), seat_file.group(2)
                if seat < len(seats):
                    path = seat_log_paths(seats[seat], self.store.data_dir).get(kind)
                    if path is not None:
                        return read_capped(path)
        return None

    def _seat_links(self, match_id: int, log: MatchLog) -> list[dict[str, str]]:
        return seat_links(
            log, self.store.data_dir, lambda seat, kind, _path: f"{match_id}/seat{seat}-{kind}.txt"
        )

    def _match_page(self, match_id: int, log: MatchLog) -> bytes:
        variant = log.header["variant"]
        try:
            check_rules(log.header)
            refused = None
        except LogError as error:  # recorded under older rules: the page says so, no viewer
            refused = str(error)
        # A match off the boards (a test, a person's game) is not in the snapshot: its title
        # comes from the store.
        stored = self.snapshot.by_id.get(match_id) or self.store.match_result(match_id)
        return self.page(
            "match.html",
            f"matches/{match_id}.html",
            title=match_title(stored, match_id),
            variant=variant,
            variant_title=get_variant(variant).title,
            seed=log.header.get("seed"),
            game_id=log.header.get("game_id", ""),
            seats=seat_names(log.header),
            faults=fault_rows(log, self.store.data_dir, self._seat_links(match_id, log)),
            download=f"{match_id}.jsonl",
            data_script=f"{match_id}.js",
            refused=refused,
        )


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (files, never a window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot


def rating_figure(mine: Any, bot: str, title: str) -> Figure:
    """μ with its ±3σ band and the rating μ − 3σ, against the bot's own games (1, 2, …:
    integer ticks), the legend beside the axes so it covers no line. ``mine``: the bot's
    rows of a rating history (columns ``mu``, ``sigma``, ``rating``)."""
    from matplotlib.ticker import MaxNLocator

    games = list(range(1, len(mine) + 1))
    figure, axes = pyplot().subplots(figsize=(7, 3.2), dpi=100)
    axes.fill_between(
        games,
        mine.mu - 3 * mine.sigma,
        mine.mu + 3 * mine.sigma,
        color="#1f77b4",
        alpha=0.15,
        label="μ ± 3σ",
    )
    axes.plot(games, mine.mu, label="μ", color="#1f77b4", marker="." if len(games) < 40 else "")
    axes.plot(games, mine.rating, label="rating μ − 3σ", color="#d62728")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(f"{bot}'s games of {title}")
    axes.set_ylabel("TrueSkill")
    axes.set_title(bot, fontsize=10)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    figure.tight_layout()
    return figure


def build_site(
    store: ResultsStore, out: Path, max_replays: int | None = None, include_tests: bool = False
) -> Path:
    """Write the whole site under ``out`` (its boards count tests with ``include_tests``);
    returns the path of its index page."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    if (out / "matches").is_dir():
        shutil.rmtree(out / "matches")  # replays of matches no longer stored must go
    site = Site(store, max_replays, include_tests=include_tests)
    for path in site.paths():
        data = site.render(path)
        if data is None:
            continue
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return out / "index.html"


def standalone_replay(
    log: MatchLog, title: str, download: str | None = None, base: Path | None = None
) -> str:
    """One self-contained HTML page replaying ``log`` (``arena view``): styles, scripts and
    data inline, so the file opens anywhere, offline. ``base``: the data folder the log's
    bot-log paths are relative to."""
    variant = log.header["variant"]
    logs = seat_links(log, base, lambda _seat, _kind, path: path.resolve().as_uri())
    data = match_page_data(log, download, logs)
    script = "\n".join(
        [
            f"window.BOARD = {safe_json(board_drawing(variant))};",
            f"window.MATCH = {safe_json(data)};",
            static_text("board.js"),
            static_text("replay.js"),
        ]
    )
    return (
        environment()
        .get_template("match.html")
        .render(
            root="",
            standalone=True,
            generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            nav_variants=[],
            inline_css=static_text("style.css"),
            inline_js=script.replace("</script", "<\\/script"),
            title=title,
            variant=variant,
            variant_title=get_variant(variant).title,
            seed=log.header.get("seed"),
            game_id=log.header.get("game_id", ""),
            seats=seat_names(log.header),
            faults=fault_rows(log, base, logs),
            download=download,
        )
    )

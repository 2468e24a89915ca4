"""Results for grading: one row per bot version and board, with its owner and the owner's
team (if any), its final and ladder places, its rating, games, wins and faults by code;
voided matches left out, as on the boards (the ladder rank here is the board's rank).

The same rows for ``/admin/export`` and ``arena admin export``: the command line reads
what the competition is (its name, boards, and whether the final counts the ladder's
games) from the data folder, where ``arena host`` records it at start (``describe``).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from arena.server.accounts import Accounts
from arena.server.boards import LiveBoard
from arena.server.competition import Competition, final_name, ladder_name
from arena.server.finals import final_rows, ladder_rows
from arena.tournament.store import ResultsStore

KEY = "competition"
FORMATS = ("csv", "json")
# The owner is the account that uploaded the version; the team, the owner's team now
# (empty when none).
COLUMNS = (
    "board", "owner", "team", "bot", "version", "label", "final_round", "final_rank",
    "final_tied", "ladder_rank", "rating", "mu", "sigma", "games", "wins", "final_games",
    "final_wins", "disabled",
)  # fmt: skip


@dataclass(frozen=True)
class Described:
    """What an export needs of a competition, kept in the data folder."""

    name: str
    boards: list[tuple[str, int]]
    with_ladder: bool


def describe(competition: Competition, accounts: Accounts) -> None:
    """Record the competition's name and boards in its data folder (at each start)."""
    described = Described(competition.name, list(competition.boards), competition.final.with_ladder)
    accounts.set_setting(KEY, json.dumps(asdict(described)))


def described(accounts: Accounts) -> Described | None:
    found = accounts.setting(KEY)
    if found is None:
        return None
    data = json.loads(found)
    return Described(data["name"], [tuple(b) for b in data["boards"]], data["with_ladder"])


def standings(store: ResultsStore, accounts: Accounts, what: Described) -> list[dict[str, Any]]:
    """Every version on every board (ladder rank order, then the versions off the boards),
    as the export's rows; fault columns ``faults_CODE`` for every code that occurred."""
    voided, hidden = accounts.voided(), accounts.hidden()
    owners, teams = accounts.owners(), accounts.team_names()
    out: list[dict[str, Any]] = []
    for variant, players in what.boards:
        board = f"{variant}-{players}p"
        ladder = ladder_name(what.name, variant, players)
        ladder_matches = store.results(ladder, details=False)
        live = LiveBoard(ladder)
        everyone = live.update(store, voided).rows()
        shown = {row["bot"]: row for row in ladder_rows(everyone, hidden)}
        rounds = accounts.final_rounds(board)
        final: dict[str, dict[str, Any]] = {}
        final_matches: list = []
        if rounds:
            last = rounds[-1]
            final_matches = store.results(
                final_name(what.name, variant, players, last.number), details=False
            )
            prior = ladder_matches if what.with_ladder else []
            final = {
                row["bot"]: {**row, "round": last.number}
                for row in final_rows(final_matches, voided, hidden, prior)
            }
        faults: dict[str, Counter[str]] = defaultdict(Counter)
        for match in [*ladder_matches, *final_matches]:
            if match.match_id in voided:
                continue
            for bot, fault in zip(match.bots, match.faults, strict=True):
                if fault is not None:
                    faults[bot][fault] += 1
        labels = [row["bot"] for row in everyone]
        labels += sorted({*final, *faults} - set(labels))
        for label in labels:
            key, _, version = label.rpartition("@")
            row = shown.get(label, {})
            placed = final.get(label, {})
            owner = owners.get(label, key.partition(".")[0])
            out.append(
                {
                    "board": board,
                    "owner": owner,
                    "team": teams.get(owner, ""),
                    "bot": key.partition(".")[2],
                    "version": int(version) if version.isdigit() else version,
                    "label": label,
                    "final_round": placed.get("round"),
                    "final_rank": placed.get("rank"),
                    "final_tied": placed.get("tied"),
                    "ladder_rank": row.get("rank"),
                    "rating": row.get("rating"),
                    "mu": row.get("mu"),
                    "sigma": row.get("sigma"),
                    "games": row.get("games", 0),
                    "wins": row.get("wins", 0),
                    "final_games": placed.get("games", 0),
                    "final_wins": placed.get("wins", 0),
                    "disabled": hidden.get(label, ""),
                    "faults": dict(sorted(faults[label].items())),
                }
            )
    out.sort(key=lambda r: (r["board"], r["ladder_rank"] is None, r["ladder_rank"] or 0))
    return out


def as_json(name: str, rows: list[dict[str, Any]]) -> str:
    return json.dumps({"competition": name, "standings": rows}, indent=1) + "\n"


def as_csv(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV: the columns above, then one ``faults_CODE`` column per code seen."""
    codes = sorted({code for row in rows for code in row["faults"]})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*COLUMNS, *(f"faults_{code}" for code in codes)])
    for row in rows:
        cells = ["" if row[c] is None else _cell(row[c]) for c in COLUMNS]
        writer.writerow([*cells, *(row["faults"].get(code, 0) for code in codes)])
    return out.getvalue()


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    text = str(value)
    # A cell a spreadsheet would run as a formula (an admin's reason may start so): quoted.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def hosted_boards(
    store: ResultsStore, accounts: Accounts, what: Described, variant: str, players: int | None
) -> list[tuple[str, list[dict[str, Any]]]]:
    """A hosted competition's boards of ``variant`` as its pages show them, apart: each
    ladder, then each round of its final; voided matches and disabled versions left out."""
    voided, hidden = accounts.voided(), accounts.hidden()
    found: list[tuple[str, list[dict[str, Any]]]] = []
    for board_variant, count in what.boards:
        if board_variant != variant or players not in (None, count):
            continue
        ladder = ladder_name(what.name, variant, count)
        rows = LiveBoard(ladder).update(store, voided).rows()
        found.append((f"ladder {ladder}", ladder_rows(rows, hidden)))
        prior = store.results(ladder, details=False) if what.with_ladder else []
        for fixed in accounts.final_rounds(f"{variant}-{count}p"):
            name = final_name(what.name, variant, count, fixed.number)
            matches = store.results(name, details=False)
            found.append((f"final {name}", final_rows(matches, voided, hidden, prior)))
    return found

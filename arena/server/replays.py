"""What a visitor may see of one match: its log and its replay, filtered here and nowhere else.

The static site's viewer shows a match's full state (every hand, every ticket): that site
is the organiser's own. On a hosted competition the match log and the viewer's data are
filtered per visitor before they are sent (``Sight``: the seats whose hidden information a
visitor may see):

- everyone allowed to see the match (``access.sees_match``) sees what any spectator at
  the table could know: the moves (with what they reveal: the route claimed, the cards
  paid, the face-up card taken), the public state at every step (trains, routes, hand
  and ticket *counts*, the face-up cards), each seat's points from routes, the final
  scoring table, fault codes, decision times;
- a bot's owner (and their team: ``User.speaks_for``) also sees their own seats'
  observations (hand, tickets, offered tickets), score so far with tickets, the lines
  their bot wrote to stderr and its notes at each decision, and their faults' details;
- an admin (the organiser) sees everything, the seed included.

Nobody else sees the seed (with it the deal, hence every hand, follows), the server's
log paths, another seat's hand, tickets, stderr, notes, protocol events or fault details.
The rules are allowlists: a field an edition adds later is hidden until it is named here.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from arena.referee.matchlog import MatchLog
from leaderboards.replay import MISSING, apply_patch, json_patch, replay_steps

# Observation fields every seat's observation holds alike (the common state of the table).
PUBLIC_FIELDS = frozenset(
    {
        "variant", "seat", "players", "first_player", "turn", "phase", "to_move", "display",
        "deck_size", "discards", "ticket_deck_size", "public", "passes", "last_round",
        "turns_left", "claimed", "tourist_stacks", "stacks_to_place", "stack_symbols",
        "token_choices", "tickets_out", "tunnel", "merchandise_left", "round", "chosen",
    }
)  # fmt: skip
# A step of the viewer's data: what every visitor sees, and what only the mover's owner sees.
STEP_FIELDS = frozenset({"n", "seat", "action", "text", "by", "ms", "over"})
OWN_STEP_FIELDS = frozenset({"stderr", "note", "notes", "events"})
# A match log's lines, by type: the fields every visitor sees.
HEADER_FIELDS = frozenset(
    {"type", "protocol", "engine", "match_id", "game_id", "variant", "rules", "players",
     "time_control"}
)  # fmt: skip
SEAT_FIELDS = frozenset({"seat", "bot", "version"})
ACTION_FIELDS = frozenset({"type", "n", "seat", "action", "ms", "by"})
OWN_ACTION_FIELDS = frozenset({"note", "stderr"})
FAULT_FIELDS = frozenset({"type", "seat", "code", "decision"})
RESULT_FIELDS = frozenset({"type", "scores", "ranks", "engine_ranks", "breakdown"})
# Actions whose arguments name what the mover holds, hidden from others until the rules
# reveal it: the Card Game's ticket completed at a scoring (shown once every seat chose).
SECRET_ARGUMENTS = {"complete": "completes a ticket"}


@dataclass(frozen=True)
class Sight:
    """Whose hidden information a visitor may see: ``seats`` (their own), or ``everything``."""

    seats: frozenset[int] = frozenset()
    everything: bool = False

    def sees(self, seat: Any) -> bool:
        return self.everything or seat in self.seats


def sight_of(user: Any, owners: list[str | None]) -> Sight:
    """What ``user`` sees of a match whose seats ``owners`` hold (admins: everything)."""
    if user is None:
        return Sight()
    if user.admin:
        return Sight(everything=True)
    return Sight(frozenset(seat for seat, owner in enumerate(owners) if user.speaks_for(owner)))


# ------------------------------------------------------------------ the match log (JSONL)


def visible_log(raw: bytes, sight: Sight) -> bytes:
    """The match log as ``sight`` may read it (the organiser: exactly as stored)."""
    if sight.everything:
        return raw
    out = []
    for text in raw.splitlines():
        try:
            line = json.loads(text)
        except ValueError:
            continue
        shown = visible_line(line, sight) if isinstance(line, dict) else None
        if shown is not None:
            out.append(json.dumps(shown, separators=(",", ":")).encode() + b"\n")
    return b"".join(out)


def visible_line(line: dict[str, Any], sight: Sight) -> dict[str, Any] | None:
    kind = line.get("type")
    if kind == "header":
        shown = _only(line, HEADER_FIELDS)
        shown["seats"] = [
            _only(s, SEAT_FIELDS) for s in line.get("seats", []) if isinstance(s, dict)
        ]
        return shown
    if kind == "action":
        seat = line.get("seat")
        shown = _only(line, ACTION_FIELDS | (OWN_ACTION_FIELDS if sight.sees(seat) else set()))
        if not sight.sees(seat):
            shown["action"] = public_action(str(line.get("action", "")))
        return shown
    if kind == "fault":
        return _only(line, FAULT_FIELDS | ({"detail"} if sight.sees(line.get("seat")) else set()))
    if kind == "result":
        return _only(line, RESULT_FIELDS)
    return None  # protocol events (about one seat's messages) and anything unknown


def public_action(action: str) -> str:
    """An action as the other seats see it: without the arguments that name what it holds."""
    verb = action.split(" ", 1)[0]
    return verb if verb in SECRET_ARGUMENTS else action


def _only(line: dict[str, Any], fields: frozenset[str] | set[str]) -> dict[str, Any]:
    return {key: value for key, value in line.items() if key in fields}


# ------------------------------------------------------------------ the viewer's data


def visible_replay(data: dict[str, Any], sight: Sight) -> dict[str, Any]:
    """The viewer's data (``leaderboards.replay.replay_steps``) as ``sight`` may see it:
    every step's observations rebuilt, the hidden seats' reduced to what the table knows,
    and patched again (the viewer's ``replay.js`` reads it unchanged)."""
    if sight.everything:
        return data
    seats = len(data["seats"])
    shown: dict[str, Any] = {
        key: data[key] for key in ("game_id", "match_id", "variant", "seats") if key in data
    }
    shown["seat_info"] = [_only(s, SEAT_FIELDS) for s in data.get("seat_info", [])]
    shown["faults"] = [_fault(f, sight) for f in data.get("faults", [])]
    shown["result"] = _only(data["result"], RESULT_FIELDS) if data.get("result") else None
    observations: list[Any] = [None] * seats
    organiser: Any = None
    before_obs: list[Any] = [MISSING] * seats
    before_org: Any = MISSING
    steps = []
    for step in data["steps"]:
        observations = [
            apply_patch(obs, patch) for obs, patch in zip(observations, step["obs"], strict=True)
        ]
        organiser = apply_patch(organiser, step["org"])
        now_obs = [
            obs if sight.sees(seat) else public_observation(observations, seat)
            for seat, obs in enumerate(observations)
        ]
        now_org = public_organiser(organiser, now_obs, sight)
        seat = step.get("seat")
        fields = STEP_FIELDS | (OWN_STEP_FIELDS if sight.sees(seat) else set())
        out = _only(step, fields)
        if "action" in out and not sight.sees(seat):
            out["action"] = public_action(out["action"])
            verb = out["action"].split(" ", 1)[0]
            if verb in SECRET_ARGUMENTS:
                out["text"] = f"{data['seats'][seat]} {SECRET_ARGUMENTS[verb]}"
        if step.get("faults"):
            out["faults"] = [_fault(f, sight) for f in step["faults"]]
        out["obs"] = [_patch(old, new) for old, new in zip(before_obs, now_obs, strict=True)]
        out["org"] = _patch(before_org, now_org)
        steps.append(out)
        before_obs, before_org = now_obs, now_org
    shown["steps"] = steps
    final = data.get("final")
    if final:
        final = dict(final)
        for key in ("tickets", "borrowed"):  # the tickets themselves, and what they chose
            final[key] = [v if sight.sees(s) else [] for s, v in enumerate(final.get(key, []))]
    shown["final"] = final
    return shown


def public_observation(observations: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """Seat ``seat``'s observation without what only it knows: the common fields, and its
    own public row as the next seat sees it (during the initial choice, its ticket count
    is hidden from the others too)."""
    obs = observations[seat]
    public = _only(obs, PUBLIC_FIELDS)
    rows = list(obs.get("public", []))
    if len(observations) > 1 and seat < len(rows):
        other = observations[(seat + 1) % len(observations)]
        rows[seat] = other["public"][seat]
    public["public"] = rows
    return public


def public_organiser(org: dict[str, Any], observations: list[dict[str, Any]], sight: Sight):
    """The score so far of each seat: in full for the seats seen, else only its points from
    routes and from tickets completed in the open (the Card Game's), which the table sees."""
    scores, done = [], []
    for seat, obs in enumerate(observations):
        if sight.sees(seat):
            scores.append(org["score"][seat])
            done.append(org["done"][seat])
            continue
        row = obs["public"][seat]
        score: dict[str, int] = {}
        if "route_points" in row:
            score["routes"] = row["route_points"]
        if row.get("completed"):
            score["tickets_done"] = sum(t["points"] for t in row["completed"])
        score["total"] = sum(score.values())
        scores.append(score)
        done.append([])
    return {"score": scores, "done": done}


def _fault(fault: dict[str, Any], sight: Sight) -> dict[str, Any]:
    return _only(fault, FAULT_FIELDS | ({"detail"} if sight.sees(fault.get("seat")) else set()))


def _patch(old: Any, new: Any) -> Any:
    patch = json_patch(old, new)
    return {"$d": {}} if patch is MISSING else patch


# ------------------------------------------------------------------ made once per match


class Replays:
    """Each match's full replay, made once and kept for the most recent few: a stored
    match never changes, and replaying it costs some fifty times verifying it."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.kept: OrderedDict[int, dict[str, Any]] = OrderedDict()

    def full(self, match_id: int, raw: bytes) -> dict[str, Any]:
        with self.lock:
            found = self.kept.get(match_id)
            if found is not None:
                self.kept.move_to_end(match_id)
                return found
        data = replay_steps(MatchLog.from_jsonl(raw))
        with self.lock:
            self.kept[match_id] = data
            while len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return data


def embedded_json(data: Any) -> str:
    """JSON for a ``<script type="application/json">`` element: no ``<``, ``>`` or ``&``
    that could end the element or be read as markup."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

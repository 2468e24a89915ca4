"""Replay data for the viewer: the board projected for drawing, and the game step by step.

Every step holds the full state as the engine's public API shows it: each
seat's observation (``state.observation(seat)``: exactly what that seat knew),
and for the organiser the scores so far and which kept tickets are already
connected. Steps are stored as patches against the step before (see
``json_patch``), so a 250-step game with four seats stays a few hundred KB.
The walk itself is the match log's one replay loop (``matchlog.replay``).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from itertools import product
from typing import Any

import msgspec

from arena.engine.scoring import components, connected
from arena.referee.matchlog import MatchLog, replay
from arena.variants import get_variant

WIDTH, MAX_HEIGHT, MARGIN = 1000, 760, 40
MISSING = object()
# The action line's own keys; any other key a referee records is shown with the step.
ACTION_KEYS = {"n", "seat", "action", "ms", "by", "stderr", "note"}


# ---------------------------------------------------------------------------- the board


def board_drawing(variant_name: str) -> dict[str, Any]:
    """Cities at SVG coordinates (equirectangular, scaled to fit) and routes to draw, with
    each edition's pieces: tunnels, ferries (locomotives), Merchandise carts, attractions."""
    variant = get_variant(variant_name)
    board = variant.board.public_json()
    cities = board["cities"]
    base = {
        "variant": variant_name,
        "title": variant.title,
        "width": WIDTH,
        "rules": board.get("rules", {}),
        "route_points": board.get("route_points", {}),
    }
    if not cities:  # the Card Game has no map: the viewer shows yards and piles instead
        big = {c["id"]: c["bonus"] for c in board.get("big_cities", [])}
        return {**base, "height": 0, "cities": [], "routes": [], "big_cities": big}
    mean_lat = sum(c["lat"] for c in cities) / len(cities)
    squash = math.cos(math.radians(mean_lat))
    xs = [c["lon"] * squash for c in cities]
    ys = [-c["lat"] for c in cities]
    # As wide as the page allows and as tall as the map's shape needs (a tall city map
    # such as Manhattan is not squeezed into a landscape box).
    span_x, span_y = (max(xs) - min(xs)) or 1, (max(ys) - min(ys)) or 1
    scale = min((WIDTH - 2 * MARGIN) / span_x, (MAX_HEIGHT - 2 * MARGIN) / span_y)
    width = round(span_x * scale + 2 * MARGIN)
    height = round(span_y * scale + 2 * MARGIN)
    placed = [
        {
            "id": c["id"],
            "name": c["name"],
            "x": round(MARGIN + (x - min(xs)) * scale, 1),
            "y": round(MARGIN + (y - min(ys)) * scale, 1),
            "attraction": bool(c.get("attraction")),
        }
        for c, x, y in zip(cities, xs, ys, strict=True)
    ]
    pairs: dict[tuple[str, str], int] = {}
    routes = []
    for route in board["routes"]:
        key = (route["a"], route["b"])
        track = pairs.get(key, 0)
        pairs[key] = track + 1
        routes.append(
            {
                "id": route["id"],
                "a": route["a"],
                "b": route["b"],
                "length": route["length"],
                "color": route["color"],
                "track": track,
                "tunnel": bool(route.get("tunnel")),
                "ferries": int(route.get("locomotives") or route.get("ferries") or 0),
                "carts": int(route.get("carts") or 0),
            }
        )
    doubles = {key for key, count in pairs.items() if count > 1}
    for route in routes:
        route["double"] = (route["a"], route["b"]) in doubles
    return {**base, "width": width, "height": height, "cities": placed, "routes": routes}


# ---------------------------------------------------------------------------- patches


def json_patch(old: Any, new: Any) -> Any:
    """A compact patch turning ``old`` into ``new`` (``MISSING`` when they are equal).

    ``{"$d": {key: patch}, "$x": [removed keys]}`` patches an object,
    ``{"$l": {index: patch}}`` a list of the same length, ``{"$v": value}``
    replaces. ``static/replay.js`` applies them (``applyPatch``).
    """
    if _same(old, new):
        return MISSING
    if isinstance(old, dict) and isinstance(new, dict):
        changed = {}
        for key, value in new.items():
            if key not in old:
                changed[key] = {"$v": value}
                continue
            before = old[key]
            if type(before) is type(value) and not isinstance(value, dict | list):
                if before == value:
                    continue  # an unchanged number or text: most of a step's state
                changed[key] = {"$v": value}
                continue
            patch = json_patch(before, value)
            if patch is not MISSING:
                changed[key] = patch
        out: dict[str, Any] = {"$d": changed}
        removed = [key for key in old if key not in new]
        if removed:
            out["$x"] = removed
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        changed_items = {}
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            patch = json_patch(a, b)
            if patch is not MISSING:
                changed_items[str(index)] = patch
        return {"$l": changed_items}
    return {"$v": new}


_encode = msgspec.json.Encoder().encode


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON (so 1, 1.0 and true differ), compared in C: most of a step's state is
    unchanged, and this is the hot path of building a replay."""
    if old is MISSING:
        return False
    if type(old) is not type(new):
        return False
    if isinstance(new, dict | list):
        return bool(old == new) and _encode(old) == _encode(new)
    return bool(old == new)


def apply_patch(old: Any, patch: Any) -> Any:
    """The inverse of ``json_patch`` (the viewer's ``applyPatch``, in Python for tests)."""
    if "$v" in patch:
        return patch["$v"]
    if "$l" in patch:
        out = list(old)
        for index, item in patch["$l"].items():
            out[int(index)] = apply_patch(out[int(index)], item)
        return out
    result = dict(old) if isinstance(old, dict) else {}
    for key, item in patch["$d"].items():
        result[key] = apply_patch(result.get(key), item)
    for key in patch.get("$x", []):
        result.pop(key, None)
    return result


# ---------------------------------------------------------------------------- scoring so far


class BoardFacts:
    """What the viewer needs to know about a board to name steps and score tickets."""

    def __init__(self, board: dict[str, Any]) -> None:
        self.city_name = {c["id"]: c["name"] for c in board["cities"]}
        big = board.get("big_cities", [])
        self.city_name.update({c["id"]: c.get("name", c["id"]) for c in big})
        self.routes = {r["id"]: r for r in board["routes"]}
        self.touching: dict[str, list[int]] = defaultdict(list)
        for r in board["routes"]:
            self.touching[r["a"]].append(r["id"])
            self.touching[r["b"]].append(r["id"])
        self.has_map = bool(board["routes"])
        self.station_costs = list(board.get("rules", {}).get("station_costs", []))

    def name(self, city: str) -> str:
        return self.city_name.get(city, city)

    def route_words(self, route_id: int) -> str:
        r = self.routes.get(route_id)
        if r is None:
            return f"route {route_id}"
        return f"{self.name(r['a'])}–{self.name(r['b'])} ({r['color']}, {r['length']})"


def ticket_status(
    facts: BoardFacts, routes: list[int], tickets: list[dict[str, Any]]
) -> list[bool]:
    """Which of ``tickets`` the routes ``routes`` (ids) connect right now."""
    edges = [(facts.routes[r]["a"], facts.routes[r]["b"]) for r in routes if r in facts.routes]
    index = {city: i for i, city in enumerate(facts.city_name)}
    comp = components([(index[a], index[b]) for a, b in edges])
    return [connected(comp, index.get(t["a"], -1), index.get(t["b"], -2)) for t in tickets]


def best_borrowing(
    facts: BoardFacts,
    seat: int,
    routes: list[int],
    tickets: list[dict[str, Any]],
    stations: list[str],
    owner: dict[int, int],
) -> tuple[list[bool], list[int]]:
    """Europe: each station may use one route of another player into its city; the choice
    that scores the most ticket points. Returns the ticket statuses and borrowed routes."""
    options = [
        [None] + [r for r in facts.touching[city] if owner.get(r, seat) != seat]
        for city in stations
    ]
    best: tuple[int, list[bool], list[int]] | None = None
    for choice in product(*options):
        borrowed = [r for r in choice if r is not None]
        status = ticket_status(facts, routes + borrowed, tickets)
        points = sum(
            t["points"] if ok else -t["points"] for t, ok in zip(tickets, status, strict=True)
        )
        if best is None or points > best[0]:
            best = (points, status, borrowed)
    assert best is not None
    return best[1], best[2]


def longest_trail_routes(facts: BoardFacts, routes: list[int]) -> list[int]:
    """The routes of one longest trail (no route used twice) through ``routes``."""
    links: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for r in routes:
        route = facts.routes[r]
        links[route["a"]].append((route["b"], r))
        links[route["b"]].append((route["a"], r))
    best: tuple[int, list[int]] = (0, [])

    def walk(city: str, used: list[int], length: int) -> None:
        nonlocal best
        if length > best[0]:
            best = (length, list(used))
        for other, r in links[city]:
            if r not in used:
                used.append(r)
                walk(other, used, length + facts.routes[r]["length"])
                used.pop()

    # A longest trail ends at odd-degree cities, or is a whole circuit: in each group of
    # connected routes start at its odd cities, or at any city when it has none.
    group: dict[str, int] = {}
    for label, city in enumerate(links):
        stack = [city]
        while stack:
            here = stack.pop()
            if here not in group:
                group[here] = label
                stack += [other for other, _ in links[here]]
    starts: dict[int, list[str]] = defaultdict(list)
    for city, out in links.items():
        if len(out) % 2:
            starts[group[city]].append(city)
    for city in links:
        starts.setdefault(group[city], [city])
    for cities in starts.values():
        for city in cities:
            walk(city, [], 0)
    return best[1]


def organiser_extras(
    facts: BoardFacts, observations: list[dict[str, Any]], known: dict[tuple, list[bool]]
) -> dict[str, Any]:
    """The organiser's extra facts at one step: score so far and connected tickets
    (``known`` remembers ticket statuses: a seat's routes change only when it claims)."""
    scores, statuses = [], []
    for seat, obs in enumerate(observations):
        own = obs["public"][seat]
        tickets = obs["tickets"]
        if facts.has_map:
            key = (tuple(own["routes"]), tuple((t["a"], t["b"]) for t in tickets))
            if key not in known:
                known[key] = ticket_status(facts, own["routes"], tickets)
            done = known[key]
            score = {"routes": own.get("route_points", 0)}
        else:  # the Card Game: tickets count once completed from the On-the-Track pile
            done = [False] * len(tickets)
            score = {}
        score["tickets_done"] = sum(t["points"] for t, ok in zip(tickets, done, strict=True) if ok)
        score["tickets_done"] += sum(t["points"] for t in own.get("completed", []))
        score["tickets_open"] = -sum(
            t["points"] for t, ok in zip(tickets, done, strict=True) if not ok
        )
        score["total"] = sum(score.values())
        scores.append(score)
        statuses.append(done)
    return {"score": scores, "done": statuses}


def final_scoring(facts: BoardFacts, observations: list[dict[str, Any]]) -> dict[str, Any]:
    """The game-over step: every kept ticket completed or failed, the longest trails."""
    owner = {}
    for seat, obs in enumerate(observations):
        for r in obs["public"][seat].get("routes", []):
            owner[r] = seat
    tickets: list[Any] = []
    longest: list[Any] = []
    borrowed: list[Any] = []
    for seat, obs in enumerate(observations):
        own = obs["public"][seat]
        if not facts.has_map:
            completed = [dict(t, completed=True) for t in own.get("completed", [])]
            failed = [dict(t, completed=False) for t in obs["tickets"]]
            tickets.append(completed + failed)
            longest.append([])
            borrowed.append([])
            continue
        routes = own["routes"]
        stations = own.get("stations") or []
        if stations:
            status, lent = best_borrowing(facts, seat, routes, obs["tickets"], stations, owner)
        else:
            status, lent = ticket_status(facts, routes, obs["tickets"]), []
        tickets.append(
            [dict(t, completed=ok) for t, ok in zip(obs["tickets"], status, strict=True)]
        )
        longest.append(longest_trail_routes(facts, routes))
        borrowed.append(lent)
    return {"tickets": tickets, "longest": longest, "borrowed": borrowed}


# ---------------------------------------------------------------------------- step names


WILD = re.compile(r"w\d+")  # a payment's wild cards in the notation: w1, w2, ...


def _payment(colour: str | None, count: int, wilds: int) -> str:
    parts = []
    if colour is not None and count:
        parts.append(f"{count} {colour}")
    if wilds:
        parts.append(f"{wilds} wild")
    return " + ".join(parts) or "nothing"


# The verbs of the step names, said of "you" (a person's seat): "you draw", not "you draws".
SECOND_PERSON = {
    "draws": "draw",
    "takes": "take",
    "claims": "claim",
    "keeps": "keep",
    "builds": "build",
    "pays": "pay",
    "gives": "give",
    "places": "place",
    "plays": "play",
    "completes": "complete",
    "passes": "pass",
    "digs": "dig",
    "wins": "win",
}


def as_said_to_you(sentence: str) -> str:
    """A step's words about "you" with its verbs agreeing ("you claim ... and dig")."""
    words = sentence.split(" ")
    for i, word in enumerate(words):
        if word in SECOND_PERSON and (i == 1 or words[i - 1] == "and"):
            words[i] = SECOND_PERSON[word]
    return " ".join(words)


def describe(
    action: str,
    seat: int,
    who: str,
    facts: BoardFacts,
    before: dict[str, Any],
    after: dict[str, Any],
    own: dict[str, Any] | None = None,
) -> str:
    """The step in words, from what every player saw (``before``/``after``: a public view)
    and, for the tickets it names, what the mover held (``own``: its observation before).
    A person's seat is named "you", and its verbs agree ("you draw")."""
    said = _describe(action, seat, who, facts, before, after, own)
    return as_said_to_you(said) if who == "you" else said


def _describe(
    action: str,
    seat: int,
    who: str,
    facts: BoardFacts,
    before: dict[str, Any],
    after: dict[str, Any],
    own: dict[str, Any] | None,
) -> str:
    words = action.split()
    verb, args = words[0], words[1:]
    wild_count = next((int(w[1:]) for w in args if w[:1] == "w" and w[1:].isdigit()), 0)
    if verb == "draw":
        if args == ["deck"]:
            return f"{who} draws a card from the deck"
        slot = int(args[0])
        display = before.get("display", [])
        card = display[slot] if slot < len(display) else None
        return f"{who} takes the face-up {card or 'card'} (slot {slot})"
    if verb == "claim":
        route = facts.routes.get(int(args[0]))
        # A wild is "wN"; a colour may start with w too ("white" read as a wild paid nothing).
        colour = args[1] if len(args) > 1 and not WILD.fullmatch(args[1]) else None
        length = route["length"] if route else 0
        paid = _payment(colour, length - wild_count, wild_count)
        tunnel = after.get("tunnel")
        tail = " and digs the tunnel" if tunnel else ""
        return f"{who} claims {facts.route_words(int(args[0]))} with {paid}{tail}"
    if verb == "tickets":
        return f"{who} draws destination tickets"
    if verb == "keep":
        kept = 0 if args == ["none"] else len(args)
        return f"{who} keeps {kept} ticket{'s' if kept != 1 else ''}"
    if verb == "station":
        colour = args[1] if len(args) > 1 and not args[1].startswith("w") else None
        built = len(after["public"][seat].get("stations") or [])
        costs = facts.station_costs
        cost = costs[built - 1] if 0 < built <= len(costs) else wild_count
        paid = _payment(colour, cost - wild_count, wild_count)
        return f"{who} builds a station in {facts.name(args[0])} with {paid}"
    if verb == "pay":
        return f"{who} pays the tunnel's extra cards" + (
            f" ({wild_count} wild)" if wild_count else ""
        )
    if verb == "withdraw":
        return f"{who} gives the tunnel up and takes the cards back"
    if verb == "place":
        return f"{who} places a tourist stack on {facts.name(args[0])}"
    if verb == "token":
        return f"{who} takes the tourist token at {facts.name(args[0])}"
    if verb == "play":
        colours = [w for w in args if not w.isdigit() and not (w[:1] == "w" and w[1:].isdigit())]
        numbers = [int(w) for w in args if w.isdigit()]
        paid = _payment(colours[0], numbers[0], wild_count) if numbers else " + ".join(colours)
        return f"{who} plays {paid} into the Train Yard"
    if verb == "complete":
        held = {t.get("id"): t for t in (own or {}).get("tickets", [])}
        ticket = held.get(int(args[0])) if args and args[0].isdigit() else None
        named = (
            f"{facts.name(ticket['a'])}–{facts.name(ticket['b'])} ({ticket['points']})"
            if ticket
            else f"ticket {args[0] if args else '?'}"
        )
        return f"{who} completes {named} with the On-the-Track pile"
    if verb == "pass":
        phase = before.get("phase")
        if phase == "second_draw":
            return f"{who} takes no second card"
        if phase == "complete_tickets":
            return f"{who} completes no more tickets"
        return f"{who} passes (no legal action but passing)"
    return f"{who}: {action}"


# ---------------------------------------------------------------------------- the whole game


def game_over_words(names: list[str], stored: dict[str, Any], scores: list[int]) -> str:
    """The game-over step in words: the winners (by the stored ranks, which rank forfeits
    last, else the engine's scores) and every final score."""
    ranks = stored.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != len(scores):
        ranks = [1 + sum(other > mine for other in scores) for mine in scores]
    winners = [names[seat] for seat, rank in enumerate(ranks) if rank == 1]
    verb = "wins" if len(winners) == 1 and winners != ["you"] else "win"
    verb = verb if len(winners) == 1 else "tie for first"
    board = ", ".join(f"{names[seat]} {score}" for seat, score in enumerate(scores))
    return f"game over: {' and '.join(winners)} {verb} ({board})"


def whole_number(value: Any) -> int:
    """A step or seat a fault or event line names; 0 when a hand-edited or foreign log
    gives none that is a whole number, so the line still shows (at the deal, seat 0)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def seat_names(header: dict[str, Any]) -> list[str]:
    """Each seat's bot name, made unique with the seat number where names repeat."""
    names = [seat.get("bot", f"seat {i}") for i, seat in enumerate(header.get("seats", []))]
    names += [f"seat {i}" for i in range(len(names), header["players"])]
    repeated = {n for n in names if names.count(n) > 1}
    return [f"{n} (seat {i})" if n in repeated else n for i, n in enumerate(names)]


def replay_steps(log: MatchLog) -> dict[str, Any]:
    """Re-play a stored match and record every step's full state for the viewer."""
    header = log.header
    facts = None
    names = seat_names(header)
    faults_at: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for fault in log.faults:
        faults_at[whole_number(fault.get("decision"))].append(fault)
    events_at: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in getattr(log, "events", None) or []:  # protocol events, where logged
        if isinstance(event, dict):
            events_at[whole_number(event.get("decision", event.get("n")))].append(event)
    steps: list[dict[str, Any]] = []
    previous_obs: list[Any] = []
    previous_org: Any = {}
    before: dict[str, Any] = {}
    known: dict[tuple, list[bool]] = {}
    state = None
    for line, state in replay(log):
        if facts is None:
            facts = BoardFacts(state.board.public_json())
        observations = [state.observation(seat).to_json() for seat in range(header["players"])]
        org = organiser_extras(facts, observations, known)
        if not facts.has_map:
            # The Card Game's On-the-Track piles are in no seat's observation (only their
            # sizes): the organiser sees them from the whole state's position.
            tracks = json.loads(state.to_position()).get("tracks")
            if isinstance(tracks, list):
                org["tracks"] = tracks
        step: dict[str, Any] = {"n": len(steps)}
        if line is None:
            step["text"] = "the deal"
            step["obs"] = [{"$v": obs} for obs in observations]
            step["org"] = {"$v": org}
        else:
            seat = int(line.get("seat", before.get("to_move", 0)))
            step.update(
                seat=seat,
                action=line["action"],
                text=describe(
                    line["action"],
                    seat,
                    names[seat],
                    facts,
                    before,
                    observations[0],
                    previous_obs[seat] if seat < len(previous_obs) else None,
                ),
                by=line.get("by", "bot"),
            )
            for key in ("ms", "stderr", "note"):  # the bot's time, output and own note
                if key in line:
                    step[key] = line[key]
            notes = {k: v for k, v in line.items() if k not in ACTION_KEYS}
            if notes:  # what newer referees record (forgiven illegal actions...): shown as is
                step["notes"] = notes
            step["obs"] = [
                json_patch(old, new) for old, new in zip(previous_obs, observations, strict=True)
            ]
            step["org"] = json_patch(previous_org, org)
            step["obs"] = [{"$d": {}} if p is MISSING else p for p in step["obs"]]
            if step["org"] is MISSING:
                step["org"] = {"$d": {}}
        if faults_at.get(len(steps)):
            step["faults"] = faults_at[len(steps)]
        if events_at.get(len(steps)):
            step["events"] = events_at[len(steps)]
        steps.append(step)
        previous_obs, previous_org, before = observations, org, observations[0]
    assert facts is not None and state is not None
    final = None
    if state.is_over:
        result = state.result()
        final = {
            **final_scoring(facts, previous_obs),
            "scores": list(result.scores),
            "engine_ranks": list(result.ranks),
            "breakdown": [dict(row) for row in result.breakdown],
            "categories": list(result.categories),
            # Short column headings and their meaning (the CLI's), so the table fits a phone.
            "labels": {
                name: [label.heading, label.legend]
                for name, label in get_variant(header["variant"]).score_labels.items()
            },
        }
        # The game over is a step of its own after the last action: the scoring breakdown,
        # tickets completed and failed, the longest trails (nothing else changes).
        steps.append(
            {
                "n": len(steps),
                "text": game_over_words(names, log.result or {}, list(result.scores)),
                "over": True,
                "obs": [{"$d": {}} for _ in previous_obs],
                "org": {"$d": {}},
            }
        )
    return {
        "game_id": header.get("game_id", ""),
        "match_id": header.get("match_id", ""),
        "variant": header["variant"],
        "seed": header["seed"],
        "seats": names,
        "seat_info": [dict(seat) for seat in header.get("seats", [])],
        "steps": steps,
        "final": final,
        "result": log.result,
        "faults": log.faults,
    }

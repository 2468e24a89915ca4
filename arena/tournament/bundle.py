"""A match bundle: one JSON file with everything needed to play a stored match again, exactly.

The variant (its rules version and a hash of its map data), the engine (version and
build), the time control, each seat's bot (its stored name, the version it gave, its
code hash) and the game's recorded moves with their decision times. And what the
referee derived under the tournament's secret for this one game (``keys.py``): the
game's seed and id, each seat's bot seed, the request numbers up to the game's end.
Never the secret itself: each value is an HMAC output for this game alone, so a bundle
of a finished match tells its holder nothing about any other match, past or future.

``bundle_of`` (a tournament and a match index) and ``bundle_of_match`` (a stored match
id, as the host's pages name matches) make one, ``bundle_json`` its file; ``load_bundle``
reads one back and refuses, in one line, anything that is not an intact bundle of a
version this arena reads. ``arena replay --reproduce`` (``reproduce.py``) plays it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import msgspec

from arena.engine.game import GameState
from arena.referee.faults import TimeControl, ranks_with_forfeits
from arena.referee.keys import MatchKey, RecordedKey, RoleKey
from arena.referee.matchlog import LogError, MatchLog, final_state, replay
from arena.tournament.results import MATCH_ID_STRIDE, match_id
from arena.tournament.schedule import sprt_roles
from arena.tournament.store import ResultsStore, TournamentInfo
from arena.tournament.submit import plugin_code_hash
from arena.variants import get_variant
from bots import all_bots, get_bot

BUNDLE_VERSION = 1


class BundleError(ValueError):
    """No bundle can be made or read: the message says why, in one line."""


class BundleClock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The match's time control (``faults.TimeControl``)."""

    move_ms: int
    bank_ms: int
    handshake_ms: int
    retries: int
    cpus: float

    def time_control(self) -> TimeControl:
        return TimeControl(**msgspec.structs.asdict(self))


class BundleSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    bot: str  # the name results are stored under: name@version, a plugin's, a label
    version: str  # the version the bot gave in its hello
    kind: str  # plugin | file | command (as registered; an unregistered plugin is a plugin)
    plugin: str | None  # the installed plugin it runs, for kind plugin
    code_hash: str | None  # as registered (arena submit), or the plugin's source; None: unknown
    bot_seed: str  # the seed it was given for the game (keys.MatchKey.bot_seed)


class BundleMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    action: str
    ms: float  # the decision's time on the referee's clock
    by: str  # "bot", or "fallback" once the seat had forfeited


class BundleFault(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    code: str  # arena/referee/faults.py
    decision: int  # how many moves the game had when it happened


class ClockStep(msgspec.Struct, frozen=True):
    """One decision of a seat on its clock: its time, and the bank left after it."""

    decision: int  # the move's number in the game, from 1
    ms: float
    bank_left_ms: float
    fault: str | None  # the fault code, on the decision that forfeited


class Bundle(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    bundle: int  # the format's version: BUNDLE_VERSION
    tournament: str
    match_index: int
    match_id: int
    variant: str
    rules: int  # the variant's rules version
    data_hash: str  # sha256 of the variant's map data
    players: int
    engine: str  # the arena's version
    build: str  # compiled | pure (arena/native.py); "" when the log did not say
    time_control: BundleClock
    game_seed: int
    game_id: str
    seqs: list[int]  # the request numbers, in order, up to the game's end
    seats: list[BundleSeat]
    moves: list[BundleMove]
    faults: list[BundleFault]
    scores: list[int]
    ranks: list[int]  # after forfeits
    digest: str = ""  # sha256 of the bundle with this field empty: damage shows

    def key(self) -> RecordedKey:
        """The key the referee replays this game with: it answers from the bundle."""
        seeds = tuple(seat.bot_seed for seat in self.seats)
        return RecordedKey(self.game_id, seeds, tuple(self.seqs))

    def match_log(self) -> MatchLog:
        """The recorded game as a match log (moves only), for the engine's replay loop."""
        header = {
            "variant": self.variant,
            "rules": self.rules,
            "players": self.players,
            "seed": self.game_seed,
            "game_id": self.game_id,
            "seats": [{"seat": s.seat, "bot": s.bot} for s in self.seats],
        }
        actions = [
            {"n": n, "seat": m.seat, "action": m.action, "by": m.by}
            for n, m in enumerate(self.moves, start=1)
        ]
        return MatchLog(header=header, actions=actions)

    def states(self) -> Iterator[GameState]:
        """The recorded game's state before each move, then at its end (changed in place)."""
        for _, state in replay(self.match_log()):
            yield state

    def clock(self, seat: int) -> list[ClockStep]:
        """Seat ``seat``'s decisions against its clock, as the referee ran it: a decision
        over the move time spends the difference from the bank."""
        tc = self.time_control
        bank = float(tc.bank_ms)
        faults = {f.decision: f.code for f in self.faults if f.seat == seat}
        steps = []
        for n, move in enumerate(self.moves, start=1):
            if move.seat != seat:
                continue
            fault = faults.get(n - 1)  # a fault during a decision: its fallback move's line
            if move.by != "bot" and fault is None:
                continue  # played for a forfeited seat: no clock
            bank = max(0.0, bank - max(0.0, move.ms - tc.move_ms))
            steps.append(ClockStep(n, move.ms, bank, fault))
        return steps


def data_hash(variant_name: str) -> str:
    """The hash of a variant's map data as installed here: the same data deals the same."""
    data = get_variant(variant_name).data
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def digest_of(bundle: Bundle) -> str:
    blank = msgspec.structs.replace(bundle, digest="")
    return hashlib.sha256(msgspec.json.encode(blank)).hexdigest()


def encode(bundle: Bundle) -> bytes:
    """The bundle's file: indented JSON (people read it), its digest filled in."""
    sealed = msgspec.structs.replace(bundle, digest=digest_of(bundle))
    return msgspec.json.format(msgspec.json.encode(sealed), indent=1) + b"\n"


def load_bundle(data: bytes) -> Bundle:
    """Read a bundle; ``BundleError`` (one line) for anything but an intact one of a
    version this arena reads."""
    try:
        raw = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise BundleError(f"not a match bundle: not JSON ({error})") from None
    if not isinstance(raw, dict) or "bundle" not in raw:
        raise BundleError("not a match bundle: it has no 'bundle' version field")
    if raw["bundle"] != BUNDLE_VERSION:
        raise BundleError(
            f"a match bundle of version {raw['bundle']!r}: this arena reads version "
            f"{BUNDLE_VERSION} (install the arena version that made it: its 'engine' field)"
        )
    try:
        bundle = msgspec.convert(raw, Bundle)
    except msgspec.ValidationError as error:
        raise BundleError(f"not a valid match bundle: {error}") from None
    if bundle.digest != digest_of(bundle):
        raise BundleError(
            "the match bundle was altered or damaged (its digest does not match its content): "
            "download it again"
        )
    if [s.seat for s in bundle.seats] != list(range(bundle.players)):
        raise BundleError(f"not a valid match bundle: its seats are not 0 to {bundle.players - 1}")
    return bundle


def check_record(bundle: Bundle) -> None:
    """Raise ``BundleError`` unless the bundle's moves, dealt from its game seed by the
    installed engine, end the game with its recorded scores and ranks."""
    try:
        state = final_state(bundle.match_log())
    except LogError as error:
        raise BundleError(f"the bundle's moves do not replay here: {error}") from None
    if not state.is_over:
        raise BundleError("the bundle's moves do not finish its game: the bundle is incomplete")
    result = state.result()
    ranks = ranks_with_forfeits(result.ranks, sorted({f.seat for f in bundle.faults}))
    if list(result.scores) != bundle.scores or ranks != bundle.ranks:
        raise BundleError(
            f"the bundle's moves score {list(result.scores)} (ranks {ranks}), not its recorded "
            f"{bundle.scores} (ranks {bundle.ranks}): the bundle or the engine differs"
        )


# ---------------------------------------------------------------- making one from the store


def bundle_of(store: ResultsStore, tournament: str, match_index: int) -> Bundle:
    """The bundle of match ``match_index`` of ``tournament``, stored (so finished) in
    ``store``; ``BundleError`` says why there is none."""
    info = store.tournament_info(tournament)
    if info is None:
        raise BundleError(f"no tournament named '{tournament}' (see 'arena tournament list')")
    return _bundle(store, info, match_index)


def bundle_of_match(store: ResultsStore, stored_match_id: int) -> Bundle:
    """The bundle of the stored match ``stored_match_id`` (``results.match_id``, as the
    host's match pages name it); ``BundleError`` says why there is none."""
    tournament_id, index = divmod(stored_match_id, MATCH_ID_STRIDE)
    info = next((t for t in store.tournaments() if t.id == tournament_id), None)
    if info is None:
        raise BundleError(f"no stored match {stored_match_id}")
    return _bundle(store, info, index)


def bundle_json(store: ResultsStore, stored_match_id: int) -> bytes:
    """The bundle file of a stored match, ready to serve (``application/json``);
    ``BundleError`` says why there is none."""
    return encode(bundle_of_match(store, stored_match_id))


def _bundle(store: ResultsStore, info: TournamentInfo, index: int) -> Bundle:
    stored_id = match_id(info.id, index)
    result = store.match_result(stored_id)
    if result is None:
        raise BundleError(f"tournament '{info.name}' has no finished match {index}")
    log = MatchLog.from_jsonl(store.match_log(stored_id))
    header = log.header
    planned = store.planned_match(info.id, index)
    secret = store.kept_secret(info.id)
    if planned is None or secret is None:
        raise BundleError(
            f"match {index} of '{info.name}' cannot be bundled: the store keeps no key or plan "
            "for it (an older or damaged store)"
        )
    key = MatchKey(secret)
    if info.spec.get("format") == "sprt":  # a sequential test keys bot seeds by role
        key = RoleKey(secret, sprt_roles(index, result.players))
    game_seed, game_id = header["seed"], header["game_id"]
    if key.game_seed(planned.seed) != game_seed:
        raise BundleError(
            f"match {index} of '{info.name}' was played under a key the store no longer keeps "
            "(its key was lost and drawn again): it cannot be reproduced"
        )
    requests = sum(a.get("by") == "bot" for a in log.actions)
    requests += sum(e.get("kind") == "illegal" for e in log.events) + len(log.faults)
    seats = [
        _seat(store, s, label, header["seats"][s], key.bot_seed(game_seed, s, game_id))
        for s, label in enumerate(result.bots)
    ]
    return Bundle(
        bundle=BUNDLE_VERSION,
        tournament=info.name,
        match_index=index,
        match_id=stored_id,
        variant=header["variant"],
        rules=header.get("rules", 1),
        data_hash=data_hash(header["variant"]),
        players=len(result.bots),
        engine=str(header.get("engine", "")),
        build=str(header.get("build", "")),
        time_control=msgspec.convert(header["time_control"], BundleClock),
        game_seed=game_seed,
        game_id=game_id,
        seqs=[key.seq(game_id, r) for r in range(1, requests + 1)],
        seats=seats,
        moves=[BundleMove(a["seat"], a["action"], float(a["ms"]), a["by"]) for a in log.actions],
        faults=[BundleFault(f["seat"], f["code"], f["decision"]) for f in log.faults],
        scores=list(result.scores),
        ranks=list(result.ranks),
    )


def _seat(store: ResultsStore, s: int, label: str, logged: dict, seed: str) -> BundleSeat:
    """Seat ``s``: its bot as registered (name@version), else as the installed plugin it
    names, else a command line the organiser gave (no hash known)."""
    name, at, version = label.partition("@")
    record = store.bot(name, int(version)) if at and version.isdigit() else None
    hello = str(logged.get("version", ""))
    if record is not None:
        plugin = record["target"] if record["kind"] == "plugin" else None
        return BundleSeat(s, label, hello, record["kind"], plugin, record["content_hash"], seed)
    if label in all_bots():
        return BundleSeat(s, label, hello, "plugin", label, plugin_hash(label), seed)
    return BundleSeat(s, label, hello, "command", None, None, seed)


_plugin_hashes: dict[str, str] = {}


def plugin_hash(name: str) -> str:
    """An installed plugin's code hash (computed once per process: it builds the bot)."""
    if name not in _plugin_hashes:
        _plugin_hashes[name] = plugin_code_hash(get_bot(name))
    return _plugin_hashes[name]


__all__ = [
    "BUNDLE_VERSION",
    "Bundle",
    "BundleError",
    "bundle_json",
    "bundle_of",
    "bundle_of_match",
    "check_record",
    "encode",
    "load_bundle",
]

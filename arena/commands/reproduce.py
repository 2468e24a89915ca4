"""``arena replay --reproduce BUNDLE``: play a server's match again here and compare.

It prints where each seat's bot comes from, the clock of any seat that forfeited,
then one line: ``identical: N decisions`` (exit 0), or the first decision that
differs (exit 1). A bundle that cannot be used is one ``error:`` line (exit 2).
"""

from __future__ import annotations

from pathlib import Path

from arena.commands.clock import clock_lines, draw_chart, faulted_seats
from arena.commands.common import (
    RUNTIME,
    USAGE,
    console,
    existing_store,
    fail,
    unwind_on_sigterm,
    warn,
    writable,
)
from arena.tournament.bundle import Bundle, BundleError, check_record, load_bundle
from arena.tournament.names import BadName
from arena.tournament.reproduce import (
    SeatBot,
    check_installed,
    first_difference,
    overrides,
    replay_bundle,
    seat_bots,
)

IDENTICAL, DIFFERS = 0, 1


def reproduce(path: Path, bots: list[str], chart: Path | None, data_dir: Path) -> int:
    """Reproduce the bundle at ``path``; returns the exit status (0 identical, 1 differs)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(f"{path}: cannot be read ({error.strerror}): give a match bundle file") from None
    writable(chart, "--chart")
    try:
        bundle = load_bundle(data)
        notes = check_installed(bundle)
        check_record(bundle)
        given = overrides(bots)
        store = existing_store(data_dir)
        try:
            seats = seat_bots(bundle, given, store)
        finally:
            if store is not None:
                store.close()
    except (BundleError, BadName) as error:
        raise fail(str(error), USAGE) from None
    console.print(
        f"match {bundle.match_index} of '{bundle.tournament}': {bundle.variant}, "
        f"{bundle.players} players, game {bundle.game_id}, {len(bundle.moves)} decisions "
        "recorded",
        soft_wrap=True,
    )
    for note in notes:
        warn(note)
    for seat in seats:
        console.print(_seat_line(bundle, seat), soft_wrap=True)
    faulted = faulted_seats(bundle)
    for seat_number in faulted:
        for line in clock_lines(bundle, seat_number):
            console.print(line, soft_wrap=True)
    if chart is not None:
        draw_chart(bundle, faulted or list(range(bundle.players)), chart)
        console.print(f"clock chart written to {chart}")
    unwind_on_sigterm()
    try:
        replayed = replay_bundle(bundle, seats, data_dir, data_dir / "bot-logs" / "reproduce")
    except ValueError as error:  # the recorded game cannot be dealt here
        raise fail(f"the match cannot be replayed: {error}", RUNTIME) from None
    difference = first_difference(bundle, replayed)
    if difference is None:
        console.print(f"identical: {len(bundle.moves)} decisions")
        return IDENTICAL
    stderr = replayed.header["seats"][difference.seat].get("stderr")
    if stderr:
        console.print(f"seat {difference.seat}'s stderr in the replay: {data_dir / stderr}")
    console.print(difference.line(bundle.game_id), soft_wrap=True)
    return DIFFERS


def _seat_line(bundle: Bundle, seat: SeatBot) -> str:
    recorded = bundle.seats[seat.seat]
    code = {
        True: ": the same code as the server ran",
        False: ": NOT the code the server ran (its code hash differs)",
        None: "",
    }[seat.same_code]
    return f"seat {seat.seat} '{recorded.bot}' (version {recorded.version}): {seat.source}{code}"

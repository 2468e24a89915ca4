"""A seat's clock drawn from a match bundle: why a bot timed out.

One line per decision: a bar of its time (``█`` within the move time, ``▒`` spent
from the bank), a ``|`` where the move time ends, and the bank left after it;
the decision that forfeited is marked with its fault. ``--chart FILE.png`` draws
the same with matplotlib.
"""

from __future__ import annotations

from pathlib import Path

from arena.tournament.bundle import Bundle, ClockStep

WIDTH = 40  # characters of bar for the move time plus the whole bank


def faulted_seats(bundle: Bundle) -> list[int]:
    """The seats that forfeited during a decision (their clock tells why)."""
    return sorted({f.seat for f in bundle.faults})


def clock_lines(bundle: Bundle, seat: int, width: int = WIDTH) -> list[str]:
    """The text chart of ``seat``'s clock, a title line first."""
    tc = bundle.time_control
    steps = bundle.clock(seat)
    fault = next((f for f in bundle.faults if f.seat == seat), None)
    why = f"{fault.code} at decision {fault.decision + 1}" if fault else "no fault"
    lines = [
        f"seat {seat} '{bundle.seats[seat].bot}' ({why}): move time {tc.move_ms} ms, "
        f"bank {tc.bank_ms} ms; {len(steps)} decisions"
    ]
    scale = width / max(1, tc.move_ms + tc.bank_ms)
    mark = max(1, round(tc.move_ms * scale))
    for step in steps:
        lines.append(_line(step, scale, mark, width))
    return lines


def _line(step: ClockStep, scale: float, mark: int, width: int) -> str:
    filled = min(width, round(step.ms * scale))
    cells = []
    for i in range(width):
        if i < filled:
            cells.append("█" if i < mark else "▒")  # ▒: beyond the move time, from the bank
        else:
            cells.append("|" if i == mark else " ")
    end = f"  {step.fault.upper()}" if step.fault else ""
    return (
        f"  #{step.decision:<4} {step.ms:>9.1f} ms {''.join(cells)} bank "
        f"{step.bank_left_ms:>8.0f} ms{end}"
    )


def draw_chart(bundle: Bundle, seats: list[int], path: Path) -> None:
    """The clocks of ``seats`` as a PNG: decision times against the move time, and the
    bank left, one panel per seat."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tc = bundle.time_control
    figure, axes = plt.subplots(len(seats), 1, figsize=(9, 3.2 * len(seats)), squeeze=False)
    for ax, seat in zip(axes[:, 0], seats, strict=True):
        steps = bundle.clock(seat)
        xs = [s.decision for s in steps]
        colors = ["#c0392b" if s.fault else "#2c7fb8" for s in steps]
        ax.bar(xs, [s.ms for s in steps], color=colors, label="decision time (ms)")
        ax.axhline(tc.move_ms, color="#555", linestyle="--", label=f"move time {tc.move_ms} ms")
        ax.plot(xs, [s.bank_left_ms for s in steps], color="#e67e22", label="bank left (ms)")
        ax.set_title(f"seat {seat} {bundle.seats[seat].bot}: decision times and bank")
        ax.set_xlabel("decision (move number in the game)")
        ax.set_ylabel("ms")
        ax.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)

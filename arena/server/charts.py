"""A bot's rating over its games as an SVG drawn on the server: no script, no inline style
(the host's CSP forbids both); its colours come from the stylesheet's classes."""

from __future__ import annotations

import html

from markupsafe import Markup

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28
MAX_DRAWN = 400  # points drawn at most; a longer history is sampled evenly (its last kept)


def sampled(count: int, most: int = MAX_DRAWN) -> list[int]:
    """Which of ``count`` points to draw: all, or ``most`` spread evenly, first and last kept."""
    if count <= most:
        return list(range(count))
    step = (count - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def rating_chart(history: list[tuple[float, float]], label: str) -> Markup:
    """μ and μ − 3σ after each of a bot's games (``history``: (μ, σ) pairs, oldest first)."""
    count = len(history)
    if count == 0:
        return Markup("")
    chosen = sampled(count)
    mus = [history[i][0] for i in chosen]
    ratings = [history[i][0] - 3 * history[i][1] for i in chosen]
    low, high = min(ratings + mus), max(ratings + mus)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (span_x * i / (count - 1) if count > 1 else span_x / 2)

    def y(value: float) -> float:
        return TOP + span_y * (high - value) / (high - low)

    def line(values: list[float]) -> str:
        return " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in zip(chosen, values, strict=True))

    ticks = []
    for value in (low, (low + high) / 2, high):
        ticks.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}"'
            f' y2="{y(value):.1f}"/><text class="tick" x="{LEFT - 4}" y="{y(value) + 3:.1f}"'
            f' text-anchor="end">{value:.1f}</text>'
        )
    name = html.escape(label)
    svg = (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' data-points="{count}" data-drawn="{len(chosen)}"'
        f' aria-label="rating of {name} after each of its {count} games">'
        f"<title>rating of {name} after each of its {count} games</title>"
        + "".join(ticks)
        + f'<text class="tick" x="{LEFT}" y="{HEIGHT - 8}">game 1</text>'
        f'<text class="tick" x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">'
        f"game {count}</text>"
        f'<polyline class="mu" points="{line(mus)}"/>'
        f'<polyline class="conservative" points="{line(ratings)}"/>'
        f'<text class="key mu" x="{WIDTH / 2 - 70:.0f}" y="{HEIGHT - 8}">μ</text>'
        f'<text class="key conservative" x="{WIDTH / 2 - 50:.0f}" y="{HEIGHT - 8}">'
        "μ − 3σ (the rating)</text>"
        "</svg>"
    )
    return Markup(svg)

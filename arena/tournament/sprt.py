"""The sequential test of ``arena test``: a generalised SPRT on duplicate deal groups.

Pure statistics, no I/O. A *deal group* is one deal played once per seat rotation
of (NEW, BASE, opponents...): NEW and BASE meet the same cards in the same seats.
Its score is NEW's mean head-to-head result against BASE over the group's games
(1 NEW finished ahead, 0.5 level, 0 behind), a value in [0, 1] on a grid of
``2 * players + 1`` steps; with 2 players that is the pentanomial score of a
game pair with colours swapped (fishtest, OpenBench, fastchess).

The log-likelihood ratio is fishtest's normalised GSPRT on the group scores:
N·(s1−s0)(2·mean−s0−s1)/(2·var) (Elo hypotheses as expected scores,
s = 1/(1 + 10^(-elo/400))), with the mean and the variance those of the observed
group scores *regularised*: as if one more group had been seen with the widest
spread a score can have (half at 0, half at 1). The observed variance is what
makes the test fast where it should be: a bot that wins every group has almost
no variance, and the evidence of N such groups grows as N² (``ticket-by-ticket``
against ``random`` decides in tens of games, not the hundreds a test on wins
alone needs). The regularisation is what keeps it honest early on: two lucky
groups in a row are not "no variance", and a test that always draws leans to H0
by a finite, growing amount. Where groups vary, the ratio agrees with the exact
multinomial likelihood ratio (``llr_exact``, kept for that check). The test
stops at the first group (in schedule order) where the ratio leaves
(ln(β/(1−α)), ln((1−β)/α)).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EPSILON = 1e-3  # pseudo-count per grid point in the exact ratio (fishtest's regularisation)
PRIOR_GROUPS = 1.0  # the regularising group: half a count at score 0, half at score 1
Z95 = 1.959963984540054  # the two-sided 95% normal quantile


class BadHypotheses(ValueError):
    """Hypotheses or error rates no test can decide between; the message says why."""


def score_of_elo(elo: float) -> float:
    """Expected score of an Elo difference (logistic, 400 per decade)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """Inverse of ``score_of_elo``; ±inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class Hypotheses:
    """H0: NEW − BASE = ``elo0``; H1: = ``elo1``; error rates ``alpha`` (accept H1 when H0
    holds) and ``beta`` (accept H0 when H1 holds)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise BadHypotheses(f"{name} must be a finite number")
        if not self.elo0 < self.elo1:
            raise BadHypotheses(
                f"elo1 ({self.elo1:g}) must be greater than elo0 ({self.elo0:g}): H1 says NEW "
                "is stronger by elo1, H0 by elo0"
            )
        if max(abs(self.elo0), abs(self.elo1)) > 2000:
            raise BadHypotheses("elo0 and elo1 must lie within ±2000 Elo")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise BadHypotheses(f"{name} must lie strictly between 0 and 0.5, not {value:g}")

    @property
    def s0(self) -> float:
        return score_of_elo(self.elo0)

    @property
    def s1(self) -> float:
        return score_of_elo(self.elo1)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio."""
        return math.log((1.0 - self.beta) / self.alpha)


def head_to_head(rank_new: int, rank_base: int) -> float:
    """NEW's result against BASE in one game from their ranks (1 is first)."""
    return 1.0 if rank_new < rank_base else 0.5 if rank_new == rank_base else 0.0


def group_score(games: Sequence[tuple[int, int]]) -> float:
    """A deal group's score from each game's (NEW's rank, BASE's rank)."""
    if not games:
        raise ValueError("a deal group has at least one game")
    return sum(head_to_head(new, base) for new, base in games) / len(games)


def grid(players: int) -> list[float]:
    """The values a group score can take with ``players`` games a group."""
    steps = 2 * players
    return [i / steps for i in range(steps + 1)]


def _constrained(freq: Sequence[float], values: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` closest to ``freq`` (most likely given counts in that
    proportion) whose mean is ``mean``: p_i = f_i / (1 + λ(a_i − mean)), λ by bisection."""
    d = [a - mean for a in values]
    hi_d, lo_d = max(d), min(d)
    assert hi_d > 0 > lo_d  # mean strictly inside the grid
    low, high = -1.0 / hi_d, -1.0 / lo_d  # where every 1 + λ d_i stays positive
    for _ in range(200):
        lam = (low + high) / 2
        if lam in (low, high):
            break
        g = sum(f * x / (1.0 + lam * x) for f, x in zip(freq, d, strict=True))
        if g > 0:
            low = lam
        else:
            high = lam
    lam = (low + high) / 2
    p = [f / (1.0 + lam * x) for f, x in zip(freq, d, strict=True)]
    total = sum(p)
    return [x / total for x in p]


def llr(counts: Sequence[float], values: Sequence[float], s0: float, s1: float) -> float:
    """The normalised GSPRT's log-likelihood ratio of H1 (mean s1) over H0 (mean s0) for
    group scores counted on ``values``, their mean and variance regularised by
    ``PRIOR_GROUPS`` spread to the grid's two ends (so the variance is never 0)."""
    regular = list(counts)
    regular[0] += PRIOR_GROUPS / 2
    regular[-1] += PRIOR_GROUPS / 2
    n = sum(regular)
    mean = sum(c * v for c, v in zip(regular, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(regular, values, strict=True)) / n
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def llr_exact(counts: Sequence[float], values: Sequence[float], s0: float, s1: float) -> float:
    """The exact generalised log-likelihood ratio: the likelihood of the counts under the
    most likely distribution on ``values`` whose mean is s1, over the same for s0 (counts
    regularised by EPSILON per value). ``llr`` agrees with it once the groups vary; it is
    not the test's, since it ignores how little the groups vary: a bot that wins every
    group gains only ln(s1/s0) a group there (207 groups at +5 Elo)."""
    regular = [c + EPSILON for c in counts]
    n = sum(regular)
    freq = [c / n for c in regular]
    p0 = _constrained(freq, values, s0)
    p1 = _constrained(freq, values, s1)
    return sum(c * math.log(a / b) for c, a, b in zip(regular, p1, p0, strict=True))


@dataclass(frozen=True)
class Estimate:
    """NEW − BASE in Elo with a 95% interval, from ``groups`` group scores."""

    groups: int
    score: float
    elo: float
    low: float
    high: float

    def text(self) -> str:
        """``+120 ± 60 Elo`` (or the interval's ends when it is lopsided or open)."""
        half = (self.high - self.low) / 2
        finite = math.isfinite(self.low) and math.isfinite(self.high) and half > 0
        if finite and abs((self.high - self.elo) - (self.elo - self.low)) <= 0.2 * half + 1:
            return f"{_elo(self.elo)} ± {half:.0f} Elo"
        return f"{_elo(self.elo)} Elo (95%: {_elo(self.low)} to {_elo(self.high)})"


def _elo(value: float) -> str:
    if value == math.inf:
        return "+inf"
    if value == -math.inf:
        return "-inf"
    return f"{round(value) or 0:+d}"  # never "-0"


def estimate(scores: Sequence[float]) -> Estimate:
    """The mean group score as Elo, with a normal 95% interval on the mean mapped to Elo."""
    n = len(scores)
    if n == 0:
        return Estimate(0, 0.5, 0.0, -math.inf, math.inf)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / n
    # With no spread yet, the interval of a binomial-like score with n groups stands in.
    se = math.sqrt(var / n) if var > 0 else math.sqrt(max(mean * (1 - mean), 0.25 / n) / n)
    low, high = max(mean - Z95 * se, 0.0), min(mean + Z95 * se, 1.0)
    return Estimate(n, mean, elo_of_score(mean), elo_of_score(low), elo_of_score(high))


@dataclass(frozen=True)
class Verdict:
    """Where the test stands after ``groups`` deal groups: ``accepted`` is 'H0', 'H1' or None
    (still open), ``llr`` the ratio then, ``estimate`` NEW − BASE so far."""

    accepted: str | None
    groups: int
    llr: float
    estimate: Estimate


def sequential(scores: Iterable[float], hypotheses: Hypotheses, players: int) -> Verdict:
    """Fold group scores in schedule order; stop at the first group whose ratio crosses a
    bound (later groups, played ahead by a wave, do not change the verdict)."""
    values = grid(players)
    counts = [0.0] * len(values)
    seen: list[float] = []
    ratio = 0.0
    for score in scores:
        slot = round(score * (len(values) - 1))
        if not 0 <= slot < len(values) or abs(values[slot] - score) > 1e-9:
            raise ValueError(f"group score {score!r} is not on the {players}-player grid")
        counts[slot] += 1
        seen.append(score)
        ratio = llr(counts, values, hypotheses.s0, hypotheses.s1)
        if ratio >= hypotheses.upper:
            return Verdict("H1", len(seen), ratio, estimate(seen))
        if ratio <= hypotheses.lower:
            return Verdict("H0", len(seen), ratio, estimate(seen))
    return Verdict(None, len(seen), ratio, estimate(seen))


def fixed_groups(hypotheses: Hypotheses, variance: float) -> int:
    """Deal groups a fixed-length test needs to tell s0 from s1 with the same error rates
    (one-sided z-test on the mean group score, per-group variance ``variance``)."""
    z_alpha = _z(1 - hypotheses.alpha)
    z_beta = _z(1 - hypotheses.beta)
    spread = hypotheses.s1 - hypotheses.s0
    return math.ceil(((z_alpha + z_beta) * math.sqrt(variance) / spread) ** 2)


def _z(p: float) -> float:
    """The standard normal quantile (by bisection on erf: no scipy here)."""
    low, high = -10.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2

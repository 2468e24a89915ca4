"""The text game log: a header, then one action per line in the notation.

    # ttr-arena game log 1
    # variant: usa
    # players: 4
    # seed: 7
    # seats: random random random random
    keep 0 1
    ...
    # rules: 2
    # result: scores 97 85 60 41 ranks 1 2 3 4

``replay`` re-plays a log on the engine through the match log's one replay
loop (``arena.referee.matchlog.replay``); the engine is deterministic, so the
same seed and actions must give the same result, under the same version of the
variant's rules (``rules``; a log without it was written under version 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.engine.game import GameState
from arena.engine.result import GameResult
from arena.referee.matchlog import LogError, MatchLog, final_state
from arena.variants import get_variant

MAGIC = "# ttr-arena game log 1"
__all__ = ["MAGIC", "GameLog", "LogError", "replay"]


@dataclass
class GameLog:
    variant: str
    players: int
    seed: int
    seats: list[str]
    actions: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    ranks: list[int] | None = None
    rules: int | None = None  # the variant's rules version (None: the installed one)

    def record_result(self, result: GameResult) -> None:
        self.scores, self.ranks = list(result.scores), list(result.ranks)

    def to_text(self) -> str:
        lines = [
            MAGIC,
            f"# variant: {self.variant}",
            f"# players: {self.players}",
            f"# seed: {self.seed}",
            f"# seats: {' '.join(self.seats)}",
            *self.actions,
            f"# rules: {self.rules or get_variant(self.variant).rules_version}",
        ]
        if self.scores is not None and self.ranks is not None:
            lines.append(
                f"# result: scores {' '.join(map(str, self.scores))} "
                f"ranks {' '.join(map(str, self.ranks))}"
            )
        return "\n".join(lines) + "\n"

    def to_match_log(self) -> MatchLog:
        """The same game in the match-log format (no seats per action, no timings)."""
        header = {"variant": self.variant, "players": self.players, "seed": self.seed}
        header["rules"] = self.rules or get_variant(self.variant).rules_version
        header["seats"] = [{"seat": s, "bot": name} for s, name in enumerate(self.seats)]
        actions = [{"n": n, "action": text} for n, text in enumerate(self.actions, start=1)]
        return MatchLog(header=header, actions=actions)

    @classmethod
    def from_text(cls, text: str) -> GameLog:
        lines = text.splitlines()
        if not lines or lines[0].strip() != MAGIC:
            raise LogError(f"not a ttr-arena game log (the first line must be '{MAGIC}')")
        header: dict[str, str] = {}
        actions: list[str] = []
        for number, line in enumerate(lines[1:], start=2):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if not sep:
                    raise LogError(f"line {number}: a header line is '# key: value'")
                header[key.strip()] = value.strip()
            else:
                actions.append(line)
        try:
            log = cls(
                variant=header["variant"],
                players=int(header["players"]),
                seed=int(header["seed"]),
                seats=header.get("seats", "").split(),
                actions=actions,
                rules=int(header.get("rules", "1")),
            )
        except KeyError as missing:
            raise LogError(f"the header lacks '{missing.args[0]}'") from None
        except ValueError as bad:
            raise LogError(f"bad header value: {bad}") from None
        if "result" in header:
            words = header["result"].split()
            try:
                split = words.index("ranks")
                log.scores = [int(w) for w in words[1:split]]
                log.ranks = [int(w) for w in words[split + 1 :]]
            except ValueError:
                raise LogError("the result line is '# result: scores ... ranks ...'") from None
        return log


def replay(log: GameLog) -> GameState:
    """Re-play ``log`` on the engine and return the final state.

    Raises ``LogError`` naming the line of the first action the engine
    refuses, or when the recorded result differs from the replayed one.
    """
    state = final_state(log.to_match_log())
    if log.scores is not None:
        if not state.is_over:
            raise LogError("the log records a result but the replayed game is not over")
        result = state.result()
        if list(result.scores) != log.scores or list(result.ranks) != log.ranks:
            raise LogError(
                f"replayed result differs: scores {list(result.scores)} ranks "
                f"{list(result.ranks)}, recorded scores {log.scores} ranks {log.ranks}"
            )
    return state

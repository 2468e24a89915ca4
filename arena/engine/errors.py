"""Errors the engine raises. Each names the rule that was broken."""

from __future__ import annotations


class NotationError(ValueError):
    """Text that is not an action in the notation (see docs/NOTATION.md)."""


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow in this state.

    ``rule`` is a short stable identifier (for example ``claim.route-taken``)
    that the referee reports to bots and tests assert on; the message says
    in words what was wrong.
    """

    def __init__(self, action: object, rule: str, message: str) -> None:
        super().__init__(f"illegal action '{action}': {message} [rule {rule}]")
        self.action = action
        self.rule = rule
        self.reason = message


class VariantUnavailableError(RuntimeError):
    """A variant that cannot be played, for example because its map data is incomplete."""


class PositionError(ValueError):
    """A position (``Variant.from_position``) that is not a state of the game: the message
    says which field is wrong and why."""


class RulesVersionError(ValueError):
    """A recorded game played under other rules than the installed variant's (a rulebook fix
    changed how some games unfold): it cannot be re-simulated faithfully."""

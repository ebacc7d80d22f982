"""What a running effect sees (:class:`Frame`), and the bound its arithmetic keeps within.

Imports nothing of the language: the budget, the changes, the nodes and the registry's
functions all take a frame.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from ..model.game import Game, Player
    from ..model.ruleset import Card

# Final: the compiled build then uses the number itself, not a lookup in the module.
MAX_INT: Final = 10**12  # arithmetic results are kept within this bound


class Frame:
    """What a running effect sees: the game, its card, its stage, its owner, its variables.

    Typed, not ``Any``: the compiled build then reads these attributes (and the game's)
    directly rather than by name.
    """

    __slots__ = ("game", "card", "stage", "owner", "slots")

    def __init__(self, game: Game, card: Card, stage: str, owner: Player | None, size: int) -> None:
        self.game = game
        self.card = card
        self.stage = stage
        self.owner = owner
        self.slots: list[Any] = [None] * size


def bounded(x: int) -> int:
    return MAX_INT if x > MAX_INT else -MAX_INT if x < -MAX_INT else x

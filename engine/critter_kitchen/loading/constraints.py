"""Meal constraints: the conditions cards in play put on a challenge meal or a critic meal.

A card's ``constraints`` (model/ruleset.py :class:`Constraint`) each hold a condition of the
effect language over one meal, checked at load time: a challenge meal's condition reads
``meal`` and ``player``, a critic meal's ``courses`` (the course types served) and
``player`` (dsl/registry.py ``CONSTRAINT_NAMES``). The cards whose constraints a meal must
meet are the rules cards, the cards on the table (the critic, the rumors, ...), the cards
the meal's player holds, and for a challenge meal its own Challenge card (a Challenge card's
constraints are about its own meals only; other Challenge cards say nothing of it).

A condition runs as an effect does, in a frame of the game, charged to the game's work
budget (dsl/budget.py); a meal failing one is illegal, refused with the card's name and the
constraint's message. Every place that judges a meal asks here: the record reader, the
public checks (api), and through them the planner, the score pad and the lab.
"""

from __future__ import annotations

from ..dsl.budget import charge
from ..dsl.frame import Frame
from ..errors import EvaluationError
from ..model.game import Game, Meal, Player
from ..model.ruleset import CHALLENGE_CARDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ..model.ruleset import Card, Constraint, Ruleset

STAGE = "meal constraints"  # what a failing condition's error names as its stage


def constraining(
    ruleset: Ruleset, cards: Iterable[Card], meal: str, challenge: Card | None = None
) -> list[tuple[Card, Constraint]]:
    """The constraints about ``meal`` (challenge or critic) that a player's meal must meet,
    with their cards: those of the rules cards, of ``cards`` (the table's and the player's
    own; Challenge cards among them are skipped) and, for a challenge meal, of its card."""
    found: list[tuple[Card, Constraint]] = []
    seen: set[str] = set()
    kinds = ruleset.card_kinds
    for card in (*(c for c, _ in ruleset.scoring().rules_in_play), *cards):
        if card.constraints and card.id not in seen and kinds.get(card.kind) != CHALLENGE_CARDS:
            seen.add(card.id)
            found.extend((card, c) for c in card.constraints if c.meal == meal)
    if challenge is not None:
        found.extend((challenge, c) for c in challenge.constraints if c.meal == meal)
    return found


def holds(game: Game, card: Card, constraint: Constraint, player: Player, values: tuple[Any, ...]) -> bool:
    """Whether ``constraint`` holds of a meal of ``player`` whose names take ``values`` (in
    the order of ``CONSTRAINT_NAMES``), run in a frame of ``game`` within its work budget."""
    code = constraint.code
    if code is None:
        return True  # a condition with a problem never loads: validate reported it
    frame = Frame(game, card, STAGE, player, code.slots)
    for i, value in enumerate(values):
        frame.slots[i] = value
    charge(frame, code.steps)
    try:
        return bool(code.execute(frame))
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        # The type checker should make this unreachable; if not, say where, never a traceback.
        raise EvaluationError(f"{card.path}: a meal constraint of card '{card.id}' failed: {e}") from e


def refused(card: Card, constraint: Constraint) -> str:
    """The problem of a meal that fails ``constraint`` of ``card``."""
    return f"{card.name}: {constraint.message}"


def challenge_problems(game: Game, meal: Meal, constraints: list[tuple[Card, Constraint]]) -> list[str]:
    """Why ``meal`` (a legal meal by the meal rules) fails these challenge-meal constraints."""
    return [refused(c, k) for c, k in constraints if not holds(game, c, k, meal.player, (meal, meal.player))]


def critic_problems(game: Game, player: Player, constraints: list[tuple[Card, Constraint]]) -> list[str]:
    """Why ``player``'s critic meal (served: ``player.courses``) fails these critic-meal constraints.

    A player who serves no course serves no critic meal (as one the record leaves out):
    there is nothing for a critic-meal constraint to refuse, and the tokens kept are not served."""
    if not player.served:
        return []
    courses = list(player.served)
    return [refused(c, k) for c, k in constraints if not holds(game, c, k, player, (courses, player))]


def lone_game(ruleset: Ruleset, params: dict[str, Any], cards: Iterable[Card], name: str = "player") -> Game:
    """A game of one player holding nothing, with ``cards`` on the table, in which a meal is
    judged apart from any record (the public checks, the planner): its own work budget."""
    player = Player(name, 0)
    game = Game(ruleset, (player,), params, {})
    game.table_cards = tuple(cards)
    return game

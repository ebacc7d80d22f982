"""What the scoring programs in play read of a challenge meal, proved from their syntax trees.

The planner's fast search rests on two facts about the stages and card effects in play,
both read here from the compiled effect language and never from a rule of the game:

* **The meal's view**: the effect language sees a meal only through the functions that
  take a meal (``meal_quality``, ``uses``, ...). Two meals for the same card that agree on
  every such function the programs in play call are scored alike in every game, so a
  meal matters only through its *signature*: the values of those functions.
* **Separability**: when every program that reads meals is a loop ``for m in meals(r)``
  (or ``meals_for``) whose body reads no other meal, changes nothing and whose
  surroundings depend on no meal, and no program reads a player's stars, then the stars
  of a plan are the sum of the stars each of its meals earns served alone.
"""

from __future__ import annotations

from ..dsl import nodes as n
from ..dsl import types as t
from ..dsl.registry import FUNCTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..model.ruleset import Card, Ruleset

    Signature = tuple[Any, ...]

MEAL_SOURCES = ("meals", "meals_for")  # the functions that give meals to a program
STAR_READERS = ("stars", "stage_stars")  # a player's stars so far: they depend on every meal
SAME_FOR_A_CARD = ("player_of", "meal_card", "meal_card_id")  # one player and one card per option


def programs(ruleset: Ruleset, cards: Iterable[Card]) -> list[n.Program]:
    """The syntax trees of the stages and of every effect of the rules cards and ``cards``."""
    found: list[n.Program] = [s.ast for s in ruleset.stages if s.ast is not None]
    for card in (*ruleset.rules_cards, *cards):
        found.extend(effect.ast for effect in card.effects)
    return found


def called(trees: Iterable[object]) -> set[str]:
    """The names of every function called in ``trees``."""
    return {node.func for tree in trees for node in n.walk(tree) if isinstance(node, n.Call | n.Comprehension)}


def meal_functions() -> set[str]:
    """The functions of the effect language that take a meal (or a list of meals: conservatively)."""
    return {name for name, fn in FUNCTIONS.items() if any(t.MEAL in kind for _, kind in fn.params)}


def _full(meal: Any) -> Signature:
    return (
        tuple(sorted((i.type, i.value, i.spices) for i in meal.ingredients)),
        tuple(sorted((k, v) for k, v in meal.tokens.items() if v)),
    )


def signature_of(trees: list[n.Program], ruleset: Ruleset) -> Callable[[Any], Signature]:
    """A function giving a meal's signature: what the programs in play can read of it.

    Each meal function called contributes its value; a meal function not known here (or
    ``ingredients``, which exposes each ingredient) makes the signature the whole meal.
    """
    used = called(trees) & meal_functions()
    types = ruleset.ingredient_types
    parts: list[Callable[[Any], Any]] = []
    for name in sorted(used - set(SAME_FOR_A_CARD)):
        if name == "meal_quality":
            parts.append(lambda m: m.quality)
        elif name == "uses":
            parts.append(lambda m: tuple(sum(1 for i in m.ingredients if i.type == k) for k in types))
        elif name == "meal_tokens":
            parts.append(lambda m: sum(m.tokens.values()))
        elif name == "meal_spices":
            parts.append(lambda m: sum(len(i.spices) for i in m.ingredients))
        else:
            return _full
    return lambda m: tuple(part(m) for part in parts)


def separable(trees: list[n.Program]) -> bool:
    """Whether the stars of a set of meals are the sum of the stars of each meal alone (see the module)."""
    if called(trees) & set(STAR_READERS):
        return False
    return all(_top_ok(tree.body) for tree in trees)


def _reads_meals(node: object) -> bool:
    return any(isinstance(x, n.Call | n.Comprehension) and x.func in MEAL_SOURCES for x in n.walk(node))


def _top_ok(body: tuple[n.Stmt, ...]) -> bool:
    """Statements outside any meal loop: each meal loop must be separable, everything else meal-free."""
    for stmt in body:
        if isinstance(stmt, n.For):
            if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                if _reads_meals(stmt.source.args) or not _per_meal_ok(stmt.body):
                    return False
            elif _reads_meals(stmt.source) or not _top_ok(stmt.body):
                return False
        elif isinstance(stmt, n.If):
            if _reads_meals(stmt.condition) or not (_top_ok(stmt.then) and _top_ok(stmt.orelse)):
                return False
        elif isinstance(stmt, n.Let):
            if _reads_meals(stmt.value):
                return False
        elif isinstance(stmt, n.Award):
            if _reads_meals(stmt.amount) or _reads_meals(stmt.target):
                return False
        elif isinstance(stmt, n.Modify):
            if _reads_meals(stmt.target) or _reads_meals(stmt.value):
                return False
        elif not isinstance(stmt, n.Pass):
            return False  # a statement this proof does not know
    return True


def _per_meal_ok(body: tuple[n.Stmt, ...]) -> bool:
    """A meal loop's body: it reads no other meal and changes nothing (its awards add up)."""
    for node in n.walk(body):
        if isinstance(node, n.Modify):
            return False
        if isinstance(node, n.Call | n.Comprehension) and node.func in MEAL_SOURCES:
            return False
    return True

"""Facts of the meal rules the planner's searches rely on, as the engine states them.

Each is the engine's own rule (``model/meals.py``), said here in the form a search uses;
``tests/test_plan_exact_paths_agree.py`` and ``tests/test_plan_exact_tokens.py`` check them
against :func:`critter_kitchen.check_meal`:

* a meal holding an ingredient of a type :func:`meal_types` leaves out, or an ingredient
  with a problem of :func:`check_spices`, is refused whatever else it holds;
* a legal meal's quality is ``capped_quality(sum of ingredient_quality and token_quality of
  its parts)``;
* whether a meal whose every ingredient passes :func:`check_spices` is legal depends only on
  how many ingredients of each type and how many of each token it holds, never on their
  values or spices (nor on which tokens, among :func:`exchangeable_tokens`).

They are facts of the meal rules alone (wildcard and different-type slots included). A meal
constraint of a card in play (``loading/constraints.py``) may read anything of a meal, so
where one binds the meals planned (:meth:`.pantry.Question.constrained`) the searches that
rest on these facts give way to those that judge every meal whole.
"""

from __future__ import annotations

from ..model import meals
from ..model.meals import allowed_types, ingredient_problems

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..model.game import Ingredient
    from ..model.ruleset import Card, Ruleset


def meal_types(card: Card, params: Mapping[str, Any], *, held: bool = False) -> frozenset[str] | None:
    """The ingredient types a legal meal for ``card`` may contain (None: any type), under the
    player's parameters (:func:`critter_kitchen.rule_parameters`); ``held``: the Hold token is on it."""
    return allowed_types(card, held, params)


def check_spices(ruleset: Ruleset, ingredient: Ingredient, params: Mapping[str, Any]) -> list[str]:
    """Why ``ingredient``'s spices cannot all be on it in a challenge meal; empty when they can."""
    return ingredient_problems(ingredient, params, ruleset.ingredient_types)


def ingredient_quality(ingredient: Ingredient, params: Mapping[str, Any]) -> int:
    """What ``ingredient`` (with its spices) adds to the quality of a legal challenge meal."""
    return meals.ingredient_quality(ingredient, params)


def exchangeable_tokens(params: Mapping[str, Any]) -> frozenset[str]:
    """The tokens whose kinds a challenge meal's legality does not tell apart: every token these
    rules know fills an empty slot as any other does (``tokens_per_missing_type`` of them per
    slot), so a meal keeps its verdict when some of its tokens are replaced by as many others
    of this set."""
    return frozenset(params["token_values"])


def token_quality(token: str, params: Mapping[str, Any]) -> int:
    """What one ``token`` (a token these rules know) adds to the quality of a legal challenge meal."""
    return meals.token_quality(token, params)


def capped_quality(total: int) -> int:
    """A challenge meal's quality from the sum of its parts (see :func:`ingredient_quality`)."""
    return meals.capped_quality(total)

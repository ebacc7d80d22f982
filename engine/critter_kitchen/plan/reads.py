"""What the scoring programs in play read of a challenge meal, proved from what their syntax
trees tell (told once, by the compiler: ``dsl/facts.py``); nothing here walks a tree.

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

from ..dsl import types as t
from ..dsl.facts import SAME_FOR_A_CARD
from ..dsl.registry import FUNCTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from ..model.ruleset import Ruleset
    from .programs import Program

    Signature = tuple[Any, ...]

STAR_READERS = ("stars", "stage_stars")  # a player's stars so far: they depend on every meal


def called(programs: Iterable[Program]) -> set[str]:
    """The names of every function called in ``programs``."""
    found: set[str] = set()
    for program in programs:
        found |= program.calls
    return found


def meal_functions() -> set[str]:
    """The functions of the effect language that take a meal (or a list of meals: conservatively)."""
    return {name for name, fn in FUNCTIONS.items() if any(t.MEAL in kind for _, kind in fn.params)}


def _full(meal: Any) -> Signature:
    return (
        tuple(sorted((i.type, i.value, i.spices) for i in meal.ingredients)),
        tuple(sorted((k, v) for k, v in meal.tokens.items() if v)),
    )


# The meal functions a signature knows how to read, each a part of it (see signature_of).
SIGNATURE_PARTS = {"meal_quality": 0, "uses": 1, "meal_tokens": 2, "meal_spices": 3}


class MealView:
    """A meal's signature: in the order of the function names given, the value of each meal
    function (``meal_quality``, ``uses``, ``meal_tokens``, ``meal_spices``) the programs in play
    call. Made once per table; called for every meal a search lists, so it reads each meal in
    one pass."""

    def __init__(self, names: list[str], types: tuple[str, ...]) -> None:
        self.parts = [SIGNATURE_PARTS[name] for name in names]
        self.at = {kind: j for j, kind in enumerate(types)}  # ingredient type -> its place in ``uses``
        self.types = len(types)

    def __call__(self, m: Any) -> Signature:
        found: list[Any] = []
        for part in self.parts:
            if part == 0:
                found.append(m.quality)
            elif part == 1:  # how many ingredients of each type, in the ruleset's order
                counts = [0] * self.types
                at = self.at
                for ingredient in m.ingredients:
                    j = at.get(ingredient.type)
                    if j is not None:
                        counts[j] += 1
                found.append(tuple(counts))
            elif part == 2:
                found.append(sum(m.tokens.values()))
            else:
                found.append(sum(len(i.spices) for i in m.ingredients))
        return tuple(found)


def signature_of(programs: list[Program], ruleset: Ruleset) -> Callable[[Any], Signature]:
    """A function giving a meal's signature: what the programs in play can read of it.

    Each meal function called contributes its value (:class:`MealView`); a meal function not
    known here (or ``ingredients``, which exposes each ingredient) makes the signature the
    whole meal.
    """
    used = sorted(called(programs) & meal_functions() - set(SAME_FOR_A_CARD))
    if any(name not in SIGNATURE_PARTS for name in used):
        return _full
    return MealView(used, ruleset.ingredient_types)


def separable(programs: list[Program]) -> bool:
    """Whether the stars of a set of meals are the sum of the stars of each meal alone (see the module;
    each program's meal loops are proved separable when it is compiled: ``dsl/facts.py``)."""
    if called(programs) & set(STAR_READERS):
        return False
    return all(program.separable for program in programs)


def quality_only(programs: list[Program]) -> bool:
    """Whether the programs in play read nothing of a meal but its quality (and its card and player)."""
    return called(programs) & meal_functions() <= {"meal_quality", *SAME_FOR_A_CARD}


def stars_rise_with_quality(programs: list[Program], tables: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the stars a meal earns alone never fall as its quality rises (every other part of
    the game fixed), for separable programs (:func:`separable`) that read a meal's quality only.

    Each program's proof was made when it was compiled (``dsl/facts.rising_tables``): it holds
    when every program's does and each parameter table those proofs need is one that no
    program in play binds as a name and that every parameter table set in ``tables`` (the
    parameters in force) lists with stars never below 0 and never falling.
    """
    needed: set[str] = set()
    bound: set[str] = set()
    for program in programs:
        if program.rising_tables is None:
            return False
        needed |= program.rising_tables
        bound |= program.bound
    in_force = [dict(t) for t in tables]
    return all(name not in bound and rising_table(name, in_force) for name in needed)


def rising_table(name: str, tables: list[dict[str, Any]]) -> bool:
    """Whether the parameter ``name`` lists, in each of ``tables`` (and there is one), bands of
    stars never below 0 and never falling."""
    for params in tables:
        rows = params.get(name)
        if not isinstance(rows, list) or not all(isinstance(r, list | tuple) and len(r) == 2 for r in rows):
            return False
        stars = [r[1] for r in rows]
        if not all(isinstance(s, int) for s in stars) or any(s < 0 for s in stars):
            return False
        if any(a > b for a, b in zip(stars, stars[1:], strict=False)):
            return False
    return bool(tables)

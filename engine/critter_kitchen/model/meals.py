"""The meal rules, written once: what makes a challenge meal or a critic course legal, and its quality.

Every rule here reads the rule parameters in force (``params``: the ruleset's values as
changed by the cards in play for one player) and already-read objects (an
:class:`Ingredient`, a dict of token counts), never raw record data. The record reader
calls these functions for every meal, and so may any other part of the program that
asks whether a meal is legal (see :func:`critter_kitchen.check_meal`).

Problem texts are what a record's author reads, so they name the card and the types.
"""

from __future__ import annotations

from ..errors import did_you_mean
from .game import Ingredient

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any, Final

    from .ruleset import Card, Ruleset

MAX_QUALITY: Final = 10**12  # a meal or course quality beyond this counts as this


def table_parameters(ruleset: Ruleset, table: Iterable[Card]) -> dict[str, Any]:
    """The rule parameters in force for everyone: the ruleset's values, changed by the cards on
    the table (the critic, the rumors, ...) in the order given."""
    params = dict(ruleset.scoring().base_params)  # the game's own: cards change it
    for card in table:
        params.update(card.parameters)
    return params


def held_parameters(params: dict[str, Any], held: Iterable[Card]) -> dict[str, Any]:
    """The parameters in force for one player's meals: ``params`` changed by the cards the
    player holds (a Restaurateur). ``params`` itself when none of them changes any."""
    own = params
    for card in held:
        if card.parameters:
            if own is params:
                own = dict(params)  # those changes are the player's own
            own.update(card.parameters)
    return own


def spice_matches(spice: str, kind: str, params: Mapping[str, Any]) -> bool:
    """Whether ``spice`` may go on an ingredient (or course) of type ``kind``: its own or the wild spice."""
    return spice == kind or spice == params["wild_spice"]


def spice_problem(
    kind: str, spices: Sequence[str], limit: int, params: Mapping[str, Any], types: Sequence[str]
) -> str | None:
    """Why these spices cannot all go on one ``kind`` ingredient taking at most ``limit``, or None.

    ``types`` are the ruleset's ingredient types: a spice named after none of them is unknown.
    """
    if not spices:
        return None
    if len(spices) > limit:
        return f"{len(spices)} spices on one ingredient; at most {limit} allowed"
    for spice in spices:
        if not spice_matches(spice, kind, params):
            wild = params["wild_spice"]
            known = (*types, wild)
            if spice in known:
                return f"{spice} spice does not match {kind}; use {kind} or {wild}"
            return f"unknown spice '{spice}'{did_you_mean(spice, known)}"
    return None


def listed_slots(card: Card, held: bool, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The requirement slots a meal must cover, left to right: the card's printed requirements,
    less the rightmost one when the Hold token is on the card and the rules let it cover one.

    A type printed twice is two slots (``fish, fish``); the Hold token covers one slot only.
    """
    if held and params["hold_covers_last"] and card.requires:
        return card.requires[:-1]
    return card.requires


def allowed_types(card: Card, held: bool, params: Mapping[str, Any]) -> frozenset[str] | None:
    """The ingredient types a legal meal for ``card`` may contain, or None when any type may be
    served (a meal with an ingredient of another type is never legal)."""
    if params["only_listed_types"]:
        return frozenset(listed_slots(card, held, params))
    return None


# Slot counts by requirement list: a pure function of the list, made once per distinct list
# rather than once per meal (few lists exist: one or two per card). Never changed by readers.
_SLOT_COUNTS: dict[tuple[str, ...], dict[str, int]] = {}


def _slot_counts(listed: tuple[str, ...]) -> dict[str, int]:
    """How many slots of each type ``listed`` has, in the order the types first appear."""
    slots = _SLOT_COUNTS.get(listed) if type(listed) is tuple else None
    if slots is None:
        slots = {}
        for kind in listed:
            slots[kind] = slots.get(kind, 0) + 1
        if type(listed) is tuple and len(_SLOT_COUNTS) < 4096:  # bounded whatever packs are loaded
            _SLOT_COUNTS[listed] = slots
    return slots


def legality_problems(
    card: Card, ingredients: Sequence[Ingredient], tokens: dict[str, int], params: Mapping[str, Any], held: bool
) -> list[str]:
    """Why a meal of these ingredients and tokens is not a legal meal for ``card``; empty when legal.

    Every slot is covered by its own ingredient of its type or filled with tokens
    (``tokens_per_missing_type`` per empty slot); spices are not looked at here.
    """
    listed = listed_slots(card, held, params)
    slots = _slot_counts(listed)
    served: dict[str, int] = {}
    real = 0  # the ingredients of a listed type
    for ingredient in ingredients:
        kind = ingredient.type
        served[kind] = served.get(kind, 0) + 1
        if kind in slots:
            real += 1
    problems: list[str] = []
    # allowed_types is the rule; its set is the slots' types, already counted here
    if real < len(ingredients) and allowed_types(card, held, params) is not None:
        for kind in served:
            if kind not in slots:
                problems.append(f"{kind} is not listed on {card.name} ({', '.join(listed)})")
    need: int = params["min_real_ingredients"]  # typed: the compiled build compares machine integers
    if real < need:
        used = [k for k, n in tokens.items() if n]
        only = f"only {' and '.join(used)}" if used else "nothing served"
        what = "no required ingredient" if need == 1 else f"fewer than {need} required ingredients"
        problems.append(f"{what}, {only}")
        return problems
    empty = 0
    missing: list[str] = []
    for kind, n in slots.items():
        short = n - served.get(kind, 0)
        if short > 0:
            empty += short
            missing.append(kind if n == 1 else f"{short} of {n} {kind}")
    per_slot: int = params["tokens_per_missing_type"]
    needed = empty * per_slot
    if needed:
        fillers = sum(tokens.values())
        if fillers < needed:
            kinds = " or ".join(params["token_values"])
            problems.append(f"missing {', '.join(missing)}: {needed} {kinds} needed to fill, {fillers} given")
    return problems


def ingredient_problems(ingredient: Ingredient, params: Mapping[str, Any], types: Sequence[str]) -> list[str]:
    """Why ``ingredient`` (with its spices) cannot be part of a challenge meal; empty when it can."""
    wrong = spice_problem(ingredient.type, ingredient.spices, params["spices_per_ingredient"], params, types)
    return [wrong] if wrong is not None else []


def meal_problems(
    card: Card,
    ingredients: Sequence[Ingredient],
    tokens: dict[str, int],
    params: Mapping[str, Any],
    held: bool,
    types: Sequence[str],
) -> list[str]:
    """Why this meal is not legal for ``card`` (``held``: the Hold token is on it); empty when legal.

    Each ingredient's spices first (named by the ingredient), then the meal as a whole.
    ``types`` are the ruleset's ingredient types, for naming unknown spices.
    """
    problems: list[str] = []
    for ingredient in ingredients:
        if ingredient.spices:
            for wrong in ingredient_problems(ingredient, params, types):
                problems.append(f"{ingredient.type} {ingredient.value}: {wrong}")
    problems += legality_problems(card, ingredients, tokens, params, held)
    return problems


def served_meal_problems(
    card: Card,
    ingredients: Sequence[Ingredient],
    tokens: dict[str, int],
    params: Mapping[str, Any],
    held: bool,
    types: Sequence[str],
) -> list[str]:
    """Why this meal, tokens included, is not legal for ``card``: any token these rules do not
    know, then :func:`meal_problems`; empty when legal."""
    problems = [wrong for name in tokens if (wrong := unknown_token(name, params)) is not None]
    return problems + meal_problems(card, ingredients, tokens, params, held, types)


def meal_quality(ingredients: Sequence[Ingredient], tokens: dict[str, int], params: Mapping[str, Any]) -> int:
    """A legal meal's quality: each ingredient's value times the spice factor per spice, plus token values.

    Written as a sum of parts (:func:`ingredient_quality`, :func:`token_quality`), capped
    (:func:`capped_quality`): a search may add a meal's quality up from its parts.
    """
    quality = 0
    for ingredient in ingredients:
        quality += ingredient_quality(ingredient, params)
    for token, n in tokens.items():
        quality += n * token_quality(token, params)
    return capped_quality(quality)


def ingredient_quality(ingredient: Ingredient, params: Mapping[str, Any]) -> int:
    """What one ingredient (with its spices) adds to a challenge meal's quality."""
    factor: int = params["spice_factor"]
    quality: int = ingredient.value * factor ** len(ingredient.spices)
    return quality


def token_quality(token: str, params: Mapping[str, Any]) -> int:
    """What one token adds to a challenge meal's quality (a token these rules know)."""
    value: int = params["token_values"][token]
    return value


def capped_quality(total: int) -> int:
    """A meal's quality from the sum of its parts."""
    return min(total, MAX_QUALITY)


def course_kind_problem(kind: str, params: Mapping[str, Any]) -> str | None:
    """Why the critic meal has no ``kind`` course, or None."""
    courses = params["course_types"]
    return None if kind in courses else f"unknown course '{kind}'{did_you_mean(kind, courses)}"


def course_token_refused(token: str, params: Mapping[str, Any]) -> str | None:
    """Why no token may be served as a course under these rules, or None when tokens may."""
    return None if params["tokens_fill_courses"] else f"{token} cannot fill a critic course"


def unknown_token(token: str, params: Mapping[str, Any]) -> str | None:
    """Why ``token`` names no token of these rules, or None."""
    values = params["token_values"]
    return None if token in values else f"unknown token '{token}'{did_you_mean(token, values)}"


def course_problems(kind: str, served: Ingredient | str, params: Mapping[str, Any], types: Sequence[str]) -> list[str]:
    """Why ``served`` (an ingredient of type ``kind``, or a token's name) cannot be the ``kind``
    course of a critic meal; empty when it can."""
    wrong = course_kind_problem(kind, params)
    if wrong is None:
        wrong = _served_course_problem(kind, served, params, types)
    return [wrong] if wrong is not None else []


def _served_course_problem(
    kind: str, served: Ingredient | str, params: Mapping[str, Any], types: Sequence[str]
) -> str | None:
    if isinstance(served, str):
        return course_token_refused(served, params) or unknown_token(served, params)
    if served.type != kind:
        return f"a {served.type} ingredient cannot be the {kind} course"
    return course_spice_problem(kind, served.spices, params, types)


def course_spice_problem(
    kind: str, spices: Sequence[str], params: Mapping[str, Any], types: Sequence[str]
) -> str | None:
    """Why these spices cannot be on the ``kind`` course, an ingredient of that type, or None.

    The part of :func:`course_problems` that the record reader asks of each course of a
    known type, without building an :class:`Ingredient` first.
    """
    return spice_problem(kind, spices, params["spices_per_course"], params, types)


def course_quality(served: Ingredient | str, params: Mapping[str, Any]) -> int:
    """A legal course's quality: a token's value, or the value times the course spice factor per spice."""
    if isinstance(served, str):
        value: int = params["token_values"][served]
        return value
    return ingredient_course_quality(served.value, served.spices, params)


def ingredient_course_quality(value: int, spices: Sequence[str], params: Mapping[str, Any]) -> int:
    """:func:`course_quality` of an ingredient course, from its value and spices."""
    quality: int = value * params["course_spice_factor"] ** len(spices)
    return min(quality, MAX_QUALITY)

"""The meal rules, written once: what makes a challenge meal or a critic course legal, and its quality.

Every rule here reads the rule parameters in force (``params``: the ruleset's values as
changed by the cards in play for one player) and already-read objects (an
:class:`Ingredient`, a dict of token counts), never raw record data. The record reader
calls these functions for every meal, and so may any other part of the program that
asks whether a meal is legal (see :func:`critter_kitchen.check_meal`).

Problem texts are what a record's author reads, so they name the card and the types.
"""

from __future__ import annotations

from ..errors import CritterError, did_you_mean
from .game import Ingredient
from .ruleset import WILD_SLOT

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


def card_parameters(params: dict[str, Any], card: Card) -> dict[str, Any]:
    """The parameters in force for a meal served for ``card``: ``params`` (its player's) changed
    by the card's own (a Challenge card's printed bands, spice factor, ...). ``params`` itself
    when the card changes none."""
    if not card.parameters:
        return params
    own = dict(params)
    own.update(card.parameters)
    return own


class MealLevel:
    """The meal rules in force for one player's meals, card by card: the player's own
    (``rules``), and for a card with parameters of its own, rules under those, made once."""

    __slots__ = ("rules", "_by_card")

    def __init__(self, rules: MealRules) -> None:
        self.rules = rules
        self._by_card: dict[str, MealRules] = {}

    def for_card(self, card: Card) -> MealRules:
        """The meal rules of a meal served for ``card``."""
        if not card.parameters:
            return self.rules
        made = self._by_card.get(card.id)
        if made is None:
            made = self._by_card[card.id] = MealRules(card_parameters(dict(self.rules.params), card), self.rules.cards)
        return made


class MealRules:
    """The rule parameters the meal rules read, typed, from one set of parameters in force
    (``params``: see :func:`table_parameters`, :func:`held_parameters`), with the rules as
    its methods. The functions below that take ``params`` ask the same methods of
    ``MealRules(params)``: each rule is written once, here. A reader of many meals under one
    set of parameters (the record reader, per player) makes this once and asks it directly.
    """

    def __init__(self, params: Mapping[str, Any], cards: tuple[Card, ...] = ()) -> None:
        self.params = params
        # The cards in play for the player whose meal constraints apply too (loading/constraints.py
        # runs them: the model holds them, never reads them).
        self.cards = cards
        try:
            self._read(params)
        except KeyError as e:
            raise CritterError(
                f"the meal rules read the rule parameter {e.args[0]!r}, which these parameters lack: "
                "read them with critter_kitchen.rule_parameters"
            ) from None

    def _read(self, params: Mapping[str, Any]) -> None:
        self.wild_spice: str = params["wild_spice"]
        self.hold_covers_last = bool(params["hold_covers_last"])
        self.only_listed_types = bool(params["only_listed_types"])
        self.min_real_ingredients: int = params["min_real_ingredients"]
        self.tokens_per_missing_type: int = params["tokens_per_missing_type"]
        self.token_values: dict[str, int] = params["token_values"]
        self.spice_factor: int = params["spice_factor"]
        self.spices_per_ingredient: int = params["spices_per_ingredient"]
        self.course_types: Sequence[str] = params["course_types"]
        self.course_set = frozenset(self.course_types)  # the same, to look a type up in
        self.course_spice_factor: int = params["course_spice_factor"]
        self.spices_per_course: int = params["spices_per_course"]
        self.tokens_fill_courses = bool(params["tokens_fill_courses"])

    def spice_matches(self, spice: str, kind: str) -> bool:
        """Whether ``spice`` may go on an ingredient (or course) of type ``kind``: its own or the wild spice."""
        return spice == kind or spice == self.wild_spice

    def spice_problem(self, kind: str, spices: Sequence[str], limit: int, types: Sequence[str]) -> str | None:
        """Why these spices cannot all go on one ``kind`` ingredient taking at most ``limit``, or None.

        ``types`` are the ruleset's ingredient types: a spice named after none of them is unknown.
        """
        if not spices:
            return None
        if len(spices) > limit:
            return f"{len(spices)} spices on one ingredient; at most {limit} allowed"
        for spice in spices:
            if not self.spice_matches(spice, kind):
                wild = self.wild_spice
                known = (*types, wild)
                if spice in known:
                    return f"{spice} spice does not match {kind}; use {kind} or {wild}"
                return f"unknown spice '{spice}'{did_you_mean(spice, known)}"
        return None

    def listed_slots(self, card: Card, held: bool) -> tuple[str, ...]:
        """The requirement slots a meal must cover, left to right: the card's printed requirements,
        less the rightmost one when the Hold token is on the card and the rules let it cover one.

        A type printed twice is two slots (``fish, fish``); the Hold token covers one slot only,
        a wildcard slot (:data:`WILD_SLOT`) as any other.
        """
        return card.requires[:-1] if self.covers_last(card, held) else card.requires

    def covers_last(self, card: Card, held: bool) -> bool:
        """Whether the Hold token covers the rightmost requirement slot of ``card`` (see :meth:`listed_slots`)."""
        return held and self.hold_covers_last and len(card.requires) > 0

    def allowed_types(self, card: Card, held: bool) -> frozenset[str] | None:
        """The ingredient types a legal meal for ``card`` may contain, or None when any type may be
        served (a meal with an ingredient of another type is never legal).

        The listed types are those of the listed fixed slots; a listed wildcard slot lists every
        type, so with one any type may be served whatever ``only_listed_types`` says."""
        if self.only_listed_types:
            return listed_types(card.slot_counts(self.covers_last(card, held)))
        return None

    def legality_problems(
        self, card: Card, ingredients: Sequence[Ingredient], tokens: dict[str, int], held: bool
    ) -> list[str]:
        """Why a meal of these ingredients and tokens is not a legal meal for ``card``; empty when legal.

        The meal's ingredients are assigned to the listed slots: each fixed-type slot takes an
        ingredient of its type, then each wildcard slot takes one of the ingredients left (with
        ``different_types``: of a type that no other listed slot has, nor any other wildcard
        slot's ingredient). Every slot left empty is filled with tokens
        (``tokens_per_missing_type`` per empty slot); spices are not looked at here.
        """
        slots = card.slot_counts(self.covers_last(card, held))  # the listed slots, by type
        wild = slots.get(WILD_SLOT, 0)
        kinds = [ingredient.type for ingredient in ingredients]
        real = 0  # the ingredients of a listed type (every type, when a wildcard slot is listed)
        for kind in kinds:
            if wild or kind in slots:
                real += 1
        problems: list[str] = []
        # allowed_types is the rule; its set is the slots' types, already counted here
        if real < len(kinds) and self.allowed_types(card, held) is not None:
            listed = self.listed_slots(card, held)
            for kind in dict.fromkeys(kinds):  # in the order first served
                if kind not in slots:
                    problems.append(f"{kind} is not listed on {card.name} ({', '.join(listed)})")
        need = self.min_real_ingredients
        if real < need:
            used = [k for k, n in tokens.items() if n]
            only = f"only {' and '.join(used)}" if used else "nothing served"
            what = "no required ingredient" if need == 1 else f"fewer than {need} required ingredients"
            problems.append(f"{what}, {only}")
            return problems
        empty = 0
        missing: list[str] = []
        left: list[str] = []  # the ingredients no fixed slot takes, for the wildcard slots
        for kind, n in slots.items():
            if kind == WILD_SLOT:
                continue
            served = kinds.count(kind)
            short = n - served
            if short > 0:
                empty += short
                missing.append(kind if n == 1 else f"{short} of {n} {kind}")
            elif short < 0 and not card.different_types:
                left += [kind] * -short  # (with different types, no wildcard takes a fixed slot's type)
        if wild:
            left += [kind for kind in kinds if kind not in slots]
            short = wild - len(set(left) if card.different_types else left)
            if short > 0:
                empty += short
                missing.append(wild_slots_missing(short, wild, card.different_types))
        needed = empty * self.tokens_per_missing_type
        if needed:
            fillers = 0
            for count in tokens.values():
                fillers += count
            if fillers < needed:
                fill = " or ".join(self.token_values)
                problems.append(f"missing {', '.join(missing)}: {needed} {fill} needed to fill, {fillers} given")
        return problems

    def ingredient_problems(self, ingredient: Ingredient, types: Sequence[str]) -> list[str]:
        """Why ``ingredient`` (with its spices) cannot be part of a challenge meal; empty when it can."""
        wrong = self.ingredient_problem(ingredient, types)
        return [wrong] if wrong is not None else []

    def ingredient_problem(self, ingredient: Ingredient, types: Sequence[str]) -> str | None:
        """:meth:`ingredient_problems` as one problem or None (an ingredient has one at most)."""
        return self.spice_problem(ingredient.type, ingredient.spices, self.spices_per_ingredient, types)

    def meal_problems(
        self, card: Card, ingredients: Sequence[Ingredient], tokens: dict[str, int], held: bool, types: Sequence[str]
    ) -> list[str]:
        """Why this meal is not legal for ``card`` (``held``: the Hold token is on it); empty when legal.

        Each ingredient's spices first (named by the ingredient), then the meal as a whole.
        ``types`` are the ruleset's ingredient types, for naming unknown spices.
        """
        problems: list[str] = []
        for ingredient in ingredients:
            if ingredient.spices:
                wrong = self.ingredient_problem(ingredient, types)
                if wrong is not None:
                    problems.append(f"{ingredient.type} {ingredient.value}: {wrong}")
        whole = self.legality_problems(card, ingredients, tokens, held)
        return problems + whole if problems else whole

    def served_meal_problems(
        self, card: Card, ingredients: Sequence[Ingredient], tokens: dict[str, int], held: bool, types: Sequence[str]
    ) -> list[str]:
        """Why this meal, tokens included, is not legal for ``card``: any token these rules do not
        know, then :meth:`meal_problems`; empty when legal."""
        problems = [wrong for name in tokens if (wrong := self.unknown_token(name)) is not None]
        return problems + self.meal_problems(card, ingredients, tokens, held, types)

    def meal_quality(self, ingredients: Sequence[Ingredient], tokens: dict[str, int]) -> int:
        """A legal meal's quality: each ingredient's value times the spice factor per spice, plus token values.

        Written as a sum of parts (:meth:`ingredient_quality`, :meth:`token_quality`), capped
        (:func:`capped_quality`): a search may add a meal's quality up from its parts.
        """
        quality = 0
        for ingredient in ingredients:
            quality += self.ingredient_quality(ingredient)
        for token, n in tokens.items():
            quality += n * self.token_quality(token)
        return capped_quality(quality)

    def ingredient_quality(self, ingredient: Ingredient) -> int:
        """What one ingredient (with its spices) adds to a challenge meal's quality."""
        quality = ingredient.value
        for _ in ingredient.spices:  # times the spice factor per spice
            quality *= self.spice_factor
        return quality

    def token_quality(self, token: str) -> int:
        """What one token adds to a challenge meal's quality (a token these rules know)."""
        return self.token_values[token]

    def course_kind_problem(self, kind: str) -> str | None:
        """Why the critic meal has no ``kind`` course, or None."""
        if kind in self.course_set:
            return None
        return f"unknown course '{kind}'{did_you_mean(kind, self.course_types)}"

    def course_token_refused(self, token: str) -> str | None:
        """Why no token may be served as a course under these rules, or None when tokens may."""
        return None if self.tokens_fill_courses else f"{token} cannot fill a critic course"

    def unknown_token(self, token: str) -> str | None:
        """Why ``token`` names no token of these rules, or None."""
        values = self.token_values
        return None if token in values else f"unknown token '{token}'{did_you_mean(token, values)}"

    def course_problems(self, kind: str, served: Ingredient | str, types: Sequence[str]) -> list[str]:
        """Why ``served`` (an ingredient of type ``kind``, or a token's name) cannot be the ``kind``
        course of a critic meal; empty when it can."""
        wrong = self.course_kind_problem(kind)
        if wrong is None:
            wrong = self._served_course_problem(kind, served, types)
        return [wrong] if wrong is not None else []

    def _served_course_problem(self, kind: str, served: Ingredient | str, types: Sequence[str]) -> str | None:
        if isinstance(served, str):
            return self.course_token_refused(served) or self.unknown_token(served)
        if served.type != kind:
            return f"a {served.type} ingredient cannot be the {kind} course"
        return self.course_spice_problem(kind, served.spices, types)

    def course_spice_problem(self, kind: str, spices: Sequence[str], types: Sequence[str]) -> str | None:
        """Why these spices cannot be on the ``kind`` course, an ingredient of that type, or None.

        The part of :meth:`course_problems` that the record reader asks of each course of a
        known type, without building an :class:`Ingredient` first.
        """
        return self.spice_problem(kind, spices, self.spices_per_course, types)

    def course_quality(self, served: Ingredient | str) -> int:
        """A legal course's quality: a token's value, or the value times the course spice factor per spice."""
        if isinstance(served, str):
            return self.token_values[served]
        return self.ingredient_course_quality(served.value, served.spices)

    def ingredient_course_quality(self, value: int, spices: Sequence[str]) -> int:
        """:meth:`course_quality` of an ingredient course, from its value and spices."""
        quality = value
        for _ in spices:  # times the course spice factor per spice
            quality *= self.course_spice_factor
        return min(quality, MAX_QUALITY)


def listed_types(slots: Mapping[str, int]) -> frozenset[str] | None:
    """The types listed by these slots (counted by type, as :meth:`Card.slot_counts` gives
    them): the fixed slots' types, or None (every type) when a wildcard slot is among them."""
    return None if WILD_SLOT in slots else frozenset(slots)


def wild_slots_missing(short: int, wild: int, different: bool) -> str:
    """How a meal's problem names the ``short`` empty wildcard slots of ``wild``."""
    if wild == 1:
        return "a slot of a type no other slot has" if different else "a slot of any type"
    return f"{short} of {wild} slots of {'different types' if different else 'any type'}"


def capped_quality(total: int) -> int:
    """A meal's quality from the sum of its parts."""
    return min(total, MAX_QUALITY)


# The rules asked of a mapping of parameters: each is the method of MealRules(params).


def spice_matches(spice: str, kind: str, params: Mapping[str, Any]) -> bool:
    """Whether ``spice`` may go on an ingredient (or course) of type ``kind``: its own or the wild spice."""
    return MealRules(params).spice_matches(spice, kind)


def spice_problem(
    kind: str, spices: Sequence[str], limit: int, params: Mapping[str, Any], types: Sequence[str]
) -> str | None:
    """Why these spices cannot all go on one ``kind`` ingredient taking at most ``limit``, or None."""
    return MealRules(params).spice_problem(kind, spices, limit, types)


def listed_slots(card: Card, held: bool, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The requirement slots a meal must cover (see :meth:`MealRules.listed_slots`)."""
    return MealRules(params).listed_slots(card, held)


def allowed_types(card: Card, held: bool, params: Mapping[str, Any]) -> frozenset[str] | None:
    """The ingredient types a legal meal for ``card`` may contain, or None when any type may be
    served (a meal with an ingredient of another type is never legal)."""
    return MealRules(params).allowed_types(card, held)


def legality_problems(
    card: Card, ingredients: Sequence[Ingredient], tokens: dict[str, int], params: Mapping[str, Any], held: bool
) -> list[str]:
    """Why a meal of these ingredients and tokens is not a legal meal for ``card``; empty when legal."""
    return MealRules(params).legality_problems(card, ingredients, tokens, held)


def ingredient_problems(ingredient: Ingredient, params: Mapping[str, Any], types: Sequence[str]) -> list[str]:
    """Why ``ingredient`` (with its spices) cannot be part of a challenge meal; empty when it can."""
    return MealRules(params).ingredient_problems(ingredient, types)


def meal_problems(
    card: Card,
    ingredients: Sequence[Ingredient],
    tokens: dict[str, int],
    params: Mapping[str, Any],
    held: bool,
    types: Sequence[str],
) -> list[str]:
    """Why this meal is not legal for ``card`` (``held``: the Hold token is on it); empty when legal."""
    return MealRules(params).meal_problems(card, ingredients, tokens, held, types)


def served_meal_problems(
    card: Card,
    ingredients: Sequence[Ingredient],
    tokens: dict[str, int],
    params: Mapping[str, Any],
    held: bool,
    types: Sequence[str],
) -> list[str]:
    """Why this meal, tokens included, is not legal for ``card``; empty when legal."""
    return MealRules(params).served_meal_problems(card, ingredients, tokens, held, types)


def meal_quality(ingredients: Sequence[Ingredient], tokens: dict[str, int], params: Mapping[str, Any]) -> int:
    """A legal meal's quality (see :meth:`MealRules.meal_quality`)."""
    return MealRules(params).meal_quality(ingredients, tokens)


def ingredient_quality(ingredient: Ingredient, params: Mapping[str, Any]) -> int:
    """What one ingredient (with its spices) adds to a challenge meal's quality."""
    return MealRules(params).ingredient_quality(ingredient)


def token_quality(token: str, params: Mapping[str, Any]) -> int:
    """What one token adds to a challenge meal's quality (a token these rules know)."""
    return MealRules(params).token_quality(token)


def course_kind_problem(kind: str, params: Mapping[str, Any]) -> str | None:
    """Why the critic meal has no ``kind`` course, or None."""
    return MealRules(params).course_kind_problem(kind)


def course_token_refused(token: str, params: Mapping[str, Any]) -> str | None:
    """Why no token may be served as a course under these rules, or None when tokens may."""
    return MealRules(params).course_token_refused(token)


def unknown_token(token: str, params: Mapping[str, Any]) -> str | None:
    """Why ``token`` names no token of these rules, or None."""
    return MealRules(params).unknown_token(token)


def course_problems(kind: str, served: Ingredient | str, params: Mapping[str, Any], types: Sequence[str]) -> list[str]:
    """Why ``served`` (an ingredient of type ``kind``, or a token's name) cannot be the ``kind``
    course of a critic meal; empty when it can."""
    return MealRules(params).course_problems(kind, served, types)


def course_spice_problem(
    kind: str, spices: Sequence[str], params: Mapping[str, Any], types: Sequence[str]
) -> str | None:
    """Why these spices cannot be on the ``kind`` course, an ingredient of that type, or None."""
    return MealRules(params).course_spice_problem(kind, spices, types)


def course_quality(served: Ingredient | str, params: Mapping[str, Any]) -> int:
    """A legal course's quality: a token's value, or the value times the course spice factor per spice."""
    return MealRules(params).course_quality(served)


def ingredient_course_quality(value: int, spices: Sequence[str], params: Mapping[str, Any]) -> int:
    """:func:`course_quality` of an ingredient course, from its value and spices."""
    return MealRules(params).ingredient_course_quality(value, spices)

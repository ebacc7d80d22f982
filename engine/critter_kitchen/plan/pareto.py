"""A round's candidate meals as the searches compare them, and the Pareto filter over them.

A meal uses items of the pantry (:class:`Items`: ingredient kinds, spices, tokens), packed
as counts in one integer; of two meals, one using no more of every item *covers* the other.
The searches keep the meals no other covers (:func:`pareto`, :func:`undominated`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TypeVar

    from ..model.game import Ingredient
    from .pantry import Question
    from .plans import PlannedMeal

    Use = tuple[int, ...]  # how many of each item (ingredient kinds, spices, tokens) a meal uses
    Key = tuple[int, int, int, int]  # stars, value left unused, -tokens spent, spices left

    Used = TypeVar("Used", "Option", "Listed")  # what undominated filters: each has ``use``, packed


class Option:
    """One candidate meal for one card: what it uses, its signature and (when known) its stars."""

    __slots__ = ("meal", "use", "signature", "stars", "value", "tokens", "spices")

    def __init__(self, meal: PlannedMeal, use: int, signature: Any, items: Items) -> None:
        self.meal = meal
        self.use = use  # packed (see Items.pack)
        self.signature = signature
        self.stars = 0
        self.value = sum(i.value for i in meal.ingredients)
        self.tokens = sum(meal.tokens.values())
        self.spices = sum(len(i.spices) for i in meal.ingredients)


class Listed:
    """A meal found by the listing, before it is made a meal: what the planner's filter sees of it.

    Hand-written, not a dataclass: the listing makes one per meal, and compiled a native
    ``__init__`` is five times faster (see ``values.py``)."""

    __slots__ = ("stars", "value", "tokens", "spices", "use", "chosen", "counts", "total")

    def __init__(
        self,
        stars: int,
        value: int,
        tokens: int,
        spices: int,
        use: int,
        chosen: tuple[Ingredient, ...],
        counts: tuple[int, ...],
        total: int,
    ) -> None:
        self.stars = stars
        self.value = value
        self.tokens = tokens
        self.spices = spices
        self.use = use
        self.chosen = chosen
        self.counts = counts
        self.total = total


def pareto(options: list[Option], guard: int) -> list[Option]:
    """The options no other option dominates (using no more of each item): ties keep the first."""
    kept: list[Option] = []
    for option in sorted(options, key=lambda o: (o.value, o.tokens, o.spices)):
        b = option.use | guard
        if not any((b - k.use) & guard == guard for k in kept):
            kept.append(option)
    return kept


def undominated(ordered: list[Used], items: Items) -> list[Used]:
    """The options of ``ordered`` (distinct uses) that no option before them covers (uses no
    more of every item), in their order.

    Covering is transitive, so an option covered by one dropped is covered by one kept: only the
    kept are asked. They are asked all at once: for each item and count, the set of kept options
    using at most that many of it (a bit set); an option is covered when the sets of its counts
    share a kept one. Items no option uses are left out, and so are the counts of all an item
    the pantry holds (every kept option uses at most those).
    """
    width = items.width
    field = (1 << width) - 1
    used = 0
    for option in ordered:
        used |= option.use
    told = [
        (k * width, n, [0] * n) for k, n in enumerate(items.have) if used >> (k * width) & field
    ]  # (where the item's count is, how many the pantry holds, the kept using at most each count)
    kept: list[Used] = []
    every = 0  # the kept options, as bits
    for option in ordered:
        use = option.use
        covered = every
        for shift, top, at_most in told:
            n = use >> shift & field
            if n < top:  # at the top, every kept option uses at most as many
                covered &= at_most[n]
                if not covered:
                    break
        if covered:
            continue
        bit = 1 << len(kept)
        kept.append(option)
        every |= bit
        for shift, top, at_most in told:
            for n in range(use >> shift & field, top):
                at_most[n] |= bit
    return kept


class Items:
    """The pantry as counts over a fixed order of items: ingredient kinds, then spices, then tokens."""

    def __init__(self, question: Question) -> None:
        ingredients: dict[tuple[str, int], int] = {}
        for item in question.ingredients:
            ingredients[item] = ingredients.get(item, 0) + 1
        spices: dict[str, int] = {}
        for spice in question.spices:
            spices[spice] = spices.get(spice, 0) + 1
        self.kinds = sorted(ingredients)
        self.first = {item: question.ingredients.index(item) for item in ingredients}
        self.spice_names = sorted(spices)
        self.token_names = list(question.tokens)
        self.have: Use = (
            *(ingredients[k] for k in self.kinds),
            *(spices[s] for s in self.spice_names),
            *(question.tokens[t] for t in self.token_names),
        )
        self.spice_at = len(self.kinds)
        self.token_at = self.spice_at + len(self.spice_names)
        # Counts packed in one integer, a field per item with a guard bit on top: ``a`` uses no
        # more of any item than ``b`` when ``((b | guard) - a) & guard == guard`` (no field borrows).
        self.width = max(self.have, default=0).bit_length() + 1
        self.guard = sum(1 << (i * self.width + self.width - 1) for i in range(len(self.have)))
        self.packed_have = self.pack(self.have)
        self.value_held = sum(v for _, v in question.ingredients)
        self.tokens_held = sum(question.tokens.values())
        self.spices_held = len(question.spices)

    def pack(self, counts: Use) -> int:
        return self.pack_at(0, counts)

    def pack_at(self, first: int, counts: Sequence[int]) -> int:
        """``counts`` of the items from index ``first`` on, packed."""
        return sum(n << ((first + i) * self.width) for i, n in enumerate(counts))

    def covers(self, a: int, b: int) -> bool:
        """Whether ``a`` uses no more of any item than ``b`` holds."""
        return ((b | self.guard) - a) & self.guard == self.guard


def least_values(options: list[list[Option]]) -> list[list[int]]:
    """``[i][s]``: the least value cards i.. spend for at least s stars (a relaxation: items shared)."""
    tables: list[list[int]] = [[]] * (len(options) + 1)
    cheapest: dict[int, int] = {0: 0}
    tables[len(options)] = [0]
    for i in range(len(options) - 1, -1, -1):
        grown = dict(cheapest)
        for stars, value in cheapest.items():
            for option in options[i]:
                total = stars + option.stars
                if value + option.value < grown.get(total, value + option.value + 1):
                    grown[total] = value + option.value
        cheapest = grown
        top = max(cheapest)
        row = [0] * (top + 1)
        best = cheapest[top]
        for s in range(top, -1, -1):
            best = min(best, cheapest.get(s, best))
            row[s] = best
        tables[i] = row
    return tables

"""A card's meals that can matter, listed without listing every legal meal, when stars rise with quality.

When the proofs of :mod:`.reads` say that the stars of a plan are the sum of its meals'
stars alone (:func:`~.reads.separable`), that a meal is seen only through its quality
(:func:`~.reads.quality_only`) and that those stars never fall as the quality rises
(:func:`~.reads.stars_rise_with_quality`), a card's stars are a step function of the
meal's quality (:class:`Steps`, found with a few stage runs). The listing rests on two
facts the engine states of its meal rules (:func:`critter_kitchen.plan.meal_facts.ingredient_quality`;
``tests/test_plan_exact_paths_agree.py`` checks them against :func:`~critter_kitchen.check_meal`):
a meal's quality is the capped sum of what each of its items adds, and whether a meal is
legal depends only on how many ingredients of each type and tokens it holds (its
ingredients' spices being allowed). So a meal's quality is added up item by item, and
check_meal's verdict is asked once per counts; the planned meals are judged by check_meal
once more at the end.

Meals are built by adding items one kind at a time. Why nothing that matters is left out:

* **Stopping.** Once the meal so far is legal and earns ``s`` stars, a meal grown from it
  earning no more than ``s`` uses more of every item for no more stars: it is never
  needed. So items are added only while those of the kinds still to come could lift the
  quality to the next step above ``s``, and a meal is listed only when it earns more than
  the last legal meal on its way (or than nothing).
* **Items only this card takes** (ingredients of types no other card of the round takes,
  spices no other card's ingredients may carry) matter to the rest of the plan only
  through the value and the number of spices they spend. Of two meals that use the same
  other items and earn the same stars, the one spending less value (then fewer spices)
  of its own items is at least as good in every plan; the same holds of two meals under
  construction that will be judged alike whatever is added (same counts of each type and
  token, same quality or both past the last step, same spices left, same stars on the
  way). Those kinds come last, so the other items are settled when this is used; when they
  can be added in few ways, those ways are told once and, for each number of stars, the
  cheapest reaching it is taken (:meth:`BandMeals.cheapest_own`).
* **Types several cards share** are each lowered by one card of the round
  (:func:`lowered_types`): that card's meal is not listed when it would earn as many stars
  with one of its ingredients of the type made one of lower value the meal leaves in the
  pantry (:meth:`BandMeals.lowers` proves that a best plan needs no such meal; a meal that
  only such meals can grow from is not grown, :meth:`BandMeals.windowed`).
* **Tokens** are taken by every card, and one card lowers them too (:func:`lowering_tokens`):
  its meal is not listed when it would earn as many stars with one of its tokens made one of
  lower quality it leaves in the pantry. This rests on a fact the engine states
  (:func:`~critter_kitchen.plan.meal_facts.exchangeable_tokens`): legality reads only how many tokens a
  meal holds in all, so check_meal's verdict is also asked once per total of tokens.
"""

from __future__ import annotations

import bisect
import itertools

from ..api import check_meal
from ..model.game import Ingredient
from .meal_facts import capped_quality, exchangeable_tokens, ingredient_quality, meal_types, token_quality
from .pareto import Listed, least_values, undominated
from .plans import PlannedMeal
from .work import ITEM_STEPS, LEGAL_KEPT, MEAL_STEPS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..model.ruleset import Card
    from .listing import CardMeals
    from .pareto import Items, Option
    from .work import Work

    Key = tuple[int, int, int, int]

LARGEST_SUM = 10_000  # qualities are told by a bit set up to this; a larger pantry is listed in full
OWN_WAYS = 512  # ways to add a card's own items told once per start state; more: grown piece by piece
LOOSE = 1 << 60  # no lowering bounds the meals grown from this one (see BandMeals.windowed)


FEW_MEALS = 400  # a card with at most about this many meals has them all listed: finding its steps costs more


def few_meals(meals: CardMeals, card: Card, held: bool) -> bool:
    """Whether the card has few enough meals (a rough count) that listing them all is cheaper than the steps."""
    return rough_count(meals, card, held) <= FEW_MEALS


def rough_count(meals: CardMeals, card: Card, held: bool) -> int:
    """How many meals the card has, roughly (more than it has: every count of each kind, every spicing)."""
    items = meals.items
    allowed = meal_types(card, meals.params, held=held)
    count = 1
    ingredients = 0
    for i, kind in enumerate(items.kinds):
        if allowed is None or kind[0] in allowed:
            count *= items.have[i] + 1
            ingredients += items.have[i]
    for n in items.have[items.token_at :]:
        count *= n + 1
    spices = sum(items.have[items.spice_at : items.token_at])
    spicings: int = (spices + 1) ** min(spices, ingredients)
    return count * spicings


def exchangeable(group: list[Piece]) -> bool:
    """Whether the kinds of one type (``group``, by value) may trade values in a meal and keep it
    legal and no worse for the higher value: each may carry the same spicings, and with each
    spicing a higher value adds no less quality."""
    first = group[0].spicings
    if any(p.spicings != first for p in group):
        return False
    return all(a <= b for low, high in itertools.pairwise(group) for a, b in zip(low.adds, high.adds, strict=True))


def lowered_types(counts: list[int], taken: list[frozenset[str] | None], types: list[str]) -> list[frozenset[str]]:
    """The shared types each card lowers (see :meth:`BandMeals.lowers`): of the cards whose meals
    may take a type (``taken``: their types, None for any), several but one lowers it, the
    card with most meals (``counts``, rough; 0: not listed by steps), the first of equals."""
    lowered: list[set[str]] = [set() for _ in counts]
    for kind in types:
        takers = [i for i, allowed in enumerate(taken) if allowed is None or kind in allowed]
        if len(takers) < 2:
            continue  # a type only one card takes is that card's own
        best = max(takers, key=lambda i: (counts[i], -i))
        if counts[best] > 0:
            lowered[best].add(kind)
    return [frozenset(s) for s in lowered]


def lowering_tokens(counts: list[int]) -> int | None:
    """The card that lowers the tokens (see :meth:`BandMeals.lowers`): every card's meal may take
    them, so of several cards the one with most meals (``counts``, as for :func:`lowered_types`),
    the first of equals; None when no card is listed by steps or the round has one card."""
    if len(counts) < 2:
        return None
    best = max(range(len(counts)), key=lambda i: (counts[i], -i))
    return best if counts[best] > 0 else None


def added_sums(pieces: list[Piece], bits: int) -> int:
    """The sums in ``bits`` (a bit set) grown by what some items of ``pieces`` add (any spicing each)."""
    for piece in pieces:
        for _ in range(piece.count):
            grown = bits
            for add in piece.adds:
                grown |= bits << add
            bits = grown
    return bits


class Steps:
    """One card's stars as a step function of its meal's quality: ``[(least quality, stars)]``."""

    def __init__(self, steps: list[tuple[int, int]]) -> None:
        self.steps = steps
        self.top = steps[-1][0]  # past this quality the stars are all told
        # the stars of each quality up to the top, looked up rather than counted: asked of every meal built
        self.table = [0] * (self.top + 1)
        for (least, at), (after, _) in zip(steps, [*steps[1:], (self.top + 1, 0)], strict=True):
            self.table[max(least, 0) : after] = [at] * (after - max(least, 0))
        self.next: dict[int, int | None] = {}

    def stars(self, quality: int) -> int:
        if 0 <= quality <= self.top:
            return self.table[quality]
        stars = 0
        for least, at in self.steps:
            if quality >= least:
                stars = at
        return stars

    def above(self, stars: int) -> int | None:
        """The least reachable quality earning more than ``stars``; None when none does."""
        if stars not in self.next:
            self.next[stars] = next((least for least, at in self.steps if at > stars), None)
        return self.next[stars]


def find_steps(stars_at: Callable[[int], int], sums: list[int]) -> Steps:
    """The steps of a card's stars over the reachable qualities ``sums`` (ascending).

    The stars never fall as the quality rises (proved), so a stretch whose two ends earn
    alike earns alike throughout: halving finds each step with few stage runs.
    """
    steps: list[tuple[int, int]] = []

    def split(lo: int, hi: int, at_lo: int, at_hi: int) -> None:
        if at_lo == at_hi:
            return
        if hi == lo + 1:
            steps.append((sums[hi], at_hi))
            return
        mid = (lo + hi) // 2
        at_mid = stars_at(capped_quality(sums[mid]))
        split(lo, mid, at_lo, at_mid)
        split(mid, hi, at_mid, at_hi)

    first = stars_at(capped_quality(sums[0]))
    steps.append((sums[0], first))
    if len(sums) > 1:
        split(0, len(sums) - 1, first, stars_at(capped_quality(sums[-1])))
    return Steps(steps)


class Piece:
    """One kind of item a card's meal may take: an ingredient kind (each spicing it may carry) or a token."""

    def __init__(self, index: int, count: int, value: int, spicings: list[tuple[str, ...]], adds: list[int]) -> None:
        self.index = index  # in the pantry's order of items (see pareto.Items)
        self.count = count
        self.value = value
        self.spicings = spicings
        self.adds = adds  # the quality one item adds, for each spicing
        self.most = max(adds, default=0)
        self.own = False  # an ingredient kind no other card of the round takes


class Partial:
    """A meal under construction by :meth:`BandMeals.visit`: its counts of each slot (see
    :meth:`BandMeals.slot_of`), the spices left (packed, see :meth:`BandMeals.pack_spices`), the
    sum of what its items add, its items, what it uses (packed, see ``pareto.Items.pack``), the
    stars of the last legal meal on its way (once listed: its own), and the value and spices it
    spends. Never changed once passed on: a meal grown from it is another. Hand-written, not a
    dataclass: the search makes one per step, and compiled a native ``__init__`` is five times
    faster (see ``values.py``)."""

    __slots__ = ("counts", "spices_left", "total", "chosen", "use", "stars", "value", "spices")

    def __init__(
        self,
        counts: tuple[int, ...],
        spices_left: int,
        total: int,
        chosen: tuple[Ingredient, ...],
        use: int,
        stars: int,
        value: int,
        spices: int,
    ) -> None:
        self.counts = counts
        self.spices_left = spices_left
        self.total = total
        self.chosen = chosen
        self.use = use
        self.stars = stars
        self.value = value
        self.spices = spices


class BandMeals:
    """The meals of one card worth considering (see the module), or None when a fact does not hold."""

    def __init__(
        self,
        meals: CardMeals,
        stars_at: Callable[[Card, int], int],
        legal: dict[tuple[Any, ...], bool],
        others: list[tuple[Card, bool]],
        lowered: frozenset[str] = frozenset(),
        lowers_tokens: bool = False,
    ) -> None:
        self.meals = meals
        self.items = meals.items
        self.q = meals.q
        self.params = meals.params
        self.rules = meals.rules
        self.stars_at = stars_at  # the stars a meal of this quality earns for this card, served alone
        self.legal = legal  # check_meal's verdicts by the counts of each type and token (a fact of the rules)
        self.others = others  # the round's other cards, each with whether the Hold token is on it
        self.lowered = lowered  # the shared types whose values this card takes as low as it can (see lowers)
        self.lowers_tokens = lowers_tokens  # and whether it takes its tokens as low as it can (see lowers)

    def listing(self, card: Card, held: bool) -> list[tuple[PlannedMeal, int]] | None:
        pieces = self.pieces(card, held)
        if pieces is None:
            return None
        sums = self.reachable(pieces)
        if sums is None:
            return None
        self.card, self.held = card, held
        self.lower = self.lowerings(pieces)
        counted = exchangeable_tokens(self.params)
        self.counted = all(name in counted for name in self.items.token_names)  # legality reads only how many
        self.token_lower = self.token_lowerings(pieces) if self.lowers_tokens and self.counted else {}
        self.steps = find_steps(lambda quality: self.stars_at(card, quality), sums)
        by_most = sorted(pieces, key=lambda p: (-p.most, p.value))
        tokens = [p for p in by_most if p.index >= self.items.token_at]
        ingredients = [p for p in by_most if p.index < self.items.token_at]
        # the items other cards may take first, then the tokens, then this card's own
        low = [p for p in ingredients if not p.own and self.items.kinds[p.index] in self.lower]
        self.order = [
            *(p for p in ingredients if not p.own and p not in low),
            *tokens,
            *low,
            *(p for p in ingredients if p.own),
        ]
        self.first_own = len(self.order) - sum(p.own for p in ingredients)
        rest = [0] * (len(self.order) + 1)
        for j in range(len(self.order) - 1, -1, -1):
            rest[j] = rest[j + 1] + self.order[j].count * self.order[j].most
        self.rest = rest
        self.prepare_most_added()
        # the least value per quality among the pieces j.. (in the own section: own ingredients only)
        self.cheapest: list[tuple[int, int] | None] = [None] * (len(self.order) + 1)
        for j in range(len(self.order) - 1, -1, -1):
            piece, best = self.order[j], self.cheapest[j + 1]
            if piece.most > 0 and (best is None or piece.value * best[1] < best[0] * piece.most):
                best = (piece.value, piece.most)
            self.cheapest[j] = best
        self.own_mask = self.mask(ingredients)
        self.found: dict[
            tuple[int, int], tuple[tuple[int, int], tuple[Ingredient, ...], tuple[int, ...], int, int]
        ] = {}
        self.seen: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.own_parts: dict[tuple[Any, ...], list[Any]] = {}
        self.collecting: tuple[int, int, int, int, int, dict[Any, Any]] | None = None
        self.verdicts: dict[tuple[int, ...], bool] = {}  # is_legal's, by the counts of this listing's slots
        self.prepare_combos()
        self.prepare_trades()
        self.prepare_own_ways()
        # the sums of parts the pieces j.. can add (a bit set; more than they can: spices not counted out)
        self.adding = [1] * (len(self.order) + 1)
        for j in range(len(self.order) - 1, -1, -1):
            self.adding[j] = added_sums([self.order[j]], self.adding[j + 1])
        spices_have = self.items.have[self.items.spice_at : self.items.token_at]
        if self.may_grow(0, 0, 0, 0):
            self.visit(0, Partial((0,) * len(self.slots), self.pack_spices(spices_have), 0, (), 0, 0, 0, 0))
        return [(self.meal(o.chosen, o.counts, o.total), o.use) for o in self.kept()]

    def kept(self) -> list[Listed]:
        """The meals found that the planner's filter keeps (:meth:`~.exact.FastSearch.by_stars`, on
        the stars of their steps): the others are dropped before they are made meals."""
        token_slots = [k for k, (what, _) in enumerate(self.slots) if what == "token"]
        listed = [
            Listed(stars, value, sum(counts[k] for k in token_slots), spices, use, chosen, counts, total)
            for (stars, _), ((value, spices), chosen, counts, total, use) in self.found.items()
        ]
        listed.sort(key=lambda o: (-o.stars, o.value, o.tokens, o.spices))
        return undominated(listed, self.items)

    def prepare_most_added(self) -> None:
        """``most_added[j][k]``: the most the pieces j.. can add to a meal with k spices left. An
        ingredient adds what it adds unspiced, and more only with a spice on it; so at most k of
        them add more, by at most the most each can."""
        items = self.items
        self.spices_held = sum(items.have[items.spice_at : items.token_at])
        self.most_added: list[list[int]] = [[0] * (self.spices_held + 1)]
        plain = 0
        gains: list[int] = []
        for piece in reversed(self.order):
            bare = piece.adds[piece.spicings.index(())] if () in piece.spicings else piece.most
            plain += piece.count * bare
            gains = sorted([*gains, *[piece.most - bare] * piece.count], reverse=True)
            row = [plain]
            for gain in gains[: self.spices_held]:
                row.append(row[-1] + gain)
            row += [row[-1]] * (self.spices_held + 1 - len(row))
            self.most_added.append(row)
        self.most_added.reverse()

    def pack_spices(self, counts: Sequence[int]) -> int:
        return sum(n << (k * self.spice_width) for k, n in enumerate(counts))

    def prepare_combos(self) -> None:
        """For each piece, every way to add some of its items: (slot, count, quality added, spices
        needed (packed), use added (see pareto.Items.pack), ingredients, value added, spices added)."""
        items = self.items
        spices_have = items.have[items.spice_at : items.token_at]
        self.spice_width = max(spices_have, default=0).bit_length() + 1
        self.spice_guard = sum(1 << (k * self.spice_width + self.spice_width - 1) for k in range(len(spices_have)))
        names = items.spice_names
        slots: list[Any] = []
        for piece in self.order:
            slot = self.slot_of(piece)
            if slot not in slots:
                slots.append(slot)
        self.slots = slots
        self.combos: list[list[tuple[int, int, int, int, int, tuple[Ingredient, ...], int, int]]] = []
        work = self.meals.work
        for piece in self.order:
            at = slots.index(self.slot_of(piece))
            found = []
            for count in range(1, piece.count + 1):
                for combo in itertools.combinations_with_replacement(range(len(piece.spicings)), count):
                    work.spend(ITEM_STEPS)
                    spent = [0] * len(names)
                    for k in combo:
                        for spice in piece.spicings[k]:
                            spent[names.index(spice)] += 1
                    if any(n > h for n, h in zip(spent, spices_have, strict=True)):
                        continue
                    use = (count << (piece.index * items.width)) + items.pack_at(items.spice_at, spent)
                    added: tuple[Ingredient, ...] = ()
                    if piece.index < items.token_at:
                        kind = items.kinds[piece.index]
                        added = tuple(Ingredient(kind[0], kind[1], piece.spicings[k]) for k in combo)
                    add = sum(piece.adds[k] for k in combo)
                    more_value = count * piece.value
                    found.append((at, count, add, self.pack_spices(spent), use, added, more_value, sum(spent)))
            self.combos.append(found)

    def slot_of(self, piece: Piece) -> tuple[str, str]:
        """What legality counts of a piece: its ingredients' type, or its token."""
        items = self.items
        if piece.index >= items.token_at:
            return ("token", items.token_names[piece.index - items.token_at])
        return ("type", items.kinds[piece.index][0])

    def pieces(self, card: Card, held: bool) -> list[Piece] | None:
        """The kinds of item the card's meal may take; None when some item would lower a meal's quality."""
        items = self.items
        allowed = meal_types(card, self.params, held=held)
        theirs = [meal_types(c, self.params, held=h) for c, h in self.others]
        found: list[Piece] = []
        for i, kind in enumerate(items.kinds):
            if allowed is not None and kind[0] not in allowed:
                continue
            spicings = self.meals.legal_spicings(kind)
            adds = [ingredient_quality(Ingredient(kind[0], kind[1], s), self.params) for s in spicings]
            piece = Piece(i, items.have[i], kind[1], spicings, adds)
            piece.own = all(a is not None and kind[0] not in a for a in theirs)
            found.append(piece)
        for j, name in enumerate(items.token_names):
            at = items.token_at + j
            found.append(Piece(at, items.have[at], 0, [()], [token_quality(name, self.params)]))
        if any(a < 0 for p in found for a in p.adds) or any(p.value < 0 for p in found):
            return None
        # spices another card's ingredients may carry are shared; the others are this card's own
        self.shared_spices = {
            s
            for i, kind in enumerate(items.kinds)
            if any(a is None or kind[0] in a for a in theirs)
            for spicing in self.meals.legal_spicings(kind)
            for s in spicing
        }
        return found

    def mask(self, ingredients: list[Piece]) -> int:
        """The fields of this card's own items in a packed use (see pareto.Items.pack)."""
        items = self.items
        field = (1 << items.width) - 1
        own = [p.index for p in ingredients if p.own]
        own += [items.spice_at + k for k, s in enumerate(items.spice_names) if s not in self.shared_spices]
        return sum(field << (i * items.width) for i in own)

    @staticmethod
    def reachable(pieces: list[Piece]) -> list[int] | None:
        """Every sum of parts the card's meals could reach (more than the meals reach)."""
        if sum(p.count * p.most for p in pieces) > LARGEST_SUM:
            return None
        bits = added_sums(pieces, 1)
        return [s for s in range(bits.bit_length()) if bits >> s & 1]

    def visit(self, j: int, meal: Partial, tight: int = LOOSE) -> None:
        """Add items of the pieces ``j..`` to the meal so far (``tight``: see :meth:`windowed`), which
        they may lift to its next step (asked of :meth:`may_grow` before the call)."""
        total, stars = meal.total, meal.stars
        if tight < LOOSE and j < self.first_own and not self.windowed(j, total, stars, tight):
            return
        if j == self.first_own and self.collecting is None:
            self.own_part(j, meal)
            return
        if j >= self.first_own:
            if self.listed_cheaper(j, total, meal.use, stars, meal.value, meal.spices):
                return
            state = (j, meal.counts, meal.spices_left, min(total, self.steps.top), stars)
            if self.seen_cheaper(state, meal.use, meal.value, meal.spices):
                return
        self.grow(j, meal, tight)
        if not self.may_grow(j + 1, total, stars, meal.spices):
            return
        if self.trading[j]:
            tight = min(tight, self.left_loss(j, meal.chosen, meal.use))
        self.visit(j + 1, meal, tight)  # none of this piece

    def may_grow(self, j: int, total: int, stars: int, spices: int) -> bool:
        """Whether items of the pieces ``j..`` could lift a meal of quality sum ``total`` that spends
        ``spices`` spices to the next step above ``stars`` (see *Stopping* in the module): if not,
        no meal grown from it is listed."""
        if j == len(self.order):
            return False
        step = self.steps.above(stars)
        return step is not None and total + self.most_added[j][self.spices_held - spices] >= step

    def own_part(self, j: int, meal: Partial) -> None:
        """This card's own items, added to a meal whose other items are settled.

        What they can add depends on the counts of each type and token so far, the spices left,
        the quality (past the last step, any) and the stars on the way; what is listed of it also
        on the other items (``use``): while the parts are collected, :meth:`listed_cheaper` and
        :meth:`seen_cheaper` prune against meals with those other items. So a start is told
        once for each such state with the same other items, and added to every meal reaching it:
        the pruning that made its list is then the pruning the meal would meet itself.
        """
        if self.own_ways is not None:
            self.cheapest_own(meal)
            return
        start = (meal.counts, meal.spices_left, min(meal.total, self.steps.top), meal.stars, meal.use)
        known = self.own_parts.get(start)
        if known is None:
            self.collecting = (len(meal.chosen), meal.use, meal.total, meal.value, meal.spices, {})
            self.visit(j, meal)
            self.own_parts[start] = list(self.collecting[5].values())
            self.collecting = None
            return  # listed as they were found
        for (more_value, more_spices), added, more_use, more_total, earned, grown in known:
            self.record(
                (*meal.chosen, *added),
                grown,
                meal.total + more_total,
                meal.use + more_use,
                earned,
                meal.value + more_value,
                meal.spices + more_spices,
            )

    def prepare_own_ways(self) -> None:
        """Every way to add some of this card's own items (some of each own piece, in each spicing):
        (quality added, spices needed (packed), use added, ingredients, value added, spices added,
        which of :attr:`own_counts` it adds to the counts of each slot), by the quality added; None
        when there are more than OWN_WAYS."""
        self.own_ways: list[tuple[int, int, int, tuple[Ingredient, ...], int, int, int]] | None = None
        self.own_starts: dict[tuple[int, int], list[tuple[list[int], list[Any]]]] = {}  # by legal counts, spices
        ways = 1
        for j in range(self.first_own, len(self.order)):
            ways *= len(self.combos[j]) + 1
        if ways > OWN_WAYS:
            return
        guard = self.spice_guard
        have = self.pack_spices(self.items.have[self.items.spice_at : self.items.token_at])
        found: list[tuple[int, int, int, tuple[Ingredient, ...], int, int, tuple[int, ...]]]
        found = [(0, 0, 0, (), 0, 0, (0,) * len(self.slots))]
        for j in range(self.first_own, len(self.order)):
            grown = list(found)
            for add, need, use, chosen, value, spices, counts in found:
                for slot, count, more, more_need, more_use, added, more_value, more_spices in self.combos[j]:
                    if ((have | guard) - (need + more_need)) & guard != guard:
                        continue  # more of a spice than the pantry holds
                    more_counts = counts[:slot] + (counts[slot] + count,) + counts[slot + 1 :]
                    partial = (add + more, need + more_need, use + more_use, (*chosen, *added), value + more_value)
                    grown.append((*partial, spices + more_spices, more_counts))
            found = grown
        found = sorted(found[1:], key=lambda w: w[0])  # not the way that adds nothing; by quality added
        # what legality and the spices see of a way: its counts (few: one per count of each own
        # type) and the spice fields some way needs
        self.own_counts = sorted({w[6] for w in found})
        index_of = {counts: i for i, counts in enumerate(self.own_counts)}
        field = (1 << self.spice_width) - 1
        self.own_spices = 0
        for each in found:
            for k in range(len(self.items.spice_names)):
                if each[1] >> (k * self.spice_width) & field:
                    self.own_spices |= field << (k * self.spice_width)
        self.own_ways = [(*w[:6], index_of[w[6]]) for w in found]
        self.own_example: list[tuple[Ingredient, ...]] = [()] * len(self.own_counts)  # a way's items, for each counts
        for w in reversed(found):
            self.own_example[index_of[w[6]]] = w[3]
        self.own_legal: dict[tuple[int, ...], tuple[int, list[tuple[int, ...]]]] = {}

    def cheapest_own(self, meal: Partial) -> None:
        """This card's own items added to a meal whose other items are settled, when they can be
        added in few ways (:attr:`own_ways`): for each number of stars above ``stars`` and each use
        of the items other cards may take (a shared spice on an own ingredient), only the cheapest
        way (least value, then fewest spices) to earn at least that many is listed.

        Why no other is needed: another way with the same other items earning those stars spends
        no less of this card's own; one earning more with no more of its own is at least as good
        in every plan (the own items are this card's alone). Which ways fit the spices left and
        make a legal meal depends only on the spices left and the counts so far (legality depends
        only on the counts): which counts are legal is told once for each counts so far
        (:meth:`legal_own_counts`), and the ways, with the cheapest from each quality added up,
        once for each of those and the spices left (:meth:`own_groups`).
        """
        assert self.own_ways is not None
        counts, total, stars = meal.counts, meal.total, meal.stars
        legal = self.own_legal.get(counts)
        if legal is None:
            legal = self.own_legal[counts] = self.legal_own_counts(counts, meal.chosen)
        key = (legal[0], meal.spices_left & self.own_spices)
        groups = self.own_starts.get(key)
        if groups is None:
            groups = self.own_starts[key] = self.own_groups(legal[0], meal.spices_left)
        budget = self.meals.budget
        work = self.meals.work
        steps = self.steps
        for adds, best in groups:
            last = None
            for least, at in steps.steps:
                if at <= stars:
                    continue
                i = bisect.bisect_left(adds, least - total)
                if i == len(adds):
                    break  # no way reaches these stars, nor more
                way = best[i]
                if way is last:
                    continue
                last = way
                if budget[0] <= 0 or work.listing_done():
                    self.meals.stopped = True
                    return
                budget[0] -= 1
                work.spend(MEAL_STEPS)
                (more_value, more_spices), add, more_use, added, at = way
                earned = steps.stars(total + add)
                self.record(
                    (*meal.chosen, *added),
                    legal[1][at],
                    total + add,
                    meal.use + more_use,
                    earned,
                    meal.value + more_value,
                    meal.spices + more_spices,
                )

    def legal_own_counts(
        self, counts: tuple[int, ...], chosen: tuple[Ingredient, ...]
    ) -> tuple[int, list[tuple[int, ...]]]:
        """Which of the counts the own ways add make a legal meal from ``counts`` (bits, by
        :attr:`own_counts`), and the counts each makes."""
        legal = 0
        grown_counts = [tuple(a + b for a, b in zip(counts, more, strict=True)) for more in self.own_counts]
        for i, grown in enumerate(grown_counts):
            if self.is_legal(grown, (*chosen, *self.own_example[i])):
                legal |= 1 << i
        return legal, grown_counts

    def own_groups(self, legal: int, spices_left: int) -> list[tuple[list[int], list[Any]]]:
        """The ways to add own items that fit ``spices_left`` and whose counts make a legal meal
        (``legal``: see :meth:`legal_own_counts`), by their use of the items other cards may take:
        each group as the qualities the ways add (ascending) and, at each, the cheapest way adding
        at least that much."""
        assert self.own_ways is not None
        guard = self.spice_guard
        by_part: dict[int, list[tuple[int, tuple[int, int], int, tuple[Ingredient, ...], int]]] = {}
        for add, need, more_use, added, more_value, more_spices, at in self.own_ways:  # by quality added
            if ((spices_left | guard) - need) & guard != guard:
                continue  # the spices ran out
            if legal >> at & 1:
                way = (add, (more_value, more_spices), more_use, added, at)
                by_part.setdefault(more_use & ~self.own_mask, []).append(way)
        groups: list[tuple[list[int], list[Any]]] = []
        for ways in by_part.values():
            best: list[Any] = [None] * len(ways)
            cheapest = None
            for i in range(len(ways) - 1, -1, -1):
                add, cost, more_use, added, grown = ways[i]
                if cheapest is None or cost < cheapest[0]:
                    cheapest = (cost, add, more_use, added, grown)
                best[i] = cheapest
            groups.append(([w[0] for w in ways], best))
        return groups

    def grow(self, j: int, meal: Partial, tight: int) -> None:
        """Add some items of piece j (before trying none: small meals come early, should a limit stop the search)."""
        budget = self.meals.budget
        work = self.meals.work
        guard = self.spice_guard
        counts, spices_left, total, chosen = meal.counts, meal.spices_left, meal.total, meal.chosen
        use, stars, value, spices = meal.use, meal.stars, meal.value, meal.spices
        traded = self.trading[j]
        left = self.left_loss(j, chosen, use) if traded else LOOSE  # when some of piece j stay in the pantry
        have = self.order[j].count
        verdicts = self.verdicts
        steps = self.steps
        table, top = steps.table, steps.top
        # may_grow(j + 1, ...) of each meal grown, its lookups made once: the next step above the stars
        # on the way (while they stay those), and the most the pieces j + 1.. add by the spices left
        most_added = self.most_added[j + 1] if j + 1 < len(self.order) else None
        next_step = steps.above(stars)
        held = self.spices_held
        for slot, count, add, need, more_use, added, more_value, more_spices in self.combos[j]:
            after = (spices_left | guard) - need
            if after & guard != guard:
                continue  # the spices ran out
            if budget[0] <= 0 or work.listing_done():
                self.meals.stopped = True
                return
            budget[0] -= 1
            work.spend(MEAL_STEPS)
            grown_counts = counts[:slot] + (counts[slot] + count,) + counts[slot + 1 :]
            grown_total = total + add
            grown_chosen = (*chosen, *added) if added else chosen
            grown_value, grown_spices = value + more_value, spices + more_spices
            grown_use = use + more_use
            grown_stars = stars
            grown_step = next_step
            legal = verdicts.get(grown_counts)
            if legal is None:
                legal = self.is_legal(grown_counts, grown_chosen)
            if legal:
                earned = table[grown_total] if grown_total <= top else steps.stars(grown_total)
                if earned > stars:
                    self.record(grown_chosen, grown_counts, grown_total, grown_use, earned, grown_value, grown_spices)
                    grown_stars = earned
                    grown_step = steps.above(earned)
            if most_added is None or grown_step is None or grown_total + most_added[held - grown_spices] < grown_step:
                continue  # nothing grown from it is listed (see may_grow)
            spices_after = after ^ guard
            grown = Partial(
                grown_counts, spices_after, grown_total, grown_chosen, grown_use, grown_stars, grown_value, grown_spices
            )
            grown_tight = tight
            if traded:
                grown_tight = min(grown_tight, self.taken_loss(j, added, use), left if count < have else LOOSE)
            self.visit(j + 1, grown, grown_tight)

    def windowed(self, j: int, total: int, stars: int, tight: int) -> bool:
        """Whether a meal grown from this one by the pieces j.. could be listed though it keeps an
        ingredient of a lowered type of which a lower value stays in the pantry, made that lower
        value at a loss of quality of at most ``tight`` (:meth:`lowers` would drop it unless that
        loss takes it below its step): only a meal less than ``tight`` above the least quality of
        its stars, stars above ``stars``, can be; its quality is ``total`` and a sum the pieces
        j.. can add (:attr:`adding`)."""
        steps = self.steps.steps
        adding = self.adding[j]
        for k, (least, at) in enumerate(steps):
            if at <= stars:
                continue
            below = least + tight  # qualities from here on keep their stars when lowered
            if k + 1 < len(steps) and steps[k + 1][0] < below:
                below = steps[k + 1][0]
            lowest = total if total > least else least
            if lowest < below and adding >> (lowest - total) & ((1 << (below - lowest)) - 1):
                return True
        return False

    def left_loss(self, j: int, chosen: tuple[Ingredient, ...], use: int) -> int:
        """The least quality an ingredient already in the meal of a higher value of piece j's type
        (a token of a higher quality, when piece j is a token) loses by becoming piece j's kind
        (LOOSE when none is): a bound on :meth:`lowers`'s loss for every meal grown from this one
        that leaves some of piece j in the pantry."""
        least = LOOSE
        width = self.items.width
        field = (1 << width) - 1
        for at, higher, lost in self.token_traded[j]:
            if higher and use >> (at * width) & field and lost < least:
                least = lost
        for kind, higher, losses in self.traded[j]:
            if higher:
                for ingredient in chosen:
                    if (ingredient.type, ingredient.value) == kind:
                        lost = losses[ingredient.spices]
                        if lost < least:
                            least = lost
        return least

    def taken_loss(self, j: int, added: tuple[Ingredient, ...], use: int) -> int:
        """The least quality an ingredient of piece j just added (``added``) loses by becoming a kind
        of its type of lower value already settled and not all used (LOOSE when none is)."""
        least = LOOSE
        width = self.items.width
        field = (1 << width) - 1
        have = self.items.have
        for kind, higher, losses in self.traded[j]:
            if not higher and have[self.kind_at[kind]] > use >> (self.kind_at[kind] * width) & field:
                for ingredient in added:
                    lost = losses[ingredient.spices]
                    if lost < least:
                        least = lost
        for at, higher, token_lost in self.token_traded[j]:
            if not higher and have[at] > use >> (at * width) & field and token_lost < least:
                least = token_lost
        return least

    def prepare_trades(self) -> None:
        """For each piece of a lowered type, the pieces of its type before it in the order: their
        kind, whether of a higher value, and what one ingredient loses, for each spicing, from the
        higher of the two kinds to the lower (see :meth:`windowed`)."""
        items = self.items
        self.kind_at = {kind: i for i, kind in enumerate(items.kinds)}
        self.traded: list[list[tuple[tuple[str, int], bool, dict[tuple[str, ...], int]]]] = []
        for j, piece in enumerate(self.order):
            found: list[tuple[tuple[str, int], bool, dict[tuple[str, ...], int]]] = []
            if piece.index < items.token_at and items.kinds[piece.index] in self.lower:
                mine = items.kinds[piece.index]
                for earlier in self.order[:j]:
                    if earlier.index >= items.token_at:
                        continue
                    kind = items.kinds[earlier.index]
                    if kind[0] != mine[0] or kind not in self.lower:
                        continue
                    if kind[1] > mine[1]:
                        losses = next(d for at, d in self.lower[kind] if at == piece.index)
                        found.append((kind, True, losses))
                    else:
                        losses = next(d for at, d in self.lower[mine] if at == earlier.index)
                        found.append((kind, False, losses))
            self.traded.append(found)
        # the same for tokens: (the other token's place, whether of a higher quality, what one loses)
        self.token_traded: list[list[tuple[int, bool, int]]] = []
        for j, piece in enumerate(self.order):
            told: list[tuple[int, bool, int]] = []
            if piece.index in self.token_lower:
                for earlier in self.order[:j]:
                    if earlier.index not in self.token_lower:
                        continue
                    if earlier.most > piece.most:
                        told.append((earlier.index, True, earlier.most - piece.most))
                    elif earlier.most < piece.most:
                        told.append((earlier.index, False, piece.most - earlier.most))
            self.token_traded.append(told)
        self.trading = [bool(a or b) for a, b in zip(self.traded, self.token_traded, strict=True)]

    def listed_cheaper(self, j: int, total: int, use: int, stars: int, value: int, spices: int) -> bool:
        """Whether, for every number of stars above ``stars`` that the pieces j.. (this card's own)
        could bring, a meal with the same other items is listed spending less of this card's own
        than any meal grown from this one would (the least value per quality of those pieces
        bounds what reaching that quality costs): then none of them would be listed (see :meth:`record`)."""
        others = use & ~self.own_mask
        most = total + self.rest[j]
        cheapest = self.cheapest[j]
        for least, at in self.steps.steps:
            if at > stars and least <= most:
                seen = self.found.get((at, others))
                if seen is None:
                    return False
                short = least - total
                more = 0 if short <= 0 or cheapest is None else (short * cheapest[0] + cheapest[1] - 1) // cheapest[1]
                if seen[0] > (value + more, spices):
                    return False
        return True

    def seen_cheaper(self, state: tuple[Any, ...], use: int, value: int, spices: int) -> bool:
        """Whether a meal under construction judged alike whatever is added (see the module) has
        been met with the same other items for no more value (then no more spices) of this card's own."""
        key = (state, use & ~self.own_mask)
        seen = self.seen.get(key)
        if seen is not None and seen <= (value, spices):
            return True
        self.seen[key] = (value, spices)
        return False

    def lowerings(self, pieces: list[Piece]) -> dict[tuple[str, int], list[tuple[int, dict[tuple[str, ...], int]]]]:
        """For each ingredient kind of a type this card lowers (see :meth:`lowers`): the kinds of that
        type of lower value, the highest first, each with the quality one item loses by becoming
        that kind, for each spicing. A type is lowered only when the facts the exchange rests on
        hold for it in this pantry: every kind of it may carry the same spicings, and with each
        spicing an ingredient adds no less quality for a higher value (then for every card: what
        an ingredient adds does not depend on the card)."""
        items = self.items
        by_type: dict[str, list[Piece]] = {}
        for piece in pieces:
            if piece.index < items.token_at and items.kinds[piece.index][0] in self.lowered:
                by_type.setdefault(items.kinds[piece.index][0], []).append(piece)
        found: dict[tuple[str, int], list[tuple[int, dict[tuple[str, ...], int]]]] = {}
        for group in by_type.values():
            group.sort(key=lambda p: p.value)
            if not exchangeable(group):
                continue
            for i, piece in enumerate(group):
                found[items.kinds[piece.index]] = [
                    (lower.index, {s: a - b for s, a, b in zip(piece.spicings, piece.adds, lower.adds, strict=True)})
                    for lower in reversed(group[:i])
                ]
        return found

    def token_lowerings(self, pieces: list[Piece]) -> dict[int, list[tuple[int, int]]]:
        """For each token of the pantry (its place in the items), the tokens of a lower quality, the
        highest first, each with the quality a meal loses by holding it instead (see :meth:`lowers`).
        Asked only when the rules count the pantry's tokens together (:attr:`counted`, from
        :func:`~critter_kitchen.plan.meal_facts.exchangeable_tokens`): a meal's verdict then reads only how
        many tokens it holds in all."""
        # only the tokens the pantry holds: one it holds none of is no lower token left in it
        group = sorted((p for p in pieces if p.index >= self.items.token_at and p.count), key=lambda p: p.most)
        if not group or not exchangeable(group):
            return {}
        return {
            piece.index: [
                (lower.index, piece.most - lower.most) for lower in reversed(group[:i]) if lower.most < piece.most
            ]
            for i, piece in enumerate(group)
        }

    def lowers(self, chosen: tuple[Ingredient, ...], use: int, total: int, stars: int) -> bool:
        """Whether the meal earns as many stars with one of its ingredients of a lowered type made
        one of lower value of that type that the meal leaves in the pantry, or (when this card
        lowers the tokens) one of its tokens made one of lower quality the meal leaves in the
        pantry: then it is not listed.

        Why no plan needs it (the exchange; the tests compare with the exhaustive search): each
        shared type is lowered by one card of the round only (:func:`lowered_types`), and so are
        the tokens, which every card's meal may take (:func:`lowering_tokens`). Among the best
        plans (by stars, then value unused, tokens, spices left), take one whose cards hold the
        least value of the types each lowers plus the least quality of tokens on the card lowering
        them (V). Say this card's meal ``m`` in it is not listed because ``m'`` earns as many:

        * ``m'`` is ``m`` with an ingredient of value ``v`` of type T made ``v' < v``, same
          spicing. The item ``v'`` is unused, or held by another card's meal: give that meal
          ``v`` in its place, with that meal's spicing. Every meal keeps its counts of each type
          and token and its spices, so each stays legal (legality depends only on those counts;
          every kind of T may carry the same spicings); the other meal's quality does not fall
          (a higher value adds no less), so neither do its stars (proved to rise with quality);
          the value spent does not rise, nor the tokens or spices. So the plan is still a best
          one, with less value of T on this card, the one card lowering T, and its tokens as
          they were: less V.
        * ``m'`` is ``m`` with a token ``t`` made a token ``t'`` of lower quality. The token
          ``t'`` is unused, or held by another card's meal: give that meal ``t`` in its place.
          Every meal keeps its counts of each type and its number of tokens in all, so each
          stays legal (the rules count the pantry's tokens together, :attr:`counted`); the other
          meal's quality rises, so its stars do not fall; the value spent, the tokens spent and
          the spices are as they were. So the plan is still a best one, with less quality of
          tokens on this card, the one card lowering them, and its ingredients as they were: less V.

        Either way a contradiction. So in that plan no meal is dropped by this rule; every other
        rule of the listing replaces a meal by one using no more of the items other cards may take
        (tokens among them), which leaves V no higher and the other meals as they were: card by
        card, the plan's meals become listed ones, and it stays a best plan with the least V; none
        of them is dropped by this rule either (as above).
        """
        least = self.least_loss(chosen, use)
        return least is not None and self.steps.stars(total - least) >= stars

    def least_loss(self, chosen: tuple[Ingredient, ...], use: int) -> int | None:
        """The least quality the meal loses by one of the exchanges :meth:`lowers` looks for (None
        when it allows none): its ingredients and tokens of a lowered kind, each made the highest of
        its kind's lower ones the meal leaves in the pantry."""
        width = self.items.width
        field = (1 << width) - 1
        have = self.items.have
        least: int | None = None
        for ingredient in chosen:
            lower = self.lower.get((ingredient.type, ingredient.value))
            if lower is None:
                continue
            for at, loses in lower:
                if have[at] > use >> (at * width) & field:  # one of them left in the pantry
                    lost = loses[ingredient.spices]
                    if least is None or lost < least:
                        least = lost
                    break  # the highest value left loses the least (a higher value adds no less)
        for token, lower_tokens in self.token_lower.items():
            if use >> (token * width) & field:
                for at, token_loses in lower_tokens:
                    if have[at] > use >> (at * width) & field:
                        if least is None or token_loses < least:
                            least = token_loses
                        break  # the highest quality left loses the least
        return least

    def is_legal(self, counts: tuple[int, ...], chosen: tuple[Ingredient, ...]) -> bool:
        """check_meal's verdict on this meal, remembered by its counts of each type and token (of
        tokens in all, when the rules count the pantry's tokens together: :attr:`counted`)."""
        found = self.verdicts.get(counts)
        if found is None:
            if self.counted:  # the rules count the tokens together: only how many there are in all
                in_all = sum(n for (what, _), n in zip(self.slots, counts, strict=True) if what == "token")
                named = tuple((slot, n) for slot, n in zip(self.slots, counts, strict=True) if n and slot[0] != "token")
                named += ((("tokens", ""), in_all),) if in_all else ()
            else:
                named = tuple((slot, n) for slot, n in zip(self.slots, counts, strict=True) if n)
            key = (self.card.id, self.held, tuple(sorted(named)))
            found = self.legal.get(key)
            if found is None:
                if len(self.legal) >= LEGAL_KEPT:
                    self.legal.clear()
                tokens = self.tokens_of(counts)
                problems, _ = check_meal(self.q.ruleset, self.card, chosen, tokens, self.rules, held=self.held)
                found = self.legal[key] = not problems
            self.verdicts[counts] = found
        return found

    def tokens_of(self, counts: tuple[int, ...]) -> dict[str, int]:
        given = {name: 0 for name in self.items.token_names}
        for (what, name), n in zip(self.slots, counts, strict=True):
            if what == "token":
                given[name] = n
        return given

    def record(
        self,
        chosen: tuple[Ingredient, ...],
        counts: tuple[int, ...],
        total: int,
        use: int,
        stars: int,
        value: int,
        spices: int,
    ) -> None:
        """List this meal unless one earning as much with the same other items spends less of its own."""
        if self.collecting is not None:  # this card's own items added at one start (see own_part)
            at, start_use, start_total, start_value, start_spices, found = self.collecting
            more_use = use - start_use
            more = (value - start_value, spices - start_spices)
            part = (more, chosen[at:], more_use, total - start_total, stars, counts)
            here = (stars, more_use & ~self.own_mask)
            if here not in found or found[here][0] > more:
                found[here] = part
        key = (stars, use & ~self.own_mask)
        seen = self.found.get(key)
        if seen is not None and seen[0] <= (value, spices):
            return
        if (self.lower or self.token_lower) and self.lowers(chosen, use, total, stars):
            return
        self.found[key] = ((value, spices), chosen, counts, total, use)  # made a meal once all are found

    def meal(self, chosen: tuple[Ingredient, ...], counts: tuple[int, ...], total: int) -> PlannedMeal:
        ingredients = tuple(self.meals.in_pantry_order(list(chosen)))
        return PlannedMeal(self.card, ingredients, self.tokens_of(counts), capped_quality(total))


class Combination:
    """The best choice of at most one meal per card, when a plan's stars are the sum of its meals'.

    Depth first over the cards (the card with the fewest meals last), each card's meals best
    first (stars, then least value, fewer tokens, fewer spices), bounded as
    :meth:`~.exact.FastSearch.visit` is; with its meals in that order, a card's first meal
    whose bound falls short in stars ends its loop, and the last card's first meal that fits
    the items left is its best. A card's meals that fit the items left are told at once, as bits
    (:meth:`fitting_bits`), rather than each asked in turn. The bound of a card's meal counts the
    later cards' best meals that fit the items left before it; when that only equals the best
    plan's stars, the least value the later cards spend for them bounds the value left too.
    """

    def __init__(self, work: Work, items: Items, options: list[list[Option]]) -> None:
        self.work = work
        self.items = items
        self.options = sorted(
            (sorted(meals, key=lambda o: (-o.stars, o.value, o.tokens, o.spices)) for meals in options),
            key=len,
            reverse=True,
        )
        most = [max((o.stars for o in meals), default=0) for meals in self.options]
        self.still = [sum(most[i:]) for i in range(len(self.options) + 1)]
        self.least_value = least_values(self.options)
        items = self.items
        self.best: tuple[Key, tuple[Option, ...]] = ((0, items.value_held, 0, items.spices_held), ())
        # for each card, the fields of every item some meal of it uses: only they tell whether one fits
        field = (1 << items.width) - 1
        self.fields: list[int] = []
        for meals in self.options:
            used = 0
            for option in meals:
                used |= option.use
            self.fields.append(
                sum(field << (k * items.width) for k in range(len(items.have)) if used >> (k * items.width) & field)
            )
        self.fitting: list[dict[int, Option | None]] = [{} for _ in self.options]
        self.prepare_fits()

    def prepare_fits(self) -> None:
        """For each card, its meals as bits (the k-th meal, best first, the bit ``1 << k``) and, for
        each item some meal of it uses and each count below what the pantry holds, the meals using
        at most that many: the meals that fit some items left are told at once (:meth:`fitting_bits`)."""
        items = self.items
        width = items.width
        field = (1 << width) - 1
        self.every = [(1 << len(meals)) - 1 for meals in self.options]
        self.at_most: list[list[tuple[int, int, list[int]]]] = []
        for meals, fields in zip(self.options, self.fields, strict=True):
            told: list[tuple[int, int, list[int]]] = []
            for k, held in enumerate(items.have):
                shift = k * width
                if not fields >> shift & field:
                    continue
                exactly = [0] * (held + 1)
                for at, option in enumerate(meals):
                    exactly[option.use >> shift & field] |= 1 << at
                at_most = [exactly[0]]
                for n in range(1, held):
                    at_most.append(at_most[-1] | exactly[n])
                told.append((shift, held, at_most))  # at the count held, every meal fits
            self.at_most.append(told)

    def fitting_bits(self, i: int, left: int) -> int:
        """Card i's meals that fit the items ``left``, as bits (see :meth:`prepare_fits`)."""
        field = (1 << self.items.width) - 1
        bits = self.every[i]
        for shift, held, at_most in self.at_most[i]:
            n = left >> shift & field
            if n < held:
                bits &= at_most[n]
                if not bits:
                    break
        return bits

    def run(self) -> tuple[Key, tuple[Option, ...]]:
        self.visit(0, self.items.packed_have, 0, 0, 0, 0, ())
        return self.best

    def bound(self, i: int, left: int, stars: int, value: int, tokens: int, spices: int, rest: int = -1) -> Key:
        """The best key a plan with these meals so far could reach with cards i.. (see FastSearch.visit):
        each of them earns at most its best meal that fits the items left (``rest``: what cards
        i.. earn so, when told)."""
        items = self.items
        most = stars + (rest if rest >= 0 else self.fitted(i, left))
        value_left = items.value_held - value
        best_stars = self.best[0][0]
        if most == best_stars and best_stars - stars > 0:
            row = self.least_value[i]
            value_left -= row[min(best_stars - stars, len(row) - 1)]
        return (most, value_left, -tokens, items.spices_held - spices)

    def fitted(self, i: int, left: int) -> int:
        """The most stars cards i.. earn, each with its best meal that fits ``left``."""
        most = 0
        for j in range(i, len(self.options)):
            fits = self.first_fitting(j, left)
            most += fits.stars if fits is not None else 0
        return most

    def visit(
        self, i: int, left: int, stars: int, value: int, tokens: int, spices: int, chosen: tuple[Option, ...]
    ) -> None:
        self.work.spend(ITEM_STEPS)
        later = self.fitted(i + 1, left)  # what cards i+1.. earn at most, whatever card i takes
        fits = self.first_fitting(i, left) if i < len(self.options) else None
        here = fits.stars if fits is not None else 0
        if self.bound(i, left, stars, value, tokens, spices, here + later) <= self.best[0]:
            return
        items = self.items
        if i == len(self.options):
            self.best = ((stars, items.value_held - value, -tokens, items.spices_held - spices), chosen)
            return
        guard = items.guard
        if i == len(self.options) - 1:
            self.last_card(left, stars, value, tokens, spices, chosen)
            return
        before_last = i == len(self.options) - 2  # then straight to the last card's meal (see last_card)
        cheapest = self.least_value[i + 1][later]  # the least value cards i+1.. spend for ``later`` stars
        meals = self.options[i]
        fitting = self.fitting_bits(i, left)  # the meals of card i that fit, best first
        while fitting:
            lowest = fitting & -fitting
            fitting ^= lowest
            option = meals[lowest.bit_length() - 1]
            grown_stars = stars + option.stars
            best = self.best[0]
            if grown_stars + later <= best[0]:
                if grown_stars + later < best[0]:
                    break  # the meals after this one earn no more
                # as many stars as the best at most: only with all cards i+1.. can earn, for at least
                # ``cheapest``; the meals after this one earn no more, or as many for more value
                bound = (
                    best[0],
                    items.value_held - value - option.value - cheapest,
                    -tokens - option.tokens,
                    items.spices_held - spices - option.spices,
                )
                if bound <= best:
                    if bound[1] < best[1]:
                        break
                    continue
            after = (left | guard) - option.use
            grown = (grown_stars, value + option.value, tokens + option.tokens, spices + option.spices)
            if before_last:
                self.last_card(after ^ guard, *grown, (*chosen, option))
            else:
                self.visit(i + 1, after ^ guard, *grown, (*chosen, option))
        if before_last:
            self.last_card(left, stars, value, tokens, spices, chosen)  # no meal for this card
        else:
            self.visit(i + 1, left, stars, value, tokens, spices, chosen)

    def last_card(
        self, left: int, stars: int, value: int, tokens: int, spices: int, chosen: tuple[Option, ...]
    ) -> None:
        """The last card: its first meal (best first) that fits the items left, or none, ends the plan
        (each kept if better than the best so far, that one first)."""
        items = self.items
        option = self.first_fitting(len(self.options) - 1, left)
        if option is not None:
            key = (
                stars + option.stars,
                items.value_held - value - option.value,
                -tokens - option.tokens,
                items.spices_held - spices - option.spices,
            )
            if key > self.best[0]:
                self.best = (key, (*chosen, option))
        key = (stars, items.value_held - value, -tokens, items.spices_held - spices)
        if key > self.best[0]:
            self.best = (key, chosen)

    def first_fitting(self, i: int, left: int) -> Option | None:
        """Card i's best meal that fits ``left`` (remembered by the items its meals may use)."""
        key = left & self.fields[i]
        fitting = self.fitting[i]
        if key not in fitting:
            bits = self.fitting_bits(i, left)
            meals = self.options[i]
            while bits and meals[(bits & -bits).bit_length() - 1].stars <= 0:
                bits &= bits - 1
            fitting[key] = meals[(bits & -bits).bit_length() - 1] if bits else None
        return fitting[key]

"""The challenge-round planner's fast search: each card's legal meals, reduced by sound dominance, then
combined by branch and bound.

Every meal is still judged by :func:`critter_kitchen.check_meal` and every plan's stars come
from running the stages (:class:`~.search.Scorer`). The speed comes from three facts:

* The search leaves out ingredients of types the card never takes and spicings an
  ingredient can never carry (:func:`~critter_kitchen.plan.meal_facts.meal_types`,
  :func:`~critter_kitchen.plan.meal_facts.check_spices`, both the engine's own rules).
* A meal matters only through its signature (what the programs in play read of it, see
  :mod:`.reads`): of two meals for one card with the same signature, the one using no
  more of every item is at least as good in every plan (equal stars, at least as much
  left), so the other is dropped.
* When the stars of a plan are proved to be the sum of its meals' stars (:func:`.reads.separable`),
  a meal matters only through its stars: the same dominance applies across signatures,
  meals earning nothing are dropped (serving nothing is as good and uses less), and the
  best stars each later card can still earn bound the search.
"""

from __future__ import annotations

import itertools
import threading

from ..api import check_meal, meal_rules
from ..model.game import Ingredient
from .meal_facts import check_spices, meal_types
from .programs import programs
from .reads import quality_only, separable, signature_of, stars_rise_with_quality
from .search import NODE_LIMIT, Plan, PlannedMeal, Scorer
from .work import (
    CHECKS_KEPT,
    ITEM_STEPS,
    LISTING_SHARE,
    MEAL_STEPS,
    PLAN_BUDGET,
    SINGLE_KEPT,
    TABLE_MEMORY_KEPT,
    TABLES_KEPT,
    OverBudget,
    Work,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any, TypeVar

    from ..model.ruleset import Card
    from .bands import Listed
    from .pantry import Question

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


def _pareto(options: list[Option], guard: int) -> list[Option]:
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


class CardMeals:
    """Every legal meal of one card from the pantry (as the engine judges it), as options."""

    def __init__(
        self,
        question: Question,
        items: Items,
        params: dict[str, Any],
        budget: list[int],
        checks: dict[tuple[Any, ...], int | None],
        work: Work | None = None,
    ) -> None:
        self.q = question
        self.work = work if work is not None else Work()  # the plan's work (see .work): listing stops past its share
        self.checks = checks  # check_meal's verdicts at this table: None (illegal) or the quality
        self.items = items
        self.params = params
        self.rules = meal_rules(params)  # what check_meal reads of them, read once
        self.budget = budget  # [meals left to check]; shared by every card, 0 stops the search
        self.spicings: dict[tuple[str, int], list[tuple[str, ...]]] = {}
        self.stopped = False

    def legal_spicings(self, kind: tuple[str, int]) -> list[tuple[str, ...]]:
        """The spice combinations one ingredient of ``kind`` may carry, from the spices held: at
        most ``spices_per_ingredient`` spices, each matching it (:func:`check_spices` has the
        last word), each combination charged to the plan's work."""
        if kind not in self.spicings:
            names = [s for s in self.items.spice_names if self.rules.spice_matches(s, kind[0])]
            have = dict(
                zip(self.items.spice_names, self.items.have[self.items.spice_at : self.items.token_at], strict=True)
            )
            most: int = self.params["spices_per_ingredient"]
            found: list[tuple[str, ...]] = []
            for size in range(min(max(most, 0), sum(have[s] for s in names)) + 1):
                for combo in itertools.combinations_with_replacement(names, size):
                    self.work.spend(ITEM_STEPS)
                    if any(combo.count(s) > have[s] for s in set(combo)):
                        continue
                    if not check_spices(self.q.ruleset, Ingredient(kind[0], kind[1], combo), self.params):
                        found.append(combo)
            self.spicings[kind] = found
        return self.spicings[kind]

    def options(self, card: Card, held: bool) -> Iterator[tuple[PlannedMeal, int]]:
        """Every legal meal of ``card`` with what it uses (packed, see :meth:`Items.pack`)."""
        items = self.items
        allowed = meal_types(card, self.params, held=held)
        at = [i for i, k in enumerate(items.kinds) if allowed is None or k[0] in allowed]
        self.work.spend(ITEM_STEPS * len(self.counts_of_tokens()))
        givens = [
            (
                dict(zip(items.token_names, given, strict=True)),
                items.pack_at(items.token_at, given),
                tuple(zip(items.token_names, given, strict=True)),  # named: the verdicts outlive this pantry
            )
            for given in itertools.product(*(range(n + 1) for n in items.have[items.token_at :]))
        ]
        for counts in itertools.product(*(range(items.have[i] + 1) for i in at)):
            if not any(counts):
                continue
            chosen = [(items.kinds[i], c) for i, c in zip(at, counts, strict=True) if c]
            used = sum(c << (i * items.width) for i, c in zip(at, counts, strict=True))
            for spiced, spice_use in self.spiced(chosen, 0):
                ingredients = self.in_pantry_order(spiced)
                # what the meal is, told once for all its token counts
                key = (card.id, held, tuple((i.type, i.value, i.spices) for i in ingredients))
                with_spices = used + items.pack_at(items.spice_at, spice_use)
                for tokens, token_use, given in givens:
                    if self.budget[0] <= 0 or self.work.listing_done():
                        self.stopped = True  # a meal left unjudged: the search is not proved
                        return
                    self.budget[0] -= 1
                    self.work.spend(MEAL_STEPS)
                    quality = self.judged((*key, given), card, held, ingredients, tokens)
                    if quality is not None:
                        yield PlannedMeal(card, tuple(ingredients), tokens, quality), with_spices + token_use

    def counts_of_tokens(self) -> range:
        """The counts of every token a meal may hold, in ``itertools.product`` order, numbered."""
        total = 1
        for n in self.items.have[self.items.token_at :]:
            total *= n + 1
        return range(total)

    def judged(
        self, meal: tuple[Any, ...], card: Card, held: bool, ingredients: list[Ingredient], tokens: dict[str, int]
    ) -> int | None:
        """The meal's quality as :func:`check_meal` judges it, or None when it is not legal (remembered per
        table: ``meal`` tells the card, the Hold token, the ingredients and the token counts)."""
        key = meal
        if key not in self.checks:
            if len(self.checks) >= CHECKS_KEPT:
                self.checks.clear()
            problems, quality = check_meal(self.q.ruleset, card, ingredients, tokens, self.rules, held=held)
            self.checks[key] = None if problems else quality
        return self.checks[key]

    def in_pantry_order(self, ingredients: list[Ingredient]) -> list[Ingredient]:
        """The ingredients in the order the pantry lists them (as a player would write the meal)."""
        return sorted(ingredients, key=lambda i: self.items.first[(i.type, i.value)])

    def spiced(
        self, chosen: list[tuple[tuple[str, int], int]], at: int, left: tuple[int, ...] | None = None
    ) -> Iterator[tuple[list[Ingredient], tuple[int, ...]]]:
        """Every way to spice the chosen ingredients from the spices ``left`` (copies of one kind
        are told apart by nothing, so their spicings are taken in one order only)."""
        names = self.items.spice_names
        have = self.items.have[self.items.spice_at : self.items.token_at]
        if left is None:
            left = have
        if at == len(chosen):
            yield [], tuple(h - n for h, n in zip(have, left, strict=True))
            return
        kind, copies = chosen[at]
        for combos in itertools.combinations_with_replacement(self.legal_spicings(kind), copies):
            self.work.spend(ITEM_STEPS)
            rest = list(left)
            for combo in combos:
                for spice in combo:
                    rest[names.index(spice)] -= 1
            if min(rest, default=0) < 0:
                continue
            head = [Ingredient(kind[0], kind[1], c) for c in combos]
            for tail, use in self.spiced(chosen, at + 1, tuple(rest)):
                yield [*head, *tail], use


class Context:
    """What every plan of one table shares: the cards in play, what their programs read of a
    meal (proved once), the scorer and the stars each card's meal signatures earn alone.

    The balance lab plans many decisions at one table: these are worked out once for them all.
    Each memory is held to its cap of entries (see .work): past it, it is forgotten.
    """

    def __init__(self, question: Question) -> None:
        self.ruleset = question.ruleset
        self.scorer = Scorer(question)
        in_play = programs(question.ruleset, (*question.challenges, *question.table, *question.owned))
        self.signature = signature_of(in_play, question.ruleset)
        self.separable = separable(in_play)
        self.single: dict[tuple[str, Any], tuple[int, int]] = {}  # a meal served alone: (stars, effect steps)
        self.checks: dict[tuple[Any, ...], int | None] = {}
        # Stars a step function of quality: then .bands lists a card's meals by those steps.
        tables = (self.scorer.table_params, self.scorer.params)
        self.rising = self.separable and quality_only(in_play) and stars_rise_with_quality(in_play, tables)
        self.legal: dict[tuple[Any, ...], bool] = {}  # check_meal's verdicts by counts (see .bands)
        self.key: tuple[Any, ...] = ()  # its key among the thread's tables (see context)
        self.items = 0  # the most ingredients and spices of a pantry planned at this table
        self.counted = 0  # its memory when the thread last left this table (see Tables)

    def memory(self) -> int:
        """What this table's memories hold, as the entries of each times the items of the
        largest pantry planned here (no meal remembered holds more items: a measure of bytes)."""
        entries = len(self.checks) + len(self.legal) + len(self.single) + len(self.scorer.cache)
        return entries * (1 + self.items)


class Tables:
    """The tables one thread remembers, the one planned at last at the end: at most
    ``TABLES_KEPT``, whose memories (:meth:`Context.memory`) other than the table in use
    hold at most ``TABLE_MEMORY_KEPT`` in all; the table in use holds each of its memories
    to its cap of entries as it plans.

    A table's memory is measured when the thread leaves it for another (only the table in use
    grows), so keeping the tables in bounds costs a few steps a change of table."""

    def __init__(self) -> None:
        self.contexts: dict[tuple[Any, ...], Context] = {}
        self.current: Context | None = None  # the table planned at last
        self.total = 0  # the memory measured over the tables kept (see Context.counted)

    def take(self, key: tuple[Any, ...], question: Question) -> Context:
        contexts = self.contexts
        items = len(question.ingredients) + len(question.spices)
        found = contexts.get(key)
        if found is not None and found is self.current:
            found.items = max(found.items, items)
            return found  # the table in use: nothing to measure
        left = self.current
        if left is not None and contexts.get(left.key) is left:
            now = left.memory()
            self.total += now - left.counted
            left.counted = now
        if found is None:
            found = Context(question)
            found.key = key
        else:
            del contexts[key]  # planned at last: the last to be forgotten
            self.total -= found.counted
        found.items = max(found.items, items)
        self.current = found
        if len(contexts) >= TABLES_KEPT or self.total > TABLE_MEMORY_KEPT:
            self.total = sum(c.counted for c in contexts.values())  # as measured (tests may empty the dict)
            while contexts and (len(contexts) >= TABLES_KEPT or self.total > TABLE_MEMORY_KEPT):
                self.total -= contexts.pop(next(iter(contexts))).counted  # the table planned at longest ago
        contexts[key] = found
        self.total += found.counted
        return found


# The tables each thread remembers: a Context's memories are filled and emptied as a search goes,
# so two threads planning at once (the score pad plans from worker threads) never share one.
# TABLES is the main thread's (CONTEXTS its tables); every other thread has its own (see remembered).
TABLES = Tables()
CONTEXTS: dict[tuple[Any, ...], Context] = TABLES.contexts
_LOCAL = threading.local()


def context(question: Question) -> Context:
    """The :class:`Context` of ``question``'s table (the player's name plays no part in scoring).
    A table is told by its ruleset itself (kept alive by the table's memories anyway), never
    by an id that a ruleset loaded later might reuse."""
    key = (
        question.ruleset,
        question.target,
        tuple(c.id for c in question.challenges),
        tuple(c.id for c in question.table),
        tuple(c.id for c in question.owned),
    )
    return remembered_tables().take(key, question)


def remembered_tables() -> Tables:
    """This thread's tables (see :func:`context`)."""
    if threading.current_thread() is threading.main_thread():
        return TABLES
    found: Tables | None = getattr(_LOCAL, "tables", None)
    if found is None:
        found = Tables()
        _LOCAL.tables = found
    return found


def remembered() -> dict[tuple[Any, ...], Context]:
    """This thread's tables by key (see :func:`context`)."""
    return remembered_tables().contexts


class FastSearch:
    """The exact search over each card's reduced options (see the module)."""

    def __init__(self, question: Question, limit: int, per_card: int | None = None, budget: int = PLAN_BUDGET) -> None:
        self.q = question
        self.work = Work(budget)  # the plan's work (see .work)
        self.per_card = per_card  # meals checked per card (the fast effort), or None: ``limit`` in all
        table = context(question)
        self.scorer = table.scorer
        self.items = Items(question)
        self.signature = table.signature
        self.separable = table.separable
        self.limit = limit
        self.budget = [limit]
        self.checked = 0  # meals checked
        self.cut = False
        self.single = table.single
        self.checks = table.checks
        self.together: dict[tuple[Any, ...], int] = {}
        self.rising = table.rising
        self.legal = table.legal
        self.by_steps = False  # list a card's meals by the steps of its stars (see .bands)
        self.lowering: list[frozenset[str]] | None = None  # the shared types each card lowers (see .bands)
        self.token_lowering: int | None = None  # the card lowering the tokens (see .bands), once lowering is told
        self.best: tuple[Key, tuple[Option, ...]] = self.nothing()

    def stars_alone(self, option: Option) -> int:
        key = (option.meal.card.id, option.signature)
        found = self.single.get(key)
        if found is None:
            stars, steps = self.scorer.run((option.meal,))
            if len(self.single) >= SINGLE_KEPT:
                self.single.clear()
            found = self.single[key] = (stars - self.scorer.baseline, steps)
        self.work.run(("alone", key), found[1])  # charged once per plan, remembered or not
        return found[0]

    def stars_of(self, chosen: tuple[Option, ...]) -> int:
        key = tuple(sorted((o.meal.card.id, o.signature) for o in chosen))
        if key not in self.together:
            self.together[key] = self.scorer.stars(tuple(o.meal for o in chosen), self.work)
        return self.together[key]

    def card_meals(self) -> CardMeals:
        """What lists each card's legal meals (:class:`CardMeals`, every meal judged by check_meal)."""
        return CardMeals(self.q, self.items, self.scorer.params, self.budget, self.checks, self.work)

    def card_options(self) -> list[list[Option]]:
        meals = self.card_meals()
        cards = self.q.challenges
        per_card: list[list[Option]] = []
        share = self.per_card if self.per_card is not None else max(1, self.limit // max(1, len(cards)))
        self.checked = 0
        listing = self.work.limit // LISTING_SHARE - self.work.steps  # the work listing may still take
        for i, card in enumerate(cards):
            self.budget[0] = share  # each card its share, so a large pantry still plans every card
            self.work.listing = self.work.steps + listing // len(cards)  # of the work too
            # Of the meals using exactly the same items, one per signature is enough (one per
            # stars when stars add up: the most); then the ones dominated by fewer items go.
            same_use: dict[tuple[Any, int], Option] = {}
            held = i == len(cards) - 1
            listed = self.listed_by_steps(meals, card, held)
            for meal, use in listed if listed is not None else meals.options(card, held):
                option = Option(meal, use, self.signature(meal), self.items)
                if self.separable:
                    option.stars = self.stars_alone(option)
                    if option.stars <= 0:
                        continue  # serving nothing earns as much and uses less
                    seen = same_use.get((None, option.use))
                    if seen is None or option.stars > seen.stars:
                        same_use[(None, option.use)] = option
                else:
                    same_use.setdefault((option.signature, option.use), option)
            if self.separable:
                reduced = self.by_stars(list(same_use.values()))
            else:
                by_signature: dict[Any, list[Option]] = {}
                for option in same_use.values():
                    by_signature.setdefault(option.signature, []).append(option)
                reduced = [o for group in by_signature.values() for o in _pareto(group, self.items.guard)]
            per_card.append(reduced)
            self.checked += share - self.budget[0]
            self.cut = meals.stopped
        return per_card

    def listed_by_steps(self, meals: CardMeals, card: Card, held: bool) -> list[tuple[PlannedMeal, int]] | None:
        """The card's meals that can matter when its stars are steps of quality (see .bands), or None."""
        if not self.by_steps:
            return None
        from .bands import BandMeals, few_meals

        if few_meals(meals, card, held):
            return None  # listing them all costs less than finding the steps

        cards = self.q.challenges
        others = [(c, i == len(cards) - 1) for i, c in enumerate(cards) if c is not card]
        at = cards.index(card)
        lowered = self.lowered(meals)[at]
        tokens = self.token_lowering == at
        return BandMeals(meals, self.stars_at, self.legal, others, lowered, tokens).listing(card, held)

    def lowered(self, meals: CardMeals) -> list[frozenset[str]]:
        """The shared ingredient types each card of the round lowers (see .bands.lowered_types), and
        (:attr:`token_lowering`) the card lowering the tokens (.bands.lowering_tokens)."""
        if self.lowering is None:
            from .bands import FEW_MEALS, lowered_types, lowering_tokens, rough_count

            cards = self.q.challenges
            held = [i == len(cards) - 1 for i in range(len(cards))]
            counts = [rough_count(meals, c, h) for c, h in zip(cards, held, strict=True)]
            counts = [n if n > FEW_MEALS else 0 for n in counts]  # those with few are listed plainly
            taken = [meal_types(c, self.scorer.params, held=h) for c, h in zip(cards, held, strict=True)]
            types = sorted({kind for kind, _ in self.items.kinds})
            self.lowering = lowered_types(counts, taken, types)
            self.token_lowering = lowering_tokens(counts)
        return self.lowering

    def stars_at(self, card: Card, quality: int) -> int:
        """The stars a meal of ``quality`` earns for ``card`` served alone. The programs read nothing
        of a meal but its quality (:func:`.reads.quality_only`), so a meal of that quality tells it."""
        probe = PlannedMeal(card, (), {}, quality)
        key = (card.id, self.signature(probe))
        found = self.single.get(key)
        if found is None:
            stars, steps = self.scorer.run((probe,))
            if len(self.single) >= SINGLE_KEPT:
                self.single.clear()
            found = self.single[key] = (stars - self.scorer.baseline, steps)
        self.work.run(("alone", key), found[1])
        return found[0]

    def by_stars(self, options: list[Option]) -> list[Option]:
        """Separable stars: a meal matters by its stars alone; one earning nothing never helps.

        Best first (most stars, then least value, fewest tokens, fewest spices; ties in the
        order given), a meal is kept unless one before it uses no more of every item: then it
        earns no more and leaves no more (see :func:`undominated`)."""
        ordered = sorted(options, key=lambda o: (-o.stars, o.value, o.tokens, o.spices))
        return undominated(ordered, self.items)

    def run(self) -> tuple[Key, tuple[Option, ...]]:
        options = self.card_options()
        for cards in options:
            cards.sort(key=lambda o: (-o.stars, o.value, o.tokens, o.spices))
        self.options = options
        # Bounds when stars add up: the most stars cards i.. can still earn, and the least
        # ingredient value they must spend to earn at least s more (their items not told apart).
        most = [max((o.stars for o in cards), default=0) for cards in options]
        self.still = [sum(most[i:]) for i in range(len(options) + 1)]
        self.least_value = self.least_values(options) if self.separable else []
        self.best = self.nothing()
        self.visit(0, self.items.packed_have, ())
        return self.best

    def nothing(self) -> tuple[Key, tuple[Option, ...]]:
        """The plan serving nothing, as the search keeps its best (a plan however soon a limit cuts)."""
        return (self.key((), 0), ())

    def key(self, chosen: tuple[Option, ...], stars: int) -> Key:
        """The plan order: stars, then value left unused, then fewer tokens spent, then more spices left."""
        items = self.items
        return (
            stars,
            items.value_held - sum(o.value for o in chosen),
            -sum(o.tokens for o in chosen),
            items.spices_held - sum(o.spices for o in chosen),
        )

    @staticmethod
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

    def visit(
        self,
        i: int,
        left: int,
        chosen: tuple[Option, ...],
        stars: int = 0,
        value: int = 0,
        tokens: int = 0,
        spices: int = 0,
    ) -> None:
        """Cards i.. given ``chosen`` (``left``: the items left, packed), whose options' stars,
        value, tokens and spices add up to the last four (their plan's :meth:`key`, as it goes)."""
        self.work.spend(ITEM_STEPS)
        items = self.items
        if self.separable:
            most = stars + self.still[i]
            unused = items.value_held - value
            best_stars = self.best[0][0]
            if most == best_stars and best_stars - stars > 0:
                row = self.least_value[i]
                unused -= row[min(best_stars - stars, len(row) - 1)]
            if (most, unused, -tokens, items.spices_held - spices) <= self.best[0]:
                return
        if i == len(self.options):
            total = stars if self.separable else self.stars_of(chosen)
            key = (total, items.value_held - value, -tokens, items.spices_held - spices)
            if key > self.best[0]:
                self.best = (key, chosen)
            return
        guard = items.guard
        for o in self.options[i]:
            after = (left | guard) - o.use
            if after & guard == guard:
                self.visit(
                    i + 1,
                    after ^ guard,
                    (*chosen, o),
                    stars + o.stars,
                    value + o.value,
                    tokens + o.tokens,
                    spices + o.spices,
                )
        self.visit(i + 1, left, chosen, stars, value, tokens, spices)  # no meal for this card


def plan_round_fast_exact(question: Question, *, limit: int = NODE_LIMIT, budget: int = PLAN_BUDGET) -> Plan:
    """The exact plan found by :class:`FastSearch`; ``optimal`` is False when ``limit`` meals were
    checked before every card's meals were listed (the plan is then the best among those listed),
    or when the plan's work passed ``budget`` steps (the plan is then the best found by then)."""
    search = FastSearch(question, limit, budget=budget)
    if search.rising:  # the stars of a card are steps of quality: list its meals by them (see .bands)
        from .bands import plan_by_steps

        try:
            found = plan_by_steps(search)
        except OverBudget:
            return _plan(search, search.nothing()[1], 0)
        if found is not None:
            stars, chosen = found
            # the proof says the stars add up; the engine, scoring the whole plan, has the last word
            return _plan(search, chosen, search.scorer.stars(tuple(o.meal for o in chosen), search.work))
        # Cut short, the listing by steps may have found only large meals (those are built first);
        # or a fact .bands rests on failed for this pantry (the tests say it cannot). Either way
        # the plain listing plans it: every meal, the smallest first, each card its share.
        work = search.work
        search = FastSearch(question, limit, budget=budget)
        search.work = work  # the work of both listings is the plan's
    try:
        (stars, *_), chosen = search.run()
    except OverBudget:
        (stars, *_), chosen = search.best  # the best plan the combining found (stars added up, if so)
    if search.separable or search.work.over:
        # the proof says the stars add up; the engine, scoring the whole plan, has the last word
        search.work.finish()
        stars = search.scorer.stars(tuple(o.meal for o in chosen), search.work)
    return _plan(search, chosen, stars)


def _plan(search: FastSearch, chosen: tuple[Option, ...], stars: int) -> Plan:
    search.work.finish()  # the plan is chosen: the runs reporting it go past the budget (a few)
    for option in chosen:
        option.meal.stars = search.stars_alone(option)  # served alone: the same for a same signature
    optimal = not search.cut and not search.work.over
    plan = Plan(search.q, {o.meal.card.id: o.meal for o in chosen}, stars, optimal=optimal)
    plan.nodes = search.checked
    plan.steps = search.work.steps
    return plan


FAST_MEALS_PER_CARD = 150  # meals checked per card by the fast effort


def plan_round_quick(question: Question, *, budget: int = PLAN_BUDGET) -> Plan:
    """A good plan quickly, for simulations: each card's first meals only (the smallest first),
    combined as the exact search does (with the stars it proves, unchecked by a last scoring)
    where stars add up, and at a bounded number of stage runs where they do not
    (:mod:`.quick`). ``optimal`` only when no card had more meals than that and, where stars
    do not add up, every combination of them was scored."""
    from .quick import BoundedSearch

    search = BoundedSearch(question, FAST_MEALS_PER_CARD, budget)
    try:
        (stars, *_), chosen = search.run() if search.separable else search.run_bounded()
    except OverBudget:
        (stars, *_), chosen = search.best  # the best plan found by then, scored again below
        search.work.finish()
        if not search.confirmed(chosen):
            chosen = ()  # its meals were not judged by check_meal yet (see .quick): serve nothing
        stars = search.scorer.stars(tuple(o.meal for o in chosen), search.work)
    plan = _plan(search, chosen, stars)
    plan.optimal = plan.optimal and not search.bounded
    return plan

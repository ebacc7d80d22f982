"""The challenge-round planner's fast search: each card's legal meals, reduced by sound dominance, then
combined by branch and bound.

Every meal is still judged by :func:`critter_kitchen.check_meal` and every plan's stars come
from running the stages (:class:`~.scorer.Scorer`). The speed comes from three facts:

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

import threading

from ..api import check_meal
from . import bands
from .bands import BandMeals, Combination, few_meals, lowered_types, lowering_tokens, rough_count
from .listing import CardMeals
from .meal_facts import meal_types
from .pareto import Items, Option, least_values, pareto, undominated
from .plans import NODE_LIMIT, Plan, PlannedMeal
from .programs import programs
from .reads import quality_only, separable, signature_of, stars_rise_with_quality
from .scorer import Scorer
from .work import (
    ITEM_STEPS,
    LISTING_SHARE,
    PLAN_BUDGET,
    SINGLE_KEPT,
    TABLE_MEMORY_KEPT,
    TABLES_KEPT,
    OverBudget,
    Work,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.ruleset import Card
    from .pantry import Question
    from .pareto import Key


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
        tables = (
            self.scorer.table_params,
            self.scorer.params,
            *(self.scorer.rules_for(c).params for c in question.challenges if c.parameters),
        )
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
            own = meals.for_card(card)  # under the card's own parameters, if it has any
            listed = self.listed_by_steps(own, card, held)
            for meal, use in listed if listed is not None else own.options(card, held):
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
                reduced = [o for group in by_signature.values() for o in pareto(group, self.items.guard)]
            per_card.append(reduced)
            self.checked += share - self.budget[0]
            self.cut = meals.any_stopped()
        return per_card

    def listed_by_steps(self, meals: CardMeals, card: Card, held: bool) -> list[tuple[PlannedMeal, int]] | None:
        """The card's meals that can matter when its stars are steps of quality (see .bands), or None."""
        if not self.by_steps:
            return None
        if few_meals(meals, card, held):
            return None  # listing them all costs less than finding the steps

        cards = self.q.challenges
        others = [(c, i == len(cards) - 1) for i, c in enumerate(cards) if c is not card]
        at = cards.index(card)
        lowered = self.lowered(meals.root)[at]
        tokens = self.token_lowering == at
        return BandMeals(meals, self.stars_at, self.legal, others, lowered, tokens).listing(card, held)

    def lowered(self, meals: CardMeals) -> list[frozenset[str]]:
        """The shared ingredient types each card of the round lowers (see .bands.lowered_types), and
        (:attr:`token_lowering`) the card lowering the tokens (.bands.lowering_tokens)."""
        if self.lowering is None:
            cards = self.q.challenges
            held = [i == len(cards) - 1 for i in range(len(cards))]
            counts = [rough_count(meals.for_card(c), c, h) for c, h in zip(cards, held, strict=True)]
            counts = [n if n > bands.FEW_MEALS else 0 for n in counts]  # those with few are listed plainly
            taken = [meal_types(c, meals.for_card(c).params, held=h) for c, h in zip(cards, held, strict=True)]
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
        self.least_value = least_values(options) if self.separable else []
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


def plan_by_steps(search: FastSearch) -> tuple[int, tuple[Option, ...]] | None:
    """The best plan from each card's meals listed by steps (:class:`BandMeals`): its stars as the
    proof adds them up, and its meals; None when the listing was cut short by the search's limit
    (it builds large meals first) or check_meal disagrees with a planned meal (a fact failed)."""
    search.by_steps = True
    options = search.card_options()
    if search.cut:
        return None
    combination = Combination(search.work, search.items, options)
    try:
        (stars, *_), chosen = combination.run()
    except OverBudget:  # the plan's work ran out: the best combination found by then (not proved best)
        (stars, *_), chosen = combination.best
    for option in chosen:
        meal = option.meal
        held = meal.card is search.q.challenges[-1]
        rules = search.scorer.rules_for(meal.card)
        problems, quality = check_meal(search.q.ruleset, meal.card, meal.ingredients, meal.tokens, rules, held=held)
        if problems or quality != meal.quality:
            return None
    return stars, chosen


def plan_round_fast_exact(question: Question, *, limit: int = NODE_LIMIT, budget: int = PLAN_BUDGET) -> Plan:
    """The exact plan found by :class:`FastSearch`; ``optimal`` is False when ``limit`` meals were
    checked before every card's meals were listed (the plan is then the best among those listed),
    or when the plan's work passed ``budget`` steps (the plan is then the best found by then)."""
    search = FastSearch(question, limit, budget=budget)
    # The stars of a card are steps of quality: list its meals by them (see .bands), unless a
    # meal constraint binds the meals: .bands rests on facts of the meal rules alone, which a
    # constraint may break (it may read values, spices, the quality), so every meal is then
    # listed and judged whole by check_meal (with the constraints), as the plain listing does.
    if search.rising and not question.constrained():
        try:
            found = plan_by_steps(search)
        except OverBudget:
            return chosen_plan(search, search.nothing()[1], 0)
        if found is not None:
            stars, chosen = found
            # the proof says the stars add up; the engine, scoring the whole plan, has the last word
            return chosen_plan(search, chosen, search.scorer.stars(tuple(o.meal for o in chosen), search.work))
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
    return chosen_plan(search, chosen, stars)


def chosen_plan(search: FastSearch, chosen: tuple[Option, ...], stars: int) -> Plan:
    search.work.finish()  # the plan is chosen: the runs reporting it go past the budget (a few)
    for option in chosen:
        option.meal.stars = search.stars_alone(option)  # served alone: the same for a same signature
    optimal = not search.cut and not search.work.over
    plan = Plan(search.q, {o.meal.card.id: o.meal for o in chosen}, stars, optimal=optimal)
    plan.nodes = search.checked
    plan.steps = search.work.steps
    return plan

"""The fast effort's challenge-round search at a table where stars do not add up, with a bounded cost.

Where the stars of a plan are not the sum of its meals' (:func:`.reads.separable` is false:
a card counts meals or items across meals), the exact search scores every combination of
the cards' meals by running the stages: thousands of runs for a large pantry. The fast
effort runs them a bounded number of times instead:

1. each card's meals are listed and reduced as the exact search does (its first meals only);
2. each meal's stars alone are estimated from at most ``SCORED_PER_CARD`` meals of the card
   scored through the stages: the meals are ranked by quality, the cheapest of the lowest and
   the highest quality are scored, then the middle of every stretch whose ends earn different
   stars; a meal between two scored ones is given the stars of the one below it;
3. taking those estimates as if they added up, the exact search's reductions and a branch and
   bound find the ``BEST_SCORED`` best plans, which are scored together through the stages;
   the best of them, as the engine scores it, is the plan.

When every combination of the listed meals is at most ``PLANS_SCORED`` they are all scored, as
the exact search does. Each step keeps a fixed order: the same question gets the same plan on
every run.

At every table the fast effort lists each card's meals with :class:`CountedMeals`: the meals,
order and budget of the exact search's listing, judged by the facts the engine states of its
meal rules rather than by one :func:`critter_kitchen.check_meal` each. Each meal of the plan
found is then judged by check_meal; should one not be confirmed, the round is listed again
with check_meal judging every meal. The plan's stars are the stages', so the plan is legal and
its stars exact; only whether it is the best is not proved.
"""

from __future__ import annotations

import itertools

from ..api import check_meal
from ..model.game import Ingredient
from .exact import FastSearch, chosen_plan
from .listing import CardMeals
from .meal_facts import capped_quality, ingredient_quality, meal_types, token_quality
from .pareto import pareto
from .plans import PlannedMeal
from .work import ITEM_STEPS, LEGAL_KEPT, MEAL_STEPS, PLAN_BUDGET, OverBudget

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ..model.ruleset import Card
    from .pantry import Question
    from .pareto import Items, Key, Option
    from .plans import Plan
    from .work import Work

    Spiced = tuple[tuple[Ingredient, ...], int, int]  # ingredients (pantry order), spices used (packed), quality added

FIRST_SCORED = 6  # per card: meals scored alone through the stages to tell the steps of its stars
SCORED_PER_CARD = 12  # per card: meals scored alone in all, the steps and then the meals a plan would take
PLANS_SCORED = 12  # combinations of the listed meals all scored together through the stages when no more
BEST_SCORED = 6  # otherwise: the best plans by the stars hoped for, scored together
FAST_MEALS_PER_CARD = 150  # meals checked per card by the fast effort


class BoundedSearch(FastSearch):
    """:class:`~.exact.FastSearch` at a table whose stars do not add up, at a bounded cost (see the module)."""

    def __init__(self, question: Question, per_card: int, budget: int = PLAN_BUDGET) -> None:
        super().__init__(question, per_card, per_card=per_card, budget=budget)
        self.bounded = False  # True when a combination of the listed meals went unscored
        self.plain = False  # list every meal with check_meal (see confirmed)

    def card_meals(self) -> CardMeals:
        """The counted listing (:class:`CountedMeals`), or the plain one once a plan was not confirmed."""
        if self.plain:
            return super().card_meals()
        return CountedMeals(self.q, self.items, self.scorer.params, self.budget, self.checks, self.legal, self.work)

    def run(self) -> tuple[Key, tuple[Option, ...]]:
        found = super().run()
        if self.plain or self.confirmed(found[1]):
            return found
        self.list_plainly()
        return super().run()

    def run_bounded(self) -> tuple[Key, tuple[Option, ...]]:
        found = self.run_listed()
        if self.plain or self.confirmed(found[1]):
            return found
        self.list_plainly()
        return self.run_listed()

    def list_plainly(self) -> None:
        """List the round again with check_meal judging every meal, forgetting the stars scored
        and the verdicts told by counts (all may rest on the facts that failed)."""
        self.plain = True
        self.bounded = False
        self.single.clear()
        self.together.clear()
        self.scorer.cache.clear()
        self.legal.clear()

    def confirmed(self, chosen: tuple[Option, ...]) -> bool:
        """Whether check_meal finds each chosen meal legal and of the quality :class:`CountedMeals`
        gave it (the facts it rests on say so; if not, the round is listed again, plainly)."""
        cards = self.q.challenges
        for option in chosen:
            meal = option.meal
            held = meal.card is cards[-1]
            problems, quality = check_meal(
                self.q.ruleset, meal.card, meal.ingredients, meal.tokens, self.scorer.rules_for(meal.card), held=held
            )
            if problems or quality != meal.quality:
                return False
        return True

    def run_listed(self) -> tuple[Key, tuple[Option, ...]]:
        options = self.card_options()
        if _combinations_at_most(options, PLANS_SCORED):
            return self.run_whole(options)
        self.bounded = True
        options = [self.fewest_items(card) for card in options]
        levels = [Levels(card, self) for card in options]
        ranked: list[tuple[int, list[Option]]] = [(-1, [])] * len(levels)

        def by_stars() -> list[list[Option]]:
            """Each card's options by their stars now (ranked again only when a card's stars changed)."""
            for i, card in enumerate(levels):
                if ranked[i][0] != card.changes:
                    ranked[i] = (card.changes, self.by_stars(card.options))
            return [r for _, r in ranked]

        while True:  # the best plan by the stars hoped for, until its meals' stars are known
            plans = self.best_estimated(by_stars(), 1)
            unsure = [(card, o) for o in plans[0] for card in levels if card.is_guessed(o)] if plans else []
            if not unsure:
                break
            if not any(card.can_score() for card, _ in unsure):
                # out of scores: a guess may be too high, so rank by the stars surely earned
                for card in levels:
                    card.guess(hopeful=False)
                break
            for card, option in unsure:
                card.score(option)
        plans = self.best_estimated(by_stars(), BEST_SCORED)
        best = self.nothing()
        for chosen in plans:
            key = self.key(chosen, self.stars_of(chosen))
            if key > best[0]:
                best = (key, chosen)
        return best

    def fewest_items(self, options: list[Option]) -> list[Option]:
        """Of each quality's options, those no other of that quality beats by using no more of any item
        (the stars alone are estimated by quality: these are the ones worth combining)."""
        by_quality: dict[int, list[Option]] = {}
        for option in options:
            by_quality.setdefault(option.meal.quality, []).append(option)
        return [o for quality in sorted(by_quality) for o in pareto(by_quality[quality], self.items.guard)]

    def run_whole(self, options: list[list[Option]]) -> tuple[Key, tuple[Option, ...]]:
        """The exact search's enumeration of ``options``, every combination scored together."""
        for card in options:
            card.sort(key=lambda o: (o.value, o.tokens, o.spices))
        self.options = options
        self.best = self.nothing()
        self.visit(0, self.items.packed_have, ())
        return self.best

    def best_estimated(self, options: list[list[Option]], most: int) -> list[tuple[Option, ...]]:
        """The ``most`` best plans by the sum of their options' ``stars`` (then the plan order of
        :meth:`key`), best first, ties in the order found: a branch and bound on that sum."""
        for card in options:
            card.sort(key=lambda o: (-o.stars, o.value, o.tokens, o.spices))
        most_each = [max((o.stars for o in card), default=0) for card in options]
        still = [sum(most_each[i:]) for i in range(len(options) + 1)]
        guard = self.items.guard
        value_held, spices_held = self.items.value_held, self.items.spices_held
        ranked: list[tuple[Key, tuple[Option, ...]]] = []  # best first
        last = len(options)

        work = self.work

        def visit(
            i: int, left: int, chosen: tuple[Option, ...], stars: int, value: int, tokens: int, spices: int
        ) -> None:
            work.spend(ITEM_STEPS)
            # the plan order's key (see FastSearch.key), for this plan with every later card at its best
            bound = (stars + still[i], value_held - value, -tokens, spices_held - spices)
            if len(ranked) == most and bound <= ranked[-1][0]:
                return  # no plan from here beats the worst kept
            if i == last:
                at = len(ranked)
                while at and ranked[at - 1][0] < bound:
                    at -= 1
                ranked.insert(at, (bound, chosen))
                del ranked[most:]
                return
            for o in options[i]:
                after = (left | guard) - o.use
                if after & guard == guard:
                    visit(
                        i + 1,
                        after ^ guard,
                        (*chosen, o),
                        stars + o.stars,
                        value + o.value,
                        tokens + o.tokens,
                        spices + o.spices,
                    )
            visit(i + 1, left, chosen, stars, value, tokens, spices)  # no meal for this card

        visit(0, self.items.packed_have, (), 0, 0, 0, 0)
        return [chosen for _, chosen in ranked]


class Levels:
    """One card's options by quality, with their stars alone as far as known.

    The cheapest option of the lowest and highest quality are scored alone through the
    stages, then of the middle quality of each stretch whose ends earn different stars
    (breadth first, ``FIRST_SCORED`` in all). Stars alone are taken to grow with quality (the
    hope that makes this fast, not a rule): a quality between two scored ones earning the
    same stars is settled at those; between two that differ it is guessed at the stars of the
    one above, so a plan of guessed meals looks no worse than it may be, and the search scores
    the guessed meals it would choose (``SCORED_PER_CARD`` in all) before trusting them.
    """

    def __init__(self, options: list[Option], search: FastSearch) -> None:
        self.search = search
        self.options = options
        self.qualities = sorted({o.meal.quality for o in options})
        self.known: dict[int, int] = {}
        self.settled: set[int] = set()
        self.changes = 0  # how many times the options' stars were set
        cheapest: dict[int, Option] = {}
        for option in sorted(options, key=lambda o: (o.value, o.tokens, o.spices)):
            cheapest.setdefault(option.meal.quality, option)
        if not self.qualities:
            return
        stretches = [(0, len(self.qualities) - 1)]
        for end in stretches[0]:
            self.score(cheapest[self.qualities[end]], guess=False)
        while stretches and len(self.known) < FIRST_SCORED:
            low, high = stretches.pop(0)
            if high - low < 2 or self.known[self.qualities[low]] == self.known[self.qualities[high]]:
                continue
            middle = (low + high) // 2
            self.score(cheapest[self.qualities[middle]], guess=False)
            stretches += [(low, middle), (middle, high)]
        self.guess()

    def can_score(self) -> bool:
        return len(self.known) < SCORED_PER_CARD

    def is_guessed(self, option: Option) -> bool:
        return option in self.options and option.meal.quality not in self.settled

    def score(self, option: Option, guess: bool = True) -> None:
        """Score ``option`` alone through the stages: the stars of its quality are then known."""
        if self.can_score() and option.meal.quality not in self.known:
            self.known[option.meal.quality] = self.search.stars_alone(option)
            if guess:
                self.guess()

    def guess(self, hopeful: bool = True) -> None:
        """Each option's ``stars``: known, settled or guessed (see the class; not ``hopeful``: a
        guess is the stars of the scored quality below instead)."""
        below: list[int | None] = []
        last: int | None = None
        for quality in self.qualities:
            last = self.known.get(quality, last)
            below.append(last)
        stars: dict[int, int] = {}
        above: int | None = None
        self.settled = set()
        for quality, under in zip(reversed(self.qualities), reversed(below), strict=True):
            above = self.known.get(quality, above)
            stars[quality] = above if hopeful and above is not None else under or 0
            if quality in self.known or under == above:
                self.settled.add(quality)
        for option in self.options:
            option.stars = stars[option.meal.quality]
        self.changes += 1


def _combinations_at_most(options: list[list[Option]], most: int) -> bool:
    """Whether the cards' options (one each, or none) make at most ``most`` combinations, counted loosely."""
    total = 1
    for card in options:
        total *= len(card) + 1
        if total > most:
            return False
    return True


class CountedMeals(CardMeals):
    """The meals :class:`~.listing.CardMeals` lists, in its order and within its budget, judged by the
    facts the engine states of its meal rules (:func:`critter_kitchen.plan.meal_facts.ingredient_quality`)
    rather than by one check_meal each: whether a meal is legal is check_meal's verdict on the
    first meal of its counts of each type and token (remembered per table, as :mod:`.bands`
    does), and a legal meal's quality is the capped sum of what its items add. The ways to
    spice a choice of ingredients are worked out once for every card that may take them.
    """

    def __init__(
        self,
        question: Question,
        items: Items,
        params: dict[str, Any],
        budget: list[int],
        checks: dict[tuple[Any, ...], int | None],
        legal: dict[tuple[Any, ...], bool],
        work: Work | None = None,
    ) -> None:
        super().__init__(question, items, params, budget, checks, work)
        self.legal = legal  # check_meal's verdicts by the counts of each type and token (a fact of the rules)
        self.copies: dict[tuple[tuple[str, int], int], list[Spiced]] = {}
        self.spicings_of: dict[tuple[tuple[tuple[str, int], int], ...], list[Spiced]] = {}
        self.spices_held = items.pack_at(items.spice_at, items.have[items.spice_at : items.token_at])
        self.qualities: dict[int, int] = {}
        self.token_counts: list[tuple[dict[str, int], int, int, tuple[Any, ...]]] | None = None

    def under(self, params: dict[str, Any]) -> CardMeals:
        return CountedMeals(self.q, self.items, params, self.budget, self.checks, self.legal, self.work)

    def options(self, card: Card, held: bool) -> Iterator[tuple[PlannedMeal, int]]:
        items = self.items
        allowed = meal_types(card, self.params, held=held)
        at = [i for i, k in enumerate(items.kinds) if allowed is None or k[0] in allowed]
        givens = self.givens()
        every = len(givens)  # meals judged for each spicing of a choice of ingredients
        budget = self.budget
        # the counts of each type a meal holds -> the token counts legal with them (legality depends
        # only on the counts: each verdict is check_meal's on the first meal of those counts)
        legal_with: dict[tuple[Any, ...], list[tuple[int, dict[str, int], int, int]]] = {}
        for counts in itertools.product(*(range(items.have[i] + 1) for i in at)):
            if not any(counts):
                continue
            chosen = tuple((items.kinds[i], c) for i, c in zip(at, counts, strict=True) if c)
            spicings = self.spiced_all(chosen)
            if not spicings:
                continue
            used = sum(c << (i * items.width) for i, c in zip(at, counts, strict=True))
            types: dict[str, int] = {}
            for (kind, _), c in chosen:
                types[kind] = types.get(kind, 0) + c
            typed = tuple(sorted((("type", kind), c) for kind, c in types.items()))
            legal = legal_with.get(typed)
            if legal is None:
                example = spicings[0][0]  # legality depends only on the counts: any spicing tells it
                legal = legal_with[typed] = [
                    (g, tokens, token_use, token_added)
                    for g, (tokens, token_use, token_added, named) in enumerate(givens)
                    if self.is_legal(card, held, named + typed, example, tokens)  # sorted: "token" < "type"
                ]
            for ingredients, spice_use, added in spicings:
                with_spices = used + spice_use
                room = budget[0]
                if self.work.listing_done():
                    room = 0  # the plan's work allows no more listing: stop here
                self.work.spend(MEAL_STEPS * min(every, max(room, 0)))
                if room < every:  # the budget ends within these meals: those judged before it, then stop
                    budget[0] = 0
                    self.stopped = True  # a meal left unjudged: the search is not proved
                    for g, tokens, token_use, token_added in legal:
                        if g < room:
                            meal = PlannedMeal(card, ingredients, tokens, self.quality(added + token_added))
                            yield meal, with_spices + token_use
                    return
                budget[0] = room - every
                for _, tokens, token_use, token_added in legal:
                    meal = PlannedMeal(card, ingredients, tokens, self.quality(added + token_added))
                    yield meal, with_spices + token_use

    def givens(self) -> list[tuple[dict[str, int], int, int, tuple[Any, ...]]]:
        """Every count of each token a meal may hold: the counts, packed, the quality they add and
        their part of a verdict's key (the same for every card)."""
        if self.token_counts is None:
            items = self.items
            self.work.spend(ITEM_STEPS * len(self.counts_of_tokens()))
            adds = [token_quality(name, self.params) for name in items.token_names]
            self.token_counts = [
                (
                    dict(zip(items.token_names, given, strict=True)),
                    items.pack_at(items.token_at, given),
                    sum(a * n for a, n in zip(adds, given, strict=True)),
                    tuple(sorted((("token", name), n) for name, n in zip(items.token_names, given, strict=True) if n)),
                )
                for given in itertools.product(*(range(n + 1) for n in items.have[items.token_at :]))
            ]
        return self.token_counts

    def quality(self, total: int) -> int:
        """A legal meal's quality from the sum of what its items add (:func:`~.meal_facts.capped_quality`)."""
        found = self.qualities.get(total)
        if found is None:
            found = self.qualities[total] = capped_quality(total)
        return found

    def is_legal(
        self,
        card: Card,
        held: bool,
        counts: tuple[Any, ...],
        ingredients: tuple[Ingredient, ...],
        tokens: dict[str, int],
    ) -> bool:
        """check_meal's verdict on a meal of these counts of each type and token, remembered per table."""
        key = (card.id, held, counts)
        found = self.legal.get(key)
        if found is None:
            if len(self.legal) >= LEGAL_KEPT:
                self.legal.clear()
            problems, _ = check_meal(self.q.ruleset, card, ingredients, tokens, self.rules, held=held)
            found = self.legal[key] = not problems
        return found

    def spiced_all(self, chosen: tuple[tuple[tuple[str, int], int], ...]) -> list[Spiced]:
        """Every way to spice the chosen ingredients (kind, copies), in the order of
        :meth:`~.listing.CardMeals.spiced`: the ingredients in pantry order, the spices they use
        (packed) and the quality they add."""
        found = self.spicings_of.get(chosen)
        if found is None:
            guard = self.items.guard
            grown: list[tuple[tuple[tuple[Ingredient, ...], ...], int, int, int]] = [((), 0, 0, self.spices_held)]
            for kind, copies in chosen:
                ways = self.spiced_copies(kind, copies)
                self.work.spend(ITEM_STEPS * len(grown) * len(ways))
                grown = [
                    ((*parts, head), use + more, added + adds, after ^ guard)
                    for parts, use, added, left in grown
                    for head, more, adds in ways
                    if (after := (left | guard) - more) & guard == guard
                ]
            first = self.items.first
            order = sorted(range(len(chosen)), key=lambda j: first[chosen[j][0]])
            found = [(tuple(i for j in order for i in parts[j]), use, added) for parts, use, added, _ in grown]
            self.spicings_of[chosen] = found
        return found

    def spiced_copies(self, kind: tuple[str, int], copies: int) -> list[Spiced]:
        """The ways to spice ``copies`` ingredients of ``kind`` from the spices held, in the order
        of :meth:`~.listing.CardMeals.spiced` (spicings with replacement, none using more than held)."""
        key = (kind, copies)
        found = self.copies.get(key)
        if found is None:
            items = self.items
            spicings = self.legal_spicings(kind)
            one = [Ingredient(kind[0], kind[1], s) for s in spicings]
            adds = [ingredient_quality(i, self.params) for i in one]
            at = {s: (items.spice_at + j) * items.width for j, s in enumerate(items.spice_names)}
            held = dict(zip(items.spice_names, items.have[items.spice_at : items.token_at], strict=True))
            found = []
            for combo in itertools.combinations_with_replacement(range(len(spicings)), copies):
                self.work.spend(ITEM_STEPS)
                spices = [s for j in combo for s in spicings[j]]
                if any(spices.count(s) > held[s] for s in set(spices)):
                    continue  # more than held: never fits (and would not fit its packed field)
                use = sum(1 << at[s] for s in spices)
                found.append((tuple(one[j] for j in combo), use, sum(adds[j] for j in combo)))
            self.copies[key] = found
        return found


def plan_round_quick(question: Question, *, budget: int = PLAN_BUDGET) -> Plan:
    """A good plan quickly, for simulations: each card's first meals only (the smallest first),
    combined as the exact search does (with the stars it proves, unchecked by a last scoring)
    where stars add up, and at a bounded number of stage runs where they do not
    (:mod:`.quick`). ``optimal`` only when no card had more meals than that and, where stars
    do not add up, every combination of them was scored."""
    search = BoundedSearch(question, FAST_MEALS_PER_CARD, budget)
    try:
        (stars, *_), chosen = search.run() if search.separable else search.run_bounded()
    except OverBudget:
        (stars, *_), chosen = search.best  # the best plan found by then, scored again below
        search.work.finish()
        if not search.confirmed(chosen):
            chosen = ()  # its meals were not judged by check_meal yet (see .quick): serve nothing
        stars = search.scorer.stars(tuple(o.meal for o in chosen), search.work)
    plan = chosen_plan(search, chosen, stars)
    plan.optimal = plan.optimal and not search.bounded
    return plan

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
   bound find the ``PLANS_SCORED`` best plans, which are scored together through the stages;
   the best of them, as the engine scores it, is the plan.

Every meal is judged by :func:`critter_kitchen.check_meal` and the plan's stars are the
stages', so the plan is legal and its stars exact; only whether it is the best is not proved.
When every combination of the listed meals fits the budget they are all scored, as the exact
search does. Each step keeps a fixed order: the same question gets the same plan on every run.
"""

from __future__ import annotations

from .exact import FastSearch, _pareto

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .exact import Key, Option
    from .pantry import Question

FIRST_SCORED = 6  # per card: meals scored alone through the stages to tell the steps of its stars
SCORED_PER_CARD = 12  # per card: meals scored alone in all, the steps and then the meals a plan would take
PLANS_SCORED = 12  # plans scored together through the stages


class BoundedSearch(FastSearch):
    """:class:`~.exact.FastSearch` at a table whose stars do not add up, at a bounded cost (see the module)."""

    def __init__(self, question: Question, per_card: int) -> None:
        super().__init__(question, per_card, per_card=per_card)
        self.bounded = False  # True when a combination of the listed meals went unscored

    def run_bounded(self) -> tuple[Key, tuple[Option, ...]]:
        options = self.card_options()
        if _combinations_at_most(options, PLANS_SCORED):
            return self.run_whole(options)
        self.bounded = True
        options = [self.fewest_items(card) for card in options]
        levels = [Levels(card, self) for card in options]
        while True:  # the best plan by the stars hoped for, until its meals' stars are known
            plans = self.best_estimated([self.by_stars(card) for card in options], 1)
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
        plans = self.best_estimated([self.by_stars(card) for card in options], PLANS_SCORED)
        best: tuple[Key, tuple[Option, ...]] = (self.key((), 0), ())
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
        return [o for quality in sorted(by_quality) for o in _pareto(by_quality[quality], self.items.guard)]

    def run_whole(self, options: list[list[Option]]) -> tuple[Key, tuple[Option, ...]]:
        """The exact search's enumeration of ``options``, every combination scored together."""
        for card in options:
            card.sort(key=lambda o: (o.value, o.tokens, o.spices))
        self.options = options
        self.best = (self.key((), 0), ())
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
        items = self.items
        ranked: list[tuple[Key, tuple[Option, ...]]] = []  # best first

        def visit(
            i: int, left: int, chosen: tuple[Option, ...], stars: int, value: int, tokens: int, spices: int
        ) -> None:
            # the plan order's key (see FastSearch.key), for this plan with every later card at its best
            bound = (stars + still[i], items.value_held - value, -tokens, items.spices_held - spices)
            if len(ranked) == most and bound <= ranked[-1][0]:
                return  # no plan from here beats the worst kept
            if i == len(options):
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

        visit(0, items.packed_have, (), 0, 0, 0, 0)
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


def _combinations_at_most(options: list[list[Option]], most: int) -> bool:
    """Whether the cards' options (one each, or none) make at most ``most`` combinations, counted loosely."""
    total = 1
    for card in options:
        total *= len(card) + 1
        if total > most:
            return False
    return True

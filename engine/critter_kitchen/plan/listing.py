"""Every legal meal of one card from the pantry, as the engine judges it (:class:`CardMeals`):
what the exact search lists, the smallest meals first, within its share of the work."""

from __future__ import annotations

import itertools

from ..api import check_meal, meal_rules
from ..model.game import Ingredient
from ..model.meals import card_parameters
from .meal_facts import check_spices, meal_types
from .plans import PlannedMeal
from .work import CHECKS_KEPT, ITEM_STEPS, MEAL_STEPS, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ..model.ruleset import Card
    from .pantry import Question
    from .pareto import Items


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
        self.rules = meal_rules(params, cards=question.in_play())  # what check_meal reads, read once
        self.budget = budget  # [meals left to check]; shared by every card, 0 stops the search
        self.spicings: dict[tuple[str, int], list[tuple[str, ...]]] = {}
        self.stopped = False
        self.by_card: dict[str, CardMeals] = {}  # the listings under a card's own parameters (see for_card)
        self.root = self  # the listing under the player's parameters, of which this is one (see for_card)

    def for_card(self, card: Card) -> CardMeals:
        """What lists ``card``'s meals: this listing, or for a card with parameters of its own (a
        Challenge card's spice factor, ...) one under those, made once and sharing the budget."""
        if not card.parameters:
            return self
        found = self.by_card.get(card.id)
        if found is None:
            found = self.by_card[card.id] = self.under(card_parameters(self.params, card))
            found.root = self
        return found

    def under(self, params: dict[str, Any]) -> CardMeals:
        """A listing like this one (its pantry, budget, verdicts and work) under other parameters."""
        return CardMeals(self.q, self.items, params, self.budget, self.checks, self.work)

    def any_stopped(self) -> bool:
        """Whether this listing, or one under a card's parameters, left a meal unjudged."""
        return self.stopped or any(m.stopped for m in self.by_card.values())

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

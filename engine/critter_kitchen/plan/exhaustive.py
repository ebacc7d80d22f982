"""The challenge-round planner's reference search: the legal meals that earn a player the most stars,
as the engine scores them.

Every meal is judged by :func:`critter_kitchen.check_meal` and every plan is scored by
running the ruleset's stages on a game holding only this player and the plan's meals:
no rule of the game is written here. The search is exhaustive over the assignments of
items to the round's cards, pruned by legality (each card's meal is checked as soon as it
is chosen, and an illegal one is never extended) and by interchangeable items (equal
ingredients and equal spices are counted, not told apart).

Slow; the tests compare the planner's searches (:func:`.search.plan_round`) with it.
"""

from __future__ import annotations

import itertools

from ..api import check_meal
from ..model.game import Ingredient
from .plans import NODE_LIMIT, UNBOUNDED, Plan, PlannedMeal, add_to, check_round
from .scorer import Scorer
from .work import Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ..model.ruleset import Card
    from .pantry import Question

    Counts = dict[Any, int]
    _Option = tuple[Counts, Counts, dict[str, int], PlannedMeal]


class _Search:
    def __init__(self, question: Question, limit: int) -> None:
        self.q = question
        self.scorer = Scorer(question)
        self.params = self.scorer.params
        self.work = Work(UNBOUNDED)  # the reference search is bounded by ``limit`` alone
        self.limit = limit
        self.nodes = 0
        self.cut = False
        self.best: tuple[tuple[int, int, int, int], tuple[PlannedMeal, ...]] | None = None
        self.spice_limit: int = self.params["spices_per_ingredient"]

    def run(self) -> None:
        ingredients: Counts = {}
        for item in self.q.ingredients:
            add_to(ingredients, item)
        spices: Counts = {}
        for spice in self.q.spices:
            add_to(spices, spice)
        self.judge((), ingredients, spices, dict(self.q.tokens))  # serving nothing: a plan however soon a limit cuts
        cards = self.q.challenges
        # Each card's legal meals, checked once each from the whole pantry; the search then
        # picks at most one per card among those the items left still allow.
        self.options = [
            self.legal_meals(card, i == len(cards) - 1, ingredients, spices) for i, card in enumerate(cards)
        ]
        self.visit(0, ingredients, spices, dict(self.q.tokens), ())

    def legal_meals(self, card: Card, held: bool, ingredients: Counts, spices: Counts) -> list[_Option]:
        options: list[_Option] = []
        rules = self.scorer.rules_for(card)  # the card's own parameters may change the meal rules
        self.spice_limit = rules.spices_per_ingredient
        for picked, spiced, given in self.meals(ingredients, spices, self.q.tokens):
            if self.cut:
                break
            self.nodes += 1
            if self.nodes > self.limit:
                self.cut = True
                break
            problems, quality = check_meal(self.q.ruleset, card, spiced, given, rules, held=held)
            if problems:
                continue
            used_spices: Counts = {}
            for ing in spiced:
                for s in ing.spices:
                    add_to(used_spices, s)
            options.append((picked, used_spices, given, PlannedMeal(card, tuple(spiced), given, quality)))
        return options

    def visit(
        self, i: int, ingredients: Counts, spices: Counts, tokens: Counts, chosen: tuple[PlannedMeal, ...]
    ) -> None:
        if self.cut:
            return
        if i == len(self.options):
            self.nodes += 1  # a plan scored counts too: combinations, not only meals, can be many
            if self.nodes > self.limit:
                self.cut = True
                return
            self.judge(chosen, ingredients, spices, tokens)
            return
        self.visit(i + 1, ingredients, spices, tokens, chosen)  # no meal for this card
        for picked, used_spices, given, meal in self.options[i]:
            if (
                any(n > ingredients[k] for k, n in picked.items())
                or any(n > spices[s] for s, n in used_spices.items())
                or any(n > tokens[t] for t, n in given.items())
            ):
                continue
            left_ingredients = {k: n - picked.get(k, 0) for k, n in ingredients.items()}
            left_spices = {s: n - used_spices.get(s, 0) for s, n in spices.items()}
            left_tokens = {t: n - given[t] for t, n in tokens.items()}
            self.visit(i + 1, left_ingredients, left_spices, left_tokens, (*chosen, meal))

    def meals(
        self, ingredients: Counts, spices: Counts, tokens: Counts
    ) -> Iterator[tuple[Counts, list[Ingredient], dict[str, int]]]:
        """Every meal these items can make: a sub-multiset of ingredients, spices on them, tokens."""
        kinds = [k for k, n in ingredients.items() if n > 0]
        token_names = list(tokens)
        for counts in itertools.product(*(range(ingredients[k] + 1) for k in kinds)):
            picked = {k: n for k, n in zip(kinds, counts, strict=True) if n}
            if not picked:
                continue
            plain = [(kind, value) for (kind, value), n in picked.items() for _ in range(n)]
            for spiced in self.spicings(plain, spices):
                for given in itertools.product(*(range(tokens[t] + 1) for t in token_names)):
                    yield picked, spiced, dict(zip(token_names, given, strict=True))

    def spicings(self, plain: list[tuple[str, int]], spices: Counts) -> Iterator[list[Ingredient]]:
        """Every way to put the available spices on these ingredients (up to the per-ingredient limit)."""
        if not plain:
            yield []
            return
        (kind, value), rest = plain[0], plain[1:]
        names = [s for s, n in spices.items() if n > 0]
        for size in range(min(self.spice_limit, sum(spices.values())) + 1):
            for combo in itertools.combinations_with_replacement(names, size):
                need: Counts = {}
                for s in combo:
                    add_to(need, s)
                if any(n > spices[s] for s, n in need.items()):
                    continue
                left = {s: n - need.get(s, 0) for s, n in spices.items()}
                for tail in self.spicings(rest, left):
                    yield [Ingredient(kind, value, combo), *tail]

    def judge(self, chosen: tuple[PlannedMeal, ...], ingredients: Counts, spices: Counts, tokens: Counts) -> None:
        stars = self.scorer.stars(chosen, self.work)
        unused = sum(value * n for (_, value), n in ingredients.items())
        spent = sum(self.q.tokens.values()) - sum(tokens.values())
        key = (stars, unused, -spent, sum(spices.values()))
        if self.best is None or key > self.best[0]:
            self.best = (key, chosen)


def plan_round_exhaustive(question: Question, *, limit: int = NODE_LIMIT) -> Plan:
    """The reference search: every legal meal of each card, every combination scored by the
    engine. Slow; the tests compare :func:`plan_round` with it. ``optimal`` is False when
    ``limit`` meals and plans were checked before the search ended."""
    check_round(question)
    search = _Search(question, limit)
    search.run()
    assert search.best is not None  # serving nothing is always a plan
    (stars, *_), chosen = search.best
    meals = {m.card.id: m for m in chosen}
    for meal in chosen:
        meal.stars = search.scorer.stars((meal,), search.work)
    plan = Plan(question, meals, stars, optimal=not search.cut)
    plan.nodes = search.nodes
    return plan

"""The challenge-round planner: the legal meals that earn a player the most stars, as the engine scores them.

Every meal is judged by :func:`critter_kitchen.check_meal` and every plan is scored by
running the ruleset's stages on a game holding only this player and the plan's meals:
no rule of the game is written here. The search is exhaustive over the assignments of
items to the round's cards, pruned by legality (each card's meal is checked as soon as it
is chosen, and an illegal one is never extended) and by interchangeable items (equal
ingredients and equal spices are counted, not told apart).
"""

from __future__ import annotations

import itertools

from ..api import check_meal, meal_rules, rule_parameters
from ..model.game import Game, Ingredient, Meal, Player
from ..stages.runner import run_stages
from .work import PLAN_BUDGET, PLANS_KEPT, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ..model.ruleset import Card
    from .pantry import Question

    Counts = dict[Any, int]
    _Option = tuple[Counts, Counts, dict[str, int], "PlannedMeal"]

NODE_LIMIT = 200_000  # meals checked and plans scored before the search stops and says it is not proved optimal


class PlannedMeal:
    """One challenge meal of a plan: its ingredients (with spices), tokens, quality and stars."""

    def __init__(self, card: Card, ingredients: tuple[Ingredient, ...], tokens: dict[str, int], quality: int) -> None:
        self.card = card
        self.ingredients = ingredients
        self.tokens = tokens
        self.quality = quality
        self.stars = 0  # what this meal earns served alone (set once the plan is chosen)


class Plan:
    """The best plan found: its meals by card id, its stars, what is left, and whether it is proved best."""

    def __init__(self, question: Question, meals: dict[str, PlannedMeal], stars: int, optimal: bool) -> None:
        self.question = question
        self.meals = meals
        self.stars = stars
        self.optimal = optimal
        self.nodes = 0  # meals checked by the search
        self.steps = 0  # the work the plan took (see .work)
        used_ingredients: Counts = {}
        used_spices: Counts = {}
        used_tokens: Counts = {}
        for meal in meals.values():
            for ing in meal.ingredients:
                _add(used_ingredients, (ing.type, ing.value))
                for spice in ing.spices:
                    _add(used_spices, spice)
            for name, n in meal.tokens.items():
                _add(used_tokens, name, n)
        self.left_ingredients = _less(list(question.ingredients), used_ingredients)
        self.left_spices = _less(list(question.spices), used_spices)
        self.left_tokens = {name: n - used_tokens.get(name, 0) for name, n in question.tokens.items()}

    @property
    def unused_value(self) -> int:
        return sum(value for _, value in self.left_ingredients)

    @property
    def tokens_spent(self) -> int:
        return sum(n for meal in self.meals.values() for n in meal.tokens.values())


def _add(counts: Counts, key: Any, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


def _less(items: list[Any], used: Counts) -> list[Any]:
    """``items`` less one of each used (in order: the first ones go)."""
    left = dict(used)
    out = []
    for item in items:
        if left.get(item, 0) > 0:
            left[item] -= 1
        else:
            out.append(item)
    return out


class Scorer:
    """The stars a player earns from a round's meals, as the ruleset's stages award them.

    A game is built with this player alone, the cards in play, and the meals; its stages
    run; the player's stars less those of the same game with no meals are the plan's.
    """

    def __init__(self, question: Question) -> None:
        self.q = question
        rs = question.ruleset
        self.table_params = rule_parameters(rs, question.table)
        self.params = rule_parameters(rs, question.table, question.owned)
        self.rules = meal_rules(self.params)  # what check_meal reads of them, read once
        self.rounds = tuple(rs.parameters["challenge_rounds"].value)
        self.cache: dict[Any, tuple[int, int]] = {}  # plan -> (stars, effect steps), PLANS_KEPT at most
        self.baseline = self.game_stars((), Work())

    def game_stars(self, meals: tuple[PlannedMeal, ...], work: Work, key: Any = None) -> int:
        """The player's stars in a game of these meals; the run is charged to ``work`` (once per
        ``key`` when given: see :meth:`Work.run`)."""
        stars, steps = self.run(meals)
        work.run(("game", key) if key is not None else object(), steps)
        return stars

    def run(self, meals: tuple[PlannedMeal, ...]) -> tuple[int, int]:
        """(the player's stars, the effect steps taken) of a game of these meals."""
        q = self.q
        player = Player(q.name, 0)
        player.owned = q.owned
        game = Game(q.ruleset, (player,), dict(self.table_params), {})
        game.challenges = {r: (q.challenges if r == q.target else ()) for r in self.rounds}
        game.table_cards = q.table
        by_card = {m.card.id: m for m in meals}
        served = tuple(
            Meal(q.target, c, player, by_card[c.id].ingredients, dict(by_card[c.id].tokens), by_card[c.id].quality)
            for c in q.challenges
            if c.id in by_card
        )
        game.meals = {r: (served if r == q.target else ()) for r in self.rounds}
        run_stages(game, "<plan>")
        return player.stars, game.steps

    def stars(self, meals: tuple[PlannedMeal, ...], work: Work) -> int:
        """The stars the plan's meals earn (remembered per table; charged to ``work`` once per plan)."""
        key = tuple(sorted((m.card.id, _meal_key(m)) for m in meals))
        found = self.cache.get(key)
        if found is None:
            stars, steps = self.run(meals)
            if len(self.cache) >= PLANS_KEPT:
                self.cache.clear()
            found = self.cache[key] = (stars - self.baseline, steps)
        work.run(key, found[1])
        return found[0]


def _meal_key(meal: PlannedMeal) -> tuple[Any, ...]:
    return (
        tuple(sorted((i.type, i.value, i.spices) for i in meal.ingredients)),
        tuple(sorted(meal.tokens.items())),
    )


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
            _add(ingredients, item)
        spices: Counts = {}
        for spice in self.q.spices:
            _add(spices, spice)
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
        for picked, spiced, given in self.meals(ingredients, spices, self.q.tokens):
            if self.cut:
                break
            self.nodes += 1
            if self.nodes > self.limit:
                self.cut = True
                break
            problems, quality = check_meal(self.q.ruleset, card, spiced, given, self.scorer.rules, held=held)
            if problems:
                continue
            used_spices: Counts = {}
            for ing in spiced:
                for s in ing.spices:
                    _add(used_spices, s)
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
                    _add(need, s)
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


EFFORTS = ("exact", "fast")
UNBOUNDED = 10**18  # the work budget of the reference searches (bounded by their meal limit)


def plan_round(
    question: Question, *, effort: str = "exact", limit: int = NODE_LIMIT, budget: int = PLAN_BUDGET
) -> Plan:
    """The plan for a challenge round that earns the most stars; ties to the most ingredient
    value left unused, then to fewer tokens spent, then to more spices left.

    ``effort="exact"`` proves its plan best (``optimal``) unless ``limit`` meals were checked
    first; ``effort="fast"`` (for simulations) judges a few hundred meals per card at most and
    is proved best only when that was all of them. Both give only plans the engine accepts.
    Either stops within ``budget`` steps of work (see :mod:`.work`) with the best plan found,
    not proved best. Tokens beyond what the round's meals can fill are left out of the
    search (see :func:`folded`): they are left over, and the plan is then not proved best.
    """
    _check_round(question)
    if effort not in EFFORTS:
        from ..errors import CritterError

        raise CritterError(f"unknown effort {effort!r}; use one of {', '.join(EFFORTS)}")
    asked = folded(question)
    if effort == "exact":
        from .exact import plan_round_fast_exact

        plan = plan_round_fast_exact(asked, limit=limit, budget=budget)
        if not plan.optimal and plan.steps < budget and limit >= NODE_LIMIT:
            # Cut short by its work (not by a meal limit asked for), the exact search has seen the
            # smallest meals only: the fast effort's plan, from the work left, may be better (the
            # better of the two is the answer).
            from .exact import plan_round_quick

            quick = plan_round_quick(asked, budget=budget - plan.steps)
            quick.steps += plan.steps
            if _order(quick) > _order(plan):
                quick.optimal = False
                plan = quick
            else:
                plan.steps = quick.steps
    else:
        from .exact import plan_round_quick

        plan = plan_round_quick(asked, budget=budget)
    if asked is question:
        return plan
    whole = Plan(question, plan.meals, plan.stars, False)  # what is left, of the whole pantry
    whole.nodes, whole.steps = plan.nodes, plan.steps
    return whole


def _order(plan: Plan) -> tuple[int, int, int, int]:
    """The plan order: stars, then value left unused, then fewer tokens spent, then more spices left."""
    return (plan.stars, plan.unused_value, -plan.tokens_spent, len(plan.left_spices))


def token_room(question: Question) -> int:
    """The most tokens the round's meals can take as fillers: every requirement slot of every
    card empty, ``tokens_per_missing_type`` tokens each (at least 1)."""
    params = rule_parameters(question.ruleset, question.table, question.owned)
    per_slot: int = params["tokens_per_missing_type"]
    return max(1, sum(len(card.requires) for card in question.challenges) * max(1, per_slot))


def folded(question: Question) -> Question:
    """``question`` with each token count above :func:`token_room` lowered to it (``question``
    itself when none is): a million soups are searched as the few the meals can fill with."""
    room = token_room(question)
    if all(n <= room for n in question.tokens.values()):
        return question
    from .pantry import Question

    q = question
    tokens = {name: min(n, room) for name, n in q.tokens.items()}
    return Question(q.ruleset, q.target, q.challenges, q.table, q.name, q.owned, q.ingredients, q.spices, tokens)


def _check_round(question: Question) -> None:
    if not question.challenges:
        from ..errors import CritterError

        raise CritterError(f"{question.target}: not a challenge round; plan the critic meal with plan_critic")


def plan_round_exhaustive(question: Question, *, limit: int = NODE_LIMIT) -> Plan:
    """The reference search: every legal meal of each card, every combination scored by the
    engine. Slow; the tests compare :func:`plan_round` with it. ``optimal`` is False when
    ``limit`` meals and plans were checked before the search ended."""
    _check_round(question)
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

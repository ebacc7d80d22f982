"""What every part of the planner shares: a plan of a challenge round and its meals, a critic
meal's plan, and the plan order. At the bottom of the planner: every search makes these."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ..model.game import Course, Ingredient
    from ..model.ruleset import Card
    from .pantry import Question

    Counts = dict[Any, int]

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
                add_to(used_ingredients, (ing.type, ing.value))
                for spice in ing.spices:
                    add_to(used_spices, spice)
            for name, n in meal.tokens.items():
                add_to(used_tokens, name, n)
        self.left_ingredients = less(list(question.ingredients), used_ingredients)
        self.left_spices = less(list(question.spices), used_spices)
        self.left_tokens = {name: n - used_tokens.get(name, 0) for name, n in question.tokens.items()}

    @property
    def unused_value(self) -> int:
        return sum(value for _, value in self.left_ingredients)

    @property
    def tokens_spent(self) -> int:
        return sum(n for meal in self.meals.values() for n in meal.tokens.values())


def add_to(counts: Counts, key: Any, n: int = 1) -> None:
    """Count ``n`` more of ``key``."""
    counts[key] = counts.get(key, 0) + n


def less(items: list[Any], used: Counts) -> list[Any]:
    """``items`` less one of each used (in order: the first ones go)."""
    left = dict(used)
    out = []
    for item in items:
        if left.get(item, 0) > 0:
            left[item] -= 1
        else:
            out.append(item)
    return out


def plan_order(plan: Plan) -> tuple[int, int, int, int]:
    """The plan order: stars, then value left unused, then fewer tokens spent, then more spices left."""
    return (plan.stars, plan.unused_value, -plan.tokens_spent, len(plan.left_spices))


def check_round(question: Question) -> None:
    """Refuse a question that is not of a challenge round."""
    if not question.challenges:
        from ..errors import CritterError

        raise CritterError(f"{question.target}: not a challenge round; plan the critic meal with plan_critic")


UNBOUNDED = (
    10**18
)  # the work budget of the reference searches (.exhaustive, .critic_search): bounded by their meal limit


def tally(items: Iterable[Any]) -> Counts:
    """How many of each item."""
    counts: Counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


class CriticPlan:
    """The best critic meal found: its courses by type, the tokens kept, its stars and quality."""

    def __init__(self, question: Question, courses: dict[str, Course], tokens: dict[str, int]) -> None:
        self.question = question
        self.courses = courses
        self.tokens = tokens
        self.stars = 0
        self.critic_quality = 0
        self.optimal = True
        self.steps = 0  # the work the plan took (see .work)


def critic_left(
    ingredients: Iterable[tuple[str, int]], spices: Iterable[str], courses: Iterable[Course]
) -> tuple[list[tuple[str, int]], list[str]]:
    """What a player holding these ingredients and spices has left unused once these critic
    courses are served: the ingredients and spices no course took (tokens aside, counted apart)."""
    used_ingredients: Counts = {}
    used_spices: Counts = {}
    for course in courses:
        if course.token is None:
            add_to(used_ingredients, (course.type, course.value))
            for spice in course.spices:
                add_to(used_spices, spice)
    return less(list(ingredients), used_ingredients), less(list(spices), used_spices)

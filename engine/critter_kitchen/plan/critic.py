"""The critic-meal planner: the critic meal that earns a player the most stars, by the search
its effort picks (:mod:`.efforts`: the exact search of :mod:`.critic_exact`, or the fast one of
:mod:`.critic_quick`); the plan as JSON, as a record fragment and as text; and what to keep
after a challenge round for the critic meal.
"""

from __future__ import annotations

from ..api import rule_parameters
from .critic_search import NODE_LIMIT, CriticSearch, finish
from .efforts import CRITIC_SEARCHES, search_for
from .plans import UNBOUNDED, CriticPlan, critic_left
from .work import PLAN_BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ..model.game import Course
    from .pantry import Question

__all__ = [
    "CriticPlan",
    "Keep",
    "critic_json",
    "critic_record",
    "critic_text",
    "left_of",
    "plan_critic",
    "plan_critic_exhaustive",
    "plan_keep",
]


def plan_critic(
    question: Question,
    *,
    effort: str = "exact",
    limit: int = NODE_LIMIT,
    room: int | None = None,
    budget: int = PLAN_BUDGET,
) -> CriticPlan:
    """The critic meal that earns the most stars, ties to the higher critic quality; ``optimal``
    is False when ``limit`` meals were scored before the search ended. ``effort="fast"`` scores
    at most ``critic_quick.FAST_LIMIT`` meals (a greedy meal, then better ones a course at a time; see
    :mod:`.critic_quick`) and never claims its meal best. Either stops within ``budget`` steps of
    work (see :mod:`.work`) with the best meal found, not proved best.
    ``room``: the meal may hold at most that many ingredients and spices (tokens aside)."""
    make = search_for(CRITIC_SEARCHES, effort)
    if question.constrained():  # a meal constraint: the plain search, every meal judged whole
        search = CriticSearch(question, limit, budget)
        search.best_first = effort != "exact"  # cut short, it has met the big meals
        return finish(search, room)
    return finish(make(question, limit, budget), room)


def plan_critic_exhaustive(question: Question, *, limit: int = NODE_LIMIT, room: int | None = None) -> CriticPlan:
    """The reference search: every course choice and every count of kept tokens, each scored."""
    return finish(CriticSearch(question, limit, UNBOUNDED), room)


def left_of(question: Question, courses: Iterable[Course]) -> dict[str, Any]:
    """What the player of ``question`` has left unused once these courses are served:
    ``{"ingredients": [{"type", "value"}, ...], "spices": [...]}``, as a game record's critic
    meal says it (``left``)."""
    ingredients, spices = critic_left(question.ingredients, question.spices, courses)
    return {"ingredients": [{"type": kind, "value": value} for kind, value in ingredients], "spices": spices}


def critic_json(plan: CriticPlan) -> dict[str, Any]:
    """``{"for": "critic", "optimal", "stars", "critic_quality", "courses", TOKEN: n, ..., "left"}``."""
    courses: dict[str, Any] = {}
    for kind, course in plan.courses.items():
        if course.token is not None:
            courses[kind] = {"token": course.token}
        else:
            entry: dict[str, Any] = {"value": course.value}
            if course.spices:
                entry["spice"] = course.spices[0] if len(course.spices) == 1 else list(course.spices)
            courses[kind] = entry
    return {
        "for": "critic",
        "optimal": plan.optimal,
        "stars": plan.stars,
        "critic_quality": plan.critic_quality,
        "courses": courses,
        **plan.tokens,
        "left": left_of(plan.question, plan.courses.values()),
    }


def critic_record(plan: CriticPlan) -> dict[str, Any]:
    """The fragment to paste into a game record: ``critic_meals: {NAME: {courses: ..., TOKEN: n, left: ...}}``."""
    data = critic_json(plan)
    return {"critic_meals": {plan.question.name: {"courses": data["courses"], **plan.tokens, "left": data["left"]}}}


def critic_text(plan: CriticPlan) -> str:
    q = plan.question
    stars = f"{plan.stars} star{'s' if plan.stars != 1 else ''}"
    head = f"{q.name}, critic meal: {stars}, critic quality {plan.critic_quality}"
    lines = [head + ("" if plan.optimal else " (best found; the search stopped at its limit)")]
    for kind, course in plan.courses.items():
        what = course.token if course.token is not None else f"{kind} {course.value}"
        lines.append(
            f"  {kind}: {what}" + "".join(f" + {s} spice" for s in course.spices) + f" -> quality {course.quality}"
        )
    kept = [f"{n} {name}" for name, n in plan.tokens.items() if n]
    lines.append(f"  tokens kept: {', '.join(kept) if kept else 'none'}")
    ingredients, spices = critic_left(q.ingredients, q.spices, plan.courses.values())
    left = [f"{kind} {value}" for kind, value in ingredients] + [f"{s} spice" for s in spices]
    lines.append(f"  left: {', '.join(left) if left else 'nothing'}")
    return "\n".join(lines)


class Keep:
    """What to keep after a challenge round: the ingredients and spices of the best critic
    meal the items left can make, when they fit the refrigeration limit (``optimal``)."""

    def __init__(
        self, ingredients: list[tuple[str, int]], spices: list[str], critic: CriticPlan, optimal: bool
    ) -> None:
        self.ingredients = ingredients
        self.spices = spices
        self.critic = critic  # the critic meal they make
        self.optimal = optimal


def plan_keep(question: Question, left_ingredients: list[tuple[str, int]], left_spices: list[str]) -> Keep | None:
    """The items to keep under the refrigeration limit after ``question``'s round, or None when
    the rules set no limit for that round.

    The best critic meal of the items left (tokens are kept anyway) among those whose
    ingredients and spices fit the limit is planned, and its items are kept: exact whenever
    that critic-meal search is.
    """
    from .pantry import CRITIC, Question

    params = rule_parameters(question.ruleset, question.table, question.owned)
    limit = params["refrigeration_limits"].get(question.target)
    if limit is None:
        return None
    later = Question(
        question.ruleset,
        CRITIC,
        (),
        question.table,
        question.name,
        question.owned,
        tuple(left_ingredients),
        tuple(left_spices),
        {name: 0 for name in question.tokens},  # the round's tokens left are kept without limit
    )
    # The best critic meal whose ingredients and spices fit the limit: exactly what is worth keeping.
    critic = plan_critic(later, room=limit)
    courses = sorted((c for c in critic.courses.values() if c.token is None), key=lambda c: -c.quality)
    ingredients = [(c.type, c.value) for c in courses]
    spices = [s for c in courses for s in c.spices]
    fits = len(ingredients) + len(spices) <= limit
    return Keep(ingredients, spices, critic, fits and critic.optimal)

"""The simulated players' decisions, each one call of the meal planner (``critter_kitchen.plan``).

Every decision is a pantry question; the planner knows the rules. The two calls below are
the only places the balance lab plans, so a planner mode is switched here, in one line each.
"""

from __future__ import annotations

from ..plan.critic import plan_critic
from ..plan.search import Plan, plan_round

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..plan.critic import CriticPlan
    from ..plan.pantry import Question

EFFORTS = ("fast", "exact")
# Where the planner has no effort levels of its own, "fast" asks its exact search about a
# trimmed pantry (see _trimmed) and stops it after this many meals: a legal plan, not proved best.
FAST_LIMIT = 5_000
EXACT_LIMIT = 200_000
FAST_INGREDIENTS = 4  # a challenge round's pantry: the most valuable ingredients of the types its cards list
FAST_SPICES = 1
FAST_TOKENS = 1  # of each token, for a challenge round; the critic meal keeps every token


def _takes_effort(planner: Any) -> bool:
    import inspect

    return "effort" in inspect.signature(planner).parameters


# The planner's own effort levels, where this build of it has them.
HAS_EFFORT = _takes_effort(plan_round) and _takes_effort(plan_critic)


def plan_challenge_round(question: Question, effort: str) -> Plan:
    """The player's meals for one challenge round."""
    if HAS_EFFORT:
        plan: Plan = plan_round(question, effort=effort)  # type: ignore[call-arg, unused-ignore]
        return plan
    if effort == "exact":
        return plan_round(question, limit=EXACT_LIMIT)
    plan = plan_round(_trimmed(question), limit=FAST_LIMIT)
    return Plan(question, plan.meals, plan.stars, plan.optimal)  # what is left, of the whole pantry


def plan_critic_meal(question: Question, effort: str) -> CriticPlan:
    """The player's critic meal, with the tokens kept (every token kept that the trimmed
    question left out)."""
    if HAS_EFFORT:
        critic: CriticPlan = plan_critic(question, effort=effort)  # type: ignore[call-arg, unused-ignore]
        return critic
    if effort == "exact":
        return plan_critic(question, limit=EXACT_LIMIT)
    asked = _trimmed(question)
    plan = plan_critic(asked, limit=FAST_LIMIT)
    plan.tokens = {t: n + question.tokens[t] - asked.tokens[t] for t, n in plan.tokens.items()}
    return plan


def _trimmed(q: Question) -> Question:
    """The question with a pantry small enough for the exact search: for a challenge round, the
    most valuable ingredients of the listed types (at most two of a type); for the critic meal,
    the best of each type; a few spices (those matching first) and tokens."""
    from ..plan.pantry import Question

    listed = {t for card in q.challenges for t in card.requires} if q.challenges else None
    best = sorted(q.ingredients, key=lambda item: (-item[1], item[0]))
    per_type = 1 if listed is None else 2
    chosen: list[tuple[str, int]] = []
    for kind, value in best:
        if (listed is None or kind in listed) and sum(1 for k, _ in chosen if k == kind) < per_type:
            chosen.append((kind, value))
    if listed is not None:
        chosen = chosen[:FAST_INGREDIENTS]
    kinds = {k for k, _ in chosen}
    spices = sorted(q.spices, key=lambda s: (s not in kinds, s))[:FAST_SPICES]
    tokens = {t: min(n, FAST_TOKENS) if listed is not None else 0 for t, n in q.tokens.items()}
    return Question(q.ruleset, q.target, q.challenges, q.table, q.name, q.owned, tuple(chosen), tuple(spices), tokens)


def refrigerate(
    ingredients: list[tuple[str, int]], spices: list[str], limit: int
) -> tuple[list[tuple[str, int]], list[str]]:
    """What a player keeps of the items left after a challenge round, at most ``limit`` of them:
    for each type its best ingredient and a spice for it first (a critic meal takes one course
    per type), then the other items by value. Tokens are kept apart, without limit."""
    by_value = sorted(ingredients, key=lambda item: (-item[1], item[0]))
    first: list[tuple[str, int]] = []
    rest: list[tuple[str, int]] = []
    seen: set[str] = set()
    for item in by_value:
        (rest if item[0] in seen else first).append(item)
        seen.add(item[0])
    kept: list[tuple[str, int]] = []
    kept_spices: list[str] = []
    left_spices = sorted(spices)
    for kind, value in first:
        if len(kept) + len(kept_spices) >= limit:
            break
        kept.append((kind, value))
        if kind in left_spices and len(kept) + len(kept_spices) < limit:
            left_spices.remove(kind)
            kept_spices.append(kind)
    room = limit - len(kept) - len(kept_spices)
    wild = [s for s in left_spices]
    kept_spices += wild[: max(0, min(room, len(wild)))]
    room = limit - len(kept) - len(kept_spices)
    kept += rest[: max(0, room)]
    return kept, kept_spices

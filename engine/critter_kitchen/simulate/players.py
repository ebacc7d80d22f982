"""The simulated players' decisions, each one call of the meal planner (``critter_kitchen.plan``).

Every decision is a pantry question; the planner knows the rules. The two calls below are
the only places the balance lab plans, so a planner mode is switched here, in one line each.
"""

from __future__ import annotations

from ..model.ruleset import WILD_SLOT
from ..plan.critic import plan_critic
from ..plan.plans import Plan
from ..plan.search import plan_round

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..plan.critic import CriticPlan
    from ..plan.pantry import Question

# "quick" asks the planner's exact search about a trimmed pantry (see _trimmed) and stops it
# after QUICK_LIMIT meals: a legal plan, not proved best, many times faster than the others.
# "fast" and "exact" are the planner's own efforts.
EFFORTS = ("quick", "fast", "exact")
QUICK_LIMIT = 5_000
QUICK_INGREDIENTS = 4  # a challenge round's pantry: the most valuable ingredients of the types its cards list
QUICK_SPICES = 1
QUICK_TOKENS = 1  # of each token, for a challenge round; the critic meal keeps every token


def plan_challenge_round(question: Question, effort: str) -> Plan:
    """The player's meals for one challenge round."""
    if effort == "quick":
        trimmed = plan_round(_trimmed(question), limit=QUICK_LIMIT)
        return Plan(question, trimmed.meals, trimmed.stars, trimmed.optimal)  # what is left, of the whole pantry
    return plan_round(question, effort=effort)


def plan_critic_meal(question: Question, effort: str) -> CriticPlan:
    """The player's critic meal, with the tokens kept (every token kept that the trimmed
    question left out)."""
    if effort == "quick":
        asked = _trimmed(question)
        plan = plan_critic(asked, limit=QUICK_LIMIT)
        plan.tokens = {t: n + question.tokens[t] - asked.tokens[t] for t, n in plan.tokens.items()}
        return plan
    return plan_critic(question, effort=effort)


def _trimmed(q: Question) -> Question:
    """The question with a pantry small enough for the exact search: for a challenge round, the
    most valuable ingredients of the listed types (at most two of a type); for the critic meal,
    the best of each type; a few spices (those matching first) and tokens."""
    from ..plan.pantry import Question

    listed = {t for card in q.challenges for t in card.requires} if q.challenges else None
    if listed is not None and WILD_SLOT in listed:
        listed = None  # a wildcard slot takes any type: the best of every type
    best = sorted(q.ingredients, key=lambda item: (-item[1], item[0]))
    per_type = 1 if listed is None else 2
    chosen: list[tuple[str, int]] = []
    for kind, value in best:
        if (listed is None or kind in listed) and sum(1 for k, _ in chosen if k == kind) < per_type:
            chosen.append((kind, value))
    if listed is not None:
        chosen = chosen[:QUICK_INGREDIENTS]
    kinds = {k for k, _ in chosen}
    spices = sorted(q.spices, key=lambda s: (s not in kinds, s))[:QUICK_SPICES]
    tokens = {t: min(n, QUICK_TOKENS) if listed is not None else 0 for t, n in q.tokens.items()}
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

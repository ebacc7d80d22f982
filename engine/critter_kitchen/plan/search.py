"""The challenge-round planner: the legal meals that earn a player the most stars, as the engine scores them.

Every meal is judged by :func:`critter_kitchen.check_meal` and every plan is scored by
running the ruleset's stages on a game holding only this player and the plan's meals:
no rule of the game is written here. Each effort runs its search (:mod:`.efforts`: the exact
search of :mod:`.exact`, the fast one of :mod:`.quick`); :mod:`.exhaustive` is the reference
search the tests compare them with.
"""

from __future__ import annotations

from ..api import rule_parameters
from .efforts import ROUND_SEARCHES, search_for
from .plans import NODE_LIMIT, Plan, check_round
from .work import PLAN_BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .pantry import Question

__all__ = ["Plan", "folded", "plan_round", "token_room"]  # the plan it gives, from the planner's own types


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
    check_round(question)
    search = search_for(ROUND_SEARCHES, effort)
    asked = folded(question)
    plan = search(asked, limit, budget)
    if asked is question:
        return plan
    whole = Plan(question, plan.meals, plan.stars, False)  # what is left, of the whole pantry
    whole.nodes, whole.steps = plan.nodes, plan.steps
    return whole


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

"""A plan as JSON (the form INTERFACE.md fixes), as a game record fragment, and as text."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Ingredient
    from .critic import Keep
    from .plans import Plan, PlannedMeal


def _ingredient(ing: Ingredient) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ing.type, "value": ing.value}
    if ing.spices:
        out["spice"] = ing.spices[0] if len(ing.spices) == 1 else list(ing.spices)
    return out


def meal_record(meal: PlannedMeal) -> dict[str, Any]:
    """The meal in a game record's challenge-meal form."""
    return {"ingredients": [_ingredient(i) for i in meal.ingredients], **meal.tokens}


def left_json(plan: Plan) -> dict[str, Any]:
    return {
        "ingredients": [{"type": kind, "value": value} for kind, value in plan.left_ingredients],
        "spices": list(plan.left_spices),
        **plan.left_tokens,
    }


def keep_json(keep: Keep | None) -> dict[str, Any] | None:
    if keep is None:
        return None
    return {
        "ingredients": [{"type": kind, "value": value} for kind, value in keep.ingredients],
        "spices": list(keep.spices),
    }


def plan_json(plan: Plan, keep: Keep | None = None) -> dict[str, Any]:
    """``{"for", "optimal", "stars", "meals", "left", "keep"}``; ``keep`` is None when not
    planned (or the rules set no refrigeration limit); ``optimal`` covers it too."""
    meals = {cid: {**meal_record(m), "quality": m.quality, "stars": m.stars} for cid, m in plan.meals.items()}
    return {
        "for": plan.question.target,
        "optimal": plan.optimal and (keep is None or keep.optimal),
        "stars": plan.stars,
        "meals": meals,
        "left": left_json(plan),
        "keep": keep_json(keep),
    }


def plan_record(plan: Plan) -> dict[str, Any]:
    """The fragment to paste into a game record: ``challenge_meals: {ROUND: {NAME: {CARD: meal}}}``."""
    meals = {cid: meal_record(m) for cid, m in plan.meals.items()}
    return {"challenge_meals": {plan.question.target: {plan.question.name: meals}}}


def plan_text(plan: Plan, keep: Keep | None = None) -> str:
    q = plan.question
    lines = [
        f"{q.name}, {q.target}: {plan.stars} star{'s' if plan.stars != 1 else ''}"
        + ("" if plan.optimal else " (best found; the search stopped at its limit)")
    ]
    for card in q.challenges:
        meal = plan.meals.get(card.id)
        if meal is None:
            lines.append(f"  {card.name}: no meal")
            continue
        parts = [f"{i.type} {i.value}" + "".join(f" + {s} spice" for s in i.spices) for i in meal.ingredients]
        parts += [f"{n} {name}" for name, n in meal.tokens.items() if n]
        lines.append(
            f"  {card.name}: {', '.join(parts)} -> quality {meal.quality}, {meal.stars} star"
            + ("s" if meal.stars != 1 else "")
        )
    left = [f"{kind} {value}" for kind, value in plan.left_ingredients]
    left += [f"{s} spice" for s in plan.left_spices]
    left += [f"{n} {name}" for name, n in plan.left_tokens.items() if n]
    lines.append(f"  left: {', '.join(left) if left else 'nothing'}")
    if keep is not None:
        kept = [f"{kind} {value}" for kind, value in keep.ingredients] + [f"{s} spice" for s in keep.spices]
        note = "" if keep.optimal else " (not proved best)"
        lines.append(
            f"  keep: {', '.join(kept) if kept else 'nothing'} "
            f"(a critic meal of {keep.critic.stars} star{'s' if keep.critic.stars != 1 else ''} "
            f"from these alone){note}"
        )
    return "\n".join(lines)

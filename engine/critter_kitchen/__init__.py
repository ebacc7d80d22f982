"""Critter Kitchen scoring engine: card data in, a trustworthy score breakdown out."""

from __future__ import annotations

from .errors import CritterError, EvaluationError, InputError, Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .api import (
        check_course,
        check_critic_meal,
        check_meal,
        meal_rules,
        read_game,
        removable_cards,
        rule_parameters,
        score_record,
        score_without,
        score_without_meals,
    )
    from .loading.cached import load_ruleset
    from .model.game import Ingredient
    from .report.json import result_json
    from .stages.runner import Result

__version__ = "0.1.0"
__all__ = [
    "CritterError",
    "EvaluationError",
    "Ingredient",
    "InputError",
    "Problem",
    "Result",
    "check_course",
    "check_critic_meal",
    "check_meal",
    "load_ruleset",
    "meal_rules",
    "read_game",
    "removable_cards",
    "result_json",
    "rule_parameters",
    "score_record",
    "score_without",
    "score_without_meals",
    "__version__",
]

# Imported when first used: the command line starts faster without them.
_LAZY = {
    "score_record": ".api",
    "check_meal": ".api",
    "check_course": ".api",
    "check_critic_meal": ".api",
    "rule_parameters": ".api",
    "meal_rules": ".api",
    "score_without": ".api",
    "score_without_meals": ".api",
    "read_game": ".api",
    "removable_cards": ".api",
    "Ingredient": ".model.game",
    "load_ruleset": ".loading.cached",
    "result_json": ".report.json",
    "Result": ".stages.runner",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value

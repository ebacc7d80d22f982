"""The library's Python interface (``critter_kitchen`` and ``critter_kitchen.api``) is what a user
needs, each name of it exported and documented; the planner's facts of the meal rules are the
planner's (``critter_kitchen.plan.meal_facts``), not the interface's."""

from __future__ import annotations

import inspect

import critter_kitchen
from critter_kitchen import api


def test_every_public_function_of_the_api_is_exported_and_documented():
    public = sorted(
        name
        for name, value in vars(api).items()
        if inspect.isfunction(value) and value.__module__ == api.__name__ and not name.startswith("_")
    )
    assert public == sorted(api.__all__)
    for name in api.__all__:
        assert inspect.getdoc(getattr(api, name)), name


def test_the_package_exports_what_reading_and_rescoring_a_game_need():
    for name in ("read_game", "score_without", "score_without_meals", "removable_cards"):
        assert name in critter_kitchen.__all__
        assert getattr(critter_kitchen, name) is getattr(api, name)
    for name in critter_kitchen.__all__:
        assert getattr(critter_kitchen, name) is not None, name


def test_the_planners_facts_of_the_meal_rules_are_not_the_interfaces():
    for name in ("meal_types", "check_spices", "ingredient_quality", "exchangeable_tokens", "token_quality"):
        assert not hasattr(api, name), name

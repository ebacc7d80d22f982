"""The score path's quicker forms say what the plain rules say.

Award reasons are joined from their parts rather than formatted, bands are read from the
top, and the reader checks a critic course of a known type without making an ingredient:
each is compared here with the rule as first written.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import load_ruleset
from critter_kitchen.dsl.frame import Frame
from critter_kitchen.dsl.program import build
from critter_kitchen.dsl.registry import FUNCTIONS
from critter_kitchen.model.game import Game, Ingredient, Player
from critter_kitchen.model.meals import (
    course_kind_problem,
    course_problems,
    course_quality,
    course_spice_problem,
    ingredient_course_quality,
)

rules_once = cache(load_ruleset)


def _frame(slots: list[Any]) -> Frame:
    rules = rules_once()
    game = Game(rules, (Player("Ann", 0),), {}, {})
    frame = Frame(game, next(iter(rules.cards.values())), "tally", None, len(slots))
    frame.slots[:] = slots
    return frame


def test_a_reason_shows_each_part_as_text_and_keeps_braces() -> None:
    ann = Player("Ann", 0)
    frame = _frame([ann, 7, "fish", ("a", "b")])
    cases = [
        ((("const", "most {soup}"),), "most {soup}"),
        ((("const", "best "), ("slot", 2), ("const", " course {x}")), "best fish course {x}"),
        ((("slot", 0),), "Ann"),
        ((("slot", 1), ("const", "}")), "7}"),
        (
            (("const", "{"), ("slot", 0), ("const", ": "), ("slot", 1), ("const", " and "), ("slot", 2)),
            "{Ann: 7 and fish",
        ),
        ((("show", ("slot", 3)), ("const", "!"), ("slot", 0)), "a, b!Ann"),
        ((("const", "yes? "), ("show", ("const", True))), "yes? yes"),
        ((("arith", "+", ("slot", 1), ("const", 1)), ("const", " stars")), "8 stars"),
    ]
    for parts, expected in cases:
        assert build(("text", parts))(frame) == expected
        # what a "{}" format field of each shown value gives, the reasons' first form
        template = "".join(p[1].replace("{", "{{").replace("}", "}}") if p[0] == "const" else "{}" for p in parts)
        shown = [build(p)(frame) for p in parts if p[0] != "const"]
        assert template.format(*shown) == expected


bands = (
    st.lists(st.integers(-50, 200), min_size=1, max_size=14, unique=True)
    .map(sorted)
    .flatmap(
        lambda minima: st.tuples(
            st.just(minima), st.lists(st.integers(0, 20), min_size=len(minima), max_size=len(minima))
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(bands, st.integers(-100, 300))
def test_a_band_is_the_last_one_whose_minimum_is_reached(table: tuple[list[int], list[int]], x: int) -> None:
    minima, stars = table
    rows = [[m, s] for m, s in zip(minima, stars, strict=True)]
    plain = 0
    for minimum, band_stars in rows:
        if x >= minimum:
            plain = band_stars
    assert FUNCTIONS["band"].impl(_frame([]), x, rows) == plain


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["fish", "meat", "wine", "bread", "nope"]),
    st.integers(1, 10**7),
    st.lists(st.sampled_from(["fish", "meat", "allspice", "salt"]), max_size=3),
)
def test_a_course_checked_without_an_ingredient_is_judged_as_one(kind: str, value: int, spices: list[str]) -> None:
    rules = rules_once()
    params = rules.base_params()
    types = rules.ingredient_types
    served = Ingredient(kind, value, tuple(spices))
    wrong = course_kind_problem(kind, params) or course_spice_problem(kind, spices, params, types)
    assert ([wrong] if wrong is not None else []) == course_problems(kind, served, params, types)
    assert ingredient_course_quality(value, spices, params) == course_quality(served, params)

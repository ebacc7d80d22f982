"""The shipped base pack: its size, and that together its cards use the whole language."""

from __future__ import annotations

from collections import Counter

from critter_kitchen.dsl import nodes as n
from critter_kitchen.dsl.registry import AGGREGATES, FUNCTIONS, OPERATORS, STATEMENTS

# Functions that need a name a pack declares; the base game declares no counters.
NEEDS_PACK_DOMAIN = {"counter"}
# Functions no base card has a use for (no base challenge card has effects, no base card
# counts kinds of spice); tests/test_dsl_language.py runs each of them in a game.
SHOWN_BY_LANGUAGE_TESTS = {
    "this_card",
    "meal_card_id",
    "meals_for",
    "ingredients",
    "ingredient_type",
    "spices_on",
    "spice_types",
    "course_spices",
}

# What a player left unused: nothing in the base game scores it (RULES.md); the cards of
# tests/packs/leftovers read each of these (tests/test_leftovers.py).
LEFTOVERS = {"left_ingredients", "left_spices", "left_recorded", "ingredient_value"}


def test_base_pack_has_enough_cards_of_each_kind(base):
    kinds = Counter(c.kind for c in base.cards.values())
    assert kinds["challenge"] >= 12
    assert kinds["critic"] >= 6
    assert kinds["rumor"] >= 12
    assert kinds["restaurateur"] >= 6


def used_vocabulary(base):
    programs = [e.ast for c in base.cards.values() for e in c.effects]
    programs += [s.ast for s in base.stages]
    used: set[str] = set()
    for node in n.walk(tuple(programs)):
        if isinstance(node, (n.Call, n.Comprehension)):
            used.add(node.func)
        elif isinstance(node, n.Name):
            used.add(node.name)
        elif isinstance(node, n.Modify):
            used.add(node.op)
        elif isinstance(node, (n.BinOp, n.Compare, n.BoolOp)):
            used.add(node.op)
        elif isinstance(node, n.Contains):
            used.add("in")
        elif isinstance(node, n.Not):
            used.add("not")
        else:
            used.add(type(node).__name__.lower())
    return used


def test_cards_use_every_function_aggregate_statement_and_operator(base):
    wanted = (
        (set(FUNCTIONS) - NEEDS_PACK_DOMAIN - SHOWN_BY_LANGUAGE_TESTS - LEFTOVERS)
        | set(AGGREGATES)
        | set(OPERATORS)
        | set(STATEMENTS)
    )
    assert wanted - used_vocabulary(base) == set()


def test_base_pack_has_fanatics_replacements_and_owned_effects(base):
    rumors = [c for c in base.cards.values() if c.kind == "rumor"]
    fanatics = [c for c in rumors if any(isinstance(x, n.Modify) for e in c.effects for x in n.walk(e.ast))]
    assert len(fanatics) >= 3
    assert all(e.stage == "critic.rumors" for c in fanatics for e in c.effects)
    critics = [c for c in base.cards.values() if c.kind == "critic"]
    assert any(e.timing == "replace" for c in critics for e in c.effects)
    assert any(c.parameters for c in critics)
    owned = [c for c in base.cards.values() if c.kind == "restaurateur"]
    assert all(
        any(isinstance(x, n.Name) and x.name == "owner" for e in c.effects for x in n.walk(e.ast)) for c in owned
    )

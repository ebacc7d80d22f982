"""What a ruleset's games share, made once per ruleset (``Ruleset.derived``), against what it was
first worked out from; and the typed meal rules (``MealRules``) the reader makes once a game per
player, against the parameters they are read from and the reader's detailed checks."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import gen
import pytest
from hypothesis import HealthCheck, given, settings
from test_meal_rules import corpus, packs_for, read_both_ways
from test_rescore_is_scoring_without import random_record
from test_rescore_plan import every_pack

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.loading.files import load_data
from critter_kitchen.loading.records import ENGINE_PARAMETERS, PLAYER_KEYS, RecordReader, _ReaderFacts, read_record
from critter_kitchen.model.meals import MealRules, held_parameters, table_parameters
from critter_kitchen.model.ruleset import Ruleset
from critter_kitchen.stages import rescore
from critter_kitchen.stages.runner import score_game

# The typed fields of MealRules, each the rule parameter of its name (the flags as truth values).
FLAGS = ("hold_covers_last", "only_listed_types", "tokens_fill_courses")
VALUES = (
    "wild_spice",
    "min_real_ingredients",
    "tokens_per_missing_type",
    "token_values",
    "spice_factor",
    "spices_per_ingredient",
    "course_types",
    "course_spice_factor",
    "spices_per_course",
)


@pytest.fixture(scope="module")
def rulesets() -> dict[str, Ruleset]:
    return {name: load_ruleset(packs) for name, packs in every_pack().items()}


def facts_from_scratch(rs: Ruleset) -> dict[str, Any]:
    """What the reader knew of a ruleset as it first worked it out, per reader."""
    table, owned = {}, {}
    for kind, slot in rs.card_kinds.items():
        scope, _, field = slot.partition(".")
        if scope == "cards":
            table[field] = kind
        elif scope == "players":
            owned[field] = kind
    return {
        "table_fields": table,
        "owned_fields": owned,
        "types": frozenset(rs.ingredient_types),
        "player_keys": frozenset((*PLAYER_KEYS, *owned)),
    }


def test_the_readers_table_of_a_ruleset_is_what_it_was_first_worked_out_from(rulesets: dict[str, Ruleset]) -> None:
    for rs in rulesets.values():
        facts = rs.derived(_ReaderFacts)
        assert rs.derived(_ReaderFacts) is facts  # once per ruleset
        for name, value in facts_from_scratch(rs).items():
            assert getattr(facts, name) == value, name
        assert facts.counters == set(rs.counters)
        params = rs.parameters
        assert facts.rounds == tuple(params["challenge_rounds"].value)
        assert facts.per_round == params["challenges_per_round"].value
        for n in range(20):  # the plain players' first check, as it was written per game
            allowed = (
                params["min_players"].value <= n <= params["max_players"].value
                and params["min_automated"].value <= 0 <= params["max_automated"].value
            )
            assert (n in facts.plain_sizes) == allowed, n


def test_a_ruleset_that_allows_no_game_without_rivals_has_no_plain_players() -> None:
    rs = load_ruleset()
    rs.parameters["min_automated"].value = 1
    rs.changed()
    assert not rs.derived(_ReaderFacts).plain_sizes
    players = [{"name": n} for n in ("Ana", "Ben", "Cy")]
    assert RecordReader(rs, "game").plain_players(players) is None


def test_a_loaded_ruleset_has_no_table_yet_and_a_copy_or_pickle_makes_its_own() -> None:
    """The loader makes no table (so none was made before its last change); a ruleset from the
    cache, a copy and a pickled copy make their own when first read."""
    for packs in every_pack().values():
        assert not load_ruleset(packs)._derived
    rs = load_ruleset()
    score_game(read_record(rs, gen_record(), "g"))
    made = dict(rs._derived)
    assert set(made) >= {_ReaderFacts}
    for other in (copy.copy(rs), pickle.loads(pickle.dumps(rs))):
        assert not other._derived
        score_game(read_record(other, gen_record(), "g"))
        assert other.derived(_ReaderFacts) is not made[_ReaderFacts]
    assert rs._derived == made  # the copies left the original's alone


def test_a_ruleset_changed_in_place_and_said_so_makes_every_table_again() -> None:
    rs = load_ruleset()
    read_record(rs, gen_record(), "g")
    facts, scoring, marks = rs.derived(_ReaderFacts), rs.scoring(), rs.derived(rescore._RulesetMarks)
    rs.counters = (*rs.counters, "extra")
    rs.stages = rs.stages[:-1]
    rs.changed()
    assert rs.derived(_ReaderFacts) is not facts and "extra" in rs.derived(_ReaderFacts).counters
    assert rs.scoring() is not scoring
    assert rs.derived(rescore._RulesetMarks).end == marks.end - rescore.POINTS


def gen_record() -> dict[str, Any]:
    return random_record(load_ruleset(), random.Random("tables"))


# typed meal rules


def assert_rules_of(rules: MealRules, params: dict[str, Any]) -> None:
    assert rules.params is params
    for name in FLAGS:
        assert getattr(rules, name) is bool(params[name]), name
    for name in VALUES:
        assert getattr(rules, name) == params[name], name
    assert rules.course_set == set(params["course_types"])


def test_the_typed_fields_are_rule_parameters_the_engine_declares() -> None:
    for name in (*FLAGS, *VALUES):
        assert name in ENGINE_PARAMETERS
    fields = getattr(MealRules, "__mypyc_attrs__", None) or vars(MealRules(load_ruleset().base_params()))
    assert set(fields) - {"__dict__", "__weakref__"} == {"params", "cards", "course_set", *FLAGS, *VALUES}


def check_game_rules(rs: Ruleset, data: dict[str, Any]) -> None:
    """Read ``data``: each player's typed rules are those of the player's parameters, one
    shared by everyone whose held cards change none; and the reader agrees with its detailed
    checks (which ask the rules of each parameter mapping afresh)."""
    reader = RecordReader(rs, "game")
    try:
        game = reader.read(copy.deepcopy(data))
    except InputError:
        game = None
    if game is not None:
        table = table_parameters(rs, game.table_cards)
        assert game.params == table
        for player in game.players:
            params = reader.player_params[player]
            assert params == held_parameters(table, player.owned)
            assert_rules_of(reader.player_rules[player], params)
        at_table = [reader.player_rules[p] for p in game.players if reader.player_params[p] is game.params]
        assert all(rules is at_table[0] for rules in at_table)  # made once for all of them
    read_both_ways(rs, data)


def test_every_golden_game_reads_with_the_typed_rules_as_with_the_mapping_ones() -> None:
    read = 0
    for path in corpus():
        try:
            data = load_data(str(path), path.name)
        except InputError:
            continue
        if not isinstance(data, dict) or "players" not in data:
            continue
        check_game_rules(load_ruleset(packs_for(path)), data)
        read += 1
    assert read >= 25


def test_random_games_of_every_pack_read_with_the_typed_rules_as_with_the_mapping_ones(
    rulesets: dict[str, Ruleset],
) -> None:
    for name, rs in rulesets.items():
        rng = random.Random(f"typed-{name}")
        for _ in range(15):
            check_game_rules(rs, random_record(rs, rng))


HOLDER = "spice-merchant"


@pytest.fixture(scope="module")
def held_rules() -> Ruleset:
    """The base rules, but the Spice Merchant's holder reads meals under rules of its own."""
    rules = load_ruleset()
    rules.cards[HOLDER].parameters = {"spices_per_course": 2, "tokens_per_missing_type": 2, "spice_factor": 3}
    return rules


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=gen.full_games())
def test_random_full_games_under_a_held_card_read_with_the_typed_rules_as_with_the_mapping_ones(
    held_rules: Ruleset, data: dict[str, Any]
) -> None:
    data["players"][0].pop("restaurateur", None)
    for entry in data["players"][1:]:
        if entry.get("restaurateur") == HOLDER:
            entry.pop("restaurateur")
    data["players"][0]["restaurateur"] = HOLDER
    check_game_rules(held_rules, data)
    reader = RecordReader(held_rules, "game")
    try:
        game = reader.read(copy.deepcopy(data))
    except InputError:
        return
    first, *others = game.players
    assert reader.player_rules[first].spice_factor == 3
    assert all(reader.player_rules[p].spice_factor != 3 for p in others)


def test_the_rules_of_a_mapping_are_asked_of_its_typed_rules() -> None:
    """Each function of a parameter mapping answers as the typed rules made from it do, on
    legal and illegal meals and courses (the same names: one definition of each rule)."""
    from critter_kitchen.model import meals

    rs = load_ruleset()
    rng = random.Random("mapping")
    types = rs.ingredient_types
    for _ in range(30):
        game = read_record(rs, random_record(rs, rng), "g")
        params = game.params
        rules = MealRules(params)
        for rnd, served in game.meals.items():
            for meal in served:
                held = game.challenges[rnd][-1] is meal.card
                fewer = meal.ingredients[1:]
                tokens = {**meal.tokens, "mystery": 1} if rng.random() < 0.3 else meal.tokens
                for ingredients in (meal.ingredients, fewer):
                    assert meals.served_meal_problems(
                        meal.card, ingredients, tokens, params, held, types
                    ) == rules.served_meal_problems(meal.card, ingredients, tokens, held, types)
                    assert meals.legality_problems(
                        meal.card, ingredients, meal.tokens, params, held
                    ) == rules.legality_problems(meal.card, ingredients, meal.tokens, held)
                assert meals.meal_quality(meal.ingredients, meal.tokens, params) == meal.quality
                assert rules.meal_quality(meal.ingredients, meal.tokens) == meal.quality
        for player in game.players:
            for kind, course in player.courses.items():
                assert meals.course_kind_problem(kind, params) == rules.course_kind_problem(kind)
                spices = (*course.spices, "pepper")
                assert meals.course_spice_problem(kind, spices, params, types) == rules.course_spice_problem(
                    kind, spices, types
                )

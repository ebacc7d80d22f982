"""The meal rules, written once (model/meals.py): repeated requirements, the public checks,
the card text's rule wording, and the record reader's fast paths against its detailed checks."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import gen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from critter_kitchen import (
    CritterError,
    Ingredient,
    InputError,
    check_course,
    check_meal,
    load_ruleset,
    meal_rules,
    rule_parameters,
)
from critter_kitchen.loading.files import load_data
from critter_kitchen.loading.records import RecordReader
from critter_kitchen.model.game import Game
from critter_kitchen.model.ruleset import Ruleset
from critter_kitchen.report.cards import card_text

ROOT = Path(__file__).resolve().parent.parent
REPEATED = ROOT / "tests" / "packs" / "repeated"
NO_HOLD = ROOT / "tests" / "packs" / "no-hold"
PLATTER = "test-fish-platter"  # requires fish, fish, cheese, bread
PIE = "test-fish-pie"  # requires cheese, fish, fish
AT_PLATTER, AT_PIE = f"challenge_meals.round3.Ana.{PLATTER}", f"challenge_meals.round3.Ana.{PIE}"


@pytest.fixture(scope="module")
def repeated() -> Ruleset:
    return load_ruleset([REPEATED])


@pytest.fixture(scope="module")
def no_hold() -> Ruleset:
    return load_ruleset([REPEATED, NO_HOLD])


def record(meal: dict[str, Any], card: str = PLATTER, held: bool = False) -> dict[str, Any]:
    """A two-player game in which Ana serves ``meal`` for ``card`` in round 3 (the day's last
    card, under the Hold token, when ``held``)."""
    others = ["harbor-stew", "garden-gratin"]
    round3 = [*others, card] if held else [card, *others]
    return {
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {"challenges": {"round3": round3, "round6": ["braised-shank", "farmhouse-pie", "forest-risotto"]}},
        "challenge_meals": {"round3": {"Ana": {card: meal}}},
    }


def served(*kinds: str, **tokens: int) -> dict[str, Any]:
    """A meal of one value-3 ingredient of each kind, and these tokens."""
    return {"ingredients": [{"type": kind, "value": 3} for kind in kinds], **tokens}


def problems(ruleset: Ruleset, data: dict[str, Any]) -> list[tuple[str, str, str]]:
    try:
        RecordReader(ruleset, "game.yaml").read(data)
    except InputError as e:
        return [(p.where, p.message, p.code) for p in e.problems]
    return []


def quality(ruleset: Ruleset, data: dict[str, Any]) -> int:
    game = RecordReader(ruleset, "game.yaml").read(data)
    return game.meals["round3"][0].quality


# Repeated requirements: each printed requirement is a slot


def test_second_fish_slot_is_filled_by_a_token(repeated: Ruleset) -> None:
    assert quality(repeated, record(served("fish", "cheese", "bread", soup=1))) == 10


def test_second_fish_slot_is_not_waived(repeated: Ruleset) -> None:
    assert problems(repeated, record(served("fish", "cheese", "bread"))) == [
        (
            f"challenge_meals.round3.Ana.{PLATTER}",
            "missing 1 of 2 fish: 1 soup or bisque needed to fill, 0 given",
            "CK302",
        )
    ]


def test_two_fish_cover_both_slots(repeated: Ruleset) -> None:
    assert quality(repeated, record(served("fish", "fish", "cheese", "bread"))) == 12


def test_no_fish_needs_a_token_for_each_fish_slot(repeated: Ruleset) -> None:
    assert problems(repeated, record(served("cheese", "bread", soup=1))) == [
        (
            f"challenge_meals.round3.Ana.{PLATTER}",
            "missing 2 of 2 fish: 2 soup or bisque needed to fill, 1 given",
            "CK302",
        )
    ]
    assert quality(repeated, record(served("cheese", "bread", soup=1, bisque=1))) == 10


def test_hold_token_covers_the_rightmost_slot_only(repeated: Ruleset) -> None:
    # cheese, fish, fish with the Hold token on the last fish: one fish slot is left.
    assert quality(repeated, record(served("cheese", "fish"), PIE, held=True)) == 6
    assert quality(repeated, record(served("cheese", soup=1), PIE, held=True)) == 4
    assert problems(repeated, record(served("cheese"), PIE, held=True)) == [
        (AT_PIE, "missing fish: 1 soup or bisque needed to fill, 0 given", "CK302")
    ]
    # fish, fish, cheese, bread with the Hold token on bread: bread is no longer listed.
    assert problems(repeated, record(served("fish", "fish", "cheese", "bread"), PLATTER, held=True)) == [
        (
            f"challenge_meals.round3.Ana.{PLATTER}",
            "bread is not listed on Test Fish Platter (fish, fish, cheese)",
            "CK302",
        )
    ]


def test_without_the_hold_token_every_slot_is_required(no_hold: Ruleset) -> None:
    assert problems(no_hold, record(served("cheese", "fish"), PIE, held=True)) == [
        (AT_PIE, "missing 1 of 2 fish: 1 soup or bisque needed to fill, 0 given", "CK302")
    ]


# The public checks


@pytest.mark.parametrize("read_once", [False, True], ids=["params", "meal_rules"])
def test_check_meal_legal_and_illegal(repeated: Ruleset, read_once: bool) -> None:
    card = repeated.cards[PLATTER]
    params = meal_rules(rule_parameters(repeated)) if read_once else rule_parameters(repeated)
    fish, cheese, bread = Ingredient("fish", 5, ("fish",)), Ingredient("cheese", 2), Ingredient("bread", 4)
    assert check_meal(repeated, card, [fish, cheese, bread], {"bisque": 1}, params) == ([], 19)
    assert check_meal(repeated, card, [fish, cheese, bread], {}, params) == (
        ["missing 1 of 2 fish: 1 soup or bisque needed to fill, 0 given"],
        0,
    )
    wrong_spice = Ingredient("cheese", 2, ("fish",))
    assert check_meal(repeated, card, [fish, wrong_spice, bread], {"broth": 1, "soup": 1}, params) == (
        [
            "unknown token 'broth'",
            "cheese 2: fish spice does not match cheese; use cheese or allspice",
        ],
        0,
    )
    # On the day's last card the Hold token covers bread.
    assert check_meal(repeated, card, [fish, fish, cheese], {}, params, held=True) == ([], 22)


@pytest.mark.parametrize("read_once", [False, True], ids=["params", "meal_rules"])
def test_check_meal_reads_the_players_parameters(repeated: Ruleset, read_once: bool) -> None:
    card = repeated.cards[PLATTER]
    changed = {**rule_parameters(repeated), "tokens_per_missing_type": 2}
    params = meal_rules(changed) if read_once else changed
    meal = [Ingredient("fish", 1), Ingredient("cheese", 1), Ingredient("bread", 1)]
    assert check_meal(repeated, card, meal, {"soup": 1}, params)[0] == [
        "missing 1 of 2 fish: 2 soup or bisque needed to fill, 1 given"
    ]


def test_rule_parameters_apply_cards_in_play_then_held(repeated: Ruleset) -> None:
    changing = [c for c in repeated.cards.values() if c.parameters]
    assert changing, "the base pack has a card that changes parameters"
    card = changing[0]
    assert rule_parameters(repeated, held=[card]) == {**repeated.base_params(), **card.parameters}


def test_check_course_legal_and_illegal(repeated: Ruleset) -> None:
    params = rule_parameters(repeated)
    assert check_course(repeated, "fish", Ingredient("fish", 4, ("allspice",)), params) == ([], 8)
    assert check_course(repeated, "fish", Ingredient("fish", 4, ("fish", "fish")), params) == (
        ["2 spices on one ingredient; at most 1 allowed"],
        0,
    )
    assert check_course(repeated, "fish", "soup", params) == (["soup cannot fill a critic course"], 0)
    assert check_course(repeated, "fish", "soup", {**params, "tokens_fill_courses": True}) == ([], 1)
    assert check_course(repeated, "tofu", Ingredient("tofu", 4), params) == (["unknown course 'tofu'"], 0)
    assert check_course(repeated, "fish", Ingredient("meat", 4), params) == (
        ["a meat ingredient cannot be the fish course"],
        0,
    )


def test_parameters_lacking_one_the_meal_rules_read_are_refused_by_name(repeated: Ruleset) -> None:
    params = dict(rule_parameters(repeated))
    del params["spice_factor"]
    expected = (
        "the meal rules read the rule parameter 'spice_factor', which these parameters lack: "
        "read them with critter_kitchen.rule_parameters"
    )
    with pytest.raises(CritterError) as raised:
        check_meal(repeated, repeated.cards[PIE], [Ingredient("fish", 3)], {}, params)
    assert str(raised.value) == expected
    with pytest.raises(CritterError, match="'spice_factor'"):
        meal_rules(params)


# The cards text's rule wording comes from the parameters in play


def test_card_text_mentions_the_hold_token_only_when_it_is_used(repeated: Ruleset, no_hold: Ruleset) -> None:
    with_hold = card_text(repeated.cards[PIE], repeated).splitlines()[-1]
    without = card_text(no_hold.cards[PIE], no_hold).splitlines()[-1]
    assert with_hold == (
        "Requires: cheese, fish, fish "
        "(left to right; a type listed twice is two requirements; the Hold token covers the last)"
    )
    assert without == "Requires: cheese, fish, fish (left to right; a type listed twice is two requirements)"
    assert card_text(no_hold.cards["harbor-stew"], no_hold).splitlines()[-1].endswith("(left to right)")


# Fast paths off: the same games and the same problems


def field_names(obj: Any) -> list[str]:
    """An object's fields: its slots or its ``__dict__``, or in the compiled build (whose
    classes have neither) the list mypyc keeps of them."""
    compiled = getattr(type(obj), "__mypyc_attrs__", None)
    if compiled is not None:
        return [name for name in compiled if name != "__dict__"]
    slots = getattr(type(obj), "__slots__", None)
    return list(slots) if slots is not None else list(vars(obj))


def snapshot(game: Game) -> dict[str, Any]:
    """Every field of a read game, as plain data (players named, cards by id)."""

    def player(p: Any) -> dict[str, Any]:
        out = {name: getattr(p, name) for name in field_names(p) if name not in ("owned", "courses")}
        out["owned"] = [c.id for c in p.owned]
        out["courses"] = {k: [getattr(c, n) for n in field_names(c)] for k, c in p.courses.items()}
        out["course_order"] = list(p.courses)
        return out

    def meal(m: Any) -> dict[str, Any]:
        return {
            "round": m.round,
            "card": m.card.id,
            "player": m.player.name,
            "ingredients": m.ingredients,
            "tokens": m.tokens,
            "token_order": list(m.tokens),
            "quality": m.quality,
        }

    fields = {name: getattr(game, name) for name in field_names(game)}
    assert fields.pop("ruleset") is game.ruleset
    return {
        **fields,
        "players": [player(p) for p in game.players],
        "rivals": [player(p) for p in game.rivals],
        "meals": {rnd: [meal(m) for m in meals] for rnd, meals in game.meals.items()},
        "challenges": {rnd: [c.id for c in cards] for rnd, cards in game.challenges.items()},
        "table_cards": [c.id for c in game.table_cards],
    }


def read_both_ways(ruleset: Ruleset, data: Any) -> None:
    """Read ``data`` with the fast paths and without: the games, or the problems, must agree."""
    outcomes = []
    for plain in (True, False):
        try:
            outcomes.append(snapshot(RecordReader(ruleset, "game", plain=plain).read(copy.deepcopy(data))))
        except InputError as e:
            outcomes.append(e.problems)
    assert outcomes[0] == outcomes[1]


def corpus() -> list[Path]:
    folders = [ROOT / "tests" / "records", ROOT / "tests" / "golden", ROOT / "examples"]
    return sorted(p for folder in folders for p in folder.rglob("*") if p.suffix in (".yaml", ".json"))


def packs_for(path: Path) -> list[Path]:
    """The packs a corpus record is scored with: from the nearest packs.txt up its folders."""
    for folder in path.parents:
        listing = folder / "packs.txt"
        if listing.is_file():
            return [ROOT / line.strip() for line in listing.read_text().splitlines() if line.strip()]
        if folder == ROOT:
            break
    return []


def test_corpus_reads_the_same_without_fast_paths() -> None:
    read = 0
    for path in corpus():
        try:
            data = load_data(str(path), path.name)
        except InputError:
            continue  # does not parse: never reaches the reader
        if not isinstance(data, dict) or "players" not in data:
            continue  # an expected output, not a record
        read_both_ways(load_ruleset(packs_for(path)), data)
        read += 1
    assert read >= 25


ODD_VALUES = [None, 0, -1, 1, 2, 1.5, True, "", "fish", "allspice", "soup", "x", [], {}, ["fish", "fish"], {"x": 1}]


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths to every value inside ``value`` (mappings and lists included)."""
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += leaves(item, (*path, i))
    return out


def varied(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of ``data`` with a value or two somewhere changed to an odd one, or a key added."""
    data = copy.deepcopy(data)
    for _ in range(rng.choice([1, 1, 2])):
        path = rng.choice(leaves(data)[1:])
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        # a copy of the odd value: a shared {} or [] changed by the next change could hold itself
        odd = copy.deepcopy(rng.choice(ODD_VALUES))
        if isinstance(parent[path[-1]], dict) and rng.random() < 0.5:
            parent[path[-1]][rng.choice(["soup", "spice", "x", "fish", "token", "value"])] = odd
        else:
            parent[path[-1]] = odd
    return data


@pytest.fixture(scope="module")
def base() -> Ruleset:
    return load_ruleset()


VARIANTS = 19  # odd copies read per random legal game: more games, little more generating


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=gen.full_games(), seed=st.integers(0, 2**32))
def test_random_games_read_the_same_without_fast_paths(base: Ruleset, data: dict[str, Any], seed: int) -> None:
    read_both_ways(base, data)
    rng = random.Random(seed)
    for _ in range(VARIANTS):
        read_both_ways(base, varied(data, rng))

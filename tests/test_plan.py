"""The meal planner: brute force over every assignment agrees with it, and its plans score as planned."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from critter_kitchen import Ingredient, InputError, check_meal, rule_parameters, score_record
from critter_kitchen.loading.yamlpos import parse
from critter_kitchen.model.ruleset import WILD_SLOT
from critter_kitchen.plan import question
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.output import plan_json, plan_record, plan_text
from critter_kitchen.plan.search import plan_round

BASE_CHALLENGES = ["harbor-stew", "garden-gratin", "farmhouse-pie", "forest-risotto", "sunday-roast", "toasted-cheese"]
ALC_CHALLENGES = ["tofu-stir-fry", "market-breakfast", "street-skewers", "garden-gratin", "sunday-roast", "harbor-stew"]


def random_pantry(rng: random.Random, ruleset, challenges: list[str], packs: list[str], held: tuple = ()) -> dict:
    """A small pantry for round3: up to 3 ingredients of the cards' types, a spice, a soup and a bisque."""
    cards = rng.sample(challenges, 3)
    kinds = sorted({k for c in cards for k in ruleset.cards[c].requires})
    if WILD_SLOT in kinds:  # a wildcard slot takes any type
        kinds = sorted(ruleset.ingredient_types)
    ingredients = [{"type": rng.choice(kinds), "value": rng.randint(1, 8)} for _ in range(rng.randint(1, 3))]
    spices = [rng.choice([*kinds, "allspice"]) for _ in range(rng.randint(0, 1))]
    pantry = {
        "for": "round3",
        "cards": {"challenges": {"round3": cards}},
        "player": {"name": "Ana", **({"restaurateur": rng.choice(held)} if held and rng.random() < 0.7 else {})},
        "pantry": {
            "ingredients": ingredients,
            "spices": spices,
            "soup": rng.randint(0, 2),
            "bisque": rng.randint(0, 1),
        },
    }
    if packs:
        pantry["packs"] = packs
    return pantry


def game_record(pantry: dict, challenges: list[str], meals: dict) -> dict:
    """A two-player game record with Ana's meals for round3 (the second player serves none)."""
    round3 = pantry["cards"]["challenges"]["round3"]
    round6 = [c for c in challenges if c not in round3][:3]
    record = {
        "players": [pantry["player"], {"name": "Bo"}],
        "cards": {**pantry["cards"], "challenges": {"round3": round3, "round6": round6}},
        "challenge_meals": {"round3": {"Ana": meals}},
    }
    if "packs" in pantry:
        record["packs"] = pantry["packs"]
    return record


def ana_stars(record: dict, ruleset) -> int:
    result = score_record(record, ruleset)
    return sum(a.stars for a in result.awards if a.player == "Ana")


def brute_force(pantry: dict, ruleset, challenges: list[str]) -> tuple[int, int, int, int]:
    """The best (stars, unused value, -tokens spent, spices left) over every assignment of each item
    to a card or to none."""
    cards = [ruleset.cards[c] for c in pantry["cards"]["challenges"]["round3"]]
    # the cards in play for Ana: their parameters, and their meal constraints (check_meal applies them);
    # a card's own parameters for its meals
    table = [ruleset.cards[c] for c in pantry["cards"].get("rumors", [])]
    owned = [ruleset.cards[pantry["player"]["restaurateur"]]] if "restaurateur" in pantry["player"] else []
    params = [rule_parameters(ruleset, table, owned, card) for card in cards]
    items = pantry["pantry"]
    ingredients = [(i["type"], i["value"]) for i in items["ingredients"]]
    spices = items["spices"]
    legal: dict = {}
    scored: dict = {}
    best = None
    token_splits = {
        name: [s for s in itertools.product(range(items[name] + 1), repeat=3) if sum(s) <= items[name]]
        for name in ("soup", "bisque")
    }
    for where in itertools.product(range(4), repeat=len(ingredients)):  # 3: unused
        for spice_on in itertools.product(range(len(ingredients) + 1), repeat=len(spices)):
            spiced = [
                Ingredient(kind, value, tuple(s for s, on in zip(spices, spice_on, strict=True) if on == i))
                for i, (kind, value) in enumerate(ingredients)
            ]
            if any(on < len(ingredients) and where[on] == 3 for on in spice_on):
                continue  # a spice on an unused ingredient is simply an unused spice
            for soup, bisque in itertools.product(token_splits["soup"], token_splits["bisque"]):
                meals = {}
                ok = True
                for c, card in enumerate(cards):
                    served = [spiced[i] for i in range(len(ingredients)) if where[i] == c]
                    tokens = {"soup": soup[c], "bisque": bisque[c]}
                    if not served and not any(tokens.values()):
                        continue
                    key = (c, tuple((i.type, i.value, i.spices) for i in served), soup[c], bisque[c])
                    if key not in legal:
                        in_play = (*table, *owned)
                        problems, _ = check_meal(ruleset, card, served, tokens, params[c], held=c == 2, cards=in_play)
                        legal[key] = not problems
                    if not legal[key]:
                        ok = False
                        break
                    meals[card.id] = {
                        "ingredients": [
                            {"type": i.type, "value": i.value, **({"spice": i.spices[0]} if i.spices else {})}
                            for i in served
                        ],
                        **tokens,
                    }
                if not ok:
                    continue
                text = json.dumps(meals, sort_keys=True)
                if text not in scored:
                    scored[text] = ana_stars(game_record(pantry, challenges, meals), ruleset)
                unused = sum(v for (_, v), w in zip(ingredients, where, strict=True) if w == 3)
                spices_left = sum(1 for on in spice_on if on == len(ingredients))
                key3 = (scored[text], unused, -(sum(soup) + sum(bisque)), spices_left)
                best = key3 if best is None or key3 > best else best
    assert best is not None
    return best


def planned(pantry: dict, ruleset, challenges: list[str]) -> tuple[tuple[int, int, int, int], dict]:
    plan = plan_round(question(pantry, ruleset))
    assert plan.optimal
    record = game_record(pantry, challenges, plan_record(plan)["challenge_meals"]["round3"]["Ana"])
    # The plan is legal as a game record (score_record raises on any illegal meal) and scores as planned.
    assert ana_stars(record, ruleset) - ana_stars(game_record(pantry, challenges, {}), ruleset) == plan.stars
    return (plan.stars, plan.unused_value, -plan.tokens_spent, len(plan.left_spices)), plan_json(plan)


@pytest.mark.parametrize("seed", range(40))
def test_base_planner_equals_brute_force(base, seed):
    pantry = random_pantry(random.Random(seed), base, BASE_CHALLENGES, [])
    got, _ = planned(pantry, base, BASE_CHALLENGES)
    assert got == brute_force(pantry, base, BASE_CHALLENGES)


RESTAURATEURS = ("harbor-master", "spice-merchant", "the-collector", "the-forager", "grand-caterer", "lucky-cat")
REPEATED_CHALLENGES = [
    "test-fish-pie",
    "test-fish-platter",
    "river-chowder",
    "harbor-stew",
    "garden-gratin",
    "toasted-cheese",
]


@pytest.mark.parametrize("seed", range(30))
def test_planner_equals_brute_force_with_restaurateurs(base, seed):
    pantry = random_pantry(random.Random(500 + seed), base, BASE_CHALLENGES, [], RESTAURATEURS)
    got, _ = planned(pantry, base, BASE_CHALLENGES)
    assert got == brute_force(pantry, base, BASE_CHALLENGES)


@pytest.mark.parametrize("seed", range(20))
def test_planner_equals_brute_force_with_repeated_requirements_and_no_hold(repeated_no_hold, seed):
    rules = repeated_no_hold
    pantry = random_pantry(random.Random(2000 + seed), rules, REPEATED_CHALLENGES, [], RESTAURATEURS)
    got, _ = planned(pantry, rules, REPEATED_CHALLENGES)
    assert got == brute_force(pantry, rules, REPEATED_CHALLENGES)


@pytest.mark.parametrize("seed", range(25))
def test_a_la_carte_planner_equals_brute_force(alc, seed):
    pantry = random_pantry(random.Random(1000 + seed), alc, ALC_CHALLENGES, ["a-la-carte"])
    got, _ = planned(pantry, alc, ALC_CHALLENGES)
    assert got == brute_force(pantry, alc, ALC_CHALLENGES)


# Meal constraints (tests/packs/constraints): a challenge card's own (at most three ingredients),
# a rumor's (no meal above quality 20), a restaurateur's for its owner (no wine; no spice), and a
# wildcard card with different types; the brute force judges each meal with the cards in play.
CONSTRAINED_CHALLENGES = [
    "test-light-lunch",
    "test-odd-couple",
    "harbor-stew",
    "garden-gratin",
    "farmhouse-pie",
    "toasted-cheese",
]
CONSTRAINED_HELD = ("test-teetotaller", "test-plain-cooking", "harbor-master", "spice-merchant")


@pytest.mark.parametrize("seed", range(30))
def test_planner_equals_brute_force_with_meal_constraints(constraints, seed):
    rng = random.Random(5000 + seed)
    pantry = random_pantry(rng, constraints, CONSTRAINED_CHALLENGES, [], CONSTRAINED_HELD)
    if rng.random() < 0.5:
        pantry["cards"]["rumors"] = ["test-modest-portions"]
    got, _ = planned(pantry, constraints, CONSTRAINED_CHALLENGES)
    assert got == brute_force(pantry, constraints, CONSTRAINED_CHALLENGES)


SLOT_CHALLENGES = [
    "test-any-two-different",
    "test-cheese-and-another",
    "test-fish-and-any",
    "test-any",
    "test-any-fish-any",
    "harbor-stew",
]


@pytest.mark.parametrize("seed", range(20))
def test_planner_equals_brute_force_with_slot_cards(slots, slots_loose, seed):
    rules = slots if seed % 2 else slots_loose  # wildcards and different types, under two sets of meal rules
    pantry = random_pantry(random.Random(7000 + seed), rules, SLOT_CHALLENGES, [])
    got, _ = planned(pantry, rules, SLOT_CHALLENGES)
    assert got == brute_force(pantry, rules, SLOT_CHALLENGES)


@pytest.mark.parametrize("seed", range(20))
def test_critic_planner_equals_brute_force_with_meal_constraints(constraints, seed):
    rng = random.Random(6000 + seed)
    pantry = random_critic_pantry(rng, constraints, [])
    pantry["cards"]["critic"] = rng.choice(["test-minimalist", "madame-bouillon"])
    if rng.random() < 0.7:
        pantry["cards"]["rumors"] = ["test-short-menu"]
    if rng.random() < 0.5:
        pantry["player"] = {"name": "Ana", "restaurateur": "test-teetotaller"}
        pantry["pantry"]["ingredients"].append({"type": "wine", "value": 9})
    expected = critic_brute_force(pantry, constraints, CONSTRAINED_CHALLENGES)
    assert critic_planned(pantry, constraints, CONSTRAINED_CHALLENGES) == expected


COMPOSING_CHALLENGES = [
    "royal-banquet",
    "fiery-curry",
    "twice-spiced-skewers",
    "sunday-roast",
    "garden-gratin",
    "toasted-cheese",
]


@pytest.mark.parametrize("seed", range(30))
def test_planner_equals_brute_force_with_cards_of_their_own_parameters(composing, seed):
    """Challenge cards with their own bands, spice factor and spices per ingredient (tests/packs/composing):
    the planner plans each card's meals under its own parameters, as scoring reads them."""
    rng = random.Random(3000 + seed)
    pantry = random_pantry(rng, composing, COMPOSING_CHALLENGES, [], ("the-baker",))
    kinds = sorted({k for c in pantry["cards"]["challenges"]["round3"] for k in composing.cards[c].requires})
    pantry["pantry"]["spices"] = [rng.choice([*kinds, "allspice"]) for _ in range(rng.randint(0, 2))]
    got, _ = planned(pantry, composing, COMPOSING_CHALLENGES)
    assert got == brute_force(pantry, composing, COMPOSING_CHALLENGES)


WORKED = """\
for: round3
cards:
  challenges: {round3: [harbor-stew, forest-risotto, farmhouse-pie]}
player: {name: Ana}
pantry:
  ingredients: [{type: carrot, value: 5}, {type: fish, value: 3}, {type: mushroom, value: 4}, {type: cheese, value: 6}]
  spices: [carrot, allspice]
  soup: 2
  bisque: 1
"""


def test_worked_example(base):
    plan = plan_round(question(parse("ana.yaml", WORKED).data, base))
    assert plan_json(plan) == {
        "for": "round3",
        "optimal": True,
        "stars": 4,
        "meals": {
            "harbor-stew": {
                "ingredients": [
                    {"type": "carrot", "value": 5, "spice": "carrot"},
                    {"type": "fish", "value": 3, "spice": "allspice"},
                ],
                "soup": 2,
                "bisque": 1,
                "quality": 21,
                "stars": 4,
            },
        },
        "left": {
            "ingredients": [{"type": "mushroom", "value": 4}, {"type": "cheese", "value": 6}],
            "spices": [],
            "soup": 0,
            "bisque": 0,
        },
        "keep": None,
    }
    assert plan_text(plan) == (
        "Ana, round3: 4 stars\n"
        "  Harbor Stew: carrot 5 + carrot spice, fish 3 + allspice spice, 2 soup, 1 bisque -> quality 21, 4 stars\n"
        "  Forest Risotto: no meal\n"
        "  Farmhouse Pie: no meal\n"
        "  left: mushroom 4, cheese 6"
    )


def problems_of(text: str, ruleset) -> list[str]:
    with pytest.raises(InputError) as e:
        question(parse("p.yaml", text).data, ruleset, source="p.yaml", document=parse("p.yaml", text))
    return [p.format() for p in e.value.problems]


def test_pantry_problems_are_located(base):
    text = WORKED.replace("{type: fish, value: 3}", "{type: fsh, value: 0, colour: red}").replace(
        "[carrot, allspice]", "[carrot, nutmeg]"
    )
    assert problems_of(text + "extra: 1\n", base) == [
        "p.yaml:10:1: extra: unknown key 'extra'",
        "p.yaml:6:65: pantry.ingredients[1].colour: unknown key 'colour'",
        "p.yaml:6:50: pantry.ingredients[1].type: unknown ingredient type 'fsh'; did you mean 'fish'?",
        "p.yaml:6:62: pantry.ingredients[1].value: expected a positive whole number up to 1000000, got 0",
        "p.yaml:7:20: pantry.spices[1]: unknown spice 'nutmeg'",
    ]


def test_pantry_cards_and_round_are_checked(base):
    text = WORKED.replace("for: round3", "for: round4")
    assert problems_of(text, base) == ["p.yaml:1:6: for: expected one of round3, round6, critic, got 'round4'"]
    text = WORKED.replace("farmhouse-pie]", "farmhouse-pie, sunday-roast]").replace(
        "{name: Ana}", "{name: Ana, restaurateur: harbour-master}"
    )
    assert problems_of(text, base) == [
        "p.yaml:3:24: cards.challenges.round3: 4 challenge cards; each challenge round reveals 3",
        "p.yaml:4:35: player.restaurateur: unknown restaurateur card 'harbour-master'; did you mean 'harbor-master'?",
    ]


def test_pantry_names_its_packs(base):
    assert problems_of("packs: [a-la-carte]\n" + WORKED, base) == [
        "p.yaml:1:9: packs[0]: this record needs pack 'a-la-carte'; load it with --pack a-la-carte"
    ]


ALC_PANTRY = """\
packs: [a-la-carte]
for: round6
cards:
  challenges: {round6: [tofu-stir-fry, market-breakfast, street-skewers]}
player: {name: Bo}
pantry:
  ingredients: [{type: tofu, value: 4}, {type: coffee, value: 6}, {type: fish, value: 5}, {type: bread, value: 2}]
  spices: [allspice, coffee]
  soup: 1
  bisque: 1
"""


def run_plan(capsys, *argv: str) -> tuple[int, str, str]:
    from critter_kitchen.cli import main

    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_command_plans_an_a_la_carte_round(tmp_path, capsys):
    (tmp_path / "bo.yaml").write_text(ALC_PANTRY, encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "bo.yaml"))
    assert (status, err) == (0, "")
    assert out == (
        "Bo, round6: 3 stars\n"
        "  Tofu Stir-Fry: no meal\n"
        "  Market Breakfast: coffee 6 + allspice spice, bread 2, 1 soup -> quality 15, 2 stars\n"
        "  Street Skewers: tofu 4, 1 bisque -> quality 7, 1 star\n"
        "  left: fish 5, coffee spice\n"
        "  keep: fish 5 (a critic meal of 1 star from these alone)\n"
    )
    status, out, _ = run_plan(capsys, str(tmp_path / "bo.yaml"), "--format", "record")
    assert status == 0
    assert out.startswith("challenge_meals:\n  round6:\n    Bo:\n      market-breakfast:\n")
    status, out, _ = run_plan(capsys, str(tmp_path / "bo.yaml"), "--format", "json")
    assert json.loads(out)["stars"] == 3


def test_command_without_the_pack_reports_located_problems(tmp_path, capsys):
    (tmp_path / "bo.yaml").write_text(ALC_PANTRY.replace("packs: [a-la-carte]\n", ""), encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "bo.yaml"))
    assert (status, out) == (1, "")
    assert (
        err.splitlines()[0]
        == f"{tmp_path / 'bo.yaml'}:3:25: cards.challenges.round6[0]: unknown challenge card 'tofu-stir-fry'"
    )
    status, out, err = run_plan(capsys, str(tmp_path / "bo.yaml"), "--pack", "a-la-carte", "--format", "json")
    assert (status, json.loads(out)["stars"], err) == (0, 3, "")


def test_command_prints_nothing_when_one_pantry_is_bad(tmp_path, capsys):
    (tmp_path / "bo.yaml").write_text(ALC_PANTRY, encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"for": "round3", "cards": {}, "pantry": {}, "x": 1}', encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "bo.yaml"), str(tmp_path / "bad.json"))
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"{tmp_path / 'bad.json'}:1:46: x: unknown key 'x'",
        f"{tmp_path / 'bad.json'}:1:28: cards: missing required key 'challenges'",
    ]


def test_command_plans_the_critic_meal(tmp_path, capsys):
    (tmp_path / "ana.yaml").write_text(WORKED.replace("for: round3", "for: critic"), encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "ana.yaml"))
    assert (status, err) == (0, "")
    assert out == (
        "Ana, critic meal: 7 stars, critic quality 29\n"
        "  carrot: carrot 5 + carrot spice -> quality 10\n"
        "  fish: fish 3 -> quality 3\n"
        "  cheese: cheese 6 + allspice spice -> quality 12\n"
        "  mushroom: mushroom 4 -> quality 4\n"
        "  tokens kept: 1 bisque\n"
        "  left: nothing\n"
    )
    status, out, _ = run_plan(capsys, str(tmp_path / "ana.yaml"), "--format", "record")
    assert out.startswith("critic_meals:\n  Ana:\n    courses:\n      carrot:\n        value: 5\n")


def test_a_card_hooked_to_a_later_stage_changes_the_plan(base):
    """Harbor Master's star for 3 fish in challenge meals makes spending two low fish worth it."""

    def planned_text(held: dict) -> str:
        pantry = {
            "for": "round3",
            "cards": {"challenges": {"round3": ["river-chowder", "smoked-platter", "harbor-stew"]}},
            "player": {"name": "Ana", **held},
            "pantry": {
                "ingredients": [{"type": "fish", "value": v} for v in (6, 1, 1)] + [{"type": "mushroom", "value": 1}]
            },
        }
        return plan_text(plan_round(question(pantry, base)))

    assert planned_text({}).splitlines()[::3] == ["Ana, round3: 1 star", "  Harbor Stew: no meal"]
    assert planned_text({}).splitlines()[1] == "  River Chowder: fish 6, mushroom 1 -> quality 7, 1 star"
    assert planned_text({"restaurateur": "harbor-master"}).splitlines()[:2] == [
        "Ana, round3: 2 stars",
        "  River Chowder: fish 6, fish 1, fish 1, mushroom 1 -> quality 9, 2 stars",
    ]


def test_a_node_limit_says_the_plan_is_not_proved(base):
    pantry = parse("ana.yaml", WORKED).data
    cut = plan_round(question(pantry, base), limit=50)
    full = plan_round(question(pantry, base))
    assert (cut.optimal, full.optimal) == (False, True)
    assert cut.stars <= full.stars
    assert plan_json(cut)["optimal"] is False


def random_critic_pantry(rng: random.Random, ruleset, packs: list[str]) -> dict:
    """A small critic pantry: up to 4 ingredients of a few course types, a spice or two, tokens."""
    params = rule_parameters(ruleset)
    kinds = rng.sample(list(params["course_types"]), 3)
    critics = sorted(c.id for c in ruleset.cards.values() if c.kind == "critic")
    held = sorted(c.id for c in ruleset.cards.values() if c.kind in ("restaurateur", "head-chef"))
    player = {"name": "Ana"}
    if rng.random() < 0.5:
        card = ruleset.cards[rng.choice(held)]
        player["restaurateur" if card.kind == "restaurateur" else "head_chef"] = card.id
    pantry = {
        "for": "critic",
        "cards": {"critic": rng.choice(critics)},
        "player": player,
        "pantry": {
            "ingredients": [{"type": rng.choice(kinds), "value": rng.randint(1, 9)} for _ in range(rng.randint(1, 4))],
            "spices": [rng.choice([*kinds, "allspice"]) for _ in range(rng.randint(0, 2))],
            "soup": rng.randint(0, 2),
            "bisque": rng.randint(0, 1),
        },
    }
    if packs:
        pantry["packs"] = packs
    return pantry


def critic_record(pantry: dict, challenges: list[str], meal: dict | None) -> dict:
    record = {
        "players": [pantry["player"], {"name": "Bo"}],
        "cards": {"challenges": {"round3": challenges[:3], "round6": challenges[3:6]}, **pantry["cards"]},
    }
    if meal is not None:
        record["critic_meals"] = {"Ana": meal}
    if "packs" in pantry:
        record["packs"] = pantry["packs"]
    return record


def ana_outcome(record: dict, ruleset) -> tuple[int, int]:
    result = score_record(record, ruleset)
    ana = next(s for s in result.standings if s.player.name == "Ana")
    return ana.stars, ana.critic_quality


def all_left(pantry: dict) -> dict:
    """The record's ``left`` of a player who served none of the pantry."""
    items = pantry["pantry"]
    return {"ingredients": [dict(i) for i in items["ingredients"]], "spices": list(items["spices"])}


def critic_brute_force(pantry: dict, ruleset, challenges: list[str], *, left: bool = False) -> tuple[int, int]:
    """The best (stars, critic quality) over every critic meal: each ingredient as its type's course
    or not, each spice on any ingredient or not, each token as a course (where allowed) or kept.
    ``left``: each meal's record says what the player left unused (the pantry items not served)."""
    params = rule_parameters(ruleset, [ruleset.cards[pantry["cards"]["critic"]]])
    items = pantry["pantry"]
    ingredients = [(i["type"], i["value"]) for i in items["ingredients"]]
    spices = items["spices"]
    courses = list(params["course_types"])
    tokens = [name for name in ("soup", "bisque") for _ in range(items[name])]
    nothing = {"courses": {}, "left": all_left(pantry)} if left else None
    baseline = ana_outcome(critic_record(pantry, challenges, nothing), ruleset)[0]
    best = None
    seen: set[str] = set()
    for served in itertools.product((False, True), repeat=len(ingredients)):
        kinds = [k for (k, _), s in zip(ingredients, served, strict=True) if s]
        if len(kinds) != len(set(kinds)):
            continue  # one course per type
        for spice_on in itertools.product(range(len(ingredients) + 1), repeat=len(spices)):
            if any(on < len(ingredients) and not served[on] for on in spice_on):
                continue
            # each token: kept (-1), or served as the course of a type no ingredient takes
            free = [k for k in courses if k not in kinds]
            for token_use in itertools.product(range(-1, len(free)), repeat=len(tokens)):
                used = [free[u] for u in token_use if u >= 0]
                if len(used) != len(set(used)):
                    continue
                meal_courses = {}
                for i, ((kind, value), s) in enumerate(zip(ingredients, served, strict=True)):
                    if s:
                        on = [sp for sp, at in zip(spices, spice_on, strict=True) if at == i]
                        meal_courses[kind] = {"value": value, **({"spice": on} if on else {})}
                for token, u in zip(tokens, token_use, strict=True):
                    if u >= 0:
                        meal_courses[free[u]] = {"token": token}
                unused = {
                    name: sum(1 for t, u in zip(tokens, token_use, strict=True) if t == name and u < 0)
                    for name in ("soup", "bisque")
                }
                # the tokens not served are kept, or some of them let go (as the planner may)
                for soup, bisque in itertools.product(range(unused["soup"] + 1), range(unused["bisque"] + 1)):
                    meal = {"courses": meal_courses, "soup": soup, "bisque": bisque}
                    if left:
                        unserved = [
                            {"type": k, "value": v} for (k, v), s in zip(ingredients, served, strict=True) if not s
                        ]
                        spare = [sp for sp, at in zip(spices, spice_on, strict=True) if at == len(ingredients)]
                        meal["left"] = {"ingredients": unserved, "spices": spare}
                    text = json.dumps(meal, sort_keys=True)
                    if text in seen:
                        continue
                    seen.add(text)
                    try:
                        stars, quality = ana_outcome(critic_record(pantry, challenges, meal), ruleset)
                    except InputError:
                        continue  # an illegal course, or a meal a constraint refuses
                    key = (stars - baseline, quality)
                    best = key if best is None or key > best else best
    assert best is not None
    return best


def critic_planned(pantry: dict, ruleset, challenges: list[str], *, left: bool = False) -> tuple[int, int]:
    from critter_kitchen.plan.critic import critic_record as planned_record
    from critter_kitchen.plan.critic import plan_critic

    plan = plan_critic(question(pantry, ruleset))
    assert plan.optimal
    record = critic_record(pantry, challenges, planned_record(plan)["critic_meals"]["Ana"])
    nothing = {"courses": {}, "left": all_left(pantry)} if left else None
    baseline = ana_outcome(critic_record(pantry, challenges, nothing), ruleset)[0]
    stars, quality = ana_outcome(record, ruleset)  # legal as a record, and scores as planned
    assert (stars - baseline, quality) == (plan.stars, plan.critic_quality)
    return plan.stars, plan.critic_quality


@pytest.mark.parametrize("seed", range(25))
def test_base_critic_planner_equals_brute_force(base, seed):
    pantry = random_critic_pantry(random.Random(3000 + seed), base, [])
    assert critic_planned(pantry, base, BASE_CHALLENGES) == critic_brute_force(pantry, base, BASE_CHALLENGES)


@pytest.mark.parametrize("seed", range(15))
def test_a_la_carte_critic_planner_equals_brute_force(alc, seed):
    pantry = random_critic_pantry(random.Random(4000 + seed), alc, ["a-la-carte"])
    assert critic_planned(pantry, alc, ALC_CHALLENGES) == critic_brute_force(pantry, alc, ALC_CHALLENGES)


def keep_of(pantry: dict, ruleset):
    from critter_kitchen.plan.critic import plan_keep

    plan = plan_round(question(pantry, ruleset))
    return plan, plan_keep(plan.question, plan.left_ingredients, plan.left_spices)


def test_keep_is_the_best_critic_meal_of_what_is_left(base):
    plan, keep = keep_of(parse("ana.yaml", WORKED).data, base)
    assert plan_json(plan, keep)["keep"] == {
        "ingredients": [{"type": "cheese", "value": 6}, {"type": "mushroom", "value": 4}],
        "spices": [],
    }
    assert (keep.critic.stars, plan_json(plan, keep)["optimal"]) == (3, True)
    assert (
        plan_text(plan, keep).splitlines()[-1]
        == "  keep: cheese 6, mushroom 4 (a critic meal of 3 stars from these alone)"
    )


def test_keep_past_the_refrigeration_limit_is_the_best_critic_meal_that_fits(base):
    """Seven courses of value 1 are left; five fit the limit: the best critic meal of five courses."""
    kinds = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
    pantry = {
        "for": "round3",
        "cards": {"challenges": {"round3": ["river-chowder", "mushroom-toast", "garden-gratin"]}},
        "pantry": {"ingredients": [{"type": k, "value": 1} for k in kinds]},
    }
    plan, keep = keep_of(pantry, base)
    assert len(keep.ingredients) + len(keep.spices) == 5  # the base limit after round 3
    assert len(keep.critic.courses) == 5
    assert plan_json(plan, keep)["optimal"] is True


def test_a_large_pantry_stops_at_the_limit_with_a_legal_plan(base):
    """The limit counts the plans scored as well as the meals checked, and serving nothing is
    always a plan, so a pantry far too large for the exhaustive search still gets an answer."""
    kinds = ["fish", "carrot", "bread", "mushroom", "cheese", "wine", "meat"]
    pantry = {
        "for": "round3",
        "cards": {"challenges": {"round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"]}},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": kinds[i % 7], "value": 1 + i % 9} for i in range(40)],
            "spices": ["allspice"] * 5,
            "soup": 5,
            "bisque": 5,
        },
    }
    plan = plan_round_exhaustive(question(pantry, base), limit=2000)
    assert (plan.optimal, plan.nodes) == (False, 2001)
    record = game_record(pantry, BASE_CHALLENGES, plan_record(plan)["challenge_meals"]["round3"]["Ana"])
    assert ana_stars(record, base) == plan.stars

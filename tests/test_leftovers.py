"""What each player had left unused at the end of the game (``critic_meals.NAME.left``): read and
checked in records, read by the effect language, carried by ``score --format json``, planned,
dealt by the balance lab. The games are scored by hand with the cards of tests/packs/leftovers:

- Waste Not (rumor): each player gains 1 star per 3 ingredients left unused;
- The Thrifty Pickler (restaurateur): its owner gains 1 star per 10 value of the ingredients
  left unused and 1 star per spice left unused, when the record says what was left;
- The Ledger Keeper (critic): each player whose leftovers the record says gains 1 star.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from critter_kitchen import cli, load_ruleset, score_record
from critter_kitchen.loading.records import RecordReader
from critter_kitchen.model.game import Ingredient

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "packs" / "leftovers"
CHALLENGES = {
    "round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"],
    "round6": ["toasted-cheese", "river-chowder", "braised-shank"],
}

# Ana served fish 3 and left wine 4, fish 2, carrot 5, bread 6 and two spices; Ben served fish 2
# and carrot 4 and left seven ingredients; the record does not say what Cy left.
GAME = """\
packs: [leftovers]
players:
  - name: Ana
    restaurateur: thrifty-pickler
  - name: Ben
  - name: Cy
cards:
  challenges:
    round3: [harbor-stew, forest-risotto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
  rumors: [waste-not]
critic_meals:
  Ana:
    courses:
      fish: {value: 3}
    left:
      ingredients: [{type: wine, value: 4}, {type: fish, value: 2}, {type: carrot, value: 5}, {type: bread, value: 6}]
      spices: [fish, allspice]
  Ben:
    courses:
      fish: {value: 2}
      carrot: {value: 4}
    left:
      ingredients:
        - {type: meat, value: 3}
        - {type: meat, value: 2}
        - {type: cheese, value: 7}
        - {type: mushroom, value: 2}
        - {type: wine, value: 9}
        - {type: bread, value: 1}
        - {type: fish, value: 8}
  Cy:
    courses:
      cheese: {value: 5}
"""

# By hand:
# - most soup: nobody kept soup or bisque: no star. All courses: nobody.
# - best course: fish Ana 3 > Ben 2 -> Ana 1; carrot Ben 4 -> Ben 1; cheese Cy 5 -> Cy 1.
# - Waste Not: Ana 4 left // 3 = 1; Ben 7 // 3 = 2; Cy nothing recorded: 0 // 3 = 0, no award.
# - The Thrifty Pickler (Ana): (4 + 2 + 5 + 6) = 17 // 10 = 1, plus 2 spices left = 3.
# - final quality: Ana 3, Ben 2 + 4 = 6, Cy 5: each below 10, no star.
# Ana 1 + 1 + 3 = 5, Ben 1 + 2 = 3, Cy 1.
STANDINGS = [
    {"rank": 1, "name": "Ana", "stars": 5, "critic_quality": 3},
    {"rank": 2, "name": "Ben", "stars": 3, "critic_quality": 6},
    {"rank": 3, "name": "Cy", "stars": 1, "critic_quality": 5},
]
AWARDS = [  # best course in course order: carrot, fish, cheese
    {
        "player": "Ben",
        "stage": "critic.best_course",
        "stars": 1,
        "card": "base-rules",
        "reason": "best carrot course (4)",
    },
    {
        "player": "Ana",
        "stage": "critic.best_course",
        "stars": 1,
        "card": "base-rules",
        "reason": "best fish course (3)",
    },
    {
        "player": "Cy",
        "stage": "critic.best_course",
        "stars": 1,
        "card": "base-rules",
        "reason": "best cheese course (5)",
    },
    {"player": "Ana", "stage": "critic.rumors", "stars": 1, "card": "waste-not", "reason": "4 ingredients left unused"},
    {"player": "Ben", "stage": "critic.rumors", "stars": 2, "card": "waste-not", "reason": "7 ingredients left unused"},
    {
        "player": "Ana",
        "stage": "critic.card_bonuses",
        "stars": 3,
        "card": "thrifty-pickler",
        "reason": "pickled leftovers worth 17",
    },
]
# What Ana left, as a result says it: in one order whatever the record's (ingredients by type
# in the rules' order, then value; spices by type, the wild spice last).
ANA_LEFT = {
    "ingredients": [
        {"type": "carrot", "value": 5},
        {"type": "fish", "value": 2},
        {"type": "wine", "value": 4},
        {"type": "bread", "value": 6},
    ],
    "spices": ["fish", "allspice"],
}
BEN_LEFT = {
    "ingredients": [
        {"type": "fish", "value": 8},
        {"type": "cheese", "value": 7},
        {"type": "mushroom", "value": 2},
        {"type": "meat", "value": 2},
        {"type": "meat", "value": 3},
        {"type": "wine", "value": 9},
        {"type": "bread", "value": 1},
    ],
    "spices": [],
}


@pytest.fixture(scope="module")
def ruleset():
    return load_ruleset([PACK])


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def score_json(capsys, path: Path) -> dict:
    code, out, err = run(capsys, "score", str(path), "--pack", str(PACK), "--format", "json")
    assert (code, err) == (0, "")
    return json.loads(out)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_game_of_leftover_cards_scores_as_by_hand(capsys, tmp_path, suffix):
    path = tmp_path / f"game{suffix}"
    data = yaml.safe_load(GAME)
    path.write_text(GAME if suffix == ".yaml" else json.dumps(data, indent=1))
    result = score_json(capsys, path)
    assert [{k: v for k, v in s.items() if k != "left"} for s in result["standings"]] == STANDINGS
    assert result["awards"] == AWARDS


def test_the_standings_carry_what_was_left_where_the_record_says_it(capsys, tmp_path):
    path = tmp_path / "game.yaml"
    path.write_text(GAME)
    left = {s["name"]: s.get("left") for s in score_json(capsys, path)["standings"]}
    assert left["Ana"] == ANA_LEFT
    assert left["Ben"] == BEN_LEFT
    assert left["Cy"] is None  # not recorded: no key


def test_both_reading_paths_read_what_was_left(ruleset):
    data = yaml.safe_load(GAME)
    data["critic_meals"]["Ana"]["left"]["spices"].reverse()  # [allspice, fish]: read in one order all the same
    games = [RecordReader(ruleset, "game.yaml", plain=plain).read(data) for plain in (True, False)]
    for game in games:
        ana, ben, cy = game.players
        assert ana.left_ingredients == tuple(Ingredient(i["type"], i["value"]) for i in ANA_LEFT["ingredients"])
        assert (ana.left_spices, ana.left_recorded) == (("fish", "allspice"), True)
        assert (len(ben.left_ingredients), ben.left_spices, ben.left_recorded) == (7, (), True)
        assert (cy.left_ingredients, cy.left_spices, cy.left_recorded) == ((), (), False)


# Left recorded as nothing is not left unrecorded: Ana's record says she left nothing, Ben's
# says he left two spices, Cy's says nothing of what he left.
LEDGER = """\
players:
  - name: Ana
    restaurateur: thrifty-pickler
  - name: Ben
  - name: Cy
cards:
  challenges:
    round3: [harbor-stew, forest-risotto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
  critic: ledger-keeper
  rumors: [waste-not]
critic_meals:
  Ana:
    courses: {fish: {value: 3}}
    left: {}
  Ben:
    courses: {fish: {value: 2}}
    left: {spices: [allspice, meat]}
  Cy: {}
"""


def test_what_was_left_unrecorded_is_nothing_and_not_recorded(capsys, tmp_path):
    # best fish: Ana 3 > Ben 2 -> Ana 1. Waste Not: no ingredient left by anyone -> no award.
    # The Ledger Keeper: Ana and Ben's records say what they left -> 1 each; Cy's does not -> 0.
    # The Thrifty Pickler (Ana): recorded, 0 value // 10 + 0 spices = 0 -> no award.
    # Ana 1 + 1 = 2, Ben 1, Cy 0.
    path = tmp_path / "ledger.yaml"
    path.write_text(LEDGER)
    result = score_json(capsys, path)
    assert [(s["name"], s["stars"]) for s in result["standings"]] == [("Ana", 2), ("Ben", 1), ("Cy", 0)]
    assert [(a["player"], a["card"], a["stars"]) for a in result["awards"]] == [
        ("Ana", "base-rules", 1),
        ("Ana", "ledger-keeper", 1),
        ("Ben", "ledger-keeper", 1),
    ]
    left = {s["name"]: s.get("left") for s in result["standings"]}
    assert left == {
        "Ana": {"ingredients": [], "spices": []},
        "Ben": {"ingredients": [], "spices": ["meat", "allspice"]},  # by type, the wild spice last
        "Cy": None,
    }


def test_the_pack_and_its_games_validate_clean(capsys, tmp_path):
    (tmp_path / "game.yaml").write_text(GAME)
    (tmp_path / "ledger.yaml").write_text(LEDGER)
    code, out, err = run(capsys, "validate", str(PACK), "--format", "json")
    assert (code, json.loads(out), err) == (0, [], "")
    code, out, err = run(capsys, "validate", "--pack", str(PACK), str(tmp_path), "--format", "json")
    assert (code, json.loads(out), err) == (0, [], "")


CARDS_ENGLISH = {
    "waste-not": """\
After critic.rumors:
    For each p in the players:
        Let n be the number of items in the ingredients p left unused.
        Give stars equal to (n divided by 3, rounded down) to p ("[n] ingredients left unused").
""",
    "thrifty-pickler": """\
After critic.card_bonuses:
    If the record says what the owner left unused:
        Let v be the total of the printed value of i over each i in the ingredients the owner left unused.
        Give stars equal to ((v divided by 10, rounded down) plus \
(the number of items in the spices the owner left unused)) to the owner ("pickled leftovers worth [v]").
""",
    "ledger-keeper": """\
After critic.card_bonuses:
    For each p in the players:
        If the record says what p left unused:
            Give 1 star to p ("leftovers written down").
""",
}


@pytest.mark.parametrize("card", sorted(CARDS_ENGLISH))
def test_the_cards_read_back_in_english(capsys, card):
    code, out, err = run(capsys, "cards", "--pack", str(PACK), card)
    assert (code, err) == (0, "")
    assert out.endswith("\n" + CARDS_ENGLISH[card])


def test_the_leftover_cards_use_every_function_reading_what_was_left(ruleset):
    from test_cards import LEFTOVERS

    from critter_kitchen.dsl import nodes as n

    used = {
        node.func
        for card in ruleset.cards.values()
        if card.pack == "leftovers"
        for effect in card.effects
        for node in n.walk(effect.ast)
        if isinstance(node, n.Call | n.Comprehension)
    }
    assert used >= LEFTOVERS


# the planner


def leftover_pantry(rng: random.Random, ruleset) -> dict:
    """A small critic pantry at a table whose cards read what the player leaves unused."""
    from test_plan import random_critic_pantry

    pantry = random_critic_pantry(rng, ruleset, [])
    pantry["cards"]["rumors"] = ["waste-not"]
    pantry["player"] = {"name": "Ana", "restaurateur": "thrifty-pickler"}
    kinds = sorted({i["type"] for i in pantry["pantry"]["ingredients"]})
    pantry["pantry"]["ingredients"] += [{"type": rng.choice(kinds), "value": rng.randint(3, 9)} for _ in range(2)]
    return pantry


@pytest.mark.parametrize("seed", range(12))
def test_the_critic_planner_weighs_what_it_leaves_as_brute_force_does(ruleset, seed):
    from test_plan import BASE_CHALLENGES, critic_brute_force, critic_planned

    pantry = leftover_pantry(random.Random(5000 + seed), ruleset)
    planned = critic_planned(pantry, ruleset, BASE_CHALLENGES, left=True)
    assert planned == critic_brute_force(pantry, ruleset, BASE_CHALLENGES, left=True)


def test_the_planner_keeps_a_spice_back_when_leaving_it_pays(capsys, tmp_path):
    # Ana holds The Thrifty Pickler (1 star per spice left) and has fish 1 and a fish spice.
    # Served on the fish course the spice makes its quality 2, not 1: the best-course star is
    # Ana's either way (she plans alone) and the track gives no star below 10. Left, it is 1
    # star. So the fish is served plain and the spice kept back: best course 1 + Pickler
    # (0 // 10 + 1 spice) 1 = 2 stars; serving nothing (the baseline) leaves fish 1 and the
    # spice, Pickler 0 + 1 = 1 star: the meal earns 2 - 1 = 1.
    pantry = tmp_path / "ana.yaml"
    pantry.write_text(
        "for: critic\n"
        "cards: {}\n"
        "player: {name: Ana, restaurateur: thrifty-pickler}\n"
        "pantry: {ingredients: [{type: fish, value: 1}], spices: [fish]}\n"
    )
    code, out, err = run(capsys, "plan", str(pantry), "--pack", str(PACK), "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "for": "critic",
        "optimal": True,
        "stars": 1,
        "critic_quality": 1,
        "courses": {"fish": {"value": 1}},
        "soup": 0,
        "bisque": 0,
        "left": {"ingredients": [], "spices": ["fish"]},
    }


def test_plan_format_record_says_what_the_meal_leaves(capsys, tmp_path):
    pantry = tmp_path / "ana.yaml"
    pantry.write_text(
        "for: critic\n"
        "cards: {rumors: [waste-not]}\n"
        "player: {name: Ana}\n"
        "pantry:\n"
        "  ingredients: [{type: fish, value: 5}, {type: fish, value: 2}, {type: wine, value: 4}]\n"
        "  spices: [fish, cheese]\n"
        "  soup: 1\n"
    )
    code, out, err = run(capsys, "plan", str(pantry), "--pack", str(PACK), "--format", "record")
    assert (code, err) == (0, "")
    meal = yaml.safe_load(out)["critic_meals"]["Ana"]
    # fish 5 with the fish spice (10) and wine 4 are served; fish 2 and the cheese spice are left.
    assert meal == {
        "courses": {"fish": {"value": 5, "spice": "fish"}, "wine": {"value": 4}},
        "soup": 1,
        "bisque": 0,
        "left": {"ingredients": [{"type": "fish", "value": 2}], "spices": ["cheese"]},
    }
    code, out, err = run(capsys, "plan", str(pantry), "--pack", str(PACK))
    assert (code, err, out.splitlines()[-1]) == (0, "", "  left: fish 2, cheese spice")


# the balance lab


def lab(capsys, records: Path, *args: str) -> tuple[str, dict]:
    code, out, err = run(
        capsys,
        "simulate",
        "--pack",
        str(PACK),
        "--games",
        "60",
        "--players",
        "3",
        "--seed",
        "3",
        "--format",
        "json",
        "--records",
        str(records),
        *args,
    )
    assert (code, err) == (0, "")
    return out, json.loads(out)


def in_play(record: dict, card: str) -> bool:
    cards = record["cards"]
    return card in (cards.get("critic"), *cards.get("rumors", []), *(p.get("restaurateur") for p in record["players"]))


def test_the_lab_deals_leftovers_and_its_records_score_again_to_its_figures(capsys, tmp_path, ruleset):
    _, report = lab(capsys, tmp_path / "games.jsonl", "--workers", "1")
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 60
    rows = {c["id"]: c for c in report["cards"]}
    for card in ("waste-not", "thrifty-pickler", "ledger-keeper"):
        games = stars = 0
        for record in records:
            if in_play(record, card):
                games += 1
                stars += sum(a.stars for a in score_record(record, ruleset).awards if a.card == card)
        # Each card was in play in some games and gave stars there: the lab deals what is left.
        assert games > 0 and stars > 0
        # Its records, scored again, give the lab's own figures.
        assert (rows[card]["games"], rows[card]["stars_mean"]) == (games, round(stars / games, 4))
    for record in records:  # every player's record says what was left, as the record reader reads it
        assert all(set(meal["left"]) == {"ingredients", "spices"} for meal in record["critic_meals"].values())


def test_what_a_simulated_player_left_is_what_the_critic_meal_did_not_serve(ruleset, monkeypatch):
    # The items held at the critic meal are what the challenge rounds left, less what
    # refrigeration dropped, plus the last rounds' draws: the lab's critic question. What is
    # left is those items less the courses served (spices on them included).
    from critter_kitchen.plan.pantry import CRITIC
    from critter_kitchen.simulate import game as lab_game
    from critter_kitchen.simulate.deal import DealModel

    setup = lab_game.Setup(DealModel(ruleset), 3, 11, effort="quick", pack_ids=("leftovers",))
    asked: list = []
    plan_critic_meal = lab_game.plan_critic_meal

    def spy(question, effort):
        plan = plan_critic_meal(question, effort)
        asked.append((question, plan))
        return plan

    monkeypatch.setattr(lab_game, "plan_critic_meal", spy)
    record = lab_game.play(setup, 4)
    assert [q.target for q, _ in asked] == [CRITIC] * 3
    for question, plan in asked:
        left = record["critic_meals"][question.name]["left"]
        ingredients = list(question.ingredients)
        spices = list(question.spices)
        for course in plan.courses.values():
            if course.token is None:
                ingredients.remove((course.type, course.value))
                for spice in course.spices:
                    spices.remove(spice)
        assert sorted((i["type"], i["value"]) for i in left["ingredients"]) == sorted(ingredients)
        assert sorted(left["spices"]) == sorted(spices)
    # the quick effort plans from a trimmed pantry: what is left is of the whole one
    assert sum(len(record["critic_meals"][q.name]["left"]["ingredients"]) for q, _ in asked) > 0


def test_the_same_seed_gives_the_same_bytes_on_one_and_two_workers(capsys, tmp_path):
    one, _ = lab(capsys, tmp_path / "one.jsonl", "--workers", "1")
    two, _ = lab(capsys, tmp_path / "two.jsonl", "--workers", "2")
    assert one == two
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


# rescoring without a card


def test_without_the_card_that_made_it_wild_a_spice_left_is_dropped_by_both_paths(tmp_path, monkeypatch):
    from critter_kitchen.loading.records import read_record
    from critter_kitchen.simulate import paired
    from critter_kitchen.stages.runner import score_game

    pack = tmp_path / "pepper"
    (pack / "cards").mkdir(parents=True)
    (pack / "pack.yaml").write_text("id: pepper\nname: Pepper\nrequires: [leftovers]\n")
    (pack / "cards" / "pepper-season.yaml").write_text(
        "id: pepper-season\nkind: rumor\nname: Pepper Season\ntext: Pepper is the wild spice.\n"
        "parameters: {wild_spice: pepper}\n"
    )
    rs = load_ruleset([PACK, pack])
    record = yaml.safe_load(LEDGER)
    record["cards"] = {"challenges": CHALLENGES, "rumors": ["pepper-season"]}
    record["critic_meals"]["Ana"]["left"] = {"spices": ["pepper", "fish"]}
    record["critic_meals"]["Ben"]["left"] = {"spices": ["meat"]}
    # With Pepper Season, pepper is a spice: the Pickler gives Ana 0 // 10 + 2 spices = 2 stars.
    game = score_game(read_record(rs, record, "game"))
    assert [(a.player, a.stars) for a in game.awards if a.card == "thrifty-pickler"] == [("Ana", 2)]
    # Without it, pepper is no spice: it is dropped from what Ana left, and the Pickler gives 1.
    for fast in (True, False):
        monkeypatch.setattr(paired, "FAST_RESCORING", fast)
        without = paired.rescored_without(rs, record, game.game, "pepper-season")
        assert [(a.player, a.stars) for a in without.awards if a.card == "thrifty-pickler"] == [("Ana", 1)], fast
    assert record["critic_meals"]["Ana"]["left"] == {"spices": ["pepper", "fish"]}  # the record is unchanged


def test_the_record_schema_takes_what_was_left_and_refuses_a_spice_on_a_left_ingredient():
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "schemas" / "game-record.schema.json").read_text())
    check = Draft202012Validator(schema)
    assert list(check.iter_errors(yaml.safe_load(GAME))) == []
    assert list(check.iter_errors(yaml.safe_load(LEDGER))) == []
    bad = yaml.safe_load(GAME)
    bad["critic_meals"]["Ana"]["left"]["ingredients"][0]["spice"] = "wine"
    bad["critic_meals"]["Ben"]["left"]["pantry"] = []
    assert sorted(e.json_path for e in check.iter_errors(bad)) == [
        "$.critic_meals.Ana.left.ingredients[0]",
        "$.critic_meals.Ben.left",
    ]

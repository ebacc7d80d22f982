"""Rescoring checked against the plain path.

``score_without(game, [card])`` against the record with the card taken out, read and
scored from scratch (with any meal the rules without the card refuse taken out too: the
documented meaning of rescoring), on generated games of every shipped pack.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from critter_kitchen import (
    InputError,
    check_course,
    check_critic_meal,
    check_meal,
    load_ruleset,
    rule_parameters,
    score_without,
)
from critter_kitchen.api import removable_cards
from critter_kitchen.loading.records import read_record
from critter_kitchen.model.game import Ingredient
from critter_kitchen.model.ruleset import WILD_SLOT
from critter_kitchen.report.json import json_text, result_json
from critter_kitchen.stages.runner import score_game

ROOT = Path(__file__).resolve().parent.parent
CARDS = ROOT / "cards"
PACKS = {
    "base": [],
    "a-la-carte": [CARDS / "a-la-carte"],
    "solo": [CARDS / "solo"],
    "no-friendly-ties": [CARDS / "variants" / "no-friendly-ties"],
    "no-soup-race": [CARDS / "variants" / "no-soup-race"],
    "composing": [ROOT / "tests" / "packs" / "composing"],  # parameters by card: meal, player, table
}
GAMES_PER_PACK = 120
NAMES = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus"]


# a record generator that knows nothing of any pack: it reads the ruleset and asks the
# public meal rules (check_meal, check_course) which meals are legal


def _kinds(rs, scope: str) -> dict[str, str]:
    out = {}
    for kind, slot in rs.card_kinds.items():
        where, _, field = slot.partition(".")
        if where == scope:
            out[field] = kind
    return out


def _of_kind(rs, kind: str) -> list:
    return sorted((c for c in rs.cards.values() if c.kind == kind), key=lambda c: c.id)


def random_record(rs, rng: random.Random) -> dict:
    p = rs.base_params()
    scored = rng.randint(p["min_players"], min(p["max_players"], len(NAMES)))
    rivals = rng.randint(p["min_automated"], p["max_automated"])
    names = rng.sample(NAMES, scored)
    players: list[dict] = [{"name": n} for n in names]
    cards: dict = {}
    table = []
    for field, kind in _kinds(rs, "cards").items():
        pool = _of_kind(rs, kind)
        if kind == "challenge":
            continue
        if kind in rs.single_kinds:
            if pool and rng.random() < 0.85:
                card = rng.choice(pool)
                cards[field] = card.id
                table.append(card)
        else:
            chosen = rng.sample(pool, rng.randint(0, min(3, len(pool))))
            if chosen:
                cards[field] = [c.id for c in chosen]
                table += chosen
    challenge_field, challenge_kind = next((f, k) for f, k in _kinds(rs, "cards").items() if f == "challenges")
    rounds = p["challenge_rounds"]
    pool = rng.sample(_of_kind(rs, challenge_kind), len(rounds) * p["challenges_per_round"])
    per = p["challenges_per_round"]
    by_round = {rnd: pool[i * per : (i + 1) * per] for i, rnd in enumerate(rounds)}
    cards[challenge_field] = {rnd: [c.id for c in cs] for rnd, cs in by_round.items()}
    held: dict[str, list] = {n: [] for n in names}
    for field, kind in _kinds(rs, "players").items():
        free = _of_kind(rs, kind)
        rng.shuffle(free)
        for entry in players:
            if not free or rng.random() < 0.3:
                continue
            if kind in rs.single_kinds:
                card = free.pop()
                entry[field] = card.id
                held[entry["name"]].append(card)
            else:
                chosen = [free.pop() for _ in range(min(len(free), rng.randint(1, 2)))]
                entry[field] = [c.id for c in chosen]
                held[entry["name"]] += chosen
    for entry in players:
        if rs.counters and rng.random() < 0.6:
            entry["counters"] = {c: rng.randint(0, 3) for c in rs.counters if rng.random() < 0.7}
    for i in range(rivals):
        rival = {"stars": rng.randint(0, 25), "critic_quality": rng.randint(0, 60)}
        players.append({"name": f"Rival {i}", "automated": rival})
    record = {"players": players, "cards": cards, "challenge_meals": {}, "critic_meals": {}}
    values = rng.choice([[2, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]])
    for name in names:
        params = rule_parameters(rs, table, held[name])
        for rnd, round_cards in by_round.items():
            for i, card in enumerate(round_cards):
                if rng.random() < 0.6:
                    in_play = (*table, *held[name])  # whose meal constraints bind the meal
                    own = rule_parameters(rs, table, held[name], card)  # the card's own parameters too
                    meal = _meal(rs, rng, card, i == len(round_cards) - 1, own, values, in_play)
                    if meal is not None:
                        record["challenge_meals"].setdefault(rnd, {}).setdefault(name, {})[card.id] = meal
        record["critic_meals"][name] = _critic_meal(rs, rng, params, values, (*table, *held[name]))
        if rng.random() < 0.5:  # what the player left unused, said in half the meals
            record["critic_meals"][name]["left"] = {
                "ingredients": [
                    {"type": rng.choice(rs.ingredient_types), "value": rng.choice(values)}
                    for _ in range(rng.randint(0, 6))
                ],
                "spices": [rng.choice([*rs.ingredient_types, params["wild_spice"]]) for _ in range(rng.randint(0, 2))],
            }
    return record


def _spice(rng: random.Random, kind: str, wild: str):
    return rng.choice([None, None, None, kind, wild])


def _meal(rs, rng: random.Random, card, held: bool, params: dict, values: list[int], in_play=()) -> dict | None:
    kinds = list(dict.fromkeys(card.requires)) or list(rs.ingredient_types[:1])
    if WILD_SLOT in kinds:  # a wildcard slot: any type, a few of them
        kinds = [k for k in kinds if k != WILD_SLOT] + rng.sample(list(rs.ingredient_types), 3)
        kinds = list(dict.fromkeys(kinds))
    chosen = rng.sample(kinds, rng.randint(1, len(kinds)))
    items = []
    for kind in chosen:
        for _ in range(rng.choice([1, 1, 2])):
            item = {"type": kind, "value": rng.choice(values)}
            spice = _spice(rng, kind, params["wild_spice"])
            if spice is not None:
                item["spice"] = spice
            items.append(item)
    tokens = {t: rng.randint(0, 3) for t in params["token_values"] if rng.random() < 0.7}
    ingredients = [Ingredient(i["type"], i["value"], (i["spice"],) if "spice" in i else ()) for i in items]
    problems, _ = check_meal(rs, card, ingredients, tokens, params, held=held, cards=in_play)
    return None if problems else {"ingredients": items, **tokens}


def _critic_meal(rs, rng: random.Random, params: dict, values: list[int], in_play=()) -> dict:
    courses = {}
    for kind in params["course_types"]:
        if rng.random() < 0.25:
            continue
        token = rng.choice(list(params["token_values"])) if rng.random() < 0.15 else None
        course = {"token": token} if token else {"value": rng.choice(values)}
        spice = None if token else _spice(rng, kind, params["wild_spice"])
        if spice is not None:
            course["spice"] = spice
        served = token or Ingredient(kind, course["value"], (spice,) if spice else ())
        if not check_course(rs, kind, served, params)[0]:
            courses[kind] = course
    tokens = {t: rng.randint(0, 3) for t in params["token_values"] if rng.random() < 0.7}

    def refused() -> bool:  # by a meal constraint of the cards in play: courses are left out until none is
        served = {
            k: c["token"] if "token" in c else Ingredient(k, c["value"], (c["spice"],) if "spice" in c else ())
            for k, c in courses.items()
        }
        return bool(check_critic_meal(rs, served, tokens, params, cards=in_play)[0])

    while courses and refused():
        courses.popitem()
    if refused():
        tokens = {}
    return {"courses": courses, **tokens}


# the plain path: the record without the card, read and scored from scratch


def record_without(record: dict, rs, card_id: str) -> dict:
    out = json.loads(json.dumps(record))
    for field in _kinds(rs, "cards"):
        value = out["cards"].get(field)
        if value == card_id:
            del out["cards"][field]
        elif isinstance(value, list) and card_id in value:
            out["cards"][field] = [c for c in value if c != card_id]
    for entry in out["players"]:
        for field in _kinds(rs, "players"):
            value = entry.get(field)
            if value == card_id:
                del entry[field]
            elif isinstance(value, list) and card_id in value:
                entry[field] = [c for c in value if c != card_id]
    return out


def scored_from_scratch(rs, record: dict) -> str:
    """The record read and scored, with each meal or course the reader refuses left out."""
    for _ in range(50):
        try:
            game = read_record(rs, record, "r")
        except InputError as e:
            for problem in e.problems:
                _drop(record, problem.where)
            continue
        return json_text(result_json(score_game(game, "r")))
    raise AssertionError("the record never became readable")


def _drop(record: dict, where: str) -> None:
    parts = where.split(".")
    if parts[0] == "challenge_meals" and len(parts) >= 4:
        meals = record["challenge_meals"][parts[1]][parts[2]]
        meals.pop(parts[3], None)
    elif parts[0] == "critic_meals" and len(parts) >= 4 and parts[2] == "courses":
        record["critic_meals"][parts[1]]["courses"].pop(parts[3], None)
    elif parts[0] == "critic_meals" and len(parts) == 3:
        record["critic_meals"][parts[1]].pop(parts[2], None)
    else:
        raise AssertionError(f"a problem that removing a card should not make: {where}")


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_rescoring_without_a_card_is_scoring_the_record_without_it(pack: str) -> None:
    rs = load_ruleset(PACKS[pack])
    rng = random.Random(f"rescore-{pack}")
    compared = 0
    for _ in range(GAMES_PER_PACK):
        record = random_record(rs, rng)
        game = read_record(rs, record, "r")
        whole = json_text(result_json(score_game(read_record(rs, record, "r"), "r")))
        assert json_text(result_json(score_without(game, [], "r"))) == whole
        ids = [c.id for c in removable_cards(game)]
        for card_id in ids:
            expected = scored_from_scratch(rs, record_without(record, rs, card_id))
            assert json_text(result_json(score_without(game, [card_id], "r"))) == expected, (pack, card_id, record)
            compared += 1
        if len(ids) >= 2:  # two at once, in either order
            pair = rng.sample(ids, 2)
            expected = scored_from_scratch(rs, record_without(record_without(record, rs, pair[0]), rs, pair[1]))
            assert json_text(result_json(score_without(game, pair, "r"))) == expected
        assert json_text(result_json(score_game(game, "r"))) == whole  # rescoring left the game as read
    assert compared > GAMES_PER_PACK  # the games did hold removable cards


def test_removing_a_card_that_changes_the_rules_judges_the_meals_again() -> None:
    """Without Chef Cinnamon (spiced critic courses triple), spiced courses count double again."""
    rs = load_ruleset()
    record = {
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": [c.id for c in _of_kind(rs, "challenge")[:3]],
                "round6": [c.id for c in _of_kind(rs, "challenge")[3:6]],
            },
            "critic": "chef-cinnamon",
        },
        "critic_meals": {"Ana": {"courses": {"fish": {"value": 5, "spice": "fish"}}}, "Ben": {"courses": {}}},
    }
    game = read_record(rs, record, "r")
    with_card = score_game(read_record(rs, record, "r"))
    without = score_without(game, ["chef-cinnamon"])
    assert [s.critic_quality for s in with_card.standings][0] == 15
    assert without.standings[0].critic_quality == 10


def test_a_meal_the_rules_without_the_card_refuse_counts_as_not_served() -> None:
    """Head Chef Brodo lets a token fill a critic course; without him that course is not served."""
    rs = load_ruleset([CARDS / "a-la-carte"])
    challenges = _of_kind(rs, "challenge")
    record = {
        "players": [{"name": "Ana", "head_chef": "head-chef-brodo"}, {"name": "Ben"}],
        "cards": {"challenges": {"round3": [c.id for c in challenges[:3]], "round6": [c.id for c in challenges[3:6]]}},
        "critic_meals": {"Ana": {"courses": {"fish": {"token": "bisque"}, "meat": {"value": 2}}}},
    }
    game = read_record(rs, record, "r")
    assert score_game(read_record(rs, record, "r")).standings[0].critic_quality == 5
    without = score_without(game, ["head-chef-brodo"])
    ana = next(s for s in without.standings if s.player.name == "Ana")
    assert ana.critic_quality == 2
    assert list(ana.player.courses) == ["meat"]


def test_only_cards_on_the_table_or_held_can_be_removed() -> None:
    rs = load_ruleset()
    record = random_record(rs, random.Random(3))
    game = read_record(rs, record, "r")
    challenge = record["cards"]["challenges"]["round3"][0]
    with pytest.raises(ValueError, match=f"not a removable card in play in this game: {challenge}"):
        score_without(game, [challenge])
    with pytest.raises(ValueError, match="not a removable card in play in this game: no-such-card"):
        score_without(game, ["no-such-card"])

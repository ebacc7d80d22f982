"""The base rules as RULES.md reads them, one behaviour per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen import InputError, load_ruleset, result_json, score_record

FIXTURES = Path(__file__).parent / "packs" / "fixtures"
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]  # the Hold token is on farmhouse-pie
ROUND6 = ["toasted-cheese", "river-chowder", "braised-shank"]


@pytest.fixture(scope="module")
def fixtures():
    return load_ruleset([FIXTURES])


def game(players=("Ana", "Ben"), round3=None, critic=None, cards=None, **extra):
    record = {
        "players": [{"name": p} if isinstance(p, str) else p for p in players],
        "cards": {"challenges": {"round3": ROUND3, "round6": ROUND6}, **(cards or {})},
    }
    if round3:
        record["challenge_meals"] = {"round3": round3}
    if critic:
        record["critic_meals"] = critic
    record.update(extra)
    return record


def stars_at(result, stage):
    out = {}
    for a in result_json(result)["awards"]:
        if a["stage"] == stage:
            out[a["player"]] = out.get(a["player"], 0) + a["stars"]
    return out


def meal_stars(base, meal, card="river-chowder"):
    record = game(round3=None)
    record["challenge_meals"] = {"round6": {"Ana": {card: meal}}}
    return stars_at(score_record(record, base), "challenge.round6").get("Ana", 0)


def carrot_fish(extra_soup=0, **more):
    meal = {"ingredients": [{"type": "carrot", "value": 5, "spice": "carrot"}, {"type": "fish", "value": 3}]}
    if extra_soup:
        meal["soup"] = extra_soup
    meal.update(more)
    return meal


# harbor-stew requires fish, carrot, bread; river-chowder requires fish, mushroom


def test_worked_example_13_is_two_stars(base):
    meal = carrot_fish(soup=1)  # bread is filled by the soup: 10 + 3 + 1 = 14
    record = game(round3={"Ana": {"harbor-stew": meal}})
    result = score_record(record, base)
    award = result_json(result)["awards"][0]
    assert award["reason"] == "Harbor Stew meal, quality 14"
    assert award["stars"] == 2


@pytest.mark.parametrize(("quality", "stars"), [(5, 0), (6, 1), (11, 1), (12, 2), (20, 2), (21, 4)])
def test_band_edges(base, quality, stars):
    # a fish of value (quality - 1) and one soup filling mushroom
    meal = {"ingredients": [{"type": "fish", "value": quality - 1}], "soup": 1}
    assert meal_stars(base, meal) == stars


def test_seed_example_bands(base):
    def chowder(soup):
        return {
            "ingredients": [{"type": "fish", "value": 5, "spice": "fish"}, {"type": "mushroom", "value": 3}],
            "soup": soup,
        }

    assert meal_stars(base, chowder(0)) == 2  # 13
    assert meal_stars(base, chowder(1)) == 2  # 14
    assert meal_stars(base, chowder(8)) == 4  # 21


def test_bisque_adds_three_and_fills(base):
    meal = {"ingredients": [{"type": "fish", "value": 2}], "bisque": 1}  # 2 + 3 = 5
    assert meal_stars(base, meal) == 0
    meal["soup"] = 1  # 6
    assert meal_stars(base, meal) == 1


def test_allspice_doubles_any_type(base):
    meal = {
        "ingredients": [
            {"type": "fish", "value": 3, "spice": "allspice"},
            {"type": "mushroom", "value": 3, "spice": "mushroom"},
        ]
    }
    assert meal_stars(base, meal) == 2  # 6 + 6 = 12


def test_hold_token_frees_the_last_requirement(base):
    # braised-shank is the last card of round 6: its last requirement is covered
    requires = base.cards["braised-shank"].requires
    covered = requires[-1]
    meal = {"ingredients": [{"type": k, "value": 4} for k in requires[:-1]]}
    assert meal_stars(base, meal, "braised-shank") >= 1
    meal["ingredients"].append({"type": covered, "value": 4})
    record = game()
    record["challenge_meals"] = {"round6": {"Ana": {"braised-shank": meal}}}
    with pytest.raises(InputError) as e:
        score_record(record, base, source="g.yaml")
    listed = ", ".join(requires[:-1])
    assert [p.format() for p in e.value.problems] == [
        f"g.yaml: challenge_meals.round6.Ana.braised-shank: {covered} is not listed on Braised Shank ({listed})"
    ]


def test_missing_type_needs_a_token(base):
    record = game()
    record["challenge_meals"] = {"round6": {"Ana": {"river-chowder": {"ingredients": [{"type": "fish", "value": 4}]}}}}
    with pytest.raises(InputError) as e:
        score_record(record, base, source="g.yaml")
    assert [p.format() for p in e.value.problems] == [
        "g.yaml: challenge_meals.round6.Ana.river-chowder: missing mushroom: 1 soup or bisque needed to fill, 0 given"
    ]


def test_only_soup_is_not_a_meal(base):
    record = game()
    record["challenge_meals"] = {"round6": {"Ana": {"river-chowder": {"soup": 2}}}}
    with pytest.raises(InputError) as e:
        score_record(record, base, source="g.yaml")
    assert [p.format() for p in e.value.problems] == [
        "g.yaml: challenge_meals.round6.Ana.river-chowder: no required ingredient, only soup"
    ]


def courses(*kinds, value=3, spice=None):
    out = {}
    for k in kinds:
        out[k] = {"value": value} if spice is None else {"value": value, "spice": spice}
    return out


ALL = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]


def test_most_soup_friendly_tie_and_zero_wins_nothing(base):
    critic = {"Ana": {"soup": 3}, "Ben": {"bisque": 1}, "Cleo": {}}
    result = score_record(game(players=("Ana", "Ben", "Cleo"), critic=critic), base)
    assert stars_at(result, "critic.most_soup") == {"Ana": 1, "Ben": 1}
    result = score_record(game(critic={"Ana": {}, "Ben": {"soup": 0}}), base)
    assert stars_at(result, "critic.most_soup") == {}


def test_all_courses_every_player_who_served_seven(base):
    critic = {
        "Ana": {"courses": courses(*ALL)},
        "Ben": {"courses": courses(*ALL)},
        "Cleo": {"courses": courses(*ALL[:6])},
    }
    result = score_record(game(players=("Ana", "Ben", "Cleo"), critic=critic), base)
    assert stars_at(result, "critic.all_courses") == {"Ana": 1, "Ben": 1}


def test_best_course_friendly_tie(base):
    critic = {
        "Ana": {"courses": {"fish": {"value": 5, "spice": "fish"}}},
        "Ben": {"courses": {"fish": {"value": 10}}},
        "Cleo": {"courses": {"fish": {"value": 9}}},
    }
    result = score_record(game(players=("Ana", "Ben", "Cleo"), critic=critic), base)
    assert stars_at(result, "critic.best_course") == {"Ana": 1, "Ben": 1}
    from critter_kitchen.report.text import explain_lines

    assert "critic.best_course [base-rules] best fish course: Ana 10, Ben 10 (friendly tie): +1 star each" in (
        explain_lines(result.awards)
    )


def test_fanatic_rumor_changes_final_quality_not_best_course(fixtures):
    critic = {
        "Ana": {"courses": {"fish": {"value": 5}, "meat": {"value": 6}}},
        "Ben": {"courses": {"fish": {"value": 6}, "meat": {"value": 4}}},
    }
    plain = result_json(score_record(game(critic=critic), fixtures))
    record = game(critic=critic, cards={"rumors": ["test-fish-fanatic"]})
    fanatic = score_record(record, fixtures)
    assert stars_at(fanatic, "critic.best_course") == {"Ana": 1, "Ben": 1}  # meat Ana, fish Ben: unchanged
    assert [s["critic_quality"] for s in plain["standings"]] == [11, 10]
    by_name = {s["name"]: s["critic_quality"] for s in result_json(fanatic)["standings"]}
    assert by_name == {"Ana": 16, "Ben": 16}


def test_passing_70(base):
    def final(total_fish_values):
        kinds = ALL[: len(total_fish_values)]
        critic = {"Ana": {"courses": {k: {"value": v} for k, v in zip(kinds, total_fish_values, strict=False)}}}
        return stars_at(score_record(game(critic=critic), base), "critic.final_quality").get("Ana", 0)

    assert final([9]) == 0
    assert final([10]) == 1
    assert final([20, 20, 20, 9]) == 6  # 69
    assert final([20, 20, 20, 10]) == 10  # 70: one lap, 0 left over
    assert final([20, 20, 20, 15]) == 10  # 75
    assert final([20, 20, 20, 20, 4]) == 11  # 84
    assert final([20, 20, 20, 20, 20, 20, 20]) == 20  # 140: two laps


def test_tie_break_on_critic_quality(base):
    critic = {"Ana": {"courses": {"fish": {"value": 3}}}, "Ben": {"courses": {"fish": {"value": 4}}}}
    result = score_record(game(critic=critic), base)
    # both: 0 final-quality stars; best fish goes to Ben alone
    assert result_json(result)["winner"] == "Ben"
    critic = {
        "Ana": {"courses": {"fish": {"value": 4}, "meat": {"value": 2}}},
        "Ben": {"courses": {"fish": {"value": 4}, "meat": {"value": 3}}},
    }
    # fish tied (1 star each), meat to Ben: Ben 2, Ana 1. Give Ana a soup star to tie on stars.
    critic["Ana"]["soup"] = 1
    result = score_record(game(critic=critic), base)
    j = result_json(result)
    assert [(s["name"], s["stars"], s["critic_quality"]) for s in j["standings"]] == [("Ben", 2, 7), ("Ana", 2, 6)]
    assert j["decided_by"] == "farther along the critic score track"


def test_tie_break_on_priority(base):
    critic = {"Ana": {"courses": {"fish": {"value": 4}}}, "Ben": {"courses": {"fish": {"value": 4}}}}
    j = result_json(score_record(game(players=("Ben", "Ana"), critic=critic), base))
    assert j["winner"] == "Ben"
    assert [s["rank"] for s in j["standings"]] == [1, 2]
    assert j["decided_by"] == "ahead on the priority track"


def test_replacing_a_stage_changes_the_result_with_no_code_change(fixtures):
    critic = {"Ana": {"soup": 5}, "Ben": {"soup": 1}}
    plain = score_record(game(critic=critic), fixtures)
    assert stars_at(plain, "critic.most_soup") == {"Ana": 1}
    record = game(critic=critic, cards={"critic": "test-thin-soup-critic"})
    replaced = score_record(record, fixtures)
    assert stars_at(replaced, "critic.most_soup") == {"Ben": 2}
    assert result_json(replaced)["winner"] == "Ben"


def test_restaurateur_applies_to_its_owner_only(fixtures):
    critic = {
        "Ana": {"courses": courses("fish", "meat", spice="allspice")},
        "Ben": {"courses": courses("fish", "meat", spice="allspice")},
    }
    record = game(players=({"name": "Ana", "restaurateur": "test-owner-bonus"}, "Ben"), critic=critic)
    assert stars_at(score_record(record, fixtures), "critic.card_bonuses") == {"Ana": 2}


def test_refrigeration_limit(base):
    record = game(players=({"name": "Ana", "kept": {"round3": 6, "round6": 10}}, "Ben"))
    with pytest.raises(InputError) as e:
        score_record(record, base, source="g.yaml")
    assert [p.format() for p in e.value.problems] == [
        "g.yaml: players[0].kept.round3: 6 ingredients and spices kept; the limit after round3 is 5"
    ]

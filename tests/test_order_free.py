"""The order of cards never changes a result: RULES.md, "How card effects combine".

Every effect at one hook point reads the game as the hook point began; its changes land
when the hook point ends, in layers (every set, then the sum of the adds, then the
product of the multiplies); awards are recorded in a canonical order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen import InputError, load_ruleset, result_json, score_record
from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
ORDER_FREE = ROOT / "tests" / "packs" / "order-free"
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]
ROUND6 = ["toasted-cheese", "river-chowder", "braised-shank"]


@pytest.fixture(scope="module")
def rules():
    return load_ruleset([ORDER_FREE])


def record(rumors, *, ana_fish=4, ben_fish=5, restaurateurs=(None, None)):
    players = []
    for name, owned in zip(("Ana", "Ben"), restaurateurs, strict=True):
        players.append({"name": name, **({"restaurateur": owned} if owned else {})})
    return {
        "players": players,
        "cards": {"challenges": {"round3": ROUND3, "round6": ROUND6}, "rumors": list(rumors)},
        "critic_meals": {
            "Ana": {"courses": {"fish": {"value": ana_fish}, "meat": {"value": 2}}},
            "Ben": {"courses": {"fish": {"value": ben_fish}}},
        },
    }


def qualities(result) -> dict[str, int]:
    return {s["name"]: s["critic_quality"] for s in result_json(result)["standings"]}


def test_an_add_and_a_multiply_of_one_course_give_the_same_totals_in_either_order(rules):
    forward = score_record(record(["fish-plus-three", "fish-double"]), rules)
    backward = score_record(record(["fish-double", "fish-plus-three"]), rules)
    # By hand, the add layer before the multiply layer: Ana (4 + 3) * 2 + meat 2, Ben (5 + 3) * 2.
    assert qualities(forward) == qualities(backward) == {"Ana": 16, "Ben": 16}
    assert result_json(forward) == result_json(backward)


def test_a_card_adding_and_multiplying_its_own_course_is_layered_too(rules):
    # The Fish Monger adds 1, then multiplies by 3, and Fish Plus Three adds 3: (4 + 1 + 3) * 3.
    result = score_record(record(["fish-plus-three"], restaurateurs=("fish-monger", None)), rules)
    assert qualities(result) == {"Ana": 26, "Ben": 8}


def test_a_card_reads_the_quality_it_changed_at_the_same_hook_point_as_it_was(rules):
    result = score_record(record(["fish-echo", "fish-double"]), rules)
    reasons = [(a["player"], a["reason"]) for a in result_json(result)["awards"] if a["card"] == "fish-echo"]
    assert reasons == [("Ana", "fish quality 4"), ("Ben", "fish quality 5")]  # not 9 or 8, nor 18 or 10
    assert qualities(result) == {"Ana": 20, "Ben": 20}  # (4 + 5) * 2 + 2, (5 + 5) * 2


def test_stars_awarded_at_a_hook_point_are_not_seen_at_that_hook_point(rules):
    # Fish Echo gives both a star after the rumors; Star Counter, at the same hook point,
    # sees the stars as they were (1 each from the best course): a friendly tie, 1 star each.
    result = score_record(record(["fish-echo", "star-counter"]), rules)
    counted = [(a["player"], a["reason"]) for a in result_json(result)["awards"] if a["card"] == "star-counter"]
    assert counted == [("Ana", "most stars so far (1)"), ("Ben", "most stars so far (1)")]


def test_a_set_comes_before_the_adds_of_its_hook_point(rules):
    # Before final quality: Fish Seven sets every fish course to 7, the Forager adds 2 to
    # its owner's unspiced courses of value below 4: Ana's fish 7 + 2, her meat 2 + 2.
    result = score_record(record(["fish-seven"], ana_fish=3, restaurateurs=("the-forager", None)), rules)
    assert qualities(result) == {"Ana": 13, "Ben": 7}


def test_awards_are_recorded_in_canonical_order_whatever_the_record_order(rules):
    cards = ["star-counter", "fish-echo", "fish-double", "fish-plus-three"]
    outputs = {str(result_json(score_record(record(order), rules))) for order in (cards, cards[::-1])}
    assert len(outputs) == 1
    awards = result_json(score_record(record(cards), rules))["awards"]
    rumor_cards = [a["card"] for a in awards if a["stage"] == "critic.rumors"]
    assert rumor_cards == sorted(rumor_cards)


def test_two_different_set_values_from_one_card_are_an_error_at_scoring(rules):
    with pytest.raises(InputError) as caught:
        score_record(record(["fish-twice"]), rules, source="game.yaml")
    (problem,) = caught.value.problems
    assert (problem.code, problem.where) == ("CK209", "cards")
    assert problem.message == (
        "card 'fish-twice' sets Ana's fish course quality to different values (2, 3) "
        "at one hook point of stage 'critic.rumors'"
    )


def test_two_cards_setting_one_quantity_at_one_hook_point_fail_validate(capsys, monkeypatch):
    # Fish First sets fish too, but before the rumors stage: no conflict with the others.
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/broken-sets"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tests/packs/broken-sets/flat-menu.yaml:5:12: CK209 quality(_, _) after stage 'critic.rumors' "
        "is also set by card 'mushroom-fanatic', and both can be in play",
        "tests/packs/broken-sets/mushroom-five.yaml:5:12: CK209 quality(_, mushroom) after stage 'critic.rumors' "
        "is also set by card 'flat-menu', and both can be in play",
        "tests/packs/broken-sets/mushroom-five.yaml:5:12: CK209 quality(_, mushroom) after stage 'critic.rumors' "
        "is also set by card 'mushroom-fanatic', and both can be in play",
    ]


def test_sets_at_different_hook_points_or_of_different_courses_are_no_conflict(capsys, monkeypatch):
    # Fish Seven sets fish before final quality, Fish Twice after the rumors (one card: its
    # values are checked at scoring), Mushroom Fanatic sets mushroom after the rumors.
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/order-free"]) == 0
    capsys.readouterr()

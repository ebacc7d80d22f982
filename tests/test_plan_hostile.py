"""A stranger's pantry (and pack) may make the planner spend bounded time and memory, nothing else.

Each test measures the planner's work in its own unit (``plan.steps``, see plan/work.py) or
asserts the located message that refuses the pantry; the alarm (``fuzzlib.time_limit``) only
turns a hang into a failure rather than a stuck run.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import fuzzlib
import pytest

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.cli import main
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import plan_critic
from critter_kitchen.plan.pantry import MAX_PANTRY_ITEMS
from critter_kitchen.plan.search import plan_round
from critter_kitchen.plan.work import FAST_RESERVE, PLAN_BUDGET, RUN_STEPS

ROOT = Path(__file__).resolve().parent.parent
BUSY = ROOT / "tests" / "hostile" / "busy-restaurateur"
SPICES = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread", "allspice"]
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]
# A plan's last few stage runs, reporting the plan chosen, go past the budget: each within a game's effect budget.
PAST_BUDGET = 8 * (RUN_STEPS + 200_000)


def pantry(ingredients: list, spices: list, soup: int = 0, bisque: int = 0, cards: list = ROUND3, **player) -> dict:
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": cards}},
        "player": {"name": "Ana", **player},
        "pantry": {"ingredients": ingredients, "spices": spices, "soup": soup, "bisque": bisque},
    }


@pytest.mark.parametrize("effort", ["exact", "fast"])
def test_one_fish_and_32_spices_lists_only_the_spicings_a_meal_can_take(base, effort):
    """Finding 1: each spice combination up to 32 spices was listed for the one fish (over 30 s);
    an ingredient takes ``spices_per_ingredient`` spices (1 here), of its type or the wild one."""
    asked = question(pantry([{"type": "fish", "value": 3}], [SPICES[i % 8] for i in range(32)]), base)
    with fuzzlib.time_limit(20):
        plan = plan_round(asked, effort=effort)
    assert plan.optimal
    assert plan.steps < 20_000  # a few meals and spicings, and a stage run or two


def test_more_spices_per_ingredient_are_listed_when_the_rules_allow(base, tmp_path):
    """The spice limit is the parameter in play, not a number written in the planner."""
    pack = tmp_path / "two-spices"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: two-spices\nname: Two spices\n", "utf-8")
    (pack / "rules.yaml").write_text(
        "id: two-spices-rules\nkind: rules\nname: Two spices\nparameters:\n  spices_per_ingredient: {value: 2}\n",
        "utf-8",
    )
    rules = load_ruleset([str(pack)])
    fish = [{"type": "fish", "value": 3}, {"type": "carrot", "value": 1}, {"type": "bread", "value": 1}]
    plan = plan_round(question(pantry(fish, ["fish", "allspice", "carrot"], cards=ROUND3), rules))
    assert plan.optimal
    spices = {i.type: i.spices for m in plan.meals.values() for i in m.ingredients}
    assert sorted(spices["fish"]) == ["allspice", "fish"]  # both on the fish: 3 * 2 * 2


@pytest.mark.parametrize("effort", ["exact", "fast"])
def test_a_million_soups_and_bisques_plan_like_enough_of_them(base, effort):
    """Finding 2: every (soup, bisque) pair was built (MemoryError at 2 GB). Counts no meal can fill
    with are left out of the search and left over: ``left`` still counts every token held."""
    items = [{"type": "fish", "value": 3}, {"type": "carrot", "value": 2}]
    many = question(pantry(items, [], 1_000_000, 1_000_000), base)
    with fuzzlib.time_limit(20):
        plan = plan_round(many, effort=effort)
    assert plan.steps < PLAN_BUDGET
    spent = {name: sum(m.tokens.get(name, 0) for m in plan.meals.values()) for name in ("soup", "bisque")}
    assert plan.left_tokens == {"soup": 1_000_000 - spent["soup"], "bisque": 1_000_000 - spent["bisque"]}
    assert plan.stars > 0 and not plan.optimal  # the folded search is not proved best


def test_the_command_reports_every_token_kept(base, tmp_path, capsys):
    path = tmp_path / "pantry.json"
    path.write_text(json.dumps(pantry([{"type": "fish", "value": 3}], [], 1_000_000, 7)), "utf-8")
    with fuzzlib.time_limit(20):
        assert main(["plan", str(path), "--format", "json", "--effort", "fast"]) == 0
    out = json.loads(capsys.readouterr().out)
    spent = sum(m.get("soup", 0) for m in out["meals"].values())
    assert out["left"]["soup"] == 1_000_000 - spent


def test_a_pantry_of_thousands_of_items_is_refused(base, tmp_path, capsys):
    """Finding 3: 6,000 items took 1.5 GB; a pantry holds at most MAX_PANTRY_ITEMS."""
    data = pantry([{"type": "fish", "value": 1 + i % 50} for i in range(5_990)], ["fish"] * 10)
    with pytest.raises(InputError) as e:
        question(data, base, source="pantry.yaml")
    assert [p.line_text() for p in e.value.problems] == [
        "pantry.yaml: pantry: 6000 ingredients and spices; a pantry may hold at most 200"
    ]
    assert MAX_PANTRY_ITEMS == 200
    path = tmp_path / "pantry.json"
    path.write_text(json.dumps(data), "utf-8")
    assert main(["plan", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().endswith("pantry: 6000 ingredients and spices; a pantry may hold at most 200")


def test_a_pantry_at_the_item_limit_is_planned_within_the_budget(base):
    data = pantry([{"type": SPICES[i % 7], "value": 1 + i % 9} for i in range(180)], [SPICES[i % 8] for i in range(20)])
    with fuzzlib.time_limit(60):
        plan = plan_round(question(data, base))
    assert plan.steps <= PLAN_BUDGET + PAST_BUDGET
    assert not plan.optimal


def test_a_busy_restaurateur_stops_the_plan_at_its_budget():
    """Finding 4: a restaurateur spending about 45,000 steps a meal (135,000 a plan, within a game's
    budget) made an 8-item exact plan run for over a minute: its stage runs count in the plan's work."""
    rules = load_ruleset([str(BUSY)])
    kinds = ["carrot", "cheese", "bread", "mushroom", "cheese"]
    items = [{"type": kinds[i % 5], "value": 1 + (i * 5) % 9} for i in range(5)]
    data = pantry(
        items, ["allspice"], 1, 1, ["garden-gratin", "toasted-cheese", "mushroom-toast"], restaurateur="busy-bee"
    )
    with fuzzlib.time_limit(60):
        plan = plan_round(question(data, rules))
    assert plan.optimal is False
    # the exact search stops past its share of the budget; the fast effort runs on the rest
    assert PLAN_BUDGET - PLAN_BUDGET // FAST_RESERVE < plan.steps <= PLAN_BUDGET + PAST_BUDGET
    assert plan.stars > 0
    # the exact search leaves part of the budget to the fast effort, whose plan it then weighs
    fast = plan_round(question(data, rules), effort="fast")
    assert plan.stars >= fast.stars


def test_a_critic_meal_of_a_million_tokens_stops_at_its_budget(base):
    data = {
        "for": "critic",
        "cards": {"critic": "madame-bouillon"},
        "pantry": {"ingredients": [{"type": SPICES[i % 7], "value": 1 + i} for i in range(30)], "soup": 10**6},
    }
    with fuzzlib.time_limit(60):
        plan = plan_critic(question(data, base))
    assert plan.steps <= PLAN_BUDGET + PAST_BUDGET


def test_two_threads_plan_at_once_as_one_does(base):
    """The score pad plans from worker threads: the planner's memories of a table are per thread."""
    import random

    from test_plan import random_pantry

    rng = random.Random(5)
    pantries = [random_pantry(rng, base, ["harbor-stew", "forest-risotto", "farmhouse-pie"], []) for _ in range(30)]
    alone = [plan_round(question(p, base)).stars for p in pantries]
    found: dict[int, list[int]] = {}

    def plan_all(k: int) -> None:
        found[k] = [plan_round(question(p, base)).stars for p in pantries]

    threads = [threading.Thread(target=plan_all, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == {0: alone, 1: alone}

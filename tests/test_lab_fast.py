"""The planner's fast effort, as the balance lab plays it: at tables whose stars do not add up it
runs the stages a bounded number of times, its plans stay legal, scored by the engine and the
same on every run, and it loses little against the exact plan; the fast critic meal likewise."""

from __future__ import annotations

import random
import statistics

import pytest
from test_plan_fast import RESTAURATEURS, engine_stars, order

from critter_kitchen import InputError, score_record
from critter_kitchen.plan import critic_quick, critic_search, exact, question, quick, scorer
from critter_kitchen.plan.critic import critic_record, plan_critic
from critter_kitchen.plan.output import plan_record
from critter_kitchen.plan.search import plan_round

KINDS = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
# cards whose stars do not add up over meals, none comparing players (so a game record with a
# rival serving nothing gives the player the stars the planner counts alone)
NOT_ADDING_UP = {"critic": "grandmother-truffle", "rumors": ["cheese-fanatic", "fish-fanatic", "meatless-menu"]}


def ids(ruleset, kind: str) -> list[str]:
    return sorted(c.id for c in ruleset.cards.values() if c.kind == kind)


def lab_pantry(rng: random.Random, ruleset, ingredients: int, table: dict | None = None) -> dict:
    """A round-3 pantry at a table as the lab deals one: a critic, three rumors, a restaurateur."""
    cards = rng.sample(ids(ruleset, "challenge"), 6)
    kinds = sorted({k for c in cards[:3] for k in ruleset.cards[c].requires})
    table = table or {"critic": rng.choice(ids(ruleset, "critic")), "rumors": rng.sample(ids(ruleset, "rumor"), 3)}
    # (random rumors may compare players: then a record's stars differ from those planned alone)
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": cards[:3]}, **table},
        "player": {"name": "Ana", "restaurateur": rng.choice(RESTAURATEURS)},
        "pantry": {
            "ingredients": [{"type": rng.choice(kinds), "value": rng.randint(1, 6)} for _ in range(ingredients)],
            "spices": [rng.choice([*kinds, "allspice"]) for _ in range(rng.randint(0, 2))],
            "soup": rng.randint(1, 3),
            "bisque": rng.randint(0, 1),
        },
        "_round6": cards[3:],
    }


def asked(pantry: dict, ruleset):
    return question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)


@pytest.fixture
def stage_runs(monkeypatch):
    """How many times the planners run the stages (a count, not a time)."""
    runs = [0]

    def counting(run):
        def counted(*args, **kwargs):
            runs[0] += 1
            return run(*args, **kwargs)

        return counted

    monkeypatch.setattr(scorer, "run_stages", counting(scorer.run_stages))
    monkeypatch.setattr(critic_search, "run_stages", counting(critic_search.run_stages))
    exact.CONTEXTS.clear()  # a new table: its baseline and stars alone are scored afresh
    return runs


def test_a_large_pantry_at_a_table_whose_stars_do_not_add_up_is_planned_with_few_stage_runs(base, stage_runs):
    pantry = lab_pantry(random.Random(3), base, 12, NOT_ADDING_UP)
    one = asked(pantry, base)
    assert not exact.context(one).separable
    stage_runs[0] = 0
    plan = plan_round(one, effort="fast")
    # the stars of meals alone (per card), the plans scored together; the table's baseline is known
    assert stage_runs[0] <= 3 * quick.SCORED_PER_CARD + quick.PLANS_SCORED
    assert plan.meals and not plan.optimal
    assert engine_stars(pantry, plan, base) == plan.stars  # legal, and the engine's stars


def test_the_exact_search_of_the_same_listed_meals_runs_the_stages_far_more(base, stage_runs):
    """What the bound saves: the exact search over the same first meals of each card."""
    one = asked(lab_pantry(random.Random(3), base, 12, NOT_ADDING_UP), base)
    plan_round(one, effort="fast")
    bounded = stage_runs[0]
    exact.CONTEXTS.clear()
    stage_runs[0] = 0
    whole = exact.FastSearch(one, quick.FAST_MEALS_PER_CARD, per_card=quick.FAST_MEALS_PER_CARD)
    (stars, *_), _ = whole.run()
    assert stage_runs[0] > 10 * bounded
    assert plan_round(one, effort="fast").stars <= stars


def test_the_fast_plan_is_the_same_on_every_run_and_at_a_fresh_table(base):
    for seed in range(6):
        pantry = lab_pantry(random.Random(100 + seed), base, 10)
        plans = []
        for _ in range(2):
            exact.CONTEXTS.clear()
            plans.append(plan_record(plan_round(asked(pantry, base), effort="fast")))
        plans.append(plan_record(plan_round(asked(pantry, base), effort="fast")))  # the table remembered
        assert plans[0] == plans[1] == plans[2], seed


def test_a_table_with_few_meals_gets_the_exact_plan_and_says_so(base):
    pantry = {
        "for": "round3",
        "cards": {"challenges": {"round3": ["harbor-stew", "river-chowder", "smoked-platter"]}, **NOT_ADDING_UP},
        "player": {"name": "Ana", "restaurateur": "harbor-master"},
        "pantry": {"ingredients": [{"type": "fish", "value": 5}], "soup": 0, "bisque": 0},
        "_round6": ["sunday-roast", "toasted-cheese", "garden-gratin"],
    }
    one = asked(pantry, base)
    assert not exact.context(one).separable
    quick_plan, exact_plan = plan_round(one, effort="fast"), plan_round(one)
    assert quick_plan.optimal and order(quick_plan) == order(exact_plan)


def test_at_lab_tables_the_fast_effort_is_legal_never_better_than_exact_and_loses_little(base):
    losses = []
    for seed in range(40):
        pantry = lab_pantry(random.Random(200 + seed), base, random.Random(seed).randint(3, 6))
        one = asked(pantry, base)
        fast, best = plan_round(one, effort="fast"), plan_round(one)
        engine_stars(pantry, fast, base)  # the engine reads the meals (InputError if one were illegal)
        assert order(fast) == order(best) if fast.optimal else order(fast) <= order(best)
        losses.append(best.stars - fast.stars)
    assert statistics.fmean(losses) <= 0.1  # tools/bench_plan.py measures it on 1,000 pantries


def critic_pantry(rng: random.Random, ruleset, ingredients: int) -> dict:
    return {
        "for": "critic",
        "cards": {"critic": rng.choice(ids(ruleset, "critic")), "rumors": rng.sample(ids(ruleset, "rumor"), 3)},
        "player": {"name": "Ana", "restaurateur": rng.choice(RESTAURATEURS)},
        "pantry": {
            "ingredients": [{"type": rng.choice(KINDS), "value": rng.randint(1, 5)} for _ in range(ingredients)],
            "spices": [rng.choice([*KINDS, "allspice"]) for _ in range(rng.randint(0, 3))],
            "soup": rng.randint(0, 4),
            "bisque": rng.randint(0, 1),
        },
    }


def is_accepted(pantry: dict, plan, ruleset) -> bool:
    cards = {
        "challenges": {
            "round3": ["harbor-stew", "river-chowder", "smoked-platter"],
            "round6": ["sunday-roast", "toasted-cheese", "garden-gratin"],
        },
        **pantry["cards"],
    }
    record = {"players": [pantry["player"], {"name": "Bo"}], "cards": cards, **critic_record(plan)}
    try:
        score_record(record, ruleset)
    except InputError:
        return False
    return True


def test_the_fast_critic_meal_scores_at_most_its_limit_and_is_legal(base, stage_runs):
    for seed in range(8):
        pantry = critic_pantry(random.Random(300 + seed), base, 12)
        stage_runs[0] = 0
        plan = plan_critic(question(pantry, base), effort="fast")
        assert stage_runs[0] <= critic_quick.FAST_LIMIT + 1  # and the meal of no course, once
        assert not plan.optimal
        assert is_accepted(pantry, plan, base), seed


def test_the_fast_critic_meal_is_the_same_on_every_run_never_better_than_exact_and_loses_little(base):
    losses = []
    for seed in range(30):
        one = question(critic_pantry(random.Random(400 + seed), base, random.Random(seed).randint(4, 7)), base)
        first, again, best = plan_critic(one, effort="fast"), plan_critic(one, effort="fast"), plan_critic(one)
        assert critic_record(first) == critic_record(again)
        assert (first.stars, first.critic_quality) <= (best.stars, best.critic_quality)
        losses.append(best.stars - first.stars)
    assert statistics.fmean(losses) <= 0.1


def test_the_fast_critic_meal_puts_the_wild_spice_where_it_adds_most(base):
    """The first meal is built by quality gained: a single wild spice goes on the most valuable course."""
    pantry = {
        "for": "critic",
        "cards": {"critic": "chef-cinnamon"},
        "pantry": {
            "ingredients": [{"type": "carrot", "value": 2}, {"type": "wine", "value": 5}],
            "spices": ["allspice"],
        },
    }
    plan = plan_critic(question(pantry, base), effort="fast")
    assert {k: c.spices for k, c in plan.courses.items()} == {"carrot": (), "wine": ("allspice",)}

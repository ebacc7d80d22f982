"""The planner's fast exact search equals the exhaustive reference search, its proofs about what
the programs in play read are right, and its fast effort gives legal plans."""

from __future__ import annotations

import json
import random

import pytest
from test_plan import ana_stars

from critter_kitchen import CritterError
from critter_kitchen.model.ruleset import WILD_SLOT
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import plan_critic
from critter_kitchen.plan.exact import FastSearch
from critter_kitchen.plan.exhaustive import plan_round_exhaustive
from critter_kitchen.plan.output import plan_record
from critter_kitchen.plan.plans import Plan, PlannedMeal
from critter_kitchen.plan.programs import programs
from critter_kitchen.plan.reads import separable, signature_of
from critter_kitchen.plan.search import plan_round

RESTAURATEURS = ("harbor-master", "spice-merchant", "the-collector", "the-forager", "grand-caterer", "lucky-cat")
TEST_RUMORS = ("two-bite-special", "lucky-seven")
TEST_RESTAURATEURS = ("soup-snob", "front-runner", *RESTAURATEURS)


def challenge_ids(ruleset) -> list[str]:
    return sorted(c.id for c in ruleset.cards.values() if c.kind == "challenge")


def listed_kinds(ruleset, cards: list[str]) -> list[str]:
    """The ingredient types these cards print; every type when one prints a wildcard slot."""
    kinds = {k for c in cards for k in ruleset.cards[c].requires}
    return sorted(ruleset.ingredient_types) if WILD_SLOT in kinds else sorted(kinds)


def random_pantry(rng: random.Random, ruleset, *, held: tuple[str, ...] = (), rumors: tuple[str, ...] = ()) -> dict:
    """A round-3 pantry: up to 5 ingredients of the cards' types, up to 2 spices, soup and bisque."""
    cards = rng.sample(challenge_ids(ruleset), 6)
    kinds = listed_kinds(ruleset, cards[:3])
    wild = ruleset.base_params()["wild_spice"]
    player: dict = {"name": "Ana"}
    if held and rng.random() < 0.8:
        player["restaurateur"] = rng.choice(held)
    table: dict = {"challenges": {"round3": cards[:3]}}
    if rumors and rng.random() < 0.8:
        table["rumors"] = rng.sample(rumors, rng.randint(1, len(rumors)))
    return {
        "for": "round3",
        "cards": table,
        "player": player,
        "pantry": {
            "ingredients": [{"type": rng.choice(kinds), "value": rng.randint(1, 8)} for _ in range(rng.randint(1, 5))],
            "spices": [rng.choice([*kinds, wild]) for _ in range(rng.randint(0, 2))],
            "soup": rng.randint(0, 2),
            "bisque": rng.randint(0, 1),
        },
        "_round6": cards[3:],
    }


def order(plan: Plan) -> tuple[int, int, int, int]:
    return (plan.stars, plan.unused_value, -plan.tokens_spent, len(plan.left_spices))


def record_of(pantry: dict, meals: dict) -> dict:
    """A two-player game record holding Ana's planned meals (the second player serves none)."""
    cards = {
        **pantry["cards"],
        "challenges": {"round3": pantry["cards"]["challenges"]["round3"], "round6": pantry["_round6"]},
    }
    return {
        "players": [pantry["player"], {"name": "Bo"}],
        "cards": cards,
        "challenge_meals": {"round3": {"Ana": meals}},
    }


def engine_stars(pantry: dict, plan: Plan, ruleset) -> int:
    """The stars the engine gives the plan written into a game record (it refuses an illegal meal)."""
    meals = plan_record(plan)["challenge_meals"]["round3"]["Ana"]
    return ana_stars(record_of(pantry, meals), ruleset) - ana_stars(record_of(pantry, {}), ruleset)


def agree(ruleset, seeds: range, **kinds: tuple[str, ...]) -> None:
    for seed in seeds:
        pantry = random_pantry(random.Random(seed), ruleset, **kinds)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        fast, reference = plan_round(asked), plan_round_exhaustive(asked)
        assert (fast.optimal, reference.optimal) == (True, True)
        assert order(fast) == order(reference), (seed, pantry)
        assert engine_stars(pantry, fast, ruleset) == fast.stars, (seed, pantry)


@pytest.mark.parametrize("chunk", range(4))
def test_fast_exact_equals_exhaustive_for_the_base_pack(base, chunk):
    agree(base, range(chunk * 100, chunk * 100 + 100))


@pytest.mark.parametrize("chunk", range(3))
def test_fast_exact_equals_exhaustive_with_restaurateurs(base, chunk):
    agree(base, range(10_000 + chunk * 100, 10_000 + chunk * 100 + 100), held=RESTAURATEURS)


@pytest.mark.parametrize("chunk", range(3))
def test_fast_exact_equals_exhaustive_for_a_la_carte(alc, chunk):
    agree(alc, range(20_000 + chunk * 100, 20_000 + chunk * 100 + 100))


@pytest.mark.parametrize("chunk", range(2))
def test_fast_exact_equals_exhaustive_with_repeated_requirements(repeated_no_hold, chunk):
    agree(repeated_no_hold, range(30_000 + chunk * 100, 30_000 + chunk * 100 + 100), held=RESTAURATEURS)


@pytest.mark.parametrize("chunk", range(4))
def test_fast_exact_equals_exhaustive_with_test_cards(planner_cards, chunk):
    agree(
        planner_cards,
        range(40_000 + chunk * 100, 40_000 + chunk * 100 + 100),
        held=TEST_RESTAURATEURS,
        rumors=TEST_RUMORS,
    )


def proofs(ruleset, *ids: str) -> tuple[bool, str]:
    trees = programs(ruleset, [ruleset.cards[i] for i in ids])
    signature = signature_of(trees, ruleset)
    meal = PlannedMeal(ruleset.cards["harbor-stew"], (), {"soup": 1}, 9)
    return separable(trees), repr(signature(meal))


def test_what_the_programs_in_play_read_of_a_meal(planner_cards):
    assert proofs(planner_cards) == (True, "(9,)")  # the base stages read a meal's quality only
    assert proofs(planner_cards, "lucky-seven") == (True, "(9,)")
    assert proofs(planner_cards, "grand-caterer") == (True, "(9,)")
    assert proofs(planner_cards, "two-bite-special") == (
        True,
        "((), (('soup', 1),))",
    )  # its ingredients: the whole meal
    assert proofs(planner_cards, "soup-snob") == (False, "(9, 1)")  # its token count; two meals read at once
    assert proofs(planner_cards, "harbor-master") == (False, "(9, (0, 0, 0, 0, 0, 0, 0))")  # fish used over meals
    assert proofs(planner_cards, "spice-merchant") == (False, "(9, 0)")
    assert proofs(planner_cards, "front-runner") == (False, "(9,)")  # reads stars: every meal's stars at once


UNUSUAL = {
    "for": "round3",
    "cards": {"challenges": {"round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"]}, "rumors": ["lucky-seven"]},
    "player": {"name": "Ana"},
    "pantry": {
        "ingredients": [{"type": "fish", "value": 8}, {"type": "fish", "value": 5}, {"type": "carrot", "value": 1}],
        "soup": 1,
    },
}


def served(plan: Plan) -> dict[str, tuple[int, list[tuple[str, int]]]]:
    return {c: (m.quality, [(i.type, i.value) for i in m.ingredients]) for c, m in plan.meals.items()}


def test_a_card_rewarding_a_lower_quality_changes_the_plan(planner_cards):
    """Lucky Seven (3 stars for a meal of quality exactly 7) makes the smaller Harbor Stew best."""
    without = plan_round(question({**UNUSUAL, "cards": {"challenges": UNUSUAL["cards"]["challenges"]}}, planner_cards))
    assert (served(without), without.stars) == ({"harbor-stew": (15, [("fish", 8), ("fish", 5), ("carrot", 1)])}, 2)
    plan = plan_round(question(UNUSUAL, planner_cards))
    assert (served(plan), plan.stars, plan.optimal) == ({"harbor-stew": (7, [("fish", 5), ("carrot", 1)])}, 4, True)


def test_the_separable_proof_is_used_and_the_general_search_otherwise(planner_cards):
    separate = FastSearch(question(UNUSUAL, planner_cards), 10_000)
    separate.run()
    general = FastSearch(
        question({**UNUSUAL, "player": {"name": "Ana", "restaurateur": "soup-snob"}}, planner_cards), 10_000
    )
    general.run()
    assert (separate.separable, general.separable) == (True, False)


def test_a_limit_cuts_the_fast_exact_search_and_every_card_gets_its_share(base):
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
    plan = plan_round(question(pantry, base), limit=600)
    assert (plan.optimal, plan.nodes) == (False, 600)
    assert len(plan.meals) == 3  # each card got 200 meals checked, enough for a meal each
    assert (
        engine_stars({**pantry, "_round6": ["sunday-roast", "toasted-cheese", "garden-gratin"]}, plan, base)
        == plan.stars
    )


@pytest.mark.parametrize("fixture", ["base", "alc", "planner_cards"])
def test_the_fast_effort_gives_legal_plans_claimed_best_only_when_they_are(fixture, request):
    ruleset = request.getfixturevalue(fixture)
    kinds = {"held": TEST_RESTAURATEURS, "rumors": TEST_RUMORS} if fixture == "planner_cards" else {}
    for seed in range(60):
        pantry = random_pantry(random.Random(50_000 + seed), ruleset, **kinds)
        asked = question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)
        quick, exact = plan_round(asked, effort="fast"), plan_round(asked)
        assert order(quick) == order(exact) if quick.optimal else order(quick) <= order(exact)
        assert engine_stars(pantry, quick, ruleset) == quick.stars


def test_an_unknown_effort_is_refused(base):
    asked = question({k: v for k, v in random_pantry(random.Random(1), base).items() if k[0] != "_"}, base)
    with pytest.raises(CritterError) as caught:
        plan_round(asked, effort="quick")
    assert str(caught.value) == "unknown effort 'quick'; use one of exact, fast"


def test_several_pantries_print_one_json_object_a_line_with_its_source(tmp_path, capsys):
    """As ``score`` prints a batch (INTERFACE.md): one compact object per line, ``source`` first."""
    from test_plan import WORKED, run_plan

    (tmp_path / "ana.yaml").write_text(WORKED, encoding="utf-8")
    (tmp_path / "bo.yaml").write_text(WORKED.replace("Ana", "Bo"), encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "ana.yaml"), str(tmp_path / "bo.yaml"), "--format", "json")
    lines = out.splitlines()
    assert (status, err, len(lines)) == (0, "", 2)
    first, second = (json.loads(line) for line in lines)
    assert (list(first)[:2], first["source"], second["source"]) == (
        ["source", "for"],
        str(tmp_path / "ana.yaml"),
        str(tmp_path / "bo.yaml"),
    )
    assert {k: v for k, v in first.items() if k != "source"} == {k: v for k, v in second.items() if k != "source"}
    assert lines[0] == json.dumps(first, separators=(",", ":"), ensure_ascii=False)


def test_the_command_plans_with_the_fast_effort(tmp_path, capsys):
    from test_plan import WORKED, run_plan

    (tmp_path / "ana.yaml").write_text(WORKED, encoding="utf-8")
    status, out, err = run_plan(capsys, str(tmp_path / "ana.yaml"), "--format", "json", "--effort", "fast")
    exact_status, exact_out, _ = run_plan(capsys, str(tmp_path / "ana.yaml"), "--format", "json")
    quick, exact = json.loads(out), json.loads(exact_out)
    assert (status, exact_status, err) == (0, 0, "")
    assert quick == exact  # a small pantry: the fast effort judged every meal, so it is proved too


def test_the_fast_critic_meal_is_claimed_best_only_when_it_is(base):
    kinds = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
    pantry = {
        "for": "critic",
        "cards": {"critic": "the-purist"},
        "pantry": {"ingredients": [{"type": kinds[i % 7], "value": 1 + i % 5} for i in range(12)], "soup": 1},
    }
    asked = question(pantry, base)
    quick, exact = plan_critic(asked, effort="fast"), plan_critic(asked)
    assert (quick.optimal, exact.optimal) == (False, True)
    assert (quick.stars, quick.critic_quality) <= (exact.stars, exact.critic_quality)
    from test_plan import random_critic_pantry

    for seed in range(10):
        asked = question(random_critic_pantry(random.Random(60_000 + seed), base, []), base)
        quick, exact = plan_critic(asked, effort="fast"), plan_critic(asked)
        assert (quick.stars, quick.critic_quality) == (exact.stars, exact.critic_quality) or not quick.optimal
    with pytest.raises(CritterError) as caught:
        plan_critic(asked, effort="slow")
    assert str(caught.value) == "unknown effort 'slow'; use one of exact, fast"


def test_keep_is_the_best_critic_meal_among_every_choice_that_fits(base):
    """Brute force: every subset of the items left that fits the refrigeration limit, planned alone."""
    import itertools

    from critter_kitchen.plan.critic import plan_keep
    from critter_kitchen.plan.pantry import CRITIC, Question

    kinds = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
    for seed in range(6):
        rng = random.Random(70_000 + seed)
        asked = question(
            {k: v for k, v in random_pantry(rng, base, held=RESTAURATEURS).items() if not k.startswith("_")}, base
        )
        left = [(rng.choice(kinds), rng.randint(1, 9)) for _ in range(rng.randint(5, 6))]
        spices = [rng.choice([*kinds, "allspice"]) for _ in range(rng.randint(0, 2))]
        keep = plan_keep(asked, left, spices)
        assert keep is not None and keep.optimal
        assert len(keep.ingredients) + len(keep.spices) <= 5
        items = [("i", x) for x in left] + [("s", x) for x in spices]
        best = (0, 0)
        for size in range(6):
            for chosen in itertools.combinations(items, size):
                alone = Question(
                    base,
                    CRITIC,
                    (),
                    asked.table,
                    "Ana",
                    asked.owned,
                    tuple(x for k, x in chosen if k == "i"),
                    tuple(x for k, x in chosen if k == "s"),
                    dict.fromkeys(asked.tokens, 0),
                )
                meal = plan_critic(alone)
                best = max(best, (meal.stars, meal.critic_quality))
        assert (keep.critic.stars, keep.critic.critic_quality) == best, seed

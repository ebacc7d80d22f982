"""The exact critic-meal search's faster paths: courses seen only in the meal's sum, the
stages run once for each view of a meal up to the first program seeing that sum, the
stages after it run once for each critic quality, and the tokens kept apart beside the
stars of a stage. Each is proved from the programs in play and checked against the plain
engine run and the exhaustive search."""

from __future__ import annotations

import random

import pytest
from conftest import ROOT
from test_plan import random_critic_pantry

from critter_kitchen import load_ruleset
from critter_kitchen.model.game import Course
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import plan_critic, plan_critic_exhaustive
from critter_kitchen.plan.critic_exact import ExactCriticSearch, hook_points, stage_programs
from critter_kitchen.plan.critic_reads import first_sum_reader, sum_only, summed_types, tokens_apart
from critter_kitchen.plan.programs import programs
from critter_kitchen.stages.runner import POINTS

BASE_TYPES = ("carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread")
# Test rumors that meet the new paths: a sum read early, the stars of a stage that reads
# tokens, a sum read twice, a change after the score track, a change that meets the 0 floor.
SPEED_RUMORS = ("early-taster", "soup-and-courses", "lucky-nines", "late-carrot", "bitter-herbs")
# Shipped cards that meet them too: changes by a number, a variable, a set, a multiply;
# the stars of a stage; a sum read by a held card; a change before the score track.
SHIPPED = ("fish-fanatic", "stale-bread", "mushroom-fanatic", "cheese-fanatic", "underdog", "spice-hound")


def pantry_at(critic: str, rumors: list[str], *, owned: str | None = None, size: int = 4) -> dict:
    rng = random.Random(size)
    pantry = {
        "for": "critic",
        "cards": {"critic": critic, **({"rumors": rumors} if rumors else {})},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": BASE_TYPES[i % 7], "value": rng.randint(1, 9)} for i in range(size)],
            "spices": ["allspice"],
            "soup": 1,
            "bisque": 1,
        },
    }
    if owned is not None:
        pantry["player"]["restaurateur"] = owned
    return pantry


def search_at(ruleset, critic: str, *rumors: str, owned: str | None = None) -> ExactCriticSearch:
    return ExactCriticSearch(question(pantry_at(critic, list(rumors), owned=owned), ruleset), 200_000)


def summed(ruleset, *cards: str) -> set[str]:
    trees = programs(ruleset, tuple(ruleset.cards[c] for c in cards))
    return set(summed_types(trees, BASE_TYPES, ruleset.parameters))


def test_which_course_qualities_are_seen_only_in_the_sum(critic_cards):
    # The base stages: the best-course star goes to the only player whatever the quality;
    # the score track and the tie-break read the total.
    assert summed(critic_cards) == set(BASE_TYPES)
    # Adding a number of at least 0 keeps a course in the sum, to one type or to each.
    assert summed(critic_cards, "cheese-fanatic") == set(BASE_TYPES)
    assert summed(critic_cards, "the-forager") == set(BASE_TYPES)
    # Doubling, setting, or adding what may meet the 0 floor needs the course's own quality.
    assert summed(critic_cards, "fish-fanatic") == set(BASE_TYPES) - {"fish"}
    assert summed(critic_cards, "mushroom-fanatic") == set(BASE_TYPES) - {"mushroom"}
    assert summed(critic_cards, "stale-bread") == set(BASE_TYPES) - {"bread"}
    # ... and when the course is a loop's variable, it may be any course.
    assert summed(critic_cards, "bitter-herbs") == set()
    # Marco Polenta counts the courses of quality 12 or more, course by course.
    alc = load_ruleset([ROOT / "cards" / "a-la-carte"])
    trees = programs(alc, (alc.cards["marco-polenta"],))
    assert summed_types(trees, alc.base_params()["course_types"], alc.parameters) == frozenset()


def test_an_award_to_the_highest_of_every_player_sees_only_its_condition(critic_cards):
    spiced = Course("fish", 5, ("fish",), None, 10)
    # The best-course star: whatever the quality, to the only player who served the course.
    assert search_at(critic_cards, "chef-cinnamon").signature(spiced) == (10, None, None, None)
    # Spice Hound's star goes to the only player when a course is spiced: the condition is seen.
    assert search_at(critic_cards, "chef-cinnamon", "spice-hound").signature(spiced) == (10, None, True, None)


def test_where_the_stages_start_again_for_each_meal_of_one_view(critic_cards):
    def start(critic: str, *rumors: str, owned: str | None = None) -> tuple[str, int, bool]:
        search = search_at(critic_cards, critic, *rumors, owned=owned)
        stage = critic_cards.stages[search.resume_at // POINTS].name
        return stage, search.resume_at % POINTS, search.tail_sum_only

    # The score track's body is the first to read the sum; after it, nothing but the sum.
    assert start("chef-cinnamon") == ("critic.final_quality", 1, True)
    # The Forager's changes run before it: still there, and they are carried over.
    assert start("chef-cinnamon", owned="the-forager") == ("critic.final_quality", 1, True)
    # Lucky Cat reads the sum among the card bonuses: from there on.
    assert start("chef-cinnamon", owned="lucky-cat") == ("critic.card_bonuses", 2, True)
    assert start("chef-cinnamon", "lucky-nines") == ("critic.card_bonuses", 2, True)
    # Early Taster reads it after the best course; the rumors change qualities later.
    assert start("chef-cinnamon", "early-taster", "fish-fanatic") == ("critic.best_course", 2, False)
    # A change after the score track: the tail is run for each meal.
    assert start("chef-cinnamon", "late-carrot") == ("critic.final_quality", 1, False)
    # No course in the sum: no start again.
    assert search_at(critic_cards, "chef-cinnamon", "bitter-herbs").resume_at == 0


def test_where_the_stages_start_again_for_each_meal_of_the_same_courses_served(critic_cards):
    def start(critic: str, *rumors: str) -> tuple[str, int]:
        search = search_at(critic_cards, critic, *rumors)
        return critic_cards.stages[search.served_at // POINTS].name, search.served_at % POINTS

    # The most-soup, all-courses and best-course stars and Crumb's see only the courses served.
    assert start("chef-cinnamon") == ("critic.final_quality", 1)
    assert start("sir-reginald-crumb") == ("critic.final_quality", 1)
    # A rumor reading the values or changing a quality: from the rumors on, for each view.
    assert start("chef-cinnamon", "steady-hand") == ("critic.rumors", 2)
    assert start("chef-cinnamon", "bitter-herbs") == ("critic.rumors", 2)
    # Early Taster reads the sum after the best course.
    assert start("chef-cinnamon", "early-taster") == ("critic.best_course", 2)


def test_hook_points_are_numbered_as_the_runner_numbers_them(critic_cards):
    asked = question(pantry_at("sir-reginald-crumb", ["early-taster"], owned="the-forager"), critic_cards)
    points = hook_points(asked)
    names = [s.name for s in critic_cards.stages]
    assert len(points) == POINTS * len(names)
    crumb = critic_cards.cards["sir-reginald-crumb"].effects[0].ast
    taster = critic_cards.cards["early-taster"].effects[0].ast
    forager = critic_cards.cards["the-forager"].effects[0].ast
    trees = [[program.tree for program in point] for point in points]
    assert crumb in trees[POINTS * names.index("critic.card_bonuses") + 2]
    assert taster in trees[POINTS * names.index("critic.best_course") + 2]
    assert forager in trees[POINTS * names.index("critic.final_quality")]
    assert first_sum_reader(points) == POINTS * names.index("critic.best_course") + 2
    assert sum_only(points[POINTS * names.index("critic.final_quality") + 1 :])
    assert not sum_only(points[POINTS * names.index("critic.final_quality") :])  # the Forager changes qualities


def test_the_stars_of_a_stage_that_sees_only_the_courses_leave_the_tokens_apart(critic_cards):
    def apart(critic: str, *rumors: str) -> bool:
        asked = question(pantry_at(critic, list(rumors)), critic_cards)
        trees = programs(critic_cards, (*asked.table, *asked.owned))
        return tokens_apart(trees, stage_programs(asked))

    # Sir Reginald Crumb reads the best-course stars: those depend on the courses alone.
    assert apart("sir-reginald-crumb")
    assert apart("sir-reginald-crumb", "fish-fanatic", "spice-hound")
    # The most-soup stars depend on the tokens kept: read beside the courses, not apart.
    assert not apart("chef-cinnamon", "soup-and-courses")
    # Without the stages' programs, nothing is known of a stage's stars.
    trees = programs(critic_cards, (critic_cards.cards["sir-reginald-crumb"],))
    assert not tokens_apart(trees)


def meals(search: ExactCriticSearch, rng: random.Random, count: int):
    """Random meals of the search's course options (items not counted: any meal scores), each
    followed by one of the same view: its courses seen only in the sum chosen again."""
    ingredients: dict = {}
    for item in search.q.ingredients:
        ingredients[item] = ingredients.get(item, 0) + 1
    spices: dict = {}
    for item in search.q.spices:
        spices[item] = spices.get(item, 0) + 1
    search.spice_names = list(spices)
    search.token_names = list(search.q.tokens)
    kinds = list(search.params["course_types"])
    options = [search.options(kind, ingredients, spices) for kind in kinds]
    for _ in range(count):
        picked = [rng.choice(choices) for choices in options]
        tokens = {t: rng.randint(0, n) for t, n in search.q.tokens.items()}
        for meal in (
            picked,
            [rng.choice([o for o in choices if o[0] == p[0]]) for p, choices in zip(picked, options, strict=True)],
        ):
            views = tuple(view for view, _, _, _ in meal)
            total = sum(quality for _, quality, _, _ in meal)
            courses = {kind: course for kind, (_, _, _, course) in zip(kinds, meal, strict=True) if course is not None}
            yield (views, total), courses, tokens


@pytest.mark.parametrize("seed", range(6))
def test_a_meal_started_again_scores_as_the_plain_run_scores_it(critic_cards, seed):
    rng = random.Random(90_000 + seed)
    rumors = rng.sample([*SPEED_RUMORS, *SHIPPED], 3)
    critic = rng.choice(sorted(c.id for c in critic_cards.cards.values() if c.kind == "critic"))
    owned = rng.choice([None, "the-forager", "lucky-cat"])
    pantry = pantry_at(critic, rumors, owned=owned, size=9)
    pantry["pantry"]["spices"] = ["allspice", "fish", "bread", "carrot"]
    search = ExactCriticSearch(question(pantry, critic_cards), 200_000)
    for signature, courses, tokens in meals(search, rng, 150):
        assert search.shared_outcome(signature[0], courses, tokens) == search.outcome(courses, tokens), (seed, courses)
    if search.resume_at:  # each second meal of a view started again
        assert len(search.prefixes) <= 150
    if search.tail_sum_only:
        assert search.tails


def agree(ruleset, seeds, *, rumors: tuple[str, ...]) -> None:
    for seed in seeds:
        rng = random.Random(seed)
        pantry = random_critic_pantry(rng, ruleset, [])
        pantry["cards"]["rumors"] = rng.sample(rumors, rng.randint(1, 3))
        pantry["pantry"]["ingredients"].append({"type": rng.choice(BASE_TYPES), "value": rng.randint(1, 9)})
        asked = question(pantry, ruleset)
        exact = plan_critic(asked)
        reference = plan_critic_exhaustive(asked)
        assert reference.optimal, seed
        assert (exact.stars, exact.critic_quality, exact.optimal) == (
            reference.stars,
            reference.critic_quality,
            True,
        ), seed


@pytest.mark.parametrize("chunk", range(3))
def test_exact_critic_equals_exhaustive_where_the_faster_paths_apply(critic_cards, chunk):
    agree(critic_cards, range(91_000 + chunk * 100, 91_000 + chunk * 100 + 100), rumors=(*SPEED_RUMORS, *SHIPPED))

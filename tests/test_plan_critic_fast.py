"""The exact critic-meal search equals the exhaustive reference search, and its proofs about
what the programs in play can see of a critic meal are right."""

from __future__ import annotations

import random

import pytest
from conftest import ROOT
from test_plan import ALC_CHALLENGES, BASE_CHALLENGES, ana_outcome, critic_record, random_critic_pantry

from critter_kitchen import load_ruleset
from critter_kitchen.model.game import Course
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import critic_record as planned_record
from critter_kitchen.plan.critic import plan_critic, plan_critic_exhaustive
from critter_kitchen.plan.critic_reads import course_signature, reads_kept_tokens, tokens_apart
from critter_kitchen.plan.programs import program_of, programs

TEST_RUMORS = ("three-course-dinner", "plain-palate", "soup-saver", "even-fours")


def rumors_of(ruleset) -> list[str]:
    return sorted(c.id for c in ruleset.cards.values() if c.kind == "rumor")


def agree(ruleset, seeds, packs: list[str], *, rumors: tuple[str, ...] = (), room: bool = False) -> None:
    """On each random pantry the exact search finds the exhaustive search's stars and critic
    quality, proved optimal, and its meal scores as planned when written into a record
    (tests/test_plan.py checks the exhaustive search against every meal the same way)."""
    pool = list(rumors) or rumors_of(ruleset)
    for seed in seeds:
        rng = random.Random(seed)
        pantry = random_critic_pantry(rng, ruleset, packs)
        if rng.random() < 0.8:
            pantry["cards"]["rumors"] = rng.sample(pool, rng.randint(1, min(3, len(pool))))
        limit = rng.choice([None, 1, 2, 3]) if room else None
        asked = question(pantry, ruleset)
        exact = plan_critic(asked, room=limit)
        reference = plan_critic_exhaustive(asked, room=limit)
        assert reference.optimal, seed
        assert (exact.stars, exact.critic_quality, exact.optimal) == (
            reference.stars,
            reference.critic_quality,
            True,
        ), seed
        if limit is not None:
            assert sum(1 + len(c.spices) for c in exact.courses.values() if c.token is None) <= limit, seed
        if "rumors" not in pantry["cards"]:
            # The engine scores the planned meal as planned (a record needs a rival, whom
            # rumors may compare: those are checked against the exhaustive search alone).
            meal = planned_record(exact)["critic_meals"]["Ana"]
            challenges = ALC_CHALLENGES if packs else BASE_CHALLENGES
            baseline = ana_outcome(critic_record(pantry, challenges, None), ruleset)[0]
            stars, quality = ana_outcome(critic_record(pantry, challenges, meal), ruleset)
            assert (stars - baseline, quality) == (exact.stars, exact.critic_quality), seed


@pytest.mark.parametrize("chunk", range(4))
def test_exact_critic_equals_exhaustive_for_the_base_pack(base, chunk):
    agree(base, range(70_000 + chunk * 100, 70_000 + chunk * 100 + 100), [])


@pytest.mark.parametrize("chunk", range(3))
def test_exact_critic_equals_exhaustive_for_a_la_carte(alc, chunk):
    agree(alc, range(71_000 + chunk * 100, 71_000 + chunk * 100 + 100), ["a-la-carte"])


@pytest.mark.parametrize("chunk", range(2))
def test_exact_critic_equals_exhaustive_within_a_room(base, alc, chunk):
    agree(base, range(72_000 + chunk * 50, 72_000 + chunk * 50 + 50), [], room=True)
    agree(alc, range(72_500 + chunk * 50, 72_500 + chunk * 50 + 50), ["a-la-carte"], room=True)


@pytest.mark.parametrize("chunk", range(3))
def test_exact_critic_equals_exhaustive_with_test_cards(critic_cards, chunk):
    agree(critic_cards, range(73_000 + chunk * 100, 73_000 + chunk * 100 + 100), [], rumors=TEST_RUMORS)


def proofs(ruleset, *rumors: str) -> tuple[tuple[object, ...], bool, bool]:
    trees = programs(ruleset, tuple(ruleset.cards[r] for r in rumors))
    course = Course("fish", 3, ("fish",), None, 6)
    return course_signature(trees)(course), reads_kept_tokens(trees), tokens_apart(trees)


def test_what_the_programs_in_play_see_of_a_critic_meal(critic_cards, alc):
    # The base stages: each course's quality and whether it is served; the tokens kept, apart.
    assert proofs(critic_cards) == ((6, None, None, None), True, True)
    assert proofs(critic_cards, "three-course-dinner") == ((6, None, None, None), True, True)
    assert proofs(critic_cards, "plain-palate") == ((6, None, True, None), True, True)
    assert proofs(critic_cards, "even-fours") == ((6, 3, None, ("fish",)), True, True)
    # Soup Saver reads the tokens kept and the courses served in one effect.
    assert proofs(critic_cards, "soup-saver") == ((6, None, None, None), True, False)
    assert proofs(alc) == ((6, None, None, None), True, True)
    # Underdog's star goes to the lowest of every player: the only one, whatever the stars.
    assert proofs(critic_cards, "underdog") == ((6, None, None, None), True, True)
    # Sir Reginald Crumb reads the stars of a stage and the courses served.
    assert proofs(critic_cards, "sir-reginald-crumb") == ((6, None, None, None), True, False)


def test_a_program_reading_stars_keeps_the_tokens_with_the_courses(critic_cards):
    trees = programs(critic_cards, ())
    assert tokens_apart(trees)
    reader = next(
        c for c in load_ruleset([ROOT / "tests" / "packs" / "planner-cards"]).cards.values() if c.id == "front-runner"
    )
    assert not tokens_apart([*trees, *(program_of(e.ast) for e in reader.effects)])


def critic_pantry(ingredients: list[tuple[str, int]], spices: list[str], rumors: list[str], soup: int = 0) -> dict:
    return {
        "for": "critic",
        "cards": {"critic": "madame-bouillon", "rumors": rumors},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": [{"type": k, "value": v} for k, v in ingredients],
            "spices": spices,
            "soup": soup,
            "bisque": 0,
        },
    }


FIVE = [("carrot", 6), ("fish", 6), ("cheese", 6), ("mushroom", 6), ("meat", 6)]


def test_a_rumor_rewarding_three_courses_makes_a_three_course_meal_best(critic_cards):
    pantry = critic_pantry(FIVE, [], ["three-course-dinner"])
    plan = plan_critic(question(pantry, critic_cards))
    # Five courses: 5 best-course stars and 3 for quality 30; three: 3 + 1 + 6.
    assert (len(plan.courses), plan.stars, plan.critic_quality, plan.optimal) == (3, 10, 18, True)
    assert (plan.stars, plan.critic_quality) == (lambda p: (p.stars, p.critic_quality))(
        plan_critic_exhaustive(question(pantry, critic_cards))
    )


def test_a_rumor_against_spice_makes_the_unspiced_meal_best(critic_cards):
    pantry = critic_pantry(FIVE[:2], ["allspice", "allspice"], ["plain-palate"])
    plan = plan_critic(question(pantry, critic_cards))
    # Spiced: quality 24, 2 + 2 stars; unspiced: quality 12, 2 + 1 + 4 stars.
    assert [c.spices for c in plan.courses.values()] == [(), ()]
    assert (plan.stars, plan.critic_quality, plan.optimal) == (7, 12, True)


def test_keeping_a_soup_beside_two_courses_is_found_when_tokens_and_courses_meet(critic_cards):
    pantry = critic_pantry(FIVE[:3], [], ["soup-saver"], soup=1)
    plan = plan_critic(question(pantry, critic_cards))
    # Madame Bouillon gives one soup (value 1) no star. Three courses: 3 best-course stars
    # and 1 for quality 18; two, the soup kept: 2 + 1 for quality 12 + Soup Saver's 3.
    assert (len(plan.courses), plan.tokens["soup"], plan.stars, plan.optimal) == (2, 1, 6, True)

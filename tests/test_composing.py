"""Cards that compose: parameters with a scope by card kind, and base stages that read them.

A Challenge card's parameters apply to the meals served for it (its own bands, its own
spice factor); a card on the table's to everyone; a held card's to its owner; a rules
card's to the game. The base stages read a named parameter for what a card may want to
change (the bands in force for each meal, how many courses the all-courses star needs and
how much each course counts, for each player; friendly ties stage by stage), so cards
change parameters and stay out of each other's way. The games are scored by hand below.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.cli import main
from critter_kitchen.loading.packs import load_packs
from critter_kitchen.loading.paths import base_pack

ROOT = Path(__file__).resolve().parent.parent
COMPOSING = ROOT / "tests" / "packs" / "composing"
TIES = ROOT / "tests" / "packs" / "ties-by-stage"
SCOPES = ROOT / "tests" / "packs" / "scope-problems"

# Round 3: Royal Banquet prints bands [[0, 0], [10, 3], [20, 5]]; Fiery Curry a spice factor
# of 3; Mushroom Toast is a base card (the Hold token covers its bread). Round 6: base cards.
GAME: dict[str, Any] = {
    "players": [{"name": "Ana", "restaurateur": "the-baker"}, {"name": "Ben"}],
    "cards": {
        "challenges": {
            "round3": ["royal-banquet", "fiery-curry", "mushroom-toast"],
            "round6": ["garden-gratin", "river-chowder", "sunday-roast"],
        }
    },
    "challenge_meals": {
        "round3": {
            "Ana": {
                "royal-banquet": {"ingredients": [{"type": "meat", "value": 5}, {"type": "wine", "value": 6}]},
                "fiery-curry": {
                    "ingredients": [{"type": "carrot", "value": 4, "spice": "carrot"}, {"type": "meat", "value": 2}]
                },
            },
            "Ben": {
                "royal-banquet": {
                    "ingredients": [{"type": "meat", "value": 4, "spice": "meat"}, {"type": "wine", "value": 5}]
                },
                "mushroom-toast": {"ingredients": [{"type": "mushroom", "value": 6}]},
            },
        },
        "round6": {
            "Ana": {"garden-gratin": {"ingredients": [{"type": "carrot", "value": 3}, {"type": "cheese", "value": 3}]}},
            "Ben": {"sunday-roast": {"ingredients": [{"type": "meat", "value": 6, "spice": "allspice"}]}},
        },
    },
    "critic_meals": {
        # Ana: six courses, bread among them, no wine (quality 13); Ben: six, no bread (18).
        "Ana": {
            "courses": {
                k: {"value": 3 if k == "bread" else 2}
                for k in ("carrot", "fish", "cheese", "mushroom", "meat", "bread")
            }
        },
        "Ben": {"courses": {k: {"value": 3} for k in ("carrot", "fish", "cheese", "mushroom", "meat", "wine")}},
    },
}


@pytest.fixture(scope="module")
def rules():
    return load_ruleset([COMPOSING])


def scored(rules, record: dict[str, Any]) -> dict[str, Any]:
    return result_json(score_record(record, rules, source="<game>"))


def game(critic: str | None = None, **changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(GAME)
    if critic is not None:
        record["cards"]["critic"] = critic
    record.update(changes)
    return record


def awards(result: dict[str, Any], stage: str) -> list[tuple[str, int, str, str]]:
    return [(a["player"], a["stars"], a["card"], a["reason"]) for a in result["awards"] if a["stage"] == stage]


def stars(result: dict[str, Any]) -> dict[str, int]:
    return {row["name"]: row["stars"] for row in result["standings"]}


def test_a_challenge_cards_bands_and_spice_factor_apply_to_its_own_meals_only(rules):
    result = scored(rules, game())
    # Royal Banquet's own bands: Ana 5 + 6 = 11 -> 3 stars (base bands: 1); Ben meat 4 with a
    # meat spice at the base factor, 4 * 2 = 8, + 5 = 13 -> 3 stars. Fiery Curry's factor 3:
    # carrot 4 * 3 = 12, + 2 = 14 -> base bands 2 stars (at factor 2 it would be 10 -> 1).
    # Mushroom Toast keeps the base bands: 6 -> 1 star (Royal Banquet's would give 0). Every
    # award stays the base stage's, named by its own meal's card.
    assert awards(result, "challenge.round3") == [
        ("Ana", 3, "base-rules", "Royal Banquet meal, quality 11"),
        ("Ana", 2, "base-rules", "Fiery Curry meal, quality 14"),
        ("Ben", 3, "base-rules", "Royal Banquet meal, quality 13"),
        ("Ben", 1, "base-rules", "Mushroom Toast meal, quality 6"),
    ]
    # Round 6, base cards and base rules: 3 + 3 = 6 -> 1 star; meat 6 * 2 (allspice) = 12 -> 2.
    assert awards(result, "challenge.round6") == [
        ("Ana", 1, "base-rules", "Garden Gratin meal, quality 6"),
        ("Ben", 2, "base-rules", "Sunday Roast meal, quality 12"),
    ]


def test_a_restaurateur_counting_bread_twice_scores_alone(rules):
    result = scored(rules, game())
    # The Baker (Ana): six courses, bread counting two, is 7 >= 7: the star. Ben: 6 < 7.
    assert awards(result, "critic.all_courses") == [("Ana", 1, "base-rules", "6 of 7 courses, counted as 7")]
    # Ana: 3 + 2 (round 3) + 1 (round 6) + 1 (all courses) + 1 (best bread) + 1 (quality 13) = 9.
    # Ben: 3 + 1 + 2 + 6 (best carrot, fish, cheese, mushroom, meat, wine) + 1 (quality 18) = 13.
    assert stars(result) == {"Ana": 9, "Ben": 13}


def test_the_bread_card_is_its_owners_only(rules):
    record = game()
    record["players"] = [{"name": "Ana"}, {"name": "Ben", "restaurateur": "the-baker"}]
    result = scored(rules, record)
    # Ana without The Baker: 6 < 7, no star; Ben holds it but served no bread: 6 < 7.
    assert awards(result, "critic.all_courses") == []
    assert stars(result) == {"Ana": 8, "Ben": 13}


def test_under_a_critic_replacing_the_all_courses_stage(rules):
    # Baron Pepperpot replaces critic.all_courses with nothing: no star for anyone, bread or
    # not; nothing else changes (his two spices a course are not used here).
    result = scored(rules, game("baron-pepperpot"))
    assert awards(result, "critic.all_courses") == []
    assert stars(result) == {"Ana": 8, "Ben": 13}


def test_under_a_critic_changing_how_many_courses_the_star_needs(rules):
    # The Lenient Critic (all_courses_short 1): the star needs 6. Ana: 7 counted >= 6; Ben:
    # six courses, 6 >= 6. Both compose: neither card re-implements the other's rule.
    result = scored(rules, game("the-lenient-critic"))
    assert awards(result, "critic.all_courses") == [
        ("Ana", 1, "base-rules", "6 of 7 courses, counted as 7"),
        ("Ben", 1, "base-rules", "6 of 7 courses, counted as 6"),
    ]
    assert stars(result) == {"Ana": 9, "Ben": 14}


def test_cards_say_whom_their_parameters_change(capsys):
    texts = {}
    for card in ("royal-banquet", "the-baker", "the-lenient-critic"):
        assert main(["cards", "--pack", str(COMPOSING), card]) == 0
        texts[card] = capsys.readouterr().out
    assert (
        "For meals served for this card:\n"
        "    challenge_bands = 0 stars from 0, 3 stars from 10, 5 stars from 20 (otherwise" in (texts["royal-banquet"])
    )
    assert "For its owner:\n    course_counts = bread 2 (otherwise none)" in texts["the-baker"]
    assert "While in play, for everyone:\n    all_courses_short = 1 (otherwise 0)" in texts["the-lenient-critic"]


def test_a_parameter_a_card_cannot_scope_is_a_problem_at_its_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["validate", "tests/packs/scope-problems"]) == 1
    out, err = capsys.readouterr()
    where = "tests/packs/scope-problems/"
    assert (out, err.splitlines()) == (
        "",
        [
            f"{where}bakers-dozen.yaml:6:3: CK206 parameter 'min_players' has scope game (one value for the whole "
            "game): a challenge card sets parameters for the meals served for it, those of scope meal",
            f"{where}bakers-dozen.yaml:7:3: CK206 parameter 'course_types' has scope player (a value for each "
            "player): a challenge card sets parameters for the meals served for it, those of scope meal",
            f"{where}grumpy-host.yaml:6:3: CK206 parameter 'friendly_ties' has scope table (one value for every "
            "player at a time): a restaurateur card sets parameters for its owner, those of scope player or meal",
            f"{where}misspelt-baker.yaml:7:19: CK202 unknown ingredient type 'bred'; did you mean 'bread'?",
            f"{where}rounds-critic.yaml:6:3: CK206 parameter 'challenges_per_round' has scope game (one value for "
            "the whole game): a critic card sets parameters for everyone while in play, those of scope table, "
            "player or meal",
            f"{where}rules.yaml:6:36: CK204 unknown stage 'critic.best_courses'; did you mean 'critic.best_course'?",
        ],
    )


TIED: dict[str, Any] = {
    "players": [{"name": "Ana"}, {"name": "Ben"}],
    "cards": {
        "challenges": {
            "round3": ["sunday-roast", "river-chowder", "harbor-stew"],
            "round6": ["garden-gratin", "mushroom-toast", "braised-shank"],
        }
    },
    "critic_meals": {
        "Ana": {"courses": {"carrot": {"value": 4}}, "soup": 2},
        "Ben": {"courses": {"carrot": {"value": 4}, "fish": {"value": 3}}, "soup": 2},
    },
}


def test_friendly_ties_are_set_stage_by_stage():
    result = result_json(score_record(copy.deepcopy(TIED), load_ruleset([TIES]), source="<game>"))
    # Most soup: 2 and 2, a tie, still friendly: 1 star each. Best carrot course: 4 and 4, a
    # tie, and this stage's ties are not friendly: nobody. Best fish: Ben alone. Quality 4 and
    # 7: no star on the score track. Ana 1, Ben 2.
    assert awards(result, "critic.most_soup") == [
        ("Ana", 1, "base-rules", "most soup (2)"),
        ("Ben", 1, "base-rules", "most soup (2)"),
    ]
    assert awards(result, "critic.best_course") == [("Ben", 1, "base-rules", "best fish course (3)")]
    assert stars(result) == {"Ana": 1, "Ben": 2}


def test_friendly_ties_false_still_means_every_stage():
    result = result_json(score_record(copy.deepcopy(TIED), load_ruleset([ROOT / "cards/variants/no-friendly-ties"])))
    # No tie shares anywhere: nobody gets most soup nor best carrot; Ben best fish: 0 and 1.
    assert awards(result, "critic.most_soup") == []
    assert awards(result, "critic.best_course") == [("Ben", 1, "base-rules", "best fish course (3)")]
    assert stars(result) == {"Ana": 0, "Ben": 1}


def effect_problems(tmp_path: Path, do: str) -> list[tuple[int, int, str, str]]:
    """Each problem of one rumor whose effect (hooked after critic.rumors) is ``do``."""
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "pack.yaml").write_text("id: scope-language\nname: Parameters read by the language\n", "utf-8")
    body = "\n".join(f"      {line}" for line in do.splitlines())
    text = f"id: under-test\nkind: rumor\nname: Under test\neffects:\n  - after: critic.rumors\n    do: |\n{body}\n"
    (folder / "under-test.yaml").write_text(text, "utf-8")
    _, found = load_packs([base_pack(), str(folder)])
    return [(p.line, p.column, p.code, p.message) for p in found]


@pytest.mark.parametrize(
    ("do", "expected"),
    [
        (  # a parameter read for something that is neither a player nor a meal
            "for t in course_types:\n    award band(3, challenge_bands(t)) stars to players",
            (
                8,
                41,
                "CK203",
                "the rule parameter 'challenge_bands' is read for a player or a meal, not an ingredient type",
            ),
        ),
        (
            "for p in players:\n    award spice_factor(p, 2) stars to p",
            (
                8,
                17,
                "CK203",
                "'spice_factor' is a rule parameter: write spice_factor(p) for a player or spice_factor(m) for a meal",
            ),
        ),
    ],
)
def test_a_parameter_is_read_for_a_player_or_a_meal(tmp_path, do, expected):
    assert effect_problems(tmp_path, do) == [expected]


def test_a_parameter_read_for_a_player_is_their_own(tmp_path):
    # Ana holds The Baker (course_counts {bread: 2}); Ben holds nothing. The rumor gives each
    # player their own count for bread, read with course_counts(p); the bare name is everyone's.
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "pack.yaml").write_text("id: own-reads\nname: Own reads\nrequires: [composing]\n", "utf-8")
    (folder / "bread-count.yaml").write_text(
        "id: bread-count\nkind: rumor\nname: Bread Count\neffects:\n  - after: critic.rumors\n    do: |\n"
        "      for p in players:\n"
        '          award lookup(course_counts(p), bread) + lookup(course_counts, bread) stars to p for "bread"\n',
        "utf-8",
    )
    record = game()
    record["cards"]["rumors"] = ["bread-count"]
    result = result_json(score_record(record, load_ruleset([COMPOSING, folder]), source="<game>"))
    # Ana: her own count 2, plus everyone's (none listed: 0) = 2; Ben: 0 + 0 = 0, no award.
    assert awards(result, "critic.rumors") == [("Ana", 2, "bread-count", "bread")]


def test_a_critic_changing_what_a_stage_awards_keeps_its_ties():
    record = copy.deepcopy(TIED)
    record["cards"]["critic"] = "the-soup-judge"
    result = result_json(score_record(record, load_ruleset([COMPOSING, TIES]), source="<game>"))
    # The Soup Judge (most_soup_stars 2) with the ties-by-stage house rule: most soup is still
    # a friendly tie, now 2 stars each; best carrot still nobody; best fish Ben. Ana 2, Ben 3.
    assert awards(result, "critic.most_soup") == [
        ("Ana", 2, "base-rules", "most soup (2)"),
        ("Ben", 2, "base-rules", "most soup (2)"),
    ]
    assert stars(result) == {"Ana": 2, "Ben": 3}

"""What designers can write in the effect language, what they are told when they get it
wrong, and the plain-English card text they check their cards by."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.dsl import nodes as n
from critter_kitchen.dsl.parser import SyntaxProblem, parse_program
from critter_kitchen.dsl.render import MAX_SENTENCE_WORDS, program_lines, readability_problems
from critter_kitchen.errors import EvaluationError, InputError
from critter_kitchen.loading.packs import load_packs
from critter_kitchen.loading.paths import base_pack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from regen_golden import CARD_TEXTS, card_texts, english_packs  # noqa: E402

ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]  # harbor-stew: fish, carrot, bread
ROUND6 = ["toasted-cheese", "river-chowder", "braised-shank"]


def write_pack(folder: Path, cards: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.yaml").write_text("id: language-tests\nname: Cards of the language tests\n", "utf-8")
    for card_id, text in cards.items():
        (folder / f"{card_id}.yaml").write_text(text, "utf-8")
    return folder


def card(card_id: str, do: str, *, kind: str = "rumor", hook: str = "after: critic.rumors", extra: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(do).strip("\n"), " " * 6)
    return f"id: {card_id}\nkind: {kind}\nname: {card_id}\n{extra}effects:\n  - {hook}\n    do: |\n{body}\n"


def problems(tmp_path: Path, do: str, **how: str) -> list[tuple[int, int, str, str]]:
    """Each problem of one rumor whose effect is ``do``: (line, column, code, message)."""
    folder = write_pack(tmp_path / "pack", {"under-test": card("under-test", do, **how)})
    _, found = load_packs([base_pack(), str(folder)])
    return [(p.line, p.column, p.code, p.message) for p in found]


def scored(tmp_path: Path, cards: dict[str, str], record: dict) -> dict:
    ruleset = load_ruleset([write_pack(tmp_path / "pack", cards)])
    return result_json(score_record(record, ruleset))


def awards(result: dict, card_id: str) -> list[tuple[str, int, str]]:
    return [(a["player"], a["stars"], a["reason"]) for a in result["awards"] if a["card"] == card_id]


def game(players=("Ana", "Ben", "Cy", "Di"), **extra) -> dict:
    record = {
        "players": [{"name": p} for p in players],
        "cards": {"challenges": {"round3": ROUND3, "round6": ROUND6}, "rumors": ["under-test"]},
    }
    record.update(extra)
    return record


# elif


RANKS = """
for p in players:
    if priority(p) == 1:
        award 3 stars to p for "first"
    elif priority(p) <= 2:
        award 2 stars to p for "second"
    elif priority(p) == 3:
        award 1 star to p for "third"
    else:
        award 5 stars to p for "last"
"""


def test_elif_runs_the_first_branch_that_holds_and_else_when_none_does(tmp_path):
    result = scored(tmp_path, {"under-test": card("under-test", RANKS)}, game())
    assert awards(result, "under-test") == [
        ("Ana", 3, "first"),
        ("Ben", 2, "second"),
        ("Cy", 1, "third"),
        ("Di", 5, "last"),
    ]


def test_elif_without_else_runs_nothing_when_no_condition_holds(tmp_path):
    do = """
    for p in players:
        if priority(p) == 1:
            pass
        elif priority(p) == 4:
            award 1 star to p for "fourth"
    """
    result = scored(tmp_path, {"under-test": card("under-test", do)}, game())
    assert awards(result, "under-test") == [("Di", 1, "fourth")]


def test_elif_is_an_else_holding_one_if():
    elif_form = parse_program("if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n", lambda line, col: (line, col))
    (outer,) = elif_form.body
    assert isinstance(outer, n.If) and len(outer.orelse) == 1
    inner = outer.orelse[0]
    assert isinstance(inner, n.If) and inner.pos == n.Pos(3, 1, 4)
    assert isinstance(inner.condition, n.Name) and inner.condition.name == "b"
    assert isinstance(inner.orelse[0], n.Pass)


def test_elif_reads_as_otherwise_if():
    program = parse_program(RANKS, lambda line, col: (line, col))
    assert program_lines(program) == [
        "For each p in the players:",
        "    If p's priority place is 1:",
        '        Give 3 stars to p ("first").',
        "    Otherwise, if p's priority place is at most 2:",
        '        Give 2 stars to p ("second").',
        "    Otherwise, if p's priority place is 3:",
        '        Give 1 star to p ("third").',
        "    Otherwise:",
        '        Give 5 stars to p ("last").',
    ]


def syntax(text: str) -> tuple[int, int, int, str]:
    with pytest.raises(SyntaxProblem) as caught:
        parse_program(text, lambda line, col: (line, col))
    e = caught.value
    return e.line, e.column, e.width, e.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("elif stars(owner) > 1:\n    pass\n", (1, 1, 4, "'elif' must follow an 'if' block at the same indentation")),
        (
            "if true:\n    pass\n    else:\n        pass\n",
            (3, 5, 4, "'else' must follow an 'if' block at the same indentation"),
        ),
        ("if true:\n    pass\nelse if false:\n    pass\n", (3, 6, 2, "write 'elif' for 'else if'")),
        (
            "let x = 1.5\n",
            (
                1,
                9,
                3,
                "numbers are whole; '1.5' has a fraction: to multiply by 1.5, write 'x * 3 // 2' "
                "('//' divides and rounds down)",
            ),
        ),
        (
            "let x = 2 * 12.25\n",
            (
                1,
                13,
                5,
                "numbers are whole; '12.25' has a fraction: to multiply by 12.25, write 'x * 49 // 4' "
                "('//' divides and rounds down)",
            ),
        ),
        (
            "let x = 0.10\n",
            (
                1,
                9,
                4,
                "numbers are whole; '0.10' has a fraction: to multiply by 0.10, write 'x // 10' "
                "('//' divides and rounds down)",
            ),
        ),
    ],
)
def test_syntax_hints(text, expected):
    assert syntax(text) == expected


# messages of the checker


@pytest.mark.parametrize(
    ("do", "expected"),
    [
        (
            "let n = len(players)",
            (7, 15, "CK202", "unknown function 'len'; write count(LIST) for the number of items in a list"),
        ),
        (
            "for p in players:\n    add 1 to quality(p, tomato)",
            (
                8,
                31,
                "CK202",
                "unknown ingredient 'tomato'; "
                "known ingredient types: carrot, fish, cheese, mushroom, meat, wine, bread",
            ),
        ),
        (  # a close name is suggested instead of the list
            "for p in players:\n    add 1 to quality(p, fsh)",
            (8, 31, "CK202", "unknown ingredient 'fsh'; did you mean 'fish'?"),
        ),
        (  # many names are not listed
            'let on = in_play("no-such-card")',
            (7, 24, "CK207", "unknown card 'no-such-card'"),
        ),
    ],
)
def test_checker_hints(tmp_path, do, expected):
    assert problems(tmp_path, do) == [expected]


def test_a_do_that_is_not_text_says_how_to_write_it(tmp_path):
    folder = write_pack(tmp_path / "pack", {})
    (folder / "listed.yaml").write_text(
        "id: listed\nkind: rumor\nname: Listed\neffects:\n  - after: critic.rumors\n    do:\n      - pass\n", "utf-8"
    )
    _, found = load_packs([base_pack(), str(folder)])
    assert [(p.line, p.column, p.code, p.message) for p in found] == [
        (
            7,
            7,
            "CK101",
            "effects[0].do: expected text, got a list; statements are text: "
            "write 'do: |' and the statements on the lines below it, indented",
        )
    ]


# let inside a block


LET_MESSAGE = (
    "'{name}' already names a value of an enclosing block (line {line}); "
    "a 'let' here would not change it there: choose another name"
)


def test_a_let_in_an_inner_block_cannot_reuse_an_outer_name(tmp_path):
    do = "let best = 0\nfor p in players:\n    if stars(p) > best:\n        let best = stars(p)\n"
    assert problems(tmp_path, do) == [(10, 15, "CK208", LET_MESSAGE.format(name="best", line=7))]


def test_a_let_cannot_reuse_the_name_of_its_loop(tmp_path):
    do = "for p in players:\n    let p = 1\n"
    assert problems(tmp_path, do) == [(8, 11, "CK208", LET_MESSAGE.format(name="p", line=7))]


def test_a_let_may_name_again_in_its_own_block_and_in_separate_blocks(tmp_path):
    do = """
    let n = 1
    let n = n + 1
    for p in players:
        let k = stars(p)
    for p in players:
        let k = priority(p)
        let k = k + n
        award k stars to p for "k {k}"
    """
    assert problems(tmp_path, do) == []
    result = scored(tmp_path / "run", {"under-test": card("under-test", do)}, game(players=("Ana", "Ben")))
    assert awards(result, "under-test") == [("Ana", 3, "k 3"), ("Ben", 4, "k 4")]


# spices


SPICED_COURSES = {
    "Ana": {"courses": {"fish": {"value": 3, "spice": "fish"}, "carrot": {"value": 2}}},
    "Ben": {"courses": {"fish": {"value": 3, "spice": "allspice"}}},
    "Cy": {"courses": {"fish": {"value": 3}}},
    "Di": {"courses": {"carrot": {"value": 4}}},
}


def test_the_spice_on_a_course(tmp_path):
    do = """
    for p in players:
        if fish in course_spices(p, fish):
            award 1 star to p for "fish spice"
        elif allspice in course_spices(p, fish):
            award 2 stars to p for "wild spice"
        elif count(course_spices(p, fish)) == 0:
            award 3 stars to p for "no spice on {count(course_spices(p, fish))} course"
    """
    result = scored(tmp_path, {"under-test": card("under-test", do)}, game(critic_meals=SPICED_COURSES))
    assert awards(result, "under-test") == [
        ("Ana", 1, "fish spice"),
        ("Ben", 2, "wild spice"),
        ("Cy", 3, "no spice on 0 course"),  # served unspiced
        ("Di", 3, "no spice on 0 course"),  # not served at all
    ]


def test_spice_types_are_the_ingredient_types_then_the_wild_spice(tmp_path):
    do = 'award 1 star to players for "{spice_types}"'
    result = scored(tmp_path, {"under-test": card("under-test", do)}, game(players=("Ana", "Ben")))
    assert awards(result, "under-test")[0][2] == "carrot, fish, cheese, mushroom, meat, wine, bread, allspice"


MOST_SPICES = """
award 1 star to highest(count(s for s in spice_types
                              if any(any(s in spices_on(i) for i in ingredients(m))
                                     for m in meals(round3) if player_of(m) == p))
                        for p in players) for "most different spices"
"""


def meals_with_spices() -> dict:
    def meal(*ingredients: tuple[str, int, str | None]) -> dict:
        items = [{"type": t, "value": v, **({"spice": s} if s else {})} for t, v, s in ingredients]
        return {"ingredients": items, "soup": 1}

    return {
        "round3": {
            "Ana": {"harbor-stew": meal(("fish", 3, "fish"), ("carrot", 2, "allspice"))},
            "Ben": {
                "harbor-stew": meal(("fish", 3, "fish"), ("carrot", 2, None)),
                "farmhouse-pie": {"ingredients": [{"type": "meat", "value": 4, "spice": "meat"}], "soup": 2},
            },
            "Cy": {"harbor-stew": meal(("fish", 4, None), ("carrot", 5, None))},
        }
    }


def test_the_player_who_used_the_most_different_spices(tmp_path):
    record = game(players=("Ana", "Ben", "Cy"), challenge_meals=meals_with_spices())
    result = scored(tmp_path, {"under-test": card("under-test", MOST_SPICES)}, record)
    # Ana: fish and allspice; Ben: fish and meat, over two meals; Cy: none
    assert awards(result, "under-test") == [
        ("Ana", 1, "most different spices (2)"),
        ("Ben", 1, "most different spices (2)"),
    ]


def test_the_spices_and_types_of_a_meals_ingredients(tmp_path):
    do = """
    for m in meals(round3):
        for i in ingredients(m):
            if count(spices_on(i)) > 0:
                award 1 star to player_of(m) for "{ingredient_type(i)} with {spices_on(i)}"
    """
    record = game(players=("Ana", "Ben", "Cy"), challenge_meals=meals_with_spices())
    result = scored(tmp_path, {"under-test": card("under-test", do)}, record)
    assert sorted(awards(result, "under-test")) == [
        ("Ana", 1, "carrot with allspice"),
        ("Ana", 1, "fish with fish"),
        ("Ben", 1, "fish with fish"),
        ("Ben", 1, "meat with meat"),
    ]


def test_a_spice_is_an_ingredient_type_or_the_wild_spice(tmp_path):
    do = "for p in players:\n    if pepper in course_spices(p, fish):\n        pass"
    assert problems(tmp_path, do) == [
        (
            8,
            14,
            "CK202",
            "unknown spice 'pepper'; known spices: carrot, fish, cheese, mushroom, meat, wine, bread, allspice",
        )
    ]
    assert (
        problems(tmp_path / "2", 'for p in players:\n    if "allspice" in course_spices(p, fish):\n        pass') == []
    )
    wrong = "for p in players:\n    if allspice in served(p):\n        pass"
    assert problems(tmp_path / "3", wrong) == [
        (
            8,
            14,
            "CK202",
            "unknown ingredient 'allspice'; known ingredient types: carrot, fish, cheese, mushroom, meat, wine, bread",
        )
    ]


# a card's own meals


def challenge(card_id: str, do: str) -> str:
    return card(
        card_id,
        do,
        kind="challenge",
        hook="after: challenge.round3",
        extra="requires: [fish, carrot]\n",
    )


def test_a_challenge_card_reaches_its_own_meals_by_reference(tmp_path):
    do = 'for m in meals_for(this_card):\n    award 1 star to player_of(m) for "own meal of {meal_card_id(m)}"'
    record = {
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {"challenges": {"round3": ["test-stew", "harbor-stew", "farmhouse-pie"], "round6": ROUND6}},
        "challenge_meals": {
            "round3": {
                "Ana": {"test-stew": {"ingredients": [{"type": "fish", "value": 3}, {"type": "carrot", "value": 2}]}},
                "Ben": {
                    "harbor-stew": {
                        "ingredients": [{"type": "fish", "value": 3}, {"type": "carrot", "value": 2}],
                        "soup": 1,
                    }
                },
            }
        },
    }
    result = scored(tmp_path, {"test-stew": challenge("test-stew", do)}, record)
    assert awards(result, "test-stew") == [("Ana", 1, "own meal of test-stew")]


def test_a_meals_card_compared_by_name_or_id(tmp_path):
    do = """
    for m in meals(round3):
        if meal_card(m) == "Harbor Stew" and meal_card_id(m) == "harbor-stew" and "harbor-stew" == meal_card_id(m):
            award 1 star to player_of(m) for "stew"
    """
    record = game(players=("Ana", "Ben", "Cy"), challenge_meals=meals_with_spices())
    result = scored(tmp_path, {"under-test": card("under-test", do)}, record)
    assert awards(result, "under-test") == [("Ana", 1, "stew"), ("Ben", 1, "stew"), ("Cy", 1, "stew")]


@pytest.mark.parametrize(
    ("condition", "column", "message"),
    [
        ('meal_card(m) == "Harbor Stw"', 30, "unknown card name 'Harbor Stw'; did you mean 'Harbor Stew'?"),
        ('"Harbor Stw" == meal_card(m)', 14, "unknown card name 'Harbor Stw'; did you mean 'Harbor Stew'?"),
        (
            'meal_card(m) == "harbor-stew"',
            30,
            "unknown card name 'harbor-stew'; 'harbor-stew' is a card id: the card's name is 'Harbor Stew'",
        ),
        ('meal_card_id(m) == "harbor-stw"', 33, "unknown card 'harbor-stw'; did you mean 'harbor-stew'?"),
        (
            'meal_card_id(m) != "Harbor Stew"',
            33,
            "unknown card 'Harbor Stew'; 'Harbor Stew' is the name of card 'harbor-stew'",
        ),
    ],
)
def test_a_card_name_or_id_that_matches_no_card_is_an_error(tmp_path, condition, column, message):
    do = f"for m in meals(round3):\n    if {condition}:\n        pass"
    assert problems(tmp_path, do) == [(8, column, "CK207", message)]


def test_a_card_reference_is_not_plain_text(tmp_path):
    assert problems(tmp_path, "let c = this_card\nif c == meals(round3):\n    pass") == [
        (8, 15, "CK203", "expected a card id, got a list of meals")
    ]


# card text


def test_compound_expressions_read_unambiguously():
    def english(do: str) -> list[str]:
        return program_lines(parse_program(do, lambda line, col: (line, col)))

    assert english("let h = (x - 1) // 2") == ["Let h be (x minus 1) divided by 2, rounded down."]
    assert english("let h = x - 1 // 2") == ["Let h be x minus (1 divided by 2, rounded down)."]
    assert english("let h = x // 2 // 3 * 4") == [
        "Let h be ((x divided by 2, rounded down) divided by 3, rounded down) times 4."
    ]
    assert english("if x // 3 > 1:\n    pass") == [
        "If (x divided by 3, rounded down) is more than 1:",
        "    Nothing happens.",
    ]
    assert english("let h = x - (1 - y)") == ["Let h be x minus (1 minus y)."]
    assert english("let h = x - 1 - y + 2") == ["Let h be x minus 1 minus y plus 2."]
    assert english("let h = band(x % 3, b) * 2") == [
        "Let h be (the stars for (x remainder after dividing by 3) in b) times 2."
    ]
    assert english("let h = 2 * meal_quality(m) + owner_stars") == [
        "Let h be (2 times (the quality of m)) plus owner_stars."
    ]
    assert english("if a and b or not c:\n    pass") == ["If (a and b) or not c:", "    Nothing happens."]
    assert english("let k = count(t for t in course_types if count(m for m in meals(r) if uses(m, t) > 0) > 1)") == [
        "Let k be the number of t in course_types such that (the number of m in the meals of r such that "
        "the number of t ingredients in m is more than 0) is more than 1."
    ]
    assert english("let k = count(course_types)") == ["Let k be the number of items in course_types."]


def test_every_shipped_card_reads_as_its_golden_text(monkeypatch):
    monkeypatch.chdir(ROOT)
    expected = card_texts()
    assert sorted(p.relative_to(CARD_TEXTS).as_posix() for p in expected) == sorted(
        p.relative_to(CARD_TEXTS).as_posix() for p in CARD_TEXTS.rglob("*.txt")
    ), "python tools/regen_golden.py --cards"
    for path, text in expected.items():
        assert path.read_text("utf-8") == text, f"{path.relative_to(ROOT)}: python tools/regen_golden.py --cards"


# lists written out


def test_a_list_written_out_serves_as_bands_and_as_a_list(tmp_path):
    ruleset = load_ruleset([ROOT / "tests" / "packs" / "list-literals"])
    record = game()
    record["cards"]["rumors"] = ["podium", "lucky-places"]
    result = result_json(score_record(record, ruleset))
    # podium: band(priority, [[1, 3], [2, 2], [3, 0]]): Ana 1 -> 3, Ben 2 -> 2, Cy 3 -> 0, Di 4 -> 0 (no award)
    assert awards(result, "podium") == [("Ana", 3, "place 1 on the podium"), ("Ben", 2, "place 2 on the podium")]
    # lucky-places: priority in [2, 4]: Ben (2) and Di (4), 1 star each
    assert awards(result, "lucky-places") == [("Ben", 1, "lucky place 2 of 2, 4"), ("Di", 1, "lucky place 4 of 2, 4")]


@pytest.mark.parametrize(
    ("do", "expected"),
    [
        (
            "award band(1, [[0, 0], [6]]) stars to players",
            (7, 21, "CK203", "expected bands: a list of [minimum, stars] pairs"),
        ),
        ("award band(1, []) stars to players", (7, 21, "CK203", "expected bands: a list of [minimum, stars] pairs")),
        (
            "award band(1, [[6, 0], [0, 1]]) stars to players",
            (7, 21, "CK203", "band minimums must rise strictly"),
        ),
        ("let b = [1, fish]", (7, 19, "CK203", "expected a number, got an ingredient type")),
        ("let b = [[1], 2]", (7, 21, "CK203", "expected a list of numbers, got a number")),
        (
            "for p in players:\n    if priority(p) in [1, players]:\n        pass",
            (8, 33, "CK203", "expected a number, got a list of players"),
        ),
        (
            "award band(1, [fish]) stars to players",
            (7, 21, "CK203", "expected bands: a list of [minimum, stars] pairs"),
        ),
    ],
)
def test_a_list_written_out_is_checked(tmp_path, do, expected):
    assert problems(tmp_path, do) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("let x = [1, 2\n", (1, 13, 1, "unclosed '['")),
        ("let x = [(1 + 2]\n", (1, 16, 1, "unexpected ']'; expected ')'")),
        (
            "let x = players[0]\n",
            (1, 16, 1, "unexpected '[': a list is written out where a value goes, and is not indexed"),
        ),
    ],
)
def test_a_list_written_out_has_plain_syntax_problems(text, expected):
    assert syntax(text) == expected


def test_a_list_of_fish_and_cheese_is_of_ingredient_types(tmp_path):
    assert problems(tmp_path, "for p in players:\n    for t in [fish, cheese]:\n        add 1 to quality(p, t)") == []
    assert problems(tmp_path, 'for t in course_types:\n    if t in ["fish", "cheese"]:\n        pass') == []


def test_bands_of_other_lengths_stop_the_game_with_a_located_message(tmp_path):
    do = "let b = [[0, 0, 1]]\naward band(1, b) stars to players"
    with pytest.raises(EvaluationError) as caught:
        scored(tmp_path, {"under-test": card("under-test", do)}, game())
    assert str(caught.value) == (
        f"{tmp_path / 'pack' / 'under-test.yaml'}: card 'under-test' at stage 'critic.rumors': "
        "bands are [minimum, stars] pairs, not a row of 3"
    )


def test_a_list_written_out_costs_a_step_for_each_item():
    def steps(do: str) -> int:
        from critter_kitchen.dsl.compiler import Vocabulary, compile_program

        compiled, found = compile_program(parse_program(do, lambda line, col: (line, col)), Vocabulary())
        assert found == []
        return compiled.steps

    # the program (a sequence): 1, let: 1, a list: 1, each number: 1
    assert steps("let b = 1") == 3
    assert steps("let b = [1, 2, 3]") == 6
    assert steps("let b = [[0, 0], [6, 1], [12, 2]]") == 3 + 3 * 3


def test_a_list_written_out_reads_as_its_items_and_bands_as_their_steps():
    def english(do: str) -> list[str]:
        return program_lines(parse_program(do, lambda line, col: (line, col)))

    assert english("for t in [fish, cheese]:\n    pass") == ["For each t in [fish, cheese]:", "    Nothing happens."]
    assert english("award band(q, [[0, 0], [6, 1], [12, x + 1]]) stars to p") == [
        "Give stars equal to the stars for q in the bands [0 stars from 0, 1 star from 6, (x plus 1) stars from 12] "
        "to p."
    ]
    assert english("let k = [\n    1,\n    2]") == ["Let k be [1, 2]."]


# card English a player reads without effort


def english(do: str) -> list[str]:
    return program_lines(parse_program(do, lambda line, col: (line, col)))


def test_a_clause_is_said_once_where_a_ranking_reads_it_again():
    spiced = "count(t for t in served(p) if spiced(p, t))"
    do = f"award 1 star to highest({spiced} for p in players if {spiced} != 0)"
    assert english(do) == [
        "Give 1 star to every p in the players with the highest (the number of t in the courses p served such that "
        "p's t course is spiced) among those where that number is not 0."
    ]


def test_a_reason_reads_as_its_words_with_each_value_said_after_it():
    assert english('for p in players:\n    award 1 star to p for "{tokens(p, soup)} soup kept"') == [
        "For each p in the players:",
        '    Give 1 star to p ("[A] soup kept", where A is p\'s unused soup tokens).',
    ]
    assert english(
        'for t in course_types:\n    award 1 star to players for "best {t} course, {count(players)} cooks"'
    ) == [
        "For each t in course_types:",
        '    Give 1 star to the players ("best [t] course, [A] cooks", where A is the number of items in the players).',
    ]


def test_the_player_who_served_a_meal_reads_as_serving_it():
    assert english("for m in meals(round3):\n    if player_of(m) == owner:\n        pass") == [
        "For each m in the meals of round3:",
        "    If the owner served m:",
        "        Nothing happens.",
    ]


def test_the_readability_check_flags_a_clause_said_twice_and_a_long_sentence():
    def flagged(do: str) -> list[str]:
        return readability_problems(parse_program(do, lambda line, col: (line, col)))

    twice = "let k = count(t for t in served(p) if spiced(p, t)) + count(t for t in served(p) if spiced(p, t))"
    assert flagged(twice) == [
        "'the number of t in the courses p served such that p's t course is spiced' said 2 times: "
        "Let k be (the number of t in the courses p served such that p's t course is spiced) plus "
        "(the number of t in the courses p served such that p's t course is spiced)."
    ]
    long = "if " + " and ".join(f"stars(p) > {i}" for i in range(6)) + ":\n    pass"
    (problem,) = flagged(long)
    assert problem.startswith(f"54 words, more than {MAX_SENTENCE_WORDS}: If p's stars so far is more than 0 and ")
    # the quoted words of a reason are the designer's own, and not counted
    assert flagged('award 1 star to players for "' + "word " * 60 + '"') == []


def test_every_shipped_and_test_card_reads_without_effort():
    checked = 0
    for _, load in english_packs():
        try:
            ruleset = load_ruleset(load)
        except InputError:
            continue  # a pack made to fail (broken-*, a clash)
        for card in ruleset.cards.values():
            programs = [e.ast for e in card.effects]
            programs += [s.ast for s in ruleset.stages if s.card == card.id and s.ast is not None]
            for program in programs:
                assert readability_problems(program) == [], f"{card.path}: {card.id}"
                checked += 1
    assert checked > 100


def test_the_card_english_of_every_test_pack_is_kept():
    packs = {p.name for p in CARD_TEXTS.iterdir()}
    assert {"base", "a-la-carte", "critic-cards", "list-literals", "card-stages", "fixtures"} <= packs

"""Records and cards are read by YAML 1.2 core-schema scalars, and messages echo values as written.

YAML 1.1 (PyYAML's default) reads ``010`` as 8, ``1:30`` as 90, ``0x10`` as 16 and ``no``
as false. Here only decimal digits are whole numbers, only ``true``/``false`` are booleans,
a leading zero is refused, and every refused value is shown as the file writes it.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from critter_kitchen.cli import main
from critter_kitchen.errors import InputError, shown
from critter_kitchen.loading.files import parse_json
from critter_kitchen.loading.yamlpos import parse
from critter_kitchen.values import WrittenFloat

RECORD = """\
players:
  - name: {first}
  - name: Ben
cards:
  challenges:
    round3: [harbor-stew, forest-risotto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
critic_meals:
  {first}:
    courses:
      fish: {{value: {value}}}
"""


def value_of(text: str) -> object:
    return parse("x.yaml", f"a: {text}\n").data["a"]


def problems(text: str) -> list[str]:
    with pytest.raises(InputError) as e:
        parse("x.yaml", text)
    return [p.format() for p in e.value.problems]


def score(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str) -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    status = main(["score", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    return status, out, err.replace(str(path), name)


# plain scalars


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # YAML 1.1 forms of numbers and booleans are text
        ("0o10", "0o10"),
        ("0x10", "0x10"),
        ("0b10", "0b10"),
        ("1:30", "1:30"),
        ("1_000", "1_000"),
        ("190:20:30.15", "190:20:30.15"),
        *[(word, word) for word in ("yes", "no", "on", "off", "y", "n", "Yes", "No", "ON", "Off", "Y", "N")],
        ("2024-01-01", "2024-01-01"),  # a date stays text, as before
        ("'010'", "010"),
        ('"true"', "true"),
        ("!!str 010", "010"),
        # the YAML 1.2 core schema
        ("10", 10),
        ("-7", -7),
        ("+5", 5),
        ("0", 0),
        ("-0", 0),
        ("!!int '12'", 12),
        *[(word, True) for word in ("true", "True", "TRUE")],
        *[(word, False) for word in ("false", "False", "FALSE")],
        *[(word, None) for word in ("null", "Null", "NULL", "~", "")],
    ],
)
def test_a_plain_scalar_is_read_by_the_yaml_1_2_core_schema(text, value):
    got = value_of(text)
    assert (type(got), got) == (type(value), value)


@pytest.mark.parametrize(
    ("text", "number", "written"),
    [("1.5", 1.5, "1.5"), ("2.50", 2.5, "2.50"), ("1e3", 1000.0, "1e3"), (".5", 0.5, ".5"), ("!!float 1", 1.0, "1")],
)
def test_a_fraction_keeps_its_text(text, number, written):
    got = value_of(text)
    assert isinstance(got, WrittenFloat)
    assert (got, got.text, shown(got)) == (number, written, written)


@pytest.mark.parametrize("text", [".inf", "-.Inf", "+.INF", ".nan", ".NaN"])
def test_infinity_and_nan_are_fractions_shown_as_written(text):
    got = value_of(text)
    assert isinstance(got, float)
    assert shown(got) == text


def test_a_fraction_survives_pickling():
    got = pickle.loads(pickle.dumps(value_of("1e3")))
    assert (type(got), got, got.text) == (WrittenFloat, 1000.0, "1e3")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "010",
            "010 has a leading zero, which YAML readers disagree on (octal or decimal): write 10 for the number,"
            " or '010' for text",
        ),
        (
            "-007",
            "-007 has a leading zero, which YAML readers disagree on (octal or decimal): write -7 for the number,"
            " or '-007' for text",
        ),
        (
            "00",
            "00 has a leading zero, which YAML readers disagree on (octal or decimal): write 0 for the number,"
            " or '00' for text",
        ),
        (
            "!!int 010",
            "010 has a leading zero, which YAML readers disagree on (octal or decimal): write 10 for the"
            " number, or '010' for text",
        ),
        ("!!int 0x10", "cannot read '0x10' as !!int: a whole number is written in decimal digits"),
        ("!!int 1_000", "cannot read '1_000' as !!int: a whole number is written in decimal digits"),
        ("!!bool yes", "cannot read 'yes' as !!bool: a boolean is written true or false"),
        ("!!null none", "cannot read 'none' as !!null: null is written null, ~ or not at all"),
        ("!!float 1:30", "cannot read '1:30' as !!float: it is not a number"),
    ],
)
def test_a_number_readers_disagree_on_is_refused_where_it_is_written(text, message):
    assert problems(f"a: {text}\n") == [f"x.yaml:1:4: {message}"]


def test_keys_stay_as_written():
    data = parse("x.yaml", "No: 1\non: 2\ny: 3\n010: 4\nnull: 5\ntrue: 6\n1:30: 7\n").data
    assert list(data) == ["No", "on", "y", "010", "null", "true", "1:30"]


def test_merge_keys_are_still_refused():
    assert problems("a: {x: 1}\nb:\n  <<: {x: 1}\n") == ["x.yaml:3:3: merge keys ('<<') are not supported"]


# the %YAML directive


def test_a_yaml_1_2_directive_reads_as_without_one():
    assert parse("x.yaml", "%YAML 1.2\n---\na: [no, 1:30, 12, true]\n").data == {"a": ["no", "1:30", 12, True]}
    assert problems("%YAML 1.2\n---\na: 010\n") == [
        "x.yaml:3:4: 010 has a leading zero, which YAML readers disagree on (octal or decimal): write 10 for the"
        " number, or '010' for text"
    ]


def test_a_yaml_1_1_directive_is_refused():
    # Its document means yes as true and 010 as 8, which this reader does not give.
    assert problems("# a game\n%YAML 1.1\n---\na: 1\n") == [
        "x.yaml:2:1: %YAML 1.1 is not read: files are read as YAML 1.2; write %YAML 1.2 or no directive"
    ]


def test_text_that_mentions_a_directive_is_read():
    assert parse("x.yaml", "a: '%YAML 1.1'\n# %YAML 1.1\n").data == {"a": "%YAML 1.1"}


# records


@pytest.mark.parametrize("name", ["No", "no", "Off", "y", "N", "true_", "1:30", "0x10"])
def test_a_player_named_like_a_yaml_1_1_boolean_or_number_is_that_name(tmp_path, capsys, name):
    status, out, err = score(tmp_path, capsys, "game.yaml", RECORD.format(first=name, value=5))
    assert (status, err) == (0, "")
    assert [s["name"] for s in json.loads(out)["standings"]] == [name, "Ben"]


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("0o10", "'0o10'"),
        ("0x10", "'0x10'"),
        ("1:30", "'1:30'"),
        ("1_000", "'1_000'"),
        ("yes", "'yes'"),
        ("on", "'on'"),
        (".inf", ".inf"),
        ("1.50", "1.50"),
        ("True", "true"),
        ("~", "null"),
        ("'7'", "'7'"),
    ],
)
def test_a_value_that_is_not_a_decimal_number_is_refused_as_written(tmp_path, capsys, value, got):
    status, out, err = score(tmp_path, capsys, "game.yaml", RECORD.format(first="Ana", value=value))
    assert (status, out) == (1, "")
    assert err == (
        f"game.yaml:11:21: critic_meals.Ana.courses.fish.value: "
        f"expected a positive whole number up to 1000000, got {got}\n"
    )


def test_a_leading_zero_in_a_record_is_refused_at_its_place(tmp_path, capsys):
    status, out, err = score(tmp_path, capsys, "game.yaml", RECORD.format(first="Ana", value="010"))
    assert (status, out) == (1, "")
    assert err == (
        "game.yaml:11:21: 010 has a leading zero, which YAML readers disagree on (octal or decimal):"
        " write 10 for the number, or '010' for text\n"
    )


@pytest.mark.parametrize(
    ("value", "got"),
    [("true", "true"), ("false", "false"), ("null", "null"), ("1E3", "1E3"), ("2.50", "2.50"), ('"7"', "'7'")],
)
def test_a_json_record_echoes_values_as_written(tmp_path, capsys, value, got):
    data = parse("x.yaml", RECORD.format(first="Ana", value=1)).data
    text = json.dumps(data).replace('"value": 1', f'"value": {value}')
    status, out, err = score(tmp_path, capsys, "game.json", text)
    assert (status, out) == (1, "")
    assert err == (
        f"game.json:1:257: critic_meals.Ana.courses.fish.value: "
        f"expected a positive whole number up to 1000000, got {got}\n"
    )


def test_json_nan_and_infinity_are_shown_as_written():
    data = parse_json("x.json", '{"a": NaN, "b": -Infinity}')
    assert [shown(data["a"]), shown(data["b"])] == ["NaN", "-Infinity"]


# cards


CARD = """\
id: trust-yaml
kind: critic
name: Trust YAML
parameters:
  tokens_fill_courses: {value}
"""


def validate(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, str]:
    (tmp_path / "pack.yaml").write_text("id: trust-yaml\nname: Trust YAML\n", "utf-8")
    (tmp_path / "card.yaml").write_text(text, "utf-8")
    status = main(["validate", str(tmp_path)])
    out, err = capsys.readouterr()
    return status, (out + err).replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize("value", ["true", "True", "TRUE", "false", "False", "FALSE"])
def test_a_yaml_1_2_boolean_is_a_boolean_parameter(tmp_path, capsys, value):
    assert validate(tmp_path, capsys, CARD.format(value=value))[0] == 0


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("yes", "'yes'"),
        ("no", "'no'"),
        ("on", "'on'"),
        ("off", "'off'"),
        ("y", "'y'"),
        ("n", "'n'"),
        ("1", "1"),
        ("null", "null"),
    ],
)
def test_a_yaml_1_1_boolean_is_not_a_boolean_parameter(tmp_path, capsys, value, got):
    status, out = validate(tmp_path, capsys, CARD.format(value=value))
    assert (status, out) == (1, f"card.yaml:5:24: CK206 expected true or false, got {got}\n")


def test_a_card_kind_is_echoed_as_written(tmp_path, capsys):
    status, out = validate(tmp_path, capsys, "id: odd-kind\nkind: true\nname: Odd\n")
    assert status == 1
    assert out.startswith("card.yaml:2:7: CK102 unknown card kind true")


def test_a_schema_type_problem_echoes_the_value_as_written(tmp_path, capsys):
    status, out = validate(tmp_path, capsys, "id: odd-name\nkind: rumor\nname: 1e3\n")
    assert (status, out) == (1, "card.yaml:3:7: CK101 name: expected text, got 1e3\n")


# the one helper every message uses


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("1:30", "'1:30'"),
        ("it's", '"it\'s"'),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (90, "90"),
        (-2, "-2"),
        (10**39, "1" + "0" * 39),
        (10**40, "a huge number"),
        pytest.param(10**5000, "a huge number", id="10**5000"),  # Python refuses str() of it
        (2.5, "2.5"),
        (float("inf"), ".inf"),
        (float("-inf"), "-.inf"),
        ([1, 2], "a list"),
        ({"a": 1}, "a mapping"),
        ("x" * 100, "'" + "x" * 36 + "..."),
    ],
)
def test_shown_writes_a_value_as_a_file_would(value, text):
    assert shown(value) == text

"""A pack's own schemas are a stranger's code: they stay inside the pack and run in bounded time.

Each case builds a small pack in a temporary folder (a rules card declaring the kind
``gadget`` checked by ``gadget.schema.json``, and one gadget card), runs ``validate``
through ``critter_kitchen.cli.main`` under an alarm, and asserts every message exactly.
The folders under ``tests/hostile/schemas/`` hold the same kinds of schema as files,
with their expected output.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import fuzzlib
import pytest
from hypothesis import HealthCheck, given, settings

from critter_kitchen.cli import main
from critter_kitchen.loading import packschema, yamlpos

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(p for p in (ROOT / "tests" / "hostile" / "schemas").iterdir() if p.is_dir())
SECONDS = 30.0  # an alarm far above the real cost: a hang fails instead of blocking the suite
SCHEMA = "pack/gadget.schema.json"
CARD = "pack/gadget.yaml"
RULES = "pack/rules.yaml"
# Python's backtracking engine takes about 2**40 steps to refuse this name under this pattern.
REDOS_PATTERN = "^(a+)+$"
REDOS_NAME = "a" * 40 + "!"
DOES_SOMETHING = "effects:\n  - after: critic.rumors\n    do: pass\n"  # a card without effects is a problem


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    return tmp_path


def write_pack(schema: object, *, name: str = "A gadget", card: str | None = None, ref: str = "gadget.schema.json",
               files: dict[str, object] | None = None) -> Path:  # fmt: skip
    """./pack: a rules card with the kind 'gadget' checked by ``schema``, and one gadget card."""
    pack = Path("pack")
    pack.mkdir(exist_ok=True)
    (pack / "pack.yaml").write_text("id: hostile\nname: Hostile schemas\n", "utf-8")
    (pack / "rules.yaml").write_text(
        "id: hostile-rules\nkind: rules\nname: Hostile rules\ncard_kinds:\n"
        f"  gadget:\n    record: cards.gadgets\n    schema: {ref}\n",
        "utf-8",
    )
    card = card or f"id: gadget\nkind: gadget\nname: {json.dumps(name)}\n"
    (pack / "gadget.yaml").write_text(card if "effects" in card else card + DOES_SOMETHING, "utf-8")
    (pack / "gadget.schema.json").write_text(schema if isinstance(schema, str) else json.dumps(schema), "utf-8")
    for relative, content in (files or {}).items():
        path = pack / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return pack


def validate(*paths: str) -> fuzzlib.Outcome:
    outcome = fuzzlib.run_main(["validate", "pack"], seconds=SECONDS)
    assert not outcome.crash, outcome.crash
    assert fuzzlib.check(outcome, ["pack", SCHEMA, CARD, RULES, *paths], command="validate") == []
    return outcome


def errors(*paths: str) -> list[str]:
    """The error lines of validating ./pack, which must be refused cleanly."""
    outcome = validate(*paths)
    assert outcome.status == 1, outcome.out
    return outcome.err.splitlines()


def passes() -> None:
    outcome = validate()
    assert (outcome.status, outcome.err) == (0, ""), outcome.err


# references that leave the pack


def test_a_file_reference_outside_the_pack_is_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"const": "TOPSECRET-VALUE", "type": "integer"}', "utf-8")
    write_pack({"properties": {"name": {"$ref": secret.as_uri()}}})
    lines = errors()
    assert lines == [f"{SCHEMA}:1:34: CK105 '$ref' leads outside the pack: {packschema._short(secret.as_uri())}"]
    assert "TOPSECRET" not in "\n".join(lines)


def test_a_reference_through_dot_dot_is_refused(tmp_path):
    (tmp_path / "outside.json").write_text('{"const": "TOPSECRET-VALUE"}', "utf-8")
    write_pack({"properties": {"name": {"$ref": "../outside.json"}}})
    assert errors() == [f"{SCHEMA}:1:34: CK105 '$ref' leads outside the pack: '../outside.json'"]


def test_a_reference_through_a_symlink_out_of_the_pack_is_refused(tmp_path):
    (tmp_path / "outside.json").write_text('{"const": "TOPSECRET-VALUE"}', "utf-8")
    write_pack({"properties": {"name": {"$ref": "inside.json"}}})
    os.symlink(tmp_path / "outside.json", "pack/inside.json")
    outcome = fuzzlib.run_main(["validate", "pack"], seconds=SECONDS)
    assert (outcome.status, outcome.out) == (1, "")
    assert "TOPSECRET" not in outcome.err
    # the reference is refused, and the pack walk refuses the link itself
    assert outcome.err.splitlines() == [
        f"{SCHEMA}:1:34: CK105 '$ref' leads outside the pack: 'inside.json'",
        f"pack/inside.json: CK104 symbolic link leads outside the pack folder, to {tmp_path / 'outside.json'}",
    ]


def test_a_web_reference_makes_no_request(monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    lookups: list[object] = []

    def no_lookup(*args: object, **kw: object) -> object:
        lookups.append(args)
        raise OSError("no lookups in this test")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    schema = {
        "properties": {
            "id": {"$ref": f"http://127.0.0.1:{port}/card.json"},
            "name": {"$ref": "https://critter-kitchen.example/schemas/card.schema.json"},
        }
    }
    write_pack(schema)
    second = json.dumps(schema).index('"https:') + 1
    try:
        lines = errors()
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing connected
    finally:
        listener.close()
    assert lookups == []
    assert lines == [
        f"{SCHEMA}:1:32: CK105 '$ref' leads outside the pack: 'http://127.0.0.1:{port}/card.json'",
        f"{SCHEMA}:1:{second}: CK105 '$ref' leads outside the pack: "
        "'https://critter-kitchen.example/schemas/card.schema.json'",
    ]


def test_the_bundled_metaschemas_are_out_of_reach():
    # Through them, '$dynamicRef: #meta' would hand the pack's own subschemas to a stock
    # validator, whose patterns run on Python's backtracking engine.
    write_pack({
        "$dynamicAnchor": "meta",
        "properties": {"name": {"pattern": REDOS_PATTERN}},
        "$ref": "https://json-schema.org/draft/2020-12/schema",
    }, name=REDOS_NAME)  # fmt: skip
    assert errors() == [
        f"{SCHEMA}:1:84: CK105 '$ref' leads outside the pack: 'https://json-schema.org/draft/2020-12/schema'"
    ]


def test_an_id_naming_another_place_still_resolves_inside_the_pack():
    write_pack({"$id": "file:///etc/", "properties": {"name": {"$ref": "passwd.json"}}})
    assert errors() == [f"{SCHEMA}:1:57: CK104 '$ref' names no schema file of the pack: 'passwd.json'"]


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("/etc/passwd.json", "CK105 schema '/etc/passwd.json' is outside the pack folder"),
        ("../gadget.schema.json", "CK105 schema '../gadget.schema.json' is outside the pack folder"),
        ("../../../../etc/hostname", "CK104 unusable schema '../../../../etc/hostname': no such schema"),
        ("cards", "CK104 unusable schema 'cards': no such schema; did you mean 'card'?"),
    ],
)
def test_a_kind_schema_outside_the_pack_is_refused(ref, expected):
    write_pack({}, ref=ref)
    assert errors() == [f"{RULES}:7:13: {expected}"]


def test_references_to_schema_files_of_the_same_pack_work():
    write_pack(
        {
            "$id": "https://critter-kitchen.example/packs/hostile/gadget.schema.json",
            "properties": {"name": {"$ref": "parts/common.json#/$defs/name"}, "id": {"$ref": "#/$defs/id"}},
            "$defs": {"id": {"type": "string"}},
            "required": ["brand"],
        },
        files={
            "parts/common.json": {"$defs": {"name": {"$ref": "../leaf.json"}}},
            "leaf.json": {"type": "string", "maxLength": 5},
        },
    )
    assert errors("pack/parts/common.json", "pack/leaf.json") == [
        f"{CARD}:1:1: CK101 missing required key 'brand'",
        f"{CARD}:3:7: CK101 name: longer than 5 characters",
    ]


def test_a_reference_to_a_missing_part_is_a_located_problem():
    write_pack({"properties": {"name": {"$ref": "#/$defs/nope"}, "id": {"$ref": "other.json"}}})
    assert errors() == [
        f"{SCHEMA}:1:34: CK104 '$ref' names no part of the schema: '#/$defs/nope'",
        f"{SCHEMA}:1:66: CK104 '$ref' names no schema file of the pack: 'other.json'",
    ]


def test_the_corpus_folders_name_every_reference_that_leaves():
    for folder in CORPUS:
        shown = str(folder.relative_to(ROOT))
        os.chdir(ROOT)
        outcome = fuzzlib.run_main(["validate", shown], seconds=SECONDS)
        assert (outcome.status, outcome.out) == (1, ""), outcome.crash
        assert outcome.err == (folder / "validate.expected").read_text("utf-8"), shown


def test_patterns_re2_refuses_print_nothing_else_on_standard_error():
    # RE2 logs its complaints to file descriptor 2 itself, past Python's sys.stderr.
    folder = ROOT / "tests" / "hostile" / "schemas" / "unsafe-patterns"
    env = dict(os.environ, CRITTER_KITCHEN_CACHE="off")
    done = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", "validate", str(folder.relative_to(ROOT))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (folder / "validate.expected").read_text("utf-8")


# regular expressions


def test_a_catastrophic_pattern_runs_in_linear_time():
    write_pack({"properties": {"name": {"pattern": REDOS_PATTERN}}}, name=REDOS_NAME)
    assert errors() == [f"{CARD}:3:7: CK101 name: '{REDOS_NAME}' does not match '{REDOS_PATTERN}'"]


def test_catastrophic_key_patterns_run_in_linear_time():
    # jsonschema's own 'additionalProperties' matches the 'patternProperties' keys with Python's engine.
    write_pack(
        {
            "properties": {"id": {}, "kind": {}, "name": {}, "effects": {}},
            "patternProperties": {REDOS_PATTERN: {"type": "integer"}},
            "propertyNames": {"pattern": "^(a|a)*$|^[a-z!]+$"},
            "additionalProperties": False,
        },
        card=f"id: gadget\nkind: gadget\nname: Gadget\n{REDOS_NAME}: 1\n{'a' * 30}: x\n",
    )
    assert errors() == [
        f"{CARD}:4:1: CK101 unknown key '{REDOS_NAME}'",
        f"{CARD}:5:33: CK101 {'a' * 30}: expected a whole number, got 'x'",
    ]


def test_a_matching_pattern_still_matches():
    write_pack({"properties": {"name": {"pattern": r"^\w+ \d{2}$"}}}, name="Gadget 42")
    passes()


@pytest.mark.parametrize(
    "schema, column, pattern, reason",
    [
        ({"properties": {"name": {"pattern": r"^(\w)\1$"}}}, 37, r"'^(\\w)\\1$'", r"invalid escape sequence: \1"),
        ({"properties": {"name": {"pattern": "^(?!x)"}}}, 37, "'^(?!x)'", "invalid perl operator: (?!"),
        ({"patternProperties": {"(?<=a)b": {}}}, 24, "'(?<=a)b'", "invalid perl operator: (?<="),
        ({"properties": {"name": {"pattern": "a{1001}"}}}, 37, "'a{1001}'", "invalid repetition size: {1001}"),
    ],
)
def test_a_pattern_re2_cannot_run_is_a_located_problem(schema, column, pattern, reason):
    write_pack(schema)
    note = "(pack schemas use RE2 syntax: no backreferences or lookaround)"
    assert errors() == [f"{SCHEMA}:1:{column}: CK106 unsupported regular expression {pattern}: {reason} {note}"]


def test_a_pattern_reached_only_through_a_pointer_is_still_checked():
    write_pack({"$defs": {"x": {"const": {"pattern": r"(a)\1"}}}, "properties": {"name": {"$ref": "#/$defs/x/const"}}})
    assert errors() == [
        f"{CARD}:1:1: CK106 cannot check this file against its schema: unsupported regular expression "
        r"'(a)\\1': invalid escape sequence: \1 (pack schemas use RE2 syntax: no backreferences or lookaround)"
    ]


@pytest.mark.parametrize("data", [{"$ref": 5}, {"type": "foo"}, {"minLength": "x"}, {"$dynamicRef": 5}])
def test_a_pointer_into_data_that_is_no_schema_is_a_problem_not_a_traceback(data):
    write_pack({"$defs": {"x": {"const": data}}, "properties": {"name": {"$ref": "#/$defs/x/const"}}})
    assert errors() == [
        f"{CARD}:1:1: CK106 cannot check this file against its schema: "
        "a reference leads to a part that is not a valid schema"
    ]


def test_format_regex_only_annotates():
    write_pack({"properties": {"name": {"format": "regex"}}}, name="(a+)+[")
    passes()


@pytest.mark.parametrize(
    "schema, expected",
    [
        (
            {"properties": {"name": {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "^(a+)+$"}}},
            "1:26: CK104 '$schema' belongs only at the top of a schema file",
        ),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#"},
            "1:13: CK104 only JSON Schema draft 2020-12 is supported: "
            "'$schema' must be 'https://json-schema.org/draft/2020-12/schema'",
        ),
        (
            {"unevaluatedProperties": {"type": "string"}, "patternProperties": {"^(a+)+$": {}}},
            "1:2: CK106 'unevaluatedProperties' is not supported in pack schemas; use 'additionalProperties'",
        ),
    ],
)
def test_keywords_that_would_escape_the_safe_validator_are_refused(schema, expected):
    write_pack(schema, name=REDOS_NAME)
    assert errors() == [f"{SCHEMA}:{expected}"]


def test_the_root_schema_declaring_its_dialect_is_checked_safely():
    # Left in, the root's '$schema' would make jsonschema switch to its stock validator on '$ref: #'.
    write_pack(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {"name": {"pattern": REDOS_PATTERN}, "inner": {"$ref": "#"}},
        },
        card=f"id: gadget\nkind: gadget\nname: aaa\ninner:\n  name: {REDOS_NAME}\n",
    )
    assert errors() == [f"{CARD}:5:9: CK101 inner.name: '{REDOS_NAME}' does not match '{REDOS_PATTERN}'"]


# size, nesting and checking without end


def test_a_schema_nested_five_thousand_deep_is_one_located_problem():
    write_pack('{"a": ' * 5000 + "1" + "}" * 5000)
    assert errors() == [f"{SCHEMA}:1:385: CK005 nesting deeper than {yamlpos.MAX_DEPTH} levels"]


def test_a_list_nested_five_thousand_deep_is_one_located_problem():
    write_pack("[" * 5000 + "]" * 5000)
    assert errors() == [f"{SCHEMA}:1:65: CK005 nesting deeper than {yamlpos.MAX_DEPTH} levels"]


def test_a_schema_file_larger_than_a_yaml_file_may_be_is_refused():
    write_pack('{"description": "' + "x" * yamlpos.MAX_BYTES + '"}')
    assert errors() == [f"{SCHEMA}:1:1: CK005 file is larger than {yamlpos.MAX_BYTES} bytes"]


def test_a_schema_with_too_many_values_is_refused():
    schema = {"properties": {"name": {"allOf": [{"type": "string"}] * 600}}, "$ref": "more.json"}
    write_pack(schema, files={"more.json": {"enum": list(range(900))}})
    assert errors("pack/more.json") == [
        f"pack/more.json:1:1: CK005 a pack schema may hold at most {packschema.MAX_VALUES} values, "
        "with the files it refers to"
    ]


@pytest.mark.parametrize(
    "schema, expected",
    [
        ('{"type": "object", "type": "string"}', "1:20: CK003 duplicate key 'type' (first at line 1)"),
        ('{"type": ', "1:10: CK002 JSON syntax error: Expecting value"),
        (
            {"type": "strin"},
            "1:10: CK104 not a valid JSON Schema: type: 'strin' is not valid under any of the given schemas",
        ),
        (
            {"properties": {"name": {"minLength": -1}}},
            "1:39: CK104 not a valid JSON Schema: properties.name.minLength: -1 is less than the minimum of 0",
        ),
    ],
)
def test_a_schema_jsonschema_rejects_is_a_located_problem(schema, expected):
    write_pack(schema)
    assert errors() == [f"{SCHEMA}:{expected}"]


def test_a_schema_referring_to_itself_without_end_is_a_problem_not_a_traceback():
    write_pack({"allOf": [{"$ref": "#"}]})
    assert errors() == [
        f"{CARD}:1:1: CK106 cannot check this file against its schema: the schema refers to itself without end"
    ]


def test_a_schema_fanning_out_through_references_stops_at_its_step_budget():
    defs: dict[str, object] = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(40)}
    defs["d40"] = {"type": "integer"}  # never met: every one of the 2**40 paths fails
    write_pack({"$defs": defs, "$ref": "#/$defs/d0"}, card="id: a\nkind: gadget\nname: A\n")
    Path("pack/second.yaml").write_text("id: b\nkind: gadget\nname: B\n", "utf-8")
    assert errors("pack/second.yaml") == [
        f"{CARD}:1:1: CK106 cannot check this file against its schema: "
        "checking takes too many steps (does the schema fan out through its references?)"
    ]  # the second card of the kind is not checked again


def test_a_changed_schema_file_is_seen_through_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    write_pack({"properties": {"name": {"maxLength": 100}}})
    assert main(["validate", "pack"]) == 0
    write_pack({"properties": {"name": {"maxLength": 3}}})
    assert errors() == [f"{CARD}:3:7: CK101 name: longer than 3 characters"]


def test_a_schema_that_allows_anything_still_gets_cards_the_engine_can_read():
    write_pack({}, card="id: {a: 1}\nkind: gadget\nname: X\neffects: [{do: 5, after: critic.rumors}]\nrequires: fish\n")
    assert errors() == [
        f"{CARD}:1:5: CK101 id: expected text, got a mapping",
        f"{CARD}:4:16: CK101 effects[0].do: expected text, got 5; statements are text: "
        "write 'do: |' and the statements on the lines below it, indented",
        f"{CARD}:5:11: CK101 requires: expected a list, got 'fish'",
    ]


# a short fuzzing run (tools/fuzz.py --target schemas runs long ones)


@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=15)
@given(case=fuzzlib.schema_inputs())
def test_fuzzed_pack_schemas(in_tmp, case):
    failures = fuzzlib.run_schema(in_tmp, case[0], case[1], SECONDS)
    assert not [f for f in failures if fuzzlib.known_issue(f, case[0]) is None], failures


def test_unique_items_of_a_long_list_of_mappings_are_checked_in_linear_time():
    # jsonschema compares every pair of mappings: 3,000 of them take it about a minute.
    items = "".join(f"  - {{n: {i}}}\n" for i in range(3000))
    write_pack({"properties": {"parts": {"uniqueItems": True}}}, card=f"id: g\nkind: gadget\nname: G\nparts:\n{items}")
    passes()


@pytest.mark.parametrize("items, unique", [("[1, 1.0]", False), ("[true, 1]", True), ("[{a: [1]}, {a: [1.0]}]", False)])
def test_unique_items_means_what_json_schema_says(items, unique):
    write_pack({"properties": {"parts": {"uniqueItems": True}}}, card=f"id: g\nkind: gadget\nname: G\nparts: {items}\n")
    if unique:
        passes()
    else:
        assert errors() == [f"{CARD}:4:8: CK101 parts: {ITEMS_SHOWN[items]} has non-unique elements"]


ITEMS_SHOWN = {"[1, 1.0]": "[1, 1.0]", "[{a: [1]}, {a: [1.0]}]": "[{'a': [1]}, {'a': [1.0]}]"}


def test_anchors_work_and_a_missing_anchor_is_a_located_problem():
    write_pack({"$defs": {"n": {"$anchor": "short", "maxLength": 3}}, "properties": {"name": {"$ref": "#short"}}})
    assert errors() == [f"{CARD}:3:7: CK101 name: longer than 3 characters"]
    write_pack({"properties": {"name": {"$ref": "#nowhere"}, "id": {"$dynamicRef": "#meta"}}})
    assert errors() == [
        f"{SCHEMA}:1:34: CK104 '$ref' names no part of the schema: '#nowhere'",
        f"{SCHEMA}:1:69: CK104 '$dynamicRef' names no part of the schema: '#meta'",
    ]

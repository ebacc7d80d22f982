"""The JSON Schemas in ``schemas/`` work with third-party tools, checked with check-jsonschema.

Every file meant to load must pass the schema for its kind: the ``pack.yaml`` and card
files (by kind: rules, challenge, or any other kind) of the shipped packs and of the test
fixture packs, and every game record in ``examples/`` and ``tests/golden/``. Each file in
``tests/schemas/broken/`` has one mistake and must fail its schema at the place named in
``BROKEN``. Each schema must itself be valid JSON Schema 2020-12 and carry the
annotations editors show.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
BROKEN_DIR = ROOT / "tests" / "schemas" / "broken"
SCHEMA_NAMES = ("card", "challenge", "rules", "pack", "game-record")
CARD_SUFFIXES = (".yaml", ".yml")

# broken file -> (schema it is checked against, JSON path that check-jsonschema must report)
BROKEN = {
    "card-missing-name.yaml": ("card", "$"),
    "effect-before-and-after.yaml": ("card", "$.effects[0]"),
    "challenge-requires-not-list.yaml": ("challenge", "$.requires"),
    "rules-stage-without-do.yaml": ("rules", "$.stages[0]"),
    "rules-stage-name-not-text.yaml": ("rules", "$.stages[0].name"),
    "pack-unknown-key.yaml": ("pack", "$"),
    "record-negative-value.yaml": ("game-record", "$.challenge_meals.round3.Ana['harbor-stew'].ingredients[0].value"),
}


def check_jsonschema_command() -> list[str]:
    if importlib.util.find_spec("check_jsonschema") is not None:
        return [sys.executable, "-m", "check_jsonschema"]
    for name in ("check-jsonschema", "check-jsonschema.exe"):  # the console script beside this Python
        script = Path(sys.executable).parent / name
        if script.is_file():
            return [str(script)]
    found = shutil.which("check-jsonschema")
    if found:
        return [found]
    pytest.fail("check-jsonschema is not installed; install the test extra: pip install '.[test]'")


def run_check(schema: str, files: list[Path]) -> tuple[int, dict[str, Any], str]:
    """Run check-jsonschema over ``files``; give its exit status, its JSON report and its raw output."""
    done = subprocess.run(
        [
            *check_jsonschema_command(),
            "--output-format",
            "json",
            "--schemafile",
            schema if schema.endswith(".json") else str((SCHEMAS / f"{schema}.schema.json").relative_to(ROOT)),
            *(str(f.relative_to(ROOT)) for f in files),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {}
    return done.returncode, report, output


def describe(report: dict[str, Any], output: str) -> str:
    lines = [f"{e['filename']}::{e['path']}: {e['message']}" for e in report.get("errors", [])]
    lines += [f"{e.get('filename')}: cannot parse: {e.get('message')}" for e in report.get("parse_errors", [])]
    return "\n".join(lines) or output


# the files meant to load, by schema


def pack_folders() -> list[Path]:
    """Every card pack meant to load: those under cards/ and tests/, less the error corpora.

    A folder holding ``*.expected`` files (``tests/cards/invalid``, ``tests/packs/broken-*``)
    is a corpus of mistakes for the engine's own messages, not a pack to check.
    """
    found = {p.parent for root in (ROOT / "cards", ROOT / "tests") for p in root.rglob("pack.yaml")}
    return sorted(f for f in found if BROKEN_DIR not in (f, *f.parents) and not any(f.glob("*.expected")))


def pack_yaml_files() -> dict[Path, Any]:
    """Every YAML or JSON file in a pack folder but pack.yaml: cards, and game records kept there."""
    found = {}
    for folder in pack_folders():
        for path in sorted(folder.rglob("*")):
            if path.suffix in CARD_SUFFIXES and path.is_file() and path.name != "pack.yaml":
                found[path] = yaml.safe_load(path.read_text("utf-8"))
    return found


def is_record(data: Any) -> bool:
    return isinstance(data, dict) and "players" in data  # as the loader tells a record from a card


def card_files() -> dict[Path, dict[str, Any]]:
    return {path: data for path, data in pack_yaml_files().items() if not is_record(data)}


def shipped_files() -> dict[str, list[Path]]:
    cards = card_files()
    declared: dict[str, str] = {}  # card kind -> schema, as the rules cards declare it
    for path, data in cards.items():
        if isinstance(data, dict) and data.get("kind") == "rules":
            for kind, spec in (data.get("card_kinds") or {}).items():
                ref = spec.get("schema", "card")
                if ref.endswith(".json"):  # a schema file of the pack, relative to its folder
                    pack = next(p for p in path.parents if (p / "pack.yaml").is_file())
                    ref = (pack / ref).relative_to(ROOT).as_posix()
                declared[kind] = ref
    groups: dict[str, list[Path]] = {name: [] for name in SCHEMA_NAMES}
    for path, data in cards.items():
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind == "rules":
            groups["rules"].append(path)
        elif kind == "challenge" or "challenges" in path.relative_to(ROOT).parts:
            groups["challenge"].append(path)
        else:
            groups.setdefault(declared.get(str(kind), "card"), []).append(path)
    groups["pack"] = [folder / "pack.yaml" for folder in pack_folders()]
    groups["game-record"] = sorted((ROOT / "examples").glob("*.yaml")) + sorted(
        (ROOT / "tests" / "golden").rglob("*.yaml")
    )
    groups["game-record"] += [path for path, data in pack_yaml_files().items() if is_record(data)]
    return groups


GROUPS = shipped_files()


def test_every_kind_of_file_is_found():
    for name in SCHEMA_NAMES:
        assert GROUPS[name], f"no files found for {name}.schema.json"
    assert ROOT / "cards" / "base" / "rules.yaml" in GROUPS["rules"]
    assert ROOT / "cards" / "base" / "pack.yaml" in GROUPS["pack"]


@pytest.mark.parametrize("schema", sorted(GROUPS))
def test_shipped_files_match_their_schema(schema):
    status, report, output = run_check(schema, GROUPS[schema])
    assert status == 0, f"{schema}.schema.json:\n{describe(report, output)}"
    assert report.get("status") == "ok", output


# files with one mistake each


def test_every_broken_file_is_listed():
    assert sorted(p.name for p in BROKEN_DIR.iterdir() if p.suffix in CARD_SUFFIXES) == sorted(BROKEN)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_file_fails_its_schema(name):
    schema, where = BROKEN[name]
    path = BROKEN_DIR / name
    status, report, output = run_check(schema, [path])
    shown = str(path.relative_to(ROOT))
    assert status == 1, output
    assert shown in output
    assert not report.get("parse_errors"), output
    assert (shown, where) in [(e["filename"], e["path"]) for e in report.get("errors", [])], describe(report, output)


# the schemas themselves


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_is_valid_2020_12(name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{name}.schema.json")
    assert schema["title"]
    assert schema["description"]


def undescribed(schema: Any, where: str) -> list[str]:
    """Places of properties (named, or any key of a mapping) without a description."""
    if not isinstance(schema, dict):
        return []
    missing = []
    for key in ("properties", "patternProperties"):
        for name, sub in schema.get(key, {}).items():
            if not sub.get("description"):
                missing.append(f"{where}.{name}")
            missing += undescribed(sub, f"{where}.{name}")
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        if not extra.get("description"):
            missing.append(f"{where}.*")
        missing += undescribed(extra, f"{where}.*")
    missing += undescribed(schema.get("items"), f"{where}[]")
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in schema.get(key, []):
            missing += undescribed(sub, where)
    return missing


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_property_is_described(name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    assert undescribed(schema, name) == []


def test_schemas_pass_check_jsonschema_metaschema_check():
    done = subprocess.run(
        [
            *check_jsonschema_command(),
            "--check-metaschema",
            *(f"schemas/{name}.schema.json" for name in SCHEMA_NAMES),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr

"""The compiled build gives the same bytes as the pure-Python package, its reference.

``CRITTER_KITCHEN_COMPILED_PYTHON`` names the python of a venv where the compiled build is
installed (``HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install ...``; ``.ci/run`` builds one).
Then the python running these tests (the pure package) and that one each run the same
commands: the golden games, the error corpora (invalid records, invalid cards, hostile
schemas and output), the card and pack reports, and a few thousand random games on
standard input as JSON Lines. Standard output, standard error and the exit status must
be identical. The other python must really run compiled modules, or this would compare
the pure package with itself.

Without the variable those comparisons are skipped; the tests of the source that the
compiled build relies on (field lists, pickling, the cache) run in every build.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from critter_kitchen import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PYTHON = os.environ.get("CRITTER_KITCHEN_COMPILED_PYTHON", "")
needs_compiled = pytest.mark.skipif(
    not COMPILED_PYTHON,
    reason="CRITTER_KITCHEN_COMPILED_PYTHON does not name the python of a venv with the compiled build "
    "(.ci/run sets it)",
)
DRAWN_GAMES, VARIANTS = 150, 20  # about 2,000 distinct random records, one JSON Lines stream a build
TEXT_GAMES = 300  # of those, scored again as text with --explain


def compiled_modules() -> list[str]:
    """The modules pyproject.toml tells the compiled build to compile."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    included = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]["include"]
    prefix = "/engine/"
    assert all(p.startswith(prefix) and p.endswith(".py") for p in included), included
    return [p[len(prefix) : -len(".py")].replace("/", ".") for p in included]


# What each python runs, from the repository root, with -I so that only its installed
# package is importable: every command in-process, as the tests run them. Where each
# build keeps its shipped packs differs (an editable install keeps them in the checkout),
# so that folder is written as <cards> (`packs` shows it).
DRIVER = """
import contextlib, importlib, io, json, sys
request = json.load(sys.stdin)
from critter_kitchen.cli import main
from critter_kitchen.loading.paths import shipped_cards
cards = shipped_cards()
files = {name: importlib.import_module(name).__file__ for name in request["modules"]}
runs = []
for argv in request["commands"]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code
    shown = [text.getvalue().replace(cards, "<cards>") for text in (out, err)]
    runs.append([argv, status, *shown])
json.dump({"files": files, "runs": runs}, sys.stdout)
"""


def run_python(python: str, args: list[str], stdin: bytes, cache: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(cache), CRITTER_KITCHEN_CACHE_KEY=str(cache / "key" / "k"))
    return subprocess.run([python, "-I", *args], input=stdin, capture_output=True, cwd=ROOT, env=env, timeout=600)


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def corpus_commands() -> list[list[str]]:
    sys.path.insert(0, str(ROOT / "tools"))
    from regen_golden import pack_args

    commands: list[list[str]] = []
    for record in sorted((ROOT / "tests" / "golden").rglob("*.yaml")):
        commands.append(["score", relative(record), "--format", "json", *pack_args(record)])
        commands.append(["score", relative(record), "--explain", *pack_args(record)])
    for example in sorted((ROOT / "examples").glob("*.yaml")):
        commands.append(["score", relative(example), "--format", "json"])
    invalid_records = ROOT / "tests" / "records" / "invalid"
    for record in sorted(p for p in invalid_records.iterdir() if p.suffix in (".yaml", ".json")):
        commands.append(["score", relative(record)])
        commands.append(["score", relative(record), "--format", "json"])
    # every sixth invalid card: each validation loads the base pack afresh (seconds), and
    # the checks are the loader's, which stays Python; the compiled part is what they report
    cards = sorted(p for p in (ROOT / "tests" / "cards" / "invalid").glob("*.yaml") if p.name != "pack.yaml")
    commands += [["validate", relative(card)] for card in cards[::6]]
    for folder in sorted(p for p in (ROOT / "tests" / "hostile" / "schemas").iterdir() if p.is_dir()):
        commands.append(["validate", relative(folder)])
    hostile = ROOT / "tests" / "hostile" / "output"
    game, pack = relative(hostile / "escape-game.yaml"), relative(hostile / "escape-pack")
    commands += [
        ["score", game, "--pack", pack],
        ["score", game, "--pack", pack, "--format", "json"],
        ["validate", pack, "--format", "github"],
        ["cards", "--pack", pack],
        ["cards"],
        ["cards", "--format", "json"],
        ["packs"],
        ["validate", "cards"],
    ]
    # the balance lab plays every decision with the planner (compiled too): each effort, one process
    for effort in ("quick", "fast", "exact"):
        commands.append(["simulate", "--games", "3", "--workers", "1", "--format", "json", "--effort", effort])
    commands.append(["simulate", "--games", "3", "--workers", "1", "--format", "json", "--pack", "a-la-carte"])
    return commands


def random_records(count: int, variants: int) -> list[dict]:
    """Distinct random legal records: ``count`` from the test generators (full games with a
    critic, rumors and restaurateurs, and base games), each with up to ``variants`` - 1
    copies that list its players and its rumors in other orders. Either order is free; the
    players' order is the priority track, so ties break otherwise. The generators take
    about 0.1 s a record, a copy nothing."""
    import random

    import gen
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    drawn: list[dict] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.one_of(gen.full_games(), gen.games()))
    def collect(record: dict) -> None:
        drawn.append(json.loads(json.dumps(record)))

    collect()
    found: dict[str, dict] = {}
    for i, record in enumerate(drawn):
        found.setdefault(json.dumps(record), record)
        rng = random.Random(i)
        for _ in range(variants - 1):
            copy = json.loads(json.dumps(record))
            for listed in (copy["players"], copy["cards"].get("rumors", [])):
                rng.shuffle(listed)
            found.setdefault(json.dumps(copy), copy)
    return list(found.values())


@pytest.fixture(scope="module")
def both_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """What each build printed, by build: the driver's report and each stream's output."""
    modules = compiled_modules()
    request = json.dumps({"modules": modules, "commands": corpus_commands()}).encode()
    records = random_records(DRAWN_GAMES, VARIANTS)
    lines = "".join(json.dumps(r) + "\n" for r in records).encode()
    text_lines = b"".join(lines.splitlines(keepends=True)[:TEXT_GAMES])
    seen: dict[str, dict] = {}
    for build, python in (("pure", sys.executable), ("compiled", COMPILED_PYTHON)):
        cache = tmp_path_factory.mktemp(f"cache-{build}")
        driver = run_python(python, ["-c", DRIVER], request, cache)
        assert driver.returncode == 0, driver.stderr.decode()[-3000:]
        seen[build] = {
            "driver": json.loads(driver.stdout),
            "json": run_python(python, ["-m", "critter_kitchen", "score", "-", "--format", "json"], lines, cache),
            "text": run_python(python, ["-m", "critter_kitchen", "score", "-", "--explain"], text_lines, cache),
        }
    assert len(records) > 1500
    seen["records"] = {"count": len(records)}
    return seen


# Each python plans the same random pantries, with the library: the planner's modules are
# compiled too, and a simulation plays every decision with them. Challenge rounds at tables
# whose stars add up and at tables with a critic, rumors and restaurateurs (where they mostly
# do not), both efforts; critic meals; the base pack and À La Carte.
PLANS_DRIVER = """
import json, random, sys
sys.path.insert(0, "tools")
from bench_plan import at_lab_table, critic_pantry, lab_table, random_pantry
from critter_kitchen import load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import critic_json, plan_critic
from critter_kitchen.plan.output import plan_json
from critter_kitchen.plan.search import plan_round
out = []
for pack in ([], ["a-la-carte"]):
    ruleset = load_ruleset(packs_for({}, pack))
    rng = random.Random(41)
    table = lab_table(random.Random(43), ruleset)
    for i in range(ROUNDS):
        data = random_pantry(rng, ruleset, 3 + i % 10)
        if i % 2:
            data = at_lab_table(rng, data, table)
        asked = question({k: v for k, v in data.items() if not k.startswith("_")}, ruleset)
        for effort in ("exact", "fast"):
            out.append(plan_json(plan_round(asked, effort=effort)))
    for i in range(CRITICS):
        asked = question(critic_pantry(rng, ruleset, 4 + i % 3), ruleset)
        for effort in ("exact", "fast"):
            out.append(critic_json(plan_critic(asked, effort=effort)))
json.dump(out, sys.stdout)
"""
ROUNDS, CRITICS = 120, 20  # pantries of each pack


@needs_compiled
def test_plans_are_the_same_in_both_builds(tmp_path: Path) -> None:
    printed = []
    for build, python in (("pure", sys.executable), ("compiled", COMPILED_PYTHON)):
        driver = f"ROUNDS, CRITICS = {ROUNDS}, {CRITICS}\n{PLANS_DRIVER}"
        done = run_python(python, ["-c", driver], b"", tmp_path / build)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        printed.append(json.loads(done.stdout))
    pure, compiled = printed
    assert len(pure) == len(compiled) == 2 * 2 * (ROUNDS + CRITICS)
    for expected, got in zip(pure, compiled, strict=True):
        assert got == expected
    assert sum(bool(p.get("meals")) for p in pure) > 200  # plans that serve something were compared


@needs_compiled
def test_the_other_python_runs_the_compiled_modules(both_builds: dict[str, dict]) -> None:
    compiled, pure = both_builds["compiled"]["driver"]["files"], both_builds["pure"]["driver"]["files"]
    assert len(compiled) >= 12
    not_compiled = {name: file for name, file in compiled.items() if not file.endswith((".so", ".pyd"))}
    assert not_compiled == {}
    assert all(file.endswith(".py") for file in pure.values()), pure


@needs_compiled
def test_the_corpora_print_the_same_in_both_builds(both_builds: dict[str, dict]) -> None:
    pure, compiled = both_builds["pure"]["driver"]["runs"], both_builds["compiled"]["driver"]["runs"]
    assert len(pure) == len(compiled) > 80
    for expected, got in zip(pure, compiled, strict=True):
        assert got == expected, expected[0]
    statuses = {status for _, status, _, _ in pure}
    assert statuses == {0, 1}  # both successes and refusals were compared


@needs_compiled
@pytest.mark.parametrize("form", ["json", "text"])
def test_random_games_print_the_same_bytes_in_both_builds(both_builds: dict[str, dict], form: str) -> None:
    pure, compiled = both_builds["pure"][form], both_builds["compiled"][form]
    assert (compiled.returncode, compiled.stderr) == (pure.returncode, pure.stderr)
    assert compiled.stdout == pure.stdout
    scored = pure.stdout.count(b'"winner"') if form == "json" else pure.stdout.count(b"\n== ")
    expected = both_builds["records"]["count"] if form == "json" else TEXT_GAMES - 1
    assert scored == expected, pure.stderr.decode()[-2000:]


SECOND_LOAD = """
import sys
import critter_kitchen.loading.packs as packs
from critter_kitchen import load_ruleset
first = load_ruleset()
def refuse(*args, **kwargs):
    raise SystemExit("the second load read the packs again: the cache missed")
packs.load_sources = refuse
again = load_ruleset()
assert again is not first and sorted(again.cards) == sorted(first.cards)
print("hit", len(again.cards))
"""


@needs_compiled
def test_the_compiled_build_loads_packs_from_its_cache(tmp_path: Path) -> None:
    done = run_python(COMPILED_PYTHON, ["-c", SECOND_LOAD], b"", tmp_path)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.startswith(b"hit ")


# what the compiled build relies on, checked in whichever build runs the tests


def test_a_second_load_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import critter_kitchen.loading.packs as packs

    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    first = load_ruleset()
    assert list((tmp_path / "cache").glob("packs-*.pickle"))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the second load read the packs again: the cache missed")

    monkeypatch.setattr(packs, "load_sources", refuse)
    again = load_ruleset()
    assert again is not first
    assert sorted(again.cards) == sorted(first.cards)
    assert [s.name for s in again.stages] == [s.name for s in first.stages]


def test_a_ruleset_pickles_and_unpickles_through_the_cache_unpickler() -> None:
    from critter_kitchen.cache import unpickle
    from critter_kitchen.loading.cached import ENTRY_CLASSES

    rules = load_ruleset()
    again = unpickle(pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL), ENTRY_CLASSES)
    card = next(c for c in rules.cards.values() if c.effects)
    copy = again.cards[card.id]
    assert (copy.id, copy.kind, copy.name, copy.pack, copy.path, copy.pos, copy.data) == (
        card.id, card.kind, card.name, card.pack, card.path, card.pos, card.data
    )  # fmt: skip
    assert (copy.requires, len(copy.effects), copy.parameters) == (card.requires, len(card.effects), card.parameters)
    assert [vars_of(p) for p in again.parameters.values()] == [vars_of(p) for p in rules.parameters.values()]
    assert [vars_of(p) for p in again.packs] == [vars_of(p) for p in rules.packs]


def vars_of(thing: object) -> tuple[object, ...]:
    names = [n for n in ("id", "name", "type", "value", "description", "unverified", "path", "requires")
             if hasattr(thing, n)]  # fmt: skip
    return tuple(getattr(thing, n) for n in names)


def value_classes() -> list[type]:
    from critter_kitchen.values import Value

    for module in compiled_modules():
        importlib.import_module(module)
    found, todo = [], list(Value.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def test_every_value_class_lists_its_fields() -> None:
    """Compiled classes keep no ``__slots__``: equality, hashing and repr read ``_fields``."""
    classes = value_classes()
    assert len(classes) >= 5
    for cls in classes:
        assert cls._fields, cls
        if "__slots__" in cls.__dict__:  # the pure build
            assert cls.__slots__ == cls._fields, cls
        assert set(cls._compared) <= set(cls._fields), cls


def test_every_cached_class_that_needs_arguments_says_how_to_unpickle_it() -> None:
    """A compiled class is unpickled by calling ``__init__`` with no arguments unless it has
    ``__reduce__``; a class of a cache entry that needs arguments and lacks it makes the
    compiled build's cache miss on every run. This holds in the pure build too, so a new class
    of the ruleset is caught without building the compiled one."""
    import inspect

    from critter_kitchen.loading.cached import ENTRY_CLASSES

    lacking = []
    for admitted in ENTRY_CLASSES:
        module_name, _, class_name = admitted.rpartition(".")
        module = importlib.import_module(module_name)
        classes = (
            [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module_name]
            if class_name == "*"
            else [getattr(module, class_name)]
        )
        for cls in classes:
            required = [
                p
                for p in inspect.signature(cls.__init__).parameters.values()
                if p.name != "self" and p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            ]
            # a private base (_Syntax) is never pickled itself; its subclasses are checked
            if required and "__reduce__" not in vars(cls) and not cls.__name__.startswith("_"):
                lacking.append(f"{module_name}.{cls.__name__}")
    assert lacking == []

"""What the compiler tells the planner of each program (``dsl/facts.py``, stored in ``Compiled.facts``
and in the pack cache) is what the planner's former walk over the syntax tree gave, for every
program of every shipped and test pack and card.

The reference below is that walk as the planner did it (``plan/reads.py`` and
``plan/critic_reads.py`` before the facts moved into the compiler): it walks the syntax tree
at plan time; the compiler's facts must agree with it exactly.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import yaml

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.dsl import nodes as n
from critter_kitchen.dsl.facts import facts_of
from critter_kitchen.dsl.parser import parse_program
from critter_kitchen.dsl.registry import RANKING

ROOT = Path(__file__).resolve().parent.parent
PLACES = ("cards", "tests/packs", "tests/cards", "examples")

# The reference: the planner's walks over a syntax tree, as they were.

MEAL_SOURCES = ("meals", "meals_for")


def walked(tree: object) -> tuple[set[str], set[str]]:
    """reads._facts: the functions called, the names bound."""
    calls: set[str] = set()
    bound: set[str] = set()
    for node in n.walk(tree):
        if isinstance(node, n.Call | n.Comprehension):
            calls.add(node.func)
        if isinstance(node, n.Let):
            bound.add(node.name)
        elif isinstance(node, n.For | n.Comprehension):
            bound.add(node.var)
    return calls, bound


def reads_meals(node: object) -> bool:
    return any(isinstance(x, n.Call | n.Comprehension) and x.func in MEAL_SOURCES for x in n.walk(node))


def top_ok(body: tuple) -> bool:
    """reads._top_ok."""
    for stmt in body:
        if isinstance(stmt, n.For):
            if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                if reads_meals(stmt.source.args) or not per_meal_ok(stmt.body):
                    return False
            elif reads_meals(stmt.source) or not top_ok(stmt.body):
                return False
        elif isinstance(stmt, n.If):
            if reads_meals(stmt.condition) or not (top_ok(stmt.then) and top_ok(stmt.orelse)):
                return False
        elif isinstance(stmt, n.Let):
            if reads_meals(stmt.value):
                return False
        elif isinstance(stmt, n.Award):
            if reads_meals(stmt.amount) or reads_meals(stmt.target):
                return False
        elif isinstance(stmt, n.Modify):
            if reads_meals(stmt.target) or reads_meals(stmt.value):
                return False
        elif not isinstance(stmt, n.Pass):
            return False
    return True


def per_meal_ok(body: tuple) -> bool:
    for node in n.walk(body):
        if isinstance(node, n.Modify):
            return False
        if isinstance(node, n.Call | n.Comprehension) and node.func in MEAL_SOURCES:
            return False
    return True


def binds_players(tree: object) -> bool:
    """critic_reads._binds_players."""
    return any(
        (isinstance(x, n.Let) and x.name == "players")
        or (isinstance(x, n.For | n.Comprehension) and x.var == "players")
        for x in n.walk(tree)
    )


def anyone_alone(target: object) -> bool:
    return (
        isinstance(target, n.Comprehension)
        and target.func in RANKING
        and (
            (isinstance(target.source, n.Name) and target.source.name == "players")
            or (isinstance(target.source, n.Call) and target.source.func == "players" and not target.source.args)
        )
    )


def seen_nodes(node: object, *, alone: bool):
    """critic_reads._seen_nodes."""
    if isinstance(node, tuple):
        for item in node:
            yield from seen_nodes(item, alone=alone)
    elif isinstance(node, n.Node):
        if alone and isinstance(node, n.Award) and anyone_alone(node.target):
            yield from seen_nodes((node.amount, node.reason, node.target.condition), alone=alone)
            return
        yield node
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from seen_nodes(getattr(node, name), alone=alone)


def bound_names(tree: object) -> frozenset[str]:
    """critic_reads._work_bound."""
    found: set[str] = set()
    for x in n.walk(tree):
        if isinstance(x, n.Let):
            found.add(x.name)
        elif isinstance(x, n.For | n.Comprehension):
            found.add(x.var)
    return frozenset(found)


def reference(tree: n.Program) -> tuple:
    """The facts as the planner's walks gave them, in ``dsl/facts.py``'s order."""
    calls, bound = walked(tree)
    assert frozenset(bound) == bound_names(tree)  # the two walks of the bound names agreed
    seen = tuple(seen_nodes(tree, alone=not binds_players(tree)))
    stage_stars: set[str | None] = set()
    for call in seen:  # critic_reads._course_stage_stars
        if not isinstance(call, n.Call) or call.func != "stage_stars":
            continue
        if len(call.args) != 2 or not isinstance(call.args[1], n.Text) or not call.args[1].parts:
            stage_stars.add(None)
        elif not all(isinstance(part, str) for part in call.args[1].parts):
            stage_stars.add(None)
        else:
            stage_stars.add("".join(str(part) for part in call.args[1].parts))
    added = {  # critic_reads.summed_types
        id(x.target)
        for x in seen
        if isinstance(x, n.Modify) and x.op == "add" and isinstance(x.value, n.Number) and x.value.value >= 0
    }
    quality_reads: set[str | None] = set()
    for call in seen:
        if not isinstance(call, n.Call) or call.func != "quality" or id(call) in added:
            continue
        kind = call.args[1] if len(call.args) == 2 else None
        quality_reads.add(kind.name if isinstance(kind, n.Name) else None)
    return (
        frozenset(calls),
        frozenset(bound),
        any(isinstance(y, n.Modify) for y in n.walk(tree)),  # critic_reads._changes
        top_ok(tree.body),  # reads._tree_separable
        frozenset(x.func for x in seen if isinstance(x, n.Call | n.Comprehension)),
        frozenset(stage_stars),
        frozenset(quality_reads),
    )


def pack_folders() -> list[Path]:
    return sorted(p.parent for place in PLACES for p in (ROOT / place).rglob("pack.yaml"))


def packs_of(folder: Path) -> list[Path]:
    """What to load for ``folder``: itself, on top of the base pack (which loads first anyway)."""
    return [] if folder == ROOT / "cards" / "base" else [folder]


def loadable_pack_folders() -> list[Path]:
    """The packs whose load is not refused: the planner only ever plans with those. A refused
    pack (its own tests check why) has no programs to compare."""
    loadable = []
    for folder in pack_folders():
        try:
            load_ruleset(packs_of(folder))
        except InputError:
            continue
        loadable.append(folder)
    return loadable


LOADABLE = loadable_pack_folders()


def test_every_shipped_and_example_pack_is_compared():
    shipped = [f for f in pack_folders() if not f.is_relative_to(ROOT / "tests")]
    assert shipped and set(shipped) <= set(LOADABLE)


def program_texts() -> list[tuple[str, str]]:
    """Every program text (a ``do:``) of every card file of the places, with where it is."""
    found: list[tuple[str, str]] = []

    def collect(data: object, where: str) -> None:
        if isinstance(data, dict):
            for key, value in data.items():
                if key == "do" and isinstance(value, str):
                    found.append((where, value))
                else:
                    collect(value, f"{where}.{key}")
        elif isinstance(data, list):
            for i, value in enumerate(data):
                collect(value, f"{where}[{i}]")

    for place in PLACES:
        for path in sorted((ROOT / place).rglob("*.yaml")):
            try:
                docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue  # a test of a file that is not YAML
            for doc in docs:
                collect(doc, str(path.relative_to(ROOT)))
    return found


def test_the_facts_of_every_program_text_are_the_tree_walks():
    compared = 0
    for where, text in program_texts():
        try:
            tree = parse_program(text, lambda line, column: (line, column))
        except Exception:  # a card testing a syntax error: no program to tell
            continue
        assert facts_of(tree) == reference(tree), where
        compared += 1
    assert compared >= 100  # every shipped card and stage, and the test cards (103 when written)


@pytest.mark.parametrize("folder", LOADABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_facts_each_pack_stores_are_the_tree_walks(folder, monkeypatch):
    packs = packs_of(folder)
    with monkeypatch.context() as cache_off:
        cache_off.setenv("CRITTER_KITCHEN_CACHE", "off")
        first = load_ruleset(packs)  # compiled now (collecting LOADABLE stored it in the pack cache)
    again = load_ruleset(packs)  # read from the pack cache (its programs unbuilt)
    copied = pickle.loads(pickle.dumps(first))  # as a cache entry holds it
    for ruleset in (first, again, copied):
        held = [s for s in ruleset.stages if s.code is not None]
        held += [e for c in ruleset.cards.values() for e in c.effects if e.code is not None]
        assert held
        for holder in held:
            assert holder.code.facts == reference(holder.ast), (folder, holder)

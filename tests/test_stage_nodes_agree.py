"""A program's nodes: the shapes with nodes of their own give what the plain node of their op gives.

``dsl/program.py`` builds each op into a node (``dsl/run_nodes.py``); common shapes (a registry call on variables
or constants, an attribute read, a comparison with a constant, a count without a condition,
an award to a highest...) get nodes of their own. Here every program is built a second way,
each op into the one plain node of its kind, and the golden games and random games must
score the same with either. The runner calls a program through ``Compiled.execute``; an
unpickled program is built on its first run, once.
"""

from __future__ import annotations

import json
import pickle
import sys
import types
from functools import cache
from pathlib import Path
from typing import Any

import gen
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.cli import main
from critter_kitchen.dsl import run_nodes as c
from critter_kitchen.dsl.changes import Change
from critter_kitchen.dsl.frame import Frame
from critter_kitchen.dsl.program import Compiled, build
from critter_kitchen.dsl.registry import FUNCTIONS
from critter_kitchen.dsl.run_nodes import Node, show, steps_of
from critter_kitchen.loading.records import read_record
from critter_kitchen.model.ruleset import Ruleset
from critter_kitchen.report.json import result_json
from critter_kitchen.stages.runner import score_game

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from regen_golden import pack_args  # noqa: E402 - the golden games' packs, as test_golden reads them

GOLDEN = sorted((ROOT / "tests" / "golden").rglob("*.yaml"))
patchable = pytest.mark.skipif(
    not isinstance(Compiled.__dict__["execute"], types.FunctionType),
    reason="the compiled build's classes cannot be patched; this compares the source's two builds of a program",
)

rules_once = cache(load_ruleset)


@cache
def alc_once() -> Ruleset:
    return load_ruleset(packs_for({"packs": ["a-la-carte"]}, []))


def plain(op: Any) -> Node:
    """``op`` built into the plain node of its kind, all the way down: no shape of its own."""
    kind = op[0]
    if kind == "const":
        return c._Const(op[1])
    if kind == "slot":
        return c._Slot(op[1])
    if kind == "param":
        return c._Param(op[1])
    if kind == "param_of":
        return (c._MealParam if op[3] else c._PlayerParam)(op[1], plain(op[2]))
    if kind == "call":  # the registry's impl, also for an attribute read
        return c._CallN(FUNCTIONS[op[1]].impl, [plain(a) for a in op[2]])
    if kind == "arith":
        return c._Arith(c._ARITH[op[1]], plain(op[2]), plain(op[3]))
    if kind == "neg":
        return c._Neg(plain(op[1]))
    if kind == "list":
        return c._List([plain(item) for item in op[1]])
    if kind == "cmp":
        return c._Compare(c._COMPARE[op[1]], plain(op[2]), plain(op[3]))
    if kind == "in":
        return c._Contains(plain(op[1]), plain(op[2]), op[3])
    if kind in ("and", "or"):
        return (c._And if kind == "and" else c._Or)(plain(op[1]), plain(op[2]))
    if kind == "not":
        return c._Not(plain(op[1]))
    if kind == "text":  # every part shown in turn, fixed parts as their shown text
        parts = [c._Const(show(p[1])) if p[0] == "const" else plain(p) for p in op[1]]
        return c._Text("", parts, [""] * len(parts))
    if kind == "show":
        return c._Shown(plain(op[1]))
    if kind == "agg":
        return _plain_aggregate(*op[1:])
    if kind == "seq":
        return c._Seq([plain(s) for s in op[1]])
    if kind == "let":
        return c._Let(op[1], plain(op[2]))
    if kind == "for":
        return c._For(op[1], plain(op[2]), plain(op[3]), 1 + steps_of(op[3]))
    if kind == "if":
        return c._Branch(plain(op[1]), plain(op[2]), plain(op[3]) if op[3] is not None else c._Pass())
    if kind == "modify":
        return c._Modify(Change, op[2], FUNCTIONS[op[1]], [plain(a) for a in op[3]], plain(op[4]))
    if kind == "award":  # the stars always computed, the target always a value (a highest: its list)
        return c._Award(None, plain(op[1]), plain(op[2]), plain(op[3]) if op[3] is not None else None)
    raise AssertionError(f"an op this test does not know: {kind}")


def _plain_aggregate(func: str, source: Any, element: Any, condition: Any, slot: int) -> Node:
    src, elem = plain(source), plain(element)
    cond = plain(condition) if condition is not None else None
    cost = 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)
    if func in ("highest", "lowest"):
        return c._Ranked(c._Ranking(src, elem, cond, slot, cost, func == "highest"))
    if func == "count":
        return c._Count(src, cond, slot, cost)
    if func in ("any", "all"):
        return c._Decide(src, elem, cond, slot, cost, func == "any")
    return c._Values(src, elem, cond, slot, cost, REDUCERS[func])


REDUCERS = {"sum": c.sum_of, "max": c.max_of, "min": c.min_of, "each": tuple}


def node_types(node: Any) -> set[type]:
    """The classes of ``node`` and of every node inside it."""
    found: set[type] = set()
    todo = [node]
    while todo:
        part = todo.pop()
        if isinstance(part, (Node, c._Ranking)):
            found.add(type(part))
            todo.extend(getattr(part, name) for name in type(part).__slots__)
        elif type(part) is list:
            todo.extend(part)
    return found


class PlainRuns:
    """While in force, every program runs as its plain build (see :func:`plain`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built: dict[int, tuple[Compiled, Node]] = {}  # the program kept, so that its id stays its own
        monkeypatch.setattr(Compiled, "execute", lambda code, frame: self.execute(code, frame))

    def execute(self, code: Compiled, frame: Frame) -> Any:
        entry = self.built.get(id(code))
        if entry is None:
            entry = self.built[id(code)] = (code, plain(code.ops))
        return entry[1].run(frame)


@pytest.fixture
def plain_runs(monkeypatch: pytest.MonkeyPatch) -> PlainRuns:
    return PlainRuns(monkeypatch)


def scored(rules: Ruleset, record: dict[str, Any]) -> Any:
    return result_json(score_game(read_record(rules, record, "game"), "game"))


@patchable
@pytest.mark.parametrize("record", GOLDEN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_golden_game_scores_the_same_with_every_program_built_plain(
    record: Path, plain_runs: PlainRuns, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    status = main(["score", record.relative_to(ROOT).as_posix(), "--format", "json", *pack_args(record)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert plain_runs.built  # the plain builds ran
    assert out == record.with_suffix(".json").read_text(encoding="utf-8")


@patchable
@settings(max_examples=150, deadline=None)
@given(st.one_of(gen.full_games(), gen.games()), st.booleans())
def test_a_random_game_scores_the_same_with_every_program_built_plain(record: dict[str, Any], alc: bool) -> None:
    rules = alc_once() if alc else rules_once()
    record = json.loads(json.dumps(record))
    expected = scored(rules, record)
    with pytest.MonkeyPatch.context() as monkeypatch:
        runs = PlainRuns(monkeypatch)
        assert scored(rules, record) == expected
    assert runs.built


def test_the_programs_of_the_packs_use_the_shapes_with_nodes_of_their_own() -> None:
    """So the comparisons above compare something: the cards' programs built as scoring builds
    them hold most of the shapes, and their plain builds hold none of them."""
    programs: list[Any] = []
    for rules in (rules_once(), alc_once()):
        programs.extend(s.code.ops for s in rules.stages if s.code is not None)
        programs.extend(e.code.ops for card in rules.cards.values() for e in card.effects if e.code is not None)
    fast = set().union(*(node_types(build(ops)) for ops in programs))
    slow = set().union(*(node_types(plain(ops)) for ops in programs))
    shapes = {
        c._Call0,
        c._ReadSlot,
        c._Call1Slot,
        c._Call2SlotSlot,
        c._Call2SlotConst,
        c._Call2SlotParam,
        c._SlotParam,
        c._CompareReadFrame,
        c._CompareConst,
        c._ContainsSlotRead,
        c._TextSlot,
        c._CountAll,
        c._AwardRanked,
        c._Seq2,
        c._When,
    }
    assert shapes <= fast
    assert not shapes & slow


@settings(max_examples=10, deadline=None)
@given(gen.full_games())
def test_an_unpickled_program_is_built_on_its_first_execution_once(record: dict[str, Any]) -> None:
    rules = rules_once()
    program = next(e.code for card in rules.cards.values() for e in card.effects if e.code is not None)
    again = pickle.loads(pickle.dumps(program))
    assert again.node is None and getattr(again.run, "__self__", None) is again
    first_run = again.run  # a caller may hold it from before the program was built
    game = read_record(rules, json.loads(json.dumps(record)), "game")
    frame = Frame(game, rules.rules_cards[0], "scoring", None, again.slots)
    first = again.execute(frame)
    node = again.node
    assert isinstance(node, Node) and again.run is node
    assert first_run(frame) == again.execute(frame) == node.run(frame) == first
    assert again.node is node  # built once

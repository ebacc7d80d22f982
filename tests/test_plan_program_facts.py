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
from typing import Any

import pytest
import yaml

from critter_kitchen import InputError, load_ruleset
from critter_kitchen.api import rule_parameters
from critter_kitchen.dsl import nodes as n
from critter_kitchen.dsl.facts import facts_of
from critter_kitchen.dsl.parser import parse_program
from critter_kitchen.dsl.registry import FUNCTIONS, RANKING
from critter_kitchen.plan.programs import program_of, programs
from critter_kitchen.plan.reads import stars_rise_with_quality

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


# The proof that stars rise with quality, as the planner made it on the syntax trees when it planned
# (plan/reads.py before the proof moved into the compiler's facts).

SAME_FOR_A_CARD = ("player_of", "meal_card", "meal_card_id")


# What an expression inside a meal loop is, as the meal's quality rises (all else fixed):
CONST = "const"  # the same whatever the quality
UP = "up"  # a number that never falls
RISING = "rising"  # a condition that, once true, stays true
OTHER = "other"  # nothing proved


def old_stars_rise_with_quality(trees: list, tables: list) -> bool:
    """Whether the stars a meal earns alone never fall as its quality rises (every other part of
    the game fixed), for separable programs (:func:`separable`) that read a meal's quality only.

    Each award in a meal loop must give a never-falling amount to a target that does not
    depend on the meal, under conditions that either do not depend on the meal or, once
    true, stay true (``meal_quality(m) >= 12``; then with no ``else`` and an amount never
    below 0). ``band(x, b)`` never falls in ``x`` when every parameter table ``b`` in
    ``tables`` (the parameters in force) lists stars never below 0 and never falling.
    """
    bound: set[str] = set()
    for tree in trees:
        bound |= bound_names(tree)
    proof = _Rising([dict(t) for t in tables], bound)
    return all(proof.top(tree.body) for tree in trees)


def _old_rising_rows(bands) -> bool:
    """Bands written out as numbers, ``[[0, 0], [6, 1]]``, whose stars are never below 0 and never fall."""
    stars: list[int] = []
    for row in bands.items:
        if not (isinstance(row, n.ListOf) and len(row.items) == 2):
            return False
        minimum, amount = row.items
        if not (isinstance(minimum, n.Number) and isinstance(amount, n.Number)) or amount.value < 0:
            return False
        stars.append(amount.value)
    return bool(stars) and all(a <= b for a, b in zip(stars, stars[1:], strict=False))


class _Rising:  # plan/reads.py's, as it was
    def __init__(self, tables: list[dict[str, Any]], bound: set[str]) -> None:
        self.tables = tables
        self.bound = bound  # names a program binds: never read as a parameter table here

    def top(self, body: tuple[n.Stmt, ...]) -> bool:
        """Outside meal loops (meal-free, as :func:`separable` proved): every meal loop must rise."""
        for stmt in body:
            if isinstance(stmt, n.For):
                if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                    if not self.body(stmt.body, {stmt.var: "meal"}, guarded=False):
                        return False
                elif not self.top(stmt.body):
                    return False
            elif isinstance(stmt, n.If) and not (self.top(stmt.then) and self.top(stmt.orelse)):
                return False
        return True

    def body(self, body: tuple[n.Stmt, ...], env: dict[str, str], guarded: bool) -> bool:
        """A meal loop's statements (``guarded``: under a rising condition, amounts must be >= 0)."""
        env = dict(env)
        for stmt in body:
            if isinstance(stmt, n.Let):
                env[stmt.name] = self.kind(stmt.value, env)
            elif isinstance(stmt, n.Award):
                amount = self.kind(stmt.amount, env)
                if self.kind(stmt.target, env) != CONST or amount not in (CONST, UP):
                    return False
                if guarded and not self.at_least_zero(stmt.amount):
                    return False
            elif isinstance(stmt, n.If):
                condition = self.kind(stmt.condition, env)
                if condition == CONST:
                    if not (self.body(stmt.then, env, guarded) and self.body(stmt.orelse, env, guarded)):
                        return False
                elif condition == RISING:
                    if any(not isinstance(s, n.Pass) for s in stmt.orelse) or not self.body(stmt.then, env, True):
                        return False
                else:
                    return False
            elif isinstance(stmt, n.For):
                if self.kind(stmt.source, env) != CONST:
                    return False
                if not self.body(stmt.body, {**env, stmt.var: CONST}, guarded):
                    return False
            elif not isinstance(stmt, n.Pass):
                return False  # a change (set, add, multiply), or a statement this proof does not know
        return True

    def kind(self, expr: object, env: dict[str, str]) -> str:
        """What ``expr`` is as the meal's quality rises (see CONST, UP, RISING, OTHER)."""
        if isinstance(expr, n.Name):
            found = env.get(expr.name, CONST)
            return OTHER if found == "meal" else found
        if isinstance(expr, n.Call) and len(expr.args) == 1 and self.is_meal(expr.args[0], env):
            if expr.func == "meal_quality":
                return UP
            # a rule parameter in force for the meal is its card's and player's: one per option
            return CONST if expr.func in SAME_FOR_A_CARD or expr.func not in FUNCTIONS else OTHER
        if isinstance(expr, n.Call) and expr.func == "band" and len(expr.args) == 2:
            x, table = (self.kind(a, env) for a in expr.args)
            if x == UP and table == CONST and self.rising_table(expr.args[1]):
                return UP
        if isinstance(expr, n.BinOp):
            return self.arithmetic(expr, env)
        if isinstance(expr, n.Compare):
            left, right = self.kind(expr.left, env), self.kind(expr.right, env)
            if (left, right) == (UP, CONST) and expr.op in (">", ">="):
                return RISING
            if (left, right) == (CONST, UP) and expr.op in ("<", "<="):
                return RISING
        if isinstance(expr, n.BoolOp):
            parts = {self.kind(expr.left, env), self.kind(expr.right, env)}
            if parts <= {CONST, RISING}:
                return RISING if RISING in parts else CONST
        return CONST if self.all_const(expr, env) else OTHER

    def arithmetic(self, expr: n.BinOp, env: dict[str, str]) -> str:
        left, right = self.kind(expr.left, env), self.kind(expr.right, env)
        if {left, right} <= {CONST, UP} and UP in {left, right}:
            if expr.op == "+":
                return UP
            if expr.op == "-" and right == CONST:
                return UP
            number = expr.right if left == UP else expr.left
            if expr.op == "*" and isinstance(number, n.Number) and number.value >= 0:
                return UP
            if expr.op == "//" and right == CONST and isinstance(expr.right, n.Number) and expr.right.value > 0:
                return UP
        return CONST if self.all_const(expr, env) else OTHER

    def is_meal(self, expr: object, env: dict[str, str]) -> bool:
        return isinstance(expr, n.Name) and env.get(expr.name) == "meal"

    def meal_free(self, expr: object, env: dict[str, str]) -> bool:
        """Whether ``expr`` names neither the meal nor anything worked out from it."""
        return not any(isinstance(x, n.Name) and env.get(x.name, CONST) != CONST for x in n.walk(expr))

    def all_const(self, expr: object, env: dict[str, str]) -> bool:
        """Whether every input of ``expr`` is the same whatever the quality (functions are pure)."""
        parts: tuple[object, ...]
        if isinstance(expr, n.Number):
            return True
        if isinstance(expr, n.Text):
            parts = tuple(p for p in expr.parts if not isinstance(p, str))
        elif isinstance(expr, n.Comprehension):
            return self.meal_free(expr, env)  # its variable is bound inside: judged by the names it reads
        elif isinstance(expr, n.Call):
            parts = expr.args
        elif isinstance(expr, n.BinOp | n.Compare | n.BoolOp):
            parts = (expr.left, expr.right)
        elif isinstance(expr, n.Contains):
            parts = (expr.item, expr.collection)
        elif isinstance(expr, n.Not | n.Neg):
            parts = (expr.operand,)
        elif isinstance(expr, n.ListOf):
            parts = expr.items
        else:
            return False
        return all(self.kind(part, env) == CONST for part in parts)

    def rising_table(self, table: object) -> bool:
        """Whether ``table`` is a parameter (or one read for a meal or player, in force in one of the
        parameter tables), or bands written out, whose bands list stars never below 0 and never falling."""
        if isinstance(table, n.ListOf):
            return _old_rising_rows(table)
        if isinstance(table, n.Call) and len(table.args) == 1 and table.func not in FUNCTIONS:
            name = table.func  # name(m): the compiler let it through only as a rule parameter
        elif isinstance(table, n.Name) and table.name not in self.bound:
            name = table.name
        else:
            return False
        for params in self.tables:
            rows = params.get(name)
            if not isinstance(rows, list) or not all(isinstance(r, list | tuple) and len(r) == 2 for r in rows):
                return False
            stars = [r[1] for r in rows]
            if not all(isinstance(s, int) for s in stars) or any(s < 0 for s in stars):
                return False
            if any(a > b for a, b in zip(stars, stars[1:], strict=False)):
                return False
        return bool(self.tables)

    def at_least_zero(self, expr: object) -> bool:
        """Whether an award amount is never below 0 (numbers, bands of :meth:`rising_table`, sums)."""
        if isinstance(expr, n.Number):
            return expr.value >= 0
        if isinstance(expr, n.Call) and expr.func == "band" and len(expr.args) == 2:
            return self.rising_table(expr.args[1])
        if isinstance(expr, n.BinOp) and expr.op in ("+", "*"):
            return self.at_least_zero(expr.left) and self.at_least_zero(expr.right)
        return False


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
        assert facts_of(tree)[:-1] == reference(tree), where
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
            assert holder.code.facts[:-1] == reference(holder.ast), (folder, holder)


# The proof that stars rise with quality: the compiler's fact (its last) against the planner's
# former walk, for the parameters in force and for each of their band tables made to fall.


def band_tables(tree: object) -> set[str]:
    """The parameters ``band`` is given as its table in ``tree``: ``b``, or ``b(m)`` (the one in force for a meal)."""
    tables = [x.args[1] for x in n.walk(tree) if isinstance(x, n.Call) and x.func == "band" and len(x.args) == 2]
    names = {table.name for table in tables if isinstance(table, n.Name)}
    return names | {
        table.func
        for table in tables
        if isinstance(table, n.Call) and len(table.args) == 1 and table.func not in FUNCTIONS
    }


def parameter_variants(params: dict[str, Any], names: set[str]) -> list[list[dict[str, Any]]]:
    """The parameters in force as the planner may be given them: none, these, and these with one
    table at a time falling, below 0 or not a table (alone, or beside these)."""
    variants: list[list[dict[str, Any]]] = [[], [params]]
    for name in sorted(names):
        for spoiled in ([[0, 2], [6, 1]], [[0, -1], [6, 1]], 3):
            changed = {**params, name: spoiled}
            variants += [[changed], [params, changed]]
    return variants


def agreeing(in_play: list, trees: list, params: dict[str, Any]) -> list[bool]:
    """The old walk's verdicts, each asserted to be the compiler's, over the parameter variants."""
    names = set().union(*(band_tables(tree) for tree in trees))
    names |= {name for name, value in params.items() if isinstance(value, list)}
    verdicts = []
    for tables in parameter_variants(params, names):
        old = old_stars_rise_with_quality(trees, tables)
        assert stars_rise_with_quality(in_play, tables) == old, tables
        verdicts.append(old)
    return verdicts


# Programs where a table is needed (or not) in each way the proof can need one, beside the cards'.
LOOP = "for m in meals(round3):\n"
PROOF_TEXTS = [
    LOOP + "    let unused = band(meal_quality(m), shown_bands)\n    award 1 star to player_of(m)",
    LOOP + "    let q = band(meal_quality(m), quality_bands)\n    award q + 1 stars to player_of(m)",
    LOOP + "    if band(meal_quality(m), gate_bands) >= 2:\n        award 1 star to player_of(m)",
    LOOP + "    if meal_quality(m) >= 12:\n        award band(3, bonus_bands) stars to player_of(m)",
    LOOP + "    if meal_quality(m) >= 12 and band(meal_quality(m), gate_bands) > 0:\n"
    "        award band(meal_quality(m), quality_bands) * 2 stars to player_of(m)",
    LOOP + "    let challenge_bands = 1\n    award band(meal_quality(m), challenge_bands) stars to player_of(m)",
]


def test_stars_rise_with_quality_as_the_tree_walk_proved_for_every_program_text():
    verdicts = []
    for where, text in [*program_texts(), *(("PROOF_TEXTS", text) for text in PROOF_TEXTS)]:
        try:
            tree = parse_program(text, lambda line, column: (line, column))
        except Exception:  # a card testing a syntax error: no program to tell
            continue
        rising = {name: [[0, 0], [6, 1], [12, 2]] for name in band_tables(tree)}
        try:
            verdicts += agreeing([program_of(tree)], [tree], rising)
        except AssertionError as e:
            raise AssertionError(where) from e
    assert True in verdicts and False in verdicts


@pytest.mark.parametrize("folder", LOADABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_stars_rise_with_quality_as_the_tree_walk_proved_for_every_card_of_every_pack(folder):
    ruleset = load_ruleset(packs_of(folder))
    verdicts = []
    for card in [None, *ruleset.cards.values()]:  # the stages and rules cards alone, then with each card
        cards = [] if card is None else [card]
        in_play = programs(ruleset, cards)
        try:
            verdicts += agreeing(in_play, [p.tree for p in in_play], rule_parameters(ruleset, cards))
        except AssertionError as e:
            raise AssertionError(card and card.id) from e
    assert verdicts

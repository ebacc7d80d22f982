"""What a program's syntax tree tells the meal planner, worked out once when the program is compiled.

The compiler stores these facts in the :class:`~.program.Compiled` it makes (and so in the
pack cache), as plain data: the planner reads them from there (``plan/reads.py`` and
``plan/critic_reads.py`` say what it proves with them) and never walks a program again.
They are told from the syntax tree, not from the ops: the tree names every function as
written (a function called with no arguments, the target of ``set``, ``add`` or
``multiply``), which is what the planner's proofs read.

A program's facts, as :func:`facts_of` gives them (a tuple, so the cache stores only plain data):

0. ``calls``: the functions it calls (calls and aggregates), anywhere.
1. ``bound``: the names it binds (``let``, loop and comprehension variables).
2. ``changes``: whether it holds a ``set``, ``add`` or ``multiply`` statement.
3. ``separable``: whether its meal loops are separable (see :func:`separable_body`).
4. ``seen_calls``: the functions called by the parts a game of one player can see (see
   :func:`seen_nodes`).
5. ``stage_stars``: the stage each ``stage_stars`` call seen names, None for one whose
   stage is not a plain text of two arguments.
6. ``quality_reads``: for each ``quality(P, X)`` seen (but the target of an ``add`` of a
   number of at least 0), the name ``X`` is, None when ``X`` is not a name.
7. ``rising_tables``: whether the stars a meal earns alone never fall as its quality rises
   (see :func:`rising_tables`): None when that cannot be proved whatever the parameters,
   else the parameter tables that ``band`` reads in the proof, which must list stars never
   below 0 and never falling for it to hold.
"""

from __future__ import annotations

from . import nodes as n
from .registry import FUNCTIONS, RANKING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    # calls, bound, changes, separable, seen_calls, stage_stars, quality_reads, rising_tables (see the module)
    ProgramFacts = tuple[
        frozenset[str],
        frozenset[str],
        bool,
        bool,
        frozenset[str],
        frozenset[str | None],
        frozenset[str | None],
        frozenset[str] | None,
    ]
    Kind = tuple[str, frozenset[str]]  # what an expression is, and the tables it needs to be so (see _Rising)

MEAL_SOURCES = ("meals", "meals_for")  # the functions that give meals to a program
SAME_FOR_A_CARD = ("player_of", "meal_card", "meal_card_id")  # one player and one card per option


def facts_of(tree: n.Program) -> ProgramFacts:
    """What ``tree`` tells the planner (see the module)."""
    calls: set[str] = set()
    bound: set[str] = set()
    changes = False
    for node in n.walk(tree):
        if isinstance(node, n.Call | n.Comprehension):
            calls.add(node.func)
        if isinstance(node, n.Let):
            bound.add(node.name)
        elif isinstance(node, n.For | n.Comprehension):
            bound.add(node.var)
        if isinstance(node, n.Modify):
            changes = True
    seen = tuple(seen_nodes(tree, alone="players" not in bound))
    stage_stars: set[str | None] = set()
    added = {id(x.target) for x in seen if isinstance(x, n.Modify) and adds_at_least_0(x)}
    quality_reads: set[str | None] = set()
    for x in seen:
        if not isinstance(x, n.Call):
            continue
        if x.func == "stage_stars":
            stage_stars.add(_stage_named(x))
        elif x.func == "quality" and id(x) not in added:
            kind = x.args[1] if len(x.args) == 2 else None
            quality_reads.add(kind.name if isinstance(kind, n.Name) else None)
    return (
        frozenset(calls),
        frozenset(bound),
        changes,
        separable_body(tree.body),
        frozenset(x.func for x in seen if isinstance(x, n.Call | n.Comprehension)),
        frozenset(stage_stars),
        frozenset(quality_reads),
        rising_tables(tree),
    )


def _stage_named(call: n.Call) -> str | None:
    """The stage ``stage_stars(p, "S")`` names, None when it is not a plain text."""
    if len(call.args) != 2 or not isinstance(call.args[1], n.Text) or not call.args[1].parts:
        return None
    if not all(isinstance(part, str) for part in call.args[1].parts):
        return None
    return "".join(str(part) for part in call.args[1].parts)


def _anyone_alone(target: object) -> bool:
    """``highest(X for p in players if C)`` or ``lowest(...)``: the only player when ``C`` holds."""
    return (
        isinstance(target, n.Comprehension)
        and target.func in RANKING
        and (
            (isinstance(target.source, n.Name) and target.source.name == "players")
            or (isinstance(target.source, n.Call) and target.source.func == "players" and not target.source.args)
        )
    )


def seen_nodes(node: object, *, alone: bool) -> Iterator[n.Node]:
    """The nodes below ``node`` (itself included) whose values a game of one player can see:
    all but the ``X`` of an award to ``highest(X for p in players if C)`` or ``lowest`` (when
    ``alone``: ``players`` names every player throughout, the program binding no such name)."""
    if isinstance(node, tuple):
        for item in node:
            yield from seen_nodes(item, alone=alone)
    elif isinstance(node, n.Node):
        if alone and isinstance(node, n.Award) and _anyone_alone(node.target):
            assert isinstance(node.target, n.Comprehension)
            yield from seen_nodes((node.amount, node.reason, node.target.condition), alone=alone)
            return
        yield node
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from seen_nodes(getattr(node, name), alone=alone)


def adds_at_least_0(modify: n.Modify) -> bool:
    """``add N to quality(...)`` with ``N`` a number of at least 0: the 0 floor is never met."""
    return modify.op == "add" and isinstance(modify.value, n.Number) and modify.value.value >= 0


def _reads_meals(node: object) -> bool:
    return any(isinstance(x, n.Call | n.Comprehension) and x.func in MEAL_SOURCES for x in n.walk(node))


def separable_body(body: tuple[n.Stmt, ...]) -> bool:
    """Statements outside any meal loop: each meal loop (``for m in meals(r)`` or ``meals_for``)
    must read no other meal and change nothing, and everything else must be meal-free: then
    what the program awards for a set of meals is the sum of what it awards for each alone."""
    for stmt in body:
        if isinstance(stmt, n.For):
            if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                if _reads_meals(stmt.source.args) or not _per_meal_ok(stmt.body):
                    return False
            elif _reads_meals(stmt.source) or not separable_body(stmt.body):
                return False
        elif isinstance(stmt, n.If):
            if _reads_meals(stmt.condition) or not (separable_body(stmt.then) and separable_body(stmt.orelse)):
                return False
        elif isinstance(stmt, n.Let):
            if _reads_meals(stmt.value):
                return False
        elif isinstance(stmt, n.Award):
            if _reads_meals(stmt.amount) or _reads_meals(stmt.target):
                return False
        elif isinstance(stmt, n.Modify):
            if _reads_meals(stmt.target) or _reads_meals(stmt.value):
                return False
        elif not isinstance(stmt, n.Pass):
            return False  # a statement this proof does not know
    return True


def _per_meal_ok(body: tuple[n.Stmt, ...]) -> bool:
    """A meal loop's body: it reads no other meal and changes nothing (its awards add up)."""
    for node in n.walk(body):
        if isinstance(node, n.Modify):
            return False
        if isinstance(node, n.Call | n.Comprehension) and node.func in MEAL_SOURCES:
            return False
    return True


# What an expression inside a meal loop is, as the meal's quality rises (all else fixed):
CONST = "const"  # the same whatever the quality
UP = "up"  # a number that never falls
RISING = "rising"  # a condition that, once true, stays true
OTHER = "other"  # nothing proved
MEAL = "meal"  # the meal of the loop itself (a name bound to it)
_NONE: frozenset[str] = frozenset()


def rising_tables(tree: n.Program) -> frozenset[str] | None:
    """Whether the stars a meal earns alone never fall as its quality rises (every other part
    of the game fixed), for a program whose meal loops are separable (:func:`separable_body`)
    and read a meal's quality only: None when not, whatever the parameters; else the
    parameter tables the proof needs to list stars never below 0 and never falling (and
    that no program in play binds as a name): the planner checks those against the
    parameters in force (``plan/reads.py``).

    Each award in a meal loop must give a never-falling amount to a target that does not
    depend on the meal, under conditions that either do not depend on the meal or, once
    true, stay true (``meal_quality(m) >= 12``; then with no ``else`` and an amount never
    below 0). ``band(x, b)`` never falls in ``x`` when the table ``b`` is such a table.

    A table is needed where its ``band`` decides an award, a condition or an amount's sign:
    a ``band`` whose table does not rise is "nothing proved", and nothing proved there
    fails the proof, while a value nothing awards by (a ``let`` never read) fails nothing.
    So the proof holds for some parameters exactly when it holds here and every table
    returned rises in them.
    """
    proof = _Rising()
    return frozenset(proof.needed) if proof.top(tree.body) else None


class _Rising:
    """The proof of :func:`rising_tables`, which assumes every table it meets rises and
    collects in ``needed`` those on which a verdict rests."""

    def __init__(self) -> None:
        self.needed: set[str] = set()

    def top(self, body: tuple[n.Stmt, ...]) -> bool:
        """Outside meal loops (meal-free, as :func:`separable_body` proved): every meal loop must rise."""
        for stmt in body:
            if isinstance(stmt, n.For):
                if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                    if not self.body(stmt.body, {stmt.var: (MEAL, _NONE)}, guarded=False):
                        return False
                elif not self.top(stmt.body):
                    return False
            elif isinstance(stmt, n.If) and not (self.top(stmt.then) and self.top(stmt.orelse)):
                return False
        return True

    def body(self, body: tuple[n.Stmt, ...], env: dict[str, Kind], guarded: bool) -> bool:
        """A meal loop's statements (``guarded``: under a rising condition, amounts must be >= 0)."""
        env = dict(env)
        for stmt in body:
            if isinstance(stmt, n.Let):
                env[stmt.name] = self.kind(stmt.value, env)
            elif isinstance(stmt, n.Award):
                amount, tables = self.kind(stmt.amount, env)
                if self.kind(stmt.target, env)[0] != CONST or amount not in (CONST, UP):
                    return False
                self.needed |= tables
                if guarded and not self.at_least_zero(stmt.amount):
                    return False
            elif isinstance(stmt, n.If):
                condition, tables = self.kind(stmt.condition, env)
                if condition == CONST:
                    if not (self.body(stmt.then, env, guarded) and self.body(stmt.orelse, env, guarded)):
                        return False
                elif condition == RISING:
                    self.needed |= tables
                    if any(not isinstance(s, n.Pass) for s in stmt.orelse) or not self.body(stmt.then, env, True):
                        return False
                else:
                    return False
            elif isinstance(stmt, n.For):
                if self.kind(stmt.source, env)[0] != CONST:
                    return False
                if not self.body(stmt.body, {**env, stmt.var: (CONST, _NONE)}, guarded):
                    return False
            elif not isinstance(stmt, n.Pass):
                return False  # a change (set, add, multiply), or a statement this proof does not know
        return True

    def kind(self, expr: object, env: dict[str, Kind]) -> Kind:
        """What ``expr`` is as the meal's quality rises (see CONST, UP, RISING, OTHER), and the
        tables it is so only if they rise (a CONST needs none)."""
        if isinstance(expr, n.Name):
            found = env.get(expr.name, (CONST, _NONE))
            return (OTHER, _NONE) if found[0] == MEAL else found
        if isinstance(expr, n.Call) and len(expr.args) == 1 and self.is_meal(expr.args[0], env):
            if expr.func == "meal_quality":
                return UP, _NONE
            # a rule parameter in force for the meal (``name(m)``) is its card's and player's: one per option
            return (CONST if expr.func in SAME_FOR_A_CARD or expr.func not in FUNCTIONS else OTHER), _NONE
        if isinstance(expr, n.Call) and expr.func == "band" and len(expr.args) == 2:
            (x, tables), (table, _) = (self.kind(a, env) for a in expr.args)
            needs = self.band_table(expr.args[1])
            if x == UP and table == CONST and needs is not None:
                return UP, tables | needs
        if isinstance(expr, n.BinOp):
            return self.arithmetic(expr, env)
        if isinstance(expr, n.Compare):
            (left, left_tables), (right, right_tables) = self.kind(expr.left, env), self.kind(expr.right, env)
            if (left, right) == (UP, CONST) and expr.op in (">", ">="):
                return RISING, left_tables
            if (left, right) == (CONST, UP) and expr.op in ("<", "<="):
                return RISING, right_tables
        if isinstance(expr, n.BoolOp):
            (left, left_tables), (right, right_tables) = self.kind(expr.left, env), self.kind(expr.right, env)
            if {left, right} <= {CONST, RISING}:
                return (RISING if RISING in (left, right) else CONST), left_tables | right_tables
        return self.constant(expr, env)

    def arithmetic(self, expr: n.BinOp, env: dict[str, Kind]) -> Kind:
        (left, left_tables), (right, right_tables) = self.kind(expr.left, env), self.kind(expr.right, env)
        if {left, right} <= {CONST, UP} and UP in {left, right}:
            up = UP, left_tables | right_tables
            if expr.op == "+":
                return up
            if expr.op == "-" and right == CONST:
                return up
            number = expr.right if left == UP else expr.left
            if expr.op == "*" and isinstance(number, n.Number) and number.value >= 0:
                return up
            if expr.op == "//" and right == CONST and isinstance(expr.right, n.Number) and expr.right.value > 0:
                return up
        return self.constant(expr, env)

    def constant(self, expr: object, env: dict[str, Kind]) -> Kind:
        return (CONST if self.all_const(expr, env) else OTHER), _NONE

    def is_meal(self, expr: object, env: dict[str, Kind]) -> bool:
        return isinstance(expr, n.Name) and env.get(expr.name, (CONST, _NONE))[0] == MEAL

    def meal_free(self, expr: object, env: dict[str, Kind]) -> bool:
        """Whether ``expr`` names neither the meal nor anything worked out from it."""
        return not any(isinstance(x, n.Name) and env.get(x.name, (CONST, _NONE))[0] != CONST for x in n.walk(expr))

    def all_const(self, expr: object, env: dict[str, Kind]) -> bool:
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
        return all(self.kind(part, env)[0] == CONST for part in parts)

    def band_table(self, table: object) -> frozenset[str] | None:
        """The parameter tables a ``band``'s table rises only if they rise: the parameter it
        names (``b``, or ``b(m)``: the one in force for a meal or player), none for bands
        written out whose stars never fall; None when it is never proved to rise."""
        if isinstance(table, n.Name):
            return frozenset((table.name,))
        if isinstance(table, n.Call) and len(table.args) == 1 and table.func not in FUNCTIONS:
            return frozenset((table.func,))  # name(m): the compiler let it through only as a rule parameter
        if isinstance(table, n.ListOf) and _rising_rows(table):
            return _NONE
        return None

    def at_least_zero(self, expr: object) -> bool:
        """Whether an award amount is never below 0 (numbers, bands of rising tables, sums)."""
        if isinstance(expr, n.Number):
            return expr.value >= 0
        if isinstance(expr, n.Call) and expr.func == "band" and len(expr.args) == 2:
            needs = self.band_table(expr.args[1])
            if needs is not None:
                self.needed |= needs
            return needs is not None
        if isinstance(expr, n.BinOp) and expr.op in ("+", "*"):
            return self.at_least_zero(expr.left) and self.at_least_zero(expr.right)
        return False


def _rising_rows(bands: n.ListOf) -> bool:
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

"""What the scoring programs in play read of a challenge meal, proved from their syntax trees
(what each tree tells is told once, by the compiler: ``dsl/facts.py``).

The planner's fast search rests on two facts about the stages and card effects in play,
both read here from the compiled effect language and never from a rule of the game:

* **The meal's view**: the effect language sees a meal only through the functions that
  take a meal (``meal_quality``, ``uses``, ...). Two meals for the same card that agree on
  every such function the programs in play call are scored alike in every game, so a
  meal matters only through its *signature*: the values of those functions.
* **Separability**: when every program that reads meals is a loop ``for m in meals(r)``
  (or ``meals_for``) whose body reads no other meal, changes nothing and whose
  surroundings depend on no meal, and no program reads a player's stars, then the stars
  of a plan are the sum of the stars each of its meals earns served alone.
"""

from __future__ import annotations

from ..dsl import nodes as n
from ..dsl import types as t
from ..dsl.facts import MEAL_SOURCES
from ..dsl.registry import FUNCTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from ..model.ruleset import Ruleset
    from .programs import Program

    Signature = tuple[Any, ...]

STAR_READERS = ("stars", "stage_stars")  # a player's stars so far: they depend on every meal
SAME_FOR_A_CARD = ("player_of", "meal_card", "meal_card_id")  # one player and one card per option


def called(programs: Iterable[Program]) -> set[str]:
    """The names of every function called in ``programs``."""
    found: set[str] = set()
    for program in programs:
        found |= program.calls
    return found


def meal_functions() -> set[str]:
    """The functions of the effect language that take a meal (or a list of meals: conservatively)."""
    return {name for name, fn in FUNCTIONS.items() if any(t.MEAL in kind for _, kind in fn.params)}


def _full(meal: Any) -> Signature:
    return (
        tuple(sorted((i.type, i.value, i.spices) for i in meal.ingredients)),
        tuple(sorted((k, v) for k, v in meal.tokens.items() if v)),
    )


def signature_of(programs: list[Program], ruleset: Ruleset) -> Callable[[Any], Signature]:
    """A function giving a meal's signature: what the programs in play can read of it.

    Each meal function called contributes its value; a meal function not known here (or
    ``ingredients``, which exposes each ingredient) makes the signature the whole meal.
    """
    used = called(programs) & meal_functions()
    types = ruleset.ingredient_types
    parts: list[Callable[[Any], Any]] = []
    for name in sorted(used - set(SAME_FOR_A_CARD)):
        if name == "meal_quality":
            parts.append(lambda m: m.quality)
        elif name == "uses":
            parts.append(lambda m: tuple(sum(1 for i in m.ingredients if i.type == k) for k in types))
        elif name == "meal_tokens":
            parts.append(lambda m: sum(m.tokens.values()))
        elif name == "meal_spices":
            parts.append(lambda m: sum(len(i.spices) for i in m.ingredients))
        else:
            return _full
    return lambda m: tuple(part(m) for part in parts)


def separable(programs: list[Program]) -> bool:
    """Whether the stars of a set of meals are the sum of the stars of each meal alone (see the module;
    each program's meal loops are proved separable when it is compiled: ``dsl/facts.py``)."""
    if called(programs) & set(STAR_READERS):
        return False
    return all(program.separable for program in programs)


def quality_only(programs: list[Program]) -> bool:
    """Whether the programs in play read nothing of a meal but its quality (and its card and player)."""
    return called(programs) & meal_functions() <= {"meal_quality", *SAME_FOR_A_CARD}


# What an expression inside a meal loop is, as the meal's quality rises (all else fixed):
CONST = "const"  # the same whatever the quality
UP = "up"  # a number that never falls
RISING = "rising"  # a condition that, once true, stays true
OTHER = "other"  # nothing proved


def stars_rise_with_quality(programs: list[Program], tables: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the stars a meal earns alone never fall as its quality rises (every other part of
    the game fixed), for separable programs (:func:`separable`) that read a meal's quality only.

    Each award in a meal loop must give a never-falling amount to a target that does not
    depend on the meal, under conditions that either do not depend on the meal or, once
    true, stay true (``meal_quality(m) >= 12``; then with no ``else`` and an amount never
    below 0). ``band(x, b)`` never falls in ``x`` when every parameter table ``b`` in
    ``tables`` (the parameters in force) lists stars never below 0 and never falling.
    """
    bound: set[str] = set()
    for program in programs:
        bound |= program.bound
    proof = _Rising([dict(t) for t in tables], bound)
    return all(proof.top(program.tree.body) for program in programs)


class _Rising:
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
            return _rising_rows(table)
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

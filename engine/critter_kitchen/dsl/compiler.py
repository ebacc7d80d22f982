"""Type-check the syntax tree and turn it into plain Python closures.

Scoring only ever calls these closures; no parse tree is walked at scoring time. The
closures reach nothing but the game state handed to them in a :class:`Frame`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import EvaluationError, did_you_mean
from . import nodes as n
from . import types as t
from .registry import AGGREGATES, CONSTANTS, FUNCTIONS, RANKING

Fn = Callable[["Frame"], Any]


class Frame:
    """What a running effect sees: the game, its card, its stage, its owner, its variables."""

    __slots__ = ("game", "card", "stage", "owner", "slots")

    def __init__(self, game: Any, card: Any, stage: str, owner: Any, size: int) -> None:
        self.game = game
        self.card = card
        self.stage = stage
        self.owner = owner
        self.slots: list[Any] = [None] * size


class Ranked(tuple):  # type: ignore[type-arg]
    """The items that share the highest (or lowest) number, with that number."""

    value: int | None = None


@dataclass(frozen=True)
class Compiled:
    run: Fn
    slots: int
    type: str


@dataclass(frozen=True)
class CompileProblem:
    pos: n.Pos
    message: str
    code: str


@dataclass
class Vocabulary:
    """The names a card may use: pack-declared domains, parameters, and owner access."""

    domains: dict[str, tuple[str, ...]] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    has_owner: bool = False


def compile_program(program: n.Program, vocab: Vocabulary) -> tuple[Compiled, list[CompileProblem]]:
    c = _Compiler(vocab)
    body = c.block(program.body, {})
    return Compiled(_sequence(body), c.slots, "none"), c.problems


def compile_expr(
    expr: n.Expr, vocab: Vocabulary, variables: dict[str, str], expected: str | None = None
) -> tuple[Compiled, list[CompileProblem]]:
    """Compile one expression whose free variables take slots 0, 1, ... in the given order."""
    c = _Compiler(vocab)
    scope = {}
    for name, typ in variables.items():
        scope[name] = (c.new_slot(), typ)
    typ, fn = c.expr(expr, scope, expected)
    return Compiled(fn, c.slots, typ), c.problems


def _sequence(body: list[Fn]) -> Fn:
    if len(body) == 1:
        return body[0]
    steps = tuple(body)

    def run(f: Frame) -> None:
        for step in steps:
            step(f)

    return run


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": lambda a, b: a // b if b else 0,
    "%": lambda a, b: a % b if b else 0,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
MAX_INT = 10**12  # arithmetic results are kept within this bound


def _bounded(x: int) -> int:
    return MAX_INT if x > MAX_INT else -MAX_INT if x < -MAX_INT else x


Scope = dict[str, tuple[int, str]]


class _Compiler:
    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.slots = 0
        self.problems: list[CompileProblem] = []

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    def error(self, pos: n.Pos, message: str, code: str = "CK203") -> tuple[str, Fn]:
        self.problems.append(CompileProblem(pos, message, code))
        return t.ERROR, lambda f: None

    # statements

    def block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> list[Fn]:
        scope = dict(scope)
        return [self.stmt(s, scope) for s in stmts]

    def stmt(self, s: n.Stmt, scope: Scope) -> Fn:
        method: Callable[[Any, Scope], Fn] = getattr(self, "stmt_" + type(s).__name__.lower())
        return method(s, scope)

    def stmt_pass(self, s: n.Pass, scope: Scope) -> Fn:
        return lambda f: None

    def stmt_let(self, s: n.Let, scope: Scope) -> Fn:
        typ, value = self.expr(s.value, scope)
        slot = self.new_slot()
        scope[s.name] = (slot, typ)

        def let(f: Frame) -> None:
            f.slots[slot] = value(f)

        return let

    def stmt_for(self, s: n.For, scope: Scope) -> Fn:
        src_type, source = self.expr(s.source, scope)
        item_type = t.element(src_type) or (t.ERROR if src_type == t.ERROR else None)
        if item_type is None:
            self.error(s.source.pos, f"'for' needs a list, got {t.describe(src_type)}")
            item_type = t.ERROR
        inner = dict(scope)
        slot = self.new_slot()
        inner[s.var] = (slot, item_type)
        body = _sequence(self.block(s.body, inner))

        def loop(f: Frame) -> None:
            slots = f.slots
            for item in _spend(f, source(f)):
                slots[slot] = item
                body(f)

        return loop

    def stmt_if(self, s: n.If, scope: Scope) -> Fn:
        _, cond = self.expr(s.condition, scope, t.BOOL)
        then = _sequence(self.block(s.then, scope))
        orelse = _sequence(self.block(s.orelse, scope)) if s.orelse else None

        def branch(f: Frame) -> None:
            if cond(f):
                then(f)
            elif orelse is not None:
                orelse(f)

        return branch

    def stmt_modify(self, s: n.Modify, scope: Scope) -> Fn:
        fn = FUNCTIONS.get(s.target.func)
        if fn is None:
            self.call(s.target, scope)  # reports the unknown function
            return lambda f: None
        if fn.setter is None:
            settable = sorted(f.name for f in FUNCTIONS.values() if f.setter)
            self.error(s.target.pos, f"'{s.op}' cannot change '{s.target.func}'; it can change: {', '.join(settable)}")
            return lambda f: None
        _, current = self.call(s.target, scope)
        args = [self.expr(a, scope, typ)[1] for a, (_, typ) in zip(s.target.args, fn.params, strict=False)]
        _, value = self.expr(s.value, scope, t.INT)
        setter = fn.setter
        combine: Callable[[int, int], int] = {
            "set": lambda old, new: new,
            "add": operator.add,
            "multiply": operator.mul,
        }[s.op]

        def modify(f: Frame) -> None:
            setter(f, _bounded(combine(current(f), value(f))), *[a(f) for a in args])

        return modify

    def stmt_award(self, s: n.Award, scope: Scope) -> Fn:
        _, amount = self.expr(s.amount, scope, t.INT)
        target_type, target = self.expr(s.target, scope)
        if target_type not in (t.PLAYER, t.list_of(t.PLAYER), t.ERROR):
            self.error(s.target.pos, f"award goes to a player or a list of players, not {t.describe(target_type)}")
        reason = self.text(s.reason, scope) if s.reason is not None else None

        def award(f: Frame) -> None:
            stars = amount(f)
            if stars <= 0:
                return
            who = target(f)
            players = who if isinstance(who, tuple) else (who,)
            if not players:
                return
            if isinstance(who, Ranked) and len(players) > 1 and not f.game.params.get("friendly_ties", True):
                return  # the rules in force say a tie for the highest gives nobody the award
            why = reason(f) if reason is not None else f.card.name
            f.game.award_all(f, players, stars, why, getattr(who, "value", None))

        return award

    # expressions

    def expr(self, e: n.Expr, scope: Scope, expected: str | None = None) -> tuple[str, Fn]:
        method: Callable[[Any, Scope, str | None], tuple[str, Fn]] = getattr(self, "expr_" + type(e).__name__.lower())
        typ, fn = method(e, scope, expected)
        if expected is not None and not t.accepts(expected, typ):
            return self.error(e.pos, f"expected {t.describe(expected)}, got {t.describe(typ)}")
        return typ, fn

    def expr_number(self, e: n.Number, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        value = _bounded(e.value)
        return t.INT, lambda f: value

    def expr_text(self, e: n.Text, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        if expected in t.ENUMS and len(e.parts) <= 1 and all(isinstance(p, str) for p in e.parts):
            return self.enum_literal(e.pos, "".join(e.parts), expected)  # type: ignore[arg-type]
        return t.TEXT, self.text(e, scope)

    def text(self, e: n.Text, scope: Scope) -> Fn:
        pieces: list[Fn] = [
            _constant(part) if isinstance(part, str) else _shown(self.expr(part, scope)[1]) for part in e.parts
        ]
        return lambda f: "".join(p(f) for p in pieces)

    def enum_literal(self, pos: n.Pos, name: str, domain: str) -> tuple[str, Fn]:
        values = self.vocab.domains.get(domain, ())
        if name not in values:
            code = "CK207" if domain == t.CARD else "CK202"
            return self.error(pos, f"unknown {domain} '{name}'{did_you_mean(name, values)}", code)
        return domain, _constant(name)

    def expr_name(self, e: n.Name, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        if e.name in scope:
            slot, typ = scope[e.name]
            return typ, _slot_reader(slot)
        if e.name in CONSTANTS:
            typ, value, _ = CONSTANTS[e.name]
            return typ, _constant(value)
        fn = FUNCTIONS.get(e.name)
        if fn is not None and not fn.params:
            return self.call(n.Call(e.pos, e.name, ()), scope)
        if e.name in self.vocab.params:
            name = e.name
            return self.vocab.params[name], lambda f: f.game.params[name]
        if expected in t.ENUMS:
            return self.enum_literal(e.pos, e.name, expected)
        # Card ids are quoted where a card is expected; elsewhere a bare name is never a card.
        domains = {d: values for d, values in self.vocab.domains.items() if d != t.CARD}
        owners = [d for d, values in domains.items() if e.name in values]
        if len(owners) == 1:
            return self.enum_literal(e.pos, e.name, owners[0])
        known = [*scope, *CONSTANTS, *(f.name for f in FUNCTIONS.values() if not f.params), *self.vocab.params]
        for values in domains.values():
            known.extend(values)
        return self.error(e.pos, f"unknown name '{e.name}'{did_you_mean(e.name, known)}", "CK202")

    def expr_call(self, e: n.Call, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        if e.func in AGGREGATES:
            if len(e.args) != 1:
                return self.error(e.pos, f"'{e.func}' takes one list, got {len(e.args)} arguments")
            var = "_item"
            comp = n.Comprehension(e.pos, e.func, n.Name(e.pos, var), var, e.pos, e.args[0], None)
            if e.func in RANKING:
                return self.error(e.pos, f"'{e.func}' needs the form {e.func}(NUMBER for NAME in LIST)")
            return self.expr_comprehension(comp, scope, expected)
        return self.call(e, scope)

    def call(self, e: n.Call, scope: Scope) -> tuple[str, Fn]:
        fn = FUNCTIONS.get(e.func)
        if fn is None:
            names = [*FUNCTIONS, *AGGREGATES]
            return self.error(e.pos, f"unknown function '{e.func}'{did_you_mean(e.func, names)}", "CK202")
        if fn.needs_owner and not self.vocab.has_owner:
            return self.error(e.pos, f"'{e.func}' is only available on cards that a player owns", "CK202")
        if len(e.args) != len(fn.params):
            want = ", ".join(f"{p}: {typ}" for p, typ in fn.params)
            return self.error(e.pos, f"'{e.func}' takes {len(fn.params)} argument(s) ({want}), got {len(e.args)}")
        args = [self.expr(a, scope, typ)[1] for a, (_, typ) in zip(e.args, fn.params, strict=False)]
        return fn.returns, _call(fn.impl, args)

    def expr_comprehension(self, e: n.Comprehension, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        agg = AGGREGATES.get(e.func)
        if agg is None:
            return self.error(e.pos, f"unknown aggregate '{e.func}'{did_you_mean(e.func, list(AGGREGATES))}", "CK202")
        src_type, source = self.expr(e.source, scope)
        item_type = t.element(src_type)
        if item_type is None:
            if src_type != t.ERROR:
                self.error(e.source.pos, f"'{e.func}' needs a list after 'in', got {t.describe(src_type)}")
            item_type = t.ERROR
        inner = dict(scope)
        slot = self.new_slot()
        inner[e.var] = (slot, item_type)
        elem_type, elem = self.expr(e.element, inner, None if agg.element == t.ANY else agg.element)
        cond = self.expr(e.condition, inner, t.BOOL)[1] if e.condition is not None else None
        return _aggregate(e.func, item_type, elem_type, source, elem, cond, slot)

    def expr_binop(self, e: n.BinOp, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        _, left = self.expr(e.left, scope, t.INT)
        _, right = self.expr(e.right, scope, t.INT)
        op = _ARITH[e.op]
        return t.INT, lambda f: _bounded(op(left(f), right(f)))

    def expr_neg(self, e: n.Neg, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        _, operand = self.expr(e.operand, scope, t.INT)
        return t.INT, lambda f: -operand(f)

    def expr_compare(self, e: n.Compare, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        if self.is_free_name(e.left, scope) and not self.is_free_name(e.right, scope):
            right_type, right = self.expr(e.right, scope)
            _, left = self.expr(e.left, scope, right_type)
        else:
            left_type, left = self.expr(e.left, scope)
            _, right = self.expr(e.right, scope, left_type)
            right_type = left_type
        if e.op not in ("==", "!=") and right_type not in (t.INT, t.ERROR):
            return self.error(e.pos, f"'{e.op}' compares numbers, not {t.describe(right_type)}")
        op = _COMPARE[e.op]
        return t.BOOL, lambda f: op(left(f), right(f))

    def is_free_name(self, e: n.Expr, scope: Scope) -> bool:
        return (
            isinstance(e, n.Name)
            and e.name not in scope
            and e.name not in self.vocab.params
            and e.name not in FUNCTIONS
        )

    def expr_contains(self, e: n.Contains, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        coll_type, coll = self.expr(e.collection, scope)
        item_type = t.element(coll_type)
        if item_type is None and coll_type != t.ERROR:
            return self.error(e.collection.pos, f"'in' needs a list, got {t.describe(coll_type)}")
        _, item = self.expr(e.item, scope, item_type)
        if e.negated:
            return t.BOOL, lambda f: item(f) not in coll(f)
        return t.BOOL, lambda f: item(f) in coll(f)

    def expr_boolop(self, e: n.BoolOp, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        _, left = self.expr(e.left, scope, t.BOOL)
        _, right = self.expr(e.right, scope, t.BOOL)
        if e.op == "and":
            return t.BOOL, lambda f: bool(left(f) and right(f))
        return t.BOOL, lambda f: bool(left(f) or right(f))

    def expr_not(self, e: n.Not, scope: Scope, expected: str | None) -> tuple[str, Fn]:
        _, operand = self.expr(e.operand, scope, t.BOOL)
        return t.BOOL, lambda f: not operand(f)


STEP_BUDGET = 1_000_000  # loop steps all effects of one game may take together


def _spend(f: Frame, items: Any) -> Any:
    """Charge a loop's items to the game's budget, so nested loops cannot run for hours."""
    game = f.game
    game.steps += len(items)
    if game.steps > STEP_BUDGET:
        raise EvaluationError(
            f"{f.card.path}: card '{f.card.id}' at stage '{f.stage}': effects took more than {STEP_BUDGET:,} loop steps"
        )
    return items


def _aggregate(
    func: str, item_type: str, elem_type: str, source: Fn, elem: Fn, cond: Fn | None, slot: int
) -> tuple[str, Fn]:
    def values(f: Frame) -> list[Any]:
        slots = f.slots
        out = []
        for item in _spend(f, source(f)):
            slots[slot] = item
            if cond is None or cond(f):
                out.append(elem(f))
        return out

    if func == "sum":
        return t.INT, lambda f: _bounded(sum(values(f)))
    if func == "count":
        return t.INT, lambda f: len(values(f))
    if func == "max":
        return t.INT, lambda f: max(values(f), default=0)
    if func == "min":
        return t.INT, lambda f: min(values(f), default=0)
    if func == "any":
        return t.BOOL, lambda f: any(values(f))
    if func == "all":
        return t.BOOL, lambda f: all(values(f))
    if func == "each":
        return t.list_of(elem_type), lambda f: tuple(values(f))
    best = max if func == "highest" else min

    def ranked(f: Frame) -> Ranked:
        slots = f.slots
        scored = []
        for item in _spend(f, source(f)):
            slots[slot] = item
            if cond is None or cond(f):
                scored.append((elem(f), item))
        if not scored:
            return Ranked()
        top = best(v for v, _ in scored)
        result = Ranked(item for v, item in scored if v == top)
        result.value = top
        return result

    return t.list_of(item_type), ranked


def _constant(value: Any) -> Fn:
    def constant(f: Frame) -> Any:
        return value

    constant.value = value  # type: ignore[attr-defined]
    return constant


def _slot_reader(slot: int) -> Fn:
    def read(f: Frame) -> Any:
        return f.slots[slot]

    read.slot = slot  # type: ignore[attr-defined]
    return read


def _call(impl: Callable[..., Any], args: list[Fn]) -> Fn:
    """A call of a registry function; arguments that are variables or constants are read
    in place, which spares a closure call each (most calls look like ``quality(p, t)``)."""
    if not args:
        return lambda f: impl(f)
    slots: list[int | None] = [getattr(a, "slot", None) for a in args]
    if len(args) == 1:
        (a0,), (i,) = args, slots
        return _call_slot(impl, i) if i is not None else lambda f: impl(f, a0(f))
    if len(args) == 2:
        (a0, a1), (i, j) = args, slots
        if i is not None and j is not None:
            return _call_slots(impl, i, j)
        if i is not None and hasattr(a1, "value"):
            return _call_slot_constant(impl, i, a1.value)
        return lambda f: impl(f, a0(f), a1(f))
    return lambda f: impl(f, *[a(f) for a in args])


def _call_slot(impl: Callable[..., Any], i: int) -> Fn:
    return lambda f: impl(f, f.slots[i])


def _call_slots(impl: Callable[..., Any], i: int, j: int) -> Fn:
    return lambda f: impl(f, f.slots[i], f.slots[j])


def _call_slot_constant(impl: Callable[..., Any], i: int, c: Any) -> Fn:
    return lambda f: impl(f, f.slots[i], c)


def _shown(fn: Fn) -> Fn:
    return lambda f: _show(fn(f))


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(_show(v) for v in value)
    return str(value)

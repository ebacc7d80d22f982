"""Type-check the syntax tree and write it out as ops, from which the nodes scoring runs are built.

The checker walks the tree once, at load time, and reports every problem with its
position. What it emits are ops: nested tuples of plain data that ``program.build`` turns
into the nodes (``run_nodes.py``) scoring runs. No parse tree is walked at scoring time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import did_you_mean
from . import nodes as n
from . import types as t
from .facts import facts_of
from .frame import bounded
from .program import Compiled
from .registry import AGGREGATES, CONSTANTS, FUNCTIONS, INSTEAD

Op = tuple[Any, ...]
NOTHING: Op = ("seq", ())  # what a statement with a problem compiles to; it never runs
UNKNOWN: Op = ("const", None)  # likewise for an expression
MAX_LISTED = 12  # an unknown name lists the known ones when there are at most this many


@dataclass(frozen=True)
class CompileProblem:
    pos: n.Pos
    message: str
    code: str
    unknown: tuple[str, str] | None = None  # (domain, name) of a name its packs do not declare


@dataclass
class Vocabulary:
    """The names a card may use: pack-declared domains, parameters, and owner access."""

    domains: dict[str, tuple[str, ...]] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    has_owner: bool = False


def compile_program(program: n.Program, vocab: Vocabulary) -> tuple[Compiled, list[CompileProblem]]:
    c = _Compiler(vocab)
    body = c.block(program.body, {})
    return Compiled(body, c.slots, "none", facts=facts_of(program)), c.problems


def compile_expr(
    expr: n.Expr, vocab: Vocabulary, variables: dict[str, str], expected: str | None = None
) -> tuple[Compiled, list[CompileProblem]]:
    """Compile one expression whose free variables take slots 0, 1, ... in the given order."""
    c = _Compiler(vocab)
    scope = {}
    for name, typ in variables.items():
        scope[name] = (c.new_slot(), typ)
    typ, op = c.expr(expr, scope, expected)
    return Compiled(op, c.slots, typ), c.problems


Scope = dict[str, tuple[int, str]]


class _Compiler:
    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.slots = 0
        self.problems: list[CompileProblem] = []
        self.block_names: list[set[str]] = [set()]  # per open block: the names its own lets gave
        self.named_at: dict[int, n.Pos] = {}  # slot -> where a let or a loop named it

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    def error(self, pos: n.Pos, message: str, code: str = "CK203") -> tuple[str, Op]:
        self.problems.append(CompileProblem(pos, message, code))
        return t.ERROR, UNKNOWN

    # statements

    def block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> Op:
        scope = dict(scope)
        self.block_names.append(set())
        try:
            return ("seq", tuple(self.stmt(s, scope) for s in stmts))
        finally:
            self.block_names.pop()

    def stmt(self, s: n.Stmt, scope: Scope) -> Op:
        method: Callable[[Any, Scope], Op] = getattr(self, "stmt_" + type(s).__name__.lower())
        return method(s, scope)

    def stmt_pass(self, s: n.Pass, scope: Scope) -> Op:
        return NOTHING

    def stmt_let(self, s: n.Let, scope: Scope) -> Op:
        typ, value = self.expr(s.value, scope)
        if s.name in scope and s.name not in self.block_names[-1]:
            # A new value here would vanish at the end of this block, leaving the outer one unchanged.
            where = self.named_at.get(scope[s.name][0])
            at = f" (line {where.line})" if where is not None else ""
            message = (
                f"'{s.name}' already names a value of an enclosing block{at}; "
                "a 'let' here would not change it there: choose another name"
            )
            self.error(s.pos, message, "CK208")
            return NOTHING
        slot = self.new_slot()
        self.named_at[slot] = s.pos
        self.block_names[-1].add(s.name)
        scope[s.name] = (slot, typ)
        return ("let", slot, value)

    def stmt_for(self, s: n.For, scope: Scope) -> Op:
        src_type, source = self.expr(s.source, scope)
        item_type = t.items_of(src_type) or (t.ERROR if src_type == t.ERROR else None)
        if item_type is None:
            self.error(s.source.pos, f"'for' needs a list, got {t.describe(src_type)}")
            item_type = t.ERROR
        inner = dict(scope)
        slot = self.new_slot()
        self.named_at[slot] = s.pos
        inner[s.var] = (slot, item_type)
        return ("for", slot, source, self.block(s.body, inner))

    def stmt_if(self, s: n.If, scope: Scope) -> Op:
        _, cond = self.expr(s.condition, scope, t.BOOL)
        then = self.block(s.then, scope)
        return ("if", cond, then, self.block(s.orelse, scope) if s.orelse else None)

    def stmt_modify(self, s: n.Modify, scope: Scope) -> Op:
        fn = FUNCTIONS.get(s.target.func)
        if fn is None:
            self.call(s.target, scope)  # reports the unknown function
            return NOTHING
        if fn.setter is None:
            settable = sorted(f.name for f in FUNCTIONS.values() if f.setter)
            self.error(s.target.pos, f"'{s.op}' cannot change '{s.target.func}'; it can change: {', '.join(settable)}")
            return NOTHING
        _, current = self.call(s.target, scope)
        if current is UNKNOWN:  # a wrong argument count: the arguments may have problems of their own
            for a, (_, typ) in zip(s.target.args, fn.params, strict=False):
                self.expr(a, scope, typ)
        _, value = self.expr(s.value, scope, t.INT)
        return ("modify", s.target.func, s.op, current[2], value) if current is not UNKNOWN else NOTHING

    def stmt_award(self, s: n.Award, scope: Scope) -> Op:
        _, amount = self.expr(s.amount, scope, t.INT)
        target_type, target = self.expr(s.target, scope)
        if target_type not in (t.PLAYER, t.list_of(t.PLAYER), t.ERROR):
            self.error(s.target.pos, f"award goes to a player or a list of players, not {t.describe(target_type)}")
        reason = self.text(s.reason, scope) if s.reason is not None else None
        return ("award", amount, target, reason)

    # expressions

    def expr(self, e: n.Expr, scope: Scope, expected: str | None = None) -> tuple[str, Op]:
        method: Callable[[Any, Scope, str | None], tuple[str, Op]] = getattr(self, "expr_" + type(e).__name__.lower())
        typ, op = method(e, scope, expected)
        if expected is not None and not t.accepts(expected, typ):
            return self.error(e.pos, f"expected {t.describe(expected)}, got {t.describe(typ)}")
        return typ, op

    def expr_number(self, e: n.Number, scope: Scope, expected: str | None) -> tuple[str, Op]:
        return t.INT, ("const", bounded(e.value))

    def expr_text(self, e: n.Text, scope: Scope, expected: str | None) -> tuple[str, Op]:
        if expected in t.ENUMS and len(e.parts) <= 1 and all(isinstance(p, str) for p in e.parts):
            return self.enum_literal(e.pos, "".join(e.parts), expected)  # type: ignore[arg-type]
        return t.TEXT, self.text(e, scope)

    def text(self, e: n.Text, scope: Scope) -> Op:
        return ("text", tuple(("const", p) if isinstance(p, str) else self.shown(p, scope) for p in e.parts))

    def shown(self, e: n.Expr, scope: Scope) -> Op:
        """An expression shown in text; numbers, names and players show as they are."""
        typ, op = self.expr(e, scope)
        return ("show", op) if typ == t.BOOL or t.element(typ) is not None else op

    def enum_literal(self, pos: n.Pos, name: str, domain: str) -> tuple[str, Op]:
        values = self.vocab.domains.get(domain, ())
        if name not in values:
            code = "CK207" if domain in t.QUOTED_ONLY else "CK202"
            message = f"unknown {domain} '{name}'{self.hint(name, domain, values)}"
            self.problems.append(CompileProblem(pos, message, code, (domain, name)))
            return t.ERROR, UNKNOWN
        return domain, ("const", name)

    def hint(self, name: str, domain: str, values: tuple[str, ...]) -> str:
        """What to write instead of an unknown ``name`` of ``domain``."""
        other = {t.CARD: t.CARD_NAME, t.CARD_NAME: t.CARD}.get(domain)
        if other is not None and name in self.vocab.domains.get(other, ()):
            ids, names = self.vocab.domains[t.CARD], self.vocab.domains[t.CARD_NAME]
            if domain == t.CARD:  # a card's name where its id is wanted
                return f"; '{name}' is the name of card '{ids[names.index(name)]}'"
            return f"; '{name}' is a card id: the card's name is '{names[ids.index(name)]}'"
        if not values or len(values) > MAX_LISTED:
            return did_you_mean(name, values)
        import difflib  # only a problem needs it

        # Among few names only a near miss is worth a guess ('fsh'); otherwise show them all ('tomato').
        close = difflib.get_close_matches(name, values, n=1, cutoff=0.75)
        if close:
            return f"; did you mean '{close[0]}'?"
        return f"; known {t.describe(t.list_of(domain))[len('a list of ') :]}: {', '.join(values)}"

    def expr_name(self, e: n.Name, scope: Scope, expected: str | None) -> tuple[str, Op]:
        if e.name in scope:
            slot, typ = scope[e.name]
            return typ, ("slot", slot)
        if e.name in CONSTANTS:
            typ, value, _ = CONSTANTS[e.name]
            return typ, ("const", value)
        fn = FUNCTIONS.get(e.name)
        if fn is not None and not fn.params:
            return self.call(n.Call(e.pos, e.name, ()), scope)
        if e.name in self.vocab.params:
            return self.vocab.params[e.name], ("param", e.name)
        if expected in t.ENUMS:
            return self.enum_literal(e.pos, e.name, expected)
        domains = {d: values for d, values in self.vocab.domains.items() if d not in t.QUOTED_ONLY}
        found = [d for d, values in domains.items() if e.name in values]
        # `fish` is both an ingredient type and a spice; the ingredient type serves as its spice too
        owners = [d for d in found if not any(o != d and t.accepts(d, o) for o in found)]
        if len(owners) == 1:
            return self.enum_literal(e.pos, e.name, owners[0])
        known = [*scope, *CONSTANTS, *(f.name for f in FUNCTIONS.values() if not f.params), *self.vocab.params]
        for values in domains.values():
            known.extend(values)
        return self.error(e.pos, f"unknown name '{e.name}'{did_you_mean(e.name, known)}", "CK202")

    def expr_call(self, e: n.Call, scope: Scope, expected: str | None) -> tuple[str, Op]:
        if e.func in AGGREGATES:
            if len(e.args) != 1:
                return self.error(e.pos, f"'{e.func}' takes one list, got {len(e.args)} arguments")
            var = "_item"
            comp = n.Comprehension(e.pos, e.func, n.Name(e.pos, var), var, e.pos, e.args[0], None)
            if AGGREGATES[e.func].ranks:
                return self.error(e.pos, f"'{e.func}' needs the form {e.func}(NUMBER for NAME in LIST)")
            return self.expr_comprehension(comp, scope, expected)
        return self.call(e, scope)

    def call(self, e: n.Call, scope: Scope) -> tuple[str, Op]:
        fn = FUNCTIONS.get(e.func)
        if fn is None and e.func in self.vocab.params:
            return self.parameter_for(e, scope)
        if fn is None:
            if e.func in INSTEAD:
                return self.error(e.pos, f"unknown function '{e.func}'; {INSTEAD[e.func]}", "CK202")
            names = [*FUNCTIONS, *AGGREGATES]
            return self.error(e.pos, f"unknown function '{e.func}'{did_you_mean(e.func, names)}", "CK202")
        if fn.needs_owner and not self.vocab.has_owner:
            return self.error(e.pos, f"'{e.func}' is only available on cards that a player owns", "CK202")
        if len(e.args) != len(fn.params):
            want = ", ".join(f"{p}: {typ}" for p, typ in fn.params)
            return self.error(e.pos, f"'{e.func}' takes {len(fn.params)} argument(s) ({want}), got {len(e.args)}")
        args = tuple(self.expr(a, scope, typ)[1] for a, (_, typ) in zip(e.args, fn.params, strict=False))
        return fn.returns, ("call", e.func, args)

    def parameter_for(self, e: n.Call, scope: Scope) -> tuple[str, Op]:
        """``name(x)``: the rule parameter ``name`` in force for a player or for a meal (the cards
        they hold, the meal's own card), where the bare ``name`` is the one in force for everyone."""
        if len(e.args) != 1:
            return self.error(
                e.pos, f"'{e.func}' is a rule parameter: write {e.func}(p) for a player or {e.func}(m) for a meal"
            )
        typ, arg = self.expr(e.args[0], scope)
        if typ not in (t.PLAYER, t.MEAL, t.ERROR):
            return self.error(
                e.args[0].pos, f"the rule parameter '{e.func}' is read for a player or a meal, not {t.describe(typ)}"
            )
        return self.vocab.params[e.func], ("param_of", e.func, arg, typ == t.MEAL)

    def expr_comprehension(self, e: n.Comprehension, scope: Scope, expected: str | None) -> tuple[str, Op]:
        agg = AGGREGATES.get(e.func)
        if agg is None:
            return self.error(e.pos, f"unknown aggregate '{e.func}'{did_you_mean(e.func, list(AGGREGATES))}", "CK202")
        src_type, source = self.expr(e.source, scope)
        item_type = t.items_of(src_type)
        if item_type is None:
            if src_type != t.ERROR:
                self.error(e.source.pos, f"'{e.func}' needs a list after 'in', got {t.describe(src_type)}")
            item_type = t.ERROR
        inner = dict(scope)
        slot = self.new_slot()
        inner[e.var] = (slot, item_type)
        elem_type, elem = self.expr(e.element, inner, None if agg.element == t.ANY else agg.element)
        cond = self.expr(e.condition, inner, t.BOOL)[1] if e.condition is not None else None
        returns = {"each": t.list_of(elem_type), "any": t.BOOL, "all": t.BOOL}.get(e.func, t.INT)
        if agg.ranks:
            returns = t.list_of(item_type)
        return returns, ("agg", e.func, source, elem, cond, slot)

    def expr_listof(self, e: n.ListOf, scope: Scope, expected: str | None) -> tuple[str, Op]:
        """A list written out: its items all of one type, the expected one's if there is one."""
        if expected == t.BANDS:
            return self.bands(e, scope)
        item_type = t.element(expected) if expected is not None else None
        items: list[Op] = []
        for item in e.items:
            typ, op = self.expr(item, scope, item_type)
            item_type = item_type or typ
            items.append(op)
        return t.list_of(item_type or t.ERROR), ("list", tuple(items))

    def bands(self, e: n.ListOf, scope: Scope) -> tuple[str, Op]:
        """Bands written out, ``[[0, 0], [6, 1]]``: [minimum, stars] rows, the minimums rising when they are numbers."""
        rows = [row for row in e.items if isinstance(row, n.ListOf) and len(row.items) == 2]
        if not e.items or len(rows) != len(e.items):
            return self.error(e.pos, "expected bands: a list of [minimum, stars] pairs")
        items = tuple(("list", tuple(self.expr(x, scope, t.INT)[1] for x in row.items)) for row in rows)
        minima = [row.items[0].value for row in rows if isinstance(row.items[0], n.Number)]
        if len(minima) == len(rows) and minima != sorted(set(minima)):
            return self.error(e.pos, "band minimums must rise strictly")
        return t.BANDS, ("list", items)

    def expr_binop(self, e: n.BinOp, scope: Scope, expected: str | None) -> tuple[str, Op]:
        _, left = self.expr(e.left, scope, t.INT)
        _, right = self.expr(e.right, scope, t.INT)
        return t.INT, ("arith", e.op, left, right)

    def expr_neg(self, e: n.Neg, scope: Scope, expected: str | None) -> tuple[str, Op]:
        _, operand = self.expr(e.operand, scope, t.INT)
        return t.INT, ("neg", operand)

    def expr_compare(self, e: n.Compare, scope: Scope, expected: str | None) -> tuple[str, Op]:
        if self.is_literal(e.left, scope) and not self.is_literal(e.right, scope):
            right_type, right = self.expr(e.right, scope)
            _, left = self.expr(e.left, scope, right_type)
        else:
            left_type, left = self.expr(e.left, scope)
            _, right = self.expr(e.right, scope, left_type)
            right_type = left_type
        if e.op not in ("==", "!=") and right_type not in (t.INT, t.ERROR):
            return self.error(e.pos, f"'{e.op}' compares numbers, not {t.describe(right_type)}")
        return t.BOOL, ("cmp", e.op, left, right)

    def is_literal(self, e: n.Expr, scope: Scope) -> bool:
        """A bare name or plain quoted text, whose type comes from what it is compared with."""
        if isinstance(e, n.Text):
            return all(isinstance(p, str) for p in e.parts)
        return (
            isinstance(e, n.Name)
            and e.name not in scope
            and e.name not in self.vocab.params
            and e.name not in FUNCTIONS
        )

    def expr_contains(self, e: n.Contains, scope: Scope, expected: str | None) -> tuple[str, Op]:
        if isinstance(e.collection, n.ListOf) and not self.is_literal(e.item, scope):
            # `t in [fish, cheese]`: the list's items are of the item's type
            typ, item = self.expr(e.item, scope)
            _, coll = self.expr(e.collection, scope, t.list_of(typ))
            return t.BOOL, ("in", item, coll, e.negated)
        coll_type, coll = self.expr(e.collection, scope)
        item_type = t.items_of(coll_type)
        if item_type is None and coll_type != t.ERROR:
            return self.error(e.collection.pos, f"'in' needs a list, got {t.describe(coll_type)}")
        _, item = self.expr(e.item, scope, item_type)
        return t.BOOL, ("in", item, coll, e.negated)

    def expr_boolop(self, e: n.BoolOp, scope: Scope, expected: str | None) -> tuple[str, Op]:
        _, left = self.expr(e.left, scope, t.BOOL)
        _, right = self.expr(e.right, scope, t.BOOL)
        return t.BOOL, (e.op, left, right)

    def expr_not(self, e: n.Not, scope: Scope, expected: str | None) -> tuple[str, Op]:
        _, operand = self.expr(e.operand, scope, t.BOOL)
        return t.BOOL, ("not", operand)

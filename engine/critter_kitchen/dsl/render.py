"""Card effects back into plain English, phrased by the registry."""

from __future__ import annotations

from . import nodes as n
from .registry import AGGREGATES, FUNCTIONS, OPERATORS, STATEMENTS

_INDENT = "    "


def program_lines(program: n.Program) -> list[str]:
    """One line per statement, blocks indented, each a plain-English sentence."""
    return _block(program.body, 0)


def _block(body: tuple[n.Stmt, ...], depth: int) -> list[str]:
    lines: list[str] = []
    for stmt in body:
        lines.extend(_statement(stmt, depth))
    return lines


_DOUBLED = ("highest", "lowest", "largest", "smallest")


def _line(depth: int, text: str) -> str:
    for word in _DOUBLED:  # "the highest the value of ..." reads "the highest value of ..."
        text = text.replace(f"{word} the ", f"{word} ")
    first = text.split(" ", 1)[0]
    if len(first) > 1:  # a one-letter first word is a variable: keep its case
        text = text[:1].upper() + text[1:]
    return _INDENT * depth + text


def _statement(s: n.Stmt, depth: int) -> list[str]:
    if isinstance(s, n.Award):
        amount = expr(s.amount)
        if isinstance(s.amount, n.Number):
            stars = f"{amount} star" + ("" if amount == "1" else "s")
        else:
            stars = f"stars equal to {amount}"
        reason = f' ("{text(s.reason)}")' if s.reason is not None else ""
        phrase = STATEMENTS["award"].phrase.format(target=expr(s.target), amount=stars, reason=reason)
        return [_line(depth, phrase + ".")]
    if isinstance(s, n.Let):
        return [_line(depth, STATEMENTS["let"].phrase.format(name=s.name, value=expr(s.value)) + ".")]
    if isinstance(s, n.Modify):
        phrase = STATEMENTS[s.op].phrase.format(target=expr(s.target), value=expr(s.value))
        return [_line(depth, phrase + ".")]
    if isinstance(s, n.For):
        head = STATEMENTS["for"].phrase.format(var=s.var, source=expr(s.source))
        return [_line(depth, head), *_block(s.body, depth + 1)]
    if isinstance(s, n.If):
        lines = [_line(depth, STATEMENTS["if"].phrase.format(cond=expr(s.condition))), *_block(s.then, depth + 1)]
        if s.orelse:
            lines += [_line(depth, "otherwise:"), *_block(s.orelse, depth + 1)]
        return lines
    return [_line(depth, STATEMENTS["pass"].phrase + ".")]


def text(t: n.Text) -> str:
    return "".join(part if isinstance(part, str) else "{" + expr(part) + "}" for part in t.parts)


def expr(e: n.Expr) -> str:
    """An expression in words."""
    if isinstance(e, n.Number):
        return str(e.value)
    if isinstance(e, n.Text):
        return f'"{text(e)}"'
    if isinstance(e, n.Name):
        fn = FUNCTIONS.get(e.name)
        return fn.phrase if fn is not None and not fn.params else e.name
    if isinstance(e, n.Call):
        return _call(e)
    if isinstance(e, n.Comprehension):
        agg = AGGREGATES.get(e.func)
        if agg is None:
            return f"{e.func}(...)"
        where = f" where {expr(e.condition)}" if e.condition is not None else ""
        return agg.phrase.format(elem=expr(e.element), var=e.var, source=expr(e.source), where=where)
    if isinstance(e, n.BinOp | n.Compare | n.BoolOp):
        return f"{_operand(e.left)} {OPERATORS[e.op]} {_operand(e.right)}"
    if isinstance(e, n.Contains):
        verb = "is not one of" if e.negated else OPERATORS["in"]
        return f"{expr(e.item)} {verb} {expr(e.collection)}"
    if isinstance(e, n.Not):
        return f"not ({expr(e.operand)})"
    return f"minus {_operand(e.operand)}"


def _operand(e: n.Expr) -> str:
    inner = expr(e)
    return f"({inner})" if isinstance(e, n.BinOp | n.Compare | n.BoolOp) else inner


def _call(e: n.Call) -> str:
    if e.func in AGGREGATES and len(e.args) == 1:  # count(xs) reads as count(x for x in xs)
        item = n.Name(e.pos, "item")
        return expr(n.Comprehension(e.pos, e.func, item, "item", e.pos, e.args[0], None))
    fn = FUNCTIONS.get(e.func)
    if fn is None or len(fn.params) != len(e.args):
        return f"{e.func}({', '.join(expr(a) for a in e.args)})"
    return fn.phrase.format(**{name: expr(a) for (name, _), a in zip(fn.params, e.args, strict=True)})

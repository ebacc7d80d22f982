"""Card effects back into plain English, phrased by the registry.

English has no operator precedence, so the renderer brackets every part whose extent a
reader could not otherwise tell: an operand of a different operator, a compound argument
of a function, and an aggregate whose phrase ends in an open clause ("... such that C")
wherever more words follow it.
"""

from __future__ import annotations

from . import nodes as n
from .registry import AGGREGATES, FUNCTIONS, OPERATORS, STATEMENTS

_INDENT = "    "
_LEVEL = {"or": 1, "and": 2, "+": 5, "-": 5, "*": 6, "//": 6, "%": 6}


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
        if isinstance(s.amount, n.Number):
            stars = f"{s.amount.value} star" + ("" if s.amount.value == 1 else "s")
        else:
            stars = f"stars equal to {_closed(s.amount)}"
        reason = f' ("{text(s.reason)}")' if s.reason is not None else ""
        phrase = STATEMENTS["award"].phrase.format(target=expr(s.target), amount=stars, reason=reason)
        return [_line(depth, phrase + ".")]
    if isinstance(s, n.Let):
        return [_line(depth, STATEMENTS["let"].phrase.format(name=s.name, value=expr(s.value)) + ".")]
    if isinstance(s, n.Modify):
        # the value of 'add' is followed by more words; the others end the sentence
        value = _closed(s.value) if s.op == "add" else expr(s.value)
        phrase = STATEMENTS[s.op].phrase.format(target=expr(s.target), value=value)
        return [_line(depth, phrase + ".")]
    if isinstance(s, n.For):
        head = STATEMENTS["for"].phrase.format(var=s.var, source=expr(s.source))
        return [_line(depth, head), *_block(s.body, depth + 1)]
    if isinstance(s, n.If):
        return _if(s, depth, STATEMENTS["if"].phrase.format(cond=expr(s.condition)))
    return [_line(depth, STATEMENTS["pass"].phrase + ".")]


def _if(s: n.If, depth: int, head: str) -> list[str]:
    lines = [_line(depth, head), *_block(s.then, depth + 1)]
    if len(s.orelse) == 1 and isinstance(s.orelse[0], n.If):  # elif, or an else holding only an if
        inner = s.orelse[0]
        return lines + _if(inner, depth, "otherwise, " + STATEMENTS["if"].phrase.format(cond=expr(inner.condition)))
    if s.orelse:
        lines += [_line(depth, "otherwise:"), *_block(s.orelse, depth + 1)]
    return lines


def text(t: n.Text) -> str:
    return "".join(part if isinstance(part, str) else "{" + expr(part) + "}" for part in t.parts)


def expr(e: n.Expr) -> str:
    """An expression in words, as it reads where nothing follows it."""
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
        return _aggregate(e)
    if isinstance(e, n.BinOp):
        return f"{_arith_side(e.left, e, True)} {OPERATORS[e.op]} {_arith_side(e.right, e, False)}"
    if isinstance(e, n.Compare):
        return f"{_compared(e.left)} {OPERATORS[e.op]} {_compared(e.right)}"
    if isinstance(e, n.BoolOp):
        return f"{_bool_side(e.left, e)} {OPERATORS[e.op]} {_bool_side(e.right, e)}"
    if isinstance(e, n.Contains):
        verb = "is not one of" if e.negated else OPERATORS["in"]
        return f"{_closed(e.item)} {verb} {_closed(e.collection)}"
    if isinstance(e, n.Not):
        return f"not ({expr(e.operand)})" if not isinstance(e.operand, n.Name) else f"not {expr(e.operand)}"
    return f"minus {_closed(e.operand)}"


def _closed(e: n.Expr) -> str:
    """``e`` in words that can stand anywhere: bracketed unless its extent is plain."""
    return expr(e) if _is_closed(e) else f"({expr(e)})"


def _is_closed(e: n.Expr) -> bool:
    """Whether the words for ``e`` end where ``e`` ends, whatever follows them."""
    if isinstance(e, n.Number | n.Text | n.Name | n.Not | n.Neg | n.Call):
        return True  # a call's compound arguments are bracketed; a plain aggregate ends with its list
    if isinstance(e, n.Comprehension):
        agg = AGGREGATES.get(e.func)
        if agg is None:
            return True
        if agg.phrase.endswith(("{such}", "{among}")):
            return e.condition is None
        if agg.phrase.endswith("{elem}"):
            return e.condition is None and _is_closed(e.element)
        return True
    return False


def _arith_side(child: n.Expr, parent: n.BinOp, left: bool) -> str:
    """An operand of arithmetic: bare only in a left-to-right chain of one kind."""
    if isinstance(child, n.BinOp):
        same = _LEVEL[child.op] == _LEVEL[parent.op] and (child.op == parent.op or _LEVEL[child.op] == 5)
        return expr(child) if left and same else f"({expr(child)})"
    if isinstance(child, n.Call) and _ends_in_argument(child):
        return f"({expr(child)})"  # "the stars for x in b times 2" could be "... in (b times 2)"
    return _closed(child)


def _ends_in_argument(e: n.Call) -> bool:
    """Whether the words for a call end with one of its arguments, which a following word could extend."""
    fn = FUNCTIONS.get(e.func)
    if fn is not None:
        return bool(fn.params) and fn.phrase.endswith("}")
    agg = AGGREGATES.get(e.func)
    return agg is not None and agg.plain.endswith("}")


def _compared(child: n.Expr) -> str:
    # arithmetic binds tighter than any comparison word, in English as in the language
    return expr(child) if isinstance(child, n.BinOp) else _closed(child)


def _bool_side(child: n.Expr, parent: n.BoolOp) -> str:
    if isinstance(child, n.BoolOp):
        return expr(child) if child.op == parent.op else f"({expr(child)})"
    if isinstance(child, n.Compare | n.Contains):
        return expr(child)
    return _closed(child)


def _aggregate(e: n.Comprehension) -> str:
    agg = AGGREGATES.get(e.func)
    if agg is None:
        return f"{e.func}(...)"
    cond = expr(e.condition) if e.condition is not None else ""
    # an element at the very end of the phrase is a clause of its own; elsewhere it is bracketed as needed
    element = expr(e.element) if agg.phrase.endswith("{elem}") else _closed(e.element)
    return agg.phrase.format(
        elem=element,
        var=e.var,
        source=_closed(e.source),
        such=f" such that {cond}" if cond else "",
        among=f" among those such that {cond}" if cond else "",
    )


def _plain_aggregate(e: n.Call) -> str | None:
    """``count(served(p))`` and the like: an aggregate of a plain list, in words."""
    agg = AGGREGATES.get(e.func)
    if agg is None or len(e.args) != 1 or not agg.plain:
        return None
    return agg.plain.format(source=_closed(e.args[0]))


def _call(e: n.Call) -> str:
    plain = _plain_aggregate(e)
    if plain is not None:
        return plain
    fn = FUNCTIONS.get(e.func)
    if fn is None and len(e.args) == 1:  # a rule parameter read for a player or a meal
        arg = e.args[0]
        return f"{arg.name}'s {e.func}" if isinstance(arg, n.Name) else f"{e.func} in force for {_closed(arg)}"
    if fn is None or len(fn.params) != len(e.args):
        return f"{e.func}({', '.join(expr(a) for a in e.args)})"
    return fn.phrase.format(**{name: _closed(a) for (name, _), a in zip(fn.params, e.args, strict=True)})

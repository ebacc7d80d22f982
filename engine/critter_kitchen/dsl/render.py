"""Card effects back into plain English, phrased by the registry.

English has no operator precedence, so the renderer brackets every part whose extent a
reader could not otherwise tell: an operand of a different operator, a compound argument
of a function, and an aggregate whose phrase ends in an open clause ("... such that C")
wherever more words follow it.
"""

from __future__ import annotations

from typing import Any

from . import nodes as n
from .registry import AGGREGATES, FUNCTIONS, OPERATOR_AFTER, OPERATORS, STATEMENTS

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
        reason = f" ({reason_text(s.reason)})" if s.reason is not None else ""
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
    """Quoted text as written, each shown value in words between braces (a reason's own words)."""
    return "".join(part if isinstance(part, str) else "{" + expr(part) + "}" for part in t.parts)


_PLACES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def reason_text(t: n.Text) -> str:
    """An award's reason as a player reads it: the words in quotes, each value shown in it in
    brackets, a named value by its name (``[t]``) and any other by a letter said after the
    quote (``"[A] soup kept", where A is p's unused soup tokens``)."""
    shown: list[str] = []
    said: list[str] = []
    for part in t.parts:
        if isinstance(part, str):
            shown.append(part)
        elif isinstance(part, n.Name) and part.name not in FUNCTIONS:
            shown.append(f"[{part.name}]")
        else:
            letter = _PLACES[len(said) % len(_PLACES)]
            shown.append(f"[{letter}]")
            said.append(f"{letter} is {expr(part)}")
    where = ", where " + _joined(said) if said else ""
    return f'"{"".join(shown)}"{where}'


def _joined(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
    if isinstance(e, n.ListOf):
        return _list(e)
    if isinstance(e, n.BinOp):
        after = OPERATOR_AFTER.get(e.op, "")
        return f"{_arith_side(e.left, e, True)} {OPERATORS[e.op]} {_arith_side(e.right, e, False)}{after}"
    if isinstance(e, n.Compare):
        said = _said_is(e)
        return said if said is not None else f"{_compared(e.left)} {OPERATORS[e.op]} {_compared(e.right)}"
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
    if isinstance(e, n.Number | n.Text | n.Name | n.Not | n.Neg | n.Call | n.ListOf):
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
        # "x divided by 2, rounded down divided by 3" could end anywhere: an operation said with
        # words after it is bracketed wherever more follows
        return expr(child) if left and same and child.op not in OPERATOR_AFTER else f"({expr(child)})"
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


def _said_is(e: n.Compare) -> str | None:
    """``player_of(m) == p`` as its function says it: "p served m"."""
    if e.op != "==":
        return None
    for call, value in ((e.left, e.right), (e.right, e.left)):
        fn = FUNCTIONS.get(call.func) if isinstance(call, n.Call) else None
        if fn is not None and fn.is_phrase and isinstance(call, n.Call) and len(call.args) == len(fn.params):
            args = {name: _closed(a) for (name, _), a in zip(fn.params, call.args, strict=True)}
            return fn.is_phrase.format(v=_closed(value), **args)
    return None


def _compared(child: n.Expr) -> str:
    # arithmetic binds tighter than any comparison word, in English as in the language
    plain = isinstance(child, n.BinOp) and child.op not in OPERATOR_AFTER
    return expr(child) if plain else _closed(child)


def _bool_side(child: n.Expr, parent: n.BoolOp) -> str:
    if isinstance(child, n.BoolOp):
        return expr(child) if child.op == parent.op else f"({expr(child)})"
    if isinstance(child, n.Compare | n.Contains):
        return expr(child)
    return _closed(child)


def bands_words(rows: list[tuple[str, str]]) -> str:
    """Bands as their steps, from their [minimum, stars] rows in words: "0 stars from 0, 1 star from 6"."""
    return ", ".join(f"{stars} star{'' if stars == '1' else 's'} from {minimum}" for minimum, stars in rows)


def value_words(typ: str, value: object) -> str:
    """A rule parameter's value as a card shows it: bands as steps, lists and tables as their items."""
    if typ == "bands" and isinstance(value, list):
        return bands_words([(str(row[0]), str(row[1])) for row in value if isinstance(row, list) and len(row) == 2])
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value)) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{key} {number}" for key, number in value.items()) if value else "none"
    return str(value)


def _list(e: n.ListOf) -> str:
    """A list written out: bands (rows of two) as their steps, any other list as its items in brackets."""
    if e.items and all(isinstance(row, n.ListOf) and len(row.items) == 2 for row in e.items):
        rows = [(_closed(row.items[0]), _closed(row.items[1])) for row in e.items if isinstance(row, n.ListOf)]
        return f"the bands [{bands_words(rows)}]"
    return f"[{', '.join(_closed(item) for item in e.items)}]"


def _aggregate(e: n.Comprehension) -> str:
    agg = AGGREGATES.get(e.func)
    if agg is None:
        return f"{e.func}(...)"
    cond = expr(e.condition) if e.condition is not None else ""
    among = f" among those such that {cond}" if cond else ""
    if e.condition is not None and "{among}" in agg.phrase and _holds(e.condition, e.element):
        # "the highest X among those such that X is more than 0": X is said once
        that = n.Name(e.element.pos, _THAT_NUMBER)
        among = f" among those where {expr(_replaced(e.condition, e.element, that))}"
    # an element at the very end of the phrase is a clause of its own; elsewhere it is bracketed as needed
    element = expr(e.element) if agg.phrase.endswith("{elem}") else _closed(e.element)
    return agg.phrase.format(
        elem=element,
        var=e.var,
        source=_closed(e.source),
        such=f" such that {cond}" if cond else "",
        among=among,
    )


_THAT_NUMBER = "that number"  # a name no card can write (it has a space): the element said again


def shape(node: object) -> object:
    """A node as plain data without its positions: two parts of a card written alike have one shape."""
    if isinstance(node, tuple):
        return tuple(shape(item) for item in node)
    if isinstance(node, n.Node):
        fields = (f for f in node.__dataclass_fields__ if f not in ("pos", "var_pos"))
        return (type(node).__name__, *(shape(getattr(node, f)) for f in fields))
    return node


def _holds(node: n.Expr, part: n.Expr) -> bool:
    """Whether ``part`` is written inside ``node`` (or is ``node``)."""
    wanted = shape(part)
    return any(isinstance(x, n.Node) and shape(x) == wanted for x in n.walk(node))


def _replaced(node: n.Expr, part: n.Expr, by: n.Expr) -> n.Expr:
    """``node`` with every copy of ``part`` in it put as ``by`` (a copy of the tree; the card keeps its own)."""
    import dataclasses

    wanted = shape(part)

    def swap(x: object) -> object:
        if isinstance(x, tuple):
            return tuple(swap(item) for item in x)
        if not isinstance(x, n.Node):
            return x
        if shape(x) == wanted:
            return by
        changes: dict[str, Any] = {f: swap(getattr(x, f)) for f in x.__dataclass_fields__ if f != "pos"}
        return dataclasses.replace(x, **changes)

    return swap(node)  # type: ignore[return-value]


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


# Reading it without effort

MAX_SENTENCE_WORDS = 50
"""The most words a sentence of card English may have, outside the quoted words of a reason.

The longest sentence printed on a shipped card's text is 29 words; card English says what
the printed text leaves to the reader (each variable, each condition, how a number rounds),
so it may run longer, but past 50 words a player loses the thread (the Spice Hound, with
its clause said twice, ran 51).
"""
MIN_CLAUSE_WORDS = 5  # a part of a sentence this long, said twice in it, is a clause repeated


def readability_problems(program: n.Program) -> list[str]:
    """Each sentence of ``program``'s English that a player cannot read without effort: longer
    than :data:`MAX_SENTENCE_WORDS` words, or saying one clause twice."""
    problems: list[str] = []
    for stmt in _statements(program.body):
        sentence = _statement(stmt, 0)[0].strip()
        if isinstance(stmt, n.If):
            sentence = _line(0, STATEMENTS["if"].phrase.format(cond=expr(stmt.condition)))
        words = len(_unquoted(sentence).split())
        if words > MAX_SENTENCE_WORDS:
            problems.append(f"{words} words, more than {MAX_SENTENCE_WORDS}: {sentence}")
        for clause in _clauses(stmt):
            if len(clause.split()) >= MIN_CLAUSE_WORDS and sentence.count(clause) > 1:
                problems.append(f"'{clause}' said {sentence.count(clause)} times: {sentence}")
                break
    return problems


def _statements(body: tuple[n.Stmt, ...]) -> list[n.Stmt]:
    """Every statement of a block and of the blocks inside it, each a sentence of its own."""
    found: list[n.Stmt] = []
    todo = list(reversed(body))
    while todo:
        stmt = todo.pop()
        found.append(stmt)
        if isinstance(stmt, n.For):
            todo.extend(reversed(stmt.body))
        elif isinstance(stmt, n.If):
            todo.extend(reversed((*stmt.then, *stmt.orelse)))
    return found


def _own_parts(stmt: n.Stmt) -> tuple[object, ...]:
    """The expressions a statement's own sentence says (not those of the blocks inside it)."""
    if isinstance(stmt, n.Award):
        return (stmt.amount, stmt.target, stmt.reason)
    if isinstance(stmt, n.Let):
        return (stmt.value,)
    if isinstance(stmt, n.Modify):
        return (stmt.target, stmt.value)
    if isinstance(stmt, n.For):
        return (stmt.source,)
    if isinstance(stmt, n.If):
        return (stmt.condition,)
    return ()


_COMPOUND = (n.Comprehension, n.BinOp, n.BoolOp, n.Compare, n.Contains, n.Not, n.Call, n.ListOf)


def _clauses(stmt: n.Stmt) -> list[str]:
    """The words of each compound part of a statement's own sentence."""
    return [expr(x) for x in n.walk(_own_parts(stmt)) if isinstance(x, _COMPOUND)]


def _unquoted(sentence: str) -> str:
    """A sentence without the quoted words of its reason (the designer's own)."""
    import re

    return re.sub(r'"[^"]*"', "", sentence)

"""The syntax tree of the effect language: frozen nodes that keep their file position."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

Locate = Callable[[int, int], tuple[int, int]]
"""Maps a (line, column) in DSL text to a (line, column) in the file that holds it."""


@dataclass(frozen=True)
class Pos:
    """Where a node starts in its card file (1-based), and how wide its first line is."""

    line: int
    column: int
    width: int = 1


@dataclass(frozen=True)
class Node:
    pos: Pos


# Expressions


@dataclass(frozen=True)
class Number(Node):
    value: int


@dataclass(frozen=True)
class Text(Node):
    """Quoted text; ``{expr}`` parts are expressions shown in the text."""

    parts: tuple[str | Expr, ...]


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Comprehension(Node):
    """``func(element for var in source if condition)``."""

    func: str
    element: Expr
    var: str
    var_pos: Pos
    source: Expr
    condition: Expr | None


@dataclass(frozen=True)
class ListOf(Node):
    """A list written out: ``[1, 2, 3]``, or bands ``[[0, 0], [6, 1]]``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class BinOp(Node):
    op: str  # + - * // %
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Node):
    op: str  # == != < <= > >=
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Contains(Node):
    item: Expr
    collection: Expr
    negated: bool


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # and, or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Not(Node):
    operand: Expr


@dataclass(frozen=True)
class Neg(Node):
    operand: Expr


Expr = Number | Text | Name | Call | Comprehension | ListOf | BinOp | Compare | Contains | BoolOp | Not | Neg


# Statements


@dataclass(frozen=True)
class Award(Node):
    amount: Expr
    target: Expr
    reason: Text | None


@dataclass(frozen=True)
class Let(Node):
    name: str
    value: Expr


@dataclass(frozen=True)
class Modify(Node):
    """``set X to v``, ``add v to X`` or ``multiply X by v`` on a settable call X."""

    op: str  # set, add, multiply
    target: Call
    value: Expr


@dataclass(frozen=True)
class For(Node):
    var: str
    source: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If(Node):
    condition: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True)
class Pass(Node):
    pass


Stmt = Award | Let | Modify | For | If | Pass


@dataclass(frozen=True)
class Program(Node):
    body: tuple[Stmt, ...]


def walk(node: object) -> Iterator[Node]:
    """Every node below ``node`` (itself included), depth first."""
    if isinstance(node, tuple):
        for item in node:
            yield from walk(item)
    elif isinstance(node, Node):
        yield node
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from walk(getattr(node, name))

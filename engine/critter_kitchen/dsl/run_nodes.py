"""The nodes scoring runs, built from a checked effect program.

The compiler (``compiler.py``) checks a syntax tree and writes the program out as nested
tuples of plain data, its *ops*: ``("call", "quality", (("slot", 0), ("const", "fish")))``.
``program.build`` turns ops into a tree of small :class:`Node` objects, one per op, each
with a ``run(frame)`` method; scoring only ever runs those. The builders here make the
node of each kind of op; the registry's entries (functions, aggregates, statements) name
theirs, and each builder gets ``build``, which builds the op's parts. Ops can be pickled,
so the pack cache keeps them and a cached ruleset needs neither the parser nor the type
checker. This module imports nothing heavy for the same reason.

Ops name registry functions, never Python: a card's text cannot reach anything but the
registry and the game state handed to a node in its :class:`Frame`.

Nodes rather than nested closures: the compiled build makes the classes native, so a node
running its child is a direct call, where a closure calling a closure went through
Python's generic call. Common shapes get nodes of their own (a registry call whose
arguments are variables or constants, a comparison with a constant, an aggregate without
a condition): each saves a node run per step, and most effects are made of those shapes.
tests/test_stage_nodes_agree.py scores every game again with each op built into the one plain
node of its kind.

The node classes are hand-written (``__slots__`` and ``__init__``), not dataclasses: the
``score`` command starts cold without importing ``dataclasses``, and making these 49
classes dataclasses would cost it about 15 ms of the 90 ms it takes (6 ms to import
``dataclasses``, 9 ms to apply ``dataclass(slots=True)`` to classes with these fields;
measured by applying it to each node class's fields). In the compiled build, too, a
dataclass's ``__init__`` stays the Python function ``dataclasses`` writes: making one
took 177 ns where a native ``__init__`` took 34 (see ``values.py``).
"""

from __future__ import annotations

from operator import add, attrgetter, eq, ge, gt, le, lt, mul, ne, sub

from ..errors import EvaluationError
from ..interpreted import Ranked
from .budget import MAX_AWARDS, charge, spend, too_many_awards
from .changes import Change
from .frame import MAX_INT, Frame, bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from .entries import Function

    Op = tuple[Any, ...]
    Build = Callable[[Op], "Node"]  # builds an op's part
    Reads = Callable[[str], "str | None"]  # a function's name -> the attribute path it reads, if it reads one


def steps_of(op: Op) -> int:
    """The steps one run of ``op`` takes outside the bodies of its loops and aggregates.

    Those bodies are charged per item when the loop runs; of two branches, the larger counts.
    """
    match op:
        case ("const", _) | ("slot", _) | ("param", _):
            return 1
        case ("for", _, source, _) | ("agg", _, source, _, _, _):
            return 1 + steps_of(source)
        case ("if", condition, then, orelse):
            return 1 + steps_of(condition) + max(steps_of(then), steps_of(orelse) if orelse is not None else 0)
    return 1 + sum(_parts_steps_of(part) for part in op[1:])


# The kinds of op (their first field): program.build builds each.
OP_KINDS = frozenset(
    (
        "const",
        "slot",
        "param",
        "param_of",
        "call",
        "agg",
        "list",
        "arith",
        "neg",
        "cmp",
        "in",
        "and",
        "or",
        "not",
        "text",
        "show",
    )
    + ("seq", "let", "for", "if", "modify", "award")
)


def _parts_steps_of(part: Any) -> int:
    """Steps of an op's field: an op, a tuple of ops, or plain data (free)."""
    if type(part) is not tuple or not part:
        return 0
    if type(part[0]) is str:
        return steps_of(part) if part[0] in OP_KINDS else 0
    return sum(_parts_steps_of(p) for p in part)


def show(value: Any) -> str:
    """A value as text shown in an award reason."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(show(v) for v in value)
    return str(value)


# The nodes a program is built of. Each op becomes one node (common shapes get nodes of
# their own, see the module's docstring); a node runs its children by their ``run``
# method. Native classes in the compiled build: a child's ``run`` is then a direct call,
# where a closure calling a closure went through Python's generic call.


class Node:
    """One built op: ``run(frame)`` gives its value (None for a statement)."""

    __slots__ = ()

    def run(self, f: Frame) -> Any:
        raise NotImplementedError

    def __call__(self, f: Frame) -> Any:
        return self.run(f)


# expressions


class _Const(Node):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def run(self, f: Frame) -> Any:
        return self.value


class _Slot(Node):
    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i

    def run(self, f: Frame) -> Any:
        return f.slots[self.i]


class _Param(Node):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, f: Frame) -> Any:
        return f.game.params[self.name]


class _PlayerParam(Node):
    """A rule parameter in force for a player: the cards they hold change the game's."""

    __slots__ = ("name", "a")

    def __init__(self, name: str, a: Node) -> None:
        self.name, self.a = name, a

    def run(self, f: Frame) -> Any:
        own = self.a.run(f).params  # (see model.game.player_params)
        return (own if own is not None else f.game.params)[self.name]


class _MealParam(Node):
    """A rule parameter in force for a meal: its card's own change its player's."""

    __slots__ = ("name", "a")

    def __init__(self, name: str, a: Node) -> None:
        self.name, self.a = name, a

    def run(self, f: Frame) -> Any:
        meal = self.a.run(f)
        own = meal.params  # (see model.game.meal_params)
        if own is None:
            own = meal.player.params
        return (own if own is not None else f.game.params)[self.name]


class _SlotParam(Node):
    """A rule parameter in force for the player (or meal) in a slot: ``course_types(p)``."""

    __slots__ = ("name", "i", "of_meal")

    def __init__(self, name: str, i: int, of_meal: bool) -> None:
        self.name, self.i, self.of_meal = name, i, of_meal

    def run(self, f: Frame) -> Any:
        x = f.slots[self.i]
        own = x.params
        if own is None and self.of_meal:
            own = x.player.params
        return (own if own is not None else f.game.params)[self.name]


def param_of_node(build: Build, name: str, arg: Op, of_meal: bool) -> Node:
    if arg[0] == "slot":
        return _SlotParam(name, arg[1], of_meal)
    return _MealParam(name, build(arg)) if of_meal else _PlayerParam(name, build(arg))


def const_node(build: Build, value: Any) -> Node:
    return _Const(value)


def slot_node(build: Build, i: int) -> Node:
    return _Slot(i)


def param_node(build: Build, name: str) -> Node:
    return _Param(name)


class _Call0(Node):
    """A registry function without arguments; it takes the frame (an attribute reader too)."""

    __slots__ = ("impl",)

    def __init__(self, impl: Callable[..., Any]) -> None:
        self.impl = impl

    def run(self, f: Frame) -> Any:
        return self.impl(f)


class _ReadSlot(Node):
    __slots__ = ("get", "i")

    def __init__(self, get: Callable[[Any], Any], i: int) -> None:
        self.get, self.i = get, i

    def run(self, f: Frame) -> Any:
        return self.get(f.slots[self.i])


class _Read(Node):
    __slots__ = ("get", "a")

    def __init__(self, get: Callable[[Any], Any], a: Node) -> None:
        self.get, self.a = get, a

    def run(self, f: Frame) -> Any:
        return self.get(self.a.run(f))


class _Call1Slot(Node):
    __slots__ = ("impl", "i")

    def __init__(self, impl: Callable[..., Any], i: int) -> None:
        self.impl, self.i = impl, i

    def run(self, f: Frame) -> Any:
        return self.impl(f, f.slots[self.i])


class _Call1Const(Node):
    __slots__ = ("impl", "c")

    def __init__(self, impl: Callable[..., Any], c: Any) -> None:
        self.impl, self.c = impl, c

    def run(self, f: Frame) -> Any:
        return self.impl(f, self.c)


class _Call1(Node):
    __slots__ = ("impl", "a")

    def __init__(self, impl: Callable[..., Any], a: Node) -> None:
        self.impl, self.a = impl, a

    def run(self, f: Frame) -> Any:
        return self.impl(f, self.a.run(f))


class _Call2SlotSlot(Node):
    __slots__ = ("impl", "i", "j")

    def __init__(self, impl: Callable[..., Any], i: int, j: int) -> None:
        self.impl, self.i, self.j = impl, i, j

    def run(self, f: Frame) -> Any:
        slots = f.slots
        return self.impl(f, slots[self.i], slots[self.j])


class _Call2SlotConst(Node):
    __slots__ = ("impl", "i", "c")

    def __init__(self, impl: Callable[..., Any], i: int, c: Any) -> None:
        self.impl, self.i, self.c = impl, i, c

    def run(self, f: Frame) -> Any:
        return self.impl(f, f.slots[self.i], self.c)


class _Call2Const(Node):
    __slots__ = ("impl", "a", "c")

    def __init__(self, impl: Callable[..., Any], a: Node, c: Any) -> None:
        self.impl, self.a, self.c = impl, a, c

    def run(self, f: Frame) -> Any:
        return self.impl(f, self.a.run(f), self.c)


class _Call2SlotParam(Node):
    """e.g. band(meal_quality(m), challenge_bands(m)): a rule parameter in force for the meal (or
    player) in a slot, as :class:`_MealParam` (:class:`_PlayerParam`) reads it."""

    __slots__ = ("impl", "a", "name", "i", "of_meal")

    def __init__(self, impl: Callable[..., Any], a: Node, name: str, i: int, of_meal: bool) -> None:
        self.impl, self.a, self.name, self.i, self.of_meal = impl, a, name, i, of_meal

    def run(self, f: Frame) -> Any:
        x = f.slots[self.i]
        own = x.params
        if own is None and self.of_meal:
            own = x.player.params
        return self.impl(f, self.a.run(f), (own if own is not None else f.game.params)[self.name])


class _Call2Param(Node):
    """e.g. band(meal_quality(m), challenge_bands)"""

    __slots__ = ("impl", "a", "name")

    def __init__(self, impl: Callable[..., Any], a: Node, name: str) -> None:
        self.impl, self.a, self.name = impl, a, name

    def run(self, f: Frame) -> Any:
        return self.impl(f, self.a.run(f), f.game.params[self.name])


class _Call2(Node):
    __slots__ = ("impl", "a", "b")

    def __init__(self, impl: Callable[..., Any], a: Node, b: Node) -> None:
        self.impl, self.a, self.b = impl, a, b

    def run(self, f: Frame) -> Any:
        return self.impl(f, self.a.run(f), self.b.run(f))


class _CallN(Node):
    __slots__ = ("impl", "args")

    def __init__(self, impl: Callable[..., Any], args: list[Node]) -> None:
        self.impl, self.args = impl, args

    def run(self, f: Frame) -> Any:
        return self.impl(f, *[a.run(f) for a in self.args])


def call_node(build: Build, fn: Function, args: tuple[Op, ...]) -> Node:
    """A registry function's call: its impl, called with the values of its arguments."""
    impl = fn.impl
    if not args:
        return _Call0(impl)
    kinds = tuple(a[0] if a[0] in ("slot", "const") else "fn" for a in args)
    if len(args) == 1:
        return _call1(build, impl, kinds[0], args[0])
    if len(args) == 2:
        return _call2(build, impl, kinds, args)
    return _CallN(impl, [build(a) for a in args])


def read_node(build: Build, fn: Function, args: tuple[Op, ...]) -> Node:
    """A function that reads an attribute path of its argument, or of the frame."""
    assert fn.reads is not None
    get = attrgetter(fn.reads)
    if not args:
        return _Call0(get)
    (arg,) = args
    if arg[0] == "slot":
        return _ReadSlot(get, arg[1])
    return _Read(get, build(arg))


def _call1(build: Build, impl: Callable[..., Any], kind: str, arg: Op) -> Node:
    if kind == "slot":
        return _Call1Slot(impl, arg[1])
    if kind == "const":
        return _Call1Const(impl, arg[1])
    return _Call1(impl, build(arg))


def _call2(build: Build, impl: Callable[..., Any], kinds: tuple[str, ...], args: tuple[Op, ...]) -> Node:
    (k0, k1), (x0, x1) = kinds, args
    if k0 == "slot" and k1 == "slot":
        return _Call2SlotSlot(impl, x0[1], x1[1])
    if k0 == "slot" and k1 == "const":
        return _Call2SlotConst(impl, x0[1], x1[1])
    if k1 == "const":
        return _Call2Const(impl, build(x0), x1[1])
    if x1[0] == "param":
        return _Call2Param(impl, build(x0), x1[1])
    if x1[0] == "param_of" and x1[2][0] == "slot":
        return _Call2SlotParam(impl, build(x0), x1[1], x1[2][1], x1[3])
    return _Call2(impl, build(x0), build(x1))


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": add,
    "-": sub,
    "*": mul,
    "//": lambda a, b: a // b if b else 0,
    "%": lambda a, b: a % b if b else 0,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {"==": eq, "!=": ne, "<": lt, "<=": le, ">": gt, ">=": ge}


class _ArithConst(Node):
    __slots__ = ("fn", "a", "c")

    def __init__(self, fn: Callable[[int, int], int], a: Node, c: int) -> None:
        self.fn, self.a, self.c = fn, a, c

    def run(self, f: Frame) -> int:
        x = self.fn(self.a.run(f), self.c)
        return x if -MAX_INT <= x <= MAX_INT else bounded(x)


class _ArithParam(Node):
    __slots__ = ("fn", "a", "name")

    def __init__(self, fn: Callable[[int, int], int], a: Node, name: str) -> None:
        self.fn, self.a, self.name = fn, a, name

    def run(self, f: Frame) -> int:
        x = self.fn(self.a.run(f), f.game.params[self.name])
        return x if -MAX_INT <= x <= MAX_INT else bounded(x)


class _Arith(Node):
    __slots__ = ("fn", "a", "b")

    def __init__(self, fn: Callable[[int, int], int], a: Node, b: Node) -> None:
        self.fn, self.a, self.b = fn, a, b

    def run(self, f: Frame) -> int:
        x = self.fn(self.a.run(f), self.b.run(f))
        return x if -MAX_INT <= x <= MAX_INT else bounded(x)


def arith_node(build: Build, op: str, left: Op, right: Op) -> Node:
    fn, a = _ARITH[op], build(left)
    if right[0] == "const":
        return _ArithConst(fn, a, right[1])
    if right[0] == "param":
        return _ArithParam(fn, a, right[1])
    return _Arith(fn, a, build(right))


class _Neg(Node):
    __slots__ = ("a",)

    def __init__(self, a: Node) -> None:
        self.a = a

    def run(self, f: Frame) -> Any:
        return -self.a.run(f)


def neg_node(build: Build, operand: Op) -> Node:
    return _Neg(build(operand))


class _List(Node):
    """A list written out, ``[a, b, c]``: its items' values, in order, as a tuple."""

    __slots__ = ("items",)

    def __init__(self, items: list[Node]) -> None:
        self.items = items

    def run(self, f: Frame) -> Any:
        return tuple([item.run(f) for item in self.items])


def constant(op: Op) -> tuple[bool, Any]:
    """Whether ``op`` gives the same value on every run (a constant, or a list of them), and that value."""
    if op[0] == "const":
        return True, op[1]
    if op[0] == "list":
        values = []
        for item in op[1]:
            fixed, value = constant(item)
            if not fixed:
                return False, None
            values.append(value)
        return True, tuple(values)
    return False, None


def list_node(build: Build, items: tuple[Op, ...]) -> Node:
    # A list of constants is made once; its steps are still charged on each run (steps_of counts its items).
    fixed, value = constant(("list", items))
    if fixed:
        return _Const(value)
    return _List([build(item) for item in items])


class _CompareReadSlot(Node):
    """e.g. player_of(m) == p"""

    __slots__ = ("fn", "get", "i", "j")

    def __init__(self, fn: Callable[[Any, Any], bool], get: Callable[[Any], Any], i: int, j: int) -> None:
        self.fn, self.get, self.i, self.j = fn, get, i, j

    def run(self, f: Frame) -> Any:
        slots = f.slots
        return self.fn(self.get(slots[self.i]), slots[self.j])


class _CompareReadFrame(Node):
    """e.g. player_of(m) == owner"""

    __slots__ = ("fn", "get", "i", "get_b")

    def __init__(
        self, fn: Callable[[Any, Any], bool], get: Callable[[Any], Any], i: int, get_b: Callable[[Any], Any]
    ) -> None:
        self.fn, self.get, self.i, self.get_b = fn, get, i, get_b

    def run(self, f: Frame) -> Any:
        return self.fn(self.get(f.slots[self.i]), self.get_b(f))


class _CompareConst(Node):
    __slots__ = ("fn", "a", "c")

    def __init__(self, fn: Callable[[Any, Any], bool], a: Node, c: Any) -> None:
        self.fn, self.a, self.c = fn, a, c

    def run(self, f: Frame) -> Any:
        return self.fn(self.a.run(f), self.c)


class _Compare(Node):
    __slots__ = ("fn", "a", "b")

    def __init__(self, fn: Callable[[Any, Any], bool], a: Node, b: Node) -> None:
        self.fn, self.a, self.b = fn, a, b

    def run(self, f: Frame) -> Any:
        return self.fn(self.a.run(f), self.b.run(f))


def compare_node(build: Build, reads: Reads, op: str, left: Op, right: Op) -> Node:
    fn = _COMPARE[op]
    read, read_b = _slot_read(reads, left), _frame_read(reads, right)
    if read is not None and right[0] == "slot":
        return _CompareReadSlot(fn, read[0], read[1], right[1])
    if read is not None and read_b is not None:
        return _CompareReadFrame(fn, read[0], read[1], read_b)
    if right[0] == "const":
        return _CompareConst(fn, build(left), right[1])
    return _Compare(fn, build(left), build(right))


class _ContainsSlotRead(Node):
    """The common `t in served(p)`: one node instead of three."""

    __slots__ = ("i", "get", "j", "negated")

    def __init__(self, i: int, get: Callable[[Any], Any], j: int, negated: bool) -> None:
        self.i, self.get, self.j, self.negated = i, get, j, negated

    def run(self, f: Frame) -> Any:
        slots = f.slots
        if self.negated:
            return slots[self.i] not in self.get(slots[self.j])
        return slots[self.i] in self.get(slots[self.j])


class _ContainsConst(Node):
    __slots__ = ("c", "coll", "negated")

    def __init__(self, c: Any, coll: Node, negated: bool) -> None:
        self.c, self.coll, self.negated = c, coll, negated

    def run(self, f: Frame) -> Any:
        if self.negated:
            return self.c not in self.coll.run(f)
        return self.c in self.coll.run(f)


class _Contains(Node):
    __slots__ = ("a", "coll", "negated")

    def __init__(self, a: Node, coll: Node, negated: bool) -> None:
        self.a, self.coll, self.negated = a, coll, negated

    def run(self, f: Frame) -> Any:
        if self.negated:
            return self.a.run(f) not in self.coll.run(f)
        return self.a.run(f) in self.coll.run(f)


def contains_node(build: Build, reads: Reads, item: Op, collection: Op, negated: bool) -> Node:
    read = _slot_read(reads, collection)
    if item[0] == "slot" and read is not None:
        return _ContainsSlotRead(item[1], read[0], read[1], negated)
    if item[0] == "const":
        return _ContainsConst(item[1], build(collection), negated)
    return _Contains(build(item), build(collection), negated)


def _slot_read(reads: Reads, op: Op) -> tuple[Callable[[Any], Any], int] | None:
    """For a call of an attribute-reading function on a variable: the reader and the variable's slot."""
    match op:
        case ("call", name, (("slot", i),)):
            path = reads(name)
            return (attrgetter(path), i) if path is not None else None
    return None


def _frame_read(reads: Reads, op: Op) -> Callable[[Any], Any] | None:
    """For a call of an attribute-reading function without arguments: its reader, which takes the frame."""
    match op:
        case ("call", name, ()):
            path = reads(name)
            return attrgetter(path) if path is not None else None
    return None


class _And(Node):
    __slots__ = ("a", "b")

    def __init__(self, a: Node, b: Node) -> None:
        self.a, self.b = a, b

    def run(self, f: Frame) -> Any:
        return bool(self.a.run(f) and self.b.run(f))


class _Or(Node):
    __slots__ = ("a", "b")

    def __init__(self, a: Node, b: Node) -> None:
        self.a, self.b = a, b

    def run(self, f: Frame) -> Any:
        return bool(self.a.run(f) or self.b.run(f))


class _Not(Node):
    __slots__ = ("a",)

    def __init__(self, a: Node) -> None:
        self.a = a

    def run(self, f: Frame) -> Any:
        return not self.a.run(f)


def and_node(build: Build, left: Op, right: Op) -> Node:
    return _And(build(left), build(right))


def or_node(build: Build, left: Op, right: Op) -> Node:
    return _Or(build(left), build(right))


def not_node(build: Build, operand: Op) -> Node:
    return _Not(build(operand))


class _TextSlot(Node):
    """e.g. "best {t} course" """

    __slots__ = ("before", "i", "after")

    def __init__(self, before: str, i: int, after: str) -> None:
        self.before, self.i, self.after = before, i, after

    def run(self, f: Frame) -> Any:
        return self.before + str(f.slots[self.i]) + self.after


class _Text1(Node):
    __slots__ = ("before", "one", "after")

    def __init__(self, before: str, one: Node, after: str) -> None:
        self.before, self.one, self.after = before, one, after

    def run(self, f: Frame) -> Any:
        return self.before + str(self.one.run(f)) + self.after


class _Text(Node):
    __slots__ = ("first", "shown", "rest")

    def __init__(self, first: str, shown: list[Node], rest: list[str]) -> None:
        self.first, self.shown, self.rest = first, shown, rest

    def run(self, f: Frame) -> Any:
        out = self.first
        rest = self.rest
        for k, part in enumerate(self.shown):
            out += str(part.run(f)) + rest[k]
        return out


def text_node(build: Build, parts: tuple[Op, ...]) -> Node:
    # The fixed parts joined once; a run adds each shown value between them. str(v) is what
    # a "{}" format field gives for every value shown (numbers, names, players, shown lists),
    # without a format string to parse on every run.
    fixed = [""]
    variables: list[Op] = []
    for p in parts:
        if p[0] == "const":
            fixed[-1] += show(p[1])
        else:
            variables.append(p)
            fixed.append("")
    if not variables:
        return _Const(fixed[0])
    if len(variables) == 1:
        before, after = fixed
        if variables[0][0] == "slot":
            return _TextSlot(before, variables[0][1], after)
        return _Text1(before, build(variables[0]), after)
    return _Text(fixed[0], [build(p) for p in variables], fixed[1:])


class _Shown(Node):
    __slots__ = ("a",)

    def __init__(self, a: Node) -> None:
        self.a = a

    def run(self, f: Frame) -> Any:
        v = self.a.run(f)
        if type(v) is tuple:  # showing a list walks it: each item is a step
            charge(f, len(v))
        return show(v)


def shown_node(build: Build, value: Op) -> Node:
    return _Shown(build(value))


class _CountAll(Node):
    __slots__ = ("src",)

    def __init__(self, src: Node) -> None:
        self.src = src

    def run(self, f: Frame) -> Any:
        return len(spend(f, self.src.run(f)))


class _EachAll(Node):
    __slots__ = ("src",)

    def __init__(self, src: Node) -> None:
        self.src = src

    def run(self, f: Frame) -> Any:
        return tuple(spend(f, self.src.run(f)))


class _Values(Node):
    """sum, max, min and each over a source: the values of the element, then their reduction."""

    __slots__ = ("src", "elem", "cond", "slot", "cost", "reduce")

    def __init__(
        self, src: Node, elem: Node, cond: Node | None, slot: int, cost: int, reduce: Callable[[list[Any]], Any]
    ) -> None:
        self.src, self.elem, self.cond, self.slot, self.cost, self.reduce = src, elem, cond, slot, cost, reduce

    def run(self, f: Frame) -> Any:
        slots, slot, elem, cond = f.slots, self.slot, self.elem, self.cond
        out = []
        if cond is None:
            for item in spend(f, self.src.run(f), self.cost):
                slots[slot] = item
                out.append(elem.run(f))
        else:
            for item in spend(f, self.src.run(f), self.cost):
                slots[slot] = item
                if cond.run(f):
                    out.append(elem.run(f))
        return self.reduce(out)


def _cost(element: Op, condition: Op | None) -> int:
    """What an aggregate charges per item: itself, its element and its condition."""
    return 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)


def values_node(reduce: Callable[[list[Any]], Any]) -> Callable[..., Node]:
    """The builder of an aggregate of the element's values (sum, max, min): their reduction."""

    def make(build: Build, agg: Any, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
        src, elem = build(source), build(element)
        cond = build(condition) if condition is not None else None
        return _Values(src, elem, cond, slot, _cost(element, condition), reduce)

    return make


def sum_of(values: list[Any]) -> Any:
    return bounded(sum(values))


def max_of(values: list[Any]) -> Any:
    return max(values, default=0)


def min_of(values: list[Any]) -> Any:
    return min(values, default=0)


def count_node(build: Build, agg: Any, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
    src = build(source)
    if condition is None:
        return _CountAll(src)
    return _Count(src, build(condition), slot, _cost(element, condition))


def each_node(build: Build, agg: Any, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
    src, elem = build(source), build(element)
    cond = build(condition) if condition is not None else None
    if cond is None and element == ("slot", slot):
        return _EachAll(src)
    return _Values(src, elem, cond, slot, _cost(element, condition), tuple)


def decide_node(wanted: bool) -> Callable[..., Node]:
    """The builder of any (``wanted``: True) or all (False): they stop at the answer."""

    def make(build: Build, agg: Any, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
        src, elem = build(source), build(element)
        cond = build(condition) if condition is not None else None
        return _Decide(src, elem, cond, slot, _cost(element, condition), wanted)

    return make


def ranked_node(highest: bool) -> Callable[..., Node]:
    """The builder of highest (``highest``: True) or lowest (False)."""

    def make(build: Build, agg: Any, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
        return _Ranked(_ranking(build, highest, source, element, condition, slot))

    return make


class _Count(Node):
    """count with a condition: no list of values."""

    __slots__ = ("src", "cond", "slot", "cost")

    def __init__(self, src: Node, cond: Node | None, slot: int, cost: int) -> None:
        self.src, self.cond, self.slot, self.cost = src, cond, slot, cost

    def run(self, f: Frame) -> Any:
        slots, slot, cond, n = f.slots, self.slot, self.cond, 0
        for item in spend(f, self.src.run(f), self.cost):
            slots[slot] = item
            if cond is None or cond.run(f):
                n += 1
        return n


class _Decide(Node):
    """any and all: they stop at the answer."""

    __slots__ = ("src", "elem", "cond", "slot", "cost", "wanted")

    def __init__(self, src: Node, elem: Node, cond: Node | None, slot: int, cost: int, wanted: bool) -> None:
        self.src, self.elem, self.cond, self.slot, self.cost = src, elem, cond, slot, cost
        self.wanted = wanted  # the element value that decides: any stops at a true one, all at a false one

    def run(self, f: Frame) -> Any:
        slots, slot, elem, cond, wanted = f.slots, self.slot, self.elem, self.cond, self.wanted
        for item in spend(f, self.src.run(f), self.cost):
            slots[slot] = item
            if (cond is None or cond.run(f)) and bool(elem.run(f)) is wanted:
                return wanted
        return not wanted


class _Ranking:
    """highest or lowest: the items that share the highest (lowest) number, and that number
    (None when no item was found)."""

    __slots__ = ("src", "elem", "cond", "slot", "cost", "highest")

    def __init__(self, src: Node, elem: Node, cond: Node | None, slot: int, cost: int, highest: bool) -> None:
        self.src, self.elem, self.cond, self.slot, self.cost, self.highest = src, elem, cond, slot, cost, highest

    def top(self, f: Frame) -> tuple[list[Any], int | None]:
        slots, slot, elem, cond, highest = f.slots, self.slot, self.elem, self.cond, self.highest
        found = False
        best = 0  # typed: the compiled build compares machine integers (the element is a number)
        top: list[Any] = []
        for item in spend(f, self.src.run(f), self.cost):
            slots[slot] = item
            if cond is not None and not cond.run(f):
                continue
            v: int = elem.run(f)
            if not found or (v > best if highest else v < best):
                found, best, top = True, v, [item]
            elif v == best:
                top.append(item)
        return top, (best if found else None)


def _ranking(build: Build, highest: bool, source: Op, element: Op, condition: Op | None, slot: int) -> _Ranking:
    cost = _cost(element, condition)  # per item
    cond = build(condition) if condition is not None else None
    return _Ranking(build(source), build(element), cond, slot, cost, highest)


class _Ranked(Node):
    """A highest or lowest as a value: a list of the items that knows their number."""

    __slots__ = ("ranking",)

    def __init__(self, ranking: _Ranking) -> None:
        self.ranking = ranking

    def run(self, f: Frame) -> Any:
        top, value = self.ranking.top(f)
        result = Ranked(top)
        result.value = value
        return result


# statements


class _Pass(Node):
    __slots__ = ()

    def run(self, f: Frame) -> Any:
        return None


class _Seq2(Node):
    __slots__ = ("a", "b")

    def __init__(self, a: Node, b: Node) -> None:
        self.a, self.b = a, b

    def run(self, f: Frame) -> Any:
        self.a.run(f)
        self.b.run(f)
        return None


class _Seq(Node):
    __slots__ = ("steps",)

    def __init__(self, steps: list[Node]) -> None:
        self.steps = steps

    def run(self, f: Frame) -> Any:
        for step in self.steps:
            step.run(f)
        return None


def seq_node(build: Build, steps: tuple[Op, ...]) -> Node:
    nodes = [build(s) for s in steps]
    if not nodes:
        return _Pass()
    if len(nodes) == 1:
        return nodes[0]
    if len(nodes) == 2:
        return _Seq2(nodes[0], nodes[1])
    return _Seq(nodes)


class _Let(Node):
    __slots__ = ("slot", "a")

    def __init__(self, slot: int, a: Node) -> None:
        self.slot, self.a = slot, a

    def run(self, f: Frame) -> Any:
        f.slots[self.slot] = self.a.run(f)
        return None


def let_node(build: Build, slot: int, value: Op) -> Node:
    return _Let(slot, build(value))


class _For(Node):
    __slots__ = ("slot", "src", "body", "cost")

    def __init__(self, slot: int, src: Node, body: Node, cost: int) -> None:
        self.slot, self.src, self.body, self.cost = slot, src, body, cost

    def run(self, f: Frame) -> Any:
        slots, slot, body = f.slots, self.slot, self.body
        for item in spend(f, self.src.run(f), self.cost):
            slots[slot] = item
            body.run(f)
        return None


def for_node(build: Build, slot: int, source: Op, body: Op) -> Node:
    # per item: the loop itself and its body's statements
    return _For(slot, build(source), build(body), 1 + steps_of(body))


class _When(Node):
    __slots__ = ("cond", "yes")

    def __init__(self, cond: Node, yes: Node) -> None:
        self.cond, self.yes = cond, yes

    def run(self, f: Frame) -> Any:
        if self.cond.run(f):
            self.yes.run(f)
        return None


class _Branch(Node):
    __slots__ = ("cond", "yes", "no")

    def __init__(self, cond: Node, yes: Node, no: Node) -> None:
        self.cond, self.yes, self.no = cond, yes, no

    def run(self, f: Frame) -> Any:
        if self.cond.run(f):
            self.yes.run(f)
        else:
            self.no.run(f)
        return None


def if_node(build: Build, condition: Op, then: Op, orelse: Op | None) -> Node:
    if orelse is None:
        return _When(build(condition), build(then))
    return _Branch(build(condition), build(then), build(orelse))


class _Modify(Node):
    # Recorded, not written: the hook point applies its changes in layers when it ends (changes.py).
    __slots__ = ("change", "how", "fn", "args", "amount")

    def __init__(self, change: type[Change], how: str, fn: Function, args: list[Node], amount: Node) -> None:
        self.change, self.how, self.fn, self.args, self.amount = change, how, fn, args, amount

    def run(self, f: Frame) -> Any:
        args = tuple([a.run(f) for a in self.args])
        f.game.changes.append(self.change(self.how, self.fn, args, bounded(self.amount.run(f)), f))
        return None


def modify_node(build: Build, fn: Function, how: str, args: tuple[Op, ...], value: Op) -> Node:
    assert fn.setter is not None
    amount = build(value)
    return _Modify(Change, how, fn, [build(a) for a in args], amount)


class _AwardRanked(Node):
    """Awarded to a highest (or lowest) straight away: its items and number, without making
    the list value that knows its number (see _Ranked)."""

    __slots__ = ("fixed", "stars_of", "ranking", "why_of")

    def __init__(self, fixed: int | None, stars_of: Node, ranking: _Ranking, why_of: Node | None) -> None:
        self.fixed, self.stars_of, self.ranking, self.why_of = fixed, stars_of, ranking, why_of

    def run(self, f: Frame) -> Any:
        fixed = self.fixed
        stars: int = fixed if fixed is not None else self.stars_of.run(f)
        if stars <= 0:
            return None
        top, value = self.ranking.top(f)
        if _shares(f, top):
            _give(f, tuple(top), stars, self.why_of, value)
        return None


class _Award(Node):
    __slots__ = ("fixed", "stars_of", "who_of", "why_of")

    def __init__(self, fixed: int | None, stars_of: Node, who_of: Node, why_of: Node | None) -> None:
        self.fixed, self.stars_of, self.who_of, self.why_of = fixed, stars_of, who_of, why_of

    def run(self, f: Frame) -> Any:
        fixed = self.fixed
        stars: int = fixed if fixed is not None else self.stars_of.run(f)
        if stars <= 0:
            return None
        who = self.who_of.run(f)
        players: tuple[Any, ...]
        if type(who) is Ranked:
            if not _shares(f, who):
                return None
            players, value = who, who.value
        elif type(who) is tuple:
            if not who:
                return None
            players, value = who, None
        else:
            players, value = (who,), None
        _give(f, players, stars, self.why_of, value)
        return None


def award_node(build: Build, amount: Op, target: Op, reason: Op | None) -> Node:
    stars_of = build(amount)
    why_of = build(reason) if reason is not None else None
    fixed = amount[1] if amount[0] == "const" else None  # most awards are of a fixed number of stars
    who_of = build(target)
    if type(who_of) is _Ranked:  # to a highest (or lowest): its items and number, without the list value
        return _AwardRanked(fixed, stars_of, who_of.ranking, why_of)
    return _Award(fixed, stars_of, who_of, why_of)


def _shares(f: Frame, top: Sequence[Any]) -> bool:
    """Whether the award to a highest (or lowest) goes to ``top``: someone, and a tie only when
    the rules in force say a tie shares it."""
    if not top:
        return False
    if len(top) == 1:
        return True
    params = f.game.params  # (the award statement's reads_params)
    by_stage = params.get("friendly_ties_by_stage")  # a ruleset may declare none: then friendly_ties rules
    if by_stage:
        own = by_stage.get(f.stage)
        if own is not None:
            return bool(own)
    return bool(params["friendly_ties"])


def _give(f: Frame, players: tuple[Any, ...], stars: int, why_of: Node | None, value: int | None) -> None:
    game = f.game
    game.steps += len(players)  # bounded by the awards' own limit, so no check of the budget here
    if len(game.awards) + len(players) > MAX_AWARDS:
        raise EvaluationError(too_many_awards(f))
    game.award_all(f.stage, f.card, players, stars, why_of.run(f) if why_of is not None else f.card.name, value)

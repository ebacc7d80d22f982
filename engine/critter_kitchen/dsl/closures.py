"""The nodes scoring runs, built from a checked effect program.

The compiler (``compiler.py``) checks a syntax tree and writes the program out as nested
tuples of plain data, its *ops*: ``("call", "quality", (("slot", 0), ("const", "fish")))``.
:func:`build` turns ops into a tree of small :class:`Node` objects, one per op, each with
a ``run(frame)`` method; scoring only ever runs those. Ops can be pickled, so the pack
cache keeps them and a cached ruleset needs neither the parser nor the type checker. This
module imports nothing heavy for the same reason.

Ops name registry functions, never Python: a card's text cannot reach anything but the
registry and the game state handed to a node in its :class:`Frame`.

Nodes rather than nested closures: the compiled build makes the classes native, so a node
running its child is a direct call, where a closure calling a closure went through
Python's generic call. Common shapes get nodes of their own (a registry call whose
arguments are variables or constants, a comparison with a constant, an aggregate without
a condition): each saves a node run per step, and most effects are made of those shapes.
tests/test_stage_speed.py scores every game again with each op built into the one plain
node of its kind.
"""

from __future__ import annotations

from operator import add, attrgetter, eq, ge, gt, le, lt, mul, ne, sub

from ..errors import EvaluationError
from ..interpreted import Ranked
from .budget import MAX_AWARDS, charge, spend, too_many_awards
from .registry import FUNCTIONS, STARS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Final

    from ..model.game import Game, Player
    from ..model.ruleset import Card
    from .changes import Change
    from .registry import Function

    Fn = Callable[["Frame"], Any]
    Op = tuple[Any, ...]
    # steps, sees_cards, params_read, state_read, state_written (see derived_from)
    Derived = tuple[int, bool, frozenset[str], frozenset[str], frozenset[str]]

# Final: the compiled build then uses the number itself, not a lookup in the module.
MAX_INT: Final = 10**12  # arithmetic results are kept within this bound


class Frame:
    """What a running effect sees: the game, its card, its stage, its owner, its variables.

    Typed, not ``Any``: the compiled build then reads these attributes (and the game's)
    directly rather than by name.
    """

    __slots__ = ("game", "card", "stage", "owner", "slots")

    def __init__(self, game: Game, card: Card, stage: str, owner: Player | None, size: int) -> None:
        self.game = game
        self.card = card
        self.stage = stage
        self.owner = owner
        self.slots: list[Any] = [None] * size


class Compiled:
    """A checked program: its ops, the variable slots it needs, its type, and its nodes."""

    __slots__ = (
        "ops",
        "slots",
        "type",
        "node",
        "run",
        "steps",
        "sees_cards",
        "params_read",
        "state_read",
        "state_written",
    )

    def __init__(self, ops: Op, slots: int, type: str, built: bool = True, derived: Derived | None = None) -> None:
        self.ops = ops
        self.slots = slots
        self.type = type
        # Read from the cache, a program's nodes are built when it first runs: a game runs
        # the programs of its cards in play only, and building them all was half the time
        # of reading the cache entry on a cold ``score``.
        self.node: Node | None = build(ops) if built else None
        self.run: Fn = self.node if self.node is not None else self._first_run
        # What walking the ops tells, stored with the ops in the cache (a sealed entry of this
        # engine's files, so it is what derived_from(ops) gives): walking every program again
        # was two thirds of the time of reading the entry on a cold ``score``.
        steps, sees_cards, params_read, state_read, written = derived if derived is not None else derived_from(ops)
        self.steps = steps  # what one run costs outside its loops and aggregates
        # What it reads beyond its arguments, for rescoring: whether it asks which cards are in
        # play, and the rule parameters it reads (it runs again when either changes).
        self.sees_cards = sees_cards
        self.params_read = params_read
        # And what of the game's state (registry.STATE) it reads and writes: rescoring replays a
        # hook point, instead of running it, when its programs read nothing the removal changed.
        self.state_read = state_read
        self.state_written = written

    def derived(self) -> Derived:
        """What :func:`derived_from` gave for this program's ops."""
        return self.steps, self.sees_cards, self.params_read, self.state_read, self.state_written

    def __reduce__(self) -> tuple[Any, ...]:
        # the nodes are built again when first run
        return Compiled, (self.ops, self.slots, self.type, False, self.derived())

    def execute(self, frame: Frame) -> Any:
        """What ``run(frame)`` does; the compiled build calls the built node directly."""
        node = self.node
        if node is None:
            return self._first_run(frame)
        return node.run(frame)

    def _first_run(self, frame: Frame) -> Any:
        """Build the node, keep it as ``node`` and ``run``, and run it (a caller may hold this
        method from before: it builds only once)."""
        node = self.node
        if node is None:  # not built yet
            node = self.node = build(self.ops)
            self.run = node
        return node.run(frame)


def derived_from(ops: Op) -> Derived:
    """A program's steps, whether it sees the cards in play, the rule parameters and the
    game state it reads, and the state it writes: everything :class:`Compiled` learns by
    walking its ops."""
    called = functions_called(ops)
    return (
        steps_of(ops),
        any(FUNCTIONS[name].sees_cards for name in called),
        frozenset(parameters_read(ops)) | {p for name in called for p in FUNCTIONS[name].reads_params},
        frozenset(s for name in called for s in FUNCTIONS[name].reads_state),
        frozenset(state_written(ops)),
    )


def build(op: Op) -> Node:
    """The node that runs ``op``."""
    return _BUILDERS[op[0]](*op[1:])


def op_parts(op: Any) -> list[tuple[Any, ...]]:
    """Every non-empty tuple inside ``op``, ``op`` itself included: the ops a walk of it meets."""
    found: list[tuple[Any, ...]] = []
    todo = [op]
    while todo:
        part = todo.pop()
        if type(part) is tuple and part:
            found.append(part)
            todo.extend(part)
    return found


def functions_called(op: Any) -> set[str]:
    """The names of the registry functions ``op`` calls, anywhere inside it."""
    return {
        part[1]
        for part in op_parts(op)
        if len(part) == 3 and part[0] == "call" and type(part[1]) is str and part[1] in FUNCTIONS
    }


AWARD_READS = ("friendly_ties",)  # what an award statement reads of the rules (see _award)


def parameters_read(op: Any) -> set[str]:
    """The rule parameters ``op`` reads itself: its ``param`` ops, and what its statements read."""
    found: set[str] = set()
    for part in op_parts(op):
        if part[0] == "param" and len(part) == 2 and type(part[1]) is str:
            found.add(part[1])
        elif part[0] == "award":
            found.update(AWARD_READS)
    return found


def state_written(op: Any) -> set[str]:
    """What of the game's state ``op`` changes: stars by its award statements, a settable
    quantity by its set, add and multiply statements (the setter writes what the function reads)."""
    found: set[str] = set()
    for part in op_parts(op):
        if part[0] == "award":
            found.add(STARS)
        elif part[0] == "modify" and len(part) == 5 and type(part[1]) is str and part[1] in FUNCTIONS:
            found.update(FUNCTIONS[part[1]].reads_state)
    return found


def bounded(x: int) -> int:
    return MAX_INT if x > MAX_INT else -MAX_INT if x < -MAX_INT else x


def steps_of(op: Op) -> int:
    """The steps one run of ``op`` takes outside the bodies of its loops and aggregates.

    Those bodies are charged per item when the loop runs; of two branches, the larger counts.
    """
    kind = op[0]
    if kind in ("const", "slot", "param"):
        return 1
    if kind == "for":  # ("for", slot, source, body)
        return 1 + steps_of(op[2])
    if kind == "agg":  # ("agg", func, source, element, condition, slot)
        return 1 + steps_of(op[2])
    if kind == "if":  # ("if", condition, then, orelse)
        return 1 + steps_of(op[1]) + max(steps_of(op[2]), steps_of(op[3]) if op[3] is not None else 0)
    return 1 + sum(_parts_steps_of(part) for part in op[1:])


def _parts_steps_of(part: Any) -> int:
    """Steps of an op's field: an op, a tuple of ops, or plain data (free)."""
    if type(part) is not tuple or not part:
        return 0
    if type(part[0]) is str:
        return steps_of(part) if part[0] in _BUILDERS else 0
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


def _const(value: Any) -> Node:
    return _Const(value)


def _slot(i: int) -> Node:
    return _Slot(i)


def _param(name: str) -> Node:
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


def _call(name: str, args: tuple[Op, ...]) -> Node:
    fn = FUNCTIONS[name]
    if fn.reads is not None:
        return _read(fn.reads, args)
    impl = fn.impl
    if not args:
        return _Call0(impl)
    kinds = tuple(a[0] if a[0] in ("slot", "const") else "fn" for a in args)
    if len(args) == 1:
        return _call1(impl, kinds[0], args[0])
    if len(args) == 2:
        return _call2(impl, kinds, args)
    return _CallN(impl, [build(a) for a in args])


def _read(path: str, args: tuple[Op, ...]) -> Node:
    """A function that reads an attribute path of its argument, or of the frame."""
    get = attrgetter(path)
    if not args:
        return _Call0(get)
    (arg,) = args
    if arg[0] == "slot":
        return _ReadSlot(get, arg[1])
    return _Read(get, build(arg))


def _call1(impl: Callable[..., Any], kind: str, arg: Op) -> Node:
    if kind == "slot":
        return _Call1Slot(impl, arg[1])
    if kind == "const":
        return _Call1Const(impl, arg[1])
    return _Call1(impl, build(arg))


def _call2(impl: Callable[..., Any], kinds: tuple[str, ...], args: tuple[Op, ...]) -> Node:
    (k0, k1), (x0, x1) = kinds, args
    if k0 == "slot" and k1 == "slot":
        return _Call2SlotSlot(impl, x0[1], x1[1])
    if k0 == "slot" and k1 == "const":
        return _Call2SlotConst(impl, x0[1], x1[1])
    if k1 == "const":
        return _Call2Const(impl, build(x0), x1[1])
    if x1[0] == "param":
        return _Call2Param(impl, build(x0), x1[1])
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


def _arith(op: str, left: Op, right: Op) -> Node:
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


def _neg(operand: Op) -> Node:
    return _Neg(build(operand))


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


def _compare(op: str, left: Op, right: Op) -> Node:
    fn = _COMPARE[op]
    read, read_b = _slot_read(left), _frame_read(right)
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


def _contains(item: Op, collection: Op, negated: bool) -> Node:
    read = _slot_read(collection)
    if item[0] == "slot" and read is not None:
        return _ContainsSlotRead(item[1], read[0], read[1], negated)
    if item[0] == "const":
        return _ContainsConst(item[1], build(collection), negated)
    return _Contains(build(item), build(collection), negated)


def _slot_read(op: Op) -> tuple[Callable[[Any], Any], int] | None:
    """For a call of an attribute-reading function on a variable: the reader and the variable's slot."""
    reads = FUNCTIONS[op[1]].reads if op[0] == "call" else None
    if reads is None or not _is_slot_call(op):
        return None
    return attrgetter(reads), op[2][0][1]


def _frame_read(op: Op) -> Callable[[Any], Any] | None:
    """For a call of an attribute-reading function without arguments: its reader, which takes the frame."""
    reads = FUNCTIONS[op[1]].reads if op[0] == "call" and not op[2] else None
    return attrgetter(reads) if reads is not None else None


def _is_slot_call(op: Op) -> bool:
    """Whether ``op`` calls a registry function with one argument that is a variable."""
    return len(op[2]) == 1 and op[2][0][0] == "slot"


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


def _and(left: Op, right: Op) -> Node:
    return _And(build(left), build(right))


def _or(left: Op, right: Op) -> Node:
    return _Or(build(left), build(right))


def _not(operand: Op) -> Node:
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


def _text(parts: tuple[Op, ...]) -> Node:
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


def _shown(value: Op) -> Node:
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


def _aggregate(func: str, source: Op, element: Op, condition: Op | None, slot: int) -> Node:
    if func in ("highest", "lowest"):
        return _Ranked(_ranking(func, source, element, condition, slot))
    src, elem = build(source), build(element)
    cond = build(condition) if condition is not None else None
    cost = 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)  # per item
    if func == "count" and cond is None:
        return _CountAll(src)
    if func == "each" and cond is None and element == ("slot", slot):
        return _EachAll(src)
    if func == "count":
        return _Count(src, cond, slot, cost)
    if func in ("any", "all"):
        return _Decide(src, elem, cond, slot, cost, func == "any")
    return _Values(src, elem, cond, slot, cost, _REDUCERS[func])


_REDUCERS: dict[str, Callable[[list[Any]], Any]] = {
    "sum": lambda v: bounded(sum(v)),
    "max": lambda v: max(v, default=0),
    "min": lambda v: min(v, default=0),
    "each": tuple,
}


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


def _ranking(func: str, source: Op, element: Op, condition: Op | None, slot: int) -> _Ranking:
    cost = 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)  # per item
    cond = build(condition) if condition is not None else None
    return _Ranking(build(source), build(element), cond, slot, cost, func == "highest")


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


def _seq(steps: tuple[Op, ...]) -> Node:
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


def _let(slot: int, value: Op) -> Node:
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


def _for(slot: int, source: Op, body: Op) -> Node:
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


def _if(condition: Op, then: Op, orelse: Op | None) -> Node:
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


def _modify(name: str, how: str, args: tuple[Op, ...], value: Op) -> Node:
    from .changes import Change  # (changes.py imports this module)

    fn = FUNCTIONS[name]
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


def _award(amount: Op, target: Op, reason: Op | None) -> Node:
    stars_of = build(amount)
    why_of = build(reason) if reason is not None else None
    fixed = amount[1] if amount[0] == "const" else None  # most awards are of a fixed number of stars
    if target[0] == "agg" and target[1] in ("highest", "lowest"):
        return _AwardRanked(fixed, stars_of, _ranking(*target[1:]), why_of)
    return _Award(fixed, stars_of, build(target), why_of)


def _shares(f: Frame, top: Sequence[Any]) -> bool:
    """Whether the award to a highest (or lowest) goes to ``top``: someone, and a tie only when
    the rules in force say a tie shares it."""
    if not top:
        return False
    return len(top) == 1 or bool(f.game.params["friendly_ties"])  # (in AWARD_READS)


def _give(f: Frame, players: tuple[Any, ...], stars: int, why_of: Node | None, value: int | None) -> None:
    game = f.game
    game.steps += len(players)  # bounded by the awards' own limit, so no check of the budget here
    if len(game.awards) + len(players) > MAX_AWARDS:
        raise EvaluationError(too_many_awards(f))
    game.award_all(f.stage, f.card, players, stars, why_of.run(f) if why_of is not None else f.card.name, value)


_BUILDERS: dict[str, Callable[..., Node]] = {
    "const": _const,
    "slot": _slot,
    "param": _param,
    "call": _call,
    "agg": _aggregate,
    "arith": _arith,
    "neg": _neg,
    "cmp": _compare,
    "in": _contains,
    "and": _and,
    "or": _or,
    "not": _not,
    "text": _text,
    "show": _shown,
    "seq": _seq,
    "let": _let,
    "for": _for,
    "if": _if,
    "modify": _modify,
    "award": _award,
}

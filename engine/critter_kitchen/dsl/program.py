"""A checked effect program (:class:`Compiled`): its ops, what they tell of it, and its nodes.

The compiler writes a program out as ops (``run_nodes.py`` says what they are); the facts
a program's ops tell (what one run costs, the registry functions it calls, the rule
parameters and the game state it reads, the state it writes) are worked out here, once,
into the :class:`Compiled` that holds them, and :func:`build` builds its nodes: the
registry's entries build the nodes of calls, aggregates and statements, ``run_nodes``
those of the rest.
"""

from __future__ import annotations

from . import run_nodes as nodes
from .registry import AGGREGATES, FUNCTIONS, STARS, STATEMENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .facts import ProgramFacts
    from .frame import Frame
    from .run_nodes import Node

    Fn = Callable[[Frame], Any]
    Op = tuple[Any, ...]
    # steps, sees_cards, params_read, state_read, state_written (see derived_from)
    Derived = tuple[int, bool, frozenset[str], frozenset[str], frozenset[str]]


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
        "facts",
    )

    def __init__(
        self,
        ops: Op,
        slots: int,
        type: str,
        built: bool = True,
        derived: Derived | None = None,
        facts: ProgramFacts | None = None,
    ) -> None:
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
        # What the program's syntax tree tells the meal planner (dsl/facts.py), told by the
        # compiler; None for an expression (a tie-break), which the planner never reads.
        self.facts = facts

    def derived(self) -> Derived:
        """What :func:`derived_from` gave for this program's ops."""
        return self.steps, self.sees_cards, self.params_read, self.state_read, self.state_written

    def __reduce__(self) -> tuple[Any, ...]:
        # the nodes are built again when first run
        return Compiled, (self.ops, self.slots, self.type, False, self.derived(), self.facts)

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
        nodes.steps_of(ops),
        any(FUNCTIONS[name].sees_cards for name in called),
        frozenset(parameters_read(ops)) | {p for name in called for p in FUNCTIONS[name].reads_params},
        frozenset(s for name in called for s in FUNCTIONS[name].reads_state),
        frozenset(state_written(ops)),
    )


def build(op: Op) -> Node:
    """The node that runs ``op``."""
    match op:
        case ("call", name, args):
            fn = FUNCTIONS[name]
            return fn.build(build, fn, args)  # type: ignore[no-any-return]
        case ("agg", func, source, element, condition, slot):
            agg = AGGREGATES[func]
            return agg.build(build, agg, source, element, condition, slot)  # type: ignore[no-any-return]
        case ("modify", name, how, args, value):  # set, add or multiply
            return STATEMENTS[how].build(build, FUNCTIONS[name], how, args, value)  # type: ignore[no-any-return]
        case ("award", amount, target, reason):
            return STATEMENTS["award"].build(build, amount, target, reason)  # type: ignore[no-any-return]
        case ("let", slot, value):
            return STATEMENTS["let"].build(build, slot, value)  # type: ignore[no-any-return]
        case ("for", slot, source, body):
            return STATEMENTS["for"].build(build, slot, source, body)  # type: ignore[no-any-return]
        case ("if", condition, then, orelse):
            return STATEMENTS["if"].build(build, condition, then, orelse)  # type: ignore[no-any-return]
        case ("seq", steps):
            return nodes.seq_node(build, steps)
        case ("const", value):
            return nodes.const_node(build, value)
        case ("slot", i):
            return nodes.slot_node(build, i)
        case ("param", name):
            return nodes.param_node(build, name)
        case ("param_of", name, arg, of_meal):
            return nodes.param_of_node(build, name, arg, of_meal)
        case ("arith", operator, left, right):
            return nodes.arith_node(build, operator, left, right)
        case ("neg", operand):
            return nodes.neg_node(build, operand)
        case ("list", items):
            return nodes.list_node(build, items)
        case ("cmp", operator, left, right):
            return nodes.compare_node(build, _reads, operator, left, right)
        case ("in", item, collection, negated):
            return nodes.contains_node(build, _reads, item, collection, negated)
        case ("and", left, right):
            return nodes.and_node(build, left, right)
        case ("or", left, right):
            return nodes.or_node(build, left, right)
        case ("not", operand):
            return nodes.not_node(build, operand)
        case ("text", parts):
            return nodes.text_node(build, parts)
        case ("show", value):
            return nodes.shown_node(build, value)
    raise ValueError(f"not an op: {op!r}")


def _reads(name: str) -> str | None:
    """The attribute path a registry function reads, if it is one that reads one."""
    fn = FUNCTIONS.get(name)
    return fn.reads if fn is not None else None


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
    found: set[str] = set()
    for part in op_parts(op):
        match part:
            case ("call", str(name), _) if name in FUNCTIONS:
                found.add(name)
    return found


def parameters_read(op: Any) -> set[str]:
    """The rule parameters ``op`` reads itself: its ``param`` ops, and what its statements read."""
    found: set[str] = set()
    for part in op_parts(op):
        match part:
            case ("param", str(name)) | ("param_of", str(name), _, _):
                found.add(name)
            case ("award", _, _, _):
                found.update(STATEMENTS["award"].reads_params)
    return found


def state_written(op: Any) -> set[str]:
    """What of the game's state ``op`` changes: stars by its award statements, a settable
    quantity by its set, add and multiply statements (the setter writes what the function reads)."""
    found: set[str] = set()
    for part in op_parts(op):
        match part:
            case ("award", _, _, _):
                found.add(STARS)
            case ("modify", str(name), _, _, _) if name in FUNCTIONS:
                found.update(FUNCTIONS[name].reads_state)
    return found

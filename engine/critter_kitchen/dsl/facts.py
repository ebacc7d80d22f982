"""What a program's syntax tree tells the meal planner, worked out once when the program is compiled.

The compiler stores these facts in the :class:`~.program.Compiled` it makes (and so in the
pack cache), as plain data: the planner reads them from there (``plan/reads.py`` and
``plan/critic_reads.py`` say what it proves with them) and never walks a program again.
They are told from the syntax tree, not from the ops: the tree names every function as
written (a function called with no arguments, the target of ``set``, ``add`` or
``multiply``), which is what the planner's proofs read.

A program's facts, as :func:`facts_of` gives them (a tuple, so the cache stores only plain data):

0. ``calls``: the functions it calls (calls and aggregates), anywhere.
1. ``bound``: the names it binds (``let``, loop and comprehension variables).
2. ``changes``: whether it holds a ``set``, ``add`` or ``multiply`` statement.
3. ``separable``: whether its meal loops are separable (see :func:`separable_body`).
4. ``seen_calls``: the functions called by the parts a game of one player can see (see
   :func:`seen_nodes`).
5. ``stage_stars``: the stage each ``stage_stars`` call seen names, None for one whose
   stage is not a plain text of two arguments.
6. ``quality_reads``: for each ``quality(P, X)`` seen (but the target of an ``add`` of a
   number of at least 0), the name ``X`` is, None when ``X`` is not a name.
"""

from __future__ import annotations

from . import nodes as n
from .registry import RANKING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    # calls, bound, changes, separable, seen_calls, stage_stars, quality_reads (see the module)
    ProgramFacts = tuple[
        frozenset[str], frozenset[str], bool, bool, frozenset[str], frozenset[str | None], frozenset[str | None]
    ]

MEAL_SOURCES = ("meals", "meals_for")  # the functions that give meals to a program


def facts_of(tree: n.Program) -> ProgramFacts:
    """What ``tree`` tells the planner (see the module)."""
    calls: set[str] = set()
    bound: set[str] = set()
    changes = False
    for node in n.walk(tree):
        if isinstance(node, n.Call | n.Comprehension):
            calls.add(node.func)
        if isinstance(node, n.Let):
            bound.add(node.name)
        elif isinstance(node, n.For | n.Comprehension):
            bound.add(node.var)
        if isinstance(node, n.Modify):
            changes = True
    seen = tuple(seen_nodes(tree, alone="players" not in bound))
    stage_stars: set[str | None] = set()
    added = {id(x.target) for x in seen if isinstance(x, n.Modify) and adds_at_least_0(x)}
    quality_reads: set[str | None] = set()
    for x in seen:
        if not isinstance(x, n.Call):
            continue
        if x.func == "stage_stars":
            stage_stars.add(_stage_named(x))
        elif x.func == "quality" and id(x) not in added:
            kind = x.args[1] if len(x.args) == 2 else None
            quality_reads.add(kind.name if isinstance(kind, n.Name) else None)
    return (
        frozenset(calls),
        frozenset(bound),
        changes,
        separable_body(tree.body),
        frozenset(x.func for x in seen if isinstance(x, n.Call | n.Comprehension)),
        frozenset(stage_stars),
        frozenset(quality_reads),
    )


def _stage_named(call: n.Call) -> str | None:
    """The stage ``stage_stars(p, "S")`` names, None when it is not a plain text."""
    if len(call.args) != 2 or not isinstance(call.args[1], n.Text) or not call.args[1].parts:
        return None
    if not all(isinstance(part, str) for part in call.args[1].parts):
        return None
    return "".join(str(part) for part in call.args[1].parts)


def _anyone_alone(target: object) -> bool:
    """``highest(X for p in players if C)`` or ``lowest(...)``: the only player when ``C`` holds."""
    return (
        isinstance(target, n.Comprehension)
        and target.func in RANKING
        and (
            (isinstance(target.source, n.Name) and target.source.name == "players")
            or (isinstance(target.source, n.Call) and target.source.func == "players" and not target.source.args)
        )
    )


def seen_nodes(node: object, *, alone: bool) -> Iterator[n.Node]:
    """The nodes below ``node`` (itself included) whose values a game of one player can see:
    all but the ``X`` of an award to ``highest(X for p in players if C)`` or ``lowest`` (when
    ``alone``: ``players`` names every player throughout, the program binding no such name)."""
    if isinstance(node, tuple):
        for item in node:
            yield from seen_nodes(item, alone=alone)
    elif isinstance(node, n.Node):
        if alone and isinstance(node, n.Award) and _anyone_alone(node.target):
            assert isinstance(node.target, n.Comprehension)
            yield from seen_nodes((node.amount, node.reason, node.target.condition), alone=alone)
            return
        yield node
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from seen_nodes(getattr(node, name), alone=alone)


def adds_at_least_0(modify: n.Modify) -> bool:
    """``add N to quality(...)`` with ``N`` a number of at least 0: the 0 floor is never met."""
    return modify.op == "add" and isinstance(modify.value, n.Number) and modify.value.value >= 0


def _reads_meals(node: object) -> bool:
    return any(isinstance(x, n.Call | n.Comprehension) and x.func in MEAL_SOURCES for x in n.walk(node))


def separable_body(body: tuple[n.Stmt, ...]) -> bool:
    """Statements outside any meal loop: each meal loop (``for m in meals(r)`` or ``meals_for``)
    must read no other meal and change nothing, and everything else must be meal-free: then
    what the program awards for a set of meals is the sum of what it awards for each alone."""
    for stmt in body:
        if isinstance(stmt, n.For):
            if isinstance(stmt.source, n.Call) and stmt.source.func in MEAL_SOURCES:
                if _reads_meals(stmt.source.args) or not _per_meal_ok(stmt.body):
                    return False
            elif _reads_meals(stmt.source) or not separable_body(stmt.body):
                return False
        elif isinstance(stmt, n.If):
            if _reads_meals(stmt.condition) or not (separable_body(stmt.then) and separable_body(stmt.orelse)):
                return False
        elif isinstance(stmt, n.Let):
            if _reads_meals(stmt.value):
                return False
        elif isinstance(stmt, n.Award):
            if _reads_meals(stmt.amount) or _reads_meals(stmt.target):
                return False
        elif isinstance(stmt, n.Modify):
            if _reads_meals(stmt.target) or _reads_meals(stmt.value):
                return False
        elif not isinstance(stmt, n.Pass):
            return False  # a statement this proof does not know
    return True


def _per_meal_ok(body: tuple[n.Stmt, ...]) -> bool:
    """A meal loop's body: it reads no other meal and changes nothing (its awards add up)."""
    for node in n.walk(body):
        if isinstance(node, n.Modify):
            return False
        if isinstance(node, n.Call | n.Comprehension) and node.func in MEAL_SOURCES:
            return False
    return True

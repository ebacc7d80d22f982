"""Plain Python closures built from a checked effect program.

The compiler (``compiler.py``) checks a syntax tree and writes the program out as nested
tuples of plain data, its *ops*: ``("call", "quality", (("slot", 0), ("const", "fish")))``.
:func:`build` turns ops into closures; scoring only ever calls those closures. Ops can
be pickled, so the pack cache keeps them and a cached ruleset needs neither the parser
nor the type checker. This module imports nothing heavy for the same reason.

Ops name registry functions, never Python: a card's text cannot reach anything but the
registry and the game state handed to a closure in its :class:`Frame`.

Common shapes get closures of their own (a registry call whose arguments are variables
or constants, a comparison with a constant, an aggregate without a condition): each
saves a closure call per step, and most effects are made of those shapes.
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

    Fn = Callable[["Frame"], Any]
    Ranking = Callable[["Frame"], tuple[list[Any], int | None]]
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
    """A checked program: its ops, the variable slots it needs, its type, and its closure."""

    __slots__ = ("ops", "slots", "type", "run", "steps", "sees_cards", "params_read", "state_read", "state_written")

    def __init__(self, ops: Op, slots: int, type: str, built: bool = True, derived: Derived | None = None) -> None:
        self.ops = ops
        self.slots = slots
        self.type = type
        # Read from the cache, a program's closure is built when it first runs: a game runs
        # the programs of its cards in play only, and building them all was half the time
        # of reading the cache entry on a cold ``score``.
        self.run: Fn = build(ops) if built else self._first_run
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
        # the closure is rebuilt when first run
        return Compiled, (self.ops, self.slots, self.type, False, self.derived())

    def _first_run(self, frame: Frame) -> Any:
        """Build the closure, keep it as ``run``, and run it (a caller may hold this method
        from before: it builds only once)."""
        run = self.run
        if getattr(run, "__self__", None) is self:  # not built yet
            run = self.run = build(self.ops)
        return run(frame)


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


def build(op: Op) -> Fn:
    """The closure that runs ``op``."""
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


# expressions


def _const(value: Any) -> Fn:
    return lambda f: value


def _slot(i: int) -> Fn:
    return lambda f: f.slots[i]


def _param(name: str) -> Fn:
    return lambda f: f.game.params[name]


def _call(name: str, args: tuple[Op, ...]) -> Fn:
    fn = FUNCTIONS[name]
    if fn.reads is not None:
        return _read(fn.reads, args)
    impl = fn.impl
    if not args:
        return impl
    kinds = tuple(a[0] if a[0] in ("slot", "const") else "fn" for a in args)
    if len(args) == 1:
        return _call1(impl, kinds[0], args[0])
    if len(args) == 2:
        return _call2(impl, kinds, args)
    fns = [build(a) for a in args]
    return lambda f: impl(f, *[a(f) for a in fns])


def _read(path: str, args: tuple[Op, ...]) -> Fn:
    """A function that reads an attribute path of its argument, or of the frame."""
    get = attrgetter(path)
    if not args:
        return get
    (arg,) = args
    if arg[0] == "slot":
        i = arg[1]
        return lambda f: get(f.slots[i])
    a = build(arg)
    return lambda f: get(a(f))


def _call1(impl: Callable[..., Any], kind: str, arg: Op) -> Fn:
    if kind == "slot":
        i = arg[1]
        return lambda f: impl(f, f.slots[i])
    if kind == "const":
        c = arg[1]
        return lambda f: impl(f, c)
    a = build(arg)
    return lambda f: impl(f, a(f))


def _call2(impl: Callable[..., Any], kinds: tuple[str, ...], args: tuple[Op, ...]) -> Fn:
    (k0, k1), (x0, x1) = kinds, args
    if k0 == "slot" and k1 == "slot":
        i, j = x0[1], x1[1]
        return lambda f: impl(f, f.slots[i], f.slots[j])
    if k0 == "slot" and k1 == "const":
        i, c = x0[1], x1[1]
        return lambda f: impl(f, f.slots[i], c)
    a0, a1 = build(x0), build(x1)
    if k1 == "const":
        c = x1[1]
        return lambda f: impl(f, a0(f), c)
    if x1[0] == "param":  # e.g. band(meal_quality(m), challenge_bands)
        name = x1[1]
        return lambda f: impl(f, a0(f), f.game.params[name])
    return lambda f: impl(f, a0(f), a1(f))


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": add,
    "-": sub,
    "*": mul,
    "//": lambda a, b: a // b if b else 0,
    "%": lambda a, b: a % b if b else 0,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {"==": eq, "!=": ne, "<": lt, "<=": le, ">": gt, ">=": ge}


def _arith(op: str, left: Op, right: Op) -> Fn:
    fn, a, b = _ARITH[op], build(left), build(right)
    if right[0] == "const":
        c = right[1]

        def with_constant(f: Frame) -> int:
            x = fn(a(f), c)
            return x if -MAX_INT <= x <= MAX_INT else bounded(x)

        return with_constant
    if right[0] == "param":
        name = right[1]

        def with_parameter(f: Frame) -> int:
            x = fn(a(f), f.game.params[name])
            return x if -MAX_INT <= x <= MAX_INT else bounded(x)

        return with_parameter

    def arith(f: Frame) -> int:
        x = fn(a(f), b(f))
        return x if -MAX_INT <= x <= MAX_INT else bounded(x)

    return arith


def _neg(operand: Op) -> Fn:
    a = build(operand)
    return lambda f: -a(f)


def _compare(op: str, left: Op, right: Op) -> Fn:
    fn, a, b = _COMPARE[op], build(left), build(right)
    read, read_b = _slot_read(left), _frame_read(right)
    if read is not None and right[0] == "slot":  # e.g. player_of(m) == p
        (get, i), j = read, right[1]
        return lambda f: fn(get(f.slots[i]), f.slots[j])
    if read is not None and read_b is not None:  # e.g. player_of(m) == owner
        (get, i), get_b = read, read_b
        return lambda f: fn(get(f.slots[i]), get_b(f))
    if right[0] == "const":
        c = right[1]
        return lambda f: fn(a(f), c)
    return lambda f: fn(a(f), b(f))


def _contains(item: Op, collection: Op, negated: bool) -> Fn:
    read = _slot_read(collection)
    if item[0] == "slot" and read is not None:
        # the common `t in served(p)`: one closure instead of three
        (get, j), i = read, item[1]
        if negated:
            return lambda f: f.slots[i] not in get(f.slots[j])
        return lambda f: f.slots[i] in get(f.slots[j])
    a, coll = build(item), build(collection)
    if item[0] == "const":
        c = item[1]
        if negated:
            return lambda f: c not in coll(f)
        return lambda f: c in coll(f)
    if negated:
        return lambda f: a(f) not in coll(f)
    return lambda f: a(f) in coll(f)


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


def _and(left: Op, right: Op) -> Fn:
    a, b = build(left), build(right)
    return lambda f: bool(a(f) and b(f))


def _or(left: Op, right: Op) -> Fn:
    a, b = build(left), build(right)
    return lambda f: bool(a(f) or b(f))


def _not(operand: Op) -> Fn:
    a = build(operand)
    return lambda f: not a(f)


def _text(parts: tuple[Op, ...]) -> Fn:
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
        return _const(fixed[0])
    if len(variables) == 1:
        before, after = fixed
        if variables[0][0] == "slot":  # e.g. "best {t} course"
            i = variables[0][1]
            return lambda f: before + str(f.slots[i]) + after
        one = build(variables[0])
        return lambda f: before + str(one(f)) + after
    shown = [build(p) for p in variables]
    rest = fixed[1:]

    def text(f: Frame) -> str:
        out = fixed[0]
        for k, part in enumerate(shown):
            out += str(part(f)) + rest[k]
        return out

    return text


def _shown(value: Op) -> Fn:
    fn = build(value)

    def shown(f: Frame) -> str:
        v = fn(f)
        if type(v) is tuple:  # showing a list walks it: each item is a step
            charge(f, len(v))
        return show(v)

    return shown


def _aggregate(func: str, source: Op, element: Op, condition: Op | None, slot: int) -> Fn:
    if func in ("highest", "lowest"):
        return _ranked(_ranking(func, source, element, condition, slot))
    src, elem = build(source), build(element)
    cond = build(condition) if condition is not None else None
    cost = 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)  # per item
    if func == "count" and cond is None:
        return lambda f: len(spend(f, src(f)))
    if func == "each" and cond is None and element == ("slot", slot):
        return lambda f: tuple(spend(f, src(f)))
    if func in ("count", "any", "all"):
        return _counting(func, src, elem, cond, slot, cost)

    def values(f: Frame) -> list[Any]:
        slots = f.slots
        out = []
        if cond is None:
            for item in spend(f, src(f), cost):
                slots[slot] = item
                out.append(elem(f))
        else:
            for item in spend(f, src(f), cost):
                slots[slot] = item
                if cond(f):
                    out.append(elem(f))
        return out

    reduce: Callable[[list[Any]], Any] = _REDUCERS[func]
    return lambda f: reduce(values(f))


_REDUCERS: dict[str, Callable[[list[Any]], Any]] = {
    "sum": lambda v: bounded(sum(v)),
    "max": lambda v: max(v, default=0),
    "min": lambda v: min(v, default=0),
    "each": tuple,
}


def _counting(func: str, src: Fn, elem: Fn, cond: Fn | None, slot: int, cost: int) -> Fn:
    """count with a condition, any and all: no list of values, and any/all stop at the answer."""
    if func == "count":

        def count(f: Frame) -> int:
            slots, n = f.slots, 0
            for item in spend(f, src(f), cost):
                slots[slot] = item
                if cond is None or cond(f):
                    n += 1
            return n

        return count
    wanted = func == "any"  # the element value that decides: any stops at a true one, all at a false one

    def decide(f: Frame) -> bool:
        slots = f.slots
        for item in spend(f, src(f), cost):
            slots[slot] = item
            if (cond is None or cond(f)) and bool(elem(f)) is wanted:
                return wanted
        return not wanted

    return decide


def _ranking(func: str, source: Op, element: Op, condition: Op | None, slot: int) -> Ranking:
    """highest or lowest: the items that share the highest (lowest) number, and that number
    (None when no item was found)."""
    src, elem = build(source), build(element)
    cond = build(condition) if condition is not None else None
    cost = 1 + steps_of(element) + (steps_of(condition) if condition is not None else 0)  # per item
    highest = func == "highest"

    def ranking(f: Frame) -> tuple[list[Any], int | None]:
        slots = f.slots
        found = False
        best = 0  # typed: the compiled build compares machine integers (the element is a number)
        top: list[Any] = []
        for item in spend(f, src(f), cost):
            slots[slot] = item
            if cond is not None and not cond(f):
                continue
            v: int = elem(f)
            if not found or (v > best if highest else v < best):
                found, best, top = True, v, [item]
            elif v == best:
                top.append(item)
        return top, (best if found else None)

    return ranking


def _ranked(ranking: Ranking) -> Fn:
    """A highest or lowest as a value: a list of the items that knows their number."""

    def ranked(f: Frame) -> Ranked:
        top, value = ranking(f)
        result = Ranked(top)
        result.value = value
        return result

    return ranked


# statements


def _seq(steps: tuple[Op, ...]) -> Fn:
    fns = tuple(build(s) for s in steps)
    if not fns:
        return lambda f: None
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        a, b = fns
        return lambda f: (a(f), b(f))

    def run(f: Frame) -> None:
        for step in fns:
            step(f)

    return run


def _let(slot: int, value: Op) -> Fn:
    fn = build(value)

    def let(f: Frame) -> None:
        f.slots[slot] = fn(f)

    return let


def _for(slot: int, source: Op, body: Op) -> Fn:
    src, run = build(source), build(body)
    cost = 1 + steps_of(body)  # per item: the loop itself and its body's statements

    def loop(f: Frame) -> None:
        slots = f.slots
        for item in spend(f, src(f), cost):
            slots[slot] = item
            run(f)

    return loop


def _if(condition: Op, then: Op, orelse: Op | None) -> Fn:
    cond, yes = build(condition), build(then)
    if orelse is None:

        def when(f: Frame) -> None:
            if cond(f):
                yes(f)

        return when
    no = build(orelse)

    def branch(f: Frame) -> None:
        if cond(f):
            yes(f)
        else:
            no(f)

    return branch


def _modify(name: str, how: str, args: tuple[Op, ...], value: Op) -> Fn:
    # Recorded, not written: the hook point applies its changes in layers when it ends (changes.py).
    from .changes import Change

    fn = FUNCTIONS[name]
    assert fn.setter is not None
    amount, fns = build(value), [build(a) for a in args]

    def modify(f: Frame) -> None:
        f.game.changes.append(Change(how, fn, tuple([a(f) for a in fns]), bounded(amount(f)), f))

    return modify


def _award(amount: Op, target: Op, reason: Op | None) -> Fn:
    stars_of = build(amount)
    why_of = build(reason) if reason is not None else None
    fixed = amount[1] if amount[0] == "const" else None  # most awards are of a fixed number of stars
    if target[0] == "agg" and target[1] in ("highest", "lowest"):
        # Awarded to a highest (or lowest) straight away: its items and number, without
        # making the list value that knows its number (see _ranked)
        ranking = _ranking(*target[1:])

        def award_ranked(f: Frame) -> None:
            stars: int = fixed if fixed is not None else stars_of(f)
            if stars <= 0:
                return
            top, value = ranking(f)
            if _shares(f, top):
                _give(f, tuple(top), stars, why_of, value)

        return award_ranked
    who_of = build(target)

    def award(f: Frame) -> None:
        stars: int = fixed if fixed is not None else stars_of(f)
        if stars <= 0:
            return
        who = who_of(f)
        players: tuple[Any, ...]
        if type(who) is Ranked:
            if not _shares(f, who):
                return
            players, value = who, who.value
        elif type(who) is tuple:
            if not who:
                return
            players, value = who, None
        else:
            players, value = (who,), None
        _give(f, players, stars, why_of, value)

    return award


def _shares(f: Frame, top: Sequence[Any]) -> bool:
    """Whether the award to a highest (or lowest) goes to ``top``: someone, and a tie only when
    the rules in force say a tie shares it."""
    if not top:
        return False
    return len(top) == 1 or bool(f.game.params["friendly_ties"])  # (in AWARD_READS)


def _give(f: Frame, players: tuple[Any, ...], stars: int, why_of: Fn | None, value: int | None) -> None:
    game = f.game
    game.steps += len(players)  # bounded by the awards' own limit, so no check of the budget here
    if len(game.awards) + len(players) > MAX_AWARDS:
        raise EvaluationError(too_many_awards(f))
    game.award_all(f, players, stars, why_of(f) if why_of is not None else f.card.name, value)


_BUILDERS: dict[str, Callable[..., Fn]] = {
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

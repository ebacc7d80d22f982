"""What the scoring programs in play can see of a critic meal, proved from their syntax trees.

The effect language sees a player's critic meal only through the functions that take a
player (``quality``, ``value``, ``spiced``, ``course_spices``, ``served``,
``total_quality``, ``tokens``, ``token_value``; ``stars``, ``stage_stars``, ``counter`` and
``priority`` read nothing of the meal itself). So two critic meals that agree on what the
functions called in play read of each course, and on the tokens kept where those are read,
are scored alike in every game: a meal matters only through its *signature*. A function
taking a player that is not known here makes each course's signature the whole course.

The critic meal is planned for the player alone, so ``award ... to highest(X for p in
players if C)`` (or ``lowest``; ``C`` may be left out) goes to that player when ``C`` holds,
whatever ``X`` is: what such an ``X`` reads is not seen (what ``C`` reads is).

A course's quality is seen *only in sums* (:func:`summed_types`) when nothing reads it but
``total_quality`` (and the critic quality, the tie-break) and nothing changes it but an
``add`` of a number of at least 0: then every later quality of that course is its quality
served plus what was added, which the rest of the signature decides, and the critic meal
matters only through the rest of the signature and the sum of those courses' qualities.
"""

from __future__ import annotations

from ..dsl import nodes as n
from ..dsl import types as t
from ..dsl.registry import FUNCTIONS, RANKING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from ..model.game import Course

    CourseSignature = tuple[Any, ...]

# Functions taking a player that see nothing of the critic meal served or the tokens kept.
MEAL_BLIND = ("stars", "stage_stars", "counter", "priority")
# What each function reading the critic meal sees of one course (served and total_quality
# see whether it is served and its quality, which every signature holds).
COURSE_PARTS = ("quality", "value", "spiced", "course_spices", "served", "total_quality")
TOKEN_READERS = ("tokens", "token_value")


def called(trees: Iterable[object]) -> set[str]:
    """The functions called in ``trees`` whose values a game of one player can see."""
    found: set[str] = set()
    for tree in trees:
        found |= _seen(tree)[1]
    return found


# What is worked out of each program, by (what, the program's identity), the program kept so
# that its id is not reused. Programs live as long as their ruleset; plans ask again and again.
_KNOWN: dict[tuple[str, int], tuple[object, Any]] = {}
_KNOWN_KEPT = 8192


def _remember(what: str, tree: object, work: Callable[[object], Any]) -> Any:
    """``work(tree)``, worked out once for each program."""
    found = _KNOWN.get((what, id(tree)))
    if found is None or found[0] is not tree:
        if len(_KNOWN) >= _KNOWN_KEPT:
            _KNOWN.clear()
        found = _KNOWN[(what, id(tree))] = (tree, work(tree))
    return found[1]


def _seen(tree: object) -> tuple[tuple[n.Node, ...], frozenset[str]]:
    """The nodes of ``tree`` whose values a game of one player can see, and the functions they call."""
    return _remember("seen", tree, _work_seen)  # type: ignore[no-any-return]


def _work_seen(tree: object) -> tuple[tuple[n.Node, ...], frozenset[str]]:
    nodes = tuple(_seen_nodes(tree, alone=not _binds_players(tree)))
    return nodes, frozenset(x.func for x in nodes if isinstance(x, n.Call | n.Comprehension))


def _binds_players(tree: object) -> bool:
    """Whether ``players`` may name something else than every player somewhere in ``tree``."""
    return any(
        (isinstance(x, n.Let) and x.name == "players")
        or (isinstance(x, n.For | n.Comprehension) and x.var == "players")
        for x in n.walk(tree)
    )


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


def player_functions() -> frozenset[str]:
    """The functions of the effect language that take a player (or a list of players)."""
    global _PLAYER_FUNCTIONS
    if _PLAYER_FUNCTIONS is None:
        _PLAYER_FUNCTIONS = frozenset(
            name for name, fn in FUNCTIONS.items() if any(t.PLAYER in kind for _, kind in fn.params)
        )
    return _PLAYER_FUNCTIONS


_PLAYER_FUNCTIONS: frozenset[str] | None = None  # the registry is filled at import and never changes


def _whole(course: Course) -> CourseSignature:
    return (course.type, course.value, course.spices, course.token, course.quality)


def course_signature(trees: list[n.Program]) -> Callable[[Course], CourseSignature]:
    """A function giving what the programs in play can read of one served course.

    The quality is always part of it: the critic quality breaks ties between plans.
    """
    used = called(trees) & player_functions()
    if used - set(MEAL_BLIND) - set(COURSE_PARTS) - set(TOKEN_READERS):
        return _whole  # a function this proof does not know
    value, spiced, spices = "value" in used, "spiced" in used, "course_spices" in used

    def signature(course: Course) -> CourseSignature:
        return (
            course.quality,
            course.value if value else None,
            bool(course.spices) if spiced else None,
            course.spices if spices else None,
        )

    return signature


def reads_kept_tokens(trees: list[n.Program]) -> bool:
    """Whether any program in play can see the tokens a player kept for the critic meal."""
    used = called(trees) & player_functions()
    return bool(used & set(TOKEN_READERS)) or bool(used - set(MEAL_BLIND) - set(COURSE_PARTS))


def tokens_apart(trees: list[n.Program], stages: dict[str, list[n.Program]] | None = None) -> bool:
    """Whether the stars for the tokens kept add to those for the courses served.

    True when no program reads a player's stars, every function taking a player is known
    here, and no program reads both the critic meal and the tokens kept: then each
    program's awards depend on the courses alone or on the tokens alone (nothing sets the
    tokens kept; only course qualities are changed, and only by programs reading no tokens).

    ``stages``: each stage's programs, whose awards are its stars (its body, or the card
    replacing it, and the effects hooked before and after it). A program reading
    ``stage_stars(p, "S")`` for a stage named in the text is taken to read the courses when
    every program of ``S`` reads no tokens and no stars: those stars depend on the courses alone.
    """
    known = set(MEAL_BLIND) | set(COURSE_PARTS) | set(TOKEN_READERS)
    for tree in trees:
        used = called([tree]) & player_functions()
        if used - known or "stars" in used:
            return False
        if "stage_stars" in used:
            if not _course_stage_stars(tree, stages or {}):
                return False
            used = used | {"served"}
        if used & set(COURSE_PARTS) and used & set(TOKEN_READERS):
            return False
    return True


def _course_stage_stars(tree: n.Program, stages: dict[str, list[n.Program]]) -> bool:
    """Whether every ``stage_stars`` that ``tree`` can see names a stage whose programs read
    the courses at most: no tokens, no stars, no function taking a player not known here."""
    known = set(MEAL_BLIND) | set(COURSE_PARTS)
    calls = [x for x in _seen(tree)[0] if isinstance(x, n.Call)]
    for call in calls:
        if call.func != "stage_stars":
            continue
        if len(call.args) != 2 or not isinstance(call.args[1], n.Text) or not call.args[1].parts:
            return False
        if not all(isinstance(part, str) for part in call.args[1].parts):
            return False
        name = "".join(str(part) for part in call.args[1].parts)
        if name not in stages:
            return False
        used = called(stages[name]) & player_functions()
        if used - known or used & {"stars", "stage_stars"}:
            return False
    return True


def _seen_nodes(node: object, *, alone: bool) -> Iterator[n.Node]:
    """The nodes below ``node`` (itself included) whose values a game of one player can see:
    all but the ``X`` of an award to ``highest(X for p in players if C)`` or ``lowest``."""
    if isinstance(node, tuple):
        for item in node:
            yield from _seen_nodes(item, alone=alone)
    elif isinstance(node, n.Node):
        if alone and isinstance(node, n.Award) and _anyone_alone(node.target):
            assert isinstance(node.target, n.Comprehension)
            yield from _seen_nodes((node.amount, node.reason, node.target.condition), alone=alone)
            return
        yield node
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from _seen_nodes(getattr(node, name), alone=alone)


def summed_types(trees: list[n.Program], course_types: Iterable[str], other_names: Iterable[str]) -> frozenset[str]:
    """The course types whose quality the programs in play see only in sums (see the module).

    Every read of ``quality(P, X)`` (not in an award's ``X`` above, unseen) and every change
    of it but ``add N`` with ``N`` a number of at least 0 takes type ``X`` out of the sum,
    and every type when ``X`` is not a type's name (a loop's variable, say). ``other_names``:
    names that mean something else than a type (the rules' parameters). None is summed when
    a function taking a player is not known here.
    """
    kinds = frozenset(course_types)
    used = called(trees) & player_functions()
    if used - set(MEAL_BLIND) - set(COURSE_PARTS) - set(TOKEN_READERS):
        return frozenset()
    apart: set[str] = set()
    others = set(other_names)
    for tree in trees:
        seen = _seen(tree)[0]
        added = {id(x.target) for x in seen if isinstance(x, n.Modify) and _adds_at_least_0(x)}
        bound = _bound_names(tree) | others
        for call in seen:
            if not isinstance(call, n.Call) or call.func != "quality" or id(call) in added:
                continue
            kind = call.args[1] if len(call.args) == 2 else None
            if not isinstance(kind, n.Name) or kind.name not in kinds or kind.name in bound:
                return frozenset()  # not one type's name: it may be any course
            apart.add(kind.name)
    return kinds - apart


def _adds_at_least_0(modify: n.Modify) -> bool:
    """``add N to quality(...)`` with ``N`` a number of at least 0: the 0 floor is never met."""
    return modify.op == "add" and isinstance(modify.value, n.Number) and modify.value.value >= 0


def _bound_names(tree: object) -> frozenset[str]:
    """The names ``tree`` binds (loop and comprehension variables, ``let``; remembered per program)."""
    return _remember("bound", tree, _work_bound)  # type: ignore[no-any-return]


def _work_bound(tree: object) -> frozenset[str]:
    found: set[str] = set()
    for x in n.walk(tree):
        if isinstance(x, n.Let):
            found.add(x.name)
        elif isinstance(x, n.For | n.Comprehension):
            found.add(x.var)
    return frozenset(found)


def first_sum_reader(points: list[list[n.Program]]) -> int:
    """The first hook point (by index in ``points``, each a list of its programs) at which a
    program can see ``total_quality``: before it, the game goes as the rest of the meal's
    signature says whatever the qualities of the courses seen only in sums."""
    for index, trees in enumerate(points):
        if "total_quality" in called(trees):
            return index
    return len(points)


def sum_only(points: list[list[n.Program]]) -> bool:
    """Whether these programs see a player only through ``total_quality`` and change nothing:
    what they award a player then depends on the critic quality alone (a one-player game)."""
    for trees in points:
        for tree in trees:
            if _seen(tree)[1] & (player_functions() - {"total_quality"}):
                return False
            if _changes(tree):
                return False
    return True


def first_course_reader(points: list[list[n.Program]]) -> int:
    """The first hook point (as for :func:`first_sum_reader`) at which a program can see more
    of the critic meal than which courses are served, or changes anything: before it, the
    game goes as the courses served and the tokens kept say."""
    blind = set(MEAL_BLIND) | {"served"} | set(TOKEN_READERS)
    for index, trees in enumerate(points):
        if called(trees) & (player_functions() - blind):
            return index
        if any(_changes(tree) for tree in trees):
            return index
    return len(points)


def _changes(tree: object) -> bool:
    """Whether ``tree`` holds a ``set``, ``add`` or ``multiply`` statement (remembered per program)."""
    return _remember("changes", tree, lambda x: any(isinstance(y, n.Modify) for y in n.walk(x)))  # type: ignore[no-any-return]

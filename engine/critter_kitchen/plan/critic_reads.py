"""What the scoring programs in play can see of a critic meal, proved from their syntax trees.

The effect language sees a player's critic meal only through the functions that take a
player (``quality``, ``value``, ``spiced``, ``course_spices``, ``served``,
``total_quality``, ``tokens``, ``token_value``; ``stars``, ``stage_stars``, ``counter`` and
``priority`` read nothing of the meal itself). So two critic meals that agree on what the
functions called in play read of each course, and on the tokens kept where those are read,
are scored alike in every game: a meal matters only through its *signature*. A function
taking a player that is not known here makes each course's signature the whole course.

The critic meal is planned for the player alone, so ``award ... to highest(X for p in
players)`` (or ``lowest``, with no ``if``) goes to that player whatever ``X`` is: what such
an ``X`` reads is not seen.
"""

from __future__ import annotations

from ..dsl import nodes as n
from ..dsl import types as t
from ..dsl.registry import FUNCTIONS

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
        found |= set(_seen_calls(tree, alone=not _binds_players(tree)))
    return found


def _binds_players(tree: object) -> bool:
    """Whether ``players`` may name something else than every player somewhere in ``tree``."""
    return any(
        (isinstance(x, n.Let) and x.name == "players")
        or (isinstance(x, n.For | n.Comprehension) and x.var == "players")
        for x in n.walk(tree)
    )


def _seen_calls(node: object, *, alone: bool) -> Iterator[str]:
    if isinstance(node, tuple):
        for item in node:
            yield from _seen_calls(item, alone=alone)
    elif isinstance(node, n.Node):
        if alone and isinstance(node, n.Award) and _anyone_alone(node.target):
            yield from _seen_calls((node.amount, node.reason), alone=alone)
            return
        if isinstance(node, n.Call | n.Comprehension):
            yield node.func
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from _seen_calls(getattr(node, name), alone=alone)


def _anyone_alone(target: object) -> bool:
    """``highest(X for p in players)`` or ``lowest(...)``, no condition: the only player, alone."""
    return (
        isinstance(target, n.Comprehension)
        and target.func in ("highest", "lowest")
        and target.condition is None
        and (
            (isinstance(target.source, n.Name) and target.source.name == "players")
            or (isinstance(target.source, n.Call) and target.source.func == "players" and not target.source.args)
        )
    )


def player_functions() -> set[str]:
    """The functions of the effect language that take a player (or a list of players)."""
    return {name for name, fn in FUNCTIONS.items() if any(t.PLAYER in kind for _, kind in fn.params)}


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


def tokens_apart(trees: list[n.Program]) -> bool:
    """Whether the stars for the tokens kept add to those for the courses served.

    True when no program reads a player's stars, every function taking a player is known
    here, and no program reads both the critic meal and the tokens kept: then each
    program's awards depend on the courses alone or on the tokens alone (nothing sets the
    tokens kept; only course qualities are changed, and only by programs reading no tokens).
    """
    known = set(MEAL_BLIND) | set(COURSE_PARTS) | set(TOKEN_READERS)
    for tree in trees:
        used = called([tree]) & player_functions()
        if used - known or used & {"stars", "stage_stars"}:
            return False
        if used & set(COURSE_PARTS) and used & set(TOKEN_READERS):
            return False
    return True

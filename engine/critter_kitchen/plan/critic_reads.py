"""What the scoring programs in play can see of a critic meal, proved from their syntax trees
(what each tree tells is told once, by the compiler: ``dsl/facts.py``).

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

from ..dsl import types as t
from ..dsl.registry import FUNCTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..model.game import Course
    from .programs import Program

    CourseSignature = tuple[Any, ...]

# Functions taking a player that see nothing of the critic meal served or the tokens kept.
MEAL_BLIND = ("stars", "stage_stars", "counter", "priority")
# What each function reading the critic meal sees of one course (served and total_quality
# see whether it is served and its quality, which every signature holds).
COURSE_PARTS = ("quality", "value", "spiced", "course_spices", "served", "total_quality")
TOKEN_READERS = ("tokens", "token_value")
# What the player left unused at the end of the game: the pantry less the meal served. No proof
# here knows them, so a program calling one makes every signature the whole meal.
LEFT_READERS = ("left_ingredients", "left_spices", "left_recorded")


def called(programs: Iterable[Program]) -> set[str]:
    """The functions called in ``programs`` whose values a game of one player can see (what each
    program's tree tells of them is told by the compiler: ``dsl/facts.seen_nodes``)."""
    found: set[str] = set()
    for program in programs:
        found |= program.seen_calls
    return found


def reads_left(programs: Iterable[Program]) -> bool:
    """Whether any program in play calls a function reading what a player left unused."""
    found: set[str] = set()
    for program in programs:
        found |= program.calls
    return bool(found & set(LEFT_READERS))


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


def course_signature(programs: list[Program]) -> Callable[[Course], CourseSignature]:
    """A function giving what the programs in play can read of one served course.

    The quality is always part of it: the critic quality breaks ties between plans.
    """
    used = called(programs) & player_functions()
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


def reads_kept_tokens(programs: list[Program]) -> bool:
    """Whether any program in play can see the tokens a player kept for the critic meal."""
    used = called(programs) & player_functions()
    return bool(used & set(TOKEN_READERS)) or bool(used - set(MEAL_BLIND) - set(COURSE_PARTS))


def tokens_apart(programs: list[Program], stages: dict[str, list[Program]] | None = None) -> bool:
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
    for program in programs:
        used = called([program]) & player_functions()
        if used - known or "stars" in used:
            return False
        if "stage_stars" in used:
            if not _course_stage_stars(program, stages or {}):
                return False
            used = used | {"served"}
        if used & set(COURSE_PARTS) and used & set(TOKEN_READERS):
            return False
    return True


def _course_stage_stars(program: Program, stages: dict[str, list[Program]]) -> bool:
    """Whether every ``stage_stars`` that ``program`` can see names a stage whose programs read
    the courses at most: no tokens, no stars, no function taking a player not known here."""
    known = set(MEAL_BLIND) | set(COURSE_PARTS)
    for name in program.stage_stars:
        if name is None or name not in stages:
            return False
        used = called(stages[name]) & player_functions()
        if used - known or used & {"stars", "stage_stars"}:
            return False
    return True


def summed_types(programs: list[Program], course_types: Iterable[str], other_names: Iterable[str]) -> frozenset[str]:
    """The course types whose quality the programs in play see only in sums (see the module).

    Every read of ``quality(P, X)`` (not in an award's ``X`` above, unseen) and every change
    of it but ``add N`` with ``N`` a number of at least 0 takes type ``X`` out of the sum,
    and every type when ``X`` is not a type's name (a loop's variable, say). ``other_names``:
    names that mean something else than a type (the rules' parameters). None is summed when
    a function taking a player is not known here.
    """
    kinds = frozenset(course_types)
    used = called(programs) & player_functions()
    if used - set(MEAL_BLIND) - set(COURSE_PARTS) - set(TOKEN_READERS):
        return frozenset()
    apart: set[str] = set()
    others = set(other_names)
    for program in programs:
        for kind in program.quality_reads:
            if kind is None or kind not in kinds or kind in program.bound or kind in others:
                return frozenset()  # not one type's name: it may be any course
            apart.add(kind)
    return kinds - apart


def first_sum_reader(points: list[list[Program]]) -> int:
    """The first hook point (by index in ``points``, each a list of its programs) at which a
    program can see ``total_quality``: before it, the game goes as the rest of the meal's
    signature says whatever the qualities of the courses seen only in sums."""
    for index, programs in enumerate(points):
        if "total_quality" in called(programs):
            return index
    return len(points)


def sum_only(points: list[list[Program]]) -> bool:
    """Whether these programs see a player only through ``total_quality`` and change nothing:
    what they award a player then depends on the critic quality alone (a one-player game)."""
    for programs in points:
        for program in programs:
            if program.seen_calls & (player_functions() - {"total_quality"}):
                return False
            if program.changes:
                return False
    return True


def first_course_reader(points: list[list[Program]]) -> int:
    """The first hook point (as for :func:`first_sum_reader`) at which a program can see more
    of the critic meal than which courses are served, or changes anything: before it, the
    game goes as the courses served and the tokens kept say."""
    blind = set(MEAL_BLIND) | {"served"} | set(TOKEN_READERS)
    for index, programs in enumerate(points):
        if called(programs) & (player_functions() - blind):
            return index
        if any(program.changes for program in programs):
            return index
    return len(points)

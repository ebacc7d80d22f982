"""The work budget of one game, so that no valid card keeps scoring busy or fills memory.

A *step* is one part of a statement evaluated (one node of its ops), one item of a loop
or an aggregate, one player awarded, or one item of a long list walked inside a function
(a list shown in a reason, the cards searched by ``in_play``, a long ``bands`` table).
A loop charges its items times the steps of its body before it runs them
(``run_nodes.steps_of``), so counting costs one addition per loop, not per statement, and
a game over the budget stops before the work is done. Real games take a few thousand
steps (``tools/bench_worst_card.py`` measures them); at the budget the costliest valid
card yet written takes a few hundred milliseconds.

Imports nothing heavy: ``score`` starts cold.
"""

from __future__ import annotations

from ..errors import EvaluationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from .frame import Frame

STEP_BUDGET: Final = 200_000  # steps all effects of one game may take together
MAX_AWARDS: Final = 10_000  # awards of one game (each is kept in memory); real games make about a hundred
FREE_WALK: Final = 10  # a function may walk this many items within its one step (a player's courses, the bands)


def spend(f: Frame, items: Any, cost: int = 1) -> Any:
    """Charge ``items``, ``cost`` steps each, to the game's budget before they run; give them back."""
    game = f.game
    game.steps += len(items) * cost
    if game.steps > STEP_BUDGET:
        raise EvaluationError(over_budget(f))
    return items


def charge(f: Frame, cost: int) -> None:
    """Charge ``cost`` steps to the game's budget."""
    game = f.game
    game.steps += cost
    if game.steps > STEP_BUDGET:
        raise EvaluationError(over_budget(f))


def _where(f: Frame) -> str:
    return f"{f.card.path}: card '{f.card.id}' at stage '{f.stage}'"


def over_budget(f: Frame) -> str:
    what = "steps (statements, loop items and awards)"
    return f"{_where(f)}: the effects of this game took more than {STEP_BUDGET:,} {what}"


def too_many_awards(f: Frame) -> str:
    return f"{_where(f)}: the effects of this game gave more than {MAX_AWARDS:,} awards"


def not_a_band(f: Frame, row: Any) -> str:
    return f"{_where(f)}: bands are [minimum, stars] pairs, not a row of {len(row)}"

"""The work budget of one plan, so that no pantry and no card keeps the planner busy.

A plan's work is counted in *steps*, as the effects of one game are (``dsl/budget.py``):
every stage run the planner does costs the steps its effects took plus ``RUN_STEPS`` for
the run itself, and the planner's own work is counted in the same unit, each part at
about its cost in time against an effect step: a meal listed and judged costs
``MEAL_STEPS``, a way of spicing an ingredient or a count of tokens tried ``ITEM_STEPS``,
a partial plan visited by a search ``ITEM_STEPS``. A stage run whose result the planner
remembers from an earlier plan at the same table is charged as if it ran again (once per
plan), so whether a plan ends within its budget never depends on what was planned before.

Listing each card's meals may spend up to ``LISTING_SHARE`` of the budget (the listing
then stops, as at the meal limit, and the meals listed are combined); past the whole
budget the search stops (:class:`OverBudget`) and the best plan found so far is the
answer, with ``"optimal": false``. A few stage runs to report that plan are allowed past
the budget (each one is held to the game's own effect budget).

What the planner remembers is bounded by entries, so that no pantry and no table makes it
keep more memory, whatever the work: each memory kept for a table (the verdicts of
check_meal, the stars of meals alone and of whole plans) is forgotten past its ``*_KEPT``
entries, and a thread keeps at most ``TABLES_KEPT`` tables, whose memories other than
the table in use hold at most ``TABLE_MEMORY_KEPT`` entries times the items of the largest
pantry planned at each (no meal remembered holds more items): the tables planned at longest
ago are forgotten first. The tables' memories only spare time: what a plan is charged (see
:meth:`Work.run`) and what it answers never depend on what they held. An exact critic plan
remembers at most ``SEARCHED_KEPT`` partial meals as searched; past that it forgets them
and may search one again, its work charged again (a critic meal of 9 ingredients remembers
about 3,000).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

PLAN_BUDGET: Final = 20_000_000  # steps one plan may take (see README "Limits and trust")
RUN_STEPS: Final = 300  # one stage run, besides its effects' steps: building the game, running each stage
MEAL_STEPS: Final = 30  # one meal listed and judged (check_meal)
ITEM_STEPS: Final = 3  # one spicing or token count tried, one partial plan visited
LISTING_SHARE: Final = 2  # listing the meals stops past 1/LISTING_SHARE of the budget
FAST_RESERVE: Final = 4  # an exact plan leaves 1/4 of its budget for the fast effort, should it run out

# What the planner remembers (see the module and README "Limits and trust"); real plans stay far below each.
TABLES_KEPT: Final = 256  # tables remembered per thread (see exact.context)
# the memories below over a thread's tables not in use, each table's entries times (1 + the items of its largest pantry)
TABLE_MEMORY_KEPT: Final = 2_000_000
CHECKS_KEPT: Final = 20_000  # check_meal's verdicts on whole meals, per table
LEGAL_KEPT: Final = 20_000  # check_meal's verdicts by counts of each type and token, per table
SINGLE_KEPT: Final = 5_000  # the stars of meals served alone, per table
PLANS_KEPT: Final = 5_000  # the stars of whole plans (the table's Scorer), per table
SEARCHED_KEPT: Final = 200_000  # partial critic meals one exact critic plan remembers as searched


class OverBudget(Exception):
    """The plan's work passed its budget: the search stops and answers with the best plan found."""


class Work:
    """The steps one plan has taken, against its budget (one per plan: never shared by two)."""

    def __init__(self, limit: int = PLAN_BUDGET) -> None:
        self.steps = 0
        self.limit = limit
        self.listing = limit // LISTING_SHARE  # listing meals stops past this
        self.over = False  # True once the budget was passed (the plan is then not proved best)
        self.finishing = False  # the search has ended: the runs that report its plan are not stopped
        self.charged: set[Any] = set()  # the remembered stage runs charged to this plan already

    def spend(self, steps: int) -> None:
        """Charge ``steps``; past the budget, stop the search (:class:`OverBudget`)."""
        self.steps += steps
        if self.steps > self.limit and not self.finishing:
            self.over = True
            raise OverBudget

    def listing_done(self) -> bool:
        """Whether listing meals has used its share of the budget (the listing then stops)."""
        if self.steps > self.listing:
            self.over = True
            return True
        return False

    def run(self, key: Any, steps: int) -> None:
        """Charge a stage run of ``steps`` effect steps, once per plan for each ``key`` (a run
        remembered by the table is charged to each plan that uses it, as if it ran again)."""
        if key in self.charged:
            return
        self.charged.add(key)
        self.spend(RUN_STEPS + steps)

    def finish(self) -> None:
        """The search has ended: the stage runs reporting its plan are let through."""
        self.finishing = True

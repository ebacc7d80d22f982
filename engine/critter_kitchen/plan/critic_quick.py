"""The fast effort's critic meal: a good meal from a bounded number of stage runs.

The exact search (:mod:`.critic`) scores every meal that differs in what the programs in play
can see, often thousands; the balance lab plans a critic meal per player per game. The fast
effort instead:

1. builds a first meal without running the stages: course by course, the change that adds
   the most course quality (a course served, a better one, a spice moved onto it) until none
   adds any, so the spices land where they count most;
2. scores it through the stages, then tries changing one course at a time (to another legal
   course of its type, or none; a course whose spice or token the change takes is served
   again with the best it can still have), the changes that keep the most quality first;
   the first one earning more (stars, then critic quality) is taken and the changes tried
   again from it; when no single change helps, two of them at once (of the ``PAIRED`` that keep
   the most quality); until none is better or ``FAST_LIMIT`` meals have been scored.

Every course is judged by :func:`critter_kitchen.check_course` and every meal's stars and
quality come from the stages; tokens not served are kept. The order of every step is fixed,
so a question gets the same meal on every run. The meal is never claimed best.
"""

from __future__ import annotations

from .critic_search import CriticSearch
from .plans import CriticPlan, tally

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..model.game import Course
    from .pantry import Question

    Use = tuple[int, ...]  # spices of each name, tokens of each name, room taken
    State = tuple[int, ...]  # per course type: the index of its choice, or -1 for none

NONE = -1
PAIRED = 12  # one-course changes (those keeping the most quality) tried two at a time
FAST_LIMIT = 60  # complete meals scored by the fast effort
GREEDY_STEPS = 64  # changes the first meal may take (each adds quality, so it ends well before)


class QuickCriticSearch(CriticSearch):
    """A critic meal by greedy construction and one-course changes, at most ``limit`` meals scored."""

    def __init__(self, question: Question, limit: int, budget: int) -> None:
        super().__init__(question, limit, budget)
        self.scores: dict[State, tuple[int, int]] = {}

    def run(self) -> None:
        ingredients = tally(self.q.ingredients)
        spices = tally(self.q.spices)
        tokens = dict(self.q.tokens)
        self.spice_names = list(spices)
        self.token_names = list(tokens)
        room = self.room if self.room is not None else sum(ingredients.values()) + len(self.q.spices)
        self.have: Use = (*spices.values(), *tokens.values(), room)
        self.kinds = list(self.params["course_types"])
        self.courses: list[list[Course]] = []
        self.uses: list[list[Use]] = []
        for kind in self.kinds:
            found = sorted(self.choices(kind, ingredients, spices, tokens), key=lambda c: -c[0].quality)
            self.courses.append([course for course, _, _ in found])
            self.uses.append([self.use_of(course, need, given) for course, need, given in found])
        self.cut = True  # never proved best
        state = self.first_meal()
        best = self.score(state)
        while best is not None:
            singles = self.changes(state)
            better = self.first_better(singles, best)
            if better is None:  # no one change helps: two changes at once, of those keeping most quality
                better = self.first_better(self.pairs(state, singles[:PAIRED]), best)
            if better is None:
                break
            state, best = better
        if best is None:  # no meal could be scored: serve none
            state, best = tuple(NONE for _ in self.kinds), (0, 0)
        self.best = (best, self.plan(state))

    def first_better(self, candidates: list[State], than: tuple[int, int]) -> tuple[State, tuple[int, int]] | None:
        """The first of ``candidates`` scoring more than ``than``; None when none does (or out of scores)."""
        for candidate in candidates:
            scored = self.score(candidate)
            if scored is None:
                return None
            if scored > than:
                return candidate, scored
        return None

    def pairs(self, state: State, singles: list[State]) -> list[State]:
        """The meals making two of the one-course changes ``singles`` of ``state`` together, most quality first."""
        found: dict[State, None] = {}
        for i, first in enumerate(singles):
            for second in singles[i + 1 :]:
                both = tuple(b if b != s else a for a, b, s in zip(first, second, state, strict=True))
                if both not in (first, second) and self.fits(both):
                    found.setdefault(both)
        return sorted(found, key=lambda s: -self.quality(s))

    def use_of(self, course: Course, need: dict[str, int], given: dict[str, int]) -> Use:
        room = 0 if course.token is not None else 1 + len(course.spices)
        return (
            *(need.get(s, 0) for s in self.spice_names),
            *(given.get(t, 0) for t in self.token_names),
            room,
        )

    def total(self, state: State) -> list[int]:
        """What the meal takes of each spice, token and room."""
        used = [0] * len(self.have)
        for k, at in enumerate(state):
            if at != NONE:
                for i, n in enumerate(self.uses[k][at]):
                    used[i] += n
        return used

    def fits(self, state: State) -> bool:
        return all(u <= h for u, h in zip(self.total(state), self.have, strict=True))

    def quality(self, state: State) -> int:
        return sum(self.courses[k][at].quality for k, at in enumerate(state) if at != NONE)

    def first_meal(self) -> State:
        """Step 1 of the module: the course changes adding the most quality, one at a time."""
        state: State = tuple(NONE for _ in self.kinds)
        for _ in range(GREEDY_STEPS):
            best, gain = state, 0
            for k in range(len(self.kinds)):
                for at in range(len(self.courses[k])):
                    candidate = self.repaired(state, k, at)
                    if candidate is not None and self.quality(candidate) - self.quality(state) > gain:
                        best, gain = candidate, self.quality(candidate) - self.quality(state)
            if gain <= 0:
                break
            state = best
        return state

    def repaired(self, state: State, k: int, at: int) -> State | None:
        """``state`` with course ``k`` changed to choice ``at``; each other course that then takes
        more than the pantry holds is changed to the best choice it can still have (or none)."""
        changed = list(state)
        changed[k] = at
        if self.fits(tuple(changed)):
            return tuple(changed)
        for j in range(len(self.kinds)):
            if j == k or changed[j] == NONE:
                continue
            over = [u > h for u, h in zip(self.total(tuple(changed)), self.have, strict=True)]
            if not any(o and n for o, n in zip(over, self.uses[j][changed[j]], strict=True)):
                continue
            changed[j] = NONE
            for other in range(len(self.courses[j])):  # best quality first
                changed[j] = other
                if self.fits_apart_from_over(tuple(changed), j):
                    break
                changed[j] = NONE
        return tuple(changed) if self.fits(tuple(changed)) else None

    def fits_apart_from_over(self, state: State, j: int) -> bool:
        """Whether course ``j`` of ``state`` takes nothing of an item the meal already takes too much of."""
        used = self.total(state)
        return all(u <= h or n == 0 for u, h, n in zip(used, self.have, self.uses[j][state[j]], strict=True))

    def changes(self, state: State) -> list[State]:
        """Every one-course change of ``state`` the pantry allows, the most quality kept first."""
        found: dict[State, None] = {}
        for k in range(len(self.kinds)):
            for at in (NONE, *range(len(self.courses[k]))):
                if at != state[k]:
                    candidate = self.repaired(state, k, at)
                    if candidate is not None and candidate != state:
                        found.setdefault(candidate)
        return sorted(found, key=lambda s: -self.quality(s))

    def score(self, state: State) -> tuple[int, int] | None:
        """(stars, critic quality) of the meal as the stages give it; None once ``limit`` meals are scored."""
        if state not in self.scores:
            if self.scored >= self.limit:
                return None
            self.scored += 1
            courses, kept = self.meal(state)
            stars, quality = self.outcome(courses, kept)
            self.scores[state] = (stars - self.baseline, quality)
        return self.scores[state]

    def meal(self, state: State) -> tuple[dict[str, Course], dict[str, int]]:
        courses = {self.kinds[k]: self.courses[k][at] for k, at in enumerate(state) if at != NONE}
        used = self.total(state)
        at = len(self.spice_names)
        kept = {t: self.have[at + i] - used[at + i] for i, t in enumerate(self.token_names)}
        return courses, kept

    def plan(self, state: State) -> CriticPlan:
        courses, kept = self.meal(state)
        return CriticPlan(self.q, courses, kept)

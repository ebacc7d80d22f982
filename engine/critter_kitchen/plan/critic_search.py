"""The critic-meal planner's plain search, which the others build on: a critic meal is one
choice per course type (an ingredient of that type with spices, a token where the rules
allow, or nothing) and the tokens kept. Each course is judged by
:func:`critter_kitchen.check_course`; each complete meal is scored by running the stages on a
game holding only this player (rivals are unknown). :class:`CriticSearch` tries every choice
and every count of kept tokens: the reference the faster searches are tested against.
"""

from __future__ import annotations

import itertools

from ..api import check_course, check_critic_meal, rule_parameters
from ..model.game import Course, Game, Ingredient, Player
from ..stages.runner import hook_tables, run_stages
from .critic_reads import reads_left
from .plans import CriticPlan, critic_left, tally
from .programs import programs
from .work import ITEM_STEPS, MEAL_STEPS, PLAN_BUDGET, OverBudget, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from ..model.game import Checkpoint
    from ..stages.runner import HookTables
    from .pantry import Question

    Counts = dict[Any, int]
    Choice = tuple[Course, dict[str, int], dict[str, int]]  # the course, spices used, tokens used

NODE_LIMIT = 200_000  # complete meals scored before the search stops and says it is not proved optimal


class CriticSearch:
    """Every critic meal: each course choice and every count of kept tokens, each scored (see the module)."""

    def __init__(self, question: Question, limit: int, budget: int = PLAN_BUDGET) -> None:
        self.q = question
        self.work = Work(budget)  # the plan's work (see .work)
        rs = question.ruleset
        self.table_params = rule_parameters(rs, question.table)
        self.params = rule_parameters(rs, question.table, question.owned)
        self.rounds = tuple(rs.parameters["challenge_rounds"].value)
        self.limit = limit
        self.best_first = False  # the fast effort: the best courses first, no course last
        self.room: int | None = None  # at most this many ingredients and spices in the meal
        self.scored = 0
        self.cut = False
        self.best: tuple[tuple[int, int], CriticPlan] | None = None
        # Whether a program in play reads what a player left unused: then each meal's game
        # holds what this meal leaves of the pantry (else nothing is computed for it).
        self.sees_left = reads_left(programs(rs, (*question.table, *question.owned)))
        self.constrained = question.constrained()  # each meal is then judged whole before it is scored
        # What every game of this search shares, made once: its player (each game serves it its
        # meal afresh) and what the stages run (hook_tables, made by the first game).
        self.player = Player(question.name, 0)
        self.player.owned = question.owned
        self.player.params = self.params  # the player's own, read by a parameter for p
        self.tables: HookTables | None = None
        self.baseline = self.outcome({}, {})[0]

    def outcome(
        self,
        courses: dict[str, Course],
        tokens: dict[str, int],
        pause: Callable[[Game, int], bool] | None = None,
        start: tuple[int, Checkpoint, list[int]] | None = None,
    ) -> tuple[int, int]:
        """This player's stars and critic quality in a game with only this critic meal
        (``pause`` and ``start`` as for ``run_stages``; ``start`` with the state to start from
        and the qualities of the courses served there)."""
        q = self.q
        player = self.player
        player.stars, player.stage_stars = 0, {}  # as a new player: scoring changes nothing else of it
        player.tokens = dict(tokens)
        order = q.ruleset.ingredient_types
        fresh = {k: Course(c.type, c.value, c.spices, c.token, c.quality) for k, c in courses.items()}
        player.serve({k: fresh[k] for k in order if k in fresh})
        if self.sees_left:
            ingredients, spices = critic_left(q.ingredients, q.spices, courses.values())
            player.leave(tuple(Ingredient(kind, value) for kind, value in ingredients), tuple(spices))
        game = Game(q.ruleset, (player,), dict(self.table_params), {r: () for r in self.rounds})
        game.challenges = {r: () for r in self.rounds}
        game.table_cards = q.table
        tables = self.tables
        if tables is None:
            tables = self.tables = hook_tables(game)
        if start is None:
            run_stages(game, "<plan>", pause=pause, tables=tables)
        else:
            point, state, qualities = start
            game.resume(state)
            for course, quality in zip(player.courses.values(), qualities, strict=True):
                course.quality = quality
            run_stages(game, "<plan>", point, pause, tables)
        self.work.run(object(), game.steps)
        return player.stars, player.critic_quality()

    def choices(self, kind: str, ingredients: Counts, spices: Counts, tokens: Counts) -> Iterator[Choice]:
        """Every legal ``kind`` course from these items."""
        limit: int = self.params["spices_per_course"]
        names = [s for s, n in spices.items() if n > 0]
        for (ing_kind, value), n in ingredients.items():
            if ing_kind != kind or n == 0:
                continue
            for size in range(limit + 1):
                for combo in itertools.combinations_with_replacement(names, size):
                    self.work.spend(ITEM_STEPS)
                    need: Counts = {}
                    for s in combo:
                        need[s] = need.get(s, 0) + 1
                    if any(k > spices[s] for s, k in need.items()):
                        continue
                    served = Ingredient(kind, value, combo)
                    problems, quality = check_course(self.q.ruleset, kind, served, self.params)
                    if not problems:
                        yield Course(kind, value, combo, None, quality), need, {}
        for token, n in tokens.items():
            if n > 0:
                problems, quality = check_course(self.q.ruleset, kind, token, self.params)
                if not problems:
                    yield Course(kind, quality, (), token, quality), {}, {token: 1}

    def run(self) -> None:
        ingredients = tally(self.q.ingredients)
        spices = tally(self.q.spices)
        kinds = list(self.params["course_types"])
        self.visit(kinds, 0, ingredients, spices, dict(self.q.tokens), {})

    def visit(
        self, kinds: list[str], i: int, ingredients: Counts, spices: Counts, tokens: Counts, courses: dict[str, Course]
    ) -> None:
        if self.cut:
            return
        if i == len(kinds):
            self.judge(courses, tokens)
            return
        kind = kinds[i]
        choices = list(self.choices(kind, ingredients, spices, tokens))
        if self.room is not None:  # only meals whose ingredients and spices fit the room
            used = sum(1 + len(c.spices) for c in courses.values() if c.token is None)
            choices = [c for c in choices if c[0].token is not None or used + 1 + len(c[0].spices) <= self.room]
        if self.best_first:  # a search cut short has then met the big meals
            choices.sort(key=lambda choice: -choice[0].quality)
        else:
            self.visit(kinds, i + 1, ingredients, spices, tokens, courses)  # no such course
        for course, used_spices, used_tokens in choices:
            left_ingredients = dict(ingredients)
            if course.token is None:
                left_ingredients[(kind, course.value)] -= 1
            left_spices = {s: n - used_spices.get(s, 0) for s, n in spices.items()}
            left_tokens = {t: n - used_tokens.get(t, 0) for t, n in tokens.items()}
            self.visit(kinds, i + 1, left_ingredients, left_spices, left_tokens, {**courses, kind: course})
        if self.best_first:
            self.visit(kinds, i + 1, ingredients, spices, tokens, courses)  # no such course

    def judge(self, courses: dict[str, Course], tokens: Counts) -> None:
        names = list(tokens)
        for kept in itertools.product(*(range(tokens[t] + 1) for t in names)):
            self.work.spend(ITEM_STEPS)
            self.scored += 1
            if self.scored > self.limit:
                self.cut = True
                return
            held = dict(zip(names, kept, strict=True))
            if self.constrained and not self.allowed(courses, held):
                continue
            stars, quality = self.outcome(courses, held)
            key = (stars - self.baseline, quality)
            if self.best is None or key > self.best[0]:
                self.best = (key, CriticPlan(self.q, dict(courses), held))

    def allowed(self, courses: dict[str, Course], tokens: dict[str, int]) -> bool:
        """Whether this critic meal meets the meal constraints in force (check_critic_meal)."""
        self.work.spend(MEAL_STEPS)
        served = {k: c.token if c.token is not None else Ingredient(k, c.value, c.spices) for k, c in courses.items()}
        problems, _ = check_critic_meal(self.q.ruleset, served, tokens, self.params, cards=self.q.in_play())
        return not problems


def finish(search: CriticSearch, room: int | None) -> CriticPlan:
    """Run ``search`` (its meals within ``room`` ingredients and spices) and give its plan."""
    search.room = room
    try:
        search.run()
    except OverBudget:
        search.cut = True  # the best meal found by then, not proved best
    search.work.finish()
    if search.best is None:  # stopped before any meal was scored: serve none, keep every token
        kept = dict(search.q.tokens)
        stars, quality = search.outcome({}, kept)
        search.best = ((stars - search.baseline, quality), CriticPlan(search.q, {}, kept))
    (stars, quality), plan = search.best
    plan.stars, plan.critic_quality, plan.optimal = stars, quality, not search.cut and not search.work.over
    plan.steps = search.work.steps
    return plan

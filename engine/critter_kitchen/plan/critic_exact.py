"""The critic-meal planner's exact search: the courses, spices and kept tokens that earn a player the most
stars at the critic meal, as the ruleset's stages award them to this player alone.

Each course is judged by :func:`critter_kitchen.check_course`; each complete meal is scored
by running the stages on a game holding only this player (rivals are unknown). A meal is
one choice per course type (an ingredient of that type with spices, a token where the
rules allow, or nothing) and the tokens kept.

The exact search reads what the programs in play can see of a course (``critic_reads``):
of two choices for one course type with the same signature, the one using no more of
every spice, token and room is as good in every meal, and the other is dropped. Courses of
different types share only spices, tokens and room, so a partial meal is searched once per
(signature so far, items left), and each meal signature is scored through the stages once.

A course whose quality the programs see only in sums (``critic_reads.summed_types``: the
score track reads the total, the best-course star goes to the only player whatever its
quality) enters the signature as its quality added to the meal's sum, the rest of its
signature (its *view*) kept apart: meals of one view and one sum score alike. Each meal is
still scored by the stages, but the stages are not run from the start every time: up to
the first hook point whose programs see more than the courses served (``served_at``), a
meal starts from the state of the first meal with the same courses served and tokens;
up to the first that sees the sum (``resume_at``), from the state of the first meal of its
view, its qualities put in; and when the hook points from there see the meal only through
its critic quality and change nothing, what they add is run once for each critic quality.
Every state started from is the engine's own (``Game.checkpoint``, as rescoring uses it).
The plain search over every choice (:class:`.critic_search.CriticSearch`) is kept as the reference.
"""

from __future__ import annotations

import itertools

from ..model.game import Course
from ..stages.runner import POINTS
from .critic_reads import (
    course_signature,
    first_course_reader,
    first_sum_reader,
    reads_kept_tokens,
    sum_only,
    summed_types,
    tokens_apart,
)
from .critic_search import CriticSearch
from .plans import CriticPlan, tally
from .programs import programs, ruleset_programs
from .work import ITEM_STEPS, PLAN_BUDGET, SEARCHED_KEPT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Checkpoint, Game
    from .pantry import Question
    from .programs import Program

    Counts = dict[Any, int]
    # view, summed quality, (spices, tokens, room) used, course
    Option = tuple[Any, int, tuple[int, ...], Course | None]


class ExactCriticSearch(CriticSearch):
    """Every critic meal up to the signature of its courses, dominated choices left out."""

    def __init__(self, question: Question, limit: int, budget: int = PLAN_BUDGET) -> None:
        super().__init__(question, limit, budget)
        rs = question.ruleset
        cards = (*question.table, *question.owned)
        in_play = programs(rs, cards)
        self.signature = course_signature(in_play)
        self.sees_tokens = reads_kept_tokens(in_play)
        # Then the best tokens to keep are found apart from the courses.
        self.apart = tokens_apart(in_play, stage_programs(question))
        # The courses whose quality counts only in the sum: a meal is the rest of its
        # signature and the sum of their qualities.
        self.summed = summed_types(in_play, self.params["course_types"], rs.parameters)
        # Meals alike but in the sum of those qualities run alike until a program can see
        # the sum: each later one starts there, from the first one's state, its qualities put in.
        points = hook_points(question)
        self.resume_at = first_sum_reader(points) if self.summed and points else 0
        self.prefixes: dict[tuple[Any, ...], tuple[int, Checkpoint, list[int]] | None] = {}
        self.tail_sum_only = bool(self.resume_at) and sum_only(points[self.resume_at :])
        self.tails: dict[int, tuple[int, int]] = {}  # critic quality at resume_at -> (stars added, critic quality)
        # Before this hook point the programs see only which courses are served, and change nothing.
        self.served_at = first_course_reader(points) if points else 0
        self.served_prefixes: dict[tuple[Any, ...], tuple[int, Checkpoint] | None] = {}
        self.token_stars: dict[tuple[int, ...], int] = {}
        self.best_kept: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}  # tokens left -> best kept, its stars
        self.outcomes: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.searched: set[tuple[Any, ...]] = set()

    def run(self) -> None:
        ingredients = tally(self.q.ingredients)
        spices = tally(self.q.spices)
        self.spice_names = list(spices)
        self.token_names = list(self.q.tokens)
        room = self.room if self.room is not None else sum(ingredients.values()) + len(self.q.spices)
        left = (*(spices[s] for s in self.spice_names), *(self.q.tokens[t] for t in self.token_names), room)
        kinds = list(self.params["course_types"])
        options = [self.options(kind, ingredients, spices) for kind in kinds]
        self.walk(kinds, options, 0, left, (), {})

    def options(self, kind: str, ingredients: Counts, spices: Counts) -> list[Option]:
        """The ``kind`` courses worth trying: no course first, then each legal course no other
        with its view and summed quality beats by using no more of every spice, token and room."""
        found: list[Option] = []
        summed = kind in self.summed
        for course, used_spices, used_tokens in self.choices(kind, ingredients, spices, dict(self.q.tokens)):
            room = 0 if course.token is not None else 1 + len(course.spices)
            use = (
                *(used_spices.get(s, 0) for s in self.spice_names),
                *(used_tokens.get(t, 0) for t in self.token_names),
                room,
            )
            view = self.signature(course)
            if summed and course.quality >= 0:  # the quality goes into the meal's sum (adds never meet the 0 floor)
                found.append(((None, *view[1:]), course.quality, use, course))
            else:
                found.append((view, 0, use, course))
        self.work.spend(len(found) * len(found))  # each course is compared with each other
        kept = [
            (view, quality, use, course)
            for i, (view, quality, use, course) in enumerate(found)
            if not any(
                (other_view, other_quality) == (view, quality)
                and no_more(other_use, use)
                and (other_use != use or j < i)
                for j, (other_view, other_quality, other_use, _) in enumerate(found)
                if j != i
            )
        ]
        nothing = tuple(0 for _ in range(len(self.spice_names) + len(self.token_names) + 1))
        return [(None, 0, nothing, None), *kept]

    def walk(
        self,
        kinds: list[str],
        options: list[list[Option]],
        i: int,
        left: tuple[int, ...],
        signature: tuple[Any, ...],
        courses: dict[str, Course],
        total: int = 0,
    ) -> None:
        if self.cut:
            return
        self.work.spend(ITEM_STEPS * (1 + (len(options[i]) if i < len(options) else 0)))  # each option is tried
        state = (i, left, signature, total)
        if state in self.searched:  # the same meals so far with the same items left: searched already
            return
        if len(self.searched) >= SEARCHED_KEPT:  # forgotten: such a meal is searched again (its work charged again)
            self.searched.clear()
        self.searched.add(state)
        if i == len(kinds):
            tokens = dict(zip(self.token_names, left[len(self.spice_names) : -1], strict=True))
            self.judge_signature((signature, total), courses, tokens)
            return
        for view, quality, use, course in options[i]:
            if no_more(use, left):
                after = tuple(a - b for a, b in zip(left, use, strict=True))
                served = courses if course is None else {**courses, kinds[i]: course}
                self.walk(kinds, options, i + 1, after, (*signature, view), served, total + quality)

    def judge_signature(self, signature: tuple[Any, ...], courses: dict[str, Course], tokens: Counts) -> None:
        if self.apart:
            self.judge_apart(signature, courses, tokens)
            return
        names = list(tokens)
        for kept in itertools.product(*(range(tokens[t] + 1) for t in names)):
            self.work.spend(ITEM_STEPS)
            key = (signature, kept if self.sees_tokens else ())
            outcome = self.outcomes.get(key)
            held = dict(zip(names, kept, strict=True))
            if outcome is None:
                self.scored += 1
                if self.scored > self.limit:
                    self.cut = True
                    return
                outcome = self.outcomes[key] = self.shared_outcome(signature[0], courses, held)
            stars, quality = outcome
            score = (stars - self.baseline, quality)
            if self.best is None or score > self.best[0]:
                self.best = (score, CriticPlan(self.q, dict(courses), held))

    def judge_apart(self, signature: tuple[Any, ...], courses: dict[str, Course], tokens: Counts) -> None:
        """The courses' stars (tokens kept: none) plus the most the tokens left can earn kept alone."""
        outcome = self.outcomes.get(signature)
        if outcome is None:
            self.scored += 1
            if self.scored > self.limit:
                self.cut = True
                return
            outcome = self.outcomes[signature] = self.shared_outcome(signature[0], courses, {})
        names = list(tokens)
        left = tuple(tokens[t] for t in names)
        found = self.best_kept.get(left)
        if found is None:
            best_kept: tuple[int, ...] | None = None
            best_extra = 0
            for kept in itertools.product(*(range(n + 1) for n in left)):
                self.work.spend(ITEM_STEPS)
                extra = self.kept_stars(kept if self.sees_tokens else ())
                if best_kept is None or extra > best_extra:
                    best_kept, best_extra = kept, extra
            assert best_kept is not None  # keeping none is always a choice
            if self.cut:
                return
            found = self.best_kept[left] = (best_kept, best_extra)
        best_kept, best_extra = found
        score = (outcome[0] - self.baseline + best_extra, outcome[1])
        if self.best is None or score > self.best[0]:
            self.best = (score, CriticPlan(self.q, dict(courses), dict(zip(names, best_kept, strict=True))))

    def shared_outcome(self, view: tuple[Any, ...], courses: dict[str, Course], tokens: Counts) -> tuple[int, int]:
        """``outcome(courses, tokens)``, the hook points before ``resume_at`` run once for each
        view of the meal (and tokens kept): a later meal of that view starts from the state
        the first one had there, with its own qualities for the courses seen only in sums.
        When the programs from there on see the meal only through its critic quality
        (``tail_sum_only``), what they add is the same for every meal of that quality there,
        and is run once for each. The first meal of a view starts at ``served_at`` from the
        state of the first meal of its courses served (``from_served``)."""
        order = [k for k in self.q.ruleset.ingredient_types if k in courses]
        if not self.resume_at:
            return self.from_served(courses, tokens, order, None)
        key = (view, tuple(sorted(tokens.items())))
        if key not in self.prefixes:
            return self.from_served(courses, tokens, order, key)
        prefix = self.prefixes[key]
        if prefix is None:
            return self.from_served(courses, tokens, order, None)
        point, state, raw = prefix
        stars, _, qualities = state.players[0]
        # A course seen only in sums has had numbers added to it since it was served: the same here.
        now = [
            q + courses[k].quality - r if k in self.summed else q for k, q, r in zip(order, qualities, raw, strict=True)
        ]
        tail = self.tails.get(sum(now)) if self.tail_sum_only else None
        if tail is not None:
            return stars + tail[0], tail[1]
        result = self.outcome(courses, tokens, start=(point, state, now))
        self.remember_tail(stars, now, result)
        return result

    def from_served(
        self, courses: dict[str, Course], tokens: Counts, order: list[str], key: tuple[Any, ...] | None
    ) -> tuple[int, int]:
        """``outcome(courses, tokens)``: before ``served_at`` the programs see only which courses
        are served (and the tokens kept) and change nothing, so a meal starts there from the
        state of the first meal of the same courses served and tokens, with its own qualities.
        With ``key``, the state at ``resume_at`` is kept as the prefix of that view."""
        raw = [courses[k].quality for k in order]
        served = (tuple(order), tuple(sorted(tokens.items())))
        early = self.served_prefixes.get(served) if self.served_at else None
        saved: list[tuple[int, Checkpoint]] = []
        first: list[tuple[int, Checkpoint]] = []

        def pause(game: Game, point: int) -> bool:
            if early is None and self.served_at and point >= self.served_at and not first:
                first.append((point, game.checkpoint()))
            if key is not None and point >= self.resume_at and not saved:
                saved.append((point, game.checkpoint()))
            return False  # every point runs

        if early is None:
            result = self.outcome(courses, tokens, pause)
            if self.served_at:
                self.served_prefixes[served] = first[0] if first else None
        else:
            point, state = early
            result = self.outcome(courses, tokens, pause, start=(point, state, raw))  # no quality changed yet
        if key is not None:
            self.prefixes[key] = (*saved[0], raw) if saved else None
            if saved:
                stars, _, qualities = saved[0][1].players[0]
                self.remember_tail(stars, qualities, result)
        return result

    def remember_tail(self, stars: int, qualities: list[int], result: tuple[int, int]) -> None:
        """What the hook points from ``resume_at`` on gave a meal of these stars and course
        qualities there: the stars added, and the critic quality at the end."""
        if self.tail_sum_only:
            self.tails[sum(qualities)] = (result[0] - stars, result[1])

    def kept_stars(self, kept: tuple[int, ...]) -> int:
        """The stars keeping these tokens (by ``token_names``) adds to a meal of no course."""
        stars = self.token_stars.get(kept)
        if stars is None:
            self.scored += 1
            if self.scored > self.limit:
                self.cut = True
            held = dict(zip(self.token_names, kept, strict=True)) if kept else {}
            stars = self.token_stars[kept] = self.outcome({}, held)[0] - self.baseline
        return stars


def stage_programs(question: Question) -> dict[str, list[Program]]:
    """Each stage's programs, whose awards count as its stars: its body and the effects of
    the rules cards and the cards in play hooked to it (before, instead of or after it)."""
    known = ruleset_programs(question.ruleset)
    found: dict[str, list[Program]] = {stage.name: [] for stage in question.ruleset.stages}
    for name, program in known.stages:
        found[name].append(program)
    for card in (*known.rules, *question.table, *question.owned):
        for effect, program in known.effects(card):
            found.setdefault(effect.stage, []).append(program)
    return found


def hook_points(question: Question) -> list[list[Program]]:
    """The programs of each hook point, as ``run_stages`` numbers them: a stage's before
    effects, its body (and the effects replacing it), its after effects. None at all (no
    start again is safe) when an effect is hooked where this cannot place it."""
    known = ruleset_programs(question.ruleset)
    stages = question.ruleset.stages
    points: list[list[Program]] = [[] for _ in range(POINTS * len(stages))]
    index = {stage.name: i for i, stage in enumerate(stages)}
    for name, program in known.stages:
        points[POINTS * index[name] + 1].append(program)
    where = {"before": 0, "replace": 1, "after": 2}
    for card in (*known.rules, *question.table, *question.owned):
        for effect, program in known.effects(card):
            if effect.stage not in index or effect.timing not in where:
                return []
            points[POINTS * index[effect.stage] + where[effect.timing]].append(program)
    return points


def no_more(use: tuple[int, ...], than: tuple[int, ...]) -> bool:
    return all(a <= b for a, b in zip(use, than, strict=True))

"""The critic-meal planner: the courses, spices and kept tokens that earn a player the most
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
``plan_critic_exhaustive`` is the plain search over every choice, kept as the reference.
"""

from __future__ import annotations

import itertools

from ..api import check_course, rule_parameters
from ..model.game import Course, Game, Ingredient, Player
from ..stages.runner import run_stages
from .critic_reads import course_signature, reads_kept_tokens, tokens_apart
from .reads import programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from .pantry import Question

    Counts = dict[Any, int]
    Choice = tuple[Course, dict[str, int], dict[str, int]]  # the course, spices used, tokens used
    Option = tuple[Any, tuple[int, ...], Course | None]  # signature, (spices, tokens, room) used, course

NODE_LIMIT = 200_000  # complete meals scored before the search stops and says it is not proved optimal



def _tally(items: Iterable[Any]) -> Counts:
    """How many of each item."""
    counts: Counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts

class CriticPlan:
    """The best critic meal found: its courses by type, the tokens kept, its stars and quality."""

    def __init__(self, question: Question, courses: dict[str, Course], tokens: dict[str, int]) -> None:
        self.question = question
        self.courses = courses
        self.tokens = tokens
        self.stars = 0
        self.critic_quality = 0
        self.optimal = True


class _CriticSearch:
    def __init__(self, question: Question, limit: int) -> None:
        self.q = question
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
        self.baseline = self.outcome({}, {})[0]

    def outcome(self, courses: dict[str, Course], tokens: dict[str, int]) -> tuple[int, int]:
        """This player's stars and critic quality in a game with only this critic meal."""
        q = self.q
        player = Player(q.name, 0)
        player.owned = q.owned
        player.tokens = dict(tokens)
        order = q.ruleset.ingredient_types
        fresh = {k: Course(c.type, c.value, c.spices, c.token, c.quality) for k, c in courses.items()}
        player.serve({k: fresh[k] for k in order if k in fresh})
        game = Game(q.ruleset, (player,), dict(self.table_params), {r: () for r in self.rounds})
        game.challenges = {r: () for r in self.rounds}
        game.table_cards = q.table
        run_stages(game, "<plan>")
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
        ingredients = _tally(self.q.ingredients)
        spices = _tally(self.q.spices)
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
            self.scored += 1
            if self.scored > self.limit:
                self.cut = True
                return
            held = dict(zip(names, kept, strict=True))
            stars, quality = self.outcome(courses, held)
            key = (stars - self.baseline, quality)
            if self.best is None or key > self.best[0]:
                self.best = (key, CriticPlan(self.q, dict(courses), held))


class _ExactCriticSearch(_CriticSearch):
    """Every critic meal up to the signature of its courses, dominated choices left out."""

    def __init__(self, question: Question, limit: int) -> None:
        super().__init__(question, limit)
        trees = programs(question.ruleset, (*question.table, *question.owned))
        self.signature = course_signature(trees)
        self.sees_tokens = reads_kept_tokens(trees)
        self.apart = tokens_apart(trees)  # then the best tokens to keep are found apart from the courses
        self.token_stars: dict[tuple[int, ...], int] = {}
        self.outcomes: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.searched: set[tuple[Any, ...]] = set()

    def run(self) -> None:
        ingredients = _tally(self.q.ingredients)
        spices = _tally(self.q.spices)
        self.spice_names = list(spices)
        self.token_names = list(self.q.tokens)
        room = self.room if self.room is not None else sum(ingredients.values()) + len(self.q.spices)
        left = (*(spices[s] for s in self.spice_names), *(self.q.tokens[t] for t in self.token_names), room)
        kinds = list(self.params["course_types"])
        options = [self.options(kind, ingredients, spices) for kind in kinds]
        self.walk(kinds, options, 0, left, (), {})

    def options(self, kind: str, ingredients: Counts, spices: Counts) -> list[Option]:
        """The ``kind`` courses worth trying: no course first, then each legal course no other
        with its signature beats by using no more of every spice, token and room."""
        found: list[Option] = []
        for course, used_spices, used_tokens in self.choices(kind, ingredients, spices, dict(self.q.tokens)):
            room = 0 if course.token is not None else 1 + len(course.spices)
            use = (
                *(used_spices.get(s, 0) for s in self.spice_names),
                *(used_tokens.get(t, 0) for t in self.token_names),
                room,
            )
            found.append((self.signature(course), use, course))
        kept = [
            (sig, use, course)
            for i, (sig, use, course) in enumerate(found)
            if not any(
                other_sig == sig and _no_more(other_use, use) and (other_use != use or j < i)
                for j, (other_sig, other_use, _) in enumerate(found)
                if j != i
            )
        ]
        return [(None, tuple(0 for _ in range(len(self.spice_names) + len(self.token_names) + 1)), None), *kept]

    def walk(
        self,
        kinds: list[str],
        options: list[list[Option]],
        i: int,
        left: tuple[int, ...],
        signature: tuple[Any, ...],
        courses: dict[str, Course],
    ) -> None:
        if self.cut:
            return
        state = (i, left, signature)
        if state in self.searched:  # the same meals so far with the same items left: searched already
            return
        self.searched.add(state)
        if i == len(kinds):
            tokens = dict(zip(self.token_names, left[len(self.spice_names) : -1], strict=True))
            self.judge_signature(signature, courses, tokens)
            return
        for sig, use, course in options[i]:
            if _no_more(use, left):
                after = tuple(a - b for a, b in zip(left, use, strict=True))
                served = courses if course is None else {**courses, kinds[i]: course}
                self.walk(kinds, options, i + 1, after, (*signature, sig), served)

    def judge_signature(self, signature: tuple[Any, ...], courses: dict[str, Course], tokens: Counts) -> None:
        if self.apart:
            self.judge_apart(signature, courses, tokens)
            return
        names = list(tokens)
        for kept in itertools.product(*(range(tokens[t] + 1) for t in names)):
            key = (signature, kept if self.sees_tokens else ())
            outcome = self.outcomes.get(key)
            held = dict(zip(names, kept, strict=True))
            if outcome is None:
                self.scored += 1
                if self.scored > self.limit:
                    self.cut = True
                    return
                outcome = self.outcomes[key] = self.outcome(courses, held)
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
            outcome = self.outcomes[signature] = self.outcome(courses, {})
        names = list(tokens)
        best_kept: tuple[int, ...] | None = None
        best_extra = 0
        for kept in itertools.product(*(range(tokens[t] + 1) for t in names)):
            extra = self.kept_stars(kept if self.sees_tokens else ())
            if best_kept is None or extra > best_extra:
                best_kept, best_extra = kept, extra
        assert best_kept is not None  # keeping none is always a choice
        if self.cut:
            return
        score = (outcome[0] - self.baseline + best_extra, outcome[1])
        if self.best is None or score > self.best[0]:
            self.best = (score, CriticPlan(self.q, dict(courses), dict(zip(names, best_kept, strict=True))))

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


def _no_more(use: tuple[int, ...], than: tuple[int, ...]) -> bool:
    return all(a <= b for a, b in zip(use, than, strict=True))


FAST_LIMIT = 60  # complete meals scored by the fast effort (see critic_quick)


def plan_critic(
    question: Question, *, effort: str = "exact", limit: int = NODE_LIMIT, room: int | None = None
) -> CriticPlan:
    """The critic meal that earns the most stars, ties to the higher critic quality; ``optimal``
    is False when ``limit`` meals were scored before the search ended. ``effort="fast"`` scores
    at most ``FAST_LIMIT`` meals (a greedy meal, then better ones a course at a time; see
    :mod:`.critic_quick`) and never claims its meal best.
    ``room``: the meal may hold at most that many ingredients and spices (tokens aside)."""
    if effort not in ("exact", "fast"):
        from ..errors import CritterError

        raise CritterError(f"unknown effort {effort!r}; use one of exact, fast")
    if effort == "exact":
        search: _CriticSearch = _ExactCriticSearch(question, limit)
    else:
        from .critic_quick import QuickCriticSearch

        search = QuickCriticSearch(question, min(limit, FAST_LIMIT))
    return _finish(search, room)


def plan_critic_exhaustive(question: Question, *, limit: int = NODE_LIMIT, room: int | None = None) -> CriticPlan:
    """The reference search: every course choice and every count of kept tokens, each scored."""
    return _finish(_CriticSearch(question, limit), room)


def _finish(search: _CriticSearch, room: int | None) -> CriticPlan:
    search.room = room
    search.run()
    assert search.best is not None  # serving nothing is always a meal
    (stars, quality), plan = search.best
    plan.stars, plan.critic_quality, plan.optimal = stars, quality, not search.cut
    return plan


def critic_json(plan: CriticPlan) -> dict[str, Any]:
    """``{"for": "critic", "optimal", "stars", "critic_quality", "courses", TOKEN: n, ...}``."""
    courses: dict[str, Any] = {}
    for kind, course in plan.courses.items():
        if course.token is not None:
            courses[kind] = {"token": course.token}
        else:
            entry: dict[str, Any] = {"value": course.value}
            if course.spices:
                entry["spice"] = course.spices[0] if len(course.spices) == 1 else list(course.spices)
            courses[kind] = entry
    return {
        "for": "critic",
        "optimal": plan.optimal,
        "stars": plan.stars,
        "critic_quality": plan.critic_quality,
        "courses": courses,
        **plan.tokens,
    }


def critic_record(plan: CriticPlan) -> dict[str, Any]:
    """The fragment to paste into a game record: ``critic_meals: {NAME: {courses: ..., TOKEN: n}}``."""
    data = critic_json(plan)
    return {"critic_meals": {plan.question.name: {"courses": data["courses"], **plan.tokens}}}


def critic_text(plan: CriticPlan) -> str:
    q = plan.question
    stars = f"{plan.stars} star{'s' if plan.stars != 1 else ''}"
    head = f"{q.name}, critic meal: {stars}, critic quality {plan.critic_quality}"
    lines = [head + ("" if plan.optimal else " (best found; the search stopped at its limit)")]
    for kind, course in plan.courses.items():
        what = course.token if course.token is not None else f"{kind} {course.value}"
        lines.append(
            f"  {kind}: {what}" + "".join(f" + {s} spice" for s in course.spices) + f" -> quality {course.quality}"
        )
    kept = [f"{n} {name}" for name, n in plan.tokens.items() if n]
    lines.append(f"  tokens kept: {', '.join(kept) if kept else 'none'}")
    return "\n".join(lines)


class Keep:
    """What to keep after a challenge round: the ingredients and spices of the best critic
    meal the items left can make, when they fit the refrigeration limit (``optimal``)."""

    def __init__(
        self, ingredients: list[tuple[str, int]], spices: list[str], critic: CriticPlan, optimal: bool
    ) -> None:
        self.ingredients = ingredients
        self.spices = spices
        self.critic = critic  # the critic meal they make
        self.optimal = optimal


def plan_keep(question: Question, left_ingredients: list[tuple[str, int]], left_spices: list[str]) -> Keep | None:
    """The items to keep under the refrigeration limit after ``question``'s round, or None when
    the rules set no limit for that round.

    The best critic meal of the items left (tokens are kept anyway) among those whose
    ingredients and spices fit the limit is planned, and its items are kept: exact whenever
    that critic-meal search is.
    """
    from .pantry import CRITIC, Question

    params = rule_parameters(question.ruleset, question.table, question.owned)
    limit = params["refrigeration_limits"].get(question.target)
    if limit is None:
        return None
    later = Question(
        question.ruleset,
        CRITIC,
        (),
        question.table,
        question.name,
        question.owned,
        tuple(left_ingredients),
        tuple(left_spices),
        {name: 0 for name in question.tokens},  # the round's tokens left are kept without limit
    )
    # The best critic meal whose ingredients and spices fit the limit: exactly what is worth keeping.
    critic = plan_critic(later, room=limit)
    courses = sorted((c for c in critic.courses.values() if c.token is None), key=lambda c: -c.quality)
    ingredients = [(c.type, c.value) for c in courses]
    spices = [s for c in courses for s in c.spices]
    fits = len(ingredients) + len(spices) <= limit
    return Keep(ingredients, spices, critic, fits and critic.optimal)

"""Scoring a game again as if some cards were not in play, with the same meals.

This is what the balance lab asks of every card of every simulated game: what would the
game give without it? The answer is defined as scoring the record from scratch with
the card taken out of it, and :func:`game_without` and :func:`score_without` keep to it:

- The meals are the ones recorded. Removing a card can change the rule parameters in
  force (a critic that triples spiced courses, a head chef that lets tokens fill
  courses): every meal's legality and quality is then judged again, by the meal rules
  the record reader uses (model/meals.py), under the rules without the card. A
  challenge meal or a critic course that is no longer legal counts as not served.
- Unused tokens the rules no longer know are dropped likewise; the refrigeration limits
  (what a player kept) change no score, so they are not looked at.
- Only cards that a record names outside its challenges may be removed: the cards on the
  table (critic, rumors, ...) and the cards players hold. Challenge and rules cards make
  the game what it is.

Only what can change is run again. A run of the whole game is made once per game (and
kept on it) with a checkpoint before each hook point (a stage's before effects, its body,
its after effects) that a removal can start from; scoring without a card then starts from
the checkpoint before the first hook point whose outcome can depend on that card: the
first it has effects at, the first stage it declares, or the first whose code asks which
cards are in play (``in_play``). When the card changes a rule parameter, the meals are
judged again: if any comes out otherwise (legality, quality), every stage runs again;
else the run starts no later than the first hook point whose code reads a changed
parameter (``Compiled.params_read``, from the program's ``param`` ops and what its
registry functions and statements declare they read). Ranking always runs again. A test
compares this with the plain path, the record without the card read and scored from
scratch, on generated games of every shipped pack.
"""

from __future__ import annotations

from ..errors import EvaluationError, InputError
from ..model.game import Course, Game, Ingredient, Meal, Player
from ..model.meals import (
    course_problems,
    course_quality,
    held_parameters,
    meal_quality,
    served_meal_problems,
    table_parameters,
    unknown_token,
)
from .runner import POINTS, Result, notes_of, rank, run_stages

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable
    from typing import Any

    from ..model.game import Checkpoint
    from ..model.ruleset import Card

    _MealState = tuple[tuple[Any, ...], ...]


def removable_cards(game: Game) -> list[Card]:
    """The cards of ``game`` that :func:`score_without` can take out: on the table, then held, in record order."""
    cards = list(game.table_cards)
    for player in game.players:
        cards.extend(c for c in player.owned if c not in cards)
    return cards


def score_without(game: Game, card_ids: Iterable[str], source: str = "<record>") -> Result:
    """Score ``game`` (as read, scored already or not) as if the cards ``card_ids`` were not in play.

    The same meals, judged under the rules without those cards (see the module's text);
    ``game`` itself is not changed. Raises ValueError when an id is not one of
    :func:`removable_cards`; InputError or EvaluationError as scoring the record would.
    """
    removed = set(card_ids)
    unknown = removed - {c.id for c in removable_cards(game)}
    if unknown:
        raise ValueError(f"not a removable card in play in this game: {', '.join(sorted(unknown))}")
    plan = _plan(game, source)
    fresh = game_without(game, removed, plan.pristine)
    first = plan.first_point(game, fresh, removed)
    if first:
        fresh.resume(plan.checkpoints[first])
    run_stages(fresh, source, first)
    return _result(fresh)


def game_without(game: Game, removed: Collection[str], pristine: _MealState | None = None) -> Game:
    """A new unscored game: ``game``'s players and meals without the cards ``removed``, each meal
    judged again under the rules in force without them (dropped if no longer legal).

    ``pristine``: the meals of ``game`` as read (:func:`_meal_state`), whose course
    qualities are taken as they are when the removal changes no parameter.
    """
    rs = game.ruleset
    table = tuple(c for c in game.table_cards if c.id not in removed)
    fresh = Game(rs, (), table_parameters(rs, table), {})
    fresh.table_cards = table
    fresh.challenges = game.challenges
    fresh.players = tuple(_player_copy(p, removed) for p in game.players)
    fresh.rivals = tuple(_rival_copy(p) for p in game.rivals)
    params = {p.index: held_parameters(fresh.params, p.owned) for p in fresh.players}
    # A removal that changes no parameter leaves every meal as legal as it was, with its quality.
    same_rules = not any(c.parameters for c, _ in game.cards_in_play() if c.id in removed)
    for player, old in zip(fresh.players, game.players, strict=True):
        own = params[player.index]
        known = same_rules or all(unknown_token(k, own) is None for k in old.tokens)
        player.tokens = old.tokens if known else {k: n for k, n in old.tokens.items() if unknown_token(k, own) is None}
        if same_rules and pristine is not None:
            qualities = pristine[0][player.index][1]
            player.serve(
                {
                    c.type: Course(c.type, c.value, c.spices, c.token, q)
                    for c, (_, q) in zip(old.courses.values(), qualities, strict=True)
                }
            )
        else:
            player.serve(_courses(old.courses.values(), own, rs.ingredient_types, same_rules))
    for rnd, meals in game.meals.items():
        if same_rules:
            fresh.meals[rnd] = tuple(
                Meal(m.round, m.card, fresh.players[m.player.index], m.ingredients, m.tokens, m.quality) for m in meals
            )
        else:
            fresh.meals[rnd] = _meals(meals, fresh, params)
    return fresh


def _player_copy(old: Player, removed: Collection[str]) -> Player:
    player = Player(old.name, old.index)
    player.owned = tuple(c for c in old.owned if c.id not in removed)
    player.counters = old.counters  # what the record says: scoring never changes it
    return player


def _rival_copy(old: Player) -> Player:
    rival = Player(old.name, old.index)
    rival.automated, rival.fixed_quality, rival.stars = True, old.fixed_quality, old.stars
    return rival


def _courses(
    courses: Iterable[Course], params: dict[str, object], types: tuple[str, ...], legal: bool
) -> dict[str, Course]:
    """The critic courses still legal under ``params`` (all of them when ``legal``), each with its
    quality before any effect under them."""
    out: dict[str, Course] = {}
    for course in courses:
        served: Ingredient | str = (
            course.token if course.token is not None else Ingredient(course.type, course.value, course.spices)
        )
        if legal or not course_problems(course.type, served, params, types):
            quality = course_quality(served, params)
            value = quality if course.token is not None else course.value  # a token course is worth its token
            out[course.type] = Course(course.type, value, course.spices, course.token, quality)
    return out


def _meals(meals: tuple[Meal, ...], game: Game, params: dict[int, dict[str, object]]) -> tuple[Meal, ...]:
    """The challenge meals still legal, for the new game's players, each with its quality."""
    out: list[Meal] = []
    types = game.ruleset.ingredient_types
    for meal in meals:
        player = game.players[meal.player.index]
        own = params[player.index]
        held = game.challenges[meal.round][-1] is meal.card
        if not served_meal_problems(meal.card, meal.ingredients, meal.tokens, own, held, types):
            quality = meal_quality(meal.ingredients, meal.tokens, own)
            out.append(Meal(meal.round, meal.card, player, meal.ingredients, meal.tokens, quality))
    return tuple(out)


def _result(game: Game) -> Result:
    standings, decided = rank(game)
    return Result(game, standings, decided, notes_of(game))


class _Enough(Exception):
    """The run that makes the checkpoints has made the last one."""


TIMING_POINT = {"before": 0, "replace": 1, "after": 2}  # each timing's hook point within its stage


class _Plan:
    """One game's run with every card, and its checkpoints: where a removal can start from.

    Places are hook points, numbered as :func:`~critter_kitchen.stages.runner.run_stages`
    numbers them.
    """

    def __init__(self, game: Game, source: str) -> None:
        stages = game.ruleset.stages
        self.stage_index = {stage.name: i for i, stage in enumerate(stages)}
        self.declared_by = {stage.name: stage.card for stage in stages}
        self.end = len(stages) * POINTS
        self.readers = self._readers(game)
        self.first_seeing = min((point for point, sees, _ in self.readers if sees), default=self.end)
        self.firsts = {card.id: self._first_for(card) for card in removable_cards(game)}
        wanted = {self._first_alone(game, card) for card in removable_cards(game)} - {0}
        self.checkpoints: dict[int, Checkpoint] = {}
        self.pristine: _MealState | None = None
        if not wanted:
            return
        whole = game_without(game, ())
        self.pristine = _meal_state(whole)

        last = max(wanted)

        def pause(running: Game, point: int) -> None:
            if point in wanted:
                self.checkpoints[point] = running.checkpoint()
            if point >= last:
                raise _Enough  # what runs after the last checkpoint is never reused

        try:
            run_stages(whole, source, 0, pause)
        except _Enough:
            pass
        except (InputError, EvaluationError):
            self.checkpoints = {}  # the whole game cannot be scored: every removal starts afresh

    def first_point(self, game: Game, fresh: Game, removed: Collection[str]) -> int:
        """The hook point to start ``fresh`` (``game`` without ``removed``) from: 0, or one with a checkpoint.

        When the removal changes rule parameters, the meals judged again must come out as
        they were, and the points reading a changed parameter run again. A checkpoint at an
        earlier point than the first that can change serves as well: the points between run again.
        """
        if not self.checkpoints:
            return 0
        first = min((self.firsts[cid] for cid in removed), default=self.end)
        if any(game.ruleset.cards[cid].parameters for cid in removed):
            if _meal_state(fresh) != self.pristine:
                return 0
            first = min(first, self._first_reading(changed_parameters(game.params, fresh.params)))
        return max((p for p in self.checkpoints if p <= first), default=0)

    def _first_alone(self, game: Game, card: Card) -> int:
        """Where removing ``card`` alone starts, if the meals stay as they are: a checkpoint to make."""
        first = self.firsts[card.id]
        if card.parameters and card in game.table_cards:
            rest = table_parameters(game.ruleset, [c for c in game.table_cards if c is not card])
            first = min(first, self._first_reading(changed_parameters(game.params, rest)))
        return first

    def _first_reading(self, changed: set[str]) -> int:
        return min((point for point, _, reads in self.readers if reads & changed), default=self.end)

    def _point(self, stage: str, timing: str) -> int:
        index = self.stage_index.get(stage)
        return self.end if index is None else index * POINTS + TIMING_POINT[timing]

    def _first_for(self, card: Card) -> int:
        """The first hook point whose outcome may depend on ``card``, its parameters aside."""
        first = self.first_seeing
        for effect in card.effects:
            first = min(first, self._point(effect.stage, effect.timing))
        for name, i in self.stage_index.items():
            if self.declared_by[name] == card.id:  # a stage of its own: without it, no such stage
                first = min(first, i * POINTS)
        return first

    def _readers(self, game: Game) -> list[tuple[int, bool, frozenset[str]]]:
        """Each program that may run: its hook point, whether it asks which cards are in play,
        and the rule parameters it reads."""
        found = []
        for i, stage in enumerate(game.ruleset.stages):
            if stage.code is not None:
                found.append((i * POINTS + TIMING_POINT["replace"], stage.code.sees_cards, stage.code.params_read))
        for card, _ in game.cards_in_play():
            for effect in card.effects:
                if effect.code is not None:
                    point = self._point(effect.stage, effect.timing)
                    found.append((point, effect.code.sees_cards, effect.code.params_read))
        return found


def _meal_state(game: Game) -> _MealState:
    """What the meals of an unscored game are: every course and meal served, with its quality, and the tokens kept."""
    players = tuple(
        (tuple(p.tokens.items()), tuple((k, c.quality) for k, c in p.courses.items())) for p in game.players
    )
    meals = tuple((rnd, tuple((m.player.index, m.card.id, m.quality) for m in ms)) for rnd, ms in game.meals.items())
    return (players, meals)


def changed_parameters(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """The names of the parameters whose values differ."""
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _plan(game: Game, source: str) -> _Plan:
    if not isinstance(game.rescoring, _Plan):
        game.rescoring = _Plan(game, source)
    return game.rescoring

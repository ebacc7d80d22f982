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
cards are in play (``in_play``). When the card changes a rule parameter, every stage runs
again. Ranking always runs again. A test compares this with the plain path,
the record without the card read and scored from scratch, on generated games of every
shipped pack.
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

    from ..model.game import Checkpoint
    from ..model.ruleset import Card


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
    fresh = game_without(game, removed)
    first = plan.first_point(removed)
    if first:
        fresh.resume(plan.checkpoints[first])
    run_stages(fresh, source, first)
    return _result(fresh)


def game_without(game: Game, removed: Collection[str]) -> Game:
    """A new unscored game: ``game``'s players and meals without the cards ``removed``, each meal
    judged again under the rules in force without them (dropped if no longer legal)."""
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
        self.first_seeing = self._first_seeing(game)
        self.firsts = {card.id: self._first_for(card) for card in removable_cards(game)}
        wanted = {i for i in self.firsts.values() if i > 0}
        self.checkpoints: dict[int, Checkpoint] = {}
        if not wanted:
            return

        def pause(running: Game, point: int) -> None:
            if point in wanted:
                self.checkpoints[point] = running.checkpoint()

        try:
            run_stages(game_without(game, ()), source, 0, pause)
        except (InputError, EvaluationError):
            self.checkpoints = {}  # the whole game cannot be scored: every removal starts afresh

    def first_point(self, removed: Collection[str]) -> int:
        """The hook point to start from when ``removed`` are taken out: 0, or one with a checkpoint.

        A checkpoint at an earlier point than the first that can change serves as well: the
        stages between are run again.
        """
        first = min((self.firsts[cid] for cid in removed), default=0)
        return max((p for p in self.checkpoints if p <= first), default=0)

    def _point(self, stage: str, timing: str) -> int:
        index = self.stage_index.get(stage)
        return self.end if index is None else index * POINTS + TIMING_POINT[timing]

    def _first_for(self, card: Card) -> int:
        """The first hook point whose outcome may depend on ``card``."""
        if card.parameters:
            return 0  # the rules in force change: every meal and every stage may
        first = self.first_seeing
        for effect in card.effects:
            first = min(first, self._point(effect.stage, effect.timing))
        for name, i in self.stage_index.items():
            if self.declared_by[name] == card.id:  # a stage of its own: without it, no such stage
                first = min(first, i * POINTS)
        return first

    def _first_seeing(self, game: Game) -> int:
        """The first hook point at which code in play asks which cards are in play; the end if none."""
        first = self.end
        for i, stage in enumerate(game.ruleset.stages):
            if stage.code is not None and stage.code.sees_cards:
                first = min(first, i * POINTS + TIMING_POINT["replace"])
                break
        for card, _ in game.cards_in_play():
            for effect in card.effects:
                if effect.code is not None and effect.code.sees_cards:
                    first = min(first, self._point(effect.stage, effect.timing))
        return first


def _plan(game: Game, source: str) -> _Plan:
    if not isinstance(game.rescoring, _Plan):
        game.rescoring = _Plan(game, source)
    return game.rescoring

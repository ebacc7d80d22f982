"""The engine's Python interface: load packs once, score many records.

What a user of the library needs: score a record (:func:`score_record`), or read it first
(:func:`read_game`) and score it as if cards or challenge meals were not there
(:func:`score_without`, :func:`score_without_meals`, :func:`removable_cards`); the packs a
record needs (:func:`packs_for`); and the meal rules in force for a player
(:func:`rule_parameters`, :func:`meal_rules`, :func:`check_meal`, :func:`check_course`,
:func:`check_critic_meal`).
A :class:`~critter_kitchen.stages.runner.Result` gives the standings, the awards, what
decided the winner (``decided_by``) and the winners: ``winners`` lists every winner in
priority order (one, unless the rules in play end a tie on every ranking key with a
shared win) and ``winner`` is the first of them.
The facts of the meal rules the planner's searches rely on are the planner's
(``critter_kitchen.plan.meal_facts``).
"""

from __future__ import annotations

import os

from .loading.constraints import challenge_problems, constraining, critic_problems, lone_game
from .loading.records import read_record
from .loading.resolve import Resolver
from .model.game import Course, Meal
from .model.meals import MealRules, card_parameters, held_parameters, table_parameters
from .stages.runner import score_game

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from .model.game import Game, Ingredient
    from .model.ruleset import Card, Ruleset
    from .stages.runner import Result

__all__ = [
    "check_course",
    "check_critic_meal",
    "check_meal",
    "meal_rules",
    "packs_for",
    "read_game",
    "removable_cards",
    "rule_parameters",
    "score_record",
    "score_without",
    "score_without_meals",
]


def score_record(
    record: Any,
    ruleset: Ruleset | None = None,
    *,
    packs: Sequence[str | os.PathLike[str]] = (),
    source: str = "<record>",
    trace: bool = False,
) -> Result:
    """Score one parsed game record (a dict as read from YAML or JSON).

    Without a ruleset, the packs the record names (``packs: [id, ...]``) load first, then
    ``packs`` (folders, or ids of installed packs). ``trace``: keep what card effects did to
    each critic course's quality, for the explanation (``report.explain``).

    Raises :class:`~critter_kitchen.errors.InputError` listing every problem of an
    invalid record; nothing is scored then.
    """
    rules = ruleset if ruleset is not None else Resolver(packs).for_record(record, source)
    return score_game(read_record(rules, record, source), source, trace)


def read_game(
    record: Any,
    ruleset: Ruleset | None = None,
    *,
    packs: Sequence[str | os.PathLike[str]] = (),
    source: str = "<record>",
) -> Game:
    """Read and check one parsed game record without scoring it, for :func:`score_without`.

    Packs as for :func:`score_record`; InputError lists every problem of an invalid record.
    """
    rules = ruleset if ruleset is not None else Resolver(packs).for_record(record, source)
    return read_record(rules, record, source)


def packs_for(record: Any, packs: Sequence[str | os.PathLike[str]], source: str = "<record>") -> list[str]:
    """The pack folders to load, on top of the base pack, to score ``record`` with ``packs`` added."""
    return Resolver(packs).record_folders(record, source)


def rule_parameters(
    ruleset: Ruleset, in_play: Iterable[Card] = (), held: Iterable[Card] = (), card: Card | None = None
) -> dict[str, Any]:
    """The rule parameters in force for one player's meals: the ruleset's values, changed by
    the cards on the table (``in_play``: the critic, the rumors, ...) and then by the cards
    the player holds (``held``: a Restaurateur), as the record reader applies them; with
    ``card`` (a Challenge card), then by the card's own, for a meal served for it.

    Read it once per player and pass it to :func:`check_meal` and :func:`check_course`.
    """
    params = table_parameters(ruleset, in_play)
    own = held_parameters(params, held)
    if card is not None and card.parameters:
        return card_parameters(own, card)
    return own if own is not params else dict(own)


def check_meal(
    ruleset: Ruleset,
    card: Card,
    ingredients: Sequence[Ingredient],
    tokens: Mapping[str, int],
    params: Mapping[str, Any] | MealRules,
    *,
    held: bool = False,
    cards: Iterable[Card] = (),
) -> tuple[list[str], int]:
    """Whether a challenge meal is legal under these rules, and its quality: ``(problems, quality)``.

    ``card`` is the Challenge card (``ruleset.cards[id]``), ``held`` whether the Hold token is
    on it (the day's last card), ``tokens`` the token counts added (``{"soup": 1}``) and
    ``params`` the player's parameters (:func:`rule_parameters`), or :func:`meal_rules` of
    them for a caller that checks many meals under the same parameters. ``cards`` are the
    cards in play for the player (on the table and held), whose meal constraints the meal
    must meet too, with those of the rules cards and of ``card`` itself (a :func:`meal_rules`
    made with ``cards`` knows them already). ``problems`` is empty when the meal is legal;
    the quality is then the one scoring uses, and 0 otherwise. These are the rules the
    record reader applies to every recorded meal. Parameters lacking one the meal rules read
    raise :class:`~critter_kitchen.errors.CritterError`, naming it.
    """
    counts = dict(tokens)
    rules = params if isinstance(params, MealRules) else MealRules(params)
    problems = rules.served_meal_problems(card, ingredients, counts, held, ruleset.ingredient_types)
    if problems:
        return problems, 0
    quality = rules.meal_quality(ingredients, counts)
    in_play = (*rules.cards, *cards)
    found = constraining(ruleset, in_play, "challenge", card)
    if found:
        game = lone_game(ruleset, dict(rules.params), in_play)
        meal = Meal("", card, game.players[0], tuple(ingredients), counts, quality)
        problems = challenge_problems(game, meal, found)
    return problems, 0 if problems else quality


def check_critic_meal(
    ruleset: Ruleset,
    courses: Mapping[str, Ingredient | str],
    tokens: Mapping[str, int],
    params: Mapping[str, Any] | MealRules,
    *,
    cards: Iterable[Card] = (),
) -> tuple[list[str], int]:
    """Whether a whole critic meal is legal, and its quality before any card effect (the sum of
    its courses'): ``(problems, quality)``, problems empty when legal (the quality is 0 otherwise).

    ``courses`` maps each course served to what it is (as for :func:`check_course`), ``tokens``
    the tokens kept, ``params`` and ``cards`` as for :func:`check_meal`: each course is
    checked (its problems prefixed with the course), then the meal against the critic-meal
    constraints of the rules cards and of ``cards``.
    """
    rules = params if isinstance(params, MealRules) else MealRules(params)
    problems = [wrong for token in tokens if (wrong := rules.unknown_token(token)) is not None]
    made: dict[str, Course] = {}
    for kind, served in courses.items():
        course_problems = rules.course_problems(kind, served, ruleset.ingredient_types)
        problems += [f"{kind}: {w}" for w in course_problems]
        if not course_problems:
            quality = rules.course_quality(served)
            if isinstance(served, str):
                made[kind] = Course(kind, 0, (), served, quality)
            else:
                made[kind] = Course(kind, served.value, served.spices, None, quality)
    if problems:
        return problems, 0
    in_play = (*rules.cards, *cards)
    found = constraining(ruleset, in_play, "critic")
    if found:
        game = lone_game(ruleset, dict(rules.params), in_play)
        player = game.players[0]
        player.serve(made)
        player.tokens = dict(tokens)
        problems = critic_problems(game, player, found)
    return problems, 0 if problems else sum(c.quality for c in made.values())


def meal_rules(params: Mapping[str, Any], *, cards: Iterable[Card] = ()) -> MealRules:
    """The meal rules under ``params`` (:func:`rule_parameters`), read once: :func:`check_meal`
    takes them in place of ``params`` and then does not read the parameters again. Make them
    again if the parameters change. ``cards``: the cards in play for the player (on the
    table and held), whose meal constraints :func:`check_meal` then applies too."""
    return MealRules(params, tuple(cards))


def check_course(
    ruleset: Ruleset, kind: str, served: Ingredient | str, params: Mapping[str, Any]
) -> tuple[list[str], int]:
    """Whether ``served`` may be the ``kind`` course of a critic meal, and its quality before any
    card effect: ``(problems, quality)``, problems empty when legal (the quality is 0 otherwise).

    ``served`` is an ingredient of type ``kind`` (with its spices) or a token's name, and
    ``params`` the player's parameters (:func:`rule_parameters`).
    """
    rules = MealRules(params)
    problems = rules.course_problems(kind, served, ruleset.ingredient_types)
    return problems, 0 if problems else rules.course_quality(served)


def score_without(game: Game, card_ids: Iterable[str], source: str = "<record>") -> Result:
    """Score an already-read game as if the cards ``card_ids`` were not in play, with the same meals.

    ``game`` is what :func:`~critter_kitchen.loading.records.read_record` returned, scored
    already or not; it is not changed. The answer is the one the record would get with those
    cards taken out of it, read and scored from scratch, except that a recorded meal (or
    critic course) that the rules without the cards no longer allow counts as not served;
    every meal's quality is judged under the rules without the cards. Only the stages whose
    outcome can depend on the cards run again (see ``critter_kitchen.stages.rescore``), so
    this costs well under a full read and score: the balance lab calls it once per card.

    Raises ValueError when an id is not a card on the table or held by a player
    (:func:`removable_cards`); challenge and rules cards cannot be removed.
    """
    from .stages.rescore import score_without as rescore

    return rescore(game, card_ids, source)


def score_without_meals(game: Game, card_ids: Iterable[str], source: str = "<record>") -> Result:
    """Score an already-read game as if no challenge meal had been served for the challenge
    cards ``card_ids``; the cards stay in play (a round always shows its challenge cards).

    ``game`` is as for :func:`score_without` and is not changed. The answer is the one the
    record would get with those meals taken out of it, read and scored from scratch; only the
    stages whose outcome can depend on those meals run again, as for :func:`score_without`.
    Raises ValueError when an id is not one of the game's challenge cards.
    """
    from .stages.rescore import score_without_meals as rescore

    return rescore(game, card_ids, source)


def removable_cards(game: Game) -> list[Card]:
    """The cards of a read game that :func:`score_without` can take out: on the table, then held."""
    from .stages.rescore import removable_cards as removable

    return removable(game)

"""The state of one recorded game while it is being scored."""

from __future__ import annotations

from ..values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .ruleset import Card, Ruleset


QualityChange = tuple[str, str, int, int, str, tuple[tuple[str, str, int], ...]]


class Course:
    """One course of a critic meal; ``quality`` is what effects change."""

    __slots__ = ("type", "value", "spices", "token", "quality")

    def __init__(self, type: str, value: int, spices: tuple[str, ...], token: str | None, quality: int) -> None:
        self.type = type
        self.value = value
        self.spices = spices
        self.token = token
        self.quality = quality


class Ingredient(Value):
    """One ingredient of a challenge meal."""

    _fields = ("type", "value", "spices")
    __slots__ = _fields

    def __init__(self, type: str, value: int, spices: tuple[str, ...] = ()) -> None:
        self.type = type
        self.value = value
        self.spices = spices


class Player:
    """A player, with what the record says of them and the stars they collect."""

    __slots__ = (
        "name",
        "index",
        "automated",
        "fixed_quality",
        "owned",
        "counters",
        "courses",
        "served",
        "tokens",
        "left_ingredients",
        "left_spices",
        "left_recorded",
        "stars",
        "stage_stars",
        "params",
    )

    def __init__(self, name: str, index: int) -> None:
        self.name = name
        self.index = index  # 0 = first on the priority track
        self.automated = False  # an automated rival, scored by its own procedure, not by stages
        self.fixed_quality: int | None = None  # an automated rival's critic track position
        self.owned: tuple[Card, ...] = ()  # cards this player holds, e.g. a Restaurateur
        self.counters: dict[str, int] = {}
        self.courses: dict[str, Course] = {}
        self.served: tuple[str, ...] = ()  # the course types in ``courses``
        self.tokens: dict[str, int] = {}  # unused tokens kept for the critic meal
        # What the player had left unused at the end of the game, when the record says
        # (``left_recorded``); otherwise nothing.
        self.left_ingredients: tuple[Ingredient, ...] = ()
        self.left_spices: tuple[str, ...] = ()
        self.left_recorded = False
        self.stars = 0
        self.stage_stars: dict[str, int] = {}
        # The rule parameters in force for this player (the table's, changed by the cards the
        # player holds), or None when they are the game's (``Game.params``).
        self.params: dict[str, Any] | None = None

    def serve(self, courses: dict[str, Course]) -> None:
        """The critic meal's courses; effects later change their qualities, never which were served."""
        self.courses = courses
        self.served = tuple(courses)

    def leave(self, ingredients: tuple[Ingredient, ...], spices: tuple[str, ...]) -> None:
        """What the player had left unused at the end of the game: ingredients (no spice on
        them) and spices not served."""
        self.left_ingredients = ingredients
        self.left_spices = spices
        self.left_recorded = True

    def critic_quality(self) -> int:
        """The critic score track position: the course qualities now, or a rival's given one."""
        if self.fixed_quality is not None:
            return self.fixed_quality
        total = 0
        for course in self.courses.values():
            total += course.quality
        return total

    def __repr__(self) -> str:
        return f"Player({self.name!r})"

    def __str__(self) -> str:
        return self.name


class Meal:
    """A meal served for one challenge card."""

    __slots__ = ("round", "card", "player", "ingredients", "tokens", "quality", "params")

    def __init__(
        self,
        round: str,
        card: Card,
        player: Player,
        ingredients: tuple[Ingredient, ...],
        tokens: dict[str, int],
        quality: int,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.round = round
        self.card = card
        self.player = player
        self.ingredients = ingredients
        self.tokens = tokens
        self.quality = quality
        # The rule parameters in force for this meal (its player's, changed by its card's own),
        # or None when they are its player's (see :func:`meal_params`).
        self.params = params

    def __str__(self) -> str:
        return f"{self.card.name} meal"


def player_params(game: Game, player: Player) -> dict[str, Any]:
    """The rule parameters in force for ``player``: the game's, changed by the cards they hold."""
    own = player.params
    return own if own is not None else game.params


def meal_params(game: Game, meal: Meal) -> Mapping[str, Any]:
    """The rule parameters in force for ``meal``: its card's own over its player's over the game's."""
    own = meal.params
    if own is not None:
        return own
    own = meal.player.params
    return own if own is not None else game.params


class Award(Value):
    """Stars given to one player by one card at one stage."""

    _fields = ("player", "stage", "stars", "card", "reason", "value", "group", "tied")
    __slots__ = _fields

    def __init__(
        self,
        player: str,
        stage: str,
        stars: int,
        card: str,
        reason: str,
        value: int | None = None,  # the compared value, when the award went to the highest
        group: int = 0,  # awards made by one statement share a group
        tied: tuple[str, ...] = (),  # every player who shared this award, when more than one
    ) -> None:
        self.player = player
        self.stage = stage
        self.stars = stars
        self.card = card
        self.reason = reason
        self.value = value
        self.group = group
        self.tied = tied

    def to_json(self) -> dict[str, Any]:
        reason = self.reason if self.value is None else f"{self.reason} ({self.value})"
        return {"player": self.player, "stage": self.stage, "stars": self.stars, "card": self.card, "reason": reason}


class Checkpoint:
    """A game's scoring state between two stages (see :meth:`Game.checkpoint`)."""

    def __init__(self, game: Game) -> None:
        # The lists only grow as stages run: their length now is the prefix to keep.
        self.awards = game.awards
        self.award_count = len(game.awards)
        self.stages_run = game.stages_run
        self.stage_count = len(game.stages_run)
        self.steps = game.steps
        self.groups = game._groups
        self.players = [(p.stars, dict(p.stage_stars), [c.quality for c in p.courses.values()]) for p in game.players]


class Game:
    """Everything scoring reads and writes: players, meals, cards in play, awards."""

    def __init__(
        self,
        ruleset: Ruleset,
        players: tuple[Player, ...],
        params: dict[str, Any],  # rule parameters in force: the base values and card overrides
        meals: dict[str, tuple[Meal, ...]],
    ) -> None:
        self.ruleset = ruleset
        self.players = players
        self.params = params
        self.meals = meals
        self.challenges: dict[str, tuple[Card, ...]] = {}
        self.table_cards: tuple[Card, ...] = ()  # cards in play for everyone: the critic, the rumors, ...
        self.rivals: tuple[Player, ...] = ()  # automated players: ranked with the others, never scored by stages
        self.awards: list[Award] = []
        self.stages_run: list[str] = []  # stages whose body (or the card replacing it) ran, in order
        self.steps = 0  # steps of work effects have taken (see the budget in dsl/budget.py)
        # What the running hook point has done, applied when it ends (see stages/runner.py):
        self.changes: list[Any] = []  # set, add and multiply statements (dsl/changes.py)
        # Award statements whose stars players do not have yet: (players, stars each, stage).
        self.unsettled: list[tuple[tuple[Player, ...], int, str]] = []
        self._groups = 0
        self._in_play: list[tuple[Card, Player | None]] | None = None
        self.rescoring: Any = None  # what rescoring without some card reuses (stages/rescore.py)
        # When asked (score_game's ``trace``): each change effects made to a course's quality,
        # in order, as (player, course type, quality before, quality after, stage, the changes:
        # (card id, "set", "add" or "multiply", amount) each); None when not asked.
        self.trace: list[QualityChange] | None = None

    def checkpoint(self) -> Checkpoint:
        """What the stages run so far have done to the game, between two stages."""
        return Checkpoint(self)

    def resume(self, point: Checkpoint) -> None:
        """Put a game with the same players and meals into the state ``point`` saw.

        Everything scoring changes is here: awards, stages run, the work budget, each
        player's stars and course qualities (set, add and multiply change only those).
        """
        self.awards = point.awards[: point.award_count]
        self.stages_run = point.stages_run[: point.stage_count]
        self.steps = point.steps
        self._groups = point.groups
        for player, (stars, stage_stars, qualities) in zip(self.players, point.players, strict=True):
            player.stars = stars
            player.stage_stars = dict(stage_stars)
            for course, quality in zip(player.courses.values(), qualities, strict=True):
                course.quality = quality

    def award_all(
        self, stage: str, card: Card, players: tuple[Player, ...], stars: int, reason: str, value: int | None
    ) -> None:
        """Give ``stars`` to each player, by ``card`` at ``stage``; a tie for the highest value is friendly."""
        self._groups += 1
        group, card_id = self._groups, card.id
        tied = tuple(p.name for p in players) if value is not None and len(players) > 1 else ()
        awards = self.awards
        for player in players:
            awards.append(Award(player.name, stage, stars, card_id, reason, value, group, tied))
        self.unsettled.append((players, stars, stage))  # one entry a statement, not one an award

    def settle_awards(self) -> None:
        """Give the players the stars of the awards made at the hook point that just ended.

        Until then ``stars`` and ``stage_stars`` read as the hook point began, so no effect
        sees another's award made at the same hook point, whatever order they ran in.
        """
        for players, stars, stage in self.unsettled:
            for player in players:
                player.stars += stars
                player.stage_stars[stage] = player.stage_stars.get(stage, 0) + stars
        self.unsettled = []

    def cards_in_play(self) -> list[tuple[Card, Player | None]]:
        """Cards whose effects apply, each with its owner, in the order their effects run.

        The rules cards come first. Scoring changes no card, so the list is made once.
        """
        if self._in_play is not None:
            return self._in_play
        cards: list[tuple[Card, Player | None]] = list(self.ruleset.scoring().rules_in_play)
        for round_cards in self.challenges.values():
            cards.extend((c, None) for c in round_cards)
        cards.extend((c, None) for c in self.table_cards)
        cards.extend((c, p) for p in self.players for c in p.owned)
        self._in_play = cards
        return cards

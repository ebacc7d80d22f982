"""The stars a player earns from a round's meals, as the ruleset's stages award them: every
challenge-round search scores its plans here, by running the stages."""

from __future__ import annotations

from ..api import meal_rules, rule_parameters
from ..model.game import Game, Meal, Player
from ..model.meals import MealLevel
from ..stages.runner import hook_tables, run_stages
from .work import PLANS_KEPT, Work

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.meals import MealRules
    from ..model.ruleset import Card
    from ..stages.runner import HookTables
    from .pantry import Question
    from .plans import PlannedMeal


class Scorer:
    """The stars a player earns from a round's meals, as the ruleset's stages award them.

    A game is built with this player alone, the cards in play, and the meals; its stages
    run; the player's stars less those of the same game with no meals are the plan's.
    """

    def __init__(self, question: Question) -> None:
        self.q = question
        rs = question.ruleset
        self.table_params = rule_parameters(rs, question.table)
        self.params = rule_parameters(rs, question.table, question.owned)
        self.rules = meal_rules(self.params, cards=question.in_play())  # what check_meal reads, read once
        self.level = MealLevel(self.rules)  # and under each Challenge card's own parameters
        self.rounds = tuple(rs.parameters["challenge_rounds"].value)
        self.cache: dict[Any, tuple[int, int]] = {}  # plan -> (stars, effect steps), PLANS_KEPT at most
        # What every game of this table shares, made once: its player (each run starts it afresh),
        # the cards of each round, and what the stages run (hook_tables, made by the first run).
        self.player = Player(question.name, 0)
        self.player.owned = question.owned
        self.player.params = self.params  # the player's own, read by a parameter for p
        self.challenges = {r: (question.challenges if r == question.target else ()) for r in self.rounds}
        self.tables: HookTables | None = None
        self.baseline = self.game_stars((), Work())

    def rules_for(self, card: Card) -> MealRules:
        """The meal rules of a meal served for ``card``: the player's, changed by the card's own parameters."""
        return self.level.for_card(card)

    def game_stars(self, meals: tuple[PlannedMeal, ...], work: Work, key: Any = None) -> int:
        """The player's stars in a game of these meals; the run is charged to ``work`` (once per
        ``key`` when given: see :meth:`Work.run`)."""
        stars, steps = self.run(meals)
        work.run(("game", key) if key is not None else object(), steps)
        return stars

    def run(self, meals: tuple[PlannedMeal, ...]) -> tuple[int, int]:
        """(the player's stars, the effect steps taken) of a game of these meals."""
        q = self.q
        player = self.player
        player.stars, player.stage_stars = 0, {}  # as a new player: scoring changes nothing else of it
        game = Game(q.ruleset, (player,), dict(self.table_params), {})
        game.challenges = self.challenges
        game.table_cards = q.table
        by_card = {m.card.id: m for m in meals}
        served = tuple(
            Meal(
                q.target,
                c,
                player,
                by_card[c.id].ingredients,
                dict(by_card[c.id].tokens),
                by_card[c.id].quality,
                self.level.for_card(c).params if c.parameters else None,  # the card's own, read by a parameter for m
            )
            for c in q.challenges
            if c.id in by_card
        )
        game.meals = {r: (served if r == q.target else ()) for r in self.rounds}
        tables = self.tables
        if tables is None:
            tables = self.tables = hook_tables(game)
        run_stages(game, "<plan>", tables=tables)
        return player.stars, game.steps

    def stars(self, meals: tuple[PlannedMeal, ...], work: Work) -> int:
        """The stars the plan's meals earn (remembered per table; charged to ``work`` once per plan)."""
        key = tuple(sorted((m.card.id, _meal_key(m)) for m in meals))
        found = self.cache.get(key)
        if found is None:
            stars, steps = self.run(meals)
            if len(self.cache) >= PLANS_KEPT:
                self.cache.clear()
            found = self.cache[key] = (stars - self.baseline, steps)
        work.run(key, found[1])
        return found[0]


def _meal_key(meal: PlannedMeal) -> tuple[Any, ...]:
    return (
        tuple(sorted((i.type, i.value, i.spices) for i in meal.ingredients)),
        tuple(sorted(meal.tokens.items())),
    )

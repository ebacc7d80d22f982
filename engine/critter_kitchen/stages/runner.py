"""The stage runner: each stage in order, with the effects hooked before, instead of and after it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..dsl.closures import Compiled, Frame
from ..errors import EvaluationError, InputError, Problem
from ..model.game import Award, Game, Player
from ..model.ruleset import Card


@dataclass(frozen=True)
class Standing:
    rank: int
    player: Player
    stars: int
    critic_quality: int


@dataclass
class Result:
    """The outcome of one game: standings, every award, and how the winner was decided."""

    game: Game
    standings: list[Standing]
    decided_by: str
    notes: list[str] = field(default_factory=list)

    @property
    def winner(self) -> Player:
        return self.standings[0].player

    @property
    def awards(self) -> list[Award]:
        return self.game.awards


def _run(code: Compiled | None, game: Game, card: Card, stage: str, owner: Player | None) -> None:
    if code is None:
        return
    try:
        code.run(Frame(game, card, stage, owner, code.slots))
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        # The type checker should make this unreachable; if not, say where, never a traceback.
        raise EvaluationError(f"{card.path}: card '{card.id}' failed at stage '{stage}': {e}") from e


def run_stages(game: Game, source: str = "") -> None:
    """Run every stage of the ruleset on ``game``, recording awards and changing qualities."""
    hooks: dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]] = defaultdict(list)
    for card, owner in game.cards_in_play():
        for effect in card.effects:
            hooks[effect.stage, effect.timing].append((card, owner, effect.code))
    rules = {c.id: c for c in game.ruleset.rules_cards}
    for stage in game.ruleset.stages:
        for card, owner, code in hooks[stage.name, "before"]:
            _run(code, game, card, stage.name, owner)
        replacing = hooks[stage.name, "replace"]
        if len(replacing) > 1:
            names = ", ".join(c.id for c, _, _ in replacing)
            raise InputError(
                [Problem(source, 0, 0, f"cards {names} all replace stage '{stage.name}'", "CK205", where="cards")]
            )
        if replacing:
            card, owner, code = replacing[0]
            _run(code, game, card, stage.name, owner)
        else:
            _run(stage.code, game, rules[stage.card], stage.name, None)
        for card, owner, code in hooks[stage.name, "after"]:
            _run(code, game, card, stage.name, owner)


def rank(game: Game) -> tuple[list[Standing], str]:
    """Order the players by the ruleset's tie-breaks, then priority; say what decided first place."""
    rules_card = game.ruleset.rules_cards[0]
    keys: dict[str, tuple[Any, ...]] = {}
    everyone = sorted((*game.players, *game.rivals), key=lambda p: p.index)
    for p in everyone:
        values = []
        for tb in game.ruleset.tiebreaks:
            assert tb.code is not None
            frame = Frame(game, rules_card, "ranking", None, tb.code.slots)
            frame.slots[0] = p
            values.append(tb.code.run(frame))
        keys[p.name] = (*values, -p.index)
    order = sorted(everyone, key=lambda p: keys[p.name], reverse=True)
    standings = [Standing(i + 1, p, p.stars, p.critic_quality()) for i, p in enumerate(order)]
    if len(order) == 1:
        return standings, "the only player"
    first, second = keys[order[0].name], keys[order[1].name]
    labels = [tb.label for tb in game.ruleset.tiebreaks] + [game.ruleset.priority_label]
    decided = next(labels[i] for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)
    return standings, decided


def score_game(game: Game, source: str = "") -> Result:
    """Score a checked game: run the stages, rank the players."""
    run_stages(game, source)
    standings, decided = rank(game)
    notes = [
        f"{p.name}: {p.unverified}"
        for p in game.ruleset.parameters.values()
        if p.unverified and game.params.get(p.name) == p.value
    ]
    return Result(game, standings, decided, notes)

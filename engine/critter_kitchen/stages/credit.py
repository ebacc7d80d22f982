"""What a card earned in one game, as the balance lab and the score pad's statistics credit it.

A card on the table or held is credited its own awards. A Challenge card's awards are given
by the rules card, naming the meal: it is credited what its meals earned, the awards the game
gives that the game without its meals does not, and the stars they made.
"""

from __future__ import annotations

from collections import Counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Game
    from ..model.ruleset import Ruleset
    from .runner import Result


def is_challenge(ruleset: Ruleset, card_id: str) -> bool:
    """Whether the card is a Challenge card: a kind the record names under its challenges."""
    return ruleset.card_kinds[ruleset.cards[card_id].kind] == "cards.challenges"


def rescored_without(ruleset: Ruleset, game: Game, card_id: str) -> Result:
    """``game`` (read, scored or not; not changed) scored again without card ``card_id``: the
    cards on the table and held are taken out, a Challenge card's meals (the card keeps its
    place: a round always shows its challenge cards)."""
    from .rescore import score_without, score_without_meals

    if is_challenge(ruleset, card_id):
        return score_without_meals(game, [card_id], "<simulated>")
    return score_without(game, [card_id], "<simulated>")


def credited(ruleset: Ruleset, result: Result, again: Result, card_id: str) -> tuple[int, int]:
    """The awards and stars a game (``result``) credits to card ``card_id``, ``again`` being the
    game scored without it (:func:`rescored_without`)."""
    if is_challenge(ruleset, card_id):
        gone = Counter(award_key(a) for a in result.awards) - Counter(award_key(a) for a in again.awards)
        stars = sum(p.stars for p in result.game.players) - sum(p.stars for p in again.game.players)
        return sum(gone.values()), stars
    own = [a for a in result.awards if a.card == card_id]
    return len(own), sum(a.stars for a in own)


def award_key(award: Any) -> tuple[str, str, int, str, str, int | None]:
    return (award.player, award.stage, award.stars, award.card, award.reason, award.value)

"""What a card earned in one game, as the balance lab and the score pad's statistics credit it.

A card on the table or held is credited its own awards. A Challenge card's awards are given
by the rules card, naming the meal: it is credited what its meals earned, the awards the game
gives that the game without its meals does not, and the stars they made; a tally of every
card's awards then counts those under the meal's card, not under the rules card as well.
"""

from __future__ import annotations

from collections import Counter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..model.game import Game
    from ..model.ruleset import Ruleset
    from .runner import Result

    AwardKey = tuple[str, str, int, str, str, int | None]  # player, stage, stars, card, reason, value


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
        stars = sum(p.stars for p in result.game.players) - sum(p.stars for p in again.game.players)
        return sum(earned(result, again).values()), stars
    own = [a for a in result.awards if a.card == card_id]
    return len(own), sum(a.stars for a in own)


def earned(result: Result, again: Result) -> Counter[AwardKey]:
    """The awards a game (``result``) gives that the game without a Challenge card's meals
    (``again``) does not: what the card's meals earned."""
    return Counter(award_key(a) for a in result.awards) - Counter(award_key(a) for a in again.awards)


def passed_on(ruleset: Ruleset, result: Result, without: Mapping[str, Result]) -> dict[str, tuple[int, int]]:
    """Rules card id -> the awards and stars it gave in ``result`` that Challenge cards are
    credited with (``without``: Challenge card id -> the game scored without its meals): the
    rules card gives a meal's awards, its card earns them, so a tally of every card's awards
    counts them under the meal's card and not under the rules card too. An award that
    several cards' meals earned together is passed on once."""
    given: Counter[AwardKey] = Counter()
    for card_id, again in without.items():
        if is_challenge(ruleset, card_id):
            given |= Counter({k: n for k, n in earned(result, again).items() if _is_rules(ruleset, k[3])})
    out: dict[str, tuple[int, int]] = {}
    for key, n in given.items():
        awards, stars = out.get(key[3], (0, 0))
        out[key[3]] = (awards + n, stars + n * key[2])
    return out


def _is_rules(ruleset: Ruleset, card_id: str) -> bool:
    card = ruleset.cards.get(card_id)
    return card is not None and card.kind == ruleset.rules_kind


def award_key(award: Any) -> AwardKey:
    return (award.player, award.stage, award.stars, award.card, award.reason, award.value)

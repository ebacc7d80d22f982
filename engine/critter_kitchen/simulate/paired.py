"""Scoring a game again without one card, with the same meals: the paired half of each per-card figure.

:func:`score_without` is the plain path: the record with the card taken out, read and
scored by the engine as any record is. :func:`rescored_without` is what the lab calls: the
engine's fast rescoring (``critter_kitchen.api.score_without`` for the cards on the table and
held, ``score_without_meals`` for challenge cards: only the hook points that can change run
again); ``FAST_RESCORING = False`` sends every card down the plain path (the tests compare
the two, byte for byte).

What "without the card" means, per kind (decisions, said in the report's notes):
- a card on the table or held by a player: it is taken out of the record;
- a challenge card: a round always shows its number of challenge cards, so the card stays
  and the meals served for it are taken out;
- a meal or critic course that the rules without the card refuse (the card allowed it) is
  not served; a refrigeration count over the limit without the card is dropped from the
  record (scoring does not read it); a spice left unused that the rules without the card do
  not know (it named another wild spice) is dropped.
"""

from __future__ import annotations

import copy

from ..errors import InputError
from ..loading.records import read_record
from ..stages.credit import rescored_without as rescore_game
from ..stages.runner import score_game

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Game
    from ..model.ruleset import Ruleset
    from ..stages.runner import Result

FAST_RESCORING = True  # False: every card on the plain path (the reference the tests compare with)
MAX_REPAIRS = 64  # rounds of dropping refused meals before giving up (each drops at least one)


def rescored_without(ruleset: Ruleset, record: dict[str, Any], game: Game, card_id: str) -> Result:
    """The game scored without card ``card_id``: ``game`` is ``record`` as read (and scored).

    The one place that chooses the path: the engine's rescoring (``stages.credit``), or the
    plain path, the record without the card read and scored again; both answer alike
    (tests/test_rescore_is_scoring_without.py, tests/test_rescore_paths_agree.py,
    tests/test_simulate_paths_agree.py).
    """
    if FAST_RESCORING:
        return rescore_game(ruleset, game, card_id)
    return score_without(ruleset, record, card_id)


def score_without(ruleset: Ruleset, record: dict[str, Any], card_id: str) -> Result:
    """The game of ``record`` scored with card ``card_id`` taken out and the same meals."""
    data = without_card(ruleset, record, card_id)
    for _ in range(MAX_REPAIRS):
        try:
            return score_game(read_record(ruleset, data, "<simulated>"))
        except InputError as e:
            if not drop_refused(data, [p.where for p in e.problems]):
                raise
    return score_game(read_record(ruleset, data, "<simulated>"))  # raises: what is refused now is no meal


def without_card(ruleset: Ruleset, record: dict[str, Any], card_id: str) -> dict[str, Any]:
    data = copy.deepcopy(record)
    card = ruleset.cards[card_id]
    slot = ruleset.card_kinds[card.kind]
    scope, _, field = slot.partition(".")
    if slot == "cards.challenges":
        for players in data.get("challenge_meals", {}).values():
            for meals in players.values():
                meals.pop(card_id, None)
        return data
    holders = [data["cards"]] if scope == "cards" else data["players"]
    for holder in holders:
        value = holder.get(field)
        if value == card_id:
            del holder[field]
        elif isinstance(value, list) and card_id in value:
            value.remove(card_id)
    return data


def drop_refused(data: dict[str, Any], places: list[str]) -> bool:
    """Take out the meals, courses, kept counts and spices left unused the problems name;
    False when none is one."""
    dropped = False
    spices_left: dict[str, set[int]] = {}  # by player: the places of the spices left to take out
    for where in places:
        parts = where.replace("[", ".").replace("]", "").split(".")
        if parts[0] == "challenge_meals" and len(parts) >= 4:
            dropped |= data["challenge_meals"].get(parts[1], {}).get(parts[2], {}).pop(parts[3], None) is not None
        elif parts[0] == "critic_meals" and len(parts) >= 4 and parts[2] == "courses":
            dropped |= data["critic_meals"].get(parts[1], {}).get("courses", {}).pop(parts[3], None) is not None
        elif parts[0] == "players" and len(parts) >= 4 and parts[2] == "kept":
            dropped |= data["players"][int(parts[1])].get("kept", {}).pop(parts[3], None) is not None
        elif parts[0] == "critic_meals" and len(parts) == 5 and parts[2:4] == ["left", "spices"]:
            spices_left.setdefault(parts[1], set()).add(int(parts[4]))
    for name, places_left in spices_left.items():
        spices = data["critic_meals"][name]["left"]["spices"]
        for i in sorted(places_left, reverse=True):  # the last first: the others keep their places
            del spices[i]
            dropped = True
    return dropped

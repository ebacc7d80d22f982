"""The deal model of the loaded packs, read once: the bag, the supply, the rounds, the cards dealt.

Every number comes from the rules cards' ``deal:`` sections (see loading/deal.py); nothing
of the game is written here. Randomness comes from the ``random.Random`` each game gets.
"""

from __future__ import annotations

from ..errors import CritterError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from typing import Any

    from ..model.ruleset import Card, Ruleset

    Token = tuple[str, str, int]  # ("ingredient", type, value) or ("spice", name, 0)

CHALLENGE_SLOT = "cards.challenges"
INGREDIENT, SPICE = "ingredient", "spice"


class DealModel:
    """What the packs say a game deals, with the card pools by kind."""

    def __init__(self, ruleset: Ruleset) -> None:
        deal = ruleset.deal
        for needed in ("ingredient_tokens", "rounds"):
            if needed not in deal:
                raise CritterError(f"the loaded packs have no deal model '{needed}': a simulation needs one")
        self.ruleset = ruleset
        self.bag: list[Token] = [
            (INGREDIENT, kind, value)
            for kind, rows in deal["ingredient_tokens"].value.items()
            for value, count in rows
            for _ in range(count)
        ]
        self.bag += [(SPICE, name, 0) for name, n in self._table("spice_tokens").items() for _ in range(n)]
        self.late: dict[str, list[Token]] = {
            rnd: [(SPICE, name, 0) for name, n in added.items() for _ in range(n)]
            for rnd, added in self._table("late_tokens").items()
        }
        self.supply = [name for name, n in self._table("supply").items() for _ in range(n)]
        self.rounds: list[tuple[str, int, int]] = [
            (rnd, g.get("bag", 0), g.get("supply", 0)) for rnd, g in deal["rounds"].value.items()
        ]
        self.shuffled = deal["priority"].value == "shuffled" if "priority" in deal else True
        self.counters: dict[str, list[int]] = self._table("counters")
        self.card_counts: dict[str, tuple[str, int]] = {
            kind: next(iter(spec.items())) for kind, spec in self._table("cards").items()
        }
        self.challenge_kinds = [k for k, slot in ruleset.card_kinds.items() if slot == CHALLENGE_SLOT]
        self.pools: dict[str, list[Card]] = {}
        for card in sorted(ruleset.cards.values(), key=lambda c: c.id):
            self.pools.setdefault(card.kind, []).append(card)
        self.unverified = [name for name, number in deal.items() if number.unverified]

    def _table(self, name: str) -> dict[str, Any]:
        number = self.ruleset.deal.get(name)
        return dict(number.value) if number is not None else {}


def draw(rng: random.Random, pool: list[Any], n: int) -> list[Any]:
    """``n`` items taken at random from ``pool`` (fewer when it runs out); ``pool`` loses them."""
    taken = []
    for _ in range(min(n, len(pool))):
        i = rng.randrange(len(pool))
        pool[i], pool[-1] = pool[-1], pool[i]
        taken.append(pool.pop())
    return taken

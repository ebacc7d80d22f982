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
        tokens: dict[Token, int] = {}  # every token the bag may hold, with its count at the start
        for kind, rows in deal["ingredient_tokens"].value.items():
            for value, count in rows:
                token = (INGREDIENT, kind, value)
                tokens[token] = tokens.get(token, 0) + count
        for name, count in self._table("spice_tokens").items():
            tokens[(SPICE, name, 0)] = tokens.get((SPICE, name, 0), 0) + count
        late = self._table("late_tokens")
        for added in late.values():
            for name in added:
                tokens.setdefault((SPICE, name, 0), 0)
        self.bag: Counted = Counted(list(tokens), list(tokens.values()))
        index = {token: i for i, token in enumerate(tokens)}
        self.late: dict[str, list[tuple[int, int]]] = {  # round -> (the bag's item, tokens added) as it begins
            rnd: [(index[(SPICE, name, 0)], n) for name, n in added.items()] for rnd, added in late.items()
        }
        supply = self._table("supply")
        self.supply: Counted = Counted(list(supply), list(supply.values()))
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


class Counted:
    """Items held as counts, as a bag holds tokens: :meth:`take` draws at random without
    putting back, each item as likely as its count. Its time and memory grow with the number
    of different items, never with the counts (a bag of a billion fish is one number)."""

    def __init__(self, items: list[Any], counts: list[int]) -> None:
        self.items = items
        self.counts = [0] * len(items)
        self.total = 0
        self.tree = [0] * (len(items) + 1)  # a Fenwick tree of the counts: running totals in log time
        for i, n in enumerate(counts):
            self.add(i, n)

    def copy(self) -> Counted:
        other = Counted([], [])
        other.items, other.counts, other.total, other.tree = self.items, list(self.counts), self.total, list(self.tree)
        return other

    def add(self, i: int, n: int) -> None:
        """``n`` more of item ``i`` (fewer when negative)."""
        self.counts[i] += n
        self.total += n
        i += 1
        while i < len(self.tree):
            self.tree[i] += n
            i += i & -i

    def take(self, rng: random.Random, n: int) -> list[Any]:
        """``n`` items drawn at random (fewer when it runs out); they leave the bag."""
        taken = []
        for _ in range(min(n, self.total)):
            i = self._at(rng.randrange(self.total))
            self.add(i, -1)
            taken.append(self.items[i])
        return taken

    def _at(self, r: int) -> int:
        """The item holding the ``r``-th token, counting from 0 in the items' order."""
        at, size = 0, len(self.tree) - 1
        step = 1 << size.bit_length()
        while step:
            if at + step <= size and self.tree[at + step] <= r:
                at += step
                r -= self.tree[at]
            step >>= 1
        return at


def draw(rng: random.Random, pool: list[Any], n: int) -> list[Any]:
    """``n`` items taken at random from ``pool`` (fewer when it runs out); ``pool`` loses them."""
    taken = []
    for _ in range(min(n, len(pool))):
        i = rng.randrange(len(pool))
        pool[i], pool[-1] = pool[-1], pool[i]
        taken.append(pool.pop())
    return taken

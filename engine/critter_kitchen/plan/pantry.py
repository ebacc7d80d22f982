"""Pantry files (parsed YAML or JSON) to a :class:`Question`: what one player holds and plans for.

A pantry names its cards as a game record does, so it is read with the record reader's
checks and its problems carry the same record paths and places (``pantry.ingredients[1].type``).
"""

from __future__ import annotations

from ..errors import InputError, shown
from ..loading.constraints import constraining
from ..loading.records import CHALLENGES, RecordReader, Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..loading.yamlpos import Document
    from ..model.ruleset import Card, Ruleset

TOP_KEYS = ("packs", "for", "cards", "player", "pantry")
CRITIC = "critic"  # ``for: critic``: the critic meal rather than a challenge round
DEFAULT_NAME = "Player"  # the player's name when the pantry gives none
# Ingredients and spices of one pantry together: a player holds a few dozen at most. Past it the
# pantry is refused (each item beyond a few dozen makes the exact search slower; tokens are
# counted, not listed, and the planner folds the counts no meal can use).
MAX_PANTRY_ITEMS = 200


class Question:
    """What to plan: the rules, the cards in play, and the items one player holds."""

    def __init__(
        self,
        ruleset: Ruleset,
        target: str,
        challenges: tuple[Card, ...],
        table: tuple[Card, ...],
        name: str,
        owned: tuple[Card, ...],
        ingredients: tuple[tuple[str, int], ...],
        spices: tuple[str, ...],
        tokens: dict[str, int],
    ) -> None:
        self.ruleset = ruleset
        self.target = target  # a challenge round, or "critic"
        self.challenges = challenges  # the round's challenge cards in reveal order
        self.table = table  # the other cards on the table: the critic, the rumors, ...
        self.name = name
        self.owned = owned  # cards the player holds (a restaurateur, ...)
        self.ingredients = ingredients  # (type, value) of each ingredient, unspiced
        self.spices = spices
        self.tokens = tokens  # token counts, every token of the rules named

    def in_play(self) -> tuple[Card, ...]:
        """The cards whose meal constraints bind this player's meals, besides the rules cards and
        each meal's own Challenge card: the table's and the player's own."""
        return (*self.table, *self.owned)

    def constrained(self) -> bool:
        """Whether a meal constraint binds a meal planned for this question (see
        loading/constraints.py): the searches whose shortcuts rest on facts of the meal rules
        alone then give way to the plain searches, which judge every meal whole."""
        meal = "critic" if not self.challenges else "challenge"
        if constraining(self.ruleset, self.in_play(), meal):
            return True
        return any(c.meal == meal for card in self.challenges for c in card.constraints)


class PantryReader(RecordReader):
    """Reads a pantry with the record reader's checks, reporting every problem located."""

    def read_pantry(self, data: Any) -> Question:
        top = self.mapping(data, Where()) or {}
        self.keys(top, TOP_KEYS, Where())
        if "packs" in top:
            self.needed_packs(top["packs"])
        for key in ("for", "cards", "pantry"):
            if key not in top and top is data:
                self.fail(Where(), f"missing required key '{key}'")
        target = self.target(top.get("for"))
        challenges, table = self.table_cards(top.get("cards", {}), target)
        name, owned = self.player_entry(top.get("player", {}))
        params = self.rs.base_params()
        for card in (*table, *owned):
            params.update(card.parameters)
        ingredients, spices, tokens = self.items(top.get("pantry", {}), params)
        if self.problems:
            raise InputError(self.located())
        assert target is not None
        return Question(self.rs, target, challenges, table, name, owned, ingredients, spices, tokens)

    def target(self, value: Any) -> str | None:
        rounds = self.rs.parameters["challenge_rounds"].value
        allowed = (*rounds, CRITIC)
        if value in allowed:
            return str(value)
        self.fail(Where("for"), f"expected one of {', '.join(allowed)}, got {shown(value)}", shape=True)
        return None

    def table_cards(self, value: Any, target: str | None) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        where = Where("cards")
        data = self.mapping(value, where) or {}
        self.keys(data, self.table_fields, where)
        challenges: tuple[Card, ...] = ()
        table: list[Card] = []
        for field, kind in self.table_fields.items():
            if field == CHALLENGES:
                challenges = self.round_cards(data.get(field), kind, target, where / field)
                continue
            items = data.get(field)
            if items is None:
                continue
            if isinstance(items, list) and kind in self.single:
                self.fail(where / field, f"expected one {kind} card id, got a list")
                continue
            at = [(v, where / field / i) for i, v in enumerate(items)] if isinstance(items, list) else []
            for cid, w in at or [(items, where / field)]:
                card = self.card(cid, kind, w)
                if card is not None and card not in table:
                    table.append(card)
        return challenges, tuple(table)

    def round_cards(self, value: Any, kind: str, target: str | None, where: Where) -> tuple[Card, ...]:
        """The planned round's challenge cards in reveal order (none is needed for the critic meal)."""
        if value is None:
            if target != CRITIC:
                self.fail(Where("cards"), f"missing required key '{CHALLENGES}'")
            return ()
        data = self.mapping(value, where) or {}
        rounds = self.rs.parameters["challenge_rounds"].value
        self.keys(data, rounds, where)
        if target is None or target == CRITIC:
            return ()
        if target not in data:
            self.fail(where, f"missing required key '{target}'")
            return ()
        items = self.listing(data[target], where / target) or []
        per_round = self.rs.parameters["challenges_per_round"].value
        if len(items) != per_round:
            self.fail(where / target, f"{len(items)} challenge cards; each challenge round reveals {per_round}")
        cards: list[Card] = []
        for i, cid in enumerate(items):
            card = self.card(cid, kind, where / target / i)
            if card is not None and card in cards:
                self.fail(where / target / i, f"challenge '{card.id}' is listed twice")
            elif card is not None:
                cards.append(card)
        return tuple(cards)

    def player_entry(self, value: Any) -> tuple[str, tuple[Card, ...]]:
        where = Where("player")
        data = self.mapping(value, where) or {}
        self.keys(data, ("name", *self.owned_fields), where)
        name = self.player_name(data["name"], where / "name") if "name" in data else DEFAULT_NAME
        owned: list[Card] = []
        for field, kind in self.owned_fields.items():
            items = data.get(field)
            if items is None:
                continue
            if isinstance(items, list) and kind in self.single:
                self.fail(where / field, f"a player holds one {kind} card, not a list")
                continue
            at = [(v, where / field / i) for i, v in enumerate(items)] if isinstance(items, list) else []
            for cid, w in at or [(items, where / field)]:
                card = self.card(cid, kind, w)
                if card is not None and card not in owned:
                    owned.append(card)
        return name or DEFAULT_NAME, tuple(owned)

    def items(
        self, value: Any, params: dict[str, Any]
    ) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...], dict[str, int]]:
        where = Where("pantry")
        data = self.mapping(value, where) or {}
        token_names = tuple(params["token_values"])
        self.keys(data, ("ingredients", "spices", *token_names), where)
        listed = data.get("ingredients", [])
        held = data.get("spices", [])
        many = (len(listed) if isinstance(listed, list) else 0) + (len(held) if isinstance(held, list) else 0)
        if many > MAX_PANTRY_ITEMS:
            self.fail(where, f"{many} ingredients and spices; a pantry may hold at most {MAX_PANTRY_ITEMS}", shape=True)
            ingredients: tuple[tuple[str, int], ...] = ()  # not read one by one
            spices: tuple[str, ...] = ()
        else:
            ingredients, spices = self.items_held(data, params["wild_spice"], where)
        tokens = {name: 0 for name in token_names}
        for name in token_names:
            if name in data and (n := self.count(data[name], where / name)) is not None:
                tokens[name] = n
        return ingredients, spices, tokens


def read_pantry(ruleset: Ruleset, data: Any, source: str, document: Document | None = None) -> Question:
    """Check a parsed pantry against the ruleset; InputError lists every problem, located."""
    reader = PantryReader(ruleset, source, document)
    try:
        return reader.read_pantry(data)
    except InputError:
        raise InputError(reader.located()) from None

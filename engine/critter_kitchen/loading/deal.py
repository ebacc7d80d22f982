"""The deal model of the rules cards (``deal:``): what a simulated game deals, merged over the
packs and checked against the rules in force, every problem located where the number was set.

Scoring never reads the deal model; the balance lab (``critter-kitchen simulate``) does. The
schema checks each number's shape; this module checks what a shape cannot: that the types,
spices, tokens, rounds, card kinds and counters it names are the ones the rules declare.
"""

from __future__ import annotations

from ..errors import did_you_mean
from ..model.ruleset import DealNumber
from .records import MAX_VALUE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    from ..model.ruleset import Ruleset
    from .yamlpos import Document

    Located = Callable[[Document, tuple[str | int, ...], str, str], None]

MERGED = ("ingredient_tokens", "spice_tokens", "late_tokens", "supply", "cards", "counters")  # tables merge by key

# What one simulated game may deal. The balance lab deals by these numbers in every game, so
# each bounds its work or memory; each is far above the retail game (the figure in brackets),
# and past it the pack is refused (CK005) where the number that passes it is written.
MAX_BAG = 10_000  # tokens in the bag: ingredient, spice and late tokens together (109)
MAX_SUPPLY = 10_000  # soup and bisque tokens in the supply (47)
MAX_ROUNDS = 100  # rounds of a game (7)
MAX_GATHERED = 100  # items one player draws over a game, from the bag and the supply together (27)
MAX_DEALT = 100  # cards of one kind dealt to the table, or to each player (3)
# A token's value and a counter end up in a game record, which holds no number above MAX_VALUE.
TOO_LARGE = "CK005"


def merge_deal(ruleset: Ruleset, spec: dict[str, Any], doc: Document, places: dict[str, Any]) -> None:
    """Add one rules card's ``deal:`` section: tables add to (or replace) the keys of the same
    number; other values replace it. ``places`` remembers, per number and key, where it was set."""
    for name, entry in spec.items():
        old = ruleset.deal.get(name)
        value = entry["value"]
        if old is not None and name in MERGED and isinstance(old.value, dict):
            value = {**old.value, **value}
            notes = [n for n in (old.unverified, entry.get("unverified", "")) if n]
            unverified = "; ".join(notes)
        else:
            unverified = entry.get("unverified", "")
        description = entry.get("description", old.description if old is not None else "")
        ruleset.deal[name] = DealNumber(name, value, description, unverified)
        where = places.setdefault(name, {})
        if name not in MERGED or old is None:
            where.clear()
        where[None] = doc
        for key in entry["value"] if isinstance(entry["value"], dict) else ():
            where[key] = doc


def check_deal(ruleset: Ruleset, places: dict[str, Any], at: Located) -> None:
    """Report every name in the merged deal model that the rules in force do not declare, and
    every number past the limits above."""
    deal = ruleset.deal
    if not deal:
        return
    check_limits(ruleset, places, at)
    params = ruleset.base_params()
    types = ruleset.ingredient_types
    spices = (*types, params.get("wild_spice", ""))
    tokens = tuple(params.get("token_values", {}))
    rounds = tuple(deal["rounds"].value) if "rounds" in deal else ()
    kinds = tuple(k for k in ruleset.card_kinds if ruleset.card_kinds[k] != "cards.challenges")

    def names(number: str, known: Iterable[str], what: str, keys: Iterable[Any] | None = None) -> None:
        if number not in deal:
            return
        known = tuple(known)
        for key in keys if keys is not None else deal[number].value:
            if key not in known:
                doc = places[number].get(key, places[number][None])
                at(
                    doc,
                    ("deal", number, "value", key),
                    f"unknown {what} '{key}'{did_you_mean(str(key), known)}",
                    "CK206",
                )

    names("ingredient_tokens", types, "ingredient type")
    names("spice_tokens", spices, "spice")
    names("supply", tokens, "token")
    names("late_tokens", rounds, "round")
    names("cards", kinds, "card kind")
    names("counters", ruleset.counters, "counter")
    if "late_tokens" in deal:
        for rnd, added in deal["late_tokens"].value.items():
            for spice in added:
                if spice not in spices:
                    doc = places["late_tokens"].get(rnd, places["late_tokens"][None])
                    at(
                        doc,
                        ("deal", "late_tokens", "value", rnd, spice),
                        f"unknown spice '{spice}'{did_you_mean(spice, spices)}",
                        "CK206",
                    )
    challenge_rounds = params.get("challenge_rounds", [])
    if "rounds" in deal:
        for rnd in challenge_rounds:
            if rnd not in rounds:
                doc = places["rounds"][None]
                at(doc, ("deal", "rounds", "value"), f"the deal's rounds have no challenge round '{rnd}'", "CK206")
    for counter in ruleset.counters:
        if "counters" in deal and counter in deal["counters"].value:
            low, high = deal["counters"].value[counter]
            if low > high:
                doc = places["counters"].get(counter, places["counters"][None])
                at(doc, ("deal", "counters", "value", counter), f"fewest {low} is more than most {high}", "CK206")


def check_limits(ruleset: Ruleset, places: dict[str, Any], at: Located) -> None:
    """Report the number that takes the deal model past each limit, where it is written."""
    deal = ruleset.deal

    def table(name: str) -> dict[str, Any]:
        return dict(deal[name].value) if name in deal else {}

    def past(number: str, path: tuple[str | int, ...], message: str) -> None:
        doc = places[number].get(path[0], places[number][None]) if path else places[number][None]
        at(doc, ("deal", number, "value", *path), message, TOO_LARGE)

    for kind, rows in table("ingredient_tokens").items():
        for i, (value, _) in enumerate(rows):
            if value > MAX_VALUE:
                past("ingredient_tokens", (kind, i, 0), f"a token's value is at most {MAX_VALUE}, not {value}")
    bag = [
        *(
            (("ingredient_tokens", (kind, i, 1)), row[1])
            for kind, rows in table("ingredient_tokens").items()
            for i, row in enumerate(rows)
        ),
        *((("spice_tokens", (spice,)), n) for spice, n in table("spice_tokens").items()),
        *(
            (("late_tokens", (rnd, spice)), n)
            for rnd, added in table("late_tokens").items()
            for spice, n in added.items()
        ),
    ]
    full = _passing(bag, MAX_BAG)
    if full is not None:
        past(*full, f"the bag holds more than {MAX_BAG} tokens (ingredient, spice and late tokens together)")
    full = _passing([(("supply", (token,)), n) for token, n in table("supply").items()], MAX_SUPPLY)
    if full is not None:
        past(*full, f"the supply holds more than {MAX_SUPPLY} tokens")
    rounds = table("rounds")
    if len(rounds) > MAX_ROUNDS:
        past("rounds", (), f"a game has at most {MAX_ROUNDS} rounds, not {len(rounds)}")
    drawn = [(("rounds", (rnd,)), g.get("bag", 0) + g.get("supply", 0)) for rnd, g in rounds.items()]
    full = _passing(drawn, MAX_GATHERED)
    if full is not None:
        past(*full, f"a player draws more than {MAX_GATHERED} items over a game (from the bag and the supply together)")
    for kind, spec in table("cards").items():
        for where, n in spec.items():
            if n > MAX_DEALT:
                past("cards", (kind, where), f"at most {MAX_DEALT} cards of a kind are dealt, not {n}")
    for counter, (_, high) in table("counters").items():
        if high > MAX_VALUE:
            past("counters", (counter, 1), f"a counter is at most {MAX_VALUE}, not {high}")


def _passing(
    counts: Sequence[tuple[tuple[str, tuple[str | int, ...]], int]], limit: int
) -> tuple[str, tuple[str | int, ...]] | None:
    """Where the running total of ``counts`` first passes ``limit``, if it does."""
    total = 0
    for where, n in counts:
        total += n
        if total > limit:
            return where
    return None


def unverified_numbers(ruleset: Ruleset) -> list[str]:
    """The names of the deal model's numbers that are not confirmed, in declaration order."""
    return [name for name, number in ruleset.deal.items() if number.unverified]

"""The deal model of the rules cards (``deal:``): what a simulated game deals, merged over the
packs and checked against the rules in force, every problem located where the number was set.

Scoring never reads the deal model; the balance lab (``critter-kitchen simulate``) does. The
schema checks each number's shape; this module checks what a shape cannot: that the types,
spices, tokens, rounds, card kinds and counters it names are the ones the rules declare.
"""

from __future__ import annotations

from ..errors import did_you_mean
from ..model.ruleset import DealNumber

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..model.ruleset import Ruleset
    from .yamlpos import Document

    Located = Callable[[Document, tuple[str | int, ...], str], None]

MERGED = ("ingredient_tokens", "spice_tokens", "late_tokens", "supply", "cards", "counters")  # tables merge by key


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
    """Report every name in the merged deal model that the rules in force do not declare."""
    deal = ruleset.deal
    if not deal:
        return
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
                at(doc, ("deal", number, "value", key), f"unknown {what} '{key}'{did_you_mean(str(key), known)}")

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
                    )
    challenge_rounds = params.get("challenge_rounds", [])
    if "rounds" in deal:
        for rnd in challenge_rounds:
            if rnd not in rounds:
                doc = places["rounds"][None]
                at(doc, ("deal", "rounds", "value"), f"the deal's rounds have no challenge round '{rnd}'")
    for counter in ruleset.counters:
        if "counters" in deal and counter in deal["counters"].value:
            low, high = deal["counters"].value[counter]
            if low > high:
                doc = places["counters"].get(counter, places["counters"][None])
                at(doc, ("deal", "counters", "value", counter), f"fewest {low} is more than most {high}")


def unverified_numbers(ruleset: Ruleset) -> list[str]:
    """The names of the deal model's numbers that are not confirmed, in declaration order."""
    return [name for name, number in ruleset.deal.items() if number.unverified]

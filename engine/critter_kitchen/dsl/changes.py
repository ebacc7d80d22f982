"""The changes of one hook point, applied when it ends, in layers: every set, then the adds, then the multiplies.

A ``set``, ``add`` or ``multiply`` statement does not write its quantity: it records a
:class:`Change` in the game, so every effect of the hook point reads the game as the hook
point began (the effect's own changes included). When the hook point ends, each quantity
gets its set value (all sets of it must agree), then the sum of its adds, then the product
of its multiplies. Each layer commutes, so the order the effects ran in cannot show.
"""

from __future__ import annotations

from .frame import bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .entries import Function


class Change:
    """One set, add or multiply statement's effect on one quantity, not yet applied."""

    __slots__ = ("how", "fn", "args", "amount", "frame")

    def __init__(self, how: str, fn: Function, args: tuple[Any, ...], amount: int, frame: Any) -> None:
        self.how = how  # "set", "add" or "multiply"
        self.fn = fn  # the registry function whose quantity changes: its impl reads it, its setter writes it
        self.args = args
        self.amount = amount
        self.frame = frame  # the frame of the effect that made the change (its card, its stage)


class ConflictingSet(Exception):
    """Two set statements of one hook point gave one quantity different values."""


def apply_changes(changes: list[Change]) -> None:
    """Apply the changes of one hook point, quantity by quantity, in layers."""
    if len(changes) == 1:  # most hook points that change anything change one quantity once
        _apply_layers(changes)
        return
    by_quantity: dict[tuple[str, tuple[Any, ...]], list[Change]] = {}
    for change in changes:
        key = (change.fn.name, change.args)
        group = by_quantity.get(key)
        if group is None:
            by_quantity[key] = [change]
        else:
            group.append(change)
    for group in by_quantity.values():
        _apply_layers(group)


def _apply_layers(group: list[Change]) -> None:
    """The changes of one quantity: its set value, then the sum of its adds, then the product of its multiplies."""
    first = group[0]
    fn, args, frame = first.fn, first.args, first.frame
    setter = fn.setter
    assert setter is not None
    sets: list[Change] | None = None
    added, adding = 0, False
    product, multiplying = 1, False
    for change in group:  # one walk: each layer keeps its changes' order
        how = change.how
        if how == "set":
            if sets is None:
                sets = [change]
            else:
                sets.append(change)
        elif how == "add":
            added += change.amount
            adding = True
        elif how == "multiply":
            product = bounded(product * change.amount)
            multiplying = True
    if sets is not None:
        setter(frame, agreed_value(sets), *args)
    if adding:
        setter(frame, bounded(fn.impl(frame, *args) + added), *args)
    if multiplying:
        setter(frame, bounded(fn.impl(frame, *args) * product), *args)


def agreed_value(sets: list[Change]) -> int:
    """The one value every set of a quantity gives it; two different values are a conflict."""
    values = sorted({c.amount for c in sets})
    if len(values) == 1:
        return values[0]
    cards = sorted({c.frame.card.id for c in sets})
    first = sets[0]
    quantity = quantity_text(first.fn, first.args)
    shown = ", ".join(str(v) for v in values)
    who = f"card '{cards[0]}' sets" if len(cards) == 1 else "cards " + ", ".join(f"'{c}'" for c in cards) + " set"
    raise ConflictingSet(
        f"{who} {quantity} to different values ({shown}) at one hook point of stage '{first.frame.stage}'"
    )


def quantity_text(fn: Function, args: tuple[Any, ...]) -> str:
    """The quantity in plain words, e.g. ``Ana's fish course quality``."""
    return fn.phrase.format(**{name: str(arg) for (name, _), arg in zip(fn.params, args, strict=True)})

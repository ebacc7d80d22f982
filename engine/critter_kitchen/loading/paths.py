"""Where the shipped data lives: inside the wheel, or in the source tree."""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _data(*parts: str) -> str:
    installed = os.path.join(_PACKAGE, "data", *parts)
    if os.path.exists(installed):
        return installed
    return os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), *parts)  # an editable install or a checkout


def base_pack() -> str:
    return _data("cards", "base")


def schemas() -> str:
    return _data("schemas")


def shipped_cards() -> str:
    """The folder that holds every shipped pack (the base pack, expansions, variants)."""
    return _data("cards")

"""Where the shipped data lives: inside the wheel, or in the source tree."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def _data(*parts: str) -> Path:
    installed = _PACKAGE.joinpath("data", *parts)
    if installed.exists():
        return installed
    return _PACKAGE.parent.parent.joinpath(*parts)  # an editable install or a checkout


def base_pack() -> Path:
    return _data("cards", "base")


def schemas() -> Path:
    return _data("schemas")

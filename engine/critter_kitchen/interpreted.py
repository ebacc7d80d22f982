"""Classes that stay interpreted Python in the compiled build.

Each subclasses a builtin type (``float``, ``tuple``), which mypyc cannot compile as a
native class; the build leaves this module out (pyproject.toml), and compiled modules
use these classes as they would any Python class. Nothing else belongs here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class WrittenFloat(float):
    """A fractional number read from a file, with its text as written (``2.50``, ``1e3``, ``.inf``).

    Numbers in the game are whole, so a fraction is only ever reported as wrong; keeping its
    text lets the message show what the file says rather than Python's rendering of it.
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str, value: float | None = None) -> WrittenFloat:
        number = super().__new__(cls, float(text) if value is None else value)
        number.text = text
        return number

    def __reduce__(self) -> tuple[Any, ...]:
        return WrittenFloat, (self.text, float(self))


class Ranked(tuple):  # type: ignore[type-arg]
    """The items that share the highest (or lowest) number, with that number."""

    value: int | None = None

"""A light base for small value classes.

The ``score`` command starts cold, and ``dataclasses`` costs more to import and to apply
than the whole of scoring a game. Classes on that path declare ``__slots__`` and their
own ``__init__``; this base gives them equality, hashing, ordering and a repr from the
slots, as a frozen dataclass would.

It also holds :class:`WrittenFloat`, the one number type the file readers make that
remembers its source text.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Value:
    __slots__: tuple[str, ...] = ()
    _compared: tuple[str, ...] = ()  # slots that equality and ordering look at; all when empty

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in (self._compared or self.__slots__))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Value) and type(other) is type(self) and self._key() == other._key()

    def __lt__(self, other: Value) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


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

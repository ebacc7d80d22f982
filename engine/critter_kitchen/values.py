"""A light base for small value classes.

The ``score`` command starts cold, and ``dataclasses`` costs more to import and to apply
than the whole of scoring a game. Classes on that path declare ``__slots__`` and their
own ``__init__``; this base gives them equality, hashing, ordering and a repr from the
slots, as a frozen dataclass would.

The compiled build is a second reason to keep hot classes hand-written: mypyc compiles a
dataclass, but its ``__init__`` stays the Python function ``dataclasses`` writes, so
making one took 177 ns where a class with its own native ``__init__`` took 34 (a million
objects of three fields, mypy 2.4.1). Classes that a search makes by the thousand
(``plan.bands.Partial``, ``plan.pareto.Listed``) stay hand-written for that.

Each subclass lists its fields in ``_fields`` and sets ``__slots__`` from it: a class
compiled by mypyc keeps no ``__slots__`` attribute, so the list this base reads must be
an attribute of its own.

It also offers :class:`WrittenFloat`, the one number type the file readers make that
remembers its source text (defined in :mod:`critter_kitchen.interpreted`).
"""

from __future__ import annotations

from .interpreted import WrittenFloat as WrittenFloat  # where the readers have always found it

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


class Value:
    __slots__: tuple[str, ...] = ()
    _fields: ClassVar[tuple[str, ...]] = ()  # every field, in order: what the repr shows
    _compared: ClassVar[tuple[str, ...]] = ()  # fields that equality and ordering look at; all when empty

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in (self._compared or self._fields))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Value) and type(other) is type(self) and self._key() == other._key()

    def __lt__(self, other: Value) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

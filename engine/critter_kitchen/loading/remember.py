"""What the loads of one process found file by file, kept for the next loads: only where
the same packs are loaded again and again with one file changed (the language server,
at every keystroke), and only when :func:`start` has been called.

Each store keeps an entry while one of the last :data:`KEPT_LOADS` loads used it: the
memory is what those loads read and made, never more, whatever the files' texts were
(a count of entries would not bound it: one file may be 2 MiB).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Hashable
    from typing import Any

KEPT_LOADS = 4  # the pack being typed in, and a few others (a record's packs, the base pack alone)

_stores: list[Store] = []
_load = 0
_on = False


class Store:
    """One kind of thing remembered (parsed effects, schema problems...), by a key of the file's text."""

    def __init__(self) -> None:
        self.entries: dict[Hashable, tuple[int, Any]] = {}
        _stores.append(self)

    def get(self, key: Hashable) -> Any:
        """The value kept under ``key`` (now used by this load), or None."""
        if not _on:
            return None
        held = self.entries.get(key)
        if held is None:
            return None
        self.entries[key] = (_load, held[1])
        return held[1]

    def put(self, key: Hashable, value: Any) -> None:
        if _on:
            self.entries[key] = (_load, value)


def start() -> None:
    """Remember from now on, in this process."""
    global _on
    _on = True


def is_on() -> bool:
    return _on


def new_load() -> None:
    """A load begins: forget what none of the last KEPT_LOADS loads used."""
    global _load
    if not _on:
        return
    _load += 1
    for store in _stores:
        for key in [k for k, (used, _) in store.entries.items() if used <= _load - KEPT_LOADS]:
            del store.entries[key]

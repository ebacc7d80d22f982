"""The packs that can be loaded, for people and for programs.

Names and versions come from pack.yaml files and distributions' metadata, a stranger's
data: every text is shown with its control characters escaped.
"""

from __future__ import annotations

from typing import Any

from ..errors import escaped
from ..loading.resolve import PackInfo


def packs_json(packs: list[PackInfo]) -> list[dict[str, Any]]:
    return [{"id": p.id, "name": p.name, "version": p.version, "from": p.origin, "path": p.folder} for p in packs]


def packs_text(packs: list[PackInfo]) -> str:
    """One line per pack: id, version (or -), name, and where it comes from with its folder."""
    if not packs:
        return "no packs found"
    rows = [
        (escaped(p.id), escaped(p.version or "-"), escaped(p.name), escaped(f"{p.origin}: {p.folder}")) for p in packs
    ]
    header = ("ID", "VERSION", "NAME", "FROM")
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(3)]
    return "\n".join(
        "  ".join((*(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])), row[3])) for row in (header, *rows)
    )

"""A result as the JSON document fixed by the public interface."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..stages.runner import Result, Standing


def result_json(result: Result) -> dict[str, Any]:
    return {
        "winner": result.winner.name,
        "standings": [_standing(s) for s in result.standings],
        "awards": [a.to_json() for a in result.awards],
        "decided_by": result.decided_by,
        "notes": result.notes,
    }


def _standing(s: Standing) -> dict[str, Any]:
    out: dict[str, Any] = {"rank": s.rank, "name": s.player.name, "stars": s.stars, "critic_quality": s.critic_quality}
    if s.player.automated:
        out["automated"] = True
    return out

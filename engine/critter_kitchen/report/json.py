"""A result as the JSON document fixed by the public interface, and JSON text safe to print."""

from __future__ import annotations

from .. import fastjson  # imports nothing itself (orjson only when first used)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.game import Player
    from ..stages.runner import Result, Standing


def result_json(result: Result) -> dict[str, Any]:
    return {
        "winner": result.winner.name,
        "winners": [p.name for p in result.winners],
        "standings": [_standing(s) for s in result.standings],
        "awards": [a.to_json() for a in result.awards],
        "decided_by": result.decided_by,
        "notes": result.notes,
    }


def _standing(s: Standing) -> dict[str, Any]:
    out: dict[str, Any] = {"rank": s.rank, "name": s.player.name, "stars": s.stars, "critic_quality": s.critic_quality}
    if s.player.automated:
        out["automated"] = True
    if s.player.left_recorded:
        out["left"] = left_json(s.player)
    return out


def left_json(player: Player) -> dict[str, Any]:
    """What ``player`` had left unused at the end of the game, as the record said it
    (``critic_meals.NAME.left``): ``{"ingredients": [{"type", "value"}, ...], "spices": [...]}``."""
    return {
        "ingredients": [{"type": i.type, "value": i.value} for i in player.left_ingredients],
        "spices": list(player.left_spices),
    }


def json_text(value: Any, *, indent: int | None = None, ascii_only: bool = False) -> str:
    """``value`` as JSON that keeps non-ASCII text readable but holds no unprintable character.

    ``json.dumps(..., ensure_ascii=False)`` escapes only the C0 controls; DEL, the C1
    controls (U+009B starts a terminal sequence too), line separators and invisible
    formatting characters would reach the terminal raw. Written as ``\\uXXXX`` they decode
    to the same strings. Outside strings JSON text is ASCII, so only strings are touched.
    ``ascii_only`` escapes every non-ASCII character, for an output that cannot show them.
    """
    text = _compact(value) if indent is None and not ascii_only else None
    if text is None:
        import json

        separators = (",", ":") if indent is None else None
        text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ascii_only)
    # The common case first, quickly: ASCII text is printable but for DEL, json having
    # escaped the C0 controls; the newlines are the indentation's, strings hold none raw.
    if (text.isascii() and "\x7f" not in text) or text.replace("\n", "").isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else _json_escape(ch) for ch in text)


def json_line(value: Any, encoding: str = "utf-8", errors: str = "strict") -> bytes:
    """``json_text(value) + "\n"`` encoded in UTF-8 (``encoding`` and ``errors`` must name a
    UTF-8 codec: the output's, for the text that orjson does not write).

    A JSON Lines batch writes one a record: orjson's bytes are taken as they are where
    ``json_text`` would give them unchanged (ASCII without DEL), with no decoding and
    encoding again.
    """
    written = fastjson.write_line(value)
    if written is not None and written.isascii() and b"\x7f" not in written:
        return written
    return (json_text(value) + "\n").encode(encoding, errors)


def _compact(value: Any) -> str | None:
    """``value`` as compact JSON written by orjson where it equals json's (a JSON Lines batch
    writes one a record), else None."""
    return fastjson.write(value)


def _json_escape(ch: str) -> str:
    """``ch`` as a JSON string escape: ``\\uXXXX``, or a surrogate pair beyond the BMP."""
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

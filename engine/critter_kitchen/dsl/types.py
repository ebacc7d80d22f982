"""The value types of the effect language, written as short strings."""

from __future__ import annotations

INT = "int"
BOOL = "bool"
TEXT = "text"
PLAYER = "player"
MEAL = "meal"
BANDS = "bands"
TABLE = "table"
# Types whose values are names declared by packs; a bare name or quoted text is a literal.
INGREDIENT = "ingredient"
ROUND = "round"
STAGE = "stage"
COUNTER = "counter"
TOKEN = "token"
ENUMS = (INGREDIENT, ROUND, STAGE, COUNTER, TOKEN)
ANY = "any"
ERROR = "?"  # the type of an expression that already has a reported problem


def list_of(t: str) -> str:
    return f"list[{t}]"


def element(t: str) -> str | None:
    return t[5:-1] if t.startswith("list[") else None


def accepts(expected: str, actual: str) -> bool:
    """Whether a value of type ``actual`` may stand where ``expected`` is wanted."""
    if ERROR in (expected, actual) or expected == ANY or expected == actual:
        return True
    e, a = element(expected), element(actual)
    return e is not None and a is not None and accepts(e, a)


def describe(t: str) -> str:
    inner = element(t)
    return f"list of {inner}s" if inner else t

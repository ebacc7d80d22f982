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
CARD = "card"
CARD_NAME = "card name"
SPICE = "spice"  # a spice type (named by its ingredient type) or the wild spice
ENUMS = (INGREDIENT, ROUND, STAGE, COUNTER, TOKEN, CARD, CARD_NAME, SPICE)
# Card ids and names are quoted where a card is expected; elsewhere a bare name is never one.
QUOTED_ONLY = (CARD, CARD_NAME)
ITEM = "item"  # one ingredient: of a challenge meal, or one a player left unused
ANY = "any"
ERROR = "?"  # the type of an expression that already has a reported problem


def list_of(t: str) -> str:
    return f"list[{t}]"


def element(t: str) -> str | None:
    return t[5:-1] if t.startswith("list[") else None


def items_of(t: str) -> str | None:
    """The type of the items a loop, an aggregate or 'in' goes through in a value of type ``t``:
    a list's elements, a table's names (``count(course_counts(p))``, ``"bread" in token_values``)."""
    return TEXT if t == TABLE else element(t)


# (wanted, given): a value of the given type also serves where the wanted type is expected.
_SERVES = {
    (SPICE, INGREDIENT),  # an ingredient type names the spice of that type
    (TEXT, CARD_NAME),  # a card's name is shown and looked up like any text
    # a name a pack declares is text too: the key of a table (lookup(course_counts(p), t))
    (TEXT, INGREDIENT),
    (TEXT, ROUND),
    (TEXT, STAGE),
    (TEXT, COUNTER),
    (TEXT, TOKEN),
    (TEXT, SPICE),
}


BAND_ROWS = "list[list[int]]"  # a list of lists of numbers, as a list written out gives bands


def accepts(expected: str, actual: str) -> bool:
    """Whether a value of type ``actual`` may stand where ``expected`` is wanted."""
    if ERROR in (expected, actual) or expected == ANY or expected == actual or (expected, actual) in _SERVES:
        return True
    if expected == BANDS and actual == BAND_ROWS:  # each row [minimum, stars]; band() refuses a row of another length
        return True
    e, a = element(expected), element(actual)
    return e is not None and a is not None and accepts(e, a)


_WORDS = {
    INT: ("a number", "numbers"),
    BOOL: ("a condition", "conditions"),
    TEXT: ("text", "texts"),
    PLAYER: ("a player", "players"),
    MEAL: ("a meal", "meals"),
    BANDS: ("bands", "bands"),
    TABLE: ("a table", "tables"),
    INGREDIENT: ("an ingredient type", "ingredient types"),
    ROUND: ("a round", "rounds"),
    STAGE: ("a stage", "stages"),
    COUNTER: ("a counter", "counters"),
    TOKEN: ("a token kind", "token kinds"),
    CARD: ("a card id", "card ids"),
    CARD_NAME: ("a card name", "card names"),
    SPICE: ("a spice", "spices"),
    ITEM: ("an ingredient", "ingredients"),
    ANY: ("anything", "anything"),
}


def describe(t: str) -> str:
    """A type in words: ``list[player]`` is 'a list of players'."""
    inner = element(t)
    if inner is not None:
        return f"a list of {_plural(inner)}"
    return _WORDS.get(t, (t, t))[0]


def _plural(t: str) -> str:
    inner = element(t)
    if inner is not None:
        return f"lists of {_plural(inner)}"
    return _WORDS.get(t, (t, t + "s"))[1]

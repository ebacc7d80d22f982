"""The vocabulary of the effect language, each entry declared once, with its behaviour.

The parser (its keywords), the type checker, the compiler, the node builder, the
card-text renderer and the README reference all read these tables; nothing else lists
what the language contains. Each entry carries what it does (``entries.py``): a
function its impl and the builder of its node, an aggregate and a statement the builder
of theirs.
"""

from __future__ import annotations

from operator import attrgetter

from ..errors import EvaluationError
from . import run_nodes as nodes
from . import types as t
from .budget import FREE_WALK, charge, not_a_band, spend
from .entries import Aggregate, Function, Statement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..model.game import Meal, Player
    from .frame import Frame


# The parts of a game that a program reads and that can differ between two runs of one
# game's stages: what the stages change as they run, each player's stars (and stars by
# stage: award statements add to them) and the course qualities (set, add and multiply
# change them); and the challenge meals, which rescoring without a challenge card's meals
# changes. Everything else a program reads is what the record and the cards in play give.
# A function whose impl reads one of them declares it (``reads_state``); a settable
# function's setter writes what the function reads. Rescoring (stages/rescore.py) replays
# a hook point of the game with every card, instead of running it again, when its
# programs read nothing the removal changed.
STARS = "stars"
QUALITY = "quality"
MEALS = "meals"
STATE = (STARS, QUALITY, MEALS)


# The names a meal constraint's condition reads of its meal, by the meal it is about, in
# the order of their slots (stages/constraints.py fills them).
CONSTRAINT_NAMES: dict[str, dict[str, str]] = {
    "challenge": {"meal": t.MEAL, "player": t.PLAYER},
    "critic": {"courses": t.list_of(t.INGREDIENT), "player": t.PLAYER},
}

FUNCTIONS: dict[str, Function] = {}


def _fn(
    name: str,
    params: str,
    returns: str,
    doc: str,
    phrase: str,
    *,
    needs_owner: bool = False,
    setter: Callable[..., None] | None = None,
    reads: str | None = None,
    sees_cards: bool = False,
    reads_params: tuple[str, ...] = (),
    reads_state: tuple[str, ...] = (),
    is_phrase: str = "",
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        pairs = tuple(tuple(p.split(":")) for p in params.split()) if params else ()
        FUNCTIONS[name] = Function(
            name,
            pairs,  # type: ignore[arg-type]
            returns,
            doc,
            phrase,
            impl,
            setter,
            needs_owner,
            reads,
            sees_cards,
            reads_params,
            reads_state,
            build=nodes.read_node if reads is not None else nodes.call_node,
            is_phrase=is_phrase,
        )
        return impl

    return register


def _attribute(
    name: str,
    params: str,
    returns: str,
    doc: str,
    phrase: str,
    reads: str,
    *,
    needs_owner: bool = False,
    reads_params: tuple[str, ...] = (),
    reads_state: tuple[str, ...] = (),
    is_phrase: str = "",
) -> None:
    """A function that reads an attribute path of its one argument, or of the frame when it has none.

    Its nodes read it with ``operator.attrgetter``, without a Python call of their own.
    """
    get = attrgetter(reads)
    impl: Callable[..., Any] = (lambda f, x: get(x)) if params else get
    _fn(
        name,
        params,
        returns,
        doc,
        phrase,
        needs_owner=needs_owner,
        reads=reads,
        reads_params=reads_params,
        reads_state=reads_state,
        is_phrase=is_phrase,
    )(impl)


_attribute("players", "", t.list_of(t.PLAYER), "every player, in priority order", "the players", "game.players")
_attribute(
    "ingredient_types",
    "",
    t.list_of(t.INGREDIENT),
    "every ingredient type of the loaded packs",
    "the ingredient types",
    "game.ruleset.ingredient_types",
)
_attribute("owner", "", t.PLAYER, "the player who owns this card", "the owner", "owner", needs_owner=True)
_attribute(
    "served",
    "p:player",
    t.list_of(t.INGREDIENT),
    "the courses p served in the critic meal",
    "the courses {p} served",
    "served",
)


def _set_quality(f: Frame, value: int, p: Player, kind: str) -> None:
    course = p.courses.get(kind)
    if course is not None:
        course.quality = max(0, value)


@_fn(
    "quality",
    "p:player t:ingredient",
    t.INT,
    "quality of p's t course as the hook point began (0 if not served); set, add and multiply change it",
    "{p}'s {t} course quality",
    setter=_set_quality,
    reads_state=(QUALITY,),
)
def _quality(f: Frame, p: Player, kind: str) -> int:
    course = p.courses.get(kind)
    return course.quality if course is not None else 0


@_fn(
    "value",
    "p:player t:ingredient",
    t.INT,
    "printed value of the ingredient in p's t course (0 if none)",
    "the value of {p}'s {t} ingredient",
)
def _value(f: Frame, p: Player, kind: str) -> int:
    course = p.courses.get(kind)
    return course.value if course is not None else 0


@_fn("spiced", "p:player t:ingredient", t.BOOL, "whether p's t course has a spice", "{p}'s {t} course is spiced")
def _spiced(f: Frame, p: Player, kind: str) -> bool:
    course = p.courses.get(kind)
    return course is not None and bool(course.spices)


@_fn(
    "total_quality",
    "p:player",
    t.INT,
    "sum of p's course qualities now: the critic score track position",
    "{p}'s total critic quality",
    reads_state=(QUALITY,),
)
def _total_quality(f: Frame, p: Player) -> int:
    return p.critic_quality()


@_fn(
    "tokens",
    "p:player k:token",
    t.INT,
    "how many unused k tokens p kept for the critic meal",
    "{p}'s unused {k} tokens",
)
def _tokens(f: Frame, p: Player, kind: str) -> int:
    return p.tokens.get(kind, 0)


@_fn(
    "token_value",
    "p:player",
    t.INT,
    "total value of p's unused tokens (each at its value in 'token_values')",
    "the value of {p}'s unused tokens",
    reads_params=("token_values",),
)
def _token_value(f: Frame, p: Player) -> int:
    own = p.params  # the player's own token values, when the cards they hold change them
    values: dict[str, int] = (own if own is not None else f.game.params)["token_values"]  # a table
    total = 0
    for kind, n in p.tokens.items():
        total += n * values.get(kind, 0)
    return total


_attribute(
    "left_ingredients",
    "p:player",
    t.list_of(t.ITEM),
    "the ingredients p had left unused at the end of the game, as the record says (none if it does not say)",
    "the ingredients {p} left unused",
    "left_ingredients",
)
_attribute(
    "left_spices",
    "p:player",
    t.list_of(t.SPICE),
    "the spices p had left unused at the end of the game, as the record says (none if it does not say)",
    "the spices {p} left unused",
    "left_spices",
    reads_params=("wild_spice",),  # a spice left is one the rules know: rescoring keeps what they know
)
_attribute(
    "left_recorded",
    "p:player",
    t.BOOL,
    "whether the record says what p had left unused at the end of the game",
    "the record says what {p} left unused",
    "left_recorded",
)


_attribute(
    "stars",
    "p:player",
    t.INT,
    "stars p had when the hook point began",
    "{p}'s stars so far",
    "stars",
    reads_state=(STARS,),
)


@_fn(
    "stage_stars",
    "p:player s:stage",
    t.INT,
    "stars p got at stage s as the hook point began",
    "{p}'s stars from {s}",
    reads_state=(STARS,),
)
def _stage_stars(f: Frame, p: Player, stage: str) -> int:
    return p.stage_stars.get(stage, 0)


@_fn("counter", "p:player c:counter", t.INT, "p's count of c as the record gives it (0 if absent)", "{p}'s {c}")
def _counter(f: Frame, p: Player, name: str) -> int:
    return p.counters.get(name, 0)


@_fn("priority", "p:player", t.INT, "p's place on the priority track (1 is first)", "{p}'s priority place")
def _priority(f: Frame, p: Player) -> int:
    return p.index + 1


@_fn("in_play", "c:card", t.BOOL, "whether card c is in play in this game", "{c} is in play", sees_cards=True)
def _in_play(f: Frame, card_id: str) -> bool:
    return any(card.id == card_id for card, _ in spend(f, f.game.cards_in_play()))


@_fn(
    "meals",
    "r:round",
    t.list_of(t.MEAL),
    "every challenge meal served in round r",
    "the meals of {r}",
    reads_state=(MEALS,),
)
def _meals(f: Frame, r: str) -> Any:
    return f.game.meals.get(r, ())


_attribute(
    "player_of",
    "m:meal",
    t.PLAYER,
    "the player who served meal m",
    "the player who served {m}",
    "player",
    is_phrase="{v} served {m}",
)


_attribute("meal_quality", "m:meal", t.INT, "quality of meal m", "the quality of {m}", "quality")


_attribute(
    "meal_card",
    "m:meal",
    t.CARD_NAME,
    "name of the challenge card meal m was served for; quoted text compared with it must be a card's name",
    "the name of the card of {m}",
    "card.name",
)
_attribute(
    "meal_card_id", "m:meal", t.CARD, "id of the challenge card meal m was served for", "the card of {m}", "card.id"
)
_attribute("this_card", "", t.CARD, "the id of the card whose effect this is", "this card", "card.id")


@_fn(
    "meals_for",
    "c:card",
    t.list_of(t.MEAL),
    "every challenge meal served for card c, in any round",
    "the meals served for {c}",
    reads_state=(MEALS,),
)
def _meals_for(f: Frame, card_id: str) -> tuple[Any, ...]:
    return tuple(m for meals in f.game.meals.values() for m in meals if m.card.id == card_id)


_attribute(
    "ingredients", "m:meal", t.list_of(t.ITEM), "the ingredients of meal m", "the ingredients of {m}", "ingredients"
)
_attribute("ingredient_type", "i:item", t.INGREDIENT, "the type of ingredient i", "the type of {i}", "type")
_attribute(
    "ingredient_value", "i:item", t.INT, "the value printed on ingredient i", "the printed value of {i}", "value"
)
_attribute(
    "spices_on",
    "i:item",
    t.list_of(t.SPICE),
    "the spices on ingredient i: its own type's spice or the wild spice (none if unspiced)",
    "the spices on {i}",
    "spices",
)


@_fn(
    "spice_types",
    "",
    t.list_of(t.SPICE),
    "every spice: one per ingredient type of the loaded packs, then the wild spice",
    "the kinds of spice",
    reads_params=("wild_spice",),
)
def _spice_types(f: Frame) -> tuple[str, ...]:
    return (*f.game.ruleset.ingredient_types, f.game.params["wild_spice"])


@_fn(
    "course_spices",
    "p:player t:ingredient",
    t.list_of(t.SPICE),
    "the spices on p's t course (none if unspiced or not served)",
    "the spices on {p}'s {t} course",
)
def _course_spices(f: Frame, p: Player, kind: str) -> tuple[str, ...]:
    course = p.courses.get(kind)
    return course.spices if course is not None else ()


@_fn(
    "uses",
    "m:meal t:ingredient",
    t.INT,
    "how many t ingredients meal m contains",
    "the number of {t} ingredients in {m}",
)
def _uses(f: Frame, m: Meal, kind: str) -> int:
    return sum(1 for i in m.ingredients if i.type == kind)


@_fn(
    "meal_tokens", "m:meal", t.INT, "how many tokens (soup and the like) meal m contains", "the number of tokens in {m}"
)
def _meal_tokens(f: Frame, m: Meal) -> int:
    return sum(m.tokens.values())


@_fn("meal_spices", "m:meal", t.INT, "how many spices meal m contains", "the number of spices in {m}")
def _meal_spices(f: Frame, m: Meal) -> int:
    return sum(len(i.spices) for i in m.ingredients)


@_fn(
    "band",
    "x:int b:bands",
    t.INT,
    "stars for x in bands b: the last band whose minimum x reaches",
    "the stars for {x} in {b}",
)
def _band(f: Frame, x: int, bands: list[list[int]]) -> int:
    if len(bands) > FREE_WALK:  # a pack may give a parameter many bands
        charge(f, len(bands))
    # the last band whose minimum x reaches: the first such band from the end
    for k in range(len(bands) - 1, -1, -1):
        try:
            minimum, stars = bands[k]
        except ValueError:  # a list written out in an effect (a parameter's bands were checked as it loaded)
            raise EvaluationError(not_a_band(f, bands[k])) from None
        if x >= minimum:
            return stars
    return 0


@_fn(
    "lookup",
    "table:table key:text",
    t.INT,
    "the number a table parameter gives for key (0 if none)",
    "{table} for {key}",
)
def _lookup(f: Frame, table: Any, key: str) -> int:
    return table.get(key, 0)  # type: ignore[no-any-return]


AGGREGATES: dict[str, Aggregate] = {
    a.name: a
    for a in (
        Aggregate(
            "sum",
            t.INT,
            "sum of the numbers (0 if none)",
            "the total of {elem} over each {var} in {source}{such}",
            "the total of {source}",
            build=nodes.values_node(nodes.sum_of),
        ),
        Aggregate(
            "count",
            t.ANY,
            "how many items there are",
            "the number of {var} in {source}{such}",
            "the number of items in {source}",
            build=nodes.count_node,
        ),
        Aggregate(
            "max",
            t.INT,
            "the largest number (0 if none)",
            "the largest {elem} for any {var} in {source}{such}",
            "the largest number in {source}",
            build=nodes.values_node(nodes.max_of),
        ),
        Aggregate(
            "min",
            t.INT,
            "the smallest number (0 if none)",
            "the smallest {elem} for any {var} in {source}{such}",
            "the smallest number in {source}",
            build=nodes.values_node(nodes.min_of),
        ),
        Aggregate(
            "any",
            t.BOOL,
            "whether at least one is true",
            "for at least one {var} in {source}{such}, {elem}",
            "at least one of {source} holds",
            build=nodes.decide_node(True),
        ),
        Aggregate(
            "all",
            t.BOOL,
            "whether all are true (true if none)",
            "for every {var} in {source}{such}, {elem}",
            "every one of {source} holds",
            build=nodes.decide_node(False),
        ),
        Aggregate(
            "each",
            t.ANY,
            "the items themselves, as a list (with 'if': those that pass)",
            "each {var} in {source}{such}",
            "each item in {source}",
            build=nodes.each_node,
        ),
        Aggregate(
            "highest",
            t.INT,
            "the items with the highest number; all tied items are included",
            "every {var} in {source} with the highest {elem}{among}",
            build=nodes.ranked_node(True),
            ranks=True,
        ),
        Aggregate(
            "lowest",
            t.INT,
            "the items with the lowest number; all tied items are included",
            "every {var} in {source} with the lowest {elem}{among}",
            build=nodes.ranked_node(False),
            ranks=True,
        ),
    )
}
# highest/lowest return the loop items, so they need the comprehension form.
RANKING = tuple(a.name for a in AGGREGATES.values() if a.ranks)

STATEMENTS: dict[str, Statement] = {
    s.name: s
    for s in (
        Statement(
            "award",
            'award N star[s] to TARGET [for "reason {expr}"]',
            "give N stars to a player or to every player in a list; 0 or fewer gives nothing; "
            "a tie for highest or lowest shares in full unless the parameter friendly_ties is false "
            "(or friendly_ties_by_stage says otherwise for the stage)",
            "give {amount} to {target}{reason}",
            build=nodes.award_node,
            reads_params=("friendly_ties", "friendly_ties_by_stage"),
        ),
        Statement(
            "let",
            "let NAME = EXPR",
            "name a value for the rest of the block",
            "let {name} be {value}",
            build=nodes.let_node,
        ),
        Statement(
            "set",
            "set quality(P, T) to EXPR",
            "give a settable value a new value when the hook point ends (before its adds and multiplies)",
            "set {target} to {value}",
            build=nodes.modify_node,
        ),
        Statement(
            "add",
            "add EXPR to quality(P, T)",
            "add to a settable value when the hook point ends (after its sets, before its multiplies)",
            "add {value} to {target}",
            build=nodes.modify_node,
        ),
        Statement(
            "multiply",
            "multiply quality(P, T) by EXPR",
            "multiply a settable value when the hook point ends (after its sets and adds)",
            "multiply {target} by {value}",
            build=nodes.modify_node,
        ),
        Statement(
            "for",
            "for NAME in LIST: BLOCK",
            "run the block once for each item of a list",
            "for each {var} in {source}:",
            build=nodes.for_node,
        ),
        Statement(
            "if",
            "if CONDITION: BLOCK [elif CONDITION: BLOCK]... [else: BLOCK]",
            "run the block of the first condition that holds, or the 'else' block when none does",
            "if {cond}:",
            build=nodes.if_node,
            keywords=("if", "elif", "else"),
        ),
        Statement("pass", "pass", "do nothing (an empty stage)", "nothing happens", build=nodes.seq_node),
    )
}

# Every word a statement is written with, in the order of the statements.
KEYWORDS = tuple(word for s in STATEMENTS.values() for word in s.keywords)

CONSTANTS: dict[str, tuple[str, Any, str]] = {
    "true": (t.BOOL, True, "the condition that always holds"),
    "false": (t.BOOL, False, "the condition that never holds"),
}

OPERATORS = {
    "+": "plus",
    "-": "minus",
    "*": "times",
    "//": "divided by",
    "%": "remainder after dividing by",
    "==": "is",
    "!=": "is not",
    "<": "is less than",
    "<=": "is at most",
    ">": "is more than",
    ">=": "is at least",
    "and": "and",
    "or": "or",
    "not": "not",
    "in": "is one of",
}
# Functions of other languages that designers write, with what this language says instead.
INSTEAD = {
    "len": "write count(LIST) for the number of items in a list",
    "length": "write count(LIST) for the number of items in a list",
}

OPERATOR_NOTES = {"//": "rounds down; dividing by 0 gives 0", "%": "dividing by 0 gives 0"}
# What the card English says after an operation, so that a player reads how it rounds.
OPERATOR_AFTER = {"//": ", rounded down"}

"""Loaded card data: cards, rule parameters, stages and their hooks.

Plain classes, so that a ruleset from the pack cache loads without the DSL's syntax
classes: each program's syntax tree is kept pickled inside it until something (the
``cards`` command, a test) asks for it. Scoring needs only the compiled code.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    Table = TypeVar("Table")

    # What the effect language makes of a card's text; the model holds them, never reads them
    # (the model knows nothing of the language): a syntax tree, and its compiled program.
    Program = Any  # dsl.nodes.Program or dsl.nodes.Expr
    Compiled = Any  # dsl.program.Compiled

TIMINGS = ("before", "replace", "after")
# What happens to players tied on every ranking key (a rules card's ranking.when_tied.by):
# the one ahead on the priority track ranks first, or the players tied for first share the win.
PRIORITY = "priority"
SHARED = "shared"
WILD_SLOT = "any"  # a Challenge card's requirement printed so is a slot any ingredient type fills
SYNTAX_CLASSES = ("critter_kitchen.dsl.nodes.*",)  # what a pickled syntax tree may name


class _Syntax:
    """Keeps a program's syntax tree; pickles it apart, and unpickles it only when asked."""

    __slots__ = ("_ast",)

    def __init__(self, ast: Any) -> None:
        self._ast = ast

    @property
    def ast(self) -> Any:
        if type(self._ast) is bytes:
            from ..cache import unpickle

            # These bytes came inside a cache entry whose MAC held; admitting only syntax
            # classes keeps even a forged tree from naming anything that runs code.
            self._ast = unpickle(self._ast, SYNTAX_CLASSES)
        return self._ast

    def _pickled_ast(self) -> Any:
        if self._ast is None or type(self._ast) is bytes:
            return self._ast
        import pickle

        return pickle.dumps(self._ast, protocol=pickle.HIGHEST_PROTOCOL)


class Effect(_Syntax):
    """One DSL program of a card, hooked to a stage."""

    __slots__ = ("timing", "stage", "code")

    def __init__(self, timing: str, stage: str, ast: Program | bytes, code: Compiled | None = None) -> None:
        super().__init__(ast)
        self.timing = timing  # before, replace or after
        self.stage = stage
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return Effect, (self.timing, self.stage, self._pickled_ast(), self.code)


MEAL_KINDS = ("challenge", "critic")  # the meals a card's constraint may be about
CHALLENGE_CARDS = "cards.challenges"  # where a record lists Challenge cards: their kinds' place


class Constraint(_Syntax):
    """A condition a card in play puts on a challenge meal or a critic meal (``meal``), with
    the message a meal failing it is refused with; ``code`` is its compiled condition."""

    __slots__ = ("meal", "message", "card", "index", "code")

    def __init__(
        self, meal: str, message: str, card: str, index: int, ast: Program | bytes, code: Compiled | None = None
    ) -> None:
        super().__init__(ast)
        self.meal = meal  # challenge or critic
        self.message = message
        self.card = card  # the id of the card that puts it
        self.index = index  # its place in the card's list
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return Constraint, (self.meal, self.message, self.card, self.index, self._pickled_ast(), self.code)


# The most characters of a stage's short name (its ``name`` in a card's ``stages``): it heads
# a row of the score pad's result beside a column per player, so at 7 players on a 390 px
# phone a longer one would push the table past the screen.
STAGE_NAME_CHARS = 24


class Stage(_Syntax):
    """A scoring stage: ``name`` is its id (``critic.rumors``), ``description`` what it does in
    words, ``short_name`` the few words a narrow table heads its row with ("" when its card
    gives none: the description stands in)."""

    __slots__ = ("name", "description", "card", "code", "short_name")

    def __init__(
        self,
        name: str,
        description: str,
        card: str,
        ast: Program | bytes | None,
        code: Compiled | None = None,
        short_name: str = "",
    ) -> None:
        super().__init__(ast)
        self.name = name
        self.description = description
        self.card = card  # the rules card that declares it
        self.code = code
        self.short_name = short_name

    def __reduce__(self) -> tuple[Any, ...]:
        return Stage, (self.name, self.description, self.card, self._pickled_ast(), self.code, self.short_name)


class TieBreak(_Syntax):
    """One ranking key: its label, and a number for each player (higher ranks first)."""

    __slots__ = ("label", "code", "card")

    def __init__(self, label: str, ast: Program | bytes, code: Compiled | None = None, card: str = "") -> None:
        super().__init__(ast)
        self.label = label
        self.code = code
        self.card = card  # the rules card that wrote it

    def __reduce__(self) -> tuple[Any, ...]:
        return TieBreak, (self.label, self._pickled_ast(), self.code, self.card)


class Card:
    def __init__(
        self,
        id: str,
        kind: str,
        name: str,
        pack: str,
        path: str,
        pos: tuple[int, int],  # line and column where the card starts in its file
        data: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.kind = kind
        self.name = name
        self.pack = pack
        self.path = path
        self.pos = pos
        self.data: dict[str, Any] = data if data is not None else {}
        self.requires: tuple[str, ...] = ()
        self.different_types = False  # each requirement slot must be filled by a type of its own
        self.constraints: tuple[Constraint, ...] = ()  # conditions the card puts on meals while in play
        self.effects: tuple[Effect, ...] = ()
        self.parameters: dict[str, Any] = {}
        self._slots: tuple[dict[str, int], dict[str, int]] | None = None  # see slot_counts; never pickled

    def __repr__(self) -> str:
        return f"Card({self.id!r})"

    def slot_counts(self, cut: bool) -> dict[str, int]:
        """How many requirement slots of each type the card has, in the order the types first
        appear; without the rightmost slot when ``cut``. Counted once (the loader sets the
        requirements before any game is read); the counts are shared: never changed."""
        made = self._slots
        if made is None:
            made = self._slots = (_counts(self.requires), _counts(self.requires[:-1]))
        return made[1] if cut else made[0]

    # Cached rulesets are pickled. The compiled build's classes cannot be made without
    # their arguments, so each class of a ruleset says how to make it again.
    def __reduce__(self) -> tuple[Any, ...]:
        made_later = {
            "requires": self.requires,
            "different_types": self.different_types,
            "constraints": self.constraints,
            "effects": self.effects,
            "parameters": self.parameters,
        }
        return Card, (self.id, self.kind, self.name, self.pack, self.path, self.pos, self.data), made_later


def _counts(kinds: tuple[str, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return counts


# Where a rule parameter's value may differ, widest first (see Parameter.scope): for the whole
# game (only a rules card sets it), for everyone while a card is on the table (the critic,
# a rumor), for one player (a card they hold), for the meals served for one Challenge card.
SCOPES = ("game", "table", "player", "meal")
DEFAULT_SCOPE = "table"  # a pack's parameter that says no scope: the rules and table cards set it
# What a card of each level changes the parameters for, as the ``cards`` text says it.
SCOPE_TEXT = {
    "game": "For the whole game:",
    "table": "While in play, for everyone:",
    "player": "For its owner:",
    "meal": "For meals served for this card:",
}
# How many values a parameter of each scope may have at once, as messages and the ``cards`` text say it.
SCOPE_WORDS = {
    "game": "one value for the whole game",
    "table": "one value for every player at a time",
    "player": "a value for each player",
    "meal": "a value for each meal",
}
TABLE_KEYS = ("ingredient", "stage")  # what a table parameter's keys may be declared to name
CHALLENGE_RECORD = "cards.challenges"  # where a record names the Challenge cards, by round


class Parameter:
    def __init__(
        self,
        name: str,
        type: str,
        value: Any,
        description: str,
        unverified: str = "",
        scope: str = DEFAULT_SCOPE,
        keys: str = "",
        set_by: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        self.name = name
        self.type = type
        self.value = value
        self.description = description
        self.unverified = unverified  # why the value is not confirmed, if it is not
        # The narrowest level its value may vary at (one of SCOPES): a card may set it when
        # the card's own level (card_level) is this one or a wider one.
        self.scope = scope
        self.keys = keys  # for a table: what its keys name (one of TABLE_KEYS), or "" for any name
        # (pack id, value) for each pack that gave it a value, in load order: the last is in force
        self.set_by = set_by

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (self.name, self.type, self.value, self.description, self.unverified, self.scope, self.keys)
        return Parameter, (*fields, self.set_by)

    def settable_at(self, level: str) -> bool:
        """Whether a card of ``level`` (one of SCOPES) may set this parameter."""
        return SCOPES.index(level) <= SCOPES.index(self.scope)


class DealNumber:
    """One number of the deal model (what a simulated game deals), as the packs left it."""

    def __init__(self, name: str, value: Any, description: str = "", unverified: str = "") -> None:
        self.name = name
        self.value = value
        self.description = description
        self.unverified = unverified  # why the number is not confirmed, if it is not

    def __reduce__(self) -> tuple[Any, ...]:
        # the compiled build's classes cannot be unpickled through __init__ without arguments
        return DealNumber, (self.name, self.value, self.description, self.unverified)


class Pack:
    def __init__(self, id: str, name: str, path: str, requires: tuple[str, ...] = (), description: str = "") -> None:
        self.id = id
        self.name = name
        self.path = path
        self.requires = requires
        self.description = description  # what the pack says of itself (pack.yaml), for people

    def __reduce__(self) -> tuple[Any, ...]:
        return Pack, (self.id, self.name, self.path, self.requires, self.description)


class Ruleset:
    """All loaded packs merged: what a game is scored against."""

    def __init__(self, rules_kind: str = "rules") -> None:
        self.packs: list[Pack] = []
        self.cards: dict[str, Card] = {}
        self.ingredient_types: tuple[str, ...] = ()
        self.counters: tuple[str, ...] = ()
        self.parameters: dict[str, Parameter] = {}
        self.stages: list[Stage] = []
        self.tiebreaks: list[TieBreak] = []  # the ranking's keys, in order
        self.when_tied = PRIORITY  # what ends a tie on every key: PRIORITY or SHARED
        self.tied_label = "priority order"  # shown as what decided the winner when that ending did
        self.rules_kind = rules_kind
        self.card_kinds: dict[str, str] = {}  # kind -> record slot, e.g. "cards.critic"
        self.single_kinds: set[str] = set()  # kinds of which a game holds one card at most
        self.kind_schemas: dict[str, str] = {}  # kind -> schema file
        self.removed_stages: set[str] = set()  # stages a pack took out; their hooks never run
        self.deal: dict[str, DealNumber] = {}  # what a simulated game deals; scoring never reads it
        # What games read of the complete ruleset, worked out once, by the function that makes
        # each (see derived). Never pickled, see __reduce__.
        self._derived: dict[Callable[[Ruleset], Any], Any] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        # Everything but the derived tables: a ruleset read from the cache (or copied) makes
        # its own when it is first used, and the cache's entries stay what the loader left.
        return Ruleset, (self.rules_kind,), {name: getattr(self, name) for name in RULESET_FIELDS}

    def derived(self, make: Callable[[Ruleset], Table]) -> Table:
        """``make(self)``, made once: a table that every game of this ruleset reads (what the
        record reader knows of the card kinds, what rescoring knows of the stages, ...).

        A ruleset is complete once a game is read or scored with it: nothing in the engine
        changes it after loading (the loader makes no table, and its last change comes before
        any game is read). Whatever changes a ruleset in place later calls :meth:`changed`.
        """
        made = self._derived.get(make)
        if made is None:
            made = self._derived[make] = make(self)
        return made

    def scoring(self) -> Scoring:
        """What scoring reads of this ruleset in every game (see :func:`scoring_of`)."""
        return self.derived(scoring_of)

    def changed(self) -> None:
        """Drop every derived table: this ruleset was changed in place, and each table is made
        again, from what the ruleset is now, when it is next read."""
        self._derived = {}

    def card_level(self, kind: str) -> str:
        """Whom the parameters of a card of ``kind`` change (one of SCOPES): a rules card the
        game's, a Challenge card the meals served for it, a card a player holds its owner's,
        any other card everyone's while it is in play."""
        if kind == self.rules_kind:
            return "game"
        record = self.card_kinds.get(kind, "")
        if record == CHALLENGE_RECORD:
            return "meal"
        return "player" if record.startswith("players.") else "table"

    @property
    def rules_cards(self) -> list[Card]:
        return [c for c in self.cards.values() if c.kind == self.rules_kind]

    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def base_params(self) -> dict[str, Any]:
        return {name: p.value for name, p in self.parameters.items()}


# The attributes a pickled ruleset keeps: all of them but the derived tables.
RULESET_FIELDS = (
    "packs",
    "cards",
    "ingredient_types",
    "counters",
    "parameters",
    "stages",
    "tiebreaks",
    "when_tied",
    "tied_label",
    "rules_kind",
    "card_kinds",
    "single_kinds",
    "kind_schemas",
    "removed_stages",
    "deal",
)


class Scoring:
    """What scoring a game reads of its (complete) ruleset, made once per ruleset rather than
    once per game (see :func:`scoring_of`): the rules cards, the base parameter values, the
    canonical place of each card among the effects of a hook point, the unverified values,
    the ranking's labels and ending."""

    def __init__(
        self,
        rules_in_play: list[tuple[Card, None]],  # the rules cards: no player owns one
        base_params: dict[str, Any],
        places: dict[str, tuple[int, Card, tuple[tuple[tuple[str, str], Compiled | None], ...]]],
        unverified: tuple[tuple[str, Any, str], ...],
        labels: list[str],
        shared: bool,
    ) -> None:
        self.rules_in_play = rules_in_play  # what a game's cards in play begin with
        self.base_params = base_params  # copied by each game: cards change its copy
        self.places = places  # card id -> its place in the order, the card, its hook points and code
        self.unverified = unverified  # (name, value, note): a game whose parameter has this value says the note
        self.labels = labels  # each ranking key's, then the ending's (priority order, or a shared win)
        self.shared = shared  # whether a tie on every key for first place is a shared win

    def __reduce__(self) -> tuple[Any, ...]:
        # A ruleset pickles without its tables (see Ruleset.__reduce__); a table pickled on its own is its parts.
        return Scoring, (self.rules_in_play, self.base_params, self.places, self.unverified, self.labels, self.shared)


def scoring_of(rs: Ruleset) -> Scoring:
    """The scoring tables of a complete ruleset."""
    # The canonical order of a hook point's effects is card kind (the rules kind first, then
    # the record's kinds in their order), card id, owner: the first two are fixed per card,
    # so each card gets its place in that order once, with its hook points.
    ranks = kind_ranks(rs)
    other = len(ranks)
    ordered = sorted(rs.cards.values(), key=lambda c: (ranks.get(c.kind, other), c.id))
    return Scoring(
        [(c, None) for c in rs.rules_cards],
        rs.base_params(),
        {
            card.id: (n, card, tuple(((e.stage, e.timing), e.code) for e in card.effects))
            for n, card in enumerate(ordered)
        },
        tuple((p.name, p.value, f"{p.name}: {p.unverified}") for p in rs.parameters.values() if p.unverified),
        [tb.label for tb in rs.tiebreaks] + [rs.tied_label],
        rs.when_tied == SHARED,
    )


def kind_ranks(rs: Ruleset) -> dict[str, int]:
    """Card kind -> its rank in a hook point's canonical order: the rules kind, then the record's kinds."""
    return {rs.rules_kind: 0} | {k: i + 1 for i, k in enumerate(rs.card_kinds)}

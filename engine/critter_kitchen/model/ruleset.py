"""Loaded card data: cards, rule parameters, stages and their hooks.

Plain classes, so that a ruleset from the pack cache loads without the DSL's syntax
classes: each program's syntax tree is kept pickled inside it until something (the
``cards`` command, a test) asks for it. Scoring needs only the compiled code.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..dsl.closures import Compiled
    from ..dsl.nodes import Expr, Program

TIMINGS = ("before", "replace", "after")
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


class Stage(_Syntax):
    __slots__ = ("name", "description", "card", "code")

    def __init__(
        self, name: str, description: str, card: str, ast: Program | bytes | None, code: Compiled | None = None
    ) -> None:
        super().__init__(ast)
        self.name = name
        self.description = description
        self.card = card  # the rules card that declares it
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return Stage, (self.name, self.description, self.card, self._pickled_ast(), self.code)


class TieBreak(_Syntax):
    __slots__ = ("label", "code")

    def __init__(self, label: str, ast: Expr | bytes, code: Compiled | None = None) -> None:
        super().__init__(ast)
        self.label = label
        self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return TieBreak, (self.label, self._pickled_ast(), self.code)


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
        self.effects: tuple[Effect, ...] = ()
        self.parameters: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Card({self.id!r})"

    # Cached rulesets are pickled. The compiled build's classes cannot be made without
    # their arguments, so each class of a ruleset says how to make it again.
    def __reduce__(self) -> tuple[Any, ...]:
        made_later = {"requires": self.requires, "effects": self.effects, "parameters": self.parameters}
        return Card, (self.id, self.kind, self.name, self.pack, self.path, self.pos, self.data), made_later


class Parameter:
    def __init__(self, name: str, type: str, value: Any, description: str, unverified: str = "") -> None:
        self.name = name
        self.type = type
        self.value = value
        self.description = description
        self.unverified = unverified  # why the value is not confirmed, if it is not

    def __reduce__(self) -> tuple[Any, ...]:
        return Parameter, (self.name, self.type, self.value, self.description, self.unverified)


class DealNumber:
    """One number of the deal model (what a simulated game deals), as the packs left it."""

    def __init__(self, name: str, value: Any, description: str = "", unverified: str = "") -> None:
        self.name = name
        self.value = value
        self.description = description
        self.unverified = unverified  # why the number is not confirmed, if it is not

    def __reduce__(self) -> tuple[Any, ...]:
        return DealNumber, (self.name, self.value, self.description, self.unverified)


class Pack:
    def __init__(self, id: str, name: str, path: str, requires: tuple[str, ...] = ()) -> None:
        self.id = id
        self.name = name
        self.path = path
        self.requires = requires

    def __reduce__(self) -> tuple[Any, ...]:
        return Pack, (self.id, self.name, self.path, self.requires)


class Ruleset:
    """All loaded packs merged: what a game is scored against."""

    def __init__(self, rules_kind: str = "rules") -> None:
        self.packs: list[Pack] = []
        self.cards: dict[str, Card] = {}
        self.ingredient_types: tuple[str, ...] = ()
        self.counters: tuple[str, ...] = ()
        self.parameters: dict[str, Parameter] = {}
        self.stages: list[Stage] = []
        self.tiebreaks: list[TieBreak] = []
        self.priority_label = "priority order"
        self.rules_kind = rules_kind
        self.card_kinds: dict[str, str] = {}  # kind -> record slot, e.g. "cards.critic"
        self.single_kinds: set[str] = set()  # kinds of which a game holds one card at most
        self.kind_schemas: dict[str, str] = {}  # kind -> schema file
        self.removed_stages: set[str] = set()  # stages a pack took out; their hooks never run
        self.deal: dict[str, DealNumber] = {}  # what a simulated game deals; scoring never reads it

    @property
    def rules_cards(self) -> list[Card]:
        return [c for c in self.cards.values() if c.kind == self.rules_kind]

    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def base_params(self) -> dict[str, Any]:
        return {name: p.value for name, p in self.parameters.items()}

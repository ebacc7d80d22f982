"""Loaded card data: cards, rule parameters, stages and their hooks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dsl.nodes import Pos

if TYPE_CHECKING:
    from ..dsl.closures import Compiled
    from ..dsl.nodes import Expr, Program

TIMINGS = ("before", "replace", "after")


@dataclass
class Effect:
    """One DSL program of a card, hooked to a stage."""

    timing: str  # before, replace or after
    stage: str
    ast: Program
    code: Compiled | None = None


@dataclass
class Card:
    id: str
    kind: str
    name: str
    pack: str
    path: str
    pos: Pos
    data: dict[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stage:
    name: str
    description: str
    card: str  # the rules card that declares it
    ast: Program | None
    code: Compiled | None = None


@dataclass
class Parameter:
    name: str
    type: str
    value: Any
    description: str
    unverified: str = ""  # why the value is not confirmed, if it is not


@dataclass
class TieBreak:
    label: str
    ast: Expr
    code: Compiled | None = None


@dataclass
class Pack:
    id: str
    name: str
    path: str
    requires: tuple[str, ...] = ()


@dataclass
class Ruleset:
    """All loaded packs merged: what a game is scored against."""

    packs: list[Pack] = field(default_factory=list)
    cards: dict[str, Card] = field(default_factory=dict)
    ingredient_types: tuple[str, ...] = ()
    counters: tuple[str, ...] = ()
    parameters: dict[str, Parameter] = field(default_factory=dict)
    stages: list[Stage] = field(default_factory=list)
    tiebreaks: list[TieBreak] = field(default_factory=list)
    priority_label: str = "priority order"
    rules_kind: str = "rules"
    card_kinds: dict[str, str] = field(default_factory=dict)  # kind -> record slot, e.g. "cards.critic"
    single_kinds: set[str] = field(default_factory=set)  # kinds of which a game holds one card at most
    kind_schemas: dict[str, str] = field(default_factory=dict)  # kind -> schema file
    removed_stages: set[str] = field(default_factory=set)  # stages a pack took out; their hooks never run

    @property
    def rules_cards(self) -> list[Card]:
        return [c for c in self.cards.values() if c.kind == self.rules_kind]

    def stage_names(self) -> list[str]:
        return [s.name for s in self.stages]

    def base_params(self) -> dict[str, Any]:
        return {name: p.value for name, p in self.parameters.items()}

"""The programs in play at a table, each with what its syntax tree tells the planner.

The compiler tells a program's facts once (``dsl/facts.py``) and stores them with its
compiled code, in the pack cache too; the planner reads them here and never walks a
program for them. The programs of a ruleset, each with its facts, are gathered once per
ruleset (:meth:`~critter_kitchen.model.ruleset.Ruleset.derived`): immutable, they are
shared by every thread that plans with it. The proof that stars rise with quality is one
of those facts too (``dsl/facts.rising_tables``): planning reads no syntax tree.
"""

from __future__ import annotations

from ..dsl.facts import facts_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ..dsl.facts import ProgramFacts
    from ..model.ruleset import Card, Effect, Ruleset, Stage


class Program:
    """One program in play: what its syntax tree tells (see ``dsl/facts.py``), and the tree."""

    __slots__ = (
        "calls",
        "bound",
        "changes",
        "separable",
        "seen_calls",
        "stage_stars",
        "quality_reads",
        "rising_tables",
        "_tree",
    )

    def __init__(self, facts: ProgramFacts, tree: Any) -> None:
        calls, bound, changes, separable, seen_calls, stage_stars, quality_reads, rising_tables = facts
        self.calls = calls  # the functions it calls, anywhere
        self.bound = bound  # the names it binds
        self.changes = changes  # whether it holds a set, add or multiply
        self.separable = separable  # whether its meal loops are separable (reads.separable)
        self.seen_calls = seen_calls  # the functions called where a game of one player can see
        self.stage_stars = stage_stars  # the stages its stage_stars calls seen name (None: not plain)
        self.quality_reads = quality_reads  # the names of the quality(P, X) read (None: not a name)
        self.rising_tables = rising_tables  # the tables its stars rise with quality by (None: not proved)
        self._tree = tree  # the syntax tree, or the stage or effect holding it: which program it is

    @property
    def tree(self) -> Any:
        """The program's syntax tree (:class:`~critter_kitchen.dsl.nodes.Program`), unpickled when asked:
        which program this is (nothing planned reads it)."""
        held = self._tree
        return held.ast if hasattr(held, "ast") else held


def program_of(tree: Any) -> Program:
    """A program from its syntax tree (:class:`~critter_kitchen.dsl.nodes.Program`), its facts told now."""
    return Program(facts_of(tree), tree)


def _held(holder: Stage | Effect) -> Program:
    """The program of a stage or an effect: its facts as the compiler stored them (told from its tree
    when it was not compiled: an effect hooked to a removed stage, one of a rules card)."""
    code = holder.code
    facts = code.facts if code is not None else None
    return Program(facts if facts is not None else facts_of(holder.ast), holder)


class RulesetPrograms:
    """Every program of a ruleset with its facts, gathered once (``ruleset.derived(RulesetPrograms)``)
    and never changed: the stages' bodies, the rules cards' effects, and each card's effects."""

    def __init__(self, ruleset: Ruleset) -> None:
        # a stage with no body (only effects hooked to it) has no program
        self.stages: tuple[tuple[str, Program], ...] = tuple(
            (stage.name, _held(stage)) for stage in ruleset.stages if stage.code is not None or stage.ast is not None
        )
        self.cards: dict[str, tuple[Card, tuple[tuple[Effect, Program], ...]]] = {
            card.id: (card, tuple((effect, _held(effect)) for effect in card.effects))
            for card in ruleset.cards.values()
        }
        self.rules = tuple(card for card in ruleset.rules_cards)

    def effects(self, card: Card) -> tuple[tuple[Effect, Program], ...]:
        """``card``'s effects, each with its program (told now for a card not of this ruleset)."""
        found = self.cards.get(card.id)
        if found is not None and found[0] is card:
            return found[1]
        return tuple((effect, _held(effect)) for effect in card.effects)


def ruleset_programs(ruleset: Ruleset) -> RulesetPrograms:
    """The programs of ``ruleset`` (made once per ruleset, see :class:`RulesetPrograms`)."""
    return ruleset.derived(RulesetPrograms)


def programs(ruleset: Ruleset, cards: Iterable[Card]) -> list[Program]:
    """The programs of the stages and of every effect of the rules cards and ``cards``."""
    known = ruleset_programs(ruleset)
    found = [program for _, program in known.stages]
    for card in (*known.rules, *cards):
        found.extend(program for _, program in known.effects(card))
    return found

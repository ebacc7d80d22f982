"""The kinds of entry of the effect language's vocabulary (``registry.py`` declares them).

Each entry carries its own behaviour: a function its ``impl`` (and a ``setter`` when set,
add and multiply change what it reads), and each kind of entry the builder of its node
(``run_nodes.py``), which the program's ops are built into (``program.build``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # build(build, entry or field, ...) -> a node; ``build`` builds the op's parts
    Builder = Callable[..., Any]


class Function:
    __slots__ = (
        "name",
        "params",
        "returns",
        "doc",
        "phrase",
        "impl",
        "setter",
        "needs_owner",
        "reads",
        "sees_cards",
        "reads_params",
        "reads_state",
        "build",
        "is_phrase",
    )

    def __init__(
        self,
        name: str,
        params: tuple[tuple[str, str], ...],
        returns: str,
        doc: str,
        phrase: str,  # plain-English rendering; {name} stands for each argument
        impl: Callable[..., Any],  # impl(frame, *args)
        setter: Callable[..., None] | None = None,  # setter(frame, value, *args) for set/add/multiply
        needs_owner: bool = False,
        reads: str | None = None,  # an attribute path: what the function reads of its argument (or frame)
        sees_cards: bool = False,  # whether it tells which cards are in play (rescoring must not reuse it)
        reads_params: tuple[str, ...] = (),  # the rule parameters its impl reads of the game
        reads_state: tuple[str, ...] = (),  # what of STATE its impl reads (rescoring replays what reads none)
        *,
        build: Builder,  # build(build, function, args): its node
        is_phrase: str = "",  # how ``f(args) == v`` reads, {v} for the value: "{v} served {m}"
    ) -> None:
        self.is_phrase = is_phrase
        self.name = name
        self.params = params
        self.returns = returns
        self.doc = doc
        self.phrase = phrase
        self.impl = impl
        self.setter = setter
        self.needs_owner = needs_owner
        self.reads = reads
        self.sees_cards = sees_cards
        self.reads_params = reads_params
        self.reads_state = reads_state
        self.build = build


class Aggregate:
    __slots__ = ("name", "element", "doc", "phrase", "plain", "build", "ranks")

    def __init__(
        self,
        name: str,
        element: str,
        doc: str,
        phrase: str,
        plain: str = "",
        *,
        build: Builder,  # build(build, aggregate, source, element, condition, slot): its node
        ranks: bool = False,  # gives the items with the highest (lowest) number: needs the comprehension form
    ) -> None:
        self.name = name
        self.element = element  # type the element expression must have (ANY: any)
        self.doc = doc
        # English for the comprehension form: {elem}, {var} and {source} stand for the parts,
        # {such} for " such that COND" and {among} for " among those such that COND", or nothing.
        self.phrase = phrase
        self.plain = plain  # English for the plain-list form, as in count(served(p)); {source}: the list
        self.build = build
        self.ranks = ranks


class Statement:
    __slots__ = ("name", "syntax", "doc", "phrase", "build", "keywords", "reads_params")

    def __init__(
        self,
        name: str,
        syntax: str,
        doc: str,
        phrase: str,
        *,
        build: Builder,  # build(build, *the fields of its op): its node
        keywords: tuple[str, ...] = (),  # the words it is written with; its name by default
        reads_params: tuple[str, ...] = (),  # the rule parameters its node reads
    ) -> None:
        self.name = name
        self.syntax = syntax
        self.doc = doc
        self.phrase = phrase
        self.build = build
        self.keywords = keywords or (name,)
        self.reads_params = reads_params

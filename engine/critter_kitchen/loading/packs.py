"""Card packs on disk to a :class:`Ruleset`: read, check against schemas, compile.

The loader reads no file itself: it is handed the bytes of every file of the packs,
read once by :func:`~critter_kitchen.loading.sources.read_packs` (the same bytes the pack
cache's key is made of), so what it builds always matches what was read.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path as FsPath
from typing import Any

from ..dsl import types as t
from ..dsl.compiler import CompileProblem, Vocabulary, compile_expr, compile_program
from ..dsl.program import Compiled
from ..dsl.registry import CONSTRAINT_NAMES
from ..errors import InputError, Problem, did_you_mean, shown
from ..model.ruleset import (
    CHALLENGE_CARDS,
    DEFAULT_SCOPE,
    PRIORITY,
    SCOPE_WORDS,
    SCOPES,
    STAGE_NAME_CHARS,
    TIMINGS,
    WILD_SLOT,
    Card,
    Constraint,
    Effect,
    Pack,
    Parameter,
    Ruleset,
    Stage,
    TieBreak,
)
from . import packschema, remember, schema
from .deal import check_deal, merge_deal
from .discovery import PACK_FILE, link_problem
from .dsltext import excerpt, locator
from .files import is_record
from .paths import shipped_cards
from .records import ENGINE_PARAMETERS
from .sources import PackSource, read_packs
from .yamlpos import Document, parse, read_text, unreadable

RULES_KIND = "rules"
# Effects parsed and compiled before, remembered by the file (its name and whole text), the
# place in it and the form, with the problems found (see .remember: only the language
# server remembers). Syntax trees are frozen, so one may serve many loads; a program is
# compiled again only when its tree or the names it may use changed.
_parsed = remember.Store()
_compiled = remember.Store()
_documents = remember.Store()


MAX_PARAMETER = 10**6  # largest number a rule parameter may hold
PARAM_TYPES = {
    "int": t.INT,
    "bool": t.BOOL,
    "text": t.TEXT,
    "bands": t.BANDS,
    "table": t.TABLE,
    "list[ingredient]": t.list_of(t.INGREDIENT),
    "list[round]": t.list_of(t.ROUND),
    "list[text]": t.list_of(t.TEXT),
}


def load_packs(dirs: Sequence[str | FsPath]) -> tuple[Ruleset, list[Problem]]:
    """Load the packs in ``dirs``, the base pack first, without the cache: the ruleset and every problem."""
    return load_sources(read_packs([str(d) for d in dirs]))


def load_sources(sources: Sequence[PackSource]) -> tuple[Ruleset, list[Problem]]:
    """Load packs from the files read from them, the base pack first: the ruleset and every problem."""
    remember.new_load()
    _load_number[0] += 1
    loader = _Loader()
    ruleset = loader.load(sources)
    return ruleset, sorted(set(loader.problems))


def document(source: PackSource, file: str, shown: str | None = None) -> Document:
    """One file of a pack, parsed from the bytes read for the load; raise InputError on any problem."""
    name = shown or file
    raw = source.contents[file]
    if isinstance(raw, OSError):
        raise unreadable(name, raw)
    held = _documents.get((name, raw))  # a file of the same name and bytes, parsed before (.remember)
    if held is None:
        try:
            held = parse(name, read_text(name, raw))
        except InputError as e:
            held = e
        _documents.put((name, raw), held)
    if isinstance(held, InputError):
        raise InputError(held.problems)
    return held  # type: ignore[no-any-return]


def display_path(path: FsPath) -> str:
    """A path as the user would write it: relative to the working folder when inside it.

    Files of the shipped packs read as ``cards/base/...``, ``cards/solo/...`` wherever they
    are installed, which is where they live in the source repository.
    """
    resolved = FsPath(os.path.realpath(path))  # never raises, even for a link loop
    for root, label in ((_resolved(shipped_cards()), FsPath("cards")), (FsPath.cwd(), None)):
        try:
            relative = resolved.relative_to(root)
        except ValueError:
            continue
        return str(label / relative if label is not None else relative)
    return str(path)


def _resolved(folder: str) -> FsPath:
    """The real place of the shipped cards' folder, found once a load (every file's name asks)."""
    held = _shipped_places.get(folder)
    if held is None or held[0] != _load_number[0]:
        held = _shipped_places[folder] = (_load_number[0], FsPath(folder).resolve())
    return held[1]


_shipped_places: dict[str, tuple[int, FsPath]] = {}
_load_number = [0]  # counts the loads of this process


def real_path(shown: str) -> str:
    """The file a path of :func:`display_path` names: a shipped pack's ``cards/...`` first, as
    :func:`display_path` writes it, wherever the working folder is; else the path itself."""
    parts = FsPath(shown).parts
    if parts[:1] == ("cards",) and not FsPath(shown).is_absolute():
        shipped = FsPath(shipped_cards(), *parts[1:])
        if shipped.exists():
            return os.path.realpath(shipped)
    return os.path.realpath(shown)


def vocabulary(rs: Ruleset, owned: bool) -> Vocabulary:
    """The names a card may use under this ruleset."""
    params = rs.parameters
    rounds = tuple(params["challenge_rounds"].value) if "challenge_rounds" in params else ()
    tokens = tuple(params["token_values"].value) if "token_values" in params else ()
    wild = (params["wild_spice"].value,) if "wild_spice" in params else ()
    domains = {
        t.INGREDIENT: rs.ingredient_types,
        t.ROUND: rounds,
        t.STAGE: tuple(rs.stage_names()),
        t.COUNTER: rs.counters,
        t.TOKEN: tokens,
        t.CARD: tuple(rs.cards),
        t.CARD_NAME: tuple(card.name for card in rs.cards.values()),
        t.SPICE: (*rs.ingredient_types, *wild),
    }
    return Vocabulary(domains, {name: p.type for name, p in params.items()}, owned)


def owns(rs: Ruleset, kind: str) -> bool:
    """Whether cards of ``kind`` belong to one player (so their effects may name ``owner``)."""
    return rs.card_kinds.get(kind, "").startswith("players.")


def _requirements(sources: Sequence[PackSource]) -> dict[str, tuple[str, ...]]:
    """Pack id -> the ids it requires, for every pack about to load (unreadable ones left out)."""
    out: dict[str, tuple[str, ...]] = {}
    for source in sources:
        if source.pack_file is None:
            continue
        try:
            if link_problem(source.pack_file, source.folder) is not None:
                continue
            data = document(source, source.pack_file).data
        except InputError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            requires = data.get("requires")
            out[data["id"]] = tuple(r for r in requires if isinstance(r, str)) if isinstance(requires, list) else ()
    return out


def _path_back(start: str, goal: str, requirements: dict[str, tuple[str, ...]]) -> list[str]:
    """A chain of requirements from ``start`` to ``goal`` (both included), or [] if none."""
    todo, seen = [[start]], {start}
    while todo:
        chain = todo.pop()
        for nxt in requirements.get(chain[-1], ()):
            if nxt == goal:
                return [*chain, nxt]
            if nxt not in seen:
                seen.add(nxt)
                todo.append([*chain, nxt])
    return []


class _Loader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.requirements: dict[str, tuple[str, ...]] = {}
        self.ruleset = Ruleset(rules_kind=RULES_KIND)
        self.card_docs: dict[str, Document] = {}
        self.stage_sources: dict[str, tuple[Document, tuple[str | int, ...]]] = {}
        self.card_stages: list[tuple[Document, int, Stage]] = []  # stages other cards declare, placed last
        # Table values the rules set, by where they are: their keys are checked once every stage is placed.
        self.keyed: list[tuple[Document, tuple[str | int, ...], str, Any]] = []
        self.sources: dict[str, PackSource] = {}  # pack folder -> its files
        self.kind_validators: dict[str, Any] = {}  # kind -> compiled schema; None when unusable
        self.pack_schemas: dict[str, Any] = {}  # schema file (real path) -> compiled (or None), each read once
        self.deal_places: dict[str, Any] = {}  # deal number -> key -> the rules file that set it
        self.key_docs: dict[TieBreak, Document] = {}  # each ranking key -> the rules file that wrote it
        # (domain, name) -> where a pack's rules took the name out (a round, a token kind, a stage),
        # and that pack: a card of another pack that still names it is told there
        self.taken_out: dict[tuple[str, str], tuple[Document, tuple[str | int, ...], str]] = {}
        self.pack_of: dict[str, str] = {}  # file as shown -> its pack's id
        self.vocabularies: dict[bool, Vocabulary] = {}  # by whether a player owns the card, once compiling
        self.vocabulary_names: dict[int, tuple[Any, ...]] = {}  # each of them as a key (when remembering)

    def add(self, problems: Iterable[Problem]) -> None:
        self.problems.extend(problems)

    def at(self, doc: Document, path: tuple[str | int, ...], message: str, code: str, *, at_key: bool = False) -> None:
        self.problems.append(doc.problem(path, message, code, at_key=at_key))

    # packs and files

    def load(self, sources: Sequence[PackSource]) -> Ruleset:
        docs: list[tuple[Pack, Document]] = []
        self.requirements = _requirements(sources)
        for source in sources:
            pack = self.read_pack(source)
            if pack is None:
                continue
            self.ruleset.packs.append(pack)
            self.sources[pack.path] = source
            self.add(map(_shown, source.walk_problems))
            for file in source.card_files:
                try:
                    docs.append((pack, document(source, file, display_path(FsPath(file)))))
                except InputError as e:
                    self.add(e.problems)
                else:
                    self.pack_of[docs[-1][1].path] = pack.id
        kinds = [(pack, doc) for pack, doc in docs if self.is_mapping(doc) and not is_record(doc.data)]
        rules = [(p, d) for p, d in kinds if d.data.get("kind") == RULES_KIND]
        for pack, doc in rules:
            self.read_rules(pack, doc)
        if rules:
            self.check_engine_parameters(rules[0][1])
            check_deal(self.ruleset, self.deal_places, self.at)
        for pack, doc in kinds:
            if doc.data.get("kind") != RULES_KIND:
                self.read_card(pack, doc)
        self.place_card_stages()
        self.compile_all()
        return self.ruleset

    def is_mapping(self, doc: Document) -> bool:
        if isinstance(doc.data, dict):
            return True
        self.at(doc, (), "a card file must be a mapping with 'id', 'kind' and 'name'", "CK101")
        return False

    def read_pack(self, source: PackSource) -> Pack | None:
        folder = FsPath(source.folder)
        if not source.is_folder:
            self.problems.append(Problem(display_path(folder), 0, 0, "no such card pack folder", "CK104"))
            return None
        if source.pack_file is None:
            self.problems.append(
                Problem(display_path(folder), 0, 0, "not a card pack: no pack.yaml in this folder", "CK104")
            )
            return None
        refused = link_problem(str(folder / PACK_FILE), str(folder))
        if refused is not None:
            self.problems.append(_shown(refused))
            return None
        try:
            doc = document(source, source.pack_file, display_path(folder / "pack.yaml"))
        except InputError as e:
            self.add(e.problems)
            return None
        found = schema.check(doc, schema.shipped("pack"))
        if found:
            self.add(found)
            return None
        pack = Pack(
            doc.data["id"],
            doc.data["name"],
            str(folder),
            tuple(doc.data.get("requires", ())),
            " ".join(str(doc.data.get("description", "")).split()),
        )
        loaded = [p.id for p in self.ruleset.packs]
        if pack.id in loaded:
            self.at(doc, ("id",), f"pack '{pack.id}' is loaded twice", "CK104")
            return None
        for i, req in enumerate(pack.requires):
            if req not in loaded:
                self.at(doc, ("requires", i), self.missing_requirement(pack.id, req), "CK104")
        return pack

    def missing_requirement(self, pack: str, req: str) -> str:
        if req == pack:
            return f"pack '{pack}' requires itself"
        if req not in self.requirements:
            return f"pack '{pack}' requires pack '{req}', which is not loaded; load it first with --pack"
        cycle = _path_back(req, pack, self.requirements)
        if cycle:
            return f"packs require each other in a cycle: {' -> '.join([pack, *cycle])}"
        return f"pack '{pack}' requires pack '{req}', which is loaded after it; load '{req}' first"

    # rules cards

    def read_rules(self, pack: Pack, doc: Document) -> None:
        found = schema.check(doc, schema.shipped("rules"))
        if found:
            self.add(found)
            return
        data = doc.data
        card = self.new_card(pack, doc)
        if card is None:
            return
        card.constraints = self.read_constraints(doc, card)
        rs = self.ruleset
        for i, name in enumerate(data.get("ingredients", [])):
            if name in rs.ingredient_types:
                self.at(doc, ("ingredients", i), f"ingredient type '{name}' is already declared", "CK206")
            elif name == WILD_SLOT:
                problem = (
                    f"an ingredient type may not be named '{name}': a requirement '{name}' is a slot any type fills"
                )
                self.at(doc, ("ingredients", i), problem, "CK206")
            else:
                rs.ingredient_types += (name,)
        rs.counters += tuple(c for c in data.get("counters", []) if c not in rs.counters)
        for kind, spec in data.get("card_kinds", {}).items():
            if kind in self.ruleset.card_kinds:
                self.at(doc, ("card_kinds", kind), f"card kind '{kind}' is already declared", "CK102", at_key=True)
                continue
            self.ruleset.card_kinds[kind] = spec["record"]
            self.ruleset.kind_schemas[kind] = self.schema_file(doc, pack, kind, spec.get("schema", "card"))
            if spec.get("single"):
                self.ruleset.single_kinds.add(kind)
        for name, spec in data.get("parameters", {}).items():
            before = vocabulary(rs, owned=False).domains
            self.declare_parameter(doc, name, spec, pack.id)
            for domain, names in vocabulary(rs, owned=False).domains.items():
                for gone in set(before.get(domain, ())) - set(names):
                    self.taken_out[(domain, gone)] = (doc, ("parameters", name), pack.id)
        for i, spec in enumerate(data.get("stages", [])):
            self.declare_stage(doc, card, i, spec)
        for i, name in enumerate(data.get("remove_stages", [])):
            if name not in rs.stage_names():
                self.at(
                    doc,
                    ("remove_stages", i),
                    f"cannot remove unknown stage '{name}'{did_you_mean(name, rs.stage_names())}",
                    "CK204",
                )
            elif [s.name for s in rs.stages] == [name]:
                # No stage left would score nothing, and no later pack could place a stage
                # again (a new stage goes before or after an existing one): surely a slip.
                self.at(
                    doc,
                    ("remove_stages", i),
                    f"cannot remove stage '{name}': it is the last one, and a game needs at least one stage",
                    "CK104",
                )
            else:
                rs.stages = [s for s in rs.stages if s.name != name]
                rs.removed_stages.add(name)
                self.taken_out[(t.STAGE, name)] = (doc, ("remove_stages", i), pack.id)
        self.read_ranking(doc, data)
        if "deal" in data:
            merge_deal(rs, data["deal"], doc, self.deal_places)

    def read_ranking(self, doc: Document, data: dict[str, Any]) -> None:
        """The ranking of a rules card: ``ranking`` (its keys replace the keys loaded before,
        its ``when_tied`` the ending), or the older form, whose ``tiebreaks`` are added after
        the keys loaded before and whose ``priority_label`` is the priority ending's label."""
        rs = self.ruleset
        ranking = data.get("ranking")
        if ranking is None:
            for i, spec in enumerate(data.get("tiebreaks", [])):
                self.ranking_key(doc, ("tiebreaks", i), spec["label"], rs.tiebreaks)
            if "priority_label" in data:
                rs.when_tied, rs.tied_label = PRIORITY, data["priority_label"]
            return
        for old in ("tiebreaks", "priority_label"):
            if old in data:
                message = f"'{old}' is the older form of 'ranking': a card writes its ranking in 'ranking' only"
                self.at(doc, (old,), message, "CK101", at_key=True)
        if "keys" in ranking:
            keys: list[TieBreak] = []
            for i, spec in enumerate(ranking["keys"]):
                self.ranking_key(doc, ("ranking", "keys", i), spec["label"], keys)
            rs.tiebreaks = keys
        if "when_tied" in ranking:
            rs.when_tied, rs.tied_label = ranking["when_tied"]["by"], ranking["when_tied"]["label"]

    def ranking_key(self, doc: Document, path: tuple[str | int, ...], label: str, keys: list[TieBreak]) -> None:
        ast = self.parse_dsl(doc, (*path, "by"), expr=True)
        if ast is not None:
            key = TieBreak(label, ast, card=doc.data["id"])
            keys.append(key)
            self.key_docs[key] = doc

    def check_engine_parameters(self, doc: Document) -> None:
        """Every parameter the engine reads must be declared, with its type, by the rules."""
        for name, typ in ENGINE_PARAMETERS.items():
            declared = self.ruleset.parameters.get(name)
            if declared is None:
                self.at(doc, (), f"the rules declare no parameter '{name}' ({typ}), which scoring needs", "CK206")
            elif declared.type != PARAM_TYPES[typ]:
                self.at(doc, ("parameters", name), f"parameter '{name}' must be {typ}, not {declared.type}", "CK206")

    def schema_file(self, doc: Document, pack: Pack, kind: str, ref: str) -> str:
        """A kind's schema: a shipped name such as ``card``, or a JSON file in the pack (compiled now)."""
        where = ("card_kinds", kind, "schema")
        self.kind_validators[kind] = None
        if not ref.endswith(".json"):
            if ref not in schema.shipped_names():
                self.at(
                    doc,
                    where,
                    f"unusable schema '{ref}': no such schema{did_you_mean(ref, schema.shipped_names())}",
                    "CK104",
                )
                return ""
            self.kind_validators[kind] = schema.validator(schema.shipped(ref))
            return schema.shipped(ref)
        folder = FsPath(pack.path)
        file = folder / ref
        if not file.resolve().is_relative_to(folder.resolve()):
            self.at(doc, where, f"schema '{ref}' is outside the pack folder", "CK105")
            return ""
        read = self.pack_reader(pack)
        try:
            read(file)
        except OSError as e:
            self.at(doc, where, f"unusable schema '{ref}': {_unusable(e)}", "CK104")
            return ""
        real = os.path.realpath(file)
        if real not in self.pack_schemas:
            compiled, problems = packschema.load(file, folder, display_path, read)
            self.add(problems)
            self.pack_schemas[real] = compiled
        self.kind_validators[kind] = self.pack_schemas[real]
        return str(file)

    def pack_reader(self, pack: Pack) -> Callable[[FsPath], bytes]:
        """Reads of the pack's own files, from the bytes this load read: a file its walk did not
        list (hidden, in a nested pack, behind a link that leads out) is no file of the pack."""
        by_place = {os.path.realpath(f): data for f, data in self.sources[pack.path].contents.items()}

        def read(path: FsPath) -> bytes:
            data = by_place.get(os.path.realpath(path))
            if data is None:
                raise FileNotFoundError(errno.ENOENT, "no such schema", str(path))
            if isinstance(data, OSError):
                raise data
            return data

        return read

    def declare_parameter(self, doc: Document, name: str, spec: dict[str, Any], pack: str) -> None:
        params = self.ruleset.parameters
        where = ("parameters", name)
        if name in params:
            if "type" in spec and PARAM_TYPES.get(spec["type"]) != params[name].type:
                self.at(
                    doc, (*where, "type"), f"parameter '{name}' is already declared as {params[name].type}", "CK206"
                )
                return
            if "scope" in spec:
                params[name].scope = spec["scope"]
            if "value" in spec and self.check_value(doc, (*where, "value"), params[name].type, spec["value"]):
                params[name].value = spec["value"]
                params[name].unverified = spec.get("unverified", "")
                params[name].set_by = (*params[name].set_by, (pack, spec["value"]))
                self.keyed.append((doc, (*where, "value"), name, spec["value"]))
            return
        if "type" not in spec:
            self.at(doc, where, f"new parameter '{name}' needs a 'type'", "CK206", at_key=True)
            return
        typ = PARAM_TYPES[spec["type"]]
        if self.check_value(doc, (*where, "value"), typ, spec["value"]):
            scope = spec.get("scope", DEFAULT_SCOPE)
            params[name] = Parameter(
                name,
                typ,
                spec["value"],
                spec.get("description", ""),
                spec.get("unverified", ""),
                scope,
                spec.get("keys", ""),
                ((pack, spec["value"]),),
            )
            self.keyed.append((doc, (*where, "value"), name, spec["value"]))

    def check_value(self, doc: Document, path: tuple[str | int, ...], typ: str, value: Any) -> bool:
        problem = _value_problem(typ, value, self.ruleset.ingredient_types)
        if problem:
            self.at(doc, path, problem, "CK206")
        return not problem

    def declare_stage(self, doc: Document, card: Card, i: int, spec: dict[str, Any]) -> None:
        rs = self.ruleset
        name = spec["id"]
        ast = self.parse_dsl(doc, ("stages", i, "do"))
        stage = Stage(name, spec.get("description", ""), card.id, ast, short_name=self.stage_name(doc, i, spec))
        existing = [s.name for s in rs.stages]
        if name in existing:
            if "before" in spec or "after" in spec:
                self.at(
                    doc,
                    ("stages", i, "id"),
                    f"stage '{name}' already exists; leave out before/after to replace it",
                    "CK205",
                )
                return
            previous = rs.stages[existing.index(name)]
            if previous.card != self.base_rules_id():
                self.at(
                    doc, ("stages", i, "id"), f"stage '{name}' is already replaced by card '{previous.card}'", "CK205"
                )
                return
            rs.stages[existing.index(name)] = stage
        elif "before" in spec or "after" in spec:
            anchor = spec.get("before") or spec["after"]
            key = "before" if "before" in spec else "after"
            if anchor not in existing:
                self.at(doc, ("stages", i, key), f"unknown stage '{anchor}'{did_you_mean(anchor, existing)}", "CK204")
                return
            at = existing.index(anchor) + (key == "after")
            rs.stages.insert(at, stage)
        else:
            rs.stages.append(stage)
        self.stage_sources[name] = (doc, ("stages", i, "do"))

    def stage_name(self, doc: Document, i: int, spec: dict[str, Any]) -> str:
        """The short name of stage ``i`` of a card (its ``name``), or "" when it has none or
        one longer than :data:`STAGE_NAME_CHARS` (a problem)."""
        short = spec.get("name", "")
        if len(short) > STAGE_NAME_CHARS:
            message = (
                f"stage name {shown(short)} has {len(short)} characters; a stage's name may have at most"
                f" {STAGE_NAME_CHARS} (its description may say the rest)"
            )
            self.at(doc, ("stages", i, "name"), message, "CK101")
            return ""
        return str(short)

    def base_rules_id(self) -> str:
        rules = self.ruleset.rules_cards
        return rules[0].id if rules else ""

    # other cards

    def read_card(self, pack: Pack, doc: Document) -> None:
        kind = doc.data.get("kind")
        if not isinstance(kind, str) or kind not in self.ruleset.card_kinds:
            known = [RULES_KIND, *self.ruleset.card_kinds]
            message = (
                "missing required key 'kind'"
                if kind is None
                else f"unknown card kind {shown(kind)}{did_you_mean(str(kind), known)}"
            )
            self.at(doc, ("kind",) if kind is not None else (), message, "CK102" if kind is not None else "CK101")
            return
        compiled = self.kind_validators.get(kind)
        if compiled is None:
            return  # the kind's schema is unusable, and that is reported
        found = schema.check_with(doc, compiled)
        if any(p.code == "CK106" for p in found):
            self.kind_validators[kind] = None  # one such check is enough: do not pay for it on every card
        if not found and self.ruleset.kind_schemas[kind].endswith(".json"):
            found = schema.check_with(doc, schema.engine_fields())  # the pack's own schema may allow anything
        if found:
            self.add(found)
            return
        card = self.new_card(pack, doc)
        if card is None:
            return
        data = doc.data
        card.requires = tuple(data.get("requires", ()))
        card.different_types = data.get("different_types") is True
        card.constraints = self.read_constraints(doc, card)
        card.parameters = dict(data.get("parameters", {}))
        effects = []
        for i, spec in enumerate(data.get("effects", [])):
            timing = next(k for k in TIMINGS if k in spec)
            ast = self.parse_dsl(doc, ("effects", i, "do"))
            if ast is not None:
                effects.append(Effect(timing, spec[timing], ast))
        card.effects = tuple(effects)
        for i, spec in enumerate(data.get("stages", [])):
            ast = self.parse_dsl(doc, ("stages", i, "do"))
            short = self.stage_name(doc, i, spec)
            stage = Stage(spec["id"], spec.get("description", ""), card.id, ast, short_name=short)
            self.card_stages.append((doc, i, stage))
        if not (
            card.requires or card.parameters or data.get("effects") or data.get("stages") or data.get("constraints")
        ):
            # a kind that lists requirements (its schema's 'requires') is what its requirements ask
            message = f"card '{card.id}' does nothing: give it effects, parameters, constraints or stages"
            self.at(doc, ("id",), message, "CK101")

    def place_card_stages(self) -> None:
        """Put the stages cards other than rules cards declare into the stage order.

        Such a stage is new (it replaces no stage) and may be placed before or after
        another card's stage, whichever file was read first: each pass places every stage
        whose anchor is placed, until a pass places none.
        """
        waiting = [entry for entry in self.card_stages if self.is_new_stage(*entry)]
        while waiting:
            left = [entry for entry in waiting if not self.place_card_stage(*entry)]
            if len(left) == len(waiting):
                break
            waiting = left
        pending = {stage.name for _, _, stage in waiting}
        for doc, i, stage in waiting:
            key = "before" if "before" in doc.data["stages"][i] else "after"
            anchor = doc.data["stages"][i][key]
            names = self.ruleset.stage_names()
            message = (
                f"stage '{stage.name}' cannot go {key} stage '{anchor}': their places depend on each other"
                if anchor in pending
                else f"unknown stage '{anchor}'{did_you_mean(anchor, names)}"
            )
            self.at(doc, ("stages", i, key), message, "CK204")

    def is_new_stage(self, doc: Document, i: int, stage: Stage) -> bool:
        """Whether no rules card and no declaration read earlier names a stage so (else a problem)."""
        first_doc, first_i, first = next(e for e in self.card_stages if e[2].name == stage.name)
        if stage.name in self.ruleset.stage_names():
            message = (
                f"stage '{stage.name}' already exists; only a rules card may replace a stage, "
                f"other cards hook 'replace: {stage.name}'"
            )
        elif first is not stage:
            line = first_doc.mark(("stages", first_i, "id")).line
            message = f"stage '{stage.name}' is also declared by card '{first.card}' ({first_doc.path}:{line})"
        else:
            return True
        self.at(doc, ("stages", i, "id"), message, "CK205")
        return False

    def place_card_stage(self, doc: Document, i: int, stage: Stage) -> bool:
        """Place one card's stage if its anchor is placed; whether it is placed."""
        spec, stages = doc.data["stages"][i], self.ruleset.stages
        names = [s.name for s in stages]
        if "before" in spec or "after" in spec:
            key = "before" if "before" in spec else "after"
            if spec[key] not in names:
                return False
            stages.insert(names.index(spec[key]) + (key == "after"), stage)
        else:
            stages.append(stage)
        self.stage_sources[stage.name] = (doc, ("stages", i, "do"))
        return True

    def new_card(self, pack: Pack, doc: Document) -> Card | None:
        data = doc.data
        cid = data["id"]
        if cid in self.ruleset.cards:
            other = self.card_docs[cid]
            line = other.mark(("id",)).line
            self.at(doc, ("id",), f"duplicate card id '{cid}' (also in {other.path}:{line})", "CK103")
            return None
        mark = doc.mark(())
        card = Card(cid, data["kind"], data["name"], pack.id, doc.path, (mark.line, mark.column), data)
        self.ruleset.cards[cid] = card
        self.card_docs[cid] = doc
        return card

    # DSL

    def parse_dsl(self, doc: Document, path: tuple[str | int, ...], *, expr: bool = False) -> Any:
        key = (doc.path, doc.text, path, expr)
        held = _parsed.get(key)
        if held is None:
            count = len(self.problems)
            ast = self._parse_dsl(doc, path, expr)
            _parsed.put(key, (ast, self.problems[count:]))
            return ast
        ast, problems = held
        self.problems.extend(problems)
        return ast

    def _parse_dsl(self, doc: Document, path: tuple[str | int, ...], expr: bool) -> Any:
        from ..dsl.parser import SyntaxProblem, parse_expr, parse_program  # lark loads only when needed

        text = _path_get(doc.data, path)
        locate = locator(doc, path)
        try:
            return parse_expr(text, locate) if expr else parse_program(text, locate)
        except SyntaxProblem as e:
            self.problems.append(
                Problem(doc.path, e.line, e.column, e.message, "CK201", excerpt=excerpt(doc, e.line, e.column, e.width))
            )
            return None

    def compile_program(self, ast: Any, vocab: Vocabulary) -> tuple[Compiled, list[CompileProblem]]:
        """``compile_program(ast, vocab)``; when remembering (the language server), the program
        compiled before from the same syntax tree (the parse remembered it) with the same names."""
        if not remember.is_on():
            return compile_program(ast, vocab)
        names = self.vocabulary_names.get(id(vocab))
        if names is None:
            names = self.vocabulary_names[id(vocab)] = (
                tuple(sorted(vocab.domains.items())),
                tuple(sorted(vocab.params.items())),
                vocab.has_owner,
            )
        key = (id(ast), names)
        held = _compiled.get(key)
        if held is None or held[0] is not ast:  # the tree is kept beside it, so that its id is not reused
            held = (ast, compile_program(ast, vocab))
            _compiled.put(key, held)
        return held[1]  # type: ignore[no-any-return]

    def vocabulary(self, owned: bool) -> Vocabulary:
        # one per kind of card while the effects compile: the ruleset does not change meanwhile
        if owned not in self.vocabularies:
            self.vocabularies[owned] = vocabulary(self.ruleset, owned)
        return self.vocabularies[owned]

    def compiled(self, doc: Document, result: tuple[Compiled, list[CompileProblem]]) -> Compiled:
        code, problems = result
        for p in problems:
            cause = self.taken_out.get(p.unknown) if p.unknown is not None else None
            if cause is not None and cause[2] != self.pack_of.get(doc.path):
                self.problems.append(_caused(cause[0], cause[1], doc, p))
                continue
            self.problems.append(
                Problem(
                    doc.path,
                    p.pos.line,
                    p.pos.column,
                    p.message,
                    p.code,
                    excerpt=excerpt(doc, p.pos.line, p.pos.column, p.pos.width),
                )
            )
        return code

    def compile_all(self) -> None:
        rs = self.ruleset
        for doc, path, name, value in self.keyed:  # the rules' values, now that every stage is placed
            if rs.parameters.get(name) is not None and rs.parameters[name].type == t.TABLE:
                self.check_keys(doc, path, rs.parameters[name], value)
        shared = self.vocabulary(owned=False)
        for stage in rs.stages:
            if stage.ast is not None:
                card = rs.cards[stage.card]
                vocab = shared if card.kind == RULES_KIND else self.vocabulary(owned=owns(rs, card.kind))
                stage.code = self.compiled(self.card_docs[card.id], self.compile_program(stage.ast, vocab))
        for tb in rs.tiebreaks:
            tb.code = self.compiled(self.key_docs[tb], compile_expr(tb.ast, shared, {"p": t.PLAYER}, t.INT))
        stages = rs.stage_names()
        replacers: dict[str, list[Card]] = {}
        for card in rs.cards.values():
            doc = self.card_docs[card.id]
            vocab = shared if card.kind == RULES_KIND else self.vocabulary(owned=owns(rs, card.kind))
            self.compile_constraints(doc, card, vocab)
            if card.kind == RULES_KIND:
                continue
            for i, effect in enumerate(card.effects):
                if effect.stage in rs.removed_stages and effect.stage not in stages:
                    continue  # a pack removed the stage: effects hooked to it never run
                if effect.stage not in stages:
                    self.at(
                        doc,
                        ("effects", i, effect.timing),
                        f"unknown stage '{effect.stage}'{did_you_mean(effect.stage, stages)}",
                        "CK204",
                    )
                    continue
                if effect.timing == "replace":
                    replacers.setdefault(effect.stage, []).append(card)
                effect.code = self.compiled(doc, self.compile_program(effect.ast, vocab))
            self.check_card_parameters(doc, card)
            self.check_requirements(doc, card)
        self.check_replacements(replacers)
        self.check_sets()

    def read_constraints(self, doc: Document, card: Card) -> tuple[Constraint, ...]:
        """The card's meal constraints, their conditions parsed (compiled with the card's effects)."""
        found = []
        for i, spec in enumerate(card.data.get("constraints", ())):
            ast = self.parse_dsl(doc, ("constraints", i, "require"), expr=True)
            if ast is not None:
                found.append(Constraint(spec["meal"], spec["message"], card.id, i, ast))
        return tuple(found)

    def compile_constraints(self, doc: Document, card: Card, vocab: Vocabulary) -> None:
        """Check each constraint's condition: a condition over the names its meal gives
        (:data:`CONSTRAINT_NAMES`); a Challenge card's constraints are about its own meals."""
        challenge = self.ruleset.card_kinds.get(card.kind) == CHALLENGE_CARDS
        for c in card.constraints:
            if challenge and c.meal != "challenge":
                about = "a Challenge card's constraints are about the meals served for it"
                problem = f"{about}: use meal: challenge, not {c.meal}"
                self.at(doc, ("constraints", c.index, "meal"), problem, "CK206")
                continue
            c.code = self.compiled(doc, compile_expr(c.ast, vocab, CONSTRAINT_NAMES[c.meal], t.BOOL))

    def check_requirements(self, doc: Document, card: Card) -> None:
        """Each requirement slot names an ingredient type or the wildcard; with different types,
        no type is printed twice (two slots of one type can never hold different types)."""
        types = self.ruleset.ingredient_types
        for i, kind in enumerate(card.requires):
            if kind == WILD_SLOT:
                continue
            if kind not in types:
                self.at(
                    doc,
                    ("requires", i),
                    f"unknown ingredient type '{kind}'{did_you_mean(kind, (*types, WILD_SLOT))}",
                    "CK202",
                )
            elif card.different_types and kind in card.requires[:i]:
                self.at(
                    doc,
                    ("requires", i),
                    f"{kind} is printed twice, but with different_types every slot needs a type of its own",
                    "CK206",
                )

    def check_card_parameters(self, doc: Document, card: Card) -> None:
        params = self.ruleset.parameters
        level = self.ruleset.card_level(card.kind)
        for name, value in card.parameters.items():
            if name not in params:
                self.at(
                    doc,
                    ("parameters", name),
                    f"unknown parameter '{name}'{did_you_mean(name, list(params))}",
                    "CK206",
                    at_key=True,
                )
            elif not params[name].settable_at(level):
                self.at(doc, ("parameters", name), _scope_problem(params[name], card.kind, level), "CK206", at_key=True)
            elif self.check_value(doc, ("parameters", name), params[name].type, value):
                self.check_keys(doc, ("parameters", name), params[name], value)

    def check_keys(self, doc: Document, path: tuple[str | int, ...], param: Parameter, value: Any) -> None:
        """Each key of a table whose keys name stages or ingredient types names one (the stages
        placed, the types read: asked once every pack is read)."""
        if param.keys == "stage":
            known, code = tuple(self.ruleset.stage_names()), "CK204"
        elif param.keys == "ingredient":
            known, code = self.ruleset.ingredient_types, "CK202"
        else:
            return
        for key in value:
            if key not in known:
                message = f"unknown {_KEY_WORDS[param.keys]} '{key}'{did_you_mean(str(key), known)}"
                self.at(doc, (*path, key), message, code, at_key=True)

    def check_replacements(self, replacers: dict[str, list[Card]]) -> None:
        # Two cards may replace one stage only if they can never be in play together: both
        # of a kind of which the whole table holds one card (a player-held kind that is
        # "single" still gives every player one, so two of them can meet).
        rs = self.ruleset
        for stage, cards in replacers.items():
            for i, card in enumerate(cards):
                for other in cards[:i]:
                    if card.kind == other.kind and card.kind in rs.single_kinds and not owns(rs, card.kind):
                        continue
                    doc = self.card_docs[card.id]
                    index = next(j for j, e in enumerate(card.effects) if e.timing == "replace" and e.stage == stage)
                    self.at(
                        doc,
                        ("effects", index, "replace"),
                        f"stage '{stage}' is also replaced by card '{other.id}', and both can be in play",
                        "CK205",
                    )

    def check_sets(self) -> None:
        # Two set statements of one hook point that may give one quantity different values
        # would make the result depend on which ran last; the rules make it a card pair's error.
        rs = self.ruleset
        setters: dict[tuple[str, str], list[tuple[Card, int | None, set[Target]]]] = {}
        for stage in rs.stages:
            targets = set_targets(stage.code.ops) if stage.code is not None else set()
            if targets and stage.card in rs.cards:
                setters.setdefault((stage.name, "body"), []).append((rs.cards[stage.card], None, targets))
        for card in rs.cards.values():
            for i, effect in enumerate(card.effects):
                targets = set_targets(effect.code.ops) if effect.code is not None else set()
                if targets and card.kind != RULES_KIND:
                    point = "body" if effect.timing == "replace" else effect.timing
                    setters.setdefault((effect.stage, point), []).append((card, i, targets))
        for (stage_name, point), entries in setters.items():
            for i, (card, index, targets) in enumerate(entries):
                for other, other_index, other_targets in entries[:i]:
                    shared = sorted(a for a in targets for b in other_targets if same_quantity(a, b))
                    if shared and index is not None and self.can_meet(card, index, other, other_index):
                        self.at(
                            self.card_docs[card.id],
                            ("effects", index, card.effects[index].timing),
                            f"{target_text(shared[0])} {_POINT_WORDS[point]} stage '{stage_name}' is also set by card "
                            f"'{other.id}', and both can be in play",
                            "CK209",
                        )

    def can_meet(self, card: Card, index: int, other: Card, other_index: int | None) -> bool:
        """Whether the two effects can run at one hook point of one game."""
        rs = self.ruleset
        if other_index is None:  # a stage body: it does not run when a card replaces the stage
            return card.effects[index].timing != "replace"
        if card.id == other.id:
            return False  # one card's own effects: its own text decides (and scoring checks the values)
        return not (card.kind == other.kind and card.kind in rs.single_kinds and not owns(rs, card.kind))


Target = tuple[str, tuple[Any, ...]]  # a set statement's function and its arguments (None: not a constant)
_POINT_WORDS = {"before": "before", "body": "at", "after": "after"}


def set_targets(op: tuple[Any, ...]) -> set[Target]:
    """What the set statements of a compiled program change: function and constant arguments."""
    found: set[Target] = set()
    if op[0] == "const":
        return found
    if op[0] == "modify" and op[2] == "set":
        found.add((op[1], tuple(a[1] if a[0] == "const" else None for a in op[3])))
    for part in op[1:]:
        if type(part) is tuple and part and type(part[0]) is str:
            found |= set_targets(part)
        elif type(part) is tuple:
            for item in part:
                if type(item) is tuple and item and type(item[0]) is str:
                    found |= set_targets(item)
    return found


def same_quantity(a: Target, b: Target) -> bool:
    """Whether two set targets can be the same quantity: same function, no constant argument differs."""
    return a[0] == b[0] and all(x is None or y is None or x == y for x, y in zip(a[1], b[1], strict=True))


def target_text(target: Target) -> str:
    name, args = target
    return f"{name}({', '.join('_' if a is None else str(a) for a in args)})"


def _caused(cause: Document, path: tuple[str | int, ...], broken: Document, p: CompileProblem) -> Problem:
    """A problem that a pack's rules cause in another pack's file (it took out a name that file
    uses): located where the rules took it out, naming the file it broke and the problem there."""
    mark = cause.key_mark(path)
    domain, name = p.unknown or ("", "")
    message = f"this makes {domain} '{name}' unknown to {broken.path}:{p.pos.line}:{p.pos.column} ({p.message})"
    return Problem(cause.path, mark.line, mark.column, message, p.code, excerpt=excerpt(cause, mark.line, mark.column))


def _unusable(e: OSError | ValueError) -> str:
    """Why a schema file cannot be used, in a few words."""
    if isinstance(e, FileNotFoundError):
        return "no such schema"
    return (e.strerror or str(e)) if isinstance(e, OSError) else str(e)


def _shown(problem: Problem) -> Problem:
    """A problem of a walk, its path shown as the user would write it (a link named, not followed)."""
    folder, name = os.path.split(problem.path)
    return Problem(str(FsPath(display_path(FsPath(folder))) / name), 0, 0, problem.message, problem.code)


def _path_get(data: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


# What a value of each scope is, and whom a card of each level sets parameters for, for a
# problem's text.
_LEVEL_WORDS = {
    "table": "for everyone while in play",
    "player": "for its owner",
    "meal": "for the meals served for it",
}


_KEY_WORDS = {"stage": "stage", "ingredient": "ingredient type"}


def _scope_problem(param: Parameter, kind: str, level: str) -> str:
    """Why a card of ``kind`` (at ``level``) may not set ``param``, whose scope is wider."""
    wider = SCOPES[SCOPES.index(level) :]
    allowed = " or ".join(wider) if len(wider) < 3 else f"{', '.join(wider[:-1])} or {wider[-1]}"
    return (
        f"parameter '{param.name}' has scope {param.scope} ({SCOPE_WORDS[param.scope]}): a {kind} card "
        f"sets parameters {_LEVEL_WORDS[level]}, those of scope {allowed}"
    )


def _value_problem(typ: str, value: Any, ingredients: tuple[str, ...]) -> str:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if typ == t.INT and not is_int(value):
        return f"expected a whole number, got {shown(value)}"
    if typ == t.INT and abs(value) > MAX_PARAMETER:
        return f"expected a whole number of at most {MAX_PARAMETER}"
    if typ == t.BOOL and not isinstance(value, bool):
        return f"expected true or false, got {shown(value)}"
    if typ == t.TEXT and not isinstance(value, str):
        return f"expected text, got {shown(value)}"
    if typ == t.BANDS:
        numbers = [x for b in value if isinstance(b, list) for x in b] if isinstance(value, list) else []
        if any(is_int(x) and abs(x) > MAX_PARAMETER for x in numbers):
            return f"band numbers are at most {MAX_PARAMETER}"
        if not (
            isinstance(value, list)
            and value
            and all(isinstance(b, list) and len(b) == 2 and all(map(is_int, b)) for b in value)
        ):
            return "expected bands: a list of [minimum, stars] pairs"
        minima = [b[0] for b in value]
        if minima != sorted(set(minima)):
            return "band minimums must rise strictly"
    if typ == t.TABLE and not (isinstance(value, dict) and all(map(is_int, value.values()))):
        return "expected a table of names to whole numbers"
    if typ == t.TABLE and any(abs(v) > MAX_PARAMETER for v in value.values()):
        return f"table numbers are at most {MAX_PARAMETER}"
    if typ.startswith("list[") and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return "expected a list of names"
    if typ == t.list_of(t.INGREDIENT):
        unknown = [v for v in value if v not in ingredients]
        if unknown:
            return f"unknown ingredient type '{unknown[0]}'{did_you_mean(unknown[0], ingredients)}"
    return ""

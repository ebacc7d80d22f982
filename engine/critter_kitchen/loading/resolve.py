"""Which packs load, in which order, and the ruleset they make: the one place that decides.

``--pack`` values (folders, or ids of installed packs), a record's or pantry's ``packs:``
(ids only), the packs installed by id (shipped, or registered under an entry point; found
by :mod:`.discovery`) and the packs beside a pack being checked all become an ordered list
of pack folders here, each pack after the packs it requires; and a :class:`Resolver` turns
such a list into its ruleset, loaded once per list. The ``critter-kitchen`` commands, the
Python interface, the score pad, the meal planner and the balance lab all ask it.

``score`` imports this on a filled cache, so it imports little: os at the top, the rest
when needed.
"""

from __future__ import annotations

import os

from ..errors import InputError, Problem
from .discovery import PACK_FILE, installed_pack, is_pack_id, known_ids_text, link_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..model.ruleset import Ruleset
    from .discovery import InstalledPack

    PathText = str | os.PathLike[str]


# pack.yaml


def pack_yaml(folder: PathText) -> dict[str, Any]:
    """A pack folder's pack.yaml as a mapping; {} when it cannot be used (unreadable, not a
    mapping, or a link that leads out of the pack): the load reports why."""
    from .yamlpos import read_document

    where = os.path.join(folder, PACK_FILE)
    try:
        if link_problem(where, os.fspath(folder)) is not None:
            return {}
        data = read_document(where).data
    except InputError:
        return {}
    return data if isinstance(data, dict) else {}


def pack_id(folder: PathText) -> str | None:
    """The id a pack folder's pack.yaml gives, or None."""
    data = pack_yaml(folder)
    return data["id"] if isinstance(data.get("id"), str) else None


# load order


def requirement_order(folder: str, find: Callable[[Any], str | None], skip: set[str] | None = None) -> list[str]:
    """``folder`` after the packs it requires, each after its own requirements, in the order
    pack.yaml lists them; ``find`` gives the folder of a required id (None: not found, left
    to the load to report). A pack comes once; one whose real place is in ``skip`` (loaded
    anyway) is left out, and a cycle ends where it closes (the load reports it).

    Depth first and iterative: a chain of requirements as long as the packs on disk costs no
    interpreter stack.
    """
    seen = {os.path.realpath(folder), *(skip or ())}
    order: list[str] = []
    todo = [(folder, iter(_required(folder, find)))]
    while todo:
        current, pending = todo[-1]
        for required in pending:
            real = os.path.realpath(required)
            if real not in seen:
                seen.add(real)
                todo.append((required, iter(_required(required, find))))
                break
        else:
            todo.pop()
            order.append(current)
    return order


def _required(folder: str, find: Callable[[Any], str | None]) -> list[str]:
    requires = pack_yaml(folder).get("requires")
    found = (find(req) for req in requires) if isinstance(requires, list) else ()
    return [f for f in found if f is not None]


class _Order:
    """Pack folders in load order; a pack added as another's requirement is not added again."""

    def __init__(self, given: set[str] | frozenset[str] = frozenset()) -> None:
        from .paths import base_pack

        self.folders: list[str] = []
        self.given = given  # ids a folder of --pack serves: not looked for among the installed packs
        self.required = {os.path.realpath(base_pack())}  # loaded anyway, or added as a requirement

    def add(self, folder: str) -> None:
        if os.path.realpath(folder) not in self.required:  # else a folder given twice: the load reports it
            self.folders.append(folder)

    def add_with_requirements(self, folder: str) -> None:
        """Add ``folder`` after the installed packs it requires, their requirements first."""
        for found in requirement_order(folder, self.installed, self.required):
            self.add(found)
            if found != folder:
                self.required.add(os.path.realpath(found))

    def installed(self, req: Any) -> str | None:
        found = installed_pack(req) if isinstance(req, str) and is_pack_id(req) and req not in self.given else None
        return found.folder if found is not None else None


def is_folder_spec(spec: str) -> bool:
    """Whether a ``--pack`` value names a folder: an existing one, or one with the form of no id (a path)."""
    return os.path.isdir(spec) or not is_pack_id(spec)


def named_folder(spec: str) -> str | None:
    """The pack folder one ``--pack`` value names, without the packs it requires: the value
    itself when it names a folder, else the folder of the installed pack of that id (None: no
    such pack is installed)."""
    if is_folder_spec(spec):
        return spec
    found = installed_pack(spec)
    return found.folder if found is not None else None


def pack_folders(specs: Sequence[str]) -> list[str]:
    """The folders that ``--pack`` values name: a folder, or the id of an installed pack.

    A value that is an existing folder, or has the form of no id (a path), is a folder
    (the load reports a missing one); anything else is an id, and the installed packs
    it requires come before it. InputError names every value that is neither.
    """
    order, problems = _Order(), []
    for spec in specs:
        if is_folder_spec(spec):
            order.add(spec)
            continue
        found = named_folder(spec)
        if found is None:
            message = f"neither a pack folder nor the id of an installed pack; {known_ids_text()}"
            problems.append(Problem(spec, 0, 0, message, "CK104"))
        else:
            order.add_with_requirements(found)
    if problems:
        raise InputError(problems)
    return order.folders


def record_pack_folders(ids: Sequence[str], source: str, cli_folders: Sequence[str] = ()) -> list[str]:
    """The folders of the packs a record names by id, each after the installed packs it
    requires; InputError, one line per id not installed.

    A record is untrusted input: its packs are ids only, never looked for as folders. A
    pack that ``--pack`` loads (``cli_folders``) serves the record under its own id, so
    a pack being written can be tried before it is installed.
    """
    given = {pid for pid in map(pack_id, cli_folders) if pid is not None} if ids else set()
    order, problems = _Order(given), []
    for i, pid in enumerate(ids):
        if pid in given:
            continue
        found = installed_pack(pid) if is_pack_id(pid) else None
        if found is None:
            message = f"this record needs pack '{pid}', which is not installed; {known_ids_text()}"
            problems.append(Problem(source, 0, 0, message, "CK301", where=f"packs[{i}]"))
        else:
            order.add_with_requirements(found.folder)
    if problems:
        raise InputError(problems)
    return order.folders


def load_order(record_folders: Sequence[str], cli_folders: Sequence[str]) -> list[str]:
    """The packs to load on top of the base pack: a record's own packs, then those of ``--pack``.

    A pack of ``--pack`` that the record's list already has is loaded once, in the
    record's place (a folder given twice with ``--pack`` is still reported).
    """
    named = {os.path.realpath(f) for f in record_folders}
    return [*record_folders, *(f for f in cli_folders if os.path.realpath(f) not in named)]


def with_requirements(pack: str, known: Sequence[str]) -> list[str]:
    """The packs among ``known`` (folders on disk, installed or not) that ``pack`` requires,
    their requirements first, then ``pack`` itself: how ``validate`` checks a pack folder."""
    return with_siblings(pack, (), known)


def with_siblings(pack: str, ids: Sequence[str], known: Sequence[str]) -> list[str]:
    """For a record kept in ``pack`` that names the packs ``ids``: those of ``ids`` that are
    among ``known`` (the packs beside it, found by their id), each after its requirements,
    then ``pack`` after its own; each folder once. How ``validate`` checks a record kept in a
    folder of several packs; an id that none of them has is the installed packs' to serve."""
    by_id = {pid: p for p in known if (pid := pack_id(p)) is not None}
    order: list[str] = []
    seen: set[str] = set()
    for start in [*(by_id[pid] for pid in ids if pid in by_id), pack]:
        for folder in requirement_order(start, by_id.get):
            if os.path.realpath(folder) not in seen:
                seen.add(os.path.realpath(folder))
                order.append(folder)
    return order


# rulesets


class Resolver:
    """Pack folders and rulesets for one set of ``--pack`` values (a command's, the score pad's).

    The ``--pack`` values are resolved at once, so a wrong one fails at once; a record's own
    packs are that record's business (its error alone in a batch). Each ruleset is loaded
    once and kept under the real places of the folders it loads, in load order (so pack ids
    name the same ruleset whatever their order of mention, repetition or the base pack among
    them).

    Unbounded (a command's run), it also remembers the rulesets by the ids that named them
    and the loads that failed. Bounded (``kept`` rulesets, of at most ``size`` bytes together,
    each measured by its pickled size once loaded; a server's, a lab worker's), it drops the least recently
    used first, may be used by many threads (loading runs under a lock: the pack loader is
    not meant to run twice at once, and a ruleset once loaded is only read), and resolves
    ids afresh each time, so a pack installed meanwhile is found.
    """

    def __init__(self, packs: Sequence[PathText] = (), *, kept: int | None = None, size: int | None = None) -> None:
        from collections import OrderedDict

        from .records import record_packs

        self.cli_folders = pack_folders([os.fspath(p) for p in packs])
        self.kept, self.size = kept, size
        self.bounded = kept is not None or size is not None
        self.loaded: OrderedDict[tuple[str, ...], tuple[Ruleset | InputError, int]] = OrderedDict()
        self.by_ids: dict[tuple[str, ...], Ruleset] = {}  # unbounded only
        self.record_packs = record_packs  # imported once: a batch calls it once a record
        if self.bounded:
            import threading

            self.loading: Any = threading.Lock()  # held while loading
            self.using: Any = threading.Lock()  # held while ``loaded`` changes
        else:
            self.loading = self.using = _Unlocked()

    def folders(self, ids: Sequence[str] = (), source: str = "") -> list[str]:
        """The folders to load on top of the base pack for the pack ids a record names."""
        named = record_pack_folders(ids, source, self.cli_folders) if ids else []
        return load_order(named, self.cli_folders)

    def record_folders(self, data: Any, source: str) -> list[str]:
        """The folders to load on top of the base pack for a parsed record (or pantry)."""
        return self.folders(self.record_packs(data, source), source)

    def ruleset(self, ids: tuple[str, ...] = (), source: str = "") -> Ruleset:
        """The rules of the base pack, the packs ``ids`` name, then ``--pack``; InputError if they do not load."""
        if ids in self.by_ids:
            return self.by_ids[ids]
        found = self.load(self.folders(ids, source))
        if not self.bounded:
            self.by_ids[ids] = found
        return found

    def for_record(self, data: Any, source: str) -> Ruleset:
        """The ruleset to read a record with: the base pack, the packs it names, then ``--pack``;
        InputError if its ``packs`` is malformed (not a list of ids, more than a record may name)."""
        ids = self.record_packs(data, source)
        return self.by_ids[ids] if ids in self.by_ids else self.ruleset(ids, source)

    def chain(self, chain: Sequence[str]) -> Ruleset:
        """The rules of ``--pack`` and then ``chain`` (InputError if they do not load); a copy of
        the base pack in the chain stands in for the shipped one."""
        base, folders = self.chain_folders(chain)
        return self.load(folders, base=base)

    def chain_folders(self, chain: Sequence[str]) -> tuple[str | None, list[str]]:
        """What :meth:`chain` loads: the copy of the base pack in ``chain`` (None: the shipped
        one), and the folders on top of it, ``--pack``'s and then the rest of ``chain``."""
        from .paths import base_pack

        base_id = pack_id(base_pack())
        base = next((p for p in chain if pack_id(p) == base_id), None)
        given = {os.path.realpath(f) for f in self.cli_folders}  # a pack of --pack in the chain loads once
        rest = [p for p in chain if p != base and os.path.realpath(p) not in given]
        return base, [*self.cli_folders, *rest]

    def load(self, folders: Sequence[str], *, base: str | None = None) -> Ruleset:
        """The ruleset of ``folders`` on top of the base pack (or of ``base`` in its place),
        loaded once; InputError if they do not load."""
        from .paths import base_pack

        key = tuple(os.path.realpath(f) for f in (base if base is not None else base_pack(), *folders))
        found = self._get(key)
        if found is None:
            with self.loading:
                found = self._get(key)
                if found is None:
                    found = self._load(key, folders, base)
        if isinstance(found, InputError):
            raise InputError(found.problems)
        return found

    def _load(self, key: tuple[str, ...], folders: Sequence[str], base: str | None) -> Ruleset | InputError:
        from .cached import load_ruleset

        try:
            ruleset = load_ruleset(folders, base=base)
        except InputError as e:
            if self.bounded:
                raise
            self._keep(key, e, 0)
            return e
        if self.size is not None:
            import pickle

            self._keep(key, ruleset, len(pickle.dumps(ruleset, pickle.HIGHEST_PROTOCOL)))
        else:
            self._keep(key, ruleset, 0)
        return ruleset

    def _get(self, key: tuple[str, ...]) -> Ruleset | InputError | None:
        with self.using:
            entry = self.loaded.get(key)
            if entry is None:
                return None
            if self.bounded:
                self.loaded.move_to_end(key)
            return entry[0]

    def _keep(self, key: tuple[str, ...], ruleset: Ruleset | InputError, size: int) -> None:
        with self.using:
            self.loaded[key] = (ruleset, size)
            kept = self.kept if self.kept is not None else len(self.loaded)
            room = self.size if self.size is not None else sum(n for _, n in self.loaded.values())
            while len(self.loaded) > 1 and (len(self.loaded) > kept or sum(n for _, n in self.loaded.values()) > room):
                self.loaded.popitem(last=False)

    def held(self) -> tuple[int, int]:
        """How many rulesets are kept, and their pickled size together (0 when no size is set: not measured)."""
        with self.using:
            return len(self.loaded), sum(n for _, n in self.loaded.values())


class _Unlocked:
    """In place of a lock, for a resolver that one thread uses."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


# the packs listing


class PackInfo:
    """One loadable pack as ``critter-kitchen packs`` shows it."""

    __slots__ = ("id", "name", "version", "origin", "folder")

    def __init__(self, pack_id: str, name: str, version: str | None, origin: str, folder: str) -> None:
        self.id = pack_id
        self.name = name
        self.version = version
        self.origin = origin  # "shipped", "distribution NAME" or "folder"
        self.folder = folder


class Listing:
    def __init__(self) -> None:
        self.packs: list[PackInfo] = []
        self.problems: list[str] = []  # one line each


def installed_listing(cli_specs: Sequence[str] = ()) -> Listing:
    """Every pack that can be loaded by id, then the folders ``--pack`` adds, with what their pack.yaml says."""
    from .discovery import registered_packs, shipped_packs

    listing = Listing()
    registered, listing.problems = registered_packs()
    shipped = shipped_packs()

    candidates = [*sorted(shipped.values(), key=_by_id), *sorted(registered.values(), key=_by_id)]
    seen = set()
    for pack in candidates:
        if pack.origin and pack.id in shipped:
            listing.problems.append(f"distribution '{pack.origin}' registers pack '{pack.id}', a shipped pack's id")
            continue
        origin = f"distribution {pack.origin}" if pack.origin else "shipped"
        _describe(listing, pack.folder, pack.id, origin, pack.version)
        seen.add(os.path.realpath(pack.folder))
    for folder in pack_folders(cli_specs):
        if os.path.realpath(folder) not in seen:
            seen.add(os.path.realpath(folder))
            _describe(listing, folder, None, "folder", None)
    return listing


def _by_id(pack: InstalledPack) -> str:
    return pack.id


def _describe(listing: Listing, folder: str, pid: str | None, origin: str, version: str | None) -> None:
    """Add the pack in ``folder`` to the listing, or the reason its pack.yaml cannot be read."""
    from .yamlpos import read_document

    where = os.path.join(folder, PACK_FILE)
    try:
        data = read_document(where).data
    except InputError as e:
        listing.problems.extend(p.line_text() for p in e.problems[:1])
        return
    if not (isinstance(data, dict) and isinstance(data.get("id"), str) and isinstance(data.get("name"), str)):
        listing.problems.append(f"{where}: not a pack.yaml with an 'id' and a 'name'")
        return
    if pid is not None and data["id"] != pid:
        listing.problems.append(f"{where}: pack id '{data['id']}', but it is installed as '{pid}'")
        return
    declared = data.get("version")
    shown = declared if isinstance(declared, str) else version
    listing.packs.append(PackInfo(data["id"], data["name"], shown, origin, folder))

"""Where packs and their files are on disk, and how much of a file may be read.

Every folder walk of the engine is here: the card files of a pack, the packs below a
folder, the YAML and JSON files below a folder (where ``validate`` looks for game
records), the pack that holds a file and the packs beside it; and so is finding packs by
id (shipped with the engine, or registered by other distributions); which of them load,
and in which order, is :mod:`.resolve`'s answer. Walks are iterative and
bounded (MAX_DEPTH levels, MAX_ENTRIES entries), skip hidden names, and inside a pack
follow a symbolic link only where it stays inside the pack folder. Reading is bounded
too: only regular files, never more than the limit plus one byte, and a named pipe
never blocks.

``score`` imports this on a filled cache, so it uses os and os.path only.
"""

from __future__ import annotations

import errno
import os
import sys

from ..errors import Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

PACK_FILE = "pack.yaml"
CARD_SUFFIXES = (".yaml", ".yml")
SCHEMA_SUFFIX = ".json"  # a pack's own schema files
MAX_FILE_BYTES = 2 * 1024 * 1024  # a card file, pack.yaml, schema or game record
# Folder levels below the folder a walk starts from. The shipped packs go two levels
# down; 32 leaves room for any layout people write and stops a runaway tree (or a
# folder made to exhaust the interpreter's stack) long before paths grow unwieldy.
MAX_DEPTH = 32
# Files and folders one walk may look at: 1,500 times the whole shipped card tree, and
# still a fraction of a second of listing; past it the walk stops with a problem rather
# than spend minutes in a tree that holds no packs (a home folder, a build output).
MAX_ENTRIES = 100_000

# pack files


class Walked:
    """What a bounded walk found, and the problems that kept parts of it from being walked."""

    def __init__(self) -> None:
        self.found: list[str] = []  # card files, or pack folders
        self.problems: list[Problem] = []
        self.entries = 0


def card_files(folder: str) -> list[str]:
    """The card files of a pack (see :func:`pack_files`), less those it could not walk to."""
    return [f for f in pack_files(folder).found if f.endswith(CARD_SUFFIXES)]


def pack_files(folder: str) -> Walked:
    """The files of a pack: card YAML and schema JSON below it, less hidden ones and those of packs nested in it.

    A symbolic link is followed only when it leads inside the pack folder; a file reached
    twice (through a link and in its own place) is listed once.
    """
    walk = _PackWalk(folder)
    todo = [(folder, walk.inside, 0)]
    while todo:
        current, real, depth = todo.pop()
        entries = _listing(current, walk.walked)
        if current != folder and any(e.name == PACK_FILE for e in entries):
            continue  # a pack of its own
        for entry in entries:
            if not _counted(entry, folder, walk.walked):
                return walk.done()
            below = walk.step(entry, current, real, depth)
            if below is not None:
                todo.append((entry.path, below, depth + 1))
    return walk.done()


_SEPARATORS = os.sep + (os.altsep or "")


class _PackWalk:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.inside = os.path.realpath(folder)
        self.walked = Walked()
        self.seen_files: set[str] = set()
        self.seen_folders = {self.inside}

    def step(self, entry: os.DirEntry[str], current: str, real: str, depth: int) -> str | None:
        """Take one entry of ``current`` (really at ``real``): the real place of a folder to enter, or None."""
        is_card = entry.name.endswith((*CARD_SUFFIXES, SCHEMA_SUFFIX)) and not (
            current == self.folder and entry.name == PACK_FILE
        )
        is_folder = _is_folder(entry)
        if not (is_card or is_folder):
            return None
        target = os.path.join(real, entry.name)
        if entry.is_symlink():
            target = _link_target(entry.path, self.inside, self.walked) or ""
            if not target:
                return None
        if not is_folder:
            if target not in self.seen_files:
                self.seen_files.add(target)
                self.walked.found.append(entry.path)
            return None
        if not _may_descend(entry.path, real, target, depth, self.walked) or target in self.seen_folders:
            return None
        self.seen_folders.add(target)
        return target

    def done(self) -> Walked:
        self.walked.found.sort(key=self.parts_below)
        return self.walked

    def parts_below(self, path: str) -> list[str]:
        """The names that lead from the pack folder to ``path`` (found below it: the folder's own
        spelling and then names), as ``os.path.relpath(path, folder).split(os.sep)`` gives them
        at a tenth of the cost (tests/test_cold_start_imports.py compares)."""
        return path[len(self.folder) :].lstrip(_SEPARATORS).split(os.sep)


def link_problem(path: str, pack: str) -> Problem | None:
    """Why the symbolic link ``path`` inside ``pack`` may not be followed, or None if it may (or is no link)."""
    if not os.path.islink(path):
        return None
    walked = Walked()
    _link_target(path, os.path.realpath(pack), walked)
    return walked.problems[0] if walked.problems else None


def is_inside(path: str, folder: str) -> bool:
    """Whether ``path``, with every link in it followed, is ``folder`` or below it."""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _link_target(path: str, inside: str, walked: Walked) -> str | None:
    """Where a link inside a pack leads, or None (with the problem recorded) if it may not be followed."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            walked.problems.append(Problem(path, 0, 0, "cannot read file: symbolic link loop", "CK001"))
            return None
        # a dangling link: reading it reports that it leads nowhere
    target = os.path.realpath(path)
    if not is_inside(target, inside):
        message = f"symbolic link leads outside the pack folder, to {target}"
        walked.problems.append(Problem(path, 0, 0, message, "CK104"))
        return None
    return target


def _may_descend(path: str, real: str, target: str, depth: int, walked: Walked) -> bool:
    """Whether the walk may enter the folder ``path`` (its real place ``target``) below ``real``."""
    if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
        message = "cannot read folder: symbolic link loop (it leads back to a folder above it)"
        walked.problems.append(Problem(path, 0, 0, message, "CK001"))
        return False
    return _within_depth(path, depth, walked)


# packs on disk


def packs_below(folder: str) -> Walked:
    """The pack folders at or below ``folder`` (in ``found``), hidden ones left out.

    Links to folders are not followed: a pack reached only through one is not found.
    """
    walked = Walked()
    todo = [(folder, 0)]
    while todo:
        current, depth = todo.pop()
        entries = _listing(current, walked)
        for entry in entries:
            if not _counted(entry, folder, walked):
                return _sorted(walked)
            if entry.name == PACK_FILE and not _is_folder(entry):
                walked.found.append(current)
            elif _is_folder(entry) and not entry.is_symlink() and _within_depth(entry.path, depth, walked):
                todo.append((entry.path, depth + 1))
    return _sorted(walked)


def data_files_below(folder: str) -> Walked:
    """The YAML and JSON files at or below ``folder`` (in ``found``, sorted), hidden ones left out.

    ``validate`` looks among them for game records, inside packs or not. Only regular
    files are listed: no link is followed (to a folder or a file: a pack's own walk
    decides about its links), and no pipe or device is listed, so none is ever opened.
    """
    walked = Walked()
    todo = [(folder, 0)]
    while todo:
        current, depth = todo.pop()
        for entry in _listing(current, walked):
            if not _counted(entry, folder, walked):
                return _sorted(walked)
            if _is_folder(entry):
                if not entry.is_symlink() and _within_depth(entry.path, depth, walked):
                    todo.append((entry.path, depth + 1))
            elif entry.name.endswith((*CARD_SUFFIXES, SCHEMA_SUFFIX)) and entry.name != PACK_FILE:
                if _is_plain_file(entry):
                    walked.found.append(entry.path)
    return _sorted(walked)


def pack_home(file: str) -> str | None:
    """The pack folder that holds ``file``: the nearest folder above it with a pack.yaml.

    The folders are taken with their links followed, the file itself is not: a card that
    is a link stays in the pack that holds the link.
    """
    folder = os.path.realpath(os.path.dirname(os.path.abspath(file)))
    while True:
        if os.path.isfile(os.path.join(folder, PACK_FILE)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def packs_beside(pack: str) -> list[str]:
    """The packs next to ``pack`` (folders in its parent folder that hold a pack.yaml), and the parent if a pack."""
    parent = os.path.dirname(os.path.abspath(pack))
    walked = Walked()
    found = [parent] if os.path.isfile(os.path.join(parent, PACK_FILE)) else []
    for entry in _listing(parent, walked)[:MAX_ENTRIES]:
        if _is_folder(entry) and os.path.isfile(os.path.join(entry.path, PACK_FILE)):
            found.append(entry.path)
    return found


# the walk's steps


def _listing(folder: str, walked: Walked) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` that are not hidden, in name order; [] (and a problem) if unreadable."""
    entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if not entry.name.startswith("."):
                    entries.append(entry)
                    if len(entries) > MAX_ENTRIES:
                        break  # the walk stops here anyway: a huge folder is not held in memory
    except OSError as e:
        walked.problems.append(Problem(folder, 0, 0, f"cannot read folder: {e.strerror or e}", "CK001"))
        return []
    return sorted(entries, key=lambda e: e.name)


def _counted(entry: os.DirEntry[str], root: str, walked: Walked) -> bool:
    """Count one entry; False (and a problem) once the walk has seen too many."""
    walked.entries += 1
    if walked.entries <= MAX_ENTRIES:
        return True
    walked.problems.append(Problem(root, 0, 0, f"more than {MAX_ENTRIES} files and folders below this folder", "CK005"))
    return False


def _within_depth(path: str, depth: int, walked: Walked) -> bool:
    if depth < MAX_DEPTH:
        return True
    walked.problems.append(Problem(path, 0, 0, f"folders nested deeper than {MAX_DEPTH} levels", "CK005"))
    return False


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop, or a folder gone since it was listed
        return False


def _is_plain_file(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a regular file in its own right (not a link, pipe or device)."""
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:  # gone since it was listed
        return False


def _sorted(walked: Walked) -> Walked:
    walked.found.sort()
    return walked


# packs by name

# Third-party distributions register packs under this entry-point group: the entry's name
# is the pack id, its value the import name of a package whose folder holds pack.yaml.
ENTRY_POINT_GROUP = "critter_kitchen.packs"
MAX_IDS_SHOWN = 10  # an unknown id lists the installed ones when there are no more than this
_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ID_REST = _ID_FIRST | frozenset("_.-")


def is_pack_id(text: str) -> bool:
    """Whether ``text`` has the form of a pack id (pack.yaml's ``id``): never a path."""
    return bool(text) and text[0] in _ID_FIRST and all(ch in _ID_REST for ch in text)


class InstalledPack:
    """A pack that can be loaded by its id: shipped with the engine, or registered by a distribution."""

    __slots__ = ("id", "folder", "origin", "version")

    def __init__(self, pack_id: str, folder: str, origin: str = "", version: str | None = None) -> None:
        self.id = pack_id
        self.folder = folder
        self.origin = origin  # the registering distribution's name; "" for a shipped pack
        self.version = version  # the registering distribution's version


def shipped_packs() -> dict[str, InstalledPack]:
    """The packs that ship with the engine, by id: each one's folder is named after its id."""
    from .paths import shipped_cards

    folders = packs_below(shipped_cards()).found
    return {os.path.basename(f): InstalledPack(os.path.basename(f), f) for f in folders}


def registered_packs() -> tuple[dict[str, InstalledPack], list[str]]:
    """The packs other distributions register, by id, and why any entry could not be used.

    Looking at entry points costs an import and a scan of every installed distribution,
    so this runs only when an id is not a shipped one (or for the ``packs`` listing). A
    pack's folder is found without running any code of its distribution.
    """
    from importlib.metadata import entry_points

    found: dict[str, InstalledPack] = {}
    problems: list[str] = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(entry, "dist", None)
        origin = dist.name if dist is not None else entry.value
        version = dist.version if dist is not None else None
        folder, why = _package_folder(entry.value)
        if not is_pack_id(entry.name):
            problems.append(f"distribution '{origin}' registers '{entry.name}', which is not a pack id")
        elif folder is None:
            problems.append(f"distribution '{origin}' registers pack '{entry.name}' as '{entry.value}': {why}")
        elif entry.name in found and found[entry.name].origin != origin:
            other = found[entry.name].origin
            problems.append(
                f"pack '{entry.name}' is registered twice, by '{other}' and by '{origin}'; '{other}' is used"
            )
        elif entry.name not in found:
            found[entry.name] = InstalledPack(entry.name, folder, origin, version)
    return found, problems


def _package_folder(name: str) -> tuple[str | None, str]:
    """The folder of the package ``name`` names, or None and why not. Nothing is imported.

    The import system's ``find_spec`` of a dotted name imports the parent packages (their
    ``__init__.py`` runs), so the folder is looked for by name alone, as the path-based finder
    looks: a name is a regular package (a folder with ``__init__.py``) in the first place that
    has one, else a module file, else the namespace made of every folder of that name.
    """
    parts = name.split(".")
    if ":" in name:
        return None, "the entry must name a package (whose folder holds pack.yaml), not an object in one"
    if not all(part.isidentifier() for part in parts):
        return None, "that is not the import name of a package"
    places = [os.path.abspath(entry or os.curdir) for entry in sys.path if isinstance(entry, str)]
    for depth, part in enumerate(parts):
        places, module = _find_part(places, part)
        if module is not None and depth == len(parts) - 1:
            return module, ""
        if not places:
            return None, "no such package is installed"
    return places[0], ""


def _find_part(places: list[str], part: str) -> tuple[list[str], str | None]:
    """Where the package ``part`` is among ``places`` (one folder, or a namespace's folders),
    and the folder of a module of that name when no regular package comes first."""
    namespace: list[str] = []
    for place in places:
        folder = os.path.join(place, part)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            return [folder], None
        if os.path.isfile(folder + ".py"):
            return [], place
        if os.path.isdir(folder):
            namespace.append(folder)
    return namespace, None


def installed_pack(pack_id: str) -> InstalledPack | None:
    """The installed pack with this id: a shipped one first, else one a distribution registers."""
    shipped = shipped_packs()
    if pack_id in shipped:
        return shipped[pack_id]
    return registered_packs()[0].get(pack_id)


def installed_ids() -> list[str]:
    """The ids of every pack that can be loaded by id, sorted."""
    return sorted({*shipped_packs(), *registered_packs()[0]})


def known_ids_text() -> str:
    """The installed packs' ids for a message: listed when few, else counted."""
    ids = installed_ids()
    if len(ids) <= MAX_IDS_SHOWN:
        return "installed packs: " + ", ".join(ids)
    return f"{len(ids)} packs are installed; 'critter-kitchen packs' lists them"

"""Loading packs through the compiled-pack cache.

A load starts by reading every file of its packs once (:func:`read_packs`; which files
those are is :func:`pack_files`' answer, for the loader and the cache alike), and the
loader builds from those bytes and reads no pack file itself: so an entry is always
built from exactly the bytes its key was computed from, whatever changes on disk
meanwhile.

One entry per set of loaded packs. An entry records what it was built from: the bytes of
every file of those packs (``pack.yaml``, card files, the pack's ``.json`` schema files),
the engine's files and shipped schemas (by size and time), the Python version and the
working folder (messages name files relative to it). A hit needs all of it unchanged,
byte for byte, and gives back the checked ruleset (its compiled programs rebuild their
nodes from their ops as they unpickle) with the problems found. Entries are sealed
and checked by :mod:`critter_kitchen.cache`, which unpickles nothing whose MAC does not
hold, and then only the ruleset's own classes (:data:`ENTRY_CLASSES`).

This module is what ``score`` runs on a fresh cache, so it imports only what a hit
needs; the loader itself (YAML with positions, schemas, the DSL parser and checker) is
imported on a miss.
"""

from __future__ import annotations

import gc
import os
import sys

from .. import cache
from ..errors import InputError
from ..model.ruleset import Ruleset
from .paths import base_pack, schemas
from .sources import PackSource, read_packs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..errors import Problem

    _Loaded = tuple[Ruleset, list[Problem]]

CACHE_FORMAT = 8  # 5: programs are unpickled unbuilt; 6: with what their ops tell; 7: and their trees (dsl/facts.py)
# 8: a parameter says which packs set it, a pack its description
# the classes a pack entry may name; anything else in an entry is refused unread
ENTRY_CLASSES = (
    "critter_kitchen.model.ruleset.*",
    "critter_kitchen.dsl.program.Compiled",
    "critter_kitchen.errors.Problem",
)


def load_ruleset(
    pack_dirs: Sequence[str | os.PathLike[str]] = (), *, base: str | os.PathLike[str] | None = None
) -> Ruleset:
    """Load the base pack and then each pack in ``pack_dirs``; raise InputError on any problem.

    ``base`` names another folder to load in place of the shipped base pack (for checking
    a copy of it).
    """
    dirs = [os.fspath(base) if base is not None else base_pack(), *(os.fspath(d) for d in pack_dirs)]
    sources = read_packs(dirs)
    key = _key(dirs, sources) if cache.cache_dir() is not None else None
    hit = _read(key) if key is not None else None
    if hit is None:
        from .packs import load_sources

        hit = _collecting(load_sources, sources)
        if key is not None:
            cache.store(key[0], (key[1], *hit))
    ruleset, problems = hit
    if problems:
        raise InputError(problems)
    return ruleset


def _collecting(load: Callable[[list[PackSource]], _Loaded], sources: list[PackSource]) -> _Loaded:
    """``load(sources)`` with the cyclic garbage collector running.

    A single ``score`` pauses the collector (see ``cli.cmd_score``), which suits what lives
    until the command ends. Loading packs is different: parsing and checking a stranger's pack
    makes garbage, cycles included (a problem's exception and its traceback, for one), whose
    amount the pack decides. Collected as it is made, it stays bounded by what one card makes.
    """
    paused = not gc.isenabled()
    if paused:
        gc.enable()
    try:
        return load(sources)
    finally:
        if paused:
            gc.disable()


def _key(dirs: list[str], sources: list[PackSource]) -> tuple[str, tuple[Any, ...]] | None:
    """The entry's file name and what it must have been built from."""
    if any(s.walk_problems or any(isinstance(data, OSError) for data in s.contents.values()) for s in sources):
        return None  # the normal load reports whatever is unreadable or could not be walked
    contents = tuple((s.folder, s.is_folder, tuple(s.contents.items())) for s in sources)
    where = repr((CACHE_FORMAT, sys.version, os.getcwd(), [os.path.abspath(d) for d in dirs])).encode()
    name = f"packs-{cache.name_digest(where)}.pickle"
    return name, (where, _engine_files(), contents)


def _engine_files() -> tuple[tuple[str, int, int], ...]:
    """The engine's own files and shipped schemas by size and time, so that any change to them makes a new entry."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shipped = schemas()
    roots = [root] if os.path.abspath(shipped).startswith(root + os.sep) else [root, shipped]
    found: list[tuple[str, int, int]] = []
    for top in roots:
        _engine_folder(top, found)
    return tuple(found)


_ENGINE_SUFFIXES = (".py", ".lark", ".json")


def _engine_folder(folder: str, found: list[tuple[str, int, int]]) -> None:
    """Add the engine files of ``folder`` and below, as ``os.walk`` lists them (files by name,
    then each folder by name, not entering links or ``__pycache__``; an unlistable folder is
    skipped), each with its size and time from ``os.stat``. One ``scandir`` a folder and the
    entries' own paths and stats: half what the walk cost, on every load."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=_entry_name)
    except OSError:
        return
    folders = []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:
            is_folder = False
        if is_folder:
            folders.append(entry)
        elif entry.name.endswith(_ENGINE_SUFFIXES):
            info = entry.stat()
            found.append((entry.path, info.st_size, info.st_mtime_ns))
    for entry in folders:
        if entry.name != "__pycache__" and not entry.is_symlink():
            _engine_folder(entry.path, found)


def _entry_name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _read(key: tuple[str, tuple[Any, ...]]) -> tuple[Ruleset, list[Problem]] | None:
    name, built_from = key
    entry = cache.load(name, ENTRY_CLASSES)
    if not (isinstance(entry, tuple) and len(entry) == 3 and entry[0] == built_from):
        return None  # absent, not sealed with this user's key, or outdated
    _, ruleset, problems = entry
    if not isinstance(ruleset, Ruleset) or not isinstance(problems, list):
        return None
    return ruleset, problems

"""Loading packs through the compiled-pack cache.

One entry per set of loaded packs. An entry starts with what it was built from: the
bytes of every file of those packs, the engine's files (by size and time), the Python
version and the working folder (messages name files relative to it), and a checksum of
the rest. A hit needs all of it unchanged, byte for byte, and gives back the checked
ruleset (its compiled programs rebuild their closures from their ops as they unpickle)
with the problems found.

This module is what ``score`` runs on a fresh cache, so it imports only what a hit
needs; the loader itself (YAML with positions, schemas, the DSL parser and checker) is
imported on a miss.
"""

from __future__ import annotations

import io
import os
import pickle
import sys
import zlib

from .. import cache
from ..errors import InputError
from ..model.ruleset import Ruleset
from .paths import base_pack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..errors import Problem

CACHE_FORMAT = 3
CARD_SUFFIXES = (".yaml", ".yml")
PACK_FILE = "pack.yaml"


def load_ruleset(
    pack_dirs: Sequence[str | os.PathLike[str]] = (), *, base: str | os.PathLike[str] | None = None
) -> Ruleset:
    """Load the base pack and then each pack in ``pack_dirs``; raise InputError on any problem.

    ``base`` names another folder to load in place of the shipped base pack (for checking
    a copy of it).
    """
    dirs = [os.fspath(base) if base is not None else base_pack(), *(os.fspath(d) for d in pack_dirs)]
    key = _key(dirs) if cache.cache_dir() is not None else None
    hit = _read(key) if key is not None else None
    if hit is None:
        from .packs import load_packs

        hit = load_packs(dirs)
        if key is not None:
            _write(key, hit)
    ruleset, problems = hit
    if problems:
        raise InputError(problems)
    return ruleset


def card_files(folder: str, suffixes: tuple[str, ...] = CARD_SUFFIXES) -> list[str]:
    """The card files of a pack: YAML below it, less hidden ones and those of packs nested in it."""
    found = []
    for root, dirs, files in os.walk(folder):
        if root != folder and PACK_FILE in files:
            dirs[:] = []  # a pack of its own
            continue
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(suffixes) and not name.startswith(".") and (root != folder or name != PACK_FILE):
                found.append(os.path.join(root, name))
    return sorted(found, key=lambda path: os.path.relpath(path, folder).split(os.sep))


def _key(dirs: list[str]) -> tuple[str, tuple[Any, ...]] | None:
    """The entry's file name and what it must have been built from."""
    contents = []
    try:
        for folder in dirs:
            pack = os.path.join(folder, PACK_FILE)
            # The pack's JSON files too: its card kinds' schemas, and the files they refer to.
            files = [pack, *card_files(folder, (*CARD_SUFFIXES, ".json"))] if os.path.isfile(pack) else []
            for file in files:
                with open(file, "rb") as f:
                    contents.append((file, f.read()))
    except OSError:
        return None  # the normal load reports whatever is unreadable
    where = repr((CACHE_FORMAT, sys.version, os.getcwd(), [os.path.abspath(d) for d in dirs])).encode()
    name = f"packs-{zlib.crc32(where):08x}{zlib.adler32(where):08x}.pickle"
    return name, (where, _engine_files(), tuple(contents))


def _engine_files() -> tuple[tuple[str, int, int], ...]:
    """The engine's own files by size and time, so that any change to it makes a new entry."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".lark", ".json")):
                stat = os.stat(os.path.join(folder, name))
                found.append((os.path.join(folder, name), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def _read(key: tuple[str, tuple[Any, ...]]) -> tuple[Ruleset, list[Problem]] | None:
    name, built_from = key
    data = cache.read(name)
    if data is None:
        return None
    try:
        stream = io.BytesIO(data)
        if pickle.load(stream) != (built_from, zlib.crc32(data[stream.tell() :])):
            return None  # outdated, or damaged: syntax trees inside are only unpickled when asked for
        ruleset, problems = pickle.load(stream)
    except Exception:  # noqa: BLE001 - a corrupt or outdated entry only costs a normal load
        return None
    if not isinstance(ruleset, Ruleset) or not isinstance(problems, list):
        return None
    return ruleset, problems


def _write(key: tuple[str, tuple[Any, ...]], loaded: tuple[Ruleset, list[Problem]]) -> None:
    name, built_from = key
    try:
        body = pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL)
        head = pickle.dumps((built_from, zlib.crc32(body)), protocol=pickle.HIGHEST_PROTOCOL)
        cache.write(name, head + body)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass

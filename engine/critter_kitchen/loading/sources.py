"""What a load of packs reads: each pack folder's files, found by a bounded walk and read
once, so that the cache key and the loader see the same bytes."""

from __future__ import annotations

import os

from ..regular import read_regular
from .discovery import MAX_FILE_BYTES, PACK_FILE, SCHEMA_SUFFIX, pack_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class PackSource:
    """One pack folder as a load saw it: whether it was a folder, which files it had, and their bytes."""

    __slots__ = ("folder", "is_folder", "pack_file", "card_files", "schema_files", "walk_problems", "contents")

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.is_folder = os.path.isdir(folder)
        pack = os.path.join(folder, PACK_FILE)
        self.pack_file = pack if os.path.lexists(pack) else None  # a pipe or a link is refused when read
        walked = pack_files(folder) if self.pack_file else None
        found = walked.found if walked else []
        self.card_files = [f for f in found if not f.endswith(SCHEMA_SUFFIX)]
        self.schema_files = [f for f in found if f.endswith(SCHEMA_SUFFIX)]
        self.walk_problems = walked.problems if walked else []  # what kept the walk from the whole pack
        # a file's bytes (a longer file than the limit is refused by the loader), or why it could not be read
        self.contents: dict[str, bytes | OSError] = {}
        for file in (pack, *found) if self.pack_file else ():
            try:
                self.contents[file] = read_regular(file, MAX_FILE_BYTES)
            except OSError as e:
                self.contents[file] = e


def read_packs(dirs: Sequence[str]) -> list[PackSource]:
    """Every file a load of the packs in ``dirs`` uses, read once."""
    return [PackSource(folder) for folder in dirs]

"""The files open in the editor, and what the engine says of them: their problems (what
``validate`` finds) and the packs around them (for hovers, completions and definitions).

Both are worked out with every open file's unsaved text in place of the disk's
(``regular.reading_buffers``): what the editor shows is what is checked, whichever file is
open, and nothing else changes. An open file is still read only where ``validate`` would
read it (inside its pack, within the loading limits).
"""

from __future__ import annotations

import os

from ..errors import InputError, Problem
from ..regular import reading_buffers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..model.ruleset import Ruleset


class Known:
    """What the packs around a file define (the ruleset as far as it loads, problems or not),
    and the open files' text it was read with."""

    def __init__(self, ruleset: Ruleset, folders: list[str], workspace: Workspace) -> None:
        self.ruleset = ruleset
        self.folders = folders
        self.workspace = workspace

    def document(self, path: str) -> Document | None:
        """A file of these packs parsed with its places (the open text if it is open), or None."""
        from ..loading.yamlpos import read_document

        try:
            with reading_buffers(self.workspace.encoded()):
                return read_document(path)
        except InputError:
            return None


if TYPE_CHECKING:
    from ..loading.yamlpos import Document


class Workspace:
    """The open files by path (their text as the editor has it), and the ``--pack`` values."""

    def __init__(self, packs: Sequence[str] = ()) -> None:
        self.packs = list(packs)
        self.texts: dict[str, str] = {}
        self.version = 0  # changes whenever an open file's text does
        self._known: dict[tuple[str, ...], tuple[int, Known]] = {}

    def set_text(self, path: str, text: str) -> None:
        self.texts[path] = text
        self.version += 1

    def close(self, path: str) -> None:
        if self.texts.pop(path, None) is not None:
            self.version += 1

    def encoded(self) -> dict[str, bytes]:
        return {path: text.encode("utf-8", "surrogatepass") for path, text in self.texts.items()}

    def problems(self, path: str) -> list[Problem]:
        """What ``validate PATH`` finds for the file ``path`` (as ``--skip-unrelated`` does, a
        file that is neither a record nor in a pack has none), sorted. What it finds in other
        files (a record's pack that does not load, the files of a pack.yaml's pack) is told at
        the file's first line, as validate tells a problem of an installed pack."""
        from ..loading.check import Checker
        from ..loading.resolve import Resolver

        with reading_buffers(self.encoded()):
            try:
                checker = Checker(Resolver(self.packs))
            except InputError as e:  # a --pack value that names no pack
                return e.problems
            found = checker.problems([path], whole_packs=False, skip_unrelated=True)
        real = os.path.realpath(path)
        own = [p for p in found if p.path and os.path.realpath(p.path) == real]
        shown = own[0].path if own else path
        others = [
            Problem(shown, 1, 1, f"with this pack loaded, {p.location()}: {p.message}", p.code)
            for p in found
            if not (p.path and os.path.realpath(p.path) == real)
        ]
        return sorted(set(own)) + sorted(set(others))

    def known(self, path: str) -> Known | None:
        """The packs around ``path`` as far as they load (a card file's own pack and those it
        requires, a record's packs), worked out again only when an open file has changed."""
        from ..loading.check import Checker
        from ..loading.packs import load_sources
        from ..loading.resolve import Resolver
        from ..loading.sources import read_packs

        with reading_buffers(self.encoded()):
            try:
                folders = Checker(Resolver(self.packs)).folders_for(path)
            except InputError:
                return None
            key = tuple(os.path.realpath(f) for f in folders)
            held = self._known.get(key)
            if held is not None and held[0] == self.version:
                return held[1]
            ruleset, _ = load_sources(read_packs(folders))
        known = Known(ruleset, folders, self)
        self._known = {key: (self.version, known)}  # one kept: the file the editor is at
        return known

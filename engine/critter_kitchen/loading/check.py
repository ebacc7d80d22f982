"""What ``validate`` checks: card packs, card files and game records, every problem found.

``critter-kitchen validate`` reports what a :class:`Checker` finds; the language server
(``critter-kitchen lsp``) asks the same checker about the files open in an editor, their
unsaved text read in place of the disk's (``regular.reading_buffers``), so that both give
the same problems, codes and places.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError, Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..model.ruleset import Ruleset
    from .discovery import Walked
    from .resolve import Resolver


class Checker:
    """Checks paths (pack folders, folders holding packs or records, card files, records) with the
    rules ``resolver`` gives: every problem found, and how many inputs were checked."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.checked = 0

    def problems(self, paths: Sequence[str], *, whole_packs: bool, skip_unrelated: bool) -> list[Problem]:
        from ..loading import discovery

        problems: list[Problem] = []
        self.checked = 0
        self.whole: set[str] = set()  # packs already checked in full, by their real place
        below = {name: discovery.packs_below(name) for name in paths if os.path.isdir(name)}
        self.named = {os.path.realpath(p) for walked in below.values() for p in walked.found} | _homes_of(paths)
        self.given = {os.path.realpath(p) for p in paths}  # a pack's files are its own to report
        # by the pack that holds a record and the packs the record names
        self.homes: dict[tuple[str | None, tuple[str, ...]], Ruleset | list[Problem]] = {}
        for name in paths:
            if name in below:
                problems.extend(self.folder(name, below[name]))
            elif not os.path.lexists(name):
                problems.append(Problem(name, 0, 0, "no such file or folder", "CK001"))
            elif (home := discovery.pack_home(name)) is not None:
                problems.extend(self.in_pack(name, home, whole_packs))
            else:
                found, is_record = self.outside(name)
                if is_record or found:
                    problems.extend(found)
                    self.checked += 1
                elif not skip_unrelated:
                    message = "neither a game record nor a file inside a card pack"
                    problems.append(Problem(name, 0, 0, message, "CK104"))
        return problems

    def folder(self, name: str, walked: Walked) -> list[Problem]:
        """The problems of the packs found at or below the folder ``name`` (``walked``), and of its game records."""
        from .resolve import with_requirements

        packs = [str(Path(p)) for p in walked.found]
        problems = list(walked.problems)
        for pack in packs:
            problems.extend(self.chain_problems(with_requirements(pack, packs)))
            self.whole.add(os.path.realpath(pack))
            self.checked += 1
        found, games = self.records_below(name)
        problems.extend(found)
        self.checked += games
        if not packs and not games and not found and not walked.problems:
            message = "no pack.yaml and no game record in or below this folder"
            problems.append(Problem(name, 0, 0, message, "CK104"))
        return problems

    def in_pack(self, name: str, home: str, whole_packs: bool) -> list[Problem]:
        """The problems of a file inside the pack ``home``: a game record kept there, or a card file."""
        if home in self.whole:
            return []
        # A game record kept in a pack folder; a link or a device there is the pack's to judge.
        in_pack = self.record(name) if os.path.isfile(name) and not os.path.islink(name) else None
        self.checked += 1
        if in_pack is not None:
            return in_pack
        found = self.chain_problems(self.chain(home))
        if Path(name).name == "pack.yaml" or whole_packs:
            self.whole.add(home)
            return found
        return [p for p in found if os.path.realpath(p.path) == os.path.realpath(name)]

    def chain(self, home: str, ids: tuple[str, ...] = ()) -> list[str]:
        """The pack ``home`` after the packs it requires, among those beside it and those the command
        line names; for a record kept in it, the packs the record names (``ids``) that are among those first.

        The working folder is not searched: it may hold anything, and a file's check must not
        cost a walk of all of it. A pack from elsewhere is named with ``--pack``.
        """
        from .discovery import packs_beside
        from .resolve import with_siblings

        near = sorted(Path(p) for p in {*map(os.path.realpath, packs_beside(home)), *self.named, home})
        return with_siblings(str(Path(home)), ids, [str(p) for p in near])

    def chain_problems(self, chain: list[str]) -> list[Problem]:
        """Problems of loading ``chain``; a copy of the base pack in it stands in for the shipped one.

        A problem that loading the chain causes in an installed pack's file (the base pack's, say)
        is told at the pack being checked, the last of the chain, naming the file it broke: the
        installed packs are not the checked repository's files, and a report (a GitHub annotation)
        must not point into them. Where the loader knows the file that caused it, it is told there.
        """
        try:
            self.resolver.chain(chain)
        except InputError as e:
            return self.at_checked(e.problems, chain[-1]) if chain else e.problems
        return []

    def at_checked(self, problems: list[Problem], pack: str) -> list[Problem]:
        """``problems``, each one in an installed pack's file put at ``pack``'s pack.yaml instead."""
        from .discovery import PACK_FILE, registered_packs, shipped_packs
        from .packs import real_path

        def inside(path: str, folders: Iterable[str]) -> bool:
            real = real_path(path)  # a shipped pack's file is shown as cards/..., wherever it is installed
            return any(real == f or real.startswith(f + os.sep) for f in folders)

        named = [*self.named, *self.given]
        outside = [p for p in problems if p.path and not inside(p.path, named)]
        if not outside:
            return problems
        installed = [*shipped_packs().values(), *registered_packs()[0].values()]
        folders = {os.path.realpath(p.folder) for p in installed} - set(named)
        target = os.path.join(pack, PACK_FILE)
        moved = []
        for p in problems:
            if p.path and not inside(p.path, named) and inside(p.path, folders):
                message = f"with this pack loaded, {p.location()}: {p.message}"
                moved.append(Problem(target, 1, 1, message, p.code))
            else:
                moved.append(p)
        return moved

    def records_below(self, folder: str) -> tuple[list[Problem], int]:
        """The problems of the game records at or below ``folder``, and how many were checked.

        Other files are left alone: card files are the packs' to check, and a folder may hold
        any other YAML. A file that may be a record (it has a ``players`` key) and does not
        parse is reported.
        """
        from .discovery import data_files_below

        walked = data_files_below(folder)
        problems = list(walked.problems)
        games = 0
        for file in walked.found:
            found = self.record(file)
            if found is not None:
                problems.extend(found)
                games += 1
        return problems, games

    def record(self, file: str) -> list[Problem] | None:
        """The problems of ``file`` if it is a game record (or may be one and is broken), else None.

        A record is checked against the base pack and ``--pack``, and a record kept in a pack
        folder against that pack (with the packs it requires) too.
        """
        from .discovery import pack_home
        from .files import record_document
        from .records import read_record, record_packs

        try:
            document = record_document(file, file)
        except InputError as e:
            return e.problems
        if document is None:
            return None
        try:
            ids = record_packs(document.data, file)
        except InputError as e:
            return e.problems
        rules = self.home_rules(pack_home(file), ids)
        if isinstance(rules, list):
            return rules
        try:
            read_record(rules, document.data, file, document)
        except InputError as e:
            return e.problems
        return []

    def home_rules(self, home: str | None, ids: tuple[str, ...] = ()) -> Ruleset | list[Problem]:
        """The rules for a record in the pack ``home`` (None: in no pack) that names the packs
        ``ids``, found by id among the packs beside ``home`` first; or why they do not load."""
        key = (home, ids)
        if key not in self.homes:
            try:
                self.homes[key] = self.resolver.chain(self.chain(home, ids) if home is not None else [])
            except InputError as e:
                self.homes[key] = e.problems
        return self.homes[key]

    def outside(self, name: str) -> tuple[list[Problem], bool]:
        """Problems of a file outside any pack, and whether it is a game record at all.

        A file that does not even parse is reported: whatever it was meant to be, it is broken.
        """
        from .files import load_record
        from .records import read_record

        try:
            document = load_record(name, name)
        except InputError as e:
            return e.problems, False
        data = document.data
        if not (isinstance(data, dict) and "players" in data):
            return [], False
        try:
            read_record(self.resolver.for_record(data, name), data, name, document)
        except InputError as e:
            return e.problems, True
        return [], True

    def folders_for(self, name: str) -> list[str]:
        """The pack folders, in load order and the base pack (or its copy) first, whose rules
        :meth:`problems` checks the file ``name`` with: the packs around a card file, or the
        packs a game record names (those beside it first when it is kept in a pack).
        A record whose list of packs is unusable is read with the base pack and ``--pack``."""
        from .discovery import pack_home
        from .files import record_document
        from .paths import base_pack
        from .records import record_packs

        home = pack_home(name)
        self.named = {home} if home is not None else set()
        try:
            document = record_document(name, name) if os.path.isfile(name) else None
            ids = record_packs(document.data, name) if document is not None else ()
        except InputError:
            document, ids = None, ()
        if home is not None:
            base, folders = self.resolver.chain_folders(self.chain(home, ids))
            return [base if base is not None else base_pack(), *folders]
        try:
            folders = self.resolver.folders(ids, name) if document is not None else self.resolver.cli_folders
        except InputError:
            folders = self.resolver.cli_folders
        return [base_pack(), *folders]


def _homes_of(names: Sequence[str]) -> set[str]:
    """The packs that hold the files named on the command line, by their real place."""
    from .discovery import pack_home

    homes = (pack_home(n) for n in names if os.path.lexists(n) and not os.path.isdir(n))
    return {h for h in homes if h is not None}

"""``critter-kitchen validate``: card packs, card files and game records checked, every problem reported.

A :class:`Checker` is built from a pack resolver (the packs of ``--pack``, and the rulesets
of the packs it checks) and a reporter of ``report.problems.REPORTER_BY_NAME``, as
check-jsonschema builds its checker from a schema loader, an instance loader and a reporter;
what it checks and how is ``loading.check``'s, which the language server shares.
"""

from __future__ import annotations

import sys

from ..loading import check
from . import EXIT_INVALID, EXIT_OK, pack_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from ..loading.resolve import Resolver
    from ..report.problems import Reporter


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    from ..report.problems import REPORTER_BY_NAME

    validate = commands.add_parser(
        "validate",
        formatter_class=formatter,
        help="check card packs, card files and game records",
        description="Check card packs (folders with pack.yaml, or folders holding packs), "
        "card files and game records; report every problem.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="a pack folder, a card file or a game record")
    pack_option(validate)
    validate.add_argument(
        "--format", choices=tuple(REPORTER_BY_NAME), default="text", help="output format (default: text)"
    )
    validate.add_argument(
        "--whole-packs",
        action="store_true",
        help="for a card file, report the problems of its whole pack, not only of that file",
    )
    validate.add_argument(
        "--skip-unrelated",
        action="store_true",
        help="skip files that are neither game records nor inside a card pack (for hooks given every YAML file)",
    )
    validate.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..loading.resolve import Resolver
    from ..report.problems import REPORTER_BY_NAME

    checker = Checker(Resolver(args.pack), REPORTER_BY_NAME[args.format])
    return checker.run(args.paths, whole_packs=args.whole_packs, skip_unrelated=args.skip_unrelated)


class Checker(check.Checker):
    """The problems ``loading.check.Checker`` finds in paths, reported with ``reporter``."""

    def __init__(self, resolver: Resolver, reporter: Reporter) -> None:
        super().__init__(resolver)
        self.reporter = reporter

    def run(self, paths: Sequence[str], *, whole_packs: bool = False, skip_unrelated: bool = False) -> int:
        """Check ``paths``, write the report; the exit status."""
        unique = sorted(set(self.problems(paths, whole_packs=whole_packs, skip_unrelated=skip_unrelated)))
        report = self.reporter(unique, self.checked)
        sys.stdout.write(report.out)
        sys.stderr.write(report.err)
        return EXIT_INVALID if unique else EXIT_OK

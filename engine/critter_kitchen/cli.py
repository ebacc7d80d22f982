"""The ``critter-kitchen`` command: the command line read, a command of ``commands/`` run, its
errors and standard output's failures turned into messages and exit statuses."""

from __future__ import annotations

import gc
import os
import sys

from . import __version__
from .commands import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_USAGE,
    Output,
    OutputFailed,
    discard_output,
    escape_what_cannot_be_shown,
    formatter_class,
    report,
    tell,
)
from .errors import CritterError, InputError, UsageError, printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any


def _version_action() -> type[argparse.Action]:
    """``--version``'s action: the version and which build runs (compiled or pure Python:
    build.py), worked out only when asked (it imports the planner). Made here, not at the top
    of the module: a cold ``score`` of a batch imports no argument parser."""
    import argparse

    class Version(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
            from .build import kind

            sys.stdout.write(f"{parser.prog} {__version__}, {kind()}\n")  # as argparse's own version action
            parser.exit()

    return Version


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from .commands import cards, lsp, packs, plan, proof, score, serve, simulate, validate

    formatter = formatter_class()
    parser = argparse.ArgumentParser(
        prog="critter-kitchen",
        formatter_class=formatter,
        description="Score recorded games of Critter Kitchen and check card packs, from card data.",
    )
    parser.add_argument(
        "--version",
        action=_version_action(),
        nargs=0,
        default=argparse.SUPPRESS,
        help="show the version and the build, then exit",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # in the order the help lists them
    for command in (score, validate, cards, packs, plan, serve, simulate, proof, lsp):
        command.add_parser(commands, formatter)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (``sys.argv[1:]`` when None); the exit status.

    Called without ``argv``, as the console script and ``python -m critter_kitchen`` call it,
    it is the command of its own process, which ends when it returns: see :func:`_finish`.
    """
    collecting = gc.isenabled()
    try:
        return _main(argv)
    finally:
        _finish(ends_process=argv is None, collecting=collecting)


def _finish(*, ends_process: bool, collecting: bool) -> None:
    """Leave the cyclic garbage collector as it was found.

    When the process ends next, everything left is first frozen: the interpreter's last
    full collection at exit would walk the whole ruleset and the imported modules (nearly a
    fifth of a cold ``score`` beyond importing yaml, on the development machine) to free memory
    that the process's end frees anyway. Frozen objects are still freed by their reference
    counts; only cycles among them are left for the exit.
    """
    if ends_process:
        gc.freeze()
    if collecting:
        gc.enable()
    else:
        gc.disable()


def _main(argv: Sequence[str] | None) -> int:
    if sys.stdout is None:  # started with standard output closed (``>&-``): no result could be shown
        tell("standard output is closed")
        return EXIT_OUTPUT
    if sys.stderr is None:  # else print(file=sys.stderr) would write problems into the results
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    escape_what_cannot_be_shown()
    stdout = sys.stdout
    sys.stdout = Output(stdout)
    try:
        try:
            try:
                args = _plain_score(sys.argv[1:] if argv is None else argv)
                if args is None:
                    args = build_parser().parse_args(argv)
            except UsageError as e:  # an option's value its type refused (commands.Whole)
                tell(printable(str(e)))
                return EXIT_USAGE
            return _run(args)
        finally:
            sys.stdout.flush()  # short output waits in the buffer: a full disk shows only here
    except OutputFailed as e:
        tell(f"cannot write standard output: {e}")
        discard_output(stdout)
        return EXIT_OUTPUT
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        discard_output(stdout)
        return EXIT_OK
    finally:
        sys.stdout = stdout


def _plain_score(argv: Sequence[str]) -> Any:
    """A plain ``score`` command line's arguments, read without argparse (see
    ``commands.score.plain_arguments``); else None."""
    if not argv or argv[0] != "score":
        return None
    from .commands.score import plain_arguments

    return plain_arguments(argv)


def _run(args: Any) -> int:
    try:
        return int(args.run(args))
    except InputError as e:
        report(e.problems, sys.stderr)
        return EXIT_INVALID
    except CritterError as e:
        tell(printable(str(e)))
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130

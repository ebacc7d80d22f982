"""The ``critter-kitchen`` commands, one module each, and what they share: the exit statuses,
standard output (whose failures are told apart from a closed pipe), JSON for it, messages on
standard error and the ``--pack`` option. Only the commands print.

Each command module has ``add_parser(commands, formatter)``, which adds the command with its
own arguments, and ``run(args)``, the exit status. A module imports what its command needs
when it runs: ``score`` starts cold, and most of the package (the DSL parser and checker,
schemas, card rendering, the planner) is never needed there.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Sequence
    from typing import Any, BinaryIO, TextIO

    from ..errors import Problem

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_OUTPUT = 74  # standard output closed or not writable (sysexits.h: EX_IOERR)


def formatter_class() -> type[argparse.HelpFormatter]:
    """argparse's formatter, told the terminal's width as shutil would find it.

    argparse makes a formatter for every option it adds and, when not told the width, asks
    shutil, whose import (with bz2, lzma, fnmatch) is a tenth of a cold ``score``.
    """
    import argparse

    class Formatter(argparse.HelpFormatter):
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=terminal_columns() - 2)

    return Formatter


def terminal_columns() -> int:
    """What ``shutil.get_terminal_size().columns`` gives: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no standard output, or not a terminal
        return 80


def pack_option(parser: argparse.ArgumentParser, help_text: str = "") -> None:
    parser.add_argument(
        "--pack",
        action="append",
        default=[],
        metavar="DIR|ID",
        help=help_text
        or "load this card pack (a folder, or the id of an installed pack) on top of the base pack "
        "(repeatable, in order)",
    )


def format_option(parser: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """``--format``, one of a command's table of output formats, the first the default."""
    parser.add_argument(
        "--format", choices=tuple(formats), default=formats[0], help=f"output format (default: {formats[0]})"
    )


class Choices:
    """The values a domain module defines for an option (``module.NAME``, a tuple), read when
    argparse first asks: a command line that does not use the option imports nothing for it."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def values(self) -> tuple[str, ...]:
        import importlib

        found: tuple[str, ...] = getattr(importlib.import_module(self.module, __package__), self.name)
        return found

    def __contains__(self, value: object) -> bool:
        return value in self.values()

    def __iter__(self) -> Iterator[str]:
        return iter(self.values())


class Whole:
    """argparse's ``type=`` of an option that takes a whole number from ``low`` to ``high``.

    ``high`` is a number, or where a domain module defines it (``"..simulate.cli:MAX_GAMES"``),
    read when argparse converts a value: a command line that does not use the option imports
    nothing for it. A value out of range, or not a whole number, is a
    :class:`~critter_kitchen.errors.UsageError` (``errors.whole_number``'s message, exit 2),
    which argparse passes on and the CLI tells as it tells every usage error."""

    def __init__(self, option: str, low: int, high: int | str) -> None:
        self.option = option
        self.low = low
        self.high = high

    def __call__(self, value: str) -> int:
        import importlib

        from ..errors import whole_number

        high = self.high
        if isinstance(high, str):
            module, name = high.split(":")
            high = int(getattr(importlib.import_module(module, __package__), name))
        return whole_number(self.option, value, self.low, high)


def whole_option(parser: Any, option: str, low: int, high: int | str, **kwargs: Any) -> None:
    """Add ``option`` to ``parser`` (or a group of it), taking a whole number from ``low`` to
    ``high`` (see :class:`Whole`); ``kwargs`` as ``add_argument`` takes them."""
    parser.add_argument(option, type=Whole(option, low, high), **kwargs)


# messages


def tell(message: str) -> None:
    print(f"critter-kitchen: {message}", file=sys.stderr)


def needs_extra(what: str, extra: str, error: ImportError) -> int:
    """A command whose optional dependencies are not installed: it says which extra to install
    and what was missing, and exits 1."""
    from ..errors import printable

    tell(printable(f"{what} needs the {extra} extra: pip install 'critter-kitchen[{extra}]' ({error})"))
    return EXIT_INVALID


def report(problems: Sequence[Problem], out: TextIO, *, with_code: bool = False) -> None:
    for p in problems:
        print(p.format(with_code=with_code), file=out)


# standard output


def escape_what_cannot_be_shown() -> None:
    """A character that the terminal's encoding lacks is shown escaped (``\\xe9``), never a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # absent on an in-memory stream
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def is_unicode_output() -> bool:
    """Whether standard output takes any character; if not, JSON is written in ASCII escapes."""
    import codecs  # loaded at every interpreter start

    encoding = getattr(sys.stdout, "encoding", None)
    return encoding is None or codecs.lookup(encoding).name.startswith("utf")


class OutputFailed(Exception):
    """Standard output could not be written (a full disk, a device error): the reason."""


class Output:
    """Standard output whose failed writes raise OutputFailed; a closed pipe stays BrokenPipeError."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputFailed(e.strerror or e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputFailed(e.strerror or e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def discard_output(stream: TextIO) -> None:
    """Point standard output at the null device, so that what waits in its buffer cannot fail at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError):  # an in-memory stream has no descriptor and no exit flush
        pass


class BinaryOutput:
    """The bytes under standard output, written directly where that gives the bytes the text
    stream would write: the interpreter's own UTF-8 standard output (which translates no
    newline), its text flushed first. Failed writes raise as :class:`Output`'s do."""

    def __init__(self, buffer: BinaryIO, encoding: str, errors: str, flush_each: bool) -> None:
        self.buffer = buffer
        self.encoding = encoding
        self.errors = errors
        self.flush_each = flush_each  # a line-buffered (terminal) output shows each line at once

    @staticmethod
    def of(stdout: TextIO) -> BinaryOutput | None:
        import codecs  # loaded at every interpreter start

        stream = stdout.stream if isinstance(stdout, Output) else stdout
        buffer = getattr(stream, "buffer", None)
        if stream is not sys.__stdout__ or buffer is None or codecs.lookup(stream.encoding).name != "utf-8":
            return None
        stdout.flush()
        return BinaryOutput(buffer, stream.encoding, stream.errors or "strict", stream.line_buffering)

    def write(self, data: bytes) -> None:
        try:
            self.buffer.write(data)
            if self.flush_each:
                self.buffer.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputFailed(e.strerror or e) from None


def json_out(data: Any, indent: int | None = None) -> str:
    """``data`` as JSON for standard output: unprintable characters escaped, and every
    non-ASCII one too where the terminal cannot show it."""
    from ..report.json import json_text

    return json_text(data, indent=indent, ascii_only=not is_unicode_output())

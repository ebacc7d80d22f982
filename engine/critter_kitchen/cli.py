"""The ``critter-kitchen`` command. Only this module prints."""

from __future__ import annotations

import gc
import os
import sys

from . import __version__
from .errors import CritterError, EvaluationError, InputError, Problem, escaped, printable

# Each command imports what it needs when it runs: `score` starts cold, and most of the
# package (the DSL parser and checker, schemas, card rendering) is never needed there.
# Even the reader and the stages are imported by the first score, once the collector is
# paused (see cmd_score), so that they are not walked while they are being imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path
    from typing import Any, BinaryIO, TextIO

    from .loading.stream import Entry
    from .loading.yamlpos import Document
    from .model.ruleset import Ruleset
    from .stages.runner import Result

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_OUTPUT = 74  # standard output closed or not writable (sysexits.h: EX_IOERR)


def _formatter_class() -> type[argparse.HelpFormatter]:
    """argparse's formatter, told the terminal's width as shutil would find it.

    argparse makes a formatter for every option it adds and, when not told the width, asks
    shutil, whose import (with bz2, lzma, fnmatch) is a tenth of a cold ``score``.
    """
    import argparse

    class Formatter(argparse.HelpFormatter):
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=_terminal_columns() - 2)

    return Formatter


def _terminal_columns() -> int:
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


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from .report.problems import REPORTER_BY_NAME

    _Formatter = _formatter_class()  # noqa: N806 - a class
    parser = argparse.ArgumentParser(
        prog="critter-kitchen",
        formatter_class=_Formatter,
        description="Score recorded games of Critter Kitchen and check card packs, from card data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    score = sub.add_parser(
        "score",
        formatter_class=_Formatter,
        help="score recorded games",
        description="Score game records (YAML or JSON; '-' reads standard input, one record or JSON Lines).",
    )
    score.add_argument("games", nargs="+", metavar="GAME", help="a game record file, or - for standard input")
    _pack_option(score)
    score.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    score.add_argument("--explain", action="store_true", help="list every award with its card, stage and reason")
    score.set_defaults(run=cmd_score)

    validate = sub.add_parser(
        "validate",
        formatter_class=_Formatter,
        help="check card packs, card files and game records",
        description="Check card packs (folders with pack.yaml, or folders holding packs), "
        "card files and game records; report every problem.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="a pack folder, a card file or a game record")
    _pack_option(validate)
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
    validate.set_defaults(run=cmd_validate)

    cards = sub.add_parser(
        "cards",
        formatter_class=_Formatter,
        help="list the loaded cards, or show one with its effects in plain English",
        description="List every loaded card, or show one card: its text, parameters and effects in plain English.",
    )
    cards.add_argument("card", nargs="?", metavar="ID", help="the card to show (default: list them all)")
    _pack_option(cards)
    cards.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    cards.set_defaults(run=cmd_cards)

    packs = sub.add_parser(
        "packs",
        formatter_class=_Formatter,
        help="list the packs that can be loaded by id",
        description="List the card packs that can be loaded by id (shipped with the engine, or installed by "
        "other Python distributions), with their name, version and where they come from.",
    )
    _pack_option(packs, "list this pack folder too (repeatable)")
    packs.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    packs.set_defaults(run=cmd_packs)

    plan = sub.add_parser(
        "plan",
        formatter_class=_Formatter,
        help="find a player's best legal meals from their pantry",
        description="Plan a challenge round from pantry files (YAML or JSON): the legal meals that earn "
        "the player the most stars as the engine scores them.",
    )
    plan.add_argument("pantries", nargs="+", metavar="PANTRY", help="a pantry file")
    _pack_option(plan)
    plan.add_argument(
        "--format", choices=("text", "json", "record"), default="text", help="output format (default: text)"
    )
    plan.add_argument(
        "--effort",
        choices=("exact", "fast"),
        default="exact",
        help="exact: the best plan, proved (default); fast: a good plan quickly, not proved best",
    )
    plan.set_defaults(run=cmd_plan)

    serve = sub.add_parser(
        "serve",
        formatter_class=_Formatter,
        help="run the score pad: web pages and a JSON API that score and keep games",
        description="Run the score pad (needs the web extra: pip install 'critter-kitchen[web]'). "
        "On an address other than loopback an access token is always needed: given with --token "
        "(or the CRITTER_KITCHEN_TOKEN variable), else made and printed at start.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0: any free one)")
    serve.add_argument(
        "--db",
        metavar="PATH",
        help="the games database (default: $XDG_DATA_HOME/critter-kitchen/games.sqlite3, "
        "else ~/.local/share/critter-kitchen/games.sqlite3)",
    )
    serve.add_argument("--token", help="the access token to require (default: none on loopback, else a new one)")
    _pack_option(serve)
    serve.set_defaults(run=cmd_serve)

    sim = sub.add_parser(
        "simulate",
        formatter_class=_Formatter,
        help="play simulated games and report what each card does to them",
        description="The balance lab: simulated games dealt from the packs' deal model, planned by the meal "
        "planner and scored by the engine; for every card, its stars and the paired effect of removing it, "
        "with 95% intervals.",
    )
    _pack_option(sim)
    sim.add_argument("--games", default="1000", metavar="N", help="games to simulate (default: 1000)")
    sim.add_argument("--players", default="4", metavar="N", help="players in each game (default: 4)")
    sim.add_argument(
        "--seed", default="1", metavar="S", help="the run's seed: the same seed, the same report (default: 1)"
    )
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--workers", default=None, metavar="N", help="local worker processes (default: every core)")
    where.add_argument("--dask", default=None, metavar="ADDRESS", help="run on this Dask scheduler (the cluster extra)")
    sim.add_argument(
        "--study",
        action="append",
        default=[],
        metavar="CARD",
        help="force this card into every game, against the same games without it (repeatable)",
    )
    sim.add_argument(
        "--cards",
        action="append",
        default=[],
        metavar="KIND=N",
        help="deal N cards of this kind instead of the deal model's number, e.g. critic=0 (repeatable)",
    )
    sim.add_argument(
        "--effort",
        choices=("quick", "fast", "exact"),
        default="fast",
        help="how hard the simulated players plan: quick (a trimmed pantry), or the planner's fast or exact effort "
        "(default: fast)",
    )
    sim.add_argument(
        "--format", choices=("text", "json", "csv", "html"), default="text", help="output format (default: text)"
    )
    sim.add_argument("--output", default=None, metavar="FILE", help="write the report to FILE, not standard output")
    sim.add_argument(
        "--records", default=None, metavar="FILE", help="write every simulated game record to FILE (JSON Lines)"
    )
    sim.set_defaults(run=cmd_simulate)
    return parser


def _pack_option(parser: argparse.ArgumentParser, help_text: str = "") -> None:
    parser.add_argument(
        "--pack",
        action="append",
        default=[],
        metavar="DIR|ID",
        help=help_text
        or "load this card pack (a folder, or the id of an installed pack) on top of the base pack "
        "(repeatable, in order)",
    )


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
        _tell("standard output is closed")
        return EXIT_OUTPUT
    if sys.stderr is None:  # else print(file=sys.stderr) would write problems into the results
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    _escape_what_cannot_be_shown()
    stdout = sys.stdout
    sys.stdout = _Output(stdout)
    try:
        try:
            args = _plain_score_arguments(sys.argv[1:] if argv is None else argv)
            return _run(args if args is not None else build_parser().parse_args(argv))
        finally:
            sys.stdout.flush()  # short output waits in the buffer: a full disk shows only here
    except _OutputFailed as e:
        _tell(f"cannot write standard output: {e}")
        _discard_output(stdout)
        return EXIT_OUTPUT
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        _discard_output(stdout)
        return EXIT_OK
    finally:
        sys.stdout = stdout


class _ScoreArguments:
    """What ``build_parser().parse_args`` gives for a plain ``score`` command line."""

    def __init__(self, games: list[str], pack: list[str], format: str, explain: bool) -> None:  # noqa: A002
        self.command = "score"
        self.games = games
        self.pack = pack
        self.format = format
        self.explain = explain
        self.run: Callable[[Any], int] = cmd_score


_SCORE_FORMATS = ("text", "json")


def _plain_score_arguments(argv: Sequence[str]) -> _ScoreArguments | None:
    """The arguments of a plain ``score`` command line, read without argparse; else None.

    Plain: ``score``, then the games in one run, and before or after them only the options
    ``--format text|json``, ``--explain`` and ``--pack VALUE``, each written out in full,
    with no value or game that starts with ``-`` (``-`` itself, standard input, is a game).
    Anything else (help, abbreviations, ``--opt=value``, ``--``, a mistake) goes to
    argparse, so that its messages stay the only ones; argparse and its imports (gettext,
    locale, warnings) and building the parser were a fifth of what a cold ``score`` costs
    beyond starting Python and importing yaml. A test compares both readings on generated
    command lines.
    """
    if not argv or argv[0] != "score":
        return None
    games: list[str] = []
    packs: list[str] = []
    output, explain = "text", False
    last_was_game = False
    i = 1
    while i < len(argv):
        arg = argv[i]
        is_game = arg == "-" or not arg.startswith("-")
        if is_game and games and not last_was_game:
            return None  # a second run of games: argparse's error
        last_was_game = is_game
        if is_game:
            games.append(arg)
        elif arg == "--explain":
            explain = True
        elif arg in ("--format", "--pack") and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            i += 1
            if arg == "--pack":
                packs.append(argv[i])
            elif argv[i] in _SCORE_FORMATS:
                output = argv[i]
            else:
                return None
        else:
            return None
        i += 1
    return _ScoreArguments(games, packs, output, explain) if games else None


def _run(args: argparse.Namespace | _ScoreArguments) -> int:
    try:
        return int(args.run(args))
    except InputError as e:
        _report(e.problems, sys.stderr)
        return EXIT_INVALID
    except CritterError as e:
        _tell(printable(str(e)))
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130


def _tell(message: str) -> None:
    print(f"critter-kitchen: {message}", file=sys.stderr)


def _escape_what_cannot_be_shown() -> None:
    """A character that the terminal's encoding lacks is shown escaped (``\\xe9``), never a crash."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # absent on an in-memory stream
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _is_unicode_output() -> bool:
    """Whether standard output takes any character; if not, JSON is written in ASCII escapes."""
    import codecs  # loaded at every interpreter start

    encoding = getattr(sys.stdout, "encoding", None)
    return encoding is None or codecs.lookup(encoding).name.startswith("utf")


class _OutputFailed(Exception):
    """Standard output could not be written (a full disk, a device error): the reason."""


class _Output:
    """Standard output whose failed writes raise _OutputFailed; a closed pipe stays BrokenPipeError."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _OutputFailed(e.strerror or e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _OutputFailed(e.strerror or e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _discard_output(stream: TextIO) -> None:
    """Point standard output at the null device, so that what waits in its buffer cannot fail at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError):  # an in-memory stream has no descriptor and no exit flush
        pass


def _report(problems: Sequence[Problem], out: TextIO, *, with_code: bool = False) -> None:
    for p in problems:
        print(p.format(with_code=with_code), file=out)


# score


class _Input:
    """One record to score: its data (and the document that places its values), or the problems
    that kept it from being read. (A record of standard input is a ``loading.stream.Entry``,
    which has the same attributes.)"""

    def __init__(
        self, source: str, data: Any = None, problems: Sequence[Problem] = (), document: Document | None = None
    ) -> None:
        self.source = source
        self.data = data
        self.problems = problems
        self.document = document


class _Rulesets:
    """The rulesets of a run, one per distinct list of packs that records name, each loaded once.

    The ``--pack`` values are resolved at once, so a wrong one fails the whole command; a
    record's own packs are that record's business (its error alone in a batch).
    """

    def __init__(self, packs: Sequence[str]) -> None:
        from .loading.discovery import pack_folders
        from .loading.records import read_record, record_packs
        from .stages.runner import score_game

        self.cli_folders = pack_folders(packs)
        self.loaded: dict[tuple[str, ...], Ruleset] = {}
        # imported once: a batch calls them once a record (the two import statements that
        # _score ran were about 21 k instructions a batch record, compiled)
        self.record_packs = record_packs
        self.read_record = read_record
        self.score_game = score_game

    def default(self) -> Ruleset:
        return self.named(())

    def named(self, ids: tuple[str, ...], source: str = "") -> Ruleset:
        if ids not in self.loaded:
            from .loading.cached import load_ruleset
            from .loading.discovery import load_order, record_pack_folders

            named = record_pack_folders(ids, source, self.cli_folders) if ids else []
            self.loaded[ids] = load_ruleset(load_order(named, self.cli_folders))
        return self.loaded[ids]

    def for_record(self, data: Any, source: str) -> Ruleset:
        """The ruleset to read a record with: the base pack, the packs it names, then ``--pack``."""
        ids = self.record_packs(data, source)
        return self.loaded[ids] if ids in self.loaded else self.named(ids, source)


def cmd_score(args: argparse.Namespace | _ScoreArguments) -> int:
    # One record: what it builds (the ruleset above all) lives until the command ends, so
    # the cyclic collector would walk it all, repeatedly, and find nothing to free. Paused
    # here; a batch collects as usual; main() gives the collector back as it found it.
    gc.disable()
    rulesets = _Rulesets(args.pack)
    inputs = _read_inputs(args.games)  # read one at a time, so that memory stays flat
    first = next(inputs)
    second = next(inputs, None)
    if second is None and not first.source.startswith("-:"):
        return _score_one(rulesets, first, args)
    import itertools

    rulesets.default()  # a pack of --pack that does not load fails the command, not each record
    gc.enable()  # and at once freeze (no allocation between): what was made while paused is not walked
    gc.freeze()  # the ruleset lives as long as the process: the collector need not walk it for every game
    batch = _Batch(rulesets, args)
    status = EXIT_OK
    for item in itertools.chain((first,), (second,) if second is not None else (), inputs):
        if not batch.score(item):
            status = EXIT_INVALID
    return status


class _Batch:
    """Scoring record after record: what does not change from one record to the next (the
    output's form, whether it takes any character, the functions that write it) is found once,
    not once a record."""

    def __init__(self, rulesets: _Rulesets, args: argparse.Namespace | _ScoreArguments) -> None:
        from .report.json import json_line, json_text, result_json
        from .report.text import result_text

        self.rulesets = rulesets
        self.as_json = args.format == "json"
        self.explain = bool(args.explain)
        self.ascii_only = not _is_unicode_output()  # standard output's encoding is that of the whole run
        self.json_text = json_text
        self.json_line = json_line
        self.result_json = result_json
        self.result_text = result_text
        self.binary = _BinaryOutput.of(sys.stdout) if self.as_json and not self.ascii_only else None

    def score(self, item: _Input | Entry) -> bool:
        """Print one record's result, or its problems, in one write; whether it was scored.

        A record that fails (a problem in it, or a card effect that fails on it) is that
        record's error alone: the records after it are still scored.
        """
        try:
            result = _score(self.rulesets, item)
        except InputError as e:
            messages = [p.format() for p in e.problems]
        else:
            if self.as_json:
                self.write_json({"source": item.source, **self.result_json(result)})
            else:
                sys.stdout.write(f"== {escaped(item.source)}\n{self.result_text(result, explain=self.explain)}\n")
            return True
        if self.as_json:
            self.write_json({"source": item.source, "errors": messages})
        else:
            sys.stderr.write("".join(m + "\n" for m in messages))
        return False

    def write_json(self, value: dict[str, Any]) -> None:
        if self.binary is not None:
            self.binary.write(self.json_line(value, self.binary.encoding, self.binary.errors))
        else:
            sys.stdout.write(self.json_text(value, ascii_only=self.ascii_only) + "\n")


class _BinaryOutput:
    """The bytes under standard output, written directly where that gives the bytes the text
    stream would write: the interpreter's own UTF-8 standard output (which translates no
    newline), its text flushed first. Failed writes raise as :class:`_Output`'s do."""

    def __init__(self, buffer: BinaryIO, encoding: str, errors: str, flush_each: bool) -> None:
        self.buffer = buffer
        self.encoding = encoding
        self.errors = errors
        self.flush_each = flush_each  # a line-buffered (terminal) output shows each line at once

    @staticmethod
    def of(stdout: TextIO) -> _BinaryOutput | None:
        import codecs  # loaded at every interpreter start

        stream = stdout.stream if isinstance(stdout, _Output) else stdout
        buffer = getattr(stream, "buffer", None)
        if stream is not sys.__stdout__ or buffer is None or codecs.lookup(stream.encoding).name != "utf-8":
            return None
        stdout.flush()
        return _BinaryOutput(buffer, stream.encoding, stream.errors or "strict", stream.line_buffering)

    def write(self, data: bytes) -> None:
        try:
            self.buffer.write(data)
            if self.flush_each:
                self.buffer.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise _OutputFailed(e.strerror or e) from None


def _json_out(data: Any, indent: int | None = None) -> str:
    """``data`` as JSON for standard output: unprintable characters escaped, and every
    non-ASCII one too where the terminal cannot show it."""
    from .report.json import json_text

    return json_text(data, indent=indent, ascii_only=not _is_unicode_output())


def _score(rulesets: _Rulesets, item: _Input | Entry) -> Result:
    """Score one input; InputError if it could not be read or is not a valid game."""
    if item.problems:
        raise InputError(list(item.problems))
    ruleset = rulesets.for_record(item.data, item.source)
    game = rulesets.read_record(ruleset, item.data, item.source, item.document)
    try:
        return rulesets.score_game(game, item.source)
    except EvaluationError as e:  # a card in play cannot score this game: a problem of this record
        raise InputError([Problem(item.source, 0, 0, str(e), "CK301")]) from e


def _score_one(rulesets: _Rulesets, item: _Input | Entry, args: argparse.Namespace | _ScoreArguments) -> int:
    result = _score(rulesets, item)
    if args.format == "json":
        from .report.json import result_json

        print(_json_out(result_json(result), indent=2))
    else:
        from .report.text import result_text

        print(result_text(result, explain=args.explain))
    return EXIT_OK


def _read_inputs(names: Sequence[str]) -> Iterator[_Input | Entry]:
    from .loading.files import load_record

    for name in names:
        if name == "-":
            yield from _read_stdin()
            continue
        try:
            document = load_record(name, name)
            yield _Input(name, document.data, document=document)
        except InputError as e:
            yield _Input(name, problems=e.problems)


def _read_stdin() -> Iterator[Entry]:
    """Standard input's records: one document, or JSON Lines (the rule is in loading/stream.py)."""
    from .loading.stream import read_stream

    stream = None if sys.stdin is None else getattr(sys.stdin, "buffer", None)
    return read_stream(stream, "-")


# plan


def cmd_plan(args: argparse.Namespace) -> int:
    """Plan every pantry, then print the plans; any bad pantry fails the command and nothing is printed."""
    from .loading.files import load_record
    from .plan import pantry_ruleset, question
    from .plan.critic import CriticPlan, critic_json, critic_record, critic_text, plan_critic, plan_keep
    from .plan.output import plan_json, plan_record, plan_text
    from .plan.pantry import CRITIC
    from .plan.search import plan_round

    problems: list[Problem] = []
    plans: list[Any] = []
    for name in args.pantries:
        try:
            document = load_record(name, name)
            ruleset = pantry_ruleset(document.data, args.pack, name)
            asked = question(document.data, ruleset, source=name, document=document)
            effort = args.effort
            plans.append(
                plan_critic(asked, effort=effort) if asked.target == CRITIC else plan_round(asked, effort=effort)
            )
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    many = len(plans) > 1
    for name, plan in zip(args.pantries, plans, strict=True):
        critic = isinstance(plan, CriticPlan)
        keep = None if critic else plan_keep(plan.question, plan.left_ingredients, plan.left_spices)
        if args.format == "json":
            data = critic_json(plan) if critic else plan_json(plan, keep)
            print(_json_out({"source": name, **data}) if many else _json_out(data, indent=2))
        elif args.format == "record":
            import yaml

            print(
                ("# " + escaped(name) + "\n" if many else "")
                + yaml.safe_dump(critic_record(plan) if critic else plan_record(plan), sort_keys=False),
                end="",
            )
        else:
            print((f"== {escaped(name)}\n" if many else "") + (critic_text(plan) if critic else plan_text(plan, keep)))
    return EXIT_OK


# serve


def cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        _tell(f"--port must be from 0 to 65535, not {args.port}")
        return EXIT_USAGE
    try:
        from .web import server
    except ImportError as e:
        _tell(printable(f"the score pad needs the web extra: pip install 'critter-kitchen[web]' ({e})"))
        return EXIT_INVALID
    try:
        return server.run(args)
    except server.StartError as e:
        _tell(printable(str(e)))
        return EXIT_INVALID
    except OSError as e:  # the address cannot be used (taken, not this machine's)
        _tell(printable(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}"))
        return EXIT_INVALID


# simulate


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate.cli import UsageError, simulate

    try:
        return simulate(args, sys.stdout, sys.stderr)
    except UsageError as e:
        _tell(printable(str(e)))
        return EXIT_USAGE


# cards


def cmd_cards(args: argparse.Namespace) -> int:
    from .errors import did_you_mean
    from .loading.cached import load_ruleset
    from .loading.discovery import pack_folders
    from .report.cards import card_json, card_text, listing_text

    ruleset = load_ruleset(pack_folders(args.pack))
    if args.card is None:
        if args.format == "json":
            print(_json_out([card_json(c, ruleset) for c in ruleset.cards.values()], indent=2))
        else:
            print(listing_text(ruleset))
        return EXIT_OK
    card = ruleset.cards.get(args.card)
    if card is None:
        hint = did_you_mean(args.card, ruleset.cards)
        _tell(printable(f"unknown card '{args.card}'{hint}"))
        return EXIT_INVALID
    if args.format == "json":
        print(_json_out(card_json(card, ruleset), indent=2))
    else:
        print(card_text(card, ruleset))
    return EXIT_OK


# validate


def cmd_validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .loading import discovery
    from .report.problems import REPORTER_BY_NAME

    args.pack = discovery.pack_folders(args.pack)
    problems: list[Problem] = []
    checked = 0
    whole: set[str] = set()  # packs already checked in full, by their real place
    below = {name: discovery.packs_below(name) for name in args.paths if os.path.isdir(name)}
    named = {os.path.realpath(p) for walked in below.values() for p in walked.found} | _homes_of(args.paths)
    records = _Records(args.pack, named)
    for name in args.paths:
        path = Path(name)
        if name in below:
            packs = [Path(p) for p in below[name].found]
            problems.extend(below[name].problems)
            for pack in packs:
                problems.extend(_check_pack_chain(_with_requirements(pack, packs), args.pack))
                whole.add(os.path.realpath(pack))
                checked += 1
            found, games = records.below(name)
            problems.extend(found)
            checked += games
            if not packs and not games and not found and not below[name].problems:
                message = "no pack.yaml and no game record in or below this folder"
                problems.append(Problem(name, 0, 0, message, "CK104"))
        elif not os.path.lexists(name):
            problems.append(Problem(name, 0, 0, "no such file or folder", "CK001"))
        elif (home := discovery.pack_home(name)) is not None:
            if home in whole:
                continue
            # A game record kept in a pack folder; a link or a device there is the pack's to judge.
            in_pack = records.check(name) if os.path.isfile(name) and not os.path.islink(name) else None
            if in_pack is not None:
                problems.extend(in_pack)
                checked += 1
                continue
            found = _check_pack_chain(_with_requirements(Path(home), _packs_near(home, named)), args.pack)
            if path.name == "pack.yaml" or args.whole_packs:
                whole.add(home)
            else:
                found = [p for p in found if os.path.realpath(p.path) == os.path.realpath(name)]
            problems.extend(found)
            checked += 1
        else:
            found, is_record = _record_problems(path, name, args.pack)
            if is_record or found:
                problems.extend(found)
                checked += 1
            elif not args.skip_unrelated:
                problems.append(Problem(name, 0, 0, "neither a game record nor a file inside a card pack", "CK104"))
    unique = sorted(set(problems))
    report = REPORTER_BY_NAME[args.format](unique, checked)
    sys.stdout.write(report.out)
    sys.stderr.write(report.err)
    return EXIT_INVALID if unique else EXIT_OK


def _homes_of(names: Sequence[str]) -> set[str]:
    """The packs that hold the files named on the command line, by their real place."""
    from .loading.discovery import pack_home

    homes = (pack_home(n) for n in names if os.path.lexists(n) and not os.path.isdir(n))
    return {h for h in homes if h is not None}


def _packs_near(pack: str, named: set[str]) -> list[Path]:
    """Packs that ``pack`` may require: those beside it, and those the command line names.

    The working folder is not searched: it may hold anything, and a file's check must not
    cost a walk of all of it. A pack from elsewhere is named with ``--pack``.
    """
    from pathlib import Path

    from .loading.discovery import packs_beside

    return sorted(Path(p) for p in {*map(os.path.realpath, packs_beside(pack)), *named, pack})


def _pack_data(folder: Path) -> dict[str, Any]:
    """A pack's pack.yaml, or {} when unreadable or a link out of the pack (the load reports why)."""
    from .loading.discovery import link_problem
    from .loading.yamlpos import read_document

    try:
        if link_problem(str(folder / "pack.yaml"), str(folder)) is not None:
            return {}
        data = read_document(folder / "pack.yaml").data
    except InputError:
        return {}
    return data if isinstance(data, dict) else {}


def _pack_id(folder: Path) -> str | None:
    data = _pack_data(folder)
    return data["id"] if isinstance(data.get("id"), str) else None


def _with_requirements(pack: Path, known: list[Path]) -> list[Path]:
    """The packs found beside ``pack`` that it requires (recursively), then ``pack`` itself."""
    by_id = {pid: p for p in known if (pid := _pack_id(p)) is not None}
    order: list[Path] = []

    def visit(p: Path) -> None:
        if p in order:
            return
        order.append(p)  # placed before its requirements are known, so cycles end here
        requires = _pack_data(p).get("requires") or []
        for req in requires if isinstance(requires, list) else []:
            if req in by_id:
                visit(by_id[req])

    visit(pack)
    return order[::-1]


def _check_pack_chain(chain: list[Path], extra: Sequence[str]) -> list[Problem]:
    """Problems of loading ``chain``; a copy of the base pack in it stands in for the shipped one."""
    try:
        _chain_ruleset(chain, extra)
    except InputError as e:
        return e.problems
    return []


def _chain_ruleset(chain: list[Path], extra: Sequence[str]) -> Ruleset:
    """The rules of ``extra`` and ``chain`` (InputError if they do not load); a copy of the base
    pack in the chain stands in for the shipped one."""
    from pathlib import Path

    from .loading.cached import load_ruleset
    from .loading.paths import base_pack

    base_id = _pack_id(Path(base_pack()))
    base = next((p for p in chain if _pack_id(p) == base_id), None)
    rest = [p for p in chain if p != base]
    return load_ruleset([*extra, *rest], base=base)


class _Records:
    """Game records for `validate`: each checked against the base pack and ``--pack``, and a
    record kept in a pack folder against that pack (with the packs it requires) too."""

    def __init__(self, extra: Sequence[str], named: set[str]) -> None:
        self.extra = extra
        self.named = named  # the packs the command line names, by their real place
        self.rules: dict[str | None, Ruleset | list[Problem]] = {}  # by the pack that holds the record

    def below(self, folder: str) -> tuple[list[Problem], int]:
        """The problems of the game records at or below ``folder``, and how many were checked.

        Other files are left alone: card files are the packs' to check, and a folder may hold
        any other YAML. A file that may be a record (it has a ``players`` key) and does not
        parse is reported.
        """
        from .loading.discovery import data_files_below

        walked = data_files_below(folder)
        problems = list(walked.problems)
        games = 0
        for file in walked.found:
            found = self.check(file)
            if found is not None:
                problems.extend(found)
                games += 1
        return problems, games

    def check(self, file: str) -> list[Problem] | None:
        """The problems of ``file`` if it is a game record (or may be one and is broken), else None."""
        from .loading.discovery import pack_home
        from .loading.files import record_document

        try:
            document = record_document(file, file)
        except InputError as e:
            return e.problems
        if document is None:
            return None
        from .loading.records import read_record

        rules = self.ruleset(pack_home(file))
        if isinstance(rules, list):
            return rules
        try:
            read_record(rules, document.data, file, document)
        except InputError as e:
            return e.problems
        return []

    def ruleset(self, home: str | None) -> Ruleset | list[Problem]:
        """The rules for a record in the pack ``home`` (None: in no pack), or why they do not load."""
        from pathlib import Path

        if home not in self.rules:
            chain = _with_requirements(Path(home), _packs_near(home, self.named)) if home is not None else []
            try:
                self.rules[home] = _chain_ruleset(chain, self.extra)
            except InputError as e:
                self.rules[home] = e.problems
        return self.rules[home]


def _record_problems(path: Path, name: str, packs: Sequence[str]) -> tuple[list[Problem], bool]:
    """Problems of a file outside any pack, and whether it is a game record at all.

    A file that does not even parse is reported: whatever it was meant to be, it is broken.
    """
    from .loading.cached import load_ruleset
    from .loading.discovery import load_order, record_pack_folders
    from .loading.files import load_record
    from .loading.records import read_record, record_packs

    try:
        document = load_record(str(path), name)
    except InputError as e:
        return e.problems, False
    data = document.data
    if not (isinstance(data, dict) and "players" in data):
        return [], False
    try:
        named = record_pack_folders(record_packs(data, name), name, packs)
        read_record(load_ruleset(load_order(named, packs)), data, name, document)
    except InputError as e:
        return e.problems, True
    return [], True


# packs


def cmd_packs(args: argparse.Namespace) -> int:
    from .loading.discovery import installed_listing
    from .report.packs import packs_json, packs_text

    listing = installed_listing(args.pack)
    if args.format == "json":
        print(_json_out(packs_json(listing.packs), indent=2))
    else:
        print(packs_text(listing.packs))
    for message in listing.problems:
        _tell(printable(message))
    return EXIT_INVALID if listing.problems else EXIT_OK

"""``critter-kitchen score``: score recorded games, one or a batch (files, or standard input's
records). The command that starts cold most often: read without argparse when plain (see
:func:`plain_arguments`), and importing only what a score needs."""

from __future__ import annotations

import gc
import sys

from ..errors import EvaluationError, InputError, Problem, escaped
from . import EXIT_INVALID, EXIT_OK, BinaryOutput, format_option, is_unicode_output, json_out, pack_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from ..loading.resolve import Resolver
    from ..loading.stream import Entry
    from ..loading.yamlpos import Document
    from ..stages.runner import Result

FORMATS = ("text", "json")


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    score = commands.add_parser(
        "score",
        formatter_class=formatter,
        help="score recorded games",
        description="Score game records (YAML or JSON; '-' reads standard input, one record or JSON Lines).",
    )
    score.add_argument("games", nargs="+", metavar="GAME", help="a game record file, or - for standard input")
    pack_option(score)
    format_option(score, FORMATS)
    score.add_argument("--explain", action="store_true", help="list every award with its card, stage and reason")
    score.set_defaults(run=run)


class Arguments:
    """What the parser gives for a plain ``score`` command line."""

    def __init__(self, games: list[str], pack: list[str], format: str, explain: bool) -> None:  # noqa: A002
        self.command = "score"
        self.games = games
        self.pack = pack
        self.format = format
        self.explain = explain
        self.run: Callable[[Any], int] = run


def plain_arguments(argv: Sequence[str]) -> Arguments | None:
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
            elif argv[i] in FORMATS:
                output = argv[i]
            else:
                return None
        else:
            return None
        i += 1
    return Arguments(games, packs, output, explain) if games else None


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


class _Scorer:
    """A run's rulesets (the pack resolver's, one per distinct list of packs that records
    name) and the reader and stages that score with them."""

    def __init__(self, packs: Sequence[str], trace: bool = False) -> None:
        from ..loading.records import read_record
        from ..loading.resolve import Resolver
        from ..stages.runner import score_game

        self.rulesets: Resolver = Resolver(packs)  # a wrong --pack fails the whole command
        # imported once: a batch calls them once a record (the two import statements that
        # _score ran were about 21 k instructions a batch record, compiled)
        self.read_record = read_record
        self.score_game = score_game
        self.trace = trace  # --explain: keep what effects did to course qualities

    def score(self, item: _Input | Entry) -> Result:
        """Score one input; InputError if it could not be read or is not a valid game."""
        if item.problems:
            raise InputError(list(item.problems))
        ruleset = self.rulesets.for_record(item.data, item.source)
        game = self.read_record(ruleset, item.data, item.source, item.document)
        try:
            return self.score_game(game, item.source, self.trace)
        except EvaluationError as e:  # a card in play cannot score this game: a problem of this record
            raise InputError([Problem(item.source, 0, 0, str(e), "CK301")]) from e


def run(args: argparse.Namespace | Arguments) -> int:
    # One record: what it builds (the ruleset above all) lives until the command ends, so
    # the cyclic collector would walk it all, repeatedly, and find nothing to free. Paused
    # here; a batch collects as usual; main() gives the collector back as it found it.
    gc.disable()
    scorer = _Scorer(args.pack, bool(args.explain) and args.format != "json")
    inputs = _read_inputs(args.games)  # read one at a time, so that memory stays flat
    first = next(inputs)
    second = next(inputs, None)
    if second is None and not first.source.startswith("-:"):
        return _score_one(scorer, first, args)
    import itertools

    scorer.rulesets.ruleset()  # a pack of --pack that does not load fails the command, not each record
    gc.enable()  # and at once freeze (no allocation between): what was made while paused is not walked
    gc.freeze()  # the ruleset lives as long as the process: the collector need not walk it for every game
    batch = _Batch(scorer, args)
    status = EXIT_OK
    for item in itertools.chain((first,), (second,) if second is not None else (), inputs):
        if not batch.score(item):
            status = EXIT_INVALID
    return status


def _score_one(scorer: _Scorer, item: _Input | Entry, args: argparse.Namespace | Arguments) -> int:
    result = scorer.score(item)
    if args.format == "json":
        from ..report.json import result_json

        print(json_out(result_json(result), indent=2))
    else:
        from ..report.text import result_text

        print(result_text(result, explain=args.explain))
    return EXIT_OK


class _Batch:
    """Scoring record after record: what does not change from one record to the next (the
    output's form, whether it takes any character, the functions that write it) is found once,
    not once a record."""

    def __init__(self, scorer: _Scorer, args: argparse.Namespace | Arguments) -> None:
        from ..report.json import json_line, json_text, result_json
        from ..report.text import result_text

        self.scorer = scorer
        self.as_json = args.format == "json"
        self.explain = bool(args.explain)
        self.ascii_only = not is_unicode_output()  # standard output's encoding is that of the whole run
        self.json_text = json_text
        self.json_line = json_line
        self.result_json = result_json
        self.result_text = result_text
        self.binary = BinaryOutput.of(sys.stdout) if self.as_json and not self.ascii_only else None

    def score(self, item: _Input | Entry) -> bool:
        """Print one record's result, or its problems, in one write; whether it was scored.

        A record that fails (a problem in it, or a card effect that fails on it) is that
        record's error alone: the records after it are still scored.
        """
        try:
            result = self.scorer.score(item)
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


def _read_inputs(names: Sequence[str]) -> Iterator[_Input | Entry]:
    from ..loading.files import load_record

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
    from ..loading.stream import read_stream

    stream = None if sys.stdin is None else getattr(sys.stdin, "buffer", None)
    return read_stream(stream, "-")

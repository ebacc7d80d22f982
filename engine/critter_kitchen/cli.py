"""The ``critter-kitchen`` command. Only this module prints."""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from .errors import CritterError, EvaluationError, InputError, Problem
from .loading.records import read_record
from .stages.runner import score_game

# Beyond reading and scoring a record, each command imports what it needs when it runs:
# `score` starts cold, and most of the package (the DSL parser and checker, schemas,
# card rendering) is never needed there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path
    from typing import Any, TextIO

    from .model.ruleset import Ruleset
    from .stages.runner import Result

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="critter-kitchen",
        description="Score recorded games of Critter Kitchen and check card packs, from card data.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    score = sub.add_parser(
        "score",
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
        help="check card packs, card files and game records",
        description="Check card packs (folders with pack.yaml, or folders holding packs), "
        "card files and game records; report every problem.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="a pack folder, a card file or a game record")
    _pack_option(validate)
    validate.add_argument(
        "--format", choices=("text", "json", "github"), default="text", help="output format (default: text)"
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
        help="list the loaded cards, or show one with its effects in plain English",
        description="List every loaded card, or show one card: its text, parameters and effects in plain English.",
    )
    cards.add_argument("card", nargs="?", metavar="ID", help="the card to show (default: list them all)")
    _pack_option(cards)
    cards.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    cards.set_defaults(run=cmd_cards)
    return parser


def _pack_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pack",
        action="append",
        default=[],
        metavar="DIR",
        help="load this card pack on top of the base pack (repeatable, in order)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except InputError as e:
        _report(e.problems, sys.stderr)
        return EXIT_INVALID
    except CritterError as e:
        print(f"critter-kitchen: {e}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps interpreter shutdown from failing again
        return EXIT_OK


def _report(problems: Sequence[Problem], out: TextIO, *, with_code: bool = False) -> None:
    for p in problems:
        print(p.format(with_code=with_code), file=out)


# score


class _Input:
    """One record to score: its data, or the problems that kept it from being read."""

    def __init__(self, source: str, data: Any = None, problems: Sequence[Problem] = ()) -> None:
        self.source = source
        self.data = data
        self.problems = problems


def cmd_score(args: argparse.Namespace) -> int:
    from .loading.cached import load_ruleset
    from .report.text import result_text

    ruleset = load_ruleset(args.pack)
    inputs = _read_inputs(args.games)  # read one at a time, so that memory stays flat
    first = next(inputs)
    second = next(inputs, None)
    if second is None and not first.source.startswith("-:"):
        return _score_one(ruleset, first, args)
    import gc
    import itertools
    import json

    from .report.json import result_json

    gc.freeze()  # the ruleset lives as long as the process: the collector need not walk it for every game
    status = EXIT_OK
    for item in itertools.chain((first,), (second,) if second is not None else (), inputs):
        try:
            result = _score(ruleset, item)
        except InputError as e:
            status = EXIT_INVALID
            if args.format == "json":
                errors = {"source": item.source, "errors": [p.format() for p in e.problems]}
                print(json.dumps(errors, separators=(",", ":"), ensure_ascii=False))
            else:
                _report(e.problems, sys.stderr)
            continue
        if args.format == "json":
            print(json.dumps({"source": item.source, **result_json(result)}, separators=(",", ":"), ensure_ascii=False))
        else:
            print(f"== {item.source}")
            print(result_text(result, explain=args.explain))
    return status


def _score(ruleset: Ruleset, item: _Input) -> Result:
    """Score one input; InputError if it could not be read or is not a valid game."""
    if item.problems:
        raise InputError(list(item.problems))
    game = read_record(ruleset, item.data, item.source)
    try:
        return score_game(game, item.source)
    except EvaluationError as e:  # a card in play cannot score this game: a problem of this record
        raise InputError([Problem(item.source, 0, 0, str(e), "CK301")]) from e


def _score_one(ruleset: Ruleset, item: _Input, args: argparse.Namespace) -> int:
    result = _score(ruleset, item)
    if args.format == "json":
        import json

        from .report.json import result_json

        print(json.dumps(result_json(result), indent=2, ensure_ascii=False))
    else:
        from .report.text import result_text

        print(result_text(result, explain=args.explain))
    return EXIT_OK


def _read_inputs(names: Sequence[str]) -> Iterator[_Input]:
    from .loading.files import load_data

    for name in names:
        if name == "-":
            yield from _read_stdin()
            continue
        try:
            yield _Input(name, load_data(name, name))
        except InputError as e:
            yield _Input(name, problems=e.problems)


def _read_stdin() -> Iterator[_Input]:
    from .loading.files import parse_json
    from .loading.yamlpos import parse, read_text

    raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = ""
    lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip()]
    if len(lines) > 1 and all(ln.lstrip().startswith("{") and ln.rstrip().endswith("}") for _, ln in lines):
        # JSON Lines: each line is a record of its own, and the size cap applies to each
        for number, line in lines:
            source = f"-:{number}"
            try:
                yield _Input(source, parse_json(source, read_text(source, line.encode())))
            except InputError as e:
                yield _Input(source, problems=e.problems)
        return
    try:
        yield _Input("-", parse("-", read_text("-", raw)).data)
    except InputError as e:
        yield _Input("-", problems=e.problems)


# cards


def cmd_cards(args: argparse.Namespace) -> int:
    import json

    from .errors import did_you_mean
    from .loading.cached import load_ruleset
    from .report.cards import card_json, card_text, listing_text

    ruleset = load_ruleset(args.pack)
    if args.card is None:
        if args.format == "json":
            print(json.dumps([card_json(c, ruleset) for c in ruleset.cards.values()], indent=2, ensure_ascii=False))
        else:
            print(listing_text(ruleset))
        return EXIT_OK
    card = ruleset.cards.get(args.card)
    if card is None:
        hint = did_you_mean(args.card, ruleset.cards)
        print(f"critter-kitchen: unknown card '{args.card}'{hint}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        print(json.dumps(card_json(card, ruleset), indent=2, ensure_ascii=False))
    else:
        print(card_text(card, ruleset))
    return EXIT_OK


# validate


def cmd_validate(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    problems: list[Problem] = []
    checked = 0
    whole: set[Path] = set()  # packs already checked in full
    for name in args.paths:
        path = Path(name)
        if path.is_dir():
            packs = _packs_below(path)
            if not packs:
                problems.append(Problem(name, 0, 0, "no pack.yaml in or below this folder", "CK104"))
            for pack in packs:
                problems.extend(_check_pack_chain(_with_requirements(pack, packs), args.pack))
                whole.add(pack)
                checked += 1
        elif not path.is_file():
            problems.append(Problem(name, 0, 0, "no such file or folder", "CK001"))
        elif (home := _pack_home(path)) is not None:
            if home in whole:
                continue
            found = _check_pack_chain(_with_requirements(home, _packs_near(home)), args.pack)
            if path.name == "pack.yaml" or args.whole_packs:
                whole.add(home)
            else:
                found = [p for p in found if Path(p.path).resolve() == path.resolve()]
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
    if args.format == "json":
        rows = [
            {
                "path": p.path,
                "line": p.line,
                "column": p.column,
                "code": p.code,
                "message": f"{p.where}: {p.message}" if p.where else p.message,
            }
            for p in unique
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif args.format == "github":
        for p in unique:
            message = (f"{p.where}: {p.message}" if p.where else p.message).replace("%", "%25").replace("\n", "%0A")
            print(f"::error file={p.path},line={max(p.line, 1)},col={max(p.column, 1)}::{p.code} {message}")
    else:
        _report(unique, sys.stdout if not unique else sys.stderr, with_code=True)
        if not unique:
            print(f"ok: {checked} checked, no problems")
    return EXIT_INVALID if unique else EXIT_OK


def _packs_below(folder: Path) -> list[Path]:
    return sorted(p.parent for p in folder.rglob("pack.yaml") if not _is_hidden(p, folder))


def _is_hidden(path: Path, below: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(below).parts)


def _pack_home(path: Path) -> Path | None:
    """The pack folder that holds ``path``: the nearest folder above it with a pack.yaml."""
    return next((p for p in path.resolve().parents if (p / "pack.yaml").is_file()), None)


def _packs_near(pack: Path) -> list[Path]:
    """Packs that ``pack`` may require: those below the working folder and beside it."""
    return sorted({*_packs_below(pack.cwd()), *_packs_below(pack.parent)} | {pack})


def _pack_id(folder: Path) -> str | None:
    from .loading.yamlpos import read_document

    try:
        data = read_document(folder / "pack.yaml").data
    except InputError:
        return None
    return data.get("id") if isinstance(data, dict) and isinstance(data.get("id"), str) else None


def _with_requirements(pack: Path, known: list[Path]) -> list[Path]:
    """The packs found beside ``pack`` that it requires (recursively), then ``pack`` itself."""
    from .loading.yamlpos import read_document

    by_id = {pid: p for p in known if (pid := _pack_id(p)) is not None}
    order: list[Path] = []

    def visit(p: Path) -> None:
        if p in order:
            return
        order.append(p)  # placed before its requirements are known, so cycles end here
        try:
            requires = read_document(p / "pack.yaml").data.get("requires") or []
        except (InputError, AttributeError):
            requires = []
        for req in requires if isinstance(requires, list) else []:
            if req in by_id:
                visit(by_id[req])

    visit(pack)
    return order[::-1]


def _check_pack_chain(chain: list[Path], extra: Sequence[str]) -> list[Problem]:
    """Problems of loading ``chain``; a copy of the base pack in it stands in for the shipped one."""
    from pathlib import Path

    from .loading.paths import base_pack

    base_id = _pack_id(Path(base_pack()))
    base = next((p for p in chain if _pack_id(p) == base_id), None)
    rest = [p for p in chain if p != base]
    return _pack_problems([*extra, *rest], base=base)


def _pack_problems(packs: Sequence[str | Path], base: Path | None = None) -> list[Problem]:
    from .loading.cached import load_ruleset

    try:
        load_ruleset(packs, base=base)
    except InputError as e:
        return e.problems
    return []


def _record_problems(path: Path, name: str, packs: Sequence[str]) -> tuple[list[Problem], bool]:
    """Problems of a file outside any pack, and whether it is a game record at all.

    A file that does not even parse is reported: whatever it was meant to be, it is broken.
    """
    from .loading.cached import load_ruleset
    from .loading.files import load_data

    try:
        data = load_data(str(path), name)
    except InputError as e:
        return e.problems, False
    if not (isinstance(data, dict) and "players" in data):
        return [], False
    try:
        read_record(load_ruleset(packs), data, name)
    except InputError as e:
        return e.problems, True
    return [], True

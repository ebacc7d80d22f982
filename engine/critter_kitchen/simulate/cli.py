"""``critter-kitchen simulate``: options checked (they are untrusted), the run, the report written."""

from __future__ import annotations

import os
import stat
import time

from ..errors import CritterError, UsageError, did_you_mean, shown, whole_number
from ..loading.deal import MAX_DEALT

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any, TextIO

    from ..model.ruleset import Ruleset
    from .precision import Stopping
    from .run import Spec
    from .stats import Summary

MAX_GAMES = 100_000_000
MAX_WORKERS = 1024
MAX_SEED = 2**63 - 1
MAX_CARDS = MAX_DEALT  # --cards KIND=N deals no more than a pack's deal model may
MAX_PLAYERS = 20  # players in a simulated game, whatever the rules allow: each one plans every meal (retail: 5, 7)


GAMES_DEFAULT = 1000  # --games when not given, without --precision (with it: precision.CAP_DEFAULT)


def precision_number(value: str) -> float:
    """``--precision``'s value: a number above 0 and below 1; else UsageError."""
    try:
        p = float(value)
    except ValueError:
        p = 0.0
    if not 0 < p < 1:  # NaN too
        raise UsageError(f"--precision: expected a number above 0 and below 1, got {shown(value)}")
    return p


def card_counts(rs: Ruleset, items: list[str]) -> tuple[tuple[str, int], ...]:
    kinds = list(rs.deal["cards"].value) if "cards" in rs.deal else []
    counts: dict[str, int] = {}
    for item in items:
        kind, eq, n = item.partition("=")
        if not eq:
            raise UsageError(f"--cards: expected KIND=N, got {shown(item)}")
        if kind not in kinds:
            raise UsageError(f"--cards: no card kind {shown(kind)} is dealt{did_you_mean(kind, kinds)}")
        counts[kind] = whole_number(f"--cards {kind}", n, 0, MAX_CARDS)
    return tuple(sorted(counts.items()))


def studied(rs: Ruleset, ids: list[str]) -> tuple[str, ...]:
    playable = sorted(cid for cid, c in rs.cards.items() if c.kind != rs.rules_kind)
    for cid in ids:
        if cid not in playable:
            raise UsageError(f"--study: unknown card {shown(cid)}{did_you_mean(cid, playable)}")
    return tuple(dict.fromkeys(ids))


class Progress:
    """A one-line count of games done on standard error, for a terminal, once a run passes a
    second, and which build plays them (compiled or pure Python: build.py); with
    ``--precision``, the widest card's interval at the last look too."""

    def __init__(self, stream: TextIO, games: int, stopping: Stopping | None = None) -> None:
        from ..build import kind

        self.build = kind()
        self.stream = stream
        self.games = games
        self.stopping = stopping
        self.start = time.monotonic()
        self.shown = False
        self.live = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done: int) -> None:
        if not self.live or time.monotonic() - self.start < 1.0:
            return
        width = 30
        filled = width * done // self.games
        rate = done / max(1e-9, time.monotonic() - self.start)
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.games} games, {rate:.0f}/s, {self.build}"
        if self.stopping is not None:
            widest = self.stopping.widest
            line += ", widest " + ("-" if widest is None else f"±{widest:.4f}") + f" of ±{self.stopping.target:g}"
        self.stream.write(line)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def simulate(
    args: argparse.Namespace, out: TextIO, err: TextIO, renderer: Callable[[str, bool], Callable[[Any], str]]
) -> int:
    """Run the lab as ``args`` asks; ``renderer(format, to_file)`` gives the report's renderer.

    Every option is checked before the first game (:func:`lab_spec`, :func:`check_outputs`),
    so a mistake costs no run."""
    render = renderer(args.format, args.output is not None)
    rs, spec = lab_spec(args)
    check_outputs(args)
    stopping = stopping_of(spec, args)
    summary = play(spec, args, err, stopping)
    from .report import build

    report = build(
        summary, rs, players=spec.players, seed=spec.seed, effort=args.effort, studies=spec.studies, stopping=stopping
    )
    write_report(render(report), args.output, out)
    return 0


def lab_spec(args: argparse.Namespace) -> tuple[Ruleset, Spec]:
    """The packs ``args`` names, loaded, and the run it asks of them; UsageError for what the
    packs refuse (a number of players outside theirs, no deal model, unknown cards or kinds)."""
    from ..loading.resolve import Resolver
    from .precision import CAP_DEFAULT, looks
    from .run import Spec

    resolver = Resolver(args.pack)
    folders = tuple(os.path.abspath(f) for f in resolver.folders())
    rs = resolver.load(folders)
    params = rs.parameters
    low, high = params["min_players"].value, params["max_players"].value
    players = whole_number("--players", args.players, low, max(low, min(high, MAX_PLAYERS)))
    if not rs.deal:
        raise UsageError("the loaded packs have no deal model (a 'deal:' section of a rules card)")
    precision = getattr(args, "precision", None)
    games = args.games if args.games is not None else GAMES_DEFAULT if precision is None else CAP_DEFAULT
    spec = Spec(
        folders,
        games,  # --games, --seed and --workers are in range: see commands/simulate.py
        players,
        args.seed,
        effort=args.effort,
        card_counts=card_counts(rs, args.cards),
        studies=studied(rs, args.study),
        records=args.records is not None,
        looks=looks(games) if precision is not None else (),
    )
    return rs, spec


def stopping_of(spec: Spec, args: argparse.Namespace) -> Stopping | None:
    """The rule of a ``--precision`` run (None without it)."""
    precision = getattr(args, "precision", None)
    if precision is None:
        return None
    from .precision import Stopping

    return Stopping.of(precision, spec.games)


def check_outputs(args: argparse.Namespace) -> None:
    """UsageError or CritterError unless the run can go where ``args`` sends it: Dask installed
    for ``--dask``, a writable ``--output``."""
    if args.dask is not None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("--dask needs Dask: pip install 'critter-kitchen[cluster]'") from None
    if args.output is not None:
        writable(args.output, "the report")


def play(spec: Spec, args: argparse.Namespace, err: TextIO, stopping: Stopping | None = None) -> Summary:
    """The games of ``spec`` played, on ``args``' workers or Dask scheduler, their records
    written to ``--records`` and their count shown on ``err`` as they are done; with
    ``stopping``, until its rule holds at a look."""
    from .run import MAX_WORKERS_DEFAULT, default_workers, run

    workers = args.workers
    records = Records(args.records, args.output) if args.records is not None else None
    progress = Progress(err, spec.games, stopping)
    try:
        return run(
            spec,
            workers=min(workers or default_workers(), MAX_WORKERS_DEFAULT if workers is None else MAX_WORKERS),
            dask=args.dask,
            progress=progress,
            on_records=records.write if records is not None else None,
            stopping=stopping,
        )
    finally:
        progress.close()
        if records is not None:
            records.close()


def write_report(text: str, output: str | None, out: TextIO) -> None:
    """The report's text, to the file ``output`` or else to ``out``."""
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise CritterError(f"{output}: cannot write the report: {e.strerror or e}") from None
    else:
        out.write(text)


def writable(path: str, what: str) -> None:
    """CritterError unless ``path`` can take ``what``: a regular file that may be written, or a
    new file in a folder that exists. Checked before the first game, so a mistake costs no run;
    a device (``/dev/full``), a pipe or a folder is refused, never opened."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CritterError(f"{path}: cannot write {what}: No such file or directory") from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CritterError(f"{path}: cannot write {what}: Permission denied") from None
        return
    except OSError as e:
        raise CritterError(f"{path}: cannot write {what}: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise CritterError(f"{path}: cannot write {what}: not a regular file")
    if not os.access(path, os.W_OK):
        raise CritterError(f"{path}: cannot write {what}: Permission denied")


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (through links too), as far as can be told before writing."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one is not there yet
        return os.path.realpath(a) == os.path.realpath(b)


class Records:
    """``--records FILE``: every game record as a line of JSON, written as the chunks come in."""

    def __init__(self, path: str, output: str | None) -> None:
        if output is not None and same_file(path, output):
            raise UsageError(f"--records and --output name the same file: {path}")
        writable(path, "the records")
        self.path = path
        try:
            self.file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed when the run ends
        except OSError as e:
            raise CritterError(f"{path}: cannot write the records: {e.strerror or e}") from None

    def write(self, chunk: list[dict[str, Any]]) -> None:
        from ..report.json import json_text

        try:
            self.file.writelines(json_text(r) + "\n" for r in chunk)
        except OSError as e:
            self.failed(e)

    def close(self) -> None:
        try:
            self.file.close()
        except OSError as e:
            self.failed(e)

    def failed(self, e: OSError) -> None:
        try:
            self.file.close()
        except OSError:
            pass  # what stayed in the buffer is lost with the file
        raise CritterError(f"{self.path}: cannot write the records: {e.strerror or e}") from None

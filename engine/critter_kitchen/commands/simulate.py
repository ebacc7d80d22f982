"""``critter-kitchen simulate``: the balance lab's options and output formats; the lab itself
(its checks of the options, the run, the report) is simulate/'s."""

from __future__ import annotations

import sys

from ..errors import printable
from . import EXIT_USAGE, Choices, format_option, is_unicode_output, pack_option, tell, whole_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any


LAB = "..simulate.cli"  # where the lab's options' limits are defined


def _text(ascii_only: bool) -> Callable[[Any], str]:
    from ..simulate import report

    return lambda r: report.text(r) + "\n"


def _json(ascii_only: bool) -> Callable[[Any], str]:
    from ..report.json import json_text

    return lambda r: json_text(r, indent=2, ascii_only=ascii_only) + "\n"


def _csv(ascii_only: bool) -> Callable[[Any], str]:
    from ..simulate.report import csv_text

    return csv_text


def _html(ascii_only: bool) -> Callable[[Any], str]:
    from ..simulate.html import render_html

    return render_html


# each format: the report as its text, every character the terminal could be driven by
# escaped (in JSON, as JSON escapes: still the same strings); given whether the output
# takes ASCII only
FORMATS: dict[str, Callable[[bool], Callable[[Any], str]]] = {"text": _text, "json": _json, "csv": _csv, "html": _html}


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    sim = commands.add_parser(
        "simulate",
        formatter_class=formatter,
        help="play simulated games and report what each card does to them",
        description="The balance lab: simulated games dealt from the packs' deal model, planned by the meal "
        "planner and scored by the engine; for every card, its stars and the paired effect of removing it, "
        "with 95% intervals.",
    )
    pack_option(sim)
    _run_options(sim)
    _deal_options(sim)
    _output_options(sim)
    sim.set_defaults(run=run)


def _run_options(sim: argparse.ArgumentParser) -> None:
    """How many games, of how many players, from which seed, where."""
    whole_option(
        sim,
        "--games",
        1,
        LAB + ":MAX_GAMES",
        default=None,
        metavar="N",
        help="games to simulate (default: 1000); with --precision, the most to simulate (default: 100000)",
    )
    sim.add_argument(
        "--precision",
        type=_precision,
        default=None,
        metavar="P",
        help="stop once every card's winner-flip interval, and its stars and change intervals over their spread, "
        "are at most ±P wide (a number above 0 and below 1, e.g. 0.02); looked at after 250 games, then each "
        "time the games double, with intervals widened to stay 95%% over every look",
    )
    # the range of --players is the loaded packs': checked when they are (simulate/cli.py)
    sim.add_argument("--players", default="4", metavar="N", help="players in each game (default: 4)")
    whole_option(
        sim,
        "--seed",
        0,
        LAB + ":MAX_SEED",
        default=1,
        metavar="S",
        help="the run's seed: the same seed, the same report (default: 1)",
    )
    where = sim.add_mutually_exclusive_group()
    whole_option(
        where, "--workers", 1, LAB + ":MAX_WORKERS", metavar="N", help="local worker processes (default: every core)"
    )
    where.add_argument("--dask", default=None, metavar="ADDRESS", help="run on this Dask scheduler (the cluster extra)")


def _deal_options(sim: argparse.ArgumentParser) -> None:
    """What the games deal and how their players plan."""
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
        choices=Choices("..simulate.players", "EFFORTS"),
        default="fast",
        help="how hard the simulated players plan: quick (a trimmed pantry), or the planner's fast or exact effort "
        "(default: fast)",
    )


def _output_options(sim: argparse.ArgumentParser) -> None:
    """Where the report and the games' records go, and the report's format."""
    format_option(sim, tuple(FORMATS))
    sim.add_argument("--output", default=None, metavar="FILE", help="write the report to FILE, not standard output")
    sim.add_argument(
        "--records", default=None, metavar="FILE", help="write every simulated game record to FILE (JSON Lines)"
    )


def _precision(value: str) -> float:
    from ..simulate.cli import precision_number

    return precision_number(value)


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..simulate.cli import simulate

    try:
        return simulate(args, sys.stdout, sys.stderr, renderer=_renderer)
    except UsageError as e:
        tell(printable(str(e)))
        return EXIT_USAGE


def _renderer(name: str, to_file: bool) -> Callable[[Any], str]:
    """The report's renderer in format ``name``; ASCII only for a standard output that cannot
    show every character (a file takes any)."""
    return FORMATS[name](not to_file and not is_unicode_output())

"""The faster paths of ``score``: each compared with the plain one it stands for.

- A plain ``score`` command line is read without argparse: the reading equals argparse's
  on generated command lines, and anything else is left to argparse.
"""

from __future__ import annotations

import argparse
import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import cli

# Words a command line may hold: the options of every command, abbreviations and forms that
# only argparse reads, values and games (some that look like options).
WORDS = [
    "score", "validate", "--format", "--form", "--format=json", "json", "text", "html", "--explain",
    "--pack", "--pack=x", "--packs", "-h", "--help", "--version", "--", "-", "-x", "-1", "a.yaml",
    "b.json", "", " ", "-a b", "score", "base", "--whole-packs",
]  # fmt: skip


def _argparse_reading(argv: list[str]) -> dict[str, object] | None:
    """What argparse makes of ``argv``: its namespace, or None where it stops (an error, help)."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(cli.build_parser().parse_args(argv))
        except SystemExit:
            return None


COMMAND_LINES = st.lists(st.sampled_from(WORDS), max_size=7).map(lambda rest: ["score", *rest])


@settings(max_examples=3000, deadline=None)
@given(COMMAND_LINES | st.lists(st.sampled_from(WORDS)))
def test_a_plain_score_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    plain = cli._plain_score_arguments(argv)
    if plain is not None:  # read without argparse: exactly as argparse reads it
        assert vars(plain) == _argparse_reading(argv)


def test_the_plain_reading_takes_the_usual_command_lines() -> None:
    for argv in (
        ["score", "a.yaml"],
        ["score", "-", "--format", "json"],
        ["score", "--pack", "p", "a.yaml", "b.yaml", "--explain", "--pack", "q", "--format", "text"],
    ):
        plain = cli._plain_score_arguments(argv)
        assert plain is not None
        assert vars(plain) == _argparse_reading(argv)
    for argv in (["score"], ["score", "a", "--explain", "b"], ["score", "--form", "json", "a"], ["score", "-h"]):
        assert cli._plain_score_arguments(argv) is None, argv
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)

"""Every option whose choices a domain module defines finds them: the command modules name
the module and the tuple as text, read only when argparse asks (so that a command line that
does not use the option imports nothing for it), which no type checker follows. So do the
ranged whole-number options (``commands.Whole``), refused with one message as they are read."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from critter_kitchen.cli import build_parser, main
from critter_kitchen.commands import Choices, Whole
from critter_kitchen.errors import UsageError
from critter_kitchen.simulate.cli import MAX_GAMES, MAX_SEED, MAX_WORKERS


def every_option() -> Iterator[argparse.Action]:
    """The options of every command (and the command line's own)."""
    parsers = [build_parser()]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            else:
                yield action


def test_every_option_finds_the_choices_its_domain_module_defines() -> None:
    named = [(action.dest, action.choices.values()) for action in every_option() if isinstance(action.choices, Choices)]
    assert {dest for dest, _ in named} == {"effort", "paper"}  # plan's and simulate's; proof's
    for dest, values in named:
        assert values and all(isinstance(v, str) for v in values), dest


def ranged_options() -> dict[str, Whole]:
    """Every option checked by ``commands.Whole``, by its name."""
    return {action.option_strings[0]: action.type for action in every_option() if isinstance(action.type, Whole)}


def test_every_ranged_whole_number_option_is_checked_by_one_type() -> None:
    limits = {"--games": (1, MAX_GAMES), "--seed": (0, MAX_SEED), "--workers": (1, MAX_WORKERS), "--port": (0, 65535)}
    options = ranged_options()
    assert set(options) == set(limits)  # simulate's and serve's
    for option, whole in options.items():
        low, high = limits[option]
        assert (whole.option, whole.low) == (option, low)
        for value, n in ((str(low), low), (str(high), high), (" 7", 7), ("+8", 8)):
            assert whole(value) == n
        for value in (str(low - 1), str(high + 1), "1.0", "ten", ""):
            with pytest.raises(UsageError) as refused:
                whole(value)
            assert str(refused.value) == f"{option}: expected a whole number from {low} to {high}, got {value!r}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "http"], "--port: expected a whole number from 0 to 65535, got 'http'"),
        (["serve", "--port", "-1"], "--port: expected a whole number from 0 to 65535, got '-1'"),
        (["simulate", "--workers", "many"], "--workers: expected a whole number from 1 to 1024, got 'many'"),
    ],
)
def test_a_ranged_option_is_refused_as_it_is_read(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr() == ("", f"critter-kitchen: {message}\n")

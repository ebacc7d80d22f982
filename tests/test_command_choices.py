"""Every option whose choices a domain module defines finds them: the command modules name
the module and the tuple as text, read only when argparse asks (so that a command line that
does not use the option imports nothing for it), which no type checker follows."""

from __future__ import annotations

import argparse

from critter_kitchen.cli import build_parser
from critter_kitchen.commands import Choices


def test_every_option_finds_the_choices_its_domain_module_defines() -> None:
    named = []
    parsers = [build_parser()]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
            elif isinstance(action.choices, Choices):
                named.append((action.dest, action.choices.values()))
    assert {dest for dest, _ in named} == {"effort"}  # plan's and simulate's
    for dest, values in named:
        assert values and all(isinstance(v, str) for v in values), dest

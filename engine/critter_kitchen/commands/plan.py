"""``critter-kitchen plan``: a player's best legal meals from their pantry, as the engine scores them."""

from __future__ import annotations

from ..errors import InputError, Problem, escaped
from . import EXIT_OK, Choices, format_option, json_out, pack_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from ..plan.critic import CriticPlan, Keep
    from ..plan.search import Plan


def _text(plan: Plan | CriticPlan, keep: Keep | None, name: str, many: bool) -> str:
    from ..plan.critic import CriticPlan, critic_text
    from ..plan.output import plan_text

    shown = critic_text(plan) if isinstance(plan, CriticPlan) else plan_text(plan, keep)
    return (f"== {escaped(name)}\n" if many else "") + shown + "\n"


def _json(plan: Plan | CriticPlan, keep: Keep | None, name: str, many: bool) -> str:
    from ..plan.critic import CriticPlan, critic_json
    from ..plan.output import plan_json

    data = critic_json(plan) if isinstance(plan, CriticPlan) else plan_json(plan, keep)
    return (json_out({"source": name, **data}) if many else json_out(data, indent=2)) + "\n"


def _record(plan: Plan | CriticPlan, keep: Keep | None, name: str, many: bool) -> str:
    import yaml

    from ..plan.critic import CriticPlan, critic_record
    from ..plan.output import plan_record

    record = critic_record(plan) if isinstance(plan, CriticPlan) else plan_record(plan)
    return ("# " + escaped(name) + "\n" if many else "") + yaml.safe_dump(record, sort_keys=False)


# each format: the text of one pantry's plan (its name, and whether there are more than one)
FORMATS: dict[str, Callable[[Any, Any, str, bool], str]] = {"text": _text, "json": _json, "record": _record}


def add_parser(commands: Any, formatter: type[argparse.HelpFormatter]) -> None:
    plan = commands.add_parser(
        "plan",
        formatter_class=formatter,
        help="find a player's best legal meals from their pantry",
        description="Plan a challenge round from pantry files (YAML or JSON): the legal meals that earn "
        "the player the most stars as the engine scores them.",
    )
    plan.add_argument("pantries", nargs="+", metavar="PANTRY", help="a pantry file")
    pack_option(plan)
    format_option(plan, tuple(FORMATS))
    plan.add_argument(
        "--effort",
        choices=Choices("..plan.efforts", "EFFORTS"),
        default="exact",
        help="exact: the best plan, proved (default); fast: a good plan quickly, not proved best",
    )
    plan.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Plan every pantry, then print the plans; any bad pantry fails the command and nothing is printed."""
    import sys

    from ..loading.files import load_record
    from ..plan import pantry_ruleset, question
    from ..plan.critic import CriticPlan, plan_critic, plan_keep
    from ..plan.pantry import CRITIC
    from ..plan.search import plan_round

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
    shown = FORMATS[args.format]
    for name, plan in zip(args.pantries, plans, strict=True):
        keep = (
            None if isinstance(plan, CriticPlan) else plan_keep(plan.question, plan.left_ingredients, plan.left_spices)
        )
        sys.stdout.write(shown(plan, keep, name, many))
    return EXIT_OK

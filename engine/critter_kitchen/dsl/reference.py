"""The effect language reference in Markdown, generated from the registry."""

from __future__ import annotations

from . import types as t
from .registry import AGGREGATES, CONSTANTS, FUNCTIONS, OPERATOR_NOTES, OPERATORS, STATEMENTS


def _signature(name: str, params: tuple[tuple[str, str], ...]) -> str:
    if not params:
        return name
    return f"{name}({', '.join(p for p, _ in params)})"


def _note(op: str) -> str:
    return f" ({OPERATOR_NOTES[op]})" if op in OPERATOR_NOTES else ""


def markdown() -> str:
    lines = ["### Statements", "", "| statement | meaning |", "| --- | --- |"]
    lines += [f"| `{s.syntax}` | {s.doc} |" for s in STATEMENTS.values()]
    lines += ["", "### Functions", "", "| function | arguments | gives | meaning |", "| --- | --- | --- | --- |"]
    for f in FUNCTIONS.values():
        args = ", ".join(f"{p}: {t.describe(typ)}" for p, typ in f.params) or "none"
        extra = " Only on cards a player owns." if f.needs_owner else ""
        lines.append(f"| `{_signature(f.name, f.params)}` | {args} | {t.describe(f.returns)} | {f.doc}.{extra} |")
    lines += [
        "",
        "### Aggregates",
        "",
        "Written `name(EXPR for NAME in LIST)` or `name(EXPR for NAME in LIST if CONDITION)`; all but "
        "`highest` and `lowest` also take a plain list, as in `count(served(p))`.",
        "",
        "| aggregate | each item gives | meaning |",
        "| --- | --- | --- |",
    ]
    lines += [f"| `{a.name}` | {t.describe(a.element)} | {a.doc} |" for a in AGGREGATES.values()]
    lines += ["", "### Constants", "", "| name | meaning |", "| --- | --- |"]
    lines += [f"| `{name}` | {doc} |" for name, (_, _, doc) in CONSTANTS.items()]
    lines += ["", "### Operators", "", "| operator | meaning |", "| --- | --- |"]
    lines += [f"| `{op}` | {word}{_note(op)} |" for op, word in OPERATORS.items()]
    return "\n".join(lines) + "\n"


def error_codes(examples: dict[str, str]) -> str:
    """The table of problem codes, with an example message for each."""
    from ..errors import CODES

    lines = ["| code | meaning | example |", "| --- | --- | --- |"]
    lines += [f"| `{code}` | {meaning} | {examples.get(code, '')} |" for code, meaning in CODES.items()]
    return "\n".join(lines) + "\n"

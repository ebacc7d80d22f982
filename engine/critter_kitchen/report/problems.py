"""The problems `validate` found, for people, for programs and for CI: one reporter per format.

A reporter takes the problems (sorted, without repeats) and the number of inputs checked,
and returns what goes to standard output and what goes to standard error; the CLI prints
them. In every format a problem is one line, its input-derived text escaped (no raw line
break, carriage return or escape sequence gets through) and its message at most
``errors.MAX_MESSAGE`` characters.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Problem, escaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Reporter = Callable[[Sequence[Problem], int], "Report"]


@dataclass(frozen=True, slots=True)
class Report:
    """What a reporter made: the text for standard output and for standard error."""

    out: str = ""
    err: str = ""


def text_report(problems: Sequence[Problem], checked: int) -> Report:
    """``path:line:col: CODE message`` lines (with their excerpts) on standard error, or ``ok``."""
    if not problems:
        return Report(out=f"ok: {checked} checked, no problems\n")
    return Report(err="".join(p.format(with_code=True) + "\n" for p in problems))


def json_report(problems: Sequence[Problem], checked: int) -> Report:
    """A JSON list of ``{path, line, column, code, message}``.

    The path is kept exact, for programs to open the file: JSON escapes its control
    characters (``json_text``), so it is still safe to print. The message is for people:
    escaped and cut like everywhere.
    """
    from .json import json_text

    rows = [
        {"path": p.path, "line": p.line, "column": p.column, "code": p.code, "message": p.full_message()}
        for p in problems
    ]
    return Report(out=json_text(rows, indent=2) + "\n")


def github_report(problems: Sequence[Problem], checked: int) -> Report:
    """GitHub Actions workflow commands: one ``::error file=...,line=...,col=...::`` line each."""
    return Report(out="".join(github_line(p) + "\n" for p in problems))


def github_line(p: Problem) -> str:
    # The file name is escaped like any shown text first (so a line break or ESC in it is
    # not passed on, even decoded), then by the workflow-command rules, which GitHub undoes.
    where = f"file={github_property(escaped(p.path))},line={max(p.line, 1)},col={max(p.column, 1)}"
    return f"::error {where}::{github_data(f'{p.code} {p.full_message()}')}"


def github_data(text: str) -> str:
    """``text`` as the message of a workflow command (actions/toolkit ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """``text`` as a property value of a workflow command (actions/toolkit ``escapeProperty``)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


REPORTER_BY_NAME: dict[str, Reporter] = {"text": text_report, "json": json_report, "github": github_report}

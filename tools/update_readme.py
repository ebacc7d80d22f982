"""Rewrite the generated parts of README.md (DSL reference, error codes) from the registry.

Run after changing the DSL registry or the error codes; tests/test_readme.py fails while
the README is stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from critter_kitchen.dsl.reference import error_codes, markdown

README = Path(__file__).resolve().parent.parent / "README.md"
SECTIONS = {"dsl-reference": markdown, "error-codes": error_codes}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- begin {name} -->\n).*?(<!-- end {name} -->)", re.S)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(2), text)
    return text


if __name__ == "__main__":
    old = README.read_text("utf-8")
    new = render(old)
    if "--check" in sys.argv:
        sys.exit(0 if new == old else "README.md is stale: run python tools/update_readme.py")
    README.write_text(new, "utf-8")

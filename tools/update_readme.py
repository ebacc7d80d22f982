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
# One real message per problem code; tests/test_readme.py finds each in the error corpora.
EXAMPLES = {
    "CK001": "file is not UTF-8 text",
    "CK002": "YAML syntax error: did not find expected ',' or ']'",
    "CK003": "duplicate key 'name' (first at line 3)",
    "CK004": "unsupported YAML tag '!!python/name:os.system'",
    "CK005": "more than 200000 values (alias expansion?)",
    "CK101": "unknown key 'effect'; did you mean 'effects'?",
    "CK102": "unknown card kind 'critc'; did you mean 'critic'?",
    "CK103": "duplicate card id 'fish-fanatic' (also in cards/base/rumors/fish-fanatic.yaml:1)",
    "CK104": "pack 'broken-requires' requires pack 'a-la-carte', which is not loaded; load it first with --pack",
    "CK105": "'$ref' leads outside the pack: 'http://127.0.0.1:9/card.json'",
    "CK106": "unsupported regular expression '^(?!x)': invalid perl operator: (?! "
    "(pack schemas use RE2 syntax: no backreferences or lookaround)",
    "CK201": "unknown statement 'awrd'; did you mean 'award'?",
    "CK202": "unknown function 'qualty'; did you mean 'quality'?",
    "CK203": "expected a player, got a list of players",
    "CK204": "unknown stage 'critic.best_courses'; did you mean 'critic.best_course'?",
    "CK205": "stage 'critic.most_soup' is also replaced by card 'soup-a', and both can be in play",
    "CK206": "unknown parameter 'spice_factr'; did you mean 'spice_factor'?",
    "CK207": "unknown card 'fish-fanatik'; did you mean 'fish-fanatic'?",
    "CK208": (
        "'best' already names a value of an enclosing block (line 7); "
        "a 'let' here would not change it there: choose another name"
    ),
    "CK209": (
        "quality(_, mushroom) after stage 'critic.rumors' is also set by card 'flat-menu', and both can be in play"
    ),
    "CK301": "unknown critic card 'no-such-critic'",
    "CK302": "no required ingredient, only soup",
    "CK303": "soup cannot fill a critic course",
}

SECTIONS = {"dsl-reference": markdown, "error-codes": lambda: error_codes(EXAMPLES)}


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

"""The README's generated sections match the registry; its examples run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_generated_sections_are_current():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "update_readme.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_every_registry_entry_is_documented():
    from critter_kitchen.dsl.registry import AGGREGATES, FUNCTIONS, STATEMENTS

    text = (ROOT / "README.md").read_text("utf-8")
    for name in [*FUNCTIONS, *AGGREGATES, *STATEMENTS]:
        assert f"`{name}" in text, name


def test_every_problem_code_has_a_real_example():
    from critter_kitchen.errors import CODES

    sys.path.insert(0, str(ROOT / "tools"))
    from update_readme import EXAMPLES

    assert set(EXAMPLES) == set(CODES)
    corpus = "".join(p.read_text("utf-8") for p in (ROOT / "tests").rglob("*.expected"))
    for code, example in EXAMPLES.items():
        assert example in corpus, code
    validate_corpus = "".join(
        p.read_text("utf-8") for p in (ROOT / "tests").rglob("*.expected") if "records" not in p.relative_to(ROOT).parts
    )
    for code in CODES:
        if not code.startswith("CK3"):  # record problems are shown by `score`, which prints no codes
            assert f" {code} " in validate_corpus, code

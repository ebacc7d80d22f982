"""Worst cases of a pack schema's patterns and lists: Python's engine and jsonschema against the engine's own.

    python tools/bench_patterns.py

Prints seconds for the catastrophic pattern ``^(a+)+$`` against ``"a" * n + "!"`` under
Python's ``re`` (each extra ``a`` doubles the time) and under RE2, which the engine uses
for the patterns of packs' own schemas, and for ``uniqueItems`` over a list of mappings
under jsonschema (every pair compared) and under the engine (hashing).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from critter_kitchen.loading import packschema  # noqa: E402

PATTERN = "^(a+)+$"


def seconds(run: object) -> float:
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    print(f"pattern {PATTERN!r} against 'a' * n + '!'")
    last = 0.0
    for n in (16, 18, 20, 22, 24):
        text = "a" * n + "!"
        last = seconds(lambda text=text: re.search(PATTERN, text))
        print(f"  re   n={n:>7}: {last:10.4f} s")
    print(f"  re   n=     40: about {last * 2 ** (40 - 24) / 3600:.0f} hours (extrapolated: doubling per 'a')")
    compiled = packschema._regex(PATTERN)
    for n in (24, 40, 10_000, 1_000_000):
        text = "a" * n + "!"
        print(f"  re2  n={n:>7}: {seconds(lambda text=text: compiled.search(text)):10.6f} s")

    from jsonschema import Draft202012Validator

    print("uniqueItems over n distinct mappings")
    stock = Draft202012Validator({"uniqueItems": True})
    safe = packschema._safe_class()({"uniqueItems": True})
    for n in (500, 1000, 2000):
        items = [{"n": i} for i in range(n)]
        a = seconds(lambda items=items: list(stock.iter_errors(items)))
        b = seconds(lambda items=items: list(safe.iter_errors(items)))
        print(f"  n={n:>5}: jsonschema {a:8.3f} s, engine {b:8.5f} s")


if __name__ == "__main__":
    main()

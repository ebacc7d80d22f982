"""Fuzz the score pad's JSON API from its OpenAPI description (schemathesis): no answer may be a 500.

    python tools/fuzz_serve.py [--examples 500] [--seed N]

Valid and invalid requests for every operation, drawn from ``/openapi.json`` (the record
schema included), against the app in this process on an empty database holding one game.
The test suite runs a short version of this (tests/test_serve_api.py); prints each
operation's answers by status, and exits 1 if any was a server error.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path
from typing import Any

import schemathesis
import yaml
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from critter_kitchen.web.app import Settings, create_app

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="requests per operation and mode")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(db=str(Path(folder) / "fuzz.sqlite3")))
        record = yaml.safe_load((ROOT / "tests" / "golden" / "two-players.yaml").read_text(encoding="utf-8"))
        TestClient(app).post("/api/games", json=record)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        answers: collections.Counter[tuple[str, int]] = collections.Counter()
        errors: list[str] = []
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            for operation in schema.get_all_operations():
                op = operation.ok()

                @seed(args.seed)
                @settings(
                    max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck), database=None
                )
                @given(case=op.as_strategy(generation_mode=mode))
                def check(case: Any) -> None:
                    response = case.call()
                    answers[(case.operation.label, response.status_code)] += 1
                    if response.status_code >= 500:
                        errors.append(f"{case.operation.label}: {response.status_code} {response.text[:300]}")

                try:
                    check()
                except Unsatisfiable:  # no invalid request exists for an operation without parameters
                    pass
    for (label, status), count in sorted(answers.items()):
        print(f"{label:32} {status}: {count}")
    for error in errors[:20]:
        print("server error:", error)
    print(f"{sum(answers.values())} requests, {len(errors)} server errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

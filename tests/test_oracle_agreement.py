"""Random legal base games score the same in the engine and in the independent oracle."""

from __future__ import annotations

import json

import gen
import oracle
from hypothesis import given, settings

from critter_kitchen import result_json, score_record


def stage_stars(result: dict) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {s["name"]: {} for s in result["standings"]}
    for a in result["awards"]:
        out[a["player"]][a["stage"]] = out[a["player"]].get(a["stage"], 0) + a["stars"]
    return out


@settings(max_examples=300, deadline=None)
@given(gen.games())
def test_engine_agrees_with_oracle(base, record):
    expected = oracle.score_record(record, gen.challenge_requirements())
    got = result_json(score_record(json.loads(json.dumps(record)), base))
    assert got["winner"] == expected["winner"]
    assert got["standings"] == expected["standings"]
    assert stage_stars(got) == expected["stage_stars"]

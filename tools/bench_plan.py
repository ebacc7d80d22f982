"""Planner speed and soundness on random challenge-round pantries.

    python tools/bench_plan.py [--pantries 50] [--sizes 4,6,8] [--pack a-la-carte] [--critic]

For each pantry size (ingredients, spices and tokens together), random pantries for three
random challenge cards of the rules in play: the time of each exact plan (median, p95,
p99), how many searches hit the node limit (not proved optimal), and how many returned
plans the engine refuses when they are written into a game record (the goal is 0).
With ``--critic``: critic-meal pantries (a random critic and three rumors in play, that
many ingredients of the course types, three spices, two soup and a bisque). The
machine is shared and noisy: compare figures within one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from critter_kitchen import InputError, load_ruleset, score_record
from critter_kitchen.api import packs_for
from critter_kitchen.plan import question
from critter_kitchen.plan.critic import plan_critic
from critter_kitchen.plan.output import plan_record
from critter_kitchen.plan.search import plan_round


def random_pantry(rng: random.Random, ruleset: Any, size: int) -> dict[str, Any]:
    challenges = [c.id for c in ruleset.cards.values() if c.kind == "challenge"]
    cards = rng.sample(challenges, 6)
    kinds = sorted({k for c in cards[:3] for k in ruleset.cards[c].requires})
    wild = ruleset.base_params()["wild_spice"]
    items: dict[str, Any] = {"ingredients": [], "spices": [], "soup": 0, "bisque": 0}
    for _ in range(size):
        roll = rng.random()
        if roll < 0.7:
            items["ingredients"].append({"type": rng.choice(kinds), "value": rng.randint(1, 8)})
        elif roll < 0.85:
            items["spices"].append(rng.choice([*kinds, wild]))
        else:
            items[rng.choice(["soup", "bisque"])] += 1
    return {
        "for": "round3",
        "cards": {"challenges": {"round3": cards[:3]}},
        "player": {"name": "Ana"},
        "pantry": items,
        "_round6": cards[3:],
    }


def critic_pantry(rng: random.Random, ruleset: Any, size: int) -> dict[str, Any]:
    def ids(kind: str) -> list[str]:
        return sorted(c.id for c in ruleset.cards.values() if c.kind == kind)

    params = ruleset.base_params()
    kinds = list(params["course_types"])
    ingredients = [{"type": rng.choice(kinds), "value": rng.randint(1, 9)} for _ in range(size)]
    return {
        "for": "critic",
        "cards": {"critic": rng.choice(ids("critic")), "rumors": rng.sample(ids("rumor"), 3)},
        "player": {"name": "Ana"},
        "pantry": {
            "ingredients": ingredients,
            "spices": [rng.choice([*kinds, params["wild_spice"]]) for _ in range(3)],
            "soup": 2,
            "bisque": 1,
        },
    }


def bench_critic(ruleset: Any, sizes: list[int], pantries: int) -> None:
    rng = random.Random(17)
    for size in sizes:
        times, cut = [], 0
        for _ in range(pantries):
            asked = question(critic_pantry(rng, ruleset, size), ruleset)
            start = time.perf_counter()
            plan = plan_critic(asked)
            times.append(time.perf_counter() - start)
            cut += not plan.optimal
        q = statistics.quantiles(times, n=100)
        print(
            f"critic, {size:2d} ingredients: median {statistics.median(times) * 1e3:8.1f} ms  "
            f"p95 {q[94] * 1e3:8.1f} ms  not proved optimal {cut}/{pantries}"
        )


def is_refused(pantry: dict[str, Any], meals: dict[str, Any], ruleset: Any) -> bool:
    record = {
        "players": [{"name": "Ana"}, {"name": "Bo"}],
        "cards": {"challenges": {"round3": pantry["cards"]["challenges"]["round3"], "round6": pantry["_round6"]}},
        "challenge_meals": {"round3": {"Ana": meals}},
    }
    try:
        score_record(record, ruleset)
    except InputError:
        return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pantries", type=int, default=50)
    parser.add_argument("--sizes", default="4,6,8")
    parser.add_argument("--pack", action="append", default=[])
    parser.add_argument("--critic", action="store_true", help="plan critic meals instead of challenge rounds")
    args = parser.parse_args()
    ruleset = load_ruleset(packs_for({}, args.pack))
    if args.critic:
        bench_critic(ruleset, [int(s) for s in args.sizes.split(",")], args.pantries)
        return
    rng = random.Random(13)
    for size in (int(s) for s in args.sizes.split(",")):
        times, cut, refused = [], 0, 0
        for _ in range(args.pantries):
            pantry = random_pantry(rng, ruleset, size)
            data = {k: v for k, v in pantry.items() if not k.startswith("_")}
            start = time.perf_counter()
            plan = plan_round(question(data, ruleset))
            times.append(time.perf_counter() - start)
            cut += not plan.optimal
            refused += is_refused(pantry, plan_record(plan)["challenge_meals"]["round3"]["Ana"], ruleset)
        q = statistics.quantiles(times, n=100)
        print(
            f"{size:2d} items: median {statistics.median(times) * 1e3:8.1f} ms  p95 {q[94] * 1e3:8.1f} ms  "
            f"p99 {q[98] * 1e3:8.1f} ms  not proved optimal {cut}/{args.pantries}  refused by the engine {refused}"
        )


if __name__ == "__main__":
    main()

"""Planner speed and soundness on random challenge-round pantries.

    python tools/bench_plan.py [--pantries 20] [--sizes 4,8,12,16,20] [--critic-sizes 5,7]
        [--fast-pantries 1000] [--fast-sizes 4,6,8,10] [--pack a-la-carte] [--only exact|critic|fast|fast-lab] [--plain]
        [--cpu]

For each pantry size (ingredients, spices and tokens together), random pantries for three
random challenge cards of the rules in play: the time of each exact plan (median, p95,
p99), how many searches hit the node limit (not proved optimal), and how many returned
plans the engine refuses when they are written into a game record (the goal is 0).
Critic-meal pantries: a random critic and three rumors in play, that many ingredients of
the course types, three spices, two soup and a bisque. The fast effort: on random
pantries, its time per plan and its loss in stars against the exact plan of the same
pantry; then the same pantries at tables that also hold a critic, three rumors and the
player's restaurateur, as in the balance lab (figures apart for the tables whose cards
make stars not add up, where the fast effort bounds its search). Last, the issue's table:
each figure, its goal, pass or FAIL. The machine is shared and noisy: compare figures
within one run. ``--cpu`` times the exact plans by the process's CPU time rather than the
clock on the wall: on a loaded machine, nearer what a quiet one measures (the goals are
wall-clock figures).
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


def random_cards(rng: random.Random, ruleset: Any) -> list[str]:
    """Six distinct challenge cards: round 3's three, then round 6's."""
    return rng.sample([c.id for c in ruleset.cards.values() if c.kind == "challenge"], 6)


def random_pantry(rng: random.Random, ruleset: Any, size: int, cards: list[str] | None = None) -> dict[str, Any]:
    cards = cards or random_cards(rng, ruleset)
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


def lab_table(rng: random.Random, ruleset: Any) -> dict[str, Any]:
    """The other cards of a balance-lab table: a critic, three rumors, a restaurateur per player."""

    def ids(kind: str) -> list[str]:
        return sorted(c.id for c in ruleset.cards.values() if c.kind == kind)

    return {"critic": rng.choice(ids("critic")), "rumors": rng.sample(ids("rumor"), 3), "held": ids("restaurateur")}


def at_lab_table(rng: random.Random, pantry: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """``pantry`` planned at ``table`` (see lab_table), the player holding a restaurateur drawn at random."""
    cards = {**pantry["cards"], "critic": table["critic"], "rumors": table["rumors"]}
    return {**pantry, "cards": cards, "player": {"name": "Ana", "restaurateur": rng.choice(table["held"])}}


def is_refused(pantry: dict[str, Any], meals: dict[str, Any], ruleset: Any) -> bool:
    cards = {k: v for k, v in pantry["cards"].items() if k != "challenges"}
    record = {
        "players": [pantry["player"], {"name": "Bo"}],
        "cards": {
            **cards,
            "challenges": {"round3": pantry["cards"]["challenges"]["round3"], "round6": pantry["_round6"]},
        },
        "challenge_meals": {"round3": {"Ana": meals}},
    }
    try:
        score_record(record, ruleset)
    except InputError:
        return True
    return False


GOALS = {
    "exact_p95": 0.050,
    "exact_p99": 0.200,
    "critic_p95": 0.050,
    "fast_median": 0.001,
    "fast_loss": 0.05,
}


def verdict(ok: bool) -> str:
    return "pass" if ok else "FAIL"


def quantile(times: list[float], at: int) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[at - 1] if len(times) > 1 else times[0]


def plain_listing(asked: Any) -> None:
    """The exact plan with every legal meal of each card listed (no listing by steps): the baseline."""
    from critter_kitchen.plan.exact import FastSearch
    from critter_kitchen.plan.plans import NODE_LIMIT

    search = FastSearch(asked, NODE_LIMIT)
    _, chosen = search.run()
    search.scorer.stars(tuple(o.meal for o in chosen), search.work)


def bench_rounds(
    ruleset: Any, sizes: list[int], pantries: int, plain: bool = False, clock: Any = time.perf_counter
) -> tuple[list[float], int, int]:
    """Exact challenge-round plans by pantry size: times, searches cut short, plans refused.

    ``plain``: each pantry is planned with the plain listing first (the baseline), each plan
    from an empty memory of tables, and the ratio of the two times is printed. ``clock``: what
    the times are read from.
    """
    from critter_kitchen.plan.exact import CONTEXTS

    rng = random.Random(13)
    everything: list[float] = []
    cut_all = refused_all = 0
    for size in sizes:
        times, cut, refused = [], 0, 0
        baseline: list[float] = []
        for _ in range(pantries):
            pantry = random_pantry(rng, ruleset, size)
            data = {k: v for k, v in pantry.items() if not k.startswith("_")}
            asked = question(data, ruleset)
            if plain:
                CONTEXTS.clear()
                start = clock()
                plain_listing(asked)
                baseline.append(clock() - start)
                CONTEXTS.clear()
            start = clock()
            plan = plan_round(asked)
            times.append(clock() - start)
            cut += not plan.optimal
            refused += is_refused(pantry, plan_record(plan)["challenge_meals"]["round3"]["Ana"], ruleset)
        print(
            f"exact, {size:2d} items: median {statistics.median(times) * 1e3:8.1f} ms  "
            f"p95 {quantile(times, 95) * 1e3:8.1f} ms  p99 {quantile(times, 99) * 1e3:8.1f} ms  "
            f"not proved optimal {cut}/{pantries}  refused by the engine {refused}",
            flush=True,
        )
        if plain:
            print(
                f"   plain listing: median {statistics.median(baseline) * 1e3:8.1f} ms  "
                f"p95 {quantile(baseline, 95) * 1e3:8.1f} ms  p99 {quantile(baseline, 99) * 1e3:8.1f} ms  "
                f"ratio plain/steps: median {statistics.median(baseline) / statistics.median(times):.1f}  "
                f"p95 {quantile(baseline, 95) / quantile(times, 95):.1f}  "
                f"total {sum(baseline) / sum(times):.1f}",
                flush=True,
            )
        everything += times
        cut_all += cut
        refused_all += refused
    return everything, cut_all, refused_all


def bench_fast(
    ruleset: Any, pantries: int, sizes: list[int], tables: int, lab: bool = False
) -> tuple[float, float, float, int]:
    """The fast effort against exact on random pantries at ``tables`` random tables (a simulation
    plans many decisions at one table): median time, mean and worst loss, plans refused. ``lab``:
    the tables also hold a critic, three rumors and the player's restaurateur, as the balance
    lab's do; many of those make stars not add up, and the figures at those tables are printed too.

    Exact plans every pantry first (timed too); then, with each table's memory of check_meal's
    verdicts (by meal and by counts), of the stars of meals served alone and of the stars of
    whole plans emptied, so that the fast effort reuses nothing the exact one worked out, the
    fast effort plans them again.
    """
    from critter_kitchen.plan.exact import CONTEXTS, context

    rng = random.Random(29)
    at = [random_cards(rng, ruleset) for _ in range(tables)]
    others = [lab_table(random.Random(31 + t), ruleset) for t in range(tables)]  # the pantries stay those of before
    asked = []
    for i in range(pantries):
        pantry = random_pantry(rng, ruleset, sizes[i % len(sizes)], at[i % tables])
        if lab:
            pantry = at_lab_table(random.Random(i), pantry, others[i % tables])
        asked.append((pantry, question({k: v for k, v in pantry.items() if not k.startswith("_")}, ruleset)))
    apart = [not context(one).separable for _, one in asked]
    exact_times, exact_stars = [], []
    for _, one in asked:
        start = time.perf_counter()
        exact_stars.append(plan_round(one).stars)
        exact_times.append(time.perf_counter() - start)
    for table in CONTEXTS.values():
        table.checks.clear()
        table.legal.clear()  # nor its verdicts by counts
        table.single.clear()  # nor the stars of meals served alone: in the lab, most decisions are new tables
        table.scorer.cache.clear()  # nor the stars of the plans exact scored
    times, losses, refused = [], [], 0
    for (pantry, one), best in zip(asked, exact_stars, strict=True):
        start = time.perf_counter()
        quick = plan_round(one, effort="fast")
        times.append(time.perf_counter() - start)
        losses.append(best - quick.stars)
        refused += is_refused(pantry, plan_record(quick)["challenge_meals"]["round3"]["Ana"], ruleset)
    where = "lab tables (critic, rumors, restaurateur)" if lab else "tables"
    if lab:
        lost = [x for x, no in zip(losses, apart, strict=True) if no]
        took = [x for x, no in zip(times, apart, strict=True) if no]
        if lost:
            print(
                f"fast, of which at tables whose stars do not add up: {len(lost)} pantries, median "
                f"{statistics.median(took) * 1e3:.2f} ms, p95 {quantile(took, 95) * 1e3:.2f} ms, mean loss "
                f"{statistics.fmean(lost):.3f} stars, worst {max(lost)}, plans losing {sum(x > 0 for x in lost)}",
                flush=True,
            )
    print(
        f"fast, {pantries} pantries of {','.join(map(str, sizes))} items at {tables} {where}: "
        f"median {statistics.median(times) * 1e3:.2f} ms (exact {statistics.median(exact_times) * 1e3:.2f} ms, "
        f"ratio {statistics.median(exact_times) / statistics.median(times):.1f})  mean loss "
        f"{statistics.fmean(losses):.3f} stars  worst {max(losses)}  plans losing {sum(x > 0 for x in losses)}  "
        f"refused by the engine {refused}",
        flush=True,
    )
    return statistics.median(times), statistics.fmean(losses), max(losses), refused


def bench_critic(ruleset: Any, sizes: list[int], pantries: int) -> list[float]:
    rng = random.Random(17)
    everything: list[float] = []
    for size in sizes:
        times, cut = [], 0
        for _ in range(pantries):
            asked = question(critic_pantry(rng, ruleset, size), ruleset)
            start = time.perf_counter()
            plan = plan_critic(asked)
            times.append(time.perf_counter() - start)
            cut += not plan.optimal
        print(
            f"critic, {size:2d} ingredients: median {statistics.median(times) * 1e3:8.1f} ms  "
            f"p95 {quantile(times, 95) * 1e3:8.1f} ms  not proved optimal {cut}/{pantries}",
            flush=True,
        )
        everything += times
    return everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pantries", type=int, default=20, help="pantries per size (exact and critic)")
    parser.add_argument("--sizes", default="4,8,12,16,20", help="challenge-round pantry sizes (items)")
    parser.add_argument("--critic-sizes", default="5,7")
    parser.add_argument("--fast-pantries", type=int, default=1000)
    parser.add_argument("--fast-sizes", default="4,6,8,10", help="pantry sizes for the fast effort (exact must finish)")
    parser.add_argument("--tables", type=int, default=50, help="tables (card sets) the fast pantries are planned at")
    parser.add_argument("--pack", action="append", default=[])
    parser.add_argument(
        "--only", choices=["exact", "critic", "fast", "fast-lab"], action="append", help="run only these parts"
    )
    parser.add_argument(
        "--plain", action="store_true", help="time the exact plans with every legal meal listed too (the baseline)"
    )
    parser.add_argument("--cpu", action="store_true", help="time the exact plans by CPU time (a loaded machine)")
    args = parser.parse_args()
    ruleset = load_ruleset(packs_for({}, args.pack))
    parts = args.only or ["exact", "critic", "fast", "fast-lab"]
    table: list[tuple[str, str, str, str]] = []
    refused = 0
    if "exact" in parts:
        sizes = [int(s) for s in args.sizes.split(",")]
        clock = time.process_time if args.cpu else time.perf_counter
        times, cut, bad = bench_rounds(ruleset, sizes, args.pantries, args.plain, clock)
        refused += bad
        p95, p99 = quantile(times, 95), quantile(times, 99)
        ok = p95 <= GOALS["exact_p95"] and p99 <= GOALS["exact_p99"]
        table.append(
            (
                f"exact plan, a challenge round, pantries of {min(sizes)}-{max(sizes)} items, 3 cards"
                + (" (CPU time)" if args.cpu else ""),
                f"p95 {p95 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms ({cut} not proved optimal)",
                "p95 <= 50 ms, p99 <= 200 ms",
                verdict(ok and cut == 0),
            )
        )
    if "critic" in parts:
        times = bench_critic(ruleset, [int(s) for s in args.critic_sizes.split(",")], args.pantries)
        p95 = quantile(times, 95)
        table.append(
            (
                "exact plan, the critic meal",
                f"p95 {p95 * 1e3:.1f} ms",
                "p95 <= 50 ms",
                verdict(p95 <= GOALS["critic_p95"]),
            )
        )
    if "fast" in parts:
        sizes = [int(s) for s in args.fast_sizes.split(",")]
        median, loss, _, bad = bench_fast(ruleset, args.fast_pantries, sizes, args.tables)
        refused += bad
        ok = median <= GOALS["fast_median"] and loss <= GOALS["fast_loss"]
        table.append(
            (
                "fast mode, one decision",
                f"median {median * 1e3:.2f} ms, mean loss {loss:.3f} stars",
                "<= 1 ms median; mean loss <= 0.05 stars",
                verdict(ok),
            )
        )
    if "fast-lab" in parts:
        sizes = [int(s) for s in args.fast_sizes.split(",")]
        median, loss, _, bad = bench_fast(ruleset, args.fast_pantries, sizes, args.tables, lab=True)
        refused += bad
        table.append(
            (
                "fast mode, one decision, at tables with a critic, rumors and a restaurateur",
                f"median {median * 1e3:.2f} ms, mean loss {loss:.3f} stars",
                "<= 1 ms median; mean loss <= 0.05 stars",
                verdict(median <= GOALS["fast_median"] and loss <= GOALS["fast_loss"]),
            )
        )
    table.append(("plans the engine finds illegal, every pantry above", str(refused), "0", verdict(refused == 0)))
    print()
    print("| figure | measured | goal | |")
    print("| --- | --- | --- | --- |")
    for row in table:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

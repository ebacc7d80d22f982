"""The costliest valid cards one can write, each timed on one game against a normal full game.

    python tools/bench_worst_card.py [--repeat 3]

Each card is a rumor in a one-card pack that loads cleanly (it stays within every
load-time limit: effect text of 20,000 characters, nesting of 40 levels), put in play in
a 5-player golden game. A card is either scored or refused by the work budget of one game
(``dsl/budget.py``); both must take well under a second. The figures also show the work
of the golden games and of random games from ``tests/gen.py``, the ones the budget must
leave far behind. The machine is shared and noisy: compare the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))
MAX_TEXT = 20_000  # the schema's cap on one effect's text
RANDOM_GAMES = 100  # random games from tests/gen.py whose work is measured


def nested(depth: int, source: str, body: list[str]) -> str:
    """``depth`` nested loops over ``source`` around ``body``, inside a binding of ``p`` to the first player.

    Blocks are indented by one space, so that the most statements fit in the text cap.
    """
    head = ["for p in players:", " if priority(p) == 1:"]
    lines = ["  " + " " * i + f"for v{i} in {source}:" for i in range(depth)]
    pad = "  " + " " * depth
    return "\n".join([*head, *lines, *(pad + line for line in body)])


def fill(depth: int, source: str, statement: str) -> str:
    """``depth`` nested loops whose innermost block repeats ``statement`` up to the text cap."""
    body: list[str] = []
    while len(nested(depth, source, [*body, *statement.split("\n")])) < MAX_TEXT:
        body.extend(statement.split("\n"))
    return nested(depth, source, body)


def worst_cards() -> dict[str, str]:
    big_sum = "sum(sum(sum(quality(p, t) for t in ingredient_types) for q in players) for r in players)"
    return {
        "six loops, many statements": fill(6, "ingredient_types", "let x = quality(p, v5) + value(p, v4) * 2"),
        "six loops, many awards": fill(6, "ingredient_types", 'award 1 star to players for "{v5} and {v4}"'),
        "six loops, one statement": nested(6, "ingredient_types", ["let x = 1"]),
        "big aggregates": fill(1, "players", f"let x = {big_sum}"),
        "in_play in if chains": fill(4, "ingredient_types", 'if in_play("probe") and spiced(p, v3):\n let x = 1'),
        "reasons showing lists": fill(2, "players", 'award 1 star to p for "{players} {ingredient_types}"'),
    }


def rumor(body: str) -> str:
    text = "".join("      " + line + "\n" for line in body.split("\n"))
    return f"id: probe\nkind: rumor\nname: Probe\neffects:\n  - after: critic.rumors\n    do: |\n{text}"


def time_one(fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def work_of(record: dict, rules: object) -> tuple[int, int]:
    """The work units and awards one game took."""
    from critter_kitchen.loading.records import read_record
    from critter_kitchen.stages.runner import score_game

    game = read_record(rules, record, "<record>")  # type: ignore[arg-type]
    score_game(game)
    return game.steps, len(game.awards)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("CRITTER_KITCHEN_CACHE", "off")

    import yaml

    from critter_kitchen import CritterError, load_ruleset, score_record
    from critter_kitchen.dsl import budget as limits

    base = load_ruleset()
    golden = yaml.safe_load((ROOT / "tests" / "golden" / "five-players.yaml").read_text("utf-8"))
    normal = time_one(lambda: score_record(golden, base), max(args.repeat, 20))
    budget = limits.STEP_BUDGET
    print(f"work budget per game: {budget:,}; awards per game: {limits.MAX_AWARDS:,}")
    print(f"normal full game (tests/golden/five-players.yaml): {normal * 1e6:,.0f} us, "
          f"work {work_of(golden, base)[0]:,}")  # fmt: skip
    print()
    print(f"{'card':32} {'text':>6} {'time':>10} {'x normal':>10}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in worst_cards().items():
            pack = Path(tmp) / name.replace(" ", "-").replace(",", "")
            pack.mkdir()
            (pack / "pack.yaml").write_text(f"id: {pack.name}\nname: Worst card\n", "utf-8")
            effect = body
            (pack / "probe.yaml").write_text(rumor(effect), "utf-8")
            try:
                rules = load_ruleset([str(pack)])
            except CritterError as e:
                print(f"{name:32} refused at load: {str(e).splitlines()[0][:120]}")
                continue
            record = json.loads(json.dumps(golden))
            record["cards"]["rumors"] = ["probe"]
            outcome: list[str] = []

            def score_it(rules: object = rules, record: dict = record, outcome: list[str] = outcome) -> None:
                outcome.clear()
                try:
                    result = score_record(record, rules)  # type: ignore[arg-type]
                    outcome.append(f"scored, {len(result.awards):,} awards")
                except (CritterError, MemoryError) as e:
                    outcome.append(f"refused: {type(e).__name__}: {str(e)[-110:]}")

            seconds = time_one(score_it, args.repeat)
            print(f"{name:32} {len(effect):6,} {seconds * 1e3:8,.1f} ms {seconds / normal:10,.0f}  {outcome[0]}")
    print()
    real_work()


def real_work() -> None:
    """The largest work and award counts among the golden games and random games."""
    import yaml
    from bench import sample
    from regen_golden import pack_args

    from critter_kitchen import load_ruleset

    rows = []
    for record_path in sorted((ROOT / "tests" / "golden").rglob("*.yaml")):
        packs = [a for a in pack_args(record_path) if a != "--pack"]
        rules = load_ruleset([str(ROOT / p) for p in packs])
        record = yaml.safe_load(record_path.read_text("utf-8"))
        rows.append((record_path.relative_to(ROOT).as_posix(), *work_of(record, rules)))
    base = load_ruleset()
    for strategy in ("games", "full_games"):
        records = sample(strategy, RANDOM_GAMES, 5)
        works = [work_of(r, base) for r in records]
        name = f"{RANDOM_GAMES} random 5-player {strategy} (max)"
        rows.append((name, max(w for w, _ in works), max(a for _, a in works)))
    print(f"{'game':48} {'work':>8} {'awards':>7}")
    for name, work, awards in rows:
        print(f"{name:48} {work:8,} {awards:7,}")


if __name__ == "__main__":
    main()

"""A deliberately naive scorer of the base Critter Kitchen rules, for tests only.

It shares no code with critter_kitchen: the engine is compared against it on random
games. Base rules only (no critic, rumor or restaurateur cards); the record is assumed
to be legal. Constants are written inline on purpose, so this file can be checked
against RULES.md line by line.
"""

from __future__ import annotations

TYPES = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]


def item_quality(item: dict) -> int:
    """Value of one ingredient or course: a spice (matching or allspice) doubles it."""
    return item["value"] * (2 if item.get("spice") else 1)


def meal_quality(meal: dict) -> int:
    ingredients = sum(item_quality(i) for i in meal.get("ingredients", []))
    return ingredients + meal.get("soup", 0) + 3 * meal.get("bisque", 0)


def band_stars(quality: int) -> int:
    if quality < 6:
        return 0
    if quality <= 11:
        return 1
    if quality <= 20:
        return 2
    return 4


def track_stars(quality: int) -> int:
    return (quality // 70) * 10 + min((quality % 70) // 10, 6)


def score_record(record: dict, challenges: dict[str, list[str]]) -> dict:
    # `challenges` only matters for legality; base quality does not depend on the
    # Hold token, so a legal record scores the same without looking at it.
    names = [p["name"] for p in record["players"]]
    stage_stars: dict[str, dict[str, int]] = {n: {} for n in names}

    def give(name: str, stage: str, stars: int) -> None:
        if stars > 0:
            stage_stars[name][stage] = stage_stars[name].get(stage, 0) + stars

    challenge_meals = record.get("challenge_meals") or {}
    for rnd in ("round3", "round6"):
        for name, meals in (challenge_meals.get(rnd) or {}).items():
            for meal in meals.values():
                give(name, "challenge." + rnd, band_stars(meal_quality(meal)))

    critic_meals = record.get("critic_meals") or {}
    plates = {n: critic_meals.get(n) or {} for n in names}
    courses = {n: plates[n].get("courses") or {} for n in names}

    soup = {n: plates[n].get("soup", 0) + 3 * plates[n].get("bisque", 0) for n in names}
    if max(soup.values()) > 0:
        for n in names:
            if soup[n] == max(soup.values()):
                give(n, "critic.most_soup", 1)

    for n in names:
        if all(t in courses[n] for t in TYPES):
            give(n, "critic.all_courses", 1)

    for t in TYPES:
        served = {n: item_quality(courses[n][t]) for n in names if t in courses[n]}
        for n, q in served.items():
            if q == max(served.values()):
                give(n, "critic.best_course", 1)

    quality = {n: sum(item_quality(c) for c in courses[n].values()) for n in names}
    for n in names:
        give(n, "critic.final_quality", track_stars(quality[n]))

    stars = {n: sum(stage_stars[n].values()) for n in names}
    order = sorted(names, key=lambda n: (-stars[n], -quality[n], names.index(n)))
    standings = [
        {"rank": i + 1, "name": n, "stars": stars[n], "critic_quality": quality[n]} for i, n in enumerate(order)
    ]
    for standing in standings:  # what a player left unused scores nothing; it is said where recorded
        left = plates[standing["name"]].get("left")
        if left is not None:
            standing["left"] = {
                "ingredients": sorted(left.get("ingredients", []), key=lambda i: (TYPES.index(i["type"]), i["value"])),
                "spices": sorted(left.get("spices", []), key=lambda s: TYPES.index(s) if s in TYPES else len(TYPES)),
            }
    return {"winner": order[0], "standings": standings, "stage_stars": stage_stars}

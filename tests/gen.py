"""Hypothesis strategies for random legal base-game records (2 to 5 players).

Records are plain dicts that survive a JSON round trip unchanged. `games()` uses the
Challenge cards in cards/base/challenges/ and no critic, rumor or restaurateur cards;
`full_games()` adds a critic, three rumors and some restaurateurs from the base pack.
Values are often drawn from a narrow range so that friendly ties and both winner
tie-breaks come up regularly.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from hypothesis import strategies as st

TYPES = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
NAMES = ["Ana", "Ben", "Cleo", "Dev", "Eli"]
BASE_DIR = Path(__file__).resolve().parent.parent / "cards" / "base"
CHALLENGE_DIR = BASE_DIR / "challenges"
KEEP_LIMITS = {"round3": 5, "round6": 10}

# Each game picks one palette of token values; the narrow ones make ties likely.
VALUE_PALETTES = [
    [2, 3],
    [2, 3, 4],
    [2, 3, 4, 5, 6],
    [1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 9],
]


@functools.cache
def _load_challenges() -> tuple[tuple[str, tuple[str, ...]], ...]:
    cards = []
    for path in sorted(CHALLENGE_DIR.glob("*.yaml")):
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
        cards.append((card["id"], tuple(card["requires"])))
    return tuple(cards)


def challenge_requirements() -> dict[str, list[str]]:
    """Challenge card id -> its printed `requires` list (Hold token not applied)."""
    return {card_id: list(requires) for card_id, requires in _load_challenges()}


def effective_requirements(requires: list[str], holds_token: bool) -> list[str]:
    """The listed types of a meal: the Hold token hides the last requirement."""
    listed = requires[:-1] if holds_token else requires
    return list(dict.fromkeys(listed))


def spices(kind: str) -> st.SearchStrategy[str | None]:
    return st.sampled_from([None, None, None, kind, "allspice"])


@st.composite
def ingredient(draw, kind: str, values: list[int]) -> dict:
    item = {"type": kind, "value": draw(st.sampled_from(values))}
    spice = draw(spices(kind))
    if spice is not None:
        item["spice"] = spice
    return item


@st.composite
def challenge_meal(draw, listed: list[str], values: list[int]) -> dict:
    present = draw(st.lists(st.sampled_from(listed), min_size=1, unique=True))
    missing = len(listed) - len(present)
    bisque = draw(st.integers(0, missing + 1))
    soup = draw(st.integers(max(0, missing - bisque), max(0, missing - bisque) + 2))
    items = [draw(ingredient(kind, values)) for kind in present for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3])))]
    meal: dict = {"ingredients": draw(st.permutations(items))}
    # Zero token counts are sometimes written out and sometimes left to the default.
    if soup or draw(st.booleans()):
        meal["soup"] = soup
    if bisque or draw(st.booleans()):
        meal["bisque"] = bisque
    return meal


@st.composite
def round_meals(draw, players: list[str], cards: list[str], values: list[int]) -> dict:
    requirements = challenge_requirements()
    meals: dict = {}
    if draw(st.integers(0, 5)) == 0:
        return meals
    for name in players:
        served = {}
        for index, card_id in enumerate(cards):
            listed = effective_requirements(requirements[card_id], index == len(cards) - 1)
            if draw(st.integers(0, 3)) > 0:
                served[card_id] = draw(challenge_meal(listed, values))
        if served:
            meals[name] = served
    return meals


@st.composite
def critic_meal(draw, values: list[int]) -> dict:
    kinds = draw(st.one_of(st.just(TYPES), st.lists(st.sampled_from(TYPES), unique=True)))
    courses = {}
    for kind in TYPES:
        if kind in kinds:
            course = draw(ingredient(kind, values))
            del course["type"]
            courses[kind] = course
    meal: dict = {"courses": courses}
    for token in ("soup", "bisque"):
        count = draw(st.sampled_from([None, 0, 0, 1, 1, 2]))
        if count is not None:
            meal[token] = count
    if draw(st.integers(0, 3)) == 0:  # what the player left unused, sometimes recorded
        left = st.fixed_dictionaries({"type": st.sampled_from(TYPES), "value": st.sampled_from(values)})
        meal["left"] = {
            "ingredients": draw(st.lists(left, max_size=4)),
            "spices": draw(st.lists(st.sampled_from([*TYPES, "allspice"]), max_size=2)),
        }
    return meal


@st.composite
def kept_counts(draw) -> dict:
    return {rnd: draw(st.integers(0, limit)) for rnd, limit in KEEP_LIMITS.items()}


@st.composite
def games(draw) -> dict:
    """A random legal base-game record (no critic, rumors or restaurateurs)."""
    count = draw(st.integers(2, 5))
    players = draw(st.permutations(NAMES))[:count]
    card_ids = draw(st.permutations(sorted(challenge_requirements())))[:6]
    round3, round6 = card_ids[:3], card_ids[3:]
    values = draw(st.sampled_from(VALUE_PALETTES))

    entries = []
    for name in players:
        entry: dict = {"name": name}
        if draw(st.integers(0, 3)) == 0:
            entry["kept"] = draw(kept_counts())
        entries.append(entry)

    record: dict = {
        "players": entries,
        "cards": {"challenges": {"round3": round3, "round6": round6}},
    }
    if draw(st.integers(0, 7)) > 0:
        record["challenge_meals"] = {
            "round3": draw(round_meals(players, round3, values)),
            "round6": draw(round_meals(players, round6, values)),
        }
    record["critic_meals"] = {name: draw(critic_meal(values)) for name in players if draw(st.integers(0, 7)) > 0}
    return record


@functools.cache
def _base_card_kinds() -> tuple[tuple[str, str], ...]:
    """(id, kind) of every card file below cards/base/*/, in file order."""
    cards = []
    for path in sorted(BASE_DIR.glob("*/*.yaml")):
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
        cards.append((card["id"], card["kind"]))
    return tuple(cards)


def card_ids(kind: str) -> list[str]:
    """The ids of the base pack's cards of one kind (critic, rumor, restaurateur, challenge)."""
    return [card_id for card_id, card_kind in _base_card_kinds() if card_kind == kind]


@st.composite
def full_games(draw) -> dict:
    """A random legal base-game record with a critic, three rumors and some restaurateurs.

    Every meal keeps to at most one spice per ingredient and per course, which stays
    legal under every critic (some allow more spices or change what a spice is worth).
    """
    record = draw(games())
    record["cards"]["critic"] = draw(st.sampled_from(card_ids("critic")))
    record["cards"]["rumors"] = draw(st.permutations(card_ids("rumor")))[:3]
    owners = draw(st.permutations(card_ids("restaurateur")))
    for entry, card_id in zip(record["players"], owners, strict=False):
        if draw(st.integers(0, 3)) > 0:
            entry["restaurateur"] = card_id
    return record

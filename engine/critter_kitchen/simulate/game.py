"""One simulated game, from its seed to an ordinary game record.

The cards and the items come from separate random streams of the game's seed, so the same
seed deals the same items whatever cards a study forces in or keeps out.
"""

from __future__ import annotations

import random

from ..plan.output import meal_record
from ..plan.pantry import CRITIC, Question
from .deal import INGREDIENT, draw
from .players import plan_challenge_round, plan_critic_meal, refrigerate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..model.ruleset import Card
    from ..plan.plans import CriticPlan
    from .deal import DealModel, Token


class Setup:
    """What every game of a run shares: the deal model, the number of players, the options."""

    def __init__(
        self,
        model: DealModel,
        players: int,
        seed: int,
        *,
        effort: str = "fast",
        card_counts: dict[str, int] | None = None,
        pack_ids: tuple[str, ...] = (),
    ) -> None:
        self.model = model
        self.players = players
        self.seed = seed
        self.effort = effort
        self.card_counts = card_counts or {}  # kind -> cards dealt, instead of the model's
        self.pack_ids = pack_ids  # the record's ``packs``: every loaded pack but the base
        rs = model.ruleset
        self.rounds = tuple(rs.parameters["challenge_rounds"].value)
        self.per_round = int(rs.parameters["challenges_per_round"].value)
        self.token_names = tuple(rs.parameters["token_values"].value)


def game_rng(seed: int, index: int, stream: str) -> random.Random:
    """The random stream ``stream`` of game ``index``: a function of the run's seed alone."""
    return random.Random(f"{seed}/{index}/{stream}")  # str seeds hash with SHA-512: stable everywhere


class Dealt:
    """The cards of one game: the challenge cards by round, the table cards, each player's cards."""

    def __init__(self, challenges: dict[str, list[Card]], table: list[Card], held: list[list[Card]]) -> None:
        self.challenges = challenges
        self.table = table
        self.held = held


def deal_cards(setup: Setup, rng: random.Random, study: Card | None, forced: bool) -> Dealt:
    """The game's cards; a study card is kept out of every draw, then put in when ``forced``
    (in place of one card of its kind, drawn at random)."""
    model = setup.model

    def pool(kind: str) -> list[Card]:
        return [c for c in model.pools.get(kind, []) if study is None or c.id != study.id]

    challenge_pool = [c for k in model.challenge_kinds for c in pool(k)]
    chosen = draw(rng, challenge_pool, setup.per_round * len(setup.rounds))
    challenges = {r: chosen[i * setup.per_round : (i + 1) * setup.per_round] for i, r in enumerate(setup.rounds)}
    table: list[Card] = []
    held: list[list[Card]] = [[] for _ in range(setup.players)]
    for kind, (where, n) in model.card_counts.items():
        n = setup.card_counts.get(kind, n)
        if kind in model.ruleset.single_kinds:
            n = min(n, 1)
        if where == "table":
            table += draw(rng, pool(kind), n)
        else:
            cards = pool(kind)
            for mine in held:
                mine += draw(rng, cards, n)
    if study is not None and forced:
        force(setup, rng, study, challenges, table, held)
    return Dealt(challenges, table, held)


def force(
    setup: Setup,
    rng: random.Random,
    card: Card,
    challenges: dict[str, list[Card]],
    table: list[Card],
    held: list[list[Card]],
) -> None:
    model = setup.model
    if card.kind in model.challenge_kinds:
        rnd = setup.rounds[rng.randrange(len(setup.rounds))]
        challenges[rnd][rng.randrange(len(challenges[rnd]))] = card
        return
    where, _ = model.card_counts.get(card.kind, ("table", 1))
    group = table if where == "table" else held[rng.randrange(len(held))]
    same = [i for i, c in enumerate(group) if c.kind == card.kind]
    if same:
        group[same[rng.randrange(len(same))]] = card
    else:
        group.append(card)


class Pantry:
    """One player's items between rounds."""

    def __init__(self) -> None:
        self.ingredients: list[tuple[str, int]] = []
        self.spices: list[str] = []
        self.tokens: dict[str, int] = {}

    def take(self, items: list[Token]) -> None:
        for kind, name, value in items:
            if kind == INGREDIENT:
                self.ingredients.append((name, value))
            else:
                self.spices.append(name)


def play(setup: Setup, index: int, study: Card | None = None, forced: bool = False) -> dict[str, Any]:
    """Game ``index`` of the run as a game record: cards dealt, items gathered round by round,
    meals planned by each player, refrigeration applied."""
    model = setup.model
    dealt = deal_cards(setup, game_rng(setup.seed, index, "cards"), study, forced)
    rng = game_rng(setup.seed, index, "deal")
    order = list(range(1, setup.players + 1))
    if model.shuffled:
        rng.shuffle(order)
    names = [f"P{n}" for n in order]
    bag = model.bag.copy()
    supply = model.supply.copy()
    pantries = [Pantry() for _ in names]
    for p in pantries:
        p.tokens = {t: 0 for t in setup.token_names}
    kept: list[dict[str, int]] = [{} for _ in names]
    meals: dict[str, dict[str, Any]] = {}
    critic: dict[str, Any] = {}
    last_round = model.rounds[-1][0]
    for rnd, from_bag, from_supply in model.rounds:
        for item, added in model.late.get(rnd, ()):
            bag.add(item, added)
        for p in pantries:
            p.take(bag.take(rng, from_bag))
            for token in supply.take(rng, from_supply):
                if token in p.tokens:
                    p.tokens[token] += 1
        if rnd in setup.rounds:
            meals[rnd] = {}
            for i, p in enumerate(pantries):
                plan = plan_challenge_round(question(setup, dealt, i, names[i], rnd, p), setup.effort)
                if plan.meals:
                    meals[rnd][names[i]] = {cid: meal_record(m) for cid, m in plan.meals.items()}
                p.ingredients, p.spices, p.tokens = (
                    list(plan.left_ingredients),
                    list(plan.left_spices),
                    plan.left_tokens,
                )
                limit = player_limits(setup, dealt, i).get(rnd)
                if limit is not None:
                    p.ingredients, p.spices = refrigerate(p.ingredients, p.spices, limit)
                    kept[i][rnd] = len(p.ingredients) + len(p.spices)
        if rnd == last_round:
            for i, p in enumerate(pantries):
                asked = question(setup, dealt, i, names[i], CRITIC, p)
                critic[names[i]] = critic_entry(asked, plan_critic_meal(asked, setup.effort))
    return record(setup, dealt, names, kept, meals, critic, rng)


def player_limits(setup: Setup, dealt: Dealt, i: int) -> dict[str, int]:
    """The refrigeration limits for player ``i``, as the cards in play and held change them."""
    from ..api import rule_parameters

    limits: dict[str, int] = rule_parameters(setup.model.ruleset, dealt.table, dealt.held[i])["refrigeration_limits"]
    return limits


def question(setup: Setup, dealt: Dealt, i: int, name: str, target: str, p: Pantry) -> Question:
    challenges = tuple(dealt.challenges.get(target, ()))
    return Question(
        setup.model.ruleset,
        target,
        challenges,
        tuple(dealt.table),
        name,
        tuple(dealt.held[i]),
        tuple(p.ingredients),
        tuple(p.spices),
        dict(p.tokens),
    )


def critic_entry(asked: Question, plan: CriticPlan) -> dict[str, Any]:
    """The player's critic meal as the record says it, with what the player had ``left``
    unused at the end of the game: the items held at the critic meal (``asked``: what the
    challenge rounds and refrigeration left, and the last rounds' draws) that it did not
    serve. The plan may have been made from fewer of them (the quick effort's trimmed
    pantry): what is left is always of all of them."""
    from ..plan.critic import critic_json, left_of

    data = critic_json(plan)
    return {"courses": data["courses"], **plan.tokens, "left": left_of(asked, plan.courses.values())}


def record(
    setup: Setup,
    dealt: Dealt,
    names: list[str],
    kept: list[dict[str, int]],
    meals: dict[str, dict[str, Any]],
    critic: dict[str, Any],
    rng: random.Random,
) -> dict[str, Any]:
    rs = setup.model.ruleset
    cards: dict[str, Any] = {"challenges": {r: [c.id for c in cs] for r, cs in dealt.challenges.items()}}
    players: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        entry: dict[str, Any] = {"name": name}
        for card in dealt.held[i]:
            field = rs.card_kinds[card.kind].partition(".")[2]
            if card.kind in rs.single_kinds:
                entry[field] = card.id
            else:
                entry.setdefault(field, []).append(card.id)
        if kept[i]:
            entry["kept"] = kept[i]
        counters = {c: rng.randint(lo, hi) for c, (lo, hi) in setup.model.counters.items() if c in rs.counters}
        if counters:
            entry["counters"] = counters
        players.append(entry)
    for card in dealt.table:
        field = rs.card_kinds[card.kind].partition(".")[2]
        if card.kind in rs.single_kinds:
            cards[field] = card.id
        else:
            cards.setdefault(field, []).append(card.id)
    out: dict[str, Any] = {}
    if setup.pack_ids:
        out["packs"] = list(setup.pack_ids)
    out.update({"players": players, "cards": cards, "challenge_meals": meals, "critic_meals": critic})
    return out

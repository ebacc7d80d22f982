"""What a game's scoring reads of its ruleset, made once per ruleset, says what the plain rules say.

The ruleset's scoring tables (``Ruleset.scoring``) hold the rules cards, the base parameter
values, each card's place in a hook point's canonical order, the unverified values and the
ranking's labels. Each is compared here with its plain definition, the hook tables of random
games with the order sorted card by card, and a cached ruleset with one that never saw a game.
"""

from __future__ import annotations

import pickle
from functools import cache
from typing import Any

import gen
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.dsl.frame import Frame
from critter_kitchen.dsl.program import build
from critter_kitchen.loading.records import read_record
from critter_kitchen.model.game import Game, Player
from critter_kitchen.model.meals import table_parameters
from critter_kitchen.model.ruleset import RULESET_FIELDS, Card, Effect, Ruleset
from critter_kitchen.stages.runner import _hooks, hooks_in_order, notes_of, score_game

rules_once = cache(load_ruleset)


@cache
def alc_once() -> Ruleset:
    return load_ruleset(packs_for({"packs": ["a-la-carte"]}, []))


def _plain_notes(game: Game) -> list[str]:
    """The notes' first definition: each unverified parameter whose value is in use."""
    return [
        f"{p.name}: {p.unverified}"
        for p in game.ruleset.parameters.values()
        if p.unverified and game.params.get(p.name) == p.value
    ]


def _shown(hooks: dict[tuple[str, str], list[Any]]) -> dict[tuple[str, str], list[tuple[str, int, int]]]:
    return {
        key: [(card.id, -1 if owner is None else owner.index, id(code)) for card, owner, code in entries]
        for key, entries in hooks.items()
    }


@settings(max_examples=150, deadline=None)
@given(st.one_of(gen.full_games(), gen.games()))
def test_a_games_hook_tables_are_the_cards_sorted_by_kind_id_and_owner(record: dict[str, Any]) -> None:
    rules = rules_once()
    game = read_record(rules, record, "game")
    assert _shown(_hooks(game)) == _shown(hooks_in_order(game))
    assert game.cards_in_play()[: len(rules.rules_cards)] == [(c, None) for c in rules.rules_cards]
    assert notes_of(game) == _plain_notes(game)


@settings(max_examples=40, deadline=None)
@given(gen.full_games())
def test_the_notes_of_a_game_are_each_unverified_value_in_use(record: dict[str, Any]) -> None:
    rules = alc_once()
    game = read_record(rules, {**record, "packs": ["a-la-carte"]}, "game")
    assert notes_of(game) == _plain_notes(game) != []


def test_a_card_the_ruleset_does_not_hold_is_sorted_by_the_plain_order() -> None:
    rules = rules_once()
    ann, bob = Player("Ann", 0), Player("Bob", 1)
    game = Game(rules, (ann, bob), rules.base_params(), {})
    real = next(c for c in rules.cards.values() if c.effects and c.kind == "restaurateur")
    # the same id as a held card, another kind, and an owner index outside the game's players
    twin = Card(real.id, "rumor", "Twin", real.pack, real.path, real.pos)
    twin.effects = (Effect("after", real.effects[0].stage, b"", real.effects[0].code),)
    stranger = Player("Cy", 7)
    stranger.owned = (real,)
    for owned in [(real, twin), (twin,)]:
        ann.owned, bob.owned = owned, (real,)
        game._in_play = None
        assert _shown(_hooks(game)) == _shown(hooks_in_order(game))
    game = Game(rules, (ann, stranger), rules.base_params(), {})
    ann.owned = (real,)
    assert _shown(_hooks(game)) == _shown(hooks_in_order(game))
    assert [o.name for _, o, _ in _hooks(game)[(real.effects[0].stage, real.effects[0].timing)]] == ["Ann", "Cy"]


def test_the_scoring_tables_are_the_rulesets_values(base: Ruleset, alc: Ruleset) -> None:
    assert alc.scoring().unverified  # a ruleset with unverified values
    for rules in (base, alc):
        made = rules.scoring()
        assert rules.scoring() is made  # once per ruleset
        assert made.rules_in_play == [(c, None) for c in rules.rules_cards]
        assert made.base_params == rules.base_params()
        assert made.labels == [tb.label for tb in rules.tiebreaks] + [rules.tied_label]
        assert made.shared == (rules.when_tied == "shared")
        assert sorted(made.places) == sorted(rules.cards)
        params = table_parameters(rules, [])
        params["wild_spice"] = "changed"  # a game's parameters are its own
        assert made.base_params == rules.base_params() != params


def test_a_ruleset_pickles_every_field_but_the_scoring_tables() -> None:
    fresh = Ruleset()
    # a compiled Ruleset has no __dict__; its class lists its attributes
    fields = getattr(Ruleset, "__mypyc_attrs__", None) or vars(fresh)
    assert set(RULESET_FIELDS) == set(fields) - {"_derived"}


@settings(max_examples=3, deadline=None)
@given(gen.full_games())
def test_a_pickled_ruleset_scores_as_the_one_it_was_made_from(record: dict[str, Any]) -> None:
    rules = load_ruleset()
    score_game(read_record(rules, record, "game"))  # the tables are made
    assert rules._derived
    again = pickle.loads(pickle.dumps(rules))
    assert not again._derived
    assert b"Scoring" not in pickle.dumps(rules)
    for name in RULESET_FIELDS:
        assert type(getattr(again, name)) is type(getattr(rules, name))
    assert sorted(again.cards) == sorted(rules.cards) and again.rules_kind == rules.rules_kind
    first = score_game(read_record(rules, record, "game"))
    second = score_game(read_record(again, record, "game"))
    assert [(s.player.name, s.stars) for s in first.standings] == [(s.player.name, s.stars) for s in second.standings]
    assert [a.to_json() for a in first.awards] == [a.to_json() for a in second.awards]


def _through_a_variable(op: Any, slot: int) -> Any:
    """``op`` with each award to a highest (or lowest) made to a variable holding it instead."""
    if type(op) is not tuple:
        return op
    if op and op[0] == "award" and op[2][0] == "agg" and op[2][1] in ("highest", "lowest"):
        _, amount, target, reason = op
        return ("seq", (("let", slot, target), ("award", amount, ("slot", slot), reason)))
    return tuple(_through_a_variable(part, slot) for part in op)


def _awards_of(rules: Ruleset, record: dict[str, Any], card: Card, ops: Any, slots: int, ties: bool) -> Any:
    game = read_record(rules, record, "game")
    game.params["friendly_ties"] = ties
    frame = Frame(game, card, card.effects[0].stage, None, slots)
    build(ops)(frame)
    awards = [(a.to_json(), a.value, a.group, a.tied) for a in game.awards]
    # (not the steps: a loop around the award costs more per item with one statement more)
    return awards, [([p.name for p in who], stars, stage) for who, stars, stage in game.unsettled]


@settings(max_examples=60, deadline=None)
@given(gen.full_games(), st.booleans())
def test_an_award_to_a_highest_is_the_award_to_a_variable_holding_it(record: dict[str, Any], ties: bool) -> None:
    rules = rules_once()
    ranking = [
        c
        for c in rules.cards.values()
        if c.effects
        and c.effects[0].code is not None
        and _through_a_variable(c.effects[0].code.ops, 0) != c.effects[0].code.ops
    ]
    assert len(ranking) >= 4
    for card in ranking:
        code = card.effects[0].code
        assert code is not None
        direct = _awards_of(rules, record, card, code.ops, code.slots, ties)
        held = _awards_of(rules, record, card, _through_a_variable(code.ops, code.slots), code.slots + 1, ties)
        assert direct == held

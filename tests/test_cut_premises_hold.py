"""What the per-game cuts on the score path and the compiled build's pack cache rely on."""

from __future__ import annotations

import pickle

from critter_kitchen import load_ruleset
from critter_kitchen.model.game import Game

# Every cached class saying how to unpickle it is checked in tests/test_compiled.py.


def test_deal_numbers_come_back_from_a_pickle() -> None:
    rules = load_ruleset()
    assert rules.deal, "the base pack has a deal model"
    again = pickle.loads(pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL))
    for name, number in rules.deal.items():
        copy = again.deal[name]
        got = (copy.name, copy.value, copy.description, copy.unverified)
        assert got == (number.name, number.value, number.description, number.unverified)


def test_awards_reach_the_stars_when_the_hook_point_settles() -> None:
    # One unsettled entry per award statement: each player named gets the stars once per
    # time named, in total and for the stage, and nothing before settling.
    from critter_kitchen.model.game import Player

    rules = load_ruleset()
    card = next(iter(rules.cards.values()))
    ann, bo = Player("Ann", 0), Player("Bo", 1)
    game = Game(rules, (ann, bo), {}, {})
    game.award_all("tally", card, (ann, bo), 3, "why", 7)
    game.award_all("tally", card, (bo, bo), 2, "why", None)
    assert (ann.stars, bo.stars) == (0, 0)
    game.settle_awards()
    assert (ann.stars, bo.stars) == (3, 7)
    assert (ann.stage_stars, bo.stage_stars) == ({"tally": 3}, {"tally": 7})
    assert [(a.player, a.stars, a.tied) for a in game.awards] == [
        ("Ann", 3, ("Ann", "Bo")),
        ("Bo", 3, ("Ann", "Bo")),
        ("Bo", 2, ()),
        ("Bo", 2, ()),
    ]
    assert game.unsettled == []

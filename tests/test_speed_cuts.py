"""What the per-game cuts on the score path and the compiled build's pack cache rely on."""

from __future__ import annotations

import inspect
import pickle

from critter_kitchen import load_ruleset
from critter_kitchen.model import ruleset as ruleset_module
from critter_kitchen.model.game import Game


def _classes_needing_arguments() -> list[type]:
    """The public classes of model/ruleset.py that cannot be made without arguments (the
    private ones are bases, never pickled themselves)."""
    found = []
    for name, cls in inspect.getmembers(ruleset_module, inspect.isclass):
        if cls.__module__ != ruleset_module.__name__ or name.startswith("_"):
            continue
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        if any(p.default is inspect.Parameter.empty for p in parameters):
            found.append(cls)
    return found


def test_every_ruleset_class_made_with_arguments_says_how_to_make_it_again() -> None:
    # Compiled classes are unpickled by calling them; without __reduce__ the call has no
    # arguments, fails, and the compiled build's pack cache misses on every run.
    classes = _classes_needing_arguments()
    assert {c.__name__ for c in classes} >= {"Card", "Parameter", "Pack", "DealNumber", "Effect"}
    missing = [c.__name__ for c in classes if "__reduce__" not in vars(c)]
    assert missing == []


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
    from critter_kitchen.dsl.closures import Frame
    from critter_kitchen.model.game import Player

    rules = load_ruleset()
    card = next(iter(rules.cards.values()))
    ann, bo = Player("Ann", 0), Player("Bo", 1)
    game = Game(rules, (ann, bo), {}, {})
    frame = Frame(game, card, "tally", None, 0)
    game.award_all(frame, (ann, bo), 3, "why", 7)
    game.award_all(frame, (bo, bo), 2, "why", None)
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

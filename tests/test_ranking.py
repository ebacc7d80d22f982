"""The ranking as data: its keys, their order and what ends a tie on every key.

The base rules rank by stars, then the critic score track, then the priority track: one
winner. The house rule in tests/packs/shared-win ends a tie on every key with a shared win.
Every game here is scored by hand in its comment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.cli import main
from critter_kitchen.report.text import result_text

ROOT = Path(__file__).resolve().parent.parent
SHARED_WIN = ROOT / "tests" / "packs" / "shared-win"
ROUND3 = ["harbor-stew", "forest-risotto", "farmhouse-pie"]
ROUND6 = ["toasted-cheese", "river-chowder", "braised-shank"]


@pytest.fixture(scope="module")
def shared():
    return load_ruleset([SHARED_WIN])


def game(players, critic):
    return {
        "players": [{"name": p} for p in players],
        "cards": {"challenges": {"round3": ROUND3, "round6": ROUND6}},
        "critic_meals": critic,
    }


def fish(value, **more):
    return {"courses": {"fish": {"value": value}}, **more}


def ranks(j):
    return [(s["rank"], s["name"]) for s in j["standings"]]


# Ben ahead of Ana on the priority track; each serves a fish of 4 and nothing else:
# best fish course tied, 1 star each (friendly); critic quality 4 each, 0 track stars.
# Tied on stars (1, 1) and on the track (4, 4).
TWO_TIED = game(["Ben", "Ana"], {"Ana": fish(4), "Ben": fish(4)})


def test_base_game_breaks_a_full_tie_on_the_priority_track(base):
    result = score_record(TWO_TIED, base)
    j = result_json(result)
    assert j["winner"] == "Ben"
    assert j["winners"] == ["Ben"]
    assert ranks(j) == [(1, "Ben"), (2, "Ana")]
    assert j["decided_by"] == "ahead on the priority track"
    assert "Winner: Ben with 1 star (tied on stars with Ana); decided by: ahead on the priority track" in (
        result_text(result).splitlines()
    )


def test_two_players_share_the_win(shared):
    result = score_record(TWO_TIED, shared)
    assert [p.name for p in result.winners] == ["Ben", "Ana"]  # the library's Result
    assert result.winner.name == "Ben"
    j = result_json(result)
    assert j["winners"] == ["Ben", "Ana"]  # in priority order
    assert j["winner"] == "Ben"
    assert ranks(j) == [(1, "Ben"), (1, "Ana")]
    assert j["decided_by"] == "a shared win"
    lines = result_text(result).splitlines()
    assert "Winner: Ben and Ana share the win with 1 star each; decided by: a shared win" in lines
    assert "Ranking: 1. Ben (1), 1. Ana (1)" in lines


def test_three_players_share_the_win_and_the_fourth_ranks_after_them(shared):
    # Ana, Ben, Cy serve a fish of 4, Dee a fish of 3: best fish goes to the three, 1 star
    # each; Dee 0. Qualities 4, 4, 4, 3; no track stars. The three are tied on every key.
    record = game(["Ana", "Ben", "Cy", "Dee"], {"Ana": fish(4), "Ben": fish(4), "Cy": fish(4), "Dee": fish(3)})
    result = score_record(record, shared)
    j = result_json(result)
    assert j["winners"] == ["Ana", "Ben", "Cy"]
    assert ranks(j) == [(1, "Ana"), (1, "Ben"), (1, "Cy"), (4, "Dee")]
    assert j["decided_by"] == "a shared win"
    assert "Winner: Ana, Ben and Cy share the win with 1 star each; decided by: a shared win" in (
        result_text(result).splitlines()
    )


def test_a_tie_behind_the_winner_is_not_shared(shared):
    # Ana: fish 5 and 1 soup kept: best fish (1) + most soup (1) = 2 stars, quality 5.
    # Cy and Ben: meat 4 each: best meat tied, 1 star each, quality 4 each: tied on every key,
    # but not for first place, so the priority track orders them (Cy is ahead) and no rank is shared.
    record = game(
        ["Cy", "Ana", "Ben"],
        {"Ana": fish(5, soup=1), "Ben": {"courses": {"meat": {"value": 4}}}, "Cy": {"courses": {"meat": {"value": 4}}}},
    )
    j = result_json(score_record(record, shared))
    assert j["winners"] == ["Ana"]
    assert ranks(j) == [(1, "Ana"), (2, "Cy"), (3, "Ben")]
    assert j["decided_by"] == "more stars"


def test_a_key_before_the_end_breaks_the_tie(shared):
    # Ana: fish 4, meat 2, 1 soup kept; Ben: fish 4, meat 3. Best fish tied (1 each), best
    # meat Ben (1), most soup Ana (1): 2 stars each. Qualities: Ana 4 + 2 = 6, Ben 4 + 3 = 7:
    # the critic score track decides, nothing is shared.
    record = game(
        ["Ana", "Ben"],
        {
            "Ana": {"courses": {"fish": {"value": 4}, "meat": {"value": 2}}, "soup": 1},
            "Ben": {"courses": {"fish": {"value": 4}, "meat": {"value": 3}}},
        },
    )
    result = score_record(record, shared)
    j = result_json(result)
    assert j["winners"] == ["Ben"]
    assert ranks(j) == [(1, "Ben"), (2, "Ana")]
    assert j["decided_by"] == "farther along the critic score track"
    assert "Winner: Ben with 2 stars (tied on stars with Ana); decided by: farther along the critic score track" in (
        result_text(result).splitlines()
    )


def test_score_prints_the_shared_win(capsys, monkeypatch, tmp_path):
    import json

    record = tmp_path / "game.json"
    record.write_text(json.dumps(TWO_TIED), "utf-8")
    assert main(["score", str(record), "--pack", str(SHARED_WIN), "--format", "json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert (j["winner"], j["winners"], j["decided_by"]) == ("Ben", ["Ben", "Ana"], "a shared win")


def test_rules_card_ranking_matches_the_older_form(base, tmp_path):
    # The base ranking written the older way (tiebreaks and priority_label) in a later pack
    # that first replaces the keys with none: the same ranking, so the same results.
    pack = _pack(
        tmp_path,
        "older",
        "ranking: {keys: []}\n",
        "tiebreaks:\n"
        "  - {label: more stars, by: stars(p)}\n"
        "  - {label: farther along the critic score track, by: total_quality(p)}\n"
        "priority_label: ahead on the priority track\n",
    )
    older = load_ruleset(pack)
    assert [k.label for k in older.tiebreaks] == ["more stars", "farther along the critic score track"]
    assert result_json(score_record(TWO_TIED, older)) == result_json(score_record(TWO_TIED, base))


def test_older_tiebreaks_add_keys_and_keep_the_shared_ending(tmp_path):
    # A stranger's pack in the older form, loaded after the house rule: its key (more soup
    # kept) is added after stars and the track; the tie on every key is still shared.
    [soup] = _pack(tmp_path, "soup", "tiebreaks:\n  - {label: more soup kept, by: token_value(p)}\n")
    rules = load_ruleset([SHARED_WIN, soup])
    # Ben and Ana as in TWO_TIED; Ana keeps 1 soup: most soup gives her 1 star, so she wins on stars.
    with_soup = game(["Ben", "Ana"], {"Ana": fish(4, soup=1), "Ben": fish(4)})
    assert result_json(score_record(with_soup, rules))["decided_by"] == "more stars"
    j = result_json(score_record(TWO_TIED, rules))  # no soup: tied on every key, soup included
    assert (j["winners"], j["decided_by"]) == (["Ben", "Ana"], "a shared win")


def test_ranking_keys_replace_the_keys_and_the_order(tmp_path):
    # A later pack's keys replace the whole list: here the critic score track first, then stars.
    [track_first] = _pack(
        tmp_path,
        "track-first",
        "ranking:\n  keys:\n"
        "    - {label: farther along the track, by: total_quality(p)}\n"
        "    - {label: more stars, by: stars(p)}\n",
    )
    rules = load_ruleset([track_first])
    record = game(
        ["Ben", "Ana"],
        {
            # Ana: fish 9 (best fish: 1 star), quality 9, no track stars.
            "Ana": fish(9),
            # Ben: meat 2 and bread 2 (best meat, best bread: 2 stars), 1 soup kept (most
            # soup: 1 star): 3 stars, quality 4.
            "Ben": {"courses": {"meat": {"value": 2}, "bread": {"value": 2}}, "soup": 1},
        },
    )
    j = result_json(score_record(record, rules))
    assert (j["winner"], j["decided_by"]) == ("Ana", "farther along the track")  # 9 > 4
    assert result_json(score_record(record, load_ruleset()))["winner"] == "Ben"  # the base: 3 stars > 1


def _pack(tmp_path: Path, name: str, *rules: str) -> list[Path]:
    """Packs named ``name``, ``name-2``, ..., each with a rules card holding one of ``rules``."""
    out = []
    for i, body in enumerate(rules):
        folder = tmp_path / (name if i == 0 else f"{name}-{i + 1}")
        folder.mkdir()
        (folder / "pack.yaml").write_text(f"id: {folder.name}\nname: test\n", "utf-8")
        (folder / "rules.yaml").write_text(f"id: {folder.name}-rules\nkind: rules\nname: Test\n{body}", "utf-8")
        out.append(folder)
    return out


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "ranking:\n  when_tied: {by: coin, label: x}\n",
            "rules.yaml:5:19: CK101 ranking.when_tied.by: 'coin' is not one of: priority, shared\n",
        ),
        ("ranking: {}\n", "rules.yaml:4:10: CK101 ranking: 'ranking' needs 'keys', 'when_tied' or both\n"),
        (
            "ranking:\n  when_tied: {by: shared}\n",
            "rules.yaml:5:14: CK101 ranking.when_tied: missing required key 'label'\n",
        ),
        (
            "ranking:\n  when_tied: {by: shared, label: a shared win}\npriority_label: ahead\n",
            "rules.yaml:6:1: CK101 'priority_label' is the older form of 'ranking': "
            "a card writes its ranking in 'ranking' only\n",
        ),
        (
            "ranking:\n  keys:\n    - label: soup\n      by: token_valu(p)\n",
            "rules.yaml:7:11: CK202 unknown function 'token_valu'; did you mean 'token_value'?\n"
            "    by: token_valu(p)\n"
            "        ^^^^^^^^^^\n",
        ),
    ],
    ids=["unknown-ending", "empty", "no-label", "both-forms", "bad-key"],
)
def test_ranking_problems_are_reported_at_their_line(body, expected, tmp_path, capsys, monkeypatch):
    [folder] = _pack(tmp_path, "broken", body)
    monkeypatch.chdir(folder)
    assert main(["validate", "."]) == 1
    assert capsys.readouterr().err == expected


def test_an_older_key_that_does_not_compile_is_reported_in_its_own_file(tmp_path, capsys, monkeypatch):
    # Before, a later pack's tiebreak was reported at its line and column but in the base
    # pack's rules file.
    [folder] = _pack(tmp_path, "older-broken", "tiebreaks:\n  - label: soup\n    by: token_valu(p)\n")
    monkeypatch.chdir(folder)
    assert main(["validate", "."]) == 1
    assert capsys.readouterr().err == (
        "rules.yaml:6:9: CK202 unknown function 'token_valu'; did you mean 'token_value'?\n"
        "    by: token_valu(p)\n"
        "        ^^^^^^^^^^\n"
    )


def test_cards_says_the_ranking_in_english(shared):
    from critter_kitchen.report.cards import card_json, card_text

    house = shared.cards["shared-win-rules"]
    assert card_text(house, shared).splitlines()[-1] == (
        "Tied on every key: the players tied for first place share the win; the others are ranked after them "
        '(shown as "a shared win").'
    )
    base_rules = card_text(shared.cards["base-rules"], shared).splitlines()
    assert base_rules[-5:] == [
        "Ranking (higher ranks first; the first key that differs decides):",
        "    more stars: p's stars so far",
        "    farther along the critic score track: p's total critic quality",
        "",
        "Tied on every key: the player ahead on the priority track ranks first "
        '(shown as "ahead on the priority track").',
    ]
    assert card_json(house, shared)["when_tied"] == {
        "by": "shared",
        "label": "a shared win",
        "english": "the players tied for first place share the win; the others are ranked after them",
    }


def test_the_score_pads_statistics_count_a_shared_win(shared):
    pytest.importorskip("fastapi")
    from critter_kitchen.web.stats import card_stats, player_stats
    from critter_kitchen.web.store import StoredGame

    # Game 1: Ben and Ana share the win (TWO_TIED under the house rule), Ana holds harbor-master.
    # Game 2: the base game's result kept before 'winners' existed: only 'winner' (Ana).
    record = {**TWO_TIED, "players": [{"name": "Ben"}, {"name": "Ana", "restaurateur": "harbor-master"}]}
    first = result_json(score_record(record, shared))
    assert first["winners"] == ["Ben", "Ana"]
    older = {k: v for k, v in result_json(score_record(TWO_TIED, shared)).items() if k != "winners"}
    older["winner"] = "Ana"
    games = [StoredGame(1, record, first, "2026-01-01"), StoredGame(2, record, older, "2026-01-02")]
    ana = player_stats("Ana", games)
    # wins: both games; shared: the first; win rate: (1/2 + 1) / 2 = 0.75
    assert (ana["wins"], ana["shared_wins"], ana["win_rate"]) == (2, 1, 0.75)
    ben = player_stats("Ben", games)
    assert (ben["wins"], ben["shared_wins"], ben["win_rate"]) == (1, 1, 0.25)  # (1/2 + 0) / 2
    [held] = [c for c in card_stats(games) if c["id"] == "harbor-master"]
    assert held["holder_win_rate"] == 0.75  # Ana held it in both: 1/2 and 1


def test_a_human_player_shares_the_win_with_an_automated_rival():
    import yaml

    # The solo example: Ben ends with 17 stars and critic quality 47 (tests/golden/solo
    # works it out). McDogald's given the same 17 and 47: tied on every key, so under the
    # house rule both win; without it McDogald's, second in the players list, loses on priority.
    record = yaml.safe_load((ROOT / "examples" / "solo" / "against-mcdogalds.yaml").read_text("utf-8"))
    record["players"][1]["automated"] = {"stars": 17, "critic_quality": 47}
    solo = ROOT / "cards" / "solo"
    result = score_record(record, load_ruleset([solo, SHARED_WIN]))
    assert [p.name for p in result.winners] == ["Ben", "McDogald's"]
    lines = result_text(result).splitlines()
    assert "Winner: Ben and McDogald's share the win with 17 stars each; decided by: a shared win" in lines
    assert "Ben shares the win with McDogald's." in lines
    alone = result_text(score_record(record, load_ruleset([solo]))).splitlines()
    assert "Ben beats McDogald's." in alone

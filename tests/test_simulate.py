"""The balance lab: legal records, exact and order-free summaries, the self-check pack, its options."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from critter_kitchen import cli, load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.loading.records import read_record
from critter_kitchen.simulate.deal import DealModel
from critter_kitchen.simulate.game import Setup, play
from critter_kitchen.simulate.paired import score_without
from critter_kitchen.simulate.report import build
from critter_kitchen.simulate.run import Spec, play_chunk, run
from critter_kitchen.simulate.stats import Moments, Summary, mean_interval, wilson
from critter_kitchen.stages.runner import score_game

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "packs" / "lab")
BROKEN = ROOT / "tests" / "packs" / "broken-deal"


def simulate(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["simulate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def ruleset(*packs: str):
    return load_ruleset(packs_for({}, list(packs)))


def setup(rs, players: int, seed: int = 7, effort: str = "quick") -> Setup:
    return Setup(DealModel(rs), players, seed, effort=effort, pack_ids=tuple(p.id for p in rs.packs[1:]))


@pytest.fixture(scope="module")
def lab_report(tmp_path_factory) -> dict:
    """The self-check: 300 three-player games of the lab pack."""
    spec = Spec((*packs_for({}, [LAB]),), 300, 3, 11)
    summary = run(spec)
    return build(summary, ruleset(LAB), players=3, seed=11, effort="fast", studies=())


# every record is legal


def test_thousands_of_lab_records_are_read_and_scored_as_written():
    rs = ruleset(LAB)
    s = setup(rs, 3)
    for index in range(1000):
        record = play(s, index)
        result = score_game(read_record(rs, json.loads(json.dumps(record)), f"game {index}"))
        assert len(result.standings) == 3


@pytest.mark.parametrize(
    ("packs", "players", "games", "effort"),
    [((), 2, 12, "quick"), ((), 5, 4, "quick"), (("a-la-carte",), 7, 3, "quick"), ((), 2, 2, "fast")],
)
def test_planned_records_of_the_shipped_packs_are_legal(packs, players, games, effort):
    rs = ruleset(*packs)
    s = setup(rs, players, effort=effort)
    served = 0
    for index in range(games):
        record = play(s, index)
        result = score_game(read_record(rs, record, f"game {index}"))
        assert [st.player.name for st in result.standings] != []
        served += sum(len(m) for r in record["challenge_meals"].values() for m in r.values())
        assert all(p.get("kept", {}).get("round3", 0) <= 6 for p in record["players"])
    assert served > 0  # the planner does cook


def test_records_file_is_accepted_by_score_and_validate(capsys, tmp_path):
    records = tmp_path / "games.jsonl"
    code, out, err = simulate(
        capsys,
        "--pack",
        LAB,
        "--games",
        "40",
        "--players",
        "3",
        "--workers",
        "1",
        "--format",
        "json",
        "--records",
        str(records),
    )
    assert (code, err) == (0, "")
    lines = records.read_text().splitlines()
    assert len(lines) == 40
    assert json.loads(lines[0])["packs"] == ["lab"]
    import subprocess
    import sys

    with records.open() as stdin:
        scored = subprocess.run(
            [sys.executable, "-m", "critter_kitchen", "score", "--pack", LAB, "--format", "json", "-"],
            stdin=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
    assert (scored.returncode, scored.stderr) == (0, "")
    assert len(scored.stdout.splitlines()) == 40
    single = tmp_path / "one.json"
    single.write_text(lines[0])
    assert cli.main(["validate", "--pack", LAB, str(single)]) == 0
    capsys.readouterr()


# determinism and exact merging


def test_json_bytes_are_the_same_for_one_and_two_workers(capsys):
    args = ("--pack", LAB, "--games", "70", "--players", "4", "--seed", "5", "--format", "json")
    one = simulate(capsys, *args, "--workers", "1")
    two = simulate(capsys, *args, "--workers", "2")
    assert one[0] == two[0] == 0
    assert one[1] == two[1]
    assert json.loads(one[1])["games"] == 70


def test_chunk_summaries_merge_the_same_in_any_order():
    spec = Spec((*packs_for({}, [LAB]),), 64, 3, 3, chunk_games=8)
    parts = [play_chunk(spec, c)[1] for c in range(spec.chunks)]
    rs = ruleset(LAB)
    reports = []
    for order in (parts, parts[::-1], random.Random(1).sample(parts, len(parts))):
        total = Summary()
        for part in order:
            total.merge(part)
        reports.append(json.dumps(build(total, rs, players=3, seed=3, effort="fast", studies=())))
    assert reports[0] == reports[1] == reports[2]
    assert json.loads(reports[0])["games"] == 64


def test_the_chunk_size_changes_no_byte():
    folders = (*packs_for({}, [LAB]),)
    rs = ruleset(LAB)
    shown = set()
    for chunk_games in (0, 1, 7, 100):  # 0: sized from the first game's time
        summary = run(Spec(folders, 25, 3, 8, chunk_games=chunk_games))
        shown.add(json.dumps(build(summary, rs, players=3, seed=8, effort="fast", studies=())))
    assert len(shown) == 1


def test_a_game_depends_on_the_seed_and_its_index_only():
    rs = ruleset(LAB)
    assert play(setup(rs, 3, 9), 17) == play(setup(rs, 3, 9), 17)
    assert play(setup(rs, 3, 9), 17) != play(setup(rs, 3, 10), 17)


# the self-check


def test_the_strong_card_ranks_first_with_an_interval_above_zero(lab_report):
    gadgets = [c for c in lab_report["cards"] if c["kind"] == "gadget"]
    assert [c["id"] for c in gadgets][0] == "lab-strong"
    assert gadgets[0]["stars_ci"][0] > 0
    assert gadgets[0]["flag"] == "strong"


def test_the_null_card_has_an_interval_holding_zero(lab_report):
    null = next(c for c in lab_report["cards"] if c["id"] == "lab-null")
    assert null["stars_ci"][0] <= 0 <= null["stars_ci"][1]
    assert null["winner_flip_ci"][0] <= 0 <= null["winner_flip_ci"][1]
    assert null["games"] > 100


def test_the_card_that_sometimes_matters_sits_between(lab_report):
    row = {c["id"]: c for c in lab_report["cards"]}
    assert 0 < row["lab-sometimes"]["stars_ci"][0]
    assert row["lab-sometimes"]["stars_ci"][1] < row["lab-strong"]["stars_ci"][0]
    assert 0 < row["lab-sometimes"]["winner_flip_rate"] < 1


def test_the_priority_tie_break_gives_the_first_seat_an_advantage(lab_report):
    seats = lab_report["seats"]
    assert [s["priority"] for s in seats] == [1, 2, 3]
    assert seats[0]["win_ci"][0] > 1 / 3 > seats[2]["win_ci"][1]
    decided = {t["name"]: t["games"] for t in lab_report["tiebreaks"]}
    assert decided["ahead on the priority track"] > 0
    assert sum(decided.values()) == 300


def test_the_report_has_the_keys_other_tools_read(lab_report):
    assert {
        "games",
        "players",
        "seed",
        "packs",
        "model",
        "cards",
        "seats",
        "stages",
        "tiebreaks",
        "study",
        "notes",
    } <= set(lab_report)
    assert lab_report["packs"] == ["base", "lab"]
    card = lab_report["cards"][0]
    assert {
        "id",
        "kind",
        "name",
        "games",
        "stars_mean",
        "stars_ci",
        "winner_flip_rate",
        "winner_flip_ci",
        "owner_win_rate",
        "owner_win_ci",
        "flag",
    } <= set(card)
    stage = next(s for s in lab_report["stages"] if s["stage"] == "critic.card_bonuses")
    assert sum(stage["histogram"].values()) == 300 * 3
    assert lab_report["study"] is None


def test_the_unverified_deal_numbers_are_named():
    report = build(Summary(), ruleset(), players=4, seed=1, effort="fast", studies=())
    assert report["model"]["unverified"] == ["ingredient_tokens", "spice_tokens", "late_tokens", "rounds", "priority"]
    assert any(n.startswith("deal model 'rounds' is unverified: how many items") for n in report["notes"])
    known = ruleset().deal["supply"]
    assert (known.value, known.unverified) == ({"soup": 40, "bisque": 7}, "")


# paired rescoring


def test_removing_the_strong_card_takes_two_stars_from_everyone():
    rs = ruleset(LAB)
    s = setup(rs, 4)
    for index in range(40):
        record = play(s, index)
        if "lab-strong" not in record["cards"].get("gadgets", []):
            continue
        whole = score_game(read_record(rs, record, "x"))
        without = score_without(rs, record, "lab-strong")
        assert [p.stars - 2 for p in whole.game.players] == [p.stars for p in without.game.players]
        assert "lab-strong" in record["cards"]["gadgets"]  # the record itself is unchanged


def test_without_a_challenge_card_its_meals_are_not_served():
    rs = ruleset()
    s = setup(rs, 3)
    record = play(s, 0)
    card = next(c for r in record["challenge_meals"].values() for m in r.values() for c in m)
    again = score_without(rs, record, card)
    meals = [m for r in again.game.meals.values() for m in r]
    assert meals and all(m.card.id != card for m in meals)


def test_a_meal_the_rules_refuse_without_the_card_is_not_served():
    from critter_kitchen.simulate.paired import drop_refused

    data = {
        "challenge_meals": {"round3": {"P1": {"harbor-stew": {}, "garden-gratin": {}}}},
        "critic_meals": {"P1": {"courses": {"fish": {"value": 2}}}},
        "players": [{"name": "P1", "kept": {"round3": 7}}],
    }
    assert drop_refused(
        data,
        [
            "challenge_meals.round3.P1.harbor-stew.ingredients[0]",
            "critic_meals.P1.courses.fish",
            "players[0].kept.round3",
        ],
    )
    assert data == {
        "challenge_meals": {"round3": {"P1": {"garden-gratin": {}}}},
        "critic_meals": {"P1": {"courses": {}}},
        "players": [{"name": "P1", "kept": {}}],
    }
    assert not drop_refused(data, ["cards.rumors[0]"])


# study


def study(capsys, *args: str) -> dict:
    code, out, err = simulate(
        capsys,
        "--pack",
        LAB,
        "--games",
        "30",
        "--players",
        "3",
        "--workers",
        "1",
        "--study",
        "lab-null",
        "--study",
        "lab-strong",
        "--format",
        "json",
        *args,
    )
    assert (code, err) == (0, "")
    return {s["card"]: s for s in json.loads(out)["study"]}


def test_a_study_card_added_to_games_that_deal_none_of_its_kind(capsys):
    found = study(capsys, "--cards", "gadget=0")
    assert (found["lab-null"]["difference"], found["lab-null"]["difference_ci"]) == (0.0, [0.0, 0.0])
    assert (found["lab-strong"]["difference"], found["lab-strong"]["difference_ci"]) == (6.0, [6.0, 6.0])
    assert found["lab-strong"]["with"]["games"] == found["lab-strong"]["without"]["games"] == 30


def test_a_study_card_takes_the_place_of_a_card_of_its_kind(capsys):
    found = study(capsys)
    assert found["lab-null"]["difference_ci"][1] < 0  # it pushes a working gadget out
    assert found["lab-strong"]["difference_ci"][0] > 0


# statistics


def test_wilson_interval_of_known_values():
    assert wilson(0, 10) == [0.0, 0.2775]
    assert wilson(5, 10) == [0.2366, 0.7634]
    assert wilson(0, 0) is None


def test_mean_interval_from_counts_and_squares():
    m = Moments()
    for x in (1, 2, 3, 4):
        m.add(x)
    assert mean_interval(m) == (2.5, [1.2348, 3.7652])


# reports and options


def test_text_report_ranks_each_kind_and_names_the_unverified_numbers(capsys):
    code, out, err = simulate(capsys, "--pack", LAB, "--games", "40", "--players", "3", "--workers", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "40 simulated games, 3 players, seed 1, packs base, lab, planner fast"
    start = lines.index("gadget cards, strongest first")
    assert lines[start + 2].split()[0] == "lab-strong"
    assert (
        out.rstrip().splitlines()[-2]
        == "unverified deal model numbers: ingredient_tokens, spice_tokens, late_tokens, priority"
    )


def test_csv_and_output_file(capsys, tmp_path):
    target = tmp_path / "cards.csv"
    args = ("--pack", LAB, "--games", "10", "--players", "2", "--workers", "1")
    code, out, err = simulate(capsys, *args, "--format", "csv", "--output", str(target))
    assert (code, out, err) == (0, "", "")
    rows = target.read_text().splitlines()
    assert rows[0] == (
        "id,kind,name,games,stars_mean,stars_ci_low,stars_ci_high,stars_change_mean,stars_change_ci_low,"
        "stars_change_ci_high,winner_flip_rate,winner_flip_ci_low,winner_flip_ci_high,owner_win_rate,"
        "owner_win_ci_low,owner_win_ci_high,owner_baseline,flag"
    )
    cards = json.loads(simulate(capsys, *args, "--format", "json")[1])["cards"]
    assert [row.split(",")[0] for row in rows[1:]] == [c["id"] for c in cards]
    strong = next(row for row in rows if row.startswith("lab-strong,"))
    assert strong.startswith("lab-strong,gadget,Strong Gadget,")


def test_csv_quotes_pack_text_that_a_spreadsheet_would_run(capsys):
    import csv

    from critter_kitchen.simulate.report import csv_text

    args = ("--pack", LAB, "--games", "4", "--players", "2", "--workers", "1", "--format", "json")
    report = json.loads(simulate(capsys, *args)[1])
    first = report["cards"][0]
    first["name"] = '=HYPERLINK("http://x","y")'
    first["id"] = "@sum"
    rows = list(csv.DictReader(csv_text(report).splitlines()))
    assert (rows[0]["name"], rows[0]["id"]) == ('\'=HYPERLINK("http://x","y")', "'@sum")
    assert rows[0]["games"] == str(first["games"])  # numbers, negative ones too, stay numbers
    assert all(not row["name"].startswith("'") for row in rows[1:])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games: expected a whole number from 1 to 100000000, got '0'"),
        (["--games", "ten"], "--games: expected a whole number from 1 to 100000000, got 'ten'"),
        (["--players", "9"], "--players: expected a whole number from 2 to 5, got '9'"),
        (["--players", "1"], "--players: expected a whole number from 2 to 5, got '1'"),
        (["--seed", "-1"], "--seed: expected a whole number from 0 to 9223372036854775807, got '-1'"),
        (["--workers", "0"], "--workers: expected a whole number from 1 to 1024, got '0'"),
        (["--study", "fish-fanatik"], "--study: unknown card 'fish-fanatik'; did you mean 'fish-fanatic'?"),
        (["--cards", "critik=0"], "--cards: no card kind 'critik' is dealt; did you mean 'critic'?"),
        (["--cards", "critic"], "--cards: expected KIND=N, got 'critic'"),
        (["--cards", "rumor=x"], "--cards rumor: expected a whole number from 0 to 100, got 'x'"),
    ],
)
def test_bad_options_are_usage_errors(capsys, args, message):
    code, out, err = simulate(capsys, *args)
    assert (code, out, err) == (2, "", f"critter-kitchen: {message}\n")


def test_players_follow_the_packs_limits(capsys):
    code, out, err = simulate(capsys, "--pack", "a-la-carte", "--players", "8")
    assert (code, err) == (2, "critter-kitchen: --players: expected a whole number from 2 to 7, got '8'\n")


def test_progress_stays_off_standard_error_when_it_is_not_a_terminal(capsys):
    code, out, err = simulate(
        capsys, "--pack", LAB, "--games", "20", "--players", "2", "--workers", "1", "--format", "json"
    )
    assert (code, err) == (0, "")
    from critter_kitchen.simulate.cli import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = Progress(stream, 10)
    bar.start -= 5  # as if the run had gone on for five seconds
    bar(5)
    bar.close()
    assert stream.getvalue().startswith("\r[###############...............] 5/10 games, ")


# the deal model as data


def test_a_broken_deal_model_is_reported_located(capsys):
    code = cli.main(["validate", str(BROKEN)])
    out, err = capsys.readouterr()
    assert code == 1
    shown = err + out
    for line in (
        "tests/packs/broken-deal/rules.yaml:7:12: CK206 unknown ingredient type 'fsh'; did you mean 'fish'?",
        "tests/packs/broken-deal/rules.yaml:9:23: CK206 unknown spice 'allspise'; did you mean 'allspice'?",
        "tests/packs/broken-deal/rules.yaml:11:19: CK206 unknown token 'soop'; did you mean 'soup'?",
        "tests/packs/broken-deal/rules.yaml:14:7: CK206 the deal's rounds have no challenge round 'round3'",
        "tests/packs/broken-deal/rules.yaml:19:15: CK206 unknown card kind 'critik'; did you mean 'critic'?",
    ):
        assert line in shown


def test_a_pack_adds_to_the_deal_model_and_says_what_it_assumes():
    deal = ruleset("a-la-carte").deal
    assert deal["ingredient_tokens"].value["tofu"] == [[2, 4], [3, 4], [4, 3], [5, 2]]
    assert "fish" in deal["ingredient_tokens"].value
    assert deal["ingredient_tokens"].unverified.endswith(
        "an assumption of the À La Carte model: 13 tofu and 13 coffee tokens"
    )
    assert deal["cards"].value["head-chef"] == {"each": 1}
    bag = DealModel(ruleset()).bag
    assert sum(n for t, n in zip(bag.items, bag.counts, strict=True) if t[0] == "ingredient") == 91
    assert sum(n for t, n in zip(bag.items, bag.counts, strict=True) if t[0] == "spice") == 16


def test_unwritable_files_are_clear_errors(capsys, tmp_path):
    missing = tmp_path / "no-such-folder"
    code, out, err = simulate(capsys, "--pack", LAB, "--games", "2", "--records", str(missing / "games.jsonl"))
    assert (code, out) == (1, "")
    assert err == f"critter-kitchen: {missing / 'games.jsonl'}: cannot write the records: No such file or directory\n"
    code, out, err = simulate(
        capsys, "--pack", LAB, "--games", "2", "--workers", "1", "--output", str(missing / "r.txt")
    )
    assert (code, out) == (1, "")
    assert err == f"critter-kitchen: {missing / 'r.txt'}: cannot write the report: No such file or directory\n"

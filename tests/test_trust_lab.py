"""The balance lab trusts neither a pack's deal model nor its own options: the deal model is
held to named limits where it is written, a bag is sampled by its counts (never built token by
token), every output path is checked before the first game, a Dask address that cannot be
reached is one line within a connect timeout, and the CSV and JSON reports print no control
character.

The slow side of the huge bag (the time and memory it took before) is measured by
tools/bench_hostile_deal.py.
"""

from __future__ import annotations

import csv
import json
import random
import socket
import time
from pathlib import Path

import pytest

from critter_kitchen import cli, load_ruleset
from critter_kitchen.api import packs_for
from critter_kitchen.simulate import run as lab_run
from critter_kitchen.simulate.deal import DealModel
from critter_kitchen.simulate.game import Setup, play

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "packs" / "lab")
ESCAPE_PACK = str(ROOT / "tests" / "hostile" / "output" / "escape-pack")
TERMINAL_CONTROLS = "".join(map(chr, (*range(0x00, 0x0A), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)))


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def deal_pack(folder: Path, deal: str, parameters: str = "") -> str:
    """A pack of one rules card with this ``deal:`` section (YAML, indented by two)."""
    folder.mkdir()
    (folder / "pack.yaml").write_text(f"id: {folder.name}\nname: Hostile deal\n", "utf-8")
    (folder / "rules.yaml").write_text(
        f"id: {folder.name}-rules\nkind: rules\nname: Hostile deal\n{parameters}deal:\n{deal}", "utf-8"
    )
    return str(folder)


# the deal model's limits, located where the number is written


HUGE_BAG = "  ingredient_tokens:\n    value:\n      fish: [[2, 100000000000]]\n"
SPICE_HEAVY = "  spice_tokens:\n    value: {allspice: 100000}\n  rounds:\n    value:\n" + "".join(
    f"      round{n}: {{bag: 1000}}\n" for n in range(1, 8)
)


@pytest.mark.parametrize(
    ("deal", "line"),
    [
        (
            HUGE_BAG,
            "rules.yaml:7:18: CK005 the bag holds more than 10000 tokens (ingredient, spice and late tokens together)",
        ),
        (
            "  spice_tokens:\n    value: {fish: 5000, allspice: 4000}\n"
            "  late_tokens:\n    value: {round7: {allspice: 1000}}\n",
            "rules.yaml:8:32: CK005 the bag holds more than 10000 tokens (ingredient, spice and late tokens together)",
        ),
        ("  supply:\n    value: {soup: 50000000}\n", "rules.yaml:6:19: CK005 the supply holds more than 10000 tokens"),
        (
            SPICE_HEAVY,
            "rules.yaml:6:23: CK005 the bag holds more than 10000 tokens (ingredient, spice and late tokens together)\n"
            "rules.yaml:9:15: CK005 a player draws more than 100 items over a game "
            "(from the bag and the supply together)",
        ),
        (
            "  rounds:\n    value:\n" + "".join(f"      round{n}: {{}}\n" for n in range(1, 102)),
            "rules.yaml:7:7: CK005 a game has at most 100 rounds, not 101",
        ),
        (
            "  ingredient_tokens:\n    value:\n      fish: [[2, 4], [2000000, 1]]\n",
            "rules.yaml:7:23: CK005 a token's value is at most 1000000, not 2000000",
        ),
        (
            "  cards:\n    value:\n      rumor: {table: 1000}\n",
            "rules.yaml:7:22: CK005 at most 100 cards of a kind are dealt, not 1000",
        ),
        (
            "  counters:\n    value:\n      pepper: [0, 100000000]\n",
            "rules.yaml:8:19: CK005 a counter is at most 1000000, not 100000000",
        ),
    ],
    ids=[
        "huge-bag",
        "bag-with-late-tokens",
        "huge-supply",
        "spice-heavy-draws",
        "rounds",
        "token-value",
        "cards",
        "counter",
    ],
)
def test_a_deal_model_past_a_limit_is_refused_where_it_is_written(capsys, tmp_path, deal, line):
    pack = deal_pack(tmp_path / "hostile", deal, "counters: [pepper]\n" if "pepper" in deal else "")
    code, out, err = run(capsys, "validate", pack)
    assert (code, out) == (1, "")
    assert err.splitlines() == [f"{pack}/{one}" for one in line.split("\n")]


def test_the_lab_refuses_a_bag_past_its_limit_before_any_game(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(lab_run, "play_chunk", played_none)
    pack = deal_pack(tmp_path / "big-bag", "  ingredient_tokens:\n    value:\n      fish: [[2, 10001]]\n")
    code, out, err = run(capsys, "simulate", "--pack", pack, "--games", "1", "--workers", "1")
    assert (code, out) == (1, "")
    assert err == (
        f"{pack}/rules.yaml:7:18: the bag holds more than 10000 tokens (ingredient, spice and late tokens together)\n"
    )


def test_the_shipped_packs_are_within_the_limits(capsys):
    assert run(capsys, "validate", str(ROOT / "cards"))[0] == 0


# a bag is sampled by its counts


def test_a_bag_of_a_hundred_billion_tokens_is_one_number(tmp_path):
    """Past validation (the ruleset's deal model set by hand), a game from a bag of 10^11 fish
    takes what a game takes: the bag is one count, never a list of its tokens."""
    rs = load_ruleset(packs_for({}, [LAB]))
    rs.deal["ingredient_tokens"].value = {"fish": [[2, 100_000_000_000], [3, 1]]}
    rs.deal["rounds"].value = {f"round{n}": {"bag": 3} for n in range(1, 8)}
    started = time.perf_counter()
    model = DealModel(rs)
    record = play(Setup(model, 3, 5, effort="quick"), 0)
    assert time.perf_counter() - started < 10
    assert model.bag.items[:2] == [("ingredient", "fish", 2), ("ingredient", "fish", 3)]
    assert model.bag.counts[:2] == [100_000_000_000, 1]  # copied for each game, never drawn from
    assert len(record["players"]) == 3


def test_counted_draws_take_each_item_as_often_as_its_count_and_never_more():
    from critter_kitchen.simulate.deal import Counted

    bag = Counted(["a", "b", "c", "d"], [5, 0, 3, 2])
    rng = random.Random(3)
    everything = bag.copy().take(rng, 100)
    assert sorted(everything) == ["a"] * 5 + ["c"] * 3 + ["d"] * 2
    seen = {"a": 0, "b": 0, "c": 0, "d": 0}
    for _ in range(5000):
        (item,) = bag.copy().take(rng, 1)
        seen[item] += 1
    assert seen["b"] == 0
    assert 2300 < seen["a"] < 2700 and 1300 < seen["c"] < 1700 and 800 < seen["d"] < 1200
    assert bag.total == 10  # copies are drawn from, the bag itself keeps every token


def test_late_tokens_join_the_bag_as_their_round_begins():
    model = DealModel(load_ruleset(packs_for({}, [])))
    allspice = model.bag.items.index(("spice", "allspice", 0))
    assert model.bag.counts[allspice] == 2
    assert model.late == {"round7": [(allspice, 2)]}


# every output path is checked before the first game


def played_none(spec, chunk):
    raise AssertionError("a game was played")


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        ("--output", "/dev/full", "/dev/full: cannot write the report: not a regular file"),
        ("--records", "/dev/full", "/dev/full: cannot write the records: not a regular file"),
        (
            "--output",
            "/no/such/folder/report.txt",
            "/no/such/folder/report.txt: cannot write the report: No such file or directory",
        ),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_the_first_game(capsys, monkeypatch, option, path, message):
    monkeypatch.setattr(lab_run, "play_chunk", played_none)
    code, out, err = run(capsys, "simulate", "--pack", LAB, "--games", "100000", "--workers", "1", option, path)
    assert (code, out, err) == (1, "", f"critter-kitchen: {message}\n")


def test_a_folder_as_the_report_is_refused_before_the_first_game(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(lab_run, "play_chunk", played_none)
    code, out, err = run(capsys, "simulate", "--pack", LAB, "--workers", "1", "--output", str(tmp_path))
    assert (code, out, err) == (1, "", f"critter-kitchen: {tmp_path}: cannot write the report: not a regular file\n")


def test_the_records_and_the_report_in_one_file_are_refused(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(lab_run, "play_chunk", played_none)
    target = tmp_path / "games.jsonl"
    target.write_text("kept\n")
    (tmp_path / "link.jsonl").symlink_to(target)
    for records, output in (
        (target, target),
        (target, tmp_path / "link.jsonl"),
        (tmp_path / "new", tmp_path / "." / "new"),
    ):
        code, out, err = run(
            capsys, "simulate", "--pack", LAB, "--workers", "1", "--records", str(records), "--output", str(output)
        )
        assert (code, out, err) == (2, "", f"critter-kitchen: --records and --output name the same file: {records}\n")
    assert target.read_text() == "kept\n"


def test_a_records_file_that_fails_while_the_games_run_is_one_line(capsys, monkeypatch, tmp_path):
    from critter_kitchen.simulate import cli as lab_cli

    class Full:
        def writelines(self, lines):
            raise OSError(28, "No space left on device")

        def close(self):
            pass

    opened = lab_cli.Records.__init__

    def on_a_full_disk(self, path, output):
        opened(self, path, output)
        self.file.close()
        self.file = Full()

    monkeypatch.setattr(lab_cli.Records, "__init__", on_a_full_disk)
    target = tmp_path / "games.jsonl"
    code, out, err = run(capsys, "simulate", "--pack", LAB, "--games", "3", "--workers", "1", "--records", str(target))
    assert (code, out, err) == (
        1,
        "",
        f"critter-kitchen: {target}: cannot write the records: No space left on device\n",
    )


# --dask: one line within the connect timeout


@pytest.fixture
def quick_connect(monkeypatch):
    pytest.importorskip("distributed", reason="Dask is not installed: pip install 'critter-kitchen[cluster]'")
    monkeypatch.setattr(lab_run, "DASK_CONNECT_SECONDS", 1.0)
    monkeypatch.setattr(lab_run, "play_chunk", played_none)


def dask_run(capsys, address: str) -> tuple[int, str, str, float]:
    started = time.monotonic()
    code, out, err = run(capsys, "simulate", "--pack", LAB, "--games", "4", "--dask", address)
    return code, out, err, time.monotonic() - started


def test_a_dask_address_that_accepts_and_never_answers_is_one_line_within_the_timeout(capsys, quick_connect):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        code, out, err, took = dask_run(capsys, address)
    assert (code, out, err) == (1, "", f"critter-kitchen: --dask '{address}': no Dask scheduler answered within 1 s\n")
    assert took < 6


def test_a_dask_address_where_nothing_listens_is_one_line_within_the_timeout(capsys, quick_connect):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{closed.getsockname()[1]}"  # bound, never listening: refused
        code, out, err, took = dask_run(capsys, address)
    assert (code, out, err) == (1, "", f"critter-kitchen: --dask '{address}': no Dask scheduler answered within 1 s\n")
    assert took < 6


@pytest.mark.parametrize(
    ("address", "message"),
    [
        (
            "bogus://x:1",
            "--dask 'bogus://x:1': not a Dask scheduler address: unknown address scheme 'bogus' "
            "(known schemes: ['inproc', 'tcp', 'tls', 'ucx', 'ws', 'wss'])",
        ),
        ("tcp://", "--dask 'tcp://': not a Dask scheduler address: missing port number in address ''"),
    ],
)
def test_a_malformed_dask_address_is_one_line(capsys, quick_connect, address, message):
    code, out, err, took = dask_run(capsys, address)
    assert (code, out, err) == (1, "", f"critter-kitchen: {message}\n")


def test_the_connect_timeout_is_ten_seconds():
    assert lab_run.DASK_CONNECT_SECONDS == 10.0


# what the reports print


def test_the_csv_report_escapes_a_card_name_that_would_drive_the_terminal(capsys):
    args = ("simulate", "--pack", ESCAPE_PACK, "--games", "12", "--players", "2", "--effort", "quick", "--workers", "1")
    code, out, err = run(capsys, *args, "--format", "csv")
    assert (code, err) == (0, "")
    assert not any(ch in out for ch in TERMINAL_CONTROLS)
    rows = {row["id"]: row for row in csv.DictReader(out.splitlines())}
    assert rows["shady-rumor"]["name"] == "Shady\\x1b]0;owned\\x07\\x1b[2J\\nWinner: Mallory"
    code, out, err = run(capsys, *args, "--format", "json")
    assert not any(ch in out for ch in TERMINAL_CONTROLS)
    names = {c["id"]: c["name"] for c in json.loads(out)["cards"]}
    assert names["shady-rumor"] == "Shady\x1b]0;owned\x07\x1b[2J\nWinner: Mallory"  # JSON escapes: the same string


def test_the_csv_report_escapes_c1_controls_and_still_quotes_formulas():
    from critter_kitchen.simulate.report import csv_text

    row = {key: None for key in ("games", "stars_mean", "stars_change_mean", "winner_flip_rate", "owner_win_rate")}
    row |= {"owner_baseline": None, "flag": None, "kind": "rumor"}
    row |= {key: None for key in ("stars_ci", "stars_change_ci", "winner_flip_ci", "owner_win_ci")}
    report = {"cards": [{**row, "id": "=cmd", "name": "\x9b31mred\u202e"}]}
    (parsed,) = csv.DictReader(csv_text(report).splitlines())
    assert (parsed["id"], parsed["name"]) == ("'=cmd", "\\x9b31mred\\u202e")


# players


def test_players_are_bounded_whatever_the_rules_allow(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(lab_run, "play_chunk", played_none)
    pack = deal_pack(
        tmp_path / "crowd", "  priority:\n    value: seated\n", "parameters:\n  max_players: {value: 100000}\n"
    )
    code, out, err = run(capsys, "simulate", "--pack", pack, "--players", "1000")
    assert (code, out, err) == (2, "", "critter-kitchen: --players: expected a whole number from 2 to 20, got '1000'\n")

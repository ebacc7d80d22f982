"""Output that input cannot forge: CI annotations, terminal text and JSON stay one line per
problem, escaped, within the message length, whatever file names, messages, player names
and card data hold.

The hostile card pack and game record are in tests/hostile/output/; file and folder names
that git or some file systems handle badly (a comma, a line break, ESC) are made in a
temporary folder by the tests themselves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen.cli import build_parser, main
from critter_kitchen.errors import MAX_MESSAGE, Problem, escaped, printable
from critter_kitchen.report.json import json_text
from critter_kitchen.report.problems import REPORTER_BY_NAME, github_line

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile" / "output"
ESCAPE_PACK = HOSTILE / "escape-pack"
PACK_YAML = "id: trap-pack\nname: Trap\n"
BROKEN_CARD = "id: bad\nkind: rumor\nname: Bad\neffects:\n  - after: critic.rumors\n    do: award 1 star to nobody\n"
RECORD = """\
players:
  - name: {name}
  - name: Ben
cards:
  challenges:
    round3: [harbor-stew, forest-risotto, farmhouse-pie]
    round6: [toasted-cheese, river-chowder, braised-shank]
"""
TERMINAL_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")  # all but the line feed


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def broken_pack(folder: str, card_file: str = "bad.yaml") -> None:
    Path(folder).mkdir()
    Path(folder, "pack.yaml").write_text(PACK_YAML, "utf-8")
    Path(folder, card_file).write_text(BROKEN_CARD, "utf-8")


def record(name: str = "Ana", extra: str = "") -> str:
    Path("game.yaml").write_text(RECORD.format(name=name) + extra, "utf-8")
    return "game.yaml"


def is_clean(text: str) -> bool:
    """No character that a terminal or a CI log would act on, other than line feeds."""
    return TERMINAL_CONTROLS.search(text) is None


# GitHub workflow commands


def test_a_folder_name_cannot_add_annotation_properties(capsys):
    broken_pack("x,line=1,title=y")
    status, out, err = run(capsys, "validate", "x,line=1,title=y", "--format", "github")
    assert (status, err) == (1, "")
    assert out == "::error file=x%2Cline=1%2Ctitle=y/bad.yaml,line=6,col=25::CK202 unknown name 'nobody'\n"


def test_colons_and_percent_signs_in_a_file_name_are_escaped(capsys):
    broken_pack("50%:off")
    _, out, _ = run(capsys, "validate", "50%:off", "--format", "github")
    assert out == "::error file=50%25%3Aoff/bad.yaml,line=6,col=25::CK202 unknown name 'nobody'\n"


FORGING_FILE = "a\n::error file=forged.yaml::owned\x1b[2J.yaml"


def test_a_line_break_in_a_file_name_starts_no_workflow_command(capsys):
    broken_pack("p", FORGING_FILE)
    _, out, _ = run(capsys, "validate", "p", "--format", "github")
    assert out == (
        "::error file=p/a\\n%3A%3Aerror file=forged.yaml%3A%3Aowned\\x1b[2J.yaml,line=6,col=25"
        "::CK202 unknown name 'nobody'\n"
    )


def test_a_line_break_in_a_file_name_in_text_and_json(capsys):
    broken_pack("p", FORGING_FILE)
    status, out, err = run(capsys, "validate", "p")
    assert (status, out) == (1, "")
    assert err == (
        "p/a\\n::error file=forged.yaml::owned\\x1b[2J.yaml:6:25: CK202 unknown name 'nobody'\n"
        "    do: award 1 star to nobody\n"
        "                        ^^^^^^\n"
    )
    _, out, _ = run(capsys, "validate", "p", "--format", "json")
    assert '"path": "p/a\\n::error file=forged.yaml::owned\\u001b[2J.yaml",\n' in out
    assert json.loads(out)[0]["path"] == "p/" + FORGING_FILE  # JSON keeps the name exact, escaped
    assert is_clean(out)


CR_KEY = "Ana\r::error::forged 100%,x"
CR_RECORD = '\nchallenge_meals:\n  round3:\n    "Ana\\r::error::forged 100%,x": {}\n'


def test_a_carriage_return_in_a_message_in_every_format(capsys):
    record(extra=CR_RECORD)
    where = "challenge_meals.round3.Ana\\r::error::forged 100%,x"
    status, out, err = run(capsys, "validate", "game.yaml", "--format", "github")
    assert (status, err) == (1, "")
    assert out == (
        f"::error file=game.yaml,line=11,col=5::CK301 {where.replace('%', '%25')}: "
        "unknown player 'Ana\\r::error::forged 100%25,x'\n"
    )
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "json")
    assert json.loads(out)[0]["message"] == f"{where}: unknown player 'Ana\\r::error::forged 100%,x'"
    _, out, err = run(capsys, "validate", "game.yaml")
    assert err == f"game.yaml:11:5: {where}: CK301 unknown player 'Ana\\r::error::forged 100%,x'\n"


def test_messages_past_300_characters_are_cut_in_every_format(capsys):
    record(extra="  critic: " + "c" * 400 + "\n")
    # 'cards.critic: unknown critic card ' is 35 characters: 262 more and '...' make 300
    message = "cards.critic: unknown critic card '" + "c" * 262 + "..."
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "github")
    assert out == f"::error file=game.yaml,line=8,col=11::CK301 {message}\n"
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "json")
    assert json.loads(out)[0]["message"] == message
    assert len(message) == MAX_MESSAGE
    _, _, err = run(capsys, "validate", "game.yaml")
    assert err == "game.yaml:8:11: cards.critic: CK301 unknown critic card '" + "c" * 276 + "...\n"


def test_a_cut_never_splits_an_escape():
    assert printable("\x1b" * 100) == "\\x1b" * 74 + "..."
    assert printable("a" + "\x1b" * 100) == "a" + "\\x1b" * 74 + "..."
    assert printable("ab" + "\x1b" * 100) == "ab" + "\\x1b" * 73 + "..."


# the reporters, on problems made of hostile text

HOSTILE_TEXT = st.text(
    st.sampled_from(
        [
            "a",
            "0",
            "A",
            "2",
            "5",
            "C",
            " ",
            ",",
            ":",
            "%",
            "=",
            "\n",
            "\r",
            "\x1b",
            "\x07",
            "\x9b",
            "\u2028",
            "\u202e",
            "é",
            "李",
        ]
    ),
    max_size=400,
)


@settings(max_examples=60, deadline=None)
@given(
    problems=st.lists(
        st.builds(
            Problem,
            path=HOSTILE_TEXT,
            line=st.integers(0, 99),
            column=st.integers(0, 99),
            message=HOSTILE_TEXT,
            code=st.just("CK301"),
            where=HOSTILE_TEXT,
        ),
        max_size=4,
    )
)
def test_every_format_gives_one_clean_line_per_problem(problems):
    unique = sorted(set(problems))
    for name, reporter in REPORTER_BY_NAME.items():
        report = reporter(unique, 3)
        assert is_clean(report.out) and is_clean(report.err), name
        if name == "json":
            rows = json.loads(report.out)
            assert [r["path"] for r in rows] == [p.path for p in unique]
            assert all(len(r["message"]) <= MAX_MESSAGE and r["message"].isprintable() for r in rows)
        else:
            lines = (report.err or report.out).splitlines()
            assert len(lines) == max(len(unique), 1 if name == "text" else 0), name
    for p in unique:
        expected = (escaped(p.path), max(p.line, 1), max(p.column, 1), f"{p.code} {p.full_message()}")
        assert read_github(github_line(p)) == expected


def read_github(line: str) -> tuple[str, int, int, str]:
    """A workflow command read back as the runner reads it: properties split on ',' and '='."""
    assert line.startswith("::error ")
    props, data = line[len("::error ") :].split("::", 1)
    fields = dict(item.split("=", 1) for item in props.split(","))
    assert list(fields) == ["file", "line", "col"]
    return unescape_property(fields["file"]), int(fields["line"]), int(fields["col"]), unescape_data(data)


def unescape_property(text: str) -> str:
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def test_the_validate_formats_are_the_reporter_table():
    validate = build_parser()._subparsers._group_actions[0].choices["validate"]  # type: ignore[union-attr]
    choices = next(a.choices for a in validate._actions if a.dest == "format")
    assert list(choices) == ["text", "json", "github"] == list(REPORTER_BY_NAME)


def test_json_text_escapes_what_json_dumps_leaves_raw():
    value = {"name": "a\x7f\x9b[31m\u2028\u202e\U000e0041\ud800é李\n\x1b"}
    text = json_text(value, indent=2)
    assert text == '{\n  "name": "a\\u007f\\u009b[31m\\u2028\\u202e\\udb40\\udc41\\ud800é李\\n\\u001b"\n}'
    assert json.loads(text) == value
    assert json_text({"a": [1, "é"]}) == '{"a":[1,"é"]}'


# excerpts of card files


def test_an_excerpt_escapes_its_line_and_keeps_the_carets_under_the_place(capsys):
    Path("p").mkdir()
    Path("p/pack.yaml").write_text(PACK_YAML, "utf-8")
    Path("p/bad.yaml").write_text(
        BROKEN_CARD.replace("do: award 1 star to nobody", "do: |\n      award 1\tstar to nobody")
    )
    _, _, err = run(capsys, "validate", "p")
    assert err == (
        "p/bad.yaml:7:23: CK202 unknown name 'nobody'\n"
        "    award 1\\tstar to nobody\n"
        "                     ^^^^^^\n"
    )  # fmt: skip


def test_an_excerpt_of_a_long_line_is_a_window_around_the_place(capsys):
    Path("p").mkdir()
    Path("p/pack.yaml").write_text(PACK_YAML, "utf-8")
    long_reason = "x" * 600
    Path("p/bad.yaml").write_text(
        BROKEN_CARD.replace(
            "do: award 1 star to nobody",
            f'do: award 1 star to each(p for p in players) for "{long_reason}" if nobody',
        )
    )
    _, _, err = run(capsys, "validate", "p")
    head, line, carets = err.splitlines()
    assert head == "p/bad.yaml:6:657: CK201 unexpected 'if'; expected end of line"
    assert line == "    ..." + "x" * 279 + '" if nobody'  # all after the place fits: the rest is before it
    assert carets == " " * (4 + 3 + 279 + 2) + "^^"
    assert max(map(len, (head, line, carets))) <= MAX_MESSAGE


# player names


NAMES_REFUSED = [
    (
        '"Ana\\nWinner: Mallory with 99 stars"',
        "a player name must be one line; this one has a line break ('\\n'): 'Ana\\nWinner: Mallory with 99 stars'",
    ),
    ('"Ana\\rBen"', "a player name must be one line; this one has a line break ('\\r'): 'Ana\\rBen'"),
    ('"Ana\\u2028Ben"', "a player name must be one line; this one has a line break ('\\u2028'): 'Ana\\u2028Ben'"),
    (
        '"Ana\\e]0;owned\\a"',
        "a player name must be printable text; this one has the control character '\\x1b': 'Ana\\x1b]0;owned\\x07'",
    ),
    ('"Ana\\tBen"', "a player name must be printable text; this one has the control character '\\t': 'Ana\\tBen'"),
    ('"Ana\\x9b2J"', "a player name must be printable text; this one has the control character '\\x9b': 'Ana\\x9b2J'"),
    (
        '"Ana\\u202eneB"',
        "a player name must be printable text; this one has the unprintable character '\\u202e': 'Ana\\u202eneB'",
    ),
    ('"   "', "a player name cannot be blank: '   '"),
    ('""', "a player needs a name of 1 to 100 characters"),
    ("A" * 101, "a player needs a name of 1 to 100 characters"),
]


@pytest.mark.parametrize(("name", "message"), NAMES_REFUSED, ids=[m.split(";")[0][:40] for _, m in NAMES_REFUSED])
def test_a_player_name_must_be_printable_text(capsys, name, message):
    status, out, err = run(capsys, "score", record(name))
    assert (status, out) == (1, "")
    assert err == f"game.yaml:2:11: players[0].name: {message}\n"


def test_a_name_cannot_forge_the_winner_line(capsys):
    status, out, err = run(capsys, "score", record('"Ana\\nWinner: Mallory"'))
    assert (status, out) == (1, "")
    assert "Winner:" not in err.replace("Ana\\nWinner: Mallory", "")


def test_a_refused_name_through_validate_github(capsys):
    record('"Ana\\n::error::forged"')
    _, out, _ = run(capsys, "validate", "game.yaml", "--format", "github")
    assert out == (
        "::error file=game.yaml,line=2,col=11::CK301 players[0].name: a player name must be one line; "
        "this one has a line break ('\\n'): 'Ana\\n::error::forged'\n"
    )


def test_an_automated_rival_needs_a_printable_name_too(capsys):
    rival = 'players:\n  - name: Ben\n  - name: "McDogald\'s\\e[2J"\n    automated: {stars: 18, critic_quality: 41}\n'
    Path("game.yaml").write_text(rival + "cards:" + RECORD.split("cards:", 1)[1], "utf-8")
    status, out, err = run(capsys, "score", "game.yaml", "--pack", str(ROOT / "cards" / "solo"))
    assert (status, out) == (1, "")
    assert err == (
        "game.yaml:3:11: players[1].name: a player name must be printable text; "
        "this one has the control character '\\x1b': 'McDogald's\\x1b[2J'\n"
    )


def test_wide_and_combining_names_keep_the_table_aligned(capsys):
    Path("game.yaml").write_text(RECORD.format(name="李小龍").replace("name: Ben", 'name: "Zoe\\u0308"'), "utf-8")
    status, out, _ = run(capsys, "score", "game.yaml")
    assert status == 0
    head, first = out.splitlines()[:2]
    assert head == "                      李小龍  Zoe\u0308"  # six columns and three
    assert first == "challenge.round3           0    0"


# card data


def test_a_card_name_with_escape_sequences_through_cards(capsys):
    status, out, _ = run(capsys, "cards", "shady-rumor", "--pack", str(ESCAPE_PACK))
    assert status == 0
    assert out == (
        "Shady\\x1b]0;owned\\x07\\x1b[2J\\nWinner: Mallory (shady-rumor)\n"
        f"kind: rumor · pack: escape-pack · file: {ESCAPE_PACK / 'shady-rumor.yaml'}\n"
        "\n"
        "Text: Clears \\x1b[2J the screen \\x9b31m and rings \\x07.\n"
        "\n"
        "In English, from its data:\n"
        "\n"
        "After critic.rumors:\n"
        "    Give 1 star to every p in the players with the highest p's priority place.\n"
    )
    status, out, _ = run(capsys, "cards", "--pack", str(ESCAPE_PACK))
    assert "  shady-rumor          Shady\\x1b]0;owned\\x07\\x1b[2J\\nWinner: Mallory\n" in out
    assert is_clean(out)


def test_a_card_name_with_escape_sequences_through_score_text(capsys):
    game = str(HOSTILE / "escape-game.yaml")
    status, out, _ = run(capsys, "score", game, "--pack", str(ESCAPE_PACK), "--explain")
    assert status == 0
    assert "\nWinner: Ben with 1 star; decided by: more stars\n" in out
    assert "\n  critic.rumors [shady-rumor] Shady\\x1b]0;owned\\x07\\x1b[2J\\nWinner: Mallory: Ben 2: +1 star\n" in out
    assert out.count("Winner:") == 2 and out.count("\nWinner:") == 1
    assert is_clean(out)


def test_an_error_message_from_scoring_is_escaped_and_cut(capsys, monkeypatch):
    # an effect failing while scoring names the card file: its path may hold anything
    from critter_kitchen.commands import score
    from critter_kitchen.errors import EvaluationError

    message = "p\x1b[2J/x.yaml: card 'x' failed at stage 'critic.rumors': " + "y" * 400

    def fail(args):
        raise EvaluationError(message)

    monkeypatch.setattr(score, "run", fail)  # read when main() reads the command line
    status, out, err = run(capsys, "score", "x.yaml")
    assert (status, out) == (1, "")
    assert err == "critter-kitchen: " + printable(message) + "\n"
    assert err.startswith("critter-kitchen: p\\x1b[2J/x.yaml: card 'x'") and err.endswith("yyy...\n")

"""Standard input as a stream of records, and odd environments.

One bad record of a stream is that record's error alone: a JSON Lines line that is not a
record (``null``, cut short, not UTF-8, half a surrogate pair, far too long) and a record
whose card effects fail while it is scored each get their own ``{"source": "-:N",
"errors": [...]}`` line, and the others are scored. Standard input is read a line at a
time, so memory stays flat. A closed or full standard output, a closed standard input and
a terminal that cannot show every character each end in one clear line or in escaped
output, never a traceback (those run as child processes).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import fuzzlib
import pytest
import yaml

from critter_kitchen import load_ruleset, result_json, score_record
from critter_kitchen.loading import yamlpos
from critter_kitchen.loading.stream import read_stream

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["two-players", "three-players", "four-players", "five-players"]
LIMIT = yamlpos.MAX_BYTES
FULL_DISK = "critter-kitchen: cannot write standard output: No space left on device\n"


def example(name: str) -> dict:
    return yaml.safe_load((ROOT / "examples" / f"{name}.yaml").read_text("utf-8"))


RECORDS = [example(name) for name in EXAMPLES]
LINES = [json.dumps(record).encode() for record in RECORDS]


@pytest.fixture(scope="module")
def expected() -> list[dict]:
    """The result of each example record, scored on its own."""
    rules = load_ruleset()
    return [result_json(score_record(record, rules)) for record in RECORDS]


def feed(monkeypatch, data: bytes) -> None:
    class Stdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr("sys.stdin", Stdin)


def score_stdin(monkeypatch, data: bytes, *argv: str) -> fuzzlib.Outcome:
    feed(monkeypatch, data)
    outcome = fuzzlib.run_main(["score", "-", *argv], seconds=60)
    assert not outcome.crash, outcome.crash
    return outcome


def good_lines(count: int) -> list[bytes]:
    return [LINES[i % len(LINES)] for i in range(count)]


def result_line(number: int, index: int, expected: list[dict]) -> dict:
    """The output line of the good record ``index`` (of good_lines) read from line ``number``."""
    return {"source": f"-:{number}", **expected[index % len(LINES)]}


SURROGATE = LINES[0].replace(b'"name": "Ana"', b'"name": "\\ud800"')
SURROGATE_AT = SURROGATE.index(b"\\ud800") + 1
NOT_UTF8 = LINES[0].replace(b'"name": "Ana"', b'"name": "An\xe9"')
NOT_UTF8_AT = NOT_UTF8.index(b"\xe9") + 1

# Each bad line, and the one error message it gets when read as line N.
BAD_LINES: dict[str, tuple[bytes, str]] = {
    "null": (b"null", "-:{n}: record: expected a mapping, got null"),
    "a list": (b"[1, 2]", "-:{n}: record: expected a mapping, got a list"),
    "cut short": (b'{"players": [{"name": "Ana"', "-:{n}:1:28: JSON syntax error: Expecting ',' delimiter"),
    "not UTF-8": (NOT_UTF8, f"-:{{n}}:1:{NOT_UTF8_AT}: file is not UTF-8 text"),
    "half a surrogate pair": (
        SURROGATE,
        f"-:{{n}}:1:{SURROGATE_AT}: JSON syntax error: \\ud800 is half a surrogate pair, not a character",
    ),
    "longer than the limit": (b'{"x": "' + b"a" * (LIMIT + 10) + b'"}', f"-:{{n}}: line is longer than {LIMIT} bytes"),
    "a duplicate key": (b'{"players": [], "players": []}', "-:{n}: duplicate key 'players'"),
}


# one bad line among good ones


@pytest.mark.parametrize("kind", BAD_LINES)
def test_one_bad_line_among_999_good_ones_is_that_records_error_alone(monkeypatch, expected, kind):
    bad, message = BAD_LINES[kind]
    lines = good_lines(999)
    lines.insert(500, bad)  # line 501
    out = score_stdin(monkeypatch, b"\n".join(lines) + b"\n", "--format", "json")
    assert out.status == 1
    assert out.err == ""
    printed = out.out.splitlines()
    assert len(printed) == 1000
    assert printed[500] == json.dumps({"source": "-:501", "errors": [message.format(n=501)]}, separators=(",", ":"))
    scored = [json.loads(line) for i, line in enumerate(printed) if i != 500]
    assert scored == [result_line(n, i, expected) for i, n in enumerate([*range(1, 501), *range(502, 1001)])]


@pytest.mark.parametrize("kind", BAD_LINES)
def test_a_bad_first_line_is_that_records_error_alone(monkeypatch, expected, kind):
    bad, message = BAD_LINES[kind]
    out = score_stdin(monkeypatch, b"\n".join([bad, *good_lines(3)]) + b"\n", "--format", "json")
    assert out.status == 1
    printed = out.out.splitlines()
    assert json.loads(printed[0]) == {"source": "-:1", "errors": [message.format(n=1)]}
    assert [json.loads(line) for line in printed[1:]] == [result_line(n, n - 2, expected) for n in (2, 3, 4)]


def test_a_last_line_cut_short_without_its_line_end(monkeypatch, expected):
    out = score_stdin(monkeypatch, b"\n".join([*good_lines(2), LINES[0][:40]]), "--format", "json")
    assert out.status == 1
    printed = out.out.splitlines()
    assert [json.loads(line) for line in printed[:2]] == [result_line(n, n - 1, expected) for n in (1, 2)]
    message = "-:3:1:30: JSON syntax error: Unterminated string starting at"
    assert json.loads(printed[2]) == {"source": "-:3", "errors": [message]}


def test_blank_lines_are_no_records_but_keep_their_numbers(monkeypatch, expected):
    out = score_stdin(monkeypatch, b"\n  \n" + LINES[0] + b"\r\n\n" + LINES[1] + b"\n\n", "--format", "json")
    assert out.status == 0, out.err
    assert [json.loads(line) for line in out.out.splitlines()] == [
        {"source": "-:3", **expected[0]},
        {"source": "-:5", **expected[1]},
    ]


def test_bad_lines_in_text_format_go_to_standard_error(monkeypatch):
    out = score_stdin(monkeypatch, b"\n".join([LINES[0], b"null", LINES[1]]) + b"\n")
    assert out.status == 1
    assert out.err == "-:2: record: expected a mapping, got null\n"
    assert [line for line in out.out.splitlines() if line.startswith("== ")] == ["== -:1", "== -:3"]


# what makes standard input one document


@pytest.mark.parametrize(
    "text",
    [
        LINES[0] + b"\n",  # one JSON object on one line, and nothing more
        b"# a game\n" + LINES[0] + b"\n",
        b"---\n" + LINES[0] + b"\n",
        json.dumps(RECORDS[0], indent=2).encode(),
        yaml.safe_dump(RECORDS[0]).encode(),
        (ROOT / "examples" / "two-players.yaml").read_bytes(),
    ],
    ids=["one-line", "comment-first", "document-start", "pretty-json", "yaml", "yaml-file"],
)
def test_input_that_reads_as_one_document_is_one_record(monkeypatch, expected, text):
    out = score_stdin(monkeypatch, text, "--format", "json")
    assert out.status == 0, out.err
    assert json.loads(out.out) == expected[0]  # one object, no "source": as for one file


def test_a_document_that_does_not_parse_is_one_error(monkeypatch):
    out = score_stdin(monkeypatch, b"players: [\ncards: {\n", "--format", "json")
    assert out.status == 1
    assert out.err.startswith("-:3:1: YAML syntax error: ")


def test_a_document_past_the_size_limit_is_refused_unread(monkeypatch):
    out = score_stdin(monkeypatch, b"players:\n  - name: Ana\n#" + b"x" * (2 * LIMIT) + b"\n", "--format", "json")
    assert out.status == 1
    assert out.err == f"-:1:1: file is larger than {LIMIT} bytes\n"


def test_standard_input_among_files(monkeypatch, expected, tmp_path):
    game = tmp_path / "game.json"
    game.write_bytes(LINES[1])
    out = score_stdin(monkeypatch, b"\n".join([LINES[0], b"null"]) + b"\n", str(game), "--format", "json")
    assert out.status == 1
    assert [json.loads(line) for line in out.out.splitlines()] == [
        {"source": "-:1", **expected[0]},
        {"source": "-:2", "errors": ["-:2: record: expected a mapping, got null"]},
        {"source": str(game), **expected[1]},
    ]


# memory


def test_reading_a_long_stream_holds_one_line_at_a_time():
    """1 MB of records and one 10 MB line are read holding a few MB, whatever the stream's length."""
    stream = io.BytesIO(b"\n".join([*good_lines(500), b'{"x": "' + b"y" * (5 * LIMIT) + b'"}', LINES[0]]) + b"\n")
    tracemalloc.start()
    try:
        sources = [entry.source for entry in read_stream(stream) if entry.problems]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sources == ["-:501"]
    assert len(stream.getbuffer()) > 11 * 2**20
    assert peak < 3 * LIMIT + 2**20, f"{peak / 2**20:.1f} MiB"


# a record whose card effects fail


@pytest.fixture
def endless_pack(tmp_path) -> Path:
    """A pack whose one rumor loops past the effect budget of a game."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text("id: endless-pack\nname: Endless\n", "utf-8")
    loops = "".join("      " + "  " * i + f"for v{i} in ingredient_types:\n" for i in range(8))
    (pack / "endless.yaml").write_text(
        "id: endless\nkind: rumor\nname: Endless\neffects:\n  - after: critic.rumors\n    do: |\n"
        + loops
        + "      " + "  " * 8 + "let x = 1\n",
        "utf-8",
    )  # fmt: skip
    return pack


def endless_record() -> bytes:
    record = example("two-players")
    record["cards"]["rumors"] = ["endless"]
    return json.dumps(record).encode()


BUDGET = (
    "{source}: {pack}/endless.yaml: card 'endless' at stage 'critic.rumors': "
    "the effects of this game took more than 200,000 steps (statements, loop items and awards)"
)


def test_a_record_past_the_effect_budget_fails_alone_in_json_lines(monkeypatch, expected, endless_pack):
    data = b"\n".join([LINES[0], endless_record(), LINES[1]]) + b"\n"
    out = score_stdin(monkeypatch, data, "--pack", str(endless_pack), "--format", "json")
    assert out.status == 1
    assert out.err == ""
    assert [json.loads(line) for line in out.out.splitlines()] == [
        {"source": "-:1", **expected[0]},
        {"source": "-:2", "errors": [BUDGET.format(source="-:2", pack=endless_pack)]},
        {"source": "-:3", **expected[1]},
    ]


def test_a_record_past_the_effect_budget_fails_alone_among_files(expected, endless_pack, tmp_path):
    (tmp_path / "good.json").write_bytes(LINES[0])
    (tmp_path / "endless.json").write_bytes(endless_record())
    names = [str(tmp_path / "endless.json"), str(tmp_path / "good.json")]
    out = fuzzlib.run_main(["score", *names, "--pack", str(endless_pack)], seconds=60)
    assert not out.crash, out.crash
    assert out.status == 1
    assert out.err == BUDGET.format(source=names[0], pack=endless_pack) + "\n"
    assert out.out.startswith(f"== {names[1]}\n")


# odd environments, in a child process


def child_env(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LANG")}
    return {**env, "LANG": "C.UTF-8", **changes}


def run_child(
    shell: str, *, stdin: bytes = b"", env: dict[str, str] | None = None, stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    """``critter-kitchen`` run through ``sh -c``, so that redirections such as ``>&-`` apply."""
    command = f'"$0" -m critter_kitchen {shell}'
    done = subprocess.run(
        ["sh", "-c", command, sys.executable], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
        env=env or child_env(), timeout=60,
    )  # fmt: skip
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr, done.stderr.decode()
    return done


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "game.json"
    path.write_bytes(LINES[0])
    return path


def test_closed_standard_output(game):
    done = run_child(f"score {game} >&-")
    assert (done.returncode, done.stderr) == (74, b"critter-kitchen: standard output is closed\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_standard_output_on_a_full_disk_short_output(game, fmt):
    # Output this short waits in the buffer until the end: the failure shows at the last flush.
    done = run_child(f"score {game} --format {fmt} > /dev/full")
    assert (done.returncode, done.stderr.decode()) == (74, FULL_DISK)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_standard_output_on_a_full_disk_long_output():
    done = run_child("score - --format json > /dev/full", stdin=b"\n".join(good_lines(200)) + b"\n")
    assert (done.returncode, done.stderr.decode()) == (74, FULL_DISK)


def test_closed_standard_input():
    done = run_child("score - <&-")
    assert (done.returncode, done.stdout, done.stderr) == (1, b"", b"-: cannot read standard input: it is closed\n")


def test_closed_standard_input_among_files(game, expected):
    done = run_child(f"score {game} - --format json <&-")
    assert done.returncode == 1
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"source": str(game), **expected[0]},
        {"source": "-", "errors": ["-: cannot read standard input: it is closed"]},
    ]


def test_half_a_surrogate_pair_in_a_json_file(game):
    game.write_bytes(SURROGATE)
    done = run_child(f"score {game} --format json")
    assert (done.returncode, done.stdout) == (1, b"")
    message = f"{game}:1:{SURROGATE_AT}: JSON syntax error: \\ud800 is half a surrogate pair, not a character\n"
    assert done.stderr.decode() == message


def test_a_surrogate_pair_in_a_json_file_is_one_character(game):
    game.write_bytes(LINES[0].replace(b'"Ana"', b'"\\ud83d\\ude00"'))
    done = run_child(f"score {game} --format json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["standings"][0]["name"] == "\U0001f600"


def named(game: Path, name: str) -> None:
    """Give the winner of the two-player example a name the terminal may not be able to show."""
    game.write_bytes(LINES[0].replace(b'"Ana"', json.dumps(name).encode()))


ODD_TERMINALS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
    "C locale": {"LC_ALL": "C", "PYTHONUTF8": "0"},
}


@pytest.mark.parametrize("terminal", ODD_TERMINALS)
def test_a_terminal_that_cannot_show_a_character_gets_it_escaped(game, terminal):
    named(game, "J\u00f6\U0001f600")
    done = run_child(f"score {game}", env=child_env(**ODD_TERMINALS[terminal]))
    assert (done.returncode, done.stderr) == (0, b"")
    header = done.stdout.splitlines()[0].split()
    shown = b"J\xf6\\U0001f600" if terminal == "latin-1" else b"J\\xf6\\U0001f600"
    assert header == [shown, b"Ben"]


@pytest.mark.parametrize("terminal", ODD_TERMINALS)
def test_json_for_a_terminal_that_cannot_show_a_character_is_ascii(game, terminal):
    named(game, "J\u00f6\U0001f600")
    done = run_child(f"score {game} --format json", env=child_env(**ODD_TERMINALS[terminal]))
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.isascii()
    assert json.loads(done.stdout)["winner"] == "J\u00f6\U0001f600"


def test_a_problem_on_a_terminal_that_cannot_show_a_character(game):
    game.write_bytes(LINES[0].replace(b'"fish-fanatic"', '"p\u00e2t\u00e9"'.encode()))
    done = run_child(f"score {game}", env=child_env(PYTHONIOENCODING="ascii"))
    assert done.returncode == 1
    column = LINES[0].index(b'"fish-fanatic"') + 1  # the line is ASCII up to there
    assert done.stderr.decode() == f"{game}:1:{column}: cards.rumors[0]: unknown rumor card 'p\\xe2t\\xe9'\n"


def test_a_reader_that_goes_away_is_no_error(tmp_path):
    """``| head -1``: the rest of the output has nowhere to go; that is not a failure."""
    lines = tmp_path / "games.jsonl"
    lines.write_bytes(b"\n".join(good_lines(2_000)) + b"\n")
    with lines.open("rb") as stdin, subprocess.Popen(
        [sys.executable, "-m", "critter_kitchen", "score", "-", "--format", "json"],
        stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(),
    ) as child:  # fmt: skip
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()
        err = child.stderr.read()
        status = child.wait(timeout=60)
    assert json.loads(first)["source"] == "-:1"
    assert (status, err) == (0, b"")

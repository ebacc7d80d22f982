"""A JSON Lines batch's reading and writing: the walk of the data and the bytes written directly.

- fastjson reads a text by one of two tests of orjson's answer (the compiled build walks
  the data, the interpreted one scans orjson's writing of it): each, run here in this
  build, reads only what the json module reads the same, on the test records, hostile
  text and generated text, and refuses what it must (half a surrogate pair among it, so
  that ``parse_json`` need look for one only in what the json module read);
- the walk counts keys as a plain recursive count does, and refuses every float, every
  type json would not read back the same, and nesting past orjson's limit;
- a result line is written as ``json_text`` and a newline, encoded: orjson's bytes are
  taken directly only where those are the same, in either test;
- a batch written to the interpreter's own standard output (bytes, not text) prints what
  the text stream prints, with and without orjson: good records, non-ASCII names, a name
  refused for its DEL, a lone surrogate, a duplicate key; and the bytes are written
  directly only to that UTF-8 output.
"""

from __future__ import annotations

import enum
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import cli, commands, fastjson
from critter_kitchen.errors import InputError
from critter_kitchen.loading import files
from critter_kitchen.report.json import json_line, json_text

orjson = pytest.importorskip("orjson")

ROOT = Path(__file__).resolve().parent.parent
READERS = {"walked": fastjson.read_walked, "scanned": fastjson.read_scanned}


def _reference(text: str) -> tuple[str, object]:
    try:
        return "data", files.json_module_read("-:1", text)
    except InputError as e:
        return "error", [p.format() for p in e.problems]


def _typed(value: object) -> object:
    """``value`` with the type of every part shown, so that 1, 1.0 and True differ."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value), value)


def _read_as_reference(reader: str, text: str) -> bool:
    """The reader reads ``text`` as the json module does, or leaves it; whether it read it."""
    data = READERS[reader](orjson, text)
    if data is fastjson.UNREAD:
        return False
    kind, expected = _reference(text)
    assert kind == "data", (text, expected)
    assert _typed(data) == _typed(expected), text
    assert files._lone_surrogate(text) is None, text  # parse_json looks for one only in what json read
    return True


def _record_texts() -> list[str]:
    found = []
    for path in sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/**/*.yaml")]):
        data = yaml.safe_load(path.read_text("utf-8"))
        found += [json.dumps(data), json.dumps(data, indent=2), json.dumps(data, ensure_ascii=False)]
    return found


@pytest.mark.parametrize("reader", READERS)
def test_each_reader_reads_the_records_as_the_json_module(reader: str) -> None:
    texts = _record_texts()
    assert len(texts) > 30
    assert sum(_read_as_reference(reader, t) for t in texts) == len(texts)  # and every one is read fast


REFUSED = [
    '{"a": 1, "a": 2}',
    '{"a": {"b": 1, "b": 1}}',
    '{"a:b": 1, "a:b": 1}',
    '{"k\\u003a": 1, "k": 1, "k": 1}',
    '{"a": 1.0}',
    '{"a": 1e16}',
    '{"a": 1E2}',
    '{"a": -0.0}',
    '{"a": 123456789012345678901234567890}',
    '{"a": -9223372036854775809}',
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": "\\ud800"}',
    '{"a": 1,}',
    "\ufeff{}",
    "[" * 300 + "]" * 300,
    "1.5",
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text", REFUSED)
def test_what_orjson_reads_otherwise_is_left_to_the_json_module(reader: str, text: str) -> None:
    assert READERS[reader](orjson, text) is fastjson.UNREAD


def test_a_colon_inside_a_string_is_left_to_the_json_module_by_the_walk() -> None:
    text = '{"name": "a:b", "b": [1, {"c": "x"}]}'
    assert fastjson.read_walked(orjson, text) is fastjson.UNREAD
    assert _read_as_reference("scanned", text)  # the scan counts the string's colons on both sides


JSON_BITS = ['{', '}', '[', ']', ',', ':', ' ', '"', '"a"', '"b"', '"a:b"', '"\\u003a"', '"\\u00e9"', '"é"',
             '"\\ud83d\\ude00"', '"\\ud800"', '"\\\\"', '"\\""', "0", "1", "-0", "12", "1.5", "1e5", "2E-3",
             "18446744073709551616", "-9223372036854775808", "true", "false", "null", "NaN", "\n", "\x00"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(JSON_BITS), max_size=30).map("".join), st.sampled_from(sorted(READERS)))
def test_each_reader_reads_generated_text_as_the_json_module(text: str, reader: str) -> None:
    _read_as_reference(reader, text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=2000, deadline=None)
@given(JSON_VALUES.map(json.dumps), st.sampled_from(sorted(READERS)))
def test_each_reader_reads_written_values_as_the_json_module(text: str, reader: str) -> None:
    _read_as_reference(reader, text)


def _plain_count(value: object) -> int:
    """The walk's answer, stated plainly: the keys, or -1 for anything but the plain types."""
    if isinstance(value, dict):
        inner = [_plain_count(v) for v in value.values()]
        return -1 if -1 in inner else len(value) + sum(inner)
    if isinstance(value, list):
        inner = [_plain_count(v) for v in value]
        return -1 if -1 in inner else sum(inner)
    return 0 if isinstance(value, str) or value is None or type(value) in (int, bool) else -1


@settings(max_examples=3000, deadline=None)
@given(JSON_VALUES)
def test_the_walk_counts_as_a_plain_count(value: object) -> None:
    assert fastjson.plain_keys(value) == _plain_count(value)


class Level(enum.IntEnum):
    LOW = 1


@pytest.mark.parametrize(
    "value",
    [1.5, [1, [2.0]], {"a": {"b": float("inf")}}, (1, 2), {"a": (1,)}, Level.LOW, [Level.LOW], {"a": b"x"}],
)
def test_the_walk_refuses_what_json_would_not_read_back_the_same(value: object) -> None:
    assert fastjson.plain_keys(value) == -1


def test_the_walk_refuses_nesting_that_orjson_would_not_write() -> None:
    def nested(depth: int) -> object:
        value: object = []
        for _ in range(depth):
            value = [value]
        return value

    assert fastjson.plain_keys(nested(fastjson._DEPTH)) == 0
    assert fastjson.plain_keys(nested(fastjson._DEPTH + 1)) == -1
    orjson.dumps(nested(fastjson._DEPTH))  # the walk takes what orjson writes, and no more
    with pytest.raises(TypeError):
        orjson.dumps(nested(fastjson._DEPTH + 1))


PRINTED_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(st.characters(blacklist_categories=())),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=3000, deadline=None)
@given(PRINTED_VALUES, st.booleans())
def test_a_line_is_the_text_of_the_value_and_a_newline(value: object, walked: bool) -> None:
    expected = json_text(value) + "\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fastjson, "WALKED", walked)
        assert json_line(value, "utf-8", "backslashreplace") == expected.encode("utf-8", "backslashreplace")
        written = fastjson.write_line(value)
    if written is not None:
        assert written == (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def test_a_line_of_a_result_is_written_by_orjson_in_either_test(monkeypatch) -> None:
    """The bytes are orjson's for a plain result, so that the quick path is not a path never taken."""
    value = {"source": "-:1", "winner": "Ana", "standings": [{"rank": 1, "stars": 3}], "notes": ["critic.rumors"]}
    for walked in (True, False):
        monkeypatch.setattr(fastjson, "WALKED", walked)
        assert fastjson.write_line(value) == orjson.dumps(value) + b"\n"


def test_the_bytes_are_written_directly_only_to_the_interpreters_utf8_output(monkeypatch) -> None:
    text = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\r\n")
    assert commands.BinaryOutput.of(text) is None  # not standard output: it may translate newlines
    assert commands.BinaryOutput.of(commands.Output(text)) is None
    assert commands.BinaryOutput.of(io.StringIO()) is None
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    monkeypatch.setattr(sys, "__stdout__", latin)
    assert commands.BinaryOutput.of(latin) is None
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="UTF8", errors="backslashreplace")
    utf8.write("before")
    monkeypatch.setattr(sys, "__stdout__", utf8)
    binary = commands.BinaryOutput.of(commands.Output(utf8))
    assert binary is not None
    assert (binary.encoding, binary.errors, binary.flush_each) == ("UTF8", "backslashreplace", False)
    binary.write(b"after\n")
    utf8.flush()
    assert utf8.buffer.getvalue() == b"beforeafter\n"  # what the text stream held is written first


def _batch_lines() -> bytes:
    example = yaml.safe_load((ROOT / "examples" / "five-players.yaml").read_text("utf-8"))
    good = json.dumps(example)
    names = {"Jo": "Jo\u00e9", "Kim": "K\u00efm\u2603"}
    renamed = good
    for old, new in names.items():
        renamed = renamed.replace(f'"{old}"', json.dumps(new))
    lines = [good, renamed, json.dumps(example, ensure_ascii=False).replace('"Jo"', '"\\ud800"')]
    lines += ['{"players": [], "players": []}', '{"players": 1.5}', "not json", good.replace('"Jo"', '"J:o"')]
    lines.append(good.replace('"Jo"', json.dumps("J\u007fo\u2028")))  # refused, its name shown escaped
    return ("\n".join(lines * 2) + "\n").encode()


@pytest.mark.parametrize("with_orjson", [True, False])
def test_a_batch_to_standard_output_prints_what_the_text_stream_prints(tmp_path, with_orjson: bool) -> None:
    """The same batch in a process of its own (standard output a pipe: the bytes written
    directly), against the text stream in this process, the json module alone."""
    data = _batch_lines()
    script = "import sys; from critter_kitchen import cli, commands, fastjson\n"
    if not with_orjson:
        script += "fastjson._orjson = False\n"
    script += "sys.exit(cli.main())"
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(tmp_path / "cache"), PYTHONIOENCODING="utf-8")
    argv = ["score", "-", "--format", "json"]
    done = subprocess.run([sys.executable, "-c", script, *argv], input=data, capture_output=True, env=env, timeout=600)

    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n")
    saved = (sys.stdin, sys.stdout, fastjson._orjson)
    try:
        sys.stdin = type("Stdin", (), {"buffer": io.BytesIO(data)})  # type: ignore[assignment]
        sys.stdout = stdout
        fastjson._orjson = False
        status = cli.main(argv)
    finally:
        sys.stdin, sys.stdout, fastjson._orjson = saved
    stdout.flush()
    assert (done.returncode, done.stdout) == (status, out.getvalue()), done.stderr.decode()[-2000:]
    assert status == 1
    printed = done.stdout.decode()
    assert printed.count('"winner"') == 6 and "K\u00efm\u2603" in printed and "J\\\\x7fo" in printed
    assert "duplicate key 'players'" in printed and "half a surrogate pair" in printed

"""The faster paths of ``score``: each compared with the plain one it stands for.

- A plain ``score`` command line is read without argparse: the reading equals argparse's
  on generated command lines, and anything else is left to argparse.
- JSON is read and written by orjson where it gives what the json module gives
  (:mod:`critter_kitchen.fastjson`): its answers equal the json module's on the records,
  on hostile and generated text and values, and a batch gives the same bytes without it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path

import fuzzlib
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import cli, fastjson
from critter_kitchen.commands import score as score_command
from critter_kitchen.errors import InputError
from critter_kitchen.loading import files

ROOT = Path(__file__).resolve().parent.parent

# Words a command line may hold: the options of every command, abbreviations and forms that
# only argparse reads, values and games (some that look like options).
WORDS = [
    "score", "validate", "--format", "--form", "--format=json", "json", "text", "html", "--explain",
    "--pack", "--pack=x", "--packs", "-h", "--help", "--version", "--", "-", "-x", "-1", "a.yaml",
    "b.json", "", " ", "-a b", "score", "base", "--whole-packs",
]  # fmt: skip


def _argparse_reading(argv: list[str]) -> dict[str, object] | None:
    """What argparse makes of ``argv``: its namespace, or None where it stops (an error, help)."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(cli.build_parser().parse_args(argv))
        except SystemExit:
            return None


COMMAND_LINES = st.lists(st.sampled_from(WORDS), max_size=7).map(lambda rest: ["score", *rest])


@settings(max_examples=3000, deadline=None)
@given(COMMAND_LINES | st.lists(st.sampled_from(WORDS)))
def test_a_plain_score_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    plain = score_command.plain_arguments(argv)
    if plain is not None:  # read without argparse: exactly as argparse reads it
        assert vars(plain) == _argparse_reading(argv)


def test_the_plain_reading_takes_the_usual_command_lines() -> None:
    for argv in (
        ["score", "a.yaml"],
        ["score", "-", "--format", "json"],
        ["score", "--pack", "p", "a.yaml", "b.yaml", "--explain", "--pack", "q", "--format", "text"],
    ):
        plain = score_command.plain_arguments(argv)
        assert plain is not None
        assert vars(plain) == _argparse_reading(argv)
    for argv in (["score"], ["score", "a", "--explain", "b"], ["score", "--form", "json", "a"], ["score", "-h"]):
        assert score_command.plain_arguments(argv) is None, argv
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


# --- JSON read and written by orjson where it equals the json module ---------------------------

pytest.importorskip("orjson")


def _reference_read(text: str) -> tuple[str, object]:
    """The json module's reading: ("data", data) or ("error", the messages)."""
    try:
        return "data", files.json_module_read("-:1", text)
    except InputError as e:
        return "error", [p.format() for p in e.problems]


def _assert_read_as_reference(text: str) -> bool:
    """fastjson reads ``text`` as the json module does, or leaves it to it; whether it read it."""
    fast = fastjson.read(text)
    if fast is fastjson.UNREAD:
        return False
    kind, data = _reference_read(text)
    assert kind == "data", (text, data)
    assert _typed(fast) == _typed(data), text
    return True


def _typed(value: object) -> object:
    """``value`` with the type of every part shown, so that 1, 1.0 and True differ."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value), value)


def _record_texts() -> list[str]:
    """The test and example records as JSON, written in several ways."""
    found = []
    for path in sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/**/*.yaml")]):
        data = yaml.safe_load(path.read_text("utf-8"))
        found += [
            json.dumps(data),
            json.dumps(data, indent=2),
            json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        ]
    found += [p.read_text("utf-8") for p in sorted(ROOT.glob("tests/**/*.json")) if "schemas" not in p.parts]
    return found


def test_fastjson_reads_the_records_as_the_json_module() -> None:
    texts = _record_texts()
    assert sum(_assert_read_as_reference(t) for t in texts) >= len(texts) // 2  # the fast path is taken


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # a duplicate key: orjson keeps the last
        '{"a": {"b": 1, "b": 1}}',
        '{"a:b": 1, "a:b": 1}',
        '{"k\\u003a": 1, "k": 1, "k": 1}',  # an escaped colon makes one more than the text shows
        '{"a": 1.0}',
        '{"a": 1e16}',
        '{"a": 1E2}',
        '{"a": 123456789012345678901234567890}',  # orjson makes a float of it
        '{"a": -9223372036854775809}',
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": "\\ud800"}',
        '{"a": "\\udc00"}',
        '{"a": 1,}',
        "\ufeff{}",
        '{"a": 1}\x0c',
        "[" * 2000 + "]" * 2000,
    ],
)
def test_what_orjson_reads_otherwise_is_left_to_the_json_module(text: str) -> None:
    assert fastjson.read(text) is fastjson.UNREAD


def test_a_duplicate_key_is_refused_with_the_same_message() -> None:
    with pytest.raises(InputError) as e:
        files.parse_json("-:3", '{"players": [], "players": []}')
    assert [p.format() for p in e.value.problems] == ["-:3: duplicate key 'players'"]


JSON_BITS = ['{', '}', '[', ']', ',', ':', ' ', '"', '"a"', '"b"', '"a:b"', '"\\u003a"', '"\\u00e9"', '"é"',
             '"\\ud83d\\ude00"', '"\\ud800"', '"\\\\"', '"\\""', "0", "1", "-0", "12", "1.5", "1e5", "2E-3",
             "18446744073709551616", "true", "false", "null", "NaN", "\n", "\t", "\x00", "\u2028"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(JSON_BITS), max_size=30).map("".join))
def test_fastjson_reads_generated_text_as_the_json_module(text: str) -> None:
    _assert_read_as_reference(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=3000, deadline=None)
@given(JSON_VALUES)
def test_fastjson_writes_as_the_json_module(value: object) -> None:
    fast = fastjson.write(value)
    if fast is not None:
        assert fast == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=3000, deadline=None)
@given(JSON_VALUES.map(json.dumps))
def test_fastjson_reads_written_values_as_the_json_module(text: str) -> None:
    _assert_read_as_reference(text)


def test_a_batch_gives_the_same_bytes_without_orjson(monkeypatch) -> None:
    """The records, good and bad, as JSON Lines on standard input: the same output and errors."""
    lines = [t.replace("\n", " ") for t in _record_texts()]
    lines += ['{"players": [], "players": []}', '{"players": 1.5}', "not json", '{"packs": ["nowhere"]}']
    data = "\n".join(lines * 3).encode()
    outcomes = []
    for module in (None, False):  # orjson, then the json module alone
        monkeypatch.setattr(fastjson, "_orjson", module)
        for argv in (["score", "-", "--format", "json"], ["score", "-"]):
            monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": io.BytesIO(data)}))
            outcome = fuzzlib.run_main(argv, seconds=120)
            assert not outcome.crash, outcome.crash
            outcomes.append((outcome.status, outcome.out, outcome.err))
    assert outcomes[:2] == outcomes[2:]
    assert '"winner"' in outcomes[0][1] and "duplicate key 'players'" in outcomes[0][1]


def test_a_cold_score_imports_no_argument_parser(tmp_path) -> None:
    """With the cache filled, ``score`` reads its plain command line without argparse, and
    nothing on its path imports shutil (bz2, lzma), gettext, locale, pickle, zlib or the
    utf-8-sig codec."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(tmp_path / "cache"))
    example = str(ROOT / "examples" / "five-players.yaml")
    code = (
        "import sys\n"
        "from critter_kitchen.cli import main\n"
        f"main(['score', {example!r}, '--format', 'json'])\n"
        "unwanted = ['argparse', 'gettext', 'locale', 'shutil', 'bz2', 'lzma', 'pickle', 'orjson', 'zlib',"
        " 'encodings.utf_8_sig']\n"
        "print('loaded:', [m for m in unwanted if m in sys.modules])\n"
    )
    for _ in range(2):  # the first run fills the cache
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.splitlines()[-1] == "loaded: []"
    assert '"winner"' in done.stdout

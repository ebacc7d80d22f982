"""What a cold ``score`` keeps from the work of a load equals what that work gives."""

from __future__ import annotations

import io
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from critter_kitchen import load_ruleset
from critter_kitchen.dsl.program import Compiled, derived_from
from critter_kitchen.errors import InputError
from critter_kitchen.loading.yamlpos import read_text


def programs(value: object) -> list[Compiled]:
    """Every program inside ``value``, found the way the cache finds them: by pickling it."""
    found: list[Compiled] = []

    class Finder(pickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if type(obj) is Compiled:
                found.append(obj)
            return NotImplemented

    Finder(io.BytesIO()).dump(value)
    return found


def test_programs_read_from_the_cache_tell_what_their_ops_tell(tmp_path, monkeypatch) -> None:
    """A cached program keeps what walking its ops gave (steps, cards seen, parameters and
    state read and written) instead of walking them again: it must be what the walk gives,
    and what the program had before it was stored."""
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    built = programs(load_ruleset())
    assert len(list(tmp_path.glob("cache/packs-*.pickle"))) == 1
    read = programs(load_ruleset())
    assert len(read) == len(built) > 20
    assert any(p.sees_cards for p in read) and any(p.params_read for p in read)
    assert any(p.state_read for p in read) and any(p.state_written for p in read)
    for stored, fresh in zip(read, built, strict=True):
        assert stored.ops == fresh.ops
        assert stored.derived() == fresh.derived() == derived_from(stored.ops)


def test_an_unpickled_program_is_built_when_first_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", str(tmp_path / "cache"))
    program = programs(load_ruleset())[0]
    again = pickle.loads(pickle.dumps(program))
    assert again.derived() == program.derived() and again.ops == program.ops
    assert getattr(again.run, "__self__", None) is again  # its _first_run, in either build
    assert getattr(program.run, "__self__", None) is not program  # compiled here: built at once


def codec_answer(raw: bytes) -> tuple[Any, ...]:
    try:
        return ("text", raw.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        return ("error", e.start, e.end, e.reason, e.object)


def read_text_answer(raw: bytes) -> tuple[Any, ...]:
    try:
        return ("text", read_text("f.yaml", raw))
    except InputError as e:
        return ("problem", str(e))


def codec_problem(raw: bytes) -> tuple[Any, ...]:
    """read_text's answer as it was written with the utf-8-sig codec."""
    answer = codec_answer(raw)
    if answer[0] == "text":
        return answer
    start = answer[1]  # counted from after the mark, as the codec counts
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    line = body[:start].count(b"\n") + 1
    col = start - (body.rfind(b"\n", 0, start) + 1) + 1
    return ("problem", f"f.yaml:{line}:{col}: file is not UTF-8 text")


PIECES = [b"a", b"\n", b"\xef\xbb\xbf", b"\xef", b"\xbb", b"\xbf", b"\xff", "é".encode(), b"\xc3", b"\x00"]
PIECES.append("😀".encode()[:3])  # a character cut short


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8).map(b"".join))
def test_a_file_is_decoded_as_the_utf_8_sig_codec_decodes_it(raw: bytes) -> None:
    """read_text strips a byte order mark itself (the codec's module is one import fewer
    on a cold score): text and problem places must be the codec's."""
    assert read_text_answer(raw) == codec_problem(raw)


def test_a_problem_after_a_mark_is_placed_where_an_editor_shows_it() -> None:
    assert read_text_answer(b"\xef\xbb\xbfab\n\xff") == ("problem", "f.yaml:2:1: file is not UTF-8 text")
    assert read_text_answer(b"\xef\xbb\xbf\xff") == ("problem", "f.yaml:1:1: file is not UTF-8 text")


def test_a_marked_file_is_read_without_its_mark() -> None:
    assert read_text("f.yaml", b"\xef\xbb\xbfa: 1\n") == "a: 1\n"
    assert read_text("f.yaml", b"\xef\xbb\xbf\xef\xbb\xbfa") == "\ufeffa"

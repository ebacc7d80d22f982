"""tools/pad_screenshots.py on a part of the flow: the 7-player result and a room on a phone, in
chromium against a real ``critter-kitchen serve`` (the whole run, 16 pictures in about 30 s, is
``python tools/pad_screenshots.py``). Keeps its steps working on the pad as it is, and its word
on the 7-player table: it fits 390 px with the stages' short names."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser import chromium_or_skip  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


def test_the_seven_player_result_and_a_phone_in_a_room_at_both_widths(tmp_path: Path) -> None:
    chromium_or_skip()
    command = [sys.executable, str(ROOT / "tools" / "pad_screenshots.py"), "--out", str(tmp_path)]
    command += ["--only", "result-7", "--only", "phone"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in tmp_path.glob("*.png"))
    assert written == [
        "score-pad-phone-1366.png",
        "score-pad-phone-390.png",
        "score-pad-result-7-1366.png",
        "score-pad-result-7-390.png",
    ]
    assert png_size(tmp_path / "score-pad-result-7-390.png") == (780, 1688)  # 390 x 844 at 2 pixels a pixel
    assert png_size(tmp_path / "score-pad-result-7-1366.png") == (1366, 900)
    lines = [line for line in done.stderr.splitlines() if "stage table" in line]
    assert len(lines) == 2
    assert lines[0].startswith("result-7 at 390 px: the stage table is ")
    assert lines[0].endswith(": fits"), lines[0]

"""What the tests of ``critter-kitchen proof`` share: the print extra and pypdf (skipped where
missing, failed where ``CRITTER_KITCHEN_REQUIRE_PRINT`` is set, as .ci/run sets it), Debian's
``pdftoppm``, and a PDF read back: its text, its coloured rectangles and its crop marks, in
millimetres from the page's top left corner, from the drawing operators of its pages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Set by .ci/run: there a missing fpdf2, pypdf or pdftoppm fails the proof tests instead of skipping them.
REQUIRE_ENV = "CRITTER_KITCHEN_REQUIRE_PRINT"
MM = 72 / 25.4  # points in a millimetre
ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "packs" / "hostile-names"


def _missing(what: str) -> None:
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{what}, and {REQUIRE_ENV} is set")
    pytest.skip(what)


def print_extra_or_skip() -> Any:
    """pypdf, when it and fpdf2 are installed; else skip the test (fail it where required)."""
    try:
        import fpdf  # noqa: F401
        import pypdf
    except ImportError:
        _missing('fpdf2 or pypdf is not installed (pip install -e ".[print,test]")')
    return pypdf


def pdftoppm_or_skip() -> str:
    """The pdftoppm executable (poppler-utils); else skip the test (fail it where required)."""
    found = shutil.which("pdftoppm")
    if found is None:
        _missing("pdftoppm is not installed (apt-get install -y poppler-utils)")
    assert found is not None
    return found


def render(pdf: Path, out: Path, page: int, dpi: int) -> Path:
    """Page ``page`` (from 1) of ``pdf`` as a PNG at ``dpi``, by pdftoppm."""
    stem = out / f"page{page}"
    subprocess.run(
        [
            pdftoppm_or_skip(),
            "-png",
            "-r",
            str(dpi),
            "-f",
            str(page),
            "-l",
            str(page),
            "-singlefile",
            str(pdf),
            str(stem),
        ],
        check=True,
        timeout=60,
    )
    return stem.with_suffix(".png")


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    colour: tuple[float, ...]


@dataclass
class Page:
    width: float
    height: float
    text: str
    fills: list[Rect]  # filled rectangles, in drawing order
    lines: list[tuple[float, float, float, float, float]]  # x1, y1, x2, y2, line width


def read_pdf(path: Path) -> list[Page]:
    """Every page of the PDF at ``path``: size, text, filled rectangles and stroked lines (mm)."""
    pypdf = print_extra_or_skip()
    from pypdf.generic import ContentStream

    reader = pypdf.PdfReader(str(path))
    pages = []
    for page in reader.pages:
        height = float(page.mediabox.height)
        fills: list[Rect] = []
        lines: list[tuple[float, float, float, float, float]] = []
        colour: tuple[float, ...] = ()
        width = 1.0
        pending: list[Any] = []
        start = (0.0, 0.0)
        for operands, op in ContentStream(page.get_contents(), reader).operations:
            if op == b"rg":
                colour = tuple(float(v) for v in operands)
            elif op == b"w":
                width = float(operands[0]) / MM
            elif op == b"re":
                x, y, w, h = (float(v) for v in operands)
                top = min(y, y + h)
                pending = [Rect(x / MM, (height - top - abs(h)) / MM, w / MM, abs(h) / MM, colour)]
            elif op == b"f" and pending:
                fills += pending
                pending = []
            elif op == b"m":
                start = (float(operands[0]), float(operands[1]))
            elif op == b"l":
                x2, y2 = float(operands[0]), float(operands[1])
                lines.append((start[0] / MM, (height - start[1]) / MM, x2 / MM, (height - y2) / MM, width))
            elif op in (b"S", b"n", b"B"):
                pending = []
        pages.append(Page(float(page.mediabox.width) / MM, height / MM, page.extract_text(), fills, lines))
    return pages


def words(text: str) -> str:
    return " ".join(text.split())

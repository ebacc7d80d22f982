"""Proof pages rendered to PNG by Debian's pdftoppm (poppler-utils), as a printer's driver would
draw them: the cards sit where the PDF's crop marks say, their coloured bleed and frame are
whole, and no text, however hostile the card, reaches the frame."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from proofs import HOSTILE, ROOT, pdftoppm_or_skip, print_extra_or_skip, read_pdf, render

from critter_kitchen.cli import main

CARD_W, CARD_H, BLEED, FRAME = 63.0, 88.0, 3.0, 3.0
SCREENSHOTS_ENV = "CRITTER_KITCHEN_SCREENSHOTS"  # a folder to copy the rendered pages into, to look at them


@pytest.fixture(autouse=True)
def needs_tools(monkeypatch):
    print_extra_or_skip()
    pdftoppm_or_skip()
    monkeypatch.chdir(ROOT)


def _image(path: Path):
    from PIL import Image  # fpdf2 depends on Pillow

    keep = os.environ.get(SCREENSHOTS_ENV)
    if keep:
        shutil.copy(path, Path(keep) / path.name)
    return Image.open(path).convert("RGB")


def _corners(page) -> list[tuple[float, float]]:
    """The cards' trimmed top left corners, from the crop marks: each mark's line is a trim line."""
    thinnest = min(w for *_, w in page.lines)
    marks = [m for m in page.lines if m[4] == thinnest]
    xs = sorted({round(m[0], 2) for m in marks if m[0] == m[2]})
    ys = sorted({round(m[1], 2) for m in marks if m[1] == m[3]})
    corners = []
    for y in ys[::2]:
        for x in xs[::2]:
            # a card is there if a mark leaves its top left corner upwards
            if any(abs(m[0] - x) < 0.01 and m[0] == m[2] and m[3] < y and m[3] > y - BLEED - 0.01 for m in marks):
                corners.append((x, y))
    return corners


def _distance(a, b) -> int:
    return max(abs(p - q) for p, q in zip(a, b, strict=True))


def _frame_pixels(image, x: float, y: float, px: float):
    """The pixels of a card's coloured frame, in from its trim (0.7 mm to 2.3 mm), on every side."""
    inner_from, inner_to = 0.7, FRAME - 0.7
    for i in range(int(CARD_W * px)):
        for depth in (inner_from, (inner_from + inner_to) / 2, inner_to):
            for yy in (y + depth, y + CARD_H - depth):
                yield (x * px + i, yy * px)
    for j in range(int(CARD_H * px)):
        for depth in (inner_from, (inner_from + inner_to) / 2, inner_to):
            for xx in (x + depth, x + CARD_W - depth):
                yield (xx * px, y * px + j)


def _check_page(pdf: Path, tmp_path: Path, number: int, dpi: int, cards: int) -> None:
    page = read_pdf(pdf)[number - 1]
    image = _image(render(pdf, tmp_path, number, dpi))
    px = dpi / 25.4
    assert image.size == pytest.approx((page.width * px, page.height * px), abs=1)
    corners = _corners(page)
    assert len(corners) == cards
    for x, y in corners:
        colour = image.getpixel((round((x - BLEED / 2) * px), round((y + CARD_H / 2) * px)))  # in the bleed
        assert _distance(colour, (255, 255, 255)) > 60, "the bleed is coloured"
        assert _distance(image.getpixel((round((x + FRAME / 2) * px), round((y + FRAME / 2) * px))), colour) < 12
        off = [
            p
            for p in _frame_pixels(image, x, y, px)
            if _distance(image.getpixel((round(p[0]), round(p[1]))), colour) > 40
        ]
        assert off == [], f"something drawn over the frame of the card at {x:.1f}, {y:.1f} mm: {off[:5]}"


def test_a_page_of_the_base_pack_renders_as_nine_whole_cards(tmp_path):
    out = tmp_path / "base.pdf"
    assert main(["proof", "base", "--output", str(out)]) == 0
    _check_page(out, tmp_path, 1, 100, 9)
    _check_page(out, tmp_path, 4, 100, 9)


def test_a_letter_page_renders_as_nine_whole_cards(tmp_path):
    out = tmp_path / "letter.pdf"
    assert main(["proof", "a-la-carte", "--paper", "letter", "--output", str(out)]) == 0
    _check_page(out, tmp_path, 1, 100, 9)


def test_hostile_names_and_texts_stay_inside_their_cards(tmp_path):
    out = tmp_path / "hostile.pdf"
    assert main(["proof", str(HOSTILE), "--output", str(out)]) == 0
    _check_page(out, tmp_path, 1, 150, 2)

"""Where everything goes on a sheet of proofs, in millimetres from the page's top left corner,
and how text is broken into lines that fit: plain arithmetic, no PDF library.

A sheet holds :data:`PER_PAGE` cards, :data:`COLUMNS` across, each at poker size
(:data:`CARD_W` x :data:`CARD_H`) with :data:`BLEED` of background on every side beyond its
trim. On A4 every card has its full bleed; letter paper is 279.4 mm tall, less than three rows
of 94 mm, so there the rows' bleeds meet in a narrower gutter (:func:`sheet`). Crop marks are
drawn in each card's bleed, on the lines of its trim extended, from :data:`MARK_GAP` beyond
the trim to the bleed's edge: the cut takes them away.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CARD_W, CARD_H = 63.0, 88.0  # poker size, trimmed
BLEED = 3.0  # background beyond the trim on each side
COLUMNS, ROWS = 3, 3
PER_PAGE = COLUMNS * ROWS
MARK_GAP = 0.5  # a crop mark starts this far beyond the trim, so no speck of it is left on the card
MARK_WIDTH = 0.2  # line width of the crop marks
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # width and height, mm
PAPER_NAMES = tuple(PAPERS)  # proof --paper's choices
PT = 25.4 / 72  # millimetres in a point
LEADING = 1.2  # line height, in font sizes


@dataclass(frozen=True)
class Slot:
    """One card's place on a sheet: its trim (``x``, ``y``: top left) and how far its background
    reaches beyond the trim on each side."""

    x: float
    y: float
    left: float
    top: float
    right: float
    bottom: float

    def bleed_box(self) -> tuple[float, float, float, float]:
        """x, y, width, height of the card with its bleed."""
        return (self.x - self.left, self.y - self.top, CARD_W + self.left + self.right, CARD_H + self.top + self.bottom)

    def marks(self) -> list[tuple[float, float, float, float]]:
        """The crop marks, each a line (x1, y1, x2, y2): two at each corner, in the bleed."""
        x0, y0, x1, y1 = self.x, self.y, self.x + CARD_W, self.y + CARD_H
        out = []
        for x in (x0, x1):
            out.append((x, y0 - self.top, x, y0 - MARK_GAP))
            out.append((x, y1 + MARK_GAP, x, y1 + self.bottom))
        for y in (y0, y1):
            out.append((x0 - self.left, y, x0 - MARK_GAP, y))
            out.append((x1 + MARK_GAP, y, x1 + self.right, y))
        return out


def _gutter(length: float, cards: int, card: float) -> float:
    """The gap between neighbouring trims along one side of the paper: two bleeds, or what is
    left when the paper is too short for that (never less than the marks need)."""
    room = (length - cards * card - 2 * BLEED) / (cards - 1)
    if room < 2 * (MARK_GAP + MARK_WIDTH):
        raise ValueError(f"a sheet of {length} mm cannot hold {cards} cards of {card} mm")
    return min(2 * BLEED, room)


def sheet(paper: str) -> tuple[float, float, list[Slot]]:
    """The page's width and height and the :data:`PER_PAGE` slots on it, row by row, the grid
    centred on the page."""
    width, height = PAPERS[paper]
    gx, gy = _gutter(width, COLUMNS, CARD_W), _gutter(height, ROWS, CARD_H)
    x0 = (width - COLUMNS * CARD_W - (COLUMNS - 1) * gx) / 2
    y0 = (height - ROWS * CARD_H - (ROWS - 1) * gy) / 2
    slots = []
    for row in range(ROWS):
        for col in range(COLUMNS):
            slots.append(
                Slot(
                    x=x0 + col * (CARD_W + gx),
                    y=y0 + row * (CARD_H + gy),
                    left=BLEED if col == 0 else gx / 2,
                    top=BLEED if row == 0 else gy / 2,
                    right=BLEED if col == COLUMNS - 1 else gx / 2,
                    bottom=BLEED if row == ROWS - 1 else gy / 2,
                )
            )
    return width, height, slots


# text

Measure = Callable[[str], float]  # a text's width in millimetres at a size of 1 pt


def wrap(text: str, width: float, size: float, measure: Measure) -> list[str]:
    """``text`` broken into lines no wider than ``width`` mm at ``size`` pt: between words, and
    inside a word too long for a line of its own."""
    limit = width / size
    lines: list[str] = []
    line, used = "", 0.0
    space = measure(" ")
    for word in text.split(" "):
        if not word:
            continue
        w = measure(word)
        if w > limit:  # a word wider than the line: as many characters as fit, line by line
            if line:
                lines.append(line)
            line, used = "", 0.0
            for ch in word:
                cw = measure(ch)
                if line and used + cw > limit:
                    lines.append(line)
                    line, used = "", 0.0
                line += ch
                used += cw
            continue
        if line and used + space + w > limit:
            lines.append(line)
            line, used = "", 0.0
        if line:
            line += " " + word
            used += space + w
        else:
            line, used = word, w
    if line:
        lines.append(line)
    return lines


def cut(line: str, width: float, size: float, measure: Measure, mark: str = "\u2026") -> str:
    """``line`` ended with ``mark`` (an ellipsis), shortened until the whole fits ``width`` mm at ``size`` pt."""
    limit = width / size
    kept = line.rstrip()
    while kept and measure(kept + mark) > limit:
        kept = kept[:-1].rstrip()
    return kept + mark


def line_height(size: float) -> float:
    return size * PT * LEADING


@dataclass(frozen=True)
class Block:
    """Text set in a box: its lines (each ``(indent mm, text)``) at ``size`` pt."""

    lines: tuple[tuple[float, str], ...]
    size: float

    def height(self) -> float:
        return len(self.lines) * line_height(self.size)


def set_block(
    paragraphs: list[str], width: float, size: float, measure: Measure, indent: float = 0.0, gap: bool = True
) -> Block:
    """Paragraphs at ``size`` pt in ``width`` mm; a paragraph is indented by ``indent`` for each
    four spaces it starts with; an empty one is a blank line (when ``gap``)."""
    lines: list[tuple[float, str]] = []
    for para in paragraphs:
        if not para.strip():
            if gap and lines:
                lines.append((0.0, ""))
            continue
        shift = indent * ((len(para) - len(para.lstrip(" "))) // 4)
        lines += [(shift, line) for line in wrap(para.strip(), width - shift, size, measure)]
    while lines and not lines[-1][1]:
        lines.pop()
    return Block(tuple(lines), size)


def fit_block(block: Block, height: float, width: float, measure: Measure) -> Block:
    """``block`` cut to the lines that fit ``height`` mm, the last one ended with an ellipsis."""
    room = max(int(height / line_height(block.size) + 1e-9), 0)
    if len(block.lines) <= room:
        return block
    if room == 0:
        return Block((), block.size)
    kept = list(block.lines[:room])
    shift, last = kept[-1]
    kept[-1] = (shift, cut(last, width - shift, block.size, measure))
    return Block(tuple(kept), block.size)

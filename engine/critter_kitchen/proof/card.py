"""One card's face laid out: what is drawn where, in millimetres from the card's trimmed top
left corner, every piece inside the card's safe area (:data:`INSET` from the trim). Text that
does not fit at its size is set smaller, down to a least size, then cut with an ellipsis.
"""

from __future__ import annotations

from dataclasses import dataclass

from .faces import Face
from .layout import CARD_H, CARD_W, PT, Block, Measure, cut, fit_block, line_height, set_block

FRAME = 3.0  # the band of the kind's colour inside the trim (the bleed is that colour too)
INSET = 5.0  # from the trim to any text: the frame and a margin
INNER_W = CARD_W - 2 * INSET

NAME_TOP, NAME_BOX = INSET, 9.6  # the name: two lines at most
NAME_SIZE, NAME_MIN = 11.0, 6.0
KIND_SIZE = 6.0
SLOT_H, SLOT_GAP, SLOT_MAX_W = 7.0, 1.5, 16.0  # a Challenge card's requirement boxes
SLOT_SIZE, SLOT_MIN = 6.5, 4.0
HOLD_SIZE = 4.5
TEXT_SIZE, TEXT_MIN = 8.0, 5.0  # the card's own text
ENGLISH_SIZE, ENGLISH_MIN = 6.5, 4.5  # what its data does, in English
LABEL_SIZE = 5.0
FLAVOR_SIZE = 6.0
FOOT_SIZE = 5.0
FOOT_TOP = CARD_H - INSET - line_height(FOOT_SIZE)
BLOCK_GAP = 1.6  # between the text and the English block
SHRINK_STEPS = 12  # sizes tried between the preferred and the least
TEXT_SHARE = 0.45  # of the body the text keeps at least, when the blocks do not fit whole

ENGLISH_LABEL = "From its data:"
HOLD_LABEL = "Hold"


@dataclass(frozen=True)
class Text:
    """One line of text: its top left corner, size (pt), weight, its colour's role and its
    width as measured (mm)."""

    x: float
    y: float
    size: float
    bold: bool
    role: str  # "ink", "kind", "muted"
    text: str
    width: float


@dataclass(frozen=True)
class Box:
    """A rectangle: a requirement slot (``dashed``: the one the Hold token covers), or the
    English block's panel (``filled``)."""

    x: float
    y: float
    w: float
    h: float
    dashed: bool = False
    filled: bool = False


@dataclass
class Laid:
    """A face laid out: its lines of text, boxes and rules, in millimetres from the trim's corner."""

    texts: list[Text]
    boxes: list[Box]
    rules: list[tuple[float, float, float, float]]  # thin lines in the kind's colour
    cut: bool = False  # some text was cut with an ellipsis


def _single(text: str, width: float, size: float, least: float, measure: Measure) -> tuple[str, float, bool]:
    """One line of ``text`` in ``width`` mm: at ``size`` pt, smaller down to ``least``, then cut."""
    s = size
    while s > least and measure(text) * s > width:
        s = max(least, s - 0.5)
    if measure(text) * s <= width:
        return text, s, False
    return cut(text, width, s, measure), s, True


def _place(block: Block, x: float, y: float, bold: bool, role: str, measure: Measure) -> list[Text]:
    out = []
    step = line_height(block.size)
    for i, (shift, line) in enumerate(block.lines):
        if line:
            out.append(Text(x + shift, y + i * step, block.size, bold, role, line, measure(line) * block.size))
    return out


def _fit_name(name: str, measure: Measure) -> tuple[Block, bool]:
    size = NAME_SIZE
    while True:
        block = set_block([name], INNER_W, size, measure)
        if block.height() <= NAME_BOX or size <= NAME_MIN:
            break
        size = max(NAME_MIN, size - 0.5)
    fitted = fit_block(block, NAME_BOX, INNER_W, measure)
    return fitted, fitted.lines != block.lines


def _body(face: Face, height: float, regular: Measure) -> tuple[Block, Block, bool]:
    """The text and English blocks set to fit ``height`` mm together (with the English label)."""
    text = [face.text] if face.text else []
    english = list(face.english)
    label = line_height(LABEL_SIZE) if english else 0.0
    for step in range(SHRINK_STEPS + 1):
        f = step / SHRINK_STEPS
        t = set_block(text, INNER_W, TEXT_SIZE - f * (TEXT_SIZE - TEXT_MIN), regular)
        e = set_block(english, INNER_W - 2, ENGLISH_SIZE - f * (ENGLISH_SIZE - ENGLISH_MIN), regular, indent=2.0)
        gap = BLOCK_GAP if t.lines and e.lines else 0.0
        if t.height() + gap + label + e.height() <= height:
            return t, e, False
    gap = BLOCK_GAP if t.lines and e.lines else 0.0
    if not e.lines:
        return fit_block(t, height, INNER_W, regular), e, True
    room = height - gap - label
    english_room = min(e.height(), room * (1 - TEXT_SHARE))  # the text keeps what a short English leaves
    t2 = fit_block(t, min(t.height(), room - english_room), INNER_W, regular)
    e2 = fit_block(e, height - t2.height() - gap - label, INNER_W - 2, regular)
    return t2, e2, t2.lines != t.lines or e2.lines != e.lines


def lay_out(face: Face, regular: Measure, bold: Measure) -> Laid:
    """Everything on ``face``, placed; ``regular`` and ``bold`` measure text in the two weights."""
    laid = Laid([], [], [])
    name, cut_name = _fit_name(face.name, bold)
    laid.texts += _place(name, INSET, NAME_TOP, True, "ink", bold)
    y = NAME_TOP + max(name.height(), line_height(NAME_SIZE)) + 0.6
    kind, _, cut_kind = _single(face.kind.upper(), INNER_W, KIND_SIZE, KIND_SIZE, bold)
    laid.texts.append(Text(INSET, y, KIND_SIZE, True, "kind", kind, bold(kind) * KIND_SIZE))
    y += line_height(KIND_SIZE) + 0.4
    laid.rules.append((INSET, y, CARD_W - INSET, y))
    y += 1.6
    laid.cut = cut_name or cut_kind
    if face.requires:
        y = _slots(face, y, laid, regular, bold)
    foot_top = FOOT_TOP
    t, e, cut_body = _body(face, foot_top - 1.0 - y, regular)
    laid.cut = laid.cut or cut_body
    laid.texts += _place(t, INSET, y, False, "ink", regular)
    if e.lines:
        y += t.height() + (BLOCK_GAP if t.lines else 0.0)
        panel_h = line_height(LABEL_SIZE) + e.height() + 0.6
        laid.boxes.append(Box(INSET - 0.8, y - 0.4, INNER_W + 1.6, panel_h + 0.2, filled=True))
        laid.texts.append(Text(INSET, y, LABEL_SIZE, True, "muted", ENGLISH_LABEL, bold(ENGLISH_LABEL) * LABEL_SIZE))
        y += line_height(LABEL_SIZE)
        laid.texts += _place(e, INSET + 1.0, y, False, "ink", regular)
        y += e.height()
    else:
        y += t.height()
    if face.flavor:
        _flavor(face.flavor, y + BLOCK_GAP, foot_top - 1.0, laid, regular)
    _footer(face, laid, regular)
    return laid


def _flavor(flavor: str, top: float, bottom: float, laid: Laid, regular: Measure) -> None:
    """The flavour line above the footer, where the rest leaves room for it whole; else left out."""
    block = set_block([flavor], INNER_W, FLAVOR_SIZE, regular)
    if block.height() <= bottom - top:
        laid.texts += _place(block, INSET, bottom - block.height(), False, "muted", regular)


def _slots(face: Face, y: float, laid: Laid, regular: Measure, bold: Measure) -> float:
    """A Challenge card's requirement boxes, left to right, the one the Hold token covers dashed
    and labelled; the height below them."""
    n = len(face.requires)
    w = min(SLOT_MAX_W, (INNER_W - (n - 1) * SLOT_GAP) / n)
    for i, kind in enumerate(face.requires):
        x = INSET + i * (w + SLOT_GAP)
        held = face.held == i
        laid.boxes.append(Box(x, y, w, SLOT_H, dashed=held))
        shown, size, was_cut = _single(kind, w - 1.0, SLOT_SIZE, SLOT_MIN, regular)
        laid.cut = laid.cut or was_cut
        width = regular(shown) * size
        top = y + (SLOT_H - size * PT) / 2 - 0.2
        laid.texts.append(Text(x + (w - width) / 2, top, size, False, "ink", shown, width))
        if held:
            label, lsize, _ = _single(HOLD_LABEL, w, HOLD_SIZE, HOLD_SIZE / 2, bold)
            lw = bold(label) * lsize
            laid.texts.append(Text(x + (w - lw) / 2, y + SLOT_H + 0.3, lsize, True, "kind", label, lw))
    below = line_height(HOLD_SIZE) + 0.3 if face.held is not None else 0.0
    return y + SLOT_H + below + 1.6


def _footer(face: Face, laid: Laid, regular: Measure) -> None:
    """The pack id and content hash at the bottom left, the card id at the bottom right."""
    tail = f" \u00b7 {face.digest}"  # the hash is never cut: a long pack id is
    pack, _, _ = _single(face.pack, INNER_W * 0.55 - regular(tail) * FOOT_SIZE, FOOT_SIZE, FOOT_SIZE, regular)
    left = pack + tail
    lw = regular(left) * FOOT_SIZE
    laid.texts.append(Text(INSET, FOOT_TOP, FOOT_SIZE, False, "muted", left, lw))
    right, rsize, _ = _single(face.id, INNER_W - lw - 2.0, FOOT_SIZE, FOOT_SIZE / 2, regular)
    rw = regular(right) * rsize
    laid.texts.append(Text(CARD_W - INSET - rw, FOOT_TOP, rsize, False, "muted", right, rw))

"""The proofs drawn as a PDF with fpdf2 (the ``print`` extra), in the fonts shipped beside this
module (DejaVu Sans and Sans Bold, embedded as subsets: no system font is read, nothing is
fetched), and written whole or not at all (a temporary file beside the output, renamed)."""

from __future__ import annotations

import os
import stat
import tempfile
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..errors import CritterError
from .card import FRAME, Laid, lay_out
from .faces import Face
from .layout import CARD_H, CARD_W, MARK_WIDTH, PER_PAGE, PT, sheet

FONTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fonts")
REGULAR_FILE, BOLD_FILE = "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"
FAMILY = "dejavu"
MISSING = "\ufffd"  # printed for a character the shipped font lacks
ASCENT = 0.93  # DejaVu Sans's ascent, in font sizes: from a line's top to its baseline

# a colour for each card kind, by the kind's place among the ruleset's kinds (RGB)
KIND_COLOURS = (
    (184, 84, 38),
    (52, 86, 150),
    (112, 66, 140),
    (38, 122, 84),
    (168, 124, 24),
    (40, 124, 146),
    (150, 52, 78),
    (96, 96, 96),
)
INK, MUTED, PANEL, WHITE, MARKS = (24, 24, 24), (110, 110, 110), (238, 238, 234), (255, 255, 255), (0, 0, 0)
INSTALL = 'proofs need the print extra: pip install "critter-kitchen[print]"'


def _fpdf() -> Any:
    try:
        import fpdf
    except ImportError:
        raise CritterError(INSTALL) from None
    return fpdf


class Sheets:
    """A PDF document of proofs on ``paper`` (a key of ``layout.PAPERS``)."""

    def __init__(self, paper: str) -> None:
        fpdf = _fpdf()
        self.width, self.height, self.slots = sheet(paper)
        pdf = fpdf.FPDF(unit="mm", format=(self.width, self.height))
        pdf.set_auto_page_break(False)
        pdf.set_margins(0, 0, 0)
        pdf.add_font(FAMILY, "", os.path.join(FONTS, REGULAR_FILE))
        pdf.add_font(FAMILY, "B", os.path.join(FONTS, BOLD_FILE))
        pdf.set_creator("critter-kitchen proof")
        self.pdf = pdf
        self.glyphs = set(pdf.fonts[FAMILY].cmap) & set(pdf.fonts[FAMILY + "B"].cmap)
        self.widths: dict[tuple[str, bool], float] = {}
        self.missing: dict[str, int] = {}  # card id -> characters printed as MISSING

    def measure(self, bold: bool) -> Any:
        """A text's width in mm at 1 pt, in one weight (cached by text)."""
        pdf, widths, style = self.pdf, self.widths, "B" if bold else ""

        def width(text: str) -> float:
            key = (text, bold)
            found = widths.get(key)
            if found is None:
                pdf.set_font(FAMILY, style, 100)
                found = widths[key] = pdf.get_string_width(text) / 100
            return found

        return width

    def printable(self, face: Face) -> Face:
        """``face`` with each character the shipped fonts lack replaced by :data:`MISSING`."""
        count = 0

        def fix(text: str) -> str:
            nonlocal count
            if all(ord(ch) in self.glyphs for ch in text):
                return text
            out = []
            for ch in text:
                if ord(ch) in self.glyphs or ch == " ":
                    out.append(ch)
                else:
                    out.append(MISSING)
                    count += 1
            return "".join(out)

        fixed = replace(
            face,
            name=fix(face.name),
            kind=fix(face.kind),
            pack=fix(face.pack),
            id=fix(face.id),
            requires=tuple(fix(r) for r in face.requires),
            text=fix(face.text),
            english=tuple(fix(line) for line in face.english),
        )
        if count:
            self.missing[face.id] = count
        return fixed

    def draw(self, faces: Sequence[Face]) -> list[str]:
        """Every face, :data:`PER_PAGE` to a page; the ids of the cards whose text was cut."""
        regular, bold = self.measure(False), self.measure(True)
        cut: list[str] = []
        for start in range(0, len(faces), PER_PAGE):
            page = [self.printable(f) for f in faces[start : start + PER_PAGE]]
            self.pdf.add_page()
            for face, slot in zip(page, self.slots, strict=False):
                self._background(face, slot.bleed_box(), slot.x, slot.y)
            for face, slot in zip(page, self.slots, strict=False):
                laid = lay_out(face, regular, bold)
                if laid.cut:
                    cut.append(face.id)
                self._face(face, laid, slot.x, slot.y)
            self._marks([slot for _, slot in zip(page, self.slots, strict=False)])
        return cut

    def _background(self, face: Face, box: tuple[float, float, float, float], x: float, y: float) -> None:
        pdf = self.pdf
        pdf.set_fill_color(*KIND_COLOURS[face.kind_index % len(KIND_COLOURS)])
        pdf.rect(*box, style="F")
        pdf.set_fill_color(*WHITE)
        pdf.rect(x + FRAME, y + FRAME, CARD_W - 2 * FRAME, CARD_H - 2 * FRAME, style="F")

    def _face(self, face: Face, laid: Laid, x: float, y: float) -> None:
        pdf = self.pdf
        colour = KIND_COLOURS[face.kind_index % len(KIND_COLOURS)]
        pdf.set_line_width(0.25)
        pdf.set_draw_color(*colour)
        for box in laid.boxes:
            if box.filled:
                pdf.set_fill_color(*PANEL)
                pdf.rect(x + box.x, y + box.y, box.w, box.h, style="F")
            else:
                if box.dashed:
                    pdf.set_dash_pattern(dash=0.8, gap=0.6)
                pdf.rect(x + box.x, y + box.y, box.w, box.h, style="D")
                pdf.set_dash_pattern()
        for x1, y1, x2, y2 in laid.rules:
            pdf.line(x + x1, y + y1, x + x2, y + y2)
        roles = {"ink": INK, "muted": MUTED, "kind": colour}
        for t in laid.texts:
            pdf.set_font(FAMILY, "B" if t.bold else "", t.size)
            pdf.set_text_color(*roles[t.role])
            pdf.text(x + t.x, y + t.y + ASCENT * t.size * PT, visual(t.text))

    def _marks(self, slots: Sequence[Any]) -> None:
        pdf = self.pdf
        pdf.set_dash_pattern()
        pdf.set_line_width(MARK_WIDTH)
        pdf.set_draw_color(*MARKS)
        for slot in slots:
            for x1, y1, x2, y2 in slot.marks():
                pdf.line(x1, y1, x2, y2)

    def bytes(self) -> bytes:
        return bytes(self.pdf.output())


def visual(line: str) -> str:
    """A laid-out line in the order it is seen: its right-to-left runs (Hebrew, Arabic) turned
    by the Unicode bidirectional algorithm (fpdf2's), in a left-to-right line. Card text has no
    explicit direction marks or overrides left (faces.printable_text drops them), so only the
    letters' own directions count. A line's width is the same in either order."""
    if not any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in line):
        return line
    from fpdf.bidi import BidiParagraph
    from fpdf.enums import TextDirection

    return str(BidiParagraph(line, base_direction=TextDirection.LTR).get_reordered_string())


def write_atomically(path: str, data: bytes) -> None:
    """``data`` as the file ``path``: written to a temporary file in the same folder, then
    renamed over it, so the file is whole or untouched. A path that is not a regular file
    (a folder, a device, a pipe) is refused, never opened. CritterError says why it failed."""
    what = "the proofs"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as e:
        raise CritterError(f"{path}: cannot write {what}: {e.strerror or e}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise CritterError(f"{path}: cannot write {what}: not a regular file")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".proof-", suffix=".pdf.tmp")
    except OSError as e:
        raise CritterError(f"{path}: cannot write {what}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CritterError(f"{path}: cannot write {what}: {e.strerror or e}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

"""`critter-kitchen proof`: print-and-play proofs as a PDF, read back with pypdf: every card's
name and English in its text, poker-size cards with bleed and crop marks on A4 and letter,
the Hold token's slot where the rules use it, and clear errors that leave nothing written."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from proofs import HOSTILE, ROOT, print_extra_or_skip, read_pdf, words

from critter_kitchen import load_ruleset
from critter_kitchen.cli import main
from critter_kitchen.loading.resolve import Resolver
from critter_kitchen.report.cards import english_lines

CARD_W, CARD_H, BLEED = 63.0, 88.0, 3.0  # poker size and its bleed, as the issue asks: not read from the code
PAPER = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
TOL = 0.02  # mm: the PDF gives points to two decimals


@pytest.fixture(autouse=True)
def needs_print():
    print_extra_or_skip()


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def proof(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "cards.pdf"
    assert main(["proof", *args, "--output", str(out)]) == 0
    return out


def printed(pack_ids: list[str], folders: list[str] = ()) -> list:
    ruleset = Resolver(folders).ruleset()
    return [c for c in ruleset.cards.values() if c.pack in pack_ids and c.kind != ruleset.rules_kind], ruleset


# text


def test_every_card_of_base_and_a_la_carte_prints_its_name_and_english(tmp_path, capsys, at_root):
    out = proof(tmp_path, "base", "a-la-carte")
    cards, ruleset = printed(["base", "a-la-carte"], ["a-la-carte"])
    assert len(cards) == 50
    assert capsys.readouterr().out == f"{out}: 50 cards on 6 pages (a4)\n"
    pages = read_pdf(out)
    assert len(pages) == 6
    text = words(" ".join(p.text for p in pages))
    for card in cards:
        assert card.name in text, card.id
        english = words(" ".join(english_lines(card, ruleset)))
        assert english in text, card.id
        if "text" in card.data:
            assert words(card.data["text"]) in text, card.id


def test_a_card_prints_its_pack_and_the_hash_of_its_data(tmp_path, at_root):
    out = proof(tmp_path, "base", "--cards", "fish-fanatic")
    card = load_ruleset().cards["fish-fanatic"]
    canonical = json.dumps(card.data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:8]
    assert f"base · {digest} fish-fanatic" in words(read_pdf(out)[0].text)


def test_only_the_named_packs_cards_print_and_never_a_rules_card(tmp_path, capsys, at_root):
    out = proof(tmp_path, "a-la-carte")
    cards, _ = printed(["a-la-carte"], ["a-la-carte"])
    assert capsys.readouterr().out == f"{out}: {len(cards)} cards on 2 pages (a4)\n"
    text = words(" ".join(p.text for p in read_pdf(out)))
    assert "Braised Shank" not in text  # a base card
    assert all(c.name in text for c in cards)


def test_cards_picks_cards_of_any_loaded_pack_in_load_order(tmp_path, at_root):
    out = proof(tmp_path, "a-la-carte", "--cards", "chef-flambe", "braised-shank")
    text = words(read_pdf(out)[0].text)
    assert text.index("Braised Shank") < text.index("Chef Flambé")
    assert "Fish Fanatic" not in text


def test_a_pack_folder_resolves_as_an_installed_id_does(tmp_path, at_root):
    by_id = read_pdf(proof(tmp_path, "a-la-carte"))
    by_folder = read_pdf(proof(tmp_path, "cards/a-la-carte"))
    assert [p.text for p in by_id] == [p.text for p in by_folder]


# the Hold token


def test_the_hold_slot_is_marked_where_the_rules_use_it(tmp_path, at_root):
    page = read_pdf(proof(tmp_path, "base", "--cards", "braised-shank"))[0]
    assert "meat wine carrot Hold" in words(page.text)
    assert "the Hold token covers the last" in words(page.text)


def test_no_hold_slot_where_a_house_rule_turns_the_token_off(tmp_path, at_root):
    page = read_pdf(proof(tmp_path, "base", "tests/packs/no-hold", "--cards", "braised-shank"))[0]
    assert "meat wine carrot From its data" in words(page.text)
    assert "Hold" not in page.text


# geometry


def _trims(page) -> list[tuple[float, float]]:
    """The cards' trimmed top left corners, from the crop marks (the thinnest lines)."""
    thinnest = min(w for *_, w in page.lines)
    marks = [line for line in page.lines if abs(line[4] - thinnest) < 1e-6]
    xs = sorted({round(x1, 2) for x1, _, x2, _, _ in marks if abs(x1 - x2) < 1e-6})
    ys = sorted({round(y1, 2) for _, y1, _, y2, _ in marks if abs(y1 - y2) < 1e-6})
    assert len(xs) == 6 and len(ys) == 6, (xs, ys)
    for left, right in zip(xs[::2], xs[1::2], strict=True):
        assert right - left == pytest.approx(CARD_W, abs=0.1)
    for top, bottom in zip(ys[::2], ys[1::2], strict=True):
        assert bottom - top == pytest.approx(CARD_H, abs=0.1)
    return [(x, y) for y in ys[::2] for x in xs[::2]], marks


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_nine_poker_cards_a_page_with_bleed_and_crop_marks(tmp_path, paper, at_root):
    page = read_pdf(proof(tmp_path, "base", "--paper", paper))[0]
    assert (page.width, page.height) == pytest.approx(PAPER[paper], abs=0.05)
    trims, marks = _trims(page)
    assert len(trims) == 9
    # each card's background: the filled rectangle under its trim, reaching the bleed beyond it
    for x, y in trims:
        under = [r for r in page.fills if r.x < x and r.y < y and r.x + r.w > x + CARD_W and r.y + r.h > y + CARD_H]
        bg = max(under, key=lambda r: r.w * r.h)
        left, top = x - bg.x, y - bg.y
        right, bottom = bg.x + bg.w - x - CARD_W, bg.y + bg.h - y - CARD_H
        if paper == "a4":  # room for the whole bleed on every side
            assert (left, top, right, bottom) == pytest.approx((BLEED,) * 4, abs=TOL)
        else:  # letter is 279.4 mm tall: the rows' bleeds meet halfway in a narrower gutter
            assert (left, right) == pytest.approx((BLEED, BLEED), abs=TOL)
            assert min(top, bottom) > 2.3
            first, last = y == trims[0][1], y == trims[-1][1]
            assert (top if first else bottom if last else BLEED) == pytest.approx(BLEED, abs=TOL)
            if not last:  # no white between this card's background and the next row's
                below = [r for r in page.fills if abs(r.x - bg.x) < TOL and abs(r.y - (bg.y + bg.h)) < TOL]
                assert below
        assert bg.x > -TOL and bg.y > -TOL
        assert bg.x + bg.w < page.width + TOL and bg.y + bg.h < page.height + TOL
    # two marks at each corner, on the trim lines extended, outside every card's trim
    assert len(marks) == 9 * 8
    for x1, y1, x2, y2, _ in marks:
        for x, y in trims:
            inside_x = x + TOL < min(x1, x2) and max(x1, x2) < x + CARD_W - TOL
            inside_y = y + TOL < min(y1, y2) and max(y1, y2) < y + CARD_H - TOL
            assert not (
                (x - TOL <= min(x1, x2) and max(x1, x2) <= x + CARD_W + TOL)
                and (y - TOL <= min(y1, y2) and max(y1, y2) <= y + CARD_H + TOL)
            ), "a mark on a card"
            assert not (inside_x and inside_y)
    for x, y in trims:  # at each corner, one mark along each trim line, from just beyond the trim outwards
        for cx, cy, out_x, out_y in (
            (x, y, -1, -1),
            (x + CARD_W, y, 1, -1),
            (x, y + CARD_H, -1, 1),
            (x + CARD_W, y + CARD_H, 1, 1),
        ):
            vertical = [m for m in marks if abs(m[0] - cx) < TOL and abs(m[2] - cx) < TOL]
            ends = [(m[1] - cy, m[3] - cy) for m in vertical]
            assert len([e for e in ends if 0.3 < min(map(abs, e)) < 1.0 and all(d * out_y > 0 for d in e)]) == 1
            assert all(
                max(map(abs, e)) <= BLEED + TOL
                for e in ends
                if all(d * out_y > 0 for d in e) and min(map(abs, e)) < 1.0
            )
            horizontal = [m for m in marks if abs(m[1] - cy) < TOL and abs(m[3] - cy) < TOL]
            ends = [(m[0] - cx, m[2] - cx) for m in horizontal]
            assert len([e for e in ends if 0.3 < min(map(abs, e)) < 1.0 and all(d * out_x > 0 for d in e)]) == 1


def test_a_full_and_a_partial_page(tmp_path, at_root):
    pages = read_pdf(proof(tmp_path, "base"))  # 37 cards
    assert len(pages) == 5
    assert [len(_trims(p)[0]) for p in pages[:4]] == [9, 9, 9, 9]
    thinnest = min(w for *_, w in pages[4].lines)
    assert len([line for line in pages[4].lines if line[4] == thinnest]) == 8  # one card's marks


# hostile data


def test_a_hostile_name_lays_out_with_its_control_characters_and_marks_dropped(tmp_path, capsys, at_root):
    out = proof(tmp_path, str(HOSTILE))
    captured = capsys.readouterr()
    assert captured.out == f"{out}: 2 cards on 1 page (a4)\n"
    assert captured.err == (
        f"critter-kitchen: {out}: card 'mirror-writing': 3 characters the shipped font lacks printed as \ufffd\n"
        f"critter-kitchen: {out}: text cut to fit, on endless-feast\n"
    )
    page = read_pdf(out)[0]
    assert all(ch.isprintable() or ch in "\n " for ch in page.text)
    assert not set(page.text) & {"\u202e", "\u202c", "\u200f", "\u200b", "\x1b", "\x07", "\t"}
    text = words(page.text)
    assert "evil" in text and "mred bell tab line" in text  # "[31" joins the Hebrew's right-to-left run
    # the Hebrew word, in whichever order the text extraction puts a right-to-left run
    assert "\u05e9\u05dc\u05d5\u05dd" in text or "\u05dd\u05d5\u05dc\u05e9" in text
    assert "zerowidth" in page.text
    assert "\u2026" in page.text  # the long name and text cut with an ellipsis
    thinnest = min(w for *_, w in page.lines)
    assert len([line for line in page.lines if line[4] == thinnest]) == 16  # two cards' marks, as any card's


def test_every_line_of_a_hostile_card_stays_in_its_safe_area():
    from critter_kitchen.proof.card import INSET, lay_out
    from critter_kitchen.proof.faces import face
    from critter_kitchen.proof.layout import PT
    from critter_kitchen.proof.pdf import Sheets

    ruleset = Resolver([str(HOSTILE)]).ruleset()
    sheets = Sheets("a4")
    regular, bold = sheets.measure(False), sheets.measure(True)
    for card in (ruleset.cards["endless-feast"], ruleset.cards["mirror-writing"]):
        laid = lay_out(sheets.printable(face(card, ruleset)), regular, bold)
        assert laid.texts
        for t in laid.texts:
            assert t.x >= INSET - TOL and t.x + t.width <= CARD_W - INSET + TOL, (card.id, t)
            assert t.y >= INSET - TOL and t.y + t.size * PT <= CARD_H - INSET + TOL, (card.id, t)


def test_right_to_left_words_print_in_the_order_they_are_read():
    from critter_kitchen.proof.pdf import visual

    shalom = "\u05e9\u05dc\u05d5\u05dd"
    assert visual(f"evil {shalom} red") == f"evil {shalom[::-1]} red"
    assert visual(f"{shalom} 12, ok") == f"12 {shalom[::-1]}, ok"  # a number stays in the right-to-left run
    assert visual("Chef Flambé") == "Chef Flambé"


# errors: one line, exit 1, nothing written


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_unknown_card(tmp_path, capsys, at_root):
    out = tmp_path / "cards.pdf"
    assert main(["proof", "base", "--cards", "fish-fanatik", "--output", str(out)]) == 1
    assert capsys.readouterr().err == (
        "critter-kitchen: --cards: unknown card 'fish-fanatik'; did you mean 'fish-fanatic'?\n"
    )
    assert _leftovers(tmp_path) == []


def test_a_rules_card_is_never_printed(tmp_path, capsys, at_root):
    assert main(["proof", "base", "--cards", "base-rules", "--output", str(tmp_path / "x.pdf")]) == 1
    assert capsys.readouterr().err == (
        "critter-kitchen: --cards: 'base-rules' is a rules card (the scoring procedure), never printed\n"
    )
    assert _leftovers(tmp_path) == []


def test_a_pack_of_rules_alone_has_nothing_to_print(tmp_path, capsys, at_root):
    assert main(["proof", "tests/packs/no-hold", "--output", str(tmp_path / "x.pdf")]) == 1
    assert capsys.readouterr().err == "critter-kitchen: no cards to print in 'no-hold': only rules cards\n"
    assert _leftovers(tmp_path) == []


def test_an_unknown_pack_is_the_error_cards_gives(tmp_path, capsys, at_root):
    assert main(["cards", "--pack", "no-such-pack"]) == 1
    expected = capsys.readouterr().err
    assert main(["proof", "no-such-pack", "--output", str(tmp_path / "x.pdf")]) == 1
    assert capsys.readouterr().err == expected
    assert expected.startswith("no-such-pack: neither a pack folder nor the id of an installed pack;")
    assert _leftovers(tmp_path) == []


def test_an_output_in_a_missing_folder(tmp_path, capsys, at_root):
    out = tmp_path / "nowhere" / "cards.pdf"
    assert main(["proof", "base", "--output", str(out)]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: {out}: cannot write the proofs: No such file or directory\n"
    assert _leftovers(tmp_path) == []


def test_an_output_that_is_a_folder_or_a_device(tmp_path, capsys, at_root):
    assert main(["proof", "base", "--output", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: {tmp_path}: cannot write the proofs: not a regular file\n"
    assert main(["proof", "base", "--output", os.devnull]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: {os.devnull}: cannot write the proofs: not a regular file\n"
    assert _leftovers(tmp_path) == []


def test_an_output_in_a_folder_that_refuses_files(tmp_path, capsys, monkeypatch, at_root):
    import tempfile

    def refused(*args, **kwargs):  # what a read-only folder answers (root may write into any folder)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    out = tmp_path / "cards.pdf"
    assert main(["proof", "base", "--output", str(out)]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: {out}: cannot write the proofs: Permission denied\n"
    assert _leftovers(tmp_path) == []


def test_a_failed_write_keeps_the_old_file_whole(tmp_path, capsys, monkeypatch, at_root):
    out = tmp_path / "cards.pdf"
    out.write_bytes(b"the proofs of yesterday")

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert main(["proof", "base", "--output", str(out)]) == 1
    assert capsys.readouterr().err == f"critter-kitchen: {out}: cannot write the proofs: No space left on device\n"
    assert out.read_bytes() == b"the proofs of yesterday"
    assert _leftovers(tmp_path) == ["cards.pdf"]


def test_without_the_print_extra(tmp_path, capsys, monkeypatch, at_root):
    monkeypatch.setitem(sys.modules, "fpdf", None)  # what an interpreter without fpdf2 imports
    assert main(["proof", "base", "--output", str(tmp_path / "cards.pdf")]) == 1
    assert capsys.readouterr().err == (
        'critter-kitchen: proofs need the print extra: pip install "critter-kitchen[print]"\n'
    )
    assert _leftovers(tmp_path) == []


def test_the_wheel_ships_the_fonts_and_their_licence(tmp_path):
    import subprocess
    import zipfile

    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("critter_kitchen-*.whl"))
    fonts = ROOT / "engine" / "critter_kitchen" / "proof" / "fonts"
    with zipfile.ZipFile(wheel) as z:
        for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LICENSE"):
            assert z.read(f"critter_kitchen/proof/fonts/{name}") == (fonts / name).read_bytes(), name
    assert "Bitstream Vera" in (fonts / "LICENSE").read_text("utf-8")


def test_the_english_keeps_its_nesting():
    from critter_kitchen.proof.card import lay_out
    from critter_kitchen.proof.faces import face
    from critter_kitchen.proof.pdf import Sheets

    ruleset = load_ruleset()
    sheets = Sheets("a4")
    laid = lay_out(face(ruleset.cards["grand-caterer"], ruleset), sheets.measure(False), sheets.measure(True))
    x = {t.text: t.x for t in laid.texts}
    stage, outer, inner = (
        "After critic.card_bonuses:",
        "For each r in challenge_rounds:",
        "For each m in the meals of r:",
    )
    assert x[stage] < x[outer] < x[inner]


def test_the_pdf_embeds_subsets_of_the_shipped_fonts_and_nothing_reaches_the_network(tmp_path, monkeypatch, at_root):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("a proof opened a socket")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    out = proof(tmp_path, "a-la-carte")
    pypdf = print_extra_or_skip()
    fonts = {}
    for page in pypdf.PdfReader(str(out)).pages:
        for ref in page["/Resources"]["/Font"].values():
            font = ref.get_object()
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
            fonts[str(font["/BaseFont"])] = "/FontFile2" in descriptor  # the TrueType program, embedded
    assert fonts and all(fonts.values())
    assert {name.split("+", 1)[1] for name in fonts} == {"DejaVuSansBook", "DejaVuSansBold"}
    assert all(len(name.split("+", 1)[0]) == len("/ABCDEF") for name in fonts)  # a subset's tag

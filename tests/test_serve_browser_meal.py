"""The meal form in taps (issue 26, "Entry in taps, not dropdowns"), in a real browser at 390 px:
a row per requirement of the card with its type chosen, values from the number pad (and typed on
a keyboard), spices and tokens as chips, the meal's quality and stars as the engine scores them
while it is entered, and undo for a row removed or a meal cleared."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_serve_browser import EXAMPLES, Visit, expect, imported, running_server  # noqa: E402
from test_serve_browser_shots import NULLS  # noqa: E402

ROAST = "challenge_meals.round3.Ana.sunday-roast"  # Sunday Roast requires meat, carrot


@pytest.fixture
def visit(browser, tmp_path):  # noqa: F811
    for url in running_server(tmp_path):
        v = Visit(browser, url, tmp_path)
        yield v
        v.close()


def no_meals(visit: Visit, tmp_path: Path) -> None:
    """examples/two-players.yaml's game with no meal entered, on Ana's meals."""
    record = yaml.safe_load((EXAMPLES / "two-players.yaml").read_text())
    record["challenge_meals"], record["critic_meals"] = {}, {}
    for p in record["players"]:
        p.pop("kept", None)
    path = tmp_path / "setup.yaml"
    path.write_text(yaml.safe_dump(record, sort_keys=False))
    imported(visit, path)
    visit.page.click("#to-meals")
    expect(visit.page.locator('#who button[aria-selected="true"]')).to_contain_text("Ana")


def rows(visit: Visit, where: str) -> list[str]:
    return visit.page.locator(f'[data-where^="{where}.ingredients["][data-where$=".type"]').all_inner_texts()


def pressed(visit: Visit, chip: str) -> str | None:
    return visit.page.locator(f'[data-chip="{chip}"]').get_attribute("aria-pressed")


def test_a_meal_has_a_row_per_requirement_filled_from_the_number_pad(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    assert rows(visit, ROAST) == ["meat", "carrot"]  # the card's requirements, the types chosen
    expect(page.locator(f'[data-meal="{ROAST}"]')).not_to_be_checked()
    visit.field(f"{ROAST}.ingredients[0].value").click()
    pad = page.locator("#numpad")
    expect(pad).to_be_visible()
    for button in pad.locator("button").all():  # big enough for a thumb
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
    pad.locator('[data-pad-value="3"]').click()
    expect(visit.field(f"{ROAST}.ingredients[0].value")).to_have_value("3")
    expect(page.locator(f'[data-meal="{ROAST}"]')).to_be_checked()  # a value serves the meal
    expect(visit.field(f"{ROAST}.ingredients[1].value")).to_be_focused()  # the pad moved down a row
    pad.locator('[data-pad-value="12"]').click()
    expect(visit.field(f"{ROAST}.ingredients[1].value")).to_have_value("12")
    # typed on a keyboard, as on a laptop
    field = visit.field(f"{ROAST}.ingredients[1].value")
    field.click()
    field.press("Control+a")
    page.keyboard.type("4")
    expect(field).to_have_value("4")
    visit.shot("score-pad-number-pad")


def test_the_meal_says_its_quality_and_stars_from_the_engine_as_it_is_entered(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    line = page.locator(f'[data-stars="{ROAST}"]')
    visit.field(f"{ROAST}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="3"]')
    # the carrot the card requires is missing: said in the engine's words, no stars
    expect(line).to_have_text("not scored yet: missing carrot: 1 soup or bisque needed to fill, 0 given")
    page.click('#numpad [data-pad-value="4"]')
    expect(line).to_have_text("quality 7 → 1 star")
    page.click(f'[data-chip="{ROAST}.ingredients[1].spice:{"allspice"}"]')  # the carrot doubled
    expect(line).to_have_text("quality 11 → 1 star")  # as critter-kitchen score says of Ana's meal
    line.scroll_into_view_if_needed()
    visit.shot("score-pad-meal-stars")


def test_spices_and_tokens_are_chips_a_tap_on_and_a_tap_off(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    spice = f"{ROAST}.ingredients[0].spice"
    assert page.locator(f'[data-where="{spice}"] .chip').all_inner_texts() == ["spice", "allspice", "…"]
    page.click(f'[data-chip="{spice}:meat"]')
    assert (pressed(visit, f"{spice}:meat"), pressed(visit, f"{spice}:allspice")) == ("true", "false")
    page.click(f'[data-chip="{spice}:allspice"]')  # one spice allowed: it takes the meat spice's place
    assert (pressed(visit, f"{spice}:meat"), pressed(visit, f"{spice}:allspice")) == ("false", "true")
    page.click(f'[data-chip="{spice}:allspice"]')
    assert pressed(visit, f"{spice}:allspice") == "false"
    page.click(f'[data-chip="{spice}:more"]')  # the other spices, for a card that allows them
    assert page.locator(f'[data-where="{spice}"] .chip').count() == 8
    page.click(f'[data-chip="{ROAST}.soup:2"]')
    assert pressed(visit, f"{ROAST}.soup:2") == "true"
    expect(page.locator(f'[data-meal="{ROAST}"]')).to_be_checked()  # a token served the meal
    page.click(f'[data-chip="{ROAST}.soup:2"]')
    assert pressed(visit, f"{ROAST}.soup:2") == "false"


def test_plus_ingredient_offers_the_cards_types_first(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    page.click(f'[data-add="{ROAST}.ingredients"]')
    chips = page.locator(f'[data-chip^="{ROAST}.ingredients:"]')
    names = chips.all_inner_texts()
    assert names[:2] == ["meat", "carrot"] and sorted(names) == sorted(
        ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
    )
    page.click(f'[data-chip="{ROAST}.ingredients:fish"]')
    assert rows(visit, ROAST) == ["meat", "carrot", "fish"]
    expect(visit.field(f"{ROAST}.ingredients[2].value")).to_be_focused()


def test_a_row_removed_and_a_meal_cleared_come_back_with_undo(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    visit.field(f"{ROAST}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="3"]')
    page.click('#numpad [data-pad-value="4"]')
    page.click(f'[data-chip="{ROAST}.ingredients[1].spice:allspice"]')
    line = page.locator(f'[data-stars="{ROAST}"]')
    expect(line).to_have_text("quality 11 → 1 star")
    page.click('[aria-label="remove ingredient 2"] >> nth=0')
    assert rows(visit, ROAST) == ["meat"]
    expect(page.locator("#undo-what")).to_have_text("Removed carrot 4 from Sunday Roast")
    page.click("#undo-button")
    expect(visit.field(f"{ROAST}.ingredients[1].value")).to_have_value("4")
    assert rows(visit, ROAST) == ["meat", "carrot"]
    assert pressed(visit, f"{ROAST}.ingredients[1].spice:allspice") == "true"
    expect(line).to_have_text("quality 11 → 1 star")
    page.click(f'[data-clear="{ROAST}"]')
    expect(page.locator("#undo-what")).to_have_text("Cleared Sunday Roast")
    expect(visit.field(f"{ROAST}.ingredients[0].value")).to_have_value("")
    expect(page.locator(f'[data-meal="{ROAST}"]')).not_to_be_checked()
    visit.shot("score-pad-meal-undo")
    page.click("#undo-button")
    expect(visit.field(f"{ROAST}.ingredients[0].value")).to_have_value("3")
    expect(page.locator(f'[data-meal="{ROAST}"]')).to_be_checked()
    expect(line).to_have_text("quality 11 → 1 star")


# --- the number pad goes where the next value is (issue 26, the 120-tap goal) -------------

STEW = "challenge_meals.round3.Ana.harbor-stew"  # fish, carrot, bread; the Hold token covers the bread
CHOWDER = "challenge_meals.round3.Ana.river-chowder"  # fish, mushroom


def test_the_number_pad_passes_the_row_the_hold_token_covers(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    assert rows(visit, STEW) == ["fish", "carrot", "bread"]
    visit.field(f"{STEW}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="4"]')
    page.click('#numpad [data-pad-value="2"]')
    # the covered bread is not asked for: the pad goes on to what Ana kept after the round
    expect(visit.field("players[0].kept.round3")).to_be_focused()
    expect(visit.field(f"{STEW}.ingredients[2].value")).to_have_value("")
    expect(page.locator(f'[data-stars="{STEW}"]')).to_have_text("quality 6 → 1 star")
    # a tap on the covered row still takes a value, and the pad goes on from there
    visit.field(f"{STEW}.ingredients[2].value").click()
    page.click('#numpad [data-pad-value="3"]')
    expect(visit.field(f"{STEW}.ingredients[2].value")).to_have_value("3")
    expect(visit.field("players[0].kept.round3")).to_be_focused()


def test_a_token_that_fills_the_meals_empty_rows_sends_the_pad_past_them(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    visit.field(f"{STEW}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="4"]')
    expect(visit.field(f"{STEW}.ingredients[1].value")).to_be_focused()
    page.click(f'[data-chip="{STEW}.soup:1"]')  # the soup fills the carrot (examples/two-players.yaml)
    expect(page.locator(f'[data-stars="{STEW}"]')).to_have_text("quality 5 → 0 stars")
    expect(visit.field("players[0].kept.round3")).to_be_focused()
    # a token that leaves a row to fill keeps the pad where it is
    visit.field(f"{ROAST}.ingredients[0].value").click()
    page.click(f'[data-chip="{ROAST}.bisque:1"]')
    expect(page.locator(f'[data-stars="{ROAST}"]')).to_contain_text("not scored yet")
    expect(visit.field(f"{ROAST}.ingredients[0].value")).to_be_focused()
    page.click('#numpad [data-pad-value="3"]')  # the meat: the bisque fills the carrot, the meal is scored
    expect(page.locator(f'[data-stars="{ROAST}"]')).to_contain_text("quality")
    expect(visit.field(f"{ROAST}.ingredients[1].value")).to_be_focused()  # a value goes a row down, as ever


def test_not_served_on_the_number_pad_unticks_the_meal_and_goes_on_to_the_next(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    skip = page.locator("#numpad [data-pad-skip]")
    visit.field(f"{ROAST}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="3"]')
    expect(page.locator(f'[data-meal="{ROAST}"]')).to_be_checked()
    expect(skip).to_have_text("Not served")
    box = skip.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44
    skip.click()
    # unticked as its box does (the 3 is kept, not recorded), the pad on the next card's first row
    expect(page.locator(f'[data-meal="{ROAST}"]')).not_to_be_checked()
    expect(visit.field(f"{ROAST}.ingredients[0].value")).to_have_value("3")
    expect(visit.field(f"{CHOWDER}.ingredients[0].value")).to_be_focused()
    skip.click()  # a meal never started: on to the next card
    expect(page.locator(f'[data-meal="{CHOWDER}"]')).not_to_be_checked()
    expect(visit.field(f"{STEW}.ingredients[0].value")).to_be_focused()
    skip.click()  # the last card of the round: on to what Ana kept, where the key skips a field
    expect(visit.field("players[0].kept.round3")).to_be_focused()
    expect(skip).to_have_text("Skip")
    visit.field("critic_meals.Ana.courses.carrot.value").click()
    skip.click()  # a course not served
    expect(visit.field("critic_meals.Ana.courses.fish.value")).to_be_focused()
    expect(visit.field("critic_meals.Ana.courses.carrot.value")).to_have_value("")


def test_what_was_left_is_entered_with_the_chips_and_the_number_pad(visit, tmp_path):
    no_meals(visit, tmp_path)
    page = visit.page
    left = "critic_meals.Ana.left"
    box = page.locator("#meals [data-player]:not([hidden]) details.left")
    box.locator("summary").click()
    page.click(f'[data-add="{left}"]')  # "Record what was left"
    page.click(f'[data-add="{left}.ingredients"]')
    page.click(f'[data-chip="{left}.ingredients:carrot"]')
    expect(visit.field(f"{left}.ingredients[0].value")).to_be_focused()  # the number pad on its value
    page.click('#numpad [data-pad-value="0"]')
    # the engine's word on it, at its field
    expect(page.locator(f'.err[data-for="{left}.ingredients[0].value"]')).to_contain_text(
        "expected a positive whole number up to 1000000, got 0"
    )
    visit.field(f"{left}.ingredients[0].value").click()
    page.click('#numpad [data-pad-value="4"]')
    page.click(f'[data-add="{left}.spices"]')
    page.click(f'[data-chip="{left}.spices:allspice"]')
    page.click(f'[data-add="{left}.spices"]')
    page.click(f'[data-chip="{left}.spices:fish"]')
    page.click(f'[data-chip="{left}.spices[1]"]')  # a tap on a spice kept takes it out
    expect(box.locator("select")).to_have_count(0)  # no native dropdown left
    assert box.evaluate(NULLS) == []  # none of its parts it has not (tokens) written out as "null"
    planner = page.locator("#meals [data-player]:not([hidden]) .planner").first
    planner.locator("summary").click()
    assert planner.evaluate(NULLS) == []  # the planner's pantry, which shows no problems at its fields
    expect(page.locator(f'.err[data-for="{left}.ingredients[0].value"]')).to_be_hidden()
    draft = page.evaluate("JSON.parse(localStorage.getItem('critter-kitchen-draft')).S")
    ana = next(p["key"] for p in draft["players"] if p["name"] == "Ana")
    assert draft["critic"][str(ana)]["left"] == {
        "ingredients": [{"type": "carrot", "value": "4"}],
        "spices": ["allspice"],
    }

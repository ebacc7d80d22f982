"""The score pad's bugs found at the table (issue 26, "Bugs found" 1 to 6), each in a real
browser (Debian's chromium driven by Playwright): spices as many as the parameters in force
allow, every problem reachable, the Hold token said on the last card of a round alone, undo
for what "Start over" and a player's ✕ take away, challenge cards credited their meals in the
card statistics, one rendering of the result for the preview and the kept game, and the
keyboard focus kept where the user is.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_serve_browser import (  # noqa: E402
    EXAMPLES,
    ROOT,
    Visit,
    cli_score,
    expect,
    imported,
    keep_game,
    running_server,
    type_game,
)

FIVE = EXAMPLES / "five-players.yaml"
COMPOSING = ROOT / "tests" / "packs" / "composing"
LAPTOP = {"width": 1366, "height": 900}


@pytest.fixture
def visit(browser, tmp_path):
    for url in running_server(tmp_path, (str(COMPOSING),)):
        v = Visit(browser, url, tmp_path)
        yield v
        v.close()


def written(tmp_path: Path, record: dict, name: str = "game.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(record, sort_keys=False))
    return path


def tab(v: Visit, name: str) -> None:
    v.page.click(f'#who button:has-text("{name}")')


# --- 1: spices ---------------------------------------------------------------------------


def test_a_critic_course_under_baron_pepperpot_shows_and_keeps_both_its_spices(visit, tmp_path):
    imported(visit, FIVE)
    page = visit.page
    page.click("#to-meals")
    tab(visit, "Kim")
    fish = "critic_meals.Kim.courses.fish.spice"
    expect(page.locator(f'[data-chip="{fish}:fish"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f'[data-chip="{fish}:allspice"]')).to_have_attribute("aria-pressed", "true")
    # a course with one spice, and one with none, still take the two spices the Baron allows
    expect(visit.field("critic_meals.Kim.courses.meat.spice")).to_have_attribute("data-limit", "2")
    expect(visit.field("critic_meals.Kim.courses.wine.spice")).to_have_attribute("data-limit", "2")
    # the wild spice tapped off and on again drops nothing: Kim keeps 8 stars, as the CLI scores the file
    page.click(f'[data-chip="{fish}:allspice"]')
    expect(page.locator(f'[data-chip="{fish}:allspice"]')).to_have_attribute("aria-pressed", "false")
    page.click(f'[data-chip="{fish}:allspice"]')
    visit.legal()
    expected = {s["name"]: s["stars"] for s in cli_score(FIVE)["standings"]}
    assert expected["Kim"] == 8
    expect(page.locator("#status")).to_contain_text("Kim 8★")
    visit.shot("pad-two-spices")
    keep_game(visit)
    kept = page.request.get(visit.url + "api/games").json()["games"][0]
    assert {p["name"]: p["stars"] for p in kept["players"]} == expected
    record = page.request.get(page.url + "/record.json").json()
    assert record["critic_meals"]["Kim"]["courses"]["fish"]["spice"] == ["fish", "allspice"]


def test_a_challenge_cards_own_parameters_give_its_ingredients_two_spice_boxes(visit, tmp_path):
    record = {
        "packs": ["composing"],
        "players": [{"name": "Ana"}, {"name": "Ben"}],
        "cards": {
            "challenges": {
                "round3": ["twice-spiced-skewers", "harbor-stew", "braised-shank"],
                "round6": ["sunday-roast", "farmhouse-pie", "forest-risotto"],
            }
        },
        "challenge_meals": {
            "round3": {
                "Ana": {
                    "twice-spiced-skewers": {
                        "ingredients": [{"type": "meat", "value": 3}, {"type": "fish", "value": 2}]
                    },
                    "harbor-stew": {
                        "ingredients": [
                            {"type": "fish", "value": 3},
                            {"type": "carrot", "value": 2},
                            {"type": "bread", "value": 2},
                        ]
                    },
                }
            }
        },
        "critic_meals": {},
    }
    imported(visit, written(tmp_path, record))
    visit.page.click("#to-meals")
    skewers = "challenge_meals.round3.Ana.twice-spiced-skewers.ingredients[0].spice"
    expect(visit.field(skewers)).to_have_attribute("data-limit", "2")
    expect(visit.field("challenge_meals.round3.Ana.harbor-stew.ingredients[0].spice")).to_have_attribute(
        "data-limit", "1"
    )
    # two spices tapped onto the skewers' meat are both recorded (a meat spice and the wild one)
    visit.page.click(f'[data-chip="{skewers}:meat"]')
    visit.page.click(f'[data-chip="{skewers}:allspice"]')
    expect(visit.page.locator(f'[data-chip="{skewers}:meat"]')).to_have_attribute("aria-pressed", "true")
    visit.legal()
    visit.page.click("#steps [data-step=save]")
    visit.legal()
    visit.page.click("#save")
    visit.page.wait_for_url("**/games/*")
    kept = visit.page.request.get(visit.page.url + "/record.json").json()
    meal = kept["challenge_meals"]["round3"]["Ana"]["twice-spiced-skewers"]
    assert meal["ingredients"][0]["spice"] == ["meat", "allspice"]


# --- 2: every problem reachable ----------------------------------------------------------


def test_every_problem_is_counted_on_its_step_and_tab_and_reached_by_next_problem(visit, tmp_path):
    record = yaml.safe_load(FIVE.read_text())
    record["players"][0]["restaurateur"] = "no-such-card"  # a problem of the setup step
    record["challenge_meals"]["round3"]["Kim"]["braised-shank"]["ingredients"][0]["value"] = 0  # one of Kim's meals
    imported(visit, written(tmp_path, record))
    page = visit.page
    expect(page.locator("#status")).to_have_text("2 problems to fix")
    page.click("#steps [data-step=save]")
    expect(page.locator("#steps [data-step=game] .count")).to_have_text("1")
    expect(page.locator("#steps [data-step=meals] .count")).to_have_text("1")
    expect(page.locator("#preview")).to_contain_text("2 problems to fix")
    visit.shot("pad-problems-counted")
    page.click("#next-problem")
    expect(page.locator("#step-game")).to_be_visible()
    focused = page.evaluate("document.activeElement.dataset.where")
    assert focused == "players[0].restaurateur"
    expect(page.locator('.err[data-for="players[0].restaurateur"]')).to_be_visible()
    page.click("#next-problem")
    expect(page.locator("#step-meals")).to_be_visible()
    expect(page.locator('#who button[aria-selected="true"]')).to_contain_text("Kim")
    expect(page.locator('#who button:has-text("Kim") .count')).to_have_text("1")
    where = "challenge_meals.round3.Kim.braised-shank.ingredients[0].value"
    assert page.evaluate("document.activeElement.dataset.where") == where
    expect(visit.field(where)).to_be_in_viewport()


# --- 3: the Hold token on the last card of a round alone ---------------------------------


def test_the_hold_token_is_said_on_the_last_card_of_a_round_only_its_requirement_struck(visit):
    imported(visit, FIVE)
    page = visit.page
    page.click("#to-meals")
    tab(visit, "Jo")
    cards = {
        cid: yaml.safe_load((ROOT / "cards" / "base" / "challenges" / f"{cid}.yaml").read_text())
        for cid in ("mushroom-toast", "braised-shank", "toasted-cheese")
    }
    for cid in ("mushroom-toast", "braised-shank"):
        meal = page.locator(f'#meals [data-player]:not([hidden]) .meal[data-card="{cid}"]')
        expect(meal.locator("p.text")).not_to_contain_text("Hold")
        expect(meal.locator(".requires")).to_have_count(0)
    last = page.locator('#meals [data-player]:not([hidden]) .meal[data-card="toasted-cheese"]')
    # its requirements said once, in the engine's words, the one the token covers struck through
    requires = cards["toasted-cheese"]["requires"]
    expect(last.locator(".requires")).to_have_text(
        f"Requires: {', '.join(requires)} (left to right; the Hold token covers the last)"
    )
    expect(last.locator(".requires s")).to_have_text(requires[-1])
    expect(last.locator("p.text")).to_have_count(0)
    assert last.inner_text().count("Requires") == 1
    visit.shot("pad-hold-token")
    page.click("#steps [data-step=game]")
    picked = page.locator('[data-where="cards.challenges.round3[2]"]').locator("xpath=..").locator("xpath=..")
    expect(picked.locator(".card-text > p").first).to_contain_text("the Hold token covers the last")
    first = page.locator('[data-where="cards.challenges.round3[0]"]').locator("xpath=..").locator("xpath=..")
    expect(first.locator(".card-text > p").first).not_to_contain_text("Hold")


# --- 4: undo -----------------------------------------------------------------------------


def test_start_over_and_a_players_cross_are_undone_exactly(visit):
    imported(visit, FIVE)
    page = visit.page
    page.click("#to-meals")
    tab(visit, "Kim")
    page.click("#steps [data-step=game]")
    before = page.evaluate("localStorage.getItem('critter-kitchen-draft')")
    page.click('[aria-label="remove player 2"]')
    expect(visit.field("players[1].name")).to_have_value("Lou")
    expect(page.locator("#undo")).to_be_visible()
    expect(page.locator("#undo-what")).to_have_text("Removed Kim")
    visit.shot("pad-undo-remove")
    page.click("#undo-button")
    expect(visit.field("players[1].name")).to_have_value("Kim")
    expect(page.locator("#undo")).to_be_hidden()
    visit.legal()
    page.click("#start-over")
    expect(visit.field("players[0].name")).to_have_value("")
    expect(page.locator("#undo-what")).to_have_text("Started over")
    page.click("#undo-button")
    expect(visit.field("players[0].name")).to_have_value("Jo")
    visit.legal()
    assert page.evaluate("localStorage.getItem('critter-kitchen-draft')") == before
    expect(page.locator("#status")).to_contain_text("Kim 8★")


# --- 5: the card statistics credit challenge meals to their card -------------------------


def test_each_challenge_card_is_credited_what_its_meals_earned_as_the_lab_does(visit, tmp_path):
    from critter_kitchen.api import read_record, score_game
    from critter_kitchen.loading.resolve import Resolver
    from critter_kitchen.simulate.paired import score_without

    imported(visit, FIVE)
    keep_game(visit)
    stats = {c["id"]: c for c in visit.page.request.get(visit.url + "api/cards/stats").json()["cards"]}
    record = yaml.safe_load(FIVE.read_text())
    rules = Resolver([]).ruleset(())
    whole = score_game(read_record(rules, copy.deepcopy(record), "five"))
    total = sum(p.stars for p in whole.game.players)
    for rnd in record["cards"]["challenges"].values():
        for cid in rnd:
            # the lab's plain path: the same game with the card's meals taken out, read and scored
            again = score_without(rules, record, cid)
            stars = total - sum(p.stars for p in again.game.players)
            assert stars > 0
            assert stats[cid]["stars"] == stars, cid
            assert stats[cid]["awards"] > 0, cid
    visit.page.goto(visit.url + "cards")
    visit.page.locator("#stats td").first.wait_for()
    visit.shot("pad-card-stats")


# --- 6: one rendering of the result; the focus kept -------------------------------------


def test_the_preview_is_the_kept_games_result_stage_for_stage_and_card_for_card(visit):
    imported(visit, FIVE)
    page = visit.page
    page.click("#steps [data-step=save]")
    visit.legal()
    shown = {
        "stages": page.locator("#preview table.stages tbody th").all_inner_texts(),
        "cells": page.locator("#preview table.stages td").all_inner_texts(),
        "cards": page.locator("#preview .awards .card").all_inner_texts(),
        "ranking": page.locator("#preview .ranking li").all_inner_texts(),
    }
    assert all("base-rules" not in c for c in shown["cards"])  # the rules card by its name
    assert "[object" not in page.inner_text("#preview")  # nothing laid out as a script's object
    visit.shot("pad-preview")
    page.click("#save")
    page.wait_for_url("**/games/*")
    kept = {
        "stages": page.locator("table.stages tbody th").all_inner_texts(),
        "cells": page.locator("table.stages td").all_inner_texts(),
        "cards": page.locator("#awards .card").all_inner_texts(),
        "ranking": page.locator("#ranking li").all_inner_texts(),
    }
    assert shown == kept
    assert all("base-rules" not in c for c in kept["cards"])


def test_serving_a_meal_and_adding_an_ingredient_keep_the_keyboard_focus(browser, tmp_path):
    for url in running_server(tmp_path):
        v = Visit(browser, url, tmp_path)
        v.page.set_viewport_size(LAPTOP)
        try:
            record = yaml.safe_load(FIVE.read_text())
            record = {"players": record["players"][:2], "cards": {"challenges": record["cards"]["challenges"]}}
            type_game(v, {**record, "challenge_meals": {}, "critic_meals": {}})
            page = v.page
            tab(v, "Kim")
            where = "challenge_meals.round6.Kim.river-chowder"
            served = page.locator(f'[data-meal="{where}"]')
            served.focus()
            page.keyboard.press("Space")
            expect(served).to_be_checked()
            assert page.evaluate("document.activeElement.dataset.meal") == where
            assert page.evaluate("window.scrollY") > 0
            rows = page.locator(f'[data-where^="{where}.ingredients["][data-where$=".type"]').count()
            add = page.locator(f'[data-add="{where}.ingredients"]')
            add.focus()
            page.keyboard.press("Enter")  # the types, the card's first: the focus on the first of them
            page.keyboard.press("Enter")
            expect(v.field(f"{where}.ingredients[{rows}].value")).to_be_focused()
            assert page.evaluate("window.scrollY") > 0
            v.shot("pad-focus-kept")
        finally:
            v.close()

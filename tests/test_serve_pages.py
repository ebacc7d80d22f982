"""The score pad's pages and the JSON they use (``/ui/...``), through the ASGI app.

The app is the real one (``critter_kitchen.web.app.create_app``) when it is there; without it
a small stand-in gives the pages what the app does (a store, the rulesets, a CSRF token, the
``POST /api/games`` the pages keep games with), so the pages are tested either way.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")
pytest.importorskip("jinja2")

from fastapi import Request  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
STUB_TOKEN = "stub-csrf-token"


# --- the app: the real one, or a stand-in until it exists -------------------------------


class StubGame:
    def __init__(self, id: int, record: object, result: dict, created: str) -> None:
        self.id, self.record, self.result, self.created = id, record, result, created


class StubStore:
    """The store's reading side as the pages use it: games kept in memory, newest first."""

    def __init__(self) -> None:
        self.kept: list[StubGame] = []

    def add(self, record: object, result: dict) -> int:
        game = StubGame(len(self.kept) + 1, record, result, f"2026-12-01T12:00:{len(self.kept):02d}Z")
        self.kept.append(game)
        return game.id

    def games(self, player: str | None = None, limit: int = 100, offset: int = 0) -> list[StubGame]:
        found = [g for g in reversed(self.kept) if player is None or _has_player(g, player)]
        return found[offset : offset + limit]

    def count(self, player: str | None = None) -> int:
        return len(self.games(player, len(self.kept)))

    def get(self, game_id: int) -> StubGame | None:
        return self.kept[game_id - 1] if 1 <= game_id <= len(self.kept) else None


def _has_player(game: StubGame, part: str) -> bool:
    return any(part.lower() in s["name"].lower() for s in game.result["standings"])


class StubRulesets:
    def __call__(self, packs: tuple[str, ...] = (), source: str = "record") -> object:
        from critter_kitchen.loading.cached import load_ruleset
        from critter_kitchen.loading.resolve import load_order, record_pack_folders

        return load_ruleset(load_order(record_pack_folders(list(packs), source, []), []))

    def for_record(self, data: object, source: str = "record") -> object:
        from critter_kitchen.loading.records import record_packs

        return self(record_packs(data, source), source)


def stub_app():
    """A stand-in for ``create_app``: the pages' router with what the real app gives it."""
    import types

    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response
    from fastapi.staticfiles import StaticFiles

    from critter_kitchen import InputError, result_json, score_record
    from critter_kitchen.web import pages
    from critter_kitchen.web.work import EnginePool

    app = FastAPI()
    app.state.store = StubStore()
    app.state.rulesets = StubRulesets()
    app.state.settings = types.SimpleNamespace(packs=())
    app.state.engine = EnginePool()

    @app.middleware("http")
    async def csrf(request: Request, call_next):  # the double-submit check, with a fixed token
        request.state.csrf_token = STUB_TOKEN
        if request.method != "GET" and request.headers.get("x-csrf-token") != STUB_TOKEN:
            return JSONResponse({"errors": ["missing or wrong CSRF token"]}, status_code=403)
        return await call_next(request)

    @app.post("/api/games", status_code=201)
    async def create_game(request: Request) -> Response:
        record = await request.json()
        try:
            result = result_json(score_record(record, app.state.rulesets(tuple(record.get("packs", ())))))
        except InputError as e:
            return JSONResponse({"errors": [p.full_message() for p in e.problems]}, status_code=422)
        return JSONResponse({"id": app.state.store.add(record, result), "result": result}, status_code=201)

    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=str(Path(pages.__file__).parent / "static")), name="static")
    return app


def real_app(db: Path):
    """The real app on a fresh database, or None while it does not exist."""
    try:
        from critter_kitchen.web.app import Settings, create_app
    except ImportError:
        return None
    return create_app(Settings(db=str(db)))


def make_app(tmp_path: Path):
    return real_app(tmp_path / "games.sqlite3") or stub_app()


@pytest.fixture
def client(tmp_path):
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as c:
        c.headers["X-CSRF-Token"] = csrf_token(c.get("/new").text)
        yield c


def csrf_token(page: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]*)">', page)
    assert found, "the page carries no CSRF token"
    return found.group(1)


def example(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / name).read_text())


def cli_json(*args: str) -> object:
    done = subprocess.run([sys.executable, "-m", "critter_kitchen", *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


# --- pages ---------------------------------------------------------------------------------


PAGES = ["/", "/new", "/cards", "/players/Ana", "/?player=Ana"]


@pytest.mark.parametrize("url", PAGES)
def test_every_page_carries_the_csrf_token_and_fetches_nothing_from_elsewhere(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert csrf_token(response.text)
    # every script, style and link is the server's own
    for ref in re.findall(r'(?:src|href)="([^"]*)"', response.text):
        assert ref.startswith("/") or ref == "data:,", ref  # (an empty icon, so none is asked for)


def test_static_files_are_served(client):
    scripts = [(name, "javascript") for name in ("pad.js", "new.js", "result.js", "stats.js")]
    for name, kind in [("pad.css", "text/css"), *scripts]:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        assert kind in response.headers["content-type"]


def test_static_files_are_served_minified_with_an_etag_and_nothing_else(client):
    static = Path(__file__).resolve().parent.parent / "engine" / "critter_kitchen" / "web" / "static"
    for source in sorted(static.iterdir()):
        response = client.get(f"/static/{source.name}")
        assert response.status_code == 200, source.name
        assert len(response.content) < 0.9 * len(source.read_bytes()), source.name  # comments and layout gone
        assert b"\n  //" not in response.content
        again = client.get(f"/static/{source.name}", headers={"If-None-Match": response.headers["etag"]})
        assert (again.status_code, again.content) == (304, b"")
    for name in ("missing.js", "..%2Fapp.py", "%2E%2E%2Fassets.py", "new.js.map"):
        assert client.get(f"/static/{name}").status_code == 404, name


def test_the_scripts_never_write_html():
    static = Path(__file__).resolve().parent.parent / "engine" / "critter_kitchen" / "web" / "static"
    for script in static.glob("*.js"):
        text = script.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{script.name} uses {sink}"


def test_the_new_game_page_offers_the_installed_packs_but_not_the_base(client):
    page = client.get("/new").text
    assert 'value="a-la-carte"' in page
    assert 'value="base"' not in page


def test_a_missing_game_is_a_page_not_a_traceback(client):
    for url in ["/games/999", "/games/abc", "/games/999/record.yaml", "/games/1/record.exe"]:
        response = client.get(url)
        assert response.status_code == 404
        assert "No game" in response.text
        assert "Traceback" not in response.text


# --- /ui/cards ----------------------------------------------------------------------------


def test_ui_cards_gives_the_rules_the_page_needs(client):
    data = client.get("/ui/cards").json()
    assert data["rounds"] == ["round3", "round6"]
    assert data["per_round"] == 3
    assert data["tokens"] == ["soup", "bisque"]
    assert data["wild_spice"] == "allspice"
    assert {"kind": "critic", "slot": "cards.critic", "single": True} in data["slots"]
    assert {"kind": "rumor", "slot": "cards.rumors", "single": False} in data["slots"]
    assert {"kind": "restaurateur", "slot": "players.restaurateur", "single": True} in data["slots"]
    cards = {c["id"]: c for c in data["cards"]}
    assert "base-rules" not in cards  # the rules card is no choice
    assert cards["harbor-stew"]["requires"] == ["fish", "carrot", "bread"]
    # the Hold token is said on the card as the last of its round only, with what it covers
    assert cards["harbor-stew"]["text"] == "Requires: fish, carrot, bread (left to right)"
    hold = "Requires: fish, carrot, bread (left to right; the Hold token covers the last)"
    assert cards["harbor-stew"]["held"]["text"] == hold
    assert cards["harbor-stew"]["held"]["covered"] == 2
    # the engine's words for how they are read then, for a page that says the requirements once
    assert cards["harbor-stew"]["held"]["note"] == "left to right; the Hold token covers the last"
    assert cards["harbor-stew"]["printed"] is False  # its text is its requirements in words
    assert cards["fish-fanatic"]["text"].startswith("The critic adores fish.")
    assert "Multiply p's fish course quality by 2." in cards["fish-fanatic"]["detail"]
    assert "cards/base" not in json.dumps(data)  # no file of the server is named


def test_ui_cards_with_a_pack_adds_its_slots(client):
    data = client.get("/ui/cards?packs=a-la-carte").json()
    assert {"kind": "head-chef", "slot": "players.head_chef", "single": True} in data["slots"]
    assert "tofu" in data["courses"]
    assert data["max_players"] == 7


def test_ui_cards_with_an_unknown_pack_says_so(client):
    response = client.get("/ui/cards?packs=spice-route")
    assert response.status_code == 422
    [problem] = response.json()["problems"]
    assert "spice-route" in problem["message"]


# --- /ui/check ------------------------------------------------------------------------------


def test_ui_check_gives_each_problem_at_its_record_path_in_the_engines_words(client):
    record = example("two-players.yaml")
    meal = next(iter(record["challenge_meals"]["round3"]["Ana"].values()))
    meal["ingredients"][0]["type"] = "fsh"
    record["players"][1]["name"] = "Ana"
    answer = client.post("/ui/check", json=record).json()
    assert answer["result"] is None
    assert {"where": "players[1].name", "message": "two players are named 'Ana'", "code": "CK301"} in answer["problems"]


def test_ui_check_a_meal_problem_names_the_meal_field(client):
    record = example("two-players.yaml")
    card, meal = next(iter(record["challenge_meals"]["round3"]["Ana"].items()))
    meal["ingredients"][0]["type"] = "fsh"
    answer = client.post("/ui/check", json=record).json()
    assert answer["problems"] == [
        {
            "where": f"challenge_meals.round3.Ana.{card}.ingredients[0].type",
            "message": "unknown ingredient type 'fsh'; did you mean 'fish'?",
            "code": "CK301",
        }
    ]


def test_ui_check_scores_a_legal_record_as_the_cli_does(client):
    for name in ["two-players.yaml", "three-players.yaml", "five-players.yaml"]:
        answer = client.post("/ui/check", json=example(name)).json()
        assert answer["problems"] == []
        assert answer["result"] == cli_json("score", str(EXAMPLES / name), "--format", "json")


@pytest.mark.parametrize("url", ["/ui/check", "/ui/plan", "/ui/import"])
def test_a_body_that_is_not_json_is_a_located_problem(client, url):
    response = client.post(url, content=b'{"players": [', headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    [problem] = response.json()["problems"]
    assert problem["message"].startswith("request:1:14: JSON syntax error: ")


def test_ui_check_without_the_csrf_header_is_refused(client):
    response = client.post("/ui/check", json=example("two-players.yaml"), headers={"X-CSRF-Token": "wrong"})
    assert response.status_code == 403


# --- /ui/plan -------------------------------------------------------------------------------

PANTRY = {
    "for": "round3",
    "cards": {"challenges": {"round3": ["harbor-stew", "forest-risotto", "farmhouse-pie"]}},
    "player": {"name": "Ana"},
    "pantry": {
        "ingredients": [
            {"type": "carrot", "value": 5},
            {"type": "fish", "value": 3},
            {"type": "mushroom", "value": 4},
            {"type": "cheese", "value": 6},
        ],
        "spices": ["carrot", "allspice"],
        "soup": 2,
        "bisque": 1,
    },
}


def test_ui_plan_is_the_plan_command(client, tmp_path):
    response = client.post("/ui/plan", json=PANTRY)
    assert response.status_code == 200
    (tmp_path / "ana.json").write_text(json.dumps(PANTRY))
    assert response.json() == cli_json("plan", str(tmp_path / "ana.json"), "--format", "json")
    assert response.json()["stars"] == 4


def test_ui_plan_the_critic_meal(client):
    answer = client.post("/ui/plan", json={**PANTRY, "for": "critic"}).json()
    assert answer["for"] == "critic"
    assert answer["courses"]["carrot"] == {"value": 5, "spice": "carrot"}


def test_ui_plan_a_bad_pantry_gets_located_problems(client):
    bad = json.loads(json.dumps(PANTRY))
    bad["pantry"]["ingredients"][1]["type"] = "fsh"
    response = client.post("/ui/plan", json=bad)
    assert response.status_code == 422
    assert response.json()["problems"] == [
        {
            "where": "pantry.ingredients[1].type",
            "message": "unknown ingredient type 'fsh'; did you mean 'fish'?",
            "code": "CK301",
        }
    ]


# --- /ui/import -----------------------------------------------------------------------------


def test_ui_import_reads_yaml_and_json_records(client):
    text = (EXAMPLES / "three-players.yaml").read_text()
    answer = client.post("/ui/import", json={"name": "three-players.yaml", "text": text}).json()
    assert answer["record"] == yaml.safe_load(text)
    as_json = json.dumps(yaml.safe_load(text))
    assert client.post("/ui/import", json={"name": "g.json", "text": as_json}).json()["record"] == json.loads(as_json)


def test_ui_import_a_broken_file_is_one_located_problem(client):
    response = client.post("/ui/import", json={"name": "bad.yaml", "text": "players: [\n"})
    assert response.status_code == 422
    [problem] = response.json()["problems"]
    assert problem["where"] == ""
    assert problem["message"].startswith("bad.yaml:2:1: YAML syntax error")


def test_ui_import_refuses_what_is_not_a_record(client):
    response = client.post("/ui/import", json={"name": "card.yaml", "text": "id: x\nkind: rumor\n"})
    assert response.status_code == 422
    [problem] = response.json()["problems"]
    assert problem["message"] == "card.yaml:1:1: this file is not a game record (it has no players)"


# --- kept games: history, result, export ------------------------------------------------------


def keep(client, record) -> int:
    response = client.post("/api/games", json=record)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def test_the_result_page_shows_the_stage_table_as_the_text_report(client):
    game = keep(client, example("three-players.yaml"))
    page = client.get(f"/games/{game}").text
    text = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", "score", str(EXAMPLES / "three-players.yaml")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # each stage a row, named by its short name with its description a tap away (or by its
    # description alone), its id kept on the row
    named = r'<details title="[^"]+"><summary>[^<]+</summary><span class="about">[^<]+</span></details>'
    rows = re.findall(
        rf'<tr data-stage="([a-z0-9_.]+)"><th scope="row">(?:{named}|[^<]+)(?: ?<a [^>]+>[^<]+</a>)*</th>'
        r"((?:<td>\d+</td>)+)</tr>",
        page,
    )
    table = [(stage, re.findall(r"<td>(\d+)</td>", cells)) for stage, cells in rows]
    expected = [(line.split()[0], line.split()[1:]) for line in text.splitlines()[1:9]]
    assert table == expected
    assert "Cleo wins" in page
    assert "farther along the critic score track" in page
    # each award names its card and its stage by the stage's short name
    assert "Madame Bouillon · Most soup" in page
    assert "soup and bisque worth 9" in page


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_the_exported_record_is_the_kept_record(client, fmt):
    record = example("three-players.yaml")
    game = keep(client, record)
    response = client.get(f"/games/{game}/record.{fmt}")
    assert response.status_code == 200
    assert f'filename="game-{game}.{fmt}"' in response.headers["content-disposition"]
    assert (yaml.safe_load if fmt == "yaml" else json.loads)(response.text) == record


def test_history_is_newest_first_and_searchable_by_player(client):
    first = keep(client, example("two-players.yaml"))
    second = keep(client, example("three-players.yaml"))
    page = client.get("/").text
    assert page.index(f'href="/games/{second}"') < page.index(f'href="/games/{first}"')
    only = client.get("/?player=cleo").text
    assert f'href="/games/{second}"' in only and f'href="/games/{first}"' not in only


def test_history_comes_in_pages_that_link_to_each_other(client, monkeypatch):
    from critter_kitchen.web import pages

    monkeypatch.setattr(pages, "HISTORY_PAGE", 2)
    names = ["two-players.yaml", "three-players.yaml"] * 2 + ["two-players.yaml"]
    games = [keep(client, example(name)) for name in names]

    def listed(url):
        page = client.get(url).text
        return [int(g) for g in re.findall(r'class="when" href="/games/(\d+)"', page)], page

    first, page = listed("/")
    assert first == [games[4], games[3]]
    assert 'rel="next" href="/?page=2"' in page and 'rel="prev"' not in page
    assert "Games 1–2 of 5" in page
    second, page = listed("/?page=2")
    assert second == [games[2], games[1]]
    assert 'rel="prev" href="/?page=1"' in page and 'rel="next" href="/?page=3"' in page
    last, page = listed("/?page=3")
    assert last == [games[0]] and "Games 5–5 of 5" in page and 'rel="next"' not in page
    for odd in ["/?page=9", "/?page=0", "/?page=-1", "/?page=x", "/?page=²", "/?page=٣", "/?page=" + "9" * 40]:
        shown, _ = listed(odd)
        assert shown == (last if odd == "/?page=9" else first), odd
    # a search keeps its player in the links; one page of results needs no links
    only, page = listed("/?player=cleo")
    assert only == [games[3], games[1]] and 'id="pages"' not in page
    client.post("/api/games", json=example("three-players.yaml"))
    _, page = listed("/?player=cleo")
    assert 'rel="next" href="/?player=cleo&amp;page=2"' in page


def test_the_result_page_offers_to_delete_the_game(client):
    game = keep(client, example("two-players.yaml"))
    page = client.get(f"/games/{game}").text
    assert f'id="forget" data-game="{game}"' in page
    assert '<script src="/static/result.js" defer></script>' in page


def test_whatever_a_user_typed_is_escaped(client):
    record = example("two-players.yaml")
    evil = '<img src=x onerror="alert(1)">'
    old = record["players"][0]["name"]
    record["players"][0]["name"] = evil
    for meals in (record.get("challenge_meals") or {}).values():
        if old in meals:
            meals[evil] = meals.pop(old)
    if old in record.get("critic_meals", {}):
        record["critic_meals"][evil] = record["critic_meals"].pop(old)
    game = keep(client, record)
    for url in [f"/games/{game}", "/", "/?player=" + evil, "/players/" + evil]:
        page = client.get(url).text
        assert "<img src=x" not in page
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page

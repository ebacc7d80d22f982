"""The score pad's pages, and the JSON the pages alone use (``/ui/...``).

The pages know no rule: what a game needs (rounds, courses, tokens, card slots) comes from
the ruleset of the packs picked, every check is the record reader's, every plan the
planner's. What a user typed reaches a page only through Jinja's autoescape or, in the
scripts, through ``textContent``.

The application (``app.py``) provides ``app.state.store`` (the kept games: ``games(player)``
newest first and ``get(id)``, each with ``id``, ``record``, ``result`` and ``created``),
``app.state.rulesets`` (called with pack ids, it gives their ruleset, loaded once),
``app.state.engine`` (the pool every piece of engine work runs on: reading packs, checking,
scoring, planning; see ``work.py``) and ``app.state.settings`` (``packs``: the server's own),
and a CSRF token in ``request.state.csrf_token``. Games are kept through the API
(``POST /api/games``). Pack ids sent are read as a record's ``packs`` are: ids only, at most
as many as a record may name, each once.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates

from ..errors import InputError, Problem
from .limits import NOTE_CHARS
from .store import MAX_ID
from .work import engine

HERE = os.path.dirname(os.path.abspath(__file__))
templates = Jinja2Templates(directory=os.path.join(HERE, "templates"))
templates.env.filters["part"] = lambda value: quote(str(value), safe="")  # one path segment: a name may hold "/"
templates.env.filters["when"] = lambda created: str(created).replace("T", " ")[:16]  # an ISO time, to the minute
router = APIRouter()

MAX_IMPORT = 2 * 1024 * 1024  # characters of an imported record, the limit a record file has
MAX_ID_DIGITS = 19  # a game id is an SQLite row id
MAX_NAME = 100  # characters of a player's name, as records allow
HISTORY_PAGE = 100  # games a page of the history lists
NAMES_ASKED = 16  # names /ui/names compares with the known ones in one request (7 players and spare)
# what "Play again" keeps of each player: who they are, not what they did in the game
NOT_AGAIN = ("kept", "counters", "automated")


# --- pages ---------------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def history_page(request: Request, player: str = "") -> Response:
    """The kept games, newest first, :data:`HISTORY_PAGE` a page (``?page=``, from 1);
    ``?player=`` keeps those with a player whose name holds it."""
    store = request.app.state.store
    name = player[:MAX_NAME] or None
    total = store.count(name)
    last = max(1, -(-total // HISTORY_PAGE))
    asked = request.query_params.get("page", "")
    given = asked.isascii() and asked.isdigit() and len(asked) <= MAX_ID_DIGITS and int(asked) >= 1
    number = min(int(asked), last) if given else 1
    start = (number - 1) * HISTORY_PAGE
    games = [game_row(g) for g in store.games(name, HISTORY_PAGE, start)]

    def link(to: int) -> str:
        return "/?" + urlencode({"player": player, "page": to} if player else {"page": to})

    return page(
        request,
        "history.html",
        games=games,
        player=player,
        total=total,
        shown=(start + 1, start + len(games)),
        newer=link(number - 1) if number > 1 else None,
        older=link(number + 1) if number < last else None,
    )


@router.get("/new", response_class=HTMLResponse, include_in_schema=False)
async def new_game_page(request: Request, again: str = "", edit: str = "") -> Response:
    """The new-game page, with the players the pad knows; ``again`` (a kept game's id): set up
    as that game was, the same players in the same order with what they held, and the same packs;
    ``edit`` (a kept game's id): the whole game in the form, saved as its new version."""
    game = await run_in_threadpool(kept_game, request, again) if again else None
    if again and game is None:
        return page(request, "missing.html", status=404, what=f"No game {again} is kept to play again.")
    edited = await run_in_threadpool(kept_game, request, edit) if edit else None
    if edit and edited is None:
        return page(request, "missing.html", status=404, what=f"No game {edit} is kept to edit.")
    known = await run_in_threadpool(request.app.state.store.known_players)
    packs = await engine(request, pack_choices, request.app.state.settings)
    return page(
        request,
        "new.html",
        packs=packs,
        known=[name for name, _ in known],
        again=again_setup(game),
        edit=None if edited is None else {"id": edited.id, "version": edited.version, "record": edited.record},
        note_chars=NOTE_CHARS,
    )


def again_setup(game: Any) -> dict[str, Any] | None:
    """A rematch's setup: the kept game's packs and players (each as they sat, with what they held)."""
    if game is None:
        return None
    record = game.record
    players = []
    for p in record.get("players", []):
        again = {k: v for k, v in p.items() if k not in NOT_AGAIN}
        if "automated" in p:
            again["automated"] = {}  # still an automated rival, its stars and quality for the new game
        players.append(again)
    return {"packs": list(record.get("packs", [])), "players": players}


@router.get("/games/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def result_page(request: Request, game_id: str) -> Response:
    game = await run_in_threadpool(kept_game, request, game_id)
    if game is None:
        return page(request, "missing.html", status=404, what=f"No game {game_id} is kept.")
    versions = await run_in_threadpool(request.app.state.store.history, game.id)
    explanation, names = await engine(request, game_rules, request.app.state.rulesets, game.record)
    table = stage_table(game.record, game.result, explanation, names)
    return page(request, "result.html", game=game, table=table, versions=versions or [])


@router.get("/games/{game_id}/versions/{number}", response_class=HTMLResponse, include_in_schema=False)
async def version_page(request: Request, game_id: str, number: str) -> Response:
    """An earlier version of a kept game, as it was scored then, with "Restore this version"."""
    game = await run_in_threadpool(kept_game, request, game_id)
    earlier = None
    if game is not None and number.isascii() and number.isdecimal() and len(number) <= MAX_ID_DIGITS:
        earlier = await run_in_threadpool(request.app.state.store.game_version, game.id, min(int(number), MAX_ID))
    if game is None or earlier is None:
        return page(request, "missing.html", status=404, what=f"Game {game_id} has no version {number} kept.")
    versions = await run_in_threadpool(request.app.state.store.history, game.id)
    explanation, names = await engine(request, game_rules, request.app.state.rulesets, earlier.record)
    table = stage_table(earlier.record, earlier.result, explanation, names)
    return page(request, "version.html", game=earlier, latest=game, table=table, versions=versions or [])


@router.get("/games/{game_id}/record.{fmt}", include_in_schema=False)
def export_record(request: Request, game_id: str, fmt: str) -> Response:
    """The game's record as a file to download: ``record.yaml`` or ``record.json``."""
    game = kept_game(request, game_id)
    if game is None or fmt not in ("yaml", "json"):
        return page(request, "missing.html", status=404, what=f"No game {game_id} is kept to export as {fmt}.")
    text, media = record_text(game.record, fmt)
    headers = {"Content-Disposition": f'attachment; filename="game-{game.id}.{fmt}"'}
    return Response(text, media_type=media, headers=headers)


def kept_game(request: Request, game_id: str) -> Any:
    """The kept game of that id (the store's game: ``id``, ``record``, ``result``, ``created``), or None."""
    if not game_id.isascii() or not game_id.isdecimal() or len(game_id) > MAX_ID_DIGITS or int(game_id) > MAX_ID:
        return None
    return request.app.state.store.get(int(game_id))


@router.get("/players/{name:path}", response_class=HTMLResponse, include_in_schema=False)
async def player_page(request: Request, name: str) -> Response:
    """A player's statistics page (read by the page from the API), with the words of the server's
    stages; a name may hold "/"."""
    stages = await engine(request, server_stage_names, request.app.state.rulesets)
    return page(request, "player.html", name=name, stages=stages)


@router.get("/cards", response_class=HTMLResponse, include_in_schema=False)
async def cards_page(request: Request) -> Response:
    """Per-card statistics (read by the page from the API), with the names of the server's cards."""
    return page(request, "cards.html", names=await engine(request, server_card_names, request.app.state.rulesets))


def server_card_names(rulesets: Any) -> dict[str, list[str]]:
    """Card id -> [name, kind] for the cards of the server's own packs."""
    return {cid: [card.name, card.kind] for cid, card in rulesets(()).cards.items()}


def server_stage_names(rulesets: Any) -> list[list[str]]:
    """[stage id, its short name (else its description), its description] for each stage of the
    server's own packs, in the order they run: the words a page names a stage by, as the
    result's rows do."""
    return [
        [s.name, " ".join((s.short_name or s.description).split()), " ".join(s.description.split())]
        for s in rulesets(()).stages
    ]


def page(request: Request, template: str, *, status: int = 200, **context: Any) -> Response:
    return templates.TemplateResponse(request, template, context, status_code=status)


# --- JSON for the pages ----------------------------------------------------------------


# Each route reads its body on the event loop, then does the rest (parsing included) as one
# job on the engine pool: a job that is refused or takes too long is the app's 503.


@router.get("/ui/cards", include_in_schema=False)
async def ui_cards(request: Request, packs: str = "") -> Response:
    """What the game-entry page needs of the rules of ``packs`` (ids, comma-separated): the
    card slots, the rounds, courses and tokens, and every loaded card with its text."""
    return await engine(request, cards_answer, request.app.state.rulesets, pack_list(packs))


@router.get("/ui/names", include_in_schema=False)
def ui_names(request: Request, name: list[str] = Query([])) -> Response:  # noqa: B008
    """For each name typed, the known spelling it folds to (the store's ``folded``) when it is
    not itself a known name, else null: "ana" and "Αna" are flagged before they make two players."""
    store = request.app.state.store
    return JSONResponse({"like": [store.spelling(n) if n.strip() else None for n in name[:NAMES_ASKED]]})


def cards_answer(rulesets: Any, packs: list[str]) -> Response:
    try:
        rules = rulesets.for_record({"packs": packs}, "packs")
    except InputError as e:
        return problems_response(e.problems)
    return JSONResponse(rules_json(rules))


@router.post("/ui/check", include_in_schema=False)
async def ui_check(request: Request) -> Response:
    """Every problem of a draft record, each with its record path, and its result once legal."""
    return await engine(request, check_answer, request.app.state.rulesets, await request.body())


def check_answer(rulesets: Any, raw: bytes) -> Response:
    record = json_body(raw)
    if isinstance(record, Response):
        return record
    try:
        from ..api import score_record
        from ..report.json import result_json
        from .scoring import effects_as_problems

        rules = rulesets.for_record(record, "record")
        with effects_as_problems("record"):
            scored = score_record(record, rules, trace=True)
            result = result_json(scored)
    except InputError as e:
        limits = spice_limits(rulesets, record)
        return JSONResponse({"problems": problems_json(e.problems), "result": None, "spices": limits})
    names = {cid: card.name for cid, card in rules.cards.items()}
    table = stage_table(record, result, explained(scored, names), names)  # as the kept game's page
    return JSONResponse({"problems": [], "result": result, "spices": spice_limits(rulesets, record), "table": table})


@router.post("/ui/meal", include_in_schema=False)
async def ui_meal(request: Request) -> Response:
    """One meal of a draft as the engine scores it: its quality and the stars it earns."""
    return await engine(request, meal_answer, request.app.state.rulesets, await request.body())


# what of a draft record a meal is scored with: the game's setup, not the other meals
SETUP_KEYS = ("packs", "players", "cards")
MEAL_ASKED = "expected {record, player, round, card} for a challenge meal or {record, player} for a critic meal"


def meal_answer(rulesets: Any, raw: bytes) -> Response:
    """``{"quality", "stars", "problems"}`` of one meal of a draft (``record``): a challenge meal
    (``player``, ``round``, ``card``) or a player's critic meal (``player``). The meal is scored
    by the engine in the draft's game (packs, players, cards) with no other meal, beside the other
    players' critic meals for a critic meal (those that are legal): its quality after the cards
    that change it, and its stars: those of the awards its player gets with it that they do not
    get without it (as the card statistics credit a Challenge card its meals). ``problems``: the
    draft's setup's and the meal's, in the engine's words; the quality and stars are then null."""
    body = json_body(raw)
    if isinstance(body, Response):
        return body
    asked = body if isinstance(body, dict) else {}
    draft, name, rnd, cid = (asked.get(k) for k in ("record", "player", "round", "card"))
    critic = rnd is None and cid is None
    if (
        not isinstance(draft, dict)
        or not isinstance(name, str)
        or not critic
        and not (isinstance(rnd, str) and isinstance(cid, str))
    ):
        return problems_response([Problem("request", message=MEAL_ASKED)])
    setup = {k: draft[k] for k in SETUP_KEYS if k in draft}
    with_meal: dict[str, Any] = dict(setup)
    without: dict[str, Any] = dict(setup)
    if critic:
        meals = draft.get("critic_meals")
        meals = meals if isinstance(meals, dict) else {}
        if name not in meals:
            return JSONResponse(
                {"problems": [], "quality": None, "stars": None, "spices": own_spices(rulesets, draft, name)}
            )
        with_meal["critic_meals"] = dict(meals)
        without["critic_meals"] = {k: v for k, v in meals.items() if k != name}
    else:
        meal = (((draft.get("challenge_meals") or {}).get(rnd) or {}).get(name) or {}).get(cid)
        if meal is None:
            return JSONResponse(
                {"problems": [], "quality": None, "stars": None, "spices": own_spices(rulesets, draft, name)}
            )
        with_meal["challenge_meals"] = {rnd: {name: {cid: meal}}}
    try:
        from ..api import score_record
        from ..stages.credit import award_key
        from .scoring import effects_as_problems

        rules = rulesets.for_record(setup, "record")
        with effects_as_problems("record"):
            scored = _scored_beside(with_meal, without, name, critic, rules)
            if isinstance(scored, InputError):
                raise scored
            before = score_record(without, rules)
    except InputError as e:
        spices = own_spices(rulesets, draft, name)
        return JSONResponse({"problems": problems_json(e.problems), "quality": None, "stars": None, "spices": spices})
    player = next(p for p in scored.game.players if p.name == name)
    if critic:
        quality = player.critic_quality()
    else:
        quality = next(m.quality for m in scored.game.meals[rnd] if m.player.name == name and m.card.id == cid)
    gained = Counter(award_key(a) for a in scored.awards if a.player == name)
    gained -= Counter(award_key(a) for a in before.awards if a.player == name)
    stars = sum(key[2] * n for key, n in gained.items())
    return JSONResponse(
        {"problems": [], "quality": quality, "stars": stars, "spices": own_spices(rulesets, draft, name)}
    )


def own_spices(rulesets: Any, draft: Any, name: str) -> dict[str, Any]:
    """The spices ``name``'s critic courses and meal ingredients may take (:func:`spice_limits`)."""
    limits = spice_limits(rulesets, draft)
    return {"courses": limits["courses"].get(name), "ingredients": limits["ingredients"].get(name, {})}


def _scored_beside(with_meal: dict[str, Any], without: dict[str, Any], name: str, critic: bool, rules: Any) -> Any:
    """``with_meal`` scored; the other players' critic meals that have problems are left out of
    it and of ``without`` (their problems are told at their fields by the whole check). The
    InputError of what remains, returned, when the setup or the meal itself has problems."""
    from ..api import score_record

    try:
        return score_record(with_meal, rules)
    except InputError as e:
        if not critic:
            return e
        at = [p.where for p in e.problems]
        others = {
            k
            for k in with_meal["critic_meals"]
            if k != name and any(w == f"critic_meals.{k}" or w.startswith(f"critic_meals.{k}.") for w in at)
        }
        if not others:
            return e
        with_meal["critic_meals"] = {k: v for k, v in with_meal["critic_meals"].items() if k not in others}
        without["critic_meals"] = {k: v for k, v in without["critic_meals"].items() if k not in others}
    try:
        return score_record(with_meal, rules)
    except InputError as e:
        return e


def spice_limits(rulesets: Any, record: Any) -> dict[str, Any]:
    """How many spices each player's critic courses (``courses``: name -> count) and the
    ingredients of their meals for each challenge card of the draft (``ingredients``: name ->
    card id -> count) may take, from the rule parameters in force for them: the table's, the
    player's held cards', the card's own. Read from what the draft names that the packs know;
    an unknown card or pack changes nothing (its problem is told at its field)."""
    from ..model.meals import card_parameters, held_parameters, table_parameters

    try:
        rules = rulesets.for_record(record, "record")
    except InputError:
        rules = rulesets(())
    data: dict[str, Any] = record if isinstance(record, dict) else {}
    cards = data.get("cards")
    named: dict[str, Any] = cards if isinstance(cards, dict) else {}
    table: list[Any] = []
    challenges: list[Any] = []
    for kind, slot in rules.card_kinds.items():
        place, _, field = slot.partition(".")
        if place != "cards" or kind == rules.rules_kind:
            continue
        ids = known_ids(named.get(field), rules, kind)
        (challenges if field == "challenges" else table).extend(ids)
    params = table_parameters(rules, table)
    courses: dict[str, int] = {}
    ingredients: dict[str, dict[str, int]] = {}
    for entry in data.get("players") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        held = [
            card
            for kind, slot in rules.card_kinds.items()
            if slot.startswith("players.")
            for card in known_ids(entry.get(slot.partition(".")[2]), rules, kind)
        ]
        own = held_parameters(params, held)
        courses[entry["name"]] = own["spices_per_course"]
        ingredients[entry["name"]] = {c.id: card_parameters(own, c)["spices_per_ingredient"] for c in challenges}
    return {"courses": courses, "ingredients": ingredients}


def known_ids(value: Any, rules: Any, kind: str) -> list[Any]:
    """The cards of ``kind`` a record's field names (one id, a list of them, or lists by round)."""
    if isinstance(value, dict):
        return [card for part in value.values() for card in known_ids(part, rules, kind)]
    ids = value if isinstance(value, list) else [value]
    cards = [rules.cards.get(cid) if isinstance(cid, str) else None for cid in ids]
    return [card for card in cards if card is not None and card.kind == kind]


@router.post("/ui/plan", include_in_schema=False)
async def ui_plan(request: Request) -> Response:
    """The planner's best meals for a pantry (the ``plan --format json`` object)."""
    return await engine(request, plan_answer, request.app.state.rulesets, await request.body())


def plan_answer(rulesets: Any, raw: bytes) -> Response:
    pantry = json_body(raw)
    if isinstance(pantry, Response):
        return pantry
    try:
        from .scoring import effects_as_problems

        rules = rulesets.for_record(pantry, "pantry")
        with effects_as_problems("pantry"):
            return JSONResponse(plan_json(pantry, rules))
    except InputError as e:
        return problems_response(e.problems)


@router.post("/ui/import", include_in_schema=False)
async def ui_import(request: Request) -> Response:
    """A record file's text (YAML or JSON) read as the record files are: ``{"record": ...}``."""
    return await engine(request, import_answer, await request.body())


def import_answer(raw: bytes) -> Response:
    body = json_body(raw)
    if isinstance(body, Response):
        return body
    text, name = (body.get("text"), body.get("name")) if isinstance(body, dict) else (None, None)
    if not isinstance(text, str) or not isinstance(name, str):
        return problems_response([Problem("import", message="expected the file's text and name")])
    if len(text) > MAX_IMPORT:
        return problems_response([Problem(name, 1, 1, f"text is longer than {MAX_IMPORT} characters", "CK005")])
    try:
        return JSONResponse({"record": parsed_record(name, text)})
    except InputError as e:
        return problems_response(e.problems)


# --- helpers ---------------------------------------------------------------------------


def json_body(raw: bytes) -> Any:
    """A request body's JSON, or the 422 response that says it is none (read by the engine's JSON reader)."""
    from ..loading.files import parse_json

    try:
        return parse_json("request", raw.decode("utf-8"))
    except UnicodeDecodeError:
        return problems_response([Problem("request", 1, 1, "the request is not UTF-8 text", "CK002")])
    except InputError as e:
        return problems_response(e.problems)


def pack_list(text: str) -> list[str]:
    return [p for p in (part.strip() for part in text.split(",")) if p]


def problems_json(problems: list[Problem]) -> list[dict[str, str]]:
    """Each problem in the engine's words: at its record path, or with its file's place when it has none."""
    return [{"where": p.where, "message": problem_words(p), "code": p.code} for p in problems]


def problem_words(problem: Problem) -> str:
    from ..errors import printable

    return printable(problem.message) if problem.where else problem.line_text()


def problems_response(problems: list[Problem]) -> Response:
    return JSONResponse({"problems": problems_json(problems)}, status_code=422)


def pack_choices(settings: Any) -> list[dict[str, str]]:
    """The packs a game may be played with, by id and name (the base pack is always in)."""
    from ..loading.resolve import installed_listing

    folders = [os.fspath(p) for p in getattr(settings, "packs", ()) or ()]
    listing = installed_listing(folders)
    return [{"id": p.id, "name": p.name} for p in listing.packs if p.id and p.id != "base"]


def rules_json(rules: Any) -> dict[str, Any]:
    params = rules.base_params()
    slots = [
        {"kind": kind, "slot": slot, "single": kind in rules.single_kinds}
        for kind, slot in rules.card_kinds.items()
        if kind != rules.rules_kind
    ]
    return {
        "packs": [{"id": p.id, "name": p.name} for p in rules.packs],
        "rounds": list(params["challenge_rounds"]),
        "per_round": params["challenges_per_round"],
        "min_players": params["min_players"],
        "max_players": params["max_players"],
        "player_limit": set_by_words(rules, "max_players"),
        "max_automated": params["max_automated"],
        "courses": list(params["course_types"]),
        "ingredients": list(rules.ingredient_types),
        "tokens": list(params["token_values"]),
        "tokens_fill_courses": bool(params["tokens_fill_courses"]),
        "wild_spice": params["wild_spice"],
        # the spices an ingredient or a course takes before any card changes it (the check
        # answers with those in force for each player and card: see spice_limits)
        "spices_per_ingredient": params["spices_per_ingredient"],
        "spices_per_course": params["spices_per_course"],
        "counters": list(rules.counters),
        "slots": slots,
        "cards": [card_entry(c, rules) for c in rules.cards.values() if c.kind != rules.rules_kind],
    }


def set_by_words(rules: Any, name: str) -> str:
    """Where the value in force of the parameter ``name`` comes from, in words: its
    description, then the value each pack in play gave it, in load order (the last is in
    force): "most players in a game: 5 in Critter Kitchen (base game); À La Carte allows 7"."""
    param = rules.parameters[name]
    packs = {p.id: p.name for p in rules.packs}
    steps = [(packs.get(pack, pack), value) for pack, value in param.set_by] or [("these packs", param.value)]
    said = [f"{steps[0][1]} in {steps[0][0]}", *(f"{pack} allows {value}" for pack, value in steps[1:])]
    return f"{param.description or name}: {'; '.join(said)}"


def card_entry(card: Any, rules: Any) -> dict[str, Any]:
    """A card for a picker: its name, its printed text (or requirements) and its effects in words."""
    from ..model.meals import MealRules, card_parameters
    from ..report.cards import requirement_note

    entry: dict[str, Any] = {"id": card.id, "kind": card.kind, "name": card.name, "pack": card.pack}
    entry.update(card_words(card, rules, False))
    if card.requires:
        entry["requires"] = list(card.requires)
        # whether its text is printed on the card (else it is its requirements in words)
        entry["printed"] = bool(str(card.data.get("text", "")).strip())
        # the card as the last of its round, with the Hold token on it: what it says then, which
        # requirement the token covers (the index of the first one a meal need not fill) and how its
        # requirements are read then ("left to right; the Hold token covers the last"), so that a
        # page can say the requirements once with the covered one struck through
        own = MealRules(card_parameters(rules.base_params(), card))
        if own.covers_last(card, True):
            entry["held"] = {
                **card_words(card, rules, True),
                "covered": len(own.listed_slots(card, True)),
                "note": requirement_note(card, rules, True),
            }
    return entry


def card_words(card: Any, rules: Any, held: bool) -> dict[str, str]:
    """A card's printed text (or its first line of English) and its whole English, as the
    ``cards`` command writes them; ``held``: whether the Hold token is on it."""
    from ..errors import escaped
    from ..report.cards import english_lines

    printed = " ".join(str(card.data.get("text", "")).split())
    lines = [printed, *english_lines(card, rules, held)]  # each part of the English after a blank line
    detail = "\n".join(escaped(line) for line in lines).strip("\n")
    return {"text": printed or detail.split("\n")[0], "detail": detail}


def plan_json(pantry: Any, rules: Any) -> dict[str, Any]:
    from ..plan import question
    from ..plan.critic import critic_json, plan_critic, plan_keep
    from ..plan.output import plan_json as round_json
    from ..plan.pantry import CRITIC
    from ..plan.search import plan_round

    asked = question(pantry, rules, source="pantry")
    if asked.target == CRITIC:
        return critic_json(plan_critic(asked))
    planned = plan_round(asked)
    return round_json(planned, plan_keep(asked, planned.left_ingredients, planned.left_spices))


def parsed_record(name: str, text: str) -> Any:
    from ..loading.files import parse_json
    from ..loading.yamlpos import parse

    shown = os.path.basename(name) or "import"
    data = parse_json(shown, text) if shown.endswith(".json") else parse(shown, text).data
    if not isinstance(data, dict) or "players" not in data:
        raise InputError([Problem(shown, 1, 1, "this file is not a game record (it has no players)")])
    return plain(data)


def plain(value: Any) -> Any:
    """Parsed data as JSON can carry it (a fraction keeps its written text as a number)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float):
        return float(value)
    return value


def record_text(record: Any, fmt: str) -> tuple[str, str]:
    if fmt == "json":
        from ..report.json import json_text

        return json_text(record, indent=2) + "\n", "application/json"
    import yaml

    return yaml.safe_dump(record, sort_keys=False, allow_unicode=True), "application/yaml"


def game_row(game: Any) -> dict[str, Any]:
    """One line of the history: when, who (in ranking order), the winners and the stars."""
    from .stats import winners_of

    standings = game.result.get("standings", [])
    return {
        "id": game.id,
        "created": game.created,
        "winner": game.result.get("winner", ""),
        "winners": winners_of(game.result),
        "standings": [(s["name"], s["stars"]) for s in standings],
    }


def game_rules(rulesets: Any, record: Any) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """What a kept game's page needs of its rules: the game's explanation (:func:`explained`)
    and card id -> card name for the cards its awards may name; no explanation when it cannot
    be scored again here (a pack it needs is gone, a card fails), no names either when its
    packs do not load."""
    from ..api import score_record
    from ..errors import EvaluationError
    from .scoring import record_pack_ids

    try:
        rules = rulesets(tuple(record_pack_ids(record)))
    except InputError:
        return None, {}
    names = {cid: card.name for cid, card in rules.cards.items()}
    try:
        return explained(score_record(record, rules, trace=True), names), names
    except (InputError, EvaluationError):
        return None, names


def explained(result: Any, cards: dict[str, str]) -> dict[str, Any]:
    """What ``score --explain`` says of a scored game (``report.explain``, its one account),
    with each card by its name (``cards``: card id -> name): the stages in words, the award
    statements, each player's critic quality as a sum, where placeholder data is used and
    what the packs in play say of themselves."""
    from ..report.explain import award_statements, course_line, packs_said, quality_sums, stage_notes, stage_words

    sums = quality_sums(result) or []
    return {
        "stages": stage_words(result),
        "statements": award_statements(result.awards),
        "sums": [
            {
                "name": p["name"],
                "line": f"{p['total']} = {p['sum']}" if "courses" in p else f"{p['total']} (given, an automated rival)",
                "courses": [course_line(c, cards) for c in p.get("courses", []) if c["changes"]],
            }
            for p in sums
        ],
        "placeholders": stage_notes(result),
        "packs": [f"{name}: {words}" for name, words in packs_said(result)],
    }


def ranking_line(s: Any) -> str:
    """ "Ana: 3 stars, critic quality 12": one player's line of the ranking."""
    return f"{s['name']}: {s['stars']} star{'' if s['stars'] == 1 else 's'}, critic quality {s['critic_quality']}"


def stage_table(record: Any, result: Any, explanation: dict[str, Any] | None, cards: dict[str, str]) -> dict[str, Any]:
    """What a scored game's page shows of it, every word decided here: stars per stage per
    player from the result's awards (every stage that ran a row, named by its short name with
    its description as ``about``, or by its description alone), players in
    the record's order; the ranking's lines; the awards grouped by player, each statement in
    the words of ``score --explain`` with its card by name (``cards``: card id -> name); each
    player's critic quality as a sum; the notes of placeholder data, each marked on the rows it
    affects. ``explanation``: :func:`explained`, or None when the game cannot be scored again
    here (then the stages by id and the awards as the result gives them). The kept game's page
    (``_standings.html``) and the new-game page's preview (``preview`` in new.js, from the
    check's answer) lay out this same view."""
    names = [p.get("name", "") for p in record.get("players", []) if isinstance(p, dict)]
    awards = result.get("awards", [])
    # a row is named by the stage's short name, its description one tap away; a stage
    # without a short name by its description, as in score --explain
    described = {sid: (short, about) for sid, short, about in explanation["stages"]} if explanation else {}
    words = {sid: short or about for sid, (short, about) in described.items()}
    stages = list(dict.fromkeys([*words, *(a["stage"] for a in awards)]))
    cells = {stage: dict.fromkeys(names, 0) for stage in stages}
    for a in awards:
        if a["player"] in cells[a["stage"]]:
            cells[a["stage"]][a["player"]] += a["stars"]
    notes = [f"Unverified: {note}" for note in result.get("notes", [])]
    marked = explanation["placeholders"] if explanation else {}
    standing = {s["name"]: s for s in result.get("standings", [])}
    by_player: dict[str, list[dict[str, str]]] = {n: [] for n in names}
    if explanation:
        for st in explanation["statements"]:
            where = f"{cards.get(st['card'], st['card'])} · {words.get(st['stage'], st['stage'])}"
            for who in dict.fromkeys(st["players"]):
                entry = {"reason": st["reason"], "outcome": st["outcome"], "card": where}
                by_player.setdefault(who, []).append(entry)
    else:
        for a in awards:
            stars = f"+{a['stars']} star" + ("s" if a["stars"] != 1 else "")
            entry = {
                "reason": a["reason"],
                "outcome": stars,
                "card": f"{cards.get(a['card'], a['card'])} · {a['stage']}",
            }
            by_player.setdefault(a["player"], []).append(entry)
    return {
        "names": names,
        "rows": [
            {
                "stage": stage,
                "words": words.get(stage, stage),
                "about": described[stage][1] if described.get(stage, ("", ""))[0] else "",
                "cells": [cells[stage][n] for n in names],
                "marks": [
                    i + 1 for i, note in enumerate(notes) if note.removeprefix("Unverified: ") in marked.get(stage, [])
                ],
            }
            for stage in stages
        ],
        "totals": [standing.get(n, {}).get("stars", "") for n in names],
        "quality": [standing.get(n, {}).get("critic_quality", "") for n in names],
        "ranking": [[s["rank"], ranking_line(s)] for s in result.get("standings", [])],
        "awards": [
            {"player": n, "stars": standing.get(n, {}).get("stars", ""), "awards": entries}
            for n, entries in by_player.items()
            if entries
        ],
        "sums": explanation["sums"] if explanation else [],
        "notes": notes,
        "packs": explanation["packs"] if explanation else [],
    }

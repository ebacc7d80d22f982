"""Game records (already parsed YAML or JSON) to a :class:`Game`, checking every rule.

Every problem is reported with the record path of the offending value, e.g.
``challenge_meals.round3.Ana.harbor-stew``, and with its line and column when the record
came from a file; all problems are collected before raising.
"""

from __future__ import annotations

from ..errors import InputError, Problem, did_you_mean, escaped, shown
from ..model.game import Course, Game, Ingredient, Meal, Player
from ..model.meals import (
    MealLevel,
    MealRules,
    course_kind_problem,
    course_quality,
    course_token_refused,
    held_parameters,
    ingredient_course_quality,
    legality_problems,
    spice_problem,
    table_parameters,
    unknown_token,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any, Final

    from ..model.ruleset import Card, Ruleset
    from .yamlpos import Document, Path

MAX_VALUE: Final = 1_000_000  # larger ingredient values or token counts are refused
# A name heads a column of the score table and is echoed in messages of at most 300
# characters: a hundred is room for any real name and leaves the rest of a message room.
MAX_NAME = 100
NAME_NEEDED = f"a player needs a name of 1 to {MAX_NAME} characters"
CHALLENGES = "challenges"  # the record's cards.challenges: Challenge cards by round
TOP_KEYS = ("packs", "players", "cards", "challenge_meals", "critic_meals")
MAX_PACKS = 64  # packs one record may name
PLAYER_KEYS = ("name", "kept", "counters")
LEFT = "left"  # under a critic meal: the ingredients and spices a player had left unused
LEFT_KEYS = ("ingredients", "spices")
CRITIC_MEAL_KEYS = ("courses", LEFT)  # a critic meal's keys other than its token counts
AUTOMATED_KEYS = ("stars", "critic_quality")


class Where:
    """A record path under construction: ``a.b[2].c``, spelt out only if a problem needs it."""

    __slots__ = ("parent", "part")

    def __init__(self, part: str | int = "", parent: Where | None = None) -> None:
        self.parent = parent
        self.part = part

    def __truediv__(self, part: str | int) -> Where:
        return Where(part, self)

    def path(self) -> Path:
        """The path as a document keys it: the key in each mapping, the index in each list."""
        parts: list[str | int] = []
        node: Where | None = self
        while node is not None:
            if node.part != "" or node.parent is not None:  # the whole record has no part
                parts.append(node.part)
            node = node.parent
        return tuple(reversed(parts))

    def __str__(self) -> str:
        parts: list[str | int] = []
        node: Where | None = self
        while node is not None:
            parts.append(node.part)
            node = node.parent
        text = ""
        for i, part in enumerate(reversed(parts)):
            if isinstance(part, int):
                text += f"[{part}]"
            elif part == "" and i == 0:
                continue  # the whole record
            elif part == "" or part != part.strip():
                text += f"['{part}']"  # a key of no name, or with spaces at its ends, stays visible
            else:
                text += f".{part}" if text else part
        return text or "record"


# The rule parameters this reader (and the scoring engine) read: every ruleset must
# declare them, with these types; packs.py checks that when the rules load.
ENGINE_PARAMETERS: dict[str, str] = {
    "min_players": "int",
    "max_players": "int",
    "min_automated": "int",
    "max_automated": "int",
    "challenge_rounds": "list[round]",
    "challenges_per_round": "int",
    "hold_covers_last": "bool",
    "token_values": "table",
    "tokens_per_missing_type": "int",
    "min_real_ingredients": "int",
    "only_listed_types": "bool",
    "wild_spice": "text",
    "spice_factor": "int",
    "spices_per_ingredient": "int",
    "course_types": "list[ingredient]",
    "course_spice_factor": "int",
    "spices_per_course": "int",
    "tokens_fill_courses": "bool",
    "refrigeration_limits": "table",
    "friendly_ties": "bool",
}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a player, or None: a name is one line of printable text.

    Names are printed in the score table, its ``Winner:`` line and messages: a line break
    would forge lines there, and control characters (ESC, OSC) would drive the terminal.
    """
    if type(name) is not str or not name or len(name) > MAX_NAME:
        return NAME_NEEDED
    if name.isprintable():
        return None if name.strip() else f"a player name cannot be blank: '{name}'"
    text = escaped(name)
    bad = next(ch for ch in name if not ch.isprintable())
    if bad in LINE_BREAKS:
        return f"a player name must be one line; this one has a line break ('{escaped(bad)}'): '{text}'"
    kind = "control character" if bad < "\xa0" else "unprintable character"  # C0, DEL and C1 are controls
    return f"a player name must be printable text; this one has the {kind} '{escaped(bad)}': '{text}'"


# What str.splitlines() splits on: each ends a line on some terminal or in some viewer.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


# Plain paths. A real record is nearly always well formed, so the reader first walks each
# part of it with the checks below, which look only at its shape (the types of values and
# the names they use), build nothing they might throw away, and then ask the meal rules
# (model/meals.py) the same questions the detailed checks ask. Anything unusual (even if
# legal) makes them return None, and the detailed checks of RecordReader then read that
# part again and report whatever is wrong with it. ``RecordReader(..., plain=False)``
# skips them all.


def _is_plain_count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= MAX_VALUE


def _plain_ingredients(items: Any, types: frozenset[str]) -> list[Ingredient] | None:
    """A meal's ingredients when ``items`` is a list of well-formed ones, else None."""
    if type(items) is not list:
        return None
    ingredients = []
    for item in items:
        if type(item) is not dict:
            return None
        size = len(item)
        kind, value = item.get("type"), item.get("value")
        if type(kind) is not str or kind not in types or type(value) is not int or not 0 < value <= MAX_VALUE:
            return None
        # Keys: type and value are there, so by its size the item has no other but spice.
        spices: tuple[str, ...] = ()
        if size != 2:
            spice = item.get("spice") if size == 3 else None
            named = _plain_spice_names(spice) if spice is not None else None
            if named is None:
                return None
            spices = named
        ingredients.append(Ingredient(kind, value, spices))
    return ingredients


def _plain_courses(
    items: Any, types: tuple[str, ...], rules: MealRules, checked: dict[Any, bool]
) -> dict[str, Course] | None:
    """A critic meal's courses, in ingredient type order (``types``), when ``items`` maps
    ingredient types to well-formed legal courses (ingredients or tokens), else None.

    ``checked`` remembers, for these ``rules``, whether a course type with its spices
    passed the course rules (they read nothing else), so each is asked once a game.
    """
    if type(items) is not dict:
        return None
    courses = {}
    for kind in types:
        item = items.get(kind)
        if item is None:
            continue
        if type(item) is not dict:
            return None
        value, spice = item.get("value"), item.get("spice")
        if value is None and len(item) == 1:
            course = _plain_token_course(kind, item.get("token"), rules, types, checked)
            if course is None:
                return None
            courses[kind] = course
            continue
        if len(item) != (1 if spice is None else 2) or type(value) is not int or not 0 < value <= MAX_VALUE:
            return None  # (by its size, an item with a value has no key but spice)
        spices = _plain_spice_names(spice) if spice is not None else ()
        if spices is None:
            return None
        key = (kind, spices) if spices else kind
        legal = checked.get(key)
        if legal is None:
            # course_problems of an ingredient of this type: the course type, then its spices
            legal = rules.course_kind_problem(kind) is None and not rules.course_spice_problem(kind, spices, types)
            checked[key] = legal
        if not legal:
            return None
        courses[kind] = Course(kind, value, spices, None, rules.ingredient_course_quality(value, spices))
    return courses if len(courses) == len(items) else None  # else some key is no ingredient type (or null)


def _plain_token_course(
    kind: str, token: Any, rules: MealRules, types: tuple[str, ...], checked: dict[Any, bool]
) -> Course | None:
    """The ``kind`` course of one token (an item of no key but ``token``) when it is legal, else None."""
    if type(token) is not str:
        return None
    key = (kind, token, "token")
    legal = checked.get(key)
    if legal is None:
        legal = not rules.course_problems(kind, token, types)
        checked[key] = legal
    if not legal:
        return None
    quality = rules.course_quality(token)
    return Course(kind, quality, (), token, quality)


def _plain_spice_names(spice: Any) -> tuple[str, ...] | None:
    """The spices on an ingredient or course (one name or a list of names), else None."""
    if type(spice) is str:
        return (spice,)
    if type(spice) is not list:
        return None
    for s in spice:
        if type(s) is not str:
            return None
    return tuple(spice)


def _plain_tokens(data: dict[str, Any], values: dict[str, int], skip: tuple[str, ...]) -> dict[str, int] | None:
    """The token counts of a meal (every key but those in ``skip``) when all are well formed, else None."""
    tokens = {}
    for key, n in data.items():
        if key in skip:
            continue
        if key not in values or type(n) is not int or not 0 <= n <= MAX_VALUE:
            return None
        tokens[key] = n
    return tokens


def _plain_left(
    value: Any, types: frozenset[str], wild_spice: str
) -> tuple[tuple[Ingredient, ...], tuple[str, ...]] | None:
    """What a player had left (ingredients of ``type`` and ``value`` only, and spices) when
    ``value`` plainly lists well-formed ones, else None."""
    if type(value) is not dict:
        return None
    for key in value:
        if key not in LEFT_KEYS:
            return None
    items = value.get("ingredients", [])
    spices = value.get("spices", [])
    if type(items) is not list:
        return None
    ingredients = []
    for item in items:
        if type(item) is not dict or len(item) != 2:
            return None
        kind, number = item.get("type"), item.get("value")
        if type(kind) is not str or kind not in types or type(number) is not int or not 0 < number <= MAX_VALUE:
            return None
        ingredients.append(Ingredient(kind, number))
    if type(spices) is not list:
        return None
    for spice in spices:
        if type(spice) is not str or (spice not in types and spice != wild_spice):
            return None
    return tuple(ingredients), tuple(spices)


def _left_in_order(
    ingredients: Iterable[Ingredient], spices: Iterable[str], types: tuple[str, ...]
) -> tuple[tuple[Ingredient, ...], tuple[str, ...]]:
    """What a player left, in one order whatever order the record lists it in: ingredients by
    type (the ruleset's order), then value; spices by type, the wild spice last."""
    place = {kind: i for i, kind in enumerate(types)}
    last = len(types)
    ordered = sorted(ingredients, key=lambda i: (place.get(i.type, last), i.value))
    return tuple(ordered), tuple(sorted(spices, key=lambda s: (place.get(s, last), s)))


def _served(
    rnd: str, card: Card, player: Player, ingredients: list[Ingredient], tokens: dict[str, int], rules: MealRules
) -> Meal:
    """A legal meal with its quality (``rules``: those in force for the meal, see :meth:`MealLevel.for_card`)."""
    quality = rules.meal_quality(ingredients, tokens)
    # a card with parameters of its own: the meal keeps the parameters in force for it
    return Meal(rnd, card, player, tuple(ingredients), tokens, quality, rules.params if card.parameters else None)


class _ReaderFacts:
    """What a reader needs of a ruleset's card kinds and ingredient types, worked out once per
    ruleset (``ruleset.derived(_ReaderFacts)``); readers share these and never change them."""

    def __init__(self, ruleset: Ruleset) -> None:
        # Where a record names each kind of card: a field of its ``cards`` (cards on the
        # table, e.g. "critic") or of a player entry (cards a player holds, "restaurateur").
        self.table_fields: dict[str, str] = {}
        self.owned_fields: dict[str, str] = {}
        for kind, slot in ruleset.card_kinds.items():
            scope, _, field = slot.partition(".")
            if scope == "cards":
                self.table_fields[field] = kind
            elif scope == "players":
                self.owned_fields[field] = kind
        self.types = frozenset(ruleset.ingredient_types)
        self.player_keys = frozenset((*PLAYER_KEYS, *self.owned_fields))  # the keys of a plain player entry
        self.counters = frozenset(ruleset.counters)
        params = ruleset.parameters
        # How many players a plain list may have: one without automated rivals, if the rules allow none.
        low, high = params["min_players"].value, params["max_players"].value
        no_rivals = params["min_automated"].value <= 0 <= params["max_automated"].value
        self.plain_sizes = frozenset(range(low, high + 1) if no_rivals else ())
        self.rounds: tuple[str, ...] = tuple(params["challenge_rounds"].value)
        self.per_round: int = params["challenges_per_round"].value


class RecordReader:
    def __init__(self, ruleset: Ruleset, source: str, document: Document | None = None, *, plain: bool = True) -> None:
        self.rs = ruleset
        self.plain = plain  # False: no plain path, every part read by the detailed checks
        self.source = source
        self.problems: list[Problem] = []
        # The file the record came from, which knows the line of every value, and the
        # place of each problem in it (a record path, and whether the key is meant).
        self.document = document
        self.places: list[tuple[Path, bool]] = []
        # What was refused before the meals: a meal that names it is skipped rather than
        # reported again (a refused player name, or a challenge not read, by round).
        self.refused_names: set[str] = set()
        self.unread_challenges: dict[str, set[str]] = {}
        self.unread_rounds: set[str] = set()  # rounds whose last challenge (the held one) was not read
        # While a card in play could not be read, any rule parameter may be other than it
        # seems: the meals are then checked only for what no parameter decides.
        self.shape_only = False
        facts = self.facts = ruleset.derived(_ReaderFacts)
        self.table_fields = facts.table_fields
        self.owned_fields = facts.owned_fields
        self.single = ruleset.single_kinds
        self.types = facts.types
        self.player_params: dict[Player, dict[str, Any]] = {}  # parameters in force for each player's meals
        self.player_rules: dict[Player, MealRules] = {}  # the meal rules under them, made once a game
        self.meal_levels: dict[Player, MealLevel] = {}  # and under each card's own parameters
        # Whether a course type with its spices is legal, by the id of the meal rules in force
        # (each player's live as long as the reader): see _plain_courses.
        self.courses_checked: dict[int, dict[Any, bool]] = {}
        self.player_keys = facts.player_keys

    def fail(
        self, where: Where, message: str, code: str = "CK301", *, at_key: bool = False, shape: bool = False
    ) -> None:
        """Record a problem; ``shape``: one that no rule parameter decides (a type, a name, a range)."""
        if self.shape_only and not shape:
            return
        self.problems.append(Problem(self.source, 0, 0, message, code, where=str(where)))
        self.places.append((where.path(), at_key))

    def located(self) -> list[Problem]:
        """The problems, each given its line and column when the record came from a document."""
        if self.document is not None and self.problems:
            for problem, mark in zip(self.problems, self.document.places(self.places), strict=True):
                problem.line, problem.column = mark.line, mark.column
        return self.problems

    # small typed readers

    def mapping(self, value: Any, where: Where) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.fail(where, f"expected a mapping, got {shown(value)}", shape=True)
        return None

    def listing(self, value: Any, where: Where) -> list[Any] | None:
        if isinstance(value, list):
            return value
        self.fail(where, f"expected a list, got {shown(value)}", shape=True)
        return None

    def count(self, value: Any, where: Where, *, positive: bool = False) -> int | None:
        low = 1 if positive else 0
        if not _is_int(value) or not low <= value <= MAX_VALUE:
            what = "a positive whole number" if positive else "a whole number, 0 or more"
            self.fail(where, f"expected {what} up to {MAX_VALUE}, got {shown(value)}", shape=True)
            return None
        return value  # type: ignore[no-any-return]

    def keys(self, data: dict[str, Any], allowed: Iterable[str], where: Where) -> None:
        allowed = list(allowed)
        for key in data:
            if key not in allowed:
                self.fail(where / key, f"unknown key '{key}'{did_you_mean(key, allowed)}", at_key=True, shape=True)

    def card(self, value: Any, kind: str, where: Where) -> Card | None:
        if not isinstance(value, str):
            self.fail(where, f"expected a card id, got {shown(value)}")
            return None
        card = self.rs.cards.get(value)
        if card is None:
            same_kind = [c.id for c in self.rs.cards.values() if c.kind == kind]
            self.fail(where, f"unknown {kind} card '{value}'{did_you_mean(value, same_kind)}")
            return None
        if card.kind != kind:
            self.fail(where, f"'{value}' is a {card.kind} card, not a {kind} card")
            return None
        return card

    # the record

    def read(self, data: Any) -> Game:
        top = self.mapping(data, Where())
        if top is None:
            raise InputError(self.problems)
        self.keys(top, TOP_KEYS, Where())
        if "packs" in top:
            self.needed_packs(top["packs"])  # a missing pack is the record's one problem, not each of its cards
        for key in ("players", "cards"):
            if key not in top:
                self.fail(Where(), f"missing required key '{key}'")
        everyone = self.players(top.get("players", []))
        game = Game(self.rs, tuple(p for p in everyone if not p.automated), {}, {})
        if len(game.players) < len(everyone):
            game.rivals = tuple(p for p in everyone if p.automated)
        if "cards" in top:
            self.cards(game, top["cards"])
        self.player_cards(game, top.get("players", []))
        game.params = table_parameters(self.rs, game.table_cards)
        if self.problems and not self.can_read_meals(top, game):  # they need the players and challenges
            raise InputError(self.problems)
        self.shape_only = self.is_a_card_unread()
        self.player_params = {player: self.params_for(game, player) for player in game.players}
        for player, params in self.player_params.items():
            if params is not game.params:
                player.params = params  # the player's own: scoring reads them (a parameter for p)
        self.player_rules = self.rules_for(game)
        self.meal_levels = {player: MealLevel(rules) for player, rules in self.player_rules.items()}
        if not self.shape_only:
            self.check_kept(game, top.get("players", []))
        self.challenge_meals(game, top.get("challenge_meals", {}))
        self.critic_meals(game, top.get("critic_meals", {}))
        if not self.shape_only:
            self.check_constraints(game, top.get("critic_meals", {}))
        if self.problems:
            raise InputError(self.problems)
        return game

    def check_constraints(self, game: Game, critic_meals: Any) -> None:
        """Every meal, legal by the meal rules, against the constraints of the cards in play for
        its player (loading/constraints.py), each refused at the meal with its card named. A
        meal with a problem of its own is not a meal yet: its constraints wait until it is one.

        The conditions run under the effect budget (dsl/budget.py) together, apart from the
        game's scoring: the game's steps are as they were before, so a game scores alike
        however it was read (rescoring without a card reads nothing again)."""
        rules = (c for c, _ in self.rs.scoring().rules_in_play)
        cards = (*rules, *game.table_cards, *(c for p in game.players for c in p.owned))
        if not any(c.constraints for c in cards) and not any(
            c.constraints for round_cards in game.challenges.values() for c in round_cards
        ):
            return  # (a game without constraints never loads their module: score starts cold)
        from .constraints import challenge_problems, constraining, critic_problems

        table = game.table_cards
        wrong_at = {p.where for p in self.problems}
        spent = game.steps
        for rnd, meals in game.meals.items():
            for meal in meals:
                player = meal.player
                found = constraining(self.rs, (*table, *player.owned), "challenge", meal.card)
                for wrong in challenge_problems(game, meal, found) if found else ():
                    self.fail(Where("challenge_meals") / rnd / player.name / meal.card.id, wrong, "CK302")
        for player in game.players:
            at = str(Where("critic_meals") / player.name)
            if any(w == at or w.startswith((at + ".", at + "[")) for w in wrong_at):
                continue
            if isinstance(critic_meals, dict) and player.name in critic_meals:
                found = constraining(self.rs, (*table, *player.owned), "critic")
                for wrong in critic_problems(game, player, found) if found else ():
                    self.fail(Where("critic_meals") / player.name, wrong, "CK302")
        game.steps = spent

    def can_read_meals(self, top: dict[str, Any], game: Game) -> bool:
        """Whether the meals can be read despite the problems so far: the players are a list,
        and the challenges of every round are known (but perhaps some of their cards)."""
        rounds = self.rs.parameters["challenge_rounds"].value
        return isinstance(top.get("players"), list) and game.challenges.keys() == set(rounds)

    def is_a_card_unread(self) -> bool:
        """Whether a problem so far is about a card in play other than a challenge (or a key
        that may have meant one): such a card may change any rule parameter."""
        if not self.places:
            return False
        plain = {*PLAYER_KEYS, "automated"} - self.owned_fields.keys()
        for path, _ in self.places:
            if path[:1] == ("cards",) and path[1:2] != (CHALLENGES,) and len(path) > 1:
                return True
            if path[:1] == ("players",) and len(path) > 2 and path[2] not in plain:
                return True
        return False

    def needed_packs(self, value: Any) -> None:
        """Check the record's ``packs``; raise at once if one it names is not loaded."""
        ids, problems = pack_ids(value, self.source)
        self.problems.extend(problems)
        loaded = {pack.id for pack in self.rs.packs}
        for i, pack_id in enumerate(ids):
            if pack_id not in loaded:
                self.fail(Where("packs") / i, f"this record needs pack '{pack_id}'; load it with --pack {pack_id}")
        if len(self.problems) > len(problems):
            raise InputError(self.problems)

    def players(self, value: Any) -> list[Player]:
        plain = self.plain_players(value) if self.plain else None
        if plain is not None:
            return plain
        where = Where("players")
        items = self.listing(value, where)
        if items is None:
            return []
        params = self.rs.parameters
        automated = sum(1 for item in items if isinstance(item, dict) and "automated" in item)
        low, high = params["min_players"].value, params["max_players"].value
        if not low <= len(items) - automated <= high:
            n = len(items) - automated
            self.fail(where, f"{n} player{'s' if n != 1 else ''}; this game takes {low} to {high}")
        low, high = params["min_automated"].value, params["max_automated"].value
        if not low <= automated <= high:
            allowed = f"{low} to {high}" if high else "none"
            self.fail(where, f"{automated} automated player{'s' if automated != 1 else ''}; this game takes {allowed}")
        players: list[Player] = []
        seen: set[str] = set()
        for i, item in enumerate(items):
            entry = self.mapping(item, where / i)
            if entry is None:
                continue
            self.keys(
                entry, ("name", "automated") if "automated" in entry else (*PLAYER_KEYS, *self.owned_fields), where / i
            )
            name = self.player_name(entry.get("name"), where / i / "name")
            if name is None:
                if isinstance(entry.get("name"), str):
                    self.refused_names.add(entry["name"])
                continue
            if name in seen:
                self.fail(where / i / "name", f"two players are named '{name}'")
                continue
            seen.add(name)
            player = Player(name, len(players))
            if "automated" in entry:
                self.automated(player, entry["automated"], where / i / "automated")
            counters = self.mapping(entry.get("counters", {}), where / i / "counters") or {}
            for key, n in counters.items():
                if key not in self.rs.counters:
                    self.fail(
                        where / i / "counters" / key, f"unknown counter '{key}'{did_you_mean(key, self.rs.counters)}"
                    )
                elif (got := self.count(n, where / i / "counters" / key)) is not None:
                    player.counters[key] = got
            players.append(player)
        return players

    def player_name(self, value: Any, where: Where) -> str | None:
        """``value`` when it can name a player; else None, and the problem is reported."""
        wrong = name_problem(value)
        if wrong is None and isinstance(value, str):
            return value
        self.fail(where, wrong or NAME_NEEDED)
        return None

    def plain_players(self, value: Any) -> list[Player] | None:
        """The players of a plainly well-formed list without automated rivals, else None."""
        if type(value) is not list or len(value) not in self.facts.plain_sizes:
            return None
        allowed = self.player_keys
        players: list[Player] = []
        names: set[str] = set()
        for entry in value:
            if type(entry) is not dict:
                return None
            for key in entry:
                if key not in allowed:
                    return None
            name = entry.get("name")
            if type(name) is not str or name in names or name_problem(name) is not None:
                return None
            names.add(name)
            player = Player(name, len(players))
            if "counters" in entry:
                if not self.are_plain_counters(entry["counters"]):
                    return None
                player.counters.update(entry["counters"])
            players.append(player)
        return players

    def are_plain_counters(self, counters: Any) -> bool:
        if type(counters) is not dict:
            return False
        for key, n in counters.items():
            if key not in self.facts.counters or not _is_plain_count(n):
                return False
        return True

    def automated(self, player: Player, value: Any, where: Where) -> None:
        """An automated rival: its stars and critic track position come from the record."""
        data = self.mapping(value, where) or {}
        self.keys(data, AUTOMATED_KEYS, where)
        for key in AUTOMATED_KEYS:
            if key not in data:
                self.fail(where, f"missing required key '{key}'")
        player.automated = True
        player.stars = self.count(data.get("stars", 0), where / "stars") or 0
        player.fixed_quality = self.count(data.get("critic_quality", 0), where / "critic_quality") or 0

    def player_cards(self, game: Game, items: Any) -> None:
        holdings = self.plain_holdings(game.players, items) if self.plain else None
        if holdings is not None:
            for i, player in enumerate(game.players):  # (as many holdings as players)
                player.owned = holdings[i]
            return
        by_name = {p.name: p for p in game.players}
        taken: dict[str, str] = {}
        for field, kind in self.owned_fields.items():
            for i, entry in enumerate(items if isinstance(items, list) else []):
                if not isinstance(entry, dict):
                    continue
                name = entry.get("name")
                if field not in entry or not isinstance(name, str) or name not in by_name:
                    continue
                where = Where("players") / i / field
                value = entry[field]
                if isinstance(value, list) and kind in self.single:
                    self.fail(where, f"a player holds one {kind} card, not a list")
                    continue
                ids = value if isinstance(value, list) else [value]
                for j, cid in enumerate(ids):
                    at = where / j if isinstance(value, list) else where
                    card = self.card(cid, kind, at)
                    if card is None:
                        continue
                    if card.id in taken:
                        self.fail(at, f"{kind} '{card.id}' is already held by {taken[card.id]}")
                        continue
                    taken[card.id] = entry["name"]
                    player = by_name[entry["name"]]
                    player.owned = (*player.owned, card)

    def plain_holdings(self, players: tuple[Player, ...], items: Any) -> list[tuple[Card, ...]] | None:
        """The cards each player holds, in player order, when the entries are plainly well formed.

        Only when each entry made a player (no rivals, none skipped): then entries and players align.
        """
        if type(items) is not list or len(items) != len(players):
            return None
        holdings: list[tuple[Card, ...]] = []
        taken: set[str] = set()
        for i, player in enumerate(players):  # (as many entries as players)
            entry = items[i]
            if type(entry) is not dict or entry.get("name") != player.name:
                return None
            held: list[Card] = []
            for field, kind in self.owned_fields.items():
                if field in entry:
                    cards = self.plain_slot(entry[field], kind)
                    if cards is None:
                        return None
                    held += cards
            for card in held:
                if card.id in taken:
                    return None
                taken.add(card.id)
            holdings.append(tuple(held))
        return holdings

    def plain_slot(self, value: Any, kind: str) -> list[Card] | None:
        """The cards a slot names (one id, or distinct ids if a game may hold several), else None."""
        if type(value) is not list:
            card = self.plain_card(value, kind)
            return [card] if card is not None else None
        if kind in self.single:
            return None
        cards: list[Card] = []
        for cid in value:
            card = self.plain_card(cid, kind)
            if card is None:
                return None
            cards.append(card)
        return cards if len(set(value)) == len(value) else None  # (every id is text by now)

    def plain_card(self, value: Any, kind: str) -> Card | None:
        card = self.rs.cards.get(value) if type(value) is str else None
        return card if card is not None and card.kind == kind else None

    def cards(self, game: Game, value: Any) -> None:
        plain = self.plain_cards(value) if self.plain else None
        if plain is not None:
            game.challenges, game.table_cards = plain
            return
        where = Where("cards")
        data = self.mapping(value, where)
        if data is None:
            return
        fields = self.table_fields
        self.keys(data, fields, where)
        table: list[Card] = []
        for field, kind in fields.items():
            if field == CHALLENGES:
                if field in data:
                    game.challenges = self.challenge_cards(data[field], kind, where / field)
                else:
                    self.fail(where, f"missing required key '{field}'")
                continue
            value = data.get(field)
            if isinstance(value, list) and kind in self.single:
                self.fail(where / field, f"expected one {kind} card id, got a list")
            elif isinstance(value, list):
                cards = [self.card(v, kind, where / field / i) for i, v in enumerate(value)]
                ids = [c.id for c in cards if c is not None]
                for i, cid in enumerate(ids):
                    if cid in ids[:i]:
                        self.fail(where / field, f"{kind} '{cid}' is listed twice")
                table.extend(c for c in cards if c is not None)
            elif value is not None:
                card = self.card(value, kind, where / field)
                if card is not None:
                    table.append(card)
        game.table_cards = tuple(table)

    def plain_cards(self, value: Any) -> tuple[dict[str, tuple[Card, ...]], tuple[Card, ...]] | None:
        """The challenges by round and the table cards, when ``cards`` is plainly well formed."""
        if type(value) is not dict:
            return None
        for field in value:
            if field not in self.table_fields:
                return None
        challenges: dict[str, tuple[Card, ...]] = {}
        table: list[Card] = []
        for field, kind in self.table_fields.items():
            if field == CHALLENGES:
                plain = self.plain_challenges(value.get(field), kind)
                if plain is None:
                    return None
                challenges = plain
            elif value.get(field) is not None:
                cards = self.plain_slot(value[field], kind)
                if cards is None:
                    return None
                table += cards
        return challenges, tuple(table)

    def challenge_cards(self, value: Any, kind: str, where: Where) -> dict[str, tuple[Card, ...]]:
        data = self.mapping(value, where)
        if data is None:
            return {}
        rounds = self.rs.parameters["challenge_rounds"].value
        per_round = self.rs.parameters["challenges_per_round"].value
        self.keys(data, rounds, where)
        out: dict[str, tuple[Card, ...]] = {}
        seen: dict[str, str] = {}
        for rnd in rounds:
            if rnd not in data:
                self.fail(where, f"missing required key '{rnd}'")
                continue
            items = self.listing(data[rnd], where / rnd)
            if items is None:
                continue
            if len(items) != per_round:
                self.fail(where / rnd, f"{len(items)} challenge cards; each challenge round reveals {per_round}")
            cards = []
            for i, v in enumerate(items):
                card = self.card(v, kind, where / rnd / i)
                if card is not None and card.id in seen:
                    self.fail(where / rnd / i, f"challenge '{card.id}' is already revealed in {seen[card.id]}")
                    card = None
                if card is None:
                    self.unread_challenge(rnd, v, is_last=i == len(items) - 1)
                    continue
                seen[card.id] = rnd
                cards.append(card)
            out[rnd] = tuple(cards)
        return out

    def unread_challenge(self, rnd: str, value: Any, *, is_last: bool) -> None:
        """Note a challenge of ``rnd`` that was not read: its meals are not checked; nor are the
        round's, if it is the last (which of them the Hold token is on is then unknown)."""
        if isinstance(value, str):
            self.unread_challenges.setdefault(rnd, set()).add(value)
        if is_last:
            self.unread_rounds.add(rnd)

    def plain_challenges(self, value: Any, kind: str) -> dict[str, tuple[Card, ...]] | None:
        """The challenge cards by round, when each round plainly reveals its number of new cards."""
        rounds, per_round = self.facts.rounds, self.facts.per_round
        # The record lists the rounds and no other key: each round is there, and no more keys than rounds.
        if type(value) is not dict or len(value) != len(rounds):
            return None
        out: dict[str, tuple[Card, ...]] = {}
        seen: set[str] = set()
        for rnd in rounds:
            items = value.get(rnd)
            cards = self.plain_slot(items, kind) if type(items) is list and len(items) == per_round else None
            if cards is None:
                return None
            for card in cards:
                if card.id in seen:
                    return None
                seen.add(card.id)
            out[rnd] = tuple(cards)
        return out

    # meals

    def check_kept(self, game: Game, items: list[Any]) -> None:
        limits = game.params["refrigeration_limits"]
        if self.plain and self.is_kept_plain(items, limits):
            return
        for i, entry in enumerate(items):
            if not isinstance(entry, dict) or "kept" not in entry:
                continue
            where = Where("players") / i / "kept"
            kept = self.mapping(entry["kept"], where)
            if kept is None:
                continue
            self.keys(kept, limits, where)
            for rnd, n in kept.items():
                if rnd in limits and (got := self.count(n, where / rnd)) is not None:
                    if got > limits[rnd]:
                        self.fail(
                            where / rnd, f"{got} ingredients and spices kept; the limit after {rnd} is {limits[rnd]}"
                        )

    @staticmethod
    def is_kept_plain(items: list[Any], limits: dict[str, int]) -> bool:
        """Whether every player entry keeps plainly well-formed counts within the limits."""
        for entry in items:
            kept = entry.get("kept", {}) if type(entry) is dict else None
            if type(kept) is not dict:
                return False
            for rnd, n in kept.items():
                if rnd not in limits or not _is_plain_count(n) or n > limits[rnd]:
                    return False
        return True

    def scored_player(self, game: Game, name: str, where: Where) -> Player | None:
        """The player a meal belongs to; automated rivals serve no recorded meals."""
        if name in self.refused_names:
            return None  # its entry is reported already
        for player in game.players:
            if player.name == name:
                return player
        if any(rival.name == name for rival in game.rivals):
            self.fail(where, f"{name} is an automated player: its meals are not recorded", at_key=True, shape=True)
        else:
            known = [p.name for p in game.players]
            self.fail(where, f"unknown player '{name}'{did_you_mean(name, known)}", at_key=True, shape=True)
        return None

    def params_for(self, game: Game, player: Player) -> dict[str, Any]:
        """The parameters in force for a player: the game's, changed by the cards the player holds."""
        return held_parameters(game.params, player.owned)

    def rules_for(self, game: Game) -> dict[Player, MealRules]:
        """The meal rules under each player's parameters: one for those in force for everyone,
        one more for each player whose held cards change them."""
        table = MealRules(game.params)
        return {
            player: table if params is game.params else MealRules(params)
            for player, params in self.player_params.items()
        }

    def challenge_meals(self, game: Game, value: Any) -> None:
        where = Where("challenge_meals")
        data = self.mapping(value, where) or {}
        self.keys(data, game.challenges, where)
        for rnd, cards in game.challenges.items():
            if rnd in self.unread_rounds:
                continue
            meals = self.plain_round(game, rnd, cards, data.get(rnd, {})) if self.plain else None
            if meals is None:
                meals = self.round_meals(game, rnd, cards, data.get(rnd, {}), where / rnd)
            game.meals[rnd] = meals

    def round_meals(self, game: Game, rnd: str, cards: tuple[Card, ...], value: Any, where: Where) -> tuple[Meal, ...]:
        meals: list[Meal] = []
        per_player = self.mapping(value, where) or {}
        ids = [c.id for c in cards]
        position = {cid: i for i, cid in enumerate(ids)}
        for name, served in per_player.items():
            at = where / name
            player = self.scored_player(game, name, at)
            if player is None:
                continue
            served = self.mapping(served, at) or {}
            for cid, meal in served.items():
                i = position.get(cid)
                if i is None and cid in self.unread_challenges.get(rnd, ()):
                    continue  # its card is reported already
                if i is None:
                    self.fail(
                        at / cid, f"'{cid}' is not a challenge of {rnd}; those are: {', '.join(ids)}", at_key=True
                    )
                    continue
                built = self.meal(player, rnd, cards[i], i == len(ids) - 1, meal, at / cid)
                if built is not None:
                    meals.append(built)
        # Priority order, then reveal order: never the order the file happens to list them in.
        return tuple(sorted(meals, key=lambda m: (m.player.index, position[m.card.id])))

    def plain_round(self, game: Game, rnd: str, cards: tuple[Card, ...], value: Any) -> tuple[Meal, ...] | None:
        """A round's meals when every one is plainly well formed and legal, else None.

        Walking players in priority order and cards in reveal order gives the meals in the
        order scoring wants; counting what was found shows that nothing else is listed.
        """
        if type(value) is not dict:
            return None
        meals: list[Meal] = []
        last = len(cards) - 1
        serving = 0
        for player in game.players:
            served = value.get(player.name)
            if served is None:
                continue
            if type(served) is not dict:
                return None
            serving += 1
            found = 0
            level = self.meal_levels[player]
            for i, card in enumerate(cards):
                data = served.get(card.id)
                if data is not None:  # (a meal of null is not found, and so not plain)
                    meal = self.plain_meal(player, rnd, card, i == last, data, level.for_card(card))
                    if meal is None:
                        return None
                    meals.append(meal)
                    found += 1
            if found != len(served):
                return None
        return tuple(meals) if serving == len(value) else None

    def plain_meal(self, player: Player, rnd: str, card: Card, held: bool, value: Any, rules: MealRules) -> Meal | None:
        """The meal when it is plainly well formed and legal, else None (``rules``: the meal's)."""
        if type(value) is not dict:
            return None
        items = value.get("ingredients")
        if items is not None:
            ingredients = _plain_ingredients(items, self.types)
        else:  # no ingredients, unless the key is there with a null
            ingredients = None if "ingredients" in value else []
        tokens = _plain_tokens(value, rules.token_values, ("ingredients",))
        if (
            ingredients is None
            or tokens is None
            or rules.meal_problems(card, ingredients, tokens, held, self.rs.ingredient_types)
        ):
            return None
        return _served(rnd, card, player, ingredients, tokens, rules)

    def spices(
        self, params: Mapping[str, Any], kind: str, value: Any, limit: int, where: Where
    ) -> tuple[str, ...] | None:
        if value is None:
            return ()
        spices = [value] if isinstance(value, str) else value
        if not isinstance(spices, list) or not all(isinstance(s, str) for s in spices):
            self.fail(where, f"expected a spice name or a list of them, got {shown(value)}")
            return None
        wrong = spice_problem(kind, spices, limit, params, self.rs.ingredient_types)
        if wrong is not None:
            self.fail(where, wrong)
            return None
        return tuple(spices)

    def ingredient_type(self, value: Any, where: Where) -> str | None:
        if not isinstance(value, str) or value not in self.rs.ingredient_types:
            hint = did_you_mean(value, self.rs.ingredient_types) if isinstance(value, str) else ""
            self.fail(where, f"unknown ingredient type {shown(value)}{hint}", shape=True)
            return None
        return value

    def tokens(
        self, data: dict[str, Any], params: Mapping[str, Any], skip: tuple[str, ...], where: Where
    ) -> dict[str, int]:
        """The token counts of a meal: every key of ``data`` but those in ``skip``."""
        values = params["token_values"]
        out = {}
        for key, n in data.items():
            if key in skip:
                continue
            if key not in values:
                self.fail(where / key, f"unknown key '{key}'{did_you_mean(key, (*skip, *values))}", at_key=True)
            elif (got := self.count(n, where / key)) is not None:
                out[key] = got
        return out

    def meal(self, player: Player, rnd: str, card: Card, held: bool, value: Any, where: Where) -> Meal | None:
        data = self.mapping(value, where)
        if data is None:
            return None
        rules = self.meal_levels[player].for_card(card)
        params = rules.params
        before = len(self.problems)
        tokens = self.tokens(data, params, ("ingredients",), where)
        ingredients = []
        items = data.get("ingredients", [])
        for i, item in enumerate(self.listing(items, where / "ingredients") or []):
            iw = where / "ingredients" / i
            entry = self.mapping(item, iw)
            if entry is None:
                continue
            self.keys(entry, ("type", "value", "spice"), iw)
            kind = self.ingredient_type(entry.get("type"), iw / "type")
            val = self.count(entry.get("value"), iw / "value", positive=True)
            spices = self.spices(params, kind or "", entry.get("spice"), params["spices_per_ingredient"], iw / "spice")
            if kind is not None and val is not None and spices is not None:
                ingredients.append(Ingredient(kind, val, spices))
        if len(self.problems) > before:
            return None
        illegal = legality_problems(card, ingredients, tokens, params, held)
        for wrong in illegal:
            self.fail(where, wrong, "CK302")
        return None if illegal else _served(rnd, card, player, ingredients, tokens, rules)

    def critic_meals(self, game: Game, value: Any) -> None:
        where = Where("critic_meals")
        data = self.mapping(value, where) or {}
        scored = {player.name: player for player in game.players}  # not rivals: their meals are not recorded
        for name, meal in data.items():
            player = scored.get(name)
            plain = self.plain_critic_meal(player, meal) if player is not None and self.plain else None
            if player is not None and plain is not None:
                player.tokens = plain[0]
                player.serve(plain[1])
                if plain[2] is not None:
                    player.leave(*plain[2])
            else:
                self.critic_meal(game, name, meal, where / name)

    def critic_meal(self, game: Game, name: str, value: Any, where: Where) -> None:
        player = self.scored_player(game, name, where)
        if player is None:
            return
        entry = self.mapping(value, where)
        if entry is None:
            return
        params = self.player_params[player]
        player.tokens = self.tokens(entry, params, CRITIC_MEAL_KEYS, where)
        courses = self.mapping(entry.get("courses", {}), where / "courses") or {}
        served: dict[str, Course] = {}
        for kind, course in courses.items():
            built = self.course(params, kind, course, where / "courses" / kind)
            if built is not None:
                served[kind] = built
        player.serve(self.in_type_order(served))
        if LEFT in entry:
            left = self.mapping(entry[LEFT], where / LEFT)
            if left is not None:
                self.keys(left, LEFT_KEYS, where / LEFT)
                ingredients, spices = self.items_held(left, params["wild_spice"], where / LEFT)
                held = (Ingredient(kind, value) for kind, value in ingredients)
                player.leave(*_left_in_order(held, spices, self.rs.ingredient_types))

    def items_held(
        self, data: dict[str, Any], wild_spice: str, where: Where
    ) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
        """The ingredients (``type`` and ``value`` each, no spice) and spices listed under
        ``data``'s keys ``ingredients`` and ``spices``, as a pantry or what a player had left
        lists them; each one that is not well formed is reported and left out."""
        ingredients: list[tuple[str, int]] = []
        for i, item in enumerate(self.listing(data.get("ingredients", []), where / "ingredients") or []):
            iw = where / "ingredients" / i
            entry = self.mapping(item, iw)
            if entry is None:
                continue
            self.keys(entry, ("type", "value"), iw)
            for key in ("type", "value"):
                if key not in entry:
                    self.fail(iw, f"missing required key '{key}'", shape=True)
            kind = self.ingredient_type(entry.get("type"), iw / "type") if "type" in entry else None
            val = self.count(entry.get("value"), iw / "value", positive=True) if "value" in entry else None
            if kind is not None and val is not None:
                ingredients.append((kind, val))
        spices: list[str] = []
        known = (*self.rs.ingredient_types, wild_spice)
        for i, spice in enumerate(self.listing(data.get("spices", []), where / "spices") or []):
            if isinstance(spice, str) and spice in known:
                spices.append(spice)
            else:
                hint = did_you_mean(spice, known) if isinstance(spice, str) else ""
                self.fail(where / "spices" / i, f"unknown spice {shown(spice)}{hint}", shape=True)
        return tuple(ingredients), tuple(spices)

    def plain_critic_meal(
        self, player: Player, value: Any
    ) -> tuple[dict[str, int], dict[str, Course], tuple[tuple[Ingredient, ...], tuple[str, ...]] | None] | None:
        """A critic meal's tokens, courses and what was left (None if not recorded) when all are
        plainly well formed, else None."""
        if type(value) is not dict:
            return None
        rules = self.player_rules[player]
        tokens = _plain_tokens(value, rules.token_values, CRITIC_MEAL_KEYS)
        if tokens is None:
            return None
        left = None
        if LEFT in value:
            read = _plain_left(value[LEFT], self.types, rules.wild_spice)
            if read is None:
                return None
            left = _left_in_order(read[0], read[1], self.rs.ingredient_types)
        checked = self.courses_checked.get(id(rules))
        if checked is None:
            checked = self.courses_checked[id(rules)] = {}
        courses = _plain_courses(value.get("courses", {}), self.rs.ingredient_types, rules, checked)
        if courses is None:
            return None
        return tokens, courses, left

    def in_type_order(self, courses: dict[str, Course]) -> dict[str, Course]:
        """The courses in ingredient type order, whatever order the record lists them in."""
        return {kind: courses[kind] for kind in self.rs.ingredient_types if kind in courses}

    def course(self, params: dict[str, Any], kind: str, value: Any, where: Where) -> Course | None:
        wrong = course_kind_problem(kind, params)
        if wrong is not None:
            self.fail(where, wrong, "CK303")
            return None
        entry = self.mapping(value, where)
        if entry is None:
            return None
        self.keys(entry, ("value", "spice", "token"), where)
        if "token" in entry:
            token = entry["token"]
            if not isinstance(token, str):
                self.fail(where / "token", f"expected a token name, got {shown(token)}")
                return None
            if (wrong := course_token_refused(token, params)) is not None:
                self.fail(where, wrong, "CK303")
                return None
            if (wrong := unknown_token(token, params)) is not None:
                self.fail(where / "token", wrong)
                return None
            if "value" in entry or "spice" in entry:
                self.fail(where, "a course is an ingredient (value, spice) or a token, not both", "CK303")
                return None
            quality = course_quality(token, params)
            return Course(kind, quality, (), token, quality)
        if "value" not in entry:
            self.fail(where, "missing required key 'value'")
            return None
        val = self.count(entry["value"], where / "value", positive=True)
        spices = self.spices(params, kind, entry.get("spice"), params["spices_per_course"], where / "spice")
        if val is None or spices is None:
            return None
        return Course(kind, val, spices, None, ingredient_course_quality(val, spices, params))


def pack_ids(value: Any, source: str) -> tuple[tuple[str, ...], list[Problem]]:
    """The pack ids of a record's ``packs`` value (ids only: never folders), and what is wrong with it."""
    from .discovery import is_pack_id

    def fail(where: Where, message: str) -> tuple[tuple[str, ...], list[Problem]]:
        return (), [Problem(source, 0, 0, message, "CK301", where=str(where))]

    where = Where("packs")
    if not isinstance(value, list):
        return fail(where, f"expected a list of pack ids, got {shown(value)}")
    if len(value) > MAX_PACKS:
        return fail(where, f"{len(value)} packs; a record may name at most {MAX_PACKS}")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not is_pack_id(item):
            return fail(where / i, f"expected a pack id (lower-case letters, digits, '-', '_', '.'), got {shown(item)}")
    return tuple(dict.fromkeys(value)), []


def record_packs(data: Any, source: str) -> tuple[str, ...]:
    """The ids of the packs a parsed record (or pantry) names, none if it names none; InputError if malformed."""
    if not isinstance(data, dict) or "packs" not in data:
        return ()
    ids, problems = pack_ids(data["packs"], source)
    if problems:
        raise InputError(problems)
    return ids


def read_record(ruleset: Ruleset, data: Any, source: str, document: Document | None = None) -> Game:
    """Check a parsed game record against the ruleset and build its :class:`Game`.

    ``document``, the file the data was read from, gives each problem its line and column.
    """
    reader = RecordReader(ruleset, source, document)
    try:
        return reader.read(data)
    except InputError:
        raise InputError(reader.located()) from None

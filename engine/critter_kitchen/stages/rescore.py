"""Scoring a game again as if some cards were not in play, or some challenge meals not served.

This is what the balance lab asks of every card of every simulated game: what would the
game give without it? The answer is defined as scoring the record from scratch with
the card taken out of it, and :func:`game_without` and :func:`score_without` keep to it:

- The meals are the ones recorded. Removing a card can change the rule parameters in
  force (a critic that triples spiced courses, a head chef that lets tokens fill
  courses): every meal's legality and quality is then judged again, by the meal rules
  the record reader uses (model/meals.py), under the rules without the card. A
  challenge meal or a critic course that is no longer legal counts as not served.
- Unused tokens the rules no longer know are dropped likewise, and so are spices left
  unused that they no longer know (a card that named another wild spice); the refrigeration limits
  (what a player kept) change no score, so they are not looked at.
- Only cards that a record names outside its challenges may be removed: the cards on the
  table (critic, rumors, ...) and the cards players hold. Challenge and rules cards make
  the game what it is. For a challenge card, :func:`score_without_meals` scores the game
  with the card kept and no meal served for it: the record without those meals.

Only what can change is run again. A run of the whole game is made once per game (and
kept on it): a checkpoint before each hook point (a stage's before effects, its body,
its after effects) that a removal can start from, and what each hook point did (its
awards, the work it took, the course qualities after it). A removal then starts from the
checkpoint before the first hook point whose outcome can depend on the removal, and from
there each hook point either runs or is replayed: its recorded awards, stars and
qualities are given again. A hook point runs when the removed card has effects at it,
when its code asks which cards are in play (``in_play``) or reads a rule parameter the
removal changed (``Compiled.params_read``), and when its code reads what the removal has
changed so far (``Compiled.state_read``: stars, course qualities, the challenge meals, as
the registry declares them) or changes course qualities that differ already; a hook point
replayed would add more work or awards than the game may take runs too. What differs is
followed from point to point: the stars and qualities of the points that ran are
compared with the recorded ones, and the writes of a stage that no longer exists count
as changes. A stage whose card is removed does not run, as in any game without the card.
When the removal changes rule parameters, the meals are judged again: if any comes out
otherwise (legality, quality), every stage runs. The players are ranked again unless
nothing the tie-breaks read differs. Tests compare this with the plain path, the record
without the card (or the meals) read and scored from scratch, on every corpus.

What a plan costs: where each card's programs are and what they read and write (bits of
hook points) is made once per ruleset and card, and only combined per game; the run with
every card is made on the game itself when it is as read (and the game is put back as it
was after it), on a copy otherwise; it keeps, besides what each hook point did, the work
each removable card's before and after effects took, so that a point replayed without
that card's effects adds the rest of the work without running anything. The plain score
path (``run_stages`` without ``pause``) does none of this.
"""

from __future__ import annotations

from ..dsl.budget import MAX_AWARDS, STEP_BUDGET
from ..dsl.registry import MEALS, QUALITY, STARS
from ..errors import EvaluationError, InputError
from ..model.game import Award, Course, Game, Ingredient, Meal, Player, player_params
from ..model.meals import MealLevel, MealRules, held_parameters, table_parameters
from .runner import POINTS, Result, Standing, hook_tables, notes_of, rank, run_hook_point, run_stages

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping
    from typing import Any

    from ..dsl.program import Compiled
    from ..model.game import Checkpoint
    from ..model.ruleset import Card, Ruleset
    from .runner import Holders, Hooks, HookTables

    _MealState = tuple[tuple[Any, ...], ...]
    _MealFields = tuple[str, Card, int, tuple[Ingredient, ...], dict[str, int], int, Mapping[str, Any] | None]
    _Alike = tuple[
        tuple[tuple[tuple[str, int, tuple[str, ...], str | None, int], ...], ...],
        tuple[
            tuple[
                str,
                tuple[_MealFields, ...],
            ],
            ...,
        ],
    ]
    _Qualities = tuple[tuple[int, ...], ...]
    _Listed = tuple[int, tuple[str, str], list[tuple[Card, Player | None, Compiled | None]], frozenset[str] | None]

# What differs between a rescoring and the run with every card, one bit each (registry.STATE).
STATE_BITS = {STARS: 1, QUALITY: 2, MEALS: 4}
STARS_BIT, QUALITY_BIT, MEALS_BIT = STATE_BITS[STARS], STATE_BITS[QUALITY], STATE_BITS[MEALS]


def removable_cards(game: Game) -> list[Card]:
    """The cards of ``game`` that :func:`score_without` can take out: on the table, then held, in record order."""
    cards = list(game.table_cards)
    for player in game.players:
        cards.extend(c for c in player.owned if c not in cards)
    return cards


def score_without(game: Game, card_ids: Iterable[str], source: str = "<record>") -> Result:
    """Score ``game`` (as read, scored already or not) as if the cards ``card_ids`` were not in play.

    The same meals, judged under the rules without those cards (see the module's text);
    ``game`` itself is not changed. Raises ValueError when an id is not one of
    :func:`removable_cards`; InputError or EvaluationError as scoring the record would.
    """
    removed = frozenset(card_ids)
    plan = _plan(game, source)
    unknown = removed - plan.removable_ids
    if unknown:
        raise ValueError(f"not a removable card in play in this game: {', '.join(sorted(unknown))}")
    same_rules = not removed & plan.parameter_cards
    fresh = game_without(game, removed, plan.pristine, (), plan.alike, same_rules)
    alone = plan.alone.get(next(iter(removed))) if len(removed) == 1 else None
    changed: frozenset[str] = frozenset()
    if not same_rules:
        if _meal_state(fresh) != plan.pristine:
            return plan.rescore(fresh, source, 0, None)  # other meals: nothing recorded applies
        changed = frozenset(_changed_for_anyone(game, fresh)) if alone is None else alone[1]
    first = plan.first_point(removed, changed, 0) if alone is None else alone[0]
    return plan.rescore(fresh, source, first, _Changes(removed, changed, 0))


def score_without_meals(game: Game, card_ids: Iterable[str], source: str = "<record>") -> Result:
    """Score ``game`` (as read, scored already or not) as if no meal had been served for the
    challenge cards ``card_ids``: the cards stay in play, every other meal is kept as it is.

    The answer is the record with those cards' challenge meals taken out, read and scored;
    ``game`` itself is not changed. Raises ValueError when an id is not one of the game's
    challenge cards; EvaluationError as scoring the record would.
    """
    unserved = frozenset(card_ids)
    unknown = unserved - {c.id for cards in game.challenges.values() for c in cards}
    if unknown:
        raise ValueError(f"not a challenge card of this game: {', '.join(sorted(unknown))}")
    plan = _plan(game, source)
    fresh = game_without(game, (), plan.pristine, unserved, plan.alike)
    return plan.rescore(fresh, source, plan.first_point(frozenset(), frozenset(), MEALS_BIT), _Changes.meals())


def game_without(
    game: Game,
    removed: Collection[str],
    pristine: _MealState | None = None,
    unserved: Collection[str] = (),
    alike: _Alike | None = None,
    same_rules: bool | None = None,
) -> Game:
    """A new unscored game: ``game``'s players and meals without the cards ``removed``, each meal
    judged again under the rules in force without them (dropped if no longer legal), and
    without the challenge meals served for the cards ``unserved``.

    ``pristine``: the meals of ``game`` as read (:func:`_meal_state`), whose course
    qualities are taken as they are when the removal changes no parameter; ``alike``: what
    :func:`_alike` makes of ``game`` and ``pristine``, when the caller keeps it; ``same_rules``:
    whether no card ``removed`` has parameters, when the caller knows.
    """
    rs = game.ruleset
    # A removal that changes no parameter leaves every meal as legal as it was, with its quality.
    if same_rules is None:
        same_rules = not removed or not any(c.parameters for c, _ in game.cards_in_play() if c.id in removed)
    table = tuple(c for c in game.table_cards if c.id not in removed) if removed else game.table_cards
    fresh = Game(rs, (), game.params if same_rules else table_parameters(rs, table), {})
    fresh.table_cards = table
    fresh.challenges = game.challenges
    fresh.players = tuple([_player_copy(p, removed) for p in game.players])
    fresh.rivals = tuple([_rival_copy(p) for p in game.rivals]) if game.rivals else ()
    players = fresh.players
    own = {p.index: held_parameters(fresh.params, p.owned) for p in players} if not same_rules else {}
    if same_rules and pristine is not None:
        _copy_alike(fresh, game, alike if alike is not None else _alike(game, pristine), unserved)
        return fresh
    table_rules = MealRules(fresh.params)
    rules = {i: table_rules if params is fresh.params else MealRules(params) for i, params in own.items()}
    for player, old in zip(players, game.players, strict=True):
        if not same_rules:  # the player's own parameters without the cards removed
            player.params = own[player.index] if own[player.index] is not fresh.params else None
        _judge_courses(player, old, rules.get(player.index, table_rules), rs.ingredient_types, same_rules)
    for rnd, meals in game.meals.items():
        kept = tuple(m for m in meals if m.card.id not in unserved) if unserved else meals
        if same_rules:
            fresh.meals[rnd] = tuple(
                Meal(m.round, m.card, players[m.player.index], m.ingredients, m.tokens, m.quality, m.params)
                for m in kept
            )
        else:
            fresh.meals[rnd] = _meals(kept, fresh, {i: MealLevel(r) for i, r in rules.items()})
    return fresh


def _alike(game: Game, pristine: _MealState) -> _Alike:
    """What a copy of ``game`` under the same rules takes as it is: each player's courses (their
    fields, the quality as read) and the meals (their fields, the player by index)."""
    courses = tuple(
        tuple((c.type, c.value, c.spices, c.token, q) for c, (_, q) in zip(old.courses.values(), read, strict=True))
        for old, (_, read) in zip(game.players, pristine[0], strict=True)
    )
    meals = tuple(
        (rnd, tuple((m.round, m.card, m.player.index, m.ingredients, m.tokens, m.quality, m.params) for m in ms))
        for rnd, ms in game.meals.items()
    )
    return courses, meals


def _copy_alike(fresh: Game, game: Game, alike: _Alike, unserved: Collection[str]) -> None:
    """``fresh``'s courses and meals: ``game``'s as read (:func:`_alike`), without the meals of
    the cards ``unserved``."""
    courses, meals = alike
    players = fresh.players
    for player, old, served in zip(players, game.players, courses, strict=True):
        player.tokens = old.tokens
        player.courses = {t[0]: Course(t[0], t[1], t[2], t[3], t[4]) for t in served}
        player.served = old.served  # the same courses, in the same order
    for rnd, kept in meals:
        if unserved:
            kept = tuple(m for m in kept if m[1].id not in unserved)
        fresh.meals[rnd] = tuple([Meal(m[0], m[1], players[m[2]], m[3], m[4], m[5], m[6]) for m in kept])


def _judge_courses(player: Player, old: Player, own: MealRules, types: tuple[str, ...], legal: bool) -> None:
    """``old``'s kept tokens and critic courses for ``player``, judged again under the rules
    ``own`` (``legal``: they are all legal still)."""
    known = legal or all(own.unknown_token(k) is None for k in old.tokens)
    player.tokens = old.tokens if known else {k: n for k, n in old.tokens.items() if own.unknown_token(k) is None}
    player.serve(_courses(old.courses.values(), own, types, legal))
    if not legal and old.left_spices:  # a spice left that the rules no longer know is dropped too
        spices = (*types, own.wild_spice)
        player.left_spices = tuple([s for s in old.left_spices if s in spices])


def _player_copy(old: Player, removed: Collection[str]) -> Player:
    player = Player(old.name, old.index)
    owned = old.owned
    player.owned = tuple([c for c in owned if c.id not in removed]) if removed and owned else owned
    player.counters = old.counters  # what the record says: scoring never changes it
    player.left_ingredients, player.left_spices = old.left_ingredients, old.left_spices  # likewise
    player.left_recorded = old.left_recorded
    player.params = old.params  # the player's own parameters (game_without reads them again if they change)
    return player


def _rival_copy(old: Player) -> Player:
    rival = Player(old.name, old.index)
    rival.automated, rival.fixed_quality, rival.stars = True, old.fixed_quality, old.stars
    return rival


def _courses(courses: Iterable[Course], rules: MealRules, types: tuple[str, ...], legal: bool) -> dict[str, Course]:
    """The critic courses still legal under ``rules`` (all of them when ``legal``), each with its
    quality before any effect under them."""
    out: dict[str, Course] = {}
    for course in courses:
        served: Ingredient | str = (
            course.token if course.token is not None else Ingredient(course.type, course.value, course.spices)
        )
        if legal or not rules.course_problems(course.type, served, types):
            quality = rules.course_quality(served)
            value = quality if course.token is not None else course.value  # a token course is worth its token
            out[course.type] = Course(course.type, value, course.spices, course.token, quality)
    return out


def _meals(meals: tuple[Meal, ...], game: Game, levels: dict[int, MealLevel]) -> tuple[Meal, ...]:
    """The challenge meals still legal, for the new game's players (``levels``: their meal rules,
    by index, each card's own parameters over them), each with its quality."""
    out: list[Meal] = []
    types = game.ruleset.ingredient_types
    for meal in meals:
        player = game.players[meal.player.index]
        card = meal.card
        own = levels[player.index].for_card(card)
        held = game.challenges[meal.round][-1] is card
        if not own.served_meal_problems(card, meal.ingredients, meal.tokens, held, types):
            quality = own.meal_quality(meal.ingredients, meal.tokens)
            params = own.params if card.parameters else None
            out.append(Meal(meal.round, card, player, meal.ingredients, meal.tokens, quality, params))
    return tuple(out)


class _Changes:
    """What a rescoring changes of the game with every card: the cards removed, the rule
    parameters whose values differ, and what of the state differs from the start (bits)."""

    def __init__(self, removed: frozenset[str], params: frozenset[str], differs: int) -> None:
        self.removed = removed
        self.params = params
        self.differs = differs

    @staticmethod
    def meals() -> _Changes:
        return _Changes(frozenset(), frozenset(), MEALS_BIT)


TIMING_POINT = {"before": 0, "replace": 1, "after": 2}  # each timing's hook point within its stage
STATE_INDEX = {STARS: 0, QUALITY: 1, MEALS: 2}  # each part of the state's place in _Marks.reading, .writing
QUALITY_INDEX = STATE_INDEX[QUALITY]


class _Marks:
    """Where programs are and what they read and write, as bits of hook points (bit n: point n)."""

    def __init__(self) -> None:
        self.points = 0  # where the card has effects
        self.seeing = 0  # where code asks which cards are in play
        self.params: dict[str, int] = {}  # parameter name -> where code reads it
        self.reading = [0, 0, 0]  # by STATE_INDEX: where code reads that part of the state
        self.writing = [0, 0, 0]  # by STATE_INDEX: where code changes it

    def add(self, point: int, code: Compiled | None) -> None:
        if code is None:
            return
        bit = 1 << point
        if code.sees_cards:
            self.seeing |= bit
        for name in code.params_read:
            self.params[name] = self.params.get(name, 0) | bit
        for name in code.state_read:
            self.reading[STATE_INDEX[name]] |= bit
        for name in code.state_written:
            self.writing[STATE_INDEX[name]] |= bit


class _RulesetMarks:
    """What the plans of one ruleset's games share: where each stage's hook points are, the
    marks of the stages' own programs and of each card's effects (made when a card is first
    met: they do not depend on the game), the points of the stages each card declares, and
    what the tie-breaks read. Made once per ruleset: ``ruleset.derived(_RulesetMarks)``."""

    def __init__(self, ruleset: Ruleset) -> None:
        stages = ruleset.stages
        self.stage_index = {stage.name: i for i, stage in enumerate(stages)}
        self.stage_names = [stage.name for stage in stages]
        self.end = len(stages) * POINTS
        self.stage_marks = _Marks()
        self.replace_points = 0  # each stage's body
        self.declaring: dict[str, int] = {}  # card id -> the points of the stages it declares
        for i, stage in enumerate(stages):
            self.stage_marks.add(i * POINTS + TIMING_POINT["replace"], stage.code)
            self.replace_points |= 1 << (i * POINTS + TIMING_POINT["replace"])
            self.declaring[stage.card] = self.declaring.get(stage.card, 0) | 0b111 << (i * POINTS)
        self.cards: dict[Card, _Marks] = {}
        codes = [tb.code for tb in ruleset.tiebreaks if tb.code is not None]
        self.rank_sees = any(code.sees_cards for code in codes)
        self.rank_params = frozenset(p for code in codes for p in code.params_read)
        self.rank_reads = _bits(s for code in codes for s in code.state_read)

    def of(self, card: Card) -> _Marks:
        """The marks of ``card``'s effects."""
        marks = self.cards.get(card)
        if marks is None:
            marks = self.cards[card] = _Marks()
            for effect in card.effects:
                point = self.point(effect.stage, effect.timing)
                if point < self.end:
                    marks.points |= 1 << point
                    marks.add(point, effect.code)
        return marks

    def point(self, stage: str, timing: str) -> int:
        index = self.stage_index.get(stage)
        return self.end if index is None else index * POINTS + TIMING_POINT[timing]


class _Plan:
    """One game's run with every card: its checkpoints, where a removal can start from, and what
    each hook point did, to replay it; and what each hook point's programs read and write.

    Places are hook points, numbered as :func:`~critter_kitchen.stages.runner.run_stages`
    numbers them.
    """

    def __init__(self, game: Game, source: str) -> None:
        marks = self.marks = game.ruleset.derived(_RulesetMarks)
        self.stage_index = marks.stage_index
        self.stage_names = marks.stage_names
        self.end = marks.end
        self._footprints(game)
        self.checkpoints: dict[int, Checkpoint] = {}
        self.spans: list[tuple[int, int, int, int, int, int] | None] = [None] * self.end
        self.qualities: dict[int, _Qualities] = {}
        self.awards: list[Award] = []
        self.order: list[int] | None = None  # the final order of the run with every card (player indexes)
        self.ranks: list[int] = []  # and each one's rank
        self.decided = ""
        # a game no effect has run on holds its courses as read: they need no judging again, and
        # the run with every card is made on it, then it is put back as it was
        as_read = game.steps == 0 and not game.stages_run
        if as_read:
            self.pristine: _MealState = _meal_state(game)
            self.alike = _alike(game, self.pristine)
            whole = game
        else:
            whole = game_without(game, ())
            self.pristine = _meal_state(whole)
            self.alike = _alike(game, self.pristine)
        self.names = {p.name for p in whole.players}
        removable = removable_cards(game)
        self.removable_ids = frozenset(c.id for c in removable)
        self.parameter_cards = frozenset(c.id for c in removable if c.parameters)
        # where removing each card alone starts (the meals as they are), and the parameters it changes
        self.alone = {card.id: self._alone(game, card) for card in removable}
        wanted = 0
        for first, _ in self.alone.values():
            wanted |= 1 << first
        if game.challenges:
            wanted |= 1 << self.first_point(frozenset(), frozenset(), MEALS_BIT)
        # the work of each removable card's before and after effects, to replay a point without them
        self.work: dict[int, dict[str, int]] = {}
        probed = 0
        for card in removable:
            probed |= marks.of(card).points
        recorder = _Recorder(self, wanted & ~1, probed & ~marks.replace_points, source)
        self.tables = hook_tables(whole)
        self._shared_tables()
        before = game.checkpoint() if as_read else None
        try:
            run_stages(whole, source, 0, recorder.pause, self.tables)
            recorder.finish(whole)
            standings, self.decided = rank(whole)
        except (InputError, EvaluationError):
            # the whole game cannot be scored: every removal starts afresh, nothing is replayed
            self.checkpoints, self.spans, self.qualities = {}, [None] * self.end, {}
            return
        finally:
            awards = whole.awards
            if before is not None:  # the game as read again: what the run changed, put back
                game.resume(before)
                game.unsettled, game.changes = [], []
        self.awards = awards
        self.order = [s.player.index for s in standings]
        self.ranks = [s.rank for s in standings]  # shared by the players who share a win

    def _shared_tables(self) -> None:
        """The hook tables' lists in stage order, each with the card ids in it when no held card
        is (a removal without those cards shares it: run_stages only reads them); and the holders
        of the cards that declare stages, the only ones run_stages looks up."""
        hooks, holders = self.tables
        index = self.stage_index
        listed: list[
            tuple[int, tuple[str, str], list[tuple[Card, Player | None, Compiled | None]], frozenset[str] | None]
        ] = []
        for key, entries in hooks.items():
            stage = index.get(key[0])
            if stage is not None:  # no such stage: never looked up
                ids = frozenset(c.id for c, _, _ in entries) if all(o is None for _, o, _ in entries) else None
                listed.append((stage, key, entries, ids))
        listed.sort(key=_stage_of)
        self.hook_list = listed
        self.hooks_from = [0] * (len(self.stage_names) + 1)  # stage index -> the first of its lists
        at = len(listed)
        for stage in range(len(self.stage_names), -1, -1):
            while at > 0 and listed[at - 1][0] >= stage:
                at -= 1
            self.hooks_from[stage] = at
        declaring = self.marks.declaring
        self.holder_list = [
            (card_id, entries, all(o is None for _, o in entries))
            for card_id, entries in holders.items()
            if card_id in declaring
        ]

    def rescore(self, fresh: Game, source: str, first: int, changes: _Changes | None) -> Result:
        """Score ``fresh`` from hook point ``first`` on (its checkpoint, or 0), replaying what
        ``changes`` leave as it was (``changes`` None: run everything)."""
        start = max((p for p in self.checkpoints if p <= first), default=0)
        if start:
            fresh.resume(self.checkpoints[start])
        if changes is None or self.order is None or len(self.names) != len(fresh.players):
            run_stages(fresh, source, start)
            return _ranked(fresh)
        replay = _Replay(self, fresh, changes, start)
        run_stages(fresh, source, start, replay.pause, self.tables_for(fresh, changes.removed, start))
        replay.settle(self.end)
        if self.ranks_alike(replay.differs, changes):
            return self._ranked_as_before(fresh)
        return _ranked(fresh)

    def ranks_alike(self, differs: int, changes: _Changes) -> bool:
        """Whether the tie-breaks give every player what they gave in the run with every card."""
        marks = self.marks
        return not (
            differs & marks.rank_reads or (changes.removed and marks.rank_sees) or changes.params & marks.rank_params
        )

    def tables_for(self, fresh: Game, removed: frozenset[str], start: int = 0) -> HookTables:
        """``fresh``'s hook tables from hook point ``start`` on (what run_stages looks up from
        there): the run's with every card, without the cards ``removed``, each held card's owner
        the player of ``fresh``. A list with no held card and none of the cards ``removed`` is the
        run's own (run_stages only reads them)."""
        players = fresh.players
        fresh_hooks: Hooks = {}
        for _, key, entries, ids in self.hook_list[self.hooks_from[start // POINTS] :]:
            if ids is not None and not ids & removed:
                fresh_hooks[key] = entries
            else:
                fresh_hooks[key] = [
                    (c, None if o is None else players[o.index], code) for c, o, code in entries if c.id not in removed
                ]
        fresh_holders: Holders = {}
        for card_id, held, on_table in self.holder_list:
            if card_id not in removed:
                fresh_holders[card_id] = (
                    held if on_table else [(c, None if o is None else players[o.index]) for c, o in held]
                )
        return fresh_hooks, fresh_holders

    def first_point(self, removed: frozenset[str], changed: frozenset[str], differs: int) -> int:
        """The first hook point whose outcome can depend on the removal: where it must start."""
        points = self.forced(removed, changed) | self.depending[differs]
        return (points & -points).bit_length() - 1 if points else self.end

    def forced(self, removed: frozenset[str], changed: frozenset[str]) -> int:
        """The hook points (bits) that must run when ``removed`` are removed, changing the
        parameters ``changed``, whatever else differs: where the cards have effects or
        stages, where code asks which cards are in play, where it reads those parameters."""
        points = self.seeing if removed else 0
        for card_id in removed:
            points |= self.card_points.get(card_id, 0)
        for name in changed:
            points |= self.param_points.get(name, 0)
        return points

    def _depending(self, differs: int) -> int:
        """The hook points (bits) that cannot be replayed when what ``differs`` differs: their
        code reads it, or changes course qualities that differ already."""
        points = self.quality_writing if differs & QUALITY_BIT else 0
        for bit, reading in self.reading.items():
            if differs & bit:
                points |= reading
        return points

    def writes_at(self, point: int) -> int:
        """What of the state (bits) the programs at hook point ``point`` change."""
        bits = 0
        for bit, writing in self.writing.items():
            if writing >> point & 1:
                bits |= bit
        return bits

    def _alone(self, game: Game, card: Card) -> tuple[int, frozenset[str]]:
        """Where removing ``card`` alone starts, if the meals stay as they are, and the rule
        parameters it changes."""
        if not card.parameters:  # as first_point: where it has effects or stages, where code sees cards
            points = self.seeing | self.card_points.get(card.id, 0) | self.depending[0]
            return (points & -points).bit_length() - 1 if points else self.end, frozenset()
        changed: set[str] = set()
        if card in game.table_cards:
            rest = table_parameters(game.ruleset, [c for c in game.table_cards if c is not card])
            changed = changed_parameters(game.params, rest)
        for player in game.players:  # a held card's parameters are its owner's
            if card in player.owned:
                rest = held_parameters(game.params, [c for c in player.owned if c is not card])
                changed |= changed_parameters(player_params(game, player), rest)
        return self.first_point(frozenset((card.id,)), frozenset(changed), 0), frozenset(changed)

    def _footprints(self, game: Game) -> None:
        """As bits of hook points: where each card in play has effects or stages, where code
        asks which cards are in play, reads each parameter, reads and changes each part of the
        state; from the marks of the ruleset's stages and of each card in play."""
        marks = self.marks
        stage_marks = marks.stage_marks
        seeing = stage_marks.seeing
        params = dict(stage_marks.params)
        reading, writing = list(stage_marks.reading), list(stage_marks.writing)
        self.card_points: dict[str, int] = {}
        self.quality_cards: dict[str, int] = {}  # card id -> the points where its effects change qualities
        for card, _ in game.cards_in_play():
            if card.id in self.card_points:
                continue  # held by several players: the same marks
            card_marks = marks.of(card)
            self.card_points[card.id] = card_marks.points | marks.declaring.get(card.id, 0)
            seeing |= card_marks.seeing
            for name, points in card_marks.params.items():
                params[name] = params.get(name, 0) | points
            for i in range(len(reading)):
                reading[i] |= card_marks.reading[i]
                writing[i] |= card_marks.writing[i]
            if card_marks.writing[QUALITY_INDEX]:
                self.quality_cards[card.id] = card_marks.writing[QUALITY_INDEX]
        self.seeing = seeing
        self.param_points = params
        self.reading = {bit: reading[STATE_INDEX[name]] for name, bit in STATE_BITS.items()}
        self.writing = {bit: writing[STATE_INDEX[name]] for name, bit in STATE_BITS.items()}
        self.quality_writing = writing[QUALITY_INDEX]
        # by what differs (bits): the points that cannot be replayed (as _depending says)
        self.depending = depending = [0] * (1 << len(STATE_BITS))
        for differs in range(1, len(depending)):
            low = differs & -differs
            alone = self.reading[low] | (self.quality_writing if low == QUALITY_BIT else 0)
            depending[differs] = depending[differs ^ low] | alone

    def declared(self, removed: frozenset[str]) -> int:
        """The hook points (bits) of the stages the cards ``removed`` declare."""
        points = 0
        declaring = self.marks.declaring
        for card_id in removed:
            points |= declaring.get(card_id, 0)
        return points

    def _ranked_as_before(self, fresh: Game) -> Result:
        """The result of ``fresh`` when nothing the ranking reads differs from the run with every
        card: its players in that run's order."""
        assert self.order is not None
        everyone = {p.index: p for p in (*fresh.players, *fresh.rivals)}
        order = [everyone[i] for i in self.order]
        ranks = self.ranks
        standings = [Standing(ranks[i], p, p.stars, p.critic_quality()) for i, p in enumerate(order)]
        return Result(fresh, standings, self.decided, notes_of(fresh))


def _stage_of(entry: tuple[int, Any, Any, Any]) -> int:
    return int(entry[0])


def _bits(names: Iterable[str]) -> int:
    bits = 0
    for name in names:
        bits |= STATE_BITS[name]
    return bits


class _Recorder:
    """Records the run with every card as it goes: checkpoints, and what each hook point did."""

    def __init__(self, plan: _Plan, wanted: int, probed: int, source: str) -> None:
        self.plan = plan
        self.wanted = wanted  # the points (bits) to make checkpoints at
        self.probed = probed  # the before and after points (bits) whose effects' work is kept, card by card
        self.source = source
        self.last = -1
        # awards, steps and award groups as the last point began
        self.awards = self.steps = self.groups = 0

    def pause(self, game: Game, point: int) -> bool:
        if self.last >= 0:
            self._close(game)
        self.last, self.awards, self.steps, self.groups = point, len(game.awards), game.steps, game._groups
        # where no program has run yet (each takes a step at least), the game is as it begins: a
        # removal starts at 0 instead
        if self.wanted >> point & 1 and (game.steps or game.stages_run or game.awards):
            self.plan.checkpoints[point] = game.checkpoint()
        if self.probed >> point & 1:
            self._run_probed(game, point)
            return True  # it ran here
        return False  # every point runs

    def _run_probed(self, game: Game, point: int) -> None:
        """Run before or after point ``point`` as run_stages would, keeping the work each card's effects took."""
        plan = self.plan
        stage = plan.stage_names[point // POINTS]
        timing = "before" if point % POINTS == TIMING_POINT["before"] else "after"
        effects = plan.tables[0].get((stage, timing), [])
        work: list[int] = []
        run_hook_point(game, self.source, stage, effects, work)
        by_card: dict[str, int] = {}
        for (card, _, _), steps in zip(effects, work, strict=True):
            by_card[card.id] = by_card.get(card.id, 0) + steps
        plan.work[point] = by_card

    def finish(self, game: Game) -> None:
        if self.last >= 0:
            self._close(game)
        if self.wanted >> self.plan.end & 1:  # a removal that changes nothing: it starts at the end
            self.plan.checkpoints[self.plan.end] = game.checkpoint()

    def _close(self, game: Game) -> None:
        """What the last point did, now that it has ended."""
        last, plan, steps, groups = self.last, self.plan, self.steps, self.groups
        plan.spans[last] = (self.awards, len(game.awards), game.steps - steps, groups, game._groups - groups, steps)
        if plan.quality_writing >> last & 1:
            plan.qualities[last] = _qualities(game)


class _Replay:
    """One rescoring's choice at each hook point: run it, or give again what it did in the run
    with every card; and what differs from that run so far."""

    def __init__(self, plan: _Plan, fresh: Game, changes: _Changes, start: int) -> None:
        self.plan = plan
        self.fresh = fresh
        self.differs = changes.differs
        self.forced = plan.forced(changes.removed, changes.params)
        self.removed = changes.removed
        # the points where only the removed cards' own effects differ: the others' are replayed
        self.apart = plan.forced(changes.removed, frozenset()) & ~plan.forced(frozenset(), changes.params)
        if changes.removed:
            self.apart &= ~plan.seeing & ~plan.declared(changes.removed)
        for card_id in changes.removed:
            self.apart &= ~plan.quality_cards.get(card_id, 0)
        self.last = start - 1  # the last point this run reached
        self.ran = -1  # the point that ran, if the last one did
        self.ran_awards = 0  # the awards before it
        self.players = {p.name: p for p in fresh.players}

    def pause(self, game: Game, point: int) -> bool:
        if self.ran >= 0 or self.last + 1 != point:
            self.settle(point)
        else:
            self.last = point  # the next point after one replayed: nothing to account for
        plan, differs = self.plan, self.differs
        span = plan.spans[point]
        # code that reads what differs, or changes qualities that differ already, runs
        if span is None or plan.depending[differs] >> point & 1 or self._over(span):
            return self._run(point)
        if self.forced >> point & 1:
            if not self.apart >> point & 1 or point % POINTS == TIMING_POINT["replace"]:
                return self._run(point)
            used = self._probe(point)
            if self.fresh.steps + span[2] - used > STEP_BUDGET:
                return self._run(point)
            self._replay_apart(point, span, used)
            return True
        self._replay(point, span)
        return True

    def _run(self, point: int) -> bool:
        self.ran, self.ran_awards = point, len(self.fresh.awards)
        return False

    def _probe(self, point: int) -> int:
        """The work the removed cards' effects at ``point`` took in the run with every card, where
        they read what they read here (nothing they read differs): the same work."""
        work = self.plan.work[point]
        return sum(work.get(card_id, 0) for card_id in self.removed)

    def _replay_apart(self, point: int, span: tuple[int, int, int, int, int, int], used: int) -> None:
        """Replay ``point`` without what the removed cards' effects did at it (work ``used``): the
        other effects read what they read in the run with every card, and ran in the same order."""
        first, last, steps, _, _, _ = span
        plan, fresh, players, removed = self.plan, self.fresh, self.players, self.removed
        renumbered: dict[int, int] = {}  # each remaining award statement's group, numbered on from this game's
        awards = fresh.awards
        for award in plan.awards[first:last]:
            if award.card in removed:
                self.differs |= STARS_BIT
                continue
            group = renumbered.setdefault(award.group, fresh._groups + len(renumbered) + 1)
            if group != award.group:
                award = _regrouped(award, group)
            awards.append(award)
            player = players[award.player]
            player.stars += award.stars
            player.stage_stars[award.stage] = player.stage_stars.get(award.stage, 0) + award.stars
        fresh.steps += steps - used
        fresh._groups += len(renumbered)
        if plan.quality_writing >> point & 1:
            _set_qualities(fresh, plan.qualities[point])

    def settle(self, point: int) -> None:
        """Account for the points between the last one and ``point``: what the last one changed if
        it ran, and the writes of the points of the run with every card that this run skipped
        (the stages of a removed card)."""
        plan = self.plan
        if self.ran >= 0:
            self._compare(self.ran)
            self.ran = -1
        for skipped in range(self.last + 1, point):
            if plan.spans[skipped] is not None:
                self.differs |= plan.writes_at(skipped)
        self.last = point

    def _compare(self, point: int) -> None:
        """What differs after point ``point`` ran: its awards' stars, the course qualities."""
        plan, fresh = self.plan, self.fresh
        span = plan.spans[point]
        assert span is not None
        if not self.differs & STARS_BIT:
            before = [(a.player, a.stage, a.stars) for a in plan.awards[span[0] : span[1]]]
            if before != [(a.player, a.stage, a.stars) for a in fresh.awards[self.ran_awards :]]:
                self.differs |= STARS_BIT
        if plan.quality_writing >> point & 1 and not self.differs & QUALITY_BIT:
            if _qualities(fresh) != plan.qualities[point]:
                self.differs |= QUALITY_BIT

    def _over(self, span: tuple[int, int, int, int, int, int]) -> bool:
        """Whether replaying would take the game past its work or award budget: then it runs, and says so."""
        fresh = self.fresh
        return fresh.steps + span[2] > STEP_BUDGET or len(fresh.awards) + span[1] - span[0] > MAX_AWARDS

    def _replay(self, point: int, span: tuple[int, int, int, int, int, int]) -> None:
        """Give the game what point ``point`` gave the run with every card: its awards (their
        groups numbered on from this game's), their stars, its work, its course qualities."""
        first, last, steps, groups, made, _ = span
        plan, fresh, players = self.plan, self.fresh, self.players
        shift = fresh._groups - groups
        awards = fresh.awards
        for award in plan.awards[first:last]:
            if shift:
                award = _regrouped(award, award.group + shift)
            awards.append(award)
            player = players[award.player]
            player.stars += award.stars
            player.stage_stars[award.stage] = player.stage_stars.get(award.stage, 0) + award.stars
        fresh.steps += steps
        fresh._groups += made
        if plan.quality_writing >> point & 1:
            _set_qualities(fresh, plan.qualities[point])
        if point % POINTS == TIMING_POINT["replace"]:
            fresh.stages_run.append(plan.stage_names[point // POINTS])


def _regrouped(a: Award, group: int) -> Award:
    return Award(a.player, a.stage, a.stars, a.card, a.reason, a.value, group, a.tied)


def _qualities(game: Game) -> _Qualities:
    return tuple(tuple(c.quality for c in p.courses.values()) for p in game.players)


def _set_qualities(game: Game, qualities: _Qualities) -> None:
    for player, values in zip(game.players, qualities, strict=True):
        for course, quality in zip(player.courses.values(), values, strict=True):
            course.quality = quality


def _ranked(game: Game) -> Result:
    standings, decided = rank(game)
    return Result(game, standings, decided, notes_of(game))


def _meal_state(game: Game) -> _MealState:
    """What the meals of an unscored game are: every course and meal served, with its quality, and the tokens kept."""
    players = tuple(
        (tuple(p.tokens.items()), tuple((k, c.quality) for k, c in p.courses.items())) for p in game.players
    )
    meals = tuple((rnd, tuple((m.player.index, m.card.id, m.quality) for m in ms)) for rnd, ms in game.meals.items())
    return (players, meals)


def _changed_for_anyone(game: Game, fresh: Game) -> set[str]:
    """The rule parameters whose values differ between ``game`` and ``fresh`` (the same players
    without some cards), for everyone or for any one player."""
    changed = changed_parameters(game.params, fresh.params)
    for old, new in zip(game.players, fresh.players, strict=True):
        if old.params is not None or new.params is not None:
            changed |= changed_parameters(player_params(game, old), player_params(fresh, new))
    return changed


def changed_parameters(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """The names of the parameters whose values differ."""
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _plan(game: Game, source: str) -> _Plan:
    if not isinstance(game.rescoring, _Plan):
        game.rescoring = _Plan(game, source)
    return game.rescoring

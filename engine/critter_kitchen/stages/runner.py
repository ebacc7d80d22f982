"""The stage runner: each stage in order, with the effects hooked before, instead of and after it."""

from __future__ import annotations

from ..dsl.budget import charge
from ..dsl.changes import ConflictingSet, apply_changes
from ..dsl.frame import Frame
from ..errors import EvaluationError, InputError, Problem
from ..model.ruleset import kind_ranks
from ..values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Final

    from ..dsl.changes import Change
    from ..dsl.program import Compiled
    from ..model.game import Award, Game, Player, QualityChange
    from ..model.ruleset import Card, Stage

    Hooks = dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]]
    Holders = dict[str, list[tuple[Card, Player | None]]]
    HookTables = tuple[Hooks, Holders]


class Standing(Value):
    """One player's place in the final order."""

    _fields = ("rank", "player", "stars", "critic_quality")
    __slots__ = _fields

    def __init__(self, rank: int, player: Player, stars: int, critic_quality: int) -> None:
        self.rank = rank
        self.player = player
        self.stars = stars
        self.critic_quality = critic_quality


class Result:
    """The outcome of one game: standings, every award, the winners and how the win was decided.

    ``winners``: every winner, in priority order; one, unless the ranking ends a tie on
    every key with a shared win. ``winner``: the first of them. ``decided_by``: the label
    of the ranking key that decided first place, or of the ending (the priority track, or
    a shared win)."""

    def __init__(self, game: Game, standings: list[Standing], decided_by: str, notes: list[str]) -> None:
        self.game = game
        self.standings = standings
        self.decided_by = decided_by
        self.notes = notes

    @property
    def winner(self) -> Player:
        """The first of :attr:`winners`."""
        return self.standings[0].player

    @property
    def winners(self) -> list[Player]:
        """Every winner, in priority order: one, unless the ranking ends a tie on every key
        with a shared win. The winners are the players ranked 1 (no one else shares a rank)."""
        standings = self.standings
        if len(standings) < 2 or standings[1].rank != 1:
            return [standings[0].player]
        return [s.player for s in standings if s.rank == 1]

    @property
    def awards(self) -> list[Award]:
        return self.game.awards


def _run(code: Compiled | None, game: Game, card: Card, stage: str, owner: Player | None) -> None:
    if code is None:
        return
    frame = Frame(game, card, stage, owner, code.slots)
    charge(frame, code.steps)
    try:
        code.execute(frame)
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        # The type checker should make this unreachable; if not, say where, never a traceback.
        raise EvaluationError(f"{card.path}: card '{card.id}' failed at stage '{stage}': {e}") from e


POINTS: Final = 3  # hook points of a stage: before (0), its body or the card replacing it (1), after (2)


def run_stages(
    game: Game,
    source: str = "",
    start: int = 0,
    pause: Callable[[Game, int], bool] | None = None,
    tables: HookTables | None = None,
) -> None:
    """Run every stage of the ruleset on ``game``, recording awards and changing qualities.

    Each stage has three hook points: its ``before`` effects, its body (or the card that
    replaces it), its ``after`` effects. The effects of one hook point run in a canonical
    order (card kind, card id, owner), never the record's, and read the game as the hook
    point began; what they change is applied when it ends (see :func:`_end_hook_point`).

    Hook points are numbered through the game: ``POINTS * i + k`` is point k of
    ``ruleset.stages[i]``. ``start``: the point to begin at, the game holding the state the
    points before it left (see stages/rescore.py); ``pause(game, n)`` is called as point n
    is about to run, for every point of a stage in this game. When it returns True, point n
    is not run: ``pause`` has done to the game what the point does (rescoring replays a
    point whose outcome it knows), the stage's name in ``stages_run`` included. ``tables``:
    the game's :func:`hook_tables`, when the caller has them.
    """
    hooks, holders = tables if tables is not None else hook_tables(game)
    stages = game.ruleset.stages
    for index in range(start // POINTS, len(stages)):
        stage = stages[index]
        declared = holders.get(stage.card)
        if declared is None:
            continue  # the card that declares the stage is not in play: no such stage in this game
        point = index * POINTS
        skip = start - point  # the points of this stage already run
        if skip <= 0 and (pause is None or not pause(game, point)):
            for card, owner, code in hooks.get((stage.name, "before"), ()):
                _run(code, game, card, stage.name, owner)
            _end_hook_point(game, source)
        if skip <= 1 and (pause is None or not pause(game, point + 1)):
            _run_body(game, source, stage, declared, hooks.get((stage.name, "replace"), []))
            game.stages_run.append(stage.name)
            _end_hook_point(game, source)
        if pause is None or not pause(game, point + 2):
            for card, owner, code in hooks.get((stage.name, "after"), ()):
                _run(code, game, card, stage.name, owner)
            _end_hook_point(game, source)


def run_hook_point(
    game: Game, source: str, stage: str, effects: list[tuple[Card, Player | None, Compiled | None]], work: list[int]
) -> None:
    """Run the ``effects`` of a before or after hook point of ``stage`` and end it, as
    :func:`run_stages` does; ``work`` gets the steps each effect took, in order (rescoring
    replays a hook point without one card's effects, see stages/rescore.py)."""
    for card, owner, code in effects:
        steps = game.steps
        _run(code, game, card, stage, owner)
        work.append(game.steps - steps)
    _end_hook_point(game, source)


def _run_body(
    game: Game,
    source: str,
    stage: Stage,
    declared: list[tuple[Card, Player | None]],
    replacing: list[tuple[Card, Player | None, Compiled | None]],
) -> None:
    """The stage's own program, or the one card's that replaces it."""
    if len(replacing) > 1:
        names = ", ".join(c.id for c, _, _ in replacing)
        raise InputError(
            [Problem(source, 0, 0, f"cards {names} all replace stage '{stage.name}'", "CK205", where="cards")]
        )
    if replacing:
        card, owner, code = replacing[0]
        _run(code, game, card, stage.name, owner)
    else:
        for card, owner in declared:  # a held card's stage runs once for each player holding it
            _run(stage.code, game, card, stage.name, owner)


def hook_tables(game: Game) -> HookTables:
    """What :func:`run_stages` runs for ``game``: the effects by (stage, timing), the holders by card id."""
    return _hooks(game), _holders(game)


def _holders(game: Game) -> dict[str, list[tuple[Card, Player | None]]]:
    """Card id -> the card with each of its owners (None on the table), for every card in play."""
    holders: dict[str, list[tuple[Card, Player | None]]] = {}
    for card, owner in game.cards_in_play():
        held = holders.get(card.id)
        if held is None:
            holders[card.id] = [(card, owner)]
        elif (card, owner) not in held:
            held.append((card, owner))
    return holders


def _hooks(game: Game) -> dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]]:
    """The effects in play by (stage, timing), each list in canonical order: card kind, card id, owner.

    Each card's place in that order by kind and id is the ruleset's (made once): a game sorts
    numbers, place, owner and place in play in one, rather than tuples of them. A card the
    ruleset does not hold as it is, or an owner outside the game's players, is sorted by
    :func:`hooks_in_order`, the definition of the order.
    """
    places = game.ruleset.scoring().places
    in_play = game.cards_in_play()
    count = len(in_play)
    width = len(game.players) + len(game.rivals) + 1  # owner index + 1, 0 for the table
    keys: list[int] = []
    for n, (card, owner) in enumerate(in_play):
        known = places.get(card.id)
        who = owner.index + 1 if owner is not None else 0
        if known is None or known[1] is not card or not 0 <= who < width:
            return hooks_in_order(game)
        if known[2]:  # a card without effects is in no list
            keys.append((known[0] * width + who) * count + n)
    keys.sort()  # distinct numbers: the order of (place, owner, place in play)
    hooks: dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]] = {}
    for key in keys:
        card, owner = in_play[key % count]
        for point, code in places[card.id][2]:
            entries = hooks.get(point)
            if entries is None:
                hooks[point] = [(card, owner, code)]
            else:
                entries.append((card, owner, code))
    return hooks


def hooks_in_order(game: Game) -> dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]]:
    """What :func:`_hooks` gives, by sorting the cards in play by (kind, id, owner, place in play)."""
    kinds = kind_ranks(game.ruleset)
    other = len(kinds)
    # Sorted by (kind, id, owner, place in play): the place keeps the sort stable without a key function.
    in_play = sorted(
        (kinds.get(card.kind, other), card.id, owner.index if owner is not None else -1, n, card, owner)
        for n, (card, owner) in enumerate(game.cards_in_play())
    )
    hooks: dict[tuple[str, str], list[tuple[Card, Player | None, Compiled | None]]] = {}
    for _, _, _, _, card, owner in in_play:
        for effect in card.effects:
            hooks.setdefault((effect.stage, effect.timing), []).append((card, owner, effect.code))
    return hooks


def _end_hook_point(game: Game, source: str) -> None:
    """Apply what the hook point's effects did: the stars of their awards, then their changes in layers."""
    if game.unsettled:
        game.settle_awards()
    if not game.changes:
        return
    changes, game.changes = game.changes, []
    try:
        if game.trace is None:
            apply_changes(changes)
        else:
            _apply_traced(game, changes, game.trace)
    except ConflictingSet as e:
        raise InputError([Problem(source, 0, 0, str(e), "CK209", where="cards")]) from None


def _apply_traced(game: Game, changes: list[Change], trace: list[QualityChange]) -> None:
    """:func:`apply_changes`, one quantity at a time (each quantity's layers are its own, so
    the outcome is the same), adding to ``trace`` what each did to the course qualities."""
    groups: dict[tuple[str, tuple[Any, ...]], list[Change]] = {}
    for change in changes:
        groups.setdefault((change.fn.name, change.args), []).append(change)
    for group in groups.values():
        before = _course_qualities(game)
        apply_changes(group)
        by = tuple((c.frame.card.id, c.how, c.amount) for c in group)
        stage = str(group[0].frame.stage)
        for (name, kind), quality in _course_qualities(game).items():
            if before[(name, kind)] != quality:
                trace.append((name, kind, before[(name, kind)], quality, stage, by))


def _course_qualities(game: Game) -> dict[tuple[str, str], int]:
    qualities: dict[tuple[str, str], int] = {}
    for player in game.players:
        for kind, course in player.courses.items():
            qualities[(player.name, kind)] = course.quality
    return qualities


def _index(p: Player) -> int:
    return p.index


def rank(game: Game) -> tuple[list[Standing], str]:
    """Order the players by the ruleset's ranking keys, then priority; say what decided first place.

    When the ranking ends a tie on every key with a shared win, the players tied with the
    first on every key share rank 1 (listed in priority order), the next is ranked after
    all of them, and what decided is the ending's label."""
    rules_card = game.cards_in_play()[0][0]
    everyone = (*game.players, *game.rivals) if not game.rivals else sorted((*game.players, *game.rivals), key=_index)
    frames = []
    for tb in game.ruleset.tiebreaks:
        assert tb.code is not None
        frames.append((tb.code, Frame(game, rules_card, "ranking", None, tb.code.slots)))
    try:
        keys = {p: _rank_key(p, frames) for p in everyone}
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        # As for a stage's effects: the checker should make this unreachable; if not, no traceback.
        raise EvaluationError(f"{rules_card.path}: a tie-break of card '{rules_card.id}' failed: {e}") from e
    order = sorted(everyone, key=keys.__getitem__, reverse=True)
    standings = [Standing(i + 1, p, p.stars, p.critic_quality()) for i, p in enumerate(order)]
    if len(order) == 1:
        return standings, "the only player"
    scoring = game.ruleset.scoring()
    first, second = keys[order[0]], keys[order[1]]
    if scoring.shared and first[:-1] == second[:-1]:  # tied on every key but the priority order
        for standing in standings[1:]:
            if keys[standing.player][:-1] != first[:-1]:
                break
            standing.rank = 1
        return standings, scoring.labels[-1]
    return standings, _decided_by(first, second, scoring.labels)


def _decided_by(first: tuple[Any, ...], second: tuple[Any, ...], labels: list[str]) -> str:
    """The label of the first tie-break (or the priority order) on which the two keys differ."""
    for i in range(len(first)):
        if first[i] != second[i]:
            return labels[i]
    raise AssertionError("two players with one key")  # unreachable: the priority order tells them apart


def _rank_key(p: Player, frames: list[tuple[Compiled, Frame]]) -> tuple[Any, ...]:
    values = []
    for code, frame in frames:
        frame.slots[0] = p
        values.append(code.execute(frame))
    values.append(-p.index)
    return tuple(values)


def score_game(game: Game, source: str = "", trace: bool = False) -> Result:
    """Score a checked game: run the stages, rank the players. ``trace``: keep what effects
    did to each course's quality (``game.trace``, for the explanation of the result)."""
    if trace:
        game.trace = []
    run_stages(game, source)
    standings, decided = rank(game)
    return Result(game, standings, decided, notes_of(game))


def notes_of(game: Game) -> list[str]:
    """What the result must say of the rules in force: each unverified parameter value in use."""
    params = game.params
    return [note for name, value, note in game.ruleset.scoring().unverified if params.get(name) == value]

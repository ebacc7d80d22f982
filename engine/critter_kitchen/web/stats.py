"""Statistics over the kept games, read from their stored results only.

Every figure comes from what the engine answered when the game was saved (its standings
and awards) and from which cards the record put in play, but one: what a challenge card's
meals earned (the rules card gives those awards), which the balance lab's rule credits to
the card (``stages.credit``: the game scored again without its meals). The
pages and the JSON API both show these, so they cannot disagree.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict, defaultdict
from fractions import Fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from .store import StoredGame

DIGITS = 3  # averages and rates are rounded to this many decimals


def player_stats(name: str, games: Iterable[StoredGame]) -> dict[str, Any] | None:
    """One player's record over ``games`` (those they played), or None if they played none.

    ``stars_per_stage`` averages each stage's stars over all their games (a game where a
    stage gave them nothing counts as 0). The frequent rival shared the most games with
    them; the toughest rival finished ahead of them most often. Ties go to the name first
    in alphabetical order.
    """
    played = [(g, s) for g in games if (s := _standing(g.result, name)) is not None]
    # wins: the games they won, alone or sharing the win; win_rate counts a win shared by k
    # players as 1/k of a win, as the balance lab does
    if not played:
        return None
    count = len(played)
    won = [winners_of(g.result) for g, _ in played]
    wins = sum(1 for names in won if name in names)
    shared_wins = sum(1 for names in won if name in names and len(names) > 1)
    share = sum(Fraction(1, len(names)) for names in won if name in names)
    stage_stars: Counter[str] = Counter()
    shared: Counter[str] = Counter()
    ahead: Counter[str] = Counter()
    for game, mine in played:
        for award in game.result.get("awards", []):
            if award.get("player") == name:
                stage_stars[award["stage"]] += award["stars"]
        for other in game.result.get("standings", []):
            if other["name"] != name:
                shared[other["name"]] += 1
                ahead[other["name"]] += other["rank"] < mine["rank"]
    best_game, best = max(played, key=lambda gs: (gs[1]["stars"], -gs[1]["rank"], gs[0].id))
    return {
        "name": name,
        "games": count,
        "wins": wins,
        "shared_wins": shared_wins,
        "win_rate": round(float(share / count), DIGITS),
        "stars_mean": round(sum(s["stars"] for _, s in played) / count, DIGITS),
        "stars_per_stage": {stage: round(stars / count, DIGITS) for stage, stars in sorted(stage_stars.items())},
        "best_game": {"id": best_game.id, "stars": best["stars"], "rank": best["rank"], "created": best_game.created},
        "frequent_rival": _rival(shared, shared, "games"),
        "toughest_rival": _rival(ahead, shared, "ahead"),
    }


def winners_of(result: Any) -> list[str]:
    """The winners of a kept result: its ``winners``, or (a result kept before there were
    shared wins) its ``winner`` alone."""
    winners = result.get("winners")
    if isinstance(winners, list) and winners:
        return [str(w) for w in winners]
    return [str(result.get("winner", ""))]


def _standing(result: Any, name: str) -> dict[str, Any] | None:
    return next((s for s in result.get("standings", []) if s.get("name") == name), None)


def _rival(counts: Counter[str], shared: Counter[str], key: str) -> dict[str, Any] | None:
    """The rival with the highest count (ties: by name), with the games shared; None if all are 0."""
    ranked = sorted((-n, rival) for rival, n in counts.items() if n > 0)
    if not ranked:
        return None
    rival = ranked[0][1]
    out: dict[str, Any] = {"name": rival, "games": shared[rival]}
    if key != "games":
        out[key] = counts[rival]
    return out


def card_stats(
    games: Iterable[StoredGame], credit: Callable[[StoredGame], dict[str, tuple[int, int]]] | None = None
) -> list[dict[str, Any]]:
    """Per card, over ``games``: in how many it was in play, the awards and stars it gave, its
    stars per game in play, and (for cards a player holds) how often its holder won.

    A card is in play when the record names it (challenges, critic, rumors, a player's
    restaurateur) or when one of its awards was given (a pack's rules card). ``credit`` gives,
    for a game, card id -> (awards, stars) of the cards whose meals earned awards
    the rules card gave (see :func:`challenge_credit`).
    """
    in_play: Counter[str] = Counter()
    awards: Counter[str] = Counter()
    stars: Counter[str] = Counter()
    held: Counter[str] = Counter()
    holder_won: dict[str, Fraction] = {}  # a win shared by k players counts 1/k
    for game in games:
        named = set(cards_named(game.record))
        for award in game.result.get("awards", []):
            awards[award["card"]] += 1
            stars[award["card"]] += award["stars"]
            named.add(award["card"])
        for card, (given, earned) in (credit(game) if credit is not None else {}).items():
            awards[card] += given
            stars[card] += earned
        in_play.update(named)
        winners = winners_of(game.result)
        for player, card in held_cards(game.record):
            held[card] += 1
            holder_won[card] = holder_won.get(card, Fraction(0)) + (
                Fraction(1, len(winners)) if player in winners else 0
            )
    return [
        {
            "id": card,
            "games": n,
            "awards": awards[card],
            "stars": stars[card],
            "stars_per_game": round(stars[card] / n, DIGITS),
            "holder_win_rate": round(float(holder_won[card] / held[card]), DIGITS) if held[card] else None,
        }
        for card, n in sorted(in_play.items())
    ]


def cards_named(record: Any) -> list[str]:
    """The card ids a (legal) record puts on the table: its challenges, critic and rumors, and held cards."""
    cards = record.get("cards") or {}
    named: list[str] = [c for day in (cards.get("challenges") or {}).values() for c in day]
    if isinstance(cards.get("critic"), str):
        named.append(cards["critic"])
    named += cards.get("rumors") or []
    named += [card for _, card in held_cards(record)]
    return named


def held_cards(record: Any) -> list[tuple[str, str]]:
    """``(player, card)`` for each card a player of the record holds (a restaurateur)."""
    return [(p["name"], p["restaurateur"]) for p in record.get("players", []) if isinstance(p.get("restaurateur"), str)]


def per_stage_totals(result: Any) -> dict[str, dict[str, int]]:
    """A result's stars by player, then by stage (the stage-by-player table)."""
    table: dict[str, dict[str, int]] = defaultdict(dict)
    for award in result.get("awards", []):
        row = table[award["player"]]
        row[award["stage"]] = row.get(award["stage"], 0) + award["stars"]
    return dict(table)


def challenge_credit(rulesets: Any, record: Any) -> dict[str, tuple[int, int]]:
    """Card id -> (awards, stars) that a kept game's challenge cards' meals earned, as the
    balance lab credits them (``stages.credit``), and, taken off the rules card (negative), the
    awards it gave that those cards are credited with; none when the game cannot be scored
    again here (a pack it needs is gone, a card fails)."""
    from ..errors import EvaluationError, InputError
    from ..loading.records import read_record
    from ..stages.credit import credited, passed_on, rescored_without
    from ..stages.runner import score_game
    from .scoring import record_pack_ids

    try:
        rules = rulesets(tuple(record_pack_ids(record)))
        result = score_game(read_record(rules, record, "record"))
        challenges = {card.id for meals in result.game.challenges.values() for card in meals}
        without = {cid: rescored_without(rules, result.game, cid) for cid in challenges}
        credit = {cid: credited(rules, result, again, cid) for cid, again in without.items()}
    except (InputError, EvaluationError):
        return {}
    # the rules card gave those awards: counted under the meals' cards, not under it too
    for cid, (awards, stars) in passed_on(rules, result, without).items():
        given, earned = credit.get(cid, (0, 0))
        credit[cid] = (given - awards, earned - stars)
    return credit


class Credits:
    """The challenge credit of kept games (:func:`challenge_credit`), each worked out once and
    remembered by the game's id and version, at most ``kept`` of them (the least recently
    used forgotten first). Asked from the engine pool's threads: one lock guards it."""

    def __init__(self, rulesets: Any, kept: int) -> None:
        self.rulesets = rulesets
        self.kept = kept
        self.known: OrderedDict[tuple[int, int], dict[str, tuple[int, int]]] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, game: StoredGame) -> dict[str, tuple[int, int]]:
        key = (game.id, game.version)  # an edit makes a new version: worked out again
        with self.lock:
            found = self.known.get(key)
            if found is not None:
                self.known.move_to_end(key)
                return found
        made = challenge_credit(self.rulesets, game.record)
        with self.lock:
            self.known[key] = made
            while len(self.known) > self.kept:
                self.known.popitem(last=False)
        return made

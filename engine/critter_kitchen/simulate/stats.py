"""Per-chunk summaries of simulated games, merged exactly, and the figures they give.

A summary holds integer counts and sums only (sums of squares too), so merging chunks in
any order gives the same numbers and the report the same bytes; memory does not grow with
the number of games. Floats appear only in :func:`report`, rounded to ``DIGITS``.

Wins are counted in shares: a win shared by k players (a ranking that ends a tie on every
key with a shared win) counts 1/k to each of them, as an exact fraction, so the counts
still merge exactly; with one winner a game, every count stays a whole number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..stages.runner import Result

DIGITS = 4
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(slots=True, eq=False)
class Moments:
    """Count, sum and sum of squares of integer observations."""

    n: int = 0
    total: int = 0
    squares: int = 0
    low: int = 0  # the least and the greatest observation (0 and 0 before any)
    high: int = 0

    def add(self, x: int) -> None:
        if self.n == 0 or x < self.low:
            self.low = x
        if self.n == 0 or x > self.high:
            self.high = x
        self.n += 1
        self.total += x
        self.squares += x * x

    def merge(self, other: Moments) -> None:
        if other.n:
            self.low = other.low if self.n == 0 else min(self.low, other.low)
            self.high = other.high if self.n == 0 else max(self.high, other.high)
        self.n += other.n
        self.total += other.total
        self.squares += other.squares


Share = int | Fraction  # a count of wins: whole, or with the fractions of shared wins


def win_shares(result: Result) -> dict[int, Share]:
    """Player index -> the share of the game's win: 1 for a lone winner, 1/k to each of k
    winners who share it; the others hold none."""
    winners = result.winners
    if len(winners) == 1:
        return {winners[0].index: 1}
    share = Fraction(1, len(winners))
    return {p.index: share for p in winners}


def win_moved(before: dict[int, Share], after: dict[int, Share]) -> Share:
    """How much of the win goes to other players from ``before`` to ``after``: 1 when another
    player wins alone, 0 when the same players win; between, the part of the win that moves
    (a lone winner who shares the win with one other player: 1/2)."""
    moved: Share = 0
    for index, share in before.items():
        kept = after.get(index, 0)
        if share > kept:
            moved += share - kept
    return moved


@dataclass(slots=True, eq=False)
class CardTally:
    """One card's games, own-award stars, winner flips, and its owners' wins by seat."""

    stars: Moments = field(default_factory=Moments)
    # all players' stars with the card less those without it, same meals
    change: Moments = field(default_factory=Moments)
    flips: Share = 0  # the part of the win the card's removal moves, summed over its games
    owner_games: int = 0
    owner_wins: Share = 0
    owner_seats: dict[int, int] = field(default_factory=dict)  # seat -> games its owner sat there

    def merge(self, other: CardTally) -> None:
        self.stars.merge(other.stars)
        self.change.merge(other.change)
        self.flips += other.flips
        self.owner_games += other.owner_games
        self.owner_wins += other.owner_wins
        for seat, n in other.owner_seats.items():
            self.owner_seats[seat] = self.owner_seats.get(seat, 0) + n


@dataclass(slots=True, eq=False)
class Arm:
    """One arm of a study: stars of all players per game, and the games themselves."""

    stars: Moments = field(default_factory=Moments)


class Summary:
    """Everything a run reports, for any number of games, mergeable."""

    def __init__(self) -> None:
        self.games = 0
        self.seat_wins: dict[int, Share] = {}
        self.seat_games: dict[int, int] = {}
        self.stage_stars: dict[str, Moments] = {}
        self.stage_histogram: dict[str, dict[int, int]] = {}
        self.tiebreaks: dict[str, int] = {}
        self.cards: dict[str, CardTally] = {}
        self.studies: dict[str, tuple[Arm, Arm, Moments]] = {}  # card -> with, without, paired difference

    def add_game(self, result: Result, stage_names: list[str]) -> None:
        self.games += 1
        for player in result.game.players:
            _bump(self.seat_games, player.index)
            for stage in stage_names:
                got = player.stage_stars.get(stage, 0)
                self.stage_stars.setdefault(stage, Moments()).add(got)
                _bump(self.stage_histogram.setdefault(stage, {}), got)
        for seat, share in win_shares(result).items():
            self.seat_wins[seat] = self.seat_wins.get(seat, 0) + share
        _bump(self.tiebreaks, result.decided_by)

    def add_card(self, card: str, stars: int, change: int, flipped: Share, owners: list[tuple[int, Share]]) -> None:
        """One game of ``card``: its stars, the change it made, the part of the win its removal
        moves (see :func:`win_moved`), and each owner's seat with the share of the win it got."""
        tally = self.cards.setdefault(card, CardTally())
        tally.stars.add(stars)
        tally.change.add(change)
        tally.flips += flipped
        for seat, won in owners:
            tally.owner_games += 1
            tally.owner_wins += won
            _bump(tally.owner_seats, seat)

    def add_study(self, card: str, with_stars: int, without_stars: int) -> None:
        arms = self.studies.setdefault(card, (Arm(), Arm(), Moments()))
        arms[0].stars.add(with_stars)
        arms[1].stars.add(without_stars)
        arms[2].add(with_stars - without_stars)

    def merge(self, other: Summary) -> None:
        self.games += other.games
        for k, n in other.seat_games.items():
            _bump(self.seat_games, k, n)
        for k, won in other.seat_wins.items():
            self.seat_wins[k] = self.seat_wins.get(k, 0) + won
        for label, n in other.tiebreaks.items():
            _bump(self.tiebreaks, label, n)
        for stage, m in other.stage_stars.items():
            self.stage_stars.setdefault(stage, Moments()).merge(m)
        for stage, hist in other.stage_histogram.items():
            mine = self.stage_histogram.setdefault(stage, {})
            for k, n in hist.items():
                _bump(mine, k, n)
        for card, tally in other.cards.items():
            self.cards.setdefault(card, CardTally()).merge(tally)
        for card, (w, wo, d) in other.studies.items():
            arms = self.studies.setdefault(card, (Arm(), Arm(), Moments()))
            arms[0].stars.merge(w.stars)
            arms[1].stars.merge(wo.stars)
            arms[2].merge(d)


def _bump(counts: dict[Any, int], key: Any, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


def rounded(x: float) -> float:
    return round(x, DIGITS) + 0.0  # + 0.0: never "-0.0"


def wilson(successes: Share, n: int, z: float = Z95) -> list[float] | None:
    """The Wilson score 95% interval of a rate (or the interval of normal quantile ``z``), or
    None without observations (successes that count shared wins as fractions are taken as
    they are)."""
    if n == 0:
        return None
    low, high = wilson_bounds(successes, n, z)
    return [rounded(low), rounded(high)]


def wilson_bounds(successes: Share, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a rate, unrounded (``n`` > 0)."""
    p = _ratio(successes, n)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(m: Moments, z: float = Z95) -> tuple[float | None, list[float] | None]:
    """The mean and its normal 95% interval (or of normal quantile ``z``) from the count, sum
    and sum of squares."""
    if m.n == 0:
        return None, None
    mean = m.total / m.n
    half = mean_half_width(m, z)
    return rounded(mean), [rounded(mean - half), rounded(mean + half)]


def mean_half_width(m: Moments, z: float) -> float:
    """Half the width of the normal interval of the mean (``m.n`` > 0; 0 for one observation)."""
    if m.n == 1:
        return 0.0
    variance = max(0, m.n * m.squares - m.total * m.total) / (m.n * (m.n - 1))  # exact integers until here
    return z * math.sqrt(variance / m.n)


def rate(successes: Share, n: int) -> float | None:
    return rounded(_ratio(successes, n)) if n else None


def _ratio(successes: Share, n: int) -> float:
    """``successes / n`` as a float, correctly rounded whether the count is whole or a fraction."""
    return successes / n if type(successes) is int else float(successes / n)


def count(successes: Share) -> int | float:
    """A count of wins as the report shows it: whole, or rounded when shared wins make it a fraction."""
    if type(successes) is int or successes.denominator == 1:
        return int(successes)
    return rounded(float(successes))

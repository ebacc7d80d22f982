"""``simulate --precision P``: stop when every card's intervals are known to ±P.

The rule (one definition, used by the run and the report):

- **Looks.** The run is looked at only after ``FIRST_LOOK`` games, then at each doubling of
  them and half way up to the next (250, 375, 500, 750, 1000, 1500, ...), and last at the cap
  (``--games``). Looks this close make a run play at most half as many games again as the
  question needed (doubling: up to twice as many), for intervals 1.07 times as wide as with
  doubling at the default cap (19 looks instead of 10). The looks are game counts
  fixed before the run, and the chunks of the run are cut at them (see run.Spec), so
  whether the run stops at a look depends only on the seed: the same bytes on any number of
  workers or on Dask.
- **Widths.** At a look every card in play is measured by its widest interval, half its
  width, on one scale: the winner-flip interval as it is (a share of games, from 0 to 1);
  the stars and change intervals divided by their own spread, the greatest less the least
  stars the card gave (or changed) in one of its games, so that ±0.02 says "to 2% of the
  card's range" whether a card gives 1 star or 12. An interval over no spread (every game
  the same) is a point and counts as known. The run stops at the first look at which every
  card's widest is at most P.
- **Soundness.** Stopping when the intervals look narrow enough is optional stopping: a
  95% interval looked at again and again and reported when it suits misses the true value
  more often than 5% of the time. So every interval of a ``--precision`` run is made at
  the Bonferroni level over its looks: with K looks each is a (1 - 0.05/K) interval, and
  the chance that an interval misses at *any* look, and so at the look the run stops at,
  is at most 0.05 (the union bound, whatever the stopping rule). The price is width: with
  the default cap (19 looks) a 99.74% interval, 1.53 times as wide as a 95% one.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .stats import mean_half_width, wilson_bounds

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .stats import CardTally, Moments, Summary

FIRST_LOOK = 250  # games before the first look: every card of the base pack in play in dozens of them
LOOK_STEPS = (2, 3)  # in halves of a doubling: looked at at 2/2 and 3/2 of each doubling of FIRST_LOOK
CAP_DEFAULT = 100_000  # --precision without --games plays at most this many games
ALPHA = 0.05  # the chance, over every look, that a reported interval misses: 95% intervals


def looks(games: int) -> tuple[int, ...]:
    """The game counts at which a run of at most ``games`` games is looked at: FIRST_LOOK and
    each doubling of it, each followed by the count half way up to the next doubling (the
    LOOK_STEPS), while fewer than ``games``; last ``games`` itself."""
    out: list[int] = []
    doubling = FIRST_LOOK
    while doubling < games:
        out.extend(n for n in (doubling * step // 2 for step in LOOK_STEPS) if n < games)
        doubling *= 2
    out.append(games)
    return tuple(out)


def z_of(looks_count: int) -> float:
    """The normal quantile of a two-sided interval at the Bonferroni level over ``looks_count`` looks."""
    return statistics.NormalDist().inv_cdf(1 - ALPHA / looks_count / 2)


def confidence(looks_count: int) -> float:
    """Each interval's own level: 1 - ALPHA / looks."""
    return 1 - ALPHA / looks_count


def scaled(m: Moments, z: float) -> float:
    """Half the width of the mean's interval over the spread of the observations (0 for a point)."""
    spread = m.high - m.low
    return mean_half_width(m, z) / spread if spread else 0.0


def widths(tally: CardTally, z: float) -> dict[str, float]:
    """A card's intervals' half-widths on the one scale: the winner-flip interval as it is, the
    stars and change intervals over their spreads."""
    low, high = wilson_bounds(tally.flips, tally.stars.n, z)
    return {
        "winner_flip": (high - low) / 2,
        "stars": scaled(tally.stars, z),
        "stars_change": scaled(tally.change, z),
    }


def widest(tally: CardTally, z: float) -> float:
    return max(widths(tally, z).values())


@dataclass(slots=True)
class Stopping:
    """The rule of a ``--precision`` run: its target, its looks and their intervals' quantile;
    ``widest`` is the widest card's at the last look (for the progress bar)."""

    target: float
    looks: tuple[int, ...]
    z: float
    widest: float | None = None

    @staticmethod
    def of(target: float, games: int) -> Stopping:
        at = looks(games)
        return Stopping(target, at, z_of(len(at)))

    def enough(self, summary: Summary) -> bool:
        """Whether every card's intervals are known to the target (at a look)."""
        self.widest = max((widest(t, self.z) for t in summary.cards.values()), default=0.0)
        return bool(summary.cards) and self.widest <= self.target


def held_back(summary: Summary, target: float, z: float) -> list[str]:
    """The cards whose widest interval is wider than the target, widest first."""
    wide = [(widest(t, z), card) for card, t in summary.cards.items()]
    return [card for w, card in sorted(wide, key=lambda wc: (-wc[0], wc[1])) if w > target]

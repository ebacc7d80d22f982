"""The balance lab: simulated games from the packs' deal model, planned by the meal planner,
scored by the engine, and each card's paired effect with its confidence interval.

``critter-kitchen simulate`` is its command; :func:`critter_kitchen.simulate.run.run` plays a
run's chunks and :func:`critter_kitchen.simulate.report.build` turns the summary into the report.
"""

from __future__ import annotations

"""Critter Kitchen scoring engine: card data in, a trustworthy score breakdown out."""

from __future__ import annotations

from .api import score_record
from .errors import CritterError, EvaluationError, InputError, Problem
from .loading.packs import load_ruleset
from .report.json import result_json
from .stages.runner import Result

__version__ = "0.1.0"
__all__ = [
    "CritterError",
    "EvaluationError",
    "InputError",
    "Problem",
    "Result",
    "load_ruleset",
    "result_json",
    "score_record",
    "__version__",
]

"""Which build of the engine this process runs: the compiled build (mypyc) or pure Python.

The compiled build (``HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install ...``: see pyproject.toml)
installs the modules of the score path and the meal planner as C extensions, beside their
Python sources; Python's import system loads an extension before a source of the same name,
so an installed compiled build is what every process of the package runs: the command, the
balance lab's worker processes and its Dask workers (started from the same environment).
Modules the build leaves out (the command line, the pack loader, the lab's own loop and
report: pyproject's list says why) stay Python in both builds.

This module is left out as well, so that it tells the same way in both: it looks at where
the lab's hot modules were loaded from, and never at a flag a build could set wrongly.
"""

from __future__ import annotations

import importlib
import importlib.machinery

COMPILED = "compiled (mypyc)"
PURE = "pure Python"

# The modules a simulated game spends its time in (the planner's searches, the stages that
# score each plan, the effect language's nodes); the compiled build compiles each of them.
HOT_MODULES = (
    "critter_kitchen.plan.search",
    "critter_kitchen.plan.exact",
    "critter_kitchen.plan.bands",
    "critter_kitchen.stages.runner",
    "critter_kitchen.dsl.run_nodes",
)


def compiled_modules() -> tuple[str, ...]:
    """Those of :data:`HOT_MODULES` this process loaded as C extensions."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = []
    for name in HOT_MODULES:
        path = getattr(importlib.import_module(name), "__file__", None) or ""
        if path.endswith(suffixes):
            found.append(name)
    return tuple(found)


def kind() -> str:
    """``compiled (mypyc)``, ``pure Python``, or, for a build that lacks some of the hot
    modules (each then runs from its Python source), which ones run compiled."""
    found = compiled_modules()
    if len(found) == len(HOT_MODULES):
        return COMPILED
    if not found:
        return PURE
    missing = ", ".join(m for m in HOT_MODULES if m not in found)
    return f"partly compiled (mypyc): pure Python for {missing}"

"""Expansions and variants are data: nothing they introduce is known to the engine.

Every card id, card kind, stage id, parameter, counter and ingredient type that the packs
in ``cards/a-la-carte``, ``cards/solo`` and ``cards/variants`` introduce (names the base
pack already declares do not count) must be absent from every file under ``engine/``,
as a whole word in any letter case. And the whole ``cards/`` tree must validate cleanly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from critter_kitchen.cli import main

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
BASE = ROOT / "cards" / "base"
PACK_ROOTS = [ROOT / "cards" / "a-la-carte", ROOT / "cards" / "solo", ROOT / "cards" / "variants"]


def yaml_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.name != "pack.yaml")


def documents(folder: Path) -> list[dict[str, Any]]:
    docs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in yaml_files(folder)]
    return [d for d in docs if isinstance(d, dict)]


def declared(docs: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Names declared by these card files, by what they name."""
    names: dict[str, set[str]] = {
        key: set() for key in ("card id", "card kind", "stage", "parameter", "counter", "ingredient")
    }
    for doc in docs:
        if isinstance(doc.get("id"), str):
            names["card id"].add(doc["id"])
        if doc.get("kind") != "rules":
            continue
        names["card kind"].update(doc.get("card_kinds") or {})
        names["stage"].update(s["id"] for s in doc.get("stages") or [])
        names["parameter"].update(doc.get("parameters") or {})
        names["counter"].update(doc.get("counters") or [])
        names["ingredient"].update(doc.get("ingredients") or [])
    return names


def introduced() -> dict[str, set[str]]:
    base = declared(documents(BASE))
    base["card kind"] |= {"rules"}
    found = declared([doc for root in PACK_ROOTS for doc in documents(root)])
    return {what: names - base[what] for what, names in found.items()}


NEW = introduced()
NEW_NAMES = sorted({(what, name) for what, names in NEW.items() for name in names})


def engine_text() -> dict[Path, str]:
    return {
        path: path.read_bytes().decode("utf-8", errors="replace")
        for path in sorted(ENGINE.rglob("*"))
        if path.is_file()
    }


ENGINE_TEXT = engine_text()


def test_the_packs_introduce_names_of_every_sort():
    for what, names in NEW.items():
        assert names, f"no new {what} found under cards/a-la-carte, cards/solo, cards/variants"
    assert {"tofu", "coffee"} <= NEW["ingredient"]
    assert {"trophies", "pepper"} <= NEW["counter"]
    assert {"vendor", "head-chef", "celebrity-chef"} <= NEW["card kind"]
    assert {"alc.trophies", "alc.pepper"} <= NEW["stage"]
    assert {"critic.all_courses", "critic.most_soup", "critic.best_course"}.isdisjoint(NEW["stage"])
    assert {"max_players", "course_types"}.isdisjoint(NEW["parameter"])
    assert {"solo_course_target", "trophy_stars"} <= NEW["parameter"]


@pytest.mark.parametrize(("what", "name"), NEW_NAMES, ids=[f"{w}:{n}" for w, n in NEW_NAMES])
def test_engine_does_not_know_the_name(what, name):
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", re.IGNORECASE)
    hits = [str(path.relative_to(ROOT)) for path, text in ENGINE_TEXT.items() if word.search(text)]
    assert not hits, f"{what} '{name}' appears in {', '.join(hits)}"


def test_cards_tree_validates(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    status = main(["validate", "cards"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.startswith("ok: ")

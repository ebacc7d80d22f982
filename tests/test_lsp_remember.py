"""What the language server's loads remember (loading/remember.py): the same problems as a
load that remembers nothing, and nothing kept past the loads that used it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROKEN = sorted(str(p) for p in (ROOT / "tests" / "packs").glob("broken-*") if (p / "pack.yaml").exists())

# Loads every broken pack twice in a row in a process that remembers (the second load from
# what the first remembered), and once in one that does not: the problems (with their
# excerpts) must be the same each time.
SCRIPT = """
import json, sys
from critter_kitchen.loading import remember
from critter_kitchen.loading.packs import load_packs, _parsed, _documents, _compiled
from critter_kitchen.loading.paths import base_pack
if sys.argv[1] == "on":
    remember.start()
out = []
for pack in sys.argv[2:]:
    for again in range(2 if sys.argv[1] == "on" else 1):
        _, problems = load_packs([base_pack(), pack])
        out.append([p.format(with_code=True) for p in problems])
print(json.dumps({"problems": out, "kept": [len(_documents.entries), len(_parsed.entries), len(_compiled.entries)]}))
"""


# a pack whose cards have one problem of each kind a load remembers: YAML, schema, effect syntax, effect meaning
SLIPS = {
    "pack.yaml": "id: slips\nname: Slips\n",
    "yaml.yaml": "id: yaml-slip\nkind: rumor\nname: [unclosed\n",
    "schema.yaml": "id: schema-slip\nkind: rumor\nname: Schema Slip\ncolour: red\neffects:\n"
    "  - after: critic.rumors\n    do: pass\n",
    "syntax.yaml": "id: syntax-slip\nkind: rumor\nname: Syntax Slip\neffects:\n"
    "  - after: critic.rumors\n    do: award 1 star to\n",
    "meaning.yaml": "id: meaning-slip\nkind: rumor\nname: Meaning Slip\neffects:\n  - after: critic.rumors\n"
    "    do: award qualty(p, fish) stars to players\n",
}


def run(mode: str, packs: list[str]) -> dict:
    import json

    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, *packs], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(done.stdout)


def test_remembering_loads_find_what_loads_find(tmp_path: Path) -> None:
    slips = tmp_path / "slips"
    slips.mkdir()
    for name, text in SLIPS.items():
        (slips / name).write_text(text, "utf-8")
    packs = [*BROKEN, str(slips)]
    assert len(packs) >= 6
    plain, remembered = run("off", packs), run("on", packs)
    codes = " ".join(plain["problems"][-1])
    for code in ("CK002", "CK101", "CK201", "CK202"):
        assert f" {code} " in codes, code
    assert plain["kept"] == [0, 0, 0]
    assert all(plain["problems"]), "every broken pack has problems"
    assert remembered["problems"][0::2] == plain["problems"]
    assert remembered["problems"][1::2] == plain["problems"]  # the second loads, from what was remembered
    assert all(remembered["kept"])


def test_what_no_recent_load_used_is_forgotten() -> None:
    from critter_kitchen.loading import remember

    store = remember.Store()
    was = remember._on
    remember._on = True
    try:
        remember.new_load()
        store.put("a", 1)
        store.put("b", 2)
        for _ in range(remember.KEPT_LOADS - 1):
            remember.new_load()
            assert store.get("a") == 1  # used by every load: kept
        remember.new_load()
        assert store.get("a") == 1
        assert store.get("b") is None  # no load of the last KEPT_LOADS used it
    finally:
        remember._on = was
        remember._stores.remove(store)

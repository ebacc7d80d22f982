"""Packs found by id: shipped ones, ones other distributions register, and records that name theirs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from critter_kitchen import InputError, load_ruleset, score_record
from critter_kitchen.cli import main
from critter_kitchen.loading import discovery, resolve
from critter_kitchen.loading.paths import shipped_cards

ROOT = Path(__file__).resolve().parent.parent
ALC_GAME = ROOT / "tests" / "golden" / "a-la-carte" / "six-players.yaml"
ALC_EXPECTED = json.loads(ALC_GAME.with_suffix(".json").read_text("utf-8"))
FAN = ROOT / "examples" / "fan-pack"
SHIPPED_IDS = "installed packs: a-la-carte, base, no-friendly-ties, no-soup-race, solo"


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRITTER_KITCHEN_CACHE", "off")


def write_record(folder: Path, data: dict, name: str = "game.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), "utf-8")
    return path


def alc_record(**extra: object) -> dict:
    return {**extra, **yaml.safe_load(ALC_GAME.read_text("utf-8"))}


def score_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["score", *argv])
    out, err = capsys.readouterr()
    return status, out, err


# --pack by id


def test_pack_option_takes_a_shipped_id_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = score_json(capsys, str(ALC_GAME), "--pack", "a-la-carte", "--format", "json")
    assert (status, err) == (0, "")
    assert json.loads(out) == ALC_EXPECTED


def test_an_existing_folder_is_a_folder_even_if_it_looks_like_an_id(tmp_path, monkeypatch, capsys):
    (tmp_path / "solo").mkdir()  # no pack.yaml: the folder, not the shipped pack, is what --pack names
    monkeypatch.chdir(tmp_path)
    status, _, err = score_json(capsys, str(ALC_GAME), "--pack", "solo")
    assert status == 1
    assert err == "solo: not a card pack: no pack.yaml in this folder\n"


def test_an_unknown_pack_id_lists_the_installed_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = score_json(capsys, str(ALC_GAME), "--pack", "a-la-cart")
    assert (status, out) == (1, "")
    assert err == f"a-la-cart: neither a pack folder nor the id of an installed pack; {SHIPPED_IDS}\n"


def test_a_missing_folder_path_is_still_reported_as_a_folder(tmp_path, capsys):
    status, _, err = score_json(capsys, str(ALC_GAME), "--pack", str(tmp_path / "gone"))
    assert status == 1
    assert err.endswith("gone: no such card pack folder\n")


def test_cards_and_validate_take_ids_too(capsys):
    assert main(["cards", "tofu-truck", "--pack", "a-la-carte"]) == 0
    assert "Tofu Truck" in capsys.readouterr().out
    assert main(["validate", str(ALC_GAME), "--pack", "a-la-carte"]) == 0


def test_every_shipped_pack_is_named_after_its_folder():
    """A shipped pack is found by its folder's name, so that finding one reads no YAML."""
    shipped = discovery.shipped_packs()
    assert set(shipped) == {"a-la-carte", "base", "no-friendly-ties", "no-soup-race", "solo"}
    for pack_id, pack in shipped.items():
        assert yaml.safe_load((Path(pack.folder) / "pack.yaml").read_text("utf-8"))["id"] == pack_id


def test_the_wheel_ships_every_pack():
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    assert re.search(r'^"cards" = "critter_kitchen/data/cards"', text, re.M)
    # where the engine is installed from a wheel (as in CI), this checks what the wheel holds
    shipped = {p.relative_to(shipped_cards()) for p in Path(shipped_cards()).rglob("pack.yaml")}
    assert shipped == {p.relative_to(ROOT / "cards") for p in (ROOT / "cards").rglob("pack.yaml")}


# records that name their packs


def test_a_record_that_names_its_pack_needs_no_option(tmp_path, monkeypatch, capsys):
    game = write_record(tmp_path, alc_record(packs=["a-la-carte"]))
    monkeypatch.chdir(tmp_path)
    status, out, err = score_json(capsys, "game.yaml", "--format", "json")
    assert (status, err) == (0, "")
    assert json.loads(out) == ALC_EXPECTED
    assert game.exists()


def test_the_record_and_the_option_may_name_the_same_pack(tmp_path, capsys):
    game = write_record(tmp_path, alc_record(packs=["a-la-carte", "base"]))
    status, out, err = score_json(capsys, str(game), "--pack", str(ROOT / "cards" / "a-la-carte"), "--format", "json")
    assert (status, err) == (0, "")
    assert json.loads(out) == ALC_EXPECTED


def test_a_record_naming_a_pack_that_is_not_installed_gets_one_line(tmp_path, monkeypatch, capsys):
    write_record(tmp_path, alc_record(packs=["a-la-carte", "spice-route"]))
    monkeypatch.chdir(tmp_path)
    status, out, err = score_json(capsys, "game.yaml")
    assert (status, out) == (1, "")
    assert err == f"game.yaml: packs[1]: this record needs pack 'spice-route', which is not installed; {SHIPPED_IDS}\n"


def test_a_ruleset_without_the_named_pack_gives_one_line_not_one_per_card():
    record = alc_record(packs=["a-la-carte"])
    with pytest.raises(InputError) as e:
        score_record(record, load_ruleset(), source="game.yaml")
    assert [p.format() for p in e.value.problems] == [
        "game.yaml: packs[0]: this record needs pack 'a-la-carte'; load it with --pack a-la-carte"
    ]


def test_score_record_loads_the_named_packs():
    from critter_kitchen import result_json

    assert result_json(score_record(alc_record(packs=["a-la-carte"]))) == ALC_EXPECTED


@pytest.mark.parametrize(
    ("packs", "message"),
    [
        ("a-la-carte", "packs: expected a list of pack ids, got 'a-la-carte'"),
        (
            ["cards/a-la-carte"],
            "packs[0]: expected a pack id (lower-case letters, digits, '-', '_', '.'), got 'cards/a-la-carte'",
        ),
        (["../evil"], "packs[0]: expected a pack id (lower-case letters, digits, '-', '_', '.'), got '../evil'"),
        ([3], "packs[0]: expected a pack id (lower-case letters, digits, '-', '_', '.'), got 3"),
        (["x"] * 65, "packs: 65 packs; a record may name at most 64"),
    ],
)
def test_a_record_names_packs_by_id_only(tmp_path, capsys, packs, message):
    game = write_record(tmp_path, alc_record(packs=packs))
    status, _, err = score_json(capsys, str(game))
    assert status == 1
    assert err == f"{game}: {message}\n"


def test_a_folder_beside_the_record_is_never_loaded_by_its_id(tmp_path, monkeypatch, capsys):
    """A record is a stranger's file: an id it names is looked up among installed packs only."""
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "pack.yaml").write_text("id: evil\nname: Evil\n", "utf-8")
    write_record(tmp_path, alc_record(packs=["evil"]))
    monkeypatch.chdir(tmp_path)
    status, _, err = score_json(capsys, "game.yaml")
    assert status == 1
    assert err == f"game.yaml: packs[0]: this record needs pack 'evil', which is not installed; {SHIPPED_IDS}\n"


def test_a_pack_given_with_the_option_serves_a_record_that_names_it(capsys):
    package = FAN / "critter_kitchen_fan_feast"
    status, out, err = score_json(capsys, str(FAN / "game.yaml"), "--pack", str(package), "--format", "json")
    assert (status, err) == (0, "")
    assert json.loads(out)["winner"] == "Ana"


def test_a_batch_loads_each_list_of_packs_once(tmp_path, monkeypatch, capsys):
    from critter_kitchen.loading import cached

    loads: list[tuple[str, ...]] = []
    real = cached.load_ruleset

    def counted(dirs=(), **kw):
        loads.append(tuple(os.path.basename(d) for d in dirs))
        return real(dirs, **kw)

    monkeypatch.setattr(cached, "load_ruleset", counted)
    alc = write_record(tmp_path, alc_record(packs=["a-la-carte"]), "alc.yaml")
    base = ROOT / "examples" / "two-players.yaml"
    missing = write_record(tmp_path, alc_record(packs=["nope"]), "missing.yaml")
    status, out, err = score_json(capsys, str(alc), str(base), str(alc), str(missing), "--format", "json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and err == ""
    assert [line["source"] for line in lines] == [str(alc), str(base), str(alc), str(missing)]
    assert lines[0] == lines[2] == {"source": str(alc), **ALC_EXPECTED}
    assert "winner" in lines[1]
    assert lines[3] == {
        "source": str(missing),
        "errors": [f"{missing}: packs[0]: this record needs pack 'nope', which is not installed; {SHIPPED_IDS}"],
    }
    assert loads == [(), ("a-la-carte",)]


def test_a_record_naming_a_shipped_pack_scores_from_the_cache_without_entry_points(tmp_path):
    """Entry points cost an import of importlib.metadata: a shipped id never looks at them."""
    env = dict(os.environ, CRITTER_KITCHEN_CACHE=str(tmp_path / "cache"))
    game = write_record(tmp_path, alc_record(packs=["a-la-carte"]))
    code = (
        "import sys\n"
        "from critter_kitchen.cli import main\n"
        f"main(['score', {str(game)!r}])\n"
        "heavy = ['importlib.metadata', 'lark', 'jsonschema', 'critter_kitchen.loading.packs']\n"
        "print('loaded:', [m for m in heavy if m in sys.modules])\n"
    )
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, capture_output=True, text=True, env=env, check=True)
    assert "critter_kitchen.loading.packs" in first.stdout
    again = subprocess.run(run, capture_output=True, text=True, env=env, check=True)
    assert again.stdout.splitlines()[-1] == "loaded: []"


# packs other distributions register


def fake_distribution(site: Path, name: str, entries: dict[str, str], version: str = "2.1.0") -> None:
    """An installed distribution as importlib.metadata sees it: a dist-info folder with entry points."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", "utf-8")
    lines = "".join(f"{key} = {value}\n" for key, value in entries.items())
    (info / "entry_points.txt").write_text(f"[{discovery.ENTRY_POINT_GROUP}]\n{lines}", "utf-8")


def fake_pack(site: Path, package: str, pack_id: str, name: str = "Fan Pack") -> Path:
    folder = site / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("raise RuntimeError('a pack is found without being imported')\n", "utf-8")
    (folder / "pack.yaml").write_text(f"id: {pack_id}\nname: {name}\n", "utf-8")
    return folder


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_a_registered_pack_loads_by_id(site, capsys):
    folder = fake_pack(site, "fan_one", "fan-one")
    (folder / "rumor.yaml").write_text(
        "id: fan-rumor\nkind: rumor\nname: Fan Rumor\neffects:\n  - after: critic.rumors\n"
        "    do: |\n      for p in players:\n          multiply quality(p, bread) by 2\n",
        "utf-8",
    )
    fake_distribution(site, "fan-one", {"fan-one": "fan_one"})
    assert resolve.pack_folders(["fan-one"]) == [str(folder)]
    assert main(["cards", "fan-rumor", "--pack", "fan-one"]) == 0
    assert "Fan Rumor" in capsys.readouterr().out
    assert "fan_one" not in sys.modules


def test_a_pack_inside_a_package_is_found_without_running_the_package(site, tmp_path, capsys):
    """The import system's find_spec of 'evilpkg.pack' would run evilpkg/__init__.py."""
    marker = tmp_path / "ran"
    parent = site / "evilpkg"
    parent.mkdir()
    (parent / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n", "utf-8")
    folder = fake_pack(parent, "pack", "fan-inner")
    fake_distribution(site, "evilpkg", {"fan-inner": "evilpkg.pack"})
    assert resolve.pack_folders(["fan-inner"]) == [str(folder)]
    game = write_record(tmp_path, alc_record(packs=["not-installed"]))
    assert score_json(capsys, str(game))[0] == 1  # an unknown id looks at every registration
    assert main(["packs", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[-1]["path"] == str(folder)
    assert not marker.exists()
    assert "evilpkg" not in sys.modules


def test_a_package_is_looked_for_as_the_import_system_would(site, tmp_path, monkeypatch):
    """A regular package anywhere on the path comes before folders of a namespace; a module
    file is its folder; a name that is not an import name is refused without a look."""
    spread = tmp_path / "later"
    (spread / "fan_ns").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(spread))  # now before site
    (site / "fan_ns").mkdir()
    regular = fake_pack(site / "fan_ns", "inner", "fan-ns")
    (spread / "fan_ns" / "inner").mkdir()  # a namespace folder of the same name, earlier on the path
    assert discovery._package_folder("fan_ns.inner") == (str(regular), "")
    (site / "fan_mod.py").write_text("raise RuntimeError\n", "utf-8")
    assert discovery._package_folder("fan_mod") == (str(site), "")
    assert discovery._package_folder("fan_mod.inner") == (None, "no such package is installed")
    assert discovery._package_folder("../fan_ns") == (None, "that is not the import name of a package")


def test_a_pack_named_by_id_brings_the_installed_packs_it_requires(site, tmp_path, capsys):
    folder = fake_pack(site, "fan_tofu", "fan-tofu")
    (folder / "pack.yaml").write_text("id: fan-tofu\nname: Fan Tofu\nrequires: [a-la-carte]\n", "utf-8")
    (folder / "bowl.yaml").write_text("id: tofu-bowl\nkind: challenge\nname: Tofu Bowl\nrequires: [tofu, carrot]\n")
    fake_distribution(site, "fan-tofu", {"fan-tofu": "fan_tofu"})
    alc = os.path.join(shipped_cards(), "a-la-carte")
    assert resolve.pack_folders(["fan-tofu"]) == [alc, str(folder)]
    assert resolve.pack_folders(["fan-tofu", "a-la-carte"]) == [alc, str(folder)]
    assert resolve.record_pack_folders(["fan-tofu"], "game.yaml") == [alc, str(folder)]
    assert main(["cards", "tofu-bowl", "--pack", "fan-tofu"]) == 0
    assert "Tofu Bowl" in capsys.readouterr().out
    game = write_record(tmp_path, alc_record(packs=["fan-tofu"]))
    status, out, err = score_json(capsys, str(game), "--format", "json")
    assert (status, err) == (0, "")
    assert json.loads(out) == ALC_EXPECTED


def test_packs_that_require_each_other_are_each_added_once(site):
    one, two = fake_pack(site, "fan_one", "fan-one"), fake_pack(site, "fan_two", "fan-two")
    (one / "pack.yaml").write_text("id: fan-one\nname: One\nrequires: [fan-two, nowhere]\n", "utf-8")
    (two / "pack.yaml").write_text("id: fan-two\nname: Two\nrequires: [fan-one]\n", "utf-8")
    fake_distribution(site, "fans", {"fan-one": "fan_one", "fan-two": "fan_two"})
    assert resolve.pack_folders(["fan-one"]) == [str(two), str(one)]  # the load reports the cycle


def test_the_packs_command_lists_shipped_and_registered_packs(site, capsys):
    folder = fake_pack(site, "fan_one", "fan-one", '"Fan \\e[31mOne"')  # YAML for ESC
    fake_distribution(site, "fan-one", {"fan-one": "fan_one"})
    assert main(["packs", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [p["id"] for p in listed] == ["a-la-carte", "base", "no-friendly-ties", "no-soup-race", "solo", "fan-one"]
    assert listed[1] == {
        "id": "base",
        "name": "Critter Kitchen (base game)",
        "version": None,
        "from": "shipped",
        "path": os.path.join(shipped_cards(), "base"),
    }
    assert listed[-1] == {
        "id": "fan-one",
        "name": "Fan \x1b[31mOne",
        "version": "2.1.0",
        "from": "distribution fan-one",
        "path": str(folder),
    }
    assert main(["packs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ID                VERSION  NAME                                   FROM"
    assert (
        lines[2] == f"base              -        Critter Kitchen (base game)            shipped: {shipped_cards()}/base"
    )
    shown_name = "Fan \\x1b[31mOne".ljust(len("À La Carte (a model of the expansion)"))
    assert lines[-1] == f"fan-one           2.1.0    {shown_name}  distribution fan-one: {folder}"


def test_the_packs_command_adds_folders_given_with_the_option(capsys):
    package = FAN / "critter_kitchen_fan_feast"
    assert main(["packs", "--pack", str(package), "--pack", "solo", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[-1] == {
        "id": "fan-feast",
        "name": "Fan Feast (an example fan pack)",
        "version": None,
        "from": "folder",
        "path": str(package),
    }
    assert len(listed) == 6  # solo is listed once, as shipped


def test_unusable_registrations_are_reported_and_skipped(site, capsys):
    fake_pack(site, "fan_two", "fan-two")
    fake_pack(site, "fan_three", "not-fan-three")
    fake_distribution(site, "fan-a", {"fan-two": "fan_two", "fan-obj": "fan_two:pack", "Bad_Id": "fan_two"})
    fake_distribution(site, "fan-b", {"fan-two": "fan_three", "fan-gone": "no_such_package", "solo": "fan_two"})
    fake_distribution(site, "fan-c", {"fan-three": "fan_three"})
    assert main(["packs", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert [p["id"] for p in json.loads(out)][-1] == "fan-two"
    assert sorted(err.splitlines()) == sorted(
        [
            "critter-kitchen: distribution 'fan-a' registers pack 'fan-obj' as 'fan_two:pack': the entry must name"
            " a package (whose folder holds pack.yaml), not an object in one",
            "critter-kitchen: distribution 'fan-a' registers 'Bad_Id', which is not a pack id",
            "critter-kitchen: pack 'fan-two' is registered twice, by 'fan-a' and by 'fan-b'; 'fan-a' is used",
            "critter-kitchen: distribution 'fan-b' registers pack 'fan-gone' as 'no_such_package': no such package"
            " is installed",
            "critter-kitchen: distribution 'fan-b' registers pack 'solo', a shipped pack's id",
            f"critter-kitchen: {site / 'fan_three' / 'pack.yaml'}: pack id 'not-fan-three', but it is installed"
            " as 'fan-three'",
        ]
    )


def test_many_installed_packs_are_counted_not_listed(site, capsys):
    entries = {}
    for i in range(8):
        fake_pack(site, f"fan_{i}", f"fan-{i}")
        entries[f"fan-{i}"] = f"fan_{i}"
    fake_distribution(site, "fan-many", entries)
    status, _, err = score_json(capsys, str(ALC_GAME), "--pack", "fan-99")
    assert status == 1
    assert (
        err == "fan-99: neither a pack folder nor the id of an installed pack; 13 packs are installed; "
        "'critter-kitchen packs' lists them\n"
    )


# a published pack, installed with pip


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _dependency_folder(target: Path) -> Path:
    """A folder holding (as links) the engine's installed dependencies, so the new venv downloads nothing."""
    from importlib.metadata import distribution, requires

    target.mkdir()
    todo, seen = [("critter-kitchen", ())], set()
    while todo:
        name, extras = todo.pop()
        for req in requires(name) or []:
            found = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?", req)
            assert found is not None, req
            dep, wanted = found[1].lower(), tuple(e.strip() for e in (found[2] or "").split(",") if e.strip())
            marker = req.partition(";")[2]
            needed = "extra ==" not in marker or any(f'extra == "{e}"' in marker for e in extras)
            if needed and dep not in seen:
                seen.add(dep)
                todo.append((dep, wanted))
    for name in seen:
        dist = distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or []}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (target / top).exists() and not top.endswith(".pth") and top != "..":
                (target / top).symlink_to(source)
    return target


def test_a_published_pack_installs_with_pip_and_scores_by_name(tmp_path):
    """The engine and examples/fan-pack, built as wheels and installed into a fresh venv
    (offline: built with this environment's hatchling, dependencies linked from it)."""
    dist = tmp_path / "dist"
    for project in (ROOT, FAN):
        built = _run(
            sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, project
        )
        assert built.returncode == 0, built.stderr
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    Path(purelib, "engine-dependencies.pth").write_text(f"{_dependency_folder(tmp_path / 'deps')}\n", "utf-8")
    wheels = sorted(dist.glob("*.whl"))
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", *wheels
    )
    assert installed.returncode == 0, installed.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "game.yaml").write_text((FAN / "game.yaml").read_text("utf-8"), "utf-8")
    command = python.parent / "critter-kitchen"
    listed = _run(command, "packs", "--format", "json", cwd=elsewhere)
    assert listed.returncode == 0, listed.stderr
    fan = next(p for p in json.loads(listed.stdout) if p["id"] == "fan-feast")
    assert (fan["version"], fan["from"]) == ("1.0.0", "distribution critter-kitchen-fan-feast")
    assert Path(fan["path"]).is_relative_to(purelib)

    scored = _run(command, "score", "game.yaml", "--format", "json", cwd=elsewhere)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["winner"] == "Ana"
    alc = _run(command, "score", ALC_GAME, "--pack", "a-la-carte", "--format", "json", cwd=elsewhere)
    assert alc.returncode == 0, alc.stderr
    assert json.loads(alc.stdout) == ALC_EXPECTED
    assert sorted(p.name for p in elsewhere.iterdir()) == ["game.yaml"]


@pytest.mark.parametrize("listed", ["[fan-mid, fan-low]", "[fan-low, fan-mid]"])
def test_a_pack_named_by_id_comes_after_every_pack_it_requires(site, listed, capsys):
    """fan-top requires fan-mid and fan-low, and fan-mid requires fan-low too: fan-low loads
    first, whichever order fan-top lists them in (each pack after all of its requirements)."""
    top, mid, low = (fake_pack(site, f"fan_{n}", f"fan-{n}") for n in ("top", "mid", "low"))
    (top / "pack.yaml").write_text(f"id: fan-top\nname: Top\nrequires: {listed}\n", "utf-8")
    (mid / "pack.yaml").write_text("id: fan-mid\nname: Mid\nrequires: [fan-low]\n", "utf-8")
    fake_distribution(site, "fans", {"fan-top": "fan_top", "fan-mid": "fan_mid", "fan-low": "fan_low"})
    assert resolve.pack_folders(["fan-top"]) == [str(low), str(mid), str(top)]
    assert main(["cards", "--pack", "fan-top", "--format", "json"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("listed", ["[fan-mid, fan-low]", "[fan-low, fan-mid]"])
def test_validate_loads_a_pack_after_every_pack_beside_it_that_it_requires(tmp_path, listed, capsys):
    """The same requirements, of pack folders side by side that validate checks: each loads
    after all of its requirements, whichever order they are listed in."""
    for name, requires in (("top", listed), ("mid", "[fan-low]"), ("low", "[]")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pack.yaml").write_text(f"id: fan-{name}\nname: {name}\nrequires: {requires}\n", "utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    assert capsys.readouterr() == ("ok: 3 checked, no problems\n", "")

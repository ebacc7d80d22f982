"""Random and mutated inputs for the command's entry points, and the check of every outcome.

Used by tests/test_fuzz.py (a short run in the normal suite) and by tools/fuzz.py (long
runs). Four targets:

- ``records``: a game record file (YAML or JSON), scored and validated;
- ``cards``: a card file in a one-card pack, or one file of a copy of the base pack,
  validated, and scored against an example game when it loads;
- ``dsl``: effect-language text as the body of a card's effect, validated, and scored
  with the card in play when it loads;
- ``pantries``: a pantry file for ``plan`` (both efforts): random, or a real pantry mutated
  and grown (many spices, tokens in the millions, thousands of items);
- ``schemas``: a pack whose card kind is checked by a schema of the pack's own (random,
  or mutated from the shipped and test schemas, full of references and patterns that
  reach for files, the network or hours of backtracking), and a card of that kind,
  validated. A file outside the pack holds a canary value that must never be printed.

The only allowed outcomes of ``critter_kitchen.cli.main``: exit 0 with a result, or
exit 1 with clean error lines on standard error (``path:line:col: ...``,
``path: where: ...``, an excerpt line indented by 4 spaces, or ``critter-kitchen: ...``).
Anything else (an exception escaping, another exit status, stray output, a hang) is a
failure.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import json
import re
import shutil
import signal
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "cards" / "base"
TARGETS = ("records", "cards", "dsl", "schemas", "pantries")

PACK_YAML = "id: fuzz-pack\nname: Fuzzed cards\n"
PROBE_ID = "fuzz-probe"


# running the command


class Hang(BaseException):
    """Raised by the alarm when one call runs past its time limit (BaseException: nothing swallows it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    argv: list[str]
    status: Any = None
    out: str = ""
    err: str = ""
    crash: str = ""  # the traceback of an exception that escaped main()
    seconds: float = 0.0


def run_main(argv: list[str], seconds: float = 10.0) -> Outcome:
    """Run ``critter_kitchen.cli.main(argv)`` in this process, capturing everything."""
    from critter_kitchen.cli import main

    outcome = Outcome(list(argv))
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()  # CPU time: what the input costs, whatever else the machine is doing
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(seconds):
            outcome.status = main(argv)
    except Hang as e:
        outcome.crash = f"hang: {e}"
    except SystemExit as e:  # argparse: wrong usage is never what these inputs are
        outcome.status = f"SystemExit({e.code})"
    except BaseException:  # noqa: BLE001 - an escaping exception is exactly what is looked for
        outcome.crash = traceback.format_exc()
    outcome.seconds = time.process_time() - start
    outcome.out, outcome.err = out.getvalue(), err.getvalue()
    return outcome


LOCATED = re.compile(r"^(\d+):(\d+): \S")


def line_problems(err: str, paths: list[str]) -> list[str]:
    """Lines of standard error that are not clean problem lines about one of ``paths``."""
    bad = []
    for line in err.split("\n")[:-1] if err.endswith("\n") else err.split("\n"):
        if line.startswith("    ") or line.startswith("critter-kitchen: "):
            continue
        prefix = next((p for p in sorted(paths, key=len, reverse=True) if line.startswith(p + ":")), None)
        if prefix is None:
            bad.append(line)
            continue
        rest = line[len(prefix) + 1 :]
        located = LOCATED.match(rest)
        if located:
            if int(located.group(1)) < 1 or int(located.group(2)) < 1:
                bad.append(line)
        elif not re.match(r"^ \S", rest):
            bad.append(line)
    return bad


def check(outcome: Outcome, paths: list[str], *, command: str) -> list[str]:
    """Everything wrong with one outcome (empty when it is one of the allowed ones)."""
    if outcome.crash:
        return [outcome.crash]
    found = []
    if outcome.status == 0:
        if command == "score":
            found += result_problems(outcome.out)
        elif command == "text":
            if not outcome.out.strip():
                found.append("exit 0 without a result")
        elif not outcome.out.startswith("ok: "):
            found.append(f"exit 0 without 'ok:': {outcome.out[:200]!r}")
        if outcome.err:
            found.append(f"exit 0 with standard error output: {outcome.err[:300]!r}")
    elif outcome.status == 1:
        if outcome.out:
            found.append(f"exit 1 with standard output: {outcome.out[:300]!r}")
        if not outcome.err.strip():
            found.append("exit 1 without any message")
        found += [f"unclean error line: {line[:300]!r}" for line in line_problems(outcome.err, paths)]
    else:
        found.append(f"exit status {outcome.status!r}")
    return found


def result_problems(out: str) -> list[str]:
    """What is wrong with a printed JSON result (one object)."""
    try:
        result = json.loads(out)
    except ValueError as e:
        return [f"exit 0 without a JSON result: {e}: {out[:200]!r}"]
    found = []
    standings = result.get("standings", [])
    winners = result.get("winners", [])
    # ranks 1..n, but the players who share a win (the winners) all rank 1
    expected_ranks = [1 if i < len(winners) else i + 1 for i in range(len(standings))]
    if [s.get("rank") for s in standings] != expected_ranks:
        found.append("ranks are not 1..n (the winners sharing 1)")
    if not standings or result.get("winner") != standings[0].get("name"):
        found.append("the winner is not ranked first")
    if not winners or winners != [s.get("name") for s in standings[: len(winners)]]:
        found.append("the winners are not the players ranked first")
    totals = {s["name"]: 0 for s in standings}
    for a in result.get("awards", []):
        if a["player"] not in totals:
            found.append(f"an award to {a['player']!r}, who is not in the standings")
            continue
        totals[a["player"]] += a["stars"]
    if any(totals[s["name"]] != s["stars"] for s in standings if not s.get("automated")):
        found.append("awards do not add up to the stars")
    return found


# inputs shared by the strategies

RECORD_WORDS = [
    "players", "cards", "challenges", "critic", "rumors", "round3", "round6", "challenge_meals",
    "critic_meals", "courses", "ingredients", "type", "value", "spice", "soup", "bisque", "kept",
    "name", "restaurateur", "counters", "automated", "stars", "critic_quality", "token", "allspice",
    "Ana", "Ben", "Cleo", "carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread",
]  # fmt: skip
CARD_WORDS = [
    "id", "kind", "name", "text", "flavor", "effects", "after", "before", "replace", "do", "requires",
    "parameters", "rules", "rumor", "critic", "restaurateur", "challenge", "stages", "tiebreaks", "by",
    "label", "ingredients", "card_kinds", "record", "schema", "single", "value", "unverified",
    "remove_stages", "priority_label", "counters", "critic.rumors", "critic.card_bonuses",
    "critic.most_soup", "critic.best_course", "challenge.round3", "critic.final_quality",
    "spices_per_course", "course_spice_factor", "token_values", "challenge_bands", "base",
]  # fmt: skip
NASTY = [
    "&a ", "*a", "*b", "!!python/object/apply:os.system ['true']", "!!python/name:os.system", "!!binary aGk=",
    "!!set {a, b}", "<<: {a: 1}", "? [a]\n: b", "\t", "\x00", "\ufeff", "\u2028", "\x85", "- ", ": ", "{", "}",
    "[", "]", "'", '"', "#", "|", ">", "%YAML 1.1\n---\n", "---\n", "...\n", "~", "null", "yes", "no", ".nan",
    ".inf", "-.inf", "0x1F", "0o17", "1_000", "1e400", "2024-01-01", "-1", "0", "3", "1000001",
    "1" + "0" * 30, "1" + "0" * 5000, "x" * 300, "é", "\U0001f600", "\\", "%", "@", "`",
]  # fmt: skip

YAML_KEYS = st.one_of(st.sampled_from(RECORD_WORDS + CARD_WORDS), st.text(max_size=8))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(),
    st.sampled_from([10**100, -(10**100), 2**63, 1_000_000, 1_000_001, 0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(RECORD_WORDS + CARD_WORDS),
    st.text(max_size=20),
)


def yaml_values(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    """Random YAML-able structures: nested mappings and lists of odd scalars."""
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(YAML_KEYS, inner, max_size=5),
        ),
        max_leaves=max_leaves,
    )


def dump(value: Any, form: str) -> str:
    if form == "json":
        return json.dumps(value, ensure_ascii=False)
    return yaml.safe_dump(value, allow_unicode=True, default_flow_style=form == "flow", sort_keys=False)


@cache
def seed_texts(target: str) -> tuple[tuple[str, str], ...]:
    """(file name, text) of the shipped files each target starts its mutations from."""
    if target == "records":
        files = [
            *sorted((ROOT / "examples").glob("*.yaml")),
            *sorted((ROOT / "tests" / "golden").glob("*.yaml")),
            *sorted((ROOT / "tests" / "records" / "invalid").glob("*.yaml")),
            *sorted((ROOT / "tests" / "records" / "invalid").glob("*.json")),
        ]
    elif target == "cards":
        files = [
            *sorted(BASE.rglob("*.yaml")),
            *sorted((ROOT / "tests" / "packs").rglob("*.yaml")),
            *sorted((ROOT / "tests" / "cards" / "invalid").glob("*.yaml")),
        ]
    elif target == "schemas":
        files = [
            *sorted((ROOT / "schemas").glob("*.json")),
            *sorted((ROOT / "cards").rglob("*.json")),
            *sorted((ROOT / "tests" / "hostile" / "schemas").rglob("*.json")),
        ]
    elif target == "pantries":
        return tuple((f"pantry{i}.json", json.dumps(data)) for i, data in enumerate(seed_pantries()))
    else:
        return tuple((f"body{i}", body) for i, body in enumerate(effect_bodies()))
    out = []
    for f in files:
        try:
            out.append((f.name, f.read_text("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(out)


@cache
def effect_bodies() -> tuple[str, ...]:
    """Every effect-language text in the shipped cards and the test packs."""
    bodies: list[str] = []
    for f in [*sorted(BASE.rglob("*.yaml")), *sorted((ROOT / "tests").rglob("*.yaml"))]:
        try:
            data = yaml.safe_load(f.read_text("utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        for part in ("effects", "stages"):
            for spec in data.get(part) or []:
                if isinstance(spec, dict) and isinstance(spec.get("do"), str):
                    bodies.append(spec["do"])
        for spec in data.get("tiebreaks") or []:
            if isinstance(spec, dict) and isinstance(spec.get("by"), str):
                bodies.append(f"let x = {spec['by']}")
    return tuple(dict.fromkeys(bodies))


# mutations


@st.composite
def mutated_text(draw: Any, text: str, most: int = 5) -> str:
    """``text`` with a few characters or lines deleted, duplicated, replaced or inserted."""
    for _ in range(draw(st.integers(1, most))):
        n = len(text)
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "insert", "swap_lines", "indent"]))
        i = draw(st.integers(0, n))
        j = min(n, i + draw(st.sampled_from([1, 1, 1, 2, 5, 20, 200])))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] * draw(st.sampled_from([1, 1, 2, 50])) + text[j:]
        elif op == "replace":
            text = text[:i] + draw(st.characters()) + text[i + 1 :]
        elif op == "insert":
            text = text[:i] + draw(st.one_of(st.sampled_from(NASTY), st.text(max_size=4))) + text[i:]
        elif op == "swap_lines":
            lines = text.split("\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        else:
            lines = text.split("\n")
            a = draw(st.integers(0, len(lines) - 1))
            lines[a] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + lines[a].lstrip(
                draw(st.sampled_from(["", " "]))
            )
            text = "\n".join(lines)
    return text


def _paths(value: Any, here: tuple = ()) -> Iterator[tuple]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*here, i))


@st.composite
def mutated_data(draw: Any, data: Any) -> Any:
    """``data`` with a few values deleted, duplicated, replaced, renamed or wrapped."""
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 4))):
        paths = [p for p in itertools.islice(_paths(data), 2000) if p]  # an alias bomb has millions
        if not paths:
            return draw(yaml_values(8))
        path = draw(st.sampled_from(paths))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        old = parent[key]
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "near", "rename", "wrap", "none"]))
        if op == "delete":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(old))
        elif op == "rename" and isinstance(parent, dict):
            new_key = draw(YAML_KEYS)
            parent[new_key] = parent.pop(key)
        elif op == "wrap":
            parent[key] = draw(st.sampled_from([[old], {"value": old}, [old, old]]))
        elif op == "none":
            parent[key] = None
        elif op == "near":
            parent[key] = draw(_near(old))
        else:
            parent[key] = draw(yaml_values(6))
    return data


def _near(value: Any) -> st.SearchStrategy[Any]:
    if isinstance(value, bool):
        return st.sampled_from([not value, 0, 1, "yes"])
    if isinstance(value, int):
        return st.sampled_from([value + 1, value - 1, 0, -value, value * 10**6, 10**100, float(value), str(value)])
    if isinstance(value, str):
        return st.one_of(
            st.sampled_from(RECORD_WORDS + CARD_WORDS),
            st.just(value + value[-1:]),
            st.just(value[:-1]),
            st.just(value.upper()),
            st.just(value * 2000),
        )
    return yaml_values(6)


def to_bytes(text: str, draw: Any) -> bytes:
    raw = text.encode("utf-8", "surrogatepass")
    if raw and draw(st.integers(0, 9)) == 0:  # now and then, bytes that are not UTF-8
        i = draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xff", b"\x00"])) + raw[i + 1 :]
    return raw


# the record target


@st.composite
def record_inputs(draw: Any) -> tuple[str, bytes]:
    """(file suffix, file bytes) of a random or mutated game record."""
    import gen  # tests/gen.py: random legal games

    kind = draw(st.sampled_from(["text", "structure", "seed-text", "seed-data", "game-data", "game-data"]))
    form = draw(st.sampled_from(["yaml", "flow", "json"]))
    if kind == "text":
        text = draw(st.one_of(st.text(), st.text(alphabet="{}[]:,-&*!|>'\"#%@ \n\t0123456789abcdefkx")))
    elif kind == "structure":
        text = dump(draw(yaml_values()), form)
    elif kind == "seed-text":
        name, seed = draw(st.sampled_from(seed_texts("records")))
        form = "json" if name.endswith(".json") else "yaml"
        text = draw(mutated_text(seed))
    elif kind == "seed-data":
        _, seed = draw(st.sampled_from([s for s in seed_texts("records") if s[0].startswith(("two", "three"))]))
        text = dump(draw(mutated_data(yaml.safe_load(seed))), form)
    else:
        text = dump(draw(mutated_data(draw(gen.full_games()))), form)
    return (".json" if form == "json" else ".yaml"), to_bytes(text, draw)


def run_record(workdir: Path, suffix: str, raw: bytes, seconds: float = 10.0) -> list[str]:
    """Score and validate one record file in ``workdir`` (the working folder); return the failures."""
    name = "record" + suffix
    (workdir / name).write_bytes(raw)
    found = []
    for argv, command in (
        (["score", name, "--format", "json"], "score"),
        (["score", name, "--explain"], "text"),
        (["validate", name], "validate"),
    ):
        outcome = run_main(argv, seconds)
        found += [f"{' '.join(argv)}: {p}" for p in check(outcome, [name], command=command)]
    return found


# the pantry target

PANTRY_KINDS = ["carrot", "fish", "cheese", "mushroom", "meat", "wine", "bread"]
PANTRY_CARDS = ["harbor-stew", "forest-risotto", "farmhouse-pie", "garden-gratin", "toasted-cheese", "mushroom-toast"]


@st.composite
def pantry_data(draw: Any) -> dict[str, Any]:
    """A pantry of the base pack: a challenge round or the critic meal, its items of any size."""
    n = draw(st.sampled_from([0, 1, 3, 8, 12, 40, 199, 201, 2000]))
    spices = draw(st.sampled_from([0, 1, 4, 16, 32, 100]))
    value = st.sampled_from([1, 2, 5, 9, 1_000_000]) | st.integers(1, 1_000_000)
    critic = draw(st.integers(0, 3)) == 0
    return {
        "for": "critic" if critic else "round3",
        "cards": {
            "challenges": {"round3": draw(st.permutations(PANTRY_CARDS))[:3]},
            **({"critic": "madame-bouillon"} if critic or draw(st.booleans()) else {}),
        },
        "player": {"name": "Ana", **({"restaurateur": "harbor-master"} if draw(st.booleans()) else {})},
        "pantry": {
            "ingredients": [{"type": PANTRY_KINDS[i % 7], "value": draw(value)} for i in range(min(n, 12))]
            + [{"type": PANTRY_KINDS[i % 7], "value": 1 + i % 9} for i in range(12, n)],
            "spices": [[*PANTRY_KINDS, "allspice"][i % 8] for i in range(spices)],
            "soup": draw(st.sampled_from([0, 1, 3, 1000, 1_000_000])),
            "bisque": draw(st.sampled_from([0, 1, 3, 1000, 1_000_000])),
        },
    }


def seed_pantries() -> list[dict[str, Any]]:
    """Pantries to start from: a small real one, then one of each hostile shape (many spices,
    millions of tokens, too many items)."""
    cards = {"challenges": {"round3": PANTRY_CARDS[:3]}}
    real = [{"type": "fish", "value": 3}, {"type": "carrot", "value": 5}, {"type": "bread", "value": 2}]
    return [
        {"for": "round3", "cards": cards, "pantry": {"ingredients": real, "spices": ["fish"], "soup": 1}},
        {"for": "round3", "cards": cards, "pantry": {"ingredients": real[:1], "spices": ["fish", "carrot"] * 16}},
        {"for": "round3", "cards": cards, "pantry": {"ingredients": real, "soup": 1_000_000, "bisque": 1_000_000}},
        {"for": "critic", "cards": {"critic": "madame-bouillon"}, "pantry": {"ingredients": real, "soup": 1_000_000}},
        {"for": "round3", "cards": cards, "pantry": {"ingredients": real * 700}},
    ]


@st.composite
def pantry_inputs(draw: Any) -> tuple[str, bytes]:
    """(file suffix, file bytes) of a random, grown or mutated pantry."""
    form = draw(st.sampled_from(["yaml", "flow", "json"]))
    data = draw(st.one_of(pantry_data(), st.sampled_from(seed_pantries())))
    if draw(st.booleans()):
        data = draw(mutated_data(data))
    return (".json" if form == "json" else ".yaml"), to_bytes(dump(data, form), draw)


def run_pantry(workdir: Path, suffix: str, raw: bytes, seconds: float = 10.0) -> list[str]:
    """Plan one pantry file in ``workdir`` with each effort; return the failures."""
    name = "pantry" + suffix
    (workdir / name).write_bytes(raw)
    found = []
    for effort in ("exact", "fast"):
        argv = ["plan", name, "--format", "json", "--effort", effort]
        outcome = run_main(argv, seconds)
        found += [f"{' '.join(argv)}: {p}" for p in check(outcome, [name], command="text")]
    return found


# the card target


@cache
def _example_game() -> dict:
    return yaml.safe_load((ROOT / "examples" / "two-players.yaml").read_text("utf-8"))


@st.composite
def card_inputs(draw: Any) -> tuple[str, bytes]:
    """(which file, bytes): ``card`` for a card file of a one-card pack, or a base pack file name."""
    kind = draw(st.sampled_from(["seed-text", "seed-text", "seed-data", "structure", "base-file"]))
    if kind == "structure":
        return "card", to_bytes(dump(draw(yaml_values()), draw(st.sampled_from(["yaml", "flow"]))), draw)
    seeds = seed_texts("cards")
    if kind == "base-file":
        files = sorted(BASE.rglob("*.yaml"))
        f = draw(st.sampled_from(files))
        return str(f.relative_to(BASE)), to_bytes(draw(mutated_text(f.read_text("utf-8"))), draw)
    _, seed = draw(st.sampled_from(seeds))
    if kind == "seed-text":
        return "card", to_bytes(draw(mutated_text(seed)), draw)
    try:
        data = yaml.safe_load(seed)
    except yaml.YAMLError:
        data = None
    return "card", to_bytes(dump(draw(mutated_data(data)), "yaml"), draw)


def _card_game(card: dict) -> dict | None:
    """The example game with ``card`` in play, or None if the card is of no kind a game holds."""
    game = copy.deepcopy(_example_game())
    kind, cid = card.get("kind"), card.get("id")
    if kind == "critic":
        game["cards"]["critic"] = cid
    elif kind == "rumor":
        game["cards"]["rumors"] = [cid, "fish-fanatic"]
    elif kind == "restaurateur":
        game["players"][1]["restaurateur"] = cid
    else:
        return None
    return game


def _score_with_pack(workdir: Path, card_text: bytes, seconds: float) -> list[str]:
    try:
        card = yaml.safe_load(card_text.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, ValueError, RecursionError):
        return []
    if not isinstance(card, dict):
        return []
    game = _card_game(card)
    if game is None:
        return []
    (workdir / "game.json").write_text(json.dumps(game), "utf-8")
    argv = ["score", "game.json", "--pack", "pack", "--format", "json"]
    return [f"{' '.join(argv)}: {p}" for p in check(run_main(argv, seconds), ["game.json"], command="score")]


def _pack_paths(folder: str) -> list[str]:
    return [folder, f"{folder}/pack.yaml", f"{folder}/card.yaml"]


def run_card(workdir: Path, which: str, raw: bytes, seconds: float = 10.0) -> list[str]:
    """Validate a fuzzed card (and score a game with it in play when it loads); return the failures."""
    if which == "card":
        return _validate_one_card_pack(workdir, raw, seconds)
    return run_base_file(workdir, which, raw, seconds)


def _validate_one_card_pack(workdir: Path, raw: bytes, seconds: float) -> list[str]:
    """Validate a pack holding ``raw`` as its only card; score a game with it when it loads."""
    pack = workdir / "pack"
    pack.mkdir(exist_ok=True)
    (pack / "pack.yaml").write_text(PACK_YAML, "utf-8")
    (pack / "card.yaml").write_bytes(raw)
    argv = ["validate", "pack"]
    outcome = run_main(argv, seconds)
    found = [f"{' '.join(argv)}: {p}" for p in check(outcome, _pack_paths("pack"), command="validate")]
    if outcome.status == 0:
        found += _score_with_pack(workdir, raw, seconds)
    return found


def base_copy(workdir: Path) -> Path:
    """A copy of the base pack in ``workdir/base``, made once."""
    copy_dir = workdir / "base"
    if not copy_dir.is_dir():
        shutil.copytree(BASE, copy_dir)
    return copy_dir


def run_base_file(workdir: Path, relative: str, raw: bytes, seconds: float) -> list[str]:
    """Validate a copy of the base pack with one file changed, then put the file back."""
    from critter_kitchen import CritterError, load_ruleset, score_record

    copy_dir = base_copy(workdir)
    target = copy_dir / relative
    original = (BASE / relative).read_bytes()
    target.write_bytes(raw)
    try:
        argv = ["validate", "base"]
        outcome = run_main(argv, seconds)
        paths = ["base", *(f"base/{p.relative_to(copy_dir)}" for p in copy_dir.rglob("*.yaml"))]
        found = [f"{' '.join(argv)}: {p}" for p in check(outcome, paths, command="validate")]
        if outcome.status == 0:
            try:
                with time_limit(seconds):
                    rules = load_ruleset(base=copy_dir)
                    for example in sorted((ROOT / "examples").glob("*.yaml")):
                        try:
                            score_record(yaml.safe_load(example.read_text("utf-8")), rules)
                        except CritterError:
                            pass
            except CritterError:
                pass
            except BaseException:  # noqa: BLE001
                found.append(f"scoring the examples with the changed base pack: {traceback.format_exc()}")
        return found
    finally:
        target.write_bytes(original)


# the DSL target

DSL_WORDS = [
    "award", "let", "set", "add", "multiply", "for", "in", "if", "else", "pass", "to", "by", "star", "stars",
    "and", "or", "not", "true", "false", "p", "t", "m", "r", "x", "owner", "players", "ingredient_types",
    "served", "quality", "value", "spiced", "total_quality", "tokens", "token_value", "stars", "stage_stars",
    "counter", "priority", "in_play", "meals", "player_of", "meal_quality", "meal_card", "uses",
    "meal_tokens", "meal_spices", "band", "lookup", "sum", "count", "max", "min", "any", "all", "each",
    "highest", "lowest", "course_types", "challenge_bands", "token_values", "challenge_rounds",
    "track_length", "score_track", "fish", "carrot", "bread", "round3", "round6", "soup", "bisque",
]  # fmt: skip
DSL_SYMBOLS = [
    "(", ")", ",", ":", "=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "//", "%", "0", "1", "2", "7",
    "10", "1" + "0" * 20, '"text"', '"{p}"', '"{quality(p, fish)}"', '"critic.rumors"', '"fish-fanatic"',
    "#", "{", "}", "'", ".", "[", "]", "\\", "é", "__import__", "__class__", "lambda", "while", "def",
]  # fmt: skip


@st.composite
def dsl_token_soup(draw: Any) -> str:
    """Lines of language words and symbols, at a few indentation depths."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        depth = draw(st.integers(0, 3))
        words = draw(st.lists(st.sampled_from(DSL_WORDS + DSL_SYMBOLS), min_size=1, max_size=12))
        lines.append("    " * depth + " ".join(words))
    return "\n".join(lines)


@st.composite
def dsl_token_mutation(draw: Any, text: str) -> str:
    """``text`` with a few of its words or symbols deleted, duplicated, replaced or swapped."""
    tokens = re.findall(r"\s+|\w+|\"[^\"\n]*\"|\S", text)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "swap"]))
        if op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        elif op == "replace":
            tokens[i] = draw(st.sampled_from(DSL_WORDS + DSL_SYMBOLS + [" ", "\n", "\n    "]))
        else:
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


@st.composite
def dsl_inputs(draw: Any) -> tuple[str, str]:
    """(card kind, effect-language text)."""
    kind = draw(st.sampled_from(["rumor", "rumor", "restaurateur", "critic"]))
    how = draw(st.sampled_from(["soup", "tokens", "tokens", "tokens", "chars", "chars", "text"]))
    if how == "soup":
        return kind, draw(dsl_token_soup())
    if how == "text":
        return kind, draw(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=80))
    body = draw(st.sampled_from(effect_bodies()))
    if how == "tokens":
        return kind, draw(dsl_token_mutation(body))
    return kind, draw(mutated_text(body, 2))


HOOKS = {
    "rumor": ("after", "critic.rumors"),
    "restaurateur": ("after", "critic.card_bonuses"),
    "critic": ("replace", "critic.most_soup"),
}


def _literal(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(str, _literal)


def dsl_card(kind: str, text: str) -> str:
    """A one-card YAML file whose only effect has ``text`` as its body."""
    timing, stage = HOOKS[kind]
    card = {"id": PROBE_ID, "kind": kind, "name": "Fuzz probe", "effects": [{timing: stage, "do": text}]}
    return yaml.dump(card, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=2**30)


def run_dsl(workdir: Path, kind: str, text: str, seconds: float = 10.0) -> list[str]:
    """Validate a one-card pack with ``text`` as an effect body; score a game with it when it loads."""
    return _validate_one_card_pack(workdir, dsl_card(kind, text).encode("utf-8", "surrogatepass"), seconds)


# the schema target

SCHEMA_FILE = "gadget.schema.json"
SCHEMA_RULES = (
    "id: fuzz-rules\nkind: rules\nname: Fuzzed rules\n"
    f"card_kinds:\n  gadget:\n    record: cards.gadgets\n    schema: {SCHEMA_FILE}\n"
)
SCHEMA_PARTS = '{"$defs": {"text": {"type": "string", "maxLength": 50}, "a": {"$ref": "gadget.schema.json#/$defs/a"}}}'
CANARY = "CANARY-7f3a9c"  # in a file outside the pack: never to be printed
SCHEMA_REFS = [
    "#", "#/$defs/a", "#/properties/name", "#/$defs/a/const", "#a", "#nope", "#/$defs/%61", "parts.json",
    "parts.json#/$defs/text", "parts.json#/$defs/a", "./parts.json", "sub/../parts.json", "../outside.json",
    "../../../etc/passwd.json", "/etc/passwd.json", "file:///etc/passwd", "outside-link.json", "%2e%2e/outside.json",
    "parts.json?x", "", "urn:x", "http://127.0.0.1:9/x.json", "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/meta/core", "https://critter-kitchen.example/schemas/card.schema.json",
]  # fmt: skip
SCHEMA_PATTERNS = [
    "^(a+)+$", "(a|a)*$", "^(a|aa)+$", "^[a-z0-9][a-z0-9_.-]*$", r"(a)\1", "(?=a)", "(?<!a)b", "a{1001}", "(", "[",
    "\\", r"\p{L}+", "", ".*", "é+", r"\d{2,}", "(?i)abc", "[[:alpha:]]", "\x00",
]  # fmt: skip
SCHEMA_KEYWORDS = [
    "type", "properties", "patternProperties", "additionalProperties", "propertyNames", "items", "prefixItems",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef", "$anchor", "$dynamicAnchor",
    "$id", "$schema", "$defs", "definitions", "pattern", "format", "const", "enum", "required", "minLength",
    "maxLength", "unevaluatedProperties", "unevaluatedItems", "contains", "dependentSchemas", "minimum",
]  # fmt: skip
SCHEMA_KEYS = ["id", "kind", "name", "a", "text", "brings", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"]


@st.composite
def schema_objects(draw: Any, depth: int = 0) -> dict[str, Any]:
    """A random schema made of JSON Schema keywords, each with a value of about the right kind."""
    out: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(SCHEMA_KEYWORDS), max_size=5, unique=True)):
        out[key] = draw(_keyword_value(key, depth))
    return out


def _keyword_value(key: str, depth: int) -> st.SearchStrategy[Any]:
    sub = schema_objects(depth + 1) if depth < 4 else st.sampled_from([{}, True, False])
    if key in ("$ref", "$dynamicRef"):
        return st.sampled_from(SCHEMA_REFS)
    if key == "pattern":
        return st.sampled_from(SCHEMA_PATTERNS)
    if key == "patternProperties":
        return st.dictionaries(st.sampled_from(SCHEMA_PATTERNS), sub, max_size=3)
    if key in ("properties", "$defs", "definitions", "dependentSchemas"):
        return st.dictionaries(st.sampled_from(SCHEMA_KEYS), sub, max_size=3)
    if key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        return st.lists(sub, max_size=3)
    if key == "$schema":
        return st.sampled_from(
            ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", 5]
        )
    if key == "$id":
        return st.sampled_from(["https://critter-kitchen.example/packs/fuzz/", "file:///etc/", "sub/", "urn:x", "#a"])
    if key in ("$anchor", "$dynamicAnchor"):
        return st.sampled_from(["a", "meta", "x y", ""])
    if key == "type":
        return st.sampled_from(["object", "string", "strin", ["string", "null"], "integer"])
    if key == "required":
        return st.lists(st.sampled_from(SCHEMA_KEYS), max_size=3)
    if key == "format":
        return st.sampled_from(["regex", "uri", "email", "date"])
    return st.one_of(sub, SCALARS)


@st.composite
def schema_inputs(draw: Any) -> tuple[bytes, bytes]:
    """(schema file bytes, card file bytes): a pack's own schema and a card of its kind."""
    how = draw(st.sampled_from(["structure", "structure", "seed-text", "seed-data", "deep"]))
    if how == "structure":
        text = json.dumps(draw(schema_objects()), ensure_ascii=False)
    elif how == "deep":
        depth = draw(st.sampled_from([63, 64, 65, 1000, 5000]))
        opener, closer = draw(st.sampled_from([('{"allOf": [', "]}"), ('{"not": ', "}"), ("[", "]")]))
        text = opener * depth + "{}" + closer * depth
    else:
        _, seed = draw(st.sampled_from(seed_texts("schemas")))
        if how == "seed-text":
            text = draw(mutated_text(seed))
        else:
            text = json.dumps(draw(mutated_data(json.loads(seed))), ensure_ascii=False)
    name = draw(st.sampled_from(["A gadget", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "", "aaa"]))
    card = {"id": "fuzz-gadget", "kind": "gadget", "name": name}
    card.update(draw(st.dictionaries(st.sampled_from(SCHEMA_KEYS), yaml_values(6), max_size=3)))
    return to_bytes(text, draw), dump(card, "yaml").encode("utf-8", "surrogatepass")


def run_schema(workdir: Path, schema: bytes, card: bytes, seconds: float = 10.0) -> list[str]:
    """Validate a pack checked by a schema of its own; return the failures."""
    pack = workdir / "pack"
    shutil.rmtree(pack, ignore_errors=True)
    pack.mkdir()
    (workdir / "outside.json").write_text(json.dumps({"const": CANARY, "type": "integer", "$defs": {"a": {}}}))
    (pack / "outside-link.json").symlink_to(workdir / "outside.json")
    (pack / "pack.yaml").write_text(PACK_YAML, "utf-8")
    (pack / "rules.yaml").write_text(SCHEMA_RULES, "utf-8")
    (pack / "parts.json").write_text(SCHEMA_PARTS, "utf-8")
    (pack / SCHEMA_FILE).write_bytes(schema)
    (pack / "card.yaml").write_bytes(card)
    argv = ["validate", "pack"]
    outcome = run_main(argv, seconds)
    paths = [
        *_pack_paths("pack"),
        "pack/rules.yaml",
        f"pack/{SCHEMA_FILE}",
        "pack/parts.json",
        "pack/outside-link.json",
    ]
    found = [f"{' '.join(argv)}: {p}" for p in check(outcome, paths, command="validate")]
    if CANARY in outcome.out + outcome.err:
        found.append(f"{' '.join(argv)}: a value from a file outside the pack was printed")
    return found


# one entry point for every target


@dataclass
class Target:
    name: str
    strategy: Callable[[], st.SearchStrategy[Any]]
    run: Callable[..., list[str]]
    cache_off: bool  # card targets load a new pack every time: caching would only fill the disk


TARGET_SPECS = {
    "records": Target("records", record_inputs, lambda w, case, s: run_record(w, case[0], case[1], s), False),
    "cards": Target("cards", card_inputs, lambda w, case, s: run_card(w, case[0], case[1], s), True),
    "dsl": Target("dsl", dsl_inputs, lambda w, case, s: run_dsl(w, case[0], case[1], s), True),
    "schemas": Target("schemas", schema_inputs, lambda w, case, s: run_schema(w, case[0], case[1], s), True),
    "pantries": Target("pantries", pantry_inputs, lambda w, case, s: run_pantry(w, case[0], case[1], s), False),
}


def case_bytes(target: str, case: Any) -> tuple[str, bytes]:
    """A file name and the bytes to save for a failing input."""
    if case is None:
        return "none.txt", b""
    if target == "records":
        return "record" + case[0], case[1]
    if target == "pantries":
        return "pantry" + case[0], case[1]
    if target == "cards":
        return ("card.yaml" if case[0] == "card" else case[0].replace("/", "__")), case[1]
    if target == "schemas":
        return SCHEMA_FILE, case[0]
    return "card.yaml", dsl_card(case[0], case[1]).encode("utf-8", "surrogatepass")


# engine bugs already reported: their failures are counted apart from new ones


def _has_line_break_text(raw: bytes) -> bool:
    """Whether the parsed input holds a key or text with a line break in it (echoed raw in messages)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        data = json.loads(text)
    except Exception:  # noqa: BLE001 - not JSON: YAML then (flow YAML starts like JSON)
        try:
            data = yaml.safe_load(text)
        except Exception:  # noqa: BLE001 - unparsable input echoes nothing
            return False

    def walk(v: Any) -> bool:
        if isinstance(v, str):
            return any(c in v for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        if isinstance(v, dict):  # prose and effect text are never echoed raw
            return any(walk(str(k)) or (k not in PROSE and walk(x)) for k, x in v.items())
        if isinstance(v, list):
            return any(walk(x) for x in v)
        return False

    try:
        return walk(data)
    except RecursionError:
        return False


PROSE = ("do", "by", "text", "flavor", "description", "unverified")

# Engine bugs reported but not yet fixed, by name: a fuzz run counts their failures apart
# from new ones. All those found so far are fixed; the classifier below still names them,
# so a regression shows up as a failure of a known kind.
KNOWN_ISSUES: dict[str, str] = {}


def known_issue(failure: str, raw: bytes) -> str | None:
    """The name of an open, already reported engine bug behind ``failure``, or None if it is new."""
    name = _classify(failure, raw)
    return name if name in KNOWN_ISSUES else None


def _classify(failure: str, raw: bytes) -> str | None:
    """The kind of an engine bug once found by fuzzing, if ``failure`` looks like one."""
    if re.search(r"unclean error line: '  in \"<unicode string>\", position \d+'", failure):
        return "yaml-reader-error"
    if "DedentError" in failure:
        return "dsl-dedent"
    if "Exceeds the limit (4300 digits)" in failure:
        return "int-digits"
    if "TypeError: unhashable type" in failure and "player_cards" in failure:
        return "unhashable-name"
    if "changed base pack" in failure and "KeyError" in failure:
        return "unchecked-rules-parameters"
    if "RecursionError" in failure and ("expr_neg" in failure or "expr_not" in failure):
        return "unary-depth"
    if "unclean error line" in failure and _has_line_break_text(raw):
        return "raw-line-break"
    return None

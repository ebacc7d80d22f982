"""The language server (``critter-kitchen lsp``) driven as an editor drives it: a real
process, spoken to over standard input and output by pytest-lsp's client.

Its problems are compared with what ``critter-kitchen validate`` prints for the same text
saved to disk (the same codes, messages and places), its hovers with the registry and with
what ``critter-kitchen cards`` prints."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# CI (.ci/run) sets this: there, a missing editor extra fails these tests instead of skipping them.
REQUIRE_ENV = "CRITTER_KITCHEN_REQUIRE_EDITOR"
try:
    import pytest_lsp
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, LanguageClient
except ImportError as e:  # pragma: no cover - depends on the extras installed
    if os.environ.get(REQUIRE_ENV):
        raise ImportError(f"the editor-test extra is missing ({e}), and {REQUIRE_ENV} is set") from e
    pytest.skip(f"the editor-test extra is not installed ({e})", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "cards" / "base" / "rules.yaml"

WAIT = 20  # seconds a test waits for the server's answer before it fails

PACK = "id: lsp-test\nname: Language server test pack\n"
SALTY = textwrap.dedent(
    """\
    id: salty-rumor
    kind: rumor
    name: Salty Rumor
    text: Whoever serves fish gets a star.
    effects:
      - after: critic.rumors
        do: |
          for p in players:
              let q = quality(p, fish)
              if q > 0 and in_play("pepper-rumor"):
                  award 1 star to p for "salty"
    """
)
PEPPER = textwrap.dedent(
    """\
    id: pepper-rumor
    kind: rumor
    name: Pepper Rumor
    text: Nothing happens.
    effects:
      - after: critic.rumors
        do: pass
    """
)


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lsp") / "lsp-test"
    (folder / "rumors").mkdir(parents=True)
    (folder / "pack.yaml").write_text(PACK, "utf-8")
    (folder / "rumors" / "salty-rumor.yaml").write_text(SALTY, "utf-8")
    (folder / "rumors" / "pepper-rumor.yaml").write_text(PEPPER, "utf-8")
    return folder


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "critter_kitchen", "lsp"]),
)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=pytest_lsp.client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


pytestmark = pytest.mark.asyncio(loop_scope="module")


def uri(path: Path) -> str:
    return path.resolve().as_uri()


async def opened(client: LanguageClient, path: Path, text: str) -> list[types.Diagnostic]:
    """Open ``path`` with ``text`` (unsaved: the disk keeps its own) and wait for its problems."""
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri(path), "yaml", 1, text)))
    return await problems_of(client, path)


async def problems_of(client: LanguageClient, path: Path) -> list[types.Diagnostic]:
    while True:
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT)
        if uri(path) in client.diagnostics:
            return list(client.diagnostics.pop(uri(path)))


def validate_json(path: Path, text: str, tmp: Path, also: dict[Path, str] | None = None) -> list[dict]:
    """What ``validate --format json`` says of ``path`` with ``text`` saved in it (and the
    files of ``also`` with theirs), each file's own text put back after."""
    saved = {path: text, **(also or {})}
    kept = {p: p.read_text("utf-8") for p in saved}
    for p, t in saved.items():
        p.write_text(t, "utf-8")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "critter_kitchen", "validate", "--format", "json", str(path)],
            capture_output=True,
            text=True,
        )
    finally:
        for p, t in kept.items():
            p.write_text(t, "utf-8")
    return json.loads(done.stdout)


def as_validate(d: types.Diagnostic) -> tuple[int, int, str, str]:
    return d.range.start.line + 1, d.range.start.character + 1, str(d.code), d.message


@pytest.mark.asyncio(loop_scope="module")
async def test_problems_as_typed_are_validates(client: LanguageClient, pack: Path, tmp_path: Path) -> None:
    card = pack / "rumors" / "salty-rumor.yaml"
    broken = SALTY.replace("quality(p, fish)", "qualty(p, fish)").replace(
        'in_play("pepper-rumor")', 'in_play("peper-rumor")'
    )
    found = await opened(client, card, broken)
    expected = validate_json(card, broken, tmp_path)
    assert [as_validate(d) for d in found] == [(e["line"], e["column"], e["code"], e["message"]) for e in expected]
    assert [(d.code, d.message, d.range) for d in found] == [
        (
            "CK202",
            "unknown function 'qualty'; did you mean 'quality'?",
            types.Range(types.Position(8, 18), types.Position(8, 24)),
        ),
        (
            "CK207",
            "unknown card 'peper-rumor'; did you mean 'pepper-rumor'?",
            types.Range(types.Position(9, 31), types.Position(9, 44)),
        ),
    ]
    assert card.read_text("utf-8") == SALTY  # the disk keeps its own text

    # an incremental change: the typo mended, one problem left
    at = types.Range(types.Position(8, 18), types.Position(8, 24))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri(card)),
            [types.TextDocumentContentChangePartial(range=at, text="quality")],
        )
    )
    found = await problems_of(client, card)
    assert [(d.code, d.range.start.line) for d in found] == [("CK207", 9)]
    broken_now = broken.replace("qualty", "quality")

    # a record kept in the pack is checked against the pack as the editor has it: broken
    record = pack / "game.yaml"
    text = "players:\n  - name: Ana\n"
    record.write_text(text, "utf-8")
    try:
        found = await opened(client, record, text)
        expected = validate_json(record, text, tmp_path, {card: broken_now})
    finally:
        record.unlink()
    assert [(d.code, d.message, d.range.start.line) for d in found] == [
        (
            "CK207",
            f"with this pack loaded, {card}:10:32: unknown card 'peper-rumor'; did you mean 'pepper-rumor'?",
            0,
        )
    ]
    assert expected == [  # validate, with the card's text saved, tells the same problem at the card
        {
            "path": str(card),
            "line": 10,
            "column": 32,
            "code": "CK207",
            "message": "unknown card 'peper-rumor'; did you mean 'pepper-rumor'?",
        }
    ]
    for path in (card, record):
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(path))))


RULES_CARD = textwrap.dedent(
    """\
    id: lsp-test-rules
    kind: rules
    name: Test rules
    parameters:
      salt_stars: {type: int, value: 1, description: stars for salt, scope: table}
    """
)
RECORD = textwrap.dedent(
    """\
    players:
      - name: Ana
        restaurateur: lucky-kat
      - name: Bo
    cards:
      critic: baron-pepperpot
      rumors: [fish-fanatic, salty-rumor]
    """
)


@pytest.mark.parametrize(
    ("where", "text", "codes"),
    [
        ("pack.yaml", "id: lsp-test\nname: Language server test pack\nsize: 3\n", 1),
        ("rules.yaml", RULES_CARD.replace("type: int, value: 1", "type: int, value: many"), 1),
        ("records/game.yaml", RECORD, 2),
    ],
)
async def test_pack_rules_and_record_problems_are_validates(
    client: LanguageClient, pack: Path, tmp_path: Path, where: str, text: str, codes: int
) -> None:
    path = pack / where
    path.parent.mkdir(exist_ok=True)
    path.write_text(RULES_CARD if where == "rules.yaml" else PACK if where == "pack.yaml" else "players: []\n", "utf-8")
    found = await opened(client, path, text)
    expected = validate_json(path, text, tmp_path)
    assert [as_validate(d) for d in found] == [(e["line"], e["column"], e["code"], e["message"]) for e in expected]
    assert len(found) == codes
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(path))))
    assert await problems_of(client, path) == []  # a closed file's problems are taken away
    if where != "pack.yaml":
        path.unlink()


async def test_unsaved_edits_of_other_open_files_count(client: LanguageClient, pack: Path) -> None:
    """The salty rumor names the pepper rumor; renamed in its open (unsaved) buffer, the name is unknown."""
    card = pack / "rumors" / "salty-rumor.yaml"
    other = pack / "rumors" / "pepper-rumor.yaml"
    assert await opened(client, card, SALTY) == []
    renamed = PEPPER.replace("id: pepper-rumor", "id: paprika-rumor")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri(other), "yaml", 1, renamed))
    )
    found = await problems_of(client, card)
    assert [(d.code, d.message) for d in found] == [
        ("CK207", "unknown card 'pepper-rumor'; did you mean 'paprika-rumor'?")
    ]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(other))))
    assert await problems_of(client, card) == []


async def hover_at(client: LanguageClient, path: Path, line: int, character: int) -> str | None:
    found = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri(path)), types.Position(line, character))
        ),
        WAIT,
    )
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_hovers(client: LanguageClient, pack: Path) -> None:
    from critter_kitchen.dsl import types as t
    from critter_kitchen.dsl.registry import FUNCTIONS, STATEMENTS

    card = pack / "rumors" / "salty-rumor.yaml"
    await opened(client, card, SALTY)
    quality = FUNCTIONS["quality"]
    assert await hover_at(client, card, 8, 20) == (
        "```\nquality(p, t)\n```\nfunction · arguments: p: a player, t: an ingredient type · gives a number\n\n"
        + quality.doc
    )
    assert t.describe(quality.returns) == "a number"
    assert await hover_at(client, card, 10, 18) == f"```\n{STATEMENTS['award'].syntax}\n```\nstatement\n\n" + (
        STATEMENTS["award"].doc
    )
    # a card id in an effect: the card as `critter-kitchen cards ID` prints it
    shown = subprocess.run(
        [sys.executable, "-m", "critter_kitchen", "cards", "pepper-rumor", "--pack", str(pack)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert await hover_at(client, card, 9, 36) == f"```text\n{shown.rstrip()}\n```"
    # a stage: its short name, its description and the cards hooked to it
    stage = await hover_at(client, card, 5, 18)
    assert stage is not None
    assert stage.splitlines()[:5] == [
        "```text",
        "stage critic.rumors (Rumors)",
        "declared by base-rules",
        "",
        "the three rumors are revealed; their effects hook onto this stage",
    ]
    assert "  after: salty-rumor (Salty Rumor)" in stage.splitlines()
    assert "  after: fish-fanatic (Fish Fanatic)" in stage.splitlines()
    assert await hover_at(client, card, 3, 2) is None  # a key of the card file is nothing of the language


async def test_parameter_hover_says_where_it_was_set(client: LanguageClient, tmp_path: Path) -> None:
    record = tmp_path / "game.yaml"
    text = "packs: [no-friendly-ties]\nplayers:\n  - name: Ana\n# friendly_ties\n"
    record.write_text(text, "utf-8")
    await opened(client, record, text)
    found = await hover_at(client, record, 3, 5)
    assert found is not None
    lines = found.splitlines()
    assert lines[1:4] == [
        "parameter friendly_ties (bool, table)",
        "value in force: false",
        "set by no-friendly-ties-rules (" + os.path.relpath(ROOT / "cards/variants/no-friendly-ties/rules.yaml") + ")",
    ]
    assert lines[4] == "declared by base-rules (" + os.path.relpath(RULES) + ")"


async def labels(client: LanguageClient, path: Path, line: int, character: int) -> list[str]:
    found = await asyncio.wait_for(
        client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri(path)), types.Position(line, character))
        ),
        WAIT,
    )
    assert isinstance(found, types.CompletionList)
    return [i.label for i in found.items]


async def test_completions(client: LanguageClient, pack: Path) -> None:
    from critter_kitchen import load_ruleset

    base = load_ruleset()
    card = pack / "rumors" / "salty-rumor.yaml"
    await opened(client, card, SALTY)
    # after `after: `: the stages, in order
    assert await labels(client, card, 5, 11) == base.stage_names()
    # in an effect: names in scope first, then the language and the packs' names
    code = await labels(client, card, 10, 16)
    assert code[:2] == ["p", "q"]
    assert {"quality", "sum", "highest", "award", "let", "friendly_ties", "fish", "pepper-rumor", "round3"} <= set(code)
    # `requires:` of a challenge: ingredient types
    challenge = pack / "challenges" / "new.yaml"
    challenge.parent.mkdir(exist_ok=True)
    text = "id: new-dish\nkind: challenge\nname: New Dish\nrequires: [\n"
    challenge.write_text(text, "utf-8")
    await opened(client, challenge, text)
    assert await labels(client, challenge, 3, 11) == list(base.ingredient_types)
    # under `parameters:`: the rules' parameters
    text = "id: new-dish\nkind: challenge\nname: New Dish\nrequires: [fish]\nparameters:\n  \n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri(challenge)),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await problems_of(client, challenge)
    assert await labels(client, challenge, 5, 2) == list(base.parameters)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(challenge))))
    challenge.unlink()


async def test_record_keys_and_cards(client: LanguageClient, tmp_path: Path) -> None:
    record = tmp_path / "game.yaml"
    text = "players:\n  - name: Ana\n    \ncards:\n  \n"
    record.write_text(text, "utf-8")
    await opened(client, record, text)
    assert await labels(client, record, 2, 4) == ["name", "restaurateur", "kept", "counters"]
    assert await labels(client, record, 4, 2) == ["challenges", "critic", "rumors"]
    assert await labels(client, record, 0, 0) == ["packs", "players", "cards", "challenge_meals", "critic_meals"]


async def test_definitions_and_symbols(client: LanguageClient, pack: Path) -> None:
    card = pack / "rumors" / "salty-rumor.yaml"
    await opened(client, card, SALTY)

    async def where(line: int, character: int) -> tuple[str, int, int]:
        found = await asyncio.wait_for(
            client.text_document_definition_async(
                types.DefinitionParams(types.TextDocumentIdentifier(uri(card)), types.Position(line, character))
            ),
            WAIT,
        )
        assert isinstance(found, types.Location)
        return found.uri, found.range.start.line, found.range.start.character

    rules = RULES.read_text("utf-8").splitlines()
    stage_line = rules.index("  - id: critic.rumors")
    assert await where(5, 18) == (uri(RULES), stage_line, 8)
    assert await where(9, 36) == (uri(pack / "rumors" / "pepper-rumor.yaml"), 0, 4)
    found = await asyncio.wait_for(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(uri(pack / "pack.yaml")))
        ),
        WAIT,
    )
    assert [(s.name, s.container_name) for s in found] == [
        ("pepper-rumor", "rumor: Pepper Rumor"),
        ("salty-rumor", "rumor: Salty Rumor"),
    ]


async def test_places_are_counted_in_utf16_code_units(client: LanguageClient, pack: Path, tmp_path: Path) -> None:
    """A character outside the Basic Multilingual Plane is one column to validate, two code units to the editor."""
    card = pack / "rumors" / "salty-rumor.yaml"
    text = SALTY.replace('for "salty"', 'for "\U0001f41f {qualty(p, fish)}"')
    found = await opened(client, card, text)
    expected = validate_json(card, text, tmp_path)
    assert [(e["line"], e["column"], e["code"]) for e in expected] == [(11, 41, "CK202")]
    assert [(d.code, d.range) for d in found] == [
        ("CK202", types.Range(types.Position(10, 41), types.Position(10, 47)))  # column 40 in characters, + 1
    ]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(card))))
    assert await problems_of(client, card) == []


async def test_work_past_its_budget_is_given_up_at_the_budget() -> None:
    """The server waits for engine work no longer than its budget: the event loop goes on."""
    import time

    from critter_kitchen.lsp.server import CritterServer

    server = CritterServer([])
    started = time.perf_counter()
    with pytest.raises(TimeoutError):
        await server.work(time.sleep, 3.0, budget=0.2)
    assert time.perf_counter() - started < 1.5
    server.worker.shutdown(wait=False)

"""Print a short editor session with ``critter-kitchen lsp``, as the README shows it.

The server runs as its own process, spoken to over standard input and output by pygls's
client. A rumor of the base pack is opened with a slip typed into it (unsaved: the file on
disk is not changed), then hovered: the problems the server publishes and its hovers are
printed as the protocol carries them (JSON).

    python tools/lsp_transcript.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lsp import ROOT, Client  # noqa: E402 - tools/ is not a package

CARD = ROOT / "cards" / "base" / "rumors" / "fish-fanatic.yaml"


def shown(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


async def hover(client: Client, uri: str, lines: list[str], needle: str) -> None:
    row = next(i for i, line in enumerate(lines) if needle in line)
    column = lines[row].index(needle) + 1
    print(f"--> textDocument/hover on '{needle}' (line {row}, character {column})")
    answer = await client.lsp.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(row, column))
    )
    print("<-- " + ("null" if answer is None else answer.contents.value))  # type: ignore[union-attr]


async def main() -> None:
    os.chdir(ROOT)
    client = Client()
    await client.start()
    uri = CARD.resolve().as_uri()
    text = CARD.read_text("utf-8").replace("quality(p, fish)", "qualty(p, fish)")
    print(f"--> textDocument/didOpen {os.path.relpath(CARD)} (unsaved text: quality typed as qualty)")
    client.lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
    await client.answer(uri, 1)
    found = [client.lsp.protocol._converter.unstructure(d) for d in client.problems]
    print("<-- textDocument/publishDiagnostics")
    print(shown(found))
    lines = text.splitlines()
    for needle in ("critic.rumors", "multiply"):
        await hover(client, uri, lines, needle)
    card_line = next(i for i, line in enumerate(lines) if "qualty" in line)
    fixed = types.TextDocumentContentChangePartial(
        range=types.Range(
            types.Position(card_line, lines[card_line].index("qualty")),
            types.Position(card_line, lines[card_line].index("qualty") + len("qualty")),
        ),
        text="quality",
    )
    print("--> textDocument/didChange (qualty mended to quality)")
    client.lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(version=2, uri=uri), [fixed])
    )
    await client.answer(uri, 2)
    print("<-- textDocument/publishDiagnostics")
    print(shown([client.lsp.protocol._converter.unstructure(d) for d in client.problems]))
    lines = CARD.read_text("utf-8").splitlines()
    for needle in ("quality(p", "fish-fanatic"):
        await hover(client, uri, lines, needle)
    await client.stop()


if __name__ == "__main__":
    asyncio.run(main())

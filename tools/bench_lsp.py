"""Time the language server's problems after a keystroke, as an editor sees them.

``critter-kitchen lsp`` runs as its own process, spoken to over standard input and output
by pygls's client (the editor extra). A card file is opened, then typed into: one character
added to its name, or taken away again, every ``--gap`` seconds (a typist's pace). Each
keystroke's time is from the change sent to the problems of that version received, so it
holds the server's debounce, the check (validate's, with the open text) and the protocol.

- **base**: a card of the base pack (cards/base/rumors/fish-fanatic.yaml); goal: p95 at
  most 100 ms.
- **1,000 cards**: a card of a generated pack of ``--cards`` rumors (tools/bench_validate.py's
  cards); goal: p95 at most 300 ms.

    python tools/bench_lsp.py [--keys 60] [--cards 1000] [--gap 0.25] [--only base,large]

The machine is shared and noisy: compare figures within one run. Beside each time, the
server's own processor time for the keystroke (from /proc, in clock ticks of 10 ms): on a
machine busy with other work the wait grows, that time does not.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import make_pack  # noqa: E402 - tools/ is not a package

ROOT = Path(__file__).resolve().parent.parent
BASE_CARD = ROOT / "cards" / "base" / "rumors" / "fish-fanatic.yaml"
WAIT = 30.0  # seconds to wait for one keystroke's problems before the run fails


class Client:
    def __init__(self) -> None:
        self.lsp = LanguageClient("bench-lsp", "1")
        self.received: dict[tuple[str, int | None], float] = {}
        self.arrived = asyncio.Event()

        @self.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.received[(params.uri, params.version)] = time.perf_counter()
            self.problems = list(params.diagnostics)
            self.arrived.set()

    async def start(self) -> None:
        await self.lsp.start_io(sys.executable, "-m", "critter_kitchen", "lsp")
        await self.lsp.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri())
        )
        self.lsp.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.lsp.shutdown_async(None)
        self.lsp.exit(None)
        await self.lsp.stop()

    async def answer(self, uri: str, version: int) -> float:
        deadline = time.perf_counter() + WAIT
        while (uri, version) not in self.received:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(deadline - time.perf_counter(), 0.001))
        return self.received[(uri, version)]


def cpu_ms(client: Client) -> float:
    """The server process's processor time so far (user and system), in milliseconds (Linux)."""
    pid = client.lsp._server.pid  # type: ignore[attr-defined]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def typing(client: Client, path: Path, keys: int, gap: float) -> tuple[list[float], list[float]]:
    """Open ``path`` and type ``keys`` keystrokes into its name line: each one's milliseconds,
    from the change sent to its problems received, and of the server's processor time."""
    uri = path.resolve().as_uri()
    text = path.read_text("utf-8")
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("name:"))
    end = len(lines[row])
    client.lsp.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
    await client.answer(uri, 1)
    if client.problems:
        sys.exit(f"{path} has problems before typing: {[d.message for d in client.problems]}")
    times, cpu = [], []
    for version in range(2, keys + 2):
        adding = version % 2 == 0
        at = types.Range(types.Position(row, end), types.Position(row, end if adding else end + 1))
        change = types.TextDocumentContentChangePartial(range=at, text="x" if adding else "")
        used = cpu_ms(client)
        sent = time.perf_counter()
        client.lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(version=version, uri=uri), [change])
        )
        times.append((await client.answer(uri, version) - sent) * 1000)
        cpu.append(cpu_ms(client) - used)
        await asyncio.sleep(gap)
    return times, cpu


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def show(label: str, measured: tuple[list[float], list[float]], goal: float) -> None:
    times, cpu = measured
    worst = p95(times)
    print(
        f"{label}: {len(times)} keystrokes, median {statistics.median(times):.0f} ms, p95 {worst:.0f} ms, "
        f"max {max(times):.0f} ms; goal p95 <= {goal:.0f} ms (ratio {worst / goal:.2f}); "
        f"the server's processor time a keystroke: mean {statistics.mean(cpu):.0f} ms, p95 {p95(cpu):.0f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--gap", type=float, default=0.25)
    parser.add_argument("--only", default="base,large")
    args = parser.parse_args()
    only = set(args.only.split(","))
    os.chdir(ROOT)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if "base" in only:
        client = Client()
        await client.start()
        show("a card of the base pack", await typing(client, BASE_CARD, args.keys, args.gap), 100)
        await client.stop()
    if "large" in only:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "bench"
            folder.mkdir()
            files = make_pack(folder, args.cards)
            client = Client()
            await client.start()
            card = files[len(files) // 2]
            show(f"a card of a pack of {args.cards} cards", await typing(client, card, args.keys, args.gap), 300)
            await client.stop()


if __name__ == "__main__":
    asyncio.run(main())

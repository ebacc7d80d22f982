"""The language server over standard input and output (pygls): the protocol's side.

Every piece of engine work (a check, a load of the packs around a file, the open files'
texts changing) runs in one worker thread, in the order it was asked: the engine reads
the open files' texts through process state (``regular.reading_buffers``) and its pack
loader runs one load at a time. The event loop never waits on it past a budget: a check
that takes longer leaves the file's last problems shown (and says so in the editor's log),
a hover or completion that takes longer answers nothing. Problems are worked out
:data:`DEBOUNCE_SECONDS` after the last keystroke, not at every one, and only for a text
that is still the file's when its turn comes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..errors import printable
from .knowledge import Item, completions, definition, hover, symbols
from .positions import Place, problem_range
from .workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    from ..errors import Problem

    T = TypeVar("T")

# Seconds after the last change to a file before its problems are worked out: a burst of
# changes closer than this (a paste, a held key, an editor's own edits) costs one check, and
# a typist's next key (100 ms and more apart) finds the last one's problems shown. Checks
# never queue up behind fast typing: one whose text changed while it waited is skipped.
DEBOUNCE_SECONDS = 0.025
# Seconds the server waits for one check of a file (a load of its packs with every limit
# of validate) before it gives up waiting and keeps the file's last problems shown.
CHECK_BUDGET_SECONDS = 10.0
# Seconds the server waits for a hover, completion, definition or symbols answer.
REQUEST_BUDGET_SECONDS = 2.0
# Files the server keeps the text of; past it, newly opened files are not checked.
MAX_OPEN_FILES = 200


class CritterServer(LanguageServer):
    """pygls's server with the open files' workspace and the one worker thread."""

    def __init__(self, packs: Sequence[str]) -> None:
        super().__init__("critter-kitchen", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.files = Workspace(packs)
        self.worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="critter-kitchen-lsp")
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.versions: dict[str, int] = {}  # each open file's latest version, by path

    async def work(self, call: Callable[..., T], *args: Any, budget: float) -> T:
        """``call(*args)`` in the worker thread; TimeoutError past ``budget`` seconds."""
        future = self.worker.submit(call, *args)
        return await asyncio.wait_for(asyncio.wrap_future(future), budget)


def file_path(uri: str) -> str | None:
    """The file a ``file:`` URI names, or None for any other (an unsaved buffer, a remote file)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.normpath(unquote(parsed.path))


def client_range(server: CritterServer, lines: list[str], start: Place, end: Place) -> types.Range:
    """A 0-based range in characters as the client counts them."""
    codec = server.workspace.position_codec
    return codec.range_to_client_units(lines, types.Range(start=types.Position(*start), end=types.Position(*end)))


def server_place(server: CritterServer, lines: list[str], position: types.Position) -> Place:
    """The client's position as a 0-based line and character."""
    found = server.workspace.position_codec.position_from_client_units(lines, position)
    return found.line, found.character


def diagnostic(server: CritterServer, lines: list[str], problem: Problem) -> types.Diagnostic:
    start, end = problem_range(problem, lines)
    return types.Diagnostic(
        range=client_range(server, lines, start, end),
        message=problem.full_message(),
        severity=types.DiagnosticSeverity.Error,
        code=problem.code,
        source="critter-kitchen",
    )


def make_server(packs: Sequence[str]) -> CritterServer:
    server = CritterServer(packs)

    def schedule(uri: str, delay: float) -> None:
        held = server.pending.pop(uri, None)
        if held is not None:
            held.cancel()
        loop = asyncio.get_running_loop()
        server.pending[uri] = loop.call_later(delay, lambda: loop.create_task(check(uri)))

    async def check(uri: str) -> None:
        server.pending.pop(uri, None)
        path = file_path(uri)
        if path is None or path not in server.versions:
            return
        version = server.versions[path]

        def job() -> list[Problem] | None:
            # a check whose text changed while it waited its turn is skipped: its successor is queued
            return server.files.problems(path) if server.versions.get(path) == version else None

        try:
            found = await server.work(job, budget=CHECK_BUDGET_SECONDS)
        except TimeoutError:
            message = f"{path}: checking took longer than {CHECK_BUDGET_SECONDS:g} s; its last problems are kept"
            server.window_log_message(types.LogMessageParams(types.MessageType.Warning, printable(message)))
            return
        if found is None or server.versions.get(path) != version:
            return  # changed meanwhile: the next check tells
        lines = server.workspace.get_text_document(uri).lines
        text_lines = [line.rstrip("\r\n") for line in lines]
        diagnostics = [diagnostic(server, text_lines, p) for p in found]
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def recheck_others(uri: str) -> None:
        """The other open files' problems may change with this one's text: check them again, after it."""
        for other in server.workspace.text_documents:
            if other != uri and file_path(other) in server.versions:
                schedule(other, DEBOUNCE_SECONDS * 4)

    async def opened(uri: str, version: int, text: str) -> None:
        path = file_path(uri)
        if path is None or (path not in server.versions and len(server.versions) >= MAX_OPEN_FILES):
            return
        server.versions[path] = version
        try:  # queued behind the checks before it: it is done in its turn, whether waited for or not
            await server.work(server.files.set_text, path, text, budget=CHECK_BUDGET_SECONDS)
        except TimeoutError:
            pass

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: CritterServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        await opened(doc.uri, doc.version, doc.text)
        schedule(doc.uri, 0)
        recheck_others(doc.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: CritterServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = params.text_document
        text = server.workspace.get_text_document(doc.uri).source  # pygls has applied the changes
        await opened(doc.uri, doc.version, text)
        schedule(doc.uri, DEBOUNCE_SECONDS)
        recheck_others(doc.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: CritterServer, params: types.DidSaveTextDocumentParams) -> None:
        schedule(params.text_document.uri, 0)
        recheck_others(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: CritterServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = file_path(uri)
        held = server.pending.pop(uri, None)
        if held is not None:
            held.cancel()
        if path is not None and server.versions.pop(path, None) is not None:
            try:
                await server.work(server.files.close, path, budget=CHECK_BUDGET_SECONDS)
            except TimeoutError:
                pass
            server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            recheck_others(uri)

    async def asked(uri: str, position: types.Position, answer: Callable[..., T], default: T) -> T:
        """``answer(known, lines, place)`` for the file at ``uri``, in the worker, within the budget."""
        path = file_path(uri)
        if path is None:
            return default
        lines = [line.rstrip("\r\n") for line in server.workspace.get_text_document(uri).lines]
        place = server_place(server, lines, position)

        def job() -> T:
            return answer(server.files.known(path), lines, place)

        try:
            return await server.work(job, budget=REQUEST_BUDGET_SECONDS)
        except TimeoutError:
            return default

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: CritterServer, params: types.HoverParams) -> types.Hover | None:
        text = await asked(params.text_document.uri, params.position, hover, None)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", ":", " ", "("]))
    async def on_completion(ls: CritterServer, params: types.CompletionParams) -> types.CompletionList:
        none: list[Item] = []
        items = await asked(params.text_document.uri, params.position, completions, none)
        shown = [
            types.CompletionItem(label=i.label, kind=types.CompletionItemKind(i.kind), detail=i.detail) for i in items
        ]
        return types.CompletionList(is_incomplete=False, items=shown)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: CritterServer, params: types.DefinitionParams) -> types.Location | None:
        found = await asked(params.text_document.uri, params.position, definition, None)
        if found is None:
            return None
        path, place = found
        return types.Location(uri=_uri(path), range=_target_range(server, path, place))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_symbols(ls: CritterServer, params: types.DocumentSymbolParams) -> list[types.SymbolInformation]:
        uri = params.text_document.uri
        path = file_path(uri)
        if path is None:
            return []

        def job() -> list[tuple[str, str, str, Place]]:
            return symbols(server.files.known(path), path)

        try:
            found = await server.work(job, budget=REQUEST_BUDGET_SECONDS)
        except TimeoutError:
            return []
        return [
            types.SymbolInformation(
                name=name,
                kind=types.SymbolKind.Event if detail == "stage" else types.SymbolKind.Class,
                location=types.Location(uri=_uri(where), range=_target_range(server, where, place)),
                container_name=detail,
            )
            for name, detail, where, place in found
        ]

    return server


def _uri(path: str) -> str:
    from pathlib import Path

    return Path(os.path.abspath(path)).as_uri()


def _target_range(server: CritterServer, path: str, place: Place) -> types.Range:
    """A place in another file as the client counts it: from its open text, else from the disk."""
    uri = _uri(path)
    try:
        lines = [line.rstrip("\r\n") for line in server.workspace.get_text_document(uri).lines]
    except Exception:  # noqa: BLE001 - not open and unreadable: the place as characters
        lines = []
    return client_range(server, lines, place, place)


def run(packs: Sequence[str]) -> int:
    """Serve one editor over standard input and output until it ends the session."""
    import sys

    from ..loading import remember

    # Every keystroke loads its packs again with one file changed: the compiled-pack cache
    # would write an entry for each and never hit again, so it is off for this process, and
    # the files that did not change are not parsed, checked or compiled again.
    os.environ["CRITTER_KITCHEN_CACHE"] = "off"
    remember.start()
    server = make_server(packs)
    # copies of the descriptors, which pygls closes when the session ends: the command's own
    # standard output stays open for the CLI to flush as every command's is
    reader: Any = os.fdopen(os.dup(sys.__stdin__.fileno()), "rb", buffering=0)  # type: ignore[union-attr]
    writer: Any = os.fdopen(os.dup(sys.__stdout__.fileno()), "wb", buffering=0)  # type: ignore[union-attr]
    server.start_io(reader, writer)
    return 0

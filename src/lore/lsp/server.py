"""The language server: the protocol's messages answered from the program model.

Diagnostics are published by a task per file that waits for the edits to settle (a few
milliseconds), checks the file as it is then, and publishes only if no newer version
came in meanwhile: a publication always carries the version it was found for, and never
one that was superseded. Requests run as tasks that first wait a moment, so a request the
client cancels right away is never run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from lore import __version__
from lore.lsp import actions, completion, hover, navigation, outline
from lore.lsp.model import Checked, ProgramModel
from lore.lsp.positions import offset
from lore.syntax.source import SourceFile

SETTLE = 0.005  # seconds a check waits for more edits of the same file
# Seconds a request waits before it runs: a cancellation sent right after it (the client
# moved on) is read meanwhile, and the request is dropped unanswered but for the error.
CANCEL_WINDOW = 0.002


async def settled() -> None:
    await asyncio.sleep(CANCEL_WINDOW)


class LoreServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("lore", __version__)
        self.model = ProgramModel()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.published = 0  # publications (for tests)

    @property
    def encoding(self) -> str:
        found = self.workspace.position_encoding
        if isinstance(found, types.PositionEncodingKind):
            return str(found.value)
        return found or "utf-16"

    # ---------------------------------------------------------------- documents

    def sync(self, uri: str) -> tuple[Path, int | None]:
        """Give the model the editor's text of ``uri``; its path and version."""
        document = self.workspace.get_text_document(uri)
        path = navigation.path_of(uri)
        self.model.open(path, document.source, document.version)
        return path, document.version

    def current(self, uri: str) -> Checked:
        """The check of ``uri``'s text as it is now (checked again if it changed)."""
        path, version = self.sync(uri)
        known = self.model.checked.get(path.resolve())
        if known is not None and known.version == version and version is not None:
            return known
        return self.model.check(path)

    def schedule(self, uri: str) -> None:
        running = self.tasks.pop(uri, None)
        if running is not None and not running.done():
            running.cancel()
        self.tasks[uri] = asyncio.ensure_future(self.publish_later(uri))

    async def publish_later(self, uri: str) -> None:
        await asyncio.sleep(SETTLE)
        path, version = self.sync(uri)
        try:
            checked = self.model.check(path)
        except Exception as error:  # a fault of Lore's own: said in the log, then go on
            self.tasks.pop(uri, None)
            message = f"lore lsp: checking {path} failed: {error!r}"
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, message))
            return
        await asyncio.sleep(0)  # an edit that came in during the check supersedes it
        if self.workspace.get_text_document(uri).version != version:
            return
        self.publish(uri, checked)
        self.tasks.pop(uri, None)
        self.check_dependents(path)

    def check_dependents(self, path: Path) -> None:
        """Check again the open files whose last check read ``path``."""
        for other in self.model.dependents(path):
            other_uri = other.as_uri()
            pending = self.tasks.get(other_uri)
            if other_uri in self.workspace.text_documents and (pending is None or pending.done()):
                self.schedule(other_uri)

    def publish(self, uri: str, checked: Checked) -> None:
        encoding = self.encoding
        found = [
            actions.to_protocol(d, encoding) for d in checked.diagnostics_of(checked.root.source)
        ]
        self.published += 1
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=checked.version)
        )


server = LoreServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LoreServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LoreServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LoreServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.tasks.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.model.close(navigation.path_of(uri))
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def files_changed(ls: LoreServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A file saved or changed on disk: the open files that import it are checked again
    (a file open in the editor is read from the editor, not from the disk)."""
    for change in params.changes:
        ls.check_dependents(navigation.path_of(change.uri))


def _at(ls: LoreServer, uri: str, where: types.Position) -> tuple[Checked, int]:
    checked = ls.current(uri)
    return checked, offset(checked.root.source, where, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: LoreServer, params: types.DefinitionParams) -> list[types.Location]:
    await settled()
    checked, at = _at(ls, params.text_document.uri, params.position)
    return navigation.definition(checked, at, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def references(ls: LoreServer, params: types.ReferenceParams) -> list[types.Location]:
    await settled()
    checked, at = _at(ls, params.text_document.uri, params.position)
    include = params.context.include_declaration
    return navigation.references(checked, at, include, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover_(ls: LoreServer, params: types.HoverParams) -> types.Hover | None:
    await settled()
    checked, at = _at(ls, params.text_document.uri, params.position)
    text = hover.hover_text(checked, at)
    if text is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "[", '"'])
)
async def complete(ls: LoreServer, params: types.CompletionParams) -> types.CompletionList:
    await settled()
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    checked = ls.model.checked.get(navigation.path_of(uri).resolve()) or ls.current(uri)
    source = SourceFile(checked.root.source.name, document.source)
    at = offset(source, params.position, ls.encoding)
    found = completion.complete(checked, document.source, at, params.position, ls.encoding)
    return types.CompletionList(is_incomplete=False, items=found)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def symbols(ls: LoreServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    await settled()
    checked = ls.current(params.text_document.uri)
    return outline.document_symbols(checked.root.source, checked.root.tree, ls.encoding)


@server.feature(
    types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    types.SemanticTokensLegend(token_types=outline.TOKEN_TYPES, token_modifiers=[]),
)
async def tokens(ls: LoreServer, params: types.SemanticTokensParams) -> types.SemanticTokens:
    await settled()
    checked = ls.current(params.text_document.uri)
    return types.SemanticTokens(data=outline.semantic_tokens(checked, ls.encoding))


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
async def prepare_rename(ls: LoreServer, params: types.PrepareRenameParams) -> types.Range | None:
    await settled()
    checked, at = _at(ls, params.text_document.uri, params.position)
    return navigation.prepare_rename(checked, at, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_RENAME)
async def rename(ls: LoreServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    await settled()
    checked, at = _at(ls, params.text_document.uri, params.position)
    try:
        return navigation.rename(checked, at, params.new_name, ls.encoding)
    except navigation.RenameRefused as refused:
        from pygls.exceptions import JsonRpcInvalidRequest

        raise JsonRpcInvalidRequest(str(refused)) from refused


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
async def code_action(ls: LoreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    await settled()
    uri = params.text_document.uri
    return actions.code_actions(ls.current(uri), uri, params.range, ls.encoding)


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
async def formatting(
    ls: LoreServer, params: types.DocumentFormattingParams
) -> list[types.TextEdit]:
    await settled()
    document = ls.workspace.get_text_document(params.text_document.uri)
    path = navigation.path_of(params.text_document.uri)
    return actions.formatting(SourceFile(str(path), document.source, path))


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
async def inlay_hint(ls: LoreServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    await settled()
    checked = ls.current(params.text_document.uri)
    return actions.inlay_hints(checked, params.range, ls.encoding)


def serve(**options: Any) -> None:
    """Answer an editor on standard input and output until it says exit."""
    server.start_io(**options)

"""``boundlint server``: a language server over stdio, a thin adapter over the engine (pygls, lsprotocol).

Diagnostics are published when a document is opened or saved, and 0.3 s
after the last change while typing.  Each carries the rule code, a link to
the rule's page and the ``help:`` line under the message (the CLI's text
output, as editors show a multi-line message).  A quick fix adds ``# noqa:
CODE`` to the flagged line, joining an existing ``# noqa: X`` list; a finding
with a fix gets it as a quick fix too, and ``source.fixAll.boundlint`` applies
the safe ones (``boundlint.fixes.lsp``).

Each document is checked in this process as the file at its path: the
settings of the pyproject.toml nearest that path apply, with its
``exclude`` and ``per-file-ignores``.  ``lint`` is the only call into the
engine.

Positions: findings are 1-based lines and 1-based code-point columns; LSP
positions are 0-based lines and characters in the negotiated encoding
(UTF-16 unless the client asks otherwise), counted by pygls's codec.
"""
from __future__ import annotations

import asyncio
import re
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from boundlint import __version__
from boundlint.engine.isolated import Isolated, Unfinished
from boundlint.finding import Finding

SOURCE = "boundlint"
DEBOUNCE_SECONDS = 0.3
# LSP's line breaks (not str.splitlines, which also breaks at \f, \v, \x1c ... inside a line).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def lint(text: str, path: str) -> list[Finding]:
    """Findings for the buffer *text* checked as the file *path* (which need not exist on disk).

    The one call into the engine: switching the server to another entry
    point (a project-wide index) changes only this function.  Settings come
    from the pyproject.toml nearest *path*; an excluded *path* has no
    findings; a broken config is one BND001 finding on line 1.  Raises
    nothing for bad input.
    """
    from boundlint.config import ConfigError, load_config
    from boundlint.document import check_document

    try:
        config = load_config([path])
    except ConfigError as exc:
        from boundlint.rules.meta import UnparseableFile

        return [Finding(path, 1, 1, UnparseableFile.code, UnparseableFile.message.format(reason=exc), 1, 1,
                        UnparseableFile.hint)]
    result = check_document(text, path, config.settings, config.root)
    return [] if result is None else result.findings


def split_lines(text: str) -> list[str]:
    """*text*'s lines without their breaks, split where LSP and Python's tokenizer break lines."""
    return _LINE_BREAK.split(text)


def to_position(lines: list[str], line: int, column: int, codec) -> types.Position:
    """The LSP position of a finding's 1-based *line* and 1-based code-point *column*.

    *codec*: the document's ``pygls`` PositionCodec (its ``client_num_units``
    counts a string in the client's units: UTF-16 code units by default).  A
    position past the end of the text is clamped to it.
    """
    index = max(line, 1) - 1
    if index >= len(lines):
        return types.Position(line=len(lines) - 1, character=codec.client_num_units(lines[-1]))
    return types.Position(line=index, character=codec.client_num_units(lines[index][: max(column, 1) - 1]))


def to_diagnostic(finding: Finding, lines: list[str], codec) -> types.Diagnostic:
    """The LSP diagnostic of *finding*: code, link to the rule page, message with its help line."""
    from boundlint.report.sarif import rule_doc_uri

    start = to_position(lines, finding.line, finding.column, codec)
    end = to_position(lines, finding.end_line, finding.end_column, codec)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    message = f"{finding.message}\nhelp: {finding.hint}" if finding.hint else finding.message
    # BND0xx say the file went unchecked: an error of the check, as in SARIF.
    severity = {"high": types.DiagnosticSeverity.Error, "low": types.DiagnosticSeverity.Information}.get(
        finding.severity, types.DiagnosticSeverity.Warning)
    if finding.code[3:4] in ("0", "9"):
        severity = types.DiagnosticSeverity.Error if finding.code.startswith("BND0") else types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=types.Range(start=start, end=end), message=message, severity=severity, code=finding.code,
        code_description=types.CodeDescription(href=rule_doc_uri(finding.code)), source=SOURCE)


class BoundlintServer(LanguageServer):
    """The pygls server plus what boundlint tracks per document: the pending debounced checks."""

    def __init__(self) -> None:
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.checker = Isolated(lint)  # a native crash in a check ends that worker, not the server
        self._checking: asyncio.Lock | None = None  # one check at a time, in the order asked
        self.client_uris: dict[str, str] = {}  # document key -> the URI as the client spelled it

    def opened(self, uri: str) -> None:
        """Remember how the client spells *uri*: diagnostics go back under that spelling."""
        self.client_uris[document_key(uri)] = uri

    def cancel(self, uri: str) -> None:
        """Drop the debounced check of *uri*, if one is waiting."""
        handle = self.pending.pop(document_key(uri), None)
        if handle is not None:
            handle.cancel()

    def schedule(self, uri: str) -> None:
        """Check *uri* once no change has come for ``DEBOUNCE_SECONDS``."""
        self.cancel(uri)
        self.pending[document_key(uri)] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self.publish, uri)

    def publish(self, uri: str) -> None:
        """Check the open document *uri* soon (in the checker process) and publish its diagnostics."""
        self.pending.pop(document_key(uri), None)
        asyncio.get_running_loop().create_task(self._publish(uri))

    async def _publish(self, uri: str) -> None:
        key = document_key(uri)
        if self._checking is None:
            self._checking = asyncio.Lock()
        async with self._checking:
            doc = self.workspace.text_documents.get(key)
            if doc is None:  # closed while the check waited
                return
            text, version = doc.source, doc.version
            try:
                # A client that sends every file type gets no Python findings in its Markdown.
                findings = await asyncio.get_running_loop().run_in_executor(
                    None, self.check, text, doc.path) if _is_python(doc) else []
            except Exception as exc:  # a bug in boundlint: say so in the log, keep serving
                self.window_log_message(types.LogMessageParams(
                    type=types.MessageType.Error, message=f"boundlint: internal error: {type(exc).__name__}: {exc}"))
                return
            if key not in self.workspace.text_documents:
                return
        lines = split_lines(text)
        diagnostics = [to_diagnostic(f, lines, doc.position_codec) for f in findings]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=self.client_uris.get(key, uri), version=version, diagnostics=diagnostics))

    def check(self, text: str, path: str) -> list[Finding]:
        """``lint(text, path)`` in the checker process; a crash or overrun there is one BND001 / BND002 finding.

        Raises RuntimeError (one line) when ``lint`` itself raised.
        """
        from boundlint.config import Settings
        from boundlint.schedule import WALL_FACTOR, time_limit

        limit = time_limit(Settings().timeout, len(text))
        try:
            return self.checker.call(text, path, limit=None if limit is None else WALL_FACTOR * limit)
        except Unfinished as exc:
            from boundlint.engine.result import _meta_finding

            return [_meta_finding(exc.code, path, exc.reason)]


def document_key(uri: str) -> str:
    """The one normal form of a document URI, as pygls keys its documents: percent-escapes decoded."""
    return unquote(uri)


def _is_python(doc) -> bool:
    from boundlint.files import SUFFIXES

    return doc.language_id in (None, "", "python") or doc.path.endswith(SUFFIXES)


def build_server() -> BoundlintServer:
    """A server with boundlint's features registered; ``start_io()`` runs it."""
    server = BoundlintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BoundlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.opened(params.text_document.uri)
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BoundlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: BoundlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.cancel(params.text_document.uri)
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BoundlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.cancel(params.text_document.uri)
        ls.client_uris.pop(document_key(params.text_document.uri), None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    from boundlint.fixes.lsp import KINDS, fix_actions

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS))
    def code_action(ls: BoundlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        # the fixes (boundlint.fixes.lsp) beside the noqa quick fixes
        return fix_actions(ls, params, lint) + noqa_actions(ls, params)

    return server


def noqa_actions(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """One quick fix per boundlint diagnostic in the request: add its code to the line's ``# noqa``."""
    from boundlint.noqa import noqa_edit, string_continued_lines

    ours = types.CodeActionKind.QuickFix.value
    # A requested kind covers its sub-kinds ("quickfix" covers "quickfix.x"), not its parents.
    wanted = [getattr(kind, "value", kind) for kind in params.context.only or ()]
    if wanted and not any(ours == kind or ours.startswith(kind + ".") for kind in wanted):
        return []
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    lines = split_lines(doc.source)
    in_string = None
    actions, seen = [], set()
    for diagnostic in params.context.diagnostics:
        code, line = diagnostic.code, diagnostic.range.start.line
        if diagnostic.source != SOURCE or not isinstance(code, str) or (line, code) in seen or line >= len(lines):
            continue
        seen.add((line, code))
        if in_string is None:
            in_string = string_continued_lines(doc.source)
        edit = None if line + 1 in in_string else noqa_edit(lines[line], code)
        if edit is None:
            continue
        start, end, new_text = edit
        units = doc.position_codec.client_num_units
        where = types.Range(start=types.Position(line=line, character=units(lines[line][:start])),
                            end=types.Position(line=line, character=units(lines[line][:end])))
        actions.append(types.CodeAction(
            title=f"Add `# noqa: {code}`", kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=where, new_text=new_text)]})))
    return actions


def serve() -> None:
    """Run the language server on standard input and output until the client exits it."""
    from boundlint.lsp_frames import serve_stdio

    server = build_server()
    server.checker.start()  # forked now, before the server's threads exist
    try:
        serve_stdio(server)
    finally:
        server.checker.close()

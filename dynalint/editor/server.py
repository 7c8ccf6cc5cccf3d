"""``dynalint server``: the language server, over stdio, built on pygls (``pip install 'dynalint[server]'``).

Beside the pipeline: this module speaks the Language Server Protocol and ``documents.py`` decides
what it says. It offers

- diagnostics on open, change and save, each with its code, range, severity (a ``likely`` finding is
  a warning) and ``codeDescription`` pointing to the rule page;
- hover on a flagged line: the rule page's summary, the message, and why the line is compiled;
- a quick fix per finding that adds ``# noqa: CODE``, merged as ``--add-noqa`` merges it;
- a quick fix per finding that has a fix: its edits, as ``--fix`` makes them (safe ones preferred);
- ``source.fixAll.dynalint``: every safe fix of the document, pass after pass, as ``--fix`` leaves the file.

Runs are serialized on one worker thread, so the in-memory cache only ever serves one run at a time,
and a document that changed again before its run started is skipped: a burst of keystrokes costs one
run, for the latest text. Saving re-lints every open document, since their context on disk changed.
Hover and quick fixes answer from the last run, and only while the document is still at its version.
Only the CLI's ``server`` subcommand imports this module.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import PositionCodec

from dynalint.editor import documents
from dynalint.model.finding import Finding
from dynalint.model.version import __version__
from dynalint.output.reporters import levels
from dynalint.project.config import ConfigError
from dynalint.project.source_lines import python_lines

SOURCE = "dynalint"
FIX_ALL = "source.fixAll.dynalint"
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


@dataclass(frozen=True)
class _Snapshot:
    """A document's last run: the version and text linted, and what was found."""

    version: int | None
    lines: list[str]
    text: str
    findings: list[Finding]


class DynalintServer(LanguageServer):
    def __init__(self, jobs: int | None = None) -> None:
        super().__init__(SOURCE, __version__)
        self.documents = documents.Documents(jobs)
        self.snapshots: dict[str, _Snapshot] = {}
        self._config_error: str | None = None  # the last one shown
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dynalint-lint")

    async def refresh(self, uri: str) -> None:
        """Lint the open document ``uri`` at its current version and publish its diagnostics."""
        document = self.workspace.text_documents.get(uri)
        if document is None or document.path is None or not uri.startswith("file:"):
            return
        version, text = document.version, document.source
        loop = asyncio.get_running_loop()
        try:
            linted = await loop.run_in_executor(self._worker, self._lint_if_current, uri, version, document.path, text)
        except ConfigError as error:
            if str(error) != self._config_error:  # once, not on every keystroke until it is fixed
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"dynalint: {error}"))
            self._config_error = str(error)
            self._publish(uri, version, [])
            return
        except Exception:  # noqa: BLE001 - a bug must not take the server down with it
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, traceback.format_exc()))
            return
        self._config_error = None
        if linted is None or not self._at_version(uri, version):
            return  # superseded by a newer version (whose run publishes), or closed meanwhile
        snapshot = _Snapshot(version, python_lines(text), text, linted.findings)
        self.snapshots[uri] = snapshot
        self._publish(uri, version, [self._diagnostic(f, snapshot) for f in linted.findings])
        self.window_log_message(types.LogMessageParams(types.MessageType.Log, (
            f"dynalint: linted {Path(document.path).name} (version {version}) in {linted.seconds:.3f} s: "
            f"{len(linted.findings)} findings, {linted.summarized} files summarized"
        )))

    def _lint_if_current(self, uri: str, version: int | None, path: str, text: str) -> documents.Linted | None:
        return self.documents.lint(Path(path), text) if self._at_version(uri, version) else None

    def _at_version(self, uri: str, version: int | None) -> bool:
        """Whether ``uri`` is still open at ``version``."""
        current = self.workspace.text_documents.get(uri)
        return current is not None and current.version == version

    def forget(self, uri: str) -> None:
        self.snapshots.pop(uri, None)
        self._publish(uri, None, [])

    def current(self, uri: str) -> _Snapshot | None:
        """The last run of ``uri`` if the document has not changed since."""
        snapshot = self.snapshots.get(uri)
        return snapshot if snapshot is not None and self._at_version(uri, snapshot.version) else None

    def _publish(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics, version))

    @property
    def codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def _diagnostic(self, finding: Finding, snapshot: _Snapshot) -> types.Diagnostic:
        url = documents.rule_url(finding.code)
        return types.Diagnostic(
            range=self.codec.range_to_client_units(snapshot.lines, types.Range(
                types.Position(finding.start.line - 1, max(finding.start.column - 1, 0)),
                types.Position(finding.end.line - 1, max(finding.end.column - 1, 0)),
            )),
            message=finding.message,
            severity=_SEVERITY[levels.level(finding)],
            code=finding.code,
            code_description=types.CodeDescription(href=url) if url else None,
            source=SOURCE,
        )

    def hover(self, uri: str, line: int) -> types.Hover | None:
        snapshot = self.current(uri)
        if snapshot is None:
            return None
        found = [f for f in snapshot.findings if f.start.line - 1 <= line <= f.end.line - 1]
        if not found:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, documents.hover(found)),
                           self._diagnostic(found[0], snapshot).range)

    def quick_fixes(self, uri: str, wanted: types.Range) -> list[types.CodeAction]:
        snapshot = self.current(uri)
        if snapshot is None:
            return []
        actions = []
        for finding in snapshot.findings:
            if not finding.start.line - 1 <= wanted.end.line or finding.end.line - 1 < wanted.start.line:
                continue
            if finding.fix is not None and finding.cell is None:
                actions.append(self._fix_action(uri, finding, snapshot))
            edit = documents.noqa_edit(snapshot.text, finding)
            if edit is None:
                continue
            where = self.codec.range_to_client_units(snapshot.lines, types.Range(
                types.Position(edit.line - 1, edit.column), types.Position(edit.line - 1, edit.end_column)
            ))
            actions.append(types.CodeAction(
                title=f"Disable {finding.code} for this line (# noqa: {finding.code})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[self._diagnostic(finding, snapshot)],
                edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(where, edit.text)]}),
            ))
        return actions

    def _fix_action(self, uri: str, finding: Finding, snapshot: _Snapshot) -> types.CodeAction:
        assert finding.fix is not None
        fix = finding.fix
        edits = [types.TextEdit(self.codec.range_to_client_units(snapshot.lines, types.Range(
            types.Position(edit.start.line - 1, edit.start.column - 1),
            types.Position(edit.end.line - 1, edit.end.column - 1),
        )), edit.content) for edit in fix.edits]
        unsafe = "" if fix.applicability.value == "safe" else f" ({fix.applicability.value})"
        return types.CodeAction(
            title=f"Fix {finding.code}: {fix.message}{unsafe}",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[self._diagnostic(finding, snapshot)],
            is_preferred=fix.applicability.value == "safe",
            edit=types.WorkspaceEdit(changes={uri: edits}),
        )

    def fix_all(self, uri: str) -> list[types.CodeAction]:
        """One action replacing the document with its text after every safe fix (nothing when none applies)."""
        document = self.workspace.get_text_document(uri)
        path = Path(document.path)
        fixed = self.documents.fix_all(path, document.source)
        if fixed == document.source:
            return []
        lines = python_lines(document.source)
        end = types.Position(len(lines), 0)
        return [types.CodeAction(
            title="Fix all safe dynalint fixes", kind=FIX_ALL,
            edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(types.Range(types.Position(0, 0), end), fixed)]}),
        )]


def build(jobs: int | None = None) -> DynalintServer:
    """The server with its features registered; ``jobs`` worker processes for big runs (default: the CPUs)."""
    server = DynalintServer(jobs)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: DynalintServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: DynalintServer, params: types.DidChangeTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: DynalintServer, params: types.DidSaveTextDocumentParams) -> None:
        saved = params.text_document.uri
        for uri in [saved, *(u for u in list(ls.workspace.text_documents) if u != saved)]:
            await ls.refresh(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DynalintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DynalintServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params.text_document.uri, params.position.line)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: DynalintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        uri = params.text_document.uri
        if only and any(FIX_ALL.startswith(kind) and kind.startswith("source") for kind in only):
            return ls.fix_all(uri)
        if only and not any(types.CodeActionKind.QuickFix.value.startswith(kind) for kind in only):
            return []
        return ls.quick_fixes(uri, params.range)

    return server


def serve(jobs: int | None = None) -> None:
    """Serve one client over standard input and output until it exits.

    The protocol gets handles of its own on the two pipes, and ``sys.stdin`` / ``sys.stdout`` are
    pointed elsewhere: a stray ``print`` cannot corrupt the stream, and the forked workers of a big run
    (which close ``sys.stdin`` as they start) never wait on the lock the protocol's reader thread holds.
    """
    protocol_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the life of the process
    sys.stdout = sys.stderr
    build(jobs).start_io(protocol_in, protocol_out)

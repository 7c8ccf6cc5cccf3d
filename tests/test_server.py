"""``dynalint server`` driven over stdio by a real LSP client (pygls' own), as an editor drives it.

Each test starts the server as a subprocess in a small project and checks what an editor sees:
diagnostics on open, change and save with the project's cross-file context (the same findings as
``dynalint FILE``), codes, ranges and rule-page links, the hover text, and the ``# noqa`` quick fix
(the same line ``--add-noqa`` writes). The server logs how many files each run summarized: editing
one buffer re-summarizes that buffer only. Everything waits on a message, never on a sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from dynalint import checks
from dynalint.analysis.summarize import summarize
from dynalint.editor import documents
from dynalint.lint import rule_pages
from dynalint.project.source_lines import python_lines

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120  # seconds for any one message: generous for a loaded machine, never waited out when all is well

PROJECT = {
    "pyproject.toml": "[tool.dynalint]\n",
    "pkg/__init__.py": "",
    "pkg/helpers.py": """\
        import torch


        def fast(x):
            print(x)
            return x * 2
    """,
    "pkg/model.py": """\
        import torch

        from pkg.helpers import fast


        @torch.compile
        def step(x):
            y = fast(x)
            return y + 1
    """,
    "pkg/unrelated.py": """\
        def add(a, b):
            return a + b
    """,
}


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")


def cli(folder: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dynalint", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, input=input)


@pytest.fixture(autouse=True)
def _own_signing_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache packs are signed with a key of the test's own (the server inherits it), never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


class Editor:
    """A pygls client with the server's notifications queued for the test to wait on."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.client = LanguageClient("dynalint-test", "1")
        self.diagnostics: dict[str, asyncio.Queue[types.PublishDiagnosticsParams]] = {}
        self.logs: asyncio.Queue[str] = asyncio.Queue()
        self.messages: list[str] = []
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self._queue(params.uri).put_nowait(params)

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: types.LogMessageParams) -> None:
            self.logs.put_nowait(params.message)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def shown(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

    def _queue(self, uri: str) -> asyncio.Queue[types.PublishDiagnosticsParams]:
        return self.diagnostics.setdefault(uri, asyncio.Queue())

    async def start(self, *options: str) -> None:
        await self.client.start_io(sys.executable, "-m", "dynalint", "server", *options, cwd=str(self.folder))
        await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.folder.as_uri(),
        )), TIMEOUT)
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)

    def uri(self, name: str) -> str:
        return (self.folder / name).as_uri()

    def open(self, name: str, text: str | None = None) -> None:
        text = (self.folder / name).read_text(encoding="utf-8") if text is None else text
        self.versions[name] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(self.uri(name), "python", 1, text)
        ))

    def replace(self, name: str, text: str) -> None:
        """Send the whole new text as one change."""
        self.versions[name] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[name], self.uri(name)),
            [types.TextDocumentContentChangeWholeDocument(text)],
        ))

    def save(self, name: str) -> None:
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(
            types.TextDocumentIdentifier(self.uri(name))
        ))

    async def published(self, name: str) -> list[types.Diagnostic]:
        """The next diagnostics the server publishes for ``name``."""
        params = await asyncio.wait_for(self._queue(self.uri(name)).get(), TIMEOUT)
        return list(params.diagnostics)

    async def settled(self, name: str) -> list[types.Diagnostic]:
        """The diagnostics published for the latest version sent of ``name`` (earlier ones skipped)."""
        while True:
            params = await asyncio.wait_for(self._queue(self.uri(name)).get(), TIMEOUT)
            assert params.version is not None and params.version <= self.versions[name]
            if params.version == self.versions[name]:
                return list(params.diagnostics)

    async def summarized(self) -> int:
        """How many files the next run summarized (from its log line)."""
        while True:
            message = await asyncio.wait_for(self.logs.get(), TIMEOUT)
            if message.startswith("dynalint: linted"):
                return int(message.rsplit(", ", 1)[1].split()[0])

    async def hover(self, name: str, line: int) -> types.Hover | None:
        return await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(self.uri(name)), types.Position(line, 0)
        )), TIMEOUT)

    async def fix_all(self, name: str) -> list[types.CodeAction]:
        found = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(self.uri(name)), types.Range(types.Position(0, 0), types.Position(0, 0)),
            types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
        )), TIMEOUT)
        return [action for action in found or [] if isinstance(action, types.CodeAction)]

    async def quick_fixes(self, name: str, line: int) -> list[types.CodeAction]:
        found = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(self.uri(name)),
            types.Range(types.Position(line, 0), types.Position(line, 0)),
            types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix]),
        )), TIMEOUT)
        return [action for action in found or [] if isinstance(action, types.CodeAction)]


def drive(folder: Path, scenario: Callable[[Editor], Awaitable[None]], *options: str) -> None:
    async def run() -> None:
        editor = Editor(folder)
        await editor.start(*options)
        try:
            await scenario(editor)
        finally:
            await editor.stop()

    asyncio.run(run())


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple[str, int, int, int, int]]:
    """``(code, start line, start character, end line, end character)``, 0-based as LSP counts."""
    return [(str(d.code), d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
            for d in diagnostics]


def as_cli_reports(folder: Path, name: str) -> list[tuple[str, int, int, int, int]]:
    """What ``dynalint --output-format json NAME`` reports, in LSP's 0-based terms."""
    completed = cli(folder, "--output-format", "json", name)
    assert completed.returncode in (0, 1), completed.stderr
    return [(f["code"], f["location"]["row"] - 1, f["location"]["column"] - 1,
             f["end_location"]["row"] - 1, f["end_location"]["column"] - 1) for f in json.loads(completed.stdout)]


def apply(text: str, action: types.CodeAction, uri: str) -> str:
    """``text`` with the action's edits applied (ranges in UTF-16 units, as the server was told)."""
    assert action.edit is not None and action.edit.changes is not None
    lines = python_lines(text)
    for edit in sorted(action.edit.changes[uri], key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        assert edit.range.start.line == edit.range.end.line  # a noqa edit stays on its line
        line = lines[edit.range.start.line]
        start, end = _code_points(line, edit.range.start.character), _code_points(line, edit.range.end.character)
        lines[edit.range.start.line] = line[:start] + edit.new_text + line[end:]
    return "".join(lines)


def _code_points(line: str, utf16: int) -> int:
    units = 0
    for index, char in enumerate(line):
        if units >= utf16:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


# -- diagnostics ---------------------------------------------------------------------------------------------
def test_open_reports_a_cross_file_break_exactly_as_the_command_line(tmp_path: Path) -> None:
    """helpers.py breaks only because model.py compiles its caller: the server knows the project."""
    write(tmp_path, PROJECT)
    expected = as_cli_reports(tmp_path, "pkg/helpers.py")
    assert [code for code, *_ in expected] == ["DYN201"]

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/helpers.py")
        diagnostics = await editor.published("pkg/helpers.py")
        assert shown(diagnostics) == expected == [("DYN201", 4, 4, 4, 12)]
        (diagnostic,) = diagnostics
        assert diagnostic.source == "dynalint"
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        assert diagnostic.code_description is not None
        assert diagnostic.code_description.href == checks.BY_CODE["DYN201"].url()
        assert "print()" in diagnostic.message

    drive(tmp_path, scenario)


def test_changes_are_linted_from_the_buffer_and_re_summarize_that_file_only(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    model = (tmp_path / "pkg/model.py").read_text(encoding="utf-8")
    with_print = model.replace("    y = fast(x)\n", "    y = fast(x)\n    print(y)\n")
    python_files = len(list(tmp_path.rglob("*.py")))

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/model.py")
        assert shown(await editor.published("pkg/model.py")) == []
        assert await editor.summarized() == python_files  # the first run learns the whole project

        editor.replace("pkg/model.py", with_print)  # a print in the compiled function, not saved
        assert shown(await editor.published("pkg/model.py")) == [("DYN201", 8, 4, 8, 12)]
        assert await editor.summarized() == 1  # only the edited buffer

        editor.replace("pkg/model.py", model)  # the print removed again
        assert shown(await editor.published("pkg/model.py")) == []
        assert await editor.summarized() == 1

        for _ in range(3):  # a burst of edits: whatever runs are skipped, the last text's diagnostics come
            editor.replace("pkg/model.py", with_print)
            editor.replace("pkg/model.py", model)
        editor.replace("pkg/model.py", with_print)
        assert shown(await editor.settled("pkg/model.py")) == [("DYN201", 8, 4, 8, 12)]

    drive(tmp_path, scenario)
    assert (tmp_path / "pkg/model.py").read_text(encoding="utf-8") == model  # the buffer never reached the disk
    assert cli(tmp_path, "--output-format", "json", "pkg/model.py").stdout.strip() == "[]"


def test_the_buffer_never_reaches_the_on_disk_cache(tmp_path: Path) -> None:
    """An unsaved print must not be reported later by the command line from a cache entry."""
    write(tmp_path, PROJECT)
    assert cli(tmp_path, "--output-format", "json", ".").returncode == 1  # fills the cache from disk
    packs = {p.name: p.read_bytes() for p in (tmp_path / ".dynalint_cache").glob("*.pack")}
    assert packs
    model = (tmp_path / "pkg/model.py").read_text(encoding="utf-8")

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/model.py")
        assert shown(await editor.published("pkg/model.py")) == []
        assert await editor.summarized() == 0  # everything came from the packs on disk
        editor.replace("pkg/model.py", model.replace("    return y + 1\n", "    print(y)\n    return y + 1\n"))
        assert [code for code, *_ in shown(await editor.published("pkg/model.py"))] == ["DYN201"]

    drive(tmp_path, scenario)
    assert {p.name: p.read_bytes() for p in (tmp_path / ".dynalint_cache").glob("*.pack")} == packs
    assert [f["code"] for f in json.loads(cli(tmp_path, "--output-format", "json", "pkg/model.py").stdout)] == []


def test_a_project_big_enough_for_worker_processes(tmp_path: Path) -> None:
    """The first run summarizes in forked workers: they must not wait on the protocol's stdin reader."""
    write(tmp_path, {**PROJECT, **{f"pkg/filler{index}.py": f"VALUE = {index}\n" for index in range(40)}})

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/helpers.py")
        assert [code for code, *_ in shown(await editor.published("pkg/helpers.py"))] == ["DYN201"]
        assert await editor.summarized() == len(list(tmp_path.rglob("*.py")))

    drive(tmp_path, scenario, "--jobs", "2")


def test_saving_a_file_re_lints_the_open_documents_that_depend_on_it(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    uncompiled = (tmp_path / "pkg/model.py").read_text(encoding="utf-8").replace("@torch.compile\n", "")

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/helpers.py")
        assert [code for code, *_ in shown(await editor.published("pkg/helpers.py"))] == ["DYN201"]
        editor.open("pkg/model.py")
        assert shown(await editor.published("pkg/model.py")) == []
        editor.replace("pkg/model.py", uncompiled)
        await editor.published("pkg/model.py")
        (tmp_path / "pkg/model.py").write_text(uncompiled, encoding="utf-8")  # what the editor does on save
        editor.save("pkg/model.py")
        assert shown(await editor.published("pkg/model.py")) == []
        assert shown(await editor.published("pkg/helpers.py")) == []  # nothing compiles fast() any more

    drive(tmp_path, scenario)


def test_a_broken_config_is_shown_not_crashed_on(tmp_path: Path) -> None:
    write(tmp_path, {**PROJECT, "pyproject.toml": "[tool.dynalint]\nselekt = ['DYN2']\n"})

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/helpers.py")
        assert shown(await editor.published("pkg/helpers.py")) == []
        assert any("unknown key `selekt`" in message for message in editor.messages)
        write(tmp_path, {"pyproject.toml": "[tool.dynalint]\n"})  # fixed: the next run reads it anew
        editor.replace("pkg/helpers.py", (tmp_path / "pkg/helpers.py").read_text(encoding="utf-8"))
        assert [code for code, *_ in shown(await editor.published("pkg/helpers.py"))] == ["DYN201"]

    drive(tmp_path, scenario)


def test_a_buffer_over_the_size_limit_gets_one_diagnostic_and_the_server_keeps_answering(tmp_path: Path) -> None:
    """The CLI's ``max-file-size-kb`` holds for buffers: a 2 MB buffer under a 64 KiB limit is one DYN904, not
    a parse; the next document is linted as usual."""
    write(tmp_path, {**PROJECT, "pyproject.toml": "[tool.dynalint]\nmax-file-size-kb = 64\n"})
    huge = "import torch\n" + "".join(f"x{i} = torch.zeros({i})\n" for i in range(100_000))

    async def scenario(editor: Editor) -> None:
        editor.open("generated.py", huge)
        [diagnostic] = await editor.published("generated.py")
        assert diagnostic.code == "DYN904" and "over the 64 KiB limit" in diagnostic.message
        editor.open("pkg/helpers.py")
        assert [code for code, *_ in shown(await editor.published("pkg/helpers.py"))] == ["DYN201"]

    drive(tmp_path, scenario)


# -- hover and quick fix -------------------------------------------------------------------------------------
def test_hover_on_a_flagged_line_shows_the_rule_page(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    page = rule_pages.load_pages()["DYN201"]

    async def scenario(editor: Editor) -> None:
        editor.open("pkg/helpers.py")
        await editor.published("pkg/helpers.py")
        flagged = await editor.hover("pkg/helpers.py", 4)
        assert flagged is not None and isinstance(flagged.contents, types.MarkupContent)
        assert flagged.contents.kind == types.MarkupKind.Markdown
        assert page.summary in flagged.contents.value
        assert checks.BY_CODE["DYN201"].url() in flagged.contents.value
        assert "compiled via: pkg/model.py:6 @torch.compile -> step -> fast" in flagged.contents.value
        assert await editor.hover("pkg/helpers.py", 5) is None  # `return x * 2` is not flagged

    drive(tmp_path, scenario)


NOQA_CASES = {
    "plain": "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n",
    "merged": "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)  # show it  # noqa: DYN999\n    return x\n",
    "after a string": 'import torch\n\n\n@torch.compile\ndef f(x):\n    print("""a\n    b""")\n    return x\n',
    "wide characters": "import torch\n\n\n@torch.compile\ndef f(x):\n    s = '😋'; print(s)\n    return x\n",
}


def test_the_quick_fix_writes_what_add_noqa_writes_and_silences_the_finding(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.dynalint]\n"})
    copies = {case: tmp_path / "copies" / f"case{index}.py" for index, case in enumerate(NOQA_CASES)}
    write(tmp_path, {str(path.relative_to(tmp_path)): NOQA_CASES[case] for case, path in copies.items()})
    assert cli(tmp_path, "--add-noqa", "copies").returncode == 0
    expected = {case: path.read_text(encoding="utf-8") for case, path in copies.items()}
    assert all(expected[case] != NOQA_CASES[case] for case in NOQA_CASES)
    shutil.rmtree(tmp_path / "copies")

    async def scenario(editor: Editor) -> None:
        for case, text in NOQA_CASES.items():
            name = "buffer.py"
            if name in editor.versions:
                editor.replace(name, text)
            else:
                editor.open(name, text)  # never written: the fix works on the unsaved buffer
            diagnostics = await editor.published(name)
            (diagnostic,) = diagnostics
            assert diagnostic.code == "DYN201", case
            (action,) = [a for a in await editor.quick_fixes(name, diagnostic.range.start.line)
                         if a.title.startswith("Disable")]
            assert action.kind == types.CodeActionKind.QuickFix
            assert "DYN201" in action.title
            fixed = apply(text, action, editor.uri(name))
            assert fixed == expected[case], case
            editor.replace(name, fixed)
            assert shown(await editor.published(name)) == [], case
            assert [a for a in await editor.quick_fixes(name, diagnostic.range.start.line)
                    if a.title.startswith("Disable")] == []

    drive(tmp_path, scenario)


FIXABLE = """\
import copy
import logging

import torch

log = logging.getLogger(__name__)


@torch.compile
def step(x: torch.Tensor, config: dict) -> torch.Tensor:
    settings = copy.copy(dict(config))
    total = x[x > 0].sum()
    log.info("step")
    return total * settings["scale"]
"""


def apply_edits(text: str, action: types.CodeAction, uri: str) -> str:
    """``text`` with the action's edits (any number of lines each) applied; ranges in UTF-16 units."""
    assert action.edit is not None and action.edit.changes is not None
    lines = python_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        return starts[position.line] + _code_points(lines[position.line], position.character)

    for edit in sorted(action.edit.changes[uri], key=lambda e: (e.range.start.line, e.range.start.character),
                       reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def test_quick_fixes_and_fix_all_make_the_edits_of_the_command_line(tmp_path: Path) -> None:
    """Each finding's quick fix is its ``--fix`` edit; ``source.fixAll.dynalint`` leaves the buffer as
    ``dynalint check --fix`` leaves the file (safe fixes only: the logging call stays)."""
    write(tmp_path, {"pyproject.toml": "[tool.dynalint]\n", "step.py": FIXABLE})
    assert cli(tmp_path, "--fix", "step.py").returncode == 1  # DYN202 remains: its fix is unsafe
    expected = (tmp_path / "step.py").read_text(encoding="utf-8")
    assert expected != FIXABLE and "log.info" in expected and "torch.where(x > 0, x, 0).sum()" in expected
    json_fixes = {f["code"]: f["fix"] for f in json.loads(cli(tmp_path, "--output-format", "json", "--no-cache",
                                                               "--stdin-filename", "step.py", "-", input=FIXABLE).stdout)}
    (tmp_path / "step.py").write_text(FIXABLE, encoding="utf-8")

    async def scenario(editor: Editor) -> None:
        editor.open("step.py")
        diagnostics = await editor.published("step.py")
        assert sorted(d.code for d in diagnostics) == ["DYN105", "DYN202", "DYN207"]
        for diagnostic in diagnostics:
            fixes = [a for a in await editor.quick_fixes("step.py", diagnostic.range.start.line)
                     if a.title.startswith(f"Fix {diagnostic.code}")]
            assert len(fixes) == 1, diagnostic.code
            [edit] = [e for e in fixes[0].edit.changes[editor.uri("step.py")]]  # type: ignore[union-attr]
            [want] = json_fixes[diagnostic.code]["edits"]
            assert (edit.range.start.line + 1, edit.range.start.character + 1, edit.new_text) == (
                want["location"]["row"], want["location"]["column"], want["content"])
            assert fixes[0].is_preferred == (json_fixes[diagnostic.code]["applicability"] == "safe")
        (action,) = await editor.fix_all("step.py")
        assert apply_edits(FIXABLE, action, editor.uri("step.py")) == expected

    drive(tmp_path, scenario)


# -- without pygls, and at --version ------------------------------------------------------------------------
def test_without_pygls_the_server_says_what_to_install(tmp_path: Path) -> None:
    hide = "import sys; sys.modules['pygls'] = None; from dynalint.cli import main; main(['server'])"
    completed = subprocess.run([sys.executable, "-c", hide], cwd=tmp_path, capture_output=True, text=True,
                               timeout=120)
    assert completed.returncode == 2
    assert "pip install 'dynalint[server]'" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_version_and_linting_import_no_protocol_library(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    probe = (
        "import sys, contextlib, io\n"
        "from dynalint.cli import main\n"
        "for args in (['--version'], ['pkg']):\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(args)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')"
        " or m == 'dynalint.editor.server'))\n"
    )
    completed = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "DYN201: 1" in completed.stderr  # the lint really ran
    assert completed.stdout.strip() == "[]"


# -- the incremental summary, counted at the source --------------------------------------------------------
def test_each_run_summarizes_only_the_texts_it_has_not_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``summarize`` itself is counted: the first run reads the project, each edit costs one call."""
    write(tmp_path, PROJECT)
    calls: list[str] = []

    def counting(tree, display, *args, **kwargs):
        calls.append(Path(display).name)
        return summarize(tree, display, *args, **kwargs)

    monkeypatch.setattr("dynalint.pipeline.stages.summarize", counting)
    monkeypatch.chdir(tmp_path)
    helpers = tmp_path / "pkg/helpers.py"
    text = helpers.read_text(encoding="utf-8")
    linted = documents.Documents(jobs=1)

    first = linted.lint(helpers, text)
    assert sorted(calls) == sorted(p.name for p in tmp_path.rglob("*.py")) and first.summarized == len(calls)
    assert [f.code for f in first.findings] == ["DYN201"]
    calls.clear()
    edited = linted.lint(helpers, text.replace("    print(x)\n", ""))
    assert calls == ["helpers.py"] and edited.summarized == 1 and edited.findings == []
    calls.clear()
    again = linted.lint(helpers, text.replace("    print(x)\n", ""))
    assert calls == [] and again.findings == []

"""What the language server says about an open document, decided without the protocol.

A front end of the pipeline, under ``server.py`` (which speaks the Language Server Protocol through pygls). This module imports no protocol library, so it is tested without one.

A buffer is linted exactly as ``dynalint - --stdin-filename FILE`` lints it: under the config nearest
to the file, with the rest of its project as context, so a helper module that some other file
compiles is reported as ``dynalint FILE`` reports it. The text linted is the buffer's, never the
file's on disk. One in-memory cache per cache folder lives as long as the server
(``cache.Cache.in_memory``): it starts from the packs on disk and never writes them, so a buffer is
never taken for the file. After the first run, a change re-summarizes the changed text only; every
other file of the project is known by its size and modification time, and every file whose
findings cannot have changed keeps them (``digests.py``).
"""

from __future__ import annotations

import time
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dynalint import checks
from dynalint.incremental import cache
from dynalint.lint import parallel, rule_pages
from dynalint.model import selection
from dynalint.model.diagnostics import ALL_DIAGNOSTICS
from dynalint.model.finding import Finding
from dynalint.output import add_noqa
from dynalint.output.reporters import text as text_reporter
from dynalint.pipeline import STDIN, Options, Pipeline
from dynalint.project import config as config_module
from dynalint.project import config_tree, files
from dynalint.project.source_lines import python_lines


@dataclass(frozen=True)
class Linted:
    """One run on one buffer."""

    findings: list[Finding]
    summarized: int  # files parsed and summarized for this run; every other one came from memory
    seconds: float


class Documents:
    """Lints buffers as files of their projects, keeping what it learnt between runs."""

    def __init__(self, jobs: int | None = None) -> None:
        self._jobs = jobs or parallel.default_jobs()
        self._caches: dict[Path, cache.Cache] = {}

    def lint(self, path: Path, text: str) -> Linted:
        """The findings of ``text`` as the file ``path``; raises ``config.ConfigError`` for a broken config."""
        started = time.perf_counter()
        folder = files.real(path).parent
        tree = config_tree.ConfigTree(config_module.load(None, folder))  # read anew: the config may have been edited
        store = self._cache_for(tree.for_folder(folder).cache_folder)
        before = store.summarized
        options = Options(stdin_text=text.encode("utf-8", "surrogatepass"), stdin_filename=files.display_name(path),
                          jobs=self._jobs)
        result = Pipeline(tree, options, store=store).run([STDIN])
        return Linted(result.findings, store.summarized - before, time.perf_counter() - started)

    def fix_all(self, path: Path, text: str) -> str:
        """``text`` with the safe fixes applied, pass after pass, exactly as ``dynalint check --fix`` leaves
        the file (the editor's ``source.fixAll.dynalint``)."""
        from dynalint.pipeline import fixing

        config = config_module.load(None, files.real(path).parent)
        fixed, _ = fixing.fix_text(text, lambda current: self.lint(path, current).findings, fixing.allowed(config, False))
        return fixed

    def _cache_for(self, folder: Path) -> cache.Cache:
        if folder not in self._caches:
            self._caches[folder] = cache.Cache.in_memory(folder if folder.is_dir() else None)
        return self._caches[folder]


@dataclass(frozen=True)
class LineEdit:
    """Replace line ``line`` (1-based, its ending kept) from code point ``column`` (0-based) on with ``text``."""

    line: int
    column: int
    end_column: int
    text: str


def suppressible(finding: Finding) -> bool:
    """Whether a ``# noqa`` can silence the finding (dynalint's own DYN9xx diagnostics cannot)."""
    return finding.code not in selection.DIAGNOSTIC_CODES


def noqa_edit(text: str, finding: Finding) -> LineEdit | None:
    """The edit that adds ``# noqa: CODE`` for ``finding`` to ``text``, as ``--add-noqa`` would write it.

    ``None`` when no line can hold the comment, the line is silenced already, or ``text`` does not tokenize.
    """
    if not suppressible(finding):
        return None
    try:
        rewritten, _ = add_noqa.noqa_lines(text, [finding])
    except (tokenize.TokenError, SyntaxError):
        return None
    for number, line in rewritten.items():
        old, new = python_lines(text)[number - 1].rstrip("\r\n"), line.rstrip("\r\n")
        if old == new:
            return None
        same = 0
        while same < min(len(old), len(new)) and old[same] == new[same]:
            same += 1
        return LineEdit(number, same, len(old), new[same:])
    return None


def hover(findings: Sequence[Finding]) -> str:
    """Markdown for the findings on one line: each rule's page summary, the message, why it is compiled."""
    return "\n\n---\n\n".join(_describe(finding) for finding in findings)


def _describe(finding: Finding) -> str:
    rule = checks.BY_CODE.get(finding.code)
    page = _pages().get(finding.code)
    diagnostic = next((d for d in ALL_DIAGNOSTICS if d.code == finding.code), None)
    summary = page.summary if page is not None else diagnostic.summary if diagnostic is not None else ""
    parts = [f"**{finding.code}** `{finding.name}`: {summary}".rstrip(": "), text_reporter.describe(finding)]
    if page is not None:
        what = " ".join(page.sections.get("What it does", "").split())
        if what:
            parts.append(what)
    parts.extend(text_reporter.details(finding))
    if rule is not None:
        parts.append(f"[{finding.code} rule page]({rule.url()})")
    return "\n\n".join(parts)


def rule_url(code: str) -> str | None:
    """The rule page's URL (the one SARIF's ``helpUri`` gives); ``None`` for dynalint's own diagnostics."""
    rule = checks.BY_CODE.get(code)
    return rule.url() if rule is not None else None


@lru_cache(maxsize=1)
def _pages() -> dict[str, rule_pages.Page]:
    return rule_pages.load_pages()

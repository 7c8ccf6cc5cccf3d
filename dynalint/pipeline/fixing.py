"""The fix loop (``--fix``, ``--unsafe-fixes``, ``--diff``): lint, apply the fixes allowed, lint again.

Each pass runs the whole pipeline over the files as the last pass left them (``Options.texts``, nothing
is written meanwhile), so a fix sees the project's cross-file facts like any finding. ``output/fix_edits``
applies the fixes of each file that do not overlap; the ones that overlap wait for the next pass, as in
ruff. The loop ends when a pass applies nothing (or after ``MAX_PASSES``). The findings of the last run
are what remains, and decide the exit code. Files are written only by ``write``, when ``--fix`` asks.
Notebooks are not fixed yet: their findings keep their fixes for the JSON output, and are left alone.
"""

from __future__ import annotations

import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dynalint.model.finding import Applicability, Finding
from dynalint.model.selection import fix_applicability
from dynalint.output import fix_edits
from dynalint.pipeline.result import LintResult
from dynalint.pipeline.run import Pipeline
from dynalint.project import files
from dynalint.project.config import Config

MAX_PASSES = 10


@dataclass
class FileFix:
    """One file the loop changed."""

    path: Path  # as found on disk
    display: str
    before: str
    after: str
    encoding: str = "utf-8"  # as the file declares it (``tokenize.detect_encoding``); a BOM is kept

    def encoded(self) -> bytes:
        return self.after.encode(self.encoding)


@dataclass
class FixOutcome:
    result: LintResult  # the run over the fixed texts: the findings that remain
    changed: list[FileFix] = field(default_factory=list)
    applied: list[Finding] = field(default_factory=list)  # every fix applied, in the pass that applied it
    dropped: list[tuple[Finding, str]] = field(default_factory=list)  # fixes not applied, and why


def allowed(config: Config, unsafe: bool) -> Callable[[Finding], bool]:
    """Whether a finding's fix is applied in this run: safe ones always, unsafe ones with
    ``--unsafe-fixes``, display-only never; ``fixable`` / ``unfixable`` and the ``extend-*`` keys first."""
    wanted = {Applicability.SAFE, *((Applicability.UNSAFE,) if unsafe else ())}

    def applies(finding: Finding) -> bool:
        if finding.fix is None or finding.cell is not None:
            return False
        counted = effective(finding, config)
        return counted is not None and counted in wanted

    return applies


def effective(finding: Finding, config: Config) -> Applicability | None:
    """The applicability of a finding's fix under the config (``None``: not fixable here)."""
    assert finding.fix is not None
    return fix_applicability(finding.code, finding.fix.applicability, fixable=config.fixable,
                             unfixable=config.unfixable, extend_safe=config.extend_safe_fixes,
                             extend_unsafe=config.extend_unsafe_fixes)


def fix(pipeline: Pipeline, paths: Sequence[str], first: LintResult, config: Config, unsafe: bool,
        only: Callable[[Finding], bool] | None = None) -> FixOutcome:
    """Fix what ``first`` (the pipeline's run over ``paths``) found, over as many passes as it takes;
    ``only`` narrows the fixes further (``--fix --verify`` tries one function's at a time)."""
    allowed_here = allowed(config, unsafe)

    def applies(finding: Finding) -> bool:
        return allowed_here(finding) and (only is None or only(finding))

    options = pipeline.options
    try:
        return _passes(pipeline, paths, first, applies)
    finally:
        pipeline.options = options  # later runs read the files from disk again


def _passes(pipeline: Pipeline, paths: Sequence[str], first: LintResult, applies: Callable[[Finding], bool]) -> FixOutcome:
    texts: dict[str, str] = {}  # real path -> the text as fixed so far
    originals: dict[str, FileFix] = {}
    outcome = FixOutcome(first)
    result = first
    for _ in range(MAX_PASSES):
        by_file: dict[str, list[Finding]] = {}
        for finding in result.findings:
            if applies(finding) and Path(finding.filename).is_file():
                by_file.setdefault(finding.filename, []).append(finding)
        progressed = False
        outcome.dropped = []  # a fix that cannot be made comes back in every pass: said once, from the last
        for display, findings in by_file.items():
            path = Path(display)
            real = str(files.real(path))
            before = texts.get(real)
            if before is None:
                read = files.read_file(path, display)
                if not isinstance(read, str):  # unreadable since the run: nothing to fix
                    continue
                before = read
                originals[real] = FileFix(path, display, before, before, _encoding(path))
            applied = fix_edits.apply(before, findings)
            outcome.dropped += applied.dropped
            if applied.applied:
                progressed = True
                texts[real] = applied.text
                outcome.applied += applied.applied
        if not progressed:
            break
        pipeline.options = replace(pipeline.options, texts=dict(texts))
        result = pipeline.run(paths)
    outcome.result = result
    for real, original in originals.items():
        after = texts.get(real, original.before)
        if after != original.before:
            outcome.changed.append(replace(original, after=after))
    return outcome


def fix_text(text: str, lint: Callable[[str], Sequence[Finding]], applies: Callable[[Finding], bool]) -> tuple[str, list[Finding]]:
    """One text's fix loop (``api.fix_source``, the language server's fix-all): lint, apply, lint again,
    until a pass applies nothing; the fixed text and the fixes applied."""
    applied: list[Finding] = []
    for _ in range(MAX_PASSES):
        outcome = fix_edits.apply(text, [f for f in lint(text) if applies(f)])
        if not outcome.applied:
            break
        text = outcome.text
        applied += outcome.applied
    return text, applied


def write(changed: Sequence[FileFix]) -> None:
    """Write the fixed texts back (``--fix``): exactly the bytes that were read, edited where fixed."""
    for file in changed:
        file.path.write_bytes(file.encoded())


def _encoding(path: Path) -> str:
    """The encoding the file is written back in: its declared one, ``utf-8-sig`` where it starts with a BOM."""
    with path.open("rb") as stream:
        encoding, _ = tokenize.detect_encoding(stream.readline)
    return encoding

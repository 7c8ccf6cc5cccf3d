"""The pipeline end to end: files -> summarize -> program -> lint -> suppress / select -> sorted findings.

``lint_paths`` is what the CLI calls; ``lint_source`` checks one text (tests, editors, rule pages).
Only files that hold compiled regions are parsed with LibCST: everything else costs one ``ast`` parse.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dynalint import diagnostics, failsafe, files, overlaps, registry, suppression, versions
from dynalint.config import Config
from dynalint.engine import lint_module
from dynalint.finding import Confidence, Finding, Region
from dynalint.program import Program, link
from dynalint.rule import Rule
from dynalint.summary import ModuleSummary, summarize

STDIN = "-"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    program: Program | None = None  # the linked tree, for ``--verify`` to plan what to compile
    entries: list[Region] = field(default_factory=list)  # compile entry points in the files asked for
    skipped: list[str] = field(default_factory=list)  # excluded folders that hold Python files


@dataclass
class _Parsed:
    file: files.SourceFile
    text: str
    summary: ModuleSummary
    requested: bool = True  # False: only read so that cross-file regions are known


def lint_source(text: str, path: str = "<string>", config: Config | None = None) -> list[Finding]:
    """Findings for one source text, as if it were the only file in the tree."""
    config = config or Config()
    source = files.SourceFile(Path(path), path, Path(path).stem, False)
    return _lint([(source, text)], config).findings


def lint_paths(
    paths: Sequence[str],
    config: Config,
    *,
    force_exclude: bool = False,
    stdin_text: bytes | None = None,
    stdin_filename: str | None = None,
) -> LintResult:
    """Lint files and folders (``-`` is standard input, named ``stdin_filename``)."""
    inputs: list[tuple[files.SourceFile, str | Finding]] = []
    for raw in paths:
        if raw == STDIN:
            name = stdin_filename or "<stdin>"
            if force_exclude and stdin_filename and files.is_excluded(Path(name), config):
                continue
            source = files.source_file(Path(name), name) if stdin_filename else files.SourceFile(
                Path(name), name, "stdin", False
            )
            inputs.append((source, files.decode(stdin_text or b"", name)))
    on_disk = [p for p in paths if p != STDIN]
    found = files.discover(on_disk, config, force_exclude)
    for path in found.files:
        source = files.source_file(path)
        inputs.append((source, files.read_source(path, source.display, config.max_file_kb)))
    result = _lint(inputs, config, _project_context(on_disk, inputs, config))
    result.skipped = found.skipped
    result.findings = sorted(result.findings + [f for f in found.problems if _selected(f, config)],
                             key=lambda f: f.sort_key)
    return result


def _project_context(
    on_disk: Sequence[str], inputs: Sequence[tuple[files.SourceFile, str | Finding]], config: Config
) -> list[tuple[files.SourceFile, str | Finding]]:
    """Other files of the project, when files were named one by one (as pre-commit does).

    A staged helper module is compiled because some *other* file compiles a model that calls it; to
    know that, every file of the project is summarized (one ``ast`` parse each), but only the files
    asked for are linted and reported.
    """
    explicit = [Path(p) for p in on_disk if Path(p).is_file()]
    if not explicit:
        return []
    root = config.root if config.source else files.project_root(explicit[0])
    asked = {files.real(source.path) for source, _ in inputs}
    context = []
    for path in files.discover([str(root)], config).files:
        if files.real(path) not in asked:
            shown = files.display_name(path)
            context.append((files.source_file(path, shown), files.read_source(path, shown, config.max_file_kb)))
    return context


def _lint(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    config: Config,
    context: Sequence[tuple[files.SourceFile, str | Finding]] = (),
) -> LintResult:
    # Every stage's walk recurses with the tree: run them where any nesting Python accepts fits.
    return failsafe.run_deep(lambda: _lint_contained(inputs, config, context))


def _lint_contained(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    config: Config,
    context: Sequence[tuple[files.SourceFile, str | Finding]],
) -> LintResult:
    """The pipeline, each stage's work on each file inside ``failsafe.contain``."""
    parsed, unparsable = _summarize_all(inputs, context)
    program, unlinkable = _link_contained(parsed, config)
    linted = _lint_compiled(parsed, program, config)
    findings = [f for f in (*unparsable, *unlinkable, *linted) if _selected(f, config)]
    return LintResult(
        sorted(findings, key=lambda f: f.sort_key), len(inputs), program, _entry_regions(program, parsed)
    )


def _summarize_all(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    context: Sequence[tuple[files.SourceFile, str | Finding]],
) -> tuple[list[_Parsed], list[Finding]]:
    """Parse and summarize the files asked for and the context files; the diagnostics of those asked for."""
    parsed: list[_Parsed] = []
    problems: list[Finding] = []
    taken: set[str] = set()
    for (source, text), requested in [*((item, True) for item in inputs), *((item, False) for item in context)]:
        failsafe.checkpoint()
        prepared = _prepare(source, text, taken)
        if isinstance(prepared, Finding):
            if requested:  # a context file is only read for its compile sites: a bad one is left out
                problems.append(prepared)
            continue
        prepared.requested = requested
        parsed.append(prepared)
    return parsed, problems


def _entry_regions(program: Program, parsed: Sequence[_Parsed]) -> list[Region]:
    """The certain compile entry points in the files asked for (what ``--verify`` compiles)."""
    requested_modules = {item.summary.module for item in parsed if item.requested}
    return [
        region for name, region in program.regions.items()
        if region.entry == name and region.confidence is Confidence.CERTAIN
        and program.functions[name].module.module in requested_modules
    ]


def _lint_compiled(parsed: Sequence[_Parsed], program: Program, config: Config) -> list[Finding]:
    """Lint every file asked for that holds compiled code; superseded and suppressed findings dropped."""
    compiled_modules = {program.functions[name].module.module for name in program.regions}
    findings: list[Finding] = []
    for item in parsed:
        if not item.requested or item.summary.module not in compiled_modules:
            continue
        rules = _rules_for(item.file, config)
        if not rules:
            continue
        deadline = failsafe.Deadline(config.max_file_seconds)
        linted = failsafe.contain("lint", item.file.display, lambda: suppression.apply(overlaps.drop_superseded(
            lint_module(item.text, item.file.display, item.summary, program, rules, deadline), rules
        ), item.text))
        findings += [linted] if isinstance(linted, Finding) else linted
    return findings


def _prepare(source: files.SourceFile, text: str | Finding, taken: set[str]) -> _Parsed | Finding:
    """Parse and summarize one file, or the diagnostic that says why it could not be."""
    if isinstance(text, Finding):
        return text
    tree = failsafe.contain("parse", source.display, lambda: _parse(text, source.display))
    if isinstance(tree, Finding):
        return tree
    module = _unique(source.module, taken, source.display)
    summary = failsafe.contain(
        "summarize", source.display, lambda: summarize(tree, source.display, module, source.is_package)
    )
    if isinstance(summary, Finding):
        return summary
    return _Parsed(source, text, summary)


def _parse(text: str, display: str) -> ast.Module | Finding:
    try:
        return ast.parse(text, filename=display)
    except SyntaxError as error:
        return diagnostics.parse_error(display, error.lineno or 1, error.offset or 1, error.msg or "invalid syntax")
    except ValueError as error:  # source text Python refuses outright (a NUL byte after decoding)
        return diagnostics.parse_error(display, 1, 1, str(error))


def _link_contained(parsed: list[_Parsed], config: Config) -> tuple[Program, list[Finding]]:
    """The linked program; a file whose summary breaks linking is left out with its own diagnostic."""
    try:
        return link([p.summary for p in parsed], config.dynamo), []
    except Exception:  # noqa: BLE001 - find the files that cause it; linking is cheap next to parsing
        pass
    findings, kept = [], []
    for item in parsed:
        alone = failsafe.contain("link", item.file.display, lambda: link([item.summary], config.dynamo))
        if isinstance(alone, Finding):
            if item.requested:
                findings.append(alone)
        else:
            kept.append(item)
    parsed[:] = kept
    linked = failsafe.contain("link", kept[0].file.display if kept else "<tree>",
                              lambda: link([p.summary for p in kept], config.dynamo))
    if isinstance(linked, Finding):  # files that link alone but not together: nothing can be linted
        parsed.clear()
        return link([], config.dynamo), [*findings, linked]
    return linked, findings


def _unique(module: str, taken: set[str], display: str) -> str:
    """Two scripts with the same name in different folders must not share a module name."""
    name = module if module not in taken else f"{module}@{display}"
    taken.add(name)
    return name


def _per_file_ignores(display: str, config: Config) -> tuple[str, ...]:
    path = Path(display)
    try:
        relative = files.real(path).relative_to(config.root).as_posix()
    except ValueError:
        relative = path.as_posix()
    return tuple(
        code
        for pattern, codes in config.per_file_ignores
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern)
        for code in codes
    )


def _rules_for(source: files.SourceFile, config: Config) -> list[type[Rule]]:
    ignore = (*config.ignore, *_per_file_ignores(source.display, config))
    torch_version = versions.target(config.target_torch)
    return [
        rule
        for rule in registry.enabled(config.select, config.extend_select, ignore)
        if versions.in_range(torch_version, rule.torch)
    ]


def _selected(finding: Finding, config: Config) -> bool:
    if finding.code in registry.DIAGNOSTIC_CODES:
        ignore = (*config.ignore, *_per_file_ignores(finding.filename, config))
        return registry.diagnostic_enabled(finding.code, config.select, config.extend_select, ignore)
    return finding.confidence.at_least(config.min_confidence)

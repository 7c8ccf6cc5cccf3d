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

from dynalint import diagnostics, files, registry, suppression, versions
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
    for path in files.discover(on_disk, config, force_exclude):
        source = files.source_file(path)
        inputs.append((source, files.read_source(path, source.display)))
    return _lint(inputs, config, _project_context(on_disk, inputs, config))


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
    asked = {source.path.resolve() for source, _ in inputs}
    context = []
    for path in files.discover([str(root)], config):
        if path.resolve() not in asked:
            shown = files.display_name(path)
            context.append((files.source_file(path, shown), files.read_source(path, shown)))
    return context


def _lint(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    config: Config,
    context: Sequence[tuple[files.SourceFile, str | Finding]] = (),
) -> LintResult:
    result = LintResult(files_checked=len(inputs))
    parsed: list[_Parsed] = []
    taken: set[str] = set()
    requested = len(inputs)
    for index, (source, text) in enumerate([*inputs, *context]):
        if index >= requested:
            parsed_context = _parse_quietly(source, text)
            if parsed_context is not None:
                module = _unique(source.module, taken, source.display)
                parsed.append(_Parsed(source, "", summarize(parsed_context, source.display, module,
                                                            source.is_package), requested=False))
            continue
        if isinstance(text, Finding):
            result.findings.append(text)
            continue
        module = _unique(source.module, taken, source.display)
        try:
            tree = ast.parse(text, filename=source.display)
        except SyntaxError as error:
            detail = error.msg or "invalid syntax"
            result.findings.append(diagnostics.parse_error(source.display, error.lineno or 1, error.offset or 1, detail))
            continue
        except (ValueError, RecursionError) as error:  # e.g. a NUL byte after decoding, absurd nesting
            result.findings.append(diagnostics.parse_error(source.display, 1, 1, str(error)))
            continue
        parsed.append(_Parsed(source, text, summarize(tree, source.display, module, source.is_package)))
    program = link([p.summary for p in parsed], config.dynamo)
    result.program = program
    compiled_modules = {program.functions[name][0].module for name in program.regions}
    requested = {item.summary.module for item in parsed if item.requested}
    result.entries = [
        region for name, region in program.regions.items()
        if region.entry == name and region.confidence is Confidence.CERTAIN
        and program.functions[name][0].module in requested
    ]
    for item in parsed:
        if not item.requested or item.summary.module not in compiled_modules:
            continue
        rules = _rules_for(item.file, config)
        if rules:
            findings = lint_module(item.text, item.file.display, item.summary, program, rules)
            result.findings += suppression.apply(findings, item.text)
    result.findings = [f for f in result.findings if _selected(f, config)]
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _unique(module: str, taken: set[str], display: str) -> str:
    """Two scripts with the same name in different folders must not share a module name."""
    name = module if module not in taken else f"{module}@{display}"
    taken.add(name)
    return name


def _parse_quietly(source: files.SourceFile, text: str | Finding) -> ast.Module | None:
    """Context files are not reported on: one that cannot be read or parsed is just left out."""
    if isinstance(text, Finding):
        return None
    try:
        return ast.parse(text, filename=source.display)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _per_file_ignores(display: str, config: Config) -> tuple[str, ...]:
    path = Path(display)
    try:
        relative = path.resolve().relative_to(config.root).as_posix()
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
    return True

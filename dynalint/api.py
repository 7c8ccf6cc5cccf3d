"""The pipeline end to end: files -> summarize -> program -> lint -> suppress / select -> sorted findings.

``lint_paths`` is what the CLI calls; ``lint_source`` checks one text (tests, editors, rule pages).
Only files that hold compiled regions are parsed with LibCST: everything else costs one ``ast`` parse.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import gc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dynalint import (
    cache, diagnostics, digests, failsafe, files, newsyntax, notebook, overlaps, parallel, registry, snapshot,
    suppression,
    versions,
)
from dynalint.config import Config
from dynalint.finding import Confidence, Finding, Region
from dynalint.program import Program, link
from dynalint.progress import Report
from dynalint.summary import ModuleSummary, summarize

STDIN = "-"
# Findings that say a run was cut short or went wrong: never cached, the next run tries again.
_TRANSIENT = frozenset({"DYN903", "DYN904"})
_WORKER_DIED = "the worker process died on this file"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    program: Program | None = None  # the linked tree, for ``--verify`` to plan what to compile
    entries: list[Region] = field(default_factory=list)  # compile entry points in the files asked for
    skipped: list[str] = field(default_factory=list)  # excluded folders that hold Python files
    warnings: list[str] = field(default_factory=list)  # what was not linted and why (non-Python files, ...)


@dataclass
class _Parsed:
    file: files.SourceFile
    text: str
    summary: ModuleSummary
    requested: bool = True  # False: only read so that cross-file regions are known
    content: str = ""  # content hash: what the cache and the findings digests know the file by


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
    use_cache: bool = False,
    jobs: int = 1,
    discovered: files.Discovery | None = None,
    progress: Report | None = None,
    store: cache.Cache | None = None,
    program_needed: bool = False,
) -> LintResult:
    """Lint files and folders (``-`` is standard input, named ``stdin_filename``).

    ``discovered``: the files of ``paths`` found already (``nearest.py`` walks once for every config).
    ``progress(stage, done, total)``: told how far the summarize and lint stages are (the CLI's progress line).

    With ``use_cache``, summaries and findings are kept between runs in ``config.cache_folder``, and a
    run over files as the last run saw them is answered from it (``snapshot.py``); then the result has
    no ``program`` and no ``entries``, unless ``program_needed`` (``--verify`` compiles from them).
    ``store`` is a cache the caller keeps instead (the language server's, in memory).
    The cyclic garbage collector is paused for the run: summaries are large graphs of objects that live
    until the end, and the collector's passes over them cost about a tenth of a whole-tree run.
    """
    if discovered is None:  # a caller that walked the paths already forgot for this run, and memoized since
        files.forget_paths()
    with _collector_paused():
        return _lint_paths(paths, config, force_exclude, stdin_text, stdin_filename, use_cache, jobs, discovered,
                           progress, store, program_needed)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _lint_paths(
    paths: Sequence[str],
    config: Config,
    force_exclude: bool,
    stdin_text: bytes | None,
    stdin_filename: str | None,
    use_cache: bool,
    jobs: int,
    discovered: files.Discovery | None = None,
    progress: Report | None = None,
    store: cache.Cache | None = None,
    program_needed: bool = False,
) -> LintResult:
    inputs: list[tuple[files.SourceFile, str | Finding]] = []
    stats: dict[str, snapshot.Stat] = {}  # of the files named, taken before they are read
    notebooks: dict[str, notebook.Notebook] = {}  # by display name: where their findings' lines are

    def add(source: files.SourceFile, read: str | notebook.Notebook | Finding) -> None:
        if isinstance(read, notebook.Notebook):
            notebooks[source.display] = read
            read = read.text
        inputs.append((source, read))

    for raw in paths:
        if raw == STDIN:
            name = stdin_filename or "<stdin>"
            if force_exclude and stdin_filename and files.is_excluded(Path(name), config):
                continue
            source = replace(files.source_file(Path(name), name), from_stdin=True) if stdin_filename else (
                files.SourceFile(Path(name), name, "stdin", False, from_stdin=True)
            )
            add(source, files.decode_notebook(stdin_text or b"", name, config.max_file_kb)
                if notebook.is_notebook(name) else files.decode(stdin_text or b"", name))
    on_disk = [p for p in paths if p != STDIN]
    found = discovered if discovered is not None else files.discover(on_disk, config, force_exclude)
    for path in found.files:
        source = files.source_file(path)
        stats[str(files.real(path))] = cache.stat_key(path)
        add(source, files.read_file(path, source.display, config.max_file_kb))
    if store is None:
        store = cache.Cache.open(config.cache_folder if use_cache else None)
    # A text read from stdin under a file's name is that file of its project: the project is its context.
    named = [*on_disk, *([stdin_filename] if stdin_filename and STDIN in paths else [])]
    context = _project_context(named, inputs, config)
    result = _answer_from_snapshot(inputs, context, stats, config, store, program_needed, jobs, progress)
    store.save()
    result.skipped = found.skipped
    result.warnings = found.warnings
    # Linted (and cached) in the joined cells' lines; placed in this run's cells last, so that a cached
    # finding follows a cell split or a markdown cell inserted above it.
    placed = notebook.place_all(result.findings, _with_context_notebooks(result.findings, notebooks, config))
    result.findings = sorted(placed + [f for f in found.problems if _selected(f, config)], key=lambda f: f.sort_key)
    return result


def _with_context_notebooks(
    findings: Sequence[Finding], notebooks: dict[str, notebook.Notebook], config: Config
) -> dict[str, notebook.Notebook]:
    """``notebooks``, and the cell layout of every context notebook a why-chain leads to (a staged module
    compiled from a notebook that is not staged)."""
    linked = {link.filename for f in findings if f.region is not None for link in f.region.chain
              if notebook.is_notebook(link.filename) and link.filename not in notebooks}
    layouts = dict(notebooks)
    for filename in sorted(linked):
        read = files.read_file(Path(filename), filename, config.max_file_kb)
        if isinstance(read, notebook.Notebook):
            layouts[filename] = read
    return layouts


def _answer_from_snapshot(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    context: Sequence[files.SourceFile],
    stats: dict[str, snapshot.Stat],
    config: Config,
    store: cache.Cache,
    program_needed: bool,
    jobs: int = 1,
    progress: Report | None = None,
) -> LintResult:
    """The cached answer when the snapshot stands for this run (``snapshot.py``), else the pipeline's."""
    if store.folder is None:
        return _lint(inputs, config, context, store, jobs, progress)
    members = snapshot.members_of([
        *((str(files.real(source.path)), source, None if source.from_stdin else stats.get(str(files.real(source.path))))
          for source, _ in inputs),
        *((str(files.real(source.path)), source, cache.stat_key(source.path)) for source in context),
    ])
    key = snapshot.run_key(config)
    named = {str(files.real(source.path)): text for source, text in inputs}
    answered = None if program_needed else snapshot.answer(store, key, members, named)
    if answered is not None:
        return LintResult(sorted((f for f in answered if _selected(f, config)), key=lambda f: f.sort_key), len(inputs))
    ledger = snapshot.Ledger()
    result = _lint(inputs, config, context, store, jobs, progress, ledger)
    snapshot.record(store, key, members, ledger)
    return result


def _project_context(
    on_disk: Sequence[str], inputs: Sequence[tuple[files.SourceFile, str | Finding]], config: Config
) -> list[files.SourceFile]:
    """Other files of the project, when files were named one by one (as pre-commit does).

    A staged helper module is compiled because some *other* file compiles a model that calls it; to
    know that, every file of the project is summarized (one ``ast`` parse each), but only the files
    asked for are linted and reported.
    """
    explicit = [Path(p) for p in on_disk if Path(p).is_file() or not Path(p).exists()]
    if not explicit:
        return []
    root = config.root if config.source else files.project_root(explicit[0])
    asked = {files.real(source.path) for source, _ in inputs}
    return [
        files.source_file(path, files.display_name(path))
        for path in files.discover([str(root)], config).files
        if files.real(path) not in asked
    ]


def _lint(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    config: Config,
    context: Sequence[files.SourceFile] = (),
    store: cache.Cache | None = None,
    jobs: int = 1,
    progress: Report | None = None,
    ledger: snapshot.Ledger | None = None,
) -> LintResult:
    # Every stage's walk recurses with the tree: run them where any nesting Python accepts fits.
    return failsafe.run_deep(lambda: _lint_contained(inputs, config, context, store or cache.Cache(None), jobs,
                                                     progress, ledger or snapshot.Ledger()))


def _lint_contained(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    config: Config,
    context: Sequence[files.SourceFile],
    store: cache.Cache,
    jobs: int = 1,
    progress: Report | None = None,
    ledger: snapshot.Ledger | None = None,
) -> LintResult:
    """The pipeline, each stage's work on each file inside ``failsafe.contain``; what each file came to
    is noted in ``ledger`` for the snapshot."""
    ledger = ledger or snapshot.Ledger()
    parsed, unparsable = _summarize_all(inputs, context, config, store, jobs, _stage(progress, "summarizing"),
                                        ledger)
    program, unlinkable = _link_contained(parsed, config)
    ledger.complete = ledger.complete and not unlinkable
    linted = _lint_compiled(parsed, program, config, store, jobs, _stage(progress, "linting"), ledger)
    findings = [f for f in (*unparsable, *unlinkable, *linted) if _selected(f, config)]
    return LintResult(
        sorted(findings, key=lambda f: f.sort_key), len(inputs), program, _entry_regions(program, parsed)
    )


def _stage(progress: Report | None, stage: str) -> Callable[[int, int], None] | None:
    """``progress`` for one stage: ``(done, total)``."""
    return None if progress is None else (lambda done, total: progress(stage, done, total))


@dataclass
class _Pending:
    """A file the cache could not answer for: to be parsed and summarized (by a worker when many)."""

    slot: int
    source: files.SourceFile
    text: str
    module: str
    content: str
    stat: tuple[int, int, int] | None
    requested: bool


def _summarize_all(
    inputs: Sequence[tuple[files.SourceFile, str | Finding]],
    context: Sequence[files.SourceFile],
    config: Config,
    store: cache.Cache,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    ledger: snapshot.Ledger | None = None,
) -> tuple[list[_Parsed], list[Finding]]:
    """Parse and summarize the files asked for and the context files; the diagnostics of those asked for.

    A context file whose size and modification time the cache knows is not read at all; any other
    file is read and, when the cache holds its content, not parsed. The rest are summarized, in
    worker processes when there are many; the order of the files, and so every module name, is the
    same either way.
    """
    ledger = ledger or snapshot.Ledger()
    slots: list[_Parsed | Finding | None] = []
    pending: list[_Pending] = []
    taken: set[str] = set()
    everything = [*((source, text, True) for source, text in inputs), *((source, None, False) for source in context)]
    for source, text, requested in everything:
        failsafe.checkpoint()
        key = str(files.real(source.path))
        stat = None if requested else cache.stat_key(source.path)
        known = None if requested else store.summary_by_stat(
            key, stat, source.module, source.is_package, source.display
        )
        if known is None:
            text = files.read_source(source.path, source.display, config.max_file_kb) if text is None else text
            if isinstance(text, Finding):
                slots.append(text if requested else None)  # a context file is only read for its compile sites
                continue
            content = cache.content_hash(text)
            known = store.summary_by_content(key, content, source.module, source.is_package, source.display)
        else:
            text, content = "", known.content
        ledger.contents[key] = content
        if known is not None and (not isinstance(known.value, ModuleSummary) or _claim(known.value.module, taken)):
            value = known.value
            if requested and isinstance(value, Finding):
                ledger.answers[key] = ("finding", value)
            slots.append(_Parsed(source, text, value, requested, content) if isinstance(value, ModuleSummary)
                         else (value if requested else None))
            continue
        pending.append(_Pending(len(slots), source, text, _unique(source.module, taken, source.display), content,
                                None if source.from_stdin else stat or cache.stat_key(source.path), requested))
        slots.append(None)
    summarized = parallel.run(
        lambda index: _prepare(pending[index].source, pending[index].text, pending[index].module),
        len(pending), jobs,
        lost=lambda index: diagnostics.stage_crash(pending[index].source.display, "summarize", _WORKER_DIED),
        done=progress and (lambda done: progress(done, len(pending))),
    )
    for item, value in zip(pending, summarized):
        if not (isinstance(value, Finding) and value.code in _TRANSIENT):
            store.store_summary(str(files.real(item.source.path)), cache.SummaryEntry(
                item.stat, item.content, item.source.module, item.source.is_package, item.source.display, value
            ))
            if item.requested and isinstance(value, Finding):
                ledger.answers[str(files.real(item.source.path))] = ("finding", value)
        if isinstance(value, ModuleSummary):
            slots[item.slot] = _Parsed(item.source, item.text, value, item.requested, item.content)
        elif item.requested:
            slots[item.slot] = value
    parsed = [slot for slot in slots if isinstance(slot, _Parsed)]
    return parsed, [slot for slot in slots if isinstance(slot, Finding)]


def _claim(module: str, taken: set[str]) -> bool:
    """Take a cached summary's module name, unless another file of this run already has it."""
    if module in taken:
        return False
    taken.add(module)
    return True


def _entry_regions(program: Program, parsed: Sequence[_Parsed]) -> list[Region]:
    """The certain compile entry points in the files asked for (what ``--verify`` compiles)."""
    requested_modules = {item.summary.module for item in parsed if item.requested}
    return [
        region for name, region in program.regions.items()
        if region.entry == name and region.confidence is Confidence.CERTAIN
        and program.functions[name].module.module in requested_modules
    ]


def _lint_compiled(
    parsed: Sequence[_Parsed], program: Program, config: Config, store: cache.Cache, jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    ledger: snapshot.Ledger | None = None,
) -> list[Finding]:
    """Lint every file asked for that holds compiled code; superseded and suppressed findings dropped.

    A file whose findings digest the cache holds is not parsed with LibCST again; the others are
    linted in worker processes when there are many.
    """
    ledger = ledger or snapshot.Ledger()
    regions = _regions_by_module(program)
    dependencies = digests.ImportClosure(program, {item.summary.module: item.content for item in parsed})
    settings = digests.settings_key(program, config)
    found: list[list[Finding] | None] = []
    pending: list[tuple[int, _Parsed, tuple[str, ...], str, str]] = []
    for item in parsed:
        if not item.requested:
            continue
        key = str(files.real(item.file.path))
        rules = _rules_for(item.file, config) if item.summary.module in regions else ()
        if not rules:
            ledger.answers[key] = ("clean", None)
            continue
        digest = digests.findings_digest(item, rules, regions[item.summary.module], settings, dependencies)
        cached = store.findings_for(key, digest)
        if cached is None:
            pending.append((len(found), item, rules, key, digest))
        else:
            ledger.answers[key] = ("digest", digest)
        found.append(cached)

    if pending:  # LibCST and the rules, only for a run with something to lint
        from dynalint.engine import lint_module

    def lint_one(index: int) -> list[Finding]:
        _, item, codes, _, _ = pending[index]
        rules = registry.classes(codes)
        deadline = failsafe.Deadline(config.max_file_seconds)
        linted = failsafe.contain("lint", item.file.display, lambda: suppression.apply(overlaps.drop_superseded(
            lint_module(item.text, item.file.display, item.summary, program, rules, deadline), rules
        ), item.text))
        return [linted] if isinstance(linted, Finding) else linted

    linted_all = parallel.run(
        lint_one, len(pending), jobs,
        lost=lambda index: [diagnostics.stage_crash(pending[index][1].file.display, "lint", _WORKER_DIED)],
        min_items=4, done=progress and (lambda done: progress(done, len(pending))),
    )
    for (slot, _, _, key, digest), linted in zip(pending, linted_all):
        if not any(f.code in _TRANSIENT for f in linted):
            store.store_findings(key, digest, linted)
            ledger.answers[key] = ("digest", digest)
        found[slot] = linted
    return [finding for findings in found if findings for finding in findings]


def _regions_by_module(program: Program) -> dict[str, list[tuple[str, Region]]]:
    """Each module's compiled functions and their regions (why-chains included)."""
    grouped: dict[str, list[tuple[str, Region]]] = {}
    for name, region in program.regions.items():
        grouped.setdefault(program.functions[name].module.module, []).append((name, region))
    return grouped


def _prepare(source: files.SourceFile, text: str, module: str) -> ModuleSummary | Finding:
    """Parse and summarize one file, or the diagnostic that says why it could not be."""
    tree = failsafe.contain("parse", source.display, lambda: _parse(text, source.display))
    if isinstance(tree, Finding):
        return tree
    return failsafe.contain(
        "summarize", source.display, lambda: summarize(tree, source.display, module, source.is_package)
    )


def _parse(text: str, display: str) -> ast.Module | Finding:
    try:
        return ast.parse(text, filename=display)
    except SyntaxError as error:
        return diagnostics.parse_error(display, error.lineno or 1, error.offset or 1, newsyntax.describe(error, text))
    except ValueError as error:  # source text Python refuses outright (a NUL byte after decoding)
        return diagnostics.parse_error(display, 1, 1, str(error))


def _link_contained(parsed: list[_Parsed], config: Config) -> tuple[Program, list[Finding]]:
    """The linked program; a file whose summary breaks linking is left out with its own diagnostic."""
    try:
        return link([p.summary for p in parsed], config.dynamo, config.compiled), []
    except Exception:  # noqa: BLE001 - find the files that cause it; linking is cheap next to parsing
        pass
    findings, kept = [], []
    for item in parsed:
        alone = failsafe.contain("link", item.file.display,
                                 lambda: link([item.summary], config.dynamo, config.compiled))
        if isinstance(alone, Finding):
            if item.requested:
                findings.append(alone)
        else:
            kept.append(item)
    parsed[:] = kept
    linked = failsafe.contain("link", kept[0].file.display if kept else "<tree>",
                              lambda: link([p.summary for p in kept], config.dynamo, config.compiled))
    if isinstance(linked, Finding):  # files that link alone but not together: nothing can be linted
        parsed.clear()
        return link([], config.dynamo, config.compiled), [*findings, linked]
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


def _rules_for(source: files.SourceFile, config: Config) -> tuple[str, ...]:
    """The codes of the rules that run on ``source``."""
    ignore = (*config.ignore, *_per_file_ignores(source.display, config))
    torch_version = versions.target(config.target_torch)
    return tuple(
        entry.code
        for entry in registry.enabled_entries(config.select, config.extend_select, ignore)
        if versions.in_range(torch_version, entry.torch)
    )


def _selected(finding: Finding, config: Config) -> bool:
    if finding.code in registry.DIAGNOSTIC_CODES:
        ignore = (*config.ignore, *_per_file_ignores(finding.filename, config))
        return registry.diagnostic_enabled(finding.code, config.select, config.extend_select, ignore)
    return finding.confidence.at_least(config.min_confidence)

"""The stages of one config group, in the order they run: summarize → link → lint (with suppression).

``Stages`` holds what every stage of a group shares: the group's config, the cache store, the job
count, the progress callback and the snapshot ledger. ``run.py`` builds one per group and calls
``lint_all``. Each stage's work on each file runs inside ``failsafe.contain``, so one bad file costs
only its own diagnostic. Only files that hold compiled regions are parsed with LibCST: everything else
costs one ``ast`` parse (or none, when the cache knows the file).
"""

from __future__ import annotations

import ast
import tokenize
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dynalint.analysis.program import Program, link
from dynalint.analysis.summarize import summarize
from dynalint.analysis.summary import ModuleSummary
from dynalint.incremental import cache, digests, snapshot
from dynalint.lint import failsafe, overlaps, parallel, suppression
from dynalint.model import diagnostics
from dynalint.model.finding import Confidence, Finding, Region
from dynalint.output.progress import Report
from dynalint.pipeline import callee_breaks
from dynalint.pipeline.result import LintResult
from dynalint.pipeline.selection import rules_for, shown
from dynalint.project import files, newer_syntax, notebook
from dynalint.project.config import Config

# Findings that say a run was cut short or went wrong: never cached, the next run tries again.
TRANSIENT = frozenset({"DYN903", "DYN904"})
_WORKER_DIED = "the worker process died on this file"

Inputs = Sequence[tuple[files.SourceFile, "str | Finding"]]  # the files asked for: text, or why not read


@dataclass
class Summarized:
    """A file the summarize stage parsed: what the link and lint stages read of it."""

    file: files.SourceFile
    text: str
    summary: ModuleSummary
    requested: bool = True  # False: only read so that cross-file regions are known
    content: str = ""  # content hash: what the cache and the findings digests know the file by


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


class Stages:
    """The stages of one group of files that share a config."""

    def __init__(self, config: Config, store: cache.Cache, jobs: int = 1, progress: Report | None = None,
                 ledger: snapshot.Ledger | None = None) -> None:
        self.config = config
        self.store = store
        self.jobs = jobs
        self.progress = progress
        self.ledger = ledger or snapshot.Ledger()

    def lint_all(self, inputs: Inputs, context: Sequence[files.SourceFile] = ()) -> LintResult:
        """The stages top to bottom; what each file came to is noted in the ledger for the snapshot.
        Every stage's walk recurses with the tree: they run where any nesting Python accepts fits."""
        return failsafe.run_deep(lambda: self._lint_contained(inputs, context))

    def _lint_contained(self, inputs: Inputs, context: Sequence[files.SourceFile]) -> LintResult:
        parsed, unparsable = self.summarize(inputs, context)
        program, unlinkable = self.link(parsed)
        self.ledger.complete = self.ledger.complete and not unlinkable
        linted = self.lint(parsed, program)
        findings = shown((*unparsable, *unlinkable, *linted), self.config)
        return LintResult(
            sorted(findings, key=lambda f: f.sort_key), len(inputs), program, entry_regions(program, parsed)
        )

    def _stage(self, stage: str) -> Callable[[int, int], None] | None:
        """The progress callback for one stage: ``(done, total)``."""
        progress = self.progress
        return None if progress is None else (lambda done, total: progress(stage, done, total))

    # -- summarize ---------------------------------------------------------------------------------
    def summarize(self, inputs: Inputs, context: Sequence[files.SourceFile]) -> tuple[list[Summarized], list[Finding]]:
        """Parse and summarize the files asked for and the context files; the diagnostics of those asked for.

        A context file whose size and modification time the cache knows is not read at all; any other
        file is read and, when the cache holds its content, not parsed. The rest are summarized, in
        worker processes when there are many; the order of the files, and so every module name, is the
        same either way.
        """
        store, ledger, progress = self.store, self.ledger, self._stage("summarizing")
        slots: list[Summarized | Finding | None] = []
        pending: list[_Pending] = []
        taken: set[str] = set()
        everything: list[tuple[files.SourceFile, str | Finding | None, bool]] = [
            *((source, text, True) for source, text in inputs), *((source, None, False) for source in context)
        ]
        for source, text, requested in everything:
            failsafe.checkpoint()
            key = str(files.real(source.path))
            stat = None if requested else cache.stat_key(source.path)
            known = None if requested else store.summary_by_stat(
                key, stat, source.module, source.is_package, source.display
            )
            if known is None:
                text = files.read_source(source.path, source.display, self.config.max_file_kb) if text is None else text
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
                slots.append(Summarized(source, text, value, requested, content) if isinstance(value, ModuleSummary)
                             else (value if requested else None))
                continue
            pending.append(_Pending(len(slots), source, text, _unique(source.module, taken, source.display), content,
                                    None if source.from_stdin else stat or cache.stat_key(source.path), requested))
            slots.append(None)
        summarized = parallel.run(
            lambda index: prepare(pending[index].source, pending[index].text, pending[index].module),
            len(pending), self.jobs,
            lost=lambda index: diagnostics.stage_crash(pending[index].source.display, "summarize", _WORKER_DIED),
            done=progress and (lambda done: progress(done, len(pending))),
        )
        for item, value in zip(pending, summarized):
            if not (isinstance(value, Finding) and value.code in TRANSIENT):
                store.store_summary(str(files.real(item.source.path)), cache.SummaryEntry(
                    item.stat, item.content, item.source.module, item.source.is_package, item.source.display, value
                ))
                if item.requested and isinstance(value, Finding):
                    ledger.answers[str(files.real(item.source.path))] = ("finding", value)
            if isinstance(value, ModuleSummary):
                slots[item.slot] = Summarized(item.source, item.text, value, item.requested, item.content)
            elif item.requested:
                slots[item.slot] = value
        parsed = [slot for slot in slots if isinstance(slot, Summarized)]
        return parsed, [slot for slot in slots if isinstance(slot, Finding)]

    # -- link --------------------------------------------------------------------------------------
    def link(self, parsed: list[Summarized]) -> tuple[Program, list[Finding]]:
        """The linked program; a file whose summary breaks linking is left out with its own diagnostic."""
        config = self.config
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

    # -- lint, then suppress -----------------------------------------------------------------------
    def lint(self, parsed: Sequence[Summarized], program: Program) -> list[Finding]:
        """Lint every file asked for that holds compiled code; superseded and suppressed findings dropped.

        A file whose findings digest the cache holds is not parsed with LibCST again; the others are
        linted in worker processes when there are many.
        """
        config, store, ledger, progress = self.config, self.store, self.ledger, self._stage("linting")
        regions = regions_by_module(program)
        dependencies = digests.ImportClosure(program, {item.summary.module: item.content for item in parsed})
        settings = digests.settings_key(program, config)
        found: list[list[Finding] | None] = []
        pending: list[tuple[int, Summarized, tuple[str, ...], str, str]] = []
        for item in parsed:
            if not item.requested:
                continue
            key = str(files.real(item.file.path))
            codes = rules_for(item.file, config) if item.summary.module in regions else ()
            if not codes:
                ledger.answers[key] = ("clean", None)
                continue
            digest = digests.findings_digest(item.file.display, item.content, item.summary.module, codes,
                                             regions[item.summary.module], settings, dependencies)
            cached = store.findings_for(key, digest)
            if cached is None:
                pending.append((len(found), item, codes, key, digest))
            else:
                ledger.answers[key] = ("digest", digest)
            found.append(cached)

        if pending:  # LibCST and the rules, only for a run with something to lint
            from dynalint.checks import ALL_RULES, classes
            from dynalint.lint.engine import lint_module

        def lint_one(index: int) -> list[Finding]:
            """The file's findings, then those of the break rules that run only as the post-pass's inputs."""
            _, item, codes, _, _ = pending[index]
            rules, inputs = classes(codes), callee_breaks.inputs(codes)
            deadline = failsafe.Deadline(config.max_file_seconds)

            def lint_file() -> list[Finding]:
                every = lint_module(item.text, item.file.display, item.summary, program, classes((*codes, *inputs)),
                                    deadline, every_rule=ALL_RULES)
                own = [f for f in every if f.code not in inputs]
                return [*suppression.apply(overlaps.drop_superseded(own, rules), item.text),
                        *(f for f in every if f.code in inputs)]

            linted = failsafe.contain("lint", item.file.display, lint_file)
            return [linted] if isinstance(linted, Finding) else linted

        linted_all = parallel.run(
            lint_one, len(pending), self.jobs,
            lost=lambda index: [diagnostics.stage_crash(pending[index][1].file.display, "lint", _WORKER_DIED)],
            min_items=4, done=progress and (lambda done: progress(done, len(pending))),
        )
        if pending:
            requested = [item for item in parsed if item.requested]
            run_files = {item.summary.module: item.file.display for item in requested}
            paths = {item.file.display: item.file.path for item in requested}
            linted_all = self._with_callee_breaks(program, pending, linted_all, found, run_files, paths)
        for (slot, _, _, key, digest), linted in zip(pending, linted_all):
            if not any(f.code in TRANSIENT for f in linted):
                store.store_findings(key, digest, linted)
                ledger.answers[key] = ("digest", digest)
            found[slot] = linted
        displays = {item.file.display for item in parsed if item.requested}
        return callee_breaks.reported([finding for findings in found if findings for finding in findings], displays)

    @staticmethod
    def _with_callee_breaks(program: Program, pending: Sequence[tuple[int, Summarized, tuple[str, ...], str, str]],
                            linted_all: Sequence[list[Finding]], found: Sequence[list[Finding] | None],
                            run_files: dict[str, str], paths: dict[str, Path]) -> list[list[Finding]]:
        """Each freshly linted file's findings with the program post-pass's (``pipeline/callee_breaks.py``), which
        reads every finding of this run, cached or fresh, and the input-only ones, which are then dropped. A
        post-pass finding in another file of the run (DYN507 in a class's ``__init__``) stays with its caller's,
        suppressed by its own file's comments."""
        every = [f for findings in (*found, *linted_all) if findings for f in findings]
        linted = [(item.file.display, item.summary, item.text, frozenset(codes)) for _, item, codes, _, _ in pending
                  if not notebook.is_notebook(item.file.display)]
        first = pending[0][1]
        extra = failsafe.contain("lint", first.file.display,
                                 lambda: callee_breaks.findings(program, linted, every, run_files))
        crash = [extra] if isinstance(extra, Finding) else []  # said once, on the first file: the pass is the run's
        found_extra = {} if isinstance(extra, Finding) else extra
        out = []
        for index, ((_, item, codes, _, _), findings) in enumerate(zip(pending, linted_all)):
            inputs = callee_breaks.inputs(codes)
            own = [f for f in findings if f.code not in inputs]
            added = found_extra.get(item.file.display, [])
            elsewhere = [f for f in added if f.filename != item.file.display]
            out.append([*own, *suppression.apply([f for f in added if f.filename == item.file.display], item.text),
                        *_suppressed_in_their_files(elsewhere, paths), *(crash if index == 0 else [])])
        return out


def _suppressed_in_their_files(findings: list[Finding], paths: dict[str, Path]) -> list[Finding]:
    """``findings``, each file's kept by the suppression comments of its own text (read again: rare);
    ``paths``: each display name's file."""
    kept: list[Finding] = []
    for filename in dict.fromkeys(f.filename for f in findings):
        try:
            text = Path(paths.get(filename, filename)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        kept += suppression.apply([f for f in findings if f.filename == filename], text)
    return kept



def prepare(source: files.SourceFile, text: str, module: str) -> ModuleSummary | Finding:
    """Parse and summarize one file, or the diagnostic that says why it could not be."""
    tree = failsafe.contain("parse", source.display, lambda: _parse(text, source.display))
    if isinstance(tree, Finding):
        return tree
    return failsafe.contain(
        "summarize", source.display, lambda: summarize(tree, source.display, module, source.is_package)
    )


def _parse(text: str, display: str) -> ast.Module | Finding:
    """The file's tree, once Python itself would compile it: ``ast.parse`` accepts code the compiler then
    refuses (``import *`` in a function, a repeated keyword argument, ``return`` outside a function), so
    the tree is byte-compiled too (about a tenth of the parse), and a U+FEFF past the start, which the
    text path of the parser lets through, is judged on the file's bytes as Python reads them."""
    try:
        tree = ast.parse(text, filename=display)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: Python warns, it does not refuse
            try:
                compile(_bytes_as_read(text) if "\ufeff" in text else tree, display, "exec", dont_inherit=True)
            except ValueError:  # a tree the compiler will not take that its source gives (``Falſe`` is ``False``)
                compile(text, display, "exec", dont_inherit=True)
        return tree
    except SyntaxError as error:
        return diagnostics.parse_error(display, error.lineno or 1, error.offset or 1,
                                       newer_syntax.describe(error, text))
    except ValueError as error:  # source text Python refuses outright (a NUL byte after decoding)
        return diagnostics.parse_error(display, 1, 1, str(error))


def _bytes_as_read(text: str) -> bytes:
    """``text`` (already decoded) as UTF-8 bytes for the compiler, with any coding cookie of its first two
    lines disarmed (same length, so positions hold): the file was decoded once, and a cookie the reader
    did not need (``lint_source`` text) must not make the compiler decode it again, or fail to."""
    lines = text.split("\n", 2)
    for index in range(min(2, len(lines))):
        lines[index] = tokenize.cookie_re.sub(lambda cookie: cookie[0].replace("coding", "codinG"), lines[index])
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def _claim(module: str, taken: set[str]) -> bool:
    """Take a cached summary's module name, unless another file of this run already has it."""
    if module in taken:
        return False
    taken.add(module)
    return True


def _unique(module: str, taken: set[str], display: str) -> str:
    """Two scripts with the same name in different folders must not share a module name."""
    name = module if module not in taken else f"{module}@{display}"
    taken.add(name)
    return name


def entry_regions(program: Program, parsed: Sequence[Summarized]) -> list[Region]:
    """The certain compile entry points in the files asked for (what ``--verify`` compiles)."""
    requested_modules = {item.summary.module for item in parsed if item.requested}
    return [
        region for name, region in program.regions.items()
        if region.entry == name and region.confidence is Confidence.CERTAIN
        and program.functions[name].module.module in requested_modules
    ]


def regions_by_module(program: Program) -> dict[str, list[tuple[str, Region]]]:
    """Each module's compiled functions and their regions (why-chains included)."""
    grouped: dict[str, list[tuple[str, Region]]] = {}
    for name, region in program.regions.items():
        grouped.setdefault(program.functions[name].module.module, []).append((name, region))
    return grouped

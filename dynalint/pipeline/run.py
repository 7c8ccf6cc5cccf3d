"""``Pipeline``: one run of dynalint over paths, from discovery to sorted, selected findings.

The stages read top to bottom in ``Pipeline.run``:

1. **discover** the files of the paths once, each folder judged by its nearest config (``ConfigTree``);
2. **group** them by config (a monorepo's sub-projects each have their own);
3. per group: **read** them (standard input too), add the rest of the project as context when files
   were named one by one, then either **answer from the snapshot** (nothing changed since the last run)
   or run the **stages** (``stages.py``: summarize → link → lint → suppress / select);
4. **place** notebook findings back in their cells, and **merge** the groups' results.

The cache is one collaborator: a store per cache folder, opened by the pipeline and saved after each
group (or the store a caller keeps, such as the language server's in-memory one). ``--verify`` is handed
the pipeline itself and calls ``relint`` to lint the installed files its factories reached.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dynalint.incremental import cache, snapshot
from dynalint.model.finding import Finding
from dynalint.output.progress import Report
from dynalint.pipeline import callee_breaks
from dynalint.pipeline.result import STDIN, LintResult, merged
from dynalint.pipeline.selection import selected, shown
from dynalint.pipeline.stages import Inputs, Stages
from dynalint.project import files, notebook
from dynalint.project.config import Config
from dynalint.project.config_tree import ConfigTree


@dataclass(frozen=True)
class Options:
    """What the command line says about a run, beside the config."""

    force_exclude: bool = False  # apply excludes to paths named explicitly (pre-commit names every file)
    stdin_text: bytes | None = None  # the text of ``-``
    stdin_filename: str | None = None  # the name it is linted under
    use_cache: bool = False  # read and write ``config.cache_folder`` (and answer from the snapshot)
    jobs: int = 1  # worker processes for the summarize and lint stages
    program_needed: bool = False  # ``--verify`` plans from the linked program: never answer from the snapshot
    # Texts that stand for files on disk (real path -> text): the fix loop's files as its last pass left them.
    texts: Mapping[str, str] = field(default_factory=dict)


class Pipeline:
    """A run's config tree, options, progress and cache stores, and the stages in the order they run."""

    def __init__(self, configs: ConfigTree | Config, options: Options = Options(), *,
                 progress: Report | None = None, store: cache.Cache | None = None) -> None:
        self.configs = configs if isinstance(configs, ConfigTree) else ConfigTree(configs)
        self.options = options
        self.progress = progress
        self._store = store  # a caller's own store (the language server's); else one per cache folder
        self.groups: list[Config] = []  # the configs of the last run's groups, in the order they ran
        self.paths: list[str] = []  # the paths of the last run

    # -- the run -----------------------------------------------------------------------------------
    def run(self, paths: Sequence[str]) -> LintResult:
        """Lint files and folders (``-`` is standard input, named ``options.stdin_filename``).

        The cyclic garbage collector is paused for the run: summaries are large graphs of objects that
        live until the end, and the collector's passes over them cost about a tenth of a whole-tree run.
        """
        with _collector_paused():
            return self._run(paths)

    def relint(self, reached: Sequence[str]) -> LintResult:
        """The last run's paths again, with ``reached`` added (``--verify``: the installed files its factories
        reached), without a progress line."""
        progress, self.progress = self.progress, None
        try:
            return self.run([*self.paths, *reached])
        finally:
            self.progress = progress

    def _run(self, paths: Sequence[str]) -> LintResult:
        self.paths = list(paths)
        files.forget_paths()
        on_disk = [p for p in paths if p != STDIN]
        found = files.discover(on_disk, self.configs.base, self.options.force_exclude,
                               config_for=self.configs.for_folder)
        groups: dict[int, tuple[Config, list[Path], list[str]]] = {}

        def group(config: Config) -> tuple[Config, list[Path], list[str]]:
            return groups.setdefault(id(config), (config, [], []))

        stdin_filename = self.options.stdin_filename
        if STDIN in paths:
            named = Path(stdin_filename) if stdin_filename else None
            group(self.configs.for_folder(files.real(named).parent) if named else self.configs.base)[2].append(STDIN)
        for path in found.files:
            group(self.configs.for_folder(files.real(path).parent))[1].append(path)
        if not groups:
            group(self.configs.base)
        results = []
        for index, (config, members, named_paths) in enumerate(groups.values()):
            kept = {files.real(p) for p in members}
            # The paths named that lead to this group's files: its explicit files give it project context.
            named_paths += [raw for raw in on_disk if Path(raw).is_dir() or files.real(Path(raw)) in kept]
            discovered = files.Discovery(members, *((found.problems, found.skipped, found.warnings) if index == 0
                                                    else ([], [], [])))
            results.append(self._run_group(named_paths, config, discovered))
        self.groups = [config for config, _, _ in groups.values()]
        return merged(results)

    def _run_group(self, paths: Sequence[str], config: Config, found: files.Discovery) -> LintResult:
        """One config group: read, add context, answer from the snapshot or run the stages, place notebooks."""
        inputs: list[tuple[files.SourceFile, str | Finding]] = []
        stats: dict[str, snapshot.Stat] = {}  # of the files named, taken before they are read
        notebooks: dict[str, notebook.Notebook] = {}  # by display name: where their findings' lines are

        def add(source: files.SourceFile, read: str | notebook.Notebook | Finding) -> None:
            if isinstance(read, notebook.Notebook):
                notebooks[source.display] = read
                read = read.text
            inputs.append((source, read))

        options = self.options
        if STDIN in paths:
            source, read = self._read_stdin(config)
            if source is not None:
                add(source, read)
        on_disk = [p for p in paths if p != STDIN]
        for path in found.files:
            source = files.source_file(path)
            stats[str(files.real(path))] = cache.stat_key(path)
            edited = options.texts.get(str(files.real(path)))
            add(source, files.read_file(path, source.display, config.max_file_kb) if edited is None else edited)
        store = self._store or cache.Cache.open(config.cache_folder if options.use_cache else None)
        # A text read from stdin under a file's name is that file of its project: the project is its context.
        named = [*on_disk, *([options.stdin_filename] if options.stdin_filename and STDIN in paths else [])]
        context = _project_context(named, inputs, config)
        result = self._answer_from_snapshot(inputs, context, stats, config, store)
        store.save()
        result.skipped = found.skipped
        result.warnings = found.warnings
        # Linted (and cached) in the joined cells' lines; placed in this run's cells last, so that a cached
        # finding follows a cell split or a markdown cell inserted above it.
        placed = notebook.place_all(result.findings, _with_context_notebooks(result.findings, notebooks, config))
        result.findings = sorted(placed + [f for f in found.problems if selected(f, config)], key=lambda f: f.sort_key)
        return result

    def _read_stdin(self, config: Config) -> tuple[files.SourceFile | None, str | notebook.Notebook | Finding]:
        """Standard input as a source file (``None`` when ``--force-exclude`` excludes its name)."""
        stdin_filename, text = self.options.stdin_filename, self.options.stdin_text or b""
        name = stdin_filename or "<stdin>"
        if self.options.force_exclude and stdin_filename and files.is_excluded(Path(name), config):
            return None, ""
        source = replace(files.source_file(Path(name), name), from_stdin=True) if stdin_filename else (
            files.SourceFile(Path(name), name, "stdin", False, from_stdin=True)
        )
        return source, (files.decode_notebook(text, name, config.max_file_kb) if notebook.is_notebook(name)
                        else files.decode_limited(text, name, config.max_file_kb))

    def _answer_from_snapshot(
        self, inputs: Inputs, context: Sequence[files.SourceFile], stats: dict[str, snapshot.Stat],
        config: Config, store: cache.Cache,
    ) -> LintResult:
        """The cached answer when the snapshot stands for this run (``snapshot.py``), else the stages'."""
        if store.folder is None:
            return Stages(config, store, self.options.jobs, self.progress).lint_all(inputs, context)
        members = snapshot.members_of([
            *((str(files.real(source.path)), source,
               None if source.from_stdin else stats.get(str(files.real(source.path)))) for source, _ in inputs),
            *((str(files.real(source.path)), source, cache.stat_key(source.path)) for source in context),
        ])
        key = snapshot.run_key(config)
        named = {str(files.real(source.path)): text for source, text in inputs}
        answered = (None if self.options.program_needed or self.options.texts
                    else snapshot.answer(store, key, members, named))
        if answered is not None:
            reported = callee_breaks.reported(answered, {source.display for source, _ in inputs})
            return LintResult(sorted(shown(reported, config), key=lambda f: f.sort_key), len(inputs))
        ledger = snapshot.Ledger()
        result = Stages(config, store, self.options.jobs, self.progress, ledger).lint_all(inputs, context)
        if not self.options.texts:  # the snapshot stands for the files on disk, not for edited texts
            snapshot.record(store, key, members, ledger)
        return result


def lint_texts(texts: Sequence[tuple[files.SourceFile, str]], config: Config) -> LintResult:
    """The stages over texts in memory, as if they were the whole tree: no discovery, no cache."""
    return Stages(config, cache.Cache(None)).lint_all(texts)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _project_context(on_disk: Sequence[str], inputs: Inputs, config: Config) -> list[files.SourceFile]:
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

"""Between the CLI and ``api``: lint each file under its nearest config, as ruff does in a monorepo.

A run from a monorepo root (pre-commit's) names files of several sub-projects, each with its own
``pyproject.toml`` holding ``[tool.dynalint]``. ``ConfigTree`` gives every folder the config nearest
to it (loaded once, with the command line's overrides applied on top); ``--config FILE`` gives every
folder that one file, and a folder with no config above it gets the one the run started with.

The files are found in one walk, each folder judged by its own config (its ``exclude``,
``respect-gitignore``), then grouped by config, and each group is one ``api.lint_paths`` run; the
findings are merged and sorted. Cross-file context follows the groups: a sub-project's compiled
regions are computed from that sub-project's files (and, for files named one by one, the rest of
its project, as ``api`` does for any run), never from a neighbour's. That is sound as long as
sub-projects do not compile each other's code; where one does, lint them under one config
(``--config``). A run with one config is exactly the run ``api.lint_paths`` always did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dynalint import api, config as config_module, files
from dynalint.config import Config


@dataclass
class ConfigTree:
    """The config of each folder: the nearest ``[tool.dynalint]`` above it, else ``base``."""

    base: Config
    overrides: dict[str, object] = field(default_factory=dict)  # the command line's, for every config
    fixed: bool = False  # ``--config FILE``: one config for every folder
    _by_folder: dict[Path, Config] = field(default_factory=dict)
    _by_source: dict[Path, Config] = field(default_factory=dict)

    def for_folder(self, folder: Path) -> Config:
        """The config for the files of ``folder`` (a resolved path)."""
        if self.fixed:
            return self.base
        unanswered: list[Path] = []
        found: Config | None = None
        for candidate in (folder, *folder.parents):  # a loop, not recursion: trees can be deep
            found = self._by_folder.get(candidate)
            if found is not None:
                break
            unanswered.append(candidate)
            if config_module.declares_dynalint(candidate):
                found = self._load(candidate / "pyproject.toml")
                break
        found = found or self.base
        for candidate in unanswered:
            self._by_folder[candidate] = found
        return found

    def _load(self, source: Path) -> Config:
        if self.base.source is not None and files.real(self.base.source) == files.real(source):
            return self.base
        if source not in self._by_source:
            self._by_source[source] = config_module.load(source).with_overrides(**self.overrides)
        return self._by_source[source]


@dataclass
class GroupedResult:
    result: api.LintResult
    configs: list[Config]  # one per group, in the order the groups were linted


def lint_paths(tree: ConfigTree, paths: Sequence[str], *, force_exclude: bool = False,
               stdin_filename: str | None = None, **options: object) -> GroupedResult:
    """``api.lint_paths`` once per config that the files of ``paths`` use; the results merged."""
    files.forget_paths()
    on_disk = [p for p in paths if p != api.STDIN]
    found = files.discover(on_disk, tree.base, force_exclude, config_for=tree.for_folder)
    groups: dict[int, tuple[Config, list[Path], list[str]]] = {}

    def group(config: Config) -> tuple[Config, list[Path], list[str]]:
        return groups.setdefault(id(config), (config, [], []))

    if api.STDIN in paths:
        named = Path(stdin_filename) if stdin_filename else None
        group(tree.for_folder(files.real(named).parent) if named else tree.base)[2].append(api.STDIN)
    for path in found.files:
        group(tree.for_folder(files.real(path).parent))[1].append(path)
    if not groups:
        group(tree.base)
    results = []
    for index, (config, members, named) in enumerate(groups.values()):
        kept = {files.real(p) for p in members}
        # The paths named that lead to this group's files: its explicit files give it project context.
        named += [raw for raw in on_disk if Path(raw).is_dir() or files.real(Path(raw)) in kept]
        discovered = files.Discovery(members, *((found.problems, found.skipped, found.warnings) if index == 0
                                                else ([], [], [])))
        results.append(api.lint_paths(named, config, force_exclude=force_exclude, stdin_filename=stdin_filename,
                                      discovered=discovered, **options))  # type: ignore[arg-type]
    return GroupedResult(_merged(results), [config for config, _, _ in groups.values()])


def _merged(results: list[api.LintResult]) -> api.LintResult:
    if len(results) == 1:
        return results[0]
    first = results[0]
    merged = api.LintResult(
        sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key),
        sum(r.files_checked for r in results), first.program, [e for r in results for e in r.entries],
    )
    merged.skipped = [s for r in results for s in r.skipped]
    merged.warnings = [w for r in results for w in r.warnings]
    return merged

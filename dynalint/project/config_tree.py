"""Each folder's config, as ruff finds it in a monorepo: the nearest ``[tool.dynalint]`` above it.

A run from a monorepo root (pre-commit's) names files of several sub-projects, each with its own
``pyproject.toml`` holding ``[tool.dynalint]``. ``ConfigTree`` gives every folder the config nearest
to it (loaded once, with the command line's overrides applied on top); ``--config FILE`` gives every
folder that one file, and a folder with no config above it gets the one the run started with.

The pipeline (``pipeline/run.py``) walks the paths once, each folder judged by its own config (its
``exclude``, ``respect-gitignore``), and groups the files by config. Cross-file context follows the
groups: a sub-project's compiled regions are computed from that sub-project's files, never from a
neighbour's. That is sound as long as sub-projects do not compile each other's code; where one does,
lint them under one config (``--config``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dynalint.project import config as config_module
from dynalint.project import files
from dynalint.project.config import Config, Overrides


@dataclass
class ConfigTree:
    """The config of each folder: the nearest ``[tool.dynalint]`` above it, else ``base``."""

    base: Config
    overrides: Overrides = field(default_factory=Overrides)  # the command line's, for every config
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

"""The suppress / select stage's config side: which rules run on a file, and which findings are shown.

``rules_for`` is asked before the lint stage (select, ignore, per-file-ignores and the target torch
decide the codes); ``selected`` after it (DYN9xx diagnostics by select / ignore, rule findings by
``min-confidence``). The selector arithmetic itself is ``model/selection.py``'s.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from dynalint.model import selection
from dynalint.model.finding import Finding
from dynalint.project import files, torch_target
from dynalint.project.config import Config


def per_file_ignores(display: str, config: Config) -> tuple[str, ...]:
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


def rules_for(source: files.SourceFile, config: Config) -> tuple[str, ...]:
    """The codes of the rules that run on ``source``."""
    ignore = (*config.ignore, *per_file_ignores(source.display, config))
    torch_version = torch_target.target(config.target_torch)
    return tuple(
        entry.code
        for entry in selection.enabled_entries(config.select, config.extend_select, ignore)
        if torch_target.in_range(torch_version, entry.torch)
    )


def selected(finding: Finding, config: Config) -> bool:
    if finding.code in selection.DIAGNOSTIC_CODES:
        ignore = (*config.ignore, *per_file_ignores(finding.filename, config))
        return selection.diagnostic_enabled(finding.code, config.select, config.extend_select, ignore)
    return finding.confidence.at_least(config.min_confidence)

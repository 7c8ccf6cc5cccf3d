"""The suppress / select stage's config side: which rules run on a file, and which findings are shown.

``rules_for`` is asked before the lint stage (select, ignore, per-file-ignores and the target torch
decide the codes); ``for_target`` after it (how a finding reads on the target torch: the version table
says whether its pattern breaks there and with which GB ids), then ``selected`` (DYN9xx diagnostics by
select / ignore, rule findings by ``min-confidence``). The selector arithmetic itself is
``model/selection.py``'s.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable
from pathlib import Path

from dynalint.model import selection
from dynalint.model.finding import Finding, TorchTarget
from dynalint.model.torch_releases import BASELINE, MEASURED, PATTERNS
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
    torch_version = target_of(config)
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


def shown(findings: Iterable[Finding], config: Config) -> list[Finding]:
    """The findings a run shows: each as it reads on the target torch, those selected."""
    target = target_of(config)
    on_target = (for_target(finding, target) for finding in findings)
    return [finding for finding in on_target if finding is not None and selected(finding, config)]


def target_of(config: Config) -> str:
    """The torch the findings are for (``torch_target.target``)."""
    return torch_target.target(config.target_torch, config.root)


def for_target(finding: Finding, target: str) -> Finding | None:
    """``finding`` as it reads on the ``target`` torch, or ``None`` where its pattern does not break there.

    Where the baseline release (the one the rules are written for) measures the target, the finding stays
    as the rule reported it. Elsewhere its pattern's entry in the version table decides: not reported
    when none of the pattern's Examples breaks on that release, else named by the GB ids they break with.
    A pattern no Example shows keeps its finding, named by the rule's ids on that release. Past the newest
    measured release the message says how far the measurements go."""
    if finding.code in selection.DIAGNOSTIC_CODES:
        return finding
    measured, newer = torch_target.measured_for(target)
    judged = dataclasses.replace(finding, torch=TorchTarget(target, measured))
    if measured == BASELINE:
        return judged
    own = PATTERNS.get((finding.code, finding.pattern))
    if own is not None and not own[measured][0]:
        return None
    breaks, gb_ids = (own or PATTERNS.get((finding.code, "*"), {})).get(measured, (False, ()))
    if breaks and gb_ids:
        judged = dataclasses.replace(judged, gb_ids=gb_ids)
    if newer:
        judged = dataclasses.replace(judged, message=f"{judged.message} (measured up to "
                                                     f"{torch_target.minor_text(MEASURED[-1])})")
    return judged

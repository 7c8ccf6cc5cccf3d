"""``--fix --verify``: a fix is kept only when real Dynamo shows that it breaks less and computes the same.

The fix loop (``fixing.py``) finds every fix the flags allow; they are judged one function at a time
(the function whose finding the fix answers). The declared factories are run on a copy of the project
(nothing is written to it meanwhile): once as it is, then once per function with that function's fixes
added to those kept so far. A function's fixes are kept when, under every factory:

- the breaks inside the function went down (break sites counted as the census counts them);
- the eager output after equals the eager output before, and the compiled output after equals the eager
  output after (``verify/outputs.agree``: ``torch.allclose``'s tolerances).

Otherwise they are reverted, with the reason ("break count unchanged: 2 -> 2", "outputs differ"). The
files are then written with the kept fixes only, and the census of the last kept state is the after
state. Each run starts a fresh worker, because two copies of a project import under the same module
names. No torch here: the workers import it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dynalint.analysis.program import Program
from dynalint.model.finding import Finding
from dynalint.pipeline import fixing
from dynalint.pipeline.result import LintResult
from dynalint.pipeline.run import Pipeline
from dynalint.project import files
from dynalint.project.config import Config
from dynalint.verify import census as census_module
from dynalint.verify import factory_failures
from dynalint.verify import outputs as model_outputs
from dynalint.verify import plan, runner
from dynalint.verify.protocol import Job, JobResult

# Not copied into the trial project: version control, environments, caches.
_NOT_COPIED = (".git", ".hg", ".venv", "venv", "env", "__pycache__", ".dynalint_cache", ".mypy_cache",
               ".pytest_cache", ".ruff_cache", "node_modules", "*.pyc")


@dataclass
class FunctionVerdict:
    """What ``--fix --verify`` decided for the fixes of one function."""

    function: str  # ``path::Qualname``, the path relative to the project root
    fixes: list[Finding]
    before: int  # break sites in the function, over every factory, before its fixes
    after: int | None  # and after (``None``: the trial did not run)
    kept: bool
    reason: str


@dataclass
class Proof:
    verdicts: list[FunctionVerdict] = field(default_factory=list)
    breaks_before: int = 0  # break sites over every factory, before any fix
    breaks_after: int = 0  # with the kept fixes
    census: dict[str, Any] = field(default_factory=dict)  # the census of the kept state
    failures: list[str] = field(default_factory=list)  # factories that failed before any fix: nothing proven


@dataclass
class _Run:
    """The factories run on one state of the project."""

    jobs: list[Job]
    results: dict[str, JobResult]
    copy: Path

    def failure(self, job: Job) -> str | None:
        result = self.results.get(job.id)
        if result is None:
            return "it never ran"
        return result.error or result.unverifiable or ("its worker died" if result.crashed else None)


def prove(pipeline: Pipeline, paths: Sequence[str], first: LintResult, config: Config, unsafe: bool, *,
          backend: str, device: str, timeout: float) -> tuple[fixing.FixOutcome, Proof]:
    """The fix loop with only the fixes proven under the factories; the proof says what was kept and why."""
    everything = fixing.fix(pipeline, paths, first, config, unsafe)
    root = files.real(config.root)

    def function_of(finding: Finding) -> str:
        return _function_of(finding, root)

    def within(functions: set[str]) -> Callable[[Finding], bool]:
        return lambda finding: function_of(finding) in functions

    groups: dict[str, list[Finding]] = {}
    for finding in everything.applied:
        groups.setdefault(function_of(finding), []).append(finding)
    proof = Proof()
    baseline = _run_factories(config, {}, backend, device, timeout)
    proof.failures = factory_failures(baseline.jobs, baseline.results)
    before_breaks = _breaks_by_function(baseline, first.program, config.root)
    proof.breaks_before = sum(before_breaks.values())
    proof.breaks_after = proof.breaks_before
    proof.census = census_module.census(baseline.jobs, baseline.results)
    if proof.failures:
        return fixing.fix(pipeline, paths, first, config, unsafe, only=within(set())), proof
    kept: set[str] = set()
    current, current_breaks = baseline, before_breaks
    for function, fixes in groups.items():
        trial = fixing.fix(pipeline, paths, first, config, unsafe, only=within(kept | {function}))
        run = _run_factories(config, {str(files.real(c.path)): c.encoded() for c in trial.changed}, backend, device,
                             timeout)
        breaks = _breaks_by_function(run, trial.result.program, config.root)
        before, after = current_breaks.get(function, 0), breaks.get(function, 0)
        reason = _judge(baseline, run, before, after)
        proof.verdicts.append(FunctionVerdict(function, fixes, before, after, reason == "kept", reason))
        if reason == "kept":
            kept.add(function)
            current, current_breaks = run, breaks
    proof.breaks_after = sum(current_breaks.values())
    proof.census = census_module.census(current.jobs, current.results)
    return fixing.fix(pipeline, paths, first, config, unsafe, only=within(kept)), proof


def _function_of(finding: Finding, root: Path) -> str:
    """``path/relative/to/root.py::Qualname``: the function whose finding a fix answers (the census's key)."""
    path = files.real(Path(finding.filename))
    try:
        shown = path.relative_to(root).as_posix()
    except ValueError:
        shown = path.as_posix()
    return f"{shown}::{finding.region.function}" if finding.region is not None else shown


def _judge(baseline: _Run, trial: _Run, before: int, after: int) -> str:
    """``kept``, or why not."""
    for job in trial.jobs:
        failed = trial.failure(job)
        if failed is not None:
            return f"factory `{job.target}` failed after the fix: {failed.strip().splitlines()[0] if failed else ''}"
        was = (baseline.results[job.id].outputs or {}) if job.id in baseline.results else {}
        now = trial.results[job.id].outputs or {}
        if "eager" not in was or "eager" not in now:
            return f"factory `{job.target}` returned no output to compare"
        if not model_outputs.agree(now["eager"], was["eager"]):
            return f"outputs differ: factory `{job.target}` computes something else eagerly after the fix"
        if not model_outputs.agree(now["compiled"], now["eager"]):
            return f"outputs differ: factory `{job.target}` compiled after the fix disagrees with eager"
    if after >= before:
        return f"break count unchanged: {before} -> {after}" if after == before else f"more breaks: {before} -> {after}"
    return "kept"


def _run_factories(config: Config, edited: Mapping[str, bytes], backend: str, device: str, timeout: float) -> _Run:
    """The declared factories, run on a copy of the project with ``edited`` (real path -> bytes) written in."""
    root = files.real(config.root)
    folder = Path(tempfile.mkdtemp(prefix="dynalint-fix-verify-"))
    copy = folder / root.name
    shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(*_NOT_COPIED))
    for real, data in edited.items():
        (copy / Path(real).relative_to(root)).write_bytes(data)
    jobs = [replace(job, record_outputs=True) for job in plan.factory_jobs(config.verify_factories, copy,
                                                                            pythonpath=config.verify_pythonpath)]
    try:
        with runner.Runner(backend, device, timeout, config.verify_memory_gb) as workers:
            results = dict(workers.run(jobs))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _Run(jobs, results, copy)


def _breaks_by_function(run: _Run, program: Program | None, root: Path) -> dict[str, int]:
    """Break sites per function of the project (``path::Qualname``, the innermost one holding the line)."""
    spans: dict[str, list[tuple[int, int, str]]] = {}  # relative path -> (first, last line, function)
    real_root = files.real(root)
    if program is not None:
        for summary, function in program.functions.values():
            try:
                relative = str(files.real(Path(summary.path)).relative_to(real_root))
            except ValueError:
                continue
            spans.setdefault(relative, []).append((function.start_line, function.end_line,
                                                   f"{Path(relative).as_posix()}::{function.qualname}"))
    sites: dict[str, set[tuple[str, int]]] = {}
    for result in run.results.values():
        for observed in result.breaks:
            try:
                relative = str(Path(observed.filename).resolve().relative_to(run.copy.resolve()))
            except ValueError:
                continue
            holding = [(last - first, name) for first, last, name in spans.get(relative, ())
                       if first <= observed.line <= last]
            if holding:
                sites.setdefault(min(holding)[1], set()).add((relative, observed.line))
    return {function: len(lines) for function, lines in sites.items()}

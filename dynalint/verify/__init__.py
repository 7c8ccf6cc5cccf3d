"""Verify stage: prove findings by compiling the flagged code for real (``dynalint --verify``).

The only part of dynalint that touches torch, and only in worker subprocesses (``worker.py``): this
package's ``verify()`` plans jobs, hands them to the supervisor (``runner.py``), judges every finding
(``verdicts.py``) and builds the break census (``census.py``) without importing torch itself; the
values that pass between them are typed in ``protocol.py``.
However it ends (Ctrl-C and SIGTERM included), no worker process, nor any process user code started
in one, outlives ``verify()``.

Installed code named on the command line (``libraries``) is where a run can spend most of its time
linting files no factory runs. With factories declared, the CLI lints only the project's paths before
``verify()``, which runs the factories first and then asks the pipeline (``relinter.relint``) to lint
the installed files they reached (one traced line or more): only those are linted and verified, with
the project's files.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from dynalint.analysis.program import Program
from dynalint.model.finding import Finding, Region
from dynalint.project.config import Factory
from dynalint.verify.protocol import Job, JobResult
from dynalint.verify.runner import Terminated, WorkerError

__all__ = ["Static", "Terminated", "TorchMissing", "Verification", "WorkerError", "verify"]


class TorchMissing(RuntimeError):
    """``--verify`` needs torch; the static linter does not."""


class StaticResult(Protocol):
    """What verify reads of a lint result (the pipeline's ``LintResult``)."""

    @property
    def findings(self) -> list[Finding]: ...
    @property
    def program(self) -> Program | None: ...
    @property
    def entries(self) -> list[Region]: ...


ResultT = TypeVar("ResultT", bound=StaticResult)
ResultT_co = TypeVar("ResultT_co", bound=StaticResult, covariant=True)


class Relinter(Protocol[ResultT_co]):
    """The pipeline, as ``--verify`` uses it: lint the last run's paths again, with the files given."""

    def relint(self, reached: Sequence[str]) -> ResultT_co: ...


@dataclass
class Verification(Generic[ResultT]):
    findings: list[Finding]  # every static finding with its verdict, then the unpredicted breaks
    census: dict[str, Any]
    device: str
    relinted: ResultT | None = None  # the relinter's result, when it was asked
    # One line per declared factory that failed (could not be imported, returned the wrong shape, or its
    # model raised), and whether nothing at all was run: either fails the run (exit 2).
    failed_factories: tuple[str, ...] = ()
    ran_nothing: bool = False


@dataclass
class Static:
    """What the static stage hands to ``verify``: the findings, the linked tree, the entry points."""

    findings: Sequence[Finding]
    program: Program | None
    entries: Sequence[Region] = ()


def verify(
    static: Static,
    *,
    root: Path,
    factories: Sequence[Factory] = (),
    libraries: Sequence[str] = (),
    relinter: Relinter[ResultT] | None = None,
    backend: str = "eager",
    device: str = "auto",
    timeout: float = 120.0,
    memory_gb: float | None = None,
    pythonpath: Sequence[str] = (),
) -> Verification[ResultT]:
    """Verify ``static``'s findings; with a ``relinter`` (the pipeline), first lint the files of
    ``libraries`` the factories reached and verify that result instead."""
    if importlib.util.find_spec("torch") is None:
        raise TorchMissing("--verify needs torch: pip install 'dynalint[verify]'")
    from dynalint.verify import census, plan, runner, verdicts

    first = plan.factory_jobs(factories, root, libraries, pythonpath)
    relinted: ResultT | None = None
    with runner.Runner(backend, device, timeout, memory_gb) as workers:
        results = workers.run(first)
        if relinter is not None:
            relinted = relinter.relint(plan.reached(results.values(), libraries))
            static = Static(relinted.findings, relinted.program, relinted.entries)
        jobs = first + plan.function_jobs(static.findings, static.program, root, static.entries, libraries)
        results = workers.run(jobs, results)
    devices = {r.device for r in results.values() if r.device}
    ran = [r for r in results.values() if r.seconds is not None and not r.error and not r.unverifiable]
    judged = verdicts.judge(static.findings, jobs, results, _region_at(static.program))
    return Verification(judged, census.with_verdicts(census.census(jobs, results), judged, root),
                        ", ".join(sorted(devices)) or device, relinted,
                        failed_factories=tuple(factory_failures(first, results)),
                        ran_nothing=bool(factories) and not ran)


def _region_at(program: Program | None) -> Callable[[str, int], Region | None]:
    """Why the function holding a line is compiled, as the static stage found it (``None``: it did not)."""
    from dynalint.verify import plan

    spans: dict[str, list[tuple[int, int, str]]] = {}
    if program is not None:
        for qualified, (summary, function) in program.functions.items():
            spans.setdefault(plan.resolved(summary.path), []).append((function.start_line, function.end_line, qualified))

    def region_at(path: str, line: int) -> Region | None:
        holding = [(last - first, name) for first, last, name in spans.get(plan.resolved(path), ()) if first <= line <= last]
        return program.regions.get(min(holding)[1]) if holding and program is not None else None

    return region_at


def factory_failures(jobs: Sequence[Job], results: Mapping[str, JobResult]) -> list[str]:
    """``factory `pkg.mod:fnuc` (train): AttributeError: ...`` for each factory job that did not run its model."""
    failures = []
    for job in jobs:
        result = results.get(job.id)
        if result is None:
            why: str | None = "it never ran"
        else:
            why = result.error or result.unverifiable or ("its worker died" if result.crashed else None)
        if why is not None:
            first_line = why.strip().splitlines()[0] if why.strip() else why
            failures.append(f"factory `{job.target}` ({job.mode}): {first_line}")
    return failures

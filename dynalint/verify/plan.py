"""Verify stage, static half: decide what to compile and run to check the findings (no torch here).

One ``Job`` per entry function that holds findings (the function ``torch.compile`` is applied to, or
an un-compiled ``forward``), with the compile site's settings, plus one per example-input factory
declared in ``[tool.dynalint.verify]``. Workers (``worker.py``) run the jobs; ``verdicts.py`` turns
what they observed into a verdict per finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from dynalint.files import module_name, project_root
from dynalint.notebook import is_notebook
from dynalint.finding import Finding, Region
from dynalint.program import Program
from dynalint.verify.protocol import JobResult


@dataclass(frozen=True)
class Job:
    id: str  # census key: ``path::Qualname`` (path relative to ``observed``) or ``factory:module:function``
    kind: str  # "function" | "factory"
    path: str  # the file to import (absolute)
    sys_path: str  # the folder that makes ``module`` importable
    observed: str  # breaks and traced lines are recorded for files under this folder
    module: str  # dotted module name of ``path`` from ``sys_path``
    target: str  # qualname inside the module, or ``module:function`` of a factory
    fullgraph: bool = False
    lines: tuple[int, int] = (0, -1)  # the target's first and last line in ``path``
    entry: str = ""  # module-qualified entry function whose findings this job verifies

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def plan(
    findings: Sequence[Finding],
    program: Program | None,
    factories: Sequence[str],
    root: Path,
    entries: Sequence[Region] = (),
) -> list[Job]:
    """Jobs for the factories, for every entry holding findings, and for the clean ``entries`` too.

    ``entries`` are the compile entry points of the files asked for: compiling them even when no rule
    fired is how the census covers every compiled function and how breaks no rule predicts (DYN090)
    are found.
    """
    jobs: dict[str, Job] = {}
    for reference in factories:
        module, _, function = reference.partition(":")
        path = _module_path(root, module)
        jobs[f"factory:{reference}"] = Job(
            f"factory:{reference}", "factory", str(path), str(root), str(root), module, reference
        )
    regions = [f.region for f in findings if f.region is not None] + list(entries)
    for region in regions:
        if program is None or region.entry not in program.functions:
            continue
        summary, function = program.functions[region.entry]
        if is_notebook(summary.path):
            continue  # a notebook is no module a worker can import
        path = Path(summary.path).resolve()
        dotted, is_package = module_name(path)
        depth = dotted.count(".") + (1 if is_package else 0)
        sys_path = path.parents[depth]  # the folder above the outermost package
        observed = root.resolve() if _inside(path, root) else project_root(path)
        # The census key: relative to the same folder as the break sites, not to the working
        # directory, so that a baseline recorded from elsewhere still names the same functions.
        job_id = f"{path.relative_to(observed).as_posix()}::{function.qualname}"
        jobs.setdefault(
            job_id,
            Job(job_id, "function", str(path), str(sys_path), str(observed), dotted, function.qualname,
                region.fullgraph, (function.start_line, function.end_line), region.entry),
        )
    return list(jobs.values())


def traced_within(result: JobResult | None, jobs: Sequence[Job]) -> bool:
    """Whether a worker's ``result`` traced a line of any of ``jobs``' target functions."""
    if result is None:
        return False
    spans = [(str(Path(j.path).resolve()), j.lines[0], j.lines[1]) for j in jobs]
    traced = {(str(Path(f).resolve()), line) for f, line in result.traced}
    return any(f == path and first <= line <= last for f, line in traced for path, first, last in spans)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _module_path(root: Path, module: str) -> Path:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return base.with_suffix(".py")

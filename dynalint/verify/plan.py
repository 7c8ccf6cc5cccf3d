"""Verify stage, static half: decide what to compile and run to check the findings (no torch here).

One ``Job`` per example-input factory declared in ``[tool.dynalint.verify]`` (``factory_jobs``: they
run first, before any static finding is needed), then one per entry function that holds findings
(``function_jobs``: the function ``torch.compile`` is applied to, or an un-compiled ``forward``), with
the compile site's settings. Workers (``worker.py``) run the jobs; ``verdicts.py`` turns what they
observed into a verdict per finding.

Installed code (``libraries``: ``files.third_party``, named paths installed or outside the config folder) is
observed like the project's own files; ``reached`` says which of its files the factories ran, the
only ones ``--verify`` lints there. ``shown`` names a file the same way in job ids and break sites.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from dynalint.analysis.program import Program
from dynalint.model.finding import Finding, Region
from dynalint.project.config import Factory
from dynalint.project.files import INSTALLED, module_name
from dynalint.project.notebook import is_notebook
from dynalint.verify.protocol import Job, JobResult


def factory_jobs(factories: Sequence[Factory], root: Path, libraries: Sequence[str] = (),
                 pythonpath: Sequence[str] = ()) -> list[Job]:
    """One job per declared factory, its model run in the factory's mode. Its module is looked for in the
    ``pythonpath`` folders (relative to ``root``), then at ``root``, then in ``root/src`` (a src layout);
    every folder of those that exists is put on the worker's path."""
    folders = [root / folder for folder in pythonpath] + [root, root / "src"]
    path_entries = tuple(str(folder.resolve()) for folder in folders if folder.is_dir())
    jobs = []
    for factory in factories:
        module, _, _ = factory.reference.partition(":")
        job_id = f"factory:{factory.reference}" + ("" if factory.mode == "eval" else f"@{factory.mode}")
        found = next((path for folder in folders if (path := _module_file(folder, module)) is not None), None)
        path = found if found is not None else _module_path(root, module)
        home = next((folder for folder in folders if found is not None and _inside(found, folder)), root)
        jobs.append(Job(job_id, "factory", str(path), str(home.resolve()), str(root), module,
                        factory.reference, libraries=tuple(libraries), mode=factory.mode, extra_paths=path_entries))
    return jobs


def function_jobs(
    findings: Sequence[Finding],
    program: Program | None,
    root: Path,
    entries: Sequence[Region] = (),
    libraries: Sequence[str] = (),
) -> list[Job]:
    """Jobs for every entry holding findings, and for the clean ``entries`` too.

    ``entries`` are the compile entry points of the files asked for: compiling them even when no rule
    fired is how the census covers every compiled function and how breaks no rule predicts (DYN090)
    are found.
    """
    jobs: dict[str, Job] = {}
    regions = [f.region for f in findings if f.region is not None] + list(entries)
    for region in regions:
        if program is None or region.entry not in program.functions:
            continue
        summary, function = program.functions[region.entry]
        if is_notebook(summary.path):
            continue  # a notebook is no module a worker can import
        path = Path(summary.path).resolve()
        # The census key: relative to the same folder as the break sites, not to the working
        # directory, so that a baseline recorded from elsewhere still names the same functions.
        job_id = f"{shown(path, root)}::{function.qualname}"
        dotted, _ = module_name(path)
        jobs.setdefault(
            job_id,
            Job(job_id, "function", str(path), str(_import_folder(path)), str(root.resolve()), dotted,
                function.qualname, region.fullgraph, (function.start_line, function.end_line), region.entry,
                tuple(libraries)),
        )
    return list(jobs.values())


def reached(results: Iterable[JobResult], libraries: Sequence[str]) -> list[str]:
    """The files under ``libraries`` in which the ``results`` traced a line, sorted."""
    folders = [Path(folder) for folder in libraries]
    files = {Path(resolved(name)) for result in results for name in {name for name, _ in result.traced}}
    return sorted(str(f) for f in files if any(_inside(f, folder) for folder in folders))


def shown(path: Path, root: Path) -> str:
    """How census keys and break sites name ``path``: relative to ``root`` for the project's files;
    an installed file by its place in its package (``diffusers/models/unets/unet_2d.py``), so a
    census recorded in another environment names the same files."""
    path = path.resolve()
    if _inside(path, root) and not any(part in INSTALLED for part in path.relative_to(root.resolve()).parts):
        return path.relative_to(root.resolve()).as_posix()
    try:
        return path.relative_to(_import_folder(path)).as_posix()
    except ValueError:
        return path.as_posix()


def _import_folder(path: Path) -> Path:
    """The folder that makes ``path`` importable: the one above its outermost package."""
    dotted, is_package = module_name(path)
    return path.parents[dotted.count(".") + (1 if is_package else 0)]


def traced_within(result: JobResult | None, jobs: Sequence[Job]) -> bool:
    """Whether a worker's ``result`` traced a line of any of ``jobs``' target functions."""
    if result is None:
        return False
    spans = [(resolved(j.path), j.lines[0], j.lines[1]) for j in jobs]
    return any(resolved(f) == path and first <= line <= last for f, line in result.traced for path, first, last in spans)


@functools.lru_cache(maxsize=None)
def resolved(path: str) -> str:
    """``path`` made absolute with its links resolved, once per path: a factory traces thousands of lines."""
    return str(Path(path).resolve())


def builders(job: Job, jobs: Sequence[Job], results: Mapping[str, JobResult]) -> tuple[str, ...]:
    """The factory jobs whose model held an instance of the class ``job``'s method belongs to.

    Classes are matched by their defining module, so a model imported through a package's re-export
    (``from diffusers import UNet2DModel``) counts as the class its module defines.
    """
    owner, _, _ = job.target.rpartition(".")
    if job.kind != "function" or not owner:
        return ()
    name = f"{job.module}.{owner}"
    return tuple(other.id for other in jobs
                 if other.kind == "factory" and other.id in results and name in results[other.id].built)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _module_path(root: Path, module: str) -> Path:
    found = _module_file(root, module)
    return found if found is not None else root.joinpath(*module.split(".")).with_suffix(".py")


def _module_file(folder: Path, module: str) -> Path | None:
    base = folder.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None

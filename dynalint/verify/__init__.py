"""Verify stage: prove findings by compiling the flagged code for real (``dynalint --verify``).

The only part of dynalint that touches torch, and only in worker subprocesses (``worker.py``): this
package's ``verify()`` plans jobs, hands them to the supervisor (``runner.py``), judges every finding
(``verdicts.py``) and builds the break census (``census.py``) without importing torch itself; the
values that pass between them are typed in ``protocol.py``.
However it ends (Ctrl-C and SIGTERM included), no worker process, nor any process user code started
in one, outlives ``verify()``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynalint.finding import Finding, Region
from dynalint.program import Program
from dynalint.verify.runner import Terminated, WorkerError

__all__ = ["Terminated", "TorchMissing", "Verification", "WorkerError", "verify"]


class TorchMissing(RuntimeError):
    """``--verify`` needs torch; the static linter does not."""


@dataclass
class Verification:
    findings: list[Finding]  # every static finding with its verdict, then the unpredicted breaks
    census: dict[str, Any]
    device: str


def verify(
    findings: Sequence[Finding],
    program: Program | None,
    *,
    root: Path,
    factories: Sequence[str] = (),
    entries: Sequence[Region] = (),
    backend: str = "eager",
    device: str = "auto",
    timeout: float = 120.0,
) -> Verification:
    if importlib.util.find_spec("torch") is None:
        raise TorchMissing("--verify needs torch: pip install 'dynalint[verify]'")
    from dynalint.verify import census, plan, runner, verdicts

    jobs = plan.plan(findings, program, factories, root, entries)
    results = runner.run(jobs, backend=backend, device=device, timeout=timeout)
    devices = {r.device for r in results.values() if r.device}
    return Verification(verdicts.judge(findings, jobs, results), census.census(jobs, results),
                        ", ".join(sorted(devices)) or device)

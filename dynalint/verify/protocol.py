"""Verify stage, the protocol: the typed values that cross from the worker to the runner to the judge.

A worker (``worker.py``) observes ``ObservedBreak``s and answers each job with a ``JobResult``, sent as
one JSON line on its result pipe (``as_dict`` / ``from_dict``); the supervisor (``runner.py``) makes
the results of jobs no worker answered (``JobResult.empty``); the judge (``verdicts.py``) and the
census (``census.py``) read them and give every finding a ``Verdict`` (defined with ``Finding`` in
``dynalint.model.finding``, re-exported here). No torch here, and nothing below this module in the stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dynalint.model.finding import Verdict

__all__ = ["JobResult", "ObservedBreak", "Verdict"]


@dataclass(frozen=True)
class ObservedBreak:
    """One graph break as Dynamo logged it."""

    gb_id: str | None  # e.g. "GB0059"; None when neither link nor registry matched
    reason: str  # first line of the Gb_type / explanation
    filename: str  # file of ``line`` (the observed file unless no frame of it was found)
    line: int  # innermost user frame in the observed file
    function: str  # function of that frame (resume functions mapped back to their origin)
    frame_skipped: bool = False  # Dynamo gave up on the whole frame and ran it eagerly

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.filename, "line": self.line, "gb_id": self.gb_id, "reason": self.reason,
                "function": self.function, "frame_skipped": self.frame_skipped}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ObservedBreak:
        return cls(data.get("gb_id"), data.get("reason", ""), data["file"], int(data["line"]),
                   data.get("function", ""), bool(data.get("frame_skipped", False)))


@dataclass(frozen=True)
class JobResult:
    """What running one job observed, or why nothing could be observed.

    ``unverifiable`` says why the target could not be run; ``error`` how user code failed (and
    ``error_site`` the ``(file, line)`` it raised at); ``crashed`` marks a job whose worker hung or
    died, ``covered_by`` a function a factory job already ran. ``seconds`` and ``device`` are set only
    for jobs a worker really ran; ``inputs`` says which inputs and mode its observations hold for
    (``factory `m:f`'s inputs (eval, no_grad)``), and a factory's ``built`` names the class
    (``module.Qualname``) of every module its model holds.
    """

    id: str
    error: str | None = None
    unverifiable: str | None = None
    breaks: tuple[ObservedBreak, ...] = ()
    traced: tuple[tuple[str, int], ...] = ()
    graphs: int = 0
    recompiles: int = 0
    seconds: float | None = None
    device: str | None = None
    error_site: tuple[str, int] | None = None
    crashed: bool = False
    covered_by: str | None = None
    inputs: str | None = None
    built: tuple[str, ...] = ()

    @classmethod
    def empty(
        cls, job_id: str, *, error: str | None = None, unverifiable: str | None = None,
        crashed: bool = False, covered_by: str | None = None,
    ) -> JobResult:
        """The result of a job that observed nothing, with the reason why (none: it never ran)."""
        return cls(job_id, error=error, unverifiable=unverifiable, crashed=crashed, covered_by=covered_by)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of the result pipe; optional fields only when set."""
        data: dict[str, Any] = {"id": self.id, "error": self.error, "unverifiable": self.unverifiable}
        if self.error_site is not None:
            data["error_site"] = list(self.error_site)
        data.update(breaks=[b.as_dict() for b in self.breaks], traced=[list(t) for t in self.traced],
                    graphs=self.graphs, recompiles=self.recompiles)
        for key in ("seconds", "device", "covered_by", "inputs"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.built:
            data["built"] = list(self.built)
        if self.crashed:
            data["crashed"] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JobResult:
        site = data.get("error_site")
        return cls(
            str(data["id"]),
            error=data.get("error"),
            unverifiable=data.get("unverifiable"),
            breaks=tuple(ObservedBreak.from_dict(b) for b in data.get("breaks", ())),
            traced=tuple((str(f), int(line)) for f, line in data.get("traced", ())),
            graphs=int(data.get("graphs", 0)),
            recompiles=int(data.get("recompiles", 0)),
            seconds=data.get("seconds"),
            device=data.get("device"),
            error_site=(str(site[0]), int(site[1])) if site else None,
            crashed=bool(data.get("crashed", False)),
            covered_by=data.get("covered_by"),
            inputs=data.get("inputs"),
            built=tuple(str(name) for name in data.get("built", ())),
        )

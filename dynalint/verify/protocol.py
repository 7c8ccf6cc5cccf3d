"""Verify stage, the protocol: the typed values that cross from the planner to the worker to the judge.

Everything that crosses the pipes between the supervisor (``runner.py``) and a worker (``worker.py``) is
one of these dataclasses, written as one JSON object per line (``to_json``) and read back into the same
dataclass on the other side (``from_json``): the worker's ``Ready`` when torch is imported, a ``Job``
per job the planner (``plan.py``) made, and the worker's ``JobResult`` for it, holding the
``ObservedBreak``s it saw. The supervisor makes the results of jobs no worker answered
(``JobResult.empty``); the judge (``verdicts.py``) and the census (``census.py``) read them and give
every finding a ``Verdict`` (defined with ``Finding`` in ``dynalint.model.finding``, re-exported
here). No torch here, and nothing below this module in the stage.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from dynalint.model.finding import Verdict

__all__ = ["Job", "JobResult", "ObservedBreak", "Ready", "Verdict"]


def _json_object(line: str) -> dict[str, Any]:
    """The JSON object ``line`` holds; ``ValueError`` when it holds anything else."""
    value = json.loads(line)
    if not isinstance(value, dict):
        raise ValueError(f"not a JSON object: {line[:80]!r}")
    return value


@dataclass(frozen=True)
class Ready:
    """A worker's first line: torch is imported, jobs may come, and this is the device it runs them on."""

    device: str

    def as_dict(self) -> dict[str, Any]:
        return {"ready": True, "device": self.device}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ready:
        if not data.get("ready"):
            raise ValueError("not a worker's ready line")
        return cls(str(data.get("device", "cpu")))

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    @classmethod
    def from_json(cls, line: str) -> Ready:
        return cls.from_dict(_json_object(line))


@dataclass(frozen=True)
class Job:
    """One target for a worker to import, compile and run (made by ``plan.py``)."""

    id: str  # census key: ``path::Qualname`` (path relative to ``observed``) or ``factory:module:function``
    kind: str  # "function" | "factory"
    path: str  # the file to import (absolute)
    sys_path: str  # the folder that makes ``module`` importable
    observed: str  # the config folder: breaks and traced lines are recorded for files under it
    module: str  # dotted module name of ``path`` from ``sys_path``
    target: str  # qualname inside the module, or ``module:function`` of a factory
    fullgraph: bool = False
    lines: tuple[int, int] = (0, -1)  # the target's first and last line in ``path``
    entry: str = ""  # module-qualified entry function whose findings this job verifies
    libraries: tuple[str, ...] = ()  # installed folders observed like ``observed`` (never torch's own)
    mode: str = "eval"  # "eval": ``model.eval()`` under ``no_grad``; "train": ``model.train()``, grad enabled
    built_by: tuple[str, ...] = ()  # factory jobs whose model held this job's class (set by the runner)
    # ``--fix --verify``: also run the factory's model eagerly, and keep both outputs (``JobResult.outputs``).
    record_outputs: bool = False
    extra_paths: tuple[str, ...] = ()  # more folders for ``sys.path`` (``verify.pythonpath``, a ``src`` folder)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Job:
        """The job ``as_dict`` gave; an optional field missing or null takes its default."""
        first, last = data.get("lines") or (0, -1)
        return cls(
            str(data["id"]), str(data["kind"]), str(data["path"]), str(data["sys_path"]), str(data["observed"]),
            str(data["module"]), str(data["target"]),
            fullgraph=bool(data.get("fullgraph")),
            lines=(int(first), int(last)),
            entry=str(data.get("entry") or ""),
            libraries=tuple(str(folder) for folder in data.get("libraries") or ()),
            mode=str(data.get("mode") or "eval"),
            built_by=tuple(str(factory) for factory in data.get("built_by") or ()),
            record_outputs=bool(data.get("record_outputs")),
            extra_paths=tuple(str(folder) for folder in data.get("extra_paths") or ()),
        )

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    @classmethod
    def from_json(cls, line: str) -> Job:
        return cls.from_dict(_json_object(line))


@dataclass(frozen=True)
class ObservedBreak:
    """One graph break as Dynamo logged it."""

    gb_id: str | None  # e.g. "GB0059"; None when neither link nor registry matched
    reason: str  # first line of the Gb_type / explanation
    filename: str  # file of ``line`` (the observed file unless no frame of it was found)
    line: int  # innermost user frame in the observed file
    function: str  # function of that frame (resume functions mapped back to their origin)
    frame_skipped: bool = False  # Dynamo gave up on the whole frame and ran it eagerly
    # Where the break really is, when that is deeper than ``line``: the innermost frame outside torch,
    # in a file nobody asked to lint (a library utility). ``(file, line, function)``.
    inner: tuple[str, int, str] | None = None
    explanation: str = ""  # Dynamo's ``Explanation:`` line
    hints: tuple[str, ...] = ()  # its ``Hint:`` lines

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.filename, "line": self.line, "gb_id": self.gb_id, "reason": self.reason,
                                "function": self.function, "frame_skipped": self.frame_skipped}
        if self.inner is not None:
            data["inner"] = list(self.inner)
        if self.explanation:
            data["explanation"] = self.explanation
        if self.hints:
            data["hints"] = list(self.hints)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ObservedBreak:
        inner = data.get("inner")
        return cls(data.get("gb_id"), data.get("reason", ""), data["file"], int(data["line"]),
                   data.get("function", ""), bool(data.get("frame_skipped", False)),
                   (str(inner[0]), int(inner[1]), str(inner[2])) if inner else None,
                   str(data.get("explanation") or ""), tuple(str(h) for h in data.get("hints") or ()))


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
    # With ``Job.record_outputs``: ``{"eager": value, "compiled": value}``, each a plain JSON summary of
    # what the model returned (``observe.summarize``), for ``--fix --verify`` to compare.
    outputs: dict[str, Any] | None = None
    error_detail: str | None = None  # the whole error, when ``error`` is its first line (``-v`` prints it)

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
        for key in ("seconds", "device", "covered_by", "inputs", "outputs", "error_detail"):
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
            outputs=data.get("outputs"),
            error_detail=data.get("error_detail"),
        )

    def to_json(self) -> str:
        """One line of the result pipe."""
        return json.dumps(self.as_dict())

    @classmethod
    def from_json(cls, line: str) -> JobResult:
        """The result ``line`` holds; ``KeyError``, ``TypeError``, ``ValueError`` or ``IndexError`` when
        it holds no result."""
        return cls.from_dict(_json_object(line))

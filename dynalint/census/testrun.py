"""Verify stage, for the pytest plugin: from what a test session's compiles did to a break census.

``session.Recorder`` (torch side) hands over ``SeenBreak``s and ``FrameCompile``s; ``build`` groups
them by compiled function into the census ``--verify --census-out`` writes (same keys, same
``path:line GBnnnn`` break sites, so ``census.compare`` gates both), adding what only a test run
knows: the tests behind each function, site and recompile. ``match_static`` then lints the files that
had events, in-process, and marks each break site ``confirmed`` (a rule flagged that line) or DYN090
(no rule did), as ``--verify`` does. No torch here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dynalint.verify.blame import OUTSIDE, Project
from dynalint.verify.census import VERSION
from dynalint.verify.protocol import ObservedBreak

COLLECTION = "<collection>"  # the "test" of compiles that ran while pytest imported test modules


@dataclass(frozen=True)
class SeenBreak:
    brk: ObservedBreak  # placed by ``parse_record`` in the innermost frame of a project file
    test: str | None  # nodeid of the test that was running
    compile_id: str | None  # Dynamo's ``frame/attempt`` id of the compile it interrupted


@dataclass(frozen=True)
class FrameCompile:
    """One frame Dynamo compiled (a resume function after a break is a frame of its own)."""

    compile_id: str | None
    filename: str
    line: int  # ``co_firstlineno``: inside the original function for a resume function too
    name: str
    recompile_reason: str | None  # the guard that failed, when this compile was a recompile
    graph: bool  # the frame produced a graph for the backend
    seconds: float
    test: str | None


@dataclass
class _Function:
    graphs: int = 0
    seconds: float = 0.0
    tests: set[str] = field(default_factory=set)
    sites: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)
    recompiles: list[dict[str, str]] = field(default_factory=list)

    def entry(self) -> dict[str, Any]:
        return {
            "graphs": self.graphs,
            "breaks": len(self.sites),
            "break_sites": sorted(self.sites),
            "skipped_frames": len(self.skipped),
            "recompiles": len(self.recompiles),
            "seconds": round(self.seconds, 3),
            "status": "ran",
            "reason": None,
            "tests": sorted(self.tests),
            "sites": {site: {**detail, "tests": sorted(detail["tests"])} for site, detail in sorted(self.sites.items())},
            "recompile_reasons": self.recompiles,
        }


def build(breaks: Iterable[SeenBreak], compiles: Iterable[FrameCompile], project: Project) -> dict[str, Any]:
    """The census of one test session: per compiled function of the project, graphs, break sites
    (with GB ids and tests), skipped frames, recompiles (with their guard and test), compile seconds."""
    compiles = list(compiles)
    functions: dict[str, _Function] = {}
    by_id = {c.compile_id: c for c in compiles if c.compile_id}

    def compiled_function(compile_: FrameCompile | None) -> str | None:
        if compile_ is None or not project.owns(compile_.filename):
            return None
        return project.function_at(compile_.filename, compile_.line)

    for compile_ in compiles:
        key = compiled_function(compile_)
        if key is None:
            continue  # a frame of torch or an installed library: its events are blamed on the caller
        function = functions.setdefault(key, _Function())
        function.graphs += compile_.graph
        function.seconds += compile_.seconds
        function.tests.add(compile_.test or COLLECTION)
        if compile_.recompile_reason:
            function.recompiles.append({"reason": compile_.recompile_reason, "test": compile_.test or COLLECTION})
    for seen in breaks:
        brk = seen.brk
        owned = project.owns(brk.filename) and brk.line > 0
        key = compiled_function(by_id.get(seen.compile_id or ""))
        if key is None:
            key = project.function_at(brk.filename, brk.line) if owned else OUTSIDE
        function = functions.setdefault(key, _Function())
        test = seen.test or COLLECTION
        function.tests.add(test)
        site = f"{project.shown(brk.filename)}:{brk.line}" if owned else OUTSIDE
        detail = function.sites.setdefault(f"{site} {brk.gb_id or 'unknown'}", {
            "gb_id": brk.gb_id, "reason": brk.reason, "tests": set(),
        })
        detail["tests"].add(test)
        if brk.frame_skipped:
            function.skipped.add(brk.function or site)
    return {"version": VERSION, "functions": {name: functions[name].entry() for name in sorted(functions)}}


def match_static(census: dict[str, Any], project: Project, extra_files: Sequence[str] = (), config: Any = None) -> None:
    """Give every break site of ``census`` its static verdict, in place: ``confirmed`` with the
    rules that flagged its line, else ``DYN090`` (a break no rule predicted).

    Lints the files holding break sites plus ``extra_files`` (the test modules, whose
    ``torch.compile`` calls make the model code a compiled region), in this process.
    """
    from dynalint import checks
    from dynalint.pipeline import Pipeline
    from dynalint.project import config as config_module
    from dynalint.project.config_tree import ConfigTree
    from dynalint.lint.rule import BREAK_HAZARDS

    located = [(_location(site, project.root), detail) for entry in census["functions"].values()
               for site, detail in entry.get("sites", {}).items()]
    files = sorted({where[0] for where, _ in located if where} | {os.path.realpath(f) for f in extra_files})
    flagged: dict[tuple[str, int], set[str]] = {}
    if files:
        config = config or config_module.load(start=Path(files[0]))
        for finding in Pipeline(ConfigTree(config, fixed=True)).run(files).findings:
            rule = checks.lookup(finding.code)
            if rule is None or rule.hazard not in BREAK_HAZARDS:
                continue
            for line in range(finding.start.line, finding.end.line + 1):
                flagged.setdefault((os.path.realpath(finding.filename), line), set()).add(finding.code)
    for where, detail in located:
        rules = sorted(flagged.get(where, ())) if where else []
        detail["verdict"] = "confirmed" if rules else "DYN090"
        detail["rules"] = rules


def _location(site: str, root: Path) -> tuple[str, int] | None:
    """``(real path, line)`` of a ``path:line GBnnnn`` break site; None for ``OUTSIDE``."""
    place = site.rsplit(" ", 1)[0]
    path, _, line = place.rpartition(":")
    if not path or not line.isdigit() or place.startswith(OUTSIDE):
        return None
    return os.path.realpath(root / path), int(line)

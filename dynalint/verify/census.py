"""Verify stage, the break census: per compiled function, what real Dynamo produced; and the gate.

``census(jobs, results)`` -> ``{function: {graphs, breaks, break_sites, skipped_frames, recompiles,
seconds, status}}``, written by ``--census-out`` (the pytest plugin writes the same shape from a test
run, through ``testrun.py``). ``compare(current, baseline)`` says which functions got worse (break
sites the baseline lacks, more breaks, graphs or recompiles than it, or breaks in a function it does
not hold: exit 1, naming the new break sites) and which got better. No torch here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dynalint.model.finding import Finding
from dynalint.verify import plan
from dynalint.verify.protocol import Job, JobResult, ObservedBreak
from dynalint.verify.verdicts import graph_breaks

VERSION = 1


def _site(brk: ObservedBreak, root: str) -> str:
    shown = plan.shown(Path(brk.filename), Path(root)) if brk.filename else ""
    return f"{shown}:{brk.line} {brk.gb_id or 'unknown'}"


def census(jobs: Sequence[Job], results: Mapping[str, JobResult]) -> dict[str, Any]:
    functions: dict[str, Any] = {}
    for job in jobs:
        result = results.get(job.id) or JobResult.empty(job.id)
        breaks = graph_breaks(result)
        sites = sorted({_site(b, job.observed) for b in breaks})
        status = ("unverifiable" if result.unverifiable else "error" if result.error
                  else "covered" if result.covered_by else "ran")
        functions[job.id] = {
            "graphs": result.graphs,
            "breaks": len(sites),
            "break_sites": sites,
            "skipped_frames": len({b.function for b in breaks if b.frame_skipped}),
            "recompiles": result.recompiles,
            "seconds": result.seconds,
            "status": status,
            "reason": result.unverifiable or result.error
            or (f"run by {result.covered_by}: its entry holds the graphs and breaks" if result.covered_by else None),
        }
        if result.error_detail:
            functions[job.id]["error_detail"] = result.error_detail
    return {"version": VERSION, "functions": functions}


def with_verdicts(census_: dict[str, Any], findings: Sequence[Finding], root: Path) -> dict[str, Any]:
    """The census with each function's ``sites``: every break site with its GB id and its static verdict,
    ``confirmed`` with the rules whose finding covers its line, else ``DYN090`` (no rule predicted it), as
    the pytest plugin's census gives them."""
    flagged: dict[tuple[str, int], set[str]] = {}
    for finding in findings:
        if finding.code.startswith("DYN0") or finding.verify is None or finding.verify.verdict != "confirmed":
            continue
        real = str(Path(finding.filename).resolve())
        for line in range(finding.start.line, finding.end.line + 1):
            flagged.setdefault((real, line), set()).add(finding.code)
    for entry in census_["functions"].values():
        sites = {}
        for site in entry["break_sites"]:
            place, _, gb_id = site.rpartition(" ")
            path, _, line = place.rpartition(":")
            rules = sorted(flagged.get((str((root / path).resolve()), int(line)), ())) if line.isdigit() else []
            sites[site] = {"gb_id": None if gb_id == "unknown" else gb_id,
                           "verdict": "confirmed" if rules else "DYN090", "rules": rules}
        entry["sites"] = sites
    return census_


@dataclass
class Comparison:
    regressions: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.regressions)


def compare(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> Comparison:
    """Functions with break sites their baseline lacks, or more breaks, graphs or recompiles than it
    (none when absent from it), are regressions; ones that lost sites or counts are improvements.

    A site moving (one break fixed, another added) is a regression: the new site was never accepted.
    Census entries written by the pytest plugin name the tests behind each new site; the comparison
    is otherwise the same for both writers.
    """
    outcome = Comparison()
    before_all = baseline.get("functions", {})
    for name, now in sorted(current.get("functions", {}).items()):
        before = before_all.get(name)
        if before is None:
            # The census holds only functions with findings: one missing from the baseline had no
            # break then (or did not exist), so any break it has now is new.
            if now["status"] == "ran" and (now["breaks"] or now.get("recompiles")):
                outcome.regressions.append(
                    f"{name}: breaks 0 -> {now['breaks']}" + _recompiles(0, now) + " (not in the baseline)"
                    + (f"; new break sites: {_sites(now['break_sites'], now)}" if now["break_sites"] else "")
                    + _recompile_tests(now, 0)
                )
            continue
        if now["status"] != "ran" or before.get("status") != "ran":
            continue
        new_sites = sorted(set(now["break_sites"]) - set(before.get("break_sites", ())))
        gone_sites = sorted(set(before.get("break_sites", ())) - set(now["break_sites"]))
        counts = (now["breaks"], now["graphs"], now.get("recompiles", 0))
        previous = (before["breaks"], before["graphs"], before.get("recompiles", 0))
        change = (f"{name}: breaks {before['breaks']} -> {now['breaks']}, graphs {before['graphs']} -> {now['graphs']}"
                  + _recompiles(before.get("recompiles", 0), now))
        if new_sites or any(n > p for n, p in zip(counts, previous)):
            outcome.regressions.append(
                change + (f"; new break sites: {_sites(new_sites, now)}" if new_sites else "")
                + _recompile_tests(now, before.get("recompiles", 0))
            )
        elif gone_sites or any(n < p for n, p in zip(counts, previous)):
            outcome.improvements.append(change + (f"; fixed: {', '.join(gone_sites)}" if gone_sites else ""))
    return outcome


def _recompiles(before: int, now: Mapping[str, Any]) -> str:
    after = now.get("recompiles", 0)
    return f", recompiles {before} -> {after}" if after != before else ""


def _sites(sites: Sequence[str], entry: Mapping[str, Any]) -> str:
    """Break sites, each with the tests that hit it when the census knows them (the pytest plugin's)."""
    details = entry.get("sites", {})
    return ", ".join(
        f"{site} (in {', '.join(details[site]['tests'])})" if details.get(site, {}).get("tests") else site
        for site in sites
    )


def _recompile_tests(entry: Mapping[str, Any], before: int) -> str:
    """The guards and tests of the recompiles beyond the baseline's count (pytest plugin censuses)."""
    reasons = entry.get("recompile_reasons") or []
    if len(reasons) <= before:
        return ""
    return "; recompiled: " + ", ".join(f"{r['reason']} (in {r['test']})" for r in reasons[before:])


def load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != VERSION or "functions" not in data:
        raise ValueError(f"{path}: not a dynalint break census (version {VERSION})")
    return data


def describe(census_: Mapping[str, Any], verbose: bool = False) -> list[str]:
    """One line per function of a census, as ``--verify`` prints it; a function a factory covered, and an
    error's whole text, only when ``verbose`` (``-v``)."""
    lines = []
    for name, entry in census_["functions"].items():
        if entry["status"] == "covered" and not verbose:
            continue
        state = f"{entry['status']} ({entry['reason']})" if entry["status"] != "ran" else (
            f"{entry['graphs']} graphs, {entry['breaks']} breaks, {entry['skipped_frames']} skipped frames, "
            f"{entry['recompiles']} recompiles, {entry['seconds']} s"
        )
        lines.append(f"census {name}: {state}")
        if verbose and entry.get("error_detail"):
            lines += [f"    {line}" for line in entry["error_detail"].splitlines()]
    return lines


def report(comparison: Comparison) -> list[str]:
    """What a baseline comparison prints: every regression, every improvement, or that all held."""
    lines = [f"regression: {line}" for line in comparison.regressions]
    lines += [f"improved: {line}" for line in comparison.improvements]
    if not comparison.failed:
        lines.append("break census: no function got worse than the baseline")
    return lines

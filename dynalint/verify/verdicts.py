"""Verify stage, the judge: turn what the workers observed into a verdict on every finding (no torch).

- ``confirmed``: Dynamo broke the graph on the finding's line (the observed GB ids are attached);
- ``refuted``: Dynamo traced the line and did not break there;
- ``not reached``: the code was run under compile but never traced that line (a branch not taken);
- ``unverifiable``: nothing could run it, with the reason (also every recompile or stale-value
  hazard: those are not graph breaks, so what Dynamo logs neither proves nor refutes them; and every
  finding in a notebook, which no worker imports).
Breaks Dynamo reported on lines no finding names become findings of their own (DYN090
``observed-graph-break``): the catalogue's blind spots, shown to the user and to us.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from dynalint import diagnostics, registry
from dynalint.finding import Finding, Position
from dynalint.verify.plan import Job, traced_within
from dynalint.verify.protocol import JobResult, ObservedBreak, Verdict

CONFIRMED, REFUTED, NOT_REACHED, UNVERIFIABLE = "confirmed", "refuted", "not reached", "unverifiable"
# The rules' ``hazard`` kinds that are graph breaks (on every rank, or on some): the ones a break proves.
BREAK_HAZARDS = frozenset({"break", "rank-divergence"})
# What Dynamo logs at the line where user code raised: the check's jump, or the exception itself.
RAISE_RECORDS = frozenset({"GB0170", "GB0088"})
NOTEBOOK = "--verify does not run notebooks: move the code to a module to verify it"


def _key(path: str) -> str:
    return str(Path(path).resolve())


def judge(
    findings: Sequence[Finding], jobs: Sequence[Job], results: Mapping[str, JobResult]
) -> list[Finding]:
    """The findings with ``verify`` filled in, followed by the breaks no finding predicted."""
    observed: dict[tuple[str, int], list[ObservedBreak]] = defaultdict(list)
    traced: set[tuple[str, int]] = set()
    for result in results.values():
        for brk in graph_breaks(result):
            observed[(_key(brk.filename), brk.line)].append(brk)
        traced.update((_key(f), line) for f, line in result.traced)
    explained: set[tuple[str, int]] = set()
    judged = []
    verdict: Verdict
    for finding in findings:
        if finding.region is None:
            judged.append(finding)
            continue
        if finding.cell is not None:
            judged.append(dataclasses.replace(finding, verify=Verdict(UNVERIFIABLE, reason=NOTEBOOK)))
            continue
        hazard = _hazard(finding.code)
        if hazard not in BREAK_HAZARDS:
            # A recompile or a stale value is no graph break: no break on its line proves nothing.
            verdict = Verdict(UNVERIFIABLE, reason=f"--verify observes graph breaks, and a {hazard} hazard is not one")
            judged.append(dataclasses.replace(finding, verify=verdict))
            continue
        path = _key(finding.filename)
        lines = range(finding.start.line, finding.end.line + 1)
        breaks = [b for line in lines for b in observed.get((path, line), ())]
        explained.update((path, line) for line in lines)
        if breaks:
            gb_ids = tuple(sorted({b.gb_id or "unknown" for b in breaks}))
            verdict = Verdict(CONFIRMED, gb_ids, matches_rule=any(g in finding.gb_ids for g in gb_ids))
        elif any((path, line) in traced for line in lines):
            verdict = Verdict(REFUTED)
        else:
            verdict = _unreached(finding, jobs, results)
        judged.append(dataclasses.replace(finding, verify=verdict))
    judged += _unpredicted(observed, explained)
    return judged


def graph_breaks(result: JobResult) -> list[ObservedBreak]:
    """A worker result's breaks, less Dynamo's record of the exception that ended the run.

    When user code raises (often a check failing on made-up inputs: ``assert x.dim() == 3``), Dynamo
    logs the raising line as a break: the failing check's jump on a constant (GB0170) or an observed
    exception (GB0088). The exception is what happened there, not a graph break. A real break on that
    line (``input()`` breaking, then raising at end of input) has its own GB id and is kept.
    """
    site = result.error_site
    raised_at = (_key(site[0]), site[1]) if site else None
    return [b for b in result.breaks if (_key(b.filename), b.line) != raised_at or b.gb_id not in RAISE_RECORDS]


def _hazard(code: str) -> str:
    rule = registry.lookup(code)
    return rule.hazard if rule is not None else "break"


def _unreached(finding: Finding, jobs: Sequence[Job], results: Mapping[str, JobResult]) -> Verdict:
    entry = finding.region.entry if finding.region else ""
    own = [j for j in jobs if j.kind == "function" and j.entry == entry]
    # A factory speaks for this finding only if it ran the entry function (Dynamo traced a line of
    # it); one that compiled something else must not turn a hang or a crash into "not reached".
    relevant = own + [j for j in jobs if j.kind == "factory" and traced_within(results.get(j.id), own)]
    outcomes = [results[j.id] for j in relevant if j.id in results]
    if any(not r.unverifiable and not r.error for r in outcomes):
        return Verdict(NOT_REACHED, reason="compiled and run, but Dynamo never traced this line")
    reasons = [r.unverifiable or r.error for r in outcomes]
    reason = next((r for r in reasons if r), "no job could compile the function holding it")
    return Verdict(UNVERIFIABLE, reason=reason)


def _unpredicted(observed: Mapping[tuple[str, int], list[ObservedBreak]], explained: set[tuple[str, int]]) -> list[Finding]:
    extra = []
    for (path, line), breaks in sorted(observed.items()):
        if (path, line) in explained or line <= 0:
            continue
        first = breaks[0]
        gb_ids = tuple(sorted({b.gb_id for b in breaks if b.gb_id}))
        shown = _display(path)
        position = Position(line, 1)
        extra.append(
            Finding(
                code=diagnostics.OBSERVED_BREAK.code,
                name=diagnostics.OBSERVED_BREAK.name,
                message=f"Dynamo broke the graph here ({', '.join(gb_ids) or 'no GB id'}: {first.reason}) "
                        "and no rule predicted it",
                filename=shown,
                start=position,
                end=position,
                help=diagnostics.OBSERVED_BREAK.help,
                gb_ids=gb_ids,
                verify=Verdict(CONFIRMED, gb_ids, observed_in=first.function),
            )
        )
    return extra


def _display(path: str) -> str:
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path

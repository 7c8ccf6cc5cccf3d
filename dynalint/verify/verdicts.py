"""Verify stage, the judge: turn what the workers observed into a verdict on every finding (no torch).

- ``confirmed``: Dynamo broke the graph on the finding's line (the observed GB ids are attached; when
  none is an id the finding names for this torch, the reason says which ids the page gave and which
  this torch broke with);
- ``refuted``: Dynamo traced the line and did not break there, for the inputs named in the reason;
- ``not reached``: the code was run under compile but never traced that line; the reason says why:
  a branch those inputs did not take, or an earlier break in the same function after which Dynamo
  gave the frame up and ran the rest eagerly (naming that break);
- ``unverifiable``: nothing could run it, with the reason (also every recompile or stale-value
  hazard: those are not graph breaks, so what Dynamo logs neither proves nor refutes them; and every
  finding in a notebook, which no worker imports).
Each reason names the inputs and mode it holds for (``factory `m:f`'s inputs (eval, no_grad)``).
Breaks Dynamo reported on lines no finding names become findings of their own (DYN090
``observed-graph-break``): the catalogue's blind spots, shown to the user and to us.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from dynalint import checks
from dynalint.lint.rule import BREAK_HAZARDS
from dynalint.model import diagnostics
from dynalint.model.finding import Finding, Position, Region
from dynalint.verify import plan
from dynalint.verify.blame import enclosing_function
from dynalint.verify.plan import builders, traced_within
from dynalint.verify.protocol import Job, JobResult, ObservedBreak, Verdict

CONFIRMED, REFUTED, NOT_REACHED, UNVERIFIABLE = "confirmed", "refuted", "not reached", "unverifiable"
# What Dynamo logs at the line where user code raised: the check's jump, or the exception itself.
RAISE_RECORDS = frozenset({"GB0170", "GB0088"})
NOTEBOOK = "--verify does not run notebooks: move the code to a module to verify it"


_key = plan.resolved


def judge(
    findings: Sequence[Finding], jobs: Sequence[Job], results: Mapping[str, JobResult],
    region_at: Callable[[str, int], Region | None] = lambda path, line: None,
) -> list[Finding]:
    """The findings with ``verify`` filled in, followed by the breaks no finding predicted (each with the
    region ``region_at`` gives its line: why its function is compiled, when the static stage knows)."""
    observed: dict[tuple[str, int], list[ObservedBreak]] = defaultdict(list)
    traced: dict[tuple[str, int], list[JobResult]] = defaultdict(list)
    for result in results.values():
        for brk in graph_breaks(result):
            observed[(_key(brk.filename), brk.line)].append(brk)
        for line in {(_key(f), line) for f, line in result.traced}:
            traced[line].append(result)
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
            matches = any(g in finding.gb_ids for g in gb_ids)
            # The finding names the ids its pattern breaks with on the target torch (the version table): a
            # break with others is this torch's news, and the verdict says so.
            verdict = Verdict(CONFIRMED, gb_ids, matches_rule=matches, reason=None if matches or not finding.gb_ids else
                              f"the page says {', '.join(finding.gb_ids)}; this torch breaks with {', '.join(gb_ids)}")
        elif any((path, line) in traced for line in lines):
            tracers = [r for line in lines for r in traced.get((path, line), ())]
            verdict = Verdict(REFUTED, reason=f"for {_inputs(tracers)}")
        else:
            verdict = _unreached(finding, jobs, results)
        judged.append(dataclasses.replace(finding, verify=verdict))
    judged += _unpredicted(observed, explained, region_at)
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
    rule = checks.lookup(code)
    return rule.hazard if rule is not None else "break"


def _unreached(finding: Finding, jobs: Sequence[Job], results: Mapping[str, JobResult]) -> Verdict:
    entry = finding.region.entry if finding.region else ""
    own = [j for j in jobs if j.kind == "function" and j.entry == entry]
    # A factory speaks for this finding only if it ran the entry function (Dynamo traced a line of
    # it) or its model held the entry's class; one that compiled something else must not turn a hang
    # or a crash into "not reached".
    built = {factory for j in own for factory in builders(j, jobs, results)}
    relevant = own + [j for j in jobs if j.kind == "factory"
                      and (traced_within(results.get(j.id), own) or j.id in built)]
    ran = [(j, results[j.id]) for j in relevant if j.id in results]
    ran = [(j, r) for j, r in ran if not r.unverifiable and not r.error and not r.covered_by]
    if ran:
        cause = _earlier_break(finding, ran)
        if cause is not None:
            return Verdict(NOT_REACHED, reason=cause)
        return Verdict(NOT_REACHED, reason=f"branch not taken for {_inputs([r for _, r in ran])}: "
                                           "compiled and run, but Dynamo never traced this line")
    outcomes = [results[j.id] for j in relevant if j.id in results]
    reasons = [r.unverifiable or r.error for r in outcomes]
    reason = next((r for r in reasons if r), "no job could compile the function holding it")
    return Verdict(UNVERIFIABLE, reason=reason)


def _earlier_break(finding: Finding, ran: Sequence[tuple[Job, JobResult]]) -> str | None:
    """Why the finding's line ran eagerly, when a break earlier in its function ended the tracing.

    Dynamo resumes after most breaks, tracing the rest of the function in a new frame; where it
    cannot (a break inside a loop or a ``try`` block), it gives the frame up and runs it eagerly,
    and under ``fullgraph=True`` it stops. Either way no line of the function after the break is
    traced, which is what is checked here: a break on an earlier line of the innermost function
    holding the finding, and no line traced after it there.
    """
    span = enclosing_function(finding.filename, finding.start.line)
    if span is None:
        return None
    first, last, name = span
    path = _key(finding.filename)
    for job, result in ran:
        later = [line for f, line in result.traced if _key(f) == path and first <= line <= last]
        for brk in sorted(graph_breaks(result), key=lambda b: b.line):
            if _key(brk.filename) != path or not first <= brk.line < finding.start.line:
                continue
            if any(line > brk.line for line in later):
                continue
            site = f"{plan.shown(Path(brk.filename), Path(job.observed))}:{brk.line} ({brk.gb_id or 'no GB id'})"
            if job.fullgraph:
                return f"compile stopped at the break at {site} under fullgraph=True, for {_inputs([result])}"
            return (f"ran eagerly after the break at {site} in the same frame: Dynamo gave up `{name}` there, "
                    f"for {_inputs([result])}")
    return None


def _inputs(results: Sequence[JobResult]) -> str:
    """The inputs a verdict holds for, as the workers named them (``factory `m:f`'s inputs (eval, no_grad)``)."""
    named = list(dict.fromkeys(r.inputs for r in results if r.inputs))
    return " and ".join(named) if named else "the inputs that ran"


def _unpredicted(observed: Mapping[tuple[str, int], list[ObservedBreak]], explained: set[tuple[str, int]],
                 region_at: Callable[[str, int], Region | None]) -> list[Finding]:
    extra = []
    for (path, line), breaks in sorted(observed.items()):
        if (path, line) in explained or line <= 0:
            continue
        first = breaks[0]
        gb_ids = tuple(sorted({b.gb_id for b in breaks if b.gb_id}))
        shown = _display(path)
        position = Position(line, 1)
        why = f"{', '.join(gb_ids) or 'no GB id'}: {first.reason}"
        inner = next((b.inner for b in breaks if b.inner is not None), None)
        break_in = f"{plan.shown(Path(inner[0]), Path.cwd())}:{inner[1]} ({inner[2]})" if inner is not None else None
        explanation = next((b.explanation for b in breaks if b.explanation), "")
        hints = tuple(dict.fromkeys(h for b in breaks for h in b.hints))
        if break_in is not None:
            message = (f"Dynamo broke the graph inside `{break_in}`, called from here ({why}); "
                       f"pass that path to lint it")
        else:
            message = f"Dynamo broke the graph here ({why}) and no rule predicted it"
        if explanation:
            message += f". Dynamo: {explanation}"
        extra.append(
            Finding(
                code=diagnostics.OBSERVED_BREAK.code,
                name=diagnostics.OBSERVED_BREAK.name,
                message=message,
                filename=shown,
                start=position,
                end=position,
                help=f"Dynamo's hint: {hints[0]}" if hints else diagnostics.OBSERVED_BREAK.help,
                gb_ids=gb_ids,
                region=region_at(path, line),
                verify=Verdict(CONFIRMED, gb_ids, observed_in=first.function, break_in=break_in,
                               explanation=explanation or None, hints=hints),
            )
        )
    return extra


def _display(path: str) -> str:
    """Relative to the working directory; installed code by its place in its package
    (``diffusers/models/attention.py``), as the census names it."""
    if any(part in plan.INSTALLED for part in Path(path).parts):
        return plan.shown(Path(path), Path.cwd())
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path

"""The differential tester's shrinker: a disagreement cut down to the fewest statements that keep it.

``shrink(program, line, outcome)`` removes the statements of ``forward`` one at a time (greedily, from
the last), keeping a removal when the program still runs and dynalint and Dynamo still disagree the
same way (``fn`` or ``fp``) on the same statement. Each candidate costs one Dynamo run, in a batch per
round. The result is what ``tests/difftest_cases/`` keeps, with Dynamo's recorded verdict.
"""

from __future__ import annotations

from dataclasses import replace

from compare import compare, predicted_breaks
from grammar import FOOTER, HEADER, INDENT, Program
from oracle import judge


def _body(program: Program) -> list[str]:
    start = HEADER.count("\n")
    end = program.source.count("\n") - FOOTER.count("\n")
    return program.source.splitlines()[start:end]


def _rebuild(program: Program, body: list[str], probe_text: str) -> Program:
    source = HEADER + "".join(f"{line}\n" for line in body) + FOOTER
    first = HEADER.count("\n") + 1
    probe = [first + i for i, line in enumerate(body) if line == probe_text]
    return replace(program, source=source, probe_lines=probe[:1])


def _statements(body: list[str]) -> list[tuple[int, int]]:
    """Each top-level statement of the body with the lines it spans (its indented block included)."""
    spans: list[tuple[int, int]] = []
    for index, line in enumerate(body):
        if line.startswith(INDENT) and not line.startswith(INDENT + " "):
            spans.append((index, index + 1))
        elif spans:
            spans[-1] = (spans[-1][0], index + 1)
    return spans


def shrink(program: Program, line: int, outcome: str, jobs: int = 2, gb_ids: tuple[str, ...] = ()) -> Program:
    """The smallest program found that keeps ``outcome`` (``fn`` / ``fp``) on the statement at ``line``, and
    the same GB ids there (``gb_ids``: a removal that breaks the line for another reason, a name left
    undefined inside a ``try``, is not the same disagreement)."""
    body = _body(program)
    first = HEADER.count("\n") + 1
    target = body[line - first]
    while True:
        candidates = []
        for start, end in reversed(_statements(body)):
            if start <= body.index(target) < end or body[start].strip() == "y = x.clone()":
                continue
            candidates.append(_rebuild(program, body[:start] + body[end:], target))
        if not candidates:
            return _rebuild(program, body, target)
        verdicts = judge([c.source for c in candidates], jobs)
        for candidate, verdict in zip(candidates, verdicts):
            if verdict.error is not None or not candidate.probe_lines:
                continue
            judged = compare(candidate, verdict, predicted_breaks(candidate.source, f"prog_{candidate.seed}.py"))
            kept = [o for o in judged.lines if o.line == candidate.probe_lines[0] and o.outcome == outcome
                    and set(o.gb_ids) == set(gb_ids)]
            if kept:
                body = _body(candidate)
                break
        else:
            return _rebuild(program, body, target)

"""The differential tester's comparison: dynalint's findings against Dynamo's verdict, line by line.

A line is judged when Dynamo traced it (it *broke* on it, or traced it *clean*). On each judged line
dynalint either predicts a break (a finding of a rule whose hazard is a break) or does not:

- ``tp``: predicted, and Dynamo broke there; ``fn``: Dynamo broke there, nothing predicted it;
- ``fp``: predicted, and Dynamo traced the line clean; ``tn``: neither.

A finding on a line Dynamo never traced (after a break that gave up the frame) is counted apart
(``untraced``): it is neither right nor wrong here. So is a finding that names the static test under
which the line breaks (``... (only when `x.dtype == torch.float16`)``, at ``likely``) on a line these
inputs traced clean (``conditional``): the programs run one set of shapes and dtypes, and the finding
says so itself; where Dynamo broke, it counts as ``tp``. Lines are grouped by the program's construct
(``use/value/placement``), by the line's role (the probe, the setup before it, the rest), and the
findings by rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from grammar import FOOTER, Program
from oracle import Verdict

OUTCOMES = ("tp", "fn", "fp", "tn", "untraced", "conditional")


@dataclass
class LineOutcome:
    line: int
    outcome: str
    role: str  # probe | setup | other
    rules: tuple[str, ...]  # the rules that predicted a break on the line
    gb_ids: tuple[str, ...]  # what Dynamo logged on it


@dataclass
class Judged:
    program: Program
    verdict: Verdict
    lines: list[LineOutcome] = field(default_factory=list)

    @property
    def disagreements(self) -> list[LineOutcome]:
        return [line for line in self.lines if line.outcome in ("fn", "fp")]


CONDITIONAL = "(only when "  # a finding that names the static test under which it breaks


def predicted_breaks(source: str, filename: str) -> dict[int, tuple[str, ...]]:
    """Line -> the rules whose findings there predict a graph break (static dynalint, in this process);
    a rule whose finding names a static condition is marked ``DYN102?``."""
    from dynalint import checks, lint_source
    from dynalint.verify.verdicts import BREAK_HAZARDS

    flagged: dict[int, set[str]] = defaultdict(set)
    for finding in lint_source(source, path=filename):
        rule = checks.BY_CODE.get(finding.code)
        if rule is not None and rule.hazard in BREAK_HAZARDS:
            flagged[finding.start.line].add(finding.code + ("?" if CONDITIONAL in finding.message else ""))
    return {line: tuple(sorted(codes)) for line, codes in flagged.items()}


def compare(program: Program, verdict: Verdict, flagged: dict[int, tuple[str, ...]]) -> Judged:
    judged = Judged(program, verdict)
    last = program.source.count("\n") - FOOTER.count("\n")  # module-level code is never compiled
    probe = set(program.probe_lines)
    for line in range(1, last + 1):
        broke = line in verdict.breaks
        traced = broke or line in verdict.traced
        rules = flagged.get(line, ())
        if not traced:
            if rules:
                judged.lines.append(LineOutcome(line, "untraced", _role(line, probe), rules, ()))
            continue
        conditional = bool(rules) and all(rule.endswith("?") for rule in rules)
        outcome = ("tp" if broke else "conditional" if conditional else "fp") if rules else ("fn" if broke else "tn")
        judged.lines.append(LineOutcome(line, outcome, _role(line, probe), rules,
                                        tuple(verdict.breaks.get(line, ()))))
    return judged


def _role(line: int, probe: set[int]) -> str:
    if line in probe:
        return "probe"
    return "setup" if probe and line < min(probe) else "other"


def tables(results: Iterable[Judged]) -> dict[str, dict[str, Counter[str]]]:
    """Confusion counts by construct, by use (the construct's first part), by role and by rule."""
    by: dict[str, dict[str, Counter[str]]] = {"construct": defaultdict(Counter), "use": defaultdict(Counter),
                                                "role": defaultdict(Counter), "rule": defaultdict(Counter)}
    for judged in results:
        construct = judged.program.construct
        for line in judged.lines:
            by["construct"][construct][line.outcome] += 1
            by["use"][construct.split("/")[0]][line.outcome] += 1
            by["role"][line.role][line.outcome] += 1
            for rule in line.rules:
                by["rule"][rule][line.outcome] += 1
            if line.outcome == "fn":
                by["rule"]["(none)"]["fn"] += 1
    return by


def agreement(counts: Counter[str]) -> float:
    judged = counts["tp"] + counts["tn"] + counts["fp"] + counts["fn"]
    return (counts["tp"] + counts["tn"]) / judged if judged else 1.0


def render(by: dict[str, dict[str, Counter[str]]], group: str, limit: int | None = None) -> list[str]:
    rows = sorted(by[group].items(), key=lambda item: (agreement(item[1]), item[0]))
    lines = [f"  {group:<44} {'tp':>6} {'fn':>6} {'fp':>6} {'tn':>7} {'untraced':>9} {'cond.':>6} {'agree':>7}"]
    for name, counts in rows[:limit]:
        lines.append(f"  {name:<44} {counts['tp']:>6} {counts['fn']:>6} {counts['fp']:>6} {counts['tn']:>7} "
                     f"{counts['untraced']:>9} {counts['conditional']:>6} {agreement(counts):>7.4f}")
    return lines

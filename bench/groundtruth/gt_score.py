"""Ground-truth bench, the scoring: static findings against the breaks Dynamo really took. No torch.

Inputs are plain values, so the scoring is testable on synthetic data: the break sites observed in
one library (``Site``: a ``(path, line)`` inside the library with its GB ids and the models that hit
it), the lines Dynamo traced there, and dynalint's findings (``StaticFinding``), all with paths
relative to the library's folder.

- precision = findings on traced lines that are break sites / findings on traced lines. A finding
  covers the lines from its start to its end (as ``--verify`` judges it); findings on lines Dynamo
  never traced are not judged (no model reached them) and are counted apart. So are findings behind a
  guard written on their own line (``guarded``, see ``gt_line_guard.py``): a traced line does not say
  whether they ran, so they count neither as true nor as false, and still cover break sites.
- recall = break sites some finding covers / break sites.

Both are also given per rule (precision, and the sites the rule covers) and per GB id (recall).
``DATA_DEPENDENT`` says which break sites are data-dependent control flow (``is_data_dependent``).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

Location = tuple[str, int]


@dataclass
class Site:
    """One break site: a library line where Dynamo broke the graph, in one or more models."""

    path: str
    line: int
    gb_ids: set[str] = field(default_factory=set)
    reasons: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)

    @property
    def gb_id(self) -> str:
        """The site's category: its GB id (the smallest, when Dynamo gave several), or ``unknown``."""
        return min(self.gb_ids) if self.gb_ids else "unknown"

    @property
    def data_dependent(self) -> bool:
        return is_data_dependent(self.gb_ids, self.reasons)


# The graph breaks that are data-dependent control flow: Python that needs a tensor's value (a branch,
# a Python number, a loop bound, a slice bound) or a shape that only the data fixes. GB id -> why.
DATA_DEPENDENT: dict[str, str] = {
    "GB0170": "data-dependent branching: `if t`, `while t`, `bool(t)`, `and`/`or` on a tensor",
    "GB0035": "branching on an object whose `__bool__` reads data",
    "GB0034": "a data-dependent assertion (`assert t.all()`, `torch._check` on data)",
    "GB0124": "`Tensor.item()`: a Python scalar out of a tensor",
    "GB0109": "`Tensor.tolist()` of a float tensor",
    "GB0033": "a data-dependent operator: `int(t)`, `.tolist()`, `torch.equal`, `aten._local_scalar_dense`",
    "GB0036": "a dynamic-shape operator: `nonzero`, `masked_select`, `unique`, boolean-mask indexing",
    "GB0037": "a dynamic-shape operator with no meta kernel",
    "GB0038": "a slice bounded by a tensor: `x[:n]` with `n` a tensor",
    "GB0246": "`one_hot` whose class count comes from the data",
    "GB0070": "a list indexed by a tensor",
    "GB7596": "`torch.Size` indexed by a tensor",
    "GB0018": "an unbacked SymInt (a size read from data) passed on",
    "GB0360": "a branch on `guard_scalar` of a data-dependent expression",
}

# For breaks that carry no GB id: words of Dynamo's reason that say the same.
DATA_DEPENDENT_REASONS = ("data-dependent", "data dependent", "item()", "tolist()", "dynamic shape",
                          "nonzero", "unbacked")


def is_data_dependent(gb_ids: Iterable[str], reasons: Iterable[str] = ()) -> bool:
    """Whether a break site with these GB ids (else, these reasons) is data-dependent control flow."""
    ids = set(gb_ids)
    if ids:
        return bool(ids & DATA_DEPENDENT.keys())
    return any(word in reason.lower() for reason in reasons for word in DATA_DEPENDENT_REASONS)


@dataclass(frozen=True)
class StaticFinding:
    """A dynalint finding reduced to what scoring reads."""

    code: str
    path: str
    line: int
    end_line: int
    message: str = ""
    confidence: str = "likely"
    guarded: bool = False  # behind a guard on its own line: line tracing cannot judge it

    @property
    def lines(self) -> range:
        return range(self.line, max(self.line, self.end_line) + 1)


@dataclass
class Ratio:
    hits: int = 0
    total: int = 0

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def shown(self) -> str:
        return "-" if self.value is None else f"{self.value:.2f} ({self.hits}/{self.total})"


@dataclass
class Score:
    """The scores of one library (or of several, merged with ``merge``)."""

    recall: Ratio = field(default_factory=Ratio)
    precision: Ratio = field(default_factory=Ratio)
    per_rule: dict[str, Ratio] = field(default_factory=lambda: defaultdict(Ratio))  # precision
    rule_sites: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # sites each rule covers
    per_gb: dict[str, Ratio] = field(default_factory=lambda: defaultdict(Ratio))  # recall
    misses: list[Site] = field(default_factory=list)
    false_positives: list[StaticFinding] = field(default_factory=list)
    unjudged: int = 0  # findings on lines no model traced
    guarded: list[StaticFinding] = field(default_factory=list)  # traced, but behind a guard on their line
    guarded_on_sites: int = 0  # of those, the ones on a break site (true, had they been judged)

    def merge(self, other: Score) -> None:
        for mine, theirs in ((self.recall, other.recall), (self.precision, other.precision)):
            mine.hits += theirs.hits
            mine.total += theirs.total
        for table, incoming in ((self.per_rule, other.per_rule), (self.per_gb, other.per_gb)):
            for key, ratio in incoming.items():
                table[key].hits += ratio.hits
                table[key].total += ratio.total
        for code, count in other.rule_sites.items():
            self.rule_sites[code] += count
        self.misses += other.misses
        self.false_positives += other.false_positives
        self.unjudged += other.unjudged
        self.guarded += other.guarded
        self.guarded_on_sites += other.guarded_on_sites


def score(sites: Mapping[Location, Site], traced: set[Location], findings: Iterable[StaticFinding]) -> Score:
    """Score ``findings`` against the observed ``sites`` and ``traced`` lines of one library."""
    result = Score()
    covered: dict[Location, set[str]] = defaultdict(set)  # site -> codes of the findings covering it
    for finding in findings:
        spots = [(finding.path, line) for line in finding.lines]
        hit = [spot for spot in spots if spot in sites]
        for spot in hit:
            covered[spot].add(finding.code)
        if not any(spot in traced or spot in sites for spot in spots):
            result.unjudged += 1
            continue
        if finding.guarded:
            result.guarded.append(finding)
            result.guarded_on_sites += bool(hit)
            continue
        result.precision.total += 1
        result.per_rule[finding.code].total += 1
        if hit:
            result.precision.hits += 1
            result.per_rule[finding.code].hits += 1
        else:
            result.false_positives.append(finding)
    for location, site in sorted(sites.items()):
        found = location in covered
        result.recall.total += 1
        result.recall.hits += found
        result.per_gb[site.gb_id].total += 1
        result.per_gb[site.gb_id].hits += found
        for code in covered.get(location, ()):
            result.rule_sites[code] += 1
        if not found:
            result.misses.append(site)
    return result

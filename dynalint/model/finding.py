"""Value types shared by every stage of the pipeline.

Findings are produced by rules (lint stage) and by the engine for bad input (DYN9xx), filtered by the
engine (suppressions, selection), judged by ``--verify`` (a ``Verdict`` each) and formatted by
reporters. Everything here is frozen and 1-based, so that later stages only read. Nothing in this
module imports another dynalint module.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Confidence(str, enum.Enum):
    """How sure a finding is that its line runs under ``torch.compile`` and breaks there."""

    CERTAIN = "certain"  # resolved API inside a function reached from a compile entry point
    LIKELY = "likely"  # region inferred (an un-compiled ``forward``) or a heuristic receiver

    def at_least(self, floor: Confidence) -> bool:
        """Whether this confidence meets ``floor`` (``--min-confidence``): ``certain`` meets both."""
        order = (Confidence.LIKELY, Confidence.CERTAIN)
        return order.index(self) >= order.index(floor)


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column."""

    line: int
    column: int


@dataclass(frozen=True)
class ChainLink:
    """One step of the why-chain that explains why a line is compiled."""

    filename: str
    line: int
    function: str
    how: str  # e.g. "@torch.compile", "torch.compile(model)", "called", "forward of Block"
    cell: int | None = None  # the notebook cell ``line`` counts in (1-based); ``None`` in a ``.py`` file
    via: str = ""  # reached by dynamic dispatch through this expression (``self.processor``)


@dataclass(frozen=True)
class Region:
    """Why a function counts as compiled, and how sure we are."""

    function: str  # qualified name inside its module, e.g. ``Model.forward``
    confidence: Confidence
    chain: tuple[ChainLink, ...]
    fullgraph: bool = False  # the entry point's ``torch.compile(fullgraph=True)``
    entry: str = ""  # module-qualified name of the entry function (what ``--verify`` compiles)

    def describe(self) -> str:
        """The text reporter's ``compiled via:`` line."""
        if not self.chain:
            return self.function
        head = self.chain[0]
        parts = [f"{head.filename}:{in_cell(head.cell)}{head.line} {head.how}",
                 *(f"{link.via} ({link.function})" if link.via else link.function for link in self.chain)]
        return " -> ".join(parts)


@dataclass(frozen=True)
class Verdict:
    """What ``--verify`` concluded about one finding (the ``verify`` object of the JSON output).

    ``verdict`` is ``confirmed``, ``refuted``, ``not reached`` or ``unverifiable``. At most one of the
    optional fields is set: ``reason`` (refuted: the inputs; not reached, unverifiable: why), ``matches_rule`` (a confirmed
    finding: an observed GB id is one of the rule's; when it is not, ``reason`` says which ids the page gave and
    which this torch broke with), ``observed_in`` (a break no rule predicted), with ``break_in`` where that break's
    innermost frame is in a file not linted.
    """

    verdict: str
    gb_ids: tuple[str, ...] = ()
    reason: str | None = None
    matches_rule: bool | None = None
    observed_in: str | None = None
    # A break no rule predicted whose innermost frame is in a file not linted (``pkg/utils/collate.py:120
    # (<dictcomp>)``): the finding stays on the caller's line, which the user can change.
    break_in: str | None = None
    # A break no rule predicted: Dynamo's own explanation and hints for it.
    explanation: str | None = None
    hints: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The JSON object, with only the fields this verdict sets (``gb_ids`` always)."""
        shown: dict[str, object] = {"verdict": self.verdict, "gb_ids": list(self.gb_ids)}
        for key in ("reason", "matches_rule", "observed_in", "break_in", "explanation"):
            value = getattr(self, key)
            if value is not None:
                shown[key] = value
        if self.hints:
            shown["hints"] = list(self.hints)
        return shown


class Applicability(str, enum.Enum):
    """How far a fix may be trusted (ruff's terms): ``--fix`` applies safe fixes, ``--unsafe-fixes`` adds the
    unsafe ones, and display-only fixes are shown, never applied."""

    SAFE = "safe"  # eager and compiled behaviour kept
    UNSAFE = "unsafe"  # eager behaviour kept; what the compiled program does changes (it no longer prints)
    DISPLAY_ONLY = "display-only"  # a suggestion a person must check


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text from ``start`` up to (not including) ``end`` with ``content``; 1-based positions
    in the file (``start == end`` inserts)."""

    start: Position
    end: Position
    content: str

    def as_dict(self) -> dict[str, object]:
        """The JSON object, in ruff's field names."""
        return {"content": self.content, "location": {"row": self.start.line, "column": self.start.column},
                "end_location": {"row": self.end.line, "column": self.end.column}}


@dataclass(frozen=True)
class Fix:
    """A finding's fix: edits of its own file, applied together or not at all."""

    applicability: Applicability
    message: str  # what the fix does, one line ("guard the call with `if not torch.compiler.is_compiling():`")
    edits: tuple[Edit, ...]

    def as_dict(self) -> dict[str, object]:
        return {"applicability": self.applicability.value, "message": self.message,
                "edits": [edit.as_dict() for edit in self.edits]}


@dataclass(frozen=True)
class TorchTarget:
    """The torch a finding is for: the target (``target-torch``, else the installed torch, the project's pin
    or the newest measured release) and the measured release that speaks for it (``model/torch_releases.py``)."""

    target: str
    measured: str

    def as_dict(self) -> dict[str, str]:
        return {"target": self.target, "measured": self.measured}


@dataclass(frozen=True)
class Finding:
    """One diagnostic: a rule's report or a DYN9xx problem with the input."""

    code: str
    name: str
    message: str
    filename: str
    start: Position
    end: Position
    help: str = ""
    confidence: Confidence = Confidence.CERTAIN
    gb_ids: tuple[str, ...] = ()
    region: Region | None = None
    verify: Verdict | None = field(default=None, compare=False)  # set by ``--verify``
    cell: int | None = None  # a notebook's cell (1-based, ruff's ``cell``), whose lines ``start`` and ``end`` count
    fix: Fix | None = field(default=None, compare=False)  # set by a rule that can rewrite the code
    # Which of its rule's patterns the finding is (``Report.pattern``): what the version table is keyed by.
    pattern: str = field(default="", compare=False)
    torch: TorchTarget | None = field(default=None, compare=False)  # set by the selection stage
    # A certain break in a loop's body or a ``try`` where Dynamo gives up the function's frame and runs the
    # rest of it eagerly (set by the lint stage; read by the program post-pass, DYN507).
    gives_up_frame: bool = field(default=False, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.filename, self.cell or 0, self.start.line, self.start.column, self.code)


def in_cell(cell: int | None) -> str:
    """``"cell 3:"`` before a line number in a notebook (ruff's ``nb.ipynb:cell 3:4:5``), else nothing."""
    return "" if cell is None else f"cell {cell}:"

"""The ``Rule`` base class: declarative metadata plus ``report()``; the lint stage's unit of checking.

Its identity (``code``, ``name``), its text (``message``, ``help``) and what it predicts (``gb_ids``,
the ``torch`` range) are class attributes; the Dynamo settings under which it does not apply are read
from ``self.context.settings`` where the rule decides, and stated on its page. Its ``visit_*`` and
``leave_*`` methods, which the engine's one walk calls for every rule (``engine._Walker``; a rule is not
a LibCST visitor of its own), call ``self.report(node, **fields)`` and nothing else:
region gating, suppressions, selection, positions and sorting belong to the engine, so a rule is only
the pattern. ``self.context`` (``regions.LintContext``) answers "where am I compiled", "what kind of
value is this" and "what does this name resolve to".
"""

from __future__ import annotations

import re
import sys

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.instances import LocalConstructions, is_self
from dynalint.lint.rewrites import Rewrite, is_tensor_arithmetic
from dynalint.model.finding import Applicability, Confidence, Region
from dynalint.model.selection import DOCS_URL

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

# The ``Rule.hazard`` kinds that are graph breaks (on every rank, or on some): what a break proves
# (``--verify``) and what the program post-pass reads as a callee breaking (``pipeline/callee_breaks.py``).
BREAK_HAZARDS = frozenset({"break", "rank-divergence"})


@dataclass(frozen=True)
class Report:
    """What a rule said about a node, before the engine gives it a position and a region."""

    rule: type[Rule]
    node: cst.CSTNode
    message: str
    confidence: Confidence
    region: Region | None
    skips_frame: bool = False  # a break here gives up the frame (``LintContext.skips_frame_at``)
    rewrite: Rewrite | None = None  # the rule's fix, as LibCST (``rewrites.py``)
    # The GB ids of the pattern found, where a rule's patterns break with different ids (a slice bound
    # GB0124, a 0-d index GB0033); ``None``: the rule's ``gb_ids``.
    gb_ids: tuple[str, ...] | None = None
    # Which of the rule's patterns this is, where patterns differ between torch releases (a call rule's
    # callee, ``torch.distributed.reduce_scatter``); "" for the rule as a whole (``model/torch_releases.py``).
    pattern: str = ""
    # The statement whose line Dynamo gives the break when it is not the node's own: CPython places the jump
    # of ``if (\n    t.any()\n):`` on the ``if`` line (a comparison's jump keeps the comparison's line).
    # The finding then starts at the statement, where the node starts on another line.
    statement: cst.CSTNode | None = None
    # A call whose break happens in the callee's own frame (``optimizer.step()`` calls
    # ``torch._dynamo.graph_break()``): Dynamo compiles that frame even where it runs the caller eagerly, so
    # the break is never hidden as a follow-on of a break that gave the caller up.
    breaks_in_callee_frame: bool = False


# A comprehension runs as a frame of its own up to Python 3.11; from 3.12 it is inlined into its function
# (PEP 709): what DYN111 and DYN112 warn of needs that frame (``Rule.applies_here``).
COMPREHENSION_FRAMES = sys.version_info < (3, 12)


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]  # one line; ``str.format`` placeholders filled from ``report(**fields)``
    help: ClassVar[str]
    gb_ids: ClassVar[tuple[str, ...]] = ()
    torch: ClassVar[str] = ">=2.4"
    default: ClassVar[bool] = True
    confidence: ClassVar[Confidence] = Confidence.CERTAIN
    # What goes wrong: "break" (a graph break), or a hazard that is not one: "recompile",
    # "rank-divergence" (a break on some ranks only), "stale-value" (a value folded into the graph).
    hazard: ClassVar[str] = "break"
    # ``False`` where what the rule warns of cannot happen on the Python running dynalint (DYN111 and
    # DYN112 from Python 3.12 on, where comprehensions are inlined): the rule stays silent, and its page's
    # Examples show nothing there.
    applies_here: ClassVar[bool] = True
    # Codes of weaker rules whose findings this rule's finding covers: where both fire on one spot,
    # the engine keeps this one (``overlaps.py``). Rules never look at each other to stay silent.
    supersedes: ClassVar[tuple[str, ...]] = ()
    # The fix the rule offers where it can (its page's ``Fix:`` and "## Fix" section), or ``None``.
    fix: ClassVar[Applicability | None] = None

    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.reports: list[Report] = []

    def report(
        self, node: cst.CSTNode, *, confidence: Confidence | None = None, region: Region | None = None,
        rewrite: Rewrite | None = None, gb_ids: tuple[str, ...] | None = None, pattern: str = "",
        statement: cst.CSTNode | None = None, breaks_in_callee_frame: bool = False, gives_up_frame: bool = False,
        **fields: object,
    ) -> None:
        """Report ``node``. ``gives_up_frame``: this break gives the function up wherever it is, not only in a loop
        or a ``try`` (a mutated generator Dynamo cannot rebuild to resume: GB8335)."""
        self.reports.append(
            Report(
                rule=type(self),
                node=node,
                message=self.message.format(**fields) if fields else self.message,
                confidence=confidence or self.confidence,
                region=region or self.context.region,
                skips_frame=self.context.skips_frame_at(node) or gives_up_frame,
                rewrite=rewrite,
                gb_ids=gb_ids,
                pattern=pattern,
                statement=statement,
                breaks_in_callee_frame=breaks_in_callee_frame,
            )
        )

    # A rule that judges other rules' reports (rank divergence) overrides this; the engine then runs
    # every break rule on the function, selected or not, and calls it once their walk is over.
    reads_reports: ClassVar[bool] = False
    # A break that happens because Dynamo runs the function eagerly (after a break in a loop gave up the
    # frame): never hidden as a follow-on of that break (``engine._without_follow_ons``).
    caused_by_eager_frame: ClassVar[bool] = False

    def after(self, reports: list[Report]) -> None:
        """The post-pass: every other rule's reports on the function just walked, in catalogue order."""

    def other_breaks(self, reports: list[Report]) -> list[Report]:
        """For a post-pass: the reports of the rules, other than this one, whose hazard is a graph break."""
        return [r for r in reports if r.rule.gb_ids and r.rule.hazard == "break" and r.rule is not type(self)]

    @staticmethod
    def resting_on(reports: list[Report]) -> Confidence:
        """How sure a finding resting on ``reports`` can be: ``likely`` if any of them is."""
        return Confidence.LIKELY if any(r.confidence is Confidence.LIKELY for r in reports) else Confidence.CERTAIN

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(code=cls.code, name=cls.name)


class CallRule(Rule):
    """A rule that flags calls resolving to a fixed set of qualified names (most side-effect rules).

    Subclasses set ``calls`` and may override ``applies`` for settings or argument checks; the message
    gets ``{call}``, the name as resolved (``time.perf_counter()``).
    """

    calls: ClassVar[frozenset[str]] = frozenset()

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved in self.calls and self.applies(node, resolved):
            self.report(node, rewrite=self.rewrite(node, resolved), pattern=resolved,
                        call=f"{resolved.removeprefix('builtins.')}()")

    def applies(self, node: cst.Call, resolved: str) -> bool:
        return True

    def rewrite(self, node: cst.Call, resolved: str) -> Rewrite | None:
        """The fix of one flagged call, where the rule has one (``fix`` says which kind)."""
        return None


class TensorArithmeticRule(Rule):
    """A rule whose fix keeps a value read from a tensor a tensor where it is an operand of arithmetic with
    another tensor (``x * s.item()`` -> ``x * s``). On the way down it only notes each operand's other side;
    the other side's kind is asked for only where the rule reports (a nested 2,000-term sum asks nothing)."""

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._other_side: dict[int, tuple[cst.BinaryOperation, cst.BaseExpression]] = {}

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._other_side[id(node.left)] = (node, node.right)
        self._other_side[id(node.right)] = (node, node.left)

    def in_tensor_arithmetic(self, node: cst.CSTNode) -> bool:
        found = self._other_side.get(id(node))
        return found is not None and is_tensor_arithmetic(self.context, *found)


class LocalObjectRule(Rule):
    """A rule that knows some objects by what built them, locals of the function being linted included
    (``opt = torch.optim.Adam(...)``, ``bar = tqdm(...)``): ``self.locals`` follows each function's bindings.
    A subclass that defines these callbacks too calls them here first."""

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self.locals = LocalConstructions()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        self.locals.enter(p.name.value for p in named_parameters(params))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.locals.leave()

    def visit_Assign(self, node: cst.Assign) -> None:
        self.locals.bind(self.context, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.locals.bind(self.context, node)

    def declare_named_parameters(self, node: cst.FunctionDef, name: re.Pattern[str], marker: str) -> None:
        """Take the unannotated parameters of ``node`` whose name ``name`` finds as ``marker`` (a loader or an
        optimizer known only by how it is named: its findings are ``likely``)."""
        for param in named_parameters(node.params):
            if param.annotation is None and name.search(param.name.value):
                self.locals.declare(param.name.value, marker)

    # -- objects known by their names where frameworks hand them over (DYN509's optimizers, DYN510's loaders) ----
    def builds_a_class(self, call: cst.Call) -> bool:
        """A call that builds an instance of a class (``Wrapper(...)``), as opposed to a function's result: a
        factory's (``get_optimizer(...)``, ``none_throws(self.optimizer)``), a lookup's (skorch's
        ``getattr(self, name + "_")``) or a method's (``accelerator.prepare(optimizer)``)."""
        resolved = self.context.resolve(call.func)
        if resolved is None:
            written = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
            return isinstance(written, str) and written[:1].isupper()
        return resolved in self.context.program.classes or resolved.rpartition(".")[2][:1].isupper()

    def named_and_unbuilt(self, owner: cst.BaseExpression, pattern: re.Pattern[str], made: str | None) -> bool:
        """``owner`` (a local, an attribute or an item of a collection, ``written_name``) is held under a name
        ``pattern`` finds, and no class is known to build it: nothing is (``made`` is ``None``), or a function of
        the tree is (a factory's result)."""
        return bool(pattern.search(written_name(owner))) and (made is None or made in self.context.program.functions)


def written_name(node: cst.BaseExpression) -> str:
    """The name a value is held under: ``x`` for ``x``, ``attr`` for ``self.attr`` or ``strategy.attr`` (avalanche's
    plugins step ``strategy.optimizer``), the singular of a collection's name for one of its items
    (``optimizer`` for ``self.optimizers[uid]``, skrl's agents); empty for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        collection = written_name(node.value)
        return collection[:-1] if len(collection) > 1 and collection.endswith("s") else ""
    return ""

"""DYN304 ``rank-divergent-break``: a graph break that only some ranks take. Page: ``rules/DYN304-rank-divergent-break.md``.

Measured on torch 2.13 under the fake process group, the same program as rank 0 and rank 1: a
``print`` / ``logger.info`` / ``.item()`` / ``warnings.warn`` / ``dist.broadcast`` under
``if dist.get_rank() == 0:`` breaks on rank 0 only (2 graphs there, 1 on rank 1); under ``else:`` on
the other ranks only; after ``if dist.get_rank() != 0: return`` on rank 0 only. A branch on
``get_world_size()`` is taken alike on every rank (both ranks broke), so it is not a rank condition.
``if rank == 0: send(...) else: recv(...)`` breaks on every rank at the same point and is left alone.

What breaks is whatever another rule flags on a call. This rule only finds the rank-dependent arms;
it is a post-pass (``reads_reports``): once the function is walked, the engine hands it every break
rule's reports there (selected or not), and the calls among them that lie in those arms are its findings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

# Calls whose value differs between the ranks of one job. ``get_world_size`` is the same on all of them.
RANK_CALLS = frozenset(
    f"{prefix}{name}"
    for prefix in ("torch.distributed.", "torch.distributed.distributed_c10d.")
    for name in ("get_rank", "get_node_local_rank")
)


class _Arms:
    """The rank-dependent arms of one ``if`` (or of one block after an early exit)."""

    def __init__(self, arms: list[cst.CSTNode]) -> None:
        self.arms = arms
        self.both_sides = len(arms) == 2 and isinstance(arms[1], cst.Else)  # ``if rank ...: else:``


class RankDivergentBreak(Rule):
    code = "DYN304"
    name = "rank-divergent-break"
    message = "`{call}` breaks the graph only on the ranks that take this rank-dependent branch, so ranks compile and run different graphs"
    help = "Move the rank-dependent work out of the compiled function (return the value, act on it outside), or guard it with `not torch.compiler.is_compiling()`"
    hazard = "rank-divergence"

    reads_reports = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._rank_names: list[set[str]] = []  # locals holding the rank, per enclosing function
        self._groups: list[_Arms] = []  # every group of rank-dependent arms, in the order they begin
        self._blocks: list[cst.IndentedBlock] = []  # enclosing blocks, innermost last

    # -- where the rank comes from -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._rank_names.append(set())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._rank_names.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._rank_names and self._depends_on_rank(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._rank_names[-1].add(target.target.value)

    def _depends_on_rank(self, node: cst.CSTNode) -> bool:
        rank_names = self._rank_names[-1] if self._rank_names else set()
        return any(
            (type(n) is cst.Call and self.context.resolve(n.func) in RANK_CALLS)
            or (type(n) is cst.Name and n.value in rank_names)
            for n in descendants(node)
        )

    # -- which code only some ranks run --------------------------------------------------------
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.append(node)

    def visit_If(self, node: cst.If) -> None:
        if not self._depends_on_rank(node.test):
            return
        block = self._blocks[-1] if self._blocks else None
        position = next((i for i, s in enumerate(block.body) if s is node), None) if block is not None else None
        if node.orelse is None and _exits(node.body) and block is not None and position is not None:
            # ``if <rank test>: ... return`` makes the rest of the block rank-dependent too.
            rest = list(block.body[position + 1:])
            self._begin(block, _Arms([node.body, *rest]))
            return
        arms: list[cst.CSTNode] = [node.body]
        if node.orelse is not None:
            arms.append(node.orelse)
        self._begin(node, _Arms(arms))

    def _begin(self, owner: cst.CSTNode, arms: _Arms) -> None:
        self._groups.append(arms)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.pop()

    # -- the post-pass -------------------------------------------------------------------------
    def after(self, reports: list[Report]) -> None:
        breaking: dict[cst.Call, Report] = {}  # call -> the first report that says it breaks, in catalogue order
        for report in reports:
            if report.rule.gb_ids and isinstance(report.node, cst.Call):
                breaking.setdefault(report.node, report)
        reported: set[cst.Call] = set()  # a call inside nested rank branches is reported once
        for group in self._groups:
            per_arm = [[call for call in breaking if _contains(arm, call)] for arm in group.arms]
            if group.both_sides and all(per_arm):
                continue  # both sides of ``if rank ...: else:`` break: every rank breaks at the same point
            for call in (c for calls in per_arm for c in calls):
                if call not in reported:
                    reported.add(call)
                    found = breaking[call]
                    self.report(call, confidence=found.confidence, region=found.region,
                                call=f"{dotted_name(call.func) or 'call'}()")


def _exits(block: cst.BaseSuite) -> bool:
    body = getattr(block, "body", ())
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Return, cst.Raise)) for s in last.body)
    return False


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(inner is node for inner in descendants(tree))

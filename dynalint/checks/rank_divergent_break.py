"""DYN304 ``rank-divergent-break``: a graph break that only some ranks take. Page: ``rules/DYN304-rank-divergent-break.md``.

Measured on torch 2.13 under the fake process group, the same program as rank 0 and rank 1: a
``print`` / ``logger.info`` / ``.item()`` / ``warnings.warn`` / ``dist.broadcast`` under
``if dist.get_rank() == 0:`` breaks on rank 0 only (2 graphs there, 1 on rank 1); under ``else:`` on
the other ranks only; after ``if dist.get_rank() != 0: return`` on rank 0 only. A branch on
``get_world_size()`` is taken alike on every rank (both ranks broke), so it is not a rank condition.
``if rank == 0: send(...) else: recv(...)`` breaks on every rank at the same point and is left alone.

What breaks is whatever another rule flags on a call: this rule asks every break rule's
``visit_Call`` (their tables and settings, not a copy of them) about each call inside a
rank-dependent branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.finding import Confidence
from dynalint.names import cst_dotted
from dynalint.rule import Rule

if TYPE_CHECKING:
    from dynalint.regions import LintContext

# Calls whose value differs between the ranks of one job. ``get_world_size`` is the same on all of them.
RANK_CALLS = frozenset(
    f"{prefix}{name}"
    for prefix in ("torch.distributed.", "torch.distributed.distributed_c10d.")
    for name in ("get_rank", "get_node_local_rank")
)


class _Arms:
    """The rank-dependent arms of one ``if`` (or of one block after an early exit) and the breaking calls in each."""

    def __init__(self, arms: list[cst.CSTNode]) -> None:
        self.arms = arms
        self.breaks: list[list[tuple[cst.Call, Confidence]]] = [[] for _ in arms]


class RankDivergentBreak(Rule):
    code = "DYN304"
    name = "rank-divergent-break"
    message = "`{call}` breaks the graph only on the ranks that take this rank-dependent branch, so ranks compile and run different graphs"
    help = "Move the rank-dependent work out of the compiled function (return the value, act on it outside), or guard it with `not torch.compiler.is_compiling()`"
    hazard = "rank-divergence"

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        from dynalint.checks import ALL_RULES  # at run time: the catalogue imports this module

        self._breakers = [rule(context) for rule in ALL_RULES if rule.gb_ids and _visits_calls(rule)]
        self._rank_names: list[set[str]] = []  # locals holding the rank, per enclosing function
        self._open: list[_Arms] = []
        self._closing: dict[int, list[_Arms]] = {}  # node that ends groups of arms -> the groups
        self._reported: set[int] = set()  # a call inside nested rank branches is reported once
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
        if isinstance(node, cst.Call) and self.context.resolve(node.func) in RANK_CALLS:
            return True
        if isinstance(node, cst.Name) and self._rank_names and node.value in self._rank_names[-1]:
            return True
        return any(self._depends_on_rank(child) for child in node.children)

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
        self._open.append(arms)
        self._closing.setdefault(id(owner), []).append(arms)

    def visit_Call(self, node: cst.Call) -> None:
        confidence = self._breaks(node) if self._open else None
        if confidence is None:
            return
        for group in self._open:
            for index, arm in enumerate(group.arms):
                if _contains(arm, node):
                    group.breaks[index].append((node, confidence))
                    break

    def leave_If(self, node: cst.If) -> None:
        self._close(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.pop()
        self._close(node)

    def _close(self, owner: cst.CSTNode) -> None:
        for group in self._closing.pop(id(owner), ()):
            self._open.remove(group)
            if all(group.breaks) and len(group.arms) == 2 and isinstance(group.arms[1], cst.Else):
                continue  # both sides of ``if rank ...: else:`` break: every rank breaks at the same point
            for call, confidence in (c for calls in group.breaks for c in calls):
                if id(call) not in self._reported:
                    self._reported.add(id(call))
                    self.report(call, confidence=confidence, call=f"{cst_dotted(call.func) or 'call'}()")

    def _breaks(self, node: cst.Call) -> Confidence | None:
        """The confidence with which another rule flags this call as a graph break, here, under the current settings."""
        for rule in self._breakers:
            before = len(rule.reports)
            try:
                rule.visit_Call(node)  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001  (its state is fed by visits it does not get here: no answer)
                del rule.reports[before:]
                continue
            if len(rule.reports) > before:
                confidence = rule.reports[before].confidence
                del rule.reports[before:]
                return confidence
        return None


def _visits_calls(rule: type[Rule]) -> bool:
    """The rule defines ``visit_Call`` itself (every LibCST visitor inherits a no-op one)."""
    return any("visit_Call" in vars(cls) for cls in rule.__mro__ if issubclass(cls, Rule))


def _exits(block: cst.BaseSuite) -> bool:
    body = getattr(block, "body", ())
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Return, cst.Raise)) for s in last.body)
    return False


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    if tree is node:
        return True
    return any(_contains(child, node) for child in tree.children)

"""Lint stage, for the region provider: whether a break inside a loop's body makes Dynamo give up the frame.

``regions.LintContext.skips_frame_at`` asks it when a rule reports a break inside a ``for`` or ``while``.

Dynamo cannot resume in the middle of a loop, so at a graph break it first asks whether the break is in
one, by a heuristic (``InstructionTranslatorBase.maybe_has_backedge``, torch 2.13): it scans the bytecode
from the breaking instruction onward and answers yes at the first jump backward, no at the first
``RETURN_VALUE``. A ``return`` written after the break in the loop's body therefore makes Dynamo take the
break as one outside any loop: it compiles the graph so far and resumes after the break, and later
breaks in the function happen too. Measured on torch 2.13 with Python 3.11 (``tests/test_loop_exits.py``):
a ``return`` after the break in the body, in an ``if`` there, or in an inner loop's body is reached before
the loop's jump back; a ``continue`` before it is a jump back; and an ``if`` whose body falls through to
the end of the loop's body jumps straight back there when it has an ``else`` (CPython threads the jump
over the ``else`` into the loop's own jump back), so a ``return`` in that ``else`` comes too late.

The scan is read from the source: the statements and expressions of the body in the order CPython lays out
their bytecode, each node numbered before its children, each ``return`` numbered after its value.
"""

from __future__ import annotations

from bisect import bisect_right

import libcst as cst

from dynalint.analysis.cst_walk import children

_NESTED_FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)  # their code is another code object
_NO_FALL_THROUGH = (cst.Return, cst.Continue, cst.Break, cst.Raise)


def returns_before_backedge(loop: cst.For | cst.While) -> dict[int, bool]:
    """The id of each node of ``loop``'s body -> whether Dynamo's scan from a break there meets a ``return``
    before a jump backward (``True``: the break does not give up the frame)."""
    walk = _Walk()
    walk.block(loop.body, tail=True)
    positions = [position for position, _ in walk.events]
    return {node: (index := bisect_right(positions, position)) < len(walk.events) and walk.events[index][1]
            for node, position in walk.positions.items()}


class _Walk:
    """Numbers the nodes of a loop's body in bytecode order and records where a ``return`` (``True``) or a
    jump backward (``False``) stands between them."""

    def __init__(self) -> None:
        self.positions: dict[int, int] = {}
        self.events: list[tuple[int, bool]] = []
        self._count = 0

    def _number(self, node: cst.CSTNode) -> None:
        self.positions[id(node)] = self._count
        self._count += 1

    def _event(self, is_return: bool) -> None:
        self.events.append((self._count, is_return))
        self._count += 1

    def block(self, block: cst.BaseSuite | None, tail: bool) -> None:
        """The statements of a block; ``tail``: what follows the block is the loop's jump back."""
        if block is None:
            return
        statements = list(block.body) if isinstance(block, cst.IndentedBlock) else [block]
        for index, statement in enumerate(statements):
            self.node(statement, tail and index == len(statements) - 1)

    def node(self, node: cst.CSTNode, tail: bool = False) -> None:
        self._number(node)
        if isinstance(node, _NESTED_FRAMES):
            return
        if isinstance(node, (cst.For, cst.While)):  # an inner loop: its own jump back ends its body
            header = node.iter if isinstance(node, cst.For) else node.test
            self.node(header)
            self.block(node.body, tail=True)
            self._event(False)
            if node.orelse is not None:
                self.block(node.orelse.body, tail)
            return
        if isinstance(node, cst.If):
            self.node(node.test)
            self.block(node.body, tail)
            if node.orelse is not None:
                if tail and _falls_through(node.body):
                    self._event(False)  # the jump over the ``else``, threaded into the loop's jump back
                orelse = node.orelse
                if isinstance(orelse, cst.If):
                    self.node(orelse, tail)
                else:
                    self.block(orelse.body, tail)
            return
        if isinstance(node, cst.Continue):
            self._event(False)
            return
        for child in children(node):
            if isinstance(child, cst.BaseSuite):
                self.block(child, tail=False)  # ``with`` and ``try`` bodies: their exits come after
            else:
                self.node(child)
        if isinstance(node, cst.Return):
            self._event(True)


def _falls_through(block: cst.BaseSuite) -> bool:
    """Whether the block's last statement lets control run on past its end."""
    last = block.body[-1] if isinstance(block, cst.IndentedBlock) and block.body else block
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return not any(isinstance(small, _NO_FALL_THROUGH) for small in last.body)
    return True

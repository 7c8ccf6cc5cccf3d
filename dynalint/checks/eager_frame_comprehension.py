"""DYN112 ``eager-frame-comprehension``: a comprehension in a function that Dynamo runs eagerly.

Page: ``rules/DYN112-eager-frame-comprehension.md``. Measured on torch 2.13 with Python 3.11: a graph
break inside a ``for`` or ``while`` loop makes Dynamo give up the whole frame ("graph break in loop": it
runs the function eagerly, no graph at all; a break in a ``try`` keeps the graph before it). On Python
3.11 and older a list, set or dict comprehension is a function of its own, so the eager frame calls it
and Dynamo compiles that call as a new frame, handed the iterator of the loop as its argument. It cannot
step a list iterator, a dict view's, a ``zip``, ``enumerate``, ``reversed`` or ``parameters()`` iterator
("Missing tp_iternext", GB4347) and breaks at once, on the comprehension's line. A tuple's, a ``range``'s
or a tensor's iterator it steps, and it never compiles a comprehension whose code names no ``torch`` (or
numpy) module and holds no tensor or ``nn.Module`` (``has_tensor_in_frame``). Python 3.12 inlines
comprehensions (PEP 709), so there the rule is silent.

A post-pass (``reads_reports``): the frame-giving-up break is whatever another rule reports inside a
loop's body on every path through it (``LintContext.skips_frame``, within a ``for`` or ``while``), which
makes every comprehension of the function after its last resume point run in the eager frame (its start, or
the last certain break before the loop, measured: the graph before that one is kept), or reports as giving the
frame up elsewhere (in a ``try``, measured: the graph before it is kept), which makes those after it do so. Its
findings are never follow-ons of that break (``caused_by_eager_frame``): they happen because the frame
runs eagerly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import children, descendants, names_read
from dynalint.analysis.instances import is_nn_module
from dynalint.model.finding import Confidence
from dynalint.lint.rule import COMPREHENSION_FRAMES, Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

Comprehension = cst.ListComp | cst.SetComp | cst.DictComp

# ``torch`` and the submodules a module-level name may be bound to (``import torch.nn.functional as F``);
# a name bound to a function of them (``from torch import cat``) does not make Dynamo compile the frame.
TORCH_SUBMODULES = frozenset({
    "nn", "functional", "init", "utils", "parametrize", "parametrizations", "rnn", "fft", "linalg", "special",
    "distributed", "distributions", "autograd", "cuda", "optim", "jit", "sparse", "nested", "func", "amp",
    "backends", "compiler", "fx", "random", "masked", "checkpoint", "data", "modules",
})
NUMPY = frozenset({"numpy", "numpy.linalg", "numpy.random", "numpy.fft"})
# Iterables whose iterator Dynamo steps: a tuple's (``x.split(n)``, ``x.shape``), a range's.
TUPLE_BUILDERS = frozenset({"builtins.range", "builtins.tuple"})
TUPLE_METHODS = frozenset({"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit"})


def is_module_name(qualified: str | None) -> bool:
    """Whether ``qualified`` names ``torch``, a submodule of it, or numpy (what ``has_tensor_in_frame`` looks for)."""
    if qualified is None:
        return False
    if qualified in NUMPY or qualified == "torch":
        return True
    head, _, rest = qualified.partition(".")
    return head == "torch" and all(part in TORCH_SUBMODULES for part in rest.split("."))


class EagerFrameComprehension(Rule):
    code = "DYN112"
    name = "eager-frame-comprehension"
    message = ("A graph break in a loop or a `try` of `{function}` makes Dynamo run it eagerly; it then compiles "
               "this comprehension on its own and breaks here at once (it cannot step the iterator it is handed)")
    help = ("Fix the break that gives the function up, so that it compiles whole, or write the comprehension as a "
            "`for` loop")
    gb_ids = ("GB4347",)
    applies_here = COMPREHENSION_FRAMES

    reads_reports = True
    caused_by_eager_frame = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._functions: list[cst.FunctionDef] = []
        self._depth = 0  # comprehensions and generator expressions open around the node visited
        self._noted: list[tuple[Comprehension, cst.FunctionDef]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._note(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._note(node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._note(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._depth += 1

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._depth -= 1

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._depth -= 1

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._depth -= 1

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._depth -= 1

    def _note(self, node: Comprehension) -> None:
        self._depth += 1
        if (COMPREHENSION_FRAMES and self._depth == 1 and self._functions and self.context.region is not None
                and not self._steps_iterator(node.for_in.iter) and self._dynamo_compiles(node)):
            self._noted.append((node, self._functions[-1]))

    def _steps_iterator(self, iterable: cst.BaseExpression) -> bool:
        """Whether Dynamo can step the iterator of ``iterable``: a tuple's, a range's or a tensor's."""
        if isinstance(iterable, cst.Tuple):
            return True
        if isinstance(iterable, cst.Attribute) and iterable.attr.value == "shape":
            return True
        if isinstance(iterable, cst.Call):
            func = iterable.func
            if self.context.resolve(func) in TUPLE_BUILDERS:
                return True
            if isinstance(func, cst.Attribute) and (func.attr.value in TUPLE_METHODS
                                                    or (func.attr.value == "size" and not iterable.args)):
                return True
        return self.context.kind(iterable).is_tensor_like

    def _dynamo_compiles(self, node: Comprehension) -> bool:
        """Whether Dynamo compiles the comprehension's own frame: its code names a ``torch`` or numpy module,
        or it reads a tensor or an ``nn.Module`` of the enclosing function (``self`` of a module)."""
        targets = {name for loop in _loops(node) for name in names_read(loop.target)}
        parts: list[cst.CSTNode] = [node.elt] if not isinstance(node, cst.DictComp) else [node.key, node.value]
        for index, loop in enumerate(_loops(node)):
            parts += list(loop.ifs)
            if index:
                parts.append(loop.iter)
        for name in {n for part in parts for n in names_read(part)} - targets:
            reference = cst.Name(name)
            if is_module_name(self.context.resolve(reference)):
                return True
            if name == "self" and is_nn_module(self.context, reference):
                return True
            if self.context.kind(reference).is_tensor_like:
                return True
        return False

    def after(self, reports: list[Report]) -> None:
        if not self._noted:
            return
        giving_up = [r for r in self.other_breaks(reports) if r.skips_frame and r.region is not None]
        if not giving_up:
            return
        breaking = [r for r in self.other_breaks(reports) if r.confidence is Confidence.CERTAIN]
        # id of a function -> (id of each node of its own -> source order, ids of the nodes in its own loops' bodies)
        walked: dict[int, tuple[dict[int, int], set[int]]] = {}
        for comprehension, function in self._noted:
            order, own = walked.setdefault(id(function), _own_nodes(function))
            inside = {id(n) for n in descendants(comprehension)}
            at = order.get(id(comprehension), -1)
            # A break in a loop gives up the function from where it last resumed (its start, or the last certain
            # break before the loop: the graph before that one is kept, measured); one that gives it up elsewhere
            # (in a ``try``) keeps the graph before it. Only the comprehensions after that point run eagerly.
            triggers = [r for r in giving_up if id(r.node) not in inside and (
                (id(r.node) in own and _resumed_before(order, own, breaking, order.get(id(r.node), -1)) < at)
                or -1 < order.get(id(r.node), -1) < at)]
            if not triggers or any(id(r.node) in inside for r in self.other_breaks(reports)):
                continue  # no break gives up this frame, or the body breaks itself (its own finding)
            self.report(comprehension, confidence=Confidence.LIKELY, region=triggers[0].region,
                        function=function.name.value)


def _resumed_before(order: dict[int, int], in_loops: set[int], breaking: list[Report], at: int) -> int:
    """Where the function last resumed before the node at ``at``: the place of the last certain break of its own
    before it, outside its loops (Dynamo keeps the graph up to there and compiles the rest as a resume function);
    ``-1`` for its start."""
    return max((order[id(r.node)] for r in breaking if id(r.node) in order and id(r.node) not in in_loops
                and order[id(r.node)] < at), default=-1)


def _loops(node: Comprehension) -> list[cst.CompFor]:
    """The comprehension's ``for`` clauses, outermost first."""
    loops: list[cst.CompFor] = []
    loop: cst.CompFor | None = node.for_in
    while loop is not None:
        loops.append(loop)
        loop = loop.inner_for_in
    return loops


def _own_nodes(function: cst.FunctionDef) -> tuple[dict[int, int], set[int]]:
    """``function``'s own nodes (not those of the functions, lambdas and classes nested in it): the id of each ->
    its place in source order (a node before its children, a statement before the next), and the ids of those in
    the bodies of its ``for`` and ``while`` loops."""
    order: dict[int, int] = {}
    in_loops: set[int] = set()
    pending: list[tuple[cst.CSTNode, bool]] = [(child, False) for child in reversed(list(children(function.body)))]
    while pending:
        current, in_loop = pending.pop()
        if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        order[id(current)] = len(order)
        if in_loop:
            in_loops.add(id(current))
        loop_body = current.body if isinstance(current, (cst.For, cst.While)) else None
        pending.extend((child, in_loop or child is loop_body) for child in reversed(list(children(current))))
    return order, in_loops

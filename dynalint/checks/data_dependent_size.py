"""DYN109 ``data-dependent-size``: a size taken from a tensor's values. Page: ``rules/DYN109-data-dependent-size.md``.

A factory (``torch.arange(n)``, ``torch.zeros(n, 2)``, ``x.new_full((n,), v)``) or a view
(``x.view(n, -1)``) given a tensor where it needs an int reads the tensor's value as a size. The places
that take sizes are data in ``torchapi`` (``SIZED_FACTORIES``, ``SIZED_METHODS``); only a tensor in one
of them is reported, never a tensor passed as a value (``torch.full((3,), t)``). A size read with
``int(t)`` first is DYN104's break, not this one: after it the size is a Python int. A slice of a tensor
(``x.new_ones(h[:2])``, a typo for ``h.shape[:2]``) is never a 0-d size: torch raises ``TypeError`` there,
eager or compiled, and Dynamo does not break, so it is not reported. Only a tensor computed while
Dynamo traces breaks: one that exists before the trace (a parameter of the function, an attribute of
``self`` or of an object it holds, a buffer) is read as a size when the graph is built, with no break
(measured on torch 2.13 for ``torch.zeros(t)`` with ``t`` an input, a buffer and a helper's attribute).
The same holds after this break: Dynamo resumes in a new frame that takes the tensor as an input, so a
later size read from it in the rest of the same block does not break again (measured:
``a = torch.arange(d)`` breaks, ``b = torch.arange(0, d)`` right after it does not). The other branch of
an ``if`` is not "later": it runs instead.

Nor does a one-element tensor made from Python numbers and sizes (``torch.tensor(x.size(0)) // 2``,
``torch.maximum(torch.tensor(1), torch.tensor(n))``, deepspeed's ``min(capacity, torch.tensor(...))``): Dynamo's
fake tensors carry the value of such a tensor through arithmetic on others like it, so the size is known while
it traces (measured on torch 2.13 for ``topk``, ``repeat``, ``narrow``, ``zeros`` and ``arange``). A tensor of
two elements or more made so, or one computed from another tensor's values, breaks.
"""

from __future__ import annotations

import libcst as cst

from typing import TYPE_CHECKING

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.instances import enclosing_class, is_self
from dynalint.analysis.torch_facts import SIZED_FACTORIES, SIZED_METHODS
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class DataDependentSize(Rule):
    code = "DYN109"
    name = "data-dependent-size"
    message = "`{call}` in compiled code takes a size from a tensor's values and breaks the graph"
    help = "Pass sizes as Python ints (from shapes, not values), or set `capture_scalar_outputs` and bound the size with `torch._check`"
    gb_ids = ("GB0033",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # Names of tensors that exist before the trace, per function: parameters, and names bound to one.
        self._parameters: list[set[str]] = [set()]
        # Per function, per block open in it: the tensors a break in that block made inputs of the frame
        # that resumes after it (a break dominates the rest of its block, not the other branch).
        self._resumed: list[list[set[str]]] = [[]]
        # Names of one-element tensors made from Python numbers, per function (``_made_from_numbers``).
        self._numbers: list[set[str]] = [set()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        self._parameters.append({p.name.value for p in named_parameters(params)})
        self._resumed.append([])
        self._numbers.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._parameters.pop()
        self._resumed.pop()
        self._numbers.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._resumed[-1].append(set())

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._resumed[-1].pop()

    def visit_For(self, node: cst.For) -> None:
        self._rebound(node.target)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            if isinstance(target.target, cst.Name) and self._before_the_trace(original_node.value):
                self._parameters[-1].add(target.target.value)  # ``n = self.lengths.max_len``
            elif isinstance(target.target, cst.Name) and self._made_from_numbers(original_node.value):
                self._rebound(target.target)
                self._numbers[-1].add(target.target.value)  # ``k = torch.tensor(x.size(0)) // 2``
            else:
                self._rebound(target.target)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._rebound(original_node.target)

    def _rebound(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._parameters[-1].discard(target.value)
            self._numbers[-1].discard(target.value)
            for block in self._resumed[-1]:
                block.discard(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._rebound(element.value)

    def _before_the_trace(self, size: cst.BaseExpression) -> bool:
        """A tensor that exists before Dynamo traces: a parameter, ``self.<...>``, or a name bound to one;
        a display or a conditional expression whose tensor parts all are (``(self.spans.longest,)``)."""
        if isinstance(size, (cst.Tuple, cst.List)):
            return all(self._not_traced_tensor(element.value) for element in size.elements)
        if isinstance(size, cst.IfExp):
            return self._not_traced_tensor(size.body) and self._not_traced_tensor(size.orelse)
        if isinstance(size, cst.Name):
            return size.value in self._parameters[-1] or any(size.value in block for block in self._resumed[-1])
        root = size
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(size, cst.Attribute) and isinstance(root, cst.Name) and root.value == "self"

    def _made_from_numbers(self, value: cst.BaseExpression) -> bool:
        """A one-element tensor whose value Dynamo knows while it traces: ``torch.tensor(n)`` (also ``as_tensor``,
        ``scalar_tensor``, ``x.new_tensor(n)``) of a Python number or size, or of a one-item display of one; a name
        bound to one; arithmetic, ``torch.maximum``/``minimum``/``clamp``..., builtin ``min``/``max`` or a cast of
        such tensors and Python numbers, at least one of them such a tensor."""
        if isinstance(value, cst.Name):
            return value.value in self._numbers[-1]
        if isinstance(value, cst.UnaryOperation):
            return self._made_from_numbers(value.expression)
        if isinstance(value, cst.BinaryOperation):
            return self._combines_numbers([value.left, value.right])
        if not isinstance(value, cst.Call):
            return False
        resolved = self.context.resolve(value.func)
        arguments = [a.value for a in value.args if not a.star]
        if resolved in _NUMBER_TENSORS or (isinstance(value.func, cst.Attribute) and value.func.attr.value == "new_tensor"):
            return len(arguments) >= 1 and self._a_number(arguments[0])
        if resolved in _COMBINING or (isinstance(value.func, cst.Name) and value.func.value in ("min", "max")):
            return self._combines_numbers(arguments)
        func = value.func
        return (isinstance(func, cst.Attribute) and func.attr.value in _CASTS and self._made_from_numbers(func.value)
                and all(not self.context.kind(a).is_data_dependent for a in arguments))

    def _combines_numbers(self, operands: list[cst.BaseExpression]) -> bool:
        made = [self._made_from_numbers(operand) for operand in operands]
        return any(made) and all(m or self._a_number(operand) for m, operand in zip(made, operands))

    def _a_number(self, value: cst.BaseExpression) -> bool:
        """A Python number or size (``n // 3``; ``x.size(0)`` or ``len(x)`` even where what ``x`` is is not known),
        or a one-item display of one."""
        if isinstance(value, (cst.List, cst.Tuple)):
            return len(value.elements) == 1 and self._a_number(value.elements[0].value)
        if isinstance(value, cst.BinaryOperation):
            return self._a_number(value.left) and self._a_number(value.right)
        return self.context.kind(value) in (Kind.CONST, Kind.META) or _a_size(value)

    def _not_traced_tensor(self, part: cst.BaseExpression) -> bool:
        return self._before_the_trace(part) or not self.context.kind(part).is_tensor_like

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.settings.capture_scalar_outputs:
            return
        func = node.func
        resolved = self.context.resolve(func)
        if resolved in SIZED_FACTORIES:
            self._check(node, f"{resolved}()", SIZED_FACTORIES[resolved])
        elif resolved is None and isinstance(func, cst.Attribute) and func.attr.value in SIZED_METHODS:
            receiver = self.context.kind(func.value)
            if self._of_a_plain_self(func):
                return  # ``self.expand(y)`` in a module: its attribute (an ``nn.Conv2d``), not ``Tensor.expand``
            if receiver.may_be_tensor and not (receiver is not Kind.TENSOR and _array_then_shape(node)):
                self._check(node, f"Tensor.{func.attr.value}()", SIZED_METHODS[func.attr.value])

    def _of_a_plain_self(self, func: cst.Attribute) -> bool:
        """``self.<name>`` in a method of a class that is no ``torch.Tensor`` subclass: ``self`` is no tensor."""
        if not is_self(func.value):
            return False
        cls = enclosing_class(self.context)
        return cls is not None and not self.context.program.is_tensor_subclass(cls)

    def _check(self, node: cst.Call, call: str, places: tuple[tuple[int, ...] | None, frozenset[str]]) -> None:
        positions, keywords = places
        sizes = [a.value for index, a in enumerate(a for a in node.args if a.keyword is None and not a.star)
                 if positions is None or index in positions]
        sizes += [a.value for a in node.args if a.keyword is not None and a.keyword.value in keywords]
        kinds = [self.context.kind(size) for size in sizes
                 if not _is_slice(size) and not self._before_the_trace(size) and not self._made_from_numbers(size)]
        tensor_kinds = [kind for kind in kinds if kind.is_tensor_like]
        if tensor_kinds:
            self.report(node, confidence=max(tensor_kinds).confidence, call=call)
            if self._resumed[-1]:  # the frame resumed after this break takes these tensors as inputs
                self._resumed[-1][-1].update(size.value for size in sizes if isinstance(size, cst.Name))


# What makes a one-element tensor from a Python number, and what combines such tensors into another (``_made_from
# _numbers``); ``.to(...)``, ``.long()`` and the like keep one.
_NUMBER_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})
_COMBINING = frozenset(f"torch.{name}" for name in (
    "maximum", "minimum", "max", "min", "clamp", "clip", "ceil", "floor", "round", "trunc", "abs", "add", "sub",
    "mul", "div", "floor_divide", "remainder"))
_CASTS = frozenset({"to", "long", "int", "float", "double", "ceil", "floor", "round", "abs", "clamp", "clip"})


def _a_size(value: cst.BaseExpression) -> bool:
    """``x.size(0)``, ``x.shape[1]``, ``x.numel()``, ``x.dim()`` or ``len(x)``: an int whatever ``x`` is."""
    if isinstance(value, cst.Subscript):
        return isinstance(value.value, cst.Attribute) and value.value.attr.value == "shape"
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    return (isinstance(func, cst.Attribute) and func.attr.value in ("size", "numel", "dim") and bool(value.args) == (
        func.attr.value == "size")) or (isinstance(func, cst.Name) and func.value == "len")


def _array_then_shape(node: cst.Call) -> bool:
    """``nx.reshape(a, (-1, 1))``: an argument, then a shape written as a tuple or a list. No tensor method
    takes sizes so (a tensor's ``reshape`` takes ints, or one shape alone): on a receiver not known to be a
    tensor this is a module's function given the array first (NumPy's, a backend's), not sizes."""
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    return len(positional) >= 2 and isinstance(positional[1], (cst.Tuple, cst.List))


def _is_slice(size: cst.BaseExpression) -> bool:
    """``t[a:b]``: a tensor of one or more dimensions, which no size argument accepts."""
    return isinstance(size, cst.Subscript) and any(isinstance(e.slice, cst.Slice) for e in size.slice)

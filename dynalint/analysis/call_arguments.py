"""Summarize stage, call arguments: which arguments of each call are Python values while Dynamo traces.

``seq2img(img, self.patch_size, hidden_states.shape)`` passes a shape, and
``self.pos_embed(shapes, max_txt_seq_len=text_seq_len)`` an int read from one (``text_seq_len =
encoder_hidden_states.shape[1]``). Whatever the callee's annotation says (``int | torch.Tensor``),
under Dynamo such an argument is a Python value: the program stage lets the arguments of every call
site in compiled code decide a parameter's kind (``Program.passed_python``), and the annotation decides
only for entry points.

The test is syntactic, on ``ast``, as the rest of the summarize stage, and follows the body in order:
constants, tensor metadata (``x.shape``, ``x.size(1)``, ``x.dim()``, ``len(...)``), arithmetic, indexing
and displays of those, and local names whose latest binding is one of those. A name bound to a call's
result, or to one element of it (``text_seq_len, _, mask = helper(x)``), is noted with the callee: the
program knows which functions of the tree return Python values in which elements
(``FunctionSummary.python_returns``). Anything else (a parameter, ``self.<attr>``) is not known to be
Python.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import META_ATTRIBUTES, META_METHODS

_PYTHON_BUILTINS = frozenset({"len", "max", "min", "abs", "round", "sum"})
_META_CALLS = META_METHODS - {"data_ptr", "type"}
_META_READS = META_ATTRIBUTES - {"training"}

Slot = int | str  # a positional argument's index, or a keyword argument's name
WHOLE = -1  # a call's whole result, where an element index would stand


@dataclass
class FunctionArguments:
    """What one function body has bound, so far, to Python values and to calls' results."""

    python_names: set[str] = field(default_factory=set)
    # Names whose latest binding is a call's result or one element of it: the callee as written and
    # the element (``WHOLE`` for the result itself), for the program to look up.
    returned: dict[str, tuple[str, int]] = field(default_factory=dict)
    # The elements every ``return`` so far gives a Python value in (``WHOLE``: a non-tuple value);
    # ``None`` before the first ``return``.
    python_returns: set[int] | None = None

    def is_python(self, node: ast.expr) -> bool:
        """Whether ``node`` is a Python value under Dynamo, by its syntax and the bindings so far."""
        kind = type(node)
        if kind is ast.Name:
            return node.id in self.python_names  # type: ignore[attr-defined]
        if kind is ast.Constant:
            return True
        if kind is ast.Attribute:
            return node.attr in _META_READS  # type: ignore[attr-defined]
        if kind is ast.Subscript:
            return self.is_python(node.value)  # type: ignore[attr-defined]
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute:
                return func.attr in _META_CALLS
            if type(func) is ast.Name and func.id in _PYTHON_BUILTINS:
                args = node.args  # type: ignore[attr-defined]
                return func.id == "len" or (bool(args) and all(self.is_python(a) for a in args))
            return False
        if kind is ast.BinOp:
            return self.is_python(node.left) and self.is_python(node.right)  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            return self.is_python(node.operand)  # type: ignore[attr-defined]
        if kind is ast.Tuple or kind is ast.List:
            return all(self.is_python(e) for e in node.elts)  # type: ignore[attr-defined]
        return False

    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        """``target = value`` (``value`` ``None``: bound by a ``for``, ``with`` or an augmented assignment
        to something that is not Python)."""
        if type(value) is ast.Call and (callee := dotted_name(value.func)):
            self._bind_result(target, callee)
            return
        python = value is not None and self.is_python(value)
        for name in _bound_names(target):
            self.returned.pop(name, None)
            if python:
                self.python_names.add(name)
            else:
                self.python_names.discard(name)

    def _bind_result(self, target: ast.expr, callee: str) -> None:
        if type(target) is ast.Name:
            self.python_names.discard(target.id)
            self.returned[target.id] = (callee, WHOLE)
            return
        elements = target.elts if type(target) is ast.Tuple or type(target) is ast.List else None
        for index, element in enumerate(elements or [target]):
            for name in _bound_names(element):
                self.python_names.discard(name)
                if elements is not None and type(element) is ast.Name:
                    self.returned[name] = (callee, index)
                else:
                    self.returned.pop(name, None)

    def call(self, node: ast.Call) -> tuple[tuple[Slot, ...], tuple[tuple[Slot, str, int], ...], bool]:
        """The call's arguments that are Python values, those that are a call's result (slot, callee,
        element), and whether it splats (``f(*args)``, ``f(**kwargs)``: which parameter gets what is
        not known)."""
        python: list[Slot] = []
        via: list[tuple[Slot, str, int]] = []
        splat = False
        for index, value in enumerate(node.args):
            if type(value) is ast.Starred:
                splat = True
            elif type(value) is ast.Name and value.id in self.returned:
                via.append((index, *self.returned[value.id]))
            elif self.is_python(value):
                python.append(index)
        for keyword in node.keywords:
            slot, value = keyword.arg, keyword.value
            if slot is None:
                splat = True
            elif type(value) is ast.Name and value.id in self.returned:
                via.append((slot, *self.returned[value.id]))
            elif self.is_python(value):
                python.append(slot)
        return tuple(python), tuple(via), splat

    def returns(self, value: ast.expr | None) -> None:
        """A ``return`` of ``value``: narrow the elements that are Python on every ``return``."""
        if type(value) is ast.Tuple:
            found = {index for index, element in enumerate(value.elts) if self.is_python(element)}
        else:
            found = {WHOLE} if value is not None and self.is_python(value) else set()
        self.python_returns = found if self.python_returns is None else self.python_returns & found

    def returned_elements(self) -> tuple[int, ...]:
        """The elements Python on every ``return`` (``WHOLE`` for the value itself), sorted."""
        return tuple(sorted(self.python_returns or ()))


def _bound_names(target: ast.expr) -> list[str]:
    if type(target) is ast.Name:
        return [target.id]
    if type(target) is ast.Tuple or type(target) is ast.List:
        return [name for element in target.elts for name in _bound_names(element)]
    if type(target) is ast.Starred:
        return _bound_names(target.value)
    return []

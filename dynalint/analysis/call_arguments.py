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
from collections.abc import Callable
from dataclasses import dataclass, field

from dynalint.analysis.qualified_names import ImportTable, dotted_name
from dynalint.analysis.torch_facts import BOOL_DTYPES, BOOL_PREDICATES, META_ATTRIBUTES, META_METHODS

_PYTHON_BUILTINS = frozenset({"len", "max", "min", "abs", "round", "sum"})
_META_CALLS = META_METHODS - {"data_ptr", "type"}
_META_READS = META_ATTRIBUTES - {"training"}

# Methods that keep a boolean mask a boolean mask: ``mask.view(b, n)``, ``mask.unsqueeze(-1)``.
_MASK_KEEPING_METHODS = frozenset({"view", "reshape", "unsqueeze", "squeeze", "expand", "expand_as", "flatten",
                                   "t", "transpose", "permute", "contiguous", "clone", "detach", "bool", "logical_not"})
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)

Slot = int | str  # a positional argument's index, or a keyword argument's name
WHOLE = -1  # a call's whole result, where an element index would stand


@dataclass
class FunctionArguments:
    """What one function body has bound, so far, to Python values, to boolean masks and to calls' results."""

    imports: ImportTable
    python_names: set[str] = field(default_factory=set)
    mask_names: set[str] = field(default_factory=set)  # latest binding made a boolean mask
    # Names whose latest binding is a call's result or one element of it: the callee as written and
    # the element (``WHOLE`` for the result itself), for the program to look up.
    returned: dict[str, tuple[str, int]] = field(default_factory=dict)
    # The elements every ``return`` so far gives a Python value in (``WHOLE``: a non-tuple value);
    # ``None`` before the first ``return``.
    python_returns: set[int] | None = None
    mask_returns: set[int] | None = None  # the same for boolean masks

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

    def is_mask(self, node: ast.expr) -> bool:
        """Whether ``node`` is a boolean mask by how it is made: a comparison of something that is not a
        Python value, a boolean predicate (``isnan``, ``logical_not``), ``dtype=torch.bool``, ``.bool()``,
        ``~`` / ``&`` / ``|`` of masks, a shape-keeping method of a mask, or a name last bound to one."""
        kind = type(node)
        if kind is ast.Name:
            return node.id in self.mask_names  # type: ignore[attr-defined]
        if kind is ast.Compare:
            return (len(node.ops) == 1 and isinstance(node.ops[0], _COMPARISONS)  # type: ignore[attr-defined]
                    and not self.is_python(node.left) and type(node.left) is not ast.Constant)  # type: ignore[attr-defined]
        if kind is ast.Subscript:  # indexing and slicing keep the dtype
            return self.is_mask(node.value)  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            return isinstance(node.op, ast.Invert) and self.is_mask(node.operand)  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            return isinstance(node.op, (ast.BitAnd, ast.BitOr)) and (  # type: ignore[attr-defined]
                self.is_mask(node.left) or self.is_mask(node.right))  # type: ignore[attr-defined]
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if any(k.arg == "dtype" and self.imports.resolve(dotted_name(k.value)) in BOOL_DTYPES
                   for k in node.keywords):  # type: ignore[attr-defined]
                return True
            if type(func) is ast.Attribute:
                resolved = self.imports.resolve(dotted_name(func))
                if resolved is not None:
                    return resolved.startswith("torch.") and resolved.rpartition(".")[2] in BOOL_PREDICATES
                return func.attr in ("bool",) or func.attr in BOOL_PREDICATES or (
                    func.attr in _MASK_KEEPING_METHODS and self.is_mask(func.value))
        return False

    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        """``target = value`` (``value`` ``None``: bound by a ``for``, ``with`` or an augmented assignment
        to something that is not Python)."""
        if type(value) is ast.Call and (callee := dotted_name(value.func)) and not (
                self.is_python(value) or self.is_mask(value)):
            self._bind_result(target, callee)
            return
        python = value is not None and self.is_python(value)
        mask = value is not None and not python and self.is_mask(value)
        for name in _bound_names(target):
            self.returned.pop(name, None)
            (self.python_names.add if python else self.python_names.discard)(name)
            (self.mask_names.add if mask else self.mask_names.discard)(name)

    def _bind_result(self, target: ast.expr, callee: str) -> None:
        if type(target) is ast.Name and self.is_mask(target if False else ast.Call()) if False else False:
            pass
        for name in _bound_names(target):
            self.mask_names.discard(name)
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

    def call(self, node: ast.Call) -> tuple[tuple[Slot, ...], tuple[tuple[Slot, str, int], ...], bool,
                                              tuple[Slot, ...]]:
        """The call's arguments that are Python values, those that are a call's result (slot, callee,
        element), whether it splats (``f(*args)``, ``f(**kwargs)``: which parameter gets what is not
        known), and the arguments that are boolean masks."""
        python: list[Slot] = []
        via: list[tuple[Slot, str, int]] = []
        masks: list[Slot] = []
        splat = False
        slots: list[tuple[Slot | None, ast.expr]] = [*enumerate(node.args)]
        slots += [(keyword.arg, keyword.value) for keyword in node.keywords]
        for slot, value in slots:
            if slot is None or type(value) is ast.Starred:
                splat = True
            elif type(value) is ast.Name and value.id in self.returned:
                via.append((slot, *self.returned[value.id]))
            elif self.is_python(value):
                python.append(slot)
            elif self.is_mask(value):
                masks.append(slot)
        return tuple(python), tuple(via), splat, tuple(masks)

    def returns(self, value: ast.expr | None) -> None:
        """A ``return`` of ``value``: narrow the elements that are Python (or masks) on every ``return``."""
        python = self._elements(value, self.is_python)
        masks = self._elements(value, self.is_mask)
        self.python_returns = python if self.python_returns is None else self.python_returns & python
        self.mask_returns = masks if self.mask_returns is None else self.mask_returns & masks

    @staticmethod
    def _elements(value: ast.expr | None, test: Callable[[ast.expr], bool]) -> set[int]:
        if type(value) is ast.Tuple:
            return {index for index, element in enumerate(value.elts) if test(element)}
        return {WHOLE} if value is not None and test(value) else set()

    def returned_elements(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The elements Python, and those that are masks, on every ``return`` (``WHOLE``: the value itself)."""
        return tuple(sorted(self.python_returns or ())), tuple(sorted(self.mask_returns or ()))


def _bound_names(target: ast.expr) -> list[str]:
    if type(target) is ast.Name:
        return [target.id]
    if type(target) is ast.Tuple or type(target) is ast.List:
        return [name for element in target.elts for name in _bound_names(element)]
    if type(target) is ast.Starred:
        return _bound_names(target.value)
    return []

"""Summarize stage, call arguments: which arguments of each call are Python values while Dynamo traces.

``seq2img(img, self.patch_size, hidden_states.shape)`` passes a shape, and
``self.pos_embed(shapes, max_txt_seq_len=text_seq_len)`` an int read from one (``text_seq_len =
encoder_hidden_states.shape[1]``). Whatever the callee's annotation says (``int | torch.Tensor``),
under Dynamo such an argument is a Python value: the program stage lets the arguments of every call
site in compiled code decide a parameter's kind (``Program.passed_python``), and the annotation decides
only for entry points.

The test is syntactic, on ``ast``, as the rest of the summarize stage, and follows the body in order:
constants, tensor metadata (``x.shape``, ``x.size(1)``, ``x.dim()``, ``len(...)``), arithmetic, indexing
and displays of those, and local names whose latest binding is one of those (kept as written, judged only when read). A name bound to a call's
result, or to one element of it (``text_seq_len, _, mask = helper(x)``), is noted with the callee: the
program knows which functions of the tree return Python values in which elements
(``FunctionSummary.python_returns``). Anything else (a parameter, ``self.<attr>``) is not known to be
Python.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from dynalint.analysis.qualified_names import ImportTable, dotted_name
from dynalint.analysis.summary import Arguments, Slot
from dynalint.analysis.tensor_method_names import TENSOR_METHOD_NAMES
from dynalint.analysis.torch_facts import (
    BOOL_DTYPES,
    BOOL_PREDICATES,
    MASK_KEEPING_METHODS,
    DATA_METHODS,
    META_ATTRIBUTES,
    META_METHODS,
    TENSOR_RESULT_METHODS,
    TorchResult,
    torch_result,
)

_PYTHON_BUILTINS = frozenset({"len", "max", "min", "abs", "round", "sum"})
_META_CALLS = META_METHODS - {"data_ptr", "type"}
_META_READS = META_ATTRIBUTES - {"training"}

_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)

WHOLE = -1  # a call's whole result, where an element index would stand
Binding = tuple["ast.expr | None", int, "Binding | None"]  # see ``FunctionArguments.bound``


@dataclass
class FunctionArguments:
    """What one function body has bound so far, read lazily: a name's latest binding is kept as written
    and judged only when the name is passed to a call or returned (most bindings never are)."""

    imports: ImportTable
    # The function's own parameters (not ``self``): a call passing one unbound before it forwards it
    # (``CallSite.forwarded_parameters``), for the program to follow what the caller's callers pass.
    parameters: frozenset[str] = frozenset()
    # A name's latest binding: the value expression (``None``: a ``for`` / ``with`` target or anything
    # else that is not read), the element of it the name took (``WHOLE``: the value itself), and the
    # binding before it, which the value's own mention of the name reads (``mask = mask.view(b, n)``).
    bound: dict[str, Binding] = field(default_factory=dict)
    # The elements every ``return`` so far gives a Python value in (``WHOLE``: a non-tuple value);
    # ``None`` before the first ``return``.
    python_returns: set[int] | None = None
    mask_returns: set[int] | None = None  # the same for boolean masks

    def _binding(self, name: str, test: Callable[[ast.expr], bool]) -> bool:
        """Whether ``name``'s latest binding passes ``test`` (``is_python`` or ``is_mask``), judged with
        the name as it was before that binding (``mask = mask.view(b, n)`` reads the earlier ``mask``)."""
        known = self._bound_value(name)
        if known is None:
            return False
        binding = self.bound[name]
        if binding[2] is None:
            del self.bound[name]
        else:
            self.bound[name] = binding[2]
        try:
            return test(known[0])  # ``b, c, h, w = x.shape``: the elements of a Python value are Python
        finally:
            self.bound[name] = binding

    def _bound_value(self, name: str) -> tuple[ast.expr, int] | None:
        """The expression ``name`` was last bound to, and the element it took (an element of a tuple
        display is the display's item); ``None`` when nothing is known."""
        binding = self.bound.get(name)
        if binding is None:
            return None
        value, element, _ = binding
        if value is None:
            return None
        if element != WHOLE and type(value) in (ast.Tuple, ast.List):
            items = value.elts  # type: ignore[attr-defined]
            return (items[element], WHOLE) if element < len(items) else None
        return value, element

    def is_python(self, node: ast.expr) -> bool:
        """Whether ``node`` is a Python value under Dynamo, by its syntax and the bindings so far."""
        kind = type(node)
        if kind is ast.Name:
            return self._binding(node.id, self.is_python)  # type: ignore[attr-defined]
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
            return self._binding(node.id, self.is_mask)  # type: ignore[attr-defined]
        if kind is ast.Compare:  # not with a string: ``method == "trust-constr"`` is a Python bool
            return (len(node.ops) == 1 and isinstance(node.ops[0], _COMPARISONS)  # type: ignore[attr-defined]
                    and not self.is_python(node.left)  # type: ignore[attr-defined]
                    and not any(type(side) is ast.Constant and isinstance(side.value, str)
                                for side in (node.left, *node.comparators)))  # type: ignore[attr-defined]
        if kind is ast.Subscript:  # indexing and slicing keep the dtype
            return self.is_mask(node.value)  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            return isinstance(node.op, ast.Invert) and self.is_mask(node.operand)  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            return isinstance(node.op, (ast.BitAnd, ast.BitOr)) and (  # type: ignore[attr-defined]
                self.is_mask(node.left) or self.is_mask(node.right))  # type: ignore[attr-defined]
        if kind is ast.Call:
            for keyword in node.keywords:  # type: ignore[attr-defined]
                if keyword.arg == "dtype" and self.imports.resolve(dotted_name(keyword.value)) in BOOL_DTYPES:
                    return True
            func = node.func  # type: ignore[attr-defined]
            if type(func) is not ast.Attribute:
                return False
            attr = func.attr
            if attr in BOOL_PREDICATES:  # ``torch.isnan(x)``, ``x.isnan()``; not ``np.isnan``
                resolved = self.imports.resolve(dotted_name(func))
                return resolved is None or resolved.startswith("torch.")
            if attr in MASK_KEEPING_METHODS and self.imports.resolve(dotted_name(func)) == f"torch.{attr}":
                return bool(node.args) and self.is_mask(node.args[0])  # type: ignore[attr-defined]  # ``torch.tril(m)``
            return attr == "bool" or (attr in MASK_KEEPING_METHODS and self.is_mask(func.value))
        return False

    def is_tensor(self, node: ast.expr) -> bool:
        """Whether ``node`` is a tensor by how it is made (``makes_tensor``), an index or slice of one, a
        comparison with one, or a name last bound to one (``steps = torch.linspace(...)``, then ``steps[i + 1]``)."""
        kind = type(node)
        if kind is ast.Name:
            return self._binding(node.id, self.is_tensor)  # type: ignore[attr-defined]
        if kind is ast.Subscript:
            return self.is_tensor(node.value)  # type: ignore[attr-defined]
        if kind is ast.Compare:  # ``t1 >= t[j]``, ``norm > tol`` with ``norm`` a tensor: a boolean tensor
            return any(self.is_tensor(side) for side in (node.left, *node.comparators))  # type: ignore[attr-defined]
        if kind is ast.BinOp:  # ``x0 / scale`` with ``scale = atol + torch.abs(x0)``
            return self.is_tensor(node.left) or self.is_tensor(node.right)  # type: ignore[attr-defined]
        return makes_tensor(node, self.imports)

    def bind(self, target: ast.expr, value: ast.expr | None) -> None:
        """``target = value`` (``value`` ``None``: bound by a ``for``, a ``with`` or an augmented
        assignment to something that is not Python): kept as written, judged when read."""
        bound = self.bound
        if type(target) is ast.Name:
            bound[target.id] = (value, WHOLE, bound.get(target.id))
        elif type(target) is ast.Tuple or type(target) is ast.List:
            for index, element in enumerate(target.elts):
                if type(element) is ast.Name:
                    bound[element.id] = (value, index, bound.get(element.id))
                else:
                    for name in _bound_names(element):
                        bound[name] = (None, WHOLE, None)
        else:
            for name in _bound_names(target):
                bound[name] = (None, WHOLE, None)

    def bind_loop(self, target: ast.expr, iterated: ast.expr) -> None:
        """``for target in iterated``: each name bound to an element of what it steps through, written as
        ``iterated[0]`` (a tensor's row is a tensor, a shape's entry a Python int): ``range(...)`` gives
        Python ints, ``enumerate(xs)`` a Python index and an element of ``xs``, ``zip(a, b)`` an element of
        each."""
        def element(of: ast.expr) -> ast.expr:
            return ast.Subscript(value=of, slice=ast.Constant(0), ctx=ast.Load())

        index = ast.Constant(0)
        if type(iterated) is ast.Call and type(iterated.func) is ast.Name and not iterated.keywords:
            name, args = iterated.func.id, iterated.args
            names = target.elts if type(target) in (ast.Tuple, ast.List) else None  # type: ignore[attr-defined]
            if name == "range":
                self.bind(target, index)
                return
            if name == "enumerate" and len(args) == 1 and names is not None and len(names) == 2:
                self.bind(names[0], index)
                self.bind(names[1], element(args[0]))
                return
            if name == "zip" and names is not None and len(names) == len(args) and args:
                for part, source in zip(names, args):
                    self.bind(part, element(source))
                return
        self.bind(target, element(iterated))

    def call(self, node: ast.Call) -> Arguments:
        """What the call passes: the arguments that are Python values, boolean masks or a call's result
        (slot, callee, element), whether it splats, and every slot written. Run on every call that may
        reach the tree, so written for speed: most arguments are parameters, judged at a glance."""
        bound, parameters = self.bound, self.parameters
        found: list[tuple[int, Slot, ast.expr, int]] | None = None
        forwarded: tuple[tuple[Slot, str], ...] = ()
        splat = False
        count = 0
        for value in node.args:
            if type(value) is ast.Starred:
                splat = True
                continue
            if type(value) is not ast.Name or value.id in bound:
                found = self._judge(count, value, found)
            elif value.id in parameters:
                forwarded += ((count, value.id),)
            count += 1
        names: list[str] = []
        for keyword in node.keywords:
            if keyword.arg is None:
                splat = True
                continue
            names.append(keyword.arg)
            value = keyword.value
            if type(value) is not ast.Name or value.id in bound:
                found = self._judge(keyword.arg, value, found)
            elif value.id in parameters:
                forwarded += ((keyword.arg, value.id),)
        given: tuple[Slot, ...] = _POSITIONS[count] if count < len(_POSITIONS) else tuple(range(count))
        if names:
            given += tuple(names)
        if not found:
            return _plain(splat, given, forwarded)
        python = tuple(slot for what, slot, _, _ in found if what == 0)
        masks = tuple(slot for what, slot, _, _ in found if what == 1)
        via = tuple((slot, dotted_name(value.func) or "", element)  # type: ignore[attr-defined]
                    for what, slot, value, element in found if what == 2)
        tensors = tuple(slot for what, slot, _, _ in found if what == 3)
        if not via:  # only slots: shared, as ``_plain`` is (most such calls pass one tensor in a slot or two)
            return _slots_only(python, splat, masks, given, tensors, forwarded)
        return python, via, splat, masks, given, tensors, forwarded

    def _judge(self, slot: Slot, value: ast.expr,
               found: list[tuple[int, Slot, ast.expr, int]] | None) -> list[tuple[int, Slot, ast.expr, int]] | None:
        """Add what ``value``, passed in ``slot``, is known to be (0 Python, 1 mask, 2 a call's result, 3 a
        tensor: a mask is one too, but said as a mask)."""
        element = WHOLE
        if type(value) is ast.Name:
            known = self._bound_value(value.id)
            if known is None:
                return found  # a loop target, a ``with`` target: nothing known
            value, element = known  # judged as what it was bound to (a mention of itself reads back)
        elif type(value) is ast.Attribute and value.attr not in _META_READS:
            return found  # ``self.scale``, ``x.weight``: nothing known
        if self.is_python(value):  # ``h, w = x.shape``: each element of a Python value is Python too
            what = 0
        elif element == WHOLE and self.is_mask(value):
            what = 1
            if self.is_tensor(value):  # a mask made from a known tensor is a tensor too (``passed_tensors``)
                found = [*(found or ()), (3, slot, value, element)]
        elif element == WHOLE and self.is_tensor(value):
            what = 3  # ``torch.abs(x)``, ``x0 / scale``: a tensor by how it is made
        elif type(value) is ast.Call and _may_give_python_or_mask(value, element) and (
                element == WHOLE or not self.is_mask(value)):
            what = 2  # a helper's result: the program looks it up
        else:
            return found
        return [*(found or ()), (what, slot, value, element)]

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


def makes_tensor(node: ast.expr, imports: ImportTable) -> bool:
    """Syntax alone says ``node`` is a tensor: a ``torch.*`` call giving one, a method no Python type has that
    gives a tensor (``h.softmax(-1)``, ``t.sum()``), or arithmetic and comparisons on those."""
    if isinstance(node, ast.Call):
        resolved = imports.resolve(dotted_name(node.func))
        if resolved is not None:  # a function of a module (``math.prod``), not a method of a value
            return resolved.startswith("torch.") and torch_result(resolved) is TorchResult.TENSOR
        return isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_RESULT_METHODS
    if isinstance(node, ast.Compare):
        return any(makes_tensor(side, imports) for side in (node.left, *node.comparators))
    if isinstance(node, ast.BinOp):
        return makes_tensor(node.left, imports) or makes_tensor(node.right, imports)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return makes_tensor(node.operand, imports)
    return False


# Tensor methods whose result is no tensor: sizes, flags, Python values, other types.
_NOT_TENSOR_RESULTS = META_METHODS | DATA_METHODS | {"numpy", "type", "storage", "untyped_storage", "data_ptr",
                                                     "get_device", "element_size", "nelement", "tolist"}


def tensor_if_parameters(node: ast.expr | None, parameters: frozenset[str]) -> frozenset[str]:
    """The ``parameters`` whose being tensors makes ``node`` a tensor: ``tensor.abs().pow(2).mean().sqrt()``
    gives ``{"tensor"}``, as does ``x * 2`` for ``x``; empty when nothing says so (``x.item()``, ``len(x)``).
    The program asks, for a function's returns, whether its callers pass tensors there (``return_type``)."""
    if isinstance(node, ast.Name):
        return frozenset({node.id}) & parameters
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        if name in TENSOR_METHOD_NAMES and name not in _NOT_TENSOR_RESULTS and not name.startswith("is_"):
            return tensor_if_parameters(node.func.value, parameters)
        return frozenset()
    if isinstance(node, ast.BinOp):
        return tensor_if_parameters(node.left, parameters) | tensor_if_parameters(node.right, parameters)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return tensor_if_parameters(node.operand, parameters)
    if isinstance(node, ast.Compare):
        return frozenset().union(*(tensor_if_parameters(side, parameters) for side in (node.left, *node.comparators)))
    return frozenset()


def _may_give_python_or_mask(call: ast.Call, element: int) -> bool:
    """Whether a call's result (or ``element`` of it) is worth looking up: a helper function's, or one
    element of a method's tuple. ``h = self.norm(x)``, a layer's whole output, is a tensor: most calls
    are these, and not recording them keeps the summaries small."""
    return element != WHOLE or type(call.func) is not ast.Attribute or type(call.func.value) is not ast.Name or (
        call.func.value.id != "self")


_POSITIONS: tuple[tuple[int, ...], ...] = tuple(tuple(range(n)) for n in range(16))


@functools.lru_cache(maxsize=4096)
def _plain(splat: bool, given: tuple[Slot, ...], forwarded: tuple[tuple[Slot, str], ...]) -> Arguments:
    """Arguments that are only written, shared: a pickled tree holds each shape once."""
    return (), (), splat, (), given, (), forwarded


@functools.lru_cache(maxsize=4096)
def _slots_only(python: tuple[Slot, ...], splat: bool, masks: tuple[Slot, ...], given: tuple[Slot, ...],
                tensors: tuple[Slot, ...], forwarded: tuple[tuple[Slot, str], ...]) -> Arguments:
    """Arguments that name no callee, shared: a pickled tree holds each shape once."""
    return python, (), splat, masks, given, tensors, forwarded


def _bound_names(target: ast.expr) -> list[str]:
    if type(target) is ast.Name:
        return [target.id]
    if type(target) is ast.Tuple or type(target) is ast.List:
        return [name for element in target.elts for name in _bound_names(element)]
    if type(target) is ast.Starred:
        return _bound_names(target.value)
    return []

"""Tensors wrapped by eagerpy, the framework-neutral layer foolbox's attacks run on: which values of a function hold
one, and which uses of them break the graph. Read by DYN004 (``checks/skipped_library_call.py``) while it walks a
function.

eagerpy is taken whole by DYN004: any call into the package breaks. Its tensor objects break too, where compiled
code works on one that Dynamo did not see made. Measured on torch 2.13 with eagerpy 0.30
(``tests/test_wrapped_tensors.py`` measures it again):

- A wrapped tensor handed to the compiled frame (a parameter), each use in a function of its own, compiled in two
  orders: every method call (``x.sum()``, ``x.square()``, ``x.reshape(...)``, ``x.clip(...)``,
  ``x.norms.l2(...)``, ``x.astype(...)``: GB0156, GB0059, GB0055), ``*`` and ``**`` with either side wrapped, a
  unary ``-``, ``abs(x)`` and ``x[i]`` (GB0088, GB0156), a comparison (GB6215), ``len(x)`` and ``x.ndim``
  (GB4841) break; ``+``, ``-`` and ``/`` (either way round, with a number or another wrapped tensor) and reading
  ``x.raw`` or ``x.shape`` trace.
- A wrapped tensor made inside the traced code (``z = x + y``) traces all of these but a comparison.
- In one straight call, the uses after the frame's first break trace (a comparison still breaks). Where Dynamo
  meets the frame anew, they break as the first did: on the bench's foolbox models (91, compiled in eval and
  train) every use flagged this way that a model traced was a break site but one (226 of 227 judged findings,
  2026-11-29). So a function's first such use of a parameter, and any comparison, is certain; the rest likely.

The wrapped tensors handed in are the parameters annotated with eagerpy's tensor types (``x: ep.Tensor``) that the
function does not bind again, and the names bound only to a call into eagerpy (``ep.zeros(x, shape)``; the first of
``x, restore = ep.astensor_(inputs)``): that call breaks, and the frame resumes with its result handed in.
A name holds a wrapped tensor where every binding of it in the function gives one: a parameter annotated with
eagerpy's tensor types (``x: ep.Tensor``), the result of a call into eagerpy (``ep.zeros(x, shape)``; the first
of ``x, restore = ep.astensor_(inputs)``), and what a wrapped tensor's methods and operators return. A name also
bound to anything else (``x = x.raw``) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

import libcst as cst

from dynalint.analysis.cst_walk import children, named_parameters

WRAPPER_PACKAGE = "eagerpy"
# The annotations that declare a wrapped tensor (qualified as ``LintContext.declared`` gives them).
TENSOR_TYPES = frozenset({
    "eagerpy.Tensor", "eagerpy.TensorType", "eagerpy.PyTorchTensor", "eagerpy.tensor.Tensor",
    "eagerpy.tensor.TensorType", "eagerpy.tensor.PyTorchTensor", "eagerpy.tensor.pytorch.PyTorchTensor",
})
# Calls into eagerpy whose result is not one wrapped tensor (a flag, a tuple, a function).
NOT_A_TENSOR = frozenset({
    "eagerpy.istensor", "eagerpy.astensor_", "eagerpy.astensors", "eagerpy.astensors_", "eagerpy.value_and_grad",
    "eagerpy.value_aux_and_grad", "eagerpy.value_and_grad_fn", "eagerpy.value_aux_and_grad_fn",
})
# A wrapped tensor's methods that give something else than a wrapped tensor.
PLAIN_RESULT_METHODS = frozenset({"item", "numpy", "tolist", "__bool__", "__len__"})
# The uses measured to break, and the GB id each logged.
BREAKING_OPERATORS: dict[type[cst.BaseBinaryOp], str] = {
    cst.Multiply: "GB0088", cst.Power: "GB0156", cst.MatrixMultiply: "GB0088", cst.FloorDivide: "GB0088",
    cst.Modulo: "GB0088",
}
METHOD_GB_ID = "GB0156"
BREAKING_BUILTINS = {"builtins.len": "GB4841", "builtins.abs": "GB0088"}
BREAKING_ATTRIBUTES = {"ndim": "GB4841"}

Resolve = Callable[[cst.BaseExpression], "str | None"]


def imports_wrapper_package(imported: Iterable[str]) -> bool:
    """Whether a module's imports (qualified names) bring in eagerpy: only then can its functions hold its tensors."""
    return any(name == WRAPPER_PACKAGE or name.startswith(WRAPPER_PACKAGE + ".") for name in imported)


class WrappedTensors(NamedTuple):
    """What a function holds of eagerpy's tensors (nested functions left out)."""

    parameters: frozenset[str]  # parameters annotated as wrapped tensors that it never binds again
    inputs: frozenset[str]  # those, and the names bound only to a call into eagerpy: what the frame is handed
    names: frozenset[str]  # every name holding a wrapped tensor wherever it is bound


def wrapped_tensors(function: cst.FunctionDef, resolve: Resolve) -> WrappedTensors:
    """The wrapped tensors of ``function``, from one walk of its body. A call into eagerpy breaks, so the frame
    resumes with its result handed in: such a name counts among the inputs."""
    bindings: dict[str, list[cst.BaseExpression | None]] = {}
    for target, value in _bindings(function.body):
        bindings.setdefault(target, []).append(value)
    parameters = named_parameters(function.params)
    annotated = {p.name.value for p in parameters
                 if p.annotation is not None and resolve(p.annotation.annotation) in TENSOR_TYPES}
    plain = {p.name.value for p in parameters} - annotated
    unbound = frozenset(annotated - set(bindings))
    called = {name for name, values in bindings.items()
              if all(isinstance(v, cst.Call) and _package_call(v, resolve) for v in values)}
    wrapped = set(annotated)
    changed = True
    while changed:  # a name's bindings may read names found wrapped later (``y = x * 2`` before ``x`` is known)
        changed = False
        for name, values in bindings.items():
            if name in wrapped or name in plain:
                continue
            if all(value is not None and is_wrapped(value, wrapped, resolve) for value in values):
                wrapped.add(name)
                changed = True
    names = frozenset(name for name in wrapped
                      if all(v is not None and is_wrapped(v, wrapped, resolve) for v in bindings.get(name, [])))
    return WrappedTensors(unbound, unbound | called, names)


def _package_call(node: cst.Call, resolve: Resolve) -> bool:
    """A call into eagerpy that gives one wrapped tensor."""
    resolved = resolve(node.func)
    return resolved is not None and resolved.split(".", 1)[0] == WRAPPER_PACKAGE and resolved not in NOT_A_TENSOR


def is_wrapped(node: cst.BaseExpression, wrapped: set[str] | frozenset[str], resolve: Resolve) -> bool:
    """Whether ``node`` evaluates to a wrapped tensor, given the names known to hold one."""
    if isinstance(node, cst.Name):
        return node.value in wrapped
    if isinstance(node, cst.Call):
        if resolve(node.func) is not None:
            return _package_call(node, resolve)
        func = node.func
        return (isinstance(func, cst.Attribute) and func.attr.value not in PLAIN_RESULT_METHODS
                and is_wrapped(_receiver_root(func.value), wrapped, resolve))
    if isinstance(node, cst.BinaryOperation):
        return is_wrapped(node.left, wrapped, resolve) or is_wrapped(node.right, wrapped, resolve)
    if isinstance(node, cst.UnaryOperation):
        return is_wrapped(node.expression, wrapped, resolve)
    if isinstance(node, cst.Subscript):
        return is_wrapped(node.value, wrapped, resolve)
    return False


def breaking_use(node: cst.CSTNode, inputs: frozenset[str], wrapped: frozenset[str],
                 resolve: Resolve) -> tuple[str, str] | None:
    """What ``node`` does with a wrapped tensor that breaks the graph, as (how it is written, the GB id measured): a
    use of one of ``inputs``, or a comparison of any of ``wrapped``; ``None`` where it does nothing of the kind."""
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and resolve(func) is None and _is_input(_receiver_root(func.value), inputs):
            return f"eagerpy.Tensor.{func.attr.value}()", METHOD_GB_ID
        builtin = resolve(func)
        if builtin in BREAKING_BUILTINS and node.args and _is_input(node.args[0].value, inputs):
            return f"{builtin.removeprefix('builtins.')}(eagerpy.Tensor)", BREAKING_BUILTINS[builtin]
    elif isinstance(node, cst.BinaryOperation):
        gb_id = BREAKING_OPERATORS.get(type(node.operator))
        if gb_id is not None and (_is_input(node.left, inputs) or _is_input(node.right, inputs)):
            return f"eagerpy.Tensor {_operator_text(node.operator)} ...", gb_id
    elif isinstance(node, cst.UnaryOperation):
        if isinstance(node.operator, cst.Minus) and _is_input(node.expression, inputs):
            return "-eagerpy.Tensor", "GB0088"
    elif isinstance(node, cst.Comparison):
        operands = [node.left, *(target.comparator for target in node.comparisons)]
        if any(is_wrapped(operand, wrapped, resolve) for operand in operands):
            return f"eagerpy.Tensor {cst.Module([]).code_for_node(node.comparisons[0].operator).strip()} ...", "GB6215"
    elif isinstance(node, cst.Subscript):
        if _is_input(node.value, inputs):
            return "eagerpy.Tensor[...]", "GB0088"
    elif isinstance(node, cst.Attribute):
        gb_id = BREAKING_ATTRIBUTES.get(node.attr.value)
        if gb_id is not None and _is_input(node.value, inputs):
            return f"eagerpy.Tensor.{node.attr.value}", gb_id
    return None


def _is_input(node: cst.BaseExpression, inputs: frozenset[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in inputs


def _receiver_root(node: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` of ``x.norms`` (the namespace eagerpy's norms hang on), the receiver itself otherwise."""
    if isinstance(node, cst.Attribute) and node.attr.value == "norms":
        return node.value
    return node


def _operator_text(operator: cst.BaseBinaryOp) -> str:
    return cst.Module([]).code_for_node(operator.with_changes(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def _bindings(body: cst.BaseSuite) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    """Each (name, value bound) of a function's own body; ``None`` for a binding whose value is not known
    (a loop variable, ``with ... as``, an element of an unpacked tuple other than ``ep.astensor_``'s first)."""
    for node in _own_nodes(body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                yield from _bound(target.target, node.value)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            yield from _bound(node.target, node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            yield node.target.value, cst.BinaryOperation(node.target, _augmented(node.operator), node.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            yield from ((name, None) for name in _names(node.target))
        elif isinstance(node, cst.AsName):
            yield from ((name, None) for name in _names(node.name))
        elif isinstance(node, cst.NamedExpr):
            yield from _bound(node.target, node.value)


def _bound(target: cst.BaseExpression, value: cst.BaseExpression) -> Iterator[tuple[str, cst.BaseExpression | None]]:
    if isinstance(target, cst.Name):
        yield target.value, value
    elif isinstance(target, (cst.Tuple, cst.List)):
        elements = [element.value for element in target.elements]
        # ``x, restore = ep.astensor_(inputs)``: the first is what ``ep.astensor(inputs)`` gives
        first: cst.BaseExpression | None = None
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "astensor_"):
            first = cst.Call(cst.Attribute(value.func.value, cst.Name("astensor")), value.args)
        for index, element in enumerate(elements):
            if index == 0 and first is not None and isinstance(element, cst.Name):
                yield element.value, first
            else:
                yield from ((name, None) for name in _names(element))


def _names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _names(target.value)


def _augmented(operator: cst.BaseAugOp) -> cst.BaseBinaryOp:
    name = type(operator).__name__.removesuffix("Assign")
    return getattr(cst, name)()


def _own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of a function's body, not those of a function or class defined in it (lambdas included)."""
    for child in children(node):
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield child
        yield from _own_nodes(child)

"""DYN207 ``copy-call``: ``copy.deepcopy`` / ``copy.copy`` of tensors, modules and containers in compiled code.

Page: ``rules/DYN207-copy-call.md``. Whether the copy breaks depends on what is copied (measured on torch
2.13): ``deepcopy`` breaks when the object holds a tensor or is an ``nn.Module``, and is traced for plain
Python data; ``copy.copy`` breaks on tensors, modules, lists, dicts and sets, and is traced for tuples,
numbers and plain objects. The argument's kind comes from the value analysis, or, for a parameter, from its
annotation (``defopt: Dict``). A value of unknown type
is not reported, since a config dict (the common case) copies without a break; a bare ``forward``
input is, at ``likely`` confidence, since it is almost always a tensor or a batch of them.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.instances import constructed_by, enclosing_class, is_nn_module, is_self
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rewrites import Replace, parenthesized
from dynalint.lint.rule import Rule, written_name
from dynalint.model.finding import Applicability, Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

# A value held under such a name is a network almost always (``model``, ``self.prev_model``, ``strategy.model``,
# ``backbone``, ``target_net``): copied, it is taken for an ``nn.Module`` at ``likely`` when nothing says what it is.
_NAMED_AS_MODULE = re.compile(r"(^|_)(model|module|net|network|backbone|encoder|decoder)$")
SHALLOW_BREAKING_BUILTINS = frozenset({"builtins.list", "builtins.dict", "builtins.set"})
# A parameter annotated as one of these holds a list, dict or set (``defopt: Dict``, ``opts: dict[str, int]``).
DECLARED_CONTAINERS = {
    "builtins.dict": "a dict", "typing.Dict": "a dict", "builtins.list": "a list", "typing.List": "a list",
    "builtins.set": "a set", "typing.Set": "a set",
}


class CopyCall(Rule):
    code = "DYN207"
    name = "copy-call"
    message = "`{call}` of {what} in compiled code breaks the graph"
    help = "Use `tensor.clone()` (or `detach().clone()`), or copy modules and containers outside the compiled function"
    gb_ids = ("GB4198", "GB0008", "GB0007", "GB0208")
    fix = Applicability.UNSAFE  # a tensor's copy: safe for builtin containers, unsafe for tensors

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved not in ("copy.deepcopy", "copy.copy") or not node.args or node.args[0].star:
            return
        arg = node.args[0].value
        found = self._tensor_or_module(arg)
        if found is None and resolved == "copy.deepcopy":
            found = self._container_of_tensors(arg)
        if found is None and resolved == "copy.copy":
            found = self._mutable_container(arg)
        if found is not None:
            what, confidence = found
            self.report(node, confidence=confidence, rewrite=_copy_rewrite(node, what, confidence), call=f"{resolved}()", what=what)

    def _tensor_or_module(self, arg: cst.BaseExpression) -> tuple[str, Confidence] | None:
        kind = self.context.kind(arg)
        if kind.is_tensor_like or kind is Kind.INPUT:  # a bare ``forward`` input: probably a tensor
            return "a tensor", kind.confidence
        if is_nn_module(self.context, arg):
            return "an nn.Module", Confidence.CERTAIN
        if (kind is Kind.UNKNOWN and _NAMED_AS_MODULE.search(written_name(arg))
                and constructed_by(self.context, arg) is None):
            return "an nn.Module", Confidence.LIKELY  # avalanche's ``copy.deepcopy(strategy.model)``
        return None

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._parameter_containers: list[set[str]] = [set()]  # per function: locals bound to ``_PARAMETER_CONTAINERS``

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._parameter_containers.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._parameter_containers.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        held = self._parameter_containers[-1]
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                if _holds_parameters(node.value):
                    held.add(target.target.value)
                else:
                    held.discard(target.target.value)

    def _container_of_tensors(self, arg: cst.BaseExpression) -> tuple[str, Confidence] | None:
        if _holds_parameters(arg) or (isinstance(arg, cst.Name) and arg.value in self._parameter_containers[-1]):
            return "a container of tensors", Confidence.CERTAIN  # ``dict(self.model.named_parameters())``
        if isinstance(arg, (cst.List, cst.Tuple, cst.Set)):
            values = [e.value for e in arg.elements]
        elif isinstance(arg, cst.Dict):
            values = [e.value for e in arg.elements if isinstance(e, cst.DictElement)]
        else:
            return None
        kinds = {self.context.kind(v) for v in values}
        if Kind.TENSOR in kinds:
            return "a container of tensors", Confidence.CERTAIN
        if kinds & {Kind.LIKELY_TENSOR, Kind.INPUT}:
            return "a container of tensors", Confidence.LIKELY
        return None

    def _mutable_container(self, arg: cst.BaseExpression) -> tuple[str, Confidence] | None:
        if isinstance(arg, (cst.List, cst.ListComp)):
            return "a list", Confidence.CERTAIN
        if isinstance(arg, (cst.Dict, cst.DictComp)):
            return "a dict", Confidence.CERTAIN
        if isinstance(arg, (cst.Set, cst.SetComp)):
            return "a set", Confidence.CERTAIN
        built = self.context.resolve(arg.func) if isinstance(arg, cst.Call) else constructed_by(self.context, arg)
        if built in SHALLOW_BREAKING_BUILTINS:  # ``list(...)`` in place, or a module-level ``NAME = dict(...)``
            return f"a {built.removeprefix('builtins.')}", Confidence.CERTAIN
        held = self._held_container(arg)
        if held is not None:  # pina's ``copy(self._labels)``, each value of ``self._labels`` being a dict display
            return f"a {held.removeprefix('builtins.')}", Confidence.LIKELY
        declared = self.context.annotation(arg.value) if isinstance(arg, cst.Name) else None
        if declared is not None and declared.name in DECLARED_CONTAINERS:  # xitorch's ``defopt: Dict``
            return DECLARED_CONTAINERS[declared.name], Confidence.CERTAIN
        return None

    def _held_container(self, arg: cst.BaseExpression) -> str | None:
        """The builtin container ``self.<attr>`` holds, where its class gives it only displays of one: likely, since
        code outside the class may set the attribute as well."""
        if not (isinstance(arg, cst.Attribute) and is_self(arg.value)):
            return None
        cls = enclosing_class(self.context)
        return self.context.program.held_container(cls, arg.attr.value) if cls is not None else None


def _holds_parameters(value: cst.BaseExpression) -> bool:
    """``dict(model.named_parameters())``, ``list(model.parameters())``: a builtin container of a module's
    parameters or buffers (deep-copied, each is a tensor: GB4198, measured on torch 2.13). A ``state_dict()``
    copies without a break, and is not one."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
            and value.func.value in ("dict", "list", "tuple") and len(value.args) == 1):
        return False
    inner = value.args[0].value
    return (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value in _PARAMETER_ITERATORS)


_PARAMETER_ITERATORS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers"})


def _copy_rewrite(call: cst.Call, what: str, confidence: Confidence) -> Replace | None:
    """A tensor's copy is ``t.clone()`` (unsafe: the copy stays attached to autograd, where ``deepcopy``
    made a new leaf); a shallow copy of a builtin list, dict or set is ``list(x)`` / ``dict(x)`` / ``set(x)``
    (safe: the same new container; unsafe where the container is only likely, a subclass losing its class)."""
    value = call.args[0].value
    if what == "a tensor":
        clone = cst.Call(cst.Attribute(parenthesized(value), cst.Name("clone")))
        return Replace(call, clone, "copy the tensor with `.clone()`", Applicability.UNSAFE)
    builtin = {"a list": "list", "a dict": "dict", "a set": "set"}.get(what)
    if builtin is None:
        return None
    return Replace(call, cst.Call(cst.Name(builtin), [cst.Arg(value)]), f"copy with `{builtin}(...)`",
                   Applicability.SAFE if confidence is Confidence.CERTAIN else Applicability.UNSAFE)

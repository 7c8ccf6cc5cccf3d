"""DYN511 ``hook-registration``: an ``nn.Module`` hook registered, or a hook's handle removed, in compiled code.

Page: ``rules/DYN511-hook-registration.md``. Measured on torch 2.13: registering a hook on a module
(``register_forward_hook``, ``register_forward_pre_hook``, ``register_full_backward_hook``,
``register_backward_hook``, ``register_full_backward_pre_hook``) or a global module hook
(``torch.nn.modules.module.register_module_forward_hook``) sets state Dynamo cannot model ("setattr() on
unsupported type", GB0467), and removing one through its ``RemovableHandle`` breaks too (GB0013). A
tensor's ``register_hook`` traces, and so does calling a module whose forward hooks were registered
before compiling.

A handle is known by what built it: a local bound to a registration (``h = m.register_forward_hook(f)``),
or an item of a local list or dict of them (``handles[name] = ...``, ``handles.append(...)``, then
``handles[name].remove()`` or ``for h in handles: h.remove()``), also a list a nested function fills
(torchsummary's ``register_hook`` appending to its caller's ``hooks``, applied with ``model.apply``). A handle
kept in an attribute (``self.handle = ...``, ``module.__flops_handle__ = handle``, ``self.hooks["act"] = ...``:
any attribute of that name the tree gives one, ``Program.hook_handles``) was made before the compiled code read
it, and Dynamo cannot represent it either (GB0013, measured): testing it (``if self.handle is not None``, ``if
self.handle:``, ``hasattr(module, "__flops_handle__")``) breaks there, and so does removing it. Merely
reading one, or taking the ``len`` of a list of them, traces. A handle made while tracing breaks where it
leaves the frame: stored into an attribute (``module.__flops_handle__ = handle``) or returned (GB0013).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis import cst_walk, hook_handles
from dynalint.analysis.torch_facts import GLOBAL_HOOK_REGISTRATIONS, MODULE_HOOK_REGISTRATIONS
from dynalint.lint.rule import LocalObjectRule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

# What ``LocalConstructions`` holds for a hook's handle, and for a list or dict of them (no qualified name).
HANDLE = "<handle of a module hook>"
HANDLES = "<container of module hook handles>"


class HookRegistration(LocalObjectRule):
    code = "DYN511"
    name = "hook-registration"
    message = "`{call}` in compiled code breaks the graph: Dynamo cannot {what}"
    help = "Register the hook once, before calling the compiled code, and test or remove its handle after"
    gb_ids = ("GB0467", "GB0013")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._functions: list[cst.FunctionDef] = []  # the function being linted, innermost last
        # The function whose closures' handle lists were last asked for, and those lists (``_filled_by_closures``)
        self._filled_memo: tuple[cst.FunctionDef | None, set[str]] = (None, set())

    def _registers(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if self.context.resolve(func) in GLOBAL_HOOK_REGISTRATIONS:
            return True
        return (isinstance(func, cst.Attribute) and func.attr.value in MODULE_HOOK_REGISTRATIONS
                and not self.context.kind(func.value).is_tensor_like)

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        value = node.value
        held = [e.value for e in value.elements] if isinstance(value, (cst.List, cst.Tuple)) else (
            [value.elt] if isinstance(value, cst.ListComp) else None)
        for target in node.targets:
            if isinstance(target.target, cst.Name) and self._registers(value):
                self.locals.declare(target.target.value, HANDLE)
            elif isinstance(target.target, cst.Name) and held and all(self._registers(e) for e in held):
                self.locals.declare(target.target.value, HANDLES)
            elif (isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name)
                  and self._registers(value)):
                self.locals.declare(target.target.value.value, HANDLES)
            if self._handle(value) and isinstance(target.target, cst.Attribute):
                # ``module.__flops_handle__ = handle``: the store itself breaks (stored into a dict or a list
                # that outlives the frame, the handle breaks at the frame's end instead, on no line of its own)
                self.report(value, call=_code(node).strip(), what=_REPRESENT_MADE)

    def visit_For(self, node: cst.For) -> None:
        kept = isinstance(node.iter, cst.Attribute) and node.iter.attr.value in self.context.program.hook_handles[1]
        filled = isinstance(node.iter, cst.Name) and node.iter.value in self._filled_by_closures()
        if (kept or filled or self.locals.built(node.iter) == HANDLES) and isinstance(node.target, cst.Name):
            self.locals.declare(node.target.value, HANDLE)

    def _filled_by_closures(self) -> set[str]:
        """The names a function nested in the one being linted appends hook handles to: its caller's list
        (torchsummary's ``register_hook``, defined before ``hooks = []`` and run by ``model.apply``)."""
        if not self._functions:
            return set()
        function = self._functions[-1]
        if self._filled_memo[0] is not function:
            self._filled_memo = (function, {
                call.func.value.value for nested in cst_walk.descendants(function)
                if isinstance(nested, cst.FunctionDef) and nested is not function
                for call in cst_walk.descendants(nested)
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append" and isinstance(call.func.value, cst.Name) and call.args
                and self._registers(call.args[0].value)})
        return self._filled_memo[1]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._registers(node):
            resolved = self.context.resolve(func)
            shown = resolved if resolved in GLOBAL_HOOK_REGISTRATIONS else _code(func)
            self.report(node, call=f"{shown}()", what=_REGISTER)
        elif isinstance(func, cst.Attribute) and func.attr.value == "append" and node.args and isinstance(
                func.value, cst.Name) and self._registers(node.args[0].value):
            self.locals.declare(func.value.value, HANDLES)
        elif (isinstance(func, cst.Attribute) and func.attr.value == "remove" and not node.args
              and (self._handle(func.value) or self._kept_handle(func.value))):
            self.report(node, call=f"{_code(func.value)}.remove()", what=_REGISTER)
        elif (isinstance(func, cst.Name) and func.value == "hasattr" and len(node.args) == 2
              and isinstance(name := node.args[1].value, cst.SimpleString)
              and name.evaluated_value in self.context.program.hook_handles[0]
              and not self._stores_attribute(str(name.evaluated_value))):
            self.report(node, call=_code(node), what=_REPRESENT)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._functions.pop()

    def _stores_attribute(self, name: str) -> bool:
        """Whether the function being linted gives some object's attribute ``name`` a value: its ``hasattr`` then
        asks whether the handle is there yet (ptflops' ``if hasattr(module, "__flops_handle__"): return`` before
        registering), and an absent attribute traces."""
        return bool(self._functions) and any(
            isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Attribute)
            and node.target.attr.value == name for node in cst_walk.descendants(self._functions[-1]))

    def visit_Return(self, node: cst.Return) -> None:
        value = node.value
        returned = value.elements if isinstance(value, cst.Tuple) else []
        if value is not None and (self._handle(value) or any(self._handle(e.value) for e in returned)):
            self.report(node, call=_code(node).strip(), what=_REPRESENT_MADE)

    def visit_If(self, node: cst.If) -> None:
        self._tested(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._tested(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._tested(node.test)

    def _tested(self, test: cst.BaseExpression) -> None:
        """A kept handle tested for truth or compared (``self.handle is not None``), anywhere in a test."""
        if isinstance(test, cst.UnaryOperation):
            self._tested(test.expression)
        elif isinstance(test, cst.BooleanOperation):
            self._tested(test.left)
            self._tested(test.right)
        elif isinstance(test, cst.Comparison):
            operands = [test.left, *(c.comparator for c in test.comparisons)]
            for operand in operands:
                if self._kept_handle(operand):
                    self.report(operand, call=_code(test), what=_REPRESENT)
                    return
        elif self._kept_handle(test):
            self.report(test, call=_code(test), what=_REPRESENT)

    def _handle(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Subscript):
            return self.locals.built(node.value) == HANDLES
        return self.locals.built(node) == HANDLE

    def _kept_handle(self, node: cst.BaseExpression) -> bool:
        """An attribute the tree gives a handle (``self.handle``), or an item of one holding them
        (``self.hooks["act"]``): made before the compiled code reads it."""
        attributes, containers = self.context.program.hook_handles
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute):
            held_in = node.value.attr.value
            key = _literal_key(node)
            return held_in in containers or (key is not None and hook_handles.keyed(held_in, key) in attributes)
        return isinstance(node, cst.Attribute) and node.attr.value in attributes


_REGISTER = "register or remove a module hook while tracing"
_REPRESENT = "represent a module hook's handle made before compiling"
_REPRESENT_MADE = "hand a module hook's handle made while tracing out of the compiled frame"


def _literal_key(node: cst.Subscript) -> str | None:
    """``"hook"`` for ``gg["hook"]``; ``None`` for any other subscript."""
    if len(node.slice) != 1 or not isinstance(index := node.slice[0].slice, cst.Index):
        return None
    value = index.value
    return value.evaluated_value if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str) else None


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)

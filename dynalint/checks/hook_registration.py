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
``handles[name].remove()`` or ``for h in handles: h.remove()``).
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import LocalObjectRule

MODULE_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                          "register_backward_hook", "register_full_backward_pre_hook"})
GLOBAL_HOOKS = frozenset({"torch.nn.modules.module.register_module_forward_hook"})
# What ``LocalConstructions`` holds for a hook's handle, and for a list or dict of them (no qualified name).
HANDLE = "<handle of a module hook>"
HANDLES = "<container of module hook handles>"


class HookRegistration(LocalObjectRule):
    code = "DYN511"
    name = "hook-registration"
    message = "`{call}` in compiled code breaks the graph: Dynamo cannot register or remove a module hook while tracing"
    help = "Register the hook once, before calling the compiled code, and remove it after"
    gb_ids = ("GB0467", "GB0013")

    def _registers(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if self.context.resolve(func) in GLOBAL_HOOKS:
            return True
        return (isinstance(func, cst.Attribute) and func.attr.value in MODULE_HOOKS
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

    def visit_For(self, node: cst.For) -> None:
        if self.locals.built(node.iter) == HANDLES and isinstance(node.target, cst.Name):
            self.locals.declare(node.target.value, HANDLE)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._registers(node):
            resolved = self.context.resolve(func)
            shown = resolved if resolved in GLOBAL_HOOKS else cst.Module([]).code_for_node(func)
            self.report(node, call=f"{shown}()")
        elif isinstance(func, cst.Attribute) and func.attr.value == "append" and node.args and isinstance(
                func.value, cst.Name) and self._registers(node.args[0].value):
            self.locals.declare(func.value.value, HANDLES)
        elif (isinstance(func, cst.Attribute) and func.attr.value == "remove" and not node.args
              and self._handle(func.value)):
            self.report(node, call=f"{cst.Module([]).code_for_node(func.value)}.remove()")

    def _handle(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Subscript):
            return self.locals.built(node.value) == HANDLES
        return self.locals.built(node) == HANDLE

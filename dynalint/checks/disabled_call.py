"""DYN002 ``disabled-call``: calls of functions excluded from compilation. Page: ``rules/DYN002-disabled-call.md``.

Which functions are ``disable``d is the program's answer (decorators, module-level
``fast = torch.compiler.disable(f)`` aliases, across files). A helper that issues collectives is
reported here too; DYN301 supersedes this rule on the same call, so with both selected one call gets
one finding, DYN301's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import DISABLE
from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class DisabledCall(Rule):
    code = "DYN002"
    name = "disabled-call"
    message = "`{callee}` is excluded from compilation: each call from compiled code breaks the graph"
    help = "Let Dynamo trace the function (drop the `disable`), or call it outside the compiled code"
    gb_ids = ("GB0098", "GB0099", "GB0007")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._wrapped_on_the_spot: set[cst.Call] = set()
        # Names bound to ``torch.compiler.disable(f)`` inside the compiled function being visited.
        self._local_aliases: list[dict[str, str]] = [{}]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._local_aliases.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._local_aliases.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self._is_wrapper(func):  # ``torch.compiler.disable(f)(x)``
            assert isinstance(func, cst.Call)
            self._wrapped_on_the_spot.add(func)
            self.report(node, callee=self._written(func.args[0].value))
            return
        if self._is_wrapper(node):
            # ``g = torch.compiler.disable(f)`` inside compiled code: building the wrapper breaks too.
            if node not in self._wrapped_on_the_spot:
                self.report(node, callee=self._written(node.args[0].value))
            return
        if isinstance(func, cst.Name) and func.value in self._local_aliases[-1]:
            self.report(node, callee=self._local_aliases[-1][func.value])
            return
        target = self.context.resolve_call(func)
        if target is not None:
            if target.function.startswith("torch."):
                return  # linting torch itself: Dynamo special-cases its disabled helpers (``checkpoint``)
            if target.disabled:
                if isinstance(func, cst.Name) and func.value in self.context.summary.disabled_aliases:
                    callee = func.value
                else:
                    callee = self.context.program.display_name(target.function)
                self.report(node, callee=callee)
            return
        if self._is_imported_alias(func):
            # DYN301 does not see these (the program does not resolve them), so this rule reports
            # them whatever the wrapped function does.
            self.report(node, callee=dotted_name(func))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        aliases = self._local_aliases[-1]
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                value = original_node.value
                if self._is_wrapper(value):
                    assert isinstance(value, cst.Call)
                    aliases[target.target.value] = self._written(value.args[0].value)
                else:
                    aliases.pop(target.target.value, None)

    def _is_wrapper(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and bool(node.args)
            and node.args[0].keyword is None
            and not node.args[0].star
            and self.context.resolve(node.func) in DISABLE
        )

    def _is_imported_alias(self, func: cst.BaseExpression) -> bool:
        """Whether ``func`` names a ``disable`` alias defined at module level in another file.

        ``from helpers import fast`` with ``fast = torch.compiler.disable(_impl)`` in ``helpers``: the
        program resolves calls to functions, so an alias of a function outside the tree has no callee.
        """
        dotted = self.context.module_level_name(func)
        if dotted is None:
            return False
        qualified = self.context.resolve(func) or ""
        return not qualified.startswith("torch.") and self.context.program.is_disabled_alias(self.context.summary, dotted)

    def _written(self, node: cst.BaseExpression) -> str:
        target = self.context.resolve_call(node)
        if target is not None:
            return self.context.program.display_name(target.function)
        return dotted_name(node) or ("<lambda>" if isinstance(node, cst.Lambda) else "<expression>")

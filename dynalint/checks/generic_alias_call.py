"""DYN518 ``generic-alias-call``: an object built by calling a subscripted generic type, or one of ``typing``'s
aliases of the ``collections`` classes, in compiled code.

Page: ``rules/DYN518-generic-alias-call.md``. Typed code builds its empty containers with the type written in
(``list[Tensor]()``, ``dict[str, Tensor]()``, ``OrderedDict[str, Module]()``, ``defaultdict[str, list](list)``), and
older code calls ``typing``'s aliases (``typing.DefaultDict(list)``). Each is a call of a ``types.GenericAlias`` or
a ``typing`` alias object, not of the class, and Dynamo has no model of calling one: "Unsupported function call"
(GB0147), measured on torch 2.13 for the builtin containers, the ``collections`` classes, a ``Generic`` class of the
tree (``Box[Tensor](x)``, GB0116 there too) and ``typing.DefaultDict`` / ``typing.OrderedDict`` with or without the
subscript. The same calls without the subscript, and the ``collections`` classes themselves, trace.

The fix calls the class itself, which builds the same object for the builtins and ``collections`` (safe). A
``Generic`` class of the tree gets no fix: its instance would no longer carry ``__orig_class__``.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import Replace
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability

# Classes whose subscripted alias builds the same object as the class does.
CONTAINER_CLASSES = frozenset({
    "builtins.list", "builtins.dict", "builtins.set", "builtins.frozenset", "builtins.tuple",
    "collections.OrderedDict", "collections.defaultdict", "collections.deque", "collections.Counter",
    "collections.ChainMap",
})
# ``typing``'s aliases that can be called, and the ``collections`` class each builds.
TYPING_ALIASES: dict[str, str] = {
    "typing.DefaultDict": "defaultdict", "typing.OrderedDict": "OrderedDict", "typing.Deque": "deque",
    "typing.Counter": "Counter", "typing.ChainMap": "ChainMap",
}
GENERIC_BASES = frozenset({"typing.Generic", "typing_extensions.Generic"})


class GenericAliasCall(Rule):
    code = "DYN518"
    name = "generic-alias-call"
    message = "`{call}` calls a generic alias, which compiled code cannot call, and breaks the graph"
    help = "Call the class itself (`list()`, `collections.defaultdict(list)`) and annotate the variable for the type"
    gb_ids = ("GB0147",)
    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        subscripted = isinstance(func, cst.Subscript)
        base = func.value if isinstance(func, cst.Subscript) else func
        resolved = self.context.resolve(base)
        if resolved in TYPING_ALIASES:
            replacement: cst.BaseExpression = cst.Attribute(cst.Name("collections"), cst.Name(TYPING_ALIASES[resolved]))
            self._report(node, replacement, ("collections",))
        elif not subscripted:
            return
        elif resolved in CONTAINER_CLASSES:
            self._report(node, base, ())
        elif self._generic_class_of_the_tree(base):
            self.report(node, call=f"{cst.Module([]).code_for_node(func)}(...)")

    def _generic_class_of_the_tree(self, base: cst.BaseExpression) -> bool:
        written = self.context.module_level_name(base)
        if written is None:
            return False
        program = self.context.program
        built = program.resolve_class(self.context.summary, written)
        if built is None:
            return False
        return any(b in GENERIC_BASES for cls in program.mro(built) for b in program.classes[cls][1].bases)

    def _report(self, node: cst.Call, callee: cst.BaseExpression, imports: tuple[str, ...]) -> None:
        """Report ``node`` with the fix that calls ``callee`` in place of the alias."""
        written = cst.Module([]).code_for_node(node.func)
        rewrite = Replace(node.func, callee, f"call `{cst.Module([]).code_for_node(callee)}` itself",
                          Applicability.SAFE, imports=imports)
        self.report(node, rewrite=rewrite, call=f"{written}(...)")

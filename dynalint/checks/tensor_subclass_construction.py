"""DYN519 ``tensor-subclass-construction``: an instance of a tensor subclass whose ``__init__`` takes arguments,
built in compiled code.

Page: ``rules/DYN519-tensor-subclass-construction.md``. Tensor subclasses that carry metadata (pina's
``LabelTensor(x, labels)``, monai's ``MetaTensor(x, affine=...)``) take it in a ``__new__`` and keep it in an
``__init__``. Measured on torch 2.13: building one in compiled code breaks at the call ("failed to bind arguments
when attempting to inline", GB7312) whenever the ``__init__`` the class has (its own or inherited from a class of
the tree) names a parameter after ``self``, required or not; a subclass whose ``__init__`` takes only ``*args`` /
``**kwargs``, or that has none, is built in the graph.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule


class TensorSubclassConstruction(Rule):
    code = "DYN519"
    name = "tensor-subclass-construction"
    message = ("`{call}` builds a tensor subclass whose `__init__` takes arguments, which Dynamo cannot bind while "
               "tracing: the graph breaks here")
    help = ("Build the subclass outside the compiled code, or keep its metadata without an `__init__` (set it in "
            "`__new__` on the instance `as_subclass` returns)")
    gb_ids = ("GB7312",)

    def visit_Call(self, node: cst.Call) -> None:
        written = self.context.module_level_name(node.func)
        program = self.context.program
        if written is None or written.rpartition(".")[2] not in program.tensor_subclass_names:
            return
        built = program.resolve_class(self.context.summary, written)
        if built is None or not program.is_tensor_subclass(built):
            return
        init = program.method(built, "__init__")
        if init is None or init not in program.functions:
            return
        positional = program.functions[init].definition.signature[0]
        if positional > 1:  # a named parameter after ``self``
            self.report(node, call=f"{written}(...)")

"""DYN513 ``typed-dict-construction``: building a ``TypedDict`` with optional keys in compiled code.

Page: ``rules/DYN513-typed-dict-construction.md``. Measured on torch 2.13: calling a ``TypedDict`` class whose
keys may be missing (``class Message(TypedDict, total=False)``, a field annotated ``NotRequired[...]``, or a
subclass of such a class) breaks the graph ("TypedDict with optional keys", GB0257); a ``TypedDict`` whose keys
are all required, and a dict literal annotated with the type, trace. The summary records which classes of the
tree have optional keys (``ClassSummary.optional_keys``), and ``Program.has_optional_keys`` follows the bases.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule


class TypedDictConstruction(Rule):
    code = "DYN513"
    name = "typed-dict-construction"
    message = "`{call}` builds a TypedDict with optional keys in compiled code, which breaks the graph"
    help = "Build a plain dict literal (annotated with the TypedDict if you like), which Dynamo traces"
    gb_ids = ("GB0257",)

    def visit_Call(self, node: cst.Call) -> None:
        written = self.context.module_level_name(node.func)
        if written is None:
            return  # not a name, or a local one
        program = self.context.program
        built = program.resolve_class(self.context.summary, written)
        if built is not None and program.has_optional_keys(built):
            self.report(node, call=f"{written}(...)")

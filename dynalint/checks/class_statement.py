"""DYN504 ``class-statement``: a ``class`` statement inside compiled code. Page: ``rules/DYN504-class-statement.md``.

Torch 2.13 cannot trace ``__build_class__`` (GB8977), so defining a class (plain, ``NamedTuple``,
``@dataclass``) in a compiled function breaks where the ``class`` line runs. The class body itself is
not a region (the context gives a class frame no region), so the rule looks at the statements of
each compiled block; a class under ``if not torch.compiler.is_compiling():`` sits in an untraced block
and is never seen.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule


class ClassStatement(Rule):
    code = "DYN504"
    name = "class-statement"
    message = "Defining class `{name}` in compiled code breaks the graph"
    help = "Define the class at module level and only instantiate it in the compiled function"
    gb_ids = ("GB8977",)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        for statement in node.body:
            if isinstance(statement, cst.ClassDef):
                self.report(statement.name, name=statement.name.value)

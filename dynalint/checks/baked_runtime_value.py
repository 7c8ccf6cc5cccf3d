"""DYN305 ``baked-runtime-value``: environment reads that Dynamo folds in without a guard. Page: ``rules/DYN305-baked-runtime-value.md``.

Measured on torch 2.13 (compiled value against an eager replay after the variable changes):

- ``os.getenv(name[, default])`` gets no guard at all: every later change is missed.
- ``os.environ.get(name[, default])`` and ``name in os.environ`` are guarded on the variable when it
  is set at trace time (a new value recompiles, correctly), but get no guard when it is unset: setting
  it later is missed.
- ``os.environ[name]`` is always guarded (it raises when unset), so it is not flagged.
- ``dist.get_rank()`` / ``dist.get_world_size()`` are folded in without a guard too, but they only go
  stale when the default process group is destroyed and created again with another rank or size in
  the same process, which real jobs do not do; flagging the ubiquitous ``x / get_world_size()`` would be
  noise, so they are left out.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule

UNGUARDED = "a later change to the variable is not seen"
UNGUARDED_WHEN_UNSET = "if the variable is unset when the function is compiled, setting it later is not seen"


class BakedRuntimeValue(Rule):
    code = "DYN305"
    name = "baked-runtime-value"
    message = "`{call}` in compiled code is read once, when Dynamo traces the function: {consequence}"
    help = "Read the variable outside the compiled function and pass the value in as an argument"
    hazard = "stale-value"

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved == "os.getenv":
            self.report(node, call="os.getenv()", consequence=UNGUARDED)
        elif resolved == "os.environ.get":
            self.report(node, call="os.environ.get()", consequence=UNGUARDED_WHEN_UNSET)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and self.context.resolve(target.comparator) == "os.environ":
                self.report(node, call="name in os.environ", consequence=UNGUARDED_WHEN_UNSET)

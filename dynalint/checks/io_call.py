"""DYN206 ``io-call``: files, stdin, debuggers and checkpoints in compiled code. Page: ``rules/DYN206-io-call.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import Rewrite, eager_only
from dynalint.lint.rule import CallRule
from dynalint.model.finding import Applicability


class IoCall(CallRule):
    code = "DYN206"
    name = "io-call"
    message = "`{call}` in compiled code does I/O that Dynamo cannot trace and breaks the graph"
    help = "Do the I/O before or after the compiled call and pass tensors in or out"
    gb_ids = ("GB0059", "GB0142", "GB0156", "GB0007")
    fix = Applicability.UNSAFE
    calls = frozenset(
        {
            # Untraceable builtins (GB0059); ``with open(...)`` also fails to enter the file (GB0142).
            "builtins.open", "io.open", "builtins.input", "builtins.breakpoint",
            # File objects and in-memory buffers: unsupported methods of builtin classes (GB0156).
            "io.BytesIO", "io.StringIO", "sys.stdin.read", "sys.stdin.readline", "sys.stdin.readlines",
            # Functions in modules Dynamo skips (GB0007).
            "pdb.set_trace", "torch.save", "torch.load",
        }
    )

    def rewrite(self, node: cst.Call, resolved: str) -> Rewrite:
        return eager_only(node)

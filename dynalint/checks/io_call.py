"""DYN206 ``io-call``: files, stdin, debuggers and checkpoints in compiled code. Page: ``rules/DYN206-io-call.md``.

Calls by name (``open``, ``torch.save``), and the methods of a ``pathlib.Path`` that touch the file system
(``save_dir.mkdir(...)``, ``path.exists()``), on a path the code builds (``Path(root)``, ``Path(root) / name``, a
local or ``self.<attr>`` bound to one). Measured on torch 2.13: each of ``FILESYSTEM_METHODS`` breaks (GB0007);
arithmetic on paths (``/``, ``with_suffix``, ``name``, ``parent``, ``str(path)``) traces.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import PATH_CLASSES, constructed_by
from dynalint.lint.rewrites import Rewrite, eager_only
from dynalint.lint.rule import CallRule, LocalObjectRule
from dynalint.model.finding import Applicability

# ``pathlib.Path`` methods measured to break on torch 2.13 (GB0007): they reach the file system.
FILESYSTEM_METHODS = frozenset({
    "mkdir", "exists", "is_dir", "is_file", "resolve", "stat", "iterdir", "glob", "rglob", "touch", "write_text",
    "read_text", "open", "unlink", "samefile",
})
# Methods that hand back another path (traced), so that ``Path(root).with_suffix(".pt").exists()`` is known.
_PATH_RESULTS = frozenset({"with_suffix", "with_name", "joinpath", "absolute", "expanduser"})
MADE, HELD = "made", "held"  # a path made in the frame, or one ``self`` holds


class IoCall(CallRule, LocalObjectRule):
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

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in FILESYSTEM_METHODS):
            return
        path = self._path(func.value)
        if path is not None:
            # A path made in this frame is on the frame when it breaks, and Dynamo cannot rebuild it (GB0092): the
            # function is given up and runs eagerly; one held by ``self`` is the caller's, and only the call breaks.
            self.report(node, pattern="pathlib.Path", call=f"Path.{func.attr.value}()", gives_up_frame=path == MADE)

    def _path(self, node: cst.BaseExpression) -> str | None:
        """``MADE`` where ``node`` is a ``pathlib.Path`` made in this function, ``HELD`` where it is one held by
        ``self``, else ``None`` (a string, say, has none of these methods)."""
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _PATH_RESULTS:
                return MADE if self._path(func.value) else None
            return MADE if self.context.resolve(func) in PATH_CLASSES else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
            return MADE if self._path(node.left) else None
        if isinstance(node, cst.Attribute) and node.attr.value == "parent":
            return MADE if self._path(node.value) else None
        if self.locals.built(node) in PATH_CLASSES:
            return MADE
        return HELD if constructed_by(self.context, node) in PATH_CLASSES else None

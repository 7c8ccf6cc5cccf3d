"""DYN004 ``skipped-library-call``: a call of a standard-library or third-party function that Dynamo
cannot trace. Page: ``rules/DYN004-skipped-library-call.md``.

Config hashing (``zlib.crc32``), serialization (``pickle.dumps``, ``json.dumps``), introspection
(``inspect.stack``, ``sys._getframe``) and process queries (``os.getpid``) are C functions or modules
that torch's trace rules skip, or Python whose inside Dynamo cannot follow. The table is data, measured
call by call on the installed torch by ``bench/skiplist/derive.py`` and kept in
``analysis/skipped_library_calls``; calls that other rules explain (the clock, randomness, copying,
files) are left to them. Names are resolved through the imports, so ``from zlib import crc32`` counts, and through the tree's
module-level renamings, so ``einsum`` imported from a module that binds ``einsum = partial(contract, ...)``
(``opt_einsum``'s) counts as ``contract``.
A package whose measured calls break, three in four or more (SciPy: 15 of 18, its C code over NumPy
arrays), is taken whole: any call into it is reported, named by the GB id its calls logged most often,
but for its calls measured to trace (``scipy.sparse.issparse``, ``scipy.optimize.Bounds``: pure Python).

And a function of a third-party compiled extension (``from .emd_wrap import emd_c``, a project's ``_C``),
found on disk by ``analysis/native_modules``: native code Dynamo cannot step into, which breaks at the call
(measured on torch 2.13: GB0007 for a C function, GB0156 for a Cython one). Likely: an extension may
register what it defines with Dynamo (a custom op, ``allow_in_graph``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.instances import constructed_by, enclosing_class, is_self, lineage
from dynalint.analysis.native_modules import native_callee
from dynalint.analysis.eager_library_calls import breaking_call, inherited_breaking_method, skipped_object
from dynalint.analysis.skipped_library_calls import MEASURED_ON, SKIPPED_LIBRARY_CALLS, SKIPPED_LIBRARY_PACKAGES
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.wrapped_tensors import WrappedTensors, breaking_use, imports_wrapper_package, wrapped_tensors
from dynalint.lint.rule import LocalObjectRule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


WRAPPER_PATTERN = "eagerpy"  # a use of a wrapped tensor, counted with the calls of its package taken whole
NATIVE_GB_IDS = ("GB0007", "GB0156")  # a C function's call, a Cython function's (measured)
OBJECT_METHOD_GB_IDS = ("GB0008", "GB0007")  # a Python method of a skipped package's object, a SWIG one's (measured)


class SkippedLibraryCall(LocalObjectRule):
    code = "DYN004"
    name = "skipped-library-call"
    message = "`{call}` cannot be traced by torch.compile ({gb} on torch {measured}): calling it in compiled code breaks the graph"
    help = "Compute it once outside the compiled code (in `__init__`, or before the call) and pass the result in"
    # The ids of the calls measured one by one; a package taken whole names its own per finding.
    gb_ids = tuple(sorted({gb_id for name, (gb_id, _) in SKIPPED_LIBRARY_CALLS.items()
                           if name.split(".", 1)[0] not in SKIPPED_LIBRARY_PACKAGES} | set(NATIVE_GB_IDS)
                          | set(OBJECT_METHOD_GB_IDS)))

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # Per function being walked: the eagerpy tensors it holds (``None``: none), and whether a breaking use of
        # one was reported in it yet.
        self._wrapped: list[WrappedTensors | None] = []
        self._used: list[bool] = []
        self._covered: set[int] = set()  # nodes inside a use of a wrapped tensor already reported
        self._imports_wrapper = imports_wrapper_package(context.summary.imports.aliases.values())

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        # a module that imports nothing of eagerpy holds none of its tensors: no walk of the body
        tensors = wrapped_tensors(node, self.context.resolve) if self._imports_wrapper else None
        self._wrapped.append(tensors if tensors is not None and tensors.names else None)
        self._used.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._wrapped.pop()
        self._used.pop()

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._wrapped_use(node)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._wrapped_use(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._wrapped_use(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._wrapped_use(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._wrapped_use(node)

    def _wrapped_use(self, node: cst.CSTNode) -> bool:
        """A use of an eagerpy tensor measured to break (``wrapped_tensors``), reported once per expression: the
        outermost, where Dynamo breaks first; what it contains is not reported again. Certain: a comparison, and the
        function's first such use of a parameter. The others are likely: they break where Dynamo meets the frame
        anew (foolbox's attacks), not after an earlier break in one straight call."""
        known = self._wrapped[-1] if self._wrapped else None
        if known is None or id(node) in self._covered:
            return False
        use = breaking_use(node, known.inputs, known.names, self.context.resolve)
        if use is None:
            return False
        written, gb_id = use
        inside = list(descendants(node))
        self._covered.update(id(inner) for inner in inside)
        used = {n.value for n in inside if isinstance(n, cst.Name) and n.value in known.inputs}
        first_of_a_parameter = not self._used[-1] and used <= known.parameters
        confidence = Confidence.CERTAIN if isinstance(node, cst.Comparison) or first_of_a_parameter else Confidence.LIKELY
        self._used[-1] = True
        self.report(node, gb_ids=(gb_id,), pattern=WRAPPER_PATTERN, confidence=confidence, call=written, gb=gb_id,
                    measured=MEASURED_ON)
        return True

    def visit_Call(self, node: cst.Call) -> None:
        if self._wrapped_use(node):
            return
        resolved = self.context.resolve(node.func)
        if resolved is None:
            self._object_method(node)
            return
        written = resolved
        if resolved not in SKIPPED_LIBRARY_CALLS:  # ``from pkg.utils import einsum``, an alias of another call there
            resolved = self.context.program.canonical(resolved) or resolved
        package = resolved.split(".", 1)[0]
        breaking = breaking_call(resolved)
        if breaking is None:  # ``accelerator.print(...)`` on a module-level object resolves to the object's name
            if not self._object_method(node):
                self._native(node, resolved)
            return
        gb_id, whole = breaking
        confidence = Confidence.LIKELY if self._through_optional_renaming(node.func, written) else None
        self.report(node, gb_ids=(gb_id,) if whole else None, pattern=package if whole else "", confidence=confidence,
                    call=f"{resolved}()", gb=gb_id, measured=MEASURED_ON)

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        for target in node.targets:
            self._item_written(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._item_written(node.target)

    def _item_written(self, target: cst.BaseAssignTargetExpression) -> None:
        """``os.environ[key] = value``: the mapping's ``__setitem__``, measured as a call (it breaks; reading the
        environment traces)."""
        if not isinstance(target, cst.Subscript):
            return
        mapping = self.context.resolve(target.value)
        written = f"{mapping}.__setitem__" if mapping else None
        if written in SKIPPED_LIBRARY_CALLS:
            gb_id, _ = SKIPPED_LIBRARY_CALLS[written]
            self.report(target, call=f"{mapping}[key] = value", gb=gb_id, measured=MEASURED_ON)

    def _object_method(self, node: cst.Call) -> bool:
        """A method of an object a library built, held by a local, a module-level name or ``self`` (``km = KMeans(2)``
        then ``km.fit(x)``; ``self.accelerator = Accelerator()`` then ``self.accelerator.print(...)``): one measured
        to break (``accelerate.Accelerator.print``), or any of an object of a skipped package; or a method of ``self``
        that a library base gives."""
        func = node.func
        if not isinstance(func, cst.Attribute):
            return False
        if is_self(func.value):
            return self._inherited_method(node, func.attr.value)
        built = self.locals.built(func.value) or constructed_by(self.context, func.value)
        if built is None:
            return False
        measured = SKIPPED_LIBRARY_CALLS.get(f"{built}.{func.attr.value}")
        if measured is not None:
            self.report(node, gb_ids=(measured[0],), pattern="method", call=f"{built}(...).{func.attr.value}()",
                        gb=measured[0], measured=MEASURED_ON)
        elif skipped_object(built):
            self.report(node, gb_ids=OBJECT_METHOD_GB_IDS, pattern="object", call=f"{built}(...).{func.attr.value}()",
                        gb=" or ".join(OBJECT_METHOD_GB_IDS), measured=MEASURED_ON)
        else:
            return False
        return True

    def _inherited_method(self, node: cst.Call, name: str) -> bool:
        """``self.log(...)`` in a ``LightningModule``'s step: a method no class of the tree along the MRO defines, that
        a library base gives and that is measured to break (``lightning.pytorch.LightningModule.log``)."""
        owner = enclosing_class(self.context)
        if owner is None or self.context.program.method(owner, name) is not None:
            return False
        inherited = inherited_breaking_method(lineage(self.context, owner), name)
        if inherited is None:
            return False
        measured, gb_id = inherited
        self.report(node, gb_ids=(gb_id,), pattern="method", call=f"{measured}()", gb=gb_id, measured=MEASURED_ON)
        return True

    def _native(self, node: cst.Call, resolved: str) -> None:
        """A call of a function (or class) of a compiled extension module."""
        if "." not in resolved or resolved in self.context.program.functions or resolved in self.context.program.classes:
            return
        module = native_callee(self.context.program, resolved)
        if module is not None:
            self.report(node, gb_ids=NATIVE_GB_IDS, pattern="native", confidence=Confidence.LIKELY,
                        call=f"{resolved}()", gb=f"native code of `{module}`: {' or '.join(NATIVE_GB_IDS)}",
                        measured=MEASURED_ON)

    def _through_optional_renaming(self, func: cst.BaseExpression, resolved: str) -> bool:
        """Whether the call goes through a renaming that only one branch of a ``try`` / ``if`` makes (here, or
        in the module it is imported from): where the optional package is missing, the other branch runs."""
        head = dotted_name(func)
        if head is not None and head.partition(".")[0] in self.context.summary.imports.optional:
            return True
        owner, _, name = resolved.rpartition(".")
        defining = self.context.program.modules.get(owner)
        return defining is not None and name in defining.imports.optional

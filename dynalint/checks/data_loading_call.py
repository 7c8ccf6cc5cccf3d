"""DYN510 ``data-loading-call``: a ``torch.utils.data`` dataset or loader used in compiled code.

Page: ``rules/DYN510-data-loading-call.md``. Measured on torch 2.13: Dynamo skips the code of
``torch.utils.data``, so building a ``DataLoader`` or a dataset, ``len()`` of either, iterating a loader
(``for batch in loader``, ``iter(loader)``, ``next(...)`` of its iterator) and indexing a dataset each break
at their line (GB0008). Reading a plain attribute (``loader.batch_size``) does not.

A data object is known by what it is: a parameter annotated with a ``torch.utils.data`` class
(``train_loader: DataLoader``, ``DataLoader | None``), a local, module-level name or attribute built by
one, ``loader.dataset`` of a known loader, and an iterator made by ``iter()`` of a known loader. An
unannotated parameter named as a loader (``loader``, ``train_loader``, ``dataloader``) is taken for one,
``likely``: torchensemble's ``fit(self, train_loader, ...)`` loops over its batches inside the compiled
call, and each ``for ... in enumerate(train_loader)`` broke there (GB0008). So are a local so named that a
function or a method made, and a ``self`` attribute so named that no class is known to build (laplace's GP
``fit`` and ``functional_variance``), as DYN509 takes optimizers.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis import type_hints
from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.instances import constructed_by, is_self
from dynalint.lint.rule import LocalObjectRule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

DATA = "torch.utils.data."
# What ``LocalConstructions`` holds for ``batches = iter(loader)``: no qualified name, so never what ``bind``
# records for another ``iter(...)`` (``builtins.iter``).
ITERATOR = "<iterator of a torch.utils.data loader>"
NAMED_ITERATOR = "<iterator of a loader known by its name>"  # ``likely`` as that loader is
ITERATING = frozenset({"len", "iter", "next", "list", "enumerate", "zip"})
# ``batches = iter(loader)`` and ``batches = enumerate(loader)`` bind an iterator of the loader. ``iter`` breaks at
# its line; ``enumerate`` is lazy under Dynamo: the break comes where the local is iterated or ``next`` is called
# (GB0008 there, measured on torch 2.13; laplace's ``loader = enumerate(train_loader)`` then ``for i, data in
# loader:``). A ``zip`` over a loader that a ``for`` then iterates broke at the ``zip`` line (measured).
LAZY_OR_ITER = frozenset({"iter", "enumerate"})
# What ``LocalConstructions`` holds for a ``likely`` loader: an unannotated parameter named as one, or one
# annotated with a union that allows a ``DataLoader`` among other types.
NAMED_LOADER = "<a parameter named as a loader>"
# ``train_dl`` / ``valid_dl``: pytorch-accelerated's loops iterate loaders so named (GB0008 there on the bench).
LOADER_NAME = re.compile(r"(?:^|_)(?:(?:data)?loader|dl)$")


def data_class(qualified: str | None) -> str | None:
    """``DataLoader`` for ``torch.utils.data.DataLoader`` (or a submodule's path), else ``None``."""
    if not qualified or not qualified.startswith(DATA):
        return None
    name = qualified.rsplit(".", 1)[-1]
    return name if name[:1].isupper() or name == "random_split" else None


class DataLoadingCall(LocalObjectRule):
    code = "DYN510"
    name = "data-loading-call"
    message = "`{call}` in compiled code breaks the graph: Dynamo skips torch.utils.data's datasets and loaders"
    help = "Load the batch outside the compiled function and pass its tensors in"
    gb_ids = ("GB0008",)
    supersedes = ("DYN520",)  # ``next()`` of a loader's iterator kept on an attribute: the loader is what breaks

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._lazy: set[cst.Call] = set()  # ``enumerate(loader)`` calls bound to a local: not where it breaks

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self.declare_named_parameters(node, LOADER_NAME, NAMED_LOADER)
        for param in named_parameters(node.params):
            named = [data_class(c) for c in type_hints.classes_named(self.context.annotation(param.name.value))]
            if named and all(named):
                self.locals.declare(param.name.value, DATA + str(named[0]))
            elif "DataLoader" in named:  # ``train_loader: DataLoader | MutableMapping``: probably the loader
                self.locals.declare(param.name.value, NAMED_LOADER)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in LAZY_OR_ITER
                and value.args and self._data(value.args[0].value)):
            iterator = NAMED_ITERATOR if self._sureness(value.args[0].value) is Confidence.LIKELY else ITERATOR
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.locals.declare(target.target.value, iterator)
            if value.func.value == "enumerate":
                self._lazy.add(value)  # breaks where the local is iterated, not here
            return
        super().visit_Assign(node)
        if (isinstance(value, cst.Call) and not self.builds_a_class(value)
                and not (self.context.resolve(value.func) or "").startswith("builtins.")):
            # ``train_loader = self._get_SoD_data_loader(train_loader)`` (laplace's GP fit): a local named as a
            # loader that a function or a method made is likely one, as a parameter so named is (not a builtin's
            # result: ``loader = enumerate(batches)`` of anything else is no loader)
            for target in node.targets:
                name = target.target
                if isinstance(name, cst.Name) and LOADER_NAME.search(name.value) and not self._data(name):
                    self.locals.declare(name.value, NAMED_LOADER)

    def visit_For(self, node: cst.For) -> None:
        self._iterated(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter)  # ``[f(b) for b in loader]``: the same ``iter()`` (GB0008, measured)

    def _iterated(self, iterable: cst.BaseExpression) -> None:
        if self._data(iterable):
            self.report(iterable, confidence=self._sureness(iterable),
                        call=f"iter({cst.Module([]).code_for_node(iterable)})")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._data(node.value) not in (None, "DataLoader", ITERATOR):
            self.report(node, confidence=self._sureness(node.value),
                        call=f"{cst.Module([]).code_for_node(node.value)}[...]")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        built = data_class(self.context.resolve(func))
        if built:
            self.report(node, call=f"{built}()")
        elif (isinstance(func, cst.Name) and func.value in ITERATING and node.args and self._data(node.args[0].value)
              and node not in self._lazy):
            self.report(node, confidence=self._sureness(node.args[0].value), call=f"{func.value}()")
        elif isinstance(func, cst.Attribute) and self._data(func.value):
            self.report(node, confidence=self._sureness(func.value), call=f".{func.attr.value}()")

    def _sureness(self, node: cst.BaseExpression) -> Confidence | None:
        """``likely`` for a loader known only by its name or a union (or its ``.dataset``), else the rule's."""
        while isinstance(node, cst.Attribute) and node.attr.value == "dataset":
            node = node.value
        return Confidence.LIKELY if self.locals.built(node) in (NAMED_LOADER, NAMED_ITERATOR) or self._named_attribute(
            node) else None

    def _returned(self, call: cst.Call) -> str | None:
        """The data class a function of the tree is annotated to return (laplace's ``subset_loader(loader, indices)
        -> DataLoader``, iterated at once: ``for batch in subset_loader(...)``)."""
        callee = self.context.resolve_call(call.func)
        entry = self.context.program.functions.get(callee.function) if callee is not None else None
        if entry is None:
            return None
        named = [data_class(c) for c in type_hints.classes_named(entry.definition.returns)]
        return named[0] if named and all(named) else None

    def _named_attribute(self, node: cst.BaseExpression) -> bool:
        """``self.train_loader`` that no class of the tree is known to build (laplace keeps the loader its ``fit``
        was given, then loops over it in ``functional_variance``): the attribute counterpart of a local so named.
        Only ``self``'s: a loader read off another object is not taken by its name (the ground truth saw
        pytorch-accelerated's callbacks' ``len(trainer._train_dataloader)`` trace without a break)."""
        return isinstance(node, cst.Attribute) and is_self(node.value) and self.named_and_unbuilt(
            node, LOADER_NAME, constructed_by(self.context, node))

    def _data(self, node: cst.BaseExpression) -> str | None:
        """What data object ``node`` is (``DataLoader``, ``TensorDataset``, the iterator of one), or ``None``."""
        if isinstance(node, cst.Attribute) and node.attr.value == "dataset" and self._data(node.value):
            return "Dataset"
        if isinstance(node, cst.Call):
            return self._returned(node)
        built = self.locals.built(node)
        if built in (ITERATOR, NAMED_ITERATOR):
            return ITERATOR
        if built == NAMED_LOADER:
            return "DataLoader"
        found = data_class(built or constructed_by(self.context, node))
        if found is None and isinstance(node, cst.Attribute):  # ``self.loader = loader`` with ``loader: DataLoader``
            found = next((d for d in map(data_class, self.context.declared(node)) if d), None)
        if found is None and self._named_attribute(node):
            return "DataLoader"
        return found


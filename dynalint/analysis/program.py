"""Program stage: link module summaries into a call graph and compute the compiled regions.

Input: the ``ModuleSummary`` of every file (``summary.py``). Output: a ``Program`` that answers, for a
module-qualified function name, the ``Region`` it belongs to (why it is compiled, how sure we are) and
what a call written inside a function resolves to, across files: imports (absolute, relative,
``from pkg import mod``), re-exports through ``__init__``, methods and inherited methods, sub-modules
(``self.block(x)`` runs ``Block.forward``; iterating ``self.layers`` runs each item's ``forward``),
factories that return a model. Entry points are ``torch.compile`` sites; regions are everything
reachable from them, breadth first so that each why-chain is a shortest one. ``forward`` methods that
no entry point reaches become ``likely`` regions, and so do the functions registered as an ``nn.Module``'s forward
hooks, which the module's call runs. Functions Dynamo never traces (``disable``d ones,
custom ops, leaf functions) are never regions. Nothing here looks at LibCST.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from dynalint.analysis import dispatch, type_hints
from dynalint.analysis.in_graph_functions import IN_GRAPH_FUNCTIONS
from dynalint.analysis.named_classes import NamedClasses
from dynalint.analysis.qualified_names import BUILTIN_NAMES
from dynalint.analysis.summary import (
    VAR_KEYWORD,
    VAR_POSITIONAL,
    CallSite,
    ClassSummary,
    CompileSite,
    FunctionSummary,
    ModuleSummary,
)
from dynalint.analysis.tensor_method_names import TENSOR_METHOD_NAMES
from dynalint.analysis.torch_facts import (
    AUTOGRAD_FUNCTION_BASES,
    AUTOGRAD_RUNS,
    DATACLASS_DECORATORS,
    FRAMEWORK_INSTANCE_CALLS,
    IS_COMPILING,
    PYDANTIC_MODEL_BASES,
    PYDANTIC_VALIDATORS,
    RECURRENT_LAYERS,
    TENSOR_BASES,
    TorchResult,
    is_module_base,
    torch_result,
)
from dynalint.analysis.type_hints import Annotation, classes_named
from dynalint.analysis.values.lattice import Kind, ValueType
from dynalint.model.dynamo_settings import DynamoSettings
from dynalint.model.finding import ChainLink, Confidence, Region

_MAX_ALIAS_HOPS = 16
# How a region that the configuration's ``compiled`` names begins (``ChainLink.how``): a function entered from
# compiled code outside the tree, which may be inlined into its caller's frame rather than start one.
DECLARED_COMPILED = "declared compiled"
# ``value.method(...)`` with the value's class unknown is resolved by the method's name only when at most
# this many classes of the tree define it: past that, the name says too little to follow (``Program._by_name``).
# 12 covers a family of flow transforms or kernels (zuko's ``call_and_ladj``); on the ground truth's development
# half it kept precision at 0.95 where 4 did (issue 22, third round).
_MAX_BY_NAME = 12
_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "abstractproperty"})
# Decorators that leave a method's parameters as they are: a method with any other decorator may be called with
# any arguments (a wrapper's ``*args, **kwargs``), so ``Program.accepts`` does not rule it out.
_SIGNATURE_KEEPING = frozenset({
    "staticmethod", "classmethod", "abstractmethod", "abc.abstractmethod", "override", "typing.override",
    "typing_extensions.override", "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.jit.unused",
    "torch.jit.ignore", "torch.jit.export",
})
_BUILTIN_METHOD_NAMES = frozenset(name for kind in (list, dict, set, frozenset, tuple, str, bytes, int, float)
                                  for name in dir(kind) if not name.startswith("_"))
# Dynamo does not trace an ``nn.RNN`` / ``LSTM`` / ``GRU`` (``allow_rnn`` is off): the call breaks (DYN505)
# and the ``forward`` runs eagerly.
_RECURRENT_FORWARDS = frozenset(f"torch.nn.modules.rnn.{layer}.forward" for layer in (*RECURRENT_LAYERS, "RNNBase"))


PROTOCOL_BASES = frozenset({"typing.Protocol", "typing_extensions.Protocol"})
_CALLABLE_TYPES = frozenset({"typing.Callable", "collections.abc.Callable"})


@dataclass(frozen=True)
class Callee:
    """What a call written in the source resolves to."""

    function: str  # module-qualified name
    disabled: bool
    via: str = ""  # dynamic dispatch: the expression whose possible values run it (``self.processor``)
    # ``fn(...)`` in a decorator's inner function: one of the functions it decorates, followed only where
    # the inner function is compiled itself (reached as a decorated function's wrapper, ``fn`` is that one)
    wrapped: bool = False


class FunctionRecord(NamedTuple):
    """A function of the tree and the module that defines it (whose imports qualify what it writes)."""

    module: ModuleSummary
    definition: FunctionSummary


class ClassRecord(NamedTuple):
    """A class of the tree and the module that defines it."""

    module: ModuleSummary
    definition: ClassSummary


@dataclass(frozen=True)
class AttributeType:
    """What ``self.<attr> = ...`` in a class's ``__init__`` (or a base's) holds."""

    module: ModuleSummary  # the module where the assignment is written: its imports qualify the names
    constructor: str | None = None  # ``self.attr = Block(...)``: ``Block`` as written (or qualified)
    items: tuple[str, ...] = ()  # ``nn.ModuleList([Block(), ...])``: each item's constructor as written
    is_tensor: bool = False  # a parameter or buffer (``nn.Parameter(...)``, ``torch.zeros(...)``)
    is_container: bool = False

    @property
    def is_torch_layer(self) -> bool:
        """Built by a ``torch.nn`` constructor: calling it runs a torch layer."""
        return bool(self.constructor and self.constructor.startswith("torch.nn."))


def _imported(module: ModuleSummary, source: str) -> bool:
    """A dispatch source naming what the module imports, or a builtin (``new:nn.MultiheadAttention``, ``new:dict``)."""
    kind, _, written = source.partition(":")
    head = written.partition(".")[0]
    return kind + ":" in (dispatch.NEW, dispatch.REF) and (head in module.imports.aliases or head in BUILTIN_NAMES)


def _from_constructor(source: str) -> bool:
    """A dispatch source that is what a constructor's callers pass (``arg:Model.__init__:0:encoder``)."""
    argument = dispatch.argument_of(source)
    return argument is not None and argument[0].endswith(".__init__")


@dataclass
class Program:
    modules: dict[str, ModuleSummary]  # module name -> summary
    functions: dict[str, FunctionRecord] = field(default_factory=dict)
    classes: dict[str, ClassRecord] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    settings: DynamoSettings = field(default_factory=DynamoSettings)  # config + tree assignments
    _collectives_memo: dict[str, bool] = field(default_factory=dict, repr=False)
    _mro_memo: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _attributes_memo: dict[str, dict[str, AttributeType]] = field(default_factory=dict, repr=False)
    _parameters_memo: dict[str, dict[str, ValueType]] = field(default_factory=dict, repr=False)
    _returns_memo: dict[str, ValueType] = field(default_factory=dict, repr=False)
    _subclass_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    _subclass_attributes_memo: dict[tuple[str, str], list[AttributeType]] = field(default_factory=dict, repr=False)
    _registrations: dict[str, list[tuple[ModuleSummary, str]]] | None = field(default=None, repr=False)
    _call_arguments: dict[str, list[tuple[ModuleSummary, int, str | None, list[str]]]] | None = field(
        default=None, repr=False)
    # Every call site in compiled code, by the function it runs: (the caller, the call). Filled while the
    # regions are computed, which resolves each call of each compiled function once.
    callers: dict[str, list[tuple[str, CallSite]]] = field(default_factory=dict, repr=False)
    _passed_memo: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    _by_name_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    _named_classes_memo: NamedClasses | None = field(default=None, repr=False)
    _attribute_names_memo: frozenset[str] | None = field(default=None, repr=False)
    _interfaces_memo: dict[str, int] = field(default_factory=dict, repr=False)
    _hook_handles_memo: tuple[frozenset[str], frozenset[str]] | None = field(default=None, repr=False)
    _bound_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    _tensor_subclass_names_memo: frozenset[str] | None = field(default=None, repr=False)
    _tensorclass_names_memo: frozenset[str] | None = field(default=None, repr=False)
    _recurrent_attributes_memo: frozenset[str] | None = field(default=None, repr=False)
    _property_names_memo: frozenset[str] | None = field(default=None, repr=False)
    _packages_memo: frozenset[str] | None = field(default=None, repr=False)
    _namespaces_memo: frozenset[tuple[str, str]] | None = field(default=None, repr=False)
    _wrappers_memo: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _nested_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    _decorated_memo: dict[str, list[str]] | None = field(default=None, repr=False)
    # (caller, callee as written) -> what the call may run; kept only once ``link`` has computed the regions (the
    # lint stage asks the same calls again for every rule that follows one), never while they are computed.
    _calls_memo: dict[tuple[str, str], tuple[Callee, ...]] | None = field(default=None, repr=False)

    # -- names ----------------------------------------------------------------------------------
    def canonical(self, qualified: str | None) -> str | None:
        """Follow re-exports: ``pkg.Model`` -> ``pkg.model.Model`` when ``pkg/__init__`` imports it, by name or
        with ``from .model import *``; and namespace packages: ``ns.tools.helper`` -> ``tools.helper``, see
        ``_namespace_free``."""
        for _ in range(_MAX_ALIAS_HOPS):
            if qualified is None or qualified in self.functions or qualified in self.classes:
                return qualified
            qualified = self._namespace_free(qualified)
            parts = qualified.split(".")
            for cut in range(len(parts) - 1, 0, -1):
                module = self.modules.get(".".join(parts[:cut]))
                if module is not None:
                    target = module.imports.aliases.get(parts[cut]) or self._star_export(module, parts[cut])
                    if target is None:
                        return qualified
                    qualified = ".".join([target, *parts[cut + 1:]])
                    break
            else:
                return qualified
        return qualified

    def _star_export(self, module: ModuleSummary, name: str) -> str | None:
        """The function or class of the tree that ``from x import *`` in ``module`` binds as ``name``: the first
        star-imported module (in the order written; a later one would rebind it, rarely) defining it, or
        re-exporting it in turn. ``None`` for a private name, which a star import leaves out, or one
        ``module`` defines itself."""
        if not module.imports.star_imports or name.startswith("_") or name in module.imports.local_names:
            return None
        return self._star_exported(module, name, {module.module})

    def _star_exported(self, module: ModuleSummary, name: str, seen: set[str]) -> str | None:
        """``_star_export`` past the checks on ``module``: a star-imported module that defines ``name`` or imports
        it by name, or one whose own star imports reach it (``from ..layers import *`` first, whose package
        re-exports its submodules with stars, then ``from ..inputs import *`` defining it: deepctr-torch)."""
        for source in module.imports.star_imports:
            found = self.modules.get(source)
            if found is None or source in seen:
                continue
            seen.add(source)
            candidate = f"{source}.{name}"
            if candidate in self.functions or candidate in self.classes or name in found.imports.aliases:
                return candidate  # an import by name is followed by ``canonical``'s next hop
            if found.imports.star_imports and self._star_exported(found, name, seen) is not None:
                return candidate
        return None

    def _namespace_free(self, qualified: str) -> str:
        """``qualified`` without the name of a namespace package (a folder without ``__init__.py``, PEP 420)
        that holds modules of the tree: those modules are named from below that folder (``files.module_name``),
        while the code importing them writes the folder's name too (``from pytorch_tabnet import sparsemax``)."""
        head, _, rest = qualified.partition(".")
        if rest and (head, rest.partition(".")[0]) in self._namespaces():
            return rest
        return qualified

    def _namespaces(self) -> frozenset[tuple[str, str]]:
        """``(folder, top-level name)`` for the folder holding each outermost module or package of the tree."""
        if self._namespaces_memo is None:
            held = set()
            for name, summary in self.modules.items():
                if not name:
                    continue
                top = name.partition(".")[0]
                # ``a/b.py`` is ``a.b`` (the folder above ``a`` holds it); ``a/__init__.py`` is ``a``.
                path = Path(summary.path).absolute()  # a display path may be relative; no file is read
                depth = name.count(".") + (path.name == "__init__.py")
                parents = path.parents
                if depth < len(parents) and parents[depth].name:
                    held.add((parents[depth].name, top))
            self._namespaces_memo = frozenset(held)
        return self._namespaces_memo

    def resolve_name(self, module: ModuleSummary, written: str) -> str | None:
        """Qualified, re-export-free name of ``written`` as seen from ``module``."""
        if written in self.functions or written in self.classes:
            return written
        resolved = module.imports.resolve(written)
        if resolved is None and written.partition(".")[0] in self.modules:
            # Already qualified by the summary (a base written ``from pkg.conv import Base``), and
            # re-exported: ``pkg.conv.Base`` is ``pkg.conv.base.Base``.
            resolved = written
        return self.canonical(resolved)

    def resolve_class(self, module: ModuleSummary, written: str) -> str | None:
        """Qualified name of a class written as ``written`` in ``module``, if it is in the tree.

        ``written`` may already be qualified (summaries store bases and attribute types resolved).
        """
        qualified = self.resolve_name(module, written)
        if qualified in self.classes:
            return qualified
        local = module.qualify(written)
        return local if local in self.classes else None

    def instance_class(self, module: ModuleSummary, written: str) -> str | None:
        """The class of ``written(...)``: a class itself, or a factory function that returns one."""
        cls = self.resolve_class(module, written)
        if cls is not None:
            return cls
        factory = self.resolve_name(module, written)
        if factory in self.functions:
            factory_module, function = self.functions[factory]
            if function.returns_class:
                return self.resolve_class(factory_module, function.returns_class)
        return None

    # -- classes --------------------------------------------------------------------------------
    def bases(self, class_qualified: str) -> list[str]:
        """The direct bases of a class that are classes of the tree, in the order written."""
        module, cls = self.classes[class_qualified]
        return [b for b in (self.resolve_class(module, base) for base in cls.bases) if b]

    def mro(self, class_qualified: str) -> tuple[str, ...]:
        """The class and its bases in the tree, in Python's method resolution order (C3).

        Bases outside the tree are left out. Where C3 has no answer (a cycle, or an order Python would
        refuse), the order falls back to depth first, left to right, each class once.
        """
        if class_qualified not in self._mro_memo:
            self._mro_memo[class_qualified] = ()  # a cycle reads an empty order, never recurses forever
            self._mro_memo[class_qualified] = self._linearize(class_qualified)
        return self._mro_memo[class_qualified]

    def _linearize(self, class_qualified: str) -> tuple[str, ...]:
        if class_qualified not in self.classes:
            return ()
        bases = self.bases(class_qualified)
        pending = [list(self.mro(base)) for base in bases if self.mro(base)] + [list(bases)]
        order = [class_qualified]
        while any(pending):
            pending = [seq for seq in pending if seq]
            head = next((seq[0] for seq in pending if not any(seq[0] in other[1:] for other in pending)), None)
            if head is None:
                return _depth_first(class_qualified, self.bases)
            order.append(head)
            pending = [seq[1:] if seq[0] == head else seq for seq in pending]
        return tuple(dict.fromkeys(order))

    def attribute_types(self, class_qualified: str) -> dict[str, AttributeType]:
        """``self.<attr>`` -> what it holds, for the class and its bases (the first in the MRO wins).

        Empty for a name that is not a class of the tree.
        """
        if class_qualified not in self._attributes_memo:
            found: dict[str, AttributeType] = {}
            for current in self.mro(class_qualified):
                module, cls = self.classes[current]
                own = {
                    **{a: AttributeType(module, constructor=t) for a, t in cls.attr_types.items()},
                    **{a: AttributeType(module, items=tuple(i), is_container=True) for a, i in cls.container_items.items()},
                    **{a: AttributeType(module, is_tensor=True) for a in cls.tensor_attrs},
                }
                for attr, held in own.items():
                    found.setdefault(attr, held)
            self._attributes_memo[class_qualified] = found
        return self._attributes_memo[class_qualified]

    def has_optional_keys(self, qualified: str) -> bool:
        """Whether the class is a ``TypedDict`` some of whose keys may be missing, its own or a base's."""
        return qualified in self.classes and any(self.classes[c].definition.optional_keys for c in self.mro(qualified))

    def is_module_class(self, qualified: str) -> bool:
        """Whether the class derives from ``torch.nn.Module`` (through bases in the tree)."""
        return any(
            is_module_base(self.base_name(self.classes[current].module, base)) for current in self.mro(qualified)
            for base in self.classes[current].definition.bases
        )

    def base_name(self, module: ModuleSummary, base: str) -> str | None:
        """A base class as ``module`` names it, followed through re-exports; a name a star import binds as well
        (deepctr-torch's ``class InterestExtractor(nn.Module)``, ``nn`` coming from ``from ..layers import *``)."""
        head, dot, rest = base.partition(".")
        export = self._star_export(module, head) if module.imports.star_imports and not (
            module.imports.resolve(head) or head in module.imports.local_names) else None
        return self.canonical(f"{export}{dot}{rest}" if export else base)

    def method(self, class_qualified: str, name: str) -> str | None:
        """Module-qualified name of ``name`` on the class or the first class in its MRO that has it."""
        for current in self.mro(class_qualified):
            if self._defines(current, name):
                module, cls = self.classes[current]
                return module.qualify(f"{cls.qualname}.{name}")
        return None

    def _defines(self, class_qualified: str, name: str) -> bool:
        """Whether the class itself (not a base) defines method ``name``."""
        module, cls = self.classes[class_qualified]
        return module.qualify(f"{cls.qualname}.{name}") in self.functions

    def forward(self, class_qualified: str | None) -> str | None:
        if class_qualified is None or not self.is_module_class(class_qualified):
            return None
        return self.method(class_qualified, "forward")

    def instance_call(self, class_qualified: str | None) -> list[str]:
        """What calling an instance of a class of the tree runs: its ``__call__`` where the tree defines
        one (for an ``nn.Module`` it usually ends in ``super().__call__``), and an ``nn.Module``'s
        ``forward``."""
        if class_qualified is None or class_qualified not in self.classes:
            return []
        call = self.method(class_qualified, "__call__")
        forward = self.method(class_qualified, "forward") if self.is_module_class(class_qualified) else None
        called = [f for f in (call, forward) if f]
        return called + [f for f in self._framework_methods(class_qualified) if f not in called]

    def _framework_methods(self, class_qualified: str) -> list[str]:
        """The methods of the class that a base outside the tree calls when an instance is called
        (``FRAMEWORK_INSTANCE_CALLS``: ``torchmetrics.Metric``'s ``forward`` runs ``update`` and ``compute``)."""
        names = [name for current in self.mro(class_qualified) for base in self.classes[current].definition.bases
                 for name in FRAMEWORK_INSTANCE_CALLS.get(self.canonical(base) or "", ())]
        return [f for name in names if (f := self.method(class_qualified, name))]

    def attribute_classes(self, class_qualified: str, attr: str) -> list[str]:
        """Classes held by ``self.attr``: one for ``Block()``, each item for a ``ModuleList``/``Sequential``."""
        held = self.attribute_types(class_qualified).get(attr)
        if held is None or held.is_tensor:
            return []
        if held.is_container:
            items = (self.instance_class(held.module, written) for written in held.items)
            return list(dict.fromkeys(c for c in items if c))
        cls_name = self.instance_class(held.module, held.constructor) if held.constructor else None
        return [cls_name] if cls_name else []

    def display_name(self, qualified: str) -> str:
        """A function's name inside its module (``Model.forward``), as findings show it."""
        return self.functions[qualified].definition.qualname

    # -- calls ----------------------------------------------------------------------------------
    def is_disabled(self, qualified: str) -> bool:
        entry = self.functions.get(qualified)
        return bool(entry and entry.definition.disabled)

    def is_traced(self, qualified: str) -> bool:
        """Whether Dynamo traces the function's body when compiled code calls it: not a ``disable``d or
        leaf function, and (linting torch itself) not one Dynamo puts in the graph whole
        (``F.interpolate``) nor a recurrent layer's ``forward``, which Dynamo refuses to trace."""
        entry = self.functions.get(qualified)
        return (entry is not None and not entry.definition.disabled and not entry.definition.not_traced
                and qualified not in IN_GRAPH_FUNCTIONS and qualified not in _RECURRENT_FORWARDS)

    def callees(self, caller: str) -> list[tuple[CallSite, Callee]]:
        """Every call written in ``caller`` with each function of the tree it may run."""
        entry = self.functions.get(caller)
        if entry is None:
            return []
        return [(site, callee) for record in entry.definition.calls for site in (CallSite(*record),)
                for callee in self.resolve_calls(caller, record[1])
                if not callee.via or self.accepts(callee.function, site)] + [
                (CallSite(line, written), callee) for line, written in entry.definition.reads
                for callee in self.resolve_read(caller, written)]

    def accepts(self, qualified: str, call: CallSite) -> bool:
        """Whether ``call``, written ``value.name(...)``, may run the method ``qualified`` of that name, as Python binds
        arguments: dispatch by a method's name finds every class's method of that name (pypose's ``input.Exp()``
        finds ``LieTensor.Exp(self)`` and each Lie type's ``Exp(self, x)``), and one that needs an argument the call
        does not give, or takes fewer than it gives, or no keyword it gives, is not what runs. ``True`` whenever
        that is not known: a splat, another callee written, a decorator that may change what it takes."""
        definition = self.functions[qualified].definition
        owner, _, name = definition.qualname.rpartition(".")
        if (not call.shape_known or not definition.class_name or owner != definition.class_name
                or call.callee.rpartition(".")[2] != name
                or not all(decorator in _SIGNATURE_KEEPING for decorator in definition.decorators)):
            return True
        positional, required, flags = definition.signature
        names = [parameter for parameter, _ in definition.params]
        first = 0 if "staticmethod" in definition.decorators else 1  # ``self`` or ``cls`` is bound
        given = sum(isinstance(slot, int) for slot in call.given)
        keywords = {slot for slot in call.given if isinstance(slot, str)}
        if given > positional - first and not flags & VAR_POSITIONAL:
            return False
        if not flags & VAR_KEYWORD and not keywords <= set(names[first:]):
            return False
        return all(parameter in keywords for parameter in names[first + given:required])

    def resolve_read(self, caller: str, written: str) -> list[Callee]:
        """The property getters reading ``written`` (``self.mean``, ``dist.covariance_matrix``) inside
        ``caller`` may run: Dynamo traces a getter as it traces a called method. Resolved as the call
        ``written()`` would be, then only getters are kept."""
        if written.rpartition(".")[2] not in self._property_names():
            return []
        module, function = self.functions[caller]
        targets = [t for t in self._targets(module, function, written) if self.is_property(t)]
        overrides = [t for t in self._overrides(module, function, written) if self.is_property(t)]
        if not targets and not overrides:
            overrides = [t for t in self._by_name(module, function, written) if self.is_property(t)]
        return [Callee(t, self.is_disabled(t)) for t in targets] + [
            Callee(t, self.is_disabled(t), written) for t in dict.fromkeys(overrides) if t not in targets]

    def wrappers(self, qualified: str) -> list[str]:
        """What calling a decorated function also runs: the functions defined inside each decorator of the
        tree that decorates it (``@deprecated_arg(...)`` returns its ``wrapper``, a factory's decorator
        returns its own), which Dynamo traces around the body."""
        if qualified not in self._wrappers_memo:
            found = [inner for made in self._decorators_of(qualified) for inner in self._defined_inside(made)]
            self._wrappers_memo[qualified] = list(dict.fromkeys(found))
        return self._wrappers_memo[qualified]

    def _decorators_of(self, qualified: str) -> list[str]:
        """The functions of the tree that decorate the function ``qualified`` (``@eval_decorator``)."""
        module, definition = self.functions[qualified]
        found = (self.resolve_name(module, decorator) for decorator in definition.decorators)
        return [made for made in found if made in self.functions and made != qualified]

    def _made_by_factory(self, module: ModuleSummary, written: str) -> list[str]:
        """``_param = effectful(get_param, type="param")``: a name bound to what a function of the tree
        returns, which for a wrapper factory is one of the functions it defines; calling the name runs
        them (and the functions they define in turn)."""
        factory = self.resolve_name(module, written)
        return self._defined_inside(factory) if factory in self.functions else []

    def _enclosing_parameter_owner(self, module: ModuleSummary, function: FunctionSummary, name: str) -> str | None:
        """The function enclosing ``function`` (through functions only) whose parameter ``name`` is, when
        no function in between binds the name: a decorator whose inner function calls what it wraps."""
        if name in function.local_types or name in function.local_sources:
            return None
        for scope in self._function_scopes(module, function.qualname)[1:]:
            qualified = module.qualify(scope)
            if any(name == param for param, _ in self.functions[qualified].definition.params):
                return qualified
        return None

    def _function_scopes(self, module: ModuleSummary, qualname: str) -> list[str]:
        """``qualname`` (a function of ``module``) and the functions enclosing it, innermost first, up to
        the first class body or the module: Python's scoping skips a class body, so a method's names are
        not looked up there."""
        scopes = [qualname]
        while "." in scopes[-1] and module.qualify(parent := scopes[-1].rpartition(".")[0]) in self.functions:
            scopes.append(parent)
        return scopes

    def _decorated_by(self) -> dict[str, list[str]]:
        """Decorator of the tree -> the functions of the tree it decorates (built once per tree)."""
        if self._decorated_memo is None:
            self._decorated_memo = defaultdict(list)
            for qualified in self.functions:
                for made in self._decorators_of(qualified):
                    self._decorated_memo[made].append(qualified)
        return self._decorated_memo

    def _defined_inside(self, factory: str) -> list[str]:
        """The functions a decorator or a factory defines, two levels deep (``deco(...)(f)`` returns its own)."""
        inner = self._nested().get(factory, [])
        return list(dict.fromkeys(inner + [deeper for f in inner for deeper in self._nested().get(f, [])]))

    def _nested(self) -> dict[str, list[str]]:
        """Function -> the functions defined directly in its body (built once per tree)."""
        if self._nested_memo is None:
            self._nested_memo = defaultdict(list)
            for qualified in self.functions:
                parent = qualified.rpartition(".")[0]
                if parent in self.functions:
                    self._nested_memo[parent].append(qualified)
        return self._nested_memo

    def is_property(self, qualified: str) -> bool:
        """Whether the function is a property's getter (``@property``, ``@cached_property``)."""
        entry = self.functions.get(qualified)
        return entry is not None and any(d.rpartition(".")[2] in _PROPERTY_DECORATORS for d in entry.definition.decorators)

    def _property_names(self) -> frozenset[str]:
        """The names of every property getter of the tree (built once)."""
        if self._property_names_memo is None:
            self._property_names_memo = frozenset(
                name for name, methods in self._methods_by_name().items() if any(map(self.is_property, methods)))
        return self._property_names_memo

    def resolve_calls(self, caller: str, callee: str) -> Sequence[Callee]:
        """Every function in the tree that ``callee``, written inside ``caller``, may run."""
        memo = self._calls_memo
        if memo is None:
            return self._resolve_calls(caller, callee)
        found = memo.get((caller, callee))
        if found is None:
            found = memo[caller, callee] = tuple(self._resolve_calls(caller, callee))
        return found

    def _resolve_calls(self, caller: str, callee: str) -> list[Callee]:
        entry = self.functions.get(caller)
        if entry is None:
            return []
        module, function = entry
        if self._outside_the_tree(module, function, callee):
            return []
        named = dispatch.named_parameter(callee)
        if named is not None:
            return self._looked_up(caller, module, function, *named)
        alias = self._disabled_alias(module, callee)
        if alias is not None:
            return [Callee(alias, True)] if alias in self.functions else []
        targets = self._targets(module, function, callee)
        targets += [wrapper for target in targets for wrapper in self.wrappers(target) if wrapper not in targets]
        dispatched = self._overrides(module, function, callee)
        if not targets:
            dispatched += self._dispatched(module, function, callee)
        elif self._rebound_parameter(function, callee):
            dispatched += self._by_name(module, function, callee)
        if not targets and not dispatched:
            decorator = self._enclosing_parameter_owner(module, function, callee) if "." not in callee else None
            if decorator is not None:  # ``fn(self, *args)`` in the ``inner`` of ``def eval_decorator(fn)``
                return [Callee(t, self.is_disabled(t), callee, wrapped=True) for t in self._decorated_by().get(decorator, [])]
            dispatched = self._by_name(module, function, callee)
        via = callee.replace(dispatch.REGISTRY_CALL, "[...]")
        backward = self._applied_backward(module, callee) if targets else None
        return [Callee(t, self.is_disabled(t)) for t in targets] + [
            Callee(t, self.is_disabled(t), via) for t in dict.fromkeys(dispatched) if t not in targets] + (
            [Callee(backward, self.is_disabled(backward), callee)]  # likely: traced when an input requires grad
            if backward is not None and backward not in targets else [])

    def _looked_up(self, caller: str, module: ModuleSummary, function: FunctionSummary, receiver: str,
                   parameter: str) -> list[Callee]:
        """``getattr(receiver, name)(...)`` with ``name`` a parameter: the method of each name the function's callers
        pass (``call_event("on_train_step_end", self)``), resolved as ``receiver.on_train_step_end(...)`` would be
        (a framework's callback dispatch: pytorch-accelerated's ``call_event``, skorch's ``notify``)."""
        names: list[str] = []
        for source in dispatch.parameter_sources(function, parameter):
            if source.startswith(dispatch.ARGUMENT):
                names += [item[len(dispatch.NAME):] for _, _, item in self._passed_for(module, source[len(dispatch.ARGUMENT):])
                          if item.startswith(dispatch.NAME)]
        via = f"getattr({receiver}, {parameter})"
        return [replace(found, via=found.via or via) for name in dict.fromkeys(names)
                for found in self.resolve_calls(caller, f"{receiver}.{name}")]

    def _closed_over_class(self, module: ModuleSummary, function: FunctionSummary) -> str | None:
        """The class whose method a nested function sits in, where it reads that method's ``self`` (or ``cls``) as a
        closure: skorch's ``train_step`` defines ``step_fn``, which calls ``self._zero_grad_optimizer()``."""
        if any(name in ("self", "cls") for name, _ in function.params):
            return None
        qualname = function.qualname
        while "." in qualname:
            qualname = qualname.rpartition(".")[0]
            entry = self.functions.get(module.qualify(qualname))
            if entry is None:
                return None
            definition = entry.definition
            if definition.class_name and definition.params and definition.params[0][0] in ("self", "cls"):
                owner = module.qualify(definition.class_name)
                return owner if owner in self.classes else None
        return None

    @staticmethod
    def _rebound_parameter(function: FunctionSummary, callee: str) -> bool:
        """``callback.on_backward_end(...)`` where ``callback`` is a parameter the function rebinds to an instance
        (``if callback is None: callback = Callback()``, poutyne's batch steps): the local's class is what runs
        when the caller passes nothing; what a caller passes (a ``CallbackList``) is found by the method's name."""
        head, dot, rest = callee.partition(".")
        return (bool(dot) and "." not in rest and head in function.local_types
                and any(head == name for name, _ in function.params))

    def _outside_the_tree(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> bool:
        """``torch.cat(...)``, ``F.relu(...)``: a name imported from a package no module of the tree is in,
        and not shadowed by a local or a parameter, calls nothing of the tree (checked first, being most calls)."""
        head = callee.partition(".")[0]
        resolved = module.imports.resolve(head)
        if resolved is None or head in function.local_types or head in function.local_sources:
            return False
        if self._packages_memo is None:
            self._packages_memo = frozenset(name.partition(".")[0] for name in self.modules) | frozenset(
                folder for folder, _ in self._namespaces())
        return resolved.partition(".")[0] not in self._packages_memo and all(head != name for name, _ in function.params)

    def is_disabled_alias(self, module: ModuleSummary, written: str) -> bool:
        """Whether ``written`` names a ``fast = torch.compiler.disable(f)`` alias, wherever ``f`` is."""
        return self._disabled_alias(module, written) is not None

    def _disabled_alias(self, module: ModuleSummary, callee: str) -> str | None:
        """``fast = torch.compiler.disable(f)`` at module level, here or imported from another module."""
        if "." not in callee and callee in module.disabled_aliases:
            return self.resolve_name(module, module.disabled_aliases[callee]) or ""
        qualified = self.canonical(module.imports.resolve(callee))
        if qualified and "." in qualified:
            owner, _, name = qualified.rpartition(".")
            defining = self.modules.get(owner)
            if defining is not None and name in defining.disabled_aliases:
                return self.resolve_name(defining, defining.disabled_aliases[name]) or ""
        return None

    def resolve_call(self, caller: str, callee: str) -> Callee | None:
        found = self.resolve_calls(caller, callee)
        return found[0] if found else None

    def _targets(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> list[str]:
        if callee.endswith(dispatch.INSTANCE_CALL):  # ``Helper(...)(x)``: the new instance's ``__call__`` / ``forward``
            return self.instance_call(self.instance_class(module, callee[: -len(dispatch.INSTANCE_CALL)]))
        if dispatch.INSTANCE_METHOD in callee:  # ``Helper(...).run(x)``: that method of the new instance
            made, _, name = callee.rpartition(dispatch.INSTANCE_METHOD)
            if made == "super":  # ``super().run(x)``: the method of the next class of the caller's MRO
                return self._next_in_mro(module, function, name)
            cls = self.instance_class(module, made)
            found = self.method(cls, name) if cls else None
            return [found] if found else []
        parts = callee.split(".")
        own_class = module.qualify(function.class_name) if function.class_name else (
            self._closed_over_class(module, function) if parts[0] in ("self", "cls") else None)
        if parts[0] in ("self", "cls") and own_class and len(parts) in (2, 3):
            held = self.attribute_classes(own_class, parts[1])
            if len(parts) == 2:
                if held:
                    return [f for cls in held for f in self.instance_call(cls)]
                found = self.method(own_class, parts[1])
                return [found] if found else []
            return [f for f in (self.method(c, parts[2]) for c in held) if f]
        if len(parts) == 1:
            nested = self._closure_function(module, function, callee)
            if nested is not None:
                return [nested]
            if callee in function.loop_containers and own_class:
                held = self.attribute_classes(own_class, function.loop_containers[callee])
                return [f for cls in held for f in self.instance_call(cls)]
            local_type = function.local_types.get(callee) or module.module_types.get(callee)
            if local_type:
                called = self.instance_call(self.instance_class(module, local_type)) or self._made_by_factory(
                    module, local_type)
                if called:
                    return called
        if len(parts) == 2 and (function.local_types.get(parts[0]) or module.module_types.get(parts[0])):
            written = function.local_types.get(parts[0]) or module.module_types[parts[0]]
            cls = self.instance_class(module, written)
            if cls is None and any(written == name for name, _ in function.params):
                # ``m = subproblem(x, closure)`` then ``m.solve(r)``, with ``subproblem`` a parameter: the classes
                # the callers pass for it (torchmin's trust-region solvers).
                return self._methods_of(self.parameter_classes(module, function, written), parts[1])
            found = self.method(cls, parts[1]) if cls else None
            if found:
                return [found]
            if cls is not None and parts[1] in self._bound_methods():  # ``net.count()`` after ``net.count = f.__get__(net)``
                return self._bound_methods()[parts[1]]
        elif len(parts) == 2 and not module.module_types.get(parts[0]):
            found = self._annotated_method(function, parts[0], parts[1])
            if found:
                return [found]
        applied = self.applied_function(module, callee)
        if applied is not None:  # ``Scale.apply(x)``: Dynamo traces an autograd Function's ``forward``
            forward = self.method(applied, "forward")
            return [forward] if forward else []
        return self._called(self.resolve_name(module, callee) or self._star_name(module, function, callee))

    def _annotated_method(self, function: FunctionSummary, parameter: str, name: str) -> str | None:
        """``model.backward(t)`` with ``model: "pl.LightningModule"`` or ``Optional[Model]``: the method of the one
        class of the tree the annotation names (lightning's precision plugins). A plain ``model: Model`` is a local
        type already; these are kept out of ``local_types``, which also says what an attribute storing the
        parameter holds, where a string annotation is often looser than what callers pass (diffusers'
        ``set_processor(processor: "AttnProcessor")`` is given every processor class)."""
        named = [self.canonical(c) for c in classes_named(function.annotations.get(parameter)) if c]
        if len(named) != 1 or named[0] not in self.classes or parameter in function.local_sources:
            return None
        return self.method(named[0], name)

    def _star_name(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> str | None:
        """``truncated_svd(m)`` in a module that ``from .round import *``: the function or class of the tree the
        star import bound, unless a parameter or a local of the caller has the name."""
        head, dot, rest = callee.partition(".")
        if not module.imports.star_imports or head in function.local_types or head in function.local_sources or any(
                head == name for name, _ in function.params):
            return None
        export = self._star_export(module, head)
        return self.canonical(f"{export}{dot}{rest}") if export else None

    def applied_function(self, module: ModuleSummary, callee: str) -> str | None:
        """The autograd ``Function`` of the tree whose ``apply`` a call of ``callee`` runs, if it is one."""
        applies = self._applied(module, callee)
        applied = self.resolve_class(module, applies) if applies is not None else None
        return applied if applied is not None and self.is_autograd_function(applied) else None

    def _applied_backward(self, module: ModuleSummary, callee: str) -> str | None:
        """``backward`` of the autograd ``Function`` a call of ``callee`` applies. Measured on torch 2.13:
        when an input requires grad, Dynamo traces ``backward`` too while it traces the ``apply`` call, and
        a break in it is reported on its own line; under ``no_grad`` it is not traced."""
        applied = self.applied_function(module, callee)
        return self.method(applied, "backward") if applied is not None else None

    def _applied(self, module: ModuleSummary, callee: str) -> str | None:
        """The class whose ``apply`` a call of ``callee`` runs: ``Scale.apply(x)``, or ``scale(x)`` after
        ``scale = Scale.apply`` at the top of its module (imported from there too)."""
        target = callee if callee.endswith(".apply") else module.imports.resolve(callee) or ""
        for _ in range(_MAX_ALIAS_HOPS):
            if target.endswith(".apply"):
                return target[: -len(".apply")]
            owner, _, name = target.rpartition(".")
            defining = self.modules.get(owner)
            target = defining.imports.aliases.get(name, "") if defining is not None else ""
        return None

    def _next_in_mro(self, module: ModuleSummary, function: FunctionSummary, name: str) -> list[str]:
        """What ``super().<name>(...)`` in a method calls: ``name`` on the first class after the caller's own
        in its MRO that defines it (``super(Cls, self)`` is read as the caller's class, its usual spelling)."""
        if not function.class_name:
            return []
        own = module.qualify(function.class_name)
        for current in self.mro(own)[1:]:
            owner, cls = self.classes[current]
            found = owner.qualify(f"{cls.qualname}.{name}")
            if found in self.functions:
                return [found]
        return []

    def _closure_function(self, module: ModuleSummary, function: FunctionSummary, name: str) -> str | None:
        """The function ``name`` calls when a ``def`` of that name is nested in the caller or in a function
        enclosing it (a sibling helper of a closure); not through a class body, which Python's scoping
        skips, nor when a parameter of the caller shadows it."""
        if any(name == param for param, _ in function.params):
            return None
        return next((nested for scope in self._function_scopes(module, function.qualname)
                     if (nested := module.qualify(f"{scope}.{name}")) in self.functions), None)

    def _called(self, qualified: str | None) -> list[str]:
        """What calling ``qualified`` runs in the tree: the function, or for a class of the tree its ``__init__``
        (Dynamo traces a constructor called in compiled code: a break in it is a break there)."""
        if qualified in self.functions:
            return [qualified]
        if qualified in self.classes:
            constructor = self.method(qualified, "__init__")
            return [f for f in (self._metaclass_call(qualified), constructor, self._post_init(qualified)) if f] + (
                self._validators(qualified))
        return []

    def _validators(self, class_qualified: str) -> list[str]:
        """The field validators of a pydantic model (``@field_validator``, in its MRO), which its constructor runs
        (``PYDANTIC_MODEL_BASES``: torchsurv coerces and checks its input tensors there)."""
        mro = self.mro(class_qualified)
        if not any(self.canonical(base) in PYDANTIC_MODEL_BASES for current in mro
                   for base in self.classes[current].definition.bases):
            return []
        found = []
        for current in mro:
            module, cls = self.classes[current]
            found += [module.qualify(qualname) for qualname, function in module.functions.items()
                      if qualname.rpartition(".")[0] == cls.qualname
                      and any(module.imports.resolve(d) in PYDANTIC_VALIDATORS for d in function.decorators)]
        return found

    def _post_init(self, class_qualified: str) -> str | None:
        """``__post_init__`` of a dataclass whose ``__init__`` the decorator writes: that ``__init__`` calls
        it, so constructing the class in compiled code traces it (sbi's ``MoG`` checks its tensors there)."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            if module.qualify(f"{cls.qualname}.__init__") in self.functions:
                return None  # a written ``__init__``: it runs instead, and calls what it calls
            if any(module.imports.resolve(d) in DATACLASS_DECORATORS for d in cls.decorators):
                return self.method(class_qualified, "__post_init__")
        return None

    def _metaclass_call(self, class_qualified: str) -> str | None:
        """``Meta.__call__`` where the class (or a base) is built by a metaclass of the tree that defines
        one: Dynamo traces it when the class is called (pyro's ``DistributionMeta``)."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            if cls.metaclass:
                meta = self.resolve_class(module, cls.metaclass)
                return self.method(meta, "__call__") if meta else None
        return None

    # -- dynamic dispatch -----------------------------------------------------------------------
    def _dispatched(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> list[str]:
        """What a call runs when its target is picked at run time from values the tree names: ``self.attr``
        given instances or functions (``__init__``, a setter, a parameter's default), a local bound to a
        registry item, ``FUNCS[name](...)``. Each possible value's ``__call__`` / ``forward`` / function."""
        held: list[tuple[ModuleSummary, str]] = []
        parts = callee.split(".")
        if callee.endswith(dispatch.REGISTRY_CALL) and callee in function.local_sources:
            # ``methods[key](x)`` with ``methods`` a local dict literal
            held = [(module, source) for source in function.local_sources[callee]]
        elif callee.endswith(dispatch.REGISTRY_CALL):
            held = [(module, dispatch.ITEM + callee[: -len(dispatch.REGISTRY_CALL)])]
        elif len(parts) == 2 and parts[0] == "self" and function.class_name:
            own_class = module.qualify(function.class_name)
            sources = self.attribute_sources(own_class, parts[1])
            return self._held_or_bound(module, function, sources) or [
                f for cls in self.declared_classes(own_class, parts[1]) for f in self.instance_call(cls)] or [
                f for cls in self._named_if_unknown(sources, parts[1]) for f in self.instance_call(cls)]
        elif len(parts) >= 4 and parts[0] == "self" and function.class_name:
            # ``self.trainer.fit_loop.run()``: through what each attribute is declared (a property's annotated
            # return too) or given
            return self._chained(module.qualify(function.class_name), parts[1:-1], parts[-1])
        elif len(parts) == 3 and parts[0] == "self" and function.class_name:
            # ``self.discrete_net.sample(...)`` with ``self.discrete_net = discrete_net: CategoricalMassEstimator``,
            # or ``self.strategy.update(...)`` with ``self.strategy = TrustRegion() if strategy is None else strategy``
            own_class = module.qualify(function.class_name)
            declared = self.declared_classes(own_class, parts[1])
            if declared:
                return self._methods_of(declared, parts[2])
            methods = self._methods_of(self.held_classes(own_class, parts[1]), parts[2])
            sources = self.attribute_sources(own_class, parts[1])
            methods = methods or self._methods_of(self._named_if_unknown(sources, parts[1]), parts[2])
            if any(source.startswith(dispatch.ARGUMENT) for _, source in sources):
                # a parameter stored: a caller outside the tree may pass another class, found by the method's name
                return list(dict.fromkeys(methods + self._by_name(module, function, callee)))
            return methods
        elif (len(parts) == 2 and parts[0] not in ("self", "cls") and parts[0] not in function.local_sources
              and any(parts[0] == name for name, _ in function.params)):
            # ``epoch_iterator.__iter__`` (a ``for`` over it) or ``runner.step(...)`` with the parameter given an
            # instance by the function's callers (poutyne's ``EpochIterator``): that method of each class passed,
            # and, the callers outside the tree being unknown, each method of that name (``_by_name``)
            if parts[1] not in self._methods_by_name():
                return []  # no class of the tree defines it (``x.view(...)``): nothing the callers pass can run it
            parameter = [(module, source) for source in dispatch.parameter_sources(function, parts[0])]
            passed = self._methods_of(self.parameter_classes(module, function, parts[0]), parts[1]) or (
                self._methods_of(self._named_if_unknown(parameter, parts[0]), parts[1]))
            return list(dict.fromkeys(passed + self._by_name(module, function, callee)))
        elif len(parts) == 1 and callee in function.local_sources:
            return self._held_or_bound(module, function, [(module, source) for source in function.local_sources[callee]])
        elif len(parts) == 1 and any(callee == name for name, _ in function.params):
            # ``reduce_fn(...)`` with ``reduce_fn`` a parameter: its default, and what callers pass for it.
            held = [(module, source) for source in dispatch.parameter_sources(function, callee)]
        elif len(parts) == 2 and parts[0] in function.local_sources:
            # ``solver = SOLVERS[method](...)`` then ``solver.integrate(t)``: that method of each class the
            # registry holds (found through the classes' bases).
            classes = [cls for source in function.local_sources[parts[0]] for cls in self.instances(module, source)]
            # ``func = Solve`` then ``func.apply(...)``: the attribute of each function or class the local names.
            named = [t for source in function.local_sources[parts[0]] if source.startswith(dispatch.REF)
                     for t in self._run(module, f"{source}.{parts[1]}", 0)]
            # ``results = self.trainer.results`` then ``results.log(...)``: the chain's classes' method
            owner = self.self_class(module.qualify(function.qualname))
            chained = [t for source in function.local_sources[parts[0]] if source.startswith(dispatch.REF + "self.")
                       and owner is not None for t in self._chained(owner, source.split(".")[1:], parts[1])]
            return list(dict.fromkeys(self._methods_of(classes, parts[1]) + named + chained))
        found = (target for where, source in held for target in self._run(where, source, 0))
        return list(dict.fromkeys(found))

    def _chained(self, owner: str, attributes: Sequence[str], name: str) -> list[str]:
        """Method ``name`` of what ``self.<a>.<b>...`` holds, read from ``owner``'s ``self``: at each step the classes
        the attribute is declared as (an annotated parameter stored, a property's annotated return) and their
        subclasses, else those of the instances it is given."""
        classes = [owner]
        for attribute in attributes:
            classes = list(dict.fromkeys(held for cls in classes for held in (
                self.declared_classes(cls, attribute) or self.held_classes(cls, attribute))))
            if not classes:
                return []
        return self._methods_of(classes, name)

    def _methods_of(self, classes: Iterable[str], name: str) -> list[str]:
        """Method ``name`` of each class (found through its bases), each once."""
        return list(dict.fromkeys(m for cls in classes if (m := self.method(cls, name))))

    def _held_or_bound(self, module: ModuleSummary, function: FunctionSummary,
                       held: list[tuple[ModuleSummary, str]]) -> list[str]:
        """What calling a value given ``held`` runs. A bound method of the same object (``self.loss =
        self.mat_loss if mat else self.pair_loss``, ``sample_fn = self.p_sample_loop if ... else
        self.ddim_sample``) is found as ``self.mat_loss(...)`` would be, with the subclasses' overrides."""
        bound = [source[len(dispatch.REF):] for _, source in held if source.startswith(dispatch.REF + "self.")]
        methods = [target for written in bound if written.count(".") == 1
                   for target in self._targets(module, function, written) + self._overrides(module, function, written)]
        held = [(where, source) for where, source in held if not source.startswith(dispatch.REF + "self.")]
        return list(dict.fromkeys(methods + [t for where, source in held for t in self._run(where, source, 0)]))

    def named_classes(self, value_name: str) -> list[str]:
        """The classes of the tree that a value's name names (``variational_strategy``: ``VariationalStrategy``
        and the classes whose names end so), the last resort of dispatch (``named_classes.py``)."""
        if self._named_classes_memo is None:
            self._named_classes_memo = NamedClasses(self.classes)
        return self._named_classes_memo.named(value_name)

    def _named_if_unknown(self, sources: list[tuple[ModuleSummary, str]], name: str) -> list[str]:
        """The classes ``name`` names, asked where nothing the tree gives the value resolved to a class: what it
        holds is handed in from outside the tree (gpytorch's ``self.variational_strategy = variational_strategy``,
        which no call of the library passes), made by a call the tree cannot follow, or given nowhere. Not where
        every value the tree gives it is ``None`` (``Attention(None)``): that is all it holds. Nor where the tree
        builds it from what it imports (``self.attn = nn.MultiheadAttention(...)``): a class outside the tree."""
        if sources and all(self._only_none(where, source) for where, source in sources):
            return []
        if any(_imported(where, source) for where, source in sources):
            return []
        return self.named_classes(name)

    def _only_none(self, module: ModuleSummary, source: str) -> bool:
        """A parameter that the calls of the tree pass, and pass only ``None``."""
        if not source.startswith(dispatch.ARGUMENT):
            return False
        calls = self._passing_calls(module, source[len(dispatch.ARGUMENT):])
        return bool(calls) and all(found == [dispatch.NONE] for _, _, found in calls)

    def _by_name(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> list[str]:
        """``value.method(...)`` on a value whose class the tree does not tell (a parameter, a result, an
        attribute given from outside): each method of that name that a class of the tree defines, when at
        most ``_MAX_BY_NAME`` do. Never for a name a tensor or a builtin container also has (the value may
        be one), nor for an attribute name (``_attribute_names``), nor for a dunder, nor where the receiver
        is a module, a class or a function (those resolve by their names)."""
        parts = callee.split(".")
        name = parts[-1]
        bound = self._bound_methods().get(name)
        if bound and len(parts) == 2 and parts[0] not in ("self", "cls"):
            # ``net.count()`` with ``net`` a module-level instance, or any value: what the tree binds under that name,
            # unless the receiver names a function, a class or a module of the tree
            receiver = self.resolve_name(module, parts[0])
            if receiver is None or not (receiver in self.functions or receiver in self.classes or receiver in self.modules):
                return list(dict.fromkeys([*bound, *self._by_class_method_name(module, function, parts)]))
        return self._by_class_method_name(module, function, parts)

    def _by_class_method_name(self, module: ModuleSummary, function: FunctionSummary, parts: list[str]) -> list[str]:
        """``_by_name`` for the methods classes define, under the limits its docstring gives."""
        name = parts[-1]
        found = self._methods_by_name().get(name, [])  # first: most names are no method, or too many classes'
        if (not found or len(parts) < 2 or not all(part.isidentifier() for part in parts)
                or name.startswith("__") or name in TENSOR_METHOD_NAMES or name in _BUILTIN_METHOD_NAMES
                or (parts[0] in ("self", "cls") and len(parts) == 2) or name in self._attribute_names()):
            return []
        # A parameter shadows what the module-level name would be (``def Exp(input): return input.Exp()``)
        if all(parts[0] != parameter for parameter, _ in function.params) and (
                module.imports.resolve(parts[0]) is not None or self.resolve_name(module, parts[0]) is not None):
            return []
        # counting the interfaces walks each definer's MRO: only where the definers are too many to take as they are
        return [] if len(found) > _MAX_BY_NAME and self._interfaces_defining(name) > _MAX_BY_NAME else found

    def _interfaces_defining(self, name: str) -> int:
        """How many unrelated classes of the tree define method ``name``: the classes that define it while no base
        of theirs in the tree does. The overrides of one base's method are one interface, however many there are
        (a framework's callbacks each defining ``on_epoch_end``), so they count once (memoized per name)."""
        if name not in self._interfaces_memo:
            roots = set()
            for qualified in self._methods_by_name().get(name, []):
                owner = self.owner_class(qualified)
                defining = [cls for cls in self.mro(owner) if self._defines(cls, name)] if owner else []
                roots.add(defining[-1] if defining else qualified)
            self._interfaces_memo[name] = len(roots)
        return self._interfaces_memo[name]

    def _attribute_names(self) -> frozenset[str]:
        """Every ``self.<attr>`` a class of the tree assigns: ``block.downsample(x)`` may call such an
        attribute (a layer) as well as a method, so those names are not resolved by name (built once)."""
        if self._attribute_names_memo is None:
            # An attribute known only as a constructor's parameter (``self.model = model``) does not count: its
            # name is as often a method's elsewhere, which resolving by name should still find.
            self._attribute_names_memo = frozenset(
                name for _, cls in self.classes.values()
                for name in (*cls.attr_types, *cls.tensor_attrs, *cls.container_items, *(
                    attr for attr, sources in cls.attr_sources.items() if not all(map(_from_constructor, sources)))))
        return self._attribute_names_memo

    @property
    def hook_handles(self) -> tuple[frozenset[str], frozenset[str]]:
        """The last names of the attributes that the tree gives a module hook's handle, and of those holding
        handles as items (``hook_handles.py``), over every module (built once)."""
        if self._hook_handles_memo is None:
            held = [summary.hook_handles for summary in self.modules.values()]
            self._hook_handles_memo = (frozenset().union(*(h[0] for h in held)),
                                       frozenset().union(*(h[1] for h in held)))
        return self._hook_handles_memo

    def classes_with_method(self, name: str) -> list[str]:
        """Every class of the tree that defines method ``name`` or inherits it from a class of the tree (built from
        the per-tree index of methods by name; the subclasses walk is memoized once per tree)."""
        owners = (self.owner_class(method) for method in self._methods_by_name().get(name, []))
        found = [cls for owner in owners if owner for cls in (owner, *self._subclasses().get(owner, ()))]
        return list(dict.fromkeys(found))

    def _methods_by_name(self) -> dict[str, list[str]]:
        """Method name -> every method of that name a class of the tree defines itself, and every function the tree
        binds to an object under that name (``bound_methods``; built once per tree)."""
        if self._by_name_memo is None:
            self._by_name_memo = defaultdict(list)
            for qualified, (_, definition) in self.functions.items():
                owner, _, name = definition.qualname.rpartition(".")
                if definition.class_name and owner == definition.class_name:
                    self._by_name_memo[name].append(qualified)
            for name, functions in self._bound_methods().items():
                self._by_name_memo[name] += functions
        return self._by_name_memo

    def _bound_methods(self) -> dict[str, list[str]]:
        """Attribute name -> the functions of the tree bound to some object under that name (``module.count =
        count.__get__(module)``, ``types.MethodType(count, module)``): ``obj.count()`` may run them (built once)."""
        if self._bound_memo is None:
            self._bound_memo = defaultdict(list)
            for module in self.modules.values():
                for name, bound in module.bound_methods.items():
                    functions = (self.resolve_name(module, written) for written in bound)
                    self._bound_memo[name] += [f for f in functions if f in self.functions]
        return self._bound_memo

    def is_tensor_subclass(self, class_qualified: str) -> bool:
        """Whether the class derives from ``torch.Tensor`` (through bases in the tree)."""
        return any(self.canonical(base) in TENSOR_BASES for current in self.mro(class_qualified)
                   for base in self.classes[current].definition.bases)

    @property
    def tensor_subclass_names(self) -> frozenset[str]:
        """The last names of the tree's classes deriving from ``torch.Tensor``: what a call must be written as to build
        one (built once; most trees have none, and DYN519 asks at every call)."""
        if self._tensor_subclass_names_memo is None:
            self._tensor_subclass_names_memo = frozenset(
                qualified.rpartition(".")[2] for qualified in self.classes if self.is_tensor_subclass(qualified))
        return self._tensor_subclass_names_memo

    @property
    def recurrent_attribute_names(self) -> frozenset[str]:
        """The attribute names some ``__init__`` of the tree builds, on some path, with a recurrent layer (``nn.LSTM``,
        ``GRU``, ``RNN``, or a class of the tree deriving from one), by last names: what DYN505 asks of each
        ``self.<attr>`` read before looking its paths up (built once)."""
        if self._recurrent_attributes_memo is None:
            names = set(RECURRENT_LAYERS)
            for _ in range(4):  # subclasses of subclasses, a few levels deep
                names |= {qualified.rpartition(".")[2] for qualified, (_, cls) in self.classes.items()
                          if any(base.rpartition(".")[2] in names for base in cls.bases)}
            self._recurrent_attributes_memo = frozenset(
                attr for _, cls in self.classes.values() for attr, sources in cls.attr_sources.items()
                if any(source.startswith(dispatch.NEW) and source[len(dispatch.NEW):].rpartition(".")[2] in names
                       for source in sources))
        return self._recurrent_attributes_memo

    def is_tensorclass(self, class_qualified: str) -> bool:
        """Whether the class is a tensordict tensorclass: it, or a base of it in the tree, derives from
        ``tensordict.TensorClass`` (``TensorClass["frozen"]`` too) or is decorated ``@tensorclass``."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            if any(_names_tensordict(self.canonical(base) or base, "TensorClass") for base in cls.bases):
                return True
            if any(_names_tensordict(module.imports.resolve(written) or written, "tensorclass")
                   for written in cls.decorators):
                return True
        return False

    @property
    def tensorclass_names(self) -> frozenset[str]:
        """The last names of the tree's tensorclasses (built once, as ``tensor_subclass_names``)."""
        if self._tensorclass_names_memo is None:
            self._tensorclass_names_memo = frozenset(
                qualified.rpartition(".")[2] for qualified in self.classes if self.is_tensorclass(qualified))
        return self._tensorclass_names_memo

    def self_class(self, qualified: str) -> str | None:
        """The class whose ``self`` the function reads: its own for a method, the enclosing method's for a function
        nested in one that has no ``self`` of its own (``_closed_over_class``)."""
        entry = self.functions.get(qualified)
        if entry is None:
            return None
        if entry.definition.class_name:
            return self.owner_class(qualified)
        return self._closed_over_class(entry.module, entry.definition)

    def owner_class(self, qualified: str) -> str | None:
        """The class of the tree that defines the function, when it is a method."""
        entry = self.functions.get(qualified)
        if entry is None or not entry.definition.class_name:
            return None
        owner = entry.module.qualify(entry.definition.class_name)
        return owner if owner in self.classes else None

    def classes_defining(self, name: str) -> list[str]:
        """The classes of the tree that define a method ``name`` themselves (asdl's ``ParamVector.add_``): a value of
        unknown type calling it may be an instance of one of them."""
        owners = (self.owner_class(qualified) for qualified in self._methods_by_name().get(name, ()))
        return list(dict.fromkeys(owner for owner in owners if owner is not None))

    def method_of_tensor_subclass(self, qualified: str) -> bool:
        """Whether the function is a method of a tensor subclass of the tree (pypose's ``LieTensor.tensor``)."""
        owner = self.owner_class(qualified)
        return owner is not None and self.is_tensor_subclass(owner)

    def stored_default_functions(self, class_qualified: str) -> list[tuple[str, int]]:
        """The ``__init__`` parameters (name, position after ``self``; -1: keyword only) whose default is a function
        of the tree (a ``lambda``, or a ``def`` of the analysed code) that the constructor stores on the instance:
        an instance built without them holds a function Dynamo cannot rebuild (DYN515). Read from the first class
        of the MRO that defines ``__init__``."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            if module.qualify(f"{cls.qualname}.__init__") not in self.functions:
                continue
            return [(name, position) for name, position, default in cls.default_functions
                    if default == "lambda" or (self.resolve_name(module, default) or "") in self.functions]
        return []

    def has_classmethod_forward(self, class_qualified: str) -> bool:
        """Whether the autograd ``Function``'s ``forward`` is a ``classmethod`` (``forward(cls, ctx, x)``), which
        Dynamo cannot bind when it traces ``apply`` with an input that requires grad (DYN514)."""
        forward = self.method(class_qualified, "forward")
        return forward is not None and "classmethod" in self.functions[forward].definition.decorators

    def is_protocol(self, class_qualified: str) -> bool:
        """Whether the class is a ``typing.Protocol`` (one of its own bases is): a structural type, which a value of
        any class with the right methods fits, not a class whose methods run (lightning's ``Optimizable``)."""
        entry = self.classes.get(class_qualified)
        return entry is not None and any(base.partition("[")[0] in PROTOCOL_BASES for base in entry.definition.bases)

    def is_autograd_function(self, class_qualified: str) -> bool:
        """Whether the class derives from ``torch.autograd.Function`` (through bases in the tree)."""
        return any(self.canonical(base) in AUTOGRAD_FUNCTION_BASES for current in self.mro(class_qualified)
                   for base in self.classes[current].definition.bases)

    def instances(self, module: ModuleSummary, source: str) -> list[str]:
        """The classes an instance from ``source`` may be: ``new:X``, or ``newitem:D`` (a class the registry
        ``D`` holds, called)."""
        kind, _, written = source.partition(":")
        kind += ":"
        if kind == dispatch.NEW:
            made = self.instance_class(module, written)
            return [made] if made else []
        if kind == dispatch.NEW_ITEM:
            return [cls for where, item in self.registry_items(module, written) if item.startswith(dispatch.REF)
                    if (cls := self.instance_class(where, item[len(dispatch.REF):]))]
        return []

    def _overrides(self, module: ModuleSummary, function: FunctionSummary, callee: str) -> list[str]:
        """``self.step()`` written in a base class also runs each subclass's own ``step`` (virtual dispatch)."""
        parts = callee.split(".")
        if len(parts) != 2 or parts[0] != "self" or not function.class_name:
            return []
        own = module.qualify(function.class_name)
        found = []
        for sub in self._subclasses().get(own, ()):
            sub_module, cls = self.classes[sub]
            method = sub_module.qualify(f"{cls.qualname}.{parts[1]}")
            if method in self.functions:
                found.append(method)
        return found

    def subclass_attribute_types(self, class_qualified: str, attr: str) -> list[AttributeType]:
        """What ``self.<attr>`` holds in each class of the tree deriving from ``class_qualified`` that
        builds it (computed once per class and attribute for the tree)."""
        key = (class_qualified, attr)
        if key not in self._subclass_attributes_memo:
            held = (self.attribute_types(sub).get(attr) for sub in self._subclasses().get(class_qualified, ()))
            self._subclass_attributes_memo[key] = [h for h in held if h is not None and h.constructor is not None]
        return self._subclass_attributes_memo[key]

    def _subclasses(self) -> dict[str, list[str]]:
        """Class -> every class of the tree deriving from it, directly or not (built once per tree)."""
        if self._subclass_memo is None:
            self._subclass_memo = defaultdict(list)
            for qualified in self.classes:
                for ancestor in self.mro(qualified)[1:]:
                    self._subclass_memo[ancestor].append(qualified)
        return self._subclass_memo

    def declared_classes(self, class_qualified: str, attr: str) -> list[str]:
        """The classes ``self.attr`` may hold where the class stores an annotated parameter in it
        (``self.encoder = encoder`` with ``encoder: Encoder``): the declared class of the tree, and each
        class of the tree deriving from it, since a caller may pass any of them."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            written = cls.attr_declared.get(attr)
            if written is not None:
                declared = self.instance_class(module, written)
                return [declared, *self._subclasses().get(declared, ())] if declared else []
        return []

    def declared_name(self, class_qualified: str, attr: str) -> str | None:
        """The qualified name of what ``self.attr`` is declared as, where the class (or one in its MRO) stores
        an annotated parameter in it (``self.base = base`` with ``base: torch.optim.Optimizer``)."""
        for current in self.mro(class_qualified):
            module, cls = self.classes[current]
            written = cls.attr_declared.get(attr)
            if written is not None:
                return module.imports.resolve(written) or module.qualify(written)
        return None

    def attribute_sources(self, class_qualified: str, attr: str) -> list[tuple[ModuleSummary, str]]:
        """Every value ``self.attr`` is given by the class or a class in its MRO, as dispatch sources."""
        return [(self.classes[current].module, source) for current in self.mro(class_qualified)
                for source in self.classes[current].definition.attr_sources.get(attr, ())]

    def held_container(self, class_qualified: str, attr: str) -> str | None:
        """``builtins.dict`` (``list``, ``set``) when every value ``self.attr`` is given by the class or a base is a
        display or a comprehension of that container (pina's ``self._labels = {}``); ``None`` otherwise."""
        held = {source for _, source in self.attribute_sources(class_qualified, attr)}
        if len(held) != 1 or not held <= set(dispatch.CONTAINERS.values()):
            return None
        return next(iter(held))[len(dispatch.NEW):]

    def _run(self, module: ModuleSummary, source: str, depth: int) -> list[str]:
        """The functions calling a value from ``source`` runs (``depth`` bounds setter hops)."""
        kind, _, written = source.partition(":")
        kind += ":"
        if kind == dispatch.NEW:
            return self.instance_call(self.instance_class(module, written))
        if kind == dispatch.REF:
            applied = self.applied_function(module, written) if written.endswith(".apply") else None
            if applied is not None:  # ``func = InvQuadLogdet.apply`` then ``func(...)``: as ``InvQuadLogdet.apply(...)``
                return [f for f in (self.method(applied, "forward"), self.method(applied, "backward")) if f]
            return self._called(self.resolve_name(module, written))
        if kind in (dispatch.ITEM, dispatch.NEW_ITEM):
            items = self.registry_items(module, written)
            if kind == dispatch.ITEM:
                return [t for where, item in items for t in self._run(where, item, depth)]
            made = [(where, dispatch.NEW + item[len(dispatch.REF):]) for where, item in items
                    if item.startswith(dispatch.REF)]
            return [t for where, item in made for t in self._run(where, item, depth)]
        if kind == dispatch.ARGUMENT and depth < 2:
            return [t for handing, where, item in self._passed_for(module, written)
                    for t in self._handed_method(handing, item) or self._run(where, item, depth + 1)]
        return []

    def _passed_for(self, module: ModuleSummary, written: str) -> list[tuple[str | None, ModuleSummary, str]]:
        """What the calls of a setter pass for its parameter (``arg:F:N:name`` less its kind), as ``(handing class,
        module of the call, source)``: for a method of a class, its subclasses' ``super().<method>(...)`` too
        (the handing class is that subclass), and for a constructor the ``Cls(...)`` calls (not other classes'
        ``__init__`` calls of that name)."""
        return [(handing, where, item) for handing, where, found in self._passing_calls(module, written)
                for item in found]

    def _passing_calls(self, module: ModuleSummary, written: str) -> list[tuple[str | None, ModuleSummary, list[str]]]:
        """The calls of the tree that pass a value for the parameter ``written`` names (``_passed_for``), as
        ``(handing class, module of the call, sources of the value)``: a value with no source (``None``) too."""
        setter, position, name = written.rsplit(":", 2)
        owner, _, method = setter.rpartition(".")
        direct = self._arguments_of(method if method != "__init__" else owner.rpartition(".")[2])
        calls = [*((None, call) for call in direct),
                 *((sub, call) for sub in self._subclasses().get(module.qualify(owner), ())
                   for call in self._arguments_of(f"{sub}{dispatch.SUPER_CALL}{method}"))]
        return [(handing, where, found) for handing, (where, at, keyword, found) in calls
                if at == int(position) or keyword == name]

    def held_classes(self, class_qualified: str, attr: str) -> list[str]:
        """The classes of the instances ``self.attr`` is given (``TrustRegion() if strategy is None else strategy``:
        the one built, and each one the constructor's callers pass, ``Optimizer(Adaptive())``), or the classes it
        holds itself (``semiring=LogSemiring``)."""
        return list(dict.fromkeys(cls for module, source in self.attribute_sources(class_qualified, attr)
                                  for cls in self._source_classes(module, source)))

    def parameter_classes(self, module: ModuleSummary, function: FunctionSummary, name: str) -> list[str]:
        """The classes a parameter may name: its default, and each class its callers pass for it."""
        return list(dict.fromkeys(cls for source in dispatch.parameter_sources(function, name)
                                  for cls in self._source_classes(module, source)))

    def _source_classes(self, module: ModuleSummary, source: str) -> list[str]:
        """The classes a value from ``source`` is or is an instance of; for a parameter (``arg:``), those of what
        its callers pass."""
        if source.startswith(dispatch.ARGUMENT):
            return [cls for _, where, item in self._passed_for(module, source[len(dispatch.ARGUMENT):])
                    for cls in self._held_class(where, item)]
        return self._held_class(module, source)

    def _held_class(self, module: ModuleSummary, source: str) -> list[str]:
        """The class a value from ``source`` is an instance of, or is itself (``semiring=LogSemiring``: its static
        and class methods are called on it)."""
        if source.startswith(dispatch.REF):
            named = self.resolve_class(module, source[len(dispatch.REF):])
            return [named] if named else []
        return self.instances(module, source)

    def _handed_method(self, handing: str | None, source: str) -> list[str]:
        """A bound method a subclass hands its base (``super().__init__(state_fallback=self.initial_state)``): the
        method of that class, through its MRO, that the base then calls, and its overrides in the classes deriving
        from it, whose instances hand theirs (norse's cells, measured on torch 2.13: Dynamo traces it where the
        base calls it)."""
        if handing is None or not source.startswith(dispatch.REF + "self.") or source.count(".") != 1:
            return []
        name = source.rpartition(".")[2]
        found = [self.method(cls, name) for cls in (handing, *self._subclasses().get(handing, ()))]
        return list(dict.fromkeys(f for f in found if f))

    def registry_items(self, module: ModuleSummary, written: str) -> list[tuple[ModuleSummary, str]]:
        """The sources of a module-level registry's values: its dict literal, and what decorators put in it."""
        qualified = self.canonical(module.imports.resolve(written) or module.qualify(written))
        if qualified is None:
            return []
        owner, _, name = qualified.rpartition(".")
        defining = self.modules.get(owner)
        if defining is None or name not in defining.registries:
            return []
        return [(defining, source) for source in defining.registries[name]] + self._registered()[qualified]

    def _registered(self) -> dict[str, list[tuple[ModuleSummary, str]]]:
        """Registry -> functions and classes put in it by a decorator (``@register("relu")`` whose inner
        function stores its parameter in the registry). Built once per tree."""
        if self._registrations is None:
            stores: dict[str, set[str]] = defaultdict(set)  # function (and each enclosing one) -> registries
            for qualified, (module, definition) in self.functions.items():
                for written in definition.registers_into:
                    registry = self.canonical(module.imports.resolve(written) or module.qualify(written)) or ""
                    for cut in range(qualified.count(".") + 1):
                        stores[qualified.rsplit(".", cut)[0] if cut else qualified].add(registry)
            self._registrations = defaultdict(list)
            definitions: list[tuple[ModuleSummary, FunctionSummary | ClassSummary]] = [
                *self.functions.values(), *self.classes.values()]
            for module, decorated in definitions:
                for decorator in decorated.decorators:
                    for registry in stores.get(self.resolve_name(module, decorator) or "", ()):
                        self._registrations[registry].append((module, dispatch.REF + decorated.qualname))
        return self._registrations

    def _arguments_of(self, method: str) -> list[tuple[ModuleSummary, int, str | None, list[str]]]:
        """Instance arguments of every ``obj.<method>(...)`` call in the tree (indexed once per tree)."""
        if self._call_arguments is None:
            self._call_arguments = defaultdict(list)
            for module in self.modules.values():
                for name, calls in module.call_arguments.items():
                    self._call_arguments[name] += [(module, *call) for call in calls]
        return self._call_arguments.get(method, [])

    def issues_collectives(self, qualified: str) -> bool:
        """Whether the function, or anything it calls in the tree, issues ``torch.distributed`` collectives."""
        if qualified not in self._collectives_memo:
            self._collectives_memo[qualified] = False  # cycles: assume no until shown otherwise
            entry = self.functions.get(qualified)
            found = bool(entry and entry.definition.collectives) or any(
                self.issues_collectives(callee.function) for _, callee in self.callees(qualified)
            )
            self._collectives_memo[qualified] = found
        return self._collectives_memo[qualified]

    def is_compile_guard(self, caller: str, callee: str) -> bool:
        """Whether ``callee``, called inside ``caller``, is a function of the tree that returns
        ``is_compiling()`` (PyG's ``is_compiling()``, HF's ``is_torchdynamo_compiling()``), or torch's own
        imported from a module of the tree that imports it (torchrl's ``is_dynamo_compiling``, re-exported by its
        distribution utilities from ``torch.compiler``)."""
        found = self.resolve_calls(caller, callee)
        if found:
            return all(self.functions[c.function].definition.is_compile_guard for c in found)
        entry = self.functions.get(caller)
        head, dot, rest = callee.partition(".")
        imported = entry[0].imports.resolve(head) if entry is not None else None
        return imported is not None and self.canonical(f"{imported}{dot}{rest}") in IS_COMPILING

    # -- value types ----------------------------------------------------------------------------
    def type_alias(self, qualified: str) -> Annotation | None:
        """The annotation a type alias such as ``torch_geometric.typing.OptTensor`` stands for."""
        canonical = self.canonical(qualified) or qualified
        owner, _, name = canonical.rpartition(".")
        module = self.modules.get(owner)
        return module.type_aliases.get(name) if module is not None else None

    def parameter_types(self, qualified: str) -> dict[str, ValueType]:
        """Each parameter of a function of the tree whose type is known -> that type: a Python value where
        every call of it in compiled code passes one (``passed_python``), a tensor where every call passes
        one (``passed_tensors``), else what its annotation says."""
        if qualified not in self._parameters_memo:
            entry = self.functions.get(qualified)
            written = entry.definition.annotations if entry else {}
            types = {name: type_hints.value_type(annotation, self.type_alias) for name, annotation in written.items()}
            types.update({name: ValueType(Kind.TENSOR) for name in self.passed_tensors(qualified)})
            types.update({name: ValueType(Kind.META) for name in self.passed_python(qualified)})
            self._parameters_memo[qualified] = types
        return self._parameters_memo[qualified]

    def passed_python(self, qualified: str) -> frozenset[str]:
        """The parameters that every call of ``qualified`` in compiled code passes a Python value (a shape,
        an int read from one, a constant). Empty for an entry point (a compile target, or a ``forward``
        nothing in the tree calls), whose callers are not in the tree: its annotations decide."""
        return self._passed(qualified, "python")

    def passed_masks(self, qualified: str) -> frozenset[str]:
        """The parameters that every call of ``qualified`` in compiled code passes a boolean mask, made as
        one (``masked_edge_index(edge_index, edge_type == i)``). Empty for an entry point."""
        return self._passed(qualified, "mask")

    def passed_tensors(self, qualified: str) -> frozenset[str]:
        """The parameters that every call of ``qualified`` in compiled code passes a tensor, made as one
        (``self.p_sample(img, steps[i], steps[i + 1])`` with ``steps = torch.linspace(...)``), or the
        caller's own parameter that is one (annotated a tensor, or passed one by every call of the caller in
        turn: ``_interp(t0, t1, t)``). Empty for an entry point."""
        return self._passed(qualified, "tensor")

    def passed_none(self, qualified: str) -> frozenset[str]:
        """The parameters with a ``None`` default that no call of ``qualified`` in compiled code passes
        (``deprecate(name, version, message)`` leaves ``take_from=None``), or passes only the caller's own
        such parameter (``sample(n, generator=generator)``): ``None`` while Dynamo traces it from there.
        Empty for an entry point."""
        return self._passed(qualified, "none")

    def returns_mask(self, caller: str, callee: str, element: int) -> bool:
        """Whether every function ``callee`` (written in ``caller``) may run returns a boolean mask in
        ``element`` (``-1``: its whole result) on every ``return``."""
        return self._returns(caller, callee, element, "mask")

    def _passed(self, qualified: str, what: str) -> frozenset[str]:
        key = (qualified, what)
        if key in self._passed_memo:
            return self._passed_memo[key]
        self._passed_memo[key] = frozenset()  # recursion through the callers' own results
        region = self.regions.get(qualified)
        sites = self.callers.get(qualified, [])
        if region is None or not sites or (region.entry == qualified and region.confidence is Confidence.CERTAIN):
            return frozenset()
        definition = self.functions[qualified].definition
        names = [name for name, _ in definition.params[:definition.signature[0]]]  # those given by position
        first = 1 if definition.class_name is not None and "staticmethod" not in definition.decorators else 0
        positional = dict(enumerate(names[first:]))  # a position given -> the parameter it fills
        found: set[str] | None = None
        for caller, call in sites:
            if call.splat:
                return frozenset()
            if what == "none":  # left to its ``None`` default, or given the caller's own, itself left to ``None``
                still_none = self._passed(caller, "none") if call.forwarded_parameters else frozenset()
                none_slots = {slot for slot, name in call.forwarded_parameters if name in still_none}
                given = {positional.get(slot, slot) if isinstance(slot, int) else slot for slot in call.given
                         if slot not in none_slots}
                here = set(definition.none_defaults) - given
            else:
                if what == "tensor":  # not the masks: a comparison of anything not known to be Python counts as one
                    passed = set(call.tensor_args) | {slot for slot, name in call.forwarded_parameters
                                                      if self._tensor_parameter(caller, name)}
                else:
                    passed = set(call.python_args if what == "python" else call.mask_args) | {
                        slot for slot, callee, element in call.via_returns if self._returns(caller, callee, element, what)}
                here = {positional.get(slot, "") if isinstance(slot, int) else slot for slot in passed} & {
                    name for name, _ in definition.params}
            found = here if found is None else found & here
        self._passed_memo[key] = frozenset(found or ())
        return self._passed_memo[key]

    def _returns(self, caller: str, callee: str, element: int, what: str) -> bool:
        """Whether every function ``callee`` (written in ``caller``) may run gives a Python value (or a
        mask) in ``element`` on every ``return``."""
        targets = self.resolve_calls(caller, callee)
        if not targets:
            return False
        summaries = [self.functions[t.function].definition for t in targets]
        return all(element in (s.python_returns if what == "python" else s.mask_returns) for s in summaries)

    def return_type(self, qualified: str) -> ValueType:
        """What a call of a function of the tree returns: its return annotation, else a tensor where
        it returns a ``torch.*`` call or a tensor expression, a call of a function of the tree that returns
        one (``return _in_sphere(x, r)``), or a tensor expression of a parameter that every compiled caller
        passes a tensor, or is annotated one (``return t.abs().mean().sqrt()``), else unknown."""
        if qualified not in self._returns_memo:
            definition = self.functions[qualified].definition
            found = type_hints.value_type(definition.returns, self.type_alias)
            self._returns_memo[qualified] = found  # while the calls it returns are followed: a cycle adds nothing
            if found.kind is Kind.UNKNOWN and found.elements is None and definition.returns_tensor:
                found = ValueType(Kind.TENSOR)
            elif found.kind is Kind.UNKNOWN and found.elements is None and definition.returns_elements:
                found = ValueType(elements=tuple(Kind.TENSOR if tensor else Kind.UNKNOWN
                                                 for tensor in definition.returns_elements))
            elif found.kind is Kind.UNKNOWN and found.elements is None and (any(
                    (self.call_type(qualified, callee) or found).kind is Kind.TENSOR
                    for callee in definition.returns_through[0]) or any(
                    self._tensor_parameter(qualified, name) for name in definition.returns_through[1])):
                found = ValueType(Kind.TENSOR)
            self._returns_memo[qualified] = found
        return self._returns_memo[qualified]

    def _tensor_parameter(self, qualified: str, name: str) -> bool:
        """Whether the parameter ``name`` is annotated a tensor or passed one by every compiled caller (asked
        apart from ``parameter_types``, whose Python values would follow every caller's own results)."""
        written = self.functions[qualified].definition.annotations.get(name)
        return (written is not None and type_hints.value_type(written, self.type_alias).kind is Kind.TENSOR) or (
            name in self.passed_tensors(qualified))

    def call_type(self, caller: str, callee: str) -> ValueType | None:
        """What ``callee``, called inside ``caller``, returns when every function it may run agrees;
        ``None`` when none is in the tree."""
        found = {self._property_call_type(c.function) if self.is_property(c.function) else self.return_type(c.function)
                 for c in self.resolve_calls(caller, callee)}
        if not found:
            return ValueType(Kind.TENSOR) if self._holds_tensor_functions(caller, callee) else None
        return found.pop() if len(found) == 1 else ValueType()

    def _property_call_type(self, getter: str) -> ValueType:
        """What calling a property's value gives (``self.compare(val, t)`` with ``compare`` a property): not what its
        getter returns (the function), but that function's result, as the getter's ``Callable[..., R]`` annotation
        says (torchtnt's ``_mode_func -> Callable[[Tensor, ...], Tensor]`` returning ``torch.lt`` or ``torch.gt``)."""
        returns = self.functions[getter].definition.returns
        if returns is None or returns.name not in _CALLABLE_TYPES or not returns.args:
            return ValueType()
        return type_hints.value_type(returns.args[-1], self.type_alias)

    def _holds_tensor_functions(self, caller: str, callee: str) -> bool:
        """``self._mode_func(val, threshold)`` where every value ``self._mode_func`` is given is a torch function that
        returns a tensor (torchtnt's ``self._mode_func = torch.lt if mode == "min" else torch.gt``)."""
        parts = callee.split(".")
        owner = self.self_class(caller) if len(parts) == 2 and parts[0] == "self" else None
        sources = self.attribute_sources(owner, parts[1]) if owner else []
        named = [where.imports.resolve(source[len(dispatch.REF):]) if source.startswith(dispatch.REF) else None
                 for where, source in sources]
        return bool(named) and all(name is not None and name.startswith("torch.")
                                   and torch_result(name) is TorchResult.TENSOR for name in named)

    def region_of(self, qualified: str) -> Region | None:
        """The region of a function, inheriting the enclosing function's for nested definitions."""
        region = self.regions.get(qualified)
        if region is not None or qualified not in self.functions:
            return region
        if not self.is_traced(qualified):
            return None
        parent = qualified.rsplit(".", 1)[0]
        return self.region_of(parent) if parent in self.functions else None

    # -- entry points ---------------------------------------------------------------------------
    def declared_targets(self, declared: str) -> list[str]:
        """What a name of the config's ``compiled`` runs when compiled: a function, a method (inherited
        ones too), or what calling an instance of a class runs. ``pkg.mod:Class.method`` names the
        module apart; ``pkg.mod.name`` is followed through re-exports; a nested function may be named
        as its ``__qualname__`` names it (``outer.<locals>.inner``). Empty when not in the tree."""
        module, _, inside = declared.rpartition(":")
        inside = inside.replace(".<locals>.", ".")
        qualified = self.canonical(f"{module}.{inside}" if module else inside)
        if qualified in self.functions:
            return [qualified]
        if qualified in self.classes:
            return self.instance_call(qualified) or self._declared_uncalled(qualified)
        written_owner, _, name = (qualified or "").rpartition(".")
        owner = self.canonical(written_owner)
        found = self.method(owner, name) if owner is not None and owner in self.classes else None
        return [found] if found else []

    def _declared_uncalled(self, class_qualified: str) -> list[str]:
        """A declared class whose instances the tree does not know how to call: its ``forward`` where it defines
        one (a base outside the tree, such as tensordict's ``TensorDictModuleBase``, makes it an ``nn.Module``),
        else what building it runs (a distribution or a linear operator built in the compiled code)."""
        forward = self.method(class_qualified, "forward")
        return [forward] if forward else self._called(class_qualified)

    def site_targets(self, summary: ModuleSummary, site: CompileSite) -> list[str]:
        if site.target_kind == "function":
            return [site.target]
        if site.target_kind == "class":
            cls = self.instance_class(summary, site.target)
            forward = self.forward(cls)
            return ([forward] if forward else []) + (self._framework_methods(cls) if cls else [])
        if site.target_kind == "method":
            written, _, name = site.target.partition(":")
            cls = self.instance_class(summary, written)
            found = self.method(cls, name) if cls else None
            return [found] if found else []
        qualified = self.resolve_name(summary, site.target)
        if qualified in self.functions:
            return [qualified]
        forward = self.forward(qualified) if qualified in self.classes else None
        return [forward] if forward else []


def _names_tensordict(qualified: str, name: str) -> bool:
    """``tensordict.TensorClass`` / ``tensordict.tensorclass.tensorclass``: ``name`` in the tensordict package."""
    return qualified.rpartition(".")[2] == name and qualified.split(".")[0] == "tensordict"


def link(summaries: list[ModuleSummary], settings: DynamoSettings | None = None,
         compiled: Sequence[str] = ()) -> Program:
    """Build the call graph over ``summaries`` and compute every compiled region.

    ``compiled`` names compile entry points that live outside the tree (the config's ``compiled``).
    """
    program = Program(modules={s.module: s for s in summaries})
    program.settings = settings or DynamoSettings()
    for summary in summaries:
        program.settings = program.settings.updated(summary.dynamo_config)
        for qualname, function in summary.functions.items():
            program.functions[summary.qualify(qualname)] = FunctionRecord(summary, function)
        for qualname, cls in summary.classes.items():
            program.classes[summary.qualify(qualname)] = ClassRecord(summary, cls)
    _propagate(program, _entry_points(program) + _declared_entry_points(program, compiled))
    _propagate(program, _uncompiled_forwards(program) + _forward_hooks(program))
    if _runs_backward(program):
        _propagate(program, _backward_hooks(program))
    program._calls_memo = {}
    return program


def _entry_points(program: Program) -> list[tuple[str, Region]]:
    entries = []
    for summary in program.modules.values():
        for site in summary.compile_sites:
            for target in program.site_targets(summary, site):
                if not program.is_traced(target):
                    continue
                name = program.display_name(target)
                chain = (ChainLink(summary.path, site.line, name, site.how),)
                entries.append((target, Region(name, Confidence.CERTAIN, chain, site.settings.fullgraph, target)))
    return entries


def _declared_entry_points(program: Program, compiled: Sequence[str]) -> list[tuple[str, Region]]:
    """The functions the config declares compiled: ``certain`` regions, as a compile site in the tree is."""
    entries = []
    for declared in compiled:
        for target in program.declared_targets(declared):
            if not program.is_traced(target):
                continue
            record = program.functions[target]
            name = record.definition.qualname
            how = f"{DECLARED_COMPILED} (`{declared}` in the config's `compiled`)"
            chain = (ChainLink(record.module.path, record.definition.lineno, name, how),)
            entries.append((target, Region(name, Confidence.CERTAIN, chain, entry=target)))
    return entries


def _uncompiled_forwards(program: Program) -> list[tuple[str, Region]]:
    entries = []
    for qualified, (summary, cls) in program.classes.items():
        forward = f"{qualified}.forward"
        if (forward in program.functions and forward not in program.regions and program.is_module_class(qualified)
                and program.is_traced(forward)):
            function = program.functions[forward].definition
            how = f"forward of nn.Module subclass {cls.qualname} (no compile site in the tree)"
            chain = (ChainLink(summary.path, function.lineno, function.qualname, how),)
            entries.append((forward, Region(function.qualname, Confidence.LIKELY, chain, entry=forward)))
    return entries


def _forward_hooks(program: Program) -> list[tuple[str, Region]]:
    """The functions of the tree registered as an ``nn.Module``'s forward hook or pre-hook (``summary.forward_hooks``):
    the module's call runs them, so they are compiled where the module is (measured on torch 2.13). Likely, as an
    uncompiled ``forward`` is: which modules they are registered on, and whether those are compiled, is not known."""
    return _hooks(program, "forward_hooks", "an nn.Module's forward hook",
                  "run by the module's call, compiled where it is")


def _backward_hooks(program: Program) -> list[tuple[str, Region]]:
    """The functions of the tree registered as a backward hook (a module's, or a tensor's ``register_hook``;
    ``summary.backward_hooks``), once some compiled code runs backward: autograd runs them there, while Dynamo's
    callback is active, and each is compiled as a frame of its own (measured on torch 2.13). Likely: whether the
    backward that reaches them is the compiled one is not known."""
    return _hooks(program, "backward_hooks", "a backward hook", "run by autograd, compiled where backward runs in "
                  "compiled code")


def _hooks(program: Program, kind: str, registered: str, runs: str) -> list[tuple[str, Region]]:
    entries = []
    for summary in program.modules.values():
        for owner, hooks in getattr(summary, kind).items():
            for line, written in hooks:
                for target in _hook_targets(program, summary, owner, written):
                    if target in program.regions or not program.is_traced(target):
                        continue
                    name = program.display_name(target)
                    chain = (ChainLink(summary.path, line, name, f"registered as {registered} (`{written}`): {runs}"),)
                    entries.append((target, Region(name, Confidence.LIKELY, chain, entry=target)))
    return entries


def _runs_backward(program: Program) -> bool:
    """Whether some compiled code calls ``.backward()``, ``torch.autograd.backward`` or ``torch.autograd.grad``."""
    for qualified in program.regions:
        module, function = program.functions[qualified]
        for record in function.calls:
            callee = record[1]
            if callee.rpartition(".")[2] == "backward" or module.imports.resolve(callee) in AUTOGRAD_RUNS:
                return True
    return False


def _hook_targets(program: Program, summary: ModuleSummary, owner: str, written: str) -> list[str]:
    """The functions of the tree a hook written ``written`` in ``owner`` (a qualname; ``""`` at module level) may be."""
    if owner:
        return [callee.function for callee in program.resolve_calls(summary.qualify(owner), written)]
    found = program.resolve_name(summary, written)
    return [found] if found in program.functions else []


def _propagate(program: Program, entries: list[tuple[str, Region]]) -> None:
    queue: deque[tuple[str, Region]] = deque(entries)
    while queue:
        qualified, region = queue.popleft()
        if qualified in program.regions:
            continue
        program.regions[qualified] = region
        path = program.functions[qualified].module.path
        for call, callee in program.callees(qualified):
            if callee.wrapped and region.entry != qualified:
                continue  # a decorator's wrapper reached around one decorated function: ``fn`` is that one
            program.callers.setdefault(callee.function, []).append((qualified, call))
            if callee.function in program.regions or not program.is_traced(callee.function):
                continue
            name = program.display_name(callee.function)
            if callee.via:  # dynamic dispatch: one of the values the tree gives it, not surely this one
                link_ = ChainLink(path, call.line, name, f"dispatched through `{callee.via}`", via=callee.via)
                reached = replace(region, function=name, chain=region.chain + (link_,), confidence=Confidence.LIKELY)
            else:
                reached = replace(region, function=name, chain=region.chain + (ChainLink(path, call.line, name, "called"),))
            queue.append((callee.function, reached))
        queue.extend(_callbacks(program, qualified, region))
        # A function defined in its body is compiled code too when it runs (``region_of`` gives it this
        # region): what it calls is reached as well (``max_fun`` passed to a helper that calls it).
        queue.extend((nested, region) for nested in program._nested().get(qualified, ())
                     if nested not in program.regions and program.is_traced(nested))



def _callbacks(program: Program, qualified: str, region: Region) -> list[tuple[str, Region]]:
    """The functions of the tree that ``qualified`` hands to a library call Dynamo runs eagerly
    (``scipy.optimize.minimize(objective, x0)``): the library calls them from eager code, and Dynamo
    compiles each as a frame of its own (measured on torch 2.13), so each is an entry point. Likely: the
    library may not call it."""
    record = program.functions[qualified]
    found = []
    for line, library, handed in record.module.callbacks.get(record.definition.qualname, ()):
        for written in handed:
            for callee in program.resolve_calls(qualified, written):
                target = callee.function
                if target in program.regions or not program.is_traced(target) or callee.disabled or (
                        program.functions[target].definition.qualname.rsplit(".", 1)[-1].startswith("__")):
                    continue  # a class handed over (its ``__init__``), or what is compiled already
                name = program.display_name(target)
                how = f"handed to `{library}`, which Dynamo runs eagerly: compiled as a frame of its own when called"
                chain = region.chain + (ChainLink(record.module.path, line, name, how),)
                found.append((target, Region(name, Confidence.LIKELY, chain, entry=target)))
    return found


def _depth_first(start: str, bases: Callable[[str], list[str]]) -> tuple[str, ...]:
    order: dict[str, None] = {}
    pending = [start]
    while pending:
        current = pending.pop()
        if current not in order:
            order[current] = None
            pending += reversed(bases(current))
    return tuple(order)

"""Lint-stage helper for rules: what built an object (shared by rules that flag methods of, or ``with`` on, particular instances).

The lint stage knows a value's *kind* (tensor, data, metadata) from ``values.py``, but not the class of
an arbitrary object. Rules such as ``threading-lock`` and ``tqdm-call`` need exactly that for two
common shapes, both answered from the summaries: a module-level ``NAME = Ctor(...)`` used inside
compiled code, and an attribute set in ``__init__`` (``self.attr = Ctor(...)``) used in a method, and a
closure's ``NAME`` an enclosing function built. The function's own locals are not typed here (a local rebinding
shadows a module-level name, so it answers ``None``): ``LocalConstructions`` follows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import display_sources
from dynalint.analysis.dispatch import NEW, REF, argument_of
from dynalint.analysis.torch_facts import IDENTITY_FUNCTIONS, NN_TENSOR_CLASSES
from dynalint.analysis.type_hints import class_of_type

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext
    from dynalint.analysis.summary import ModuleSummary



def handed_back(context: LintContext, node: cst.BaseExpression) -> cst.BaseExpression:
    """What ``node`` is once a typing helper that returns its argument as it is is seen through: ``x`` for
    ``none_throws(x)`` or ``cast(T, x)`` (``torch_facts.IDENTITY_FUNCTIONS``; torchtnt's
    ``none_throws(self.lr_scheduler).step()``), nested ones too; ``node`` itself otherwise."""
    while isinstance(node, cst.Call):
        position = IDENTITY_FUNCTIONS.get(context.resolve(node.func) or "")
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if position is None or position >= len(positional):
            break
        node = positional[position].value
    return node


PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PosixPath", "pathlib.WindowsPath", "pathlib.PurePath"})


def constructed_by(context: LintContext, node: cst.BaseExpression) -> str | None:
    """Qualified name of the callable that built ``node``'s object (a class in the tree: its qualified name)."""
    node = handed_back(context, node)
    if isinstance(node, cst.Name):
        if node.value in context.values.env and node.value not in context.values.closure:
            return None
        binds, written = _enclosing_binding(context, node.value)
        if not binds:
            written = context.summary.module_types.get(node.value)
        if written is None:
            return None
        return _qualify(context, context.summary, written, context.summary.imports.resolve(written))
    if isinstance(node, cst.Attribute) and is_self(node.value):
        return _attribute_type(context, node.attr.value)
    return None


def _enclosing_binding(context: LintContext, name: str) -> tuple[bool, str | None]:
    """Whether a function enclosing the one being linted binds ``name`` (a local or a parameter of it), and what
    built it there as written, from the innermost such function's summary (captum's hook takes ``lock``, a
    ``threading.Lock()`` of the function registering it); only a call's result is known."""
    outer = context.current_function or ""
    while "." in outer:
        outer = outer.rpartition(".")[0]
        record = context.program.functions.get(outer)
        if record is not None and (name in record.definition.local_types
                                   or any(name == param for param, _ in record.definition.params)):
            return True, record.definition.local_types.get(name)
    return False, None


def class_of_parameter(context: LintContext, func: cst.BaseExpression) -> str | None:
    """The class a call of ``func`` builds where ``func`` is a parameter annotated ``type[C]`` (``optimizer_cls:
    Type[Optimizer] = Adam``, then ``optimizer_cls(params)``): ``C`` as qualified, else ``None``."""
    return class_of_type(context.annotation(func.value)) if isinstance(func, cst.Name) else None


def lineage(context: LintContext, built: str) -> list[str]:
    """What an object built by ``built`` is an instance of.

    ``built`` itself, or, for a class of the tree, every base named along its MRO (qualified where
    known): an instance of ``class Tagger(nn.GRU)`` is a ``torch.nn.GRU``.
    """
    program = context.program
    if built not in program.classes:
        return [built]
    return [program.canonical(base) or base
            for cls in program.mro(built) for base in program.classes[cls].definition.bases]


def enclosing_class(context: LintContext) -> str | None:
    """Qualified name of the class whose method (or a function nested in one) is being linted."""
    region = context.region
    if region is None or "." not in region.function:
        return None
    # A function nested in a method reads the method's ``self`` (skorch's ``step_fn``): ``Program.self_class``.
    return context.program.self_class(context.summary.qualify(region.function))


def holds_module_container(context: LintContext, attr: str) -> bool:
    """``self.<attr>`` is an ``nn.ModuleList`` / ``nn.Sequential`` built in ``__init__`` (of the class or a base)."""
    owner = enclosing_class(context)
    held = context.program.attribute_types(owner).get(attr) if owner else None
    return held is not None and held.is_container


def is_nn_module(context: LintContext, node: cst.BaseExpression) -> bool:
    """``self`` in an ``nn.Module`` method, ``self.<layer>``, a module-level ``NAME = SomeModule(...)``, or a
    parameter declared one (``model: nn.Module``), also where ``__init__`` stored it (``self.model = model``)."""
    if is_self(node):
        cls = enclosing_class(context)
        return cls is not None and context.program.is_module_class(cls)
    if isinstance(node, cst.Attribute) and is_self(node.value) and node.attr.value in context.values.layer_attrs:
        return True
    built = constructed_by(context, node)
    if built is None:
        declared = context.declared(node)
        return bool(declared) and all(_names_module(context, name) for name in declared)
    return _names_module(context, built)


def _names_module(context: LintContext, qualified: str) -> bool:
    """Whether ``qualified`` is an ``nn.Module`` class: one of the tree deriving from it, or ``torch.nn``'s."""
    if qualified in context.program.classes:
        return context.program.is_module_class(qualified)
    last = qualified.rsplit(".", 1)[-1]
    return qualified.startswith("torch.nn.") and last[:1].isupper() and last not in NN_TENSOR_CLASSES


def constructed_in_subclasses(context: LintContext, node: cst.BaseExpression) -> list[str]:
    """For ``self.<attr>`` in a method: what subclasses of the enclosing class build ``attr`` with instead.

    A base's ``__init__`` may give ``self.rnn = Identity()`` and a subclass replace it with an
    ``nn.LSTM``; the base's ``forward`` then runs the LSTM for instances of the subclass (timm's
    ``RNN2dBase`` and ``LSTM2d``). Whether the model builds such a subclass is not known here, so a
    rule that uses this answer reports at ``likely``.
    """
    if not (isinstance(node, cst.Attribute) and is_self(node.value)):
        return []
    cls = enclosing_class(context)
    if cls is None:
        return []
    held = context.program.subclass_attribute_types(cls, node.attr.value)  # each with a constructor
    return [_qualify(context, h.module, h.constructor, h.constructor) for h in held if h.constructor is not None]


def is_self(node: cst.BaseExpression) -> bool:
    # The value analysis types ``self.<attr>`` the same way: by the conventional first parameter name.
    return isinstance(node, cst.Name) and node.value == "self"


def constructed_on_some_path(context: LintContext, node: cst.BaseExpression) -> list[str]:
    """For ``self.<attr>`` in a method: every constructor ``__init__`` (of the class, or the nearest base that
    assigns it) builds ``attr`` with on one of its paths, qualified where known: ``if bidirectional:
    self.rnn = nn.LSTM(...)`` / ``else: self.rnn = Block(...)`` gives both, where ``constructed_by`` gives
    neither. A local built first (``lstm = nn.LSTM(...)``, then ``self.lstm = lstm``) counts as built there."""
    if not (isinstance(node, cst.Attribute) and is_self(node.value)):
        return []
    cls = enclosing_class(context)
    for owner in context.program.mro(cls) if cls is not None else ():
        module, summary = context.program.classes[owner]
        sources = summary.attr_sources.get(node.attr.value)
        if sources:
            built = [source[len(NEW):] for source in sources if source.startswith(NEW)]
            return [_qualify(context, module, written, module.imports.resolve(written)) for written in built]
    return []


def _attribute_type(context: LintContext, attr: str) -> str | None:
    cls = enclosing_class(context)
    held = context.program.attribute_types(cls).get(attr) if cls else None
    if held is None or held.constructor is None:
        return None
    if cls is not None and held.constructor.startswith("self.") and held.constructor.count(".") == 1:
        # ``self._accelerator = self._create_accelerator()``, the method returning ``Accelerator()``
        method = context.program.method(cls, held.constructor[len("self."):])
        if method is not None:
            module, function = context.program.functions[method]
            if function.returns_class:
                return _qualify(context, module, function.returns_class, module.imports.resolve(function.returns_class))
    return _qualify(context, held.module, held.constructor, held.constructor)  # already qualified where known


def stored_from_parameter(context: LintContext, node: cst.BaseExpression, pattern: re.Pattern[str]) -> bool:
    """Whether ``node`` is ``self.attr`` and every value the class (or one in its MRO) gives ``attr`` is a
    parameter whose name matches ``pattern``, or its ``None`` default (``self.optimizer = optimizer`` in
    ``__init__(self, model, optimizer)``)."""
    if not (isinstance(node, cst.Attribute) and is_self(node.value)):
        return False
    cls = enclosing_class(context)
    found = context.program.attribute_sources(cls, node.attr.value) if cls else []
    arguments = [argument_of(source) for _, source in found if source != REF + "None"]
    return bool(arguments) and all(argument is not None and pattern.search(argument[1]) for argument in arguments)


def _qualify(context: LintContext, module: ModuleSummary, written: str, resolved: str | None) -> str:
    in_tree = context.program.instance_class(module, written)
    return in_tree if in_tree is not None else (resolved or written)


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression
           ) -> Iterable[tuple[str, cst.BaseExpression | None]]:
    """The names an assignment binds, each with the expression it gets (``None`` where not known element-wise: a
    starred item on either side leaves the whole unpacking unknown)."""
    if isinstance(target, cst.Name):
        yield target.value, value
    elif isinstance(target, (cst.Tuple, cst.List)):
        sources = display_sources(target, value)
        if sources is not None and any(isinstance(s, cst.StarredElement) for s in sources) or any(
                isinstance(e, cst.StarredElement) for e in target.elements):
            sources = None
        for position, element in enumerate(e.value for e in target.elements):
            known = sources[position] if sources is not None else None
            yield from _pairs(element, known) if isinstance(known, cst.BaseExpression) else _unknown(element)


def _unknown(target: cst.BaseExpression) -> Iterable[tuple[str, None]]:
    if isinstance(target, cst.Name):
        yield target.value, None
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _unknown(element.value)


class LocalConstructions:
    """What built each local of the function being linted, for rules that track objects they know by their
    constructor (``opt = torch.optim.Adam(...)``, ``bar = tqdm(...)``): the callee's qualified name where
    every binding of the name seen so far in the function is a call of that callee.

    A rule calls ``enter`` / ``leave`` from its ``visit_FunctionDef`` / ``leave_FunctionDef`` and ``bind``
    from ``visit_Assign`` and ``visit_AnnAssign``. A name bound to anything else before or after (``bar = range(n)`` then, under
    ``if progress:``, ``bar = tqdm(...)``) is no known object from then on: which binding holds at run
    time is not known here.
    """

    def __init__(self) -> None:
        self._scopes: list[dict[str, str | None]] = [{}]

    def enter(self, parameters: Iterable[str] = ()) -> None:
        """A function's scope: its parameters hide what an enclosing function's locals of those names held."""
        self._scopes.append(dict.fromkeys(parameters))

    def leave(self) -> None:
        self._scopes.pop()

    def bind(self, context: LintContext, node: cst.Assign | cst.AnnAssign) -> None:
        """``name = Callee(...)``, or ``name: Declared = Callee(...)``; an annotation without a value binds nothing.
        ``a, b = Callee(...), other`` binds each name to its own element; a name unpacked from anything else holds
        no known object from then on."""
        if node.value is None:
            return
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for target in targets:
            for name, value in _pairs(target, node.value):
                built = self._held_by(context, value) if value is not None else None
                scope = self._scopes[-1]
                scope[name] = built if scope.get(name, built) == built else None

    def _held_by(self, context: LintContext, value: cst.BaseExpression) -> str | None:
        value = handed_back(context, value)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Divide):
            left = self._held_by(context, value.left)  # ``out = Path(root) / name``: a path still
            return left if left in PATH_CLASSES else None
        if isinstance(value, cst.Call):
            return context.resolve(value.func) or class_of_parameter(context, value.func)
        # ``opt = cast(Optimizer, self.optimizer)``, ``scheduler = self.scheduler``: what the value holds.
        return self.built(value) or constructed_by(context, value)

    def declare(self, name: str, built: str) -> None:
        """Take ``name`` as built by ``built`` from here on (a parameter's annotation, ``iter(loader)``)."""
        self._scopes[-1][name] = built

    def built(self, node: cst.BaseExpression) -> str | None:
        """The qualified callee that built the local ``node`` names, if it is such a local, here or in an enclosing
        function (a closure over ``optimizer = Adam(...)``)."""
        if not isinstance(node, cst.Name):
            return None
        for scope in reversed(self._scopes[1:]):
            if node.value in scope:
                return scope[node.value]
        return None

"""What the summarize stage records of one file: the summary types that whole-tree linking reads.

``ModuleSummary`` holds a file's definitions, classes and their bases, imports, call sites, attribute
types, disabled aliases, compile sites and what dynamic dispatch needs; ``summarize.py`` fills it in
one ``ast`` pass, ``dispatch.py`` words dispatch sources into it, and ``program.py`` links them.
Summaries are cached between runs, so the types pickle small (``_PickledAsTuple``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache
from typing import NamedTuple

from dynalint.analysis.qualified_names import ImportTable
from dynalint.analysis.type_hints import Annotation
from dynalint.model.dynamo_settings import CompileSettings


Slot = int | str  # a positional argument's index, or a keyword argument's name
# ``FunctionSummary.signature``'s flags.
VAR_POSITIONAL, VAR_KEYWORD = 1, 2


def attribute_pattern(parts: list[str | None]) -> str:
    """How ``tensor_attrs`` keeps a name built by an f-string: its text with ``{}`` for each value put in
    (``f"{id}_indices"`` -> ``{}_indices``), which no identifier can clash with. ``parts`` are the f-string's
    pieces in order, ``None`` for each value."""
    return "".join("{}" if part is None else part for part in parts)


def formatted_pattern(template: str) -> str:
    """The ``attribute_pattern`` of ``template.format(...)`` (``'indices_{}'``, ``'{0}_w'``, ``'{name}_w'``)."""
    return re.sub(r"\{[^{}]*\}", "{}", template)


# What a call passes, as ``call_arguments`` reads it: a plain tuple, which unpickles in C (a tree has
# tens of thousands): (Python-valued slots, (slot, callee, element) of calls' results, splat, mask slots,
# every slot written, tensor slots, (slot, parameter) of the caller's ``None``-default parameters passed
# on as they are). ``CallSite``'s properties name the parts.
Arguments = tuple[tuple[Slot, ...], tuple[tuple[Slot, str, int], ...], int, tuple[Slot, ...], tuple[Slot, ...],
                  tuple[Slot, ...], tuple[tuple[Slot, str], ...]]
# The splat part: ``False`` (what binds where is known), ``True`` (a splat, or arguments not read), or this: arguments
# not read in a call that splats nothing, whose ``given`` slots are still exact (true, as ``True`` is).
UNREAD_SHAPE_KNOWN = 2
NO_ARGUMENTS: Arguments = ((), (), False, (), (), (), ())
# ``f(*args)`` / ``f(**kwargs)``, or a call whose arguments were not read (``torch.cat(xs)``: it runs no
# function of the tree outside torch itself): which parameter gets what is not known.
UNREAD_ARGUMENTS: Arguments = ((), (), True, (), (), (), ())


@lru_cache(maxsize=256)
def unread_arguments(given: tuple[Slot, ...]) -> Arguments:
    """A call whose arguments were not read and that splats nothing: which parameter gets what is as unknown as
    behind a splat, but the slots written are known (``CallSite.shape_known``), shared per shape."""
    return (), (), UNREAD_SHAPE_KNOWN, (), given, (), ()


# A call as the summary keeps it: ``(line, callee)`` or ``(line, callee, arguments)``. Plain tuples: a
# tree has a hundred thousand calls, each travels from a worker process and into the cache pickled, and
# a plain tuple unpickles in C. The program reads the few it follows as ``CallSite``s.
CallRecord = tuple[int, str] | tuple[int, str, Arguments]


class CallSite(NamedTuple):
    """A call in a function's body, as the program reads it (``CallSite(*record)``)."""

    line: int
    callee: str  # the callee as written: ``helper``, ``self.block``, ``F.relu``, ``self.mlp.step``
    arguments: Arguments = NO_ARGUMENTS

    @property
    def python_args(self) -> tuple[Slot, ...]:
        """The arguments that are Python values under Dynamo: positions and keywords."""
        return self.arguments[0]

    @property
    def via_returns(self) -> tuple[tuple[Slot, str, int], ...]:
        """Arguments that are a call's result, or an element of one: (slot, callee as written, element or -1)."""
        return self.arguments[1]

    @property
    def splat(self) -> bool:
        """Whether which parameter gets what is not known (a splat, or arguments not read)."""
        return bool(self.arguments[2])

    @property
    def shape_known(self) -> bool:
        """Whether ``given`` is every slot the call fills: no ``*`` nor ``**`` in it (read or not)."""
        return self.arguments[2] in (False, UNREAD_SHAPE_KNOWN)

    @property
    def mask_args(self) -> tuple[Slot, ...]:
        """The arguments that are boolean masks by how they are made."""
        return self.arguments[3]

    @property
    def given(self) -> tuple[Slot, ...]:
        """Every argument written: positions and keywords."""
        return self.arguments[4]

    @property
    def tensor_args(self) -> tuple[Slot, ...]:
        """The arguments that are tensors by how they are made (``steps[i + 1]`` of ``steps = torch.linspace(...)``)."""
        return self.arguments[5]

    @property
    def forwarded_parameters(self) -> tuple[tuple[Slot, str], ...]:
        """Slots given one of the caller's own parameters, unbound before the call (``sample(n,
        generator=generator)``, ``_interp(t0, t1, t)``): whatever the caller's callers pass it, this passes on."""
        return self.arguments[6]


@dataclass(frozen=True)
class CompileSite:
    """A compile entry point: what is compiled, where, and with which settings."""

    line: int
    how: str  # ``@torch.compile``, ``torch.compile(model)``, ``model.compile()``
    # "function": a module-qualified function; "class": a class (or factory) as written, its ``forward``;
    # "method": ``Class:method``; "name": a name as written, resolved through the imports.
    target_kind: str
    target: str
    scope_class: str | None
    settings: CompileSettings


class _PickledAsTuple:
    """Pickled as the tuple of its fields' values, not a dict of them: a tree has tens of thousands of
    function and class summaries, and each travels from a worker process and into the cache."""

    def __getstate__(self) -> tuple[object, ...]:
        names = _field_names(type(self))  # type: ignore[arg-type]  # mypy#11470: takes a class for unhashable
        return tuple([getattr(self, name) for name in names])

    def __setstate__(self, state: tuple[object, ...]) -> None:
        names = _field_names(type(self))  # type: ignore[arg-type]  # mypy#11470: takes a class for unhashable
        self.__dict__.update(zip(names, state))


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@dataclass
class FunctionSummary(_PickledAsTuple):
    qualname: str  # inside the module: ``Model.forward``, ``helper``, ``outer.inner``
    lineno: int  # the ``def`` line
    class_name: str | None
    params: list[tuple[str, str | None]]  # (name, annotation as written)
    start_line: int = 0  # first line of the definition, decorators included
    end_line: int = 0
    disabled: bool = False  # ``torch.compiler.disable``: each call from compiled code breaks
    not_traced: bool = False  # leaf_function / nonstrict_trace / custom_op / allow_in_graph: no region
    returns_tensor: bool = False  # annotated ``-> Tensor``, or returns a tensor expression (``summarize._makes_tensor``)
    # ``return a.argmax(-1), a.softmax(-1)``: per element, whether it is a tensor expression; ``None``
    # when no ``return`` gives a tuple display, or two give tuples of different lengths.
    returns_elements: tuple[bool, ...] | None = None
    # The elements of the result that are Python values under Dynamo on every ``return`` (``-1``: the
    # whole non-tuple value), by ``call_arguments``: ``return x.shape[1], None`` gives ``(0,)``.
    python_returns: tuple[int, ...] = ()
    mask_returns: tuple[int, ...] = ()  # the same for boolean masks (``return out, mask`` with a bool ``mask``)
    none_defaults: tuple[str, ...] = ()  # parameters whose default is ``None``
    # How calls bind to the parameters, for ``Program.accepts``: (how many of ``params`` come first and may be given
    # by position, how many of those have no default, ``VAR_POSITIONAL`` | ``VAR_KEYWORD`` when it takes ``*args`` /
    # ``**kwargs``). The default accepts any call.
    signature: tuple[int, int, int] = (0, 0, 3)
    annotations: dict[str, Annotation] = field(default_factory=dict)  # parameter -> its annotation
    returns: Annotation | None = None  # the return annotation
    # ``return torch.compiler.is_compiling()`` (or ``... or torch.jit.is_tracing()``) on every path:
    # a guard the project wrote, ``True`` whenever Dynamo traces.
    is_compile_guard: bool = False
    returns_class: str | None = None  # a factory: ``return Model(...)``, class as written
    # What a return hands on, for ``Program.return_type`` to follow: the calls returned whose result syntax
    # cannot tell, as written (``return _in_sphere(x, r)``, ``return self.check(x)``), and the parameters whose
    # being tensors makes a returned value one (``return t.abs().mean().sqrt()``). One field for both: past 29
    # fields CPython no longer shares a class's instance keys when ``__setstate__`` fills ``__dict__``, and each
    # summary costs about 1.2 KiB more (diffusers' cold and edited runs: +17 MiB, measured).
    returns_through: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    calls: list[CallRecord] = field(default_factory=list)  # ``CallSite(*record)`` names the parts
    collectives: list[str] = field(default_factory=list)
    local_types: dict[str, str] = field(default_factory=dict)  # var -> class as written
    loop_containers: dict[str, str] = field(default_factory=dict)  # ``for layer in self.layers`` -> layers
    param_defaults: dict[str, str] = field(default_factory=dict)  # ``rnn_layer=nn.LSTM`` -> ``nn.LSTM``
    local_sources: dict[str, list[str]] = field(default_factory=dict)  # ``fn = FUNCS[k]`` -> dispatch sources
    decorators: list[str] = field(default_factory=list)  # as written, a call's arguments left out
    registers_into: list[str] = field(default_factory=list)  # ``REGISTRY[key] = fn`` with ``fn`` a parameter
    nesting: int = 0  # deepest ``ast`` nesting inside the function: the lint stage's LibCST limit
    # ``covar.lazy_covariance_matrix``: attribute reads that may run a property's getter, each written
    # name once, at its first line (names a tensor has are left out: ``summarize._may_be_property``).
    reads: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class ClassSummary(_PickledAsTuple):
    qualname: str
    lineno: int
    bases: list[str]  # qualified where the import table knows them, else as written
    attr_types: dict[str, str] = field(default_factory=dict)  # self.attr -> class as written
    tensor_attrs: set[str] = field(default_factory=set)  # parameters and buffers (``attribute_pattern``)
    container_items: dict[str, list[str]] = field(default_factory=dict)  # self.layers -> [Block]
    attr_sources: dict[str, list[str]] = field(default_factory=dict)  # every value self.attr is given
    decorators: list[str] = field(default_factory=list)
    metaclass: str = ""  # ``class D(metaclass=Meta)``: qualified where the import table knows it, else as written
    # ``self.attr = param`` where ``param: Encoder`` names a class: attr -> the class as written (what
    # ``self.attr`` is declared to hold: that class or a subclass of it, given by the caller).
    attr_declared: dict[str, str] = field(default_factory=dict)
    # A ``TypedDict`` whose keys may be missing: ``total=False``, or a field annotated ``NotRequired[...]``.
    optional_keys: bool = False
    # ``def __init__(self, q, fmt=lambda x: x): self.fmt = fmt``: the parameters of ``__init__`` whose default is a
    # function (a ``lambda``, or a name) and which ``__init__`` stores on ``self``, as (parameter, its position
    # after ``self``, the default as written: ``"lambda"`` or the dotted name).
    default_functions: tuple[tuple[str, int, str], ...] = ()


@dataclass
class ModuleSummary:
    path: str
    module: str
    imports: ImportTable
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    compile_sites: list[CompileSite] = field(default_factory=list)
    disabled_aliases: dict[str, str] = field(default_factory=dict)  # name -> wrapped function
    module_types: dict[str, str] = field(default_factory=dict)  # module-level var -> class as written
    type_aliases: dict[str, Annotation] = field(default_factory=dict)  # ``OptTensor = Optional[Tensor]``
    registries: dict[str, list[str]] = field(default_factory=dict)  # ``FUNCS = {"a": f}`` -> [f], as written
    # ``scipy.optimize.minimize(objective, x0, jac=gradient)``: per function (its qualname), the functions it
    # hands to a library call Dynamo runs eagerly (DYN004's table), as (line, callee as resolved, the arguments
    # as written). Kept here, not on each ``FunctionSummary``: few functions have any.
    callbacks: dict[str, tuple[tuple[int, str, tuple[str, ...]], ...]] = field(default_factory=dict)
    # ``module.register_forward_hook(self.post_forward)``: per function registering one (its qualname; ``""`` at
    # module level), the hooks it hands over, as (line, the hook as written).
    forward_hooks: dict[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    # ``module.register_full_backward_hook(hook)``, ``tensor.register_hook(hook)``: the same, for the hooks autograd
    # runs.
    backward_hooks: dict[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    # ``module.count = count.__get__(module)``, ``types.MethodType(count, module)``: attribute name -> the functions
    # bound to some object under that name, as written (``dispatch.bound_function``).
    bound_methods: dict[str, list[str]] = field(default_factory=dict)
    # ``self.handle = m.register_forward_hook(f)``: the last names of attributes given a hook's handle, and of those
    # holding handles as items (``hook_handles.py``).
    hook_handles: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    # ``obj.set_processor(Proc())``: method name -> (position, keyword, sources of the argument).
    call_arguments: dict[str, list[tuple[int, str | None, list[str]]]] = field(default_factory=dict)
    # ``torch._dynamo.config.X = value`` assignments: attribute -> bool or list of qualified names.
    dynamo_config: dict[str, object] = field(default_factory=dict)
    nesting: int = 0  # deepest ``ast`` nesting anywhere in the file

    def qualify(self, qualname: str) -> str:
        return f"{self.module}.{qualname}" if self.module else qualname

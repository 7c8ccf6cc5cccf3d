"""The value analysis's scope: is an expression a tensor, a tensor's *data*, only its *metadata*, or unknown?

Used by rules in the lint stage. One ``ValueScope`` per function: the region provider creates it when the
walk enters a ``def``, and ``flow.py`` feeds it every assignment *after* the statement has been visited, so that a query at a
node sees the bindings made by the statements before it (straight-line, last writer wins; loops are not
iterated to a fixed point). Sources of tensors: parameters annotated ``Tensor``, ``forward`` arguments
other than ``self``, ``torch.*`` calls, tensor methods, ``self.<parameter or buffer>`` and calls of
``torch.nn`` layers held in ``self``. ``Kind`` is ordered so that combining two values is ``max``:
anything touched by a tensor is a tensor, and unknown stays unknown, never data.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import libcst as cst

from dynalint.analysis.cst_walk import descendants, display_sources, named_parameters, subclass_test
from dynalint.analysis.qualified_names import ImportTable, dotted_name
from dynalint.analysis.summary import attribute_pattern, formatted_pattern
from dynalint.analysis.tensor_method_names import TENSOR_METHOD_NAMES
from dynalint.analysis.torch_facts import (
    AUTOGRAD_CALLS,
    CONST_BUILTINS,
    DATA_COMPARISON_FUNCTIONS,
    DATA_COMPARISONS,
    DATA_CONVERSIONS,
    DATA_METHODS,
    FULL_REDUCTIONS,
    META_ATTRIBUTES,
    MATH_VALUE_READS,
    META_METHODS,
    NUMPY_ARRAY_RESULTS,
    PASSTHROUGH_BUILTINS,
    REDUCTIONS,
    SPLITTING_BUILTINS,
    STRICT_TENSOR_METHODS,
    TENSOR_ATTRIBUTES,
    TENSOR_ONLY_METHODS,
    TorchResult,
    numpy_array_function,
    torch_result,
)
from dynalint.analysis.values.lattice import Kind, ValueType, combined

_is_literal_type = subclass_test(cst.BaseNumber, cst.BaseString)  # number and string literals
_CONTAINER_NODES = frozenset({cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp})
_DIM_KEYWORDS = frozenset({"dim", "axis"})
_SEQUENCE_NODES = frozenset({cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp})
_SCALAR_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})
# Lookups whose result is shaped like one argument (its position): a 0-d value gives a 0-d position.
_POSITION_LOOKUPS = {"torch.bucketize": 0, "torch.searchsorted": 1}
# Tensor-only methods that make a value of unknown kind a tensor (``confirm_tensor``): not the metadata ones, which
# a ``torch.Size`` has too (``shape.numel()``) and which type tests call (``isinstance(s, Tensor) and s.dim()``).
_CONFIRMING_METHODS = STRICT_TENSOR_METHODS - {"dim", "numel"}
# Those that give one tensor (not a tuple of them).
_TENSOR_ONLY_RESULTS = _CONFIRMING_METHODS - {"unbind", "chunk"}
_CONTAINER_BUILTINS = frozenset({"builtins.list", "builtins.tuple", "builtins.dict", "builtins.set", "builtins.sorted"})


_KIND_OF_RESULT = {
    TorchResult.TENSOR: Kind.TENSOR, TorchResult.METADATA: Kind.META, TorchResult.CONSTANT: Kind.CONST,
    TorchResult.UNKNOWN: Kind.UNKNOWN,
}


# Builtins whose answer is one of their arguments, or its magnitude: a NumPy value stays one (measured).
_NUMPY_KEEPING_BUILTINS = frozenset({"builtins.min", "builtins.max", "builtins.abs"})
# Builtins that fold an iterable's elements into one value of their kind: ``sum`` of tensors is a tensor, and
# Dynamo takes ``max`` / ``min`` of tensors as ``torch.maximum`` / ``minimum`` (measured on torch 2.13: no break).
_FOLDING_BUILTINS = frozenset({"builtins.sum", "builtins.min", "builtins.max"})


@dataclass
class ValueScope:
    """The value environment of one function body."""

    imports: ImportTable
    tensor_attrs: frozenset[str] = frozenset()  # ``self.<name>`` that hold parameters or buffers
    layer_attrs: frozenset[str] = frozenset()  # ``self.<name>`` that hold ``torch.nn`` layers
    env: dict[str, Kind] = field(default_factory=dict)
    # What a call to a function in the linted tree returns (its annotation or summary), else ``None``.
    call_type: Callable[[cst.Call], ValueType | None] | None = None
    # Names bound to containers or tuples whose items are known (``params: Dict[str, Tensor]``).
    structures: dict[str, ValueType] = field(default_factory=dict)
    # Names bound to a Python container built here (a display, a comprehension, ``list(...)``): its truth
    # is its length, known while Dynamo traces, whatever its items are.
    containers: set[str] = field(default_factory=set)
    # ``self.<held>.<attr>`` is a tensor: the object ``self.<held>`` holds (a submodule, a plain helper)
    # stores a tensor in ``attr`` (answered by the program from the classes' summaries).
    held_tensor: Callable[[str, str], bool] | None = None
    # ``<name>.<attr>`` is a tensor: ``name`` is a parameter declared a class of the tree that holds a tensor in
    # ``attr`` (``state: State`` with ``class State(NamedTuple): t: torch.Tensor``).
    declared_tensor: Callable[[str, str], bool] | None = None
    # Names bound to ``A or t`` / ``A and t`` with ``A`` a test on metadata: a tensor only when ``A``
    # is false (or true), which Dynamo knows while tracing; the condition, as shown in messages.
    conditional: dict[str, str] = field(default_factory=dict)
    # Names bound to a display whose truth is known without running anything (``parts = [y]``: true).
    truths: dict[str, bool] = field(default_factory=dict)
    # Names that are ``None`` while Dynamo traces: a parameter no caller in compiled code passes, left to
    # its ``None`` default (``Program.passed_none``), and names bound to one.
    nones: set[str] = field(default_factory=set)
    # Names bound to a 0-d tensor: a reduction over every element (``i = scores.argmax()``).
    scalars: set[str] = field(default_factory=set)
    # Names bound to a 0-d tensor of a Python number (``limit = torch.tensor(max_fpr)``): Dynamo knows its
    # value, so reading it does not break, but what it is looked up in is 0-d too.
    constant_scalars: set[str] = field(default_factory=set)
    # Names bound to a NumPy array (``a = t.numpy()``, ``a = np.asarray(x)``), or narrowed to one by
    # ``if isinstance(a, np.ndarray):`` (``flow.py``).
    numpy_arrays: set[str] = field(default_factory=set)
    # Names bound to what a NumPy function gives, whatever its arguments (``err = np.abs(a - b)``): Dynamo
    # runs it as ``torch._numpy``, so its truth is a tensor's (``numpy_valued``).
    numpy_values: set[str] = field(default_factory=set)
    # Names bound to a tensor's shape as a sequence (``dshape = list(data.shape)``): ``np.prod`` of one is
    # an array under Dynamo.
    shape_sequences: set[str] = field(default_factory=set)
    # Names an enclosing function's scope gave this one that it has not bound itself (neither a parameter nor
    # assigned so far): a closure's view of the enclosing function's locals and parameters.
    closure: set[str] = field(default_factory=set)

    @classmethod
    def for_function(
        cls,
        node: cst.FunctionDef,
        imports: ImportTable,
        is_method: bool,
        tensor_attrs: frozenset[str] = frozenset(),
        layer_attrs: frozenset[str] = frozenset(),
        parent: ValueScope | None = None,
        call_type: Callable[[cst.Call], ValueType | None] | None = None,
        parameter_types: dict[str, ValueType] | None = None,
        held_tensor: Callable[[str, str], bool] | None = None,
        none_parameters: frozenset[str] = frozenset(),
        declared_tensor: Callable[[str, str], bool] | None = None,
    ) -> ValueScope:
        """The scope at the top of ``node``'s body; ``parameter_types`` are what the program knows of the
        parameters: what every call in compiled code passes, else what the annotations say."""
        scope = cls(imports, tensor_attrs, layer_attrs, dict(parent.env) if parent else {}, call_type,
                    dict(parent.structures) if parent else {}, set(parent.containers) if parent else set(),
                    held_tensor, declared_tensor)
        params = node.params
        ordered = named_parameters(params)
        is_forward = is_method and node.name.value == "forward"
        annotated = parameter_types or {}
        for index, param in enumerate(ordered):
            name = param.name.value
            scope.structures.pop(name, None)
            scope.containers.discard(name)
            if is_method and index == 0:
                scope.env[name] = Kind.UNKNOWN  # ``self``: attributes are typed separately
            elif param.annotation is not None or name in annotated:
                declared = annotated.get(name, ValueType())
                scope.env[name] = declared.kind
                if declared.item is not Kind.UNKNOWN or declared.elements is not None:
                    scope.structures[name] = declared
            else:
                scope.env[name] = _unannotated_parameter_kind(param, is_forward)
        for name in _used_as_tensors(node, {n for n, k in scope.env.items() if k in (Kind.UNKNOWN, Kind.INPUT)}):
            scope.env[name] = Kind.TENSOR
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.env[star.name.value] = Kind.UNKNOWN
        scope.nones = set(none_parameters)
        own = {param.name.value for param in ordered} | {
            star.name.value for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)}
        scope.closure = set(parent.env) - own if parent else set()
        return scope

    # -- bindings -----------------------------------------------------------------------------
    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, kind: Kind | None = None) -> None:
        """Record ``target = value`` (``kind`` overrides the value's own kind, e.g. loop targets)."""
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            sources = display_sources(target, value) if kind is None else None
            structure = self.structure(value) if value is not None and kind is None and sources is None else None
            unpacked = structure.elements if structure is not None else None
            if unpacked is not None and len(unpacked) != len(elements):
                unpacked = None
            whole = kind if kind is not None else (self.kind(value) if value is not None else Kind.UNKNOWN)
            for index, element in enumerate(elements):
                inner = element.value if isinstance(element, cst.StarredElement) else element
                if sources is not None and kind is None:
                    source = sources[index]
                    if isinstance(source, cst.StarredElement):  # one of the items ``*prompt.shape`` spreads out
                        starred = self.structure(source.value)
                        item = starred.item if starred is not None else Kind.UNKNOWN
                        self.bind(inner, None, item if item is not Kind.UNKNOWN else self.kind(source.value))
                    else:
                        self.bind(inner, source)
                elif unpacked is not None and not isinstance(element, cst.StarredElement):
                    self.bind(inner, None, unpacked[index])
                elif structure is not None and structure.item is not Kind.UNKNOWN:
                    self.bind(inner, None, structure.item)  # ``a, b = tensors`` with ``tensors: List[Tensor]``
                else:
                    self.bind(inner, None, whole)
        elif isinstance(target, cst.Name):
            self.closure.discard(target.value)
            self.structures.pop(target.value, None)
            if kind is None and type(value) is cst.Name and value.value in self.nones:
                self.nones.add(target.value)  # ``deprecated_kwargs = take_from``
            else:
                self.nones.discard(target.value)
            truth = self.static_truth(value) if value is not None and kind is None else None
            if truth is None:
                self.truths.pop(target.value, None)
            else:
                self.truths[target.value] = truth
            condition = (self.condition_of(value) or self._kept_when(value)) if value is not None and kind is None else None
            if condition is None:
                self.conditional.pop(target.value, None)
            else:
                self.conditional[target.value] = condition
            if kind is None and value is not None and self._is_container(value):
                self.containers.add(target.value)
            else:
                self.containers.discard(target.value)
            self.env[target.value] = kind if kind is not None else (
                self.kind(value) if value is not None else Kind.UNKNOWN
            )
            structure = self.structure(value) if value is not None and kind is None else None
            if structure is not None:
                self.structures[target.value] = structure
            if kind is None and value is not None and self.is_scalar_tensor(value):
                self.scalars.add(target.value)
            else:
                self.scalars.discard(target.value)
            if kind is None and value is not None and self._is_constant_scalar(value):
                self.constant_scalars.add(target.value)
            else:
                self.constant_scalars.discard(target.value)
            if kind is None and value is not None and self.is_numpy_array(value):
                self.numpy_arrays.add(target.value)
            else:
                self.numpy_arrays.discard(target.value)
            if kind is None and value is not None and self.numpy_valued(value):
                self.numpy_values.add(target.value)
            else:
                self.numpy_values.discard(target.value)
            if kind is None and value is not None and self.is_shape_sequence(value):
                self.shape_sequences.add(target.value)
            else:
                self.shape_sequences.discard(target.value)

    def record_append(self, call: cst.Call) -> None:
        """``items.append(t)`` on a list of Python constants (``items = []``) with ``t`` a tensor: from here on
        ``items`` holds tensors, so ``items[i]`` is one (MONAI builds its instance masks this way)."""
        func = call.func
        if not (type(func) is cst.Attribute and func.attr.value == "append" and type(func.value) is cst.Name
                and len(call.args) == 1 and not call.args[0].star and call.args[0].keyword is None):
            return
        name = func.value.value
        item = self.kind(call.args[0].value)
        if item.is_tensor_like and self.env.get(name) is Kind.CONST and name not in self.structures:
            self.structures[name] = ValueType(Kind.CONST, item=item)

    def confirm_tensor(self, call: cst.Call) -> None:
        """A call that only succeeds on a tensor makes its operand one from here on (Dynamo would have failed
        on anything else): ``x.clone()`` on an un-annotated ``forward`` input; a method that no other common
        type has (``f.detach()``) on a name of unknown kind, such as what a stored callable returned; and the
        outputs differentiated by ``torch.autograd.grad(f, x)``, or ``f.backward()``. A tuple of tensors may
        be differentiated too, so these are probable tensors."""
        func = call.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name:
            name, method, known = func.value.value, func.attr.value, self.env.get(func.value.value)
            if known is Kind.INPUT and method in TENSOR_ONLY_METHODS:
                self.env[name] = Kind.TENSOR
            elif known is Kind.UNKNOWN and name not in self.structures and (
                    method in _CONFIRMING_METHODS or method == "backward"):
                self.env[name] = Kind.TENSOR if method in _CONFIRMING_METHODS else Kind.LIKELY_TENSOR
                return
        if call.args and type(call.args[0].value) is cst.Name and not call.args[0].star and (
                call.args[0].keyword is None or call.args[0].keyword.value in ("outputs", "tensors")):
            name = call.args[0].value.value
            if (self.env.get(name) is Kind.UNKNOWN and name not in self.structures
                    and self.resolve(func) in AUTOGRAD_CALLS):
                self.env[name] = Kind.LIKELY_TENSOR

    def bind_loop_target(self, target: cst.BaseExpression, iterated: cst.BaseExpression) -> None:
        """``for target in iterated``, in a statement or a comprehension. ``zip(a, b)`` and ``enumerate(a)``
        unpacked into a tuple of names are bound item by item (``for i, row in enumerate(t)``: ``i`` an
        int, ``row`` a tensor); anything else binds the target to what one item of ``iterated`` is."""
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(iterated, cst.Call) and not any(
            isinstance(e, cst.StarredElement) for e in target.elements
        ) and all(not a.star and a.keyword is None for a in iterated.args):
            elements = [e.value for e in target.elements]
            arguments = [a.value for a in iterated.args]
            builtin = self.resolve(iterated.func)
            if builtin == "builtins.zip" and len(arguments) == len(elements):
                for element, argument in zip(elements, arguments):
                    self.bind(element, None, self.loop_item(argument))
                return
            if builtin == "builtins.enumerate" and arguments and len(elements) == 2:
                self.bind(elements[0], None, Kind.CONST)
                self.bind_loop_target(elements[1], arguments[0])
                return
        self.bind(target, None, self.loop_item(iterated))

    def written_elements(self, iterated: cst.BaseExpression) -> Kind | None:
        """What the elements of a list, tuple or set written out, or of a comprehension or generator, are (the
        comprehension's loop names bound to what their iterables hold); ``None`` for any other expression. The
        truth builtins (``any(p.sum() > 0 for p in parts)``) and key-less sorts (``sorted([a, b])``) ask it."""
        if isinstance(iterated, (cst.List, cst.Tuple, cst.Set)):
            kinds = [self.kind(e.value) for e in iterated.elements if not isinstance(e, cst.StarredElement)]
            return combined(*kinds) if kinds else Kind.CONST
        if not isinstance(iterated, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            return None
        bound: dict[str, Kind] = {}
        loop: cst.CompFor | None = iterated.for_in
        while loop is not None:
            if isinstance(loop.target, cst.Name):
                bound[loop.target.value] = replace(self, env={**self.env, **bound}).loop_item(loop.iter)
            loop = loop.inner_for_in
        return replace(self, env={**self.env, **bound}).kind(iterated.elt)

    def loop_item(self, iterated: cst.BaseExpression) -> Kind:
        """What one item of iterating ``iterated`` is: a tensor's rows are tensors, a known container's items its item kind."""
        whole = self.kind(iterated)
        if whole.is_tensor_like:
            return whole
        structure = self.structure(iterated)  # ``for t in tensors`` with ``tensors: List[Tensor]``
        return structure.element(None) if structure is not None else Kind.UNKNOWN

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Qualified name of a ``Name`` / ``Attribute`` chain through the module's imports; ``None`` when
        its first name is bound in this function (a parameter or local shadows an import)."""
        dotted = dotted_name(node)
        if dotted is None or dotted.split(".")[0] in self.env:
            return None
        return self.imports.resolve(dotted)

    def structure(self, node: cst.BaseExpression) -> ValueType | None:
        """What indexing, iterating or unpacking ``node`` gives, where known: a name bound to a container
        or tuple, or a call of a function of the tree annotated to return one."""
        if isinstance(node, cst.Name):
            return self.structures.get(node.value)
        if isinstance(node, cst.Call) and node.args and self._splits_a_tensor(node):
            return ValueType(Kind.UNKNOWN, item=self.kind(node.args[0].value))
        if isinstance(node, cst.Call) and self.call_type is not None:
            found = self.call_type(node)
            if found is not None and (found.item is not Kind.UNKNOWN or found.elements is not None):
                return found
        return None

    def is_scalar_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is a 0-d tensor by how it is made: a reduction of a tensor over all its elements
        (``t.argmax()``, ``torch.count_nonzero(mask)``, ``t.sum()``: no dimension given), arithmetic of one
        with Python numbers or other 0-d tensors, or a name bound to one. Indexing with it reads it into
        Python (``__index__``), which Dynamo cannot trace."""
        if type(node) is cst.Name:
            return node.value in self.scalars
        if type(node) is cst.BinaryOperation:
            sides = (node.left, node.right)
            return any(self.is_scalar_tensor(side) for side in sides) and all(
                self.is_scalar_tensor(side) or self.kind(side) in (Kind.CONST, Kind.META) for side in sides)
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
            return self.is_scalar_tensor(node.expression)
        if type(node) is not cst.Call or any(a.star or a.keyword is not None and a.keyword.value in _DIM_KEYWORDS
                                               for a in node.args):
            return False
        func = node.func
        resolved = self.resolve(func)
        if resolved is not None:
            positional = [a.value for a in node.args if a.keyword is None]
            if resolved in _POSITION_LOOKUPS:  # ``torch.bucketize(value, boundaries)``: shaped like the value
                looked_up = positional[_POSITION_LOOKUPS[resolved]] if len(positional) > 1 else None
                return looked_up is not None and (self.is_scalar_tensor(looked_up) or self._is_constant_scalar(looked_up))
            return (resolved.removeprefix("torch.") in FULL_REDUCTIONS and resolved.startswith("torch.")
                    and len(positional) == 1 and self.kind(positional[0]).may_be_tensor)
        return (type(func) is cst.Attribute and func.attr.value in FULL_REDUCTIONS
                and not any(a.keyword is None for a in node.args) and self.kind(func.value).may_be_tensor)

    def _makes_numpy_array(self, call: cst.Call) -> bool:
        """A NumPy function of a sequence or an array, which ``torch._numpy`` runs as tensors (``np.prod([h, w])``:
        ``int()`` of it breaks, GB0033); of Python numbers it is folded while tracing (``np.ceil(n / 3)``),
        measured on torch 2.13."""
        return any(type(a.value) in _SEQUENCE_NODES or self.kind(a.value).is_tensor_like or self.is_numpy_array(a.value)
                   or self.is_shape_sequence(a.value) for a in call.args if a.keyword is None)

    def is_shape_sequence(self, node: cst.BaseExpression) -> bool:
        """A tensor's shape as a sequence: ``x.shape``, ``x.size()``, a slice of one, ``list(x.shape)``, or a name
        bound to one (``np.prod(x.shape)`` is an array under Dynamo: ``int()`` of it breaks, GB0033, measured)."""
        if isinstance(node, cst.Name):
            return node.value in self.shape_sequences
        if isinstance(node, cst.Attribute):
            return node.attr.value == "shape"
        if isinstance(node, cst.Subscript):
            return all(isinstance(e.slice, cst.Slice) for e in node.slice) and self.is_shape_sequence(node.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "size":
            return not node.args
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple"):
            return len(node.args) == 1 and self.is_shape_sequence(node.args[0].value)
        return False

    def is_numpy_array(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is a NumPy array by how it is made: ``t.numpy()``, a NumPy function giving an array,
        ``a.astype(...)`` of one, or a name bound (or narrowed) to one."""
        if type(node) is cst.Name:
            return node.value in self.numpy_arrays
        if type(node) is not cst.Call:
            return False
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "numpy" and not node.args:
            return self.kind(func.value).may_be_tensor
        if type(func) is cst.Attribute and func.attr.value == "astype":
            return self.is_numpy_array(func.value)
        resolved = self.resolve(func) or ""
        return (resolved.startswith("numpy.") and resolved[len("numpy."):] in NUMPY_ARRAY_RESULTS
                and self._makes_numpy_array(node))

    def _is_constant_scalar(self, node: cst.BaseExpression) -> bool:
        """``torch.tensor(max_fpr)`` of one Python number (or a name bound to one): 0-d, its value known to Dynamo."""
        if type(node) is cst.Name:
            return node.value in self.constant_scalars
        if type(node) is not cst.Call or self.resolve(node.func) not in _SCALAR_FACTORIES:
            return False
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        return len(positional) == 1 and type(positional[0]) not in _SEQUENCE_NODES and self.kind(positional[0]) in (
            Kind.CONST, Kind.META)

    def _splits_a_tensor(self, node: cst.Call) -> bool:
        """``list(t)`` / ``tuple(t)`` of a tensor: a Python sequence of its rows, not a tensor."""
        return self.resolve(node.func) in SPLITTING_BUILTINS and self.kind(node.args[0].value).is_tensor_like

    # -- queries ------------------------------------------------------------------------------
    def condition_of(self, node: cst.BaseExpression) -> str | None:
        """The Python test under which ``node`` is a tensor, when only one is: ``x.dtype == torch.half``
        for ``x.dtype == torch.half and t.isinf().any()``, ``not (flag)`` for ``flag or t.any()``. The test
        is anything that is not tensor data (metadata, a config attribute, an argument): Dynamo evaluates
        it while tracing, and only one of its values reaches the tensor."""
        if type(node) is cst.Name:
            return self.conditional.get(node.value)
        if type(node) is not cst.BooleanOperation:
            return None
        left = node.left
        if type(left) is cst.Comparison and all(type(c.operator) in (cst.Is, cst.IsNot) for c in left.comparisons):
            return None  # ``mask is not None and mask.any()``: an optional argument, not a condition
        if self.truth_kind(left) is Kind.CONST and self.static_truth(left) is not None:
            return None  # ``True or t.any()``: decided here, not a condition
        if self.truth_kind(left).is_data_dependent or not self.kind(node.right).is_data_dependent:
            return None
        shown = cst.Module([]).code_for_node(left)
        return shown if type(node.operator) is cst.And else f"not ({shown})"

    def _kept_when(self, node: cst.BaseExpression) -> str | None:
        """``t.all() or flag`` gives the tensor only when the tensor is true (``and``: when it is false);
        the test it breaks on is asked where it stands, and a later truth test of the result asks it again
        only then."""
        if type(node) is not cst.BooleanOperation or not self.truth_kind(node.left).is_data_dependent:
            return None
        if self.truth_kind(node.right).is_data_dependent:
            return None
        shown = cst.Module([]).code_for_node(node.left)
        return shown if type(node.operator) is cst.Or else f"not ({shown})"

    def static_truth(self, node: cst.BaseExpression) -> bool | None:
        """The truth of ``node`` when the code alone says it: a display (``[y]`` is true, ``()`` false),
        ``True``/``False``/``None``, or a name bound to one of those (a parameter left ``None`` too)."""
        if isinstance(node, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
            return bool(node.elements)
        if type(node) is cst.Name:
            if node.value in self.truths:
                return self.truths[node.value]
            if node.value in self.nones:
                return False
            return {"True": True, "False": False, "None": False}.get(node.value)
        return None

    def truth_kind(self, node: cst.BaseExpression) -> Kind:
        """The kind of ``bool(node)``: a Python container's truth is its length, known at trace time
        (``CONST``); anything else's is its kind."""
        if self._is_container(node):
            return Kind.CONST
        if type(node) is cst.Name and (node.value in self.containers or (
                node.value in self.structures and self.structures[node.value].elements is not None)):
            return Kind.CONST
        kind = self.kind(node)
        if not kind.is_data_dependent and self.numpy_valued(node):
            return Kind.TENSOR
        return kind

    def numpy_valued(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` holds what a NumPy function ``torch._numpy`` runs gave, whatever its arguments: a
        call, a name bound to one, or arithmetic, a comparison or an index of one. Dynamo traces it as a
        tensor even of Python numbers, so branching on it breaks (``if np.sqrt(2) > 1``, ``if np.any(flags)``:
        GB0170, measured on torch 2.13 for 25 functions); ``int()`` or ``float()`` of one of Python numbers
        is folded instead (measured), which is why this is asked of truth only."""
        if type(node) is cst.Name:
            return node.value in self.numpy_values
        if type(node) is cst.Call:
            resolved = self.resolve(node.func)
            if resolved in _NUMPY_KEEPING_BUILTINS:  # ``min(np.sum(p), np.sum(q))``: one of them
                return any(self.numpy_valued(a.value) for a in node.args)
            return numpy_array_function(resolved)
        if type(node) is cst.BooleanOperation:  # ``a or b`` is one of them
            return self.numpy_valued(node.left) or self.numpy_valued(node.right)
        if type(node) is cst.Comparison:
            return self.numpy_valued(node.left) or any(self.numpy_valued(c.comparator) for c in node.comparisons)
        if type(node) is cst.BinaryOperation:
            return self.numpy_valued(node.left) or self.numpy_valued(node.right)
        if type(node) is cst.UnaryOperation and not isinstance(node.operator, cst.Not):
            return self.numpy_valued(node.expression)
        if type(node) is cst.Subscript:
            return self.numpy_valued(node.value)
        return False

    def _is_container(self, node: cst.BaseExpression) -> bool:
        """A Python container built by this expression: a display, a comprehension, ``list(...)``."""
        if type(node) in _CONTAINER_NODES:
            return True
        return type(node) is cst.Call and self.resolve(node.func) in _CONTAINER_BUILTINS

    def kind(self, node: cst.BaseExpression) -> Kind:
        """The kind of value ``node`` evaluates to."""
        # Exact type tests (none of these LibCST classes is subclassed): asked of every expression a rule
        # looks at, and an ``isinstance`` against LibCST's ABCs runs a Python-level hook.
        if _is_literal_type(type(node)):
            return Kind.CONST
        if type(node) is cst.Name:
            if node.value in self.env:
                return self.env[node.value]
            return Kind.CONST if node.value in ("None", "True", "False") else Kind.UNKNOWN
        if type(node) is cst.Attribute:
            return self._attribute(node)
        if type(node) is cst.Call:
            return self._call(node)
        if type(node) is cst.Subscript:
            structure = self.structure(node.value)
            if structure is not None:
                found = structure.element(_constant_index(node))
                if found is not Kind.UNKNOWN:
                    return found
            base = self.kind(node.value)
            return base if base is not Kind.CONST else Kind.UNKNOWN
        if type(node) is cst.BinaryOperation:
            return combined(self.kind(node.left), self.kind(node.right))
        if type(node) is cst.UnaryOperation:
            return self.kind(node.expression)
        if type(node) is cst.BooleanOperation:
            return max(self.kind(node.left), self.kind(node.right))
        if type(node) is cst.Comparison:
            return self._comparison(node)
        if type(node) is cst.IfExp:
            return max(self.kind(node.body), self.kind(node.orelse))
        if type(node) is cst.Tuple or type(node) is cst.List or type(node) is cst.Set:
            kinds = [self.kind(e.value) for e in node.elements]
            return max(kinds, default=Kind.CONST)
        if type(node) is cst.NamedExpr:
            return self.kind(node.value)
        return Kind.UNKNOWN

    def _self_attribute_named(self, name: cst.BaseExpression) -> bool:
        """``getattr(self, name)`` of a parameter or buffer: a name registered as written, or an f-string of the
        shape one was registered under (e2cnn's ``register_buffer(f"{id}_indices", ...)``, then
        ``getattr(self, f"{id}_indices")``)."""
        if type(name) is cst.SimpleString:
            return name.evaluated_value in self.tensor_attrs
        if type(name) is cst.FormattedString:
            return attribute_pattern(
                [part.value if type(part) is cst.FormattedStringText else None for part in name.parts]
            ) in self.tensor_attrs
        if (type(name) is cst.Call and type(name.func) is cst.Attribute and name.func.attr.value == "format"
                and type(name.func.value) is cst.SimpleString):
            template = name.func.value.evaluated_value
            return isinstance(template, str) and formatted_pattern(template) in self.tensor_attrs
        return False

    def _attribute(self, node: cst.Attribute) -> Kind:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if attr in self.tensor_attrs:
                return Kind.TENSOR
            return Kind.META if attr == "training" else Kind.UNKNOWN
        holder = node.value
        if (self.held_tensor is not None and type(holder) is cst.Attribute and type(holder.value) is cst.Name
                and holder.value.value == "self" and self.held_tensor(holder.attr.value, attr)):
            return Kind.TENSOR
        if self.resolve(node) is not None:
            return Kind.CONST  # a module attribute such as ``torch.float32``
        if self.declared_tensor is not None and type(holder) is cst.Name and self.declared_tensor(holder.value, attr):
            return Kind.TENSOR
        base = self.kind(node.value)
        if attr in META_ATTRIBUTES and base in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.INPUT, Kind.UNKNOWN):
            return Kind.META
        if base.is_tensor_like or base is Kind.INPUT:
            tensor = Kind.LIKELY_TENSOR if base is Kind.LIKELY_TENSOR else Kind.TENSOR
            return tensor if attr in TENSOR_ATTRIBUTES else Kind.UNKNOWN
        return Kind.META if base is Kind.META else Kind.UNKNOWN

    def _call(self, node: cst.Call) -> Kind:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver_is_local = not (dotted_name(func) or "").split(".")[0] in self.imports.aliases
            if receiver_is_local or dotted_name(func) is None:
                return self._method(func, node)
        dotted = dotted_name(func)
        if dotted is not None and dotted.split(".")[0] in self.env:
            return Kind.UNKNOWN  # a local callable
        in_tree = self.call_type(node) if self.call_type else None
        if in_tree is not None and (in_tree.kind is not Kind.UNKNOWN or not _backend_reduction(dotted)):
            return in_tree.kind
        resolved = self.imports.resolve(dotted)
        if resolved is None:
            return Kind.UNKNOWN
        if resolved in DATA_COMPARISON_FUNCTIONS:
            return Kind.DATA
        if resolved.startswith("numpy.") and resolved[len("numpy."):] in NUMPY_ARRAY_RESULTS:
            return Kind.TENSOR if self._makes_numpy_array(node) else Kind.UNKNOWN
        if resolved.startswith("torch."):
            return _KIND_OF_RESULT[torch_result(resolved)]
        args = [self.kind(a.value) for a in node.args]
        if resolved in DATA_CONVERSIONS:
            arg = args[0] if args else Kind.CONST
            return Kind.DATA if arg.is_data_dependent else (Kind.UNKNOWN if arg is Kind.INPUT else arg)
        if resolved == "builtins.len":
            return Kind.META if args and (args[0].is_tensor_like or args[0] in (Kind.META, Kind.INPUT)) else Kind.UNKNOWN
        if resolved in SPLITTING_BUILTINS and args and args[0].is_tensor_like:
            return Kind.UNKNOWN  # a Python list of 0-d tensors: ``structure`` gives its items
        if (resolved == "builtins.getattr" and len(node.args) == 2 and type(node.args[0].value) is cst.Name
                and node.args[0].value.value == "self" and self._self_attribute_named(node.args[1].value)):
            return Kind.TENSOR
        if resolved in PASSTHROUGH_BUILTINS:
            if resolved in _FOLDING_BUILTINS and len(node.args) == 1 and not node.args[0].star:
                # ``sum(torch.dot(k, k) for k in parts)``: what it folds is what the elements are
                elements = self.written_elements(node.args[0].value)
                if elements is not None and elements.is_tensor_like:
                    return elements
            return max(args, default=Kind.UNKNOWN)
        if resolved in MATH_VALUE_READS:
            worst = max(args, default=Kind.CONST)  # ``math.sqrt(t)`` reads ``t``'s value; of a size, a size
            return Kind.DATA if worst.is_data_dependent else worst if worst <= Kind.META else Kind.UNKNOWN
        if resolved in CONST_BUILTINS:
            return Kind.CONST
        if node.args and _backend_reduction(resolved):
            return Kind.LIKELY_TENSOR
        return Kind.UNKNOWN

    def _method(self, func: cst.Attribute, node: cst.Call) -> Kind:
        name = func.attr.value
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            if name in self.layer_attrs:
                return Kind.TENSOR
            in_tree = self.call_type(node) if self.call_type else None
            return in_tree.kind if in_tree is not None else Kind.UNKNOWN
        base = self.kind(receiver)
        if name in DATA_METHODS:
            # ``.item()`` of a shape value (a TorchScript-era ``if isinstance(n, Tensor): n = n.item()``) is
            # still that shape value; only a tensor's contents are data.
            return Kind.META if base is Kind.META else Kind.DATA
        if base in (Kind.TENSOR, Kind.INPUT) and name in DATA_COMPARISONS:
            return Kind.DATA
        if base in (Kind.INPUT, Kind.TENSOR, Kind.LIKELY_TENSOR) and name not in TENSOR_METHOD_NAMES:
            # ``process_group._get_backend_name()``: no tensor has it, the input is something else. On a tensor,
            # a method ``torch.Tensor`` lacks is a subclass's own (flowtorch's ``BijectiveTensor.has_ancestor``,
            # which answers with a Python bool): what it gives is not known.
            return Kind.UNKNOWN
        if base in (Kind.TENSOR, Kind.INPUT):
            # A tensor method on a ``forward`` input confirms that the input is a tensor.
            return Kind.META if name in META_METHODS else Kind.TENSOR
        if base is Kind.LIKELY_TENSOR:
            if name in META_METHODS:
                return Kind.META
            # ``Union[Tensor, SparseTensor]``: ``adj.has_value()`` is the other member's question.
            return Kind.UNKNOWN if name.startswith(("has_", "is_")) else Kind.LIKELY_TENSOR
        if base is Kind.META and name in ("index", "count", "numel"):
            return Kind.META
        if base is Kind.UNKNOWN and name in _TENSOR_ONLY_RESULTS:
            # ``float(loss.detach())`` with ``loss`` from a stored callable: only a tensor has the method, so the
            # call's result is one (``confirm_tensor`` makes the receiver one from the next statement on).
            return Kind.TENSOR
        if base is Kind.UNKNOWN and name in REDUCTIONS and name not in DATA_COMPARISONS:
            # ``nx.allclose(a, b)`` answers with a Python bool whatever ``nx`` is: on tensors the call itself
            # breaks (GB0033), and the bool it gives is a constant to the code after it.
            return Kind.LIKELY_TENSOR
        return Kind.UNKNOWN

    def _comparison(self, node: cst.Comparison) -> Kind:
        operators = [c.operator for c in node.comparisons]
        if all(isinstance(op, (cst.Is, cst.IsNot)) for op in operators):
            return Kind.CONST
        if all(isinstance(op, (cst.In, cst.NotIn)) for op in operators):
            # ``"key" in kwargs`` asks a container; only membership in a tensor reads tensor data.
            containers = [self.kind(c.comparator) for c in node.comparisons]
            return Kind.TENSOR if Kind.TENSOR in containers else Kind.UNKNOWN
        return combined(self.kind(node.left), *(self.kind(c.comparator) for c in node.comparisons))


def _backend_reduction(name: str | None) -> bool:
    """A reduction named on a module of an array library's backend layer (geomloss's ``bk.norm(x)``,
    tensorly's ``tl.all(x)``, picked per array type at run time): a probable tensor, as ``nx.sum(a)`` on a
    local of unknown type is. Not the standard library's (``math.prod``, ``statistics.mean``), nor a
    comparison that answers with a Python bool (``allclose``)."""
    if not name or "." not in name:
        return False
    package, last = name.partition(".")[0], name.rpartition(".")[2]
    return (last in REDUCTIONS and last not in DATA_COMPARISONS and package not in sys.stdlib_module_names
            and package not in ("builtins", "numpy", "torch"))


def _used_as_tensors(function: cst.FunctionDef, candidates: set[str]) -> set[str]:
    """The parameters among ``candidates`` that the body's own top-level statements call a tensor-only method on
    (``error_ratio.type_as(last_step)``) before rebinding them: a tensor from the first line (the call would
    fail on anything else), so ``if error_ratio == 0:`` above it asks a tensor. Statements nested in a branch,
    a loop or a ``try`` do not count: a type test may have chosen them."""
    if not candidates or not isinstance(function.body, cst.IndentedBlock):
        return set()
    found: set[str] = set()
    live = set(candidates)
    for statement in function.body.body:
        if not live:
            break
        top_level = isinstance(statement, cst.SimpleStatementLine)
        bound: set[str] = set()
        for node in descendants(statement):
            kind = type(node)
            if kind is cst.Call:
                func = node.func  # type: ignore[attr-defined]
                if (top_level and type(func) is cst.Attribute and type(func.value) is cst.Name
                        and func.value.value in live and func.attr.value in STRICT_TENSOR_METHODS):
                    found.add(func.value.value)
            elif kind in _BINDING_NODES:
                target = node.name if kind is cst.AsName else node.target  # type: ignore[attr-defined]
                bound |= {n.value for n in descendants(target) if type(n) is cst.Name}
        live -= bound  # rebound here (in a compound statement: perhaps), so no longer the parameter
    return found


# Nodes that bind the names in their target: assignments, loop, ``with ... as`` and ``except ... as`` targets, walrus.
_BINDING_NODES = frozenset({cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.AsName,
                            cst.NamedExpr})


def _unannotated_parameter_kind(param: cst.Param, is_forward: bool) -> Kind:
    if not is_forward:
        return Kind.UNKNOWN
    default = param.default
    if default is None:
        return Kind.INPUT
    # ``mask=None`` is as often a flag (``output_attentions=None``) as an optional tensor.
    return Kind.CONST if isinstance(default, (cst.BaseNumber, cst.BaseString)) or (
        isinstance(default, cst.Name) and default.value in ("True", "False")
    ) else Kind.UNKNOWN


def _constant_index(node: cst.Subscript) -> int | None:
    """``t[1]`` / ``t[-1]`` -> the integer; anything else (a slice, a name, a key) -> ``None``."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    sign = 1
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        index, sign = index.expression, -1
    return sign * int(index.evaluated_value) if isinstance(index, cst.Integer) else None

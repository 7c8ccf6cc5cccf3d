"""DYN105 ``dynamic-output-shape``: output sizes set by tensor values. Page: ``rules/DYN105-dynamic-output-shape.md``.

Boolean-mask indexing is recognised from the index expression itself (a comparison, ``~``/``&``/``|``
of masks, ``isnan``-like predicates, ``.bool()``, a factory given ``dtype=torch.bool``) or from a local
name last assigned one of those: how a value was made says it is a mask. Through calls too: a parameter
every call in compiled code passes a mask (``LintContext.passed_masks``), a helper result made as a mask
on every ``return`` (``LintContext.returns_mask``), and a name that is a mask on one branch and of
unknown dtype on the other, all at ``likely``. A name is no evidence, except for an entry point's inputs,
which nothing in the tree made: there ``text_mask`` is taken for a mask at ``likely``. Mask *assignment* (``y[mask] = v``)
does not break and is skipped; ``y[mask] += v`` reads ``y[mask]`` first and is flagged. NumPy's ``nonzero``,
``argwhere``, ``flatnonzero``, ``unique`` and one-argument ``where`` are flagged whatever their arguments:
``torch._numpy`` runs them as the torch ops, on Python lists too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.dispatch import NEW
from dynalint.analysis.instances import enclosing_class, is_self
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import (
    BOOL_DTYPES,
    BOOL_PREDICATES,
    DYNAMIC_SHAPE_FUNCTIONS,
    DYNAMIC_SHAPE_ONLY_FUNCTIONS,
    DYNAMIC_SHAPE_OPS,
    MASK_KEEPING_METHODS,
    NUMPY_DYNAMIC_SHAPE_FUNCTIONS,
    ONE_HOT_FUNCTION,
    names_a_device,
)
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rewrites import Replace, is_pure, module_name, parenthesized, where_call
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability, Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


class DynamicOutputShape(Rule):
    code = "DYN105"
    name = "dynamic-output-shape"
    message = "{construct} in compiled code has an output size that depends on tensor values and breaks the graph"
    help = "Keep shapes fixed (`torch.where`, multiply by the mask), or set `capture_dynamic_output_shape_ops`"
    gb_ids = ("GB0036", "GB0033", "GB0246")
    fix = Applicability.UNSAFE  # masked sums and means: safe; masked in-place updates: unsafe

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._store_targets: set[int] = set()
        self._masks: list[dict[str, Confidence]] = [{}]  # local names last assigned a boolean mask, per function
        # Names whose origin says nothing about their dtype, per function: parameters, and names bound from
        # a call of a helper (``node_mask = index_to_mask(...)``) or from another such name.
        self._dtype_unknown: list[set[str]] = [set()]
        self._inputs: list[set[str]] = [set()]  # the parameters of an entry point, per function
        # Inside an ``if``, a binding adds what a name may be: after the statement the name may hold
        # what either branch gave it, so a mask or an unknown dtype is not forgotten there.
        self._branch_depth = 0
        # Parameters that default to ``None``, per function: ``output_size=output_size`` may pass ``None``.
        self._none_defaults: list[set[str]] = [set()]
        self._summed: dict[int, cst.Call] = {}  # id of ``x[mask]`` -> the ``.sum()`` / ``.mean()`` call around it
        self._updated: dict[int, cst.AugAssign] = {}  # id of ``x[mask]`` -> the ``x[mask] op= k`` it is the target of

    # -- scopes and bindings --------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._masks.append(dict.fromkeys(self.context.passed_masks(), Confidence.LIKELY))
        params = node.params
        names = {p.name.value for p in named_parameters(params)}
        self._dtype_unknown.append(names - set(self._masks[-1]))
        # An entry point's inputs come from callers outside the tree: nothing says how they were made.
        self._inputs.append(names if self.context.is_entry_point else set())
        self._none_defaults.append({
            p.name.value for p in named_parameters(params)
            if isinstance(p.default, cst.Name) and p.default.value == "None"
        })

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._masks.pop()
        self._dtype_unknown.pop()
        self._inputs.pop()
        self._none_defaults.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store_targets.update(id(t) for t in _targets(target.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._store_targets.update(id(t) for t in _targets(node.target))

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind(original_node.target, original_node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self._updated[id(node.target)] = node  # ``x[mask] *= k``: the fix updates in place without selecting

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind(original_node.target, None)

    def visit_For(self, node: cst.For) -> None:
        # A loop target takes the items of what it iterates, and an item keeps the dtype: the rows of a
        # mask are masks, an item of a parameter is as unknown as the parameter; ``zip`` pairs them up.
        target, iterated = node.target, node.iter
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = [(target, iterated)]
        if isinstance(iterated, cst.Call) and isinstance(target, (cst.Tuple, cst.List)):
            called = self.context.resolve(iterated.func)
            sources = [a.value for a in iterated.args]
            if called == "builtins.zip" and len(sources) == len(target.elements):
                pairs = [(element.value, source) for element, source in zip(target.elements, sources)]
            elif called == "builtins.enumerate" and len(sources) >= 1 and len(target.elements) == 2:
                pairs = [(target.elements[1].value, sources[0])]
        for name, source in pairs:
            if isinstance(name, cst.Name):
                self._bind(name, source)

    def visit_If(self, node: cst.If) -> None:
        self._branch_depth += 1

    def leave_If(self, original_node: cst.If) -> None:
        self._branch_depth -= 1

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(value, cst.Call) and self._bind_helper_result(target, value):
            return
        if isinstance(target, cst.Name):
            # A mask guessed from a name carries through aliasing, ``~``/``&``/``|`` and iteration (only a
            # mask makes sense there), not through indexing by another tensor (``order_mask[idx]``).
            mask = self._mask(value) if value is not None else None
            unknown = mask is None and value is not None and self._dtype_unknown_origin(value)
            if self._branch_depth and mask is None and not unknown and (
                    target.value in self._masks[-1] or target.value in self._dtype_unknown[-1]):
                return  # another path may have left it a mask, or of unknown dtype
            if self._branch_depth and unknown and target.value in self._masks[-1]:
                self._masks[-1][target.value] = Confidence.LIKELY  # a mask on another path
                return
            if mask is None:
                self._masks[-1].pop(target.value, None)
            else:
                self._masks[-1][target.value] = mask
            (self._dtype_unknown[-1].add if unknown else self._dtype_unknown[-1].discard)(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            unpacked = value is not None and self._dtype_unknown_origin(value)
            for element in target.elements:
                if isinstance(element.value, cst.Name):
                    self._masks[-1].pop(element.value.value, None)
                    (self._dtype_unknown[-1].add if unpacked else self._dtype_unknown[-1].discard)(element.value.value)

    def _bind_helper_result(self, target: cst.BaseExpression, value: cst.Call) -> bool:
        """``node_mask = index_to_mask(...)``, ``h, mask = to_dense_batch(x, batch)``: a helper of the tree
        that returns a boolean mask (made as one on every ``return``) gives a mask."""
        elements: list[tuple[cst.BaseExpression, int]]
        if isinstance(target, cst.Name):
            elements = [(target, -1)]
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [(e.value, index) for index, e in enumerate(target.elements)]
        else:
            return False
        found = [(name, self.context.returns_mask(value, index)) for name, index in elements]
        if not any(mask for _, mask in found):
            return False
        for name, mask in found:
            if isinstance(name, cst.Name):
                if mask:
                    self._masks[-1][name.value] = Confidence.LIKELY
                elif not self._branch_depth:
                    self._masks[-1].pop(name.value, None)
                (self._dtype_unknown[-1].discard if mask else self._dtype_unknown[-1].add)(name.value)
        return True

    def _dtype_unknown_origin(self, value: cst.BaseExpression) -> bool:
        """A value whose origin says nothing about its dtype: a call of a helper (not ``torch.*``, not a
        tensor method), or a name that is itself of unknown dtype."""
        if isinstance(value, cst.Name):
            return value.value in self._dtype_unknown[-1]
        if isinstance(value, cst.Subscript):
            return self._dtype_unknown_origin(value.value)
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.BitInvert):
            return self._dtype_unknown_origin(value.expression)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            sides = (value.left, value.right)
            return any(map(self._dtype_unknown_origin, sides)) and all(
                self._dtype_unknown_origin(side) or self._mask(side) is not None for side in sides)
        if isinstance(value, cst.Call):
            func = value.func
            resolved = self.context.resolve(func)
            if resolved is None and isinstance(func, cst.Attribute):
                # ``self.helper(...)`` is a helper; ``x.view(...)``, a method of a value, keeps what it knows
                return isinstance(func.value, cst.Name) and func.value.value == "self"
            return not (resolved or "").startswith("torch.")
        return False

    # -- the patterns ---------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.context.settings.capture_dynamic_output_shape_ops:
            return
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value in ("sum", "mean") and not node.args
                and isinstance(func.value, cst.Subscript)):
            self._summed[id(func.value)] = node  # ``x[mask].sum()``: the fix sums without selecting
        resolved = self.context.resolve(func)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if (resolved in DYNAMIC_SHAPE_FUNCTIONS or resolved in NUMPY_DYNAMIC_SHAPE_FUNCTIONS
                or resolved in DYNAMIC_SHAPE_ONLY_FUNCTIONS):
            self.report(node, construct=f"`{resolved.replace('numpy.', 'np.', 1)}()`")
        elif resolved == ONE_HOT_FUNCTION and _class_count_left_to_the_data(node, positional):
            self.report(node, gb_ids=("GB0246",), construct="`F.one_hot()` without `num_classes`")
        elif resolved in ("torch.where", "numpy.where") and len(node.args) == 1 and len(positional) == 1:
            self.report(node, construct=f"`{resolved.replace('numpy.', 'np.', 1)}(condition)`")
        elif resolved == "torch.repeat_interleave":
            # ``repeat_interleave(input, repeats)`` or ``repeat_interleave(repeats)``
            self._repeat_interleave(node, positional[1] if len(positional) > 1 else next(iter(positional), None))
        elif resolved is None and isinstance(func, cst.Attribute):
            receiver = self.context.kind(func.value)
            if not receiver.may_be_tensor:
                return
            method = func.attr.value
            if method in DYNAMIC_SHAPE_OPS:
                self.report(node, confidence=receiver.confidence, construct=f"`Tensor.{method}()`")
            elif method == "repeat_interleave" and receiver is not Kind.UNKNOWN:  # a list has no such method
                self._repeat_interleave(node, next(iter(positional), None))

    def _repeat_interleave(self, node: cst.Call, repeats: cst.Arg | None) -> None:
        """The output length is the sum of ``repeats``: value-dependent for a tensor, unless ``output_size``."""
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        output_size = keywords.get("output_size")
        if output_size is not None and not (
            isinstance(output_size.value, cst.Name) and output_size.value.value in self._none_defaults[-1]
        ):
            return
        repeats = keywords.get("repeats", repeats)
        kind = self.context.kind(repeats.value) if repeats is not None else Kind.UNKNOWN
        if kind.is_tensor_like:
            self.report(node, confidence=kind.confidence, construct="`repeat_interleave()` with tensor repeats")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.context.settings.capture_dynamic_output_shape_ops or id(node) in self._store_targets:
            return
        receiver = self.context.kind(node.value)
        if not receiver.may_be_tensor:
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                confidence = self._mask(element.slice.value)
                if confidence is not None:
                    likely = Confidence.LIKELY in (confidence, receiver.confidence)
                    rewrite = self._without_selection(node, element.slice.value) if len(node.slice) == 1 else None
                    self.report(node, confidence=Confidence.LIKELY if likely else Confidence.CERTAIN, rewrite=rewrite,
                                construct="Indexing with a boolean mask")
                    return

    def _without_selection(self, node: cst.Subscript, mask: cst.BaseExpression) -> Replace | None:
        summed, updated = self._summed.get(id(node)), self._updated.get(id(node))
        if summed is not None:
            return masked_reduction(self.context, summed, node.value, mask)
        if updated is not None:
            return masked_update(self.context, updated, node.value, mask)
        return None

    def _mask(self, node: cst.BaseExpression) -> Confidence | None:
        """How sure we are that ``node`` is a boolean tensor; ``None`` when we cannot show it."""
        kind = self.context.kind(node)
        maybe_tensor = kind.is_tensor_like or kind is Kind.INPUT
        if isinstance(node, cst.Name):
            if node.value in self._masks[-1]:
                return self._masks[-1][node.value]
            if node.value in self._inputs[-1] and node.value in self._dtype_unknown[-1] and (
                    _named_as_mask(node.value) and maybe_tensor):
                return Confidence.LIKELY  # an entry point's input: nothing in the tree made it, the name is all there is
            return None
        if isinstance(node, cst.Attribute) and self._made_and_named_as_mask(node):
            return Confidence.LIKELY
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self._mask(node.expression)
        kept = self._kept_mask(node)
        if kept is not None:
            return self._mask(kept)  # ``~((x == 0) | (g <= 0)).squeeze(-1)``: still the mask (pypose)
        if isinstance(node, cst.Subscript):  # indexing keeps the dtype, where the dtype is known
            guessed = isinstance(node.value, cst.Name) and node.value.value in self._dtype_unknown[-1]
            return self._mask(node.value) if maybe_tensor and not guessed else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            sides = [self._mask(node.left), self._mask(node.right)]
            if sides == [None, None]:
                return None
            return Confidence.LIKELY if Confidence.LIKELY in sides or not kind.is_tensor_like else kind.confidence
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            # ``(~y) * (mat < alpha)``: a product of two masks is their ``&`` (pytorch-metric-learning's losses); a
            # mask times anything else is a number
            sides = [self._mask(node.left), self._mask(node.right)]
            return None if None in sides else Confidence.LIKELY if Confidence.LIKELY in sides else sides[0]
        if isinstance(node, cst.IfExp):
            # ``pos_pair < m if inverted else pos_pair > m``: a mask whichever branch runs
            sides = [self._mask(node.body), self._mask(node.orelse)]
            return None if None in sides else Confidence.LIKELY if Confidence.LIKELY in sides else sides[0]
        if isinstance(node, cst.Call) and self._helper_mask(node):
            return Confidence.LIKELY
        if not kind.is_tensor_like:
            return self._mask_of_unknown_values(node)
        if isinstance(node, cst.Comparison):
            return kind.confidence if _elementwise(node) else None
        if isinstance(node, cst.Call):
            return kind.confidence if self._is_predicate(node) else None
        return None

    def _made_and_named_as_mask(self, node: cst.Attribute) -> bool:
        """``self.same_class_mask``: an attribute named as a mask that its class makes with a call (pytorch-metric-
        learning's regularizer builds ``torch.zeros(..., dtype=torch.bool)`` in ``__init__`` and sets it in place),
        never known as anything but a tensor. The dtype is not read: the name is what says boolean (``likely``)."""
        if not (is_self(node.value) and _named_as_mask(node.attr.value)):
            return False
        kind = self.context.kind(node)
        cls = enclosing_class(self.context)
        if cls is None or not (kind.is_tensor_like or kind in (Kind.INPUT, Kind.UNKNOWN)):
            return False
        sources = [source for _, source in self.context.program.attribute_sources(cls, node.attr.value)]
        return any(source.startswith(NEW) for source in sources)

    def _helper_mask(self, call: cst.Call) -> bool:
        """``logits[is_known(labels)]``: a helper of the tree that returns a mask as it makes it on every ``return``
        (``return labels >= 0``), given a value that may be a tensor (pytorch-ood's ``is_known`` / ``is_unknown``),
        as ``_mask_of_unknown_values`` takes a value compared elementwise and used as an index. Given only Python
        values (constants, sizes), its comparison is a Python bool: not claimed."""
        return self.context.returns_mask(call, -1) and any(
            self.context.kind(arg.value) not in (Kind.CONST, Kind.META, Kind.DATA) for arg in call.args)

    def _kept_mask(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The value whose dtype ``node`` keeps, where it is a view, a copy or a move of it: ``m.triu(1)``,
        ``torch.flip(m, (0,))``, ``m.to(x.device)``; ``None`` for anything else."""
        if not isinstance(node, cst.Call):
            return None
        func = node.func
        resolved = self.context.resolve(func)
        if resolved is not None:  # a function: ``torch.tril(m)``, not the method ``m.tril()``
            if (resolved.startswith("torch.") and resolved[6:] in _MASK_VIEWS and node.args
                    and node.args[0].keyword is None and not node.args[0].star):
                return node.args[0].value
            return None
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _MASK_VIEWS:
                return func.value
            if method == "to" and node.args and all(
                    names_a_device(_written(a.value), a.keyword.value if a.keyword else None) for a in node.args):
                return func.value
        return None

    def _mask_of_unknown_values(self, node: cst.BaseExpression) -> Confidence | None:
        """A mask made from values whose type nothing tells (a helper's parameter): ``inputs >= -bound``
        and ``mask.bool()`` are ``likely`` masks, since a value compared elementwise and then used as an
        index, or given a ``.bool()`` method, is a tensor (or an array, which Dynamo traces as one); never
        a comparison of constants, shapes or sizes."""
        if isinstance(node, cst.Comparison):
            if not _elementwise(node):
                return None
            sides = [(side, self.context.kind(side)) for side in (node.left, node.comparisons[0].comparator)]
            unknown = any(kind in (Kind.UNKNOWN, Kind.INPUT) and not isinstance(side, cst.Call) for side, kind in sides)
            return Confidence.LIKELY if unknown and all(kind is not Kind.META for _, kind in sides) else None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and (
                node.func.attr.value == "bool" or node.func.attr.value in BOOL_PREDICATES or self._to_bool(node)):
            # ``y_true.eq(self.ignore_index).eq(0)`` on a value read from a state dict (torchbearer's metrics), and
            # ``(self.storage[key] == 1).to(torch.bool)`` (catalyst's CMC metric): only a tensor has these methods
            # (and pandas, which compiled code does not index with)
            return Confidence.LIKELY if self.context.kind(node.func.value) in (Kind.UNKNOWN, Kind.INPUT) else None
        return None

    def _to_bool(self, node: cst.Call) -> bool:
        """``x.to(torch.bool)``, ``x.to(dtype=torch.bool)``: a cast to a boolean tensor."""
        return isinstance(node.func, cst.Attribute) and node.func.attr.value == "to" and any(
            self.context.resolve(a.value) in BOOL_DTYPES for a in node.args)

    def _is_predicate(self, node: cst.Call) -> bool:
        func = node.func
        resolved = self.context.resolve(func)
        if resolved is not None:
            if not resolved.startswith("torch."):
                return False
            # ``torch.any(y > 0, dim=-1)`` as well as ``(y > 0).any(-1)``: a mask, or a 0-d one that breaks too.
            return (resolved.count(".") == 1 and (resolved[6:] in BOOL_PREDICATES or resolved[6:] in ("any", "all"))
                    ) or self._bool_dtype(node)
        if not isinstance(func, cst.Attribute):
            return False  # the caller has checked that the call's value is a tensor
        method = func.attr.value
        if method in BOOL_PREDICATES or method == "bool":
            return True
        if method in ("any", "all"):
            return True  # over a dimension: a mask; over everything: a 0-d mask, which breaks as well
        if method == "to":
            return self._to_bool(node)
        return self._bool_dtype(node)

    def _bool_dtype(self, node: cst.Call) -> bool:
        """``torch.zeros(n, dtype=torch.bool)``, ``row.new_empty(n, dtype=torch.bool)``: a mask by construction."""
        return any(
            a.keyword is not None and a.keyword.value == "dtype" and self.context.resolve(a.value) in BOOL_DTYPES
            for a in node.args
        )


# The mask-keeping methods that only reshape or copy it (``.bool()`` and ``.logical_not()`` make a mask of anything).
_MASK_VIEWS = MASK_KEEPING_METHODS - {"bool", "logical_not"}


def _written(node: cst.BaseExpression) -> str | None:
    """A ``.to(...)`` argument as written: a dotted name, or a string literal with its quotes."""
    return node.value if isinstance(node, cst.SimpleString) else dotted_name(node)


def _named_as_mask(name: str) -> bool:
    """``mask``, ``edge_mask``, ``text_mask_2``: parameter names that, on a tensor index, mean a boolean mask."""
    return "mask" in name.lower()


def _targets(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.Tuple, cst.List)):
        return [t for element in node.elements for t in _targets(element.value)]
    return [node]


_SAME_SHAPE_PREDICATES = frozenset({"isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"})


def _class_count_left_to_the_data(node: cst.Call, positional: list[cst.Arg]) -> bool:
    """Whether ``one_hot(t)`` leaves ``num_classes`` at its default, -1: the class count is then the largest
    value of ``t`` plus one (GB0246). A ``num_classes`` written as anything but -1 is taken as given."""
    given = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "num_classes"),
                 positional[1].value if len(positional) > 1 else None)
    if given is None:
        return not any(a.star for a in node.args)  # ``one_hot(*args)``: the count may be among them
    return (isinstance(given, cst.UnaryOperation) and isinstance(given.operator, cst.Minus)
            and isinstance(given.expression, cst.Integer) and given.expression.value == "1")


def masked_reduction(context: LintContext, reduced: cst.Call, value: cst.BaseExpression,
                     mask: cst.BaseExpression) -> Replace | None:
    """``x[mask].sum()`` -> ``torch.where(mask, x, 0).sum()``, and ``x[mask].mean()`` -> that sum divided by
    ``mask.sum()``: the same values with no selection (safe), when the mask is made from ``x`` element by
    element (``x > 0``, ``~torch.isnan(x)``, ``&``/``|`` of those). It then has ``x``'s shape, as the
    eager indexing requires, and ``torch.where`` does not broadcast it differently."""
    if not _same_shape_mask(context, value, mask):
        return None
    torch = module_name(context.imports.aliases, "torch")
    total = cst.Call(cst.Attribute(where_call(torch, mask, value, cst.Integer("0")), cst.Name("sum")))
    method = reduced.func.attr.value  # type: ignore[attr-defined]
    new: cst.BaseExpression = total
    if method == "mean":
        count = cst.Call(cst.Attribute(parenthesized(mask), cst.Name("sum")))
        new = cst.BinaryOperation(total, cst.Divide(), count, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return Replace(reduced, new, f"{method} with `torch.where(mask, x, 0)`: no selection, a fixed shape",
                   Applicability.SAFE, imports=("torch",))


_UPDATES = {cst.AddAssign: ("add_", 0), cst.SubtractAssign: ("sub_", 0), cst.MultiplyAssign: ("mul_", 1),
            cst.DivideAssign: ("div_", 1)}


def masked_update(context: LintContext, update: cst.AugAssign, value: cst.BaseExpression,
                  mask: cst.BaseExpression) -> Replace | None:
    """``x[mask] *= k`` -> ``x.mul_(torch.where(mask, k, 1))`` (``+=``/``-=`` with 0, ``/=`` with 1) for a
    number ``k`` and a mask made from ``x`` element by element: the same update in place, no selection.
    Unsafe: on an integer ``x``, a float ``k`` makes the in-place update raise instead of truncating."""
    operation = _UPDATES.get(type(update.operator))
    if operation is None or not isinstance(update.value, (cst.Integer, cst.Float)):
        return None
    if not _same_shape_mask(context, value, mask):
        return None
    method, neutral = operation
    torch = module_name(context.imports.aliases, "torch")
    factor = where_call(torch, mask, update.value, cst.Integer(str(neutral)) if isinstance(update.value, cst.Integer)
                     else cst.Float(f"{neutral}.0"))
    call = cst.Call(cst.Attribute(parenthesized(value), cst.Name(method)), [cst.Arg(factor)])
    return Replace(update, cst.Expr(call), f"update in place with `Tensor.{method}` and `torch.where`: no selection",
                   Applicability.UNSAFE, imports=("torch",))


def _same_shape_mask(context: LintContext, value: cst.BaseExpression, mask: cst.BaseExpression) -> bool:
    shown = cst.Module([]).code_for_node
    return is_pure(context, value) and is_pure(context, mask) and _elementwise_of(mask, shown(value), shown)


def _elementwise_of(mask: cst.BaseExpression, value: str, shown: Callable[[cst.CSTNode], str]) -> bool:
    if isinstance(mask, cst.Comparison):
        return len(mask.comparisons) == 1 and isinstance(mask.comparisons[0].operator, COMPARISONS) and value in (
            shown(mask.left), shown(mask.comparisons[0].comparator))
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        return _elementwise_of(mask.expression, value, shown)
    if isinstance(mask, cst.BinaryOperation) and isinstance(mask.operator, (cst.BitAnd, cst.BitOr)):
        return _elementwise_of(mask.left, value, shown) and _elementwise_of(mask.right, value, shown)
    if isinstance(mask, cst.Call) and isinstance(mask.func, cst.Attribute) \
            and mask.func.attr.value in _SAME_SHAPE_PREDICATES:
        if not mask.args:  # ``x.isnan()``
            return shown(mask.func.value) == value
        return len(mask.args) == 1 and shown(mask.args[0].value) == value  # ``torch.isnan(x)``
    return False


def _elementwise(node: cst.Comparison) -> bool:
    """One comparison operator: ``a < x < b`` is ``(a < x) and (x < b)``, a ``bool()`` of a tensor, not a mask."""
    return len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, COMPARISONS)

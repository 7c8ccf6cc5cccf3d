"""DYN104 ``tensor-to-scalar``: ``int(t)``, ``float(t)``, ``complex(t)`` (``map(int, t)`` too), and a tensor given
to a torch op's Python-number argument (``torch.add(a, b, alpha=t)``). Page: ``rules/DYN104-tensor-to-scalar.md``.

``bool(t)`` is DYN102's (it is a branch in disguise). A conversion inside a slice bound that DYN103
reports is reported here too; DYN103 supersedes it, so the engine keeps only the slice's finding
when both rules are selected.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import MATH_VALUE_READS
from dynalint.lint.rewrites import keep_tensor
from dynalint.lint.rule import TensorArithmeticRule
from dynalint.model.finding import Applicability

_TENSOR_READ = ("GB0124", "GB0059")  # through ``.item()``; ``complex()``: not traced at all
CONVERSIONS = {"builtins.int": "int", "builtins.float": "float", "builtins.complex": "complex"}
# The arguments torch reads as Python numbers, by op (function or method, ``_`` for in place): a tensor given there
# is read with ``.item()``, a data-dependent operator (GB0033). Each entry is (keyword, position), the position
# counted with the input first (``F.elu(x, s)``: 1), as the function form takes it; a method call counts from its
# receiver (``x.new_full(size, s)``: 2), and ``None`` is keyword only. Measured on torch 2.13: add, sub, sub_,
# rsub, addr, addr_, addmm, addmm_, baddbmm, addcmul and ``Tensor.add``; ``F.elu``, ``celu``, ``leaky_relu``,
# ``hardtanh``, ``softplus``, ``threshold``, ``hardshrink``, ``rrelu``, ``dropout``, ``pad``'s value,
# ``normalize``'s p, ``nan_to_num``, ``renorm``, ``full_like``, ``new_full`` and ``fill_diagonal_``. Arguments
# torch also takes as tensors trace, and are not here: ``lerp``'s weight, ``masked_fill``'s and ``index_fill``'s
# value, ``clamp``'s bounds, ``torch.where``'s branches, ``torch.full``'s fill value.
_ALPHA = (("alpha", None),)
SCALAR_ARGUMENTS: dict[str, tuple[tuple[str, int | None], ...]] = {
    **dict.fromkeys(("add", "sub", "rsub"), _ALPHA),
    **dict.fromkeys(("addr", "addmm", "addmv", "addbmm", "baddbmm"), (("alpha", None), ("beta", None))),
    **dict.fromkeys(("addcmul", "addcdiv"), (("value", None),)),
    **dict.fromkeys(("elu", "celu"), (("alpha", 1),)),
    "leaky_relu": (("negative_slope", 1),),
    "hardtanh": (("min_val", 1), ("max_val", 2)),
    "softplus": (("beta", 1), ("threshold", 2)),
    "threshold": (("threshold", 1), ("value", 2)),
    **dict.fromkeys(("hardshrink", "softshrink"), (("lambd", 1),)),
    "rrelu": (("lower", 1), ("upper", 2)),
    **dict.fromkeys(("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"),
                    (("p", 1),)),
    "pad": (("value", 3),),
    "normalize": (("p", 1),),
    "nan_to_num": (("nan", 1), ("posinf", 2), ("neginf", 3)),
    "renorm": (("p", 1), ("maxnorm", 3)),
    "full_like": (("fill_value", 1),),
    "new_full": (("fill_value", 2),),
    "fill_diagonal": (("fill_value", 1),),
}
# The ops of the table that ``torch.Tensor`` has as methods: a method call of any other name is not the op.
SCALAR_ARGUMENT_METHODS = frozenset({"add", "sub", "addr", "addmm", "addmv", "addbmm", "baddbmm", "addcmul", "addcdiv",
                                     "nan_to_num", "renorm", "new_full", "fill_diagonal"})
# In-place forms Dynamo rewrites to take a tensor (the optimizers' ``p.addcdiv_(m, v, value=-step)``): traced
# without a break on torch 2.13.
TRACED_IN_PLACE = frozenset({"add_", "addcmul_", "addcdiv_"})


class TensorToScalar(TensorArithmeticRule):
    code = "DYN104"
    name = "tensor-to-scalar"
    message = "`{call}` on a tensor in compiled code reads its value into Python and breaks the graph"
    help = "Keep the value a tensor (tensor arithmetic, `torch.where`), or convert it after the compiled call returns"
    gb_ids = ("GB0124", "GB0059", "GB0033")
    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        call = CONVERSIONS.get(resolved or "")
        if call is None:
            if resolved in MATH_VALUE_READS:
                self._math_function(node, resolved)
            elif resolved == "builtins.map":
                self._mapped_conversion(node)
            else:
                self._scalar_arguments(node, resolved)
            return
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if call != "complex" and self.context.settings.capture_scalar_outputs:
            return  # traced as an unbacked symbol; ``complex()`` has no such path
        value = node.args[0].value
        kind = self.context.kind(value)
        if kind.is_tensor_like:
            if self.context.values.is_numpy_array(value):  # ``int(np.prod([h, w]))``: a data-dependent read
                self.report(node, confidence=kind.confidence, gb_ids=("GB0033",), pattern="numpy", call=f"{call}()")
                return
            # ``float(t)`` only: ``int(t)`` truncates, which the tensor would not.
            keep = call == "float" and self.in_tensor_arithmetic(node)
            rewrite = keep_tensor(node, value) if keep else None
            self.report(node, confidence=kind.confidence, rewrite=rewrite, gb_ids=_TENSOR_READ, call=f"{call}()")

    def _math_function(self, node: cst.Call, resolved: str) -> None:
        """``math.sqrt(t)``, ``math.isnan(loss)``: the function reads a tensor argument as a Python float."""
        if self.context.settings.capture_scalar_outputs:
            return
        kinds = [self.context.kind(arg.value) for arg in node.args if not arg.star]
        tensor = max((kind for kind in kinds if kind.is_tensor_like), default=None)
        if tensor is not None:
            self.report(node, confidence=tensor.confidence, gb_ids=("GB0033",), pattern="math", call=f"{resolved}()")

    def _mapped_conversion(self, node: cst.Call) -> None:
        """``v1, v2 = map(int, edges[e])``: each element of the tensor converted (pyro's spanning tree; GB0124,
        measured on torch 2.13, where ``map(int, sizes)`` of a list traces)."""
        if len(node.args) != 2 or any(a.keyword is not None or a.star for a in node.args):
            return
        call = CONVERSIONS.get(self.context.resolve(node.args[0].value) or "")
        if call is None or (call != "complex" and self.context.settings.capture_scalar_outputs):
            return
        kind = self.context.kind(node.args[1].value)
        if kind.is_tensor_like:
            self.report(node, confidence=kind.confidence, gb_ids=_TENSOR_READ, pattern="map", call=f"map({call}, ...)")

    def _scalar_arguments(self, node: cst.Call, resolved: str | None) -> None:
        """``torch.addr(i, s, y, alpha=rho)``, ``r.sub_(ap, alpha=a)``, ``F.leaky_relu(x, slope)``: a tensor where
        the op takes a number."""
        func = node.func
        first = 0  # the position of the call's first positional argument, the input counted as 0
        if resolved is not None:
            if not resolved.startswith("torch."):
                return
            op = resolved.rsplit(".", 1)[-1]
        elif isinstance(func, cst.Attribute) and self.context.kind(func.value).may_be_tensor:
            op = func.attr.value
            if op in TRACED_IN_PLACE or op.rstrip("_") not in SCALAR_ARGUMENT_METHODS:
                return
            first = 1
        else:
            return
        places = SCALAR_ARGUMENTS.get(op.rstrip("_"))
        if not places or self.context.settings.capture_scalar_outputs:
            return  # not such an op, or ``.item()`` traced as an unbacked symbol
        positional = [a for a in node.args if a.keyword is None]
        if any(a.star for a in positional):
            positional = []  # ``F.pad(*args)``: positions unknown
        for keyword, position in places:
            given = next((a for a in node.args if a.keyword is not None and a.keyword.value == keyword), None)
            if given is None and position is not None and 0 <= position - first < len(positional):
                given = positional[position - first]
            if given is None:
                continue
            kind = self.context.kind(given.value)
            if kind.is_tensor_like:  # at the call: Dynamo breaks on its first line (a call over several lines)
                self.report(node, confidence=kind.confidence, gb_ids=("GB0033",), pattern="scalar-argument",
                            call=f"{keyword}={cst.Module([]).code_for_node(given.value)}")
                return

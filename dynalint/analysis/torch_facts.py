"""Torch API facts, as data: which qualified names compile, disable, are collectives, return tensors...

Read by every stage (summary, guards, regions, program, the value analysis, rules) so that each fact is
written once. Names are fully qualified as the import tables resolve them (``torch.compiler.disable``);
method and attribute names are bare (``item``). Adding a torch function is one line here. The few
functions (``is_module_base``, ``torch_result``) only read these tables.
"""

from __future__ import annotations

import enum

# ``torch.compiler.is_compiling()`` and its aliases: code under ``if not is_compiling():`` is never traced.
IS_COMPILING = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._dynamo.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch._utils.is_compiling",
    }
)

COMPILE = frozenset({"torch.compile"})
DISABLE = frozenset(
    {
        "torch._dynamo.disable",
        "torch.compiler.disable",
        "torch._dynamo.eval_frame.disable",
        "torch._disable_dynamo",
    }
)
DYNAMO_CONFIG = "torch._dynamo.config."
# Decorators whose functions Dynamo does not trace into (and does not break on either).
NOT_TRACED = frozenset(
    {
        "torch._dynamo.decorators.leaf_function",
        "torch._dynamo.leaf_function",
        "torch._dynamo.nonstrict_trace",
        "torch._dynamo.decorators.nonstrict_trace",
        "torch.library.custom_op",
        "torch._library.custom_ops.custom_op",
        "torch._dynamo.allow_in_graph",
        "torch.compiler.allow_in_graph",
    }
)
# Types whose instances are tensors: annotations, ``isinstance`` tests, return annotations.
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.FloatTensor", "torch.LongTensor"})
PARTIAL = frozenset({"functools.partial"})
# A class these decorate gets an ``__init__`` that calls its ``__post_init__`` (unless it writes its own).
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
# A pydantic model's constructor runs its field validators from pydantic-core, in C: called from compiled code,
# Dynamo breaks in pydantic's ``__init__`` and compiles each field validator as a frame of its own (measured on
# torch 2.13, pydantic 2.14: a branch on a tensor in a ``field_validator`` is GB0170 on its line). A
# ``model_validator(mode="after")`` measured otherwise in a plain model (its branch did not break), so it is left.
PYDANTIC_MODEL_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
PYDANTIC_VALIDATORS = frozenset({"pydantic.field_validator", "pydantic.validator",
                                 "pydantic.functional_validators.field_validator"})
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# Base classes of other frameworks that derive from ``nn.Module``, by the names users import them under:
# a subclass's ``forward`` is what calling an instance runs, as for ``nn.Module`` itself.
FRAMEWORK_MODULE_BASES = frozenset({
    *(f"{package}.LightningModule" for package in (
        "lightning", "lightning.pytorch", "lightning.pytorch.core", "lightning.pytorch.core.module",
        "pytorch_lightning", "pytorch_lightning.core", "pytorch_lightning.core.module",
        "pytorch_lightning.core.lightning")),
    "torchmetrics.Metric", "torchmetrics.metric.Metric",
    "pyro.nn.PyroModule", "pyro.nn.module.PyroModule",
    "gpytorch.Module", "gpytorch.module.Module",
})
# What calling an instance of such a base runs besides ``forward``: the methods of the subclass that the
# base's own ``forward`` calls (``torchmetrics.Metric.forward`` runs ``update``, then ``compute``).
FRAMEWORK_INSTANCE_CALLS: dict[str, tuple[str, ...]] = {
    "torchmetrics.Metric": ("update", "compute"),
    "torchmetrics.metric.Metric": ("update", "compute"),
}
# ``class Scale(Function)``: ``Scale.apply(x)`` runs its ``forward``, which Dynamo traces.
AUTOGRAD_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
TENSOR_BASES = frozenset({"torch.Tensor", "torch._tensor.Tensor"})  # a class deriving from one is a tensor subclass
# Registrations of a hook that an ``nn.Module``'s call runs before or after ``forward``: where the module is called in
# compiled code, Dynamo traces the hook there (measured on torch 2.13: a ``print`` in each broke). The methods, by
# their name on any value, and torch's global registrations, by their qualified name. Backward hooks run in autograd,
# outside the module's call: eagerly when backward runs outside compiled code (``register_full_backward_hook``, a
# tensor's ``register_hook``: measured, no break), as frames of their own when it runs inside (below).
FORWARD_HOOK_METHODS = frozenset({"register_forward_hook", "register_forward_pre_hook"})
GLOBAL_FORWARD_HOOKS = frozenset(
    f"torch.nn.modules.module.{name}" for name in ("register_module_forward_hook", "register_module_forward_pre_hook")
)
# Registrations of a hook autograd runs: a module's backward hooks and a tensor's ``register_hook``. Backward run in
# compiled code (``loss.backward()`` in a compiled step, eagerly after its break) runs them while Dynamo's callback
# is active, and Dynamo compiles each as a frame of its own (measured on torch 2.13: a ``print`` in each broke);
# backward run outside compiled code runs them eagerly (no break, as above).
BACKWARD_HOOK_METHODS = frozenset({"register_full_backward_hook", "register_backward_hook",
                                   "register_full_backward_pre_hook", "register_hook"})
GLOBAL_BACKWARD_HOOKS = frozenset(
    f"torch.nn.modules.module.{name}" for name in ("register_module_full_backward_hook",
                                                   "register_module_backward_hook",
                                                   "register_module_full_backward_pre_hook")
)
# What runs autograd's backward from compiled code: ``loss.backward()`` by its last name, and these by qualified name.
AUTOGRAD_RUNS = frozenset({"torch.autograd.backward", "torch.autograd.grad"})
# Every registration of a module hook, whose result is a ``RemovableHandle`` (DYN511): the methods by their name on
# any value (a tensor's ``register_hook`` is not one of them), and torch's global registration by its qualified name.
MODULE_HOOK_REGISTRATIONS = frozenset({"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                                       "register_backward_hook", "register_full_backward_pre_hook"})
GLOBAL_HOOK_REGISTRATIONS = frozenset({"torch.nn.modules.module.register_module_forward_hook"})

COLLECTIVES = frozenset(
    f"torch.distributed.{name}"
    for name in (
        "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "reduce_scatter",
        "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list",
        "reduce", "barrier", "gather", "scatter", "send", "recv", "isend", "irecv", "monitored_barrier",
    )
)
# Constructors of ``nn.Module`` containers: attributes built from them hold sub-modules.
CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict"})
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer",
                        "torch.nn.Buffer"})
# Upper-case names under ``torch.nn`` that build tensors, not modules.
NN_TENSOR_CLASSES = frozenset({"Parameter", "UninitializedParameter", "Buffer", "UninitializedBuffer"})


def is_module_base(qualified: str | None) -> bool:
    """Whether a base class outside the tree makes its subclasses ``nn.Module``s: ``torch.nn.Module``
    itself, and any ``torch.nn`` layer class derived from it, public (``nn.Linear``, ``nn.Sequential``)
    or private (``torch.nn.modules.loss._Loss``, ``torch.nn.modules.instancenorm._InstanceNorm``).

    ``Module`` is known by ``MODULE_BASES``' names only: torch's own wrappers import it from elsewhere
    (``DistributedDataParallel``), and Dynamo does not trace their ``forward`` as the user's code."""
    if qualified in MODULE_BASES or qualified in FRAMEWORK_MODULE_BASES:
        return True
    if not qualified or not qualified.startswith("torch.nn.") or qualified.startswith(
        ("torch.nn.utils.", "torch.nn.parameter.")
    ):
        return False
    last = qualified.rsplit(".", 1)[-1]
    return last != "Module" and last.lstrip("_")[:1].isupper() and last not in NN_TENSOR_CLASSES


# ``Model(cfg).to(device).eval()`` is still a ``Model``: ``nn.Module`` methods that return the module.
MODULE_RETURNING_METHODS = frozenset(
    {"to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16", "requires_grad_", "to_empty"}
)

# -- tensors: what their attributes and methods give --------------------------------------------
# Attributes that describe a tensor without reading its data (``training`` is a module's flag).
META_ATTRIBUTES = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_leaf", "names",
     "is_sparse", "is_quantized", "is_meta", "itemsize", "nbytes", "training"}
)
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
META_METHODS = frozenset(
    {"size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset", "is_contiguous",
     "is_floating_point", "is_complex", "element_size", "get_device", "data_ptr", "type", "is_pinned",
     "is_shared", "has_names", "__len__"}
)
# Methods that read a tensor's contents into Python values.
DATA_METHODS = frozenset({"item", "tolist"})
# Comparisons that answer with a Python bool, read from the tensors' contents (``torch.allclose(a, b)``,
# ``a.equal(b)``): Dynamo cannot trace the read (GB0033, measured on torch 2.13).
DATA_COMPARISONS = frozenset({"allclose", "equal"})
DATA_COMPARISON_FUNCTIONS = frozenset(f"torch.{name}" for name in DATA_COMPARISONS)
# Methods that, on a receiver of unknown type, almost always mean a tensor (or an ndarray, which
# Dynamo traces as one): their result in a condition is a branch on data.
REDUCTIONS = frozenset(
    {"sum", "mean", "any", "all", "max", "min", "amax", "amin", "norm", "std", "var", "prod", "argmax",
     "argmin", "isnan", "isinf", "isfinite", "abs", "count_nonzero", "allclose", "equal", "logsumexp",
     # products and scalar summaries of the same kind (torchmin's ``rho_inv = y.dot(s)``, then a branch on it)
     "dot", "vdot", "inner", "trace", "median", "nansum", "nanmean", "dist", "det", "logdet"}
)
# Reductions that, given no dimension, reduce every element to a 0-d tensor (those whose integer result
# may index: positions, counts, sums of integer or boolean tensors, extremes).
FULL_REDUCTIONS = frozenset({"argmax", "argmin", "sum", "count_nonzero", "max", "min", "amax", "amin", "prod"})
# Methods no built-in Python type has: called on an un-annotated ``forward`` input, they show it is a
# tensor from then on (``x.clone()``, then ``x[x[:, 0] > 0]`` indexes a tensor with a mask).
TENSOR_ONLY_METHODS = frozenset(
    {"clone", "detach", "view", "reshape", "contiguous", "permute", "transpose", "unsqueeze", "squeeze", "flatten",
     "expand", "masked_fill", "softmax", "log_softmax", "relu", "sigmoid", "tanh", "matmul", "float", "half",
     "eq", "ne", "gt", "ge", "lt", "le", "cumsum", "size", "dim", "numel", "new_zeros", "new_ones", "new_full",
     "new_empty", "type_as", "to", "cpu", "cuda", "float", "long", "bool"}
) | REDUCTIONS
# Those that no other common type has either: not ``nn.Module``'s (``to``, ``float``, ``cuda``), not numpy's
# (``reshape``, ``sum``, ``transpose``): a parameter they are called on is a tensor (``values/scope.py``).
STRICT_TENSOR_METHODS = frozenset(
    {"clone", "detach", "contiguous", "permute", "unsqueeze", "masked_fill", "softmax", "log_softmax", "type_as",
     "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "expand", "expand_as", "numel", "dim",
     "masked_fill_", "index_select", "gather", "scatter", "scatter_add", "narrow", "unbind", "chunk"}
)
# Those of them that give a tensor: a function returning one returns a tensor. Not ``size()`` or ``dim()``,
# nor the methods ``nn.Module`` shares (``return model.to(device)`` in a factory returns a module).
TENSOR_RESULT_METHODS = TENSOR_ONLY_METHODS - META_METHODS - {"to", "cpu", "cuda", "float", "half", "long", "bool"}
# Ops whose output size depends on tensor values (functions as ``torch.<name>``, and methods).
DYNAMIC_SHAPE_OPS = frozenset({"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"})
DYNAMIC_SHAPE_FUNCTIONS = frozenset(f"torch.{name}" for name in DYNAMIC_SHAPE_OPS)
# Functions with no method twin whose outputs are data-sized whatever their arguments (GB0036, measured on
# torch 2.13): ``linalg.lstsq`` returns the rank and singular values its driver found, ``combinations`` selects
# with a mask inside.
DYNAMIC_SHAPE_ONLY_FUNCTIONS = frozenset({"torch.linalg.lstsq", "torch.combinations"})
# ``one_hot``'s class count, read from the largest value when ``num_classes`` is left at -1 (GB0246).
ONE_HOT_FUNCTION = "torch.nn.functional.one_hot"
# NumPy's, which ``torch._numpy`` runs as the torch ops above whatever their arguments, Python lists of numbers
# included (GB0036, measured on torch 2.13); ``np.where`` with the condition alone is ``nonzero`` too.
NUMPY_DYNAMIC_SHAPE_FUNCTIONS = frozenset({"numpy.nonzero", "numpy.argwhere", "numpy.flatnonzero", "numpy.unique"})
# A dict's views, ``d.items()`` / ``d.values()`` / ``d.keys()``: what a comprehension iterates that Dynamo cannot
# rebuild half used (DYN111).
DICT_VIEWS = frozenset({"items", "values", "keys"})
# ``nn.Module`` methods that return generators of its parameters, buffers or submodules (with their names).
MODULE_GENERATORS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules",
                               "named_modules", "children", "named_children"})
# Elementwise predicates: their result is a bool tensor (a mask).
BOOL_PREDICATES = frozenset(
    {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "isin", "isclose", "signbit", "logical_and", "logical_or",
     "logical_not", "logical_xor", "eq", "ne", "gt", "ge", "lt", "le", "greater", "greater_equal", "less",
     "less_equal", "not_equal"}
)
BOOL_DTYPES = frozenset({"torch.bool"})
# Methods that keep a boolean mask a boolean mask: ``mask.view(b, n)``, ``(x == 0).squeeze(-1)``, and the ops that
# move, copy or select its elements without changing the dtype (``ones(n, n, dtype=torch.bool).triu(1)``, a causal
# mask; ``mask.flip(0)``; measured on torch 2.13: indexing with each of them breaks, GB0036). As ``torch.<name>``
# functions too, given the mask first (``torch.tril(x > 0)``).
MASK_KEEPING_METHODS = frozenset({"view", "reshape", "unsqueeze", "squeeze", "expand", "expand_as", "flatten",
                                  "t", "transpose", "permute", "contiguous", "clone", "detach", "bool", "logical_not",
                                  "triu", "tril", "flip", "fliplr", "flipud", "roll", "repeat", "tile",
                                  "repeat_interleave", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
                                  "narrow", "select", "index_select", "view_as", "reshape_as", "unflatten", "cpu",
                                  "cuda"})


def names_a_device(written: str | None, keyword: str | None = None) -> bool:
    """Whether an argument of ``.to(...)``, written as ``written`` (a dotted name or a string literal) or passed
    as ``keyword``, only moves the tensor: ``mask.to(x.device)``, ``.to(device)``, ``.to("cuda")``, ``.to(device=d,
    non_blocking=True)`` keep a boolean mask one, where ``.to(torch.float)`` or ``.to(x)`` do not."""
    if keyword is not None:
        return keyword in ("device", "non_blocking", "copy")
    if written is None:
        return False
    if written.strip("'\"") in ("cpu", "cuda", "meta", "mps", "xpu") and written[:1] in "'\"":
        return True
    return "device" in written.rpartition(".")[2].lower()


# -- what a call of ``torch.<...>`` returns -------------------------------------------------------
class TorchResult(enum.Enum):
    TENSOR = "tensor"
    METADATA = "metadata"  # a shape, a dtype, a size: describes tensors without reading their data
    CONSTANT = "constant"  # a Python value that does not depend on any tensor
    UNKNOWN = "unknown"


# Sub-namespaces whose functions return tensors; other namespaces (nn, cuda, distributed, ...) hold
# functions that do not, or whose results cannot be typed without their signatures.
TENSOR_NAMESPACES = frozenset({"nn.functional", "linalg", "fft", "special", "sparse", "nested"})
# Top-level ``torch.<name>`` functions that do not return a tensor.
METADATA_FUNCTIONS = frozenset(
    {"is_floating_point", "is_complex", "numel", "Size", "result_type", "promote_types", "can_cast",
     "broadcast_shapes", "sym_int", "sym_float"}
)
CONSTANT_FUNCTIONS = frozenset(
    {"is_tensor", "is_grad_enabled", "is_inference_mode_enabled", "get_default_dtype", "finfo", "iinfo", "device",
     "dtype", "typename", "is_storage", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "autocast",
     "manual_seed", "seed", "initial_seed", "compile", "Generator"}
)
# Top-level functions whose result is whatever was pickled (``checkpoint = torch.load(path)``, a dict whose keys
# ``"optimizer_state_dict" in checkpoint`` asks about): not known to be a tensor.
UNKNOWN_RESULT_FUNCTIONS = frozenset({"load"})
# ``torch.get_*`` / ``is_*`` queries return Python values, except these.
QUERY_PREFIXES = ("is_", "are_", "has_", "get_")
TENSOR_QUERIES = frozenset({"get_rng_state"})


def torch_result(qualified: str) -> TorchResult:
    """What a call of the ``torch`` API ``qualified`` (``torch.zeros``, ``torch.linalg.norm``) returns."""
    parts = qualified.split(".")[1:]
    if not parts or parts[-1].startswith("_"):
        return TorchResult.UNKNOWN  # private helpers return anything
    if len(parts) > 1:
        return TorchResult.TENSOR if ".".join(parts[:-1]) in TENSOR_NAMESPACES else TorchResult.UNKNOWN
    name = parts[0]
    if name in UNKNOWN_RESULT_FUNCTIONS:
        return TorchResult.UNKNOWN
    if name in METADATA_FUNCTIONS:
        return TorchResult.METADATA
    if name in DATA_COMPARISONS:
        return TorchResult.CONSTANT  # a Python bool, read where the call breaks (DYN101): no tensor after it
    if name in CONSTANT_FUNCTIONS or (name.startswith(QUERY_PREFIXES) and name not in TENSOR_QUERIES):
        return TorchResult.CONSTANT  # is_autocast_enabled(), get_default_device(), are_deterministic_...
    if name[:1].isupper():
        return TorchResult.TENSOR if name.endswith("Tensor") else TorchResult.UNKNOWN
    return TorchResult.TENSOR


# -- Python's own names, as the value analysis sees them around tensors ----------------------------
SCALAR_TYPES = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.str"})
# ``isinstance(x, <these>)``: inside the block ``x`` is a Python value.
PYTHON_TYPES = frozenset(
    {"builtins.int", "builtins.float", "builtins.bool", "builtins.str", "builtins.list", "builtins.tuple",
     "builtins.dict", "numbers.Number", "builtins.complex"}
)
DATA_CONVERSIONS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})
# ``math`` functions of numbers: given a tensor, each reads its value as a Python float, a data-dependent
# operator (GB0033, measured on torch 2.13 for sqrt, exp, log, pow, floor, ceil, fabs, atan2, isnan, isfinite
# and isclose). ``math.prod`` multiplies its items with ``*`` and keeps tensors (measured: no break).
MATH_VALUE_READS = frozenset(f"math.{name}" for name in (
    "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "pow", "floor", "ceil", "fabs", "atan2", "isnan",
    "isinf", "isfinite", "isclose", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf",
    "erfc", "gamma", "lgamma", "hypot", "copysign", "fmod", "degrees", "radians"))
# Builtins whose result is as tensor-dependent as their arguments.
PASSTHROUGH_BUILTINS = frozenset(
    {"builtins.min", "builtins.max", "builtins.abs", "builtins.round", "builtins.sum", "builtins.list",
     "builtins.tuple", "builtins.sorted", "builtins.reversed"}
)
# Functions that return one of their arguments as it is, typing helpers that refine it: the position of that argument.
# ``none_throws(self.lr_scheduler).step()`` (torchtnt) steps the scheduler itself; ``cast(T, x)`` is ``x``.
IDENTITY_FUNCTIONS: dict[str, int] = {"pyre_extensions.none_throws": 0, "pyre_extensions.assert_is_instance": 0,
                                      "typing.cast": 1, "typing_extensions.cast": 1}
# Builtins that turn a tensor into a Python sequence of its rows (0-d tensors for a 1-d tensor): the
# sequence is no tensor (``0 in list(t)`` compares item by item and does not break), its items are.
SPLITTING_BUILTINS = frozenset({"builtins.list", "builtins.tuple"})
CONST_BUILTINS = frozenset(
    {"builtins.isinstance", "builtins.hasattr", "builtins.callable", "builtins.str", "builtins.type",
     "builtins.id", "builtins.repr", "builtins.issubclass", "builtins.getattr"}
)

# -- autograd and module machinery Dynamo does not trace (torch 2.13, default config) ----------------
# Running autograd from compiled code: ``Tensor.<method>()`` and ``torch.autograd.<function>()``.
BACKWARD_METHODS = frozenset({"backward"})
AUTOGRAD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
# ``TypedDict`` classes: building one whose keys may be missing (``total=False``, a ``NotRequired`` field, or such a
# base) breaks ("TypedDict with optional keys", GB0257, measured on torch 2.13); one with every key required traces.
TYPED_DICTS = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
NOT_REQUIRED = frozenset({"typing.NotRequired", "typing_extensions.NotRequired"})
# ``torch.autograd.functional``'s derivatives take the function to differentiate as an argument, which Dynamo
# cannot hand to them (GB0055, "Failed to convert args/kwargs to proxy", measured on torch 2.13 for each, called
# or through ``functools.partial``); ``torch.func``'s transforms trace.
AUTOGRAD_FUNCTIONAL = frozenset(
    f"torch.autograd.functional.{name}" for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"))
# Tensor attributes whose assignment Dynamo refuses: ``t.requires_grad = ...`` always (GB0206);
# ``t.data = ...`` on a tensor made inside the region (GB0056), or with a new dtype (GB0220).
REQUIRES_GRAD_ATTRIBUTE = "requires_grad"
REQUIRES_GRAD_METHOD = "requires_grad_"
DATA_ATTRIBUTE = "data"
# Casts to a dtype other than the default float32: ``t.data = t.data.half()`` changes the dtype.
DTYPE_CAST_METHODS = frozenset({"half", "bfloat16", "double", "long", "int", "short", "char", "byte", "bool",
                                "cfloat", "cdouble"})
NON_DEFAULT_DTYPES = frozenset(
    f"torch.{name}"
    for name in ("float16", "half", "bfloat16", "float64", "double", "int8", "int16", "short", "int32", "int",
                 "int64", "long", "uint8", "bool", "complex64", "complex128", "cfloat", "cdouble",
                 "float8_e4m3fn", "float8_e5m2")
)
# Constructing a parameter in compiled code breaks (GB0264): ``nn.Parameter(...)`` itself, and the
# ``torch.nn`` layers whose ``__init__`` creates one (measured by building every ``torch.nn`` class on
# 2.13). ``nn.Buffer(...)`` and parameter-free layers (``ReLU``, ``Dropout``, pools, losses) trace.
PARAMETER_CONSTRUCTORS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.UninitializedParameter",
     "torch.nn.parameter.UninitializedParameter"}
)
PARAMETER_LAYERS = frozenset(
    {"Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
     "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
     "LazyConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d",
     "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm",
     "PReLU", "MultiheadAttention", "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer",
     "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "AdaptiveLogSoftmaxWithLoss",
     "LinearCrossEntropyLoss"}
)
# ``affine=False`` / ``elementwise_affine=False`` builds these norms without parameters.
AFFINE_KEYWORDS = frozenset({"affine", "elementwise_affine"})
# Norms with ``affine=False`` by default: they hold parameters only when built with ``affine=True``.
OPTIONAL_AFFINE_LAYERS = frozenset({"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"})
# ``torch.nn`` recurrent layers Dynamo will not wrap (GB0014): calling one falls back to eager.
# Their cells (``LSTMCell``, ``GRUCell``, ``RNNCell``) are traced.
RECURRENT_LAYERS = frozenset({"RNN", "LSTM", "GRU"})

# -- sizes read from tensor values (GB0033 "Data dependent operator", measured on torch 2.13) -------
# Where a call takes sizes: ``None`` for every positional argument, else the positions that do; plus
# the keywords that do. A 0-d tensor in one of these places is read as a Python int, which breaks
# unless scalar outputs are captured. Values (``torch.linspace(0, t.max(), 5)``) do not break.
# NumPy functions whose result is an array: under Dynamo, ``torch._numpy`` runs them on a sequence or an
# array as tensors (``int(np.prod([h, w]))`` breaks, GB0033; measured on torch 2.13), while on Python
# numbers it folds them (``int(np.ceil(n / 3))`` does not break): ``values/scope.py`` asks which.
NUMPY_ARRAY_RESULTS = frozenset(
    {"isfinite", "isnan", "isinf", "prod", "sum", "mean", "max", "min", "amax", "amin", "abs", "absolute", "sqrt",
     "exp", "log", "floor", "ceil", "round", "clip", "where", "asarray", "array", "stack", "concatenate", "zeros",
     "ones", "arange", "linspace", "maximum", "minimum", "any", "all", "argmax", "argmin", "cumsum", "dot", "matmul",
     "sign", "power", "cos", "sin", "ascontiguousarray", "full", "zeros_like", "ones_like"}
)
# NumPy functions ``torch._numpy`` runs whose answer is not an array (a Python bool, an int, a dtype): Dynamo
# cannot hand it back from the graph (GB0208); and those that compare arrays into one bool (GB0033). Measured.
NUMPY_NON_ARRAY_RESULTS = frozenset({"isscalar", "ndim", "size", "iscomplexobj", "isrealobj", "result_type", "can_cast"})
NUMPY_DATA_COMPARISONS = frozenset({"array_equal", "array_equiv", "allclose"})
# ``ndarray`` attributes Dynamo does not model on the tensor it traces an array as (GB0157, measured).
NUMPY_UNSUPPORTED_ATTRIBUTES = frozenset({"dtype", "flags"})

SIZED_FACTORIES: dict[str, tuple[tuple[int, ...] | None, frozenset[str]]] = {
    **{f"torch.{name}": (None, frozenset({"size"})) for name in ("zeros", "ones", "empty", "rand", "randn")},
    "torch.full": ((0,), frozenset({"size"})),
    "torch.arange": (None, frozenset({"start", "end", "step"})),
    "torch.randint": (None, frozenset({"low", "high", "size"})),
    "torch.randperm": ((0,), frozenset({"n"})),
    "torch.eye": (None, frozenset({"n", "m"})),
    "torch.linspace": ((2,), frozenset({"steps"})),
    "torch.logspace": ((2,), frozenset({"steps"})),
    # Not factories, but their ``k``, ``start`` and ``length`` are sizes too (measured on torch 2.13).
    "torch.topk": ((1,), frozenset({"k"})),
    "torch.narrow": ((2, 3), frozenset({"start", "length"})),
}
SIZED_METHODS: dict[str, tuple[tuple[int, ...] | None, frozenset[str]]] = {
    **{name: (None, frozenset({"size"})) for name in ("new_zeros", "new_ones", "new_empty", "expand")},
    "new_full": ((0,), frozenset({"size"})),
    "view": (None, frozenset()),
    "reshape": (None, frozenset({"shape"})),
    "repeat": (None, frozenset({"repeats"})),
    "topk": ((0,), frozenset({"k"})),
    "narrow": ((1, 2), frozenset({"start", "length"})),
}

# -- NumPy inside compiled code (torch 2.13 traces it through ``torch._numpy``) ----------------------------
# The ``numpy`` functions Dynamo maps onto ``torch._numpy``, per module (generated from torch 2.13's
# ``NP_TO_TNP_MODULE``: callables of ``torch._numpy`` that ``numpy`` also has). Calling any other function
# of these modules from compiled code breaks (GB0294), whatever its arguments; ``numpy.random`` is
# DYN205's.
NUMPY_TRACED: dict[str, frozenset[str]] = {
    "numpy": frozenset({
        "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append", "arange", "arccos",
        "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argsort", "argwhere",
        "around", "array", "array_equal", "array_equiv", "array_split", "asarray", "ascontiguousarray", "atleast_1d",
        "atleast_2d", "atleast_3d", "average", "bartlett", "bincount", "bitwise_and", "bitwise_not", "bitwise_or",
        "bitwise_xor", "blackman", "bool_", "broadcast_arrays", "broadcast_shapes", "broadcast_to", "byte", "can_cast",
        "cbrt", "cdouble", "ceil", "choose", "clip", "column_stack", "common_type", "complex128", "complex64",
        "complexfloating", "concatenate", "conj", "conjugate", "convolve", "copy", "copysign", "copyto", "corrcoef",
        "correlate", "cos", "cosh", "count_nonzero", "cov", "cross", "csingle", "cumprod", "cumsum", "deg2rad",
        "degrees", "diag", "diag_indices", "diag_indices_from", "diagflat", "diagonal", "diff", "divide", "divmod",
        "dot", "double", "dsplit", "dstack", "dtype", "einsum", "empty", "empty_like", "equal", "exp", "exp2",
        "expand_dims", "expm1", "eye", "fabs", "fill_diagonal", "finfo", "fix", "flatnonzero", "flip", "fliplr",
        "flipud", "float16", "float32", "float64", "float_power", "floating", "floor", "floor_divide", "fmax", "fmin",
        "fmod", "from_dlpack", "full", "full_like", "gcd", "generic", "geomspace", "gradient", "greater",
        "greater_equal", "half", "hamming", "hanning", "heaviside", "histogram", "histogram2d", "histogramdd", "hsplit",
        "hstack", "hypot", "i0", "identity", "iinfo", "imag", "indices", "inexact", "inner", "int16", "int32", "int64",
        "int8", "int_", "intc", "integer", "intp", "invert", "isclose", "iscomplex", "iscomplexobj", "isfinite",
        "isinf", "isnan", "isneginf", "isposinf", "isreal", "isrealobj", "isscalar", "issubdtype", "kaiser", "kron",
        "lcm", "ldexp", "left_shift", "less", "less_equal", "linspace", "log", "log10", "log1p", "log2", "logaddexp",
        "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "longlong", "matmul",
        "max", "maximum", "mean", "median", "meshgrid", "min", "min_scalar_type", "minimum", "mod", "modf", "moveaxis",
        "multiply", "nan_to_num", "ndarray", "ndim", "negative", "nextafter", "nonzero", "not_equal", "number", "ones",
        "ones_like", "outer", "pad", "percentile", "positive", "power", "prod", "ptp", "put", "put_along_axis",
        "quantile", "rad2deg", "radians", "ravel", "real", "real_if_close", "reciprocal", "remainder", "repeat",
        "reshape", "resize", "result_type", "right_shift", "rint", "roll", "rollaxis", "rot90", "round", "row_stack",
        "searchsorted", "shape", "short", "sign", "signbit", "signedinteger", "sin", "sinc", "single", "sinh", "size",
        "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take",
        "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose", "tri", "tril", "tril_indices",
        "tril_indices_from", "triu", "triu_indices", "triu_indices_from", "true_divide", "trunc", "ubyte", "uint16",
        "uint32", "uint64", "uint8", "ulonglong", "unique", "unsignedinteger", "vander", "var", "vdot", "vsplit",
        "vstack", "where", "zeros", "zeros_like",
    }),
    "numpy.fft": frozenset({
        "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "irfft",
        "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
    }),
    "numpy.linalg": frozenset({
        "LinAlgError", "cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_power",
        "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd", "tensorinv", "tensorsolve",
    }),
}

# The names of ``NUMPY_TRACED`` that are types, dtypes or questions about a shape or a type, not computations on
# values; what is left gives an array Dynamo traces as a tensor, even of Python numbers (``numpy_array_function``).
NUMPY_TYPES_AND_QUERIES = frozenset(
    {"bool_", "byte", "cdouble", "complex128", "complex64", "complexfloating", "csingle", "double", "dtype", "finfo",
     "float16", "float32", "float64", "floating", "generic", "half", "iinfo", "inexact", "int16", "int32", "int64",
     "int8", "int_", "intc", "integer", "intp", "longlong", "ndarray", "number", "short", "signedinteger", "single",
     "ubyte", "uint16", "uint32", "uint64", "uint8", "ulonglong", "unsignedinteger", "common_type", "min_scalar_type",
     "issubdtype", "shape", "broadcast_shapes", "LinAlgError", "from_dlpack"}
)


def numpy_array_function(resolved: str | None) -> bool:
    """Whether ``resolved`` (a qualified name) is a NumPy function ``torch._numpy`` runs that gives an array:
    under Dynamo its answer is a tensor whatever the arguments (``np.sqrt(2)``, measured on torch 2.13)."""
    if not resolved:
        return False
    module, _, name = resolved.rpartition(".")
    return (name in NUMPY_TRACED.get(module, ()) and name not in NUMPY_TYPES_AND_QUERIES
            and name not in NUMPY_NON_ARRAY_RESULTS and name not in NUMPY_DATA_COMPARISONS)


# -- context managers Dynamo refuses (GB0142; measured one by one on torch 2.13, CPU) ------------------
# ``with <call>:`` on these breaks the graph at the ``with``. Traced without a break, and so absent:
# ``torch.no_grad``/``enable_grad``/``set_grad_enabled``/``inference_mode``, ``torch.autocast`` (and the
# ``amp`` spellings), ``torch.nn.attention.sdpa_kernel``, ``torch.profiler.profile``/``record_function``,
# ``torch.autograd.forward_ad.dual_level``, ``torch._C.DisableTorchFunction``, ``contextlib.suppress`` /
# ``nullcontext``, ``warnings.catch_warnings``. ``torch.random.fork_rng`` breaks too and is DYN205's.
UNTRACEABLE_CONTEXT_MANAGERS = frozenset(
    {"torch.backends.cudnn.flags", "torch.backends.mkldnn.flags", "torch.backends.nnpack.flags",
     "torch.backends.opt_einsum.flags", "torch.backends.mkldnn.verbose", "torch.backends.cuda.sdp_kernel",
     "torch.device", "torch.autograd.detect_anomaly", "torch.autograd.set_detect_anomaly",
     "torch.autograd.anomaly_mode.detect_anomaly", "torch.autograd.anomaly_mode.set_detect_anomaly",
     "torch.autograd.graph.saved_tensors_hooks", "torch.autograd.graph.save_on_cpu",
     "torch.autograd.set_multithreading_enabled", "torch.autograd.profiler.emit_nvtx",
     "torch.sparse.check_sparse_tensor_invariants"}
)

# -- sparse tensors: Dynamo wraps none (GB0015, GB0277), and refuses to build them (GB0374, GB0007) --------
SPARSE_CONSTRUCTORS = frozenset(
    {"torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_csc_tensor", "torch.sparse_bsr_tensor",
     "torch.sparse_bsc_tensor", "torch.sparse_compressed_tensor"}
)
SPARSE_CONVERSIONS = frozenset(
    {"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc"}
)

# -- torch functions Dynamo skips (GB0007, "Attempted to call function marked as skipped") ----------------
# Each is ``SkipFunctionVariable`` for ``torch._dynamo.trace_rules.lookup`` on torch 2.13 (a torch-marked
# test checks that against the installed torch), and each was measured to break on the CPU except the
# two that need a GPU or a process group. Skipped functions other rules own are left to them: the RNG
# state (DYN205), ``torch.autograd.backward`` (DYN501), sparse constructors (DYN506), ``torch.save`` /
# ``torch.load`` (DYN206).
SKIPPED_FUNCTIONS = frozenset(
    {"torch.jit.isinstance", "torch.jit.fork", "torch.jit.wait", "torch.jit.script",
     "torch.nn.utils.rnn.pack_padded_sequence",
     "torch.nn.utils.rnn.pad_packed_sequence", "torch.to_dlpack", "torch.from_dlpack", "torch.typename",
     "torch.set_num_threads", "torch.set_num_interop_threads", "torch.set_flush_denormal", "torch.resize_as_",
     "torch.distributions.constraints.is_dependent", "torch.cuda.set_device",
     "torch.distributed.destroy_process_group", "torch.autograd.Variable", "torch.autograd.variable.Variable",
     # the data loader's helpers, under the names they are imported by (measured on torch 2.13: GB0007 at the call)
     "torch.utils.data.default_collate", "torch.utils.data.dataloader.default_collate",
     "torch.utils.data._utils.collate.default_collate", "torch.utils.data.default_convert",
     "torch.utils.data.dataloader.default_convert", "torch.utils.data._utils.collate.default_convert",
     "torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info",
     "torch.utils.data.random_split", "torch.utils.data.dataset.random_split",
     # the reentrant checkpoint's helpers, which checkpoint wrappers call themselves (fairscale, deepspeed)
     "torch.utils.checkpoint.check_backward_validity", "torch.utils.checkpoint.detach_variable",
     "torch.utils.checkpoint.get_device_states", "torch.utils.checkpoint.set_device_states"}
)
# Torch functions Dynamo inlines that call a skipped one: the break is reported at their call (measured on torch
# 2.13: ``pack_sequence`` runs ``pack_padded_sequence``, GB0007 on the caller's line; ``pad_sequence`` traces).
CALLING_SKIPPED_FUNCTIONS = frozenset({"torch.nn.utils.rnn.pack_sequence"})
# Torch queries that Dynamo looks up as in-graph functions and then refuses while tracing (measured on torch 2.13):
# ``torch.is_inference_mode_enabled()`` ("Encountered torch.is_inference_mode_enabled during tracing", GB0046) and
# ``torch.is_inference(t)`` (a torch op that returned a non-tensor, GB0208); pytorch-ood's detectors ask both.
UNTRACED_TORCH_QUERIES = {"torch.is_inference_mode_enabled": "GB0046", "torch.is_inference": "GB0208"}

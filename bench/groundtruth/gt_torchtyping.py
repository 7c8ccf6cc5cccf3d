"""Ground-truth bench, torchtyping: tensor shape, dtype and layout annotations checked at run time through typeguard.

torchtyping 0.1.5 makes ``TensorType[...]`` annotations (``TensorType.__class_getitem__`` turns sizes, names,
``...`` and named ``...``, ``Any``/``None`` dimensions, dtypes (``float``, ``int``, ``bool``, ``torch.dtype``),
layouts and extra details such as ``is_float`` into an ``Annotated[torch.Tensor, frozendict]``) and, through
``patch_typeguard()``, monkey-patches typeguard 2's ``check_type``, ``check_argument_types`` and
``check_return_type`` so that functions decorated with ``@typeguard.typechecked`` check each tensor (shape, dtype,
layout, details, via ``ShapeDetail.check`` and friends) and then the consistency of named dimensions across all
arguments and the return value (``_check_memo``, which walks every recorded shape and resolves ``...`` groups).
This is how users write it: ``patch_typeguard()`` once, then ``@typechecked`` on model functions and ``forward``
methods. The tables cover, at a batch of 2, sequences of 5, width 4:

- ``ANNOTATED``: ``@typechecked`` functions called in a forward, each annotation form: named dimensions shared
  between arguments and return, fixed sizes, named sizes (``"dim": 4``), a size named after another dimension,
  unnamed and named ``...`` (one and two groups, consistent across arguments), ``Any`` and ``None`` dimensions, a
  scalar ``TensorType[()]``, dtypes (``float``, ``int``, ``bool``, ``torch.float32``), ``torch.strided`` layout,
  ``is_float``, a plain ``TensorType``, ``Optional`` and ``Tuple`` of TensorTypes, a list of them, non-tensor
  arguments alongside;
- ``MODULES``: ``nn.Module`` forwards decorated with ``@typechecked`` (an MLP, attention, a conv net on images
  with ``...`` batch dimensions, a module returning a tuple), and one whose class is decorated;
- ``UNPATCHED``: the same annotations under ``@typechecked`` without ``patch_typeguard()`` (typeguard sees a
  plain ``Tensor``), and annotations with no checker at all;
- ``OTHER``: ``isinstance`` against a bare ``TensorType`` (its metaclass), annotations built inside a forward
  (``TensorType[...]`` evaluated there);
- ``NO_SHAPE``: checked functions whose annotations hold only a dtype, a layout, ``is_float`` or nothing;
- ``TRAIN``: training steps (backward, an Adam step) of a checked MLP and a checked attention block.

torch 2.13 removed named tensors and ``Tensor.names`` with them, which ``ShapeDetail.check`` reads for every
annotation with a shape, so every such check fails eagerly as installed; the builder (in the worker only, in the
models that check shapes) gives ``torch.Tensor`` a ``names`` property returning the all-``None`` names unnamed
tensors used to report (``_names_shim``). The ``NO_SHAPE`` and ``UNPATCHED`` models run without it.

Left out: ``typeguard.check_type`` called directly (the patched version requires an explicit ``memo`` and raises
``KeyError`` when it is left at its default), ``is_named`` (it checks named-tensor names, and named tensors are not supported by Dynamo, so the
check has nothing to compile against), the pytest plugin (test-time only), and failing checks (they raise
``TypeError`` eagerly as well). Random weights and inputs from fixed generators, nothing downloaded; ``names()``
needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

# No ``from __future__ import annotations``: typeguard evaluates the annotations of the checked functions, which
# name objects imported inside the builder functions.

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, HEADS = 2, 5, 4, 2

ANNOTATED: tuple[str, ...] = (
    "named_dims",
    "named_dims.return",
    "fixed_sizes",
    "named_sizes",
    "size_named_after",
    "ellipsis",
    "named_ellipsis",
    "named_ellipsis.two_args",
    "two_named_ellipsis",
    "any_dim",
    "none_dim",
    "scalar",
    "dtype.float",
    "dtype.int",
    "dtype.bool",
    "dtype.torch_float32",
    "layout.strided",
    "is_float",
    "plain_TensorType",
    "optional.given",
    "optional.none",
    "tuple_return",
    "list_arg",
    "non_tensor_args",
)

MODULES: tuple[str, ...] = (
    "module.mlp",
    "module.attention",
    "module.conv_images",
    "module.tuple_return",
    "module.class_decorated",
)

UNPATCHED: tuple[str, ...] = (
    "unpatched.named_dims",
    "unpatched.dtype",
    "unpatched.module.mlp",
    "no_checker.annotations_only",
)

OTHER: tuple[str, ...] = (
    "isinstance.TensorType",
    "annotation_in_forward",
)

# Checked functions whose annotations carry no shape (dtype, layout, details only): they run without the
# ``Tensor.names`` shim (see the docstring).
NO_SHAPE: tuple[str, ...] = (
    "noshape.dtype_float",
    "noshape.dtype_torch.is_float",
    "noshape.layout",
    "noshape.plain",
)

TRAIN: tuple[str, ...] = ("train.mlp", "train.attention")


def names() -> list[str]:
    return [*ANNOTATED, *MODULES, *UNPATCHED, *OTHER, *NO_SHAPE, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _functions() -> dict[str, Any]:
    """The checked functions (defined after ``patch_typeguard`` where the model asks for it)."""
    from typing import Any as AnyT
    from typing import List, Optional, Tuple

    import torch
    from torchtyping import TensorType, is_float
    from typeguard import typechecked

    f: dict[str, Any] = {}

    @typechecked
    def named_dims(x: TensorType["batch", "seq", "dim"], y: TensorType["batch", "seq", "dim"]):
        return x + y

    @typechecked
    def named_dims_return(x: TensorType["batch", "seq", "dim"]) -> TensorType["batch", "dim"]:
        return x.mean(1)

    @typechecked
    def fixed_sizes(x: TensorType[BATCH, SEQ, DIM]) -> TensorType[BATCH, SEQ]:
        return x.sum(-1)

    @typechecked
    def named_sizes(x: TensorType["batch", "seq", "dim": DIM]) -> TensorType["batch", "dim": DIM]:
        return x.amax(1)

    @typechecked
    def size_named_after(x: TensorType["batch", "seq", "dim"], w: TensorType["dim", "out": "dim"]):
        return x @ w

    @typechecked
    def ellipsis(x: TensorType[..., "dim"]) -> TensorType[..., "dim"]:
        return torch.relu(x)

    @typechecked
    def named_ellipsis(x: TensorType["b": ..., "dim"]) -> TensorType["b": ...]:
        return x.sum(-1)

    @typechecked
    def named_ellipsis_two_args(x: TensorType["b": ..., "dim"], y: TensorType["b": ..., 1]):
        return x * y

    @typechecked
    def two_named_ellipsis(x: TensorType["b": ..., "f": ...], y: TensorType["f": ...]) -> TensorType["b": ..., "f": ...]:
        return x + y

    @typechecked
    def any_dim(x: TensorType[AnyT, "seq", DIM]) -> TensorType[AnyT, DIM]:
        return x.mean(1)

    @typechecked
    def none_dim(x: TensorType[None, None, "dim"]) -> TensorType[None, "dim"]:
        return x[:, 0]

    @typechecked
    def scalar(x: TensorType["batch", "seq", "dim"]) -> TensorType[()]:
        return x.pow(2).mean()

    @typechecked
    def dtype_float(x: TensorType["batch", "seq", "dim", float]) -> TensorType["batch", "seq", "dim", float]:
        return x * 2

    @typechecked
    def dtype_int(ids: TensorType["batch", "seq", int], table: TensorType["vocab", "dim", float]):
        return table[ids]

    @typechecked
    def dtype_bool(x: TensorType["batch", "seq", "dim"], mask: TensorType["batch", "seq", bool]):
        return x.masked_fill(~mask[..., None], 0.0)

    @typechecked
    def dtype_torch(x: TensorType["batch", "seq", "dim", torch.float32]) -> TensorType["batch", torch.float32]:
        return x.sum((1, 2))

    @typechecked
    def layout_strided(x: TensorType["batch", "seq", "dim", torch.strided]):
        return x.softmax(-1)

    @typechecked
    def is_float_fn(x: TensorType["batch", "seq", "dim", is_float]) -> TensorType["batch", "seq", "dim", is_float]:
        return torch.tanh(x)

    @typechecked
    def plain(x: TensorType) -> TensorType:
        return x - 1

    @typechecked
    def optional(x: TensorType["batch", "seq", "dim"], mask: Optional[TensorType["batch", "seq"]] = None):
        if mask is None:
            return x.mean(1)
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)

    @typechecked
    def tuple_return(x: TensorType["batch", "seq", "dim"]) -> Tuple[TensorType["batch", "dim"], TensorType["batch", "dim"]]:
        return x.mean(1), x.std(1)

    @typechecked
    def list_arg(xs: List[TensorType["batch", "dim"]]) -> TensorType["batch", "dim"]:
        return torch.stack(xs).sum(0)

    @typechecked
    def non_tensor_args(x: TensorType["batch", "seq", "dim"], scale: float, dim: int = -1) -> TensorType["batch", "seq", "dim"]:
        return (x * scale).softmax(dim)

    f.update(
        {
            "named_dims": named_dims,
            "named_dims.return": named_dims_return,
            "fixed_sizes": fixed_sizes,
            "named_sizes": named_sizes,
            "size_named_after": size_named_after,
            "ellipsis": ellipsis,
            "named_ellipsis": named_ellipsis,
            "named_ellipsis.two_args": named_ellipsis_two_args,
            "two_named_ellipsis": two_named_ellipsis,
            "any_dim": any_dim,
            "none_dim": none_dim,
            "scalar": scalar,
            "dtype.float": dtype_float,
            "dtype.int": dtype_int,
            "dtype.bool": dtype_bool,
            "dtype.torch_float32": dtype_torch,
            "layout.strided": layout_strided,
            "is_float": is_float_fn,
            "plain_TensorType": plain,
            "optional.given": optional,
            "optional.none": optional,
            "tuple_return": tuple_return,
            "list_arg": list_arg,
            "non_tensor_args": non_tensor_args,
        }
    )
    return f


def _names_shim() -> None:
    """torch 2.13 removed named tensors, and with them ``Tensor.names``, which torchtyping's ``ShapeDetail`` reads
    for every shape check; give unnamed tensors back the all-``None`` names they used to report."""
    import torch

    if not hasattr(torch.Tensor, "names"):
        torch.Tensor.names = property(lambda self: (None,) * self.dim())


def _no_shape(name: str) -> Built:
    import torch
    from torch import nn
    from torchtyping import TensorType, is_float, patch_typeguard
    from typeguard import typechecked

    patch_typeguard()

    @typechecked
    def dtype_float(x: TensorType[float]) -> TensorType[float]:
        return x * 2

    @typechecked
    def dtype_torch_is_float(x: TensorType[torch.float32, is_float], w: TensorType[is_float]) -> TensorType[is_float]:
        return x @ w

    @typechecked
    def layout(x: TensorType[torch.strided], y: TensorType[torch.strided, float]) -> TensorType[torch.strided]:
        return x + y

    @typechecked
    def plain(x: TensorType) -> TensorType:
        return torch.tanh(x)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: Any) -> Any:
            y = self.proj(x)
            if name == "noshape.dtype_float":
                return dtype_float(y)
            if name == "noshape.dtype_torch.is_float":
                return dtype_torch_is_float(y, torch.eye(DIM))
            if name == "noshape.layout":
                return layout(y, x)
            return plain(y)

    torch.manual_seed(0)
    return Model(), (_randn(BATCH, SEQ, DIM),), {}


def _call_checked(name: str, fn: Any, x: Any) -> Any:
    import torch

    if name == "named_dims":
        return fn(x, x * 2)
    if name == "size_named_after":
        return fn(x, torch.ones(DIM, DIM))
    if name == "named_ellipsis.two_args":
        return fn(x, x[..., :1])
    if name == "two_named_ellipsis":
        return fn(x, x[0])
    if name == "dtype.int":
        ids = (x[..., 0] > 0).long()
        return fn(ids, torch.ones(2, DIM))
    if name == "dtype.bool":
        return fn(x, x[..., 0] > 0)
    if name == "optional.given":
        return fn(x, (x[..., 0] > -5).float())
    if name == "tuple_return":
        a, b = fn(x)
        return a + b
    if name == "list_arg":
        return fn([x[:, 0], x[:, 1], x[:, 2]])
    if name == "non_tensor_args":
        return fn(x, 0.5)
    return fn(x)


def _annotated(name: str, patched: bool = True) -> Built:
    import torch
    from torch import nn

    if patched:
        from torchtyping import patch_typeguard

        _names_shim()
        patch_typeguard()
    fn = _functions()[name]

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: Any) -> Any:
            return _call_checked(name, fn, self.proj(x))

    torch.manual_seed(0)
    return Model(), (_randn(BATCH, SEQ, DIM),), {}


def _module_classes() -> dict[str, Any]:
    from typing import Tuple

    import torch
    from torch import nn
    from torchtyping import TensorType
    from typeguard import typechecked

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(DIM, 8), nn.GELU(), nn.Linear(8, DIM))

        @typechecked
        def forward(self, x: TensorType["batch", "seq", "dim"]) -> TensorType["batch", "seq", "dim"]:
            return self.net(x)

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(DIM, 3 * DIM)
            self.out = nn.Linear(DIM, DIM)

        @typechecked
        def split(self, t: TensorType["b", "n", "hd"]) -> TensorType["b", "h", "n", "d"]:
            return t.view(t.shape[0], t.shape[1], HEADS, -1).transpose(1, 2)

        @typechecked
        def forward(self, x: TensorType["b", "n", "dim"],
                    mask: TensorType["b", "n", bool] = None) -> TensorType["b", "n", "dim"]:
            q, k, v = map(self.split, self.qkv(x).chunk(3, dim=-1))
            sim = (q @ k.transpose(-1, -2)) * (q.shape[-1] ** -0.5)
            if mask is not None:
                sim = sim.masked_fill(~mask[:, None, None, :], -1e9)
            out = sim.softmax(-1) @ v
            return self.out(out.transpose(1, 2).reshape(x.shape))

    class ConvNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, DIM, 3, padding=1)

        @typechecked
        def forward(self, x: TensorType["batch": ..., 3, "h", "w", float]) -> TensorType["batch": ..., DIM]:
            lead = x.shape[:-3]
            y = self.conv(x.reshape(-1, *x.shape[-3:]))
            return y.mean((-1, -2)).reshape(*lead, DIM)

    class TupleOut(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mu = nn.Linear(DIM, 2)
            self.logvar = nn.Linear(DIM, 2)

        @typechecked
        def forward(self, x: TensorType["b", "dim"]) -> Tuple[TensorType["b", "z"], TensorType["b", "z"]]:
            return self.mu(x), self.logvar(x)

    @typechecked
    class ClassDecorated(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(DIM, DIM)

        def forward(self, x: TensorType["b", "n", "d"]) -> TensorType["b", "n", "d"]:
            return torch.sigmoid(self.lin(x))

    return {"mlp": MLP, "attention": Attention, "conv_images": ConvNet, "tuple_return": TupleOut,
            "class_decorated": ClassDecorated}


def _module(name: str, patched: bool = True) -> Built:
    import torch
    from torch import nn

    if patched:
        from torchtyping import patch_typeguard

        _names_shim()
        patch_typeguard()
    kind = name.rsplit(".", 1)[-1]
    inner = _module_classes()[kind]()

    class Wrap(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            if kind == "attention":
                mask = torch.ones(x.shape[0], x.shape[1], dtype=torch.bool)
                return self.inner(x, mask)
            if kind == "tuple_return":
                mu, logvar = self.inner(x)
                return mu + logvar.exp()
            return self.inner(x)

    torch.manual_seed(0)
    if kind == "conv_images":
        x = _randn(BATCH, 2, 3, 6, 6)
    elif kind == "tuple_return":
        x = _randn(BATCH, DIM)
    else:
        x = _randn(BATCH, SEQ, DIM)
    return Wrap(), (x,), {}


def _unpatched(name: str) -> Built:
    import torch
    from torch import nn

    if name == "unpatched.named_dims":
        return _annotated("named_dims", patched=False)
    if name == "unpatched.dtype":
        return _annotated("dtype.float", patched=False)
    if name == "unpatched.module.mlp":
        return _module("module.mlp", patched=False)

    from torchtyping import TensorType

    def body(x: TensorType["batch", "seq", "dim"]) -> TensorType["batch", "dim"]:
        return x.mean(1)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: TensorType["batch", "seq", "dim"]) -> TensorType["batch", "dim"]:
            return body(self.proj(x))

    torch.manual_seed(0)
    return Model(), (_randn(BATCH, SEQ, DIM),), {}


def _other(name: str) -> Built:
    import torch
    from torch import nn
    from torchtyping import TensorType, patch_typeguard

    _names_shim()
    patch_typeguard()

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: Any) -> Any:
            y = self.proj(x)
            if name == "isinstance.TensorType":
                return y * 2 if isinstance(y, TensorType) else y
            if name == "annotation_in_forward":
                ann = TensorType["batch", "seq", "dim", float]
                return y, ann
            raise KeyError(name)

    torch.manual_seed(0)
    mod = Model()
    if name == "annotation_in_forward":

        class Drop(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.m = mod

            def forward(self, x: Any) -> Any:
                y, ann = self.m(x)
                return y

        mod = Drop()
    return mod, (_randn(BATCH, SEQ, DIM),), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn
    from torchtyping import patch_typeguard

    _names_shim()
    patch_typeguard()
    kind = name.split(".", 1)[1]
    net = _module_classes()[kind]()

    class TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

        def forward(self, x: Any, target: Any) -> Any:
            with torch.enable_grad():
                self.opt.zero_grad()
                loss = ((self.net(x) - target) ** 2).mean()
                loss.backward()
                self.opt.step()
            return loss.detach()

    torch.manual_seed(0)
    return TrainStep(), (_randn(BATCH, SEQ, DIM, seed=2), _randn(BATCH, SEQ, DIM, seed=3)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ANNOTATED:
        return _annotated(name)
    if name in MODULES:
        return _module(name)
    if name in UNPATCHED:
        return _unpatched(name)
    if name in OTHER:
        return _other(name)
    if name in NO_SHAPE:
        return _no_shape(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

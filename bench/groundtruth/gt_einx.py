"""Ground-truth bench, einx: Einstein-inspired tensor notation, its operations under torch.compile.

einx 0.4.3 is a library of functions, not of modules: each operation (``einx.id``, the reductions, the element-wise
operations, ``dot``, the indexing updates ``get_at`` / ``set_at`` / ``add_at`` / ``subtract_at``, ``softmax``,
``sort``, ``flip``, ``roll``, ``argmax`` ...) parses its description string, traces a graph of backend calls once
per signature (an LRU cache), compiles that graph to Python and calls it. Users write it inside their models'
forwards, and ``torch.compile`` then meets it there. The tables cover, on tensors of a batch of 2 and a few axes
of 2 to 6:

- ``OPS``: each operation in its usual forms (bracketed and arrow descriptions, flattened axes, axis sizes as
  parameters, concatenation and splitting, broadcasting, scalars, ellipses), on each PyTorch backend a user can
  name (``torch``, ``torch.numpylike``, ``torch.einsum``, ``torch.vmap``), and the adapters
  (``einx.torch.adapt_with_vmap``, ``adapt_numpylike_reduce``, ``adapt_numpylike_elementwise``); the old name
  ``einx.rearrange`` (a deprecated alias of ``id``);
- ``UTILS``: ``solve_shapes``, ``solve_axes``, ``matches`` and ``check`` called on a model's input before it runs
  (a shape check, heads solved from a width);
- ``MODULES``: small models written with einx the way its documentation shows (a linear layer by ``dot``, a
  layer norm and an RMS norm by reductions, multi-head attention, a patch embedding, a gated MLP, a mixer block,
  a token-choice router by ``get_at`` and ``add_at``, a convolution-free vision model);
- ``TRAIN``: training steps (loss, backward, optimizer step) through those models.

Left out: ``einx.experimental.functorchdim.adapt`` (its generated code fails eagerly here: functorch's first-class
dimensions), the removed operations of 0.3 (``vmap``, ``reduce``, ``elementwise``, ``arange``: they only raise),
``einx.nn`` (removed, raises on import) and the other frameworks' namespaces. ``graph=True`` returns code, not
tensors, and is left out too. Random inputs from fixed generators, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

B, N, D = 2, 3, 4
X = (B, N, D)

# Op name -> (einx function, description, inputs, static keywords). Inputs: shapes, or ("bool", shape), ("idx", high,
# shape) (random int64 below high), ("scalar", value).
OPS: dict[str, tuple[str, str, tuple[Any, ...], dict[str, Any]]] = {
    "sum.bracket": ("sum", "b [n] d", (X,), {}),
    "sum.arrow": ("sum", "b n d -> b d", (X,), {}),
    "sum.keep_flattened": ("sum", "b ([n]) d", (X,), {}),
    "sum.parameter": ("sum", "b (s [r])", ((B, 6),), {"r": 2}),
    "sum.all": ("sum", "[...]", (X,), {}),
    "mean.spatial": ("mean", "b [h w] c", ((B, 4, 4, D),), {}),
    "mean.ellipsis": ("mean", "b ... [c]", ((B, 2, 3, D),), {}),
    "var": ("var", "b [n] d", (X,), {}),
    "std": ("std", "b n [d]", (X,), {}),
    "prod": ("prod", "b [n] d", (X,), {}),
    "count_nonzero": ("count_nonzero", "b [n] d", (X,), {}),
    "any": ("any", "b [n] d", (("bool", X),), {}),
    "all": ("all", "b n [d]", (("bool", X),), {}),
    "max": ("max", "b [n] d", (X,), {}),
    "min": ("min", "[b] n d", (X,), {}),
    "logsumexp": ("logsumexp", "b n [d]", (X,), {}),
    "id.split_heads": ("id", "b n (h d) -> b h n d", ((B, N, 6),), {"h": 2}),
    "id.merge_heads": ("id", "b h n d -> b n (h d)", ((B, 2, N, D),), {}),
    "id.transpose": ("id", "a b -> b a", ((N, D),), {}),
    "id.concat": ("id", "b n d, b m d -> b (n + m) d", (X, (B, 5, D)), {}),
    "id.split": ("id", "b (n + m) d -> b n d, b m d", (X,), {"n": 1}),
    "id.broadcast": ("id", "d -> b n d", ((D,),), {"b": B, "n": N}),
    "id.patches": ("id", "b (h p1) (w p2) c -> b (h w) (p1 p2 c)", ((B, 4, 4, 3),), {"p1": 2, "p2": 2}),
    "id.channels_first": ("id", "b h w c -> b c h w", ((B, 2, 3, D),), {}),
    "rearrange.deprecated": ("rearrange", "b n d -> b d n", (X,), {}),
    "add.vector": ("add", "b n d, d", (X, (D,)), {}),
    "add.scalar": ("add", "b n d, ", (X, ("scalar", 1.0)), {}),
    "subtract.mean": ("subtract", "b n d, b d", (X, (B, D)), {}),
    "multiply.gate": ("multiply", "b n d, b n", (X, (B, N)), {}),
    "multiply.three": ("multiply", "b n d, d, n", (X, (D,), (N,)), {}),
    "divide": ("divide", "b n d, b n", (X, ("positive", (B, N))), {}),
    "true_divide.output": ("true_divide", "b n d, d -> b d n", (X, ("positive", (D,))), {}),
    "floor_divide": ("floor_divide", "b n d, d", (X, ("positive", (D,))), {}),
    "logical_and": ("logical_and", "b n d, b n d", (("bool", X), ("bool", X)), {}),
    "logical_or": ("logical_or", "b n d, b n", (("bool", X), ("bool", (B, N))), {}),
    "where": ("where", "b n, b n d, b n d", (("bool", (B, N)), X, X), {}),
    "where.scalar": ("where", "b n, b n d,", (("bool", (B, N)), X, ("scalar", 0.0)), {}),
    "maximum": ("maximum", "b n d, d", (X, (D,)), {}),
    "minimum.scalar": ("minimum", "b n d,", (X, ("scalar", 0.5)), {}),
    "less": ("less", "b n d, d", (X, (D,)), {}),
    "less_equal": ("less_equal", "b n d, b n d", (X, X), {}),
    "greater": ("greater", "b n d,", (X, ("scalar", 0.0)), {}),
    "greater_equal": ("greater_equal", "b n d, n", (X, (N,)), {}),
    "equal": ("equal", "b n, b n", (("idx", 3, (B, N)), ("idx", 3, (B, N))), {}),
    "not_equal": ("not_equal", "b n, n", (("idx", 3, (B, N)), ("idx", 3, (N,))), {}),
    "logaddexp": ("logaddexp", "b n d, b n d", (X, X), {}),
    "dot.linear": ("dot", "b n [d], [d] e -> b n e", (X, (D, 5)), {}),
    "dot.ellipsis": ("dot", "b... [c], [c] h -> b... h", (X, (D, 5)), {}),
    "dot.attention_scores": ("dot", "b q [d], b k [d] -> b q k", (X, (B, 5, D)), {}),
    "dot.heads": ("dot", "b h q [d], b h k [d] -> b h q k", ((B, 2, N, D), (B, 2, N, D)), {}),
    "dot.grouped": ("dot", "b n (g [c]), g [c] e -> b n (g e)", ((B, N, 6), (2, 3, D)), {}),
    "dot.inner": ("dot", "b [d], b [d] -> b", ((B, D), (B, D)), {}),
    "get_at.batched": ("get_at", "b [n] d, b k -> b k d", (X, ("idx", N, (B, 2))), {}),
    "get_at.2d": ("get_at", "[h w] c, p [2] -> p c", ((3, 3, D), ("idx", 3, (5, 2))), {}),
    "get_at.embedding": ("get_at", "[v] d, b n -> b n d", ((10, D), ("idx", 10, (B, N))), {}),
    "set_at": ("set_at", "b [n] d, b k, b k d", (X, ("idx", N, (B, 2)), (B, 2, D)), {}),
    "add_at": ("add_at", "[n] d, k, k d", ((5, D), ("idx", 5, (3,)), (3, D)), {}),
    "subtract_at": ("subtract_at", "b [n], b k, b k", ((B, 5), ("idx", 5, (B, 3)), (B, 3)), {}),
    "softmax": ("softmax", "b h q [k]", ((B, 2, N, N),), {}),
    "softmax.two_axes": ("softmax", "b [n d]", (X,), {}),
    "log_softmax": ("log_softmax", "b n [d]", (X,), {}),
    "sort": ("sort", "b n [d]", (X,), {}),
    "argsort": ("argsort", "b [n] d", (X,), {}),
    "flip": ("flip", "b [n] d", (X,), {}),
    "roll": ("roll", "b [n] d", (X,), {"shift": 1}),
    "roll.two_axes": ("roll", "b [n d]", (X,), {"shift": (1, 2)}),
    "argmax": ("argmax", "b [n] d", (X,), {}),
    "argmin.flat": ("argmin", "b [n d]", (X,), {}),
    "backend.einsum.sum": ("sum", "b [n] d", (X,), {"backend": "torch.einsum"}),
    "backend.einsum.id": ("id", "b n d -> b d n", (X,), {"backend": "torch.einsum"}),
    "backend.einsum.multiply": ("multiply", "b n d, d", (X, (D,)), {"backend": "torch.einsum"}),
    "backend.einsum.dot": ("dot", "b n [d], [d] e -> b n e", (X, (D, 5)), {"backend": "torch.einsum"}),
    "backend.numpylike.dot": ("dot", "b n [d], [d] e -> b n e", (X, (D, 5)), {"backend": "torch.numpylike"}),
    "backend.numpylike.get_at": ("get_at", "b [n] d, b k -> b k d", (X, ("idx", N, (B, 2))),
                                 {"backend": "torch.numpylike"}),
    "backend.vmap.sum": ("sum", "b [n] d", (X,), {"backend": "torch.vmap"}),
    "backend.vmap.softmax": ("softmax", "b n [d]", (X,), {"backend": "torch.vmap"}),
    "backend.vmap.add": ("add", "b n d, d", (X, (D,)), {"backend": "torch.vmap"}),
    "backend.vmap.dot": ("dot", "b n [d], [d] e -> b n e", (X, (D, 5)), {"backend": "torch.vmap"}),
    "adapt_with_vmap.inner_product": ("adapt_with_vmap", "b [d], [d] -> b", ((B, D), (D,)), {}),
    "adapt_with_vmap.two_outputs": ("adapt_with_vmap.pair", "b n [d] -> b n, b n [d]", (X,), {}),
    "adapt_numpylike_reduce.amax": ("adapt_numpylike_reduce", "b [n] d", (X,), {}),
    "adapt_numpylike_elementwise.maximum": ("adapt_numpylike_elementwise", "b n d, d", (X, (D,)), {}),
}
UTILS = ("solve_shapes", "solve_axes.heads", "matches", "check")
MODULES = ("Linear", "Linear.ellipsis", "LayerNorm", "RMSNorm", "Attention", "Attention.causal", "PatchEmbed",
           "GatedMLP", "MixerBlock", "Router.top1", "VisionModel", "Attention.vmap_backend")
TRAIN = ("train.Linear.sgd", "train.Attention.adam", "train.MixerBlock.adamw", "train.VisionModel.adam",
         "train.Router.adam")


def names() -> list[str]:
    return [*OPS, *UTILS, *MODULES, *TRAIN]


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _input(spec: Any, seed: int) -> Any:
    import torch

    g = _generator(seed)
    if isinstance(spec[0], int):
        return torch.randn(*spec, generator=g)
    kind = spec[0]
    if kind == "bool":
        return torch.randn(*spec[1], generator=g) > 0
    if kind == "idx":
        return torch.randint(0, spec[1], spec[2], generator=g)
    if kind == "positive":
        return torch.rand(*spec[1], generator=g) + 0.5
    return spec[1]  # "scalar"


def _adapted(op: str) -> Any:
    import torch

    import einx

    if op == "adapt_with_vmap":
        return einx.torch.adapt_with_vmap(lambda a, b: (a * b).sum())
    if op == "adapt_with_vmap.pair":
        def normalize(v: torch.Tensor) -> Any:
            norm = torch.linalg.vector_norm(v)
            return norm, v / (norm + 1e-6)

        return einx.torch.adapt_with_vmap(normalize)
    if op == "adapt_numpylike_reduce":
        return einx.torch.adapt_numpylike_reduce(lambda t, axis: torch.amax(t, dim=axis))
    return einx.torch.adapt_numpylike_elementwise(lambda a, b: torch.maximum(a, b))


def _op(name: str) -> Built:
    import functools

    import einx
    from gt_calls import Call

    op, description, inputs, static = OPS[name]
    function = _adapted(op) if op.startswith("adapt") else getattr(einx, op)
    values = tuple(_input(spec, seed) for seed, spec in enumerate(inputs, start=1))
    return Call(functools.partial(function, description), **static), values, {}


def _util(name: str) -> Built:
    import torch

    import einx
    from gt_calls import Run

    net = torch.nn.Linear(6, 6)
    x = _input((B, N, 6), 1)
    if name == "solve_shapes":
        def run(owner: Any, t: torch.Tensor) -> Any:
            (shape,) = einx.solve_shapes("b n (h d)", t, h=2)
            return owner(t).reshape(shape)

        return Run(net, run, [einx.solve_shapes]), (x,), {}
    if name == "solve_axes.heads":
        def heads(owner: Any, t: torch.Tensor) -> Any:
            axes = einx.solve_axes("b n (h d)", t, h=2)
            return owner(t).reshape(axes["b"], axes["n"], axes["h"], axes["d"])

        return Run(net, heads, [einx.solve_axes]), (x,), {}
    if name == "matches":
        def maybe(owner: Any, t: torch.Tensor) -> Any:
            if einx.matches("b n (h d)", t, h=2):
                return owner(t)
            return t

        return Run(net, maybe, [einx.matches]), (x,), {}

    def checked(owner: Any, t: torch.Tensor) -> Any:
        einx.check("b n (h d)", t, h=2)
        return owner(t)

    return Run(net, checked, [einx.check]), (x,), {}


def _classes() -> dict[str, Any]:
    """Models written with einx (the user's code: outside the library; what they enter is einx's)."""
    import torch
    from torch import nn

    import einx

    class Linear(nn.Module):
        def __init__(self, dim: int, out: int, description: str = "b n [c], [c] h -> b n h") -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.randn(dim, out) / dim**0.5)
            self.bias = nn.Parameter(torch.zeros(out))
            self.description = description

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return einx.add("... h, h", einx.dot(self.description, x, self.weight), self.bias)

        def entry_points(self) -> list[Any]:
            return [einx.dot, einx.add]

    class LayerNorm(nn.Module):
        def __init__(self, dim: int, rms: bool = False) -> None:
            super().__init__()
            self.scale = nn.Parameter(torch.ones(dim))
            self.rms = rms

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if not self.rms:
                x = einx.subtract("b n c, b n", x, einx.mean("b n [c]", x))
            var = einx.mean("b n [c]", x * x)
            x = einx.divide("b n c, b n", x, torch.sqrt(var + 1e-5))
            return einx.multiply("b n c, c", x, self.scale)

        def entry_points(self) -> list[Any]:
            return [einx.mean, einx.subtract, einx.divide, einx.multiply]

    class Attention(nn.Module):
        def __init__(self, dim: int, heads: int = 2, causal: bool = False, backend: str | None = None) -> None:
            super().__init__()
            self.heads, self.causal, self.backend = heads, causal, backend
            self.qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = einx.id("b n (qkv h c) -> qkv b h n c", self.qkv(x), qkv=3, h=self.heads)
            scores = einx.dot("b h q [c], b h k [c] -> b h q k", q, k) * q.shape[-1] ** -0.5
            if self.causal:
                n = x.shape[1]
                mask = einx.greater_equal("q, k -> q k", torch.arange(n), torch.arange(n))
                scores = einx.where("q k, b h q k,", mask, scores, float("-inf"))
            attn = einx.softmax("b h q [k]", scores, backend=self.backend)
            out = einx.dot("b h q [k], b h [k] c -> b q (h c)", attn, v)
            return self.out(out)

        def entry_points(self) -> list[Any]:
            return [einx.id, einx.dot, einx.softmax, einx.where, einx.greater_equal]

    class PatchEmbed(nn.Module):
        def __init__(self, patch: int, channels: int, dim: int) -> None:
            super().__init__()
            self.patch = patch
            self.proj = nn.Linear(patch * patch * channels, dim)
            self.pos = nn.Parameter(torch.randn(4, dim) * 0.02)

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            patches = einx.id("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", image, p1=self.patch, p2=self.patch)
            return einx.add("b n d, n d", self.proj(patches), self.pos)

        def entry_points(self) -> list[Any]:
            return [einx.id, einx.add]

    class GatedMLP(nn.Module):
        def __init__(self, dim: int, hidden: int) -> None:
            super().__init__()
            self.up = nn.Linear(dim, 2 * hidden)
            self.down = nn.Linear(hidden, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            value, gate = einx.id("b n (two h) -> two b n h", self.up(x), two=2)
            return self.down(einx.multiply("b n h, b n h", value, torch.nn.functional.silu(gate)))

        def entry_points(self) -> list[Any]:
            return [einx.id, einx.multiply]

    class MixerBlock(nn.Module):
        def __init__(self, tokens: int, dim: int) -> None:
            super().__init__()
            self.norm1, self.norm2 = LayerNorm(dim), LayerNorm(dim, rms=True)
            self.token_weight = nn.Parameter(torch.randn(tokens, tokens) / tokens**0.5)
            self.channel = GatedMLP(dim, 2 * dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = x + einx.dot("b [n] c, [n] m -> b m c", self.norm1(x), self.token_weight)
            return x + self.channel(self.norm2(x))

        def entry_points(self) -> list[Any]:
            return [einx.dot, einx.mean, einx.id, einx.multiply]

    class Router(nn.Module):
        """Top-1 token choice over experts: gather the chosen expert's weights, scatter the load."""

        def __init__(self, dim: int, experts: int) -> None:
            super().__init__()
            self.experts = experts
            self.gate = nn.Linear(dim, experts)
            self.weights = nn.Parameter(torch.randn(experts, dim, dim) / dim**0.5)

        def forward(self, x: torch.Tensor) -> Any:
            logits = self.gate(x)
            probs = einx.softmax("b n [e]", logits)
            choice = einx.argmax("b n [e]", logits)[..., 0]
            weight = einx.get_at("[e] d f, b n -> b n d f", self.weights, choice)
            out = einx.dot("b n [d], b n [d] f -> b n f", x, weight)
            prob = einx.get_at("b n [e], b n -> b n", probs, choice)
            load = einx.add_at("[e], b n, b n", torch.zeros(self.experts), choice, torch.ones_like(prob))
            return einx.multiply("b n f, b n", out, prob), load

        def entry_points(self) -> list[Any]:
            return [einx.softmax, einx.argmax, einx.get_at, einx.dot, einx.add_at, einx.multiply]

    class VisionModel(nn.Module):
        def __init__(self, classes: int = 5) -> None:
            super().__init__()
            self.embed = PatchEmbed(2, 3, 8)
            self.block = MixerBlock(4, 8)
            self.attn = Attention(8)
            self.head = Linear(8, classes, "b [c], [c] h -> b h")

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            x = self.block(self.embed(image))
            x = x + self.attn(x)
            return self.head(einx.mean("b [n] c", x))

        def entry_points(self) -> list[Any]:
            return [einx.id, einx.add, einx.dot, einx.mean, einx.softmax, einx.multiply]

    return {c.__name__: c for c in (Linear, LayerNorm, Attention, PatchEmbed, GatedMLP, MixerBlock, Router,
                                     VisionModel)}


def _module(name: str) -> tuple[Any, Any]:
    classes = _classes()
    seq = _input((B, 4, 8), 1)
    image = _input((B, 3, 4, 4), 1)
    table: dict[str, Any] = {
        "Linear": lambda: (classes["Linear"](8, 5), seq),
        "Linear.ellipsis": lambda: (classes["Linear"](8, 5, "b... [c], [c] h -> b... h"), seq),
        "LayerNorm": lambda: (classes["LayerNorm"](8), seq),
        "RMSNorm": lambda: (classes["LayerNorm"](8, rms=True), seq),
        "Attention": lambda: (classes["Attention"](8), seq),
        "Attention.causal": lambda: (classes["Attention"](8, causal=True), seq),
        "Attention.vmap_backend": lambda: (classes["Attention"](8, backend="torch.vmap"), seq),
        "PatchEmbed": lambda: (classes["PatchEmbed"](2, 3, 8), image),
        "GatedMLP": lambda: (classes["GatedMLP"](8, 16), seq),
        "MixerBlock": lambda: (classes["MixerBlock"](4, 8), seq),
        "Router.top1": lambda: (classes["Router"](8, 3), seq),
        "VisionModel": lambda: (classes["VisionModel"](), image),
    }
    return table[name]()


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    part = name.split(".")[1]
    model, x = _module("Router.top1" if part == "Router" else part)
    if name.startswith("train.VisionModel"):
        target: Any = torch.randint(0, 5, (B,), generator=_generator(7))
        loss_of: Any = F.cross_entropy
    elif name.startswith("train.Linear"):
        target = _input((B, 4, 5), 7)
        loss_of = F.mse_loss
    elif name.startswith("train.Router"):
        target = _input((B, 4, 8), 7)
        loss_of = lambda out, t: F.mse_loss(out[0], t) + 0.01 * out[1].var()  # noqa: E731
    else:
        target = _input((B, 4, 8), 7)
        loss_of = F.mse_loss
    params = list(model.parameters())
    if name.endswith("sgd"):
        optimizer: Any = torch.optim.SGD(params, lr=0.1)
    elif name.endswith("adamw"):
        optimizer = torch.optim.AdamW(params, lr=1e-3)
    else:
        optimizer = torch.optim.Adam(params, lr=1e-3)

    def step(owner: Any, t: torch.Tensor) -> torch.Tensor:
        """The loss, its gradients and an optimizer step (the loss alone under ``no_grad``)."""
        loss = loss_of(owner(t), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, model.entry_points()), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in OPS:
        return _op(name)
    if name in UTILS:
        return _util(name)
    if name in MODULES:
        model, x = _module(name)
        return model, (x,), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

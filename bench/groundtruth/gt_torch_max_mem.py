"""Ground-truth bench, torch_max_mem: batched computations wrapped in an automatic batch-size search.

torch-max-mem 0.1.6 decorates a function that computes something in chunks of ``batch_size`` (or several such
parameters): the wrapper binds the call's arguments to the function's signature, warns (through its logger) when
a tensor argument sits on a device it does not consider safe, starts from the given value (or the parameter's
default), and on an out-of-memory error (``torch.cuda.OutOfMemoryError`` or a ``RuntimeError`` whose message
names one of the known out-of-memory texts) empties the device caches, halves the value (floored to a multiple of
``q``) and calls again. Its entry points, all exercised here:

- ``maximize_memory_utilization`` (``MemoryUtilizationMaximizer``): the stateful form, which remembers the value
  that worked per hash of the call (a ``KeyHasher`` over chosen argument names, tensors hashed by shape, dtype and
  device, or a user's ``hasher``), in an LRU cache under a ``threading.Lock`` (``max_cache_size``, ``reset()``),
  and returns only the result;
- ``maximize_memory_utilization_decorator``: the stateless form, which returns ``(result, values)``;
- ``infer_maximum_batch_size``: the outer decorator that fills a missing batch size from ``len`` of another
  argument (optionally capped by ``max_value``), stacked on top of the maximizer as the documentation shows.

Each model is a bench module whose forward calls such a decorated function, as a user's compiled scoring or
evaluation code would: brute-force k-nearest neighbours (``cdist`` + ``topk`` per chunk, the library's own example),
chunked scores of a small linear model against all candidates, chunked softmax attention, a chunked loss sum, a
method of a module decorated in its class, a function with two tuned parameters (``batch_size`` and
``slice_size``, ``q`` per parameter), one with ``**kwargs``, and one taking a list of tensors (the nested-container
walk of the device check). The options cover the batch size given by keyword, positionally, by the parameter's
default or inferred; ``q`` as one number or a sequence; ``safe_devices`` that include the CPU (no warning) or
not; hashing keys on a tensor or an integer argument, a custom hasher, a cache of size one that evicts,
``reset()`` before a call. Two kinds of model emulate an out-of-memory failure the way the library's own tests do:
the computed function raises ``torch.cuda.OutOfMemoryError`` (or a ``RuntimeError`` with the CPU allocator's
message) while its batch size is above a limit, so the search path (catch, classify, clear caches, log, halve)
runs; the same limit on a non-memory error is left out (the wrapper re-raises it: a failing model).
``set_memory_budget`` needs CUDA and is left out. Random inputs from fixed seeds, CPU only, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

N_QUERY, N_BASE, DIM = 12, 20, 6
OOM_LIMIT = 4  # the emulated out-of-memory functions fail above this batch size

# Model name -> (wrapper, computation, options).
#   wrapper: "max" (maximize_memory_utilization), "dec" (maximize_memory_utilization_decorator),
#            "infer" (infer_maximum_batch_size over maximize_memory_utilization), "infer_dec" (over the decorator)
#   computation: a key of COMPUTATIONS below (built in ``_computation``)
#   options: keywords of the wrapper ("q", "safe_devices", "keys", "hasher", "max_cache_size"), and of the call:
#            "call" ("keyword", "positional", "default", "none": batch size left out), "reset", "two_calls"
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "max.knn": ("max", "knn", {}),
    "max.knn.q4": ("max", "knn", {"q": 4}),
    "max.knn.safe_cpu": ("max", "knn", {"safe_devices": ("cpu",)}),
    "max.knn.positional": ("max", "knn", {"call": "positional", "q": 2}),
    "max.knn.keys_x": ("max", "knn", {"keys": "x"}),
    "max.knn.keys_k": ("max", "knn", {"keys": ("k",), "safe_devices": ("cpu",)}),
    "max.knn.hasher": ("max", "knn", {"hasher": "shape"}),
    "max.knn.cache_one": ("max", "knn", {"keys": "x", "max_cache_size": 1, "two_calls": True}),
    "max.knn.no_cache_limit": ("max", "knn", {"max_cache_size": None, "two_calls": True}),
    "max.knn.reset": ("max", "knn", {"reset": True}),
    "max.scores": ("max", "scores", {}),
    "max.scores.default": ("max", "scores_default", {"call": "default"}),
    "max.scores.default.safe": ("max", "scores_default", {"call": "default", "safe_devices": ("cpu", "cuda")}),
    "max.attention": ("max", "attention", {"q": 4}),
    "max.loss": ("max", "loss", {"safe_devices": ("cpu",)}),
    "max.method": ("max", "method", {}),
    "max.two_params": ("max", "two_params", {"parameter_name": ("batch_size", "slice_size"), "q": (4, 2)}),
    "max.two_params.keys": ("max", "two_params", {"parameter_name": ("batch_size", "slice_size"), "q": 2,
                                                  "keys": ("x", "y")}),
    "max.var_keyword": ("max", "var_keyword", {"keys": ("scale",)}),
    "max.tensor_list": ("max", "tensor_list", {}),
    "max.oom.cuda": ("max", "oom_cuda", {"q": 2}),
    "max.oom.cpu_allocator": ("max", "oom_cpu", {"q": 2, "safe_devices": ("cpu",)}),
    "max.oom.cuda.two_calls": ("max", "oom_cuda", {"q": 1, "two_calls": True}),
    "max.oom.two_params": ("max", "oom_two_params", {"parameter_name": ("batch_size", "slice_size"), "q": 1}),
    "dec.knn": ("dec", "knn", {}),
    "dec.knn.safe_cpu": ("dec", "knn", {"safe_devices": ("cpu",), "q": 4}),
    "dec.scores.default": ("dec", "scores_default", {"call": "default"}),
    "dec.attention": ("dec", "attention", {}),
    "dec.two_params": ("dec", "two_params", {"parameter_name": ("batch_size", "slice_size"), "q": (2, 2)}),
    "dec.tensor_list": ("dec", "tensor_list", {"safe_devices": ("cpu",)}),
    "dec.oom.cuda": ("dec", "oom_cuda", {"q": 2}),
    "dec.oom.cpu_allocator": ("dec", "oom_cpu", {"q": 1}),
    "infer.knn": ("infer", "knn", {"call": "none"}),
    "infer.knn.max_value": ("infer", "knn", {"call": "none", "max_value": 8}),
    "infer.knn.explicit": ("infer", "knn", {}),
    "infer.knn.explicit_none": ("infer", "knn", {"call": "explicit_none"}),
    "infer.scores.keys": ("infer", "scores", {"call": "none", "keys": "x", "safe_devices": ("cpu",)}),
    "infer.oom.cuda": ("infer", "oom_cuda", {"call": "none", "q": 2}),
    "infer_dec.knn": ("infer_dec", "knn", {"call": "none"}),
    "infer_dec.attention": ("infer_dec", "attention", {"call": "none", "max_value": 6}),
}


def names() -> list[str]:
    return list(MODELS)


# --- the users' batched functions (module level, so their signatures are plain) ---------------------------------

def knn(x, y, batch_size: int, k: int = 3):
    """The library's example: brute-force k nearest neighbours of each row of ``x`` among the rows of ``y``."""
    import torch

    return torch.cat([torch.cdist(x[start:start + batch_size], y).topk(k=k, dim=1, largest=False).indices
                      for start in range(0, x.shape[0], batch_size)], dim=0)


def scores(x, y, batch_size: int):
    """Scores of every query against every candidate, a chunk of queries at a time."""
    import torch

    return torch.cat([x[start:start + batch_size] @ y.t() for start in range(0, x.shape[0], batch_size)], dim=0)


def scores_default(x, y, batch_size: int = 16):
    """``scores`` with the largest batch size as the parameter's default."""
    return scores(x, y, batch_size)


def attention(x, y, batch_size: int):
    """Softmax attention of the queries over the candidates, a chunk of queries at a time."""
    import torch

    out = []
    for start in range(0, x.shape[0], batch_size):
        weights = torch.softmax(x[start:start + batch_size] @ y.t() / DIM ** 0.5, dim=-1)
        out.append(weights @ y)
    return torch.cat(out, dim=0)


def loss(x, y, batch_size: int):
    """A summed squared-distance loss to the nearest candidate, in chunks."""
    import torch

    total = x.new_zeros(())
    for start in range(0, x.shape[0], batch_size):
        total = total + torch.cdist(x[start:start + batch_size], y).min(dim=1).values.pow(2).sum()
    return total


def two_params(x, y, batch_size: int, slice_size: int):
    """Chunks over the queries and slices over the feature dimension."""
    import torch

    rows = []
    for start in range(0, x.shape[0], batch_size):
        chunk = x[start:start + batch_size]
        acc = chunk.new_zeros(chunk.shape[0], y.shape[0])
        for f in range(0, x.shape[1], slice_size):
            acc = acc + chunk[:, f:f + slice_size] @ y[:, f:f + slice_size].t()
        rows.append(acc)
    return torch.cat(rows, dim=0)


def var_keyword(x, y, batch_size: int, **options):
    """``scores`` scaled by a keyword passed through ``**options``."""
    return scores(x, y, batch_size) * options.get("scale", 1.0)


def tensor_list(tensors, batch_size: int):
    """A list of query tensors, each scored against the last, in chunks."""
    import torch

    base = tensors[-1]
    return torch.cat([scores(t, base, batch_size) for t in tensors[:-1]], dim=0)


def oom_cuda(x, y, batch_size: int):
    """``scores``, failing as a CUDA device out of memory would while the batch is above ``OOM_LIMIT``."""
    import torch

    if batch_size > OOM_LIMIT:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    return scores(x, y, batch_size)


def oom_cpu(x, y, batch_size: int):
    """``scores``, failing with the CPU allocator's out-of-memory message while the batch is above ``OOM_LIMIT``."""
    if batch_size > OOM_LIMIT:
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:117] . DefaultCPUAllocator: not enough memory: "
                           "you tried to allocate 8589934592 bytes.")
    return scores(x, y, batch_size)


def oom_two_params(x, y, batch_size: int, slice_size: int):
    """``two_params``, out of memory while the product of the two sizes is above ``2 * OOM_LIMIT``."""
    import torch

    if batch_size * slice_size > 2 * OOM_LIMIT:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory.")
    return two_params(x, y, batch_size, slice_size)


FUNCTIONS = {"knn": knn, "scores": scores, "scores_default": scores_default, "attention": attention, "loss": loss,
             "two_params": two_params, "var_keyword": var_keyword, "tensor_list": tensor_list,
             "oom_cuda": oom_cuda, "oom_cpu": oom_cpu, "oom_two_params": oom_two_params}


def _hash_by_shape(arguments: Any) -> int:
    """A user's hasher: the shapes of the two tensor arguments."""
    return hash((tuple(arguments["x"].shape), tuple(arguments["y"].shape)))


def build(name: str) -> Built:
    import warnings

    import torch
    from torch import nn

    import torch_max_mem
    from torch_max_mem import api

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    wrapper, computation, options = MODELS[name]
    options = dict(options)
    call = options.pop("call", "keyword")
    reset = options.pop("reset", False)
    two_calls = options.pop("two_calls", False)
    max_value = options.pop("max_value", None)
    if options.get("hasher") == "shape":
        options["hasher"] = _hash_by_shape
    stateless = wrapper in ("dec", "infer_dec")
    if stateless:
        options = {k: v for k, v in options.items() if k in ("parameter_name", "q", "safe_devices")}
        maximize = api.maximize_memory_utilization_decorator(**options)
        entries: list[Any] = [api.maximize_memory_utilization_decorator]
    else:
        maximizer = torch_max_mem.maximize_memory_utilization(**options)
        maximize = maximizer
        entries = [api.MemoryUtilizationMaximizer.__call__]
    if reset:
        entries.append(api.MemoryUtilizationMaximizer.reset)
    if wrapper.startswith("infer"):
        entries.append(api.infer_maximum_batch_size)

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(N_QUERY, DIM, generator=gen)
    y = torch.randn(N_BASE, DIM, generator=gen)
    two = "two_params" in computation

    if computation == "method":
        class _Scorer(nn.Module):
            """A module whose batched scoring method is decorated in its class, as users write it."""

            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(DIM, DIM)

            @maximize
            def score_all(self, x: torch.Tensor, y: torch.Tensor, batch_size: int) -> torch.Tensor:
                return torch.cat([self.proj(x[s:s + batch_size]) @ y.t() for s in range(0, x.shape[0], batch_size)])

        scorer = _Scorer()
        function = scorer.score_all
    else:
        function = maximize(FUNCTIONS[computation])
        scorer = None
    if wrapper.startswith("infer"):
        function = api.infer_maximum_batch_size(max_value=max_value)(function)

    def run(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        if reset:
            maximizer.reset()
        if computation == "tensor_list":
            arguments: tuple[Any, ...] = ([x[:6], x[6:], y],)
        else:
            arguments = (x, y)
        keywords: dict[str, Any] = {}
        if call == "keyword":
            keywords["batch_size"] = x.shape[0]
        elif call == "positional":
            arguments = (*arguments, x.shape[0])
        elif call == "explicit_none":
            keywords["batch_size"] = None
        if two:
            keywords["slice_size"] = DIM
        if computation == "var_keyword":
            keywords["scale"] = 0.5
        out = function(*arguments, **keywords)
        if stateless:
            out = out[0]
        if two_calls:
            second = function(*(a[: N_QUERY // 2] if torch.is_tensor(a) else a for a in arguments[:1]),
                              *arguments[1:], **keywords)
            out = (out, second[0] if stateless else second)
        return out

    from gt_calls import Run

    model = Run(scorer, run, entries)
    return model, (x, y), {}

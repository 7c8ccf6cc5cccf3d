"""Measure, under real Dynamo (torch 2.13, CPU, backend eager), the source shapes behind issue 10's second batch of rules.

    python bench/measure_issue10_shapes.py [FAMILY ...]

Each case is a tiny program run through tests/harness/run_snippets.py (the observer the rule pages are
proven with). Prints one line per case: the graphs compiled and every break (line, GB id, source).
The facts the rules rest on (DYN109, DYN110, DYN210, DYN211, DYN506, DYN202, DYN505, the GB4347 note in
rules/coverage.toml) are the output of this script; re-run it on a new torch before changing them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAD = "import torch\nimport numpy as np\nimport random\nfrom torch import nn\n"
CASES: dict[str, dict[str, str]] = {}


def case(family: str, name: str, body: str, call: str = "f(torch.arange(6.0))") -> None:
    CASES.setdefault(family, {})[name] = HEAD + textwrap.dedent(body) + "\n" + call + "\n"


def lstm_case(name: str, forward_body: str) -> None:
    """A module holding an ``nn.LSTM`` (and a ``Linear``) whose compiled ``forward`` uses it as written."""
    case("sizes-logging-lstm", name, """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 6)
        self.lin = nn.Linear(6, 6)
    def forward(self, x):
""" + forward_body + "m = torch.compile(M())\n", "m(torch.randn(2, 6))")


def ctx(family: str, name: str, expr: str, prelude: str = "") -> None:
    """A context manager entered around traced work, between two traced lines."""
    case(family, name, prelude + f"""
@torch.compile
def f(x):
    y = x * 2
    with {expr}:
        y = y + 1
    return y - 1
""")


case("numpy", "np_isin_numpy", """
@torch.compile
def f(x):
    m = np.isin(x.numpy(), np.array([1.0, 2.0]))
    return x + 1, m
""")
case("numpy", "np_isin_from_numpy", """
@torch.compile
def f(x):
    mask = torch.from_numpy(np.isin(x.numpy(), x.numpy()[:2])).bool()
    return x[mask]
""")
case("numpy", "t_numpy_only", """
@torch.compile
def f(x):
    a = x.numpy()
    return torch.from_numpy(a * 2)
""")
case("numpy", "np_exp_tensor", """
@torch.compile
def f(x):
    return np.exp(x.numpy()) + 1
""")
case("numpy", "np_unique", """
@torch.compile
def f(x):
    return torch.from_numpy(np.unique(x.numpy()))
""")
case("numpy", "np_isin_constants", """
@torch.compile
def f(x):
    m = np.isin([1, 2, 3], [2])
    return x + 1
""")
case("numpy", "np_setdiff1d", """
@torch.compile
def f(x):
    return torch.from_numpy(np.setdiff1d(x.numpy(), np.array([1.0])))
""")
case("numpy", "np_searchsorted", """
@torch.compile
def f(x):
    return torch.from_numpy(np.searchsorted(x.numpy(), x.numpy()))
""")
case("numpy", "np_array_of_tensor", """
@torch.compile
def f(x):
    return torch.from_numpy(np.array(x)) + 1
""")
case("numpy", "np_asarray_numpy", """
@torch.compile
def f(x):
    return torch.from_numpy(np.asarray(x.numpy())) + 1
""")
case("numpy", "np_float32_const", """
@torch.compile
def f(x):
    return x * np.float32(2.0)
""")
case("numpy", "np_pi", """
@torch.compile
def f(x):
    return x * np.pi + np.sqrt(2.0)
""")
case("numpy", "np_prod_shape", """
@torch.compile
def f(x):
    return x.reshape(int(np.prod(x.shape)))
""")
case("numpy", "np_linspace_const", """
@torch.compile
def f(x):
    return x + torch.from_numpy(np.linspace(0, 1, 6))
""")
case("numpy", "np_lexsort", """
@torch.compile
def f(x):
    return torch.from_numpy(np.lexsort((x.numpy(),)))
""")
case("numpy", "t_numpy_tolist", """
@torch.compile
def f(x):
    return x.numpy().tolist()
""")
case("numpy", "np_ravel_multi_index", """
@torch.compile
def f(x):
    i = x.long().numpy()
    return torch.from_numpy(np.ravel_multi_index((i, i), (10, 10)))
""")
case("numpy", "random_sample", """
@torch.compile
def f(x):
    return x[torch.tensor(random.sample(range(6), 3))]
""")
case("numpy", "math_sqrt_tensor", """
import math
@torch.compile
def f(x):
    return x * math.sqrt(x.shape[0])
""")
case("numpy", "math_floor_data", """
import math
@torch.compile
def f(x):
    return x * math.floor(x.sum())
""")
case("numpy", "np_nonzero_on_numpy", """
@torch.compile
def f(x):
    return torch.from_numpy(np.nonzero(x.numpy() > 2)[0])
""")
case("numpy", "np_where_1arg", """
@torch.compile
def f(x):
    return torch.from_numpy(np.where(x.numpy() > 2)[0])
""")
case("numpy", "np_histogram", """
@torch.compile
def f(x):
    return np.histogram(x.numpy())
""")
case("numpy", "np_bincount", """
@torch.compile
def f(x):
    return torch.from_numpy(np.bincount(x.long().numpy()))
""")


case("sparse-sizes-ints", "to_sparse", """
@torch.compile
def f(x):
    s = x.reshape(2, 3).to_sparse()
    return s * 2
""")
case("sparse-sizes-ints", "to_sparse_coo", """
@torch.compile
def f(x):
    s = x.reshape(2, 3).to_sparse_coo()
    return x + 1, s
""")
case("sparse-sizes-ints", "to_sparse_csr", """
@torch.compile
def f(x):
    s = x.reshape(2, 3).to_sparse_csr()
    return x + 1
""")
case("sparse-sizes-ints", "sparse_coo_tensor", """
@torch.compile
def f(x):
    idx = torch.tensor([[0, 1], [1, 2]])
    s = torch.sparse_coo_tensor(idx, x[:2], (2, 3))
    return x + 1
""")
case("sparse-sizes-ints", "sparse_csr_tensor", """
@torch.compile
def f(x):
    s = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([0, 1]), x[:2], (2, 3))
    return x + 1
""")
case("sparse-sizes-ints", "sparse_mm_arg", """
S = torch.eye(6).to_sparse()
@torch.compile
def f(x):
    return torch.sparse.mm(S, x.reshape(6, 1))
""")
case("sparse-sizes-ints", "to_dense_local", """
@torch.compile
def f(x):
    return x.to_dense() + 1
""")
case("sparse-sizes-ints", "arange_max", """
@torch.compile
def f(x):
    return torch.arange(x.long().max())
""")
case("sparse-sizes-ints", "arange_sum_kw", """
@torch.compile
def f(x):
    return torch.arange(x.sum(), device=x.device)
""")
case("sparse-sizes-ints", "arange_shape", """
@torch.compile
def f(x):
    return torch.arange(x.shape[0]) + x
""")
case("sparse-sizes-ints", "full_n_from_max", """
@torch.compile
def f(x):
    n = x.long().max() + 1
    return torch.full((n, 2), 0.5)
""")
case("sparse-sizes-ints", "zeros_n_from_max", """
@torch.compile
def f(x):
    n = x.long().max() + 1
    return torch.zeros(n, 2)
""")
case("sparse-sizes-ints", "zeros_size_tensor0d", """
@torch.compile
def f(x):
    return x.new_zeros(x.long().sum())
""")
case("sparse-sizes-ints", "randperm_n", """
@torch.compile
def f(x):
    return torch.randperm(x.long().max())
""")
case("sparse-sizes-ints", "repeat_interleave_tensor", """
@torch.compile
def f(x):
    return x.repeat_interleave(torch.tensor([1, 2, 1, 2, 1, 2]))
""")
case("sparse-sizes-ints", "repeat_interleave_output_size", """
@torch.compile
def f(x):
    return x.repeat_interleave(torch.tensor([1, 2, 1, 2, 1, 2]), output_size=9)
""")
case("sparse-sizes-ints", "repeat_interleave_int", """
@torch.compile
def f(x):
    return x.repeat_interleave(2)
""")
case("sparse-sizes-ints", "torch_repeat_interleave_1arg", """
@torch.compile
def f(x):
    return torch.repeat_interleave(x.long())
""")
case("sparse-sizes-ints", "range_tensor", """
@torch.compile
def f(x):
    n = x.long().max()
    out = x
    for i in range(n):
        out = out + i
    return out
""")
case("sparse-sizes-ints", "list_range_tensor", """
@torch.compile
def f(x):
    return x + len(list(range(x.long().max())))
""")
case("sparse-sizes-ints", "list_index_tensor", """
W = [1.0, 2.0, 3.0]
@torch.compile
def f(x):
    i = x.long().argmax() % 3
    return x * W[i]
""")
case("sparse-sizes-ints", "modulelist_index_tensor", """
layers = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
@torch.compile
def f(x):
    i = x.long().argmax() % 3
    return layers[i](x)
""")
case("sparse-sizes-ints", "range_tensor_param", """
@torch.compile
def f(x, n):
    out = x
    for i in range(n):
        out = out + i
    return out
""", "f(torch.arange(6.0), torch.tensor(3))")
case("sparse-sizes-ints", "list_index_tensor_param", """
W = [1.0, 2.0, 3.0]
@torch.compile
def f(x, i):
    return x * W[i]
""", "f(torch.arange(6.0), torch.tensor(1))")
case("sparse-sizes-ints", "tuple_index_tensor_param", """
@torch.compile
def f(x, i):
    ws = (x, x + 1, x + 2)
    return ws[i]
""", "f(torch.arange(6.0), torch.tensor(1))")


case("iterators-contexts", "zip_tensors_comp_nobreak", """
@torch.compile
def f(x):
    ptr = torch.tensor([0, 2, 4])
    n = torch.tensor([2, 2])
    return torch.cat([x[:2] + o + m for o, m in zip(ptr[:-1], n)])
""")
case("iterators-contexts", "zip_tensors_comp_break", """
@torch.compile
def f(x):
    ptr = torch.tensor([0, 2, 4])
    num = torch.tensor([2, 2])
    return torch.cat([torch.randperm(n) + o for o, n in zip(ptr[:-1], num)])
""")
case("iterators-contexts", "zip_tensors_loop_break", """
@torch.compile
def f(x):
    ptr = torch.tensor([0, 2, 4])
    num = torch.tensor([2, 2])
    out = []
    for o, n in zip(ptr[:-1], num):
        out.append(torch.randperm(n) + o)
    return torch.cat(out)
""")
case("iterators-contexts", "iter_tensor_comp_break", """
@torch.compile
def f(x):
    num = torch.tensor([2, 2])
    return torch.cat([torch.randperm(n) for n in num])
""")
case("iterators-contexts", "list_comp_print", """
@torch.compile
def f(x):
    return torch.stack([x * i for i in range(3) if print(i) is None])
""")
case("iterators-contexts", "zip_lists_comp_break", """
@torch.compile
def f(x):
    return torch.stack([x * a + b.item() for a, b in zip([1, 2], [x.sum(), x.mean()])])
""")
case("iterators-contexts", "enumerate_comp_break", """
@torch.compile
def f(x):
    return torch.stack([x * a + b.item() for a, b in enumerate([x.sum(), x.mean()])])
""")
case("iterators-contexts", "map_comp_break", """
@torch.compile
def f(x):
    return torch.stack([x * b.item() for b in map(torch.sum, [x, x])])
""")
case("iterators-contexts", "gen_expr_break", """
@torch.compile
def f(x):
    return sum(x * b.item() for b in [x.sum(), x.mean()])
""")
ctx("context-managers", "cudnn_flags", 'torch.backends.cudnn.flags(enabled=False)')
ctx("context-managers", "sdp_kernel", 'torch.backends.cuda.sdp_kernel(enable_math=True)')
ctx("context-managers", "sdpa_kernel", 'sdpa_kernel(SDPBackend.MATH)', 'from torch.nn.attention import sdpa_kernel, SDPBackend\n')
ctx("context-managers", "autocast_cpu", 'torch.autocast("cpu", enabled=False)')
ctx("context-managers", "no_grad", 'torch.no_grad()')
ctx("context-managers", "enable_grad", 'torch.enable_grad()')
ctx("context-managers", "inference_mode", 'torch.inference_mode()')
ctx("context-managers", "set_grad_enabled", 'torch.set_grad_enabled(False)')
ctx("context-managers", "profiler_record_function", 'torch.profiler.record_function("x")')
ctx("context-managers", "amp_autocast_cuda_disabled", 'torch.cuda.amp.autocast(enabled=False)')
ctx("context-managers", "contextlib_suppress", 'contextlib.suppress(ValueError)', 'import contextlib\n')
ctx("context-managers", "contextlib_nullcontext", 'contextlib.nullcontext()', 'import contextlib\n')
ctx("context-managers", "mkldnn_flags", 'torch.backends.mkldnn.flags(enabled=False)')
ctx("context-managers", "sdp_kernel_flag_fn", 'torch.backends.cuda.sdp_kernel()')
ctx("context-managers", "device_ctx", 'torch.device("cpu")')
case("context-managers", "default_dtype_set", """
@torch.compile
def f(x):
    torch.set_default_dtype(torch.float64)
    return x + 1
""")
ctx("context-managers", "random_fork_rng", 'torch.random.fork_rng()')
ctx("context-managers", "warnings_catch", 'warnings.catch_warnings()', 'import warnings\n')
ctx("context-managers", "threading_lock", 'L', 'import threading\nL = threading.Lock()\n')
ctx("context-managers", "open_file", 'open("/dev/null") as fh')
ctx("context-managers", "sdpa_kernel_list", 'sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION])', 'from torch.nn.attention import sdpa_kernel, SDPBackend\n')
case("iterators-contexts", "cudnn_flags_then_use", """
@torch.compile
def f(x):
    y = x * 2
    with torch.backends.cudnn.flags(enabled=False, benchmark=False):
        y = y + 1
    return y - 1
""")


case("sizes-logging-lstm", "arange_max_csc", """
torch._dynamo.config.capture_scalar_outputs = True
@torch.compile
def f(x):
    return torch.arange(x.long().max())
""")
case("sizes-logging-lstm", "zeros_n_csc", """
torch._dynamo.config.capture_scalar_outputs = True
@torch.compile
def f(x):
    n = x.long().max() + 1
    return torch.zeros(n, 2)
""")
case("sizes-logging-lstm", "view_tensor_dim", """
@torch.compile
def f(x):
    n = x.long().max() // 2
    return x.view(n, -1)
""")
case("sizes-logging-lstm", "expand_tensor_dim", """
@torch.compile
def f(x):
    n = x.long().max()
    return x[:1].expand(n)
""")
case("sizes-logging-lstm", "randint_size_tensor", """
@torch.compile
def f(x):
    n = x.long().max()
    return torch.randint(0, 5, (n,))
""")
case("sizes-logging-lstm", "randint_high_tensor", """
@torch.compile
def f(x):
    return torch.randint(0, x.long().max(), (3,))
""")
case("sizes-logging-lstm", "linspace_steps_tensor", """
@torch.compile
def f(x):
    return torch.linspace(0, 1, x.long().max())
""")
case("sizes-logging-lstm", "linspace_end_tensor", """
@torch.compile
def f(x):
    return torch.linspace(0, x.max(), 5)
""")
case("sizes-logging-lstm", "arange_end_item_after", """
@torch.compile
def f(x):
    n = int(x.max())
    return torch.arange(n)
""")
case("sizes-logging-lstm", "eye_tensor", """
@torch.compile
def f(x):
    return torch.eye(x.long().max())
""")
case("sizes-logging-lstm", "new_full_tensor", """
@torch.compile
def f(x):
    return x.new_full((x.long().max(),), 2.0)
""")
case("sizes-logging-lstm", "ones_size_list_shape", """
@torch.compile
def f(x):
    return torch.ones([x.shape[0], 2])
""")
case("sizes-logging-lstm", "logger_warning_once_patched", """
import logging, functools
logger = logging.getLogger("m")
@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)
logging.Logger.warning_once = warning_once
@torch.compile
def f(x):
    logger.warning_once("hi")
    return x + 1
""")
case("sizes-logging-lstm", "logger_subclass", """
import logging
class MyLogger(logging.Logger):
    def info_once(self, msg):
        self.info(msg)
log = MyLogger("x")
@torch.compile
def f(x):
    log.info_once("hi")
    return x + 1
""")
case("sizes-logging-lstm", "logger_subclass_info", """
import logging
class MyLogger(logging.Logger):
    pass
log = MyLogger("x")
@torch.compile
def f(x):
    log.info("hi")
    return x + 1
""")
case("sizes-logging-lstm", "library_get_logger", """
import logging
def get_logger(name):
    return logging.getLogger(name)
lg = get_logger(__name__)
@torch.compile
def f(x):
    lg.warning("hi")
    return x + 1
""")
case("sizes-logging-lstm", "logger_adapter", """
import logging
lg = logging.LoggerAdapter(logging.getLogger("a"), {})
@torch.compile
def f(x):
    lg.info("hi")
    return x + 1
""")
lstm_case("lstm_attr_read", '        h = x.new_zeros((self.lstm.num_layers, 6))\n        y = self.lin(x)\n        return y + h.sum()\n')
lstm_case("lstm_is_not_none", '        y = self.lin(x)\n        assert self.lstm is not None\n        return y * 2\n')
lstm_case("lstm_read_then_call", '        y = self.lin(x)\n        n = self.lstm.num_layers\n        out, _ = self.lstm(y)\n        return out * n\n')
lstm_case("lstm_params_read", '        return x * self.lstm.weight_ih_l0.sum()\n')


for key, expr in {
    "opt_einsum_flags": "torch.backends.opt_einsum.flags(enabled=False)",
    "nnpack_flags": "torch.backends.nnpack.flags(enabled=False)",
    "detect_anomaly": "torch.autograd.detect_anomaly()",
    "set_detect_anomaly": "torch.autograd.set_detect_anomaly(False)",
    "profiler_profile": "torch.profiler.profile()",
    "autograd_profiler_profile": "torch.autograd.profiler.profile()",
    "saved_tensors_hooks": "torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)",
    "save_on_cpu": "torch.autograd.graph.save_on_cpu()",
    "check_sparse_invariants": "torch.sparse.check_sparse_tensor_invariants()",
    "sdp_kernel_kw": "torch.backends.cuda.sdp_kernel(enable_flash=False)",
    "device_ctx2": "torch.device('cpu')",
    "cuda_device_ctx": "torch.cuda.device(0)",
    "set_default_dtype_ctx_fn": "torch.random.fork_rng(devices=[])",
    "no_grad2": "torch.no_grad()",
    "mkldnn_verbose": "torch.backends.mkldnn.verbose(0)",
    "cpu_amp_autocast": "torch.cpu.amp.autocast()",
    "deterministic_ctx": "torch.utils.deterministic.fill_uninitialized_memory",
    "enable_math_sdp_call": "torch.backends.cuda.sdp_kernel(True, True, True)",
    "functorch_vmap_ctx": "torch._C._DisableFuncTorch()",
    "disable_torch_function": "torch._C.DisableTorchFunction()",
    "disable_torch_function_subclass": "torch._C.DisableTorchFunctionSubclass()",
    "fwAD_dual_level": "torch.autograd.forward_ad.dual_level()",
    "_force_original_view_tracking": "torch.autograd.grad_mode._force_original_view_tracking(True)",
    "set_multithreading_enabled": "torch.autograd.set_multithreading_enabled(False)",
    "emit_nvtx": "torch.autograd.profiler.emit_nvtx()",
    "record_function_ctx": "torch.autograd.profiler.record_function('a')",
}.items():
    ctx("context-managers", key, expr)


case("sparse", "sparse_csc_tensor", """
@torch.compile
def f(x):
    s = torch.sparse_csc_tensor(torch.tensor([0, 1, 2]), torch.tensor([0, 1]), x[:2], (2, 2))
    return x + 1
""")
case("sparse", "sparse_compressed_tensor", """
@torch.compile
def f(x):
    s = torch.sparse_compressed_tensor(torch.tensor([0, 1, 2]), torch.tensor([0, 1]), x[:2], (2, 2), layout=torch.sparse_csr)
    return x + 1
""")
case("sparse", "to_sparse_csc", """
@torch.compile
def f(x):
    s = x.reshape(2, 3).to_sparse_csc()
    return x + 1
""")
case("sparse", "to_sparse_bsr", """
@torch.compile
def f(x):
    s = x.reshape(2, 3).to_sparse_bsr((1, 1))
    return x + 1
""")
case("sparse", "sparse_coo_then_mm", """
@torch.compile
def f(x):
    idx = torch.tensor([[0, 1], [1, 2]])
    s = torch.sparse_coo_tensor(idx, x[:2], (2, 3))
    return s @ x[:3].reshape(3, 1)
""")
case("sparse", "np_asanyarray", """
@torch.compile
def f(x):
    return torch.from_numpy(np.asanyarray(x.numpy())) + 1
""")
case("sparse", "np_bool_call", """
@torch.compile
def f(x):
    return x + np.bool_(True)
""")
case("sparse", "seq_tensor_comprehension_list", """
@torch.compile
def f(x, i):
    ws = [x * k for k in range(3)]
    return ws[i]
""", "f(torch.arange(6.0), torch.tensor(1))")
case("sparse", "sequential_index_tensor", """
seq = nn.Sequential(nn.Linear(6, 6), nn.Linear(6, 6))
@torch.compile
def f(x, i):
    return seq[i](x)
""", "f(torch.arange(6.0), torch.tensor(1))")


case("sparse", "mm_to_sparse_inline", """
@torch.compile
def f(x):
    adj = (x.reshape(2, 3) > 2).float()
    out = torch.sparse.mm(adj.to_sparse(), x.reshape(3, 2))
    return out.relu()
""")
case("sparse", "mm_coo_inline", """
@torch.compile
def f(x):
    idx = torch.tensor([[0, 1], [1, 2]])
    out = torch.sparse.mm(torch.sparse_coo_tensor(idx, x[:2], (2, 3)), x.reshape(3, 2))
    return out.relu()
""")
case("sparse", "csr_to_dense_inline", """
@torch.compile
def f(x):
    dense = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([0, 1]), x[:2], (2, 3)).to_dense()
    return dense + 1
""")
case("sparse", "to_sparse_coo_to_dense", """
@torch.compile
def f(x):
    a = x.reshape(2, 3)
    y = a.to_sparse_coo().to_dense()
    return y * 2
""")


case("scalar-capture", "list_index_csr", """
torch._dynamo.config.capture_scalar_outputs = True
W = [1.0, 2.0, 3.0]
@torch.compile
def f(x, i):
    return x * W[i]
""", "f(torch.arange(6.0), torch.tensor(1))")
case("scalar-capture", "range_csr", """
torch._dynamo.config.capture_scalar_outputs = True
@torch.compile
def f(x, n):
    out = x
    for i in range(n):
        out = out + i
    return out
""", "f(torch.arange(6.0), torch.tensor(3))")
case("scalar-capture", "modulelist_csr", """
torch._dynamo.config.capture_scalar_outputs = True
layers = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
@torch.compile
def f(x, i):
    return layers[i](x)
""", "f(torch.arange(6.0), torch.tensor(1))")
case("scalar-capture", "view_csr", """
torch._dynamo.config.capture_scalar_outputs = True
@torch.compile
def f(x):
    n = x.long().max() // 2
    return x.view(n, -1)
""")


case("iterators-contexts", "zip_print", """
@torch.compile
def f(x):
    return torch.stack([x * a for a, b in zip([1, 2], [3, 4]) if print(b) is None])
""")
case("iterators-contexts", "genexpr_zip_item", """
@torch.compile
def f(x):
    return sum(x * a + b.item() for a, b in zip([1, 2], [x.sum(), x.mean()]))
""")
case("iterators-contexts", "dictcomp_zip_item", """
@torch.compile
def f(x):
    d = {a: b.item() for a, b in zip([1, 2], [x.sum(), x.mean()])}
    return x * d[1]
""")
case("iterators-contexts", "zip_comp_multiline", """
@torch.compile
def f(x):
    out = torch.stack([
        x * a + b.item()
        for a, b in zip([1, 2], [x.sum(), x.mean()])
    ])
    return out
""")
case("iterators-contexts", "zip_in_iter_break", """
@torch.compile
def f(x):
    return torch.stack([x * a for a in zip([x.sum().item(), 2])])
""")
case("iterators-contexts", "nested_comp_inner_zip", """
@torch.compile
def f(x):
    return torch.stack([x * a * b.item() for a in [1, 2] for b in map(torch.sum, [x, x])])
""")
case("iterators-contexts", "list_zip_comp_break", """
@torch.compile
def f(x):
    return torch.stack([x * a + b.item() for a, b in list(zip([1, 2], [x.sum(), x.mean()]))])
""")
case("iterators-contexts", "setcomp_zip_break", """
@torch.compile
def f(x):
    s = {a + b.item() for a, b in zip([1, 2], [x.sum(), x.mean()])}
    return x * len(s)
""")


def run(families: list[str]) -> None:
    chosen = {name: source for family, cases in CASES.items() if not families or family in families
              for name, source in cases.items()}
    snippets = [{"id": name, "source": source} for name, source in chosen.items()]
    completed = subprocess.run([sys.executable, str(ROOT / "tests/harness/run_snippets.py"), "--timeout", "120"],
                               input=json.dumps(snippets), capture_output=True, text=True, cwd=ROOT)
    results = json.loads(completed.stdout)
    for name, result in results.items():
        lines = chosen[name].splitlines()
        breaks = "; ".join(f"L{b['line']} {b['gb_id']} [{lines[b['line'] - 1].strip()[:60] if b['line'] else ''}]"
                           for b in result["breaks"])
        error = f" error: {result['error'].splitlines()[0][:100]}" if result["error"] else ""
        print(f"{name:34} graphs={result['graphs']} {'BREAK ' + breaks if breaks else 'no break'}{error}")


if __name__ == "__main__":
    run(sys.argv[1:])

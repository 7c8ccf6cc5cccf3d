"""Ground-truth bench, torch_complex: the ``ComplexTensor`` pair of real tensors, its functional API, and speech front ends.

torch-complex 0.4.4 predates PyTorch's native complex dtype: ``ComplexTensor`` (``tensor.py``) holds a ``real``
and an ``imag`` tensor and implements, in Python, arithmetic with other complex tensors, real tensors, numbers
and Python ``complex`` values (and the in-place forms, which test ``numbers.Complex``), matrix products, powers
(special-cased exponents, else polar form), ``abs`` and ``angle``, a Tensor-like method surface that maps each
call onto both parts (shape and indexing methods, ``masked_fill``, ``index_*``, reductions, conversions,
``new_*`` factories, ``item``, ``tolist``, ``numpy``, gradients), and two inverses (``inverse``: a real-arithmetic
formula retried under ``try``; ``inverse2``: through the real ``2n x 2n`` embedding). ``functional.py`` adds
``einsum`` (expanding complex operands into real products), ``cat``, ``stack`` (with ``out=``), ``pad``,
``squeeze``, ``reverse`` and ``signal_frame`` (all through the ``_fcomplex`` wrapper), ``trace`` (a boolean
mask of the identity, gated on a ``packaging`` version test), ``allclose``, ``matmul`` and ``solve`` (through
``utils``' real-matrix embeddings, optionally by LU). ESPnet's speech-enhancement front ends were its main users,
so the tables cover, on tiny tensors (a batch of 2, 3 channels or rows, 4 frames or columns):

- ``OPS``: each operator and method on complex tensors built in the forward from real inputs: with a complex,
  real-tensor, scalar and Python-complex other operand, the reflected and in-place forms, each special power and
  a general one, the constructor from a real tensor, a complex tensor and a NumPy array, and the method surface
  (indexing and assignment, shape methods, ``diag``/``diagonal``, masks, ``index_*``, ``gather``/``take``,
  reductions, dtype conversions, ``new_*``, ``type``, properties, ``__len__``, ``__repr__``, ``__eq__`` and
  ``eq``/``equal``, ``item``, ``tolist`` of a vector, ``numpy`` and ``__array__``, ``inverse`` with one and
  several tries, ``inverse2``, the gradient helpers ``requires_grad_``, ``retain_grad`` and ``backward``);
- ``FUNCS``: every function of ``functional`` and ``utils`` under its argument kinds (complex, real and mixed
  operands; a list of operands to ``einsum``; ``dim`` and ``out=`` for ``cat``/``stack``; ``solve`` plain and
  with ``return_LU``);
- ``APPS``: speech front ends written as ESPnet writes them: an STFT wrapped as a ``ComplexTensor``, a masked
  power-spectral-density matrix, MVDR beamforming (through ``inverse2``, ``inverse`` and ``solve``; applied to
  the mixture), one WPE dereverberation step (power, framing with ``signal_frame``, correlations by ``einsum``,
  the filter by ``solve``, ``reverse`` and ``pad``), a BLSTM mask estimator on magnitudes, a complex linear
  layer, and training steps (loss, backward, an optimizer step with gradients enabled whatever the harness's
  mode) through the mask estimator, the beamformer and the complex layer.

Left out, since they fail eagerly in 0.4.4: ``fill`` (it calls ``Tensor.fill``, which does not exist),
``copy_`` (``Tensor.copy_`` without a source), ``equal`` with a real tensor (``Tensor.equal(0)``), ``tolist`` of
a matrix (a list times ``1j``), ``einsum`` of real operands only (its imaginary sum is the integer 0, which the
constructor cannot move with ``.to``), and ``__eq__`` on tensors of more than one element (``and`` of two tensors); so
``__eq__`` runs on one-element tensors, ``tolist`` on a vector. ``cuda`` (CPU only). Random inputs from fixed
seeds, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Each OPS entry: a function of (c, o, r, ns) -> result, where ``c`` and ``o`` are ComplexTensors of shape
# (2, 3, 4) built in the forward from the inputs, ``r`` a real tensor of that shape, and ``ns`` a namespace with
# ``torch``, ``np`` (NumPy), ``CT`` (ComplexTensor), ``FC`` (functional) and ``U`` (utils).
OPS: dict[str, Any] = {
    "add.complex": lambda c, o, r, ns: c + o,
    "add.real": lambda c, o, r, ns: c + r,
    "add.scalar": lambda c, o, r, ns: c + 2.0,
    "add.python_complex": lambda c, o, r, ns: c + (1 + 2j),
    "radd.real": lambda c, o, r, ns: 1.5 + c,
    "radd.python_complex": lambda c, o, r, ns: (0.5 - 1j) + c,
    "iadd.complex": lambda c, o, r, ns: _iop(c, o, "iadd"),
    "iadd.real": lambda c, o, r, ns: _iop(c, r, "iadd"),
    "sub.complex": lambda c, o, r, ns: c - o,
    "sub.real": lambda c, o, r, ns: c - r,
    "rsub.scalar": lambda c, o, r, ns: 3.0 - c,
    "rsub.python_complex": lambda c, o, r, ns: (1 + 1j) - c,
    "isub.complex": lambda c, o, r, ns: _iop(c, o, "isub"),
    "isub.real": lambda c, o, r, ns: _iop(c, r, "isub"),
    "mul.complex": lambda c, o, r, ns: c * o,
    "mul.real": lambda c, o, r, ns: c * r,
    "mul.scalar": lambda c, o, r, ns: c * 0.5,
    "mul.python_complex": lambda c, o, r, ns: c * (2 - 1j),
    "rmul.real": lambda c, o, r, ns: r * c,
    "rmul.python_complex": lambda c, o, r, ns: (1 + 3j) * c,
    "imul.complex": lambda c, o, r, ns: _iop(c, o, "imul"),
    "imul.python_complex": lambda c, o, r, ns: _iop(c, 1 - 2j, "imul"),
    "imul.real": lambda c, o, r, ns: _iop(c, r, "imul"),
    "div.complex": lambda c, o, r, ns: c / o,
    "div.real": lambda c, o, r, ns: c / (r.abs() + 1.0),
    "div.python_complex": lambda c, o, r, ns: c / (1 + 1j),
    "rdiv.scalar": lambda c, o, r, ns: 1.0 / c,
    "rdiv.python_complex": lambda c, o, r, ns: (2 + 1j) / c,
    "idiv.complex": lambda c, o, r, ns: _iop(c, o, "idiv"),
    "idiv.scalar": lambda c, o, r, ns: _iop(c, 4.0, "idiv"),
    "matmul.complex": lambda c, o, r, ns: c @ o.transpose(-1, -2),
    "matmul.real": lambda c, o, r, ns: c @ r.transpose(-1, -2),
    "rmatmul.real": lambda c, o, r, ns: r.transpose(-1, -2) @ c,
    "imatmul.complex": lambda c, o, r, ns: _iop(c, o.transpose(-1, -2)[..., :4], "imatmul"),
    "imatmul.real": lambda c, o, r, ns: _iop(c, r[0, :, :].transpose(-1, -2)[:4, :4], "imatmul"),
    "neg": lambda c, o, r, ns: -c,
    "neg.method": lambda c, o, r, ns: c.neg(),
    "neg_": lambda c, o, r, ns: c.neg_(),
    "abs": lambda c, o, r, ns: abs(c),
    "abs.method": lambda c, o, r, ns: c.abs(),
    "angle": lambda c, o, r, ns: c.angle(),
    "pow.minus2": lambda c, o, r, ns: c ** -2,
    "pow.minus1": lambda c, o, r, ns: c ** -1,
    "pow.0": lambda c, o, r, ns: c ** 0,
    "pow.1": lambda c, o, r, ns: c ** 1,
    "pow.2": lambda c, o, r, ns: c ** 2,
    "pow.3": lambda c, o, r, ns: c ** 3,
    "pow.method.half": lambda c, o, r, ns: c.pow(0.5),
    "ipow.2": lambda c, o, r, ns: _iop(c, 2, "ipow"),
    "ipow.1_5": lambda c, o, r, ns: _iop(c, 1.5, "ipow"),
    "sqrt": lambda c, o, r, ns: c.sqrt(),
    "conj": lambda c, o, r, ns: c.conj(),
    "conj_": lambda c, o, r, ns: c.conj_(),
    "init.real_only": lambda c, o, r, ns: ns.CT(r),
    "init.from_complex": lambda c, o, r, ns: ns.CT(c),
    "init.numpy_complex": lambda c, o, r, ns: ns.CT(ns.np.ones((2, 2)) + 1j * ns.np.arange(4.0).reshape(2, 2)) * r[0, :2, :2],
    "init.numpy_real": lambda c, o, r, ns: ns.CT(ns.np.full((2, 2), 0.5, dtype=ns.np.float32)) + r[0, :2, :2],
    "init.numpy_pair": lambda c, o, r, ns: ns.CT(ns.np.ones(3, dtype=ns.np.float32), ns.np.zeros(3, dtype=ns.np.float32)) * r[0, :, 0],
    "init.device": lambda c, o, r, ns: ns.CT(r, r * 2, device="cpu"),
    "getitem.int": lambda c, o, r, ns: c[0],
    "getitem.slice": lambda c, o, r, ns: c[:, 1:, ::2],
    "getitem.ellipsis": lambda c, o, r, ns: c[..., -1],
    "getitem.mask": lambda c, o, r, ns: c[r > 0],
    "setitem.complex": lambda c, o, r, ns: _setitem(c, (0, slice(None)), o[1, 0]),
    "setitem.python_complex": lambda c, o, r, ns: _setitem(c, 1, 1 + 1j),
    "setitem.real": lambda c, o, r, ns: _setitem(c, (slice(None), 0), r[:, 0]),
    "eq.one_element": lambda c, o, r, ns: ns.CT(r[0, 0, :1], r[0, 1, :1]) == ns.CT(r[0, 0, :1], r[0, 1, :1]),
    "eq.one_element.real": lambda c, o, r, ns: ns.CT(r[0, 0, :1]) == r[0, 0, :1],
    "eq.method": lambda c, o, r, ns: c.eq(o),
    "eq.method.real": lambda c, o, r, ns: c.eq(r),
    "equal": lambda c, o, r, ns: c.equal(c.clone()),
    "len": lambda c, o, r, ns: r * len(c),
    "repr": lambda c, o, r, ns: (repr(c[0, 0, :2]), c.real.sum()),
    "byte": lambda c, o, r, ns: c.abs().mul(10).to(ns.torch.uint8) + ns.CT(r.abs()).byte().real,
    "clone": lambda c, o, r, ns: c.clone(),
    "contiguous": lambda c, o, r, ns: c.transpose(0, 1).contiguous(),
    "cpu": lambda c, o, r, ns: c.cpu(),
    "expand": lambda c, o, r, ns: c[:, :1].expand(2, 3, 4),
    "expand_as": lambda c, o, r, ns: c[:1].expand_as(r),
    "detach": lambda c, o, r, ns: c.detach(),
    "detach_": lambda c, o, r, ns: (c * 2).detach_(),
    "device": lambda c, o, r, ns: ns.torch.zeros(3, device=c.device),
    "diag": lambda c, o, r, ns: c[0].diag(),
    "diag.offset": lambda c, o, r, ns: c[0, :, 0].diag(1),
    "diagonal": lambda c, o, r, ns: c.diagonal(offset=0, dim1=-2, dim2=-1),
    "dim": lambda c, o, r, ns: r * c.dim(),
    "ndim": lambda c, o, r, ns: r * c.ndim + c.ndimension(),
    "double": lambda c, o, r, ns: c.double(),
    "float": lambda c, o, r, ns: c.double().float(),
    "half": lambda c, o, r, ns: c.half(),
    "dtype": lambda c, o, r, ns: ns.torch.ones(2, dtype=c.dtype),
    "is_complex": lambda c, o, r, ns: r if c.is_complex() and not c.is_floating_point() else -r,
    "gather": lambda c, o, r, ns: c.gather(2, ns.torch.zeros(2, 3, 1, dtype=ns.torch.long)),
    "take": lambda c, o, r, ns: c.take(ns.torch.tensor([0, 5, 7])),
    "get_device": lambda c, o, r, ns: r * (c.get_device() + 2),
    "index_add": lambda c, o, r, ns: c.index_add(1, ns.torch.tensor([0, 2]), r[:, :2]),
    "index_copy": lambda c, o, r, ns: c.index_copy(1, ns.torch.tensor([1]), r[:, :1]),
    "index_fill": lambda c, o, r, ns: c.index_fill(2, ns.torch.tensor([0, 3]), -1.0),
    "index_select": lambda c, o, r, ns: c.index_select(2, ns.torch.tensor([3, 1])),
    "item": lambda c, o, r, ns: c[0, 0, 0].item(),
    "masked_fill.scalar": lambda c, o, r, ns: c.masked_fill(r > 0, 0.0),
    "masked_fill.python_complex": lambda c, o, r, ns: c.masked_fill(r > 0, 1 - 1j),
    "masked_fill_.scalar": lambda c, o, r, ns: c.masked_fill_(r < 0, 2.0),
    "masked_fill_.python_complex": lambda c, o, r, ns: c.masked_fill_(r < 0, 1j),
    "mean": lambda c, o, r, ns: c.mean(dim=-1),
    "mean.all": lambda c, o, r, ns: c.mean(),
    "sum": lambda c, o, r, ns: c.sum(dim=1, keepdim=True),
    "sum.all": lambda c, o, r, ns: c.sum(),
    "numel": lambda c, o, r, ns: r * (c.numel() + c.nelement()),
    "new": lambda c, o, r, ns: c.new(2, 2).real.zero_() + r[0, :2, :2],
    "new_empty": lambda c, o, r, ns: c.new_empty((2, 2)).fill_(1.0),
    "new_full.scalar": lambda c, o, r, ns: c.new_full((2, 2), 3.0),
    "new_full.python_complex": lambda c, o, r, ns: c.new_full((2, 2), 1 + 2j),
    "new_tensor.list": lambda c, o, r, ns: c.new_tensor([1.0, 2.0, 3.0]) * r[0, 0, :3],
    "new_tensor.complex": lambda c, o, r, ns: c.new_tensor(o),
    "new_tensor.numpy_complex": lambda c, o, r, ns: c.new_tensor(ns.np.array([1 + 1j, 2 - 1j])),
    "numpy": lambda c, o, r, ns: ns.torch.as_tensor(c[0, 0].numpy().real),
    "array": lambda c, o, r, ns: ns.torch.as_tensor(ns.np.asarray(c[0, 0]).imag),
    "permute": lambda c, o, r, ns: c.permute(2, 0, 1),
    "T": lambda c, o, r, ns: c[0].T,
    "repeat": lambda c, o, r, ns: c.repeat(1, 2, 1),
    "reshape": lambda c, o, r, ns: c.reshape(6, 4),
    "view": lambda c, o, r, ns: c.view(2, 12),
    "view_as": lambda c, o, r, ns: c.view_as(r.view(6, 4)),
    "shape": lambda c, o, r, ns: r.new_zeros(c.shape[0], c.size(-1)) + c.size()[1],
    "squeeze": lambda c, o, r, ns: c[:, :1].squeeze(),
    "squeeze.dim": lambda c, o, r, ns: c[:, :1].squeeze(1),
    "unsqueeze": lambda c, o, r, ns: c.unsqueeze(1),
    "unsqueeze_": lambda c, o, r, ns: c.clone().unsqueeze_(0),
    "transpose": lambda c, o, r, ns: c.transpose(1, 2),
    "transpose_": lambda c, o, r, ns: c.clone().transpose_(0, 2),
    "unbind": lambda c, o, r, ns: c.unbind(1)[2],
    "unfold": lambda c, o, r, ns: c.unfold(2, 2, 1),
    "to.dtype": lambda c, o, r, ns: c.to(ns.torch.float64),
    "type.str": lambda c, o, r, ns: (c.type(), c.real.sum()),
    "type.dtype": lambda c, o, r, ns: c.type(ns.torch.float64),
    "tolist.vector": lambda c, o, r, ns: c[0, 0].tolist(),
    "share_memory_": lambda c, o, r, ns: c.clone().share_memory_(),
    "requires_grad_": lambda c, o, r, ns: ns.CT(r.clone(), r * 2).requires_grad_(),
    "requires_grad.property": lambda c, o, r, ns: r * float(c.requires_grad),
    "requires_grad.setter": lambda c, o, r, ns: _set_requires_grad(ns.CT(r.clone(), r.clone())),
    "inverse": lambda c, o, r, ns: _square(c, o).inverse(),
    "inverse.ntry1": lambda c, o, r, ns: _square(c, o).inverse(ntry=1),
    "inverse2": lambda c, o, r, ns: _square(c, o).inverse2(),
}
# FUNCS entries: the same signature; ``m`` square matrices are made from ``c`` and ``o`` by ``_square``.
FUNCS: dict[str, Any] = {
    "einsum.complex_complex": lambda c, o, r, ns: ns.FC.einsum("bij,bkj->bik", c, o),
    "einsum.list": lambda c, o, r, ns: ns.FC.einsum("bij,bkj->bik", [c, o.conj()]),
    "einsum.complex_real": lambda c, o, r, ns: ns.FC.einsum("bij,bkj->bik", [c, r]),
    "einsum.real_complex": lambda c, o, r, ns: ns.FC.einsum("bij,bkj->bik", [r, c]),
    "einsum.three": lambda c, o, r, ns: ns.FC.einsum("bij,bjk,bkl->bil", [c, o.transpose(1, 2), c]),
    "einsum.unary": lambda c, o, r, ns: ns.FC.einsum("bij->bi", c),
    "einsum.ellipsis": lambda c, o, r, ns: ns.FC.einsum("...ct,...et->...ce", [c, c.conj()]),
    "cat.complex": lambda c, o, r, ns: ns.FC.cat([c, o], dim=1),
    "cat.mixed": lambda c, o, r, ns: ns.FC.cat([c, r], dim=-1),
    "cat.positional_dim": lambda c, o, r, ns: ns.FC.cat([r, o], 0),
    "cat.out": lambda c, o, r, ns: ns.FC.cat([c, o], 2, out=ns.CT(r.new_empty(2, 3, 8), r.new_empty(2, 3, 8))),
    "stack.complex": lambda c, o, r, ns: ns.FC.stack([c, o], dim=0),
    "stack.mixed": lambda c, o, r, ns: ns.FC.stack([r, c, o], dim=-1),
    "stack.out": lambda c, o, r, ns: ns.FC.stack([c, o], 1, out=ns.CT(r.new_empty(2, 2, 3, 4), r.new_empty(2, 2, 3, 4))),
    "pad.complex": lambda c, o, r, ns: ns.FC.pad(c, (1, 2)),
    "pad.complex.mode": lambda c, o, r, ns: ns.FC.pad(c, (1, 1, 0, 1), mode="constant", value=0.5),
    "pad.real": lambda c, o, r, ns: ns.FC.pad(r, (0, 1)),
    "squeeze.complex": lambda c, o, r, ns: ns.FC.squeeze(c[:, :1], 1),
    "squeeze.real": lambda c, o, r, ns: ns.FC.squeeze(r[:1]),
    "reverse.complex": lambda c, o, r, ns: ns.FC.reverse(c, dim=2),
    "reverse.default_dim": lambda c, o, r, ns: ns.FC.reverse(c),
    "reverse.real": lambda c, o, r, ns: ns.FC.reverse(r, 1),
    "signal_frame.complex": lambda c, o, r, ns: ns.FC.signal_frame(c, 2, 1),
    "signal_frame.step2": lambda c, o, r, ns: ns.FC.signal_frame(c, 3, 2, pad_value=0.0),
    "signal_frame.real": lambda c, o, r, ns: ns.FC.signal_frame(r, 2, 2),
    "trace": lambda c, o, r, ns: ns.FC.trace(_square(c, o)),
    "allclose.complex_complex": lambda c, o, r, ns: ns.FC.allclose(c, c.clone()),
    "allclose.real_complex": lambda c, o, r, ns: ns.FC.allclose(r, ns.CT(r)),
    "allclose.complex_real": lambda c, o, r, ns: ns.FC.allclose(c, r, rtol=1e-3),
    "allclose.real_real": lambda c, o, r, ns: ns.FC.allclose(r, r * 1.0, atol=1e-6, equal_nan=True),
    "matmul.complex_complex": lambda c, o, r, ns: ns.FC.matmul(c, o.transpose(1, 2)),
    "matmul.real_complex": lambda c, o, r, ns: ns.FC.matmul(r, o.transpose(1, 2)),
    "matmul.complex_real": lambda c, o, r, ns: ns.FC.matmul(c, r.transpose(1, 2)),
    "matmul.real_real": lambda c, o, r, ns: ns.FC.matmul(r, r.transpose(1, 2)),
    "solve": lambda c, o, r, ns: ns.FC.solve(c[:, :, :2], _square(c, o)),
    "solve.return_LU": lambda c, o, r, ns: ns.FC.solve(c[:, :, :2], _square(c, o), return_LU=True),
    "utils.complex_matrix2real_matrix": lambda c, o, r, ns: ns.U.complex_matrix2real_matrix(_square(c, o)),
    "utils.complex_vector2real_vector": lambda c, o, r, ns: ns.U.complex_vector2real_vector(c),
    "utils.real_matrix2complex_matrix": lambda c, o, r, ns: ns.U.real_matrix2complex_matrix(
        ns.torch.cat([r[:, :2, :2], r[:, 1:, 2:]], dim=-1).repeat(1, 2, 1)),
    "utils.real_vector2complex_vector": lambda c, o, r, ns: ns.U.real_vector2complex_vector(r[:, 1:]),
    "utils.roundtrip": lambda c, o, r, ns: ns.U.real_matrix2complex_matrix(ns.U.complex_matrix2real_matrix(_square(c, o))),
}
APPS = (
    "stft", "psd", "psd.normalized", "mvdr.inverse2", "mvdr.inverse", "mvdr.solve", "mvdr.apply", "wpe.step",
    "wpe.filter", "mask_estimator", "complex_linear", "complex_linear.polar",
    "train_step.mask_estimator", "train_step.beamformer", "train_step.complex_linear",
    "backward.method", "retain_grad",
)


def names() -> list[str]:
    return [f"ComplexTensor.{n}" for n in OPS] + [f"functional.{n}" for n in FUNCS] + [f"app.{n}" for n in APPS]


def _iop(c: Any, other: Any, kind: str) -> Any:
    """An augmented assignment on ``c`` (the in-place dunder methods)."""
    if kind == "iadd":
        c += other
    elif kind == "isub":
        c -= other
    elif kind == "imul":
        c *= other
    elif kind == "idiv":
        c /= other
    elif kind == "imatmul":
        c = c[..., :4, :4] if other.dim() == 2 else c
        c @= other
    else:
        c **= other
    return c


def _setitem(c: Any, index: Any, value: Any) -> Any:
    c = c.clone()
    c[index] = value
    return c


def _set_requires_grad(c: Any) -> Any:
    c.requires_grad = True
    return c.detach()


def _square(c: Any, o: Any) -> Any:
    """A well-conditioned batch of 3 x 3 complex matrices from ``c`` and ``o``."""
    import torch

    eye = torch.eye(3)
    return type(c)(c.real[..., :3] + 3 * eye, o.imag[..., :3] * 0.5)


def _ns() -> Any:
    import types

    import numpy as np
    import torch
    from torch_complex import functional, utils
    from torch_complex.tensor import ComplexTensor

    return types.SimpleNamespace(torch=torch, np=np, CT=ComplexTensor, FC=functional, U=utils)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _unpack(result: Any) -> Any:
    """The model's outputs as tensors and plain values: a ComplexTensor becomes its two parts."""
    from torch_complex.tensor import ComplexTensor

    if isinstance(result, ComplexTensor):
        return result.real, result.imag
    if isinstance(result, (tuple, list)):
        return tuple(_unpack(v) for v in result)
    return result


def _op(table: dict[str, Any], name: str) -> Built:
    import torch
    from torch import nn
    from torch_complex import functional
    from torch_complex.tensor import ComplexTensor

    fn, ns = table[name], _ns()

    class _Op(nn.Module):
        """Complex tensors built from the real inputs, one torch_complex operation on them."""

        def forward(self, re: torch.Tensor, im: torch.Tensor, re2: torch.Tensor, im2: torch.Tensor,
                    r: torch.Tensor) -> Any:
            c, o = ComplexTensor(re, im), ComplexTensor(re2, im2)
            return _unpack(fn(c, o, r, ns))

        def entry_points(self) -> list[Any]:
            return [ComplexTensor, functional.einsum] if table is FUNCS else [ComplexTensor]

    shape = (2, 3, 4)
    return _Op(), tuple(_randn(*shape, seed=s) for s in range(1, 6)), {}


def _stft(wave: Any, n_fft: int = 8, hop: int = 4) -> Any:
    """An ESPnet-style STFT: (batch, channels, samples) -> ComplexTensor (batch, freq, channels, frames)."""
    import torch
    from torch_complex.tensor import ComplexTensor

    b, ch, t = wave.shape
    spec = torch.stft(wave.reshape(b * ch, t), n_fft=n_fft, hop_length=hop, window=torch.hann_window(n_fft),
                      return_complex=True)
    spec = torch.view_as_real(spec)
    spec = spec.view(b, ch, *spec.shape[1:]).permute(0, 2, 1, 3, 4)
    return ComplexTensor(spec[..., 0], spec[..., 1])


def _psd(xs: Any, mask: Any, normalize: bool = True, eps: float = 1e-15) -> Any:
    """ESPnet's get_power_spectral_density_matrix: xs (B, F, C, T), mask (B, F, C, T) -> (B, F, C, C)."""
    import torch_complex.functional as FC

    psd_y = FC.einsum("...ct,...et->...tce", [xs, xs.conj()])
    mask = mask.mean(dim=-2)
    if normalize:
        mask = mask / (mask.sum(dim=-1, keepdim=True) + eps)
    psd = psd_y * mask[..., None, None]
    return psd.sum(dim=-3)


def _mvdr(psd_s: Any, psd_n: Any, reference: Any, how: str, eps: float = 1e-6) -> Any:
    """ESPnet's get_mvdr_vector: the beamforming vector (B, F, C)."""
    import torch
    import torch_complex.functional as FC

    channels = psd_n.size(-1)
    eye = torch.eye(channels, dtype=psd_n.dtype)
    shape = [1 for _ in range(psd_n.dim() - 2)] + [channels, channels]
    psd_n = psd_n + eps * eye.view(*shape)
    if how == "inverse2":
        numerator = FC.einsum("...ec,...cd->...ed", [psd_n.inverse2(), psd_s])
    elif how == "inverse":
        numerator = FC.matmul(psd_n.inverse(), psd_s)
    else:
        numerator = FC.solve(psd_s, psd_n)
    ws = numerator / (FC.trace(numerator)[..., None, None] + eps)
    return FC.einsum("...fec,...c->...fe", [ws, reference])


def _wpe_step(Y: Any, taps: int = 2, delay: int = 1, how: str = "solve") -> Any:
    """One iteration of weighted prediction error dereverberation on Y (B, F, C, T), as ESPnet's wpe.py."""
    import torch
    import torch_complex.functional as FC

    power = (Y.real ** 2 + Y.imag ** 2).mean(dim=-2)
    inverse_power = 1 / torch.clamp(power, min=1e-6)
    T = Y.size(-1)
    padded = FC.pad(Y, (taps + delay - 1, 0))
    frames = FC.signal_frame(padded, taps, 1)[..., :T, :]  # (B, F, C, T, taps)
    frames = FC.reverse(frames, dim=-1)
    frames = frames[..., : T - delay, :]
    frames = FC.pad(frames, (0, 0, delay, 0))
    b, f, c = Y.shape[:3]
    Y_tilde = frames.permute(0, 1, 2, 4, 3).reshape(b, f, c * taps, T)
    weighted = Y_tilde * inverse_power[..., None, :]
    R = FC.einsum("...dt,...et->...de", [weighted, Y_tilde.conj()])
    R = R + 1e-3 * torch.eye(c * taps)
    P = FC.einsum("...dt,...et->...de", [weighted, Y.conj()])
    if how == "solve":
        G = FC.solve(P, R)
    else:
        G = FC.matmul(R.inverse2(), P)
    estimate = FC.einsum("...de,...dt->...et", [G.conj(), Y_tilde])
    return Y - estimate


def _app(name: str) -> Built:
    import torch
    import torch_complex.functional as FC
    from gt_calls import Run
    from torch import nn
    from torch_complex.tensor import ComplexTensor

    torch.manual_seed(0)
    wave = _randn(2, 3, 32)
    re, im = _randn(2, 5, 3, 4, seed=2), _randn(2, 5, 3, 4, seed=3)

    class MaskEstimator(nn.Module):
        """ESPnet's BLSTM mask estimator: magnitudes in, a speech and a noise mask out."""

        def __init__(self, freq: int = 5) -> None:
            super().__init__()
            self.blstm = nn.LSTM(freq, 6, batch_first=True, bidirectional=True)
            self.heads = nn.ModuleList([nn.Linear(12, freq), nn.Linear(12, freq)])

        def forward(self, xs: ComplexTensor) -> tuple[torch.Tensor, torch.Tensor]:
            b, f, c, t = xs.shape
            mag = (xs.real ** 2 + xs.imag ** 2).sqrt()
            h, _ = self.blstm(mag.permute(0, 2, 3, 1).reshape(b * c, t, f))
            masks = [torch.sigmoid(head(h)).view(b, c, t, f).permute(0, 3, 1, 2) for head in self.heads]
            return masks[0], masks[1]

    class Beamformer(nn.Module):
        """ESPnet's DNN beamformer: mask estimation, PSDs, MVDR vector, application to the mixture."""

        def __init__(self, how: str = "inverse2") -> None:
            super().__init__()
            self.mask = MaskEstimator()
            self.how = how

        def forward(self, xs: ComplexTensor) -> ComplexTensor:
            mask_speech, mask_noise = self.mask(xs)
            psd_s, psd_n = _psd(xs, mask_speech), _psd(xs, mask_noise)
            reference = torch.zeros(xs.size(0), xs.size(2))
            reference[:, 0] = 1
            ws = _mvdr(psd_s, psd_n, reference, self.how)
            return FC.einsum("...c,...ct->...t", [ws.conj(), xs])

    class ComplexLinear(nn.Module):
        """A complex-valued linear layer, weights as a ComplexTensor of two parameters."""

        def __init__(self, n_in: int = 4, n_out: int = 3, polar: bool = False) -> None:
            super().__init__()
            self.w_re = nn.Parameter(torch.randn(n_in, n_out) * 0.3)
            self.w_im = nn.Parameter(torch.randn(n_in, n_out) * 0.3)
            self.polar = polar

        def forward(self, xs: ComplexTensor) -> ComplexTensor:
            w = ComplexTensor(self.w_re, self.w_im)
            out = xs @ w
            if self.polar:
                mag, phase = out.abs(), out.angle()
                mag = torch.tanh(mag)
                return ComplexTensor(mag * torch.cos(phase), mag * torch.sin(phase))
            return out + ComplexTensor(torch.ones_like(out.real) * 0.1)

    def out(result: Any) -> Any:
        return _unpack(result)

    if name == "stft":
        return Run(None, lambda _, w: out(_stft(w).abs()), [ComplexTensor]), (wave,), {}
    if name.startswith("psd"):
        normalize = name == "psd.normalized"
        mask = torch.rand(2, 5, 3, 4, generator=torch.Generator().manual_seed(4))
        return (Run(None, lambda _, a, b, m: out(_psd(ComplexTensor(a, b), m, normalize=normalize)),
                    [FC.einsum]), (re, im, mask), {})
    if name.startswith("mvdr.") and name != "mvdr.apply":
        how = name.split(".")[1]
        mask = torch.rand(2, 5, 3, 4, generator=torch.Generator().manual_seed(4))

        def mvdr(_: Any, a: Any, b: Any, m: Any) -> Any:
            xs = ComplexTensor(a, b)
            reference = torch.zeros(2, 3)
            reference[:, 1] = 1
            return out(_mvdr(_psd(xs, m), _psd(xs, 1 - m), reference, how))

        return Run(None, mvdr, [FC.einsum, FC.trace]), (re, im, mask), {}
    if name == "mvdr.apply":
        return Run(Beamformer(), lambda owner, w: out(owner(_stft(w))), [FC.einsum, FC.trace]), (wave,), {}
    if name.startswith("wpe"):
        how = "solve" if name == "wpe.step" else "inverse2"
        return (Run(None, lambda _, a, b: out(_wpe_step(ComplexTensor(a, b), how=how)), [FC.signal_frame, FC.solve]),
                (re, im), {})
    if name == "mask_estimator":
        return Run(MaskEstimator(), lambda owner, w: owner(_stft(w)), [ComplexTensor]), (wave,), {}
    if name.startswith("complex_linear"):
        layer = ComplexLinear(polar=name.endswith("polar"))
        return Run(layer, lambda owner, a, b: out(owner(ComplexTensor(a, b))), [ComplexTensor]), (re, im), {}
    if name.startswith("train_step."):
        kind = name.split(".")[1]
        net = {"mask_estimator": MaskEstimator, "beamformer": Beamformer, "complex_linear": ComplexLinear}[kind]()
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

        def step(owner: Any, w: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                xs = _stft(w)
                if kind == "mask_estimator":
                    speech, noise = owner(xs)
                    loss = ((speech - 0.7) ** 2).mean() + ((noise - 0.3) ** 2).mean()
                elif kind == "beamformer":
                    enhanced = owner(xs)
                    loss = (enhanced.abs() - xs[:, :, 0].abs()).pow(2).mean()
                else:
                    y = owner(xs[..., :4])
                    loss = (y - xs[..., :3]).abs().mean()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, step, [ComplexTensor, FC.einsum]), (wave,), {}
    if name == "backward.method":
        layer = ComplexLinear()

        def backward(owner: Any, a: Any, b: Any) -> Any:
            with torch.enable_grad():
                owner.zero_grad()
                y = ComplexTensor((a[..., :4] @ owner.w_re).sum(), (b[..., :4] @ owner.w_im).sum())
                y.backward()
            return owner.w_re.grad.clone(), owner.w_im.grad.clone()

        return Run(layer, backward, [ComplexTensor.backward]), (re, im), {}
    if name == "retain_grad":
        layer = ComplexLinear()

        def retain(owner: Any, a: Any, b: Any) -> Any:
            with torch.enable_grad():
                y = owner(ComplexTensor(a, b)).retain_grad()
                loss = y.abs().sum()
                loss.backward()
            return y.real.grad, y.imag.grad

        return Run(layer, retain, [ComplexTensor.retain_grad]), (re, im), {}
    raise KeyError(name)


def build(name: str) -> Built:
    head, _, rest = name.partition(".")
    if head == "ComplexTensor" and rest in OPS:
        return _op(OPS, rest)
    if head == "functional" and rest in FUNCS:
        return _op(FUNCS, rest)
    if head == "app" and rest in APPS:
        return _app(rest)
    raise KeyError(name)

"""Verify stage, outputs: what a factory's model returned, as plain JSON, and whether two such agree.

``--fix --verify`` keeps a fix only when the code computes the same after it: the worker summarizes each
output (``summarize``, in the worker, which has torch), and the supervisor compares the summaries of two
runs (``agree``, no torch) as ``torch.allclose`` would (rtol 1e-5, atol 1e-6, NaN equal to NaN). A
tensor of up to ``FULL`` elements is kept whole; a larger one by its shape, dtype, sum, absolute sum and
``SAMPLES`` elements at fixed strides, which is what two runs of one model can be compared on cheaply.
"""

from __future__ import annotations

import math
from typing import Any

FULL = 100_000
SAMPLES = 1_000
RTOL, ATOL = 1e-5, 1e-6


def summarize(value: Any) -> Any:
    """``value`` as JSON: tensors as ``{"tensor": dtype, "shape", "values"|"sample", ...}``, containers
    element by element, other objects by their ``repr`` (worker side; imports torch)."""
    import torch

    if isinstance(value, torch.Tensor):
        data = value.detach().to("cpu")
        if data.is_complex():
            data = torch.view_as_real(data)
        flat = data.flatten().double()
        shown: dict[str, Any] = {"tensor": str(value.dtype), "shape": list(value.shape)}
        if flat.numel() <= FULL:
            shown["values"] = flat.tolist()
        else:
            step = max(1, flat.numel() // SAMPLES)
            shown.update(sum=float(flat.sum()), abs_sum=float(flat.abs().sum()), sample=flat[::step].tolist())
        return shown
    if isinstance(value, (list, tuple)):
        return [summarize(v) for v in value]
    if isinstance(value, dict):
        return {str(k): summarize(v) for k, v in value.items()}
    if hasattr(value, "to_tuple"):  # model output dataclasses (``BaseOutput``)
        return summarize(value.to_tuple())
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def agree(one: Any, other: Any) -> bool:
    """Whether two summaries hold the same values, within ``torch.allclose``'s default tolerances."""
    if isinstance(one, dict) and isinstance(other, dict):
        if "tensor" in one:
            if one.keys() != other.keys() or one["tensor"] != other["tensor"] or one["shape"] != other["shape"]:
                return False
            return all(_close(one[key], other[key]) for key in ("values", "sample", "sum", "abs_sum") if key in one)
        return one.keys() == other.keys() and all(agree(one[k], other[k]) for k in one)
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(map(agree, one, other))
    return _close(one, other)


def _close(one: Any, other: Any) -> bool:
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(map(_close, one, other))
    if isinstance(one, (int, float)) and isinstance(other, (int, float)) and not isinstance(one, bool):
        if math.isnan(one) or math.isnan(other):
            return math.isnan(one) and math.isnan(other)
        return abs(one - other) <= ATOL + RTOL * abs(other)
    return bool(one == other)

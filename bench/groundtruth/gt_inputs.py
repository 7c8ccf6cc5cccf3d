"""Ground-truth bench, seeded inputs the builders share: random tensors, token ids and padding masks.

Each builder module (``gt_<library>.py``) makes its models' inputs in a worker, after ``gt_models``
seeded torch; these draw from their own generator, seeded per call, so an input does not depend on what
was drawn before it. torch is imported on call only (``names()`` of a builder needs none).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any


def randn(*shape: int, seed: int = 0) -> Any:
    """A standard-normal float tensor of ``shape``."""
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def tokens(vocabulary: int, *shape: int, seed: int = 0) -> Any:
    """Token ids of ``shape`` in ``[1, vocabulary)`` (0 is left for padding)."""
    import torch

    return torch.randint(1, vocabulary, shape, generator=torch.Generator().manual_seed(seed))


def padding_mask(batch: int, length: int, hidden: int) -> Any:
    """A boolean ``(batch, length)`` mask, true where a token is kept: the second sequence ends ``hidden``
    positions early."""
    import torch

    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[1, -hidden:] = False
    return mask

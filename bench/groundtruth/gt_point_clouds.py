"""Ground-truth bench: the bonds the equivariant point-cloud builders share (``gt_egnn``, ``gt_se3_transformer``).

Imported by the workers only: it imports torch.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import torch


def chain_bonds(nodes: int, batch: int | None) -> torch.Tensor:
    """A symmetric adjacency matrix of the bonds (i, i + 1) of ``nodes`` points; with ``batch``, one per cloud,
    the second cloud with one more bond (0, 3), so that the clouds differ."""
    i = torch.arange(nodes)
    adj = (i[:, None] - i[None, :]).abs() == 1
    if batch is None:
        return adj
    adj = adj[None].repeat(batch, 1, 1)
    adj[1, 0, 3] = adj[1, 3, 0] = True
    return adj

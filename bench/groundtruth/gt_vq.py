"""Ground-truth bench, vector-quantize-pytorch: codebook quantizers, with their training-time updates.

Quantizers are break-rich in train mode: k-means initialisation, dead-code expiry (``if not
torch.any(expired)``), EMA updates and random quantizer dropout read the data. ``QUANTIZERS`` maps
each model name to a class and its keywords; each runs on a batch of two sequences of 16 vectors of
width 16 (or a 16-channel feature map where the class says so). ``names()`` needs no torch; ``build``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM = 16

# Name -> (class, constructor keywords).
QUANTIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "VectorQuantize": ("VectorQuantize", {"dim": DIM, "codebook_size": 32}),
    "VectorQuantize.kmeans": ("VectorQuantize", {"dim": DIM, "codebook_size": 8, "kmeans_init": True, "kmeans_iters": 2}),
    "VectorQuantize.dead_code": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "threshold_ema_dead_code": 2}),
    "VectorQuantize.cosine": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "use_cosine_sim": True}),
    "VectorQuantize.heads": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "heads": 2,
                                                "separate_codebook_per_head": True}),
    "VectorQuantize.stochastic": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "stochastic_sample_codes": True,
                                                     "sample_codebook_temp": 0.1}),
    "VectorQuantize.orthogonal": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "orthogonal_reg_weight": 1.0,
                                                     "orthogonal_reg_max_codes": 8}),
    "VectorQuantize.learnable": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "learnable_codebook": True,
                                                    "ema_update": False}),
    "VectorQuantize.image": ("VectorQuantize", {"dim": DIM, "codebook_size": 32, "accept_image_fmap": True}),
    "ResidualVQ": ("ResidualVQ", {"dim": DIM, "codebook_size": 32, "num_quantizers": 3}),
    "ResidualVQ.dropout": ("ResidualVQ", {"dim": DIM, "codebook_size": 32, "num_quantizers": 3,
                                          "quantize_dropout": True}),
    "ResidualVQ.shared": ("ResidualVQ", {"dim": DIM, "codebook_size": 32, "num_quantizers": 3, "shared_codebook": True}),
    "GroupedResidualVQ": ("GroupedResidualVQ", {"dim": DIM, "codebook_size": 32, "num_quantizers": 2, "groups": 2}),
    "LFQ": ("LFQ", {"dim": DIM, "codebook_size": 64}),
    "ResidualLFQ": ("ResidualLFQ", {"dim": DIM, "codebook_size": 64, "num_quantizers": 2}),
    "FSQ": ("FSQ", {"levels": [8, 5, 5], "dim": DIM}),
    "ResidualFSQ": ("ResidualFSQ", {"levels": [8, 5, 5], "dim": DIM, "num_quantizers": 2}),
    "ResidualFSQ.dropout": ("ResidualFSQ", {"levels": [8, 5, 5], "dim": DIM, "num_quantizers": 3,
                                            "quantize_dropout": True}),
    "LatentQuantize": ("LatentQuantize", {"levels": [5, 5, 8], "dim": DIM}),
    "SimVQ": ("SimVQ", {"dim": DIM, "codebook_size": 32}),
    "ResidualSimVQ": ("ResidualSimVQ", {"dim": DIM, "codebook_size": 32, "num_quantizers": 2}),
    "RandomProjectionQuantizer": ("RandomProjectionQuantizer", {"dim": DIM, "codebook_size": 32, "codebook_dim": 8}),
    "FSP": ("FSP", {"levels": [8, 5, 5], "dim": DIM}),
    "BinaryMapper": ("BinaryMapper", {"bits": 4}),
}


def names() -> list[str]:
    return list(QUANTIZERS)


def build(name: str) -> Built:
    import torch
    import vector_quantize_pytorch as V

    cls, kwargs = QUANTIZERS[name]
    gen = torch.Generator().manual_seed(0)
    if kwargs.get("accept_image_fmap"):
        x = torch.randn(2, DIM, 4, 4, generator=gen)
    elif cls == "BinaryMapper":
        x = torch.randn(2, 4, generator=gen)
    else:
        x = torch.randn(2, 16, DIM, generator=gen)
    return getattr(V, cls)(**kwargs), (x,), {}

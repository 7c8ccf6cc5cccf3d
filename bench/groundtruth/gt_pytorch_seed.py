"""Ground-truth bench, pytorch_seed: seeding every RNG at once, and saving and restoring RNG streams.

pytorch-seed 0.2.0 is one module: ``seed(randseed=None)`` seeds Python's ``random``, NumPy's global generator and
torch's CPU generator (and CUDA's when present) with a given seed, or one drawn from ``random`` when none is given,
and returns it; ``RNGState`` holds the three states (``save`` reads them with ``random.getstate``,
``np.random.get_state`` and ``torch.get_rng_state``, ``restore`` sets them back; it is truthy once saved);
``SavedRNG(initial_seed)`` is a context manager that keeps a private RNG stream: entering saves the global state and
switches to the private one (seeded on first entry), leaving saves the private stream and restores the global one,
so code inside a ``with`` block draws a reproducible sequence that does not disturb the rest of the program. The
tables cover, at a batch of 2, width 8:

- ``SEEDS``: ``seed`` inside a forward before random draws (``randn``, dropout, ``randperm``, Python ``random``,
  NumPy draws turned into tensors), with a fixed seed, none (drawn), the returned seed used as a value;
- ``SAVED``: ``SavedRNG`` around noise injection, dropout, random masking and augmentation, entered once or
  repeatedly, two private streams interleaved, nested, with no initial seed, and ``RNGState`` saved and restored
  by hand (and its truthiness read);
- ``TRAIN``: training steps (backward, an SGD or Adam step) of a network whose noise or dropout mask comes from a
  ``SavedRNG`` stream or is reseeded each step with ``seed``.

Nothing was left out: the library has no other entry point. Random weights from fixed seeds, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM = 2, 8

# Seed model name -> what the forward draws after ``seed``, the seed passed (None: drawn by the library).
SEEDS: dict[str, tuple[str, Any]] = {
    "seed.randn": ("randn", 7),
    "seed.randn.drawn": ("randn", None),
    "seed.dropout": ("dropout", 3),
    "seed.randperm": ("randperm", 11),
    "seed.python_random": ("python_random", 5),
    "seed.numpy_draw": ("numpy", 13),
    "seed.return_value": ("return_value", 17),
    "seed.return_value.drawn": ("return_value", None),
    "seed.rand_like_twice": ("twice", 19),
}

# SavedRNG model name -> (pattern, initial seed).
SAVED: dict[str, tuple[str, Any]] = {
    "SavedRNG.noise": ("noise", 0),
    "SavedRNG.noise.no_seed": ("noise", None),
    "SavedRNG.dropout": ("dropout", 1),
    "SavedRNG.random_mask": ("mask", 2),
    "SavedRNG.augment_flip": ("augment", 3),
    "SavedRNG.reentered": ("reentered", 4),
    "SavedRNG.two_streams": ("two_streams", 5),
    "SavedRNG.nested": ("nested", 6),
    "SavedRNG.python_random": ("python_random", 7),
    "SavedRNG.numpy_draw": ("numpy", 8),
    "SavedRNG.outside_draw_too": ("outside", 9),
    "RNGState.save_restore": ("rngstate", None),
    "RNGState.bool": ("rngstate_bool", None),
}

TRAIN: dict[str, str] = {
    "train.SavedRNG.noise": "saved_noise",
    "train.SavedRNG.dropout": "saved_dropout",
    "train.seed.each_step": "seed_step",
    "train.seed.adam": "seed_adam",
}


def names() -> list[str]:
    return [*SEEDS, *SAVED, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _seed(name: str) -> Built:
    import torch
    from torch import nn

    kind, value = SEEDS[name]

    class SeedModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)
            self.drop = nn.Dropout(0.5)

        def forward(self, x: Any) -> Any:
            import random

            import numpy as np
            import pytorch_seed

            s = pytorch_seed.seed(value)
            y = self.proj(x)
            if kind == "randn":
                return y + torch.randn_like(y)
            if kind == "dropout":
                return self.drop(y)
            if kind == "randperm":
                return y[:, torch.randperm(DIM)]
            if kind == "python_random":
                return y * random.random()
            if kind == "numpy":
                return y + torch.from_numpy(np.random.rand(*y.shape)).to(y.dtype)
            if kind == "return_value":
                return y + s % 7
            if kind == "twice":
                a = torch.rand_like(y)
                pytorch_seed.seed(value)
                b = torch.rand_like(y)
                return y + a - b
            raise KeyError(kind)

    torch.manual_seed(0)
    return SeedModel(), (_randn(BATCH, DIM),), {}


def _saved(name: str) -> Built:
    import torch
    from torch import nn

    kind, initial = SAVED[name]

    class SavedModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            import pytorch_seed

            self.proj = nn.Linear(DIM, DIM)
            self.drop = nn.Dropout(0.3)
            self.rng = pytorch_seed.SavedRNG(initial)
            self.rng_b = pytorch_seed.SavedRNG(100 + (initial or 0))
            self.state = pytorch_seed.RNGState()

        def forward(self, x: Any) -> Any:
            import random

            import numpy as np

            y = self.proj(x)
            if kind == "noise":
                with self.rng:
                    noise = torch.randn_like(y)
                return y + 0.1 * noise
            if kind == "dropout":
                with self.rng:
                    y = self.drop(y)
                return y
            if kind == "mask":
                with self.rng:
                    keep = torch.rand(y.shape[0], DIM) > 0.25
                return y * keep
            if kind == "augment":
                with self.rng:
                    flip = torch.rand(()) < 0.5
                    scale = torch.empty(BATCH, 1).uniform_(0.8, 1.2)
                return torch.where(flip, y.flip(-1), y) * scale
            if kind == "reentered":
                out = y
                for _ in range(3):
                    with self.rng:
                        out = out + torch.randn_like(out)
                return out
            if kind == "two_streams":
                with self.rng:
                    a = torch.randn_like(y)
                with self.rng_b:
                    b = torch.randn_like(y)
                with self.rng:
                    c = torch.randn_like(y)
                return y + a + b + c
            if kind == "nested":
                with self.rng:
                    a = torch.randn_like(y)
                    with self.rng_b:
                        b = torch.randn_like(y)
                return y + a * b
            if kind == "python_random":
                with self.rng:
                    r = random.random()
                return y * r
            if kind == "numpy":
                with self.rng:
                    noise = np.random.standard_normal(y.shape)
                return y + torch.as_tensor(noise, dtype=y.dtype)
            if kind == "outside":
                with self.rng:
                    a = torch.randn_like(y)
                b = torch.randn_like(y)
                return y + a + b
            if kind == "rngstate":
                self.state.save()
                a = torch.randn_like(y)
                self.state.restore()
                b = torch.randn_like(y)
                return y + a - b
            if kind == "rngstate_bool":
                if not self.state:
                    self.state.save()
                self.state.restore()
                return y + torch.randn_like(y)
            raise KeyError(kind)

    torch.manual_seed(0)
    return SavedModel(), (_randn(BATCH, DIM),), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    kind = TRAIN[name]

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(DIM, DIM), nn.ReLU(), nn.Dropout(0.2), nn.Linear(DIM, 1))

    class TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            import pytorch_seed

            self.net = Net()
            self.rng = pytorch_seed.SavedRNG(42)
            if kind == "seed_adam":
                self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
            else:
                self.opt = torch.optim.SGD(self.net.parameters(), lr=1e-2)

        def forward(self, x: Any, y: Any) -> Any:
            import pytorch_seed

            with torch.enable_grad():
                self.opt.zero_grad()
                if kind == "saved_noise":
                    with self.rng:
                        x = x + 0.05 * torch.randn_like(x)
                    pred = self.net.body(x)
                elif kind == "saved_dropout":
                    with self.rng:
                        pred = self.net.body(x)
                else:
                    pytorch_seed.seed(1234)
                    pred = self.net.body(x)
                loss = ((pred.squeeze(-1) - y) ** 2).mean()
                loss.backward()
                self.opt.step()
            return loss.detach()

    torch.manual_seed(0)
    return TrainStep(), (_randn(BATCH, DIM, seed=3), _randn(BATCH, seed=4)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SEEDS:
        return _seed(name)
    if name in SAVED:
        return _saved(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

"""Ground-truth bench, torch_lr_finder (torch-lr-finder): the learning-rate range test.

torch-lr-finder's ``LRFinder`` wraps a model, an optimizer and a criterion. ``range_test`` raises the
learning rate over ``num_iter`` training batches, linearly (its ``LinearLR`` scheduler) or exponentially
(``ExponentialLR``), records the (smoothed) loss, stops when it diverges, and optionally scores each step on
a validation loader; ``reset`` restores the weights and the optimizer from its ``StateCacher`` (in memory or
in files). The per-batch work is ``_train_batch`` (gradient accumulation, ``torch.amp`` autocast with a
``GradScaler``) and ``_validate``, fed by ``TrainDataLoaderIter`` (restarting the loader when it runs out) and
``ValDataLoaderIter``. Each model is a bench module holding the tiny network (``gt_calls.Run``) whose forward
runs one of:

- ``range_test``: exponential and linear steps, with a validation loader, gradient accumulation, a start
  learning rate (one value, and a list for two parameter groups), no smoothing with an early divergence
  stop, a loader shorter than the test (the iterator's reset), custom iterators over dict batches
  (``inputs_labels_from_batch`` overridden), ``torch.amp`` on the CPU (bfloat16 autocast and a scaler), Adam
  instead of SGD, a conv net, and state cached in files;
- the per-batch methods ``_train_batch`` (plain, accumulated, amp) and ``_validate``, ``_move_to_device`` on
  nested inputs (a tuple, a list and a dict) and ``_set_learning_rate``;
- ``reset`` (from memory and from files), building an ``LRFinder`` (its state cache), the schedulers'
  ``step`` / ``get_lr`` and ``StateCacher.store`` / ``retrieve`` in memory and in files.

The data: an in-memory ``TensorDataset`` of 8 samples in batches of 2; the network an MLP 8 -> 16 -> 4 (or a
small conv net) with a cross-entropy criterion; each range test runs 3 iterations (4 where the loader runs out).
Files go to a temporary folder under ``/tmp``. Every model is compiled in eval and in train mode. Random
weights, nothing downloaded; ``names()`` needs no torch, ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, CLASSES, SAMPLES, BATCH = 8, 16, 4, 8, 2

# ``range_test`` model -> (setup: net "mlp" or "conv", optimizer "sgd" / "adam" / "groups", loader kinds;
# ``range_test`` keywords over ``num_iter=3``). Setup flags: "val" a validation loader, "short" a loader of
# two batches, "dict" custom iterators over dict batches, "amp" torch.amp, "disk" files for the state cache.
RANGE_TESTS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "range_test.exp": (("mlp", "sgd"), {}),
    "range_test.linear": (("mlp", "sgd"), {"step_mode": "linear", "end_lr": 1.0}),
    "range_test.val_loader": (("mlp", "sgd", "val"), {"step_mode": "linear"}),
    "range_test.accumulation_steps": (("mlp", "sgd"), {"accumulation_steps": 2}),
    "range_test.start_lr": (("mlp", "sgd"), {"start_lr": 1e-4, "end_lr": 1.0}),
    "range_test.start_lr.groups": (("mlp", "groups"), {"start_lr": [1e-4, 1e-3]}),
    "range_test.no_smoothing.diverge": (("mlp", "sgd"), {"smooth_f": 0.0, "diverge_th": 1, "end_lr": 1e3}),
    "range_test.loader_reset": (("mlp", "sgd", "short"), {"num_iter": 4}),
    "range_test.custom_iterators": (("mlp", "sgd", "dict", "val"), {}),
    "range_test.amp": (("mlp", "sgd", "amp"), {}),
    "range_test.adam.val_loader.accumulation": (("mlp", "adam", "val"), {"accumulation_steps": 2}),
    "range_test.conv": (("conv", "sgd"), {"step_mode": "linear"}),
    "range_test.disk_cache": (("mlp", "sgd", "disk"), {}),
}
METHODS = (
    "LRFinder._train_batch", "LRFinder._train_batch.accumulation_steps", "LRFinder._train_batch.amp",
    "LRFinder._validate", "LRFinder._move_to_device.nested", "LRFinder._set_learning_rate",
    "LRFinder.reset", "LRFinder.reset.disk_cache", "LRFinder.__init__",
    "LinearLR.step", "ExponentialLR.step", "StateCacher.memory", "StateCacher.disk",
)


def names() -> list[str]:
    return list(RANGE_TESTS) + list(METHODS)


def _net(kind: str) -> Any:
    from torch import nn

    if kind == "conv":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(8, CLASSES))
    return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))


def _loader(net_kind: str, samples: int = SAMPLES, seed: int = 1, as_dict: bool = False) -> Any:
    import torch
    from torch.utils.data import DataLoader, Dataset, TensorDataset

    gen = torch.Generator().manual_seed(seed)
    shape = (samples, 3, 6, 6) if net_kind == "conv" else (samples, DIM)
    x, y = torch.randn(*shape, generator=gen), torch.randint(0, CLASSES, (samples,), generator=gen)
    if not as_dict:
        return DataLoader(TensorDataset(x, y), batch_size=BATCH)

    class _Records(Dataset):
        """Samples as dicts, as a user's dataset returns them."""

        def __len__(self) -> int:
            return samples

        def __getitem__(self, i: int) -> dict[str, Any]:
            return {"features": x[i], "label": y[i]}

    return DataLoader(_Records(), batch_size=BATCH)


def _iterators(train: Any, val: Any) -> tuple[Any, Any]:
    """``TrainDataLoaderIter`` / ``ValDataLoaderIter`` subclasses reading dict batches."""
    from torch_lr_finder import TrainDataLoaderIter, ValDataLoaderIter

    class _TrainIter(TrainDataLoaderIter):
        def inputs_labels_from_batch(self, batch_data: Any) -> tuple[Any, Any]:
            return batch_data["features"], batch_data["label"]

    class _ValIter(ValDataLoaderIter):
        def inputs_labels_from_batch(self, batch_data: Any) -> tuple[Any, Any]:
            return batch_data["features"], batch_data["label"]

    return _TrainIter(train), _ValIter(val)


def _finder(net: Any, optimizer: str = "sgd", amp: bool = False, disk: bool = False) -> Any:
    import tempfile

    import torch
    from torch import nn
    from torch_lr_finder import LRFinder

    if optimizer == "adam":
        opt: Any = torch.optim.Adam(net.parameters(), lr=1e-5)
    elif optimizer == "groups":
        opt = torch.optim.SGD([{"params": net[0].parameters()}, {"params": net[2].parameters(), "lr": 1e-4}],
                              lr=1e-5, momentum=0.9)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=1e-5, momentum=0.9)
    keywords: dict[str, Any] = {}
    if amp:
        keywords = {"amp_backend": "torch", "amp_config": {"device_type": "cpu", "dtype": torch.bfloat16},
                    "grad_scaler": torch.amp.GradScaler("cpu")}
    if disk:
        keywords = {"memory_cache": False, "cache_dir": tempfile.mkdtemp(prefix="gt_lr_finder_", dir="/tmp")}
    return LRFinder(net, opt, nn.CrossEntropyLoss(), device="cpu", **keywords)


def _range_test(name: str) -> Built:
    import torch
    from torch_lr_finder import LRFinder

    from gt_calls import Run

    setup, keywords = RANGE_TESTS[name]
    net_kind = setup[0]
    net = _net(net_kind)
    finder = _finder(net, optimizer=setup[1], amp="amp" in setup, disk="disk" in setup)
    as_dict = "dict" in setup
    train = _loader(net_kind, samples=2 * BATCH if "short" in setup else SAMPLES, as_dict=as_dict)
    val = _loader(net_kind, samples=4, seed=2, as_dict=as_dict) if "val" in setup else None
    if as_dict:
        train, val = _iterators(train, val)
    options = {"num_iter": 3, **keywords}

    def range_test(owner: Any, scale: Any) -> Any:
        """The range test (gradients enabled whatever the mode) and ``reset()`` as the README runs them, then the
        recorded losses (scaled by an input, so the model has one)."""
        with torch.enable_grad():
            finder.range_test(train, val_loader=val, **options)
        finder.reset()
        return torch.tensor(finder.history["loss"]) * scale

    return Run(net, range_test, [LRFinder.range_test, LRFinder.reset]), (torch.ones(1),), {}


def _methods(name: str) -> Built:
    import tempfile

    import torch
    import torch_lr_finder
    from torch_lr_finder import LRFinder
    from torch_lr_finder.lr_finder import ExponentialLR, LinearLR, StateCacher, TrainDataLoaderIter, ValDataLoaderIter

    from gt_calls import Run

    net = _net("mlp")
    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(BATCH, DIM, generator=gen), torch.randint(0, CLASSES, (BATCH,), generator=gen)
    finder = _finder(net, amp=name.endswith(".amp"), disk=name.endswith("disk_cache"))
    what = name.split(".", 1)[1]
    if what.startswith("_train_batch"):
        train_iter = TrainDataLoaderIter(_loader("mlp"))
        steps = 2 if what.endswith("accumulation_steps") else 1

        def train_batch(owner: Any, scale: Any) -> Any:
            with torch.enable_grad():
                return torch.tensor(finder._train_batch(train_iter, steps)) * scale

        return Run(net, train_batch, [LRFinder._train_batch]), (torch.ones(1),), {}
    if what == "_validate":
        val_iter = ValDataLoaderIter(_loader("mlp", samples=4))
        return Run(net, lambda owner, scale: finder._validate(val_iter) * scale, [LRFinder._validate]), \
            (torch.ones(1),), {}
    if what == "_move_to_device.nested":
        def move(owner: Any, a: Any, b: Any) -> Any:
            inputs, labels = finder._move_to_device((a, [b, {"mask": a > 0}]), {"y": b, "n": 3})
            return inputs[0] + inputs[1][0] + inputs[1][1]["mask"], labels["y"]

        return Run(net, move, [LRFinder._move_to_device]), (x, x + 1), {}
    if what == "_set_learning_rate":
        def set_lr(owner: Any, scale: Any) -> Any:
            finder._set_learning_rate([1e-3])
            finder._set_learning_rate(1e-2)
            return scale * finder.optimizer.param_groups[0]["lr"]

        return Run(net, set_lr, [LRFinder._set_learning_rate]), (torch.ones(1),), {}
    if what.startswith("reset"):
        def reset(owner: Any, x_: Any) -> Any:
            finder.reset()
            return owner(x_)

        return Run(net, reset, [LRFinder.reset]), (x,), {}
    if what == "__init__":
        optimizer = torch.optim.SGD(net.parameters(), lr=1e-4)

        def construct(owner: Any, x_: Any) -> Any:
            built = torch_lr_finder.LRFinder(owner, optimizer, torch.nn.CrossEntropyLoss())
            return owner(x_) * len(built.state_cacher.cached)

        return Run(net, construct, [LRFinder.__init__, StateCacher]), (x,), {}
    if what == "step":  # the schedulers
        cls = LinearLR if name.startswith("Linear") else ExponentialLR
        optimizer = torch.optim.SGD(net.parameters(), lr=1e-4)
        scheduler = cls(optimizer, end_lr=1.0, num_iter=10)

        def schedule(owner: Any, scale: Any) -> Any:
            scheduler.step()
            return scale * scheduler.get_lr()[0]

        return Run(net, schedule, [cls.get_lr, cls]), (torch.ones(1),), {}
    in_memory = name.endswith("memory")
    folder = None if in_memory else tempfile.mkdtemp(prefix="gt_lr_finder_", dir="/tmp")
    cacher = StateCacher(in_memory, cache_dir=folder)

    def store_retrieve(owner: Any, x_: Any) -> Any:
        cacher.store("model", owner.state_dict())
        owner.load_state_dict(cacher.retrieve("model"))
        return owner(x_)

    return Run(net, store_retrieve, [StateCacher.store, StateCacher.retrieve]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import matplotlib
    import torch

    matplotlib.use("Agg")
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in RANGE_TESTS:
        return _range_test(name)
    return _methods(name)

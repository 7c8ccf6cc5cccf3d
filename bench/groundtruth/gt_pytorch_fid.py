"""Ground-truth bench, pytorch_fid: the FID Inception network, its patched blocks and the FID pipeline.

pytorch-fid 0.3.0 is two modules. ``inception.py`` holds ``InceptionV3`` (the feature extractor: up to four blocks of
torchvision's Inception v3, returned by output-block index, with optional bilinear resize to 299 and rescaling to
[-1, 1]), the FID variants of torchvision's Inception blocks (``FIDInceptionA``, ``FIDInceptionC``,
``FIDInceptionE_1``, ``FIDInceptionE_2``: average pooling without padding counted, max pooling in the last block)
and the factories ``fid_inception_v3`` / ``_inception_v3``. ``fid_score.py`` drives the network: ``get_activations``
(a ``DataLoader`` over an ``ImagePathDataset`` of image files, the model's first output pooled and moved to NumPy),
``calculate_activation_statistics``, ``compute_statistics_of_path`` (a folder of images or a saved ``.npz``),
``calculate_frechet_distance`` (NumPy and SciPy's ``sqrtm``), ``calculate_fid_given_paths`` and ``save_fid_stats``.
The tables cover, with random weights (the FID weights are a download: the builder swaps the library's
``load_state_dict_from_url`` for the state of the freshly built network, and drops torchvision's ``DEFAULT``
weights), batches of one or two small images:

- ``INCEPTION``: ``InceptionV3`` under each output-block choice (64, 192, 768 and 2048 dims, several blocks,
  unsorted), with and without resizing (most without: the resize to 299 is slow on the CPU) and input
  normalization, the torchvision-structured network
  (``use_fid_inception=False``), trainable parameters, bfloat16;
- ``BLOCKS``: the four FID blocks at their Inception widths and at tiny widths;
- ``FEATURES``: what users compile around the extractor (pool-3 features squeezed, lower blocks pooled to vectors,
  mean and covariance of a batch's features in torch), a feature-matching (perceptual) loss, and training steps
  (fine-tuning the extractor, a small generator trained through the frozen extractor, a block alone);
- ``PIPELINE``: the ``fid_score`` functions on small PNG files written at build time to a temporary folder and on
  saved statistics (``ImagePathDataset`` items, ``get_activations`` at two depths and with a batch larger than the
  file list, the statistics of a folder and of an ``.npz``, ``calculate_frechet_distance`` on NumPy statistics
  (another ``eps``) and on torch features, ``calculate_fid_given_paths`` on two ``.npz`` files, ``save_fid_stats``).

Left out: the command-line ``main`` (argument parsing, ``os.sched_getaffinity``) and worker processes of the data
loader (``num_workers=0`` here, as a compiled call in one process would use).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (InceptionV3 keywords, batch, image side).
INCEPTION: dict[str, tuple[dict[str, Any], int, int]] = {
    "InceptionV3": ({}, 1, 64),
    "InceptionV3.dims64": ({"output_blocks": (0,)}, 2, 48),
    "InceptionV3.dims192": ({"output_blocks": (1,)}, 1, 48),
    "InceptionV3.dims768.no_resize": ({"output_blocks": (2,), "resize_input": False}, 2, 64),
    "InceptionV3.all_blocks.no_resize": ({"output_blocks": (0, 1, 2, 3), "resize_input": False}, 2, 80),
    "InceptionV3.unsorted_blocks.no_resize": ({"output_blocks": [3, 1], "resize_input": False}, 2, 80),
    "InceptionV3.no_resize": ({"resize_input": False}, 2, 80),
    "InceptionV3.no_resize.no_normalize": ({"resize_input": False, "normalize_input": False}, 2, 96),
    "InceptionV3.dims64.no_resize": ({"output_blocks": (0,), "resize_input": False}, 2, 32),
    "InceptionV3.dims192.no_resize.no_normalize": ({"output_blocks": (1,), "resize_input": False,
                                                    "normalize_input": False}, 2, 40),
    "InceptionV3.blocks_0_2.no_resize": ({"output_blocks": (0, 2), "resize_input": False}, 1, 64),
    "InceptionV3.requires_grad": ({"resize_input": False, "requires_grad": True}, 2, 80),
    "InceptionV3.torchvision": ({"use_fid_inception": False, "resize_input": False}, 2, 80),
    "InceptionV3.torchvision.dims192": ({"use_fid_inception": False, "output_blocks": (1,)}, 1, 48),
    "InceptionV3.torchvision.dims768.no_normalize": ({"use_fid_inception": False, "output_blocks": (2,),
                                                      "resize_input": False, "normalize_input": False}, 1, 64),
    "InceptionV3.bfloat16": ({"resize_input": False}, 2, 80),
}
# Model name -> (block class, constructor arguments, input channels, side).
BLOCKS: dict[str, tuple[str, tuple[int, ...], int, int]] = {
    "FIDInceptionA": ("FIDInceptionA", (192, 32), 192, 5),
    "FIDInceptionA.tiny": ("FIDInceptionA", (8, 4), 8, 6),
    "FIDInceptionC": ("FIDInceptionC", (768, 128), 768, 3),
    "FIDInceptionC.tiny": ("FIDInceptionC", (8, 4), 8, 7),
    "FIDInceptionE_1": ("FIDInceptionE_1", (1280,), 1280, 3),
    "FIDInceptionE_1.tiny": ("FIDInceptionE_1", (8,), 8, 4),
    "FIDInceptionE_2": ("FIDInceptionE_2", (2048,), 2048, 2),
    "FIDInceptionE_2.tiny": ("FIDInceptionE_2", (8,), 8, 5),
}
FEATURES = ("features.pool3", "features.dims192.pooled", "features.all_blocks.pooled", "features.statistics",
            "features.feature_matching_loss", "train_step.InceptionV3.finetune", "train_step.generator.perceptual",
            "train_step.FIDInceptionA", "train_step.FIDInceptionE_2")
PIPELINE = ("ImagePathDataset.getitem", "ImagePathDataset.getitem.no_transforms", "ImagePathDataset.len",
            "get_activations.dims64", "get_activations.dims2048", "get_activations.batch_larger_than_files",
            "calculate_activation_statistics", "compute_statistics_of_path.images", "compute_statistics_of_path.npz",
            "calculate_frechet_distance", "calculate_frechet_distance.identical", "calculate_frechet_distance.eps",
            "calculate_frechet_distance.torch_features", "calculate_fid_given_paths.npz", "save_fid_stats")


def names() -> list[str]:
    return list(INCEPTION) + list(BLOCKS) + list(FEATURES) + list(PIPELINE)


_NETWORKS: list[Any] = []


def _offline() -> Any:
    """``pytorch_fid.inception`` without downloads: ``_inception_v3`` keeps the network it builds (torchvision's
    ``DEFAULT`` weights dropped), and ``load_state_dict_from_url`` gives back that network's own random state, so
    ``fid_inception_v3`` loads what it patched. Returns the module."""
    from pytorch_fid import inception

    if getattr(inception, "_gt_offline", False):
        return inception
    real = inception._inception_v3

    def built(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("weights") == "DEFAULT":
            kwargs["weights"] = None
        kwargs.setdefault("init_weights", False)
        network = real(*args, **kwargs)
        _NETWORKS[:] = [network]
        return network

    def state(url: str, progress: bool = True, **kwargs: Any) -> Any:
        return _NETWORKS[0].state_dict()

    inception._inception_v3 = built
    inception.load_state_dict_from_url = state
    inception._gt_offline = True
    return inception


def _images(batch: int, side: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(batch, 3, side, side, generator=torch.Generator().manual_seed(seed))


def _inception(**kwargs: Any) -> Any:
    return _offline().InceptionV3(**kwargs)


def _build_inception(name: str) -> Built:
    import torch

    kwargs, batch, side = INCEPTION[name]
    net = _inception(**kwargs)
    x = _images(batch, side)
    if name.endswith("bfloat16"):
        net = net.to(torch.bfloat16)
        x = x.to(torch.bfloat16)
    return net, (x,), {}


def _build_block(name: str) -> Built:
    import torch

    cls, args, channels, side = BLOCKS[name]
    block = getattr(_offline(), cls)(*args)
    return block, (torch.randn(2, channels, side, side, generator=torch.Generator().manual_seed(2)),), {}


def _build_feature(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import OptimizerStep, Run

    inception = _offline()
    entries = [inception.InceptionV3]
    if name == "features.pool3":
        return Run(_inception(resize_input=False), lambda net, x: net(x)[0].squeeze(3).squeeze(2), entries), \
            (_images(2, 80),), {}
    if name == "features.dims192.pooled":
        def pooled(net: Any, x: Any) -> Any:
            pred = net(x)[0]
            if pred.size(2) != 1 or pred.size(3) != 1:
                pred = F.adaptive_avg_pool2d(pred, output_size=(1, 1))
            return pred.flatten(1)

        return Run(_inception(output_blocks=(1,)), pooled, entries), (_images(2, 32),), {}
    if name == "features.all_blocks.pooled":
        return Run(_inception(output_blocks=(0, 1, 2, 3), resize_input=False),
                   lambda net, x: torch.cat([F.adaptive_avg_pool2d(f, 1).flatten(1) for f in net(x)], 1), entries), \
            (_images(2, 80),), {}
    if name == "features.statistics":
        def statistics(net: Any, x: Any) -> Any:
            act = net(x)[0].flatten(1).double()
            return act.mean(0), torch.cov(act.T)

        return Run(_inception(output_blocks=(1,), resize_input=False), statistics, entries), (_images(4, 40),), {}
    if name == "features.feature_matching_loss":
        def matching(net: Any, fake: Any, real: Any) -> Any:
            return sum(F.mse_loss(a, b) for a, b in zip(net(fake), net(real)))

        return Run(_inception(output_blocks=(0, 1), resize_input=False), matching, entries), \
            (_images(2, 40, 3), _images(2, 40, 4)), {}
    if name == "train_step.InceptionV3.finetune":
        net = _inception(resize_input=False, requires_grad=True)
        head = nn.Linear(2048, 3)
        model = nn.ModuleDict({"net": net, "head": head})
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        labels = torch.tensor([0, 2])

        def finetune(x: Any) -> Any:
            return F.cross_entropy(head(net(x)[0].flatten(1)), labels)

        step = OptimizerStep(model, optimizer, finetune)
        step.entry_points = lambda: entries + [type(optimizer).step]  # type: ignore[method-assign]
        return step, (_images(2, 80),), {}
    if name == "train_step.generator.perceptual":
        net = _inception(output_blocks=(1,), resize_input=False)
        generator = nn.Sequential(nn.Linear(8, 3 * 32 * 32), nn.Sigmoid(), nn.Unflatten(1, (3, 32, 32)))
        model = nn.ModuleDict({"net": net, "generator": generator})
        optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3)

        def perceptual(z: Any, real: Any) -> Any:
            return F.mse_loss(net(generator(z))[0], net(real)[0])

        step = OptimizerStep(model, optimizer, perceptual)
        step.entry_points = lambda: entries + [type(optimizer).step]  # type: ignore[method-assign]
        return step, (torch.randn(2, 8, generator=torch.Generator().manual_seed(5)), _images(2, 32)), {}
    block = inception.FIDInceptionA(8, 4) if name.endswith("FIDInceptionA") else inception.FIDInceptionE_2(8)
    optimizer = torch.optim.SGD(block.parameters(), lr=1e-2, momentum=0.9)
    x = torch.randn(2, 8, 6, 6, generator=torch.Generator().manual_seed(6))
    step = OptimizerStep(block, optimizer, lambda inp: block(inp).square().mean())
    step.entry_points = lambda: [type(block), type(optimizer).step]  # type: ignore[method-assign]
    return step, (x,), {}


def _write_images(folder: str, count: int, side: int, seed: int) -> None:
    import os

    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    for i in range(count):
        pixels = rng.integers(0, 256, (side, side, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, f"img{i:02d}.png"))


def _folder(count: int = 4, side: int = 40, seed: int = 7) -> str:
    import tempfile

    folder = tempfile.mkdtemp(prefix="gt_pytorch_fid_")
    _write_images(folder, count, side, seed)
    return folder


def _stats_file(folder: str, name: str, dims: int, seed: int) -> str:
    import os

    import numpy as np

    rng = np.random.default_rng(seed)
    act = rng.standard_normal((3 * dims, dims))
    path = os.path.join(folder, name)
    np.savez(path, mu=act.mean(0), sigma=np.cov(act, rowvar=False))
    return path


def _build_pipeline(name: str) -> Built:
    import os
    import pathlib

    import numpy as np
    import torch
    import torchvision.transforms as TF
    from pytorch_fid import fid_score

    from gt_calls import Run

    _offline()
    if name.startswith("ImagePathDataset"):
        folder = _folder(3)
        files = sorted(pathlib.Path(folder).glob("*.png"))
        dataset = fid_score.ImagePathDataset(files, None if name.endswith("no_transforms") else TF.ToTensor())
        entries = [fid_score.ImagePathDataset.__getitem__]
        if name.endswith("len"):
            return Run(dataset, lambda ds, x: x * len(ds), [fid_score.ImagePathDataset.__len__]), \
                (torch.ones(2),), {}
        if name.endswith("no_transforms"):
            return Run(dataset, lambda ds, i: torch.as_tensor(np.asarray(ds[i])).float() / 255, entries), (1,), {}
        return Run(dataset, lambda ds, i: ds[i] * 2 - 1, entries), (1,), {}
    if name.startswith("get_activations") or name in ("calculate_activation_statistics",
                                                        "compute_statistics_of_path.images"):
        side, block, dims = (80, 3, 2048) if name.endswith("dims2048") else (40, 0, 64)
        folder = _folder(4, side)
        files = sorted(str(p) for p in pathlib.Path(folder).glob("*.png"))
        net = _inception(output_blocks=(block,), resize_input=False)
        batch = 8 if name.endswith("batch_larger_than_files") else 2
        if name.startswith("get_activations"):
            function = fid_score.get_activations

            def run(model: Any, paths: list[str]) -> Any:
                return function(paths, model, batch, dims, "cpu", 0)

            return Run(net, run, [function]), (files,), {}
        if name == "calculate_activation_statistics":
            function = fid_score.calculate_activation_statistics

            def stats(model: Any, paths: list[str]) -> Any:
                return function(paths, model, batch, dims, "cpu", 0)

            return Run(net, stats, [function]), (files,), {}
        function = fid_score.compute_statistics_of_path

        def of_path(model: Any, path: str) -> Any:
            return function(path, model, batch, dims, "cpu", 0)

        return Run(net, of_path, [function]), (folder,), {}
    if name == "compute_statistics_of_path.npz":
        folder = _folder(0)
        path = _stats_file(folder, "stats.npz", 8, 3)
        function = fid_score.compute_statistics_of_path
        return Run(_inception(output_blocks=(0,), resize_input=False),
                   lambda model, p: function(p, model, 2, 64, "cpu", 0), [function]), (path,), {}
    if name.startswith("calculate_frechet_distance"):
        function = fid_score.calculate_frechet_distance
        rng = np.random.default_rng(11)
        if name.endswith("torch_features"):
            def from_features(f: Any, a: Any, b: Any) -> Any:
                a, b = a.double().numpy(), b.double().numpy()
                return f(a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False))

            return Run(function, from_features, [function]), \
                (torch.randn(24, 6, generator=torch.Generator().manual_seed(1)),
                 torch.randn(24, 6, generator=torch.Generator().manual_seed(2)) + 0.5), {}
        a = rng.standard_normal((30, 8))
        b = a if name.endswith("identical") else rng.standard_normal((30, 8)) * 1.5 + 0.2
        eps = 1e-3 if name.endswith("eps") else 1e-6
        return Run(function, lambda f, m1, s1, m2, s2: f(m1, s1, m2, s2, eps=eps), [function]), \
            (a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False)), {}
    if name == "calculate_fid_given_paths.npz":
        folder = _folder(0)
        paths = [_stats_file(folder, "a.npz", 64, 1), _stats_file(folder, "b.npz", 64, 2)]
        function = fid_score.calculate_fid_given_paths
        return Run(function, lambda f, p: f(p, 2, "cpu", 64, 0), [function]), (paths,), {}
    folder = _folder(4, 40)
    target = os.path.join(folder, "out.npz")
    function = fid_score.save_fid_stats

    def save(f: Any, paths: list[str]) -> Any:
        if os.path.exists(paths[1]):
            os.remove(paths[1])
        return f(paths, 2, "cpu", 64, 0)

    return Run(function, save, [function]), ([folder, target],), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in INCEPTION:
        return _build_inception(name)
    if name in BLOCKS:
        return _build_block(name)
    if name in FEATURES:
        return _build_feature(name)
    if name in PIPELINE:
        return _build_pipeline(name)
    raise KeyError(name)

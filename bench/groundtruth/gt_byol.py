"""Ground-truth bench, byol_pytorch (byol-pytorch): Bootstrap Your Own Latent self-supervised learning.

byol-pytorch (lucidrains) wraps an image network in ``BYOL``: two augmented views of a batch (the default
SimCLR-like torchvision augmentations, or the user's ``augment_fn`` / ``augment_fn2``) go through an
online ``NetWrapper`` (a forward hook on a hidden layer found by name or child index, or the network's
output, then a projector MLP built lazily on first use, optionally behind simplicial embeddings, ``SEM``)
and a predictor MLP, and through a target encoder (a deep copy made lazily and updated as an exponential
moving average, or the online encoder itself with the SimSiam MLP when momentum is off); the loss is the
symmetric cosine loss. ``BYOLTrainer`` runs the training loop with accelerate. So the tables cover, on a
small conv net and a one-block-per-stage torchvision ``ResNet`` (random weights) over 2 images of 3 x 32 x 32:

- ``BYOL``: ``BYOL`` forward (the loss) with the hidden layer by child index and by module name, the
  network's output as representation (``hidden_layer=-1``), without simplicial embeddings, without
  momentum, with a custom augmentation, two different augmentations, no augmentation, on the ResNet
  with the default augmentations; ``return_embedding`` with and without the projection;
- ``CALLS``: ``update_moving_average`` as the compiled forward, ``reset_moving_average`` then the loss
  (the target encoder deep-copied inside the compiled code), train steps (loss, backward, Adam step,
  moving average update; and without momentum), and ``BYOLTrainer`` (one step over ``MockDataset``);
- ``PARTS``: ``NetWrapper`` (projection, representation only, by layer name, a fresh wrapper that builds
  its projector while compiled, the SimSiam projector, ``get_representation``), ``SEM``, ``RandomApply``
  (applied and skipped), ``MLP`` and ``SimSiamMLP``, ``cosine_loss_fn``, ``kl_loss_fn``, the module-level
  ``update_moving_average`` and ``EMA.update_average``.

torchvision is the CUDA build on a CPU torch: ``gt_models.allow_torchvision_import`` makes its pure-Python
parts (transforms, models) import first. Random weights, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIZE, PROJ, HIDDEN = 2, 32, 16, 32
SMALL: dict[str, Any] = {"projection_size": PROJ, "projection_hidden_size": HIDDEN, "sem_num_simplices": 4,
                         "sem_simplex_dim": 4}

# ``BYOL`` name -> (net: "conv" or "resnet", keywords over ``SMALL``, call: "loss", "embedding" or
# "representation"). "flip", "jitter" and "identity" stand for augmentations built in the worker.
BYOL: dict[str, tuple[str, dict[str, Any], str]] = {
    "BYOL": ("conv", {"hidden_layer": -2}, "loss"),
    "BYOL.hidden_layer_name": ("conv", {"hidden_layer": "pool"}, "loss"),
    "BYOL.hidden_layer_output": ("conv", {"hidden_layer": -1}, "loss"),
    "BYOL.no_simplicial_embeddings": ("conv", {"use_simplicial_embeddings": False}, "loss"),
    "BYOL.no_momentum": ("conv", {"use_momentum": False}, "loss"),
    "BYOL.augment_fn": ("conv", {"augment_fn": "flip"}, "loss"),
    "BYOL.augment_fn2": ("conv", {"augment_fn": "flip", "augment_fn2": "jitter"}, "loss"),
    "BYOL.no_augment": ("conv", {"augment_fn": "identity"}, "loss"),
    "BYOL.resnet": ("resnet", {"hidden_layer": "avgpool"}, "loss"),
    "BYOL.resnet.no_momentum": ("resnet", {"hidden_layer": "avgpool", "use_momentum": False,
                                           "use_simplicial_embeddings": False}, "loss"),
    "BYOL.return_embedding": ("conv", {}, "embedding"),
    "BYOL.return_embedding.no_projection": ("resnet", {"hidden_layer": "avgpool"}, "representation"),
}
CALLS = ("BYOL.update_moving_average", "BYOL.reset_moving_average", "train_step.BYOL", "train_step.BYOL.no_momentum",
         "BYOLTrainer")
PARTS = ("NetWrapper", "NetWrapper.representation", "NetWrapper.layer_name", "NetWrapper.fresh_projector",
         "NetWrapper.simsiam", "NetWrapper.get_representation", "SEM", "RandomApply.applied", "RandomApply.skipped",
         "MLP", "SimSiamMLP", "cosine_loss_fn", "kl_loss_fn", "update_moving_average", "EMA.update_average")


def names() -> list[str]:
    return list(BYOL) + list(CALLS) + list(PARTS)


def _import() -> Any:
    import gt_models

    gt_models.allow_torchvision_import()
    import byol_pytorch.byol_pytorch as byol

    return byol


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _images(seed: int = 1) -> Any:
    return _randn(BATCH, 3, SIZE, SIZE, seed=seed)


def _net(kind: str) -> Any:
    if kind == "resnet":
        _import()
        from torchvision.models.resnet import BasicBlock, ResNet

        return ResNet(BasicBlock, [1, 1, 1, 1], num_classes=10)
    return _conv_net()


def _conv_net() -> Any:
    from collections import OrderedDict

    from torch import nn

    return nn.Sequential(OrderedDict([
        ("conv1", nn.Conv2d(3, 8, 3, padding=1)), ("bn1", nn.BatchNorm2d(8)), ("act1", nn.ReLU()),
        ("conv2", nn.Conv2d(8, 16, 3, stride=2, padding=1)), ("act2", nn.ReLU()),
        ("pool", nn.AdaptiveAvgPool2d(1)), ("flatten", nn.Flatten()), ("fc", nn.Linear(16, 10)),
    ]))


def _augment(kind: str) -> Any:
    from torch import nn
    from torchvision import transforms as T

    if kind == "flip":
        return nn.Sequential(T.RandomHorizontalFlip(), T.RandomVerticalFlip(p=0.3))
    if kind == "jitter":
        return nn.Sequential(T.RandomResizedCrop((SIZE, SIZE), antialias=True),
                             T.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25]))
    return nn.Identity()


def _byol(net_kind: str, keywords: dict[str, Any]) -> Any:
    byol = _import()
    keywords = {**SMALL, **keywords}
    for key in ("augment_fn", "augment_fn2"):
        if isinstance(keywords.get(key), str):
            keywords[key] = _augment(keywords[key])
    return byol.BYOL(_net(net_kind), image_size=SIZE, **keywords)


def _calls(name: str) -> Built:
    import torch

    from gt_calls import Run

    byol = _import()
    if name == "BYOL.update_moving_average":
        model = _byol("conv", {})
        return Run(model, lambda m, x: (m.update_moving_average(), m(x))[1],
                   [byol.BYOL.update_moving_average, byol.BYOL.forward]), (_images(),), {}
    if name == "BYOL.reset_moving_average":
        def reset(m: Any, x: Any) -> Any:
            m.reset_moving_average()
            return m(x)
        return Run(_byol("conv", {}), reset, [byol.BYOL.reset_moving_average, byol.BYOL.forward]), (_images(),), {}
    if name.startswith("train_step"):
        momentum = not name.endswith("no_momentum")
        model = _byol("conv", {"use_momentum": momentum})
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)

        def train(m: Any, x: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = m(x)
                loss.backward()
            optimizer.step()
            if momentum:
                m.update_moving_average()
            return loss.detach()
        return Run(model, train, [byol.BYOL.forward, byol.BYOL.update_moving_average]), (_images(),), {}
    assert name == "BYOLTrainer"
    import tempfile

    from byol_pytorch.trainer import BYOLTrainer, MockDataset

    folder = tempfile.mkdtemp(prefix="gt_byol_", dir="/tmp")
    trainer = BYOLTrainer(_conv_net(), image_size=SIZE, hidden_layer="pool", learning_rate=3e-4,
                          dataset=MockDataset(SIZE, 4), num_train_steps=1, batch_size=BATCH,
                          checkpoint_every=1000, checkpoint_folder=folder, byol_kwargs=SMALL,
                          accelerator_kwargs={"cpu": True})
    def run(t: Any) -> Any:
        with torch.enable_grad():
            return t()
    return Run(trainer, run, [BYOLTrainer.forward]), (), {}


def _parts(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call, Keywords, Method

    byol = _import()
    images = _images()
    if name.startswith("NetWrapper"):
        simsiam = name == "NetWrapper.simsiam"
        layer = "pool" if name == "NetWrapper.layer_name" else -2
        wrapper = byol.NetWrapper(_conv_net(), PROJ, HIDDEN, layer=layer, use_simsiam_mlp=simsiam,
                                  use_simplicial_embeddings=not simsiam, sem_num_simplices=4, sem_simplex_dim=4)
        if name != "NetWrapper.fresh_projector":
            with torch.no_grad():
                wrapper(images)
        if name == "NetWrapper.representation":
            return Keywords(wrapper, return_projection=False), (images,), {}
        if name == "NetWrapper.get_representation":
            return Method(wrapper, "get_representation"), (images,), {}
        return wrapper, (images,), {}
    features = _randn(BATCH * 2, PROJ)
    if name == "SEM":
        return byol.SEM(PROJ, temperature=0.2, dim_simplex=4), (features,), {}
    if name.startswith("RandomApply"):
        p = 1.0 if name.endswith("applied") else 0.0
        return byol.RandomApply(nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.Tanh()), p=p), (images,), {}
    if name == "MLP":
        return byol.MLP(PROJ, 8, HIDDEN, sync_batchnorm=False), (features,), {}
    if name == "SimSiamMLP":
        return byol.SimSiamMLP(PROJ, 8, HIDDEN, sync_batchnorm=False), (features,), {}
    if name == "cosine_loss_fn":
        return Call(byol.cosine_loss_fn), (features, _randn(BATCH * 2, PROJ, seed=2)), {}
    if name == "kl_loss_fn":
        probs = features.softmax(-1), _randn(BATCH * 2, PROJ, seed=2).softmax(-1)
        return Call(byol.kl_loss_fn, eps=1e-6), probs, {}
    online, target = _conv_net(), _conv_net()
    if name == "update_moving_average":
        from gt_calls import Run

        ema = byol.EMA(0.9)
        return Run(target, lambda t, x: (byol.update_moving_average(ema, t, online), t(x))[1],
                   [byol.update_moving_average]), (images,), {}
    assert name == "EMA.update_average"
    return Call(byol.EMA(0.99).update_average), (features, _randn(BATCH * 2, PROJ, seed=2)), {}


def build(name: str) -> Built:
    if name in BYOL:
        net_kind, keywords, call = BYOL[name]
        model = _byol(net_kind, keywords)
        if call == "loss":
            return model, (_images(),), {}
        from gt_calls import Keywords

        return Keywords(model, return_embedding=True, return_projection=call == "embedding"), (_images(),), {}
    if name in CALLS:
        return _calls(name)
    if name in PARTS:
        return _parts(name)
    raise KeyError(name)

"""Ground-truth bench, lpips: the LPIPS perceptual metric, its trunks, its training wrapper and its helpers.

lpips's ``LPIPS`` module scales two images (``ScalingLayer``, skipped by version 0.0), runs a trunk from
``pretrained_networks`` (``alexnet``, ``vgg16``, ``squeezenet`` slices of torchvision's features, each
returning a named tuple of activations; ``resnet`` is there too), unit-normalises each layer's channels
(``normalize_tensor``), squares the differences, and either weighs them with 1x1 convolutions
(``NetLinLayer``, ``lpips=True``) or sums the channels (``lpips=False``), then averages over space or
upsamples to the image (``spatial``), summing the layers (``retPerLayer`` also returns each). The
package's ``Trainer`` wraps the metric with a ranking head (``Dist2LogitLayer`` inside ``BCERankingLoss``)
and an Adam optimizer to fit it to two-alternative judgments; ``L2`` and ``DSSIM`` are its non-learned
baselines, and the package root holds numpy helpers (``l2``, ``psnr``, ``dssim``) and tensor conversions
(``tensor2im``, ``im2tensor``, ``tensor2np``, ``np2tensor``, ``tensor2tensorlab`` with scikit-image,
``tensorlab2tensor``, ``tensor2vec``). So the tables cover, on random 2 x 3 x 64 x 64 images (32 x 32 for
VGG):

- ``METRIC``: ``LPIPS`` for each trunk, learned and baseline (``lpips`` on and off), averaged and spatial,
  with ``normalize`` on, ``retPerLayer``, version 0.0, without dropout, with a tuned trunk, and as the
  perceptual loss of a generator's training step;
- ``PARTS``: the trunks of ``pretrained_networks`` (three slice networks, ResNet-18 and -50) and the
  layers ``ScalingLayer``, ``NetLinLayer``, ``Dist2LogitLayer``, ``BCERankingLoss``, and the functions
  ``normalize_tensor``, ``spatial_average``, ``upsample``;
- ``TRAINER``: ``Trainer`` set up for each model kind (``lpips`` in training mode, ``baseline``, ``L2`` in
  RGB and Lab): ``forward``, ``forward_train`` after ``set_input``, ``optimize_parameters`` (forward,
  backward, Adam step, weight clamping), ``compute_accuracy``, ``clamp_weights``;
- ``HELPERS``: the tensor conversions and the numpy metrics on converted images (``L2`` and ``tensor2*``
  take one image at a time, so they get batch 1).

Trunks are built with ``pnet_rand=True`` and the linear layers with ``pretrained=False`` (the training
``Trainer`` does the same), so nothing is downloaded or loaded. ``DSSIM`` imports
``skimage.measure.compare_ssim``, which scikit-image removed, so it is left out. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
SIZE = {"alex": 64, "squeeze": 64, "vgg": 32}

# ``LPIPS`` name -> (constructor keywords over ``pretrained=False, pnet_rand=True``, call keywords, how it is
# called: "pair" (forward on two images) or "loss" (a generator's training step with LPIPS as its loss)).
METRIC: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "LPIPS.alex": ({"net": "alex"}, {}, "pair"),
    "LPIPS.vgg": ({"net": "vgg"}, {}, "pair"),
    "LPIPS.squeeze": ({"net": "squeeze"}, {}, "pair"),
    "LPIPS.alex.spatial": ({"net": "alex", "spatial": True}, {}, "pair"),
    "LPIPS.vgg.spatial": ({"net": "vgg", "spatial": True}, {}, "pair"),
    "LPIPS.squeeze.spatial": ({"net": "squeeze", "spatial": True}, {}, "pair"),
    "LPIPS.alex.baseline": ({"net": "alex", "lpips": False}, {}, "pair"),
    "LPIPS.vgg.baseline.spatial": ({"net": "vgg", "lpips": False, "spatial": True}, {}, "pair"),
    "LPIPS.squeeze.baseline": ({"net": "squeeze", "lpips": False}, {}, "pair"),
    "LPIPS.alex.normalize": ({"net": "alex"}, {"normalize": True}, "pair"),
    "LPIPS.alex.retPerLayer": ({"net": "alex"}, {"retPerLayer": True}, "pair"),
    "LPIPS.squeeze.spatial.retPerLayer": ({"net": "squeeze", "spatial": True}, {"retPerLayer": True}, "pair"),
    "LPIPS.alex.baseline.retPerLayer.normalize": ({"net": "alex", "lpips": False},
                                                  {"retPerLayer": True, "normalize": True}, "pair"),
    "LPIPS.alex.version_0_0": ({"net": "alex", "version": "0.0"}, {}, "pair"),
    "LPIPS.alex.no_dropout.train_mode": ({"net": "alex", "use_dropout": False, "eval_mode": False}, {}, "pair"),
    "LPIPS.alex.pnet_tune": ({"net": "alex", "pnet_tune": True, "eval_mode": False}, {}, "pair"),
    "train_step.perceptual_loss.alex": ({"net": "alex"}, {"normalize": True}, "loss"),
    "train_step.perceptual_loss.vgg": ({"net": "vgg"}, {}, "loss"),
}
# Trunk name -> (``pretrained_networks`` class, keywords, image size).
TRUNKS: dict[str, tuple[str, dict[str, Any], int]] = {
    "pretrained_networks.alexnet": ("alexnet", {}, 64),
    "pretrained_networks.vgg16": ("vgg16", {}, 32),
    "pretrained_networks.squeezenet": ("squeezenet", {"requires_grad": True}, 64),
    "pretrained_networks.resnet18": ("resnet", {"num": 18}, 32),
    "pretrained_networks.resnet50": ("resnet", {"num": 50}, 32),
}
PARTS = ("ScalingLayer", "NetLinLayer", "NetLinLayer.dropout", "Dist2LogitLayer", "Dist2LogitLayer.no_sigmoid",
         "BCERankingLoss", "normalize_tensor", "spatial_average", "spatial_average.no_keepdim", "upsample")
# ``Trainer`` name -> (``initialize`` keywords over ``use_gpu=False, pnet_rand=True``, what is called).
TRAINER: dict[str, tuple[dict[str, Any], str]] = {
    "Trainer.lpips.forward": ({"model": "lpips", "net": "alex", "is_train": True}, "forward"),
    "Trainer.lpips.spatial.forward_retPerLayer": ({"model": "lpips", "net": "squeeze", "is_train": True,
                                                   "spatial": True}, "forward.retPerLayer"),
    "Trainer.baseline.forward": ({"model": "baseline", "net": "alex"}, "forward"),
    "Trainer.L2.rgb.forward": ({"model": "L2", "colorspace": "RGB"}, "forward.one"),
    "Trainer.L2.lab.forward": ({"model": "L2", "colorspace": "Lab"}, "forward.one"),
    "Trainer.forward_train": ({"model": "lpips", "net": "alex", "is_train": True}, "forward_train"),
    "Trainer.optimize_parameters": ({"model": "lpips", "net": "alex", "is_train": True}, "optimize_parameters"),
    "Trainer.compute_accuracy": ({"model": "lpips", "net": "alex", "is_train": True}, "compute_accuracy"),
    "Trainer.clamp_weights": ({"model": "lpips", "net": "alex", "is_train": True}, "clamp_weights"),
}
HELPERS = ("tensor2im", "im2tensor.roundtrip", "tensor2np", "np2tensor.roundtrip", "tensor2vec",
           "tensor2tensorlab", "tensor2tensorlab.mc_only", "tensorlab2tensor", "tensorlab2tensor.return_inbnd",
           "l2.psnr.images", "rgb2lab")


def names() -> list[str]:
    return list(METRIC) + list(TRUNKS) + list(PARTS) + list(TRAINER) + list(HELPERS)


def _images(size: int, batch: int = BATCH, seed: int = 1, count: int = 2) -> tuple[Any, ...]:
    """Random images in [-1, 1], the range LPIPS expects."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.rand(batch, 3, size, size, generator=gen) * 2 - 1 for _ in range(count))


def _lpips(keywords: dict[str, Any]) -> Any:
    import lpips

    return lpips.LPIPS(**{"pretrained": False, "pnet_rand": True, "verbose": False, **keywords})


def _metric(name: str) -> Built:
    import torch

    from gt_calls import Keywords, Run

    keywords, call, how = METRIC[name]
    metric = _lpips(keywords)
    size = SIZE["vgg" if keywords["net"].startswith("vgg") else keywords["net"]]
    images = _images(size)
    if how == "pair":
        return (Keywords(metric, **call) if call else metric), images, {}
    generator = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.Conv2d(8, 3, 3, padding=1), torch.nn.Tanh())
    optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3)

    class _Owner(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.generator = generator
            self.metric = metric

    def step(owner: Any, source: Any, target: Any) -> Any:
        """A generator's step with LPIPS (plus L1) as its loss: forward, backward, Adam step."""
        with torch.enable_grad():
            optimizer.zero_grad()
            fake = owner.generator(source)
            if call.get("normalize"):
                loss = owner.metric(fake * 0.5 + 0.5, target * 0.5 + 0.5, normalize=True).mean()
            else:
                loss = owner.metric(fake, target).mean()
            loss = loss + (fake - target).abs().mean()
            loss.backward()
            optimizer.step()
            return loss.detach()

    return Run(_Owner(), step, [type(metric)]), images, {}


def _parts(name: str) -> Built:
    import torch
    from lpips import lpips as lp
    from lpips import normalize_tensor
    from lpips import pretrained_networks as pn

    from gt_calls import Call, Keywords

    gen = torch.Generator().manual_seed(2)
    if name in TRUNKS:
        cls, keywords, size = TRUNKS[name]
        return getattr(pn, cls)(pretrained=False, **keywords), _images(size, count=1), {}
    features = torch.rand(BATCH, 16, 8, 8, generator=gen)
    distances = (torch.rand(BATCH, 1, 4, 4, generator=gen), torch.rand(BATCH, 1, 4, 4, generator=gen))
    if name == "ScalingLayer":
        return lp.ScalingLayer(), _images(16, count=1), {}
    if name.startswith("NetLinLayer"):
        return lp.NetLinLayer(16, use_dropout=name.endswith("dropout")), (features,), {}
    if name.startswith("Dist2LogitLayer"):
        layer = lp.Dist2LogitLayer(chn_mid=8, use_sigmoid=not name.endswith("no_sigmoid"))
        return (Keywords(layer, eps=0.05) if name.endswith("no_sigmoid") else layer), distances, {}
    if name == "BCERankingLoss":
        judge = torch.rand(BATCH, 1, 4, 4, generator=gen) * 2 - 1
        return lp.BCERankingLoss(chn_mid=8), (*distances, judge), {}
    if name == "normalize_tensor":
        return Call(normalize_tensor, eps=1e-8), (features,), {}
    if name.startswith("spatial_average"):
        return Call(lp.spatial_average, keepdim=not name.endswith("no_keepdim")), (features,), {}
    return Call(lp.upsample, out_HW=(32, 24)), (features,), {}


def _trainer(name: str) -> Built:
    import torch
    from lpips import trainer as tr

    from gt_calls import Run

    keywords, what = TRAINER[name]
    trainer = tr.Trainer()
    trainer.initialize(**{"use_gpu": False, "pnet_rand": True, **keywords})
    batch = 1 if what == "forward.one" else BATCH
    ref, p0, p1 = _images(64, batch=batch, count=3)
    judge = torch.tensor([[[[0.0]]], [[[1.0]]]])
    if what.startswith("forward_train") or what in ("optimize_parameters", "compute_accuracy"):
        trainer.set_input({"ref": ref, "p0": p0, "p1": p1, "judge": judge})
    entries: list[Any] = [getattr(tr.Trainer, what.split(".")[0])]

    def run(owner: Any, *inputs: Any) -> Any:
        if what.startswith("forward_train"):
            return trainer.forward_train()
        if what == "optimize_parameters":
            with torch.enable_grad():
                trainer.optimize_parameters()
            return trainer.loss_total.detach()
        if what == "compute_accuracy":
            return trainer.compute_accuracy(*inputs, judge)
        if what == "clamp_weights":
            trainer.clamp_weights()
            return sum(p.sum() for p in owner.parameters())
        return trainer.forward(*inputs, retPerLayer=what.endswith("retPerLayer"))

    if what == "compute_accuracy":
        inputs: tuple[Any, ...] = tuple(torch.rand(BATCH, 1, 1, 1, generator=torch.Generator().manual_seed(i))
                                        for i in (3, 4))
    elif what in ("forward_train", "optimize_parameters", "clamp_weights"):
        inputs = ()
    else:
        inputs = (ref, p0)
    return Run(trainer.net, run, entries), inputs, {}


def _helpers(name: str) -> Built:
    import lpips

    from gt_calls import Call, Run

    one, other = _images(16, batch=1)
    if name == "tensor2im":
        return Call(lpips.tensor2im), (one,), {}
    if name == "tensor2np":
        return Call(lpips.tensor2np), (one,), {}
    if name == "tensor2vec":
        return Call(lpips.tensor2vec), (one[:, :, :1, :1].expand(BATCH, 3, 1, 1).contiguous(),), {}
    if name.startswith("tensor2tensorlab"):
        return Call(lpips.tensor2tensorlab, mc_only=name.endswith("mc_only")), (one,), {}
    if name.startswith("tensorlab2tensor"):
        def lab_roundtrip(owner: Any, image: Any) -> Any:
            return lpips.tensorlab2tensor(lpips.tensor2tensorlab(image), return_inbnd=name.endswith("inbnd"))

        return Run(None, lab_roundtrip, [lpips.tensorlab2tensor, lpips.tensor2tensorlab]), (one,), {}
    if name == "im2tensor.roundtrip":
        return Run(None, lambda owner, image: lpips.im2tensor(lpips.tensor2im(image)),
                   [lpips.im2tensor, lpips.tensor2im]), (one,), {}
    if name == "np2tensor.roundtrip":
        return Run(None, lambda owner, image: lpips.np2tensor(lpips.tensor2np(image)),
                   [lpips.np2tensor, lpips.tensor2np]), (one,), {}
    if name == "rgb2lab":
        return Run(None, lambda owner, image: lpips.rgb2lab(lpips.tensor2im(image)),
                   [lpips.rgb2lab, lpips.tensor2im]), (one,), {}

    def image_metrics(owner: Any, a: Any, b: Any) -> Any:
        """The numpy metrics on images converted from tensors, as the package's scripts compute them."""
        image_a, image_b = lpips.tensor2im(a), lpips.tensor2im(b)
        return lpips.l2(image_a, image_b), lpips.psnr(image_a, image_b)

    return Run(None, image_metrics, [lpips.l2, lpips.psnr, lpips.tensor2im]), (one, other), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in METRIC:
        return _metric(name)
    if name in TRUNKS or name in PARTS:
        return _parts(name)
    if name in TRAINER:
        return _trainer(name)
    return _helpers(name)

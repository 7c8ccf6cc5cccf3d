"""Ground-truth bench, deepinv: imaging inverse problems (physics, noise, losses, metrics, denoisers, solvers, transforms).

deepinv 0.5.0 models an acquisition as a ``Physics`` module (``y = physics(x)`` applies the operator
``A`` then the noise model) with ``A_adjoint``, the pseudo-inverse ``A_dagger`` and ``prox_l2`` (the
proximal operator of the data term), and reconstructs with denoisers, unrolled networks and the
optimisation algorithms of ``deepinv.optim``, trained with its self-supervised and supervised losses.
Everything runs on tiny images (a batch of one 1x16x16 grey or 3x16x16 colour image in ``[0, 1]``):

- ``PHYSICS``: each operator's methods (``gt_calls.Method``): ``forward`` (the operator and its noise
  model), ``A_adjoint``, ``A_dagger`` and ``prox_l2(z, y, gamma)``, for ``Denoising``, ``Blur`` (circular
  and valid padding), ``BlurFFT``, ``Downsampling``, ``Inpainting``, ``CompressedSensing``, ``MRI``,
  ``MultiCoilMRI``, ``Tomography``, ``Demosaicing``, ``SinglePixelCamera`` and ``Decolorize``; the
  iterative solvers run at most ``max_iter=10`` steps;
- ``NOISE``: the noise models ``GaussianNoise``, ``PoissonNoise``, ``PoissonGaussianNoise``,
  ``UniformNoise`` on a clean measurement;
- ``LOSSES``: a bench train step (``_LossStep``) as deepinv's trainer computes it: measurements from the
  physics, a reconstruction network (``ArtifactRemoval`` around a small ``DnCNN``), then ``SupLoss``,
  ``MCLoss``, ``EILoss`` (with a rotation, a shift or a scaling), ``SureGaussianLoss`` or ``TVLoss``
  (also ``MCLoss + EILoss``, the equivariant-imaging recipe);
- ``METRICS``: ``PSNR`` (also with the base ``Metric``'s normalisation, crop, reduction and loss
  options), ``SSIM``, ``MSE`` (also on complex magnitudes), ``NMSE``, ``MAE``, ``SNR`` (``LPIPS`` downloads
  its weights, and multi-scale SSIM needs images over 160 pixels: left out);
- ``DENOISERS``: ``model(x, sigma)`` for the classical ``TVDenoiser`` (at most 20 iterations) and
  ``MedianFilter``, and the learned ``DnCNN``, ``UNet``, ``DRUNet`` at tiny sizes with
  ``pretrained=None`` (``WaveletDenoiser`` needs ``ptwt``, and ``BM3D`` the ``bm3d`` package: neither is
  installed);
- ``SOLVERS``: ``optim_builder`` algorithms (PGD, HQS, ADMM, DRS, FISTA, GD) for three iterations with an
  ``L2`` data fidelity and a ``PnP`` (DnCNN, median), ``TVPrior``, ``Tikhonov`` or ``L1Prior`` prior,
  ``model(y, physics)``; also an unfolded (trainable) PGD, its supervised train step, and early stopping;
- ``TRANSFORMS``: ``Rotate`` (right angles and any angle), ``Shift``, ``Scale`` and their ``inverse``.

The physics is registered inside the bench wrappers, so only tensors cross the compiled call. Random
weights, nothing downloaded (no pretrained weights, no datasets). ``names()`` needs no torch; ``build``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SIDE = 16
GRAY, RGB = (1, SIDE, SIDE), (3, SIDE, SIDE)
MAX_ITER = 10  # iterations of the physics' least-squares solvers (``A_dagger``, ``prox_l2``)

# Physics name -> the methods compiled for it.
ALL = ("forward", "A_adjoint", "A_dagger", "prox_l2")
PHYSICS: dict[str, tuple[str, ...]] = {
    "Denoising": ("forward", "A_dagger", "prox_l2"),
    "Blur": ALL,
    "Blur.valid": ("forward", "A_adjoint", "A_dagger"),
    "BlurFFT": ALL,
    "Downsampling": ALL,
    "Inpainting": ("forward", "A_dagger", "prox_l2"),
    "CompressedSensing": ALL,
    "MRI": ALL,
    "MultiCoilMRI": ("forward", "A_adjoint", "A_dagger"),
    "Tomography": ("forward", "A_adjoint", "A_dagger"),
    "Demosaicing": ("forward", "A_adjoint", "A_dagger"),
    "SinglePixelCamera": ("forward", "A_adjoint", "A_dagger"),
    "Decolorize": ("forward", "A_adjoint", "A_dagger"),
}
NOISE = ("GaussianNoise", "PoissonNoise", "PoissonGaussianNoise", "UniformNoise")
# Loss step name -> (the losses, as names; physics name).
LOSSES: dict[str, tuple[tuple[str, ...], str]] = {
    "SupLoss": (("SupLoss",), "Blur"),
    "MCLoss": (("MCLoss",), "Inpainting"),
    "EILoss.rotate": (("EILoss.Rotate",), "Inpainting"),
    "EILoss.shift": (("EILoss.Shift",), "CompressedSensing"),
    "EILoss.scale": (("EILoss.Scale",), "Blur"),
    "MCLoss+EILoss": (("MCLoss", "EILoss.Rotate"), "Inpainting"),
    "SureGaussianLoss": (("SureGaussianLoss",), "Denoising"),
    "SupLoss+TVLoss": (("SupLoss", "TVLoss"), "Downsampling"),
}
METRICS = ("PSNR", "PSNR.options", "SSIM", "MSE", "MSE.complex_abs", "NMSE", "MAE", "SNR")
DENOISERS = ("TVDenoiser", "MedianFilter", "DnCNN", "UNet", "UNet.no_batch_norm", "DRUNet")
# Solver name -> (iteration, prior, physics name, extra ``optim_builder`` keywords).
SOLVERS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "PGD.PnP": ("PGD", "PnP.DnCNN", "Blur", {}),
    "HQS.TV": ("HQS", "TVPrior", "Inpainting", {}),
    "ADMM.Tikhonov": ("ADMM", "Tikhonov", "Downsampling", {}),
    "DRS.PnP": ("DRS", "PnP.MedianFilter", "Denoising", {}),
    "FISTA.L1": ("FISTA", "L1Prior", "CompressedSensing", {}),
    "GD.Tikhonov": ("GD", "Tikhonov", "Blur", {}),
    "PGD.PnP.early_stop": ("PGD", "PnP.DnCNN", "Blur", {"early_stop": True, "thres_conv": 1e-3}),
    "PGD.unfold": ("PGD", "PnP.DnCNN", "Blur", {"unfold": True, "trainable_params": ["stepsize", "g_param"]}),
}
TRANSFORMS = ("Rotate", "Rotate.any_angle", "Shift", "Scale", "Rotate.inverse", "Shift.inverse")


def names() -> list[str]:
    return ([f"physics.{p}.{m}" for p, methods in PHYSICS.items() for m in methods]
            + [f"noise.{n}" for n in NOISE] + [f"loss.{n}" for n in LOSSES] + [f"metric.{n}" for n in METRICS]
            + [f"denoiser.{n}" for n in DENOISERS] + [f"optim.{n}" for n in SOLVERS] + ["optim.PGD.unfold.train_step"]
            + [f"transform.{n}" for n in TRANSFORMS])


def image(shape: tuple[int, ...] = GRAY, seed: int = 1) -> Any:
    import torch

    return torch.rand(1, *shape, generator=torch.Generator().manual_seed(seed))


def _physics(name: str) -> tuple[Any, Any]:
    """``(physics, x)``: the operator ``name`` with Gaussian noise, and an image it takes."""
    import deepinv as dinv
    import torch

    P = dinv.physics
    noise = P.GaussianNoise(sigma=0.05, rng=torch.Generator().manual_seed(0))
    solver = {"max_iter": MAX_ITER}
    gen = torch.Generator().manual_seed(0)
    kernel = P.blur.gaussian_blur(sigma=(1.0, 1.0))
    x = image()
    if name == "Denoising":
        physics = P.Denoising(noise_model=noise, **solver)
    elif name == "Blur":
        physics = P.Blur(filter=kernel, padding="circular", noise_model=noise, **solver)
    elif name == "Blur.valid":
        physics = P.Blur(filter=kernel, padding="valid", noise_model=noise, **solver)
    elif name == "BlurFFT":
        physics = P.BlurFFT(img_size=GRAY, filter=kernel, noise_model=noise, **solver)
    elif name == "Downsampling":
        physics = P.Downsampling(img_size=GRAY, filter="gaussian", factor=2, noise_model=noise, **solver)
    elif name == "Inpainting":
        physics = P.Inpainting(img_size=GRAY, mask=0.5, noise_model=noise, rng=gen, **solver)
    elif name == "CompressedSensing":
        physics = P.CompressedSensing(m=64, img_size=GRAY, noise_model=noise, rng=gen, **solver)
    elif name in ("MRI", "MultiCoilMRI"):  # complex images as two real channels; a random Cartesian mask
        mask = (torch.rand(1, SIDE, generator=gen) < 0.5).float().expand(SIDE, SIDE).clone()
        x = image((2, SIDE, SIDE))
        if name == "MRI":
            physics = P.MRI(mask=mask, img_size=(SIDE, SIDE), noise_model=noise, **solver)
        else:
            maps = torch.randn(2, SIDE, SIDE, dtype=torch.complex64, generator=gen)  # two coils' sensitivities
            maps = maps / maps.abs().pow(2).sum(0, keepdim=True).sqrt()
            physics = P.MultiCoilMRI(mask=mask, coil_maps=maps, img_size=(SIDE, SIDE), noise_model=noise, **solver)
    elif name == "Tomography":
        physics = P.Tomography(angles=8, img_width=SIDE, circle=False, noise_model=noise, **solver)
    elif name == "Demosaicing":
        physics = P.Demosaicing(img_size=RGB, noise_model=noise, **solver)
        x = image(RGB)
    elif name == "SinglePixelCamera":
        physics = P.SinglePixelCamera(m=32, img_size=GRAY, noise_model=noise, rng=gen, **solver)
    elif name == "Decolorize":
        physics = P.Decolorize(noise_model=noise, **solver)
        x = image(RGB)
    else:
        raise KeyError(name)
    return physics, x


def _physics_method(name: str, method: str) -> Built:
    import torch
    from torch import nn

    physics, x = _physics(name)
    with torch.no_grad():
        y = physics(x)

    class PhysicsMethod(nn.Module):
        """``physics.<method>`` on tensors, the operator registered as a submodule."""

        def __init__(self) -> None:
            super().__init__()
            self.physics = physics

        def forward(self, *args: torch.Tensor) -> Any:
            if method == "prox_l2":
                return self.physics.prox_l2(args[0], args[1], gamma=0.5)
            return getattr(self.physics, method)(*args)

        def entry_points(self) -> list[Any]:
            return [getattr(type(self.physics), method)]

    if method == "forward":
        return PhysicsMethod(), (x,), {}
    if method == "prox_l2":
        with torch.no_grad():
            z = physics.A_adjoint(y)
        return PhysicsMethod(), (z, y), {}
    return PhysicsMethod(), (y,), {}


def _noise(name: str) -> Built:
    import deepinv as dinv
    import torch

    gen = torch.Generator().manual_seed(0)
    keywords: dict[str, Any] = {"GaussianNoise": {"sigma": 0.1}, "PoissonNoise": {"gain": 0.1},
                                "PoissonGaussianNoise": {"gain": 0.1, "sigma": 0.05},
                                "UniformNoise": {"a": 0.1}}[name]
    return getattr(dinv.physics, name)(**keywords, rng=gen), (image(),), {}


def _dncnn(channels: int = 1) -> Any:
    import deepinv as dinv

    return dinv.models.DnCNN(in_channels=channels, out_channels=channels, depth=3, nf=8, pretrained=None)


def _transform(name: str) -> Any:
    import deepinv as dinv

    T = dinv.transform
    return {"Rotate": lambda: T.Rotate(multiples=90.0),
            "Rotate.any_angle": lambda: T.Rotate(),
            "Shift": lambda: T.Shift(),
            "Scale": lambda: T.Scale(factors=[0.75, 0.5])}[name]()


def _loss_step(name: str) -> Built:
    import deepinv as dinv
    import torch
    from torch import nn

    loss_names, physics_name = LOSSES[name]
    physics, x = _physics(physics_name)
    L = dinv.loss
    losses = []
    for loss_name in loss_names:
        if loss_name.startswith("EILoss"):
            losses.append(L.EILoss(transform=_transform(loss_name.split(".", 1)[1])))
        elif loss_name == "SureGaussianLoss":
            losses.append(L.SureGaussianLoss(sigma=0.05, rng=torch.Generator().manual_seed(0)))
        else:
            losses.append(getattr(L, loss_name)())
    model = dinv.models.ArtifactRemoval(_dncnn(x.shape[1]), mode="adjoint")

    class _LossStep(nn.Module):
        """One training step of ``deepinv.Trainer`` before ``backward``: measure, reconstruct, sum the
        losses (each given ``x_net``, ``x``, ``y``, ``physics`` and ``model``, as the trainer passes them)."""

        def __init__(self) -> None:
            super().__init__()
            self.physics, self.model, self.losses = physics, model, nn.ModuleList(losses)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.physics(x)
            x_net = self.model(y, self.physics)
            total = x.new_zeros(())
            for loss in self.losses:
                total = total + loss(x_net=x_net, x=x, y=y, physics=self.physics, model=self.model).mean()
            return total

        def entry_points(self) -> list[Any]:
            return [type(self.physics), type(self.model)] + [type(loss) for loss in self.losses]

    return _LossStep(), (x,), {}


def _metric(name: str) -> Built:
    import deepinv as dinv

    M = dinv.loss.metric
    if name == "PSNR.options":  # the base ``Metric`` options: input normalisation, a crop, a reduction, a loss
        return M.PSNR(norm_inputs="min_max", center_crop=12, reduction="mean", train_loss=True), (
            image(RGB, 1), image(RGB, 2)), {}
    if name == "MSE.complex_abs":  # complex images as two channels, compared by magnitude
        return M.MSE(complex_abs=True), (image((2, SIDE, SIDE), 1), image((2, SIDE, SIDE), 2)), {}
    return getattr(M, name)(), (image(RGB, 1), image(RGB, 2)), {}


def _denoiser(name: str) -> Built:
    import deepinv as dinv
    import torch

    D = dinv.models
    x = image(RGB)
    noisy = (x + 0.1 * torch.randn(x.shape, generator=torch.Generator().manual_seed(3))).clamp(0, 1)
    model = {
        "TVDenoiser": lambda: D.TVDenoiser(n_it_max=20),
        "MedianFilter": lambda: D.MedianFilter(kernel_size=3),
        "DnCNN": lambda: _dncnn(3),
        "UNet": lambda: D.UNet(in_channels=3, out_channels=3, scales=2, channels_per_scale=[8, 16]),
        "UNet.no_batch_norm": lambda: D.UNet(in_channels=3, out_channels=3, scales=3, batch_norm=False,
                                             channels_per_scale=[4, 8, 16], circular_padding=True),
        "DRUNet": lambda: D.DRUNet(in_channels=3, out_channels=3, nc=(8, 8, 16, 16), nb=1, pretrained=None),
    }[name]()
    return model, (noisy,), ({"ths": 0.1} if name == "TVDenoiser" else {"sigma": 0.1})


def _solver(name: str) -> Any:
    """``(model, physics, x)``: the ``optim_builder`` algorithm ``name`` and its problem."""
    import deepinv as dinv

    iteration, prior_name, physics_name, extra = SOLVERS[name]
    physics, x = _physics(physics_name)
    O = dinv.optim
    prior = {"PnP.DnCNN": lambda: O.PnP(denoiser=_dncnn(x.shape[1])),
             "PnP.MedianFilter": lambda: O.PnP(denoiser=dinv.models.MedianFilter(kernel_size=3)),
             "TVPrior": lambda: O.TVPrior(n_it_max=10),
             "Tikhonov": lambda: O.Tikhonov(),
             "L1Prior": lambda: O.L1Prior()}[prior_name]()
    params = {"stepsize": 0.8, "lambda": 0.1, "g_param": 0.05}
    if iteration == "FISTA":
        params["a"] = 3  # its inertia parameter
    model = O.optim_builder(iteration=iteration, prior=prior, data_fidelity=O.L2(), params_algo=params,
                            max_iter=3, **extra)
    return model, physics, x


def _optim(name: str) -> Built:
    import torch
    from torch import nn

    train_step = name.endswith(".train_step")
    model, physics, x = _solver(name.removesuffix(".train_step"))

    class Solve(nn.Module):
        """``model(y, physics)`` from the measurements (or, for the train step, the supervised loss of the
        unfolded algorithm's reconstruction from measurements it takes)."""

        def __init__(self) -> None:
            super().__init__()
            self.model, self.physics = model, physics

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            if train_step:
                x_net = self.model(self.physics(t), self.physics)
                return torch.mean((x_net - t) ** 2)
            return self.model(t, self.physics)

        def entry_points(self) -> list[Any]:
            return [type(self.model)]

    if train_step:
        return Solve(), (x,), {}
    with torch.no_grad():
        y = physics(x)
    return Solve(), (y,), {}


def _transform_model(name: str) -> Built:
    import torch
    from torch import nn

    x = image(RGB)
    if not name.endswith(".inverse"):
        return _transform(name), (x,), {}
    transform = _transform(name.removesuffix(".inverse"))

    class Inverse(nn.Module):
        """A transform and its ``inverse`` with the same random parameters, as ``EILoss`` pairs them."""

        def __init__(self) -> None:
            super().__init__()
            self.transform = transform

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            params = self.transform.get_params(x)
            return self.transform.inverse(self.transform.transform(x, **params), **params)

        def entry_points(self) -> list[Any]:
            return [type(self.transform).get_params, type(self.transform).transform, type(self.transform).inverse]

    return Inverse(), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    kind, rest = name.split(".", 1)
    if kind == "physics":
        physics, method = rest.rsplit(".", 1)
        return _physics_method(physics, method)
    builder = {"noise": _noise, "loss": _loss_step, "metric": _metric, "denoiser": _denoiser, "optim": _optim,
               "transform": _transform_model}[kind]
    return builder(rest)

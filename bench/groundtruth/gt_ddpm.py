"""Ground-truth bench, denoising-diffusion-pytorch: its diffusion models trained and sampled, and its Karras U-Nets.

lucidrains' diffusion classes (``GaussianDiffusion`` and its variants) are ``nn.Module`` s whose
``forward(images)`` is the training loss (a random timestep, noising, the denoiser, the weighted error)
and whose ``sample`` / ``ddim_sample`` run the reverse process. Each model wraps a tiny denoiser (a
``Unet`` of dim 8 with two resolutions on 3x8x8 images, a ``Unet1D`` on 2x16 sequences, a ``UViT``) in
one diffusion class with a few timesteps (``STEPS``), and runs one of:

- ``loss``: the diffusion module itself on a batch of images in [0, 1] (its forward);
- ``sample``: ``sample(batch_size=2)`` through ``gt_calls.Method`` (ancestral sampling over every step,
  or DDIM / the sampler of the class); ``ddim`` variants set fewer sampling steps than training steps.

``DIFFUSIONS`` covers the top-level classes (``GaussianDiffusion`` with its objectives, schedules,
self-conditioning, offset noise, min-SNR weighting, immiscible noise assignment and flash attention;
``LearnedGaussianDiffusion``, ``WeightedObjectiveGaussianDiffusion``, ``ContinuousTimeGaussianDiffusion``
with a fixed and a learned schedule, ``VParamContinuousTimeGaussianDiffusion``, ``ElucidatedDiffusion``
with both of its samplers, ``GaussianDiffusion1D``, ``XMWrapper``) and the modules that users import by
path (``classifier_free_guidance`` with class labels and a guidance scale, ``guided_diffusion`` with a
classifier's gradient as guidance, ``repaint`` inpainting with a mask, ``simple_diffusion``'s ``UViT``).
``WeightedObjectiveGaussianDiffusion`` is trained only: its sampler calls its own ``p_mean_variance`` with
a keyword that it lacks, a ``TypeError`` in 2.3.4 even without compiling.
``KARRAS`` are the magnitude-preserving Karras U-Nets (2-D, 1-D, 3-D), whose forward is one denoising
call on noisy data and noise levels. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, SIZE, CHANNELS, BATCH, STEPS, SEQ, CLASSES = 8, 8, 3, 2, 4, 16, 3
UNET = {"dim": DIM, "dim_mults": (1, 2), "channels": CHANNELS, "attn_dim_head": 8, "attn_heads": 2}

# Diffusion model -> its steps. Names after the class pick an option (see ``_diffusion``).
DIFFUSIONS: dict[str, tuple[str, ...]] = {
    "GaussianDiffusion": ("loss", "sample"),
    "GaussianDiffusion.ddim": ("sample",),
    "GaussianDiffusion.pred_noise.linear": ("loss", "sample"),
    "GaussianDiffusion.pred_x0.cosine": ("loss", "sample"),
    "GaussianDiffusion.self_condition": ("loss", "sample"),
    "GaussianDiffusion.min_snr.offset_noise": ("loss",),
    "GaussianDiffusion.immiscible": ("loss",),
    "GaussianDiffusion.flash_attn": ("loss", "sample"),
    "LearnedGaussianDiffusion": ("loss", "sample"),
    "WeightedObjectiveGaussianDiffusion": ("loss",),  # its sampler raises a TypeError in 2.3.4, eager too
    "ContinuousTimeGaussianDiffusion": ("loss", "sample"),
    "ContinuousTimeGaussianDiffusion.learned": ("loss", "sample"),
    "VParamContinuousTimeGaussianDiffusion": ("loss", "sample"),
    "ElucidatedDiffusion": ("loss", "sample", "sample_using_dpmpp"),
    "GaussianDiffusion1D": ("loss", "sample"),
    "GaussianDiffusion1D.ddim": ("sample",),
    "XMWrapper": ("loss",),
    "classifier_free_guidance": ("loss", "sample"),
    "classifier_free_guidance.ddim": ("sample",),
    "classifier_free_guidance.XMWrapper": ("loss",),
    "guided_diffusion": ("loss", "sample"),
    "repaint": ("loss", "sample"),
    "simple_diffusion": ("loss", "sample"),
}
KARRAS = ("KarrasUnet", "KarrasUnet.classes", "KarrasUnet1D", "KarrasUnet3D")


def names() -> list[str]:
    return [f"{model}.{step}" for model, steps in DIFFUSIONS.items() for step in steps] + list(KARRAS)


def _unet(**keywords: Any) -> Any:
    from denoising_diffusion_pytorch import Unet

    return Unet(**{**UNET, **keywords})


def _diffusion(name: str) -> Any:
    """The diffusion module ``name`` of ``DIFFUSIONS`` around a tiny denoiser, with ``STEPS`` timesteps."""
    import denoising_diffusion_pytorch as ddp

    base = {"image_size": SIZE, "timesteps": STEPS}
    if name.startswith("GaussianDiffusion1D"):
        unet = ddp.Unet1D(dim=DIM, dim_mults=(1, 2), channels=2, attn_dim_head=8, attn_heads=2)
        sampling = {"sampling_timesteps": 2} if name.endswith(".ddim") else {}
        return ddp.GaussianDiffusion1D(unet, seq_length=SEQ, timesteps=STEPS, **sampling)
    options = {
        "GaussianDiffusion": lambda: ddp.GaussianDiffusion(_unet(), **base),
        "GaussianDiffusion.ddim": lambda: ddp.GaussianDiffusion(_unet(), **base, sampling_timesteps=2),
        "GaussianDiffusion.pred_noise.linear": lambda: ddp.GaussianDiffusion(
            _unet(), **base, objective="pred_noise", beta_schedule="linear"),
        "GaussianDiffusion.pred_x0.cosine": lambda: ddp.GaussianDiffusion(
            _unet(), **base, objective="pred_x0", beta_schedule="cosine"),
        "GaussianDiffusion.self_condition": lambda: ddp.GaussianDiffusion(_unet(self_condition=True), **base),
        "GaussianDiffusion.min_snr.offset_noise": lambda: ddp.GaussianDiffusion(
            _unet(), **base, min_snr_loss_weight=True, offset_noise_strength=0.1),
        "GaussianDiffusion.immiscible": lambda: ddp.GaussianDiffusion(_unet(), **base, immiscible=True),
        "GaussianDiffusion.flash_attn": lambda: ddp.GaussianDiffusion(_unet(flash_attn=True), **base),
        "LearnedGaussianDiffusion": lambda: ddp.LearnedGaussianDiffusion(_unet(learned_variance=True), **base),
        "WeightedObjectiveGaussianDiffusion": lambda: ddp.WeightedObjectiveGaussianDiffusion(
            _unet(out_dim=CHANNELS * 2 + 2), **base),
        "ContinuousTimeGaussianDiffusion": lambda: ddp.ContinuousTimeGaussianDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=SIZE, num_sample_steps=STEPS),
        "ContinuousTimeGaussianDiffusion.learned": lambda: ddp.ContinuousTimeGaussianDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=SIZE, num_sample_steps=STEPS, noise_schedule="learned",
            learned_schedule_net_hidden_dim=DIM),
        "VParamContinuousTimeGaussianDiffusion": lambda: ddp.VParamContinuousTimeGaussianDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=SIZE, num_sample_steps=STEPS),
        "ElucidatedDiffusion": lambda: ddp.ElucidatedDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=SIZE, num_sample_steps=STEPS),
        "XMWrapper": lambda: ddp.XMWrapper(ddp.GaussianDiffusion(_unet(), **base), candidates=2),
    }
    if name in options:
        return options[name]()
    if name.startswith("classifier_free_guidance"):
        from denoising_diffusion_pytorch import classifier_free_guidance as cfg

        unet = cfg.Unet(dim=DIM, num_classes=CLASSES, dim_mults=(1, 2), channels=CHANNELS, attn_dim_head=8,
                        attn_heads=2)
        sampling = {"sampling_timesteps": 2} if name.endswith(".ddim") else {}
        diffusion = cfg.GaussianDiffusion(unet, **base, **sampling)
        return ddp.XMWrapper(diffusion, candidates=2) if name.endswith(".XMWrapper") else diffusion
    if name == "simple_diffusion":
        from denoising_diffusion_pytorch import simple_diffusion as sd

        uvit = sd.UViT(DIM, dim_mults=(1, 2), channels=CHANNELS, vit_depth=1, attn_dim_head=8, attn_heads=2)
        return sd.GaussianDiffusion(uvit, image_size=SIZE, channels=CHANNELS, num_sample_steps=STEPS)
    import importlib

    module = importlib.import_module(f"denoising_diffusion_pytorch.{name}")  # guided_diffusion, repaint
    unet = {key: value for key, value in UNET.items() if not key.startswith("attn_") or name == "repaint"}
    return module.GaussianDiffusion(module.Unet(**unet), **base)


def _classifier_guidance() -> tuple[Any, Any]:
    """The classifier guidance of ``guided_diffusion``: a small time-aware classifier and the gradient of
    the log-probability of the wanted class with respect to the noisy image."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.time = nn.Linear(1, CLASSES)
            self.image = nn.Linear(CHANNELS * SIZE * SIZE, CLASSES)

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return self.time(t.view(-1, 1).float()) + self.image(x.flatten(1))

    def cond_fn(x: torch.Tensor, t: torch.Tensor, classifier: nn.Module, y: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            x_in = x.detach().requires_grad_(True)
            log_probs = F.log_softmax(classifier(x_in, t), dim=-1)
            selected = log_probs.gather(1, y.view(-1, 1)).sum()
            return torch.autograd.grad(selected, x_in)[0]

    return Classifier(), cond_fn


def _karras(name: str) -> Built:
    import torch
    from denoising_diffusion_pytorch import KarrasUnet, KarrasUnet1D, KarrasUnet3D

    gen = torch.Generator().manual_seed(0)
    small = {"dim": DIM, "dim_max": 2 * DIM, "num_downsamples": 1, "num_blocks_per_stage": 1, "attn_dim_head": 8,
             "channels": CHANNELS}
    times = torch.rand(BATCH, generator=gen)
    if name.startswith("KarrasUnet1D"):
        unet: Any = KarrasUnet1D(seq_len=SEQ, attn_res=(SEQ // 2,), **small)
        return unet, (torch.randn(BATCH, CHANNELS, SEQ, generator=gen), times), {}
    if name.startswith("KarrasUnet3D"):
        unet = KarrasUnet3D(image_size=SIZE, frames=4, attn_res=(SIZE // 2,), **small)
        return unet, (torch.randn(BATCH, CHANNELS, 4, SIZE, SIZE, generator=gen), times), {}
    classes = CLASSES if name.endswith(".classes") else None
    unet = KarrasUnet(image_size=SIZE, attn_res=(SIZE // 2,), num_classes=classes, **small)
    kwargs = {"class_labels": torch.tensor([0, 2])} if classes else {}
    return unet, (torch.randn(BATCH, CHANNELS, SIZE, SIZE, generator=gen), times), kwargs


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    if name.startswith("Karras"):
        return _karras(name)
    model_name, step = name.rsplit(".", 1)
    diffusion = _diffusion(model_name)
    gen = torch.Generator().manual_seed(0)
    one_d = model_name.startswith("GaussianDiffusion1D")
    images = torch.rand(BATCH, 2, SEQ, generator=gen) if one_d else torch.rand(BATCH, CHANNELS, SIZE, SIZE,
                                                                                 generator=gen)
    classes = torch.tensor([0, 2])
    cfg = model_name.startswith("classifier_free_guidance")
    if step == "loss":
        return diffusion, (images,), ({"classes": classes} if cfg else {})
    if cfg:  # sampled for given classes with a guidance scale
        return Method(diffusion, "sample", cond_scale=3.0), (classes,), {}
    if model_name == "guided_diffusion":
        classifier, cond_fn = _classifier_guidance()
        diffusion.classifier = classifier  # registered with the model, for train / eval
        return Method(diffusion, "sample", batch_size=BATCH, cond_fn=cond_fn), (), {
            "guidance_kwargs": {"classifier": classifier, "y": classes}}
    if model_name == "repaint":  # inpaint the right half of the images: known pixels where the mask is 1
        mask = torch.ones(BATCH, CHANNELS, SIZE, SIZE)
        mask[..., SIZE // 2:] = 0.0
        return Method(diffusion, "sample", resample_iter=2, resample_jump=2), (), {"gt": images, "mask": mask}
    return Method(diffusion, step, batch_size=BATCH), (), {}

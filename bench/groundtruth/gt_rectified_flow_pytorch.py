"""Ground-truth bench, rectified_flow_pytorch: its flow-matching variants trained and sampled, and their networks.

rectified-flow-pytorch 0.14.0 (lucidrains) holds many flow-matching objectives, each an ``nn.Module`` whose forward
is the training loss on a batch of data and whose ``sample`` (or ``slow_sample``) integrates the learned velocity:
``RectifiedFlow`` (flow, noise or clean prediction, MSE / pseudo-Huber / pseudo-Huber with LPIPS losses, the cosmap
schedule, immiscible noise by a linear sum assignment, consistency flow matching with an EMA model, a mean-variance
network, clipping, reverse sampling and reference-image guidance, sampled by ``torchdiffeq.odeint``), ``Reflow``,
``NanoFlow`` and its multi-objective twin, ``RecurrentStateNanoFlow`` (a ``RecurrentStateMemory`` read from and
written to through forward hooks), ``MeanFlow`` and ``LsdFlow`` (``torch.func.jvp`` of the network),
``SplitMeanFlow``, ``SoFlow``, ``EquilibriumMatching`` (sampling by an optimizer's steps), ``SelfFlow`` over a
``FiT`` with an EMA teacher, ``UAFlow`` (uncertainty-aware, guidance by the gradient of the predicted variance),
``LapFlow`` over ``LapFlowDiT`` (a Laplacian pyramid of scales), ``XMWrapper`` (the best of several candidates),
``RecursiveFlow``, ``TDFlow`` (temporal-difference flows with horizon consistency) and ``ValueFlow``
(distributional values by flow). The networks are tiny, on 3 x 8 x 8 images: the library's ``Unet`` (width 8, two
resolutions, its attention residuals from x-unet), ``VideoUnet`` (one resolution, 3 frames), ``FiT`` and
``LapFlowDiT`` (width 16); the flows mostly wrap a bench denoiser with the ``Unet``'s interface (a few convolutions,
since the ``Unet`` alone takes tens of seconds to trace), one the ``Unet`` itself, some a 1 x 1 convolution (the
library's own quick tests) or an MLP on 2-D points. The tables cover, at a batch of 2:

- ``UNETS``: ``Unet`` forward with its options (no time, learned Fourier time features, full attention, a vector
  or scalar condition, a destination time with an image condition and an action embedder, several outputs, a
  mean-variance head, a projection of the inner features, attention residuals pooled by averages without LoRA);
- ``PARTS``: the U-Net's ``Attention``, ``LinearAttention``, ``ResnetBlock``, ``RMSNorm``, the time embeddings,
  ``cosmap`` and the losses (``PseudoHuberLoss``, ``MeanVarianceNetLoss``, ``LPIPSLoss`` and
  ``PseudoHuberLossWithLPIPS`` over a small convolutional feature net in place of VGG16, nothing downloaded);
- ``FLOWS``: each flow class's loss (its forward, with the options that change its path: objectives, recon
  losses, conditions, labelled batches, jvp or plain flow matching, rollouts, candidates, recursion depths, discount
  conditioning and horizon consistency, Q-learning, PPO and state-generation values) and its sampling loops through
  ``gt_calls.Method`` with 1 to 3 steps (reverse, guided, from the EMA model, classifier-free), plus train steps
  (``loss.backward()``, an SGD step and the flow's post-step EMA update) for the main ones;
- ``FIT``, ``LAPDIT`` and ``VIDEO``: ``FiT`` (times per sample, scalar, per patch, per grid cell, none; hiddens
  returned), ``LapFlowDiT`` (two or three scales, all or some of them, label, vector and scalar conditions) and
  ``VideoUnet`` (focus on the present frame by probability or by mask, without spatial linear attention) forward;
- ``MEMORY``: ``RecurrentStateMemory`` read and write (channels first or last, dyadic or triadic state, 1-d,
  jitter and a detached state).

Left out: the trainers (``Trainer``, ``ReflowTrainer``, ``SoFlowTrainer``: an ``Accelerator``, data loaders,
folders on disk), ``ImageDataset``, and ``Reflow``'s forward, which passes its ``device`` method as a device (a
``TypeError`` in 0.14.0 even without compiling): its coupling (a frozen model's samples against their noise) is run
as the bench's own loss over the library's ``sample`` and forward. Random weights and inputs from fixed generators,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, SIZE, CHANNELS, BATCH, FRAMES, COND, ACTION, STATE, POINT = 8, 8, 3, 2, 3, 4, 2, 6, 2
TIME_DIM = 4 * DIM
SHAPE = (CHANNELS, SIZE, SIZE)
UNET: dict[str, Any] = {"dim": DIM, "dim_mults": (1, 2), "channels": CHANNELS, "attn_dim_head": 8, "attn_heads": 2}
FIT_KW: dict[str, Any] = {"dim": 16, "patch_size": 2, "channels": CHANNELS, "depth": 2, "heads": 2, "dim_head": 8,
                          "ff_mult": 2, "conv_pos_emb_depth": 1}
LAPDIT_KW: dict[str, Any] = {"base_image_size": SIZE, "patch_size": 2, "dim": 16, "depth": 1, "heads": 2,
                             "mlp_dim": 32, "channels": CHANNELS, "dim_head": 8}
VIDEO_KW: dict[str, Any] = {"dim": DIM, "dim_mults": (1,), "channels": CHANNELS, "attn_heads": 2,
                            "attn_dim_head": 8, "init_kernel_size": 3, "resnet_groups": 4}

# ``Unet`` name -> (keywords over ``UNET``, inputs given: "times", "s", "cond", "cond1", "image_cond", "action").
UNETS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Unet": ({}, ("times",)),
    "Unet.accept_time_false": ({"accept_time": False}, ()),
    "Unet.learned_sinusoidal.cond_scalar": ({"learned_sinusoidal_cond": True, "accept_cond": True, "dim_cond": 1},
                                            ("times", "cond1")),
    "Unet.full_attn.xattnres.avg.heads2.no_lora": ({"full_attn": (True, True), "flash_attn": True,
                                                    "xattnres_pooling": "avg", "xattnres_heads": 2,
                                                    "xattnres_dim_lora": None}, ("times",)),
    "Unet.dest_time.image_cond.action.cond": ({"accept_dest_time": True, "has_image_cond": True,
                                               "action_embedder": "linear", "accept_cond": True, "dim_cond": COND},
                                              ("times", "s", "image_cond", "action", "cond")),
    "Unet.num_outputs3.inner_proj": ({"num_outputs": 3, "dim_proj_out_from_inner": 4}, ("times",)),
    "Unet.mean_variance": ({"mean_variance_net": True}, ("times",)),
}
PARTS = ("Attention", "LinearAttention", "ResnetBlock", "RMSNorm.no_scale", "SinusoidalPosEmb",
         "RandomOrLearnedSinusoidalPosEmb", "cosmap", "PseudoHuberLoss.none", "MeanVarianceNetLoss", "LPIPSLoss",
         "PseudoHuberLossWithLPIPS")
FIT = ("FiT", "FiT.scalar_time", "FiT.patch_times", "FiT.grid_times.return_hiddens", "FiT.no_times")
LAPDIT = ("LapFlowDiT.scales3", "LapFlowDiT.scales3.partial", "LapFlowDiT.scales2", "LapFlowDiT.labels",
          "LapFlowDiT.cond_vector", "LapFlowDiT.cond_scalar")
VIDEO = ("VideoUnet", "VideoUnet.focus_present", "VideoUnet.focus_mask.no_sparse_linear_attn")
MEMORY = ("RecurrentStateMemory.read", "RecurrentStateMemory.write", "RecurrentStateMemory.channels_last.write",
          "RecurrentStateMemory.channels_last.read", "RecurrentStateMemory.dyadic.conv1d.write")

# Flow model name -> (the flow and its options, what runs: "loss", "sample" or another method, "train"; call options).
# The flow builders are ``_flow_<class>`` below; options are read there.
FLOWS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # RectifiedFlow
    "RectifiedFlow.loss": ("rectified", "loss", ()),
    "RectifiedFlow.Unet.loss": ("rectified.unet", "loss", ()),
    "RectifiedFlow.loss_breakdown.given_noise_times": ("rectified", "loss", ("breakdown", "noise", "times")),
    "RectifiedFlow.predict_noise.loss": ("rectified.noise", "loss", ()),
    "RectifiedFlow.predict_clean.loss": ("rectified.clean", "loss", ("breakdown",)),
    "RectifiedFlow.pseudo_huber.loss": ("rectified.pseudo_huber", "loss", ()),
    "RectifiedFlow.pseudo_huber_with_lpips.loss": ("rectified.lpips", "loss", ()),
    "RectifiedFlow.cosmap.loss": ("rectified.cosmap", "loss", ()),
    "RectifiedFlow.immiscible.loss": ("rectified.immiscible", "loss", ()),
    "RectifiedFlow.consistency.loss": ("rectified.consistency", "loss", ("breakdown",)),
    "RectifiedFlow.mean_variance.loss": ("rectified.mean_variance", "loss", ()),
    "RectifiedFlow.mean_variance.predict_clean.loss": ("rectified.mean_variance.clean", "loss", ()),
    "RectifiedFlow.cond.loss": ("rectified.cond", "loss", ("cond",)),
    "RectifiedFlow.sample": ("rectified", "sample", ()),
    "RectifiedFlow.sample.reverse": ("rectified", "sample", ("reverse",)),
    "RectifiedFlow.sample.ref_image": ("rectified", "sample", ("ref_image",)),
    "RectifiedFlow.euler.sample.noise": ("rectified.euler", "sample", ("noise",)),
    "RectifiedFlow.clip.sample": ("rectified.clip", "sample", ()),
    "RectifiedFlow.predict_noise.sample": ("rectified.noise", "sample", ()),
    "RectifiedFlow.predict_clean.sample": ("rectified.clean", "sample", ()),
    "RectifiedFlow.consistency.sample_ema": ("rectified.consistency", "sample", ("use_ema",)),
    "RectifiedFlow.mean_variance.sample": ("rectified.mean_variance", "sample", ("temperature",)),
    "RectifiedFlow.cond.sample": ("rectified.cond", "sample", ("cond",)),
    "RectifiedFlow.train_step": ("rectified", "train", ()),
    "RectifiedFlow.consistency.train_step": ("rectified.consistency", "train", ()),
    "Reflow.sample": ("reflow", "sample", ()),
    "Reflow.coupling.loss": ("reflow", "coupling", ()),
    # NanoFlow and its multi-objective twin
    "NanoFlow.conv.loss": ("nano.conv", "loss", ()),
    "NanoFlow.conv.sample.reverse": ("nano.conv", "sample", ("reverse",)),
    "NanoFlow.loss": ("nano", "loss", ()),
    "NanoFlow.predict_clean.loss": ("nano.clean", "loss", ()),
    "NanoFlow.sample": ("nano", "sample", ()),
    "NanoFlow.predict_clean.sample.return_noise": ("nano.clean", "sample", ("return_noise",)),
    "NanoFlow.points.loss": ("nano.points", "loss", ()),
    "NanoFlow.points.sample": ("nano.points", "sample", ()),
    "NanoFlow.train_step": ("nano", "train", ()),
    "nano_flow_multi_obj.NanoFlow.loss": ("multi_obj", "loss", ("return_losses",)),
    "nano_flow_multi_obj.NanoFlow.sample": ("multi_obj", "sample", ("steps_config",)),
    # RecurrentStateNanoFlow
    "RecurrentStateNanoFlow.loss": ("recurrent", "loss", ()),
    "RecurrentStateNanoFlow.rollout.loss": ("recurrent.rollout", "loss", ()),
    "RecurrentStateNanoFlow.rollout_euler.loss": ("recurrent.euler", "loss", ()),
    "RecurrentStateNanoFlow.rollout.given_times.loss": ("recurrent.rollout", "loss", ("times",)),
    "RecurrentStateNanoFlow.ablate.loss": ("recurrent.ablate", "loss", ()),
    "RecurrentStateNanoFlow.sample": ("recurrent", "sample", ()),
    "RecurrentStateNanoFlow.conv.loss": ("recurrent.conv", "loss", ()),
    "RecurrentStateNanoFlow.conv.sample": ("recurrent.conv", "sample", ()),
    # MeanFlow, SplitMeanFlow, LsdFlow, SoFlow
    "MeanFlow.loss": ("mean", "loss", ()),
    "MeanFlow.flow_matching.loss": ("mean.flow_matching", "loss", ()),
    "MeanFlow.recon.loss_breakdown": ("mean.recon", "loss", ("breakdown",)),
    "MeanFlow.uniform_times.unweighted.loss": ("mean.uniform", "loss", ()),
    "MeanFlow.cond.loss": ("mean.cond", "loss", ("cond",)),
    "MeanFlow.sample": ("mean", "sample", ()),
    "MeanFlow.slow_sample": ("mean", "sample", ("steps2",)),
    "MeanFlow.cond.sample": ("mean.cond", "sample", ("cond",)),
    "MeanFlow.train_step": ("mean", "train", ()),
    "SplitMeanFlow.loss": ("split", "loss", ()),
    "SplitMeanFlow.boundary.recon.loss": ("split.boundary", "loss", ()),
    "SplitMeanFlow.recon.loss_breakdown": ("split.recon", "loss", ("breakdown",)),
    "SplitMeanFlow.cond.loss": ("split.cond", "loss", ("cond",)),
    "SplitMeanFlow.sample": ("split", "sample", ("steps2",)),
    "SplitMeanFlow.one_step.sample": ("split", "sample", ()),
    "LsdFlow.loss": ("lsd", "loss", ()),
    "LsdFlow.learned_weight.loss_breakdown": ("lsd.learned_weight", "loss", ("breakdown",)),
    "LsdFlow.cond.loss": ("lsd.cond", "loss", ("cond",)),
    "LsdFlow.sample": ("lsd", "sample", ()),
    "LsdFlow.slow_sample": ("lsd", "sample", ("steps2",)),
    "LsdFlow.cond.sample": ("lsd.cond", "sample", ("cond",)),
    "SoFlow.loss": ("so", "loss", ()),
    "SoFlow.output_clean.loss": ("so.clean", "loss", ()),
    "SoFlow.linear.loss_breakdown": ("so.linear", "loss", ("breakdown",)),
    "SoFlow.cosine.uniform_times.loss": ("so.cosine", "loss", ()),
    "SoFlow.cond.loss": ("so.cond", "loss", ("cond",)),
    "SoFlow.sample": ("so", "sample", ()),
    "SoFlow.slow_sample": ("so", "sample", ("steps2",)),
    # EquilibriumMatching
    "EquilibriumMatching.loss": ("eqm", "loss", ()),
    "EquilibriumMatching.sample": ("eqm", "sample", ()),
    "EquilibriumMatching.sample.adam": ("eqm", "sample", ("adam",)),
    # SelfFlow
    "SelfFlow.loss": ("self", "loss", ()),
    "SelfFlow.predict_clean.loss_breakdown": ("self.clean", "loss", ("breakdown",)),
    "SelfFlow.no_repr.loss": ("self.no_repr", "loss", ()),
    "SelfFlow.sample": ("self", "sample", ()),
    "SelfFlow.student.sample": ("self", "sample", ("student",)),
    # UAFlow
    "UAFlow.loss": ("ua", "loss", ()),
    "UAFlow.labels.loss": ("ua.cond", "loss", ("labels",)),
    "UAFlow.sample": ("ua", "sample", ()),
    "UAFlow.no_ucg.sample": ("ua.no_ucg", "sample", ()),
    "UAFlow.cfg.sample": ("ua.cond", "sample", ("cond1",)),
    # LapFlow
    "LapFlow.loss": ("lap", "loss", ()),
    "LapFlow.scales2.loss": ("lap.scales2", "loss", ()),
    "LapFlow.labels.loss": ("lap.labels", "loss", ("labels",)),
    "LapFlow.sample": ("lap", "sample", ()),
    "LapFlow.cfg.sample": ("lap.labels", "sample", ("labels_cond",)),
    "LapFlow.train_step": ("lap", "train", ()),
    # XMWrapper
    "XMWrapper.NanoFlow.loss": ("xm.nano", "loss", ()),
    "XMWrapper.NanoFlow.max_batch_size.loss": ("xm.nano.max_batch", "loss", ()),
    "XMWrapper.RectifiedFlow.loss": ("xm.rectified", "loss", ()),
    "XMWrapper.candidates1.loss": ("xm.one", "loss", ()),
    "XMWrapper.sample": ("xm.nano", "sample", ()),
    # RecursiveFlow
    "RecursiveFlow.loss": ("recursive", "loss", ()),
    "RecursiveFlow.depth1.loss": ("recursive.depth1", "loss", ()),
    "RecursiveFlow.depth3.predict_clean.detach.loss_breakdown": ("recursive.depth3", "loss", ("breakdown",)),
    "RecursiveFlow.loss_reduction_none": ("recursive", "loss", ("reduction_none",)),
    "RecursiveFlow.sample": ("recursive", "sample", ()),
    "RecursiveFlow.depth3.predict_clean.sample": ("recursive.depth3", "sample", ()),
    # TDFlow
    "TDFlow.loss": ("td", "loss", ()),
    "TDFlow.discount.terminal.loss_breakdown": ("td.discount", "loss", ("terminal", "breakdown")),
    "TDFlow.horizon_consistency.policy.loss": ("td.horizon", "loss", ("terminal", "action")),
    "TDFlow.predict": ("td", "predict", ()),
    "TDFlow.train_step": ("td", "train", ()),
    # ValueFlow
    "ValueFlow.q_learning.loss": ("value", "loss", ("q_learning",)),
    "ValueFlow.no_symlog.q_learning.loss": ("value.no_symlog", "loss", ("q_learning",)),
    "ValueFlow.ppo.loss_weight.loss": ("value", "loss", ("ppo",)),
    "ValueFlow.state_generation.loss": ("value.state_generation", "loss", ("state_generation",)),
    "ValueFlow.sample_q_value": ("value", "sample_q_value", ()),
    "ValueFlow.sample_q_value.zero_variance": ("value", "sample_q_value", ("zero_variance",)),
    "ValueFlow.get_aleatoric_uncertainty": ("value", "get_aleatoric_uncertainty", ()),
    "ValueFlow.sample_state": ("value", "sample_state", ()),
}


def names() -> list[str]:
    return list(UNETS) + list(PARTS) + list(FIT) + list(LAPDIT) + list(VIDEO) + list(MEMORY) + list(FLOWS)


# ----------------------------------------------------------------------------------------------- inputs

def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _rand(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(*shape, generator=_gen(seed))


def _images(batch: int = BATCH, seed: int = 1) -> Any:
    """Images in [0, 1], as the flows' default normalization expects."""
    return _rand(batch, *SHAPE, seed=seed)


def _unet(**keywords: Any) -> Any:
    from rectified_flow_pytorch import Unet

    return Unet(**{**UNET, **keywords})


# ----------------------------------------------------------------------------------------------- bench networks

def _denoiser(**keywords: Any) -> Any:
    """A tiny convolutional denoiser with ``Unet``'s interface (the same keywords at init, ``forward(x, times, s,
    cond, image_cond, action)``, its multiple and mean-variance outputs), for the flows: the library's ``Unet`` takes
    tens of seconds to trace, so only the ``UNETS`` table and a few flows hold it. Its layers are named as the
    U-Net's (``init_conv``, ``mid_block2``), which ``RecurrentStateNanoFlow`` hooks by default."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Denoiser(nn.Module):
        def __init__(self, channels: int = CHANNELS, accept_time: bool = True, accept_dest_time: bool = False,
                     accept_cond: bool = False, dim_cond: int | None = None, has_image_cond: bool = False,
                     action_embedder: nn.Module | None = None, num_outputs: int = 1,
                     mean_variance_net: bool = False) -> None:
            super().__init__()
            self.channels, self.num_outputs, self.mean_variance_net = channels, num_outputs, mean_variance_net
            self.init_conv = nn.Conv2d(channels * (2 if has_image_cond else 1), DIM, 3, padding=1)
            self.time_mlp = nn.Linear(1, DIM) if accept_time else None
            self.dest_time_mlp = nn.Linear(1, DIM) if accept_dest_time else None
            self.cond_mlp = nn.Linear(dim_cond or 1, DIM) if accept_cond else None
            self.action_embedder = action_embedder
            self.mid_block2 = nn.Conv2d(DIM, DIM, 3, padding=1)
            self.final_conv = nn.Conv2d(DIM, channels * (2 if mean_variance_net else 1) * num_outputs, 1)

        def forward(self, x: torch.Tensor, times: torch.Tensor | None = None, s: torch.Tensor | None = None,
                    cond: torch.Tensor | None = None, image_cond: torch.Tensor | None = None,
                    action: torch.Tensor | None = None) -> torch.Tensor:
            batch = x.shape[0]
            if image_cond is not None:
                x = torch.cat((x, image_cond), dim=1)
            h = self.init_conv(x)
            embed = h.new_zeros(batch, DIM)
            for mlp, value in ((self.time_mlp, times), (self.dest_time_mlp, s), (self.cond_mlp, cond)):
                if mlp is not None and value is not None:
                    # a copy first: MeanFlow's and LsdFlow's jvp give times that are views (of ``unbind``), whose
                    # reshape Dynamo's fake tensors reject under forward-mode AD with gradients on
                    embed = embed + mlp(value.clone().float().reshape(batch, -1))
            if self.action_embedder is not None and action is not None:
                embed = embed + self.action_embedder(action)[:, :DIM]
            h = F.silu(self.mid_block2(F.silu(h + embed[:, :, None, None])))
            out = self.final_conv(h)
            if self.num_outputs > 1:
                return out.reshape(batch, self.num_outputs, self.channels, *out.shape[2:])
            if self.mean_variance_net:
                mean, log_var = out.chunk(2, dim=1)
                return torch.stack((mean, (0.5 * log_var).exp()))
            return out

    return Denoiser(**keywords)


def _point_net() -> Any:
    """A time-conditioned MLP on 2-D points (the toy data flows are first tried on)."""
    import torch
    from torch import nn

    class PointNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(POINT + 1, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(),
                                     nn.Linear(32, POINT))

        def forward(self, x: torch.Tensor, times: torch.Tensor) -> torch.Tensor:
            return self.net(torch.cat((x, times[:, None]), dim=-1))

    return PointNet()


def _feature_net() -> Any:
    """A small convolutional feature extractor standing in for LPIPS's VGG16 (whose weights would be downloaded)."""
    from torch import nn

    return nn.Sequential(nn.Conv2d(CHANNELS, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2, padding=1),
                         nn.Flatten(), nn.Linear(4 * (SIZE // 2) ** 2, 8))


def _value_net() -> Any:
    """ValueFlow's network: image states through the denoiser conditioned on a return; returns through an MLP of the
    state, the action, the return latent and the time (the two modalities of the library's own example)."""
    import torch
    from torch import nn

    class DualFlowNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.unet = _denoiser(accept_cond=True, dim_cond=1)
            self.to_q = nn.Sequential(nn.Linear(STATE + ACTION + 2, 16), nn.SiLU(), nn.Linear(16, 1))

        def forward(self, x: torch.Tensor, times: torch.Tensor, cond: torch.Tensor,
                    action: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            if x.ndim == 4:
                return self.unet(x, times=times, cond=cond), x.new_zeros(x.shape[0], 1)
            action = x.new_zeros(x.shape[0], ACTION) if action is None else action
            latent = cond.reshape(x.shape[0], -1)[:, :1]
            return torch.zeros_like(x), self.to_q(torch.cat((x, action, latent, times[:, None]), dim=-1))

    return DualFlowNet()


def _policy() -> Any:
    """A deterministic policy over image states for TDFlow's horizon consistency."""
    import torch
    from torch import nn

    class Policy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.to_action = nn.Linear(CHANNELS, ACTION)

        def forward(self, state: torch.Tensor) -> torch.Tensor:
            return torch.tanh(self.to_action(state.mean(dim=(-2, -1))))

    return Policy()


# ----------------------------------------------------------------------------------------------- networks alone

def _unets(name: str) -> Built:
    import torch

    keywords, given = UNETS[name]
    keywords = dict(keywords)
    if keywords.get("action_embedder") == "linear":
        keywords["action_embedder"] = torch.nn.Linear(ACTION, TIME_DIM)
    unet = _unet(**keywords)
    inputs = {"times": _rand(BATCH, seed=2), "s": _rand(BATCH, seed=3), "cond": _randn(BATCH, COND, seed=4),
              "cond1": _rand(BATCH, seed=4), "image_cond": _randn(BATCH, *SHAPE, seed=5),
              "action": _randn(BATCH, ACTION, seed=6)}
    kwargs = {("cond" if key == "cond1" else key): inputs[key] for key in given}
    return unet, (_randn(BATCH, *SHAPE),), kwargs


def _parts(name: str) -> Built:
    from rectified_flow_pytorch import rectified_flow as rf

    from gt_calls import Call, Keywords

    x = _randn(BATCH, 16, 4, 4)
    if name == "Attention":
        return rf.Attention(16, heads=2, dim_head=8), (x,), {}
    if name == "LinearAttention":
        return rf.LinearAttention(16, heads=2, dim_head=8, num_mem_kv=2), (x,), {}
    if name == "ResnetBlock":
        return rf.ResnetBlock(16, 8, time_emb_dim=TIME_DIM), (x, _randn(BATCH, TIME_DIM, seed=2)), {}
    if name == "RMSNorm.no_scale":
        return rf.RMSNorm(16, has_scale=False), (x,), {}
    if name == "SinusoidalPosEmb":
        return rf.SinusoidalPosEmb(16, theta=1000), (_rand(BATCH),), {}
    if name == "RandomOrLearnedSinusoidalPosEmb":
        return rf.RandomOrLearnedSinusoidalPosEmb(16), (_rand(BATCH),), {}
    if name == "cosmap":
        return Call(rf.cosmap), (_rand(BATCH, 1, 1, 1),), {}
    pred, target = _randn(BATCH, *SHAPE), _randn(BATCH, *SHAPE, seed=2)
    if name == "PseudoHuberLoss.none":
        return Keywords(rf.PseudoHuberLoss(data_dim=CHANNELS * SIZE * SIZE), reduction="none"), (pred, target), {}
    if name == "MeanVarianceNetLoss":
        mean_std = _randn(2, BATCH, *SHAPE, seed=3)
        mean_std[1] = mean_std[1].abs() + 0.5
        return rf.MeanVarianceNetLoss(), (mean_std, target), {}
    if name == "LPIPSLoss":
        return Keywords(rf.LPIPSLoss(vgg=_feature_net()), reduction="none"), (pred, target), {}
    loss = rf.PseudoHuberLossWithLPIPS(lpips_kwargs={"vgg": _feature_net()})
    return loss, (pred, target), {"pred_data": _randn(BATCH, *SHAPE, seed=4), "times": _rand(BATCH, seed=5),
                                  "data": _images(seed=6)}


def _fit(name: str) -> Built:
    import torch
    from rectified_flow_pytorch import FiT

    from gt_calls import Keywords

    fit = FiT(**FIT_KW)
    x = _randn(BATCH, *SHAPE)
    grid = SIZE // FIT_KW["patch_size"]
    if name == "FiT":
        return fit, (x, _rand(BATCH, seed=2)), {}
    if name == "FiT.scalar_time":
        return fit, (x, torch.tensor(0.3)), {}
    if name == "FiT.patch_times":
        return fit, (x, _rand(BATCH, grid * grid, seed=2)), {}
    if name == "FiT.grid_times.return_hiddens":
        return Keywords(fit, return_hiddens=True), (x, _rand(BATCH, grid, grid, seed=2)), {}
    return fit, (x,), {}


def _lapdit(name: str) -> Built:
    import torch
    from rectified_flow_pytorch import LapFlowDiT

    scales = 2 if name.endswith("scales2") else 3
    keywords: dict[str, Any] = {"num_scales": scales}
    cond = None
    if name.endswith(".labels"):
        keywords.update(accept_cond=True, cond_as_labels=True, num_classes=3)
        cond = torch.tensor([2, -1])  # a label and the null label of classifier-free guidance
    elif name.endswith(".cond_vector"):
        keywords.update(accept_cond=True, dim_cond=COND)
        cond = _randn(BATCH, COND, seed=4)
    elif name.endswith(".cond_scalar"):
        keywords.update(accept_cond=True, dim_cond=1)
        cond = _rand(BATCH, seed=4)
    dit = LapFlowDiT(**{**LAPDIT_KW, **keywords})
    sides = [SIZE // 2 ** i for i in reversed(range(scales))]
    images = [_randn(BATCH, CHANNELS, side, side, seed=i + 1) for i, side in enumerate(sides)]
    if name.endswith(".partial"):  # the coarser scales only, as LapFlow's forward gives them
        images = images[:2]
    kwargs = {"cond": cond} if cond is not None else {}
    return dit, (images, _rand(BATCH, seed=9)), kwargs


def _video(name: str) -> Built:
    import torch
    from rectified_flow_pytorch.video_unet import VideoUnet

    from gt_calls import Keywords

    keywords = {"use_sparse_linear_attn": False} if name.endswith(".no_sparse_linear_attn") else {}
    unet = VideoUnet(**{**VIDEO_KW, **keywords})
    video, times = _randn(BATCH, CHANNELS, FRAMES, SIZE, SIZE), _rand(BATCH, seed=2)
    if name == "VideoUnet.focus_present":  # every sample attends only to its present frame
        return Keywords(unet, prob_focus_present=1.0), (video, times), {}
    if name.startswith("VideoUnet.focus_mask"):
        return Keywords(unet, focus_present_mask=torch.tensor([True, False])), (video, times), {}
    return unet, (video, times), {}


def _memory(name: str) -> Built:
    from rectified_flow_pytorch import RecurrentStateMemory

    from gt_calls import Method

    if name.startswith("RecurrentStateMemory.channels_last"):
        memory = RecurrentStateMemory(16, 24, num_heads=2, key_dims=(4, 2), channels_first=False)
        features = _randn(BATCH, 5, 16) if name.endswith(".read") else _randn(BATCH, 5, 24)
    elif name == "RecurrentStateMemory.dyadic.conv1d.write":
        memory = RecurrentStateMemory(16, num_heads=2, key_dims=4, value_dim=6, spatial_dims=1, jitter_noise_std=0.1,
                                      detach_state=True)
        features = _randn(BATCH, 16, 7)
    else:
        memory = RecurrentStateMemory(8, 16, num_heads=2, key_dims=(4, 2))
        features = _randn(BATCH, 8, 4, 4) if name.endswith(".read") else _randn(BATCH, 16, 2, 2)
    if name.endswith(".read"):
        state = _randn(BATCH, memory.num_heads, *memory.key_dims, memory.value_dim, seed=2)
        return Method(memory, "read"), (features, state), {}
    return Method(memory, "write"), (features,), {}


# ----------------------------------------------------------------------------------------------- flows

def _flow(kind: str) -> Any:
    """The flow module of ``kind`` (``FLOWS``' first field) around a tiny denoiser."""
    import torch
    import rectified_flow_pytorch as rfp

    base, _, option = kind.partition(".")
    if base == "rectified":
        unet_keywords: dict[str, Any] = {}
        flow_keywords: dict[str, Any] = {"data_shape": SHAPE}
        if option == "unet":  # the library's U-Net, given as its config
            return rfp.RectifiedFlow(dict(UNET), data_shape=SHAPE)
        flow_keywords.update({
            "noise": {"predict": "noise"},
            "clean": {"predict": "clean"},
            "pseudo_huber": {"loss_fn": "pseudo_huber"},
            "lpips": {"loss_fn": "pseudo_huber_with_lpips",
                      "loss_fn_kwargs": {"lpips_kwargs": {"vgg": _feature_net()}}},
            "cosmap": {"noise_schedule": "cosmap"},
            "immiscible": {"immiscible": True},
            "consistency": {"use_consistency": True, "ema_update_after_step": 0},
            "mean_variance.clean": {"predict": "clean"},
            "euler": {"odeint_kwargs": {"method": "euler"}},
            "clip": {"clip_during_sampling": True, "clip_flow_during_sampling": True},
        }.get(option, {}))
        if option.startswith("mean_variance"):  # read from a Unet; the bench denoiser's is given
            unet_keywords["mean_variance_net"] = flow_keywords["mean_variance_net"] = True
        if option == "cond":
            unet_keywords.update(accept_cond=True, dim_cond=COND)
        return rfp.RectifiedFlow(_denoiser(**unet_keywords), **flow_keywords)
    if base == "reflow":
        return rfp.Reflow(rfp.RectifiedFlow(_denoiser(), data_shape=SHAPE, odeint_kwargs={"method": "euler"}),
                          batch_size=BATCH)
    if base == "nano":
        if option == "conv":
            return rfp.NanoFlow(torch.nn.Conv2d(CHANNELS, CHANNELS, 1), data_shape=SHAPE)
        if option == "points":
            return rfp.NanoFlow(_point_net(), times_cond_kwarg="times", data_shape=(POINT,))
        return rfp.NanoFlow(_denoiser(), times_cond_kwarg="times", data_shape=SHAPE, predict_clean=option == "clean")
    if base == "multi_obj":
        from rectified_flow_pytorch.nano_flow_multi_obj import NanoFlow as MultiObjectiveNanoFlow

        return MultiObjectiveNanoFlow(_denoiser(num_outputs=3), times_cond_kwarg="times", data_shape=SHAPE,
                                      loss_noise_weight=0.5)
    if base == "recurrent":
        if option == "conv":
            conv = torch.nn.Conv2d(CHANNELS, CHANNELS, 1)
            return rfp.RecurrentStateNanoFlow(conv, times_cond_kwarg=None, data_shape=SHAPE, read_layer=conv,
                                              write_layer=conv, num_heads=1, key_dims=(4, 2))
        keywords: dict[str, Any] = {"num_heads": 2, "key_dims": (4, 2), "data_shape": SHAPE}
        keywords.update({"rollout": {"num_train_steps": 2}, "euler": {"num_train_steps": 3, "rollout_mode": "euler"},
                         "ablate": {"ablate": True}}.get(option, {}))
        return rfp.RecurrentStateNanoFlow(_denoiser(), **keywords)
    if base in ("mean", "split", "lsd", "so"):
        return _interval_flow(base, option)
    if base == "eqm":
        return rfp.EquilibriumMatching(_denoiser(accept_time=False), data_shape=SHAPE)
    if base == "self":
        keywords = {"clean": {"predict_clean": True}, "no_repr": {"repr_loss_weight": 0.0}}.get(option, {})
        return rfp.SelfFlow(rfp.FiT(**FIT_KW), data_shape=SHAPE, **keywords)
    if base == "ua":
        unet = _denoiser(mean_variance_net=True, **({"accept_cond": True, "dim_cond": 1} if option == "cond" else {}))
        keywords = {"cond": {"cfg_scale": 2.0}, "no_ucg": {"ucg_scale": 0.0}}.get(option, {})
        return rfp.UAFlow(unet, times_cond_kwarg="times", data_shape=SHAPE, **keywords)
    if base == "lap":
        dit_keywords: dict[str, Any] = {"num_scales": 2 if option == "scales2" else 3}
        if option == "labels":
            dit_keywords.update(accept_cond=True, cond_as_labels=True, num_classes=3)
        return rfp.LapFlow(rfp.LapFlowDiT(**{**LAPDIT_KW, **dit_keywords}), data_shape=SHAPE,
                           cfg_scale=2.0 if option == "labels" else 1.0)
    if base == "xm":
        if option == "rectified":
            return rfp.XMWrapper(rfp.RectifiedFlow(_denoiser(), data_shape=SHAPE), candidates=2)
        nano = rfp.NanoFlow(_denoiser(), times_cond_kwarg="times", data_shape=SHAPE)
        if option == "one":
            return rfp.XMWrapper(nano)
        return rfp.XMWrapper(nano, candidates=3, max_batch_size=2 if option == "nano.max_batch" else None)
    if base == "recursive":
        from rectified_flow_pytorch.recursive_flow import RecursiveFlow

        keywords = {"depth1": {"recursive_depth": 1},
                    "depth3": {"recursive_depth": 3, "predict_clean": True, "detach_scaled_first_pred_flow": True},
                    }.get(option, {})
        return RecursiveFlow(_denoiser(accept_cond=True, dim_cond=1), data_shape=SHAPE, **keywords)
    if base == "td":
        from rectified_flow_pytorch.td_flow import TDFlow

        if option == "horizon":
            unet = _denoiser(has_image_cond=True, accept_cond=True, dim_cond=3,
                         action_embedder=torch.nn.Linear(ACTION, TIME_DIM))
            return TDFlow(unet, horizon_consistency=True, horizon_consistency_batch_frac=0.5,
                          bootstrap_sampling_steps=2, policy=_policy())
        if option == "discount":
            return TDFlow(_denoiser(has_image_cond=True, accept_cond=True, dim_cond=3), condition_on_discount=True,
                          bootstrap_sampling_steps=2)
        return TDFlow(_denoiser(has_image_cond=True), bootstrap_sampling_steps=2)
    if base == "value":
        from rectified_flow_pytorch.value_flow import ValueFlow

        keywords = {"no_symlog": {"use_symlog": False},
                    "state_generation": {"prob_state_generation": 1.0}}.get(option, {})
        return ValueFlow(_value_net(), num_flow_steps=2, **keywords)
    raise KeyError(kind)


def _interval_flow(base: str, option: str) -> Any:
    """MeanFlow, SplitMeanFlow, LsdFlow and SoFlow around a U-Net that takes a second time (``s``) and maybe a
    condition; ``prob_default_flow_obj`` of 0 or 1 fixes the objective that a random draw would pick."""
    import rectified_flow_pytorch as rfp
    from rectified_flow_pytorch.soflow import SoFlow

    cond = option == "cond"
    unet = _denoiser(accept_dest_time=True, **({"accept_cond": True, "dim_cond": COND} if cond else {}))
    keywords: dict[str, Any] = {"data_shape": SHAPE, "accept_cond": cond}
    if base == "mean":
        keywords["prob_default_flow_obj"] = 1.0 if option == "flow_matching" else 0.0
        keywords.update({"recon": {"add_recon_loss": True},
                         "uniform": {"use_logit_normal_sampler": False, "use_adaptive_loss_weight": False}
                         }.get(option, {}))
        return rfp.MeanFlow(unet, **keywords)
    if base == "split":
        keywords["prob_default_flow_obj"] = 1.0 if option == "boundary" else 0.0
        keywords["add_recon_loss"] = option in ("boundary", "recon")
        return rfp.SplitMeanFlow(unet, **keywords)
    if base == "lsd":
        if option == "learned_weight":
            keywords.update(use_learned_loss_weight=True, loss_weight_hidden_dim=8)
        return rfp.LsdFlow(unet, **keywords)
    keywords.update({"clean": {"model_output_clean": True},
                     "linear": {"r_schedule": "linear", "r_total_steps": 10},
                     "cosine": {"r_schedule": "cosine", "use_logit_normal_sampler": False,
                                "use_adaptive_loss_weight": False}}.get(option, {}))
    return SoFlow(unet, **keywords)


def _flows(name: str) -> Built:
    import torch

    from gt_calls import Run

    kind, what, options = FLOWS[name]
    flow = _flow(kind)
    base = kind.split(".")[0]
    data = _randn(BATCH, POINT) if kind == "nano.points" else _images()
    cond = _randn(BATCH, COND, seed=4)
    labels = torch.tensor([[1], [2]])
    if what == "loss":
        return _loss(name, flow, base, data, options)
    if what == "train":
        return _train(flow, base, data)
    if what == "coupling":
        def coupling(owner: Any, noise: Any) -> Any:
            """Reflow's training pair: the frozen model's samples from ``noise``, then the model's loss on them."""
            sampled = owner.frozen_model.sample(noise=noise, steps=2)
            return owner.model(sampled, noise=noise)

        return Run(flow, coupling, [type(flow.model).sample, type(flow.model)]), (_randn(BATCH, *SHAPE, seed=3),), {}
    if base == "value":
        return _value_sample(flow, what, options)
    if base == "td":  # no next state: the TD flow predicts (samples) a future state from a state
        return flow, (_randn(BATCH, *SHAPE),), {}
    return _sample(flow, base, options, data, cond, labels)


def _loss(name: str, flow: Any, base: str, data: Any, options: tuple[str, ...]) -> Built:
    import torch

    kwargs: dict[str, Any] = {}
    if "breakdown" in options:
        kwargs["return_loss_breakdown"] = True
    if "noise" in options:
        kwargs["noise"] = _randn(*data.shape, seed=8)
    if "times" in options:
        kwargs["times"] = _rand(BATCH, seed=9)
    if "cond" in options:
        kwargs["cond"] = _randn(BATCH, COND, seed=4)
    if "reduction_none" in options:
        kwargs["loss_reduction"] = "none"
    if "return_losses" in options:
        kwargs["return_losses"] = True
    if "labels" in options:  # (images, labels) pairs, as a labelled data loader gives them
        return flow, ((data, torch.tensor([[1], [2]])),), {}
    if base == "td":
        return _td_loss(flow, options)
    if base == "value":
        return _value_loss(flow, options)
    if name.startswith("XMWrapper.RectifiedFlow"):
        kwargs["times"] = _rand(BATCH, seed=9)
    return flow, (data,), kwargs


def _td_loss(flow: Any, options: tuple[str, ...]) -> Built:
    import torch

    batch = 4 if "action" in options else BATCH
    state, next_state = _randn(batch, *SHAPE), _randn(batch, *SHAPE, seed=2)
    kwargs: dict[str, Any] = {}
    if "terminal" in options:
        kwargs["is_terminal"] = torch.tensor([False, True, False, False][:batch])
    if "breakdown" in options:
        kwargs["return_loss_breakdown"] = True
    if "action" in options:
        kwargs["action"] = _randn(batch, ACTION, seed=3)
    return flow, (state, next_state), kwargs


def _value_loss(flow: Any, options: tuple[str, ...]) -> Built:
    import torch

    from gt_calls import Run
    from rectified_flow_pytorch.value_flow import ValueFlow

    state, action = _randn(BATCH, STATE), _randn(BATCH, ACTION, seed=2)
    if "state_generation" in options:
        return flow, (state,), {"reward": _randn(BATCH, seed=3), "flow_state": _images(seed=4)}
    if "ppo" in options:
        kwargs: dict[str, Any] = {"action": action, "explicit_target_return": _randn(BATCH, seed=3),
                                  "loss_weight": _rand(BATCH, seed=4)}
    else:
        kwargs = {"action": action, "reward": _randn(BATCH, seed=3), "next_state": _randn(BATCH, STATE, seed=4),
                  "next_action": _randn(BATCH, ACTION, seed=5), "dones": torch.tensor([0.0, 1.0])}

    def loss(owner: Any, state_: Any) -> Any:
        """The value losses differentiate the flow inside (its confidence weight): gradients stay on."""
        with torch.enable_grad():
            return owner(state_, **kwargs)

    return Run(flow, loss, [ValueFlow]), (state,), {}


def _value_sample(flow: Any, what: str, options: tuple[str, ...]) -> Built:
    from gt_calls import Method

    state, action = _randn(BATCH, STATE), _randn(BATCH, ACTION, seed=2)
    if what == "sample_state":
        return Method(flow, "sample_state", state_shape=SHAPE), (_randn(BATCH, seed=3),), {}
    static: dict[str, Any] = {"num_samples": 4}
    if "zero_variance" in options:
        static["zero_variance"] = True
    return Method(flow, what, **static), (state,), {"action": action}


def _sample(flow: Any, base: str, options: tuple[str, ...], data: Any, cond: Any, labels: Any) -> Built:
    import torch

    from gt_calls import Method

    static: dict[str, Any] = {}
    kwargs: dict[str, Any] = {}
    batch: dict[str, Any] = {"batch_size": BATCH}
    if base in ("rectified", "reflow"):
        static.update(batch, steps=3)
        if "reverse" in options:  # images back to noise
            static = {"steps": 3, "reverse": True}
            kwargs["image"] = data
        if "ref_image" in options:
            kwargs["ref_image"] = _randn(BATCH, *SHAPE, seed=5)
        if "noise" in options:
            static = {"steps": 3}
            kwargs["noise"] = _randn(BATCH, *SHAPE, seed=5)
        if "use_ema" in options:
            static["use_ema"] = True
        if "temperature" in options:
            static["temperature"] = 0.5
        if "cond" in options:
            kwargs["cond"] = cond
        return Method(flow, "sample", **static), (), kwargs
    if base in ("nano", "xm", "recurrent", "recursive", "eqm", "self", "ua"):
        static.update(batch, steps=2)
        if base == "eqm":
            static["steps"] = 3
            if "adam" in options:
                static.update(optim_klass=torch.optim.Adam, optim_kwargs={"lr": 0.01})
        if "reverse" in options:  # back to noise, by two fixed-point iterations of the implicit Euler step
            static = {"steps": 2, "reverse": True, "reverse_fixed_point_steps": 2, "batch_size": BATCH}
            kwargs["image"] = data
        if "return_noise" in options:
            static["return_noise"] = True
        if "student" in options:
            static["model"] = "student"
        if "cond1" in options:
            kwargs["cond"] = torch.tensor([1.0, 2.0])
        return Method(flow, "sample", **static), (), kwargs
    if base == "multi_obj":
        steps_config = (("clean", 1), ("flow", 1), ("noise", 1))
        return Method(flow, "sample", batch_size=BATCH, steps_config=steps_config), (), {}
    if base == "lap":
        if "labels_cond" in options:
            kwargs["cond"] = torch.tensor([0, 2])
        return Method(flow, "sample", batch_size=BATCH, steps=3), (), kwargs
    # MeanFlow, SplitMeanFlow, LsdFlow, SoFlow: one step unless ``steps2`` (their slow, multi-step samplers)
    static["steps"] = 2 if "steps2" in options else 1
    if "cond" in options:
        kwargs["cond"] = cond
    else:
        static.update(batch)
    return Method(flow, "sample", **static), (), kwargs


def _train(flow: Any, base: str, data: Any) -> Built:
    """A train step: the flow's loss, ``backward``, an SGD step, then the flow's post-step update (its EMA)."""
    import torch

    from gt_calls import Run

    optimizer = torch.optim.SGD([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
    inputs: tuple[Any, ...] = (data,)
    if base == "td":
        inputs = (data, _randn(*data.shape, seed=2))

    def step(owner: Any, *tensors: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = owner(*tensors)
            loss.backward()
            optimizer.step()
        if hasattr(owner, "post_training_step_update"):
            owner.post_training_step_update()
        if hasattr(owner, "update_ema"):
            owner.update_ema()
        return loss.detach()

    return Run(flow, step, [type(flow)]), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    gt_models.allow_torchvision_import()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in UNETS:
        return _unets(name)
    if name in PARTS:
        return _parts(name)
    if name in FIT:
        return _fit(name)
    if name in LAPDIT:
        return _lapdit(name)
    if name in VIDEO:
        return _video(name)
    if name in MEMORY:
        return _memory(name)
    if name in FLOWS:
        return _flows(name)
    raise KeyError(name)

"""Ground-truth bench, torch_fidelity: its feature extractors with random weights, the metric statistics and helpers.

torch-fidelity 0.4.0 computes the metrics of generative models (FID, KID, Inception Score, precision and recall,
perceptual path length): feature extractors (``FeatureExtractorInceptionV3``, the port of the TensorFlow FID
Inception; ``FeatureExtractorVGG16``; ``FeatureExtractorCLIP`` over a ResNet or ViT visual tower; DINOv2 loads
from torch.hub and is left out) turn uint8 images into feature tuples, and per-metric functions turn features
into statistics and numbers; PPL measures an LPIPS similarity (``SampleSimilarityLPIPS``) between images of
nearby latents. So the tables cover, at batch 2 (features of 8 samples for the metrics):

- ``EXTRACTORS``: the Inception v3 extractor on 32 x 32 uint8 images for each requested feature layer (early
  returns at ``64``, ``192``, ``768``; ``2048``; ``logits_unbiased``; all six; a float64 internal dtype),
  VGG16 (``fc2`` and ``fc2_relu``), CLIP with a tiny ViT and a tiny modified ResNet, each built through the
  library's own ``build_model`` from a state dict, and ``convert_features_tuple_to_dict``;
- ``SIMILARITY``: ``SampleSimilarityLPIPS`` as built (no resize), with a down- and an up-sizing resize and
  with a uint8 dtype check, and ``GenerativeModelModuleWrapper`` around a small generator;
- ``BLOCKS``: the Inception blocks (A, B, C, D, E_1, E_2), CLIP's ``Bottleneck``, ``AttentionPool2d``,
  ``ResidualAttentionBlock`` (with and without a mask), ``ModifiedResNet`` and ``VisionTransformer``;
- ``FUNCTIONS`` (``gt_calls.Call`` / ``gt_calls.Run``): ``interpolate_bilinear_2d_like_tensorflow1x``
  (slow and fast, both corner modes, a scale factor), the noise sources and interpolations of ``noise``
  and ``utils.sample_random`` / ``batch_interp``, the FID statistics and metric, the Inception Score
  (shuffled or not), KID (polynomial and RBF kernels, ``mmd2``'s three estimators), precision / recall
  (full and part, and the distance helpers), and the ``*_featuresdict_to_*`` entry points;
- ``TRAIN``: train steps with ``loss.backward()``: LPIPS as a perceptual loss of a small generator, a
  generator trained through the TensorFlow-style resize and through a slerp of latents, and an Inception
  block and CLIP's attention pool trained on a regression loss.

Weights are random: the download each extractor does in ``__init__`` is replaced by a random state (the
module's own ``load_state_dict`` is skipped, or torchvision's VGG16 is built without weights). Nothing is
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIZE, SAMPLES, DIM = 2, 32, 8, 16

# Extractor model name -> (kind, requested features, internal dtype).
EXTRACTORS: dict[str, tuple[str, tuple[str, ...], str | None]] = {
    "InceptionV3.2048": ("inception", ("2048",), None),
    "InceptionV3.64": ("inception", ("64",), None),
    "InceptionV3.192_768": ("inception", ("192", "768"), None),
    "InceptionV3.logits_unbiased": ("inception", ("logits_unbiased",), None),
    "InceptionV3.logits": ("inception", ("logits",), None),
    "InceptionV3.all": ("inception", ("64", "192", "768", "2048", "logits_unbiased", "logits"), None),
    "InceptionV3.float64": ("inception", ("192",), "float64"),
    "VGG16.fc2_both": ("vgg16", ("fc2", "fc2_relu"), None),
    "CLIP.vit": ("clip-vit-b-32", ("clip",), None),
    "CLIP.resnet": ("clip-rn50", ("clip",), None),
    "InceptionV3.convert_features_tuple_to_dict": ("inception", ("64", "192"), None),
}
# LPIPS model name -> (``sample_similarity_resize``, ``sample_similarity_dtype``, input dtype name).
SIMILARITY: dict[str, tuple[int | None, str | None, str]] = {
    "SampleSimilarityLPIPS": (None, None, "float32"),
    "SampleSimilarityLPIPS.resize_down": (16, None, "float32"),
    "SampleSimilarityLPIPS.resize_up": (48, None, "float32"),
    "SampleSimilarityLPIPS.uint8": (None, "uint8", "uint8"),
}
WRAPPERS = ("GenerativeModelModuleWrapper", "GenerativeModelModuleWrapper.conditional")
BLOCKS = ("InceptionA", "InceptionB", "InceptionC", "InceptionD", "InceptionE_1", "InceptionE_2", "clip.Bottleneck",
          "clip.Bottleneck.stride2", "clip.AttentionPool2d", "clip.ResidualAttentionBlock",
          "clip.ResidualAttentionBlock.mask", "clip.ModifiedResNet", "clip.VisionTransformer", "lpips.VGG16features")
FUNCTIONS = (
    "interpolate_tf1x.slow", "interpolate_tf1x.fast", "interpolate_tf1x.align_corners",
    "interpolate_tf1x.fast.align_corners", "interpolate_tf1x.scale_factor", "interpolate_tf1x.downsample",
    "noise.batch_normalize_last_dim", "noise.batch_lerp", "noise.batch_slerp_any", "noise.batch_slerp_any.collinear",
    "noise.batch_slerp_unit", "noise.random_normal", "noise.random_unit", "noise.random_uniform_0_1",
    "utils.sample_random", "utils.batch_interp.lerp", "utils.batch_interp.slerp_unit",
    "fid_features_to_statistics", "fid_featuresdict_to_statistics", "fid.features_to_metric",
    "isc_features_to_metric", "isc_features_to_metric.no_shuffle", "isc_featuresdict_to_metric",
    "kid_features_to_metric.poly", "kid_features_to_metric.rbf", "kid_featuresdict_to_metric",
    "kernel_mmd.poly", "mmd2.biased", "mmd2.u_statistic", "mmd2.unit_diagonal",
    "prc_features_to_metric", "prc_features_to_metric.save_cpu_ram", "prc_featuresdict_to_metric",
    "calculate_precision_recall_full", "calculate_precision_recall_part", "calc_cdist_full", "calc_cdist_part",
)
TRAIN = ("train_step.lpips_perceptual", "train_step.interpolate_tf1x", "train_step.slerp_latents",
         "train_step.InceptionA", "train_step.clip.AttentionPool2d")


def names() -> list[str]:
    return (list(EXTRACTORS) + list(SIMILARITY) + list(WRAPPERS) + [f"blocks.{b}" for b in BLOCKS]
            + list(FUNCTIONS) + list(TRAIN))


def _rand(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _images(size: int = SIZE, seed: int = 0, batch: int = BATCH) -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (batch, 3, size, size), generator=gen, dtype=torch.uint8)


@contextlib.contextmanager
def _random_weights() -> Iterator[None]:
    """Build torch-fidelity's modules without their downloads: the URL loads return nothing, the state loads
    are skipped, and torchvision's VGG16 is built without weights."""
    from unittest import mock

    import torchvision
    from torch import nn

    import torch_fidelity.feature_extractor_inceptionv3 as inception
    import torch_fidelity.feature_extractor_vgg16 as vgg16
    import torch_fidelity.sample_similarity_lpips as lpips

    def vgg(**_: Any) -> Any:
        return torchvision.models.vgg16()

    with mock.patch.object(inception, "load_state_dict_from_url", lambda *a, **k: {}), \
            mock.patch.object(lpips, "load_state_dict_from_url", lambda *a, **k: {}), \
            mock.patch.object(vgg16, "torchvision_load_pretrained_vgg16", vgg), \
            mock.patch.object(lpips, "torchvision_load_pretrained_vgg16", vgg), \
            mock.patch.object(nn.Module, "load_state_dict", lambda self, *a, **k: None):
        yield


def _clip_state(kind: str) -> dict[str, Any]:
    """A random state dict in the layout of a CLIP checkpoint (a tiny visual tower and a text projection), for
    the library's ``build_model`` to read the architecture from."""
    import torch

    from torch_fidelity.feature_extractor_clip import CLIPVisual

    if kind == "clip-vit-b-32":
        visual = CLIPVisual(embed_dim=32, image_resolution=32, vision_layers=2, vision_width=64, vision_patch_size=8)
    else:
        visual = CLIPVisual(embed_dim=32, image_resolution=64, vision_layers=(1, 1, 1, 1), vision_width=8,
                            vision_patch_size=None)
    state = dict(visual.state_dict())
    state["text_projection"] = torch.randn(16, 32)
    state["logit_scale"] = torch.tensor(1.0)
    return state


def _extractor(name: str) -> Any:
    import torch

    import torch_fidelity.feature_extractor_clip as clip
    from torch_fidelity import FeatureExtractorCLIP, FeatureExtractorInceptionV3, FeatureExtractorVGG16

    kind, features, dtype = EXTRACTORS[name]
    torch.manual_seed(0)
    if kind == "inception":
        with _random_weights():
            return FeatureExtractorInceptionV3("inception-v3-compat", list(features),
                                               feature_extractor_internal_dtype=dtype)
    if kind == "vgg16":
        with _random_weights():
            return FeatureExtractorVGG16("vgg16", list(features), feature_extractor_internal_dtype=dtype)
    state = _clip_state(kind)

    class _Jit:
        def state_dict(self) -> dict[str, Any]:
            return state

    from unittest import mock

    with mock.patch.object(clip, "load_state_dict_from_url", lambda *a, **k: _Jit()):
        return FeatureExtractorCLIP(kind, list(features), feature_extractor_internal_dtype=dtype)


def _extractors(name: str) -> Built:
    from gt_calls import Run

    model = _extractor(name)
    if name.endswith("convert_features_tuple_to_dict"):
        def convert(owner: Any, x: Any) -> Any:
            return owner.convert_features_tuple_to_dict(owner(x))

        return Run(model, convert, [type(model), type(model).convert_features_tuple_to_dict]), (_images(),), {}
    return model, (_images(),), {}


def _similarity(name: str) -> Built:
    import torch

    from torch_fidelity import SampleSimilarityLPIPS

    resize, dtype, input_dtype = SIMILARITY[name]
    with _random_weights():
        model = SampleSimilarityLPIPS("lpips-vgg16", sample_similarity_resize=resize, sample_similarity_dtype=dtype)
    if input_dtype == "uint8":
        return model, (_images(), _images(seed=1)), {}
    return model, (_images().float(), _images(seed=1).float() + torch.rand(BATCH, 3, SIZE, SIZE)), {}


def _generator(conditional: bool = False) -> Any:
    from torch import nn

    class _Generator(nn.Module):
        """A small generator of 16 x 16 images from latents (and class labels when conditional)."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(4, DIM) if conditional else None
            self.fc = nn.Linear(DIM, 8 * 4 * 4)
            self.up = nn.Sequential(nn.ConvTranspose2d(8, 8, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(8, 3, 4, 2, 1),
                                    nn.Tanh())

        def forward(self, z: Any, labels: Any = None) -> Any:
            if self.embed is not None:
                z = z + self.embed(labels)
            return (self.up(self.fc(z).view(-1, 8, 4, 4)) + 1) * 127.5

    return _Generator()


def _wrapper(name: str) -> Built:
    import torch

    from torch_fidelity import GenerativeModelModuleWrapper

    conditional = name.endswith("conditional")
    model = GenerativeModelModuleWrapper(_generator(conditional), DIM, "normal", 4 if conditional else 0)
    if conditional:
        return model, (_rand(BATCH, DIM), torch.tensor([1, 3])), {}
    return model, (_rand(BATCH, DIM),), {}


def _blocks(name: str) -> Built:
    import torch

    import torch_fidelity.feature_extractor_clip as clip
    import torch_fidelity.feature_extractor_inceptionv3 as inception

    torch.manual_seed(0)
    block = name.removeprefix("blocks.")
    inception_blocks: dict[str, tuple[Any, tuple[int, ...]]] = {
        "InceptionA": (lambda: inception.InceptionA(16, pool_features=8), (BATCH, 16, 9, 9)),
        "InceptionB": (lambda: inception.InceptionB(16), (BATCH, 16, 9, 9)),
        "InceptionC": (lambda: inception.InceptionC(32, channels_7x7=8), (BATCH, 32, 7, 7)),
        "InceptionD": (lambda: inception.InceptionD(32), (BATCH, 32, 9, 9)),
        "InceptionE_1": (lambda: inception.InceptionE_1(32), (BATCH, 32, 5, 5)),
        "InceptionE_2": (lambda: inception.InceptionE_2(32), (BATCH, 32, 5, 5)),
    }
    if block in inception_blocks:
        make, shape = inception_blocks[block]
        return make(), (_rand(*shape),), {}
    if block == "clip.Bottleneck":
        return clip.Bottleneck(16, 4), (_rand(BATCH, 16, 8, 8),), {}
    if block == "clip.Bottleneck.stride2":
        return clip.Bottleneck(8, 4, stride=2), (_rand(BATCH, 8, 8, 8),), {}
    if block == "clip.AttentionPool2d":
        return clip.AttentionPool2d(4, 32, 4, 16), (_rand(BATCH, 32, 4, 4),), {}
    if block == "clip.ResidualAttentionBlock":
        return clip.ResidualAttentionBlock(32, 4), (_rand(5, BATCH, 32),), {}
    if block == "clip.ResidualAttentionBlock.mask":
        mask = torch.full((5, 5), float("-inf")).triu(1)
        return clip.ResidualAttentionBlock(32, 4, attn_mask=mask), (_rand(5, BATCH, 32),), {}
    if block == "clip.ModifiedResNet":
        return clip.ModifiedResNet((1, 1, 1, 1), 16, 4, input_resolution=64, width=8), (_rand(BATCH, 3, 64, 64),), {}
    if block == "clip.VisionTransformer":
        return clip.VisionTransformer(32, 8, 32, 2, 2, 16), (_rand(BATCH, 3, 32, 32),), {}
    from torch_fidelity.sample_similarity_lpips import VGG16features

    with _random_weights():
        return VGG16features(), (_rand(BATCH, 3, SIZE, SIZE),), {}


def _functions(name: str) -> Built:
    import numpy as np
    import torch

    import torch_fidelity.metric_fid as fid
    import torch_fidelity.metric_isc as isc
    import torch_fidelity.metric_kid as kid
    import torch_fidelity.metric_prc as prc
    import torch_fidelity.noise as noise
    import torch_fidelity.utils as utils
    from torch_fidelity.interpolate_compat_tensorflow import interpolate_bilinear_2d_like_tensorflow1x as resize

    from gt_calls import Call, Run

    f1, f2 = _rand(SAMPLES, DIM, seed=1), _rand(SAMPLES, DIM, seed=2) + 0.5
    image = _rand(BATCH, 3, 12, 12)
    if name.startswith("interpolate_tf1x"):
        static: dict[str, Any] = {"size": (20, 20), "align_corners": False}
        if "fast" in name:
            static["method"] = "fast"
        if "align_corners" in name:
            static["align_corners"] = True
        if "scale_factor" in name:
            static = {"scale_factor": 1.5, "align_corners": False}
        if "downsample" in name:
            static["size"] = (7, 5)
        return Call(resize, **static), (image,), {}
    a, b = _rand(BATCH, 4, DIM, seed=3), _rand(BATCH, 4, DIM, seed=4)
    t = torch.rand(BATCH, 4, 1, generator=torch.Generator().manual_seed(5))
    rng = np.random.RandomState(0)
    simple: dict[str, Built] = {
        "noise.batch_normalize_last_dim": (Call(noise.batch_normalize_last_dim), (a,), {}),
        "noise.batch_lerp": (Call(noise.batch_lerp), (a, b, t), {}),
        "noise.batch_slerp_any": (Call(noise.batch_slerp_any), (a, b, t), {}),
        "noise.batch_slerp_any.collinear": (Call(noise.batch_slerp_any), (a, torch.cat([a[:1], b[1:]]) * 2.0, t), {}),
        "noise.batch_slerp_unit": (Call(noise.batch_slerp_unit), (a, b, t), {}),
        "noise.random_normal": (Call(noise.random_normal, rng=rng, shape=(BATCH, DIM)), (), {}),
        "noise.random_unit": (Call(noise.random_unit, rng=rng, shape=(BATCH, DIM)), (), {}),
        "noise.random_uniform_0_1": (Call(noise.random_uniform_0_1, rng=rng, shape=(BATCH, DIM)), (), {}),
        "utils.sample_random": (Call(utils.sample_random, rng=rng, shape=(BATCH, DIM), z_type="unit"), (), {}),
        "utils.batch_interp.lerp": (Call(utils.batch_interp, method="lerp"), (a, b, t), {}),
        "utils.batch_interp.slerp_unit": (Call(utils.batch_interp, method="slerp_unit"), (a, b, t), {}),
        "fid_features_to_statistics": (Call(fid.fid_features_to_statistics), (f1,), {}),
        "fid_featuresdict_to_statistics": (Call(fid.fid_featuresdict_to_statistics, feat_layer_name="2048"),
                                           ({"2048": f1},), {}),
        "isc_features_to_metric": (Call(isc.isc_features_to_metric, splits=2), (f1,), {}),
        "isc_features_to_metric.no_shuffle": (Call(isc.isc_features_to_metric, splits=4, shuffle=False), (f1,), {}),
        "isc_featuresdict_to_metric": (Call(isc.isc_featuresdict_to_metric, feat_layer_name="logits_unbiased",
                                            isc_splits=2, verbose=False), ({"logits_unbiased": f1},), {}),
        "kid_features_to_metric.poly": (Call(kid.kid_features_to_metric, kid_subsets=3, kid_subset_size=4,
                                             verbose=False), (f1, f2), {}),
        "kid_features_to_metric.rbf": (Call(kid.kid_features_to_metric, kid_subsets=2, kid_subset_size=5,
                                            kid_kernel="rbf", verbose=False), (f1, f2), {}),
        "kid_featuresdict_to_metric": (Call(kid.kid_featuresdict_to_metric, feat_layer_name="2048", kid_subsets=2,
                                            kid_subset_size=4, verbose=False), ({"2048": f1}, {"2048": f2}), {}),
        "kernel_mmd.poly": (Call(kid.kernel_mmd), (f1.numpy(), f2.numpy()), {}),
        "prc_features_to_metric": (Call(prc.prc_features_to_metric, verbose=False), (f1, f2), {}),
        "prc_features_to_metric.save_cpu_ram": (Call(prc.prc_features_to_metric, save_cpu_ram=True,
                                                     prc_batch_size=3, verbose=False), (f1, f2), {}),
        "prc_featuresdict_to_metric": (Call(prc.prc_featuresdict_to_metric, feat_layer_name="2048",
                                            prc_neighborhood=2, verbose=False), ({"2048": f1}, {"2048": f2}), {}),
        "calculate_precision_recall_full": (Call(prc.calculate_precision_recall_full, neighborhood=2,
                                                 batch_size=5), (f1, f2), {}),
        "calculate_precision_recall_part": (Call(prc.calculate_precision_recall_part, neighborhood=2,
                                                 batch_size=3), (f1, f2), {}),
        "calc_cdist_full": (Call(prc.calc_cdist_full, batch_size=3), (f1, f2), {}),
        "calc_cdist_part": (Call(prc.calc_cdist_part, batch_size=3), (f1, f2), {}),
    }
    if name in simple:
        return simple[name]
    if name.startswith("mmd2"):
        x, y = f1.numpy(), f2.numpy()
        kernels = (kid.kernel_rbf(x, x, kid_kernel_rbf_sigma=4.0), kid.kernel_rbf(x, y, kid_kernel_rbf_sigma=4.0),
                   kid.kernel_rbf(y, y, kid_kernel_rbf_sigma=4.0))
        static = {"mmd2.biased": {"mmd_est": "biased"}, "mmd2.u_statistic": {"mmd_est": "u-statistic"},
                  "mmd2.unit_diagonal": {"unit_diagonal": True}}[name]
        return Call(kid.mmd2, **static), kernels, {}

    def fid_metric(owner: Any, x: Any, y: Any) -> Any:
        """FID between two feature sets, as ``calculate_fid`` chains it."""
        return fid.fid_statistics_to_metric(fid.fid_features_to_statistics(x), fid.fid_features_to_statistics(y),
                                            verbose=False)

    return Run(None, fid_metric, [fid.fid_features_to_statistics, fid.fid_statistics_to_metric]), (f1, f2), {}


class _Backward:
    """The end of a bench train step: ``loss.backward()``, then the loss, detached."""

    @staticmethod
    def step(loss: Any) -> Any:
        loss.backward()
        return loss.detach()


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import torch_fidelity.feature_extractor_clip as clip
    import torch_fidelity.feature_extractor_inceptionv3 as inception
    from torch_fidelity import SampleSimilarityLPIPS
    from torch_fidelity.interpolate_compat_tensorflow import interpolate_bilinear_2d_like_tensorflow1x as resize
    from torch_fidelity.noise import batch_slerp_unit

    torch.manual_seed(0)
    if name == "train_step.lpips_perceptual":
        with _random_weights():
            lpips = SampleSimilarityLPIPS("lpips-vgg16", sample_similarity_resize=16)
        generator = _generator()

        class _LpipsStep(nn.Module):
            """A generator step under an LPIPS perceptual loss against target images."""

            def __init__(self) -> None:
                super().__init__()
                self.generator = generator
                self.lpips = lpips

            def forward(self, z: Any, target: Any) -> Any:
                with torch.enable_grad():
                    return _Backward.step(self.lpips(self.generator(z), target).mean())

            def entry_points(self) -> list[Any]:
                return [SampleSimilarityLPIPS]

        return _LpipsStep(), (_rand(BATCH, DIM), _images(16).float()), {}
    if name in ("train_step.interpolate_tf1x", "train_step.slerp_latents"):
        generator = _generator()
        slerp = name.endswith("slerp_latents")

        class _GeneratorStep(nn.Module):
            """A generator step whose loss goes through a torch-fidelity function (resize or latent slerp)."""

            def __init__(self) -> None:
                super().__init__()
                self.generator = generator

            def forward(self, z0: Any, z1: Any, target: Any) -> Any:
                with torch.enable_grad():
                    if slerp:
                        images = self.generator(batch_slerp_unit(z0, z1, 0.25))
                    else:
                        images = resize(self.generator(z0), size=(24, 24), align_corners=False)
                    return _Backward.step(F.mse_loss(images, target))

            def entry_points(self) -> list[Any]:
                return [batch_slerp_unit if slerp else resize]

        target = _rand(BATCH, 3, 16, 16) if slerp else _rand(BATCH, 3, 24, 24)
        return _GeneratorStep(), (_rand(BATCH, DIM, seed=1), _rand(BATCH, DIM, seed=2), target), {}
    block: nn.Module
    if name == "train_step.InceptionA":
        block, x, out = inception.InceptionA(16, pool_features=8), _rand(BATCH, 16, 9, 9), 8 + 64 + 96 + 64
    else:
        block, x, out = clip.AttentionPool2d(4, 32, 4, 16), _rand(BATCH, 32, 4, 4), 16

    class _BlockStep(nn.Module):
        """A regression step through one block of an extractor (fine-tuning its layers)."""

        def __init__(self) -> None:
            super().__init__()
            self.block = block
            self.head = nn.Linear(out, 1)

        def forward(self, x_: Any, y: Any) -> Any:
            with torch.enable_grad():
                h = self.block(x_)
                h = h.mean(dim=(2, 3)) if h.dim() == 4 else h
                return _Backward.step(F.mse_loss(self.head(h).squeeze(-1), y))

        def entry_points(self) -> list[Any]:
            return [type(block)]

    return _BlockStep(), (x, _rand(BATCH, seed=7)), {}


def build(name: str) -> Built:
    import torch

    from gt_models import allow_torchvision_import

    allow_torchvision_import()
    torch.manual_seed(0)
    if name in EXTRACTORS:
        return _extractors(name)
    if name in SIMILARITY:
        return _similarity(name)
    if name in WRAPPERS:
        return _wrapper(name)
    if name.startswith("blocks."):
        return _blocks(name)
    if name in FUNCTIONS:
        return _functions(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

"""Ground-truth bench, torchdistill: knowledge-distillation losses, auxiliary wrappers, CIFAR models, train steps.

torchdistill (Yoshitomo Matsubara) runs knowledge distillation from configuration: a teacher and a student,
optionally wrapped by an auxiliary model wrapper that adds modules (a paraphraser and a translator for factor
transfer, connectors, VID regressors, linear embeddings for CCKD and CRD, a self-supervision head for SSKD, a
variance branch for PAD, attention-based fusion for knowledge review, adapters for KTAAD, channel embeddings
for ICKD, SRD's projection); forward hooks (``register_forward_hook_with_dict``, ``set_hooks``,
``ForwardHookManager``) fill an io dict per model with the inputs and outputs of named modules; the distillation
box runs the teacher (under ``no_grad``), its ``secondary_forward``, the student, extracts both io dicts and feeds
them to a high-level loss (``WeightedSumLoss``) whose terms are mid-level losses, optionally wrapped
(``SimpleLossWrapper``, ``DictLossWrapper``) around plain ``torch.nn`` losses; ``default_post_forward_process``
then backpropagates and steps. The tables cover, at batch 4 (8 for SSKD) and CIFAR-sized 32 x 32 images:

- ``MODELS``: the shipped CIFAR models at tiny depth (``resnet``, ``resnet20``, ``wide_resnet`` with and without
  dropout, ``densenet`` plain, bottleneck and memory-efficient, ``get_model`` through the registry);
- ``MODULES``: the auxiliary modules alone (``ConvReg`` with and without ReLU, ``Paraphraser4FactorTransfer``
  with and without the decoder, ``Translator4FactorTransfer``, ``Regressor4VID``, ``Normalizer4CRD``,
  ``AttentionBasedFusion`` with and without attention, ``ChannelSimilarityEmbed``, ``EmptyModule``), the
  forward-hook machinery (``ForwardHookManager`` plain, accumulating and stacking) and ``quantize_tensor`` /
  ``dequantize_tensor``;
- ``LOSSES``: every mid-level loss on io dicts built from random tensors, in its main options (KD with and
  without hard targets, FSP, AT code / paper, PKT, FT p=1 / p=2, DAB mean / sum, RKD with and without the angle
  term, VID, CCKD bilinear / gaussian, SPKD, CRD, SSKD and its auxiliary loss, PAD-L2, hierarchical context,
  regularization, KTA, affinity, ICKD's channel similarity, DIST, DIST+, SRD, logit-standardized KD, SKD instance
  and direction in both modes), the wrappers around ``torch.nn`` losses, ``WeightedSumLoss`` built from
  configuration (with a model term as a number and as a dict) and ``extract_model_loss_dict``;
- ``DISTILL``: the distillation box's forward process (teacher, secondary forward, student, io dicts, the
  weighted loss) for each method with its auxiliary wrappers;
- ``TRAIN``: train steps: a distillation forward process, then ``default_post_forward_process`` (backward,
  gradient clipping, gradient accumulation, an SGD step, a step-wise scheduler).

Left out: the distillation box's setup from YAML (data loaders, datasets), torchvision's official models and
``HeadRCNN`` (torchvision detection models), checkpoints. Random weights, nothing downloaded. ``names()``
needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CLASSES, SIZE = 4, 10, 32

MODELS = ("resnet.depth8", "resnet20", "wide_resnet.depth10", "wide_resnet.depth10.k2.dropout",
          "densenet.depth10", "densenet.bc.depth16", "densenet.memory_efficient", "get_model.resnet")
MODULES = ("ConvReg", "ConvReg.no_relu", "Paraphraser4FactorTransfer", "Paraphraser4FactorTransfer.no_decoder",
           "Translator4FactorTransfer", "Regressor4VID", "Normalizer4CRD", "AttentionBasedFusion",
           "AttentionBasedFusion.attention", "ChannelSimilarityEmbed", "EmptyModule", "ForwardHookManager",
           "ForwardHookManager.input_only", "ForwardHookManager.accumulates", "ForwardHookManager.stacks",
           "quantize_dequantize")
LOSSES = ("KDLoss", "KDLoss.alpha.targets", "KDLoss.sum", "FSPLoss", "ATLoss", "ATLoss.paper", "PKTLoss",
          "FTLoss", "FTLoss.p2.sum", "AltActTransferLoss", "AltActTransferLoss.sum", "RKDLoss",
          "RKDLoss.distance_only", "VIDLoss", "CCKDLoss.bilinear", "CCKDLoss.gaussian", "SPKDLoss", "CRDLoss",
          "AuxSSKDLoss", "SSKDLoss", "PADL2Loss", "HierarchicalContextLoss", "RegularizationLoss",
          "RegularizationLoss.teacher.p2", "KTALoss", "KTALoss.p2", "AffinityLoss", "ChSimLoss", "DISTLoss",
          "DISTPlusLoss", "SRDLoss", "LogitStdKDLoss", "LogitStdKDLoss.alpha.targets", "SKDInstanceLoss",
          "SKDInstanceLoss.code", "SKDDirectionLoss", "SKDDirectionLoss.code", "SimpleLossWrapper.labels",
          "SimpleLossWrapper.teacher_target", "DictLossWrapper", "WeightedSumLoss", "WeightedSumLoss.model_term",
          "WeightedSumLoss.model_term.dict", "extract_model_loss_dict")
DISTILL = ("kd", "fitnet", "at", "fsp", "pkt", "rkd", "spkd", "dist", "dist_plus", "logit_std", "skd", "ft", "dab",
           "vid", "cckd", "crd", "sskd", "pad", "review", "ktaad", "ickd", "srd")
TRAIN = ("train.kd", "train.kd.clip.scheduler", "train.at.accumulate", "train.ft", "train.crd", "train.sskd",
         "train.review", "train.vid")


def names() -> list[str]:
    return [*MODELS, *MODULES, *LOSSES, *[f"distill.{n}" for n in DISTILL], *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _images(batch: int = BATCH, seed: int = 1) -> Any:
    return _randn(batch, 3, SIZE, SIZE, seed=seed)


def _labels(batch: int = BATCH, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, CLASSES, (batch,), generator=torch.Generator().manual_seed(seed))


def _resnet8() -> Any:
    from torchdistill.models.classification.resnet import resnet

    return resnet(8, CLASSES, False, False)


# --- models --------------------------------------------------------------------------------------------------

def _models(name: str) -> Built:
    from torchdistill.models.classification.densenet import densenet
    from torchdistill.models.classification.resnet import resnet, resnet20
    from torchdistill.models.classification.wide_resnet import wide_resnet
    from torchdistill.models.registry import get_model

    model: Any
    if name == "resnet.depth8":
        model = _resnet8()
    elif name == "resnet20":
        model = resnet20(num_classes=CLASSES, pretrained=False, progress=False)
    elif name == "wide_resnet.depth10":
        model = wide_resnet(10, 1, 0.0, CLASSES, False, False)
    elif name == "wide_resnet.depth10.k2.dropout":
        model = wide_resnet(10, 2, 0.3, CLASSES, False, False)
    elif name == "densenet.depth10":
        model = densenet(4, 10, 8, False, CLASSES, False, False)
    elif name == "densenet.bc.depth16":
        model = densenet(4, 16, 8, True, CLASSES, False, False, drop_rate=0.1)
    elif name == "densenet.memory_efficient":
        model = densenet(4, 10, 8, False, CLASSES, False, False, memory_efficient=True)
    else:
        model = get_model("resnet", depth=8, num_classes=CLASSES, pretrained=False, progress=False)
    return model, (_images(),), {}


# --- auxiliary modules, hooks, tensor utilities -------------------------------------------------------------

def _modules(name: str) -> Built:
    import torch
    from torch import nn
    from torchdistill.common.tensor_util import dequantize_tensor, quantize_tensor
    from torchdistill.core.forward_hook import ForwardHookManager
    from torchdistill.models.adaptation import ConvReg
    from torchdistill.models.wrapper import (
        AttentionBasedFusion, ChannelSimilarityEmbed, EmptyModule, Normalizer4CRD, Paraphraser4FactorTransfer,
        Regressor4VID, Translator4FactorTransfer)

    from gt_calls import Run

    feature = _randn(BATCH, 8, 6, 6)
    if name.startswith("ConvReg"):
        return ConvReg(8, 12, 3, 1, 1, uses_relu=name == "ConvReg"), (feature,), {}
    if name.startswith("Paraphraser4FactorTransfer"):
        return Paraphraser4FactorTransfer(0.5, 8, uses_decoder=not name.endswith("no_decoder")), (feature,), {}
    if name == "Translator4FactorTransfer":
        return Translator4FactorTransfer(8, 4), (feature,), {}
    if name == "Regressor4VID":
        return Regressor4VID(8, 12, 8, 1e-5, 5.0), (feature,), {}
    if name == "Normalizer4CRD":
        return Normalizer4CRD(nn.Linear(16, 8)), (_randn(BATCH, 16),), {}
    if name == "AttentionBasedFusion":
        return AttentionBasedFusion(8, 6, 8, False), (feature,), {}
    if name == "AttentionBasedFusion.attention":
        return AttentionBasedFusion(8, 6, 8, True), (feature, _randn(BATCH, 6, 3, 3, seed=2), 6), {}
    if name == "ChannelSimilarityEmbed":
        return ChannelSimilarityEmbed(8, 4), (feature,), {}
    if name == "EmptyModule":
        return EmptyModule(), (feature,), {}
    if name == "quantize_dequantize":
        def quantize(owner: Any, x: torch.Tensor) -> torch.Tensor:
            """Quantize to 8 bits and back, as torchdistill's split-computing examples do."""
            return dequantize_tensor(quantize_tensor(x, num_bits=8))

        return Run(None, quantize, [quantize_tensor, dequantize_tensor]), (feature,), {}

    model = _resnet8()
    manager = ForwardHookManager(torch.device("cpu"))
    accumulates = name in ("ForwardHookManager.accumulates", "ForwardHookManager.stacks")
    stacks = name == "ForwardHookManager.stacks"
    if name == "ForwardHookManager.input_only":
        manager.add_hook(model, "layer2", requires_input=True, requires_output=False)
        manager.add_hook(model, "fc", requires_input=False, requires_output=True)
    else:
        for path in ("layer1", "layer3", "fc"):
            manager.add_hook(model, path, requires_input=True, requires_output=True, accumulates=accumulates,
                             stacks_accumulated=stacks)

    def hooked(owner: Any, x: torch.Tensor) -> Any:
        """Run the model (twice when accumulating) and pop the io dict the hooks filled."""
        out = owner(x)
        if accumulates:
            out = owner(x * 0.5)
        return out, manager.pop_io_dict()

    return Run(model, hooked, [ForwardHookManager.add_hook, ForwardHookManager.pop_io_dict]), (_images(),), {}


# --- mid-level losses on io dicts ---------------------------------------------------------------------------

def _loss_spec(name: str) -> tuple[Any, list[tuple[str, str, str, str]], list[Any], bool]:
    """(loss module, io layout, input tensors, whether the last input is the targets)."""
    import torch
    from torch import nn
    from torchdistill.losses import mid_level as ml
    from torchdistill.losses.high_level import WeightedSumLoss

    s_logits, t_logits = _randn(BATCH, CLASSES, seed=3), _randn(BATCH, CLASSES, seed=4)
    s_feat, t_feat = _randn(BATCH, 8, 6, 6, seed=5), _randn(BATCH, 8, 6, 6, seed=6)
    s_emb, t_emb = _randn(BATCH, 16, seed=7), _randn(BATCH, 16, seed=8)
    logits = [("student", "fc", "output", "t"), ("teacher", "fc", "output", "t")]
    feats = [("student", "layer", "output", "t"), ("teacher", "layer", "output", "t")]
    embeds = [("student", "emb", "output", "t"), ("teacher", "emb", "output", "t")]
    kd = {"student_module_path": "fc", "student_module_io": "output", "teacher_module_path": "fc",
          "teacher_module_io": "output"}
    if name.startswith("KDLoss"):
        if name == "KDLoss.sum":
            return ml.KDLoss(temperature=4.0, alpha=0.5, reduction="sum", **kd), logits, [s_logits, t_logits], False
        alpha = 0.5 if "alpha" in name else 0.0
        targets = "targets" in name
        return ml.KDLoss(temperature=4.0, alpha=alpha, **kd), logits, \
            [s_logits, t_logits] + ([_labels()] if targets else []), targets
    if name.startswith("LogitStdKDLoss"):
        alpha = 0.5 if "alpha" in name else 0.0
        targets = "targets" in name
        return ml.LogitStdKDLoss(temperature=2.0, alpha=alpha, **kd), logits, \
            [s_logits, t_logits] + ([_labels()] if targets else []), targets
    if name == "FSPLoss":
        pairs = {"pair1": {"student_first": {"io": "output", "path": "a"}, "student_second": {"io": "output",
                                                                                             "path": "b"},
                           "teacher_first": {"io": "output", "path": "a"}, "teacher_second": {"io": "output",
                                                                                             "path": "b"},
                           "weight": 1}}
        layout = [("student", "a", "output", "t"), ("student", "b", "output", "t"),
                  ("teacher", "a", "output", "t"), ("teacher", "b", "output", "t")]
        small_s, small_t = _randn(BATCH, 6, 3, 3, seed=9), _randn(BATCH, 6, 3, 3, seed=10)
        return ml.FSPLoss(pairs), layout, [s_feat, small_s, t_feat, small_t], False
    if name.startswith("ATLoss"):
        pairs = {"p1": {"student": {"io": "output", "path": "layer"}, "teacher": {"io": "output", "path": "layer"},
                        "weight": 1.0},
                 "p2": {"student": {"io": "input", "path": "layer"}, "teacher": {"io": "input", "path": "layer"},
                        "weight": 0.5}}
        layout = feats + [("student", "layer", "input", "t"), ("teacher", "layer", "input", "t")]
        mode = "paper" if name.endswith("paper") else "code"
        return ml.ATLoss(pairs, mode=mode), layout, [s_feat, t_feat, s_feat * 2, t_feat * 2], False
    if name == "PKTLoss":
        return ml.PKTLoss("emb", "output", "emb", "output"), embeds, [s_emb, t_emb], False
    if name.startswith("FTLoss"):
        layout = [("student", "translator", "output", "t"), ("teacher", "paraphraser", "output", "t")]
        if name == "FTLoss":
            return ml.FTLoss(), layout, [s_feat, t_feat], False
        return ml.FTLoss(p=2, reduction="sum"), layout, [s_feat, t_feat], False
    if name.startswith("AltActTransferLoss"):
        pairs = {"p": {"student": {"io": "output", "path": "layer"}, "teacher": {"io": "output", "path": "layer"}}}
        reduction = "sum" if name.endswith("sum") else "mean"
        return ml.AltActTransferLoss(pairs, margin=1.0, reduction=reduction), feats, [s_feat, t_feat], False
    if name.startswith("RKDLoss"):
        angle = 0 if name.endswith("distance_only") else 50.0
        return ml.RKDLoss("emb", "emb", 25.0, angle, "mean"), embeds, [s_emb, t_emb], False
    if name == "VIDLoss":
        pairs = {"p": {"student": {"io": "output", "path": "regressor"}, "teacher": {"io": "output", "path": "layer"}}}
        layout = [("student", "regressor", "output", "pair"), ("teacher", "layer", "output", "t")]
        return ml.VIDLoss(pairs), layout, [s_feat, torch.rand(1, 8, 1, 1) + 0.5, t_feat], False
    if name.startswith("CCKDLoss"):
        kernel = {"type": "bilinear"} if name.endswith("bilinear") else {"type": "gaussian", "gamma": 0.4, "max_p": 2}
        return ml.CCKDLoss("emb", "emb", kernel, "batchmean"), embeds, [s_emb, t_emb], False
    if name == "SPKDLoss":
        return ml.SPKDLoss("layer", "layer", "batchmean"), feats, [s_feat, t_feat], False
    if name == "CRDLoss":
        loss = ml.CRDLoss("norm", "empty", "norm", input_size=16, output_size=20, num_negative_samples=4,
                          num_samples=20)
        layout = [("student", "norm", "output", "t"), ("teacher", "norm", "output", "t"),
                  ("student", "empty", "input", "supp")]
        norm_s = nn.functional.normalize(s_emb, dim=1)
        norm_t = nn.functional.normalize(t_emb, dim=1)
        pos = torch.arange(BATCH)
        contrast = torch.randint(0, 20, (BATCH, 5), generator=torch.Generator().manual_seed(11))
        return loss, layout, [norm_s, norm_t, pos, contrast], False
    if name == "AuxSSKDLoss":
        return ml.AuxSSKDLoss(), [("teacher", "ss_module", "output", "t")], [_randn(8, 16)], False
    if name == "SSKDLoss":
        loss = ml.SSKDLoss("fc", "fc", "ss", "ss", kl_temp=4.0, ss_temp=0.5, tf_temp=4.0, ss_ratio=0.75,
                           tf_ratio=1.0)
        layout = [("student", "fc", "output", "t"), ("teacher", "fc", "output", "t"),
                  ("student", "ss", "output", "t"), ("teacher", "ss", "output", "t")]
        return loss, layout, [_randn(8, CLASSES, seed=3), _randn(8, CLASSES, seed=4), _randn(8, 16, seed=5),
                              _randn(8, 16, seed=6), _labels(2)], True
    if name == "PADL2Loss":
        layout = embeds + [("student", "var_estimator", "output", "t")]
        return ml.PADL2Loss("emb", "emb"), layout, [s_emb, t_emb, _randn(BATCH, 16, seed=12) * 0.1], False
    if name == "HierarchicalContextLoss":
        layout = [("student", "abf", "output", "pair"), ("teacher", "layer", "output", "t")]
        big_s, big_t = _randn(BATCH, 8, 8, 8, seed=5), _randn(BATCH, 8, 8, 8, seed=6)
        return ml.HierarchicalContextLoss("abf", "output", "layer", "output"), layout, [big_s, big_s, big_t], False
    if name.startswith("RegularizationLoss"):
        teacher = "teacher" in name
        layout = [("teacher" if teacher else "student", "layer", "output", "t")]
        return ml.RegularizationLoss("layer", is_from_teacher=teacher, p=2 if teacher else 1), layout, \
            [s_feat], False
    if name.startswith("KTALoss"):
        layout = [("student", "feature_adapter", "output", "t"), ("teacher", "paraphraser", "output", "t")]
        loss = ml.KTALoss(p=2, q=2, reduction="sum") if name.endswith("p2") else ml.KTALoss()
        return loss, layout, [s_feat, t_feat], False
    if name == "AffinityLoss":
        return ml.AffinityLoss("layer", "layer"), feats, [s_feat, t_feat], False
    if name == "ChSimLoss":
        pairs = {"p": {"student": {"io": "output", "path": "layer"}, "teacher": {"io": "output", "path": "layer"},
                       "weight": 2.0}}
        return ml.ChSimLoss(pairs), feats, [s_feat, t_feat], False
    if name == "DISTLoss":
        return ml.DISTLoss(beta=1.0, gamma=2.0, tau=2.0, **kd), logits, [s_logits, t_logits], False
    if name == "DISTPlusLoss":
        loss = ml.DISTPlusLoss("fc", "output", "fc", "output", "layer", "output", "layer", "output", tau=2.0)
        return loss, logits + feats, [s_logits, t_logits, s_feat, t_feat], False
    if name == "SRDLoss":
        loss = ml.SRDLoss("emb", "output", "emb", "output", "fc", "output", "fc", "output", exponent=2.0,
                          temperature=2.0)
        return loss, embeds + logits, [s_emb, t_emb, s_logits, t_logits], False
    if name.startswith("SKDInstanceLoss"):
        mode = "code" if name.endswith("code") else "paper"
        return ml.SKDInstanceLoss(mode=mode, **kd), logits, [s_logits, t_logits], False
    if name.startswith("SKDDirectionLoss"):
        mode = "code" if name.endswith("code") else "paper"
        return ml.SKDDirectionLoss(mode=mode, **kd), logits, [s_logits, t_logits], False
    if name == "SimpleLossWrapper.labels":
        loss = ml.SimpleLossWrapper(nn.CrossEntropyLoss(), input={"is_from_teacher": False, "module_path": "fc",
                                                                  "io": "output"},
                                    target={"uses_label": True})
        return loss, [("student", "fc", "output", "t")], [s_logits, _labels()], True
    if name == "SimpleLossWrapper.teacher_target":
        loss = ml.SimpleLossWrapper(nn.MSELoss(), input={"is_from_teacher": False, "module_path": "layer",
                                                         "io": "output"},
                                    target={"is_from_teacher": True, "module_path": "layer", "io": "output"})
        return loss, feats, [s_feat, t_feat], False
    if name == "DictLossWrapper":
        loss = ml.DictLossWrapper(nn.CrossEntropyLoss(), {"main": 1.0, "aux": 0.4},
                                  input={"is_from_teacher": False, "module_path": ".", "io": "output"})
        layout = [("student", ".", "output:main", "t"), ("student", ".", "output:aux", "t")]
        return loss, layout, [s_logits, t_logits, _labels()], True
    if name == "extract_model_loss_dict":
        return None, [], [], False
    sub_terms = {
        "kd": {"criterion": {"key": "KDLoss", "kwargs": {"temperature": 4.0, "alpha": 0.5, **kd}}, "weight": 1.0},
        "fitnet": {"criterion": {"key": "MSELoss", "kwargs": {"reduction": "mean"}},
                   "criterion_wrapper": {"key": "SimpleLossWrapper", "kwargs": {
                       "input": {"is_from_teacher": False, "module_path": "layer", "io": "output"},
                       "target": {"is_from_teacher": True, "module_path": "layer", "io": "output"}}},
                   "weight": 0.5},
        "at": {"criterion": ml.ATLoss({"p": {"student": {"io": "output", "path": "layer"},
                                             "teacher": {"io": "output", "path": "layer"}}}), "weight": 100.0},
    }
    model_term: dict[str, Any] | None = None
    if name == "WeightedSumLoss.model_term":
        model_term = {"weight": 1.0}
    elif name == "WeightedSumLoss.model_term.dict":
        model_term = {"weight": {"loss_a": 1.0, "loss_b": 0.5}}
    return WeightedSumLoss(model_term=model_term, sub_terms=sub_terms), logits + feats, \
        [s_logits, t_logits, s_feat, t_feat, _labels()], True


def _losses(name: str) -> Built:
    import torch
    from torch import nn
    from torchdistill.losses.high_level import WeightedSumLoss
    from torchdistill.losses.util import extract_model_loss_dict

    from gt_calls import Run

    if name == "extract_model_loss_dict":
        def extract(owner: Any, a: torch.Tensor, b: torch.Tensor, targets: torch.Tensor) -> Any:
            """The model-loss dict of a student that returns a dict of losses, summed as the box sums it."""
            loss_dict = extract_model_loss_dict({"loss_a": a.mean(), "loss_b": b.pow(2).mean()}, targets)
            return sum(loss_dict.values()) + len(extract_model_loss_dict(a, targets))

        return Run(None, extract, [extract_model_loss_dict]), (_randn(BATCH, 5), _randn(BATCH, 5), _labels()), {}
    loss, layout, inputs, with_targets = _loss_spec(name)
    high_level = isinstance(loss, WeightedSumLoss)

    def run(owner: nn.Module, *tensors: torch.Tensor) -> torch.Tensor:
        """Build the student and teacher io dicts from the inputs, as the distillation box extracts them."""
        io: dict[str, dict[str, Any]] = {"student": {}, "teacher": {}}
        position = 0
        for side, path, key, kind in layout:
            entry = io[side].setdefault(path, {})
            if kind == "pair":
                value: Any = (tensors[position], tensors[position + 1])
                position += 2
            elif kind == "supp":
                value = {"pos_idx": tensors[position], "contrast_idx": tensors[position + 1]}
                position += 2
            else:
                value = tensors[position]
                position += 1
            if ":" in key:
                key, sub = key.split(":")
                entry.setdefault(key, {})[sub] = value
            else:
                entry[key] = value
        targets = tensors[-1] if with_targets else None
        if high_level:
            model_loss = {"loss_a": tensors[0].abs().mean(), "loss_b": tensors[1].pow(2).mean()}
            return owner(io, model_loss, targets)
        return owner(io["student"], io["teacher"], targets)

    return Run(loss, run, [type(loss)]), tuple(inputs), {}


# --- the distillation box's forward process -----------------------------------------------------------------

class _Box:
    """The parts of a distillation box: teacher and student (possibly auxiliary wrappers), their hooked paths,
    their forward-process functions and the weighted-sum loss."""

    def __init__(self, teacher: Any, student: Any, teacher_hooks: dict[str, list[str]],
                 student_hooks: dict[str, list[str]], sub_terms: dict[str, Any], forward_proc: str = "batch_only",
                 model_term: dict[str, Any] | None = None) -> None:
        from torchdistill.core.interfaces import forward_proc as procs
        from torchdistill.core.util import set_hooks
        from torchdistill.losses.high_level import WeightedSumLoss

        self.teacher, self.student = teacher, student
        self.teacher_io: dict[str, Any] = {}
        self.student_io: dict[str, Any] = {}
        set_hooks(teacher, teacher, {"forward_hook": teacher_hooks}, self.teacher_io)
        set_hooks(student, student, {"forward_hook": student_hooks}, self.student_io)
        self.criterion = WeightedSumLoss(model_term=model_term, sub_terms=sub_terms)
        self.forward_proc = getattr(procs, f"forward_{forward_proc}")


def _forward_process(box: _Box, sample_batch: Any, targets: Any, supp_dict: Any = None) -> Any:
    """What ``DistillationBox.forward_process`` does: the teacher under ``no_grad``, its secondary forward, the
    student and its secondary forward, the io dicts extracted and updated, the weighted-sum loss."""
    import torch
    from torchdistill.common.constant import SELF_MODULE_PATH
    from torchdistill.core.util import extract_io_dict, update_io_dict
    from torchdistill.losses.util import extract_model_loss_dict
    from torchdistill.models.wrapper import AuxiliaryModelWrapper

    device = torch.device("cpu")
    if supp_dict is None:
        supp_dict = {}
    with torch.no_grad():
        teacher_outputs = box.forward_proc(box.teacher, sample_batch, targets, supp_dict)
    teacher_io = extract_io_dict(box.teacher_io, device)
    teacher_io[SELF_MODULE_PATH]["output"] = teacher_outputs
    if isinstance(box.teacher, AuxiliaryModelWrapper):
        box.teacher.secondary_forward(teacher_io)
    update_io_dict(teacher_io, extract_io_dict(box.teacher_io, device))
    student_outputs = box.forward_proc(box.student, sample_batch, targets, supp_dict)
    student_io = extract_io_dict(box.student_io, device)
    student_io[SELF_MODULE_PATH]["output"] = student_outputs
    if isinstance(box.student, AuxiliaryModelWrapper):
        box.student.secondary_forward(student_io)
    model_loss_dict = extract_model_loss_dict(student_outputs, targets, supp_dict=supp_dict)
    update_io_dict(student_io, extract_io_dict(box.student_io, device))
    return box.criterion({"teacher": teacher_io, "student": student_io}, model_loss_dict, targets)


def _term(key: str, weight: float = 1.0, wrapper: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    term: dict[str, Any] = {"criterion": {"key": key, "kwargs": kwargs}, "weight": weight}
    if wrapper is not None:
        term["criterion_wrapper"] = wrapper
    return term


def _box(method: str) -> tuple[_Box, tuple[Any, ...]]:
    """The box of one method and its inputs (images, targets, and a supplementary dict for CRD)."""
    import torch
    from torchdistill.models.wrapper import (
        Connector4DAB, Linear4CCKD, Linear4CRD, SRDModelWrapper, SSWrapper4SSKD, Student4FactorTransfer,
        Student4ICKD, Student4KnowledgeReview, Student4KTAAD, Teacher4FactorTransfer, VarianceBranch4PAD,
        VariationalDistributor4VID)

    torch.manual_seed(0)
    teacher, student = _resnet8(), _resnet8()
    dev: dict[str, Any] = {"device": torch.device("cpu"), "device_ids": None, "distributed": False}
    kd = {"student_module_path": ".", "student_module_io": "output", "teacher_module_path": ".",
          "teacher_module_io": "output"}
    out = {"output": ["layer1", "layer2", "layer3", "avgpool", "fc"]}
    inputs: tuple[Any, ...] = (_images(), _labels())
    ckpt = "/tmp/gt_torchdistill_absent/ckpt.pt"

    def pairs(paths: list[tuple[str, str]], io: str = "output") -> dict[str, Any]:
        return {f"p{i}": {"student": {"io": io, "path": s}, "teacher": {"io": io, "path": t}}
                for i, (s, t) in enumerate(paths)}

    kd_term = _term("KDLoss", temperature=4.0, alpha=0.9, **kd)
    if method == "kd":
        return _Box(teacher, student, out, out, {"kd": kd_term}, model_term={"weight": 0.0}), inputs
    if method == "fitnet":
        wrapper = {"key": "SimpleLossWrapper", "kwargs": {
            "input": {"is_from_teacher": False, "module_path": "layer2", "io": "output"},
            "target": {"is_from_teacher": True, "module_path": "layer2", "io": "output"}}}
        terms = {"hint": _term("MSELoss", 1.0, wrapper, reduction="mean"),
                 "ce": _term("CrossEntropyLoss", 1.0, {"key": "SimpleLossWrapper", "kwargs": {
                     "input": {"is_from_teacher": False, "module_path": ".", "io": "output"},
                     "target": {"uses_label": True}}})}
        return _Box(teacher, student, out, out, terms), inputs
    if method == "at":
        at = _term("ATLoss", 1000.0, at_pairs=pairs([("layer1", "layer1"), ("layer2", "layer2"),
                                                      ("layer3", "layer3")]), mode="code")
        return _Box(teacher, student, out, out, {"kd": kd_term, "at": at}), inputs
    if method == "fsp":
        fsp = {"p": {"student_first": {"io": "output", "path": "layer1"}, "student_second": {"io": "output",
                                                                                            "path": "layer2"},
                     "teacher_first": {"io": "output", "path": "layer1"}, "teacher_second": {"io": "output",
                                                                                            "path": "layer2"}}}
        return _Box(teacher, student, out, out, {"fsp": _term("FSPLoss", fsp_pairs=fsp)}), inputs
    if method == "pkt":
        pkt = _term("PKTLoss", 30000.0, student_module_path="fc", student_module_io="output",
                    teacher_module_path="fc", teacher_module_io="output")
        return _Box(teacher, student, out, out, {"pkt": pkt}), inputs
    if method == "rkd":
        rkd = _term("RKDLoss", 1.0, student_output_path="avgpool", teacher_output_path="avgpool", dist_factor=25.0,
                    angle_factor=50.0, reduction="mean")
        return _Box(teacher, student, out, out, {"rkd": rkd}), inputs
    if method == "spkd":
        spkd = _term("SPKDLoss", 3000.0, student_output_path="layer3", teacher_output_path="layer3",
                     reduction="batchmean")
        return _Box(teacher, student, out, out, {"spkd": spkd}), inputs
    if method == "dist":
        return _Box(teacher, student, out, out, {"dist": _term("DISTLoss", tau=1.0, **kd)}), inputs
    if method == "dist_plus":
        plus = _term("DISTPlusLoss", student_logit_module_path="fc", student_logit_module_io="output",
                     teacher_logit_module_path="fc", teacher_logit_module_io="output",
                     student_feature_module_path="layer3", student_feature_module_io="output",
                     teacher_feature_module_path="layer3", teacher_feature_module_io="output")
        return _Box(teacher, student, out, out, {"dist_plus": plus}), inputs
    if method == "logit_std":
        return _Box(teacher, student, out, out,
                    {"kd": _term("LogitStdKDLoss", temperature=2.0, alpha=0.1, **kd)}), inputs
    if method == "skd":
        terms = {"inst": _term("SKDInstanceLoss", mode="code", **kd),
                 "dir": _term("SKDDirectionLoss", 0.1, mode="code", **kd)}
        return _Box(teacher, student, out, out, terms), inputs
    if method in ("ft", "ktaad"):
        t_wrap = Teacher4FactorTransfer(teacher, None, "teacher_model.layer3",
                                        {"k": 0.5, "num_input_channels": 64, "kernel_size": 3, "stride": 1,
                                         "padding": 1, "uses_bn": True}, ckpt, False, **dev)
        t_hooks = {"output": ["teacher_model.layer3", "paraphraser"]}
        if method == "ft":
            s_wrap: Any = Student4FactorTransfer(student, "student_model.layer3",
                                                 {"num_input_channels": 64, "num_output_channels": 32}, **dev)
            terms = {"ft": _term("FTLoss", 1000.0, p=1, paraphraser_path="paraphraser",
                                 translator_path="translator"),
                     "ce": _term("CrossEntropyLoss", 1.0, {"key": "SimpleLossWrapper", "kwargs": {
                         "input": {"is_from_teacher": False, "module_path": ".", "io": "output"},
                         "target": {"uses_label": True}}})}
            return _Box(t_wrap, s_wrap, t_hooks, {"output": ["student_model.layer3", "translator"]}, terms), inputs
        s_wrap = Student4KTAAD(student, "student_model.layer3",
                               {"conv_kwargs": {"in_channels": 64, "out_channels": 32, "kernel_size": 3, "padding": 1},
                                "bn_kwargs": {"num_features": 32}, "relu_kwargs": {"inplace": True}},
                               {"conv_kwargs": {"in_channels": 64, "out_channels": 64, "kernel_size": 1}}, **dev)
        terms = {"kta": _term("KTALoss", 1.0, p=1, q=2, knowledge_translator_path="paraphraser",
                              feature_adapter_path="feature_adapter"),
                 "aff": _term("AffinityLoss", 1.0, student_module_path="affinity_adapter",
                              teacher_module_path="teacher_model.layer3")}
        s_hooks = {"output": ["student_model.layer3", "feature_adapter", "affinity_adapter"]}
        return _Box(t_wrap, s_wrap, t_hooks, s_hooks, terms), inputs
    if method == "dab":
        connectors = {"c3": {"conv2d_kwargs": {"in_channels": 64, "out_channels": 64, "kernel_size": 1},
                             "bn2d_kwargs": {"num_features": 64}, "io": "output", "path": "student_model.layer3"}}
        s_wrap = Connector4DAB(student, connectors, **dev)
        dab = {"p": {"student": {"io": "output", "path": "connector_dict.c3"},
                     "teacher": {"io": "output", "path": "layer3"}}}
        terms = {"dab": _term("AltActTransferLoss", 1.0, feature_pairs=dab, margin=1.0, reduction="mean")}
        return _Box(teacher, s_wrap, {"output": ["layer3"]}, {"output": ["student_model.layer3", "connector_dict.c3"]},
                    terms), inputs
    if method == "vid":
        regressors = {"r3": {"kwargs": {"in_channels": 64, "middle_channels": 32, "out_channels": 64, "eps": 1e-5,
                                        "init_pred_var": 5.0}, "io": "output", "path": "student_model.layer3"}}
        s_wrap = VariationalDistributor4VID(student, regressors, **dev)
        vid = {"p": {"student": {"io": "output", "path": "regressor_dict.r3"},
                     "teacher": {"io": "output", "path": "layer3"}}}
        return _Box(teacher, s_wrap, out, {"output": ["student_model.layer3", "regressor_dict.r3"]},
                    {"vid": _term("VIDLoss", feature_pairs=vid), "kd": kd_term}), inputs
    if method == "cckd":
        lin = {"in_features": 64, "out_features": 8}
        t_wrap = Linear4CCKD({"path": "model.avgpool", "io": "output"}, lin, teacher_model=teacher, **dev)
        s_wrap = Linear4CCKD({"path": "model.avgpool", "io": "output"}, lin, student_model=student, **dev)
        hooks = {"output": ["model.avgpool", "linear"]}
        cc = _term("CCKDLoss", 0.003, student_linear_path="linear", teacher_linear_path="linear",
                   kernel_config={"type": "gaussian", "gamma": 0.4, "max_p": 2}, reduction="batchmean")
        return _Box(t_wrap, s_wrap, hooks, hooks, {"cc": cc, "kd": kd_term}), inputs
    if method == "crd":
        lin = {"in_features": 64, "out_features": 16}
        t_wrap = Linear4CRD("model.avgpool", lin, teacher_model=teacher, **dev)
        s_wrap = Linear4CRD("model.avgpool", lin, student_model=student, **dev)
        crd = {"criterion": {"key": "CRDLoss", "kwargs": {
            "student_norm_module_path": "normalizer", "student_empty_module_path": "empty",
            "teacher_norm_module_path": "normalizer", "input_size": 16, "output_size": 20,
            "num_negative_samples": 4, "num_samples": 20}}, "weight": 0.8}
        box = _Box(t_wrap, s_wrap, {"output": ["model.avgpool", "normalizer"]},
                   {"input": ["empty"], "output": ["model.avgpool", "normalizer"]}, {"crd": crd, "kd": kd_term},
                   forward_proc="batch_supp_dict")
        contrast = torch.randint(0, 20, (BATCH, 5), generator=torch.Generator().manual_seed(11))
        return box, (_images(), _labels(), {"pos_idx": torch.arange(BATCH), "contrast_idx": contrast})
    if method == "sskd":
        feat = {"path": "model.avgpool", "io": "output"}
        t_wrap = SSWrapper4SSKD(feat, 64, ckpt, freezes_ss_module=True, teacher_model=teacher, **dev)
        s_wrap = SSWrapper4SSKD(feat, 64, ckpt, student_model=student, **dev)
        hooks = {"output": ["model.avgpool", "model.fc", "ss_module"]}
        sskd = _term("SSKDLoss", student_linear_module_path="model.fc", teacher_linear_module_path="model.fc",
                     student_ss_module_path="ss_module", teacher_ss_module_path="ss_module", kl_temp=4.0,
                     ss_temp=0.5, tf_temp=4.0, ss_ratio=0.75, tf_ratio=1.0)
        return _Box(t_wrap, s_wrap, hooks, hooks, {"sskd": sskd}, forward_proc="batch4sskd"), \
            (_randn(2, 4, 3, SIZE, SIZE), _labels(2))
    if method == "pad":
        s_wrap = VarianceBranch4PAD(student, {"path": "student_model.avgpool", "io": "output"}, 64, ckpt, **dev)
        pad = _term("PADL2Loss", student_embed_module_path="student_model.avgpool",
                    teacher_embed_module_path="avgpool", module_path="var_estimator")
        return _Box(teacher, s_wrap, out, {"output": ["student_model.avgpool", "var_estimator"]},
                    {"pad": pad, "kd": kd_term}), inputs
    if method == "review":
        abfs = [{"kwargs": {"in_channels": c, "mid_channels": 16, "out_channels": c}, "io": "output",
                 "path": f"student_model.layer{i}"} for i, c in ((1, 16), (2, 32), (3, 64))]
        s_wrap = Student4KnowledgeReview(student, abfs, sizes=[1, 16, 32], **dev)
        terms = {f"hcl{i}": _term("HierarchicalContextLoss", 1.0, student_module_path=f"abf_modules.{i}",
                                  student_module_io="output", teacher_module_path=f"layer{3 - i}",
                                  teacher_module_io="output", output_sizes=[4, 2, 1]) for i in range(3)}
        s_hooks = {"output": ["student_model.layer1", "student_model.layer2", "student_model.layer3",
                              "abf_modules.0", "abf_modules.1", "abf_modules.2"]}
        return _Box(teacher, s_wrap, out, s_hooks, terms), inputs
    if method == "ickd":
        embeds = {"e3": {"in_channels": 64, "out_channels": 64, "io": "output", "path": "student_model.layer3"}}
        s_wrap = Student4ICKD(student, embeds, **dev)
        ickd = _term("ChSimLoss", 2.5, feature_pairs={"p": {"student": {"io": "output", "path": "embed_dict.e3"},
                                                            "teacher": {"io": "output", "path": "layer3"}}})
        return _Box(teacher, s_wrap, out, {"output": ["student_model.layer3", "embed_dict.e3"]},
                    {"ickd": ickd, "kd": kd_term}), inputs
    # srd
    feat = {"path": "model.avgpool", "io": "output"}
    t_wrap = SRDModelWrapper(feat, {"num_features": 64}, teacher_model=teacher, **dev)
    s_wrap = SRDModelWrapper(feat, {"num_features": 64}, linear_kwargs={"in_features": 64, "out_features": 64},
                             student_model=student, **dev)
    hooks = {"output": ["model.avgpool", "model.fc", "norm_layer"]}
    srd = _term("SRDLoss", student_feature_module_path="norm_layer", student_feature_module_io="output",
                teacher_feature_module_path="norm_layer", teacher_feature_module_io="output",
                student_linear_module_path="model.fc", student_linear_module_io="output",
                teacher_linear_module_path="model.fc", teacher_linear_module_io="output")
    return _Box(t_wrap, s_wrap, hooks, hooks, {"srd": srd}), inputs


def _distill(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run

    box, inputs = _box(name.split(".", 1)[1])
    entries = [type(box.teacher), type(box.student), type(box.criterion)] + \
        [type(c) for c, _ in box.criterion.term_dict.values()]
    holder = nn.ModuleDict({"teacher": box.teacher, "student": box.student, "criterion": box.criterion})

    def forward(owner: nn.Module, *batch: Any) -> torch.Tensor:
        return _forward_process(box, *batch)

    return Run(holder, forward, entries), inputs, {}


def _train(name: str) -> Built:
    import types

    import torch
    from torch import nn
    from torchdistill.core.interfaces.post_forward_proc import default_post_forward_process

    from gt_calls import Run

    method = name.split(".")[1]
    box, inputs = _box(method)
    params = [p for p in list(box.student.parameters()) + list(box.criterion.parameters()) if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    clip = name.endswith("clip.scheduler")
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5) if clip else None
    state = types.SimpleNamespace(stage_grad_count=0, grad_accum_step=2 if name.endswith("accumulate") else 1,
                                  accelerator=None, max_grad_norm=1.0 if clip else None, optimizer=optimizer,
                                  lr_scheduler=scheduler, scheduling_step=1 if clip else 0)
    entries = [type(box.student), type(box.criterion), default_post_forward_process]
    holder = nn.ModuleDict({"teacher": box.teacher, "student": box.student, "criterion": box.criterion})

    def step(owner: nn.Module, *batch: Any) -> torch.Tensor:
        """One training step of the box: the forward process, then backward and the optimizer step."""
        with torch.enable_grad():
            loss = _forward_process(box, *batch)
            default_post_forward_process(state, loss)
        return loss.detach()

    return Run(holder, step, entries), inputs, {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MODELS:
        return _models(name)
    if name in MODULES:
        return _modules(name)
    if name in LOSSES:
        return _losses(name)
    if name.startswith("distill."):
        return _distill(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

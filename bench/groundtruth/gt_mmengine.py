"""Ground-truth bench, mmengine: models, data preprocessors, optimizer wrappers, schedulers, hooks and structures.

MMEngine (OpenMMLab's training framework, 0.10.7) runs training as a ``Runner`` that calls, per iteration, its
hooks' ``before_train_iter``, the model's ``train_step`` (a ``BaseModel``: the data preprocessor, ``forward`` in
``loss`` mode, ``parse_losses``, ``OptimWrapper.update_params``) and the hooks' ``after_train_iter`` (the runtime
info hook's message hub updates, the parameter schedulers' steps, the EMA hook's averaged model); validation calls
``val_step`` / ``test_step`` (``predict`` mode) and feeds an ``Evaluator``'s metrics. Data travels as data
elements (``BaseDataElement``, ``InstanceData``, ``PixelData``, ``LabelData``). A user who compiles an mmengine
pipeline compiles a model's forward or step, the pieces a runner calls around it, or the structures' code, so the
tables cover, at 3 x 8 x 8 images, a batch of 2 and 3 classes (a runner is never built: the pieces it calls are
called directly, and a bench stand-in holds what they read from it):

- ``STEPS``: ``BaseModel`` subclasses written as users write them (a classifier with labels in data elements or
  as plain tensors, several losses and a list of losses, a detector with ``InstanceData`` and a segmentor with
  ``PixelData``, a GAN whose ``train_step`` takes an ``OptimWrapperDict``): ``forward`` in ``tensor`` /
  ``predict`` / ``loss`` modes, ``train_step`` with an ``OptimWrapper`` (SGD, parameter groups, accumulative
  counts with and without a maximum, gradient clipping by norm), ``val_step``, ``test_step`` and
  ``parse_losses``, behind a ``BaseDataPreprocessor`` or an ``ImgDataPreprocessor`` (mean / std, ``bgr_to_rgb``,
  ``pad_size_divisor``, list inputs of different sizes), data given as a dict or a tuple, a forward under
  mmengine's CPU ``autocast`` (bfloat16);
- ``PREPROCESS``: the data preprocessors on their own (dict, named tuple, data element and nested batches, tensor,
  list, padded and grey image batches, training or not) and ``stack_batch`` (padded) / ``merge_dict``;
- ``OPTIM``: ``OptimWrapper`` as users drive it by hand: ``update_params`` (accumulated, a maximum count),
  ``backward`` / ``step`` / ``zero_grad`` under ``optim_context``, ``scale_loss``, clipping, ``get_lr`` /
  ``get_momentum``; ``SCHEDULERS``: a train step followed by a parameter scheduler's ``step`` (linear, cosine,
  multi-step, one-cycle and cosine-restart LR, cosine momentum, a warm-up then cosine chain);
- ``AVERAGED``: ``ExponentialMovingAverage``, ``MomentumAnnealingEMA`` and ``StochasticWeightAverage``:
  ``update_parameters`` (buffers or not) and their forward;
- ``HOOKS``: ``EMAHook`` (``after_train_iter`` started or not, the swap around validation), ``RuntimeInfoHook``
  (``before_train_iter``, ``after_train_iter`` with tensor outputs, ``after_val_epoch`` with tensor metrics),
  ``ParamSchedulerHook.after_train_iter``, ``MessageHub.update_scalars`` and a whole iteration as the train loop
  runs it;
- ``STRUCTURES``: ``BaseDataElement`` (creation, ``set_field``, ``update``, ``new`` / ``clone``, ``pop``,
  ``to`` / ``detach`` / ``numpy`` / ``to_tensor``), ``InstanceData`` (creation, indexing by int, bool and long
  tensors, with a list field, ``cat``, a score filter), ``PixelData`` (creation, slicing) and ``LabelData``'s
  one-hot helpers;
- ``EVAL``: a user ``BaseMetric`` (``process`` on tensors, ``evaluate``), ``Evaluator.process`` / ``evaluate``
  and ``offline_evaluate``;
- ``UTILS``: ``BaseModule`` subclasses, ``Sequential`` / ``ModuleList`` forward, ``init_weights`` with
  ``init_cfg`` (constant, Kaiming, layered configs with an override) then the forward, the weight init functions
  (constant, Xavier, truncated normal, Kaiming, ``bias_init_with_prob``, ``trunc_normal_``),
  ``efficient_conv_bn_eval`` (the forward, its control, the fx-transformed model),
  ``revert_sync_batchnorm``, activation checkpointing, ``BaseTTAModel.test_step`` and ``detect_anomalous_params``.

``AmpOptimWrapper`` is left out (it asserts a CUDA, NPU, MLU or MUSA device), and so are the distributed wrappers,
checkpoints and the ``Runner`` itself (it writes a work directory); the visualizers and file I/O have no tensor code
a user compiles. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CH, SIZE, CLASSES, WIDTH = 2, 3, 8, 3, 4

MEAN_STD: dict[str, Any] = {"mean": [120.0, 110.0, 100.0], "std": [50.0, 60.0, 70.0]}
# Preprocessor key -> (class, keywords, inputs: "uint8" (a batch tensor), "list" (same size), "ragged" (different
# sizes), "gray" (one channel), "float").
PREPROCESSORS: dict[str, tuple[str, dict[str, Any], str]] = {
    "img": ("ImgDataPreprocessor", {**MEAN_STD, "bgr_to_rgb": True}, "list"),
    "img.tensor": ("ImgDataPreprocessor", MEAN_STD, "uint8"),
    "img.pad": ("ImgDataPreprocessor", {**MEAN_STD, "pad_size_divisor": 4, "pad_value": 1}, "ragged"),
    "img.gray": ("ImgDataPreprocessor", {"mean": [127.0], "std": [60.0]}, "gray"),
    "img.plain": ("ImgDataPreprocessor", {}, "uint8"),
    "base": ("BaseDataPreprocessor", {}, "float"),
}

# ``BaseModel`` model name -> (model kind, preprocessor key, call, options). Kinds: "cls" (labels in data
# elements), "cls.tensor" (labels as a tensor, as in mmengine's docs), "cls.multi" (several losses, one a list),
# "det" (``InstanceData``), "seg" (``PixelData``). Calls: "tensor" / "predict" / "loss" (forward modes),
# "train_step", "val_step", "test_step", "parse_losses", "autocast" (the tensor mode under mmengine's autocast).
# Options: "optim" ("groups": two parameter groups, else one), "accumulate", "max_counts", "clip" ("norm"),
# "data" ("tuple": a tuple behind a ``BaseDataPreprocessor``, else a dict).
STEPS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "cls.forward.tensor": ("cls", "img", "tensor", {}),
    "cls.forward.predict": ("cls", "img", "predict", {}),
    "cls.forward.loss": ("cls", "img", "loss", {}),
    "cls.forward.autocast": ("cls", "img", "autocast", {}),
    "cls_tensor_labels.forward.loss": ("cls.tensor", "base", "loss", {}),
    "cls_multi_loss.forward.loss": ("cls.multi", "img", "loss", {}),
    "cls.parse_losses": ("cls.multi", "img", "parse_losses", {}),
    "cls.train_step": ("cls", "img", "train_step", {}),
    "cls.train_step.param_groups": ("cls", "img", "train_step", {"optim": "groups"}),
    "cls.train_step.accumulate": ("cls", "img", "train_step", {"accumulate": 2}),
    "cls.train_step.accumulate.max_counts": ("cls", "img", "train_step", {"accumulate": 3, "max_counts": 5}),
    "cls.train_step.clip_norm": ("cls", "img", "train_step", {"clip": "norm"}),
    "cls.train_step.img_pad": ("cls", "img.pad", "train_step", {}),
    "cls.train_step.tuple_data": ("cls", "img", "train_step", {"data": "tuple"}),
    "cls_tensor_labels.train_step": ("cls.tensor", "base", "train_step", {}),
    "cls.val_step": ("cls", "img", "val_step", {}),
    "det.forward.predict": ("det", "img", "predict", {}),
    "det.train_step": ("det", "img", "train_step", {}),
    "det.val_step": ("det", "img.pad", "val_step", {}),
    "seg.train_step": ("seg", "img", "train_step", {}),
    "seg.test_step": ("seg", "img", "test_step", {}),
}
GAN = ("gan.train_step",)

# Preprocessor model name -> (preprocessor key, data: "dict" / "list" / "namedtuple" / "element" / "nested" or the
# preprocessor's own inputs, training).
PREPROCESS: dict[str, tuple[str, str, bool]] = {
    "BaseDataPreprocessor.dict": ("base", "dict", False),
    "BaseDataPreprocessor.namedtuple": ("base", "namedtuple", True),
    "BaseDataPreprocessor.data_element": ("base", "element", False),
    "BaseDataPreprocessor.nested": ("base", "nested", True),
    "ImgDataPreprocessor.list.bgr_to_rgb": ("img", "inputs", True),
    "ImgDataPreprocessor.tensor": ("img.tensor", "inputs", False),
    "ImgDataPreprocessor.ragged.pad_size_divisor": ("img.pad", "inputs", True),
    "ImgDataPreprocessor.gray": ("img.gray", "inputs", False),
}
FUNCTIONS = ("stack_batch.pad", "merge_dict")

# Optimizer wrapper model name -> (wrapper keywords, what the step does: "update", "manual", "context",
# "scale", "lr").
OPTIM: dict[str, tuple[dict[str, Any], str]] = {
    "OptimWrapper.update_params": ({}, "update"),
    "OptimWrapper.update_params.accumulate": ({"accumulative_counts": 2}, "update"),
    "OptimWrapper.update_params.max_counts": ({"accumulative_counts": 2, "max_counts": 3}, "update"),
    "OptimWrapper.update_params.clip_norm": ({"clip_grad": {"max_norm": 1.0}}, "update"),
    "OptimWrapper.update_params.clip_value": ({"clip_grad": {"type": "value", "clip_value": 0.1}}, "update"),
    "OptimWrapper.backward_step_zero_grad": ({}, "manual"),
    "OptimWrapper.optim_context.accumulate": ({"accumulative_counts": 2}, "context"),
    "OptimWrapper.scale_loss.max_counts": ({"accumulative_counts": 3, "max_counts": 4}, "scale"),
    "OptimWrapper.get_lr_momentum": ({}, "lr"),
}

# Scheduler model name -> (scheduler classes of ``mmengine.optim`` with their keywords).
SCHEDULERS: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "LinearLR": (("LinearLR", {"start_factor": 0.1, "end": 4, "by_epoch": False}),),
    "CosineAnnealingLR": (("CosineAnnealingLR", {"T_max": 4, "eta_min": 1e-4, "by_epoch": False}),),
    "MultiStepLR": (("MultiStepLR", {"milestones": [1, 2], "gamma": 0.5, "by_epoch": False}),),
    "OneCycleLR": (("OneCycleLR", {"eta_max": 0.1, "total_steps": 10, "by_epoch": False}),),
    "CosineRestartLR": (("CosineRestartLR", {"periods": [2, 3], "restart_weights": [1, 0.5], "eta_min": 1e-4,
                                             "by_epoch": False}),),
    "CosineAnnealingMomentum": (("CosineAnnealingMomentum", {"T_max": 4, "eta_min": 0.5, "by_epoch": False}),),
    "warmup_then_cosine": (("LinearLR", {"start_factor": 0.1, "begin": 0, "end": 2, "by_epoch": False}),
                           ("CosineAnnealingLR", {"T_max": 6, "begin": 2, "end": 8, "by_epoch": False})),
}

# Averaged model name -> (class, keywords, call: "update" or "forward").
AVERAGED: dict[str, tuple[str, dict[str, Any], str]] = {
    "ExponentialMovingAverage.update_parameters": ("ExponentialMovingAverage", {"momentum": 0.01}, "update"),
    "ExponentialMovingAverage.update_buffers": ("ExponentialMovingAverage", {"update_buffers": True}, "update"),
    "ExponentialMovingAverage.forward": ("ExponentialMovingAverage", {}, "forward"),
    "MomentumAnnealingEMA.update_parameters": ("MomentumAnnealingEMA", {"momentum": 0.01, "gamma": 10}, "update"),
    "StochasticWeightAverage.update_parameters": ("StochasticWeightAverage", {}, "update"),
}

HOOKS = ("EMAHook.after_train_iter", "EMAHook.after_train_iter.not_started", "EMAHook.swap_for_val",
         "RuntimeInfoHook.before_train_iter", "RuntimeInfoHook.after_train_iter", "RuntimeInfoHook.after_val_epoch",
         "ParamSchedulerHook.after_train_iter", "MessageHub.update_scalars", "train_loop.iteration")

STRUCTURES = ("BaseDataElement.create", "BaseDataElement.set_field.update", "BaseDataElement.new_clone",
              "BaseDataElement.pop.contains", "BaseDataElement.to.detach", "BaseDataElement.numpy.to_tensor",
              "InstanceData.create", "InstanceData.getitem.int", "InstanceData.getitem.bool",
              "InstanceData.getitem.long", "InstanceData.getitem.bool.list_field", "InstanceData.cat",
              "InstanceData.score_filter", "PixelData.create", "PixelData.getitem", "LabelData.label_to_onehot",
              "LabelData.onehot_to_label")

EVAL = ("BaseMetric.process_evaluate", "Evaluator.process_evaluate", "Evaluator.offline_evaluate")

UTILS = ("BaseModule.forward", "Sequential.forward", "ModuleList.forward",
         "init_weights.constant", "init_weights.kaiming", "init_weights.override",
         "constant_init", "xavier_init", "trunc_normal_init", "kaiming_init", "bias_init_with_prob", "trunc_normal_",
         "efficient_conv_bn_eval_forward", "efficient_conv_bn_eval_control", "turn_on_efficient_conv_bn_eval",
         "revert_sync_batchnorm", "turn_on_activation_checkpointing", "BaseTTAModel.test_step",
         "detect_anomalous_params")


def names() -> list[str]:
    return ([f"model.{n}" for n in (*STEPS, *GAN)] + [f"preprocess.{n}" for n in (*PREPROCESS, *FUNCTIONS)]
            + [f"optim.{n}" for n in OPTIM] + [f"scheduler.{n}" for n in SCHEDULERS]
            + [f"averaged.{n}" for n in AVERAGED] + [f"hooks.{n}" for n in HOOKS]
            + [f"structures.{n}" for n in STRUCTURES] + [f"eval.{n}" for n in EVAL]
            + [f"utils.{n}" for n in UTILS])


# ---------------------------------------------------------------------------------------------------------------
# The user models: subclasses of ``BaseModel`` as mmengine's docs and the OpenMMLab libraries write them.


def _models() -> dict[str, Any]:
    import torch
    import torch.nn.functional as F
    from mmengine.model import BaseModel
    from mmengine.structures import InstanceData, PixelData
    from torch import nn

    def backbone(channels: int) -> nn.Module:
        return nn.Sequential(nn.Conv2d(channels, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH), nn.ReLU())

    class Classifier(BaseModel):
        """Labels in data elements (``gt_label``); predictions written back as ``pred_score`` / ``pred_label``."""

        def __init__(self, data_preprocessor: Any, channels: int = CH, multi: bool = False) -> None:
            super().__init__(data_preprocessor=data_preprocessor)
            self.backbone = backbone(channels)
            self.head = nn.Linear(WIDTH, CLASSES)
            self.aux = nn.Linear(WIDTH, CLASSES)
            self.multi = multi

        def forward(self, inputs: Any, data_samples: Any = None, mode: str = "tensor") -> Any:
            feats = self.backbone(inputs).mean((2, 3))
            logits = self.head(feats)
            if mode == "tensor":
                return logits
            if mode == "predict":
                scores = logits.softmax(-1)
                for sample, score in zip(data_samples, scores):
                    sample.set_field(score, "pred_score")
                    sample.pred_label = score.argmax(-1, keepdim=True)
                return data_samples
            labels = torch.cat([sample.gt_label for sample in data_samples])
            losses = {"loss_cls": F.cross_entropy(logits, labels),
                      "accuracy": (logits.argmax(-1) == labels).float().mean()}
            if self.multi:
                aux = self.aux(feats)
                losses["loss_aux"] = [F.cross_entropy(aux, labels) * 0.5, aux.pow(2).mean() * 0.1]
            return losses

    class TensorClassifier(BaseModel):
        """The docs' toy model: ``data_samples`` is a list of label tensors, stacked in ``forward``."""

        def __init__(self, data_preprocessor: Any) -> None:
            super().__init__(data_preprocessor=data_preprocessor)
            self.backbone = backbone(CH)
            self.head = nn.Linear(WIDTH, CLASSES)

        def forward(self, inputs: Any, data_samples: Any = None, mode: str = "tensor") -> Any:
            logits = self.head(self.backbone(inputs).mean((2, 3)))
            if mode == "tensor":
                return logits
            labels = torch.stack(data_samples)
            if mode == "predict":
                return [logits.argmax(1), labels]
            return {"loss": F.cross_entropy(logits, labels)}

    class Detector(BaseModel):
        """Boxes and labels in ``gt_instances`` (``InstanceData``); predictions kept above a score threshold."""

        def __init__(self, data_preprocessor: Any) -> None:
            super().__init__(data_preprocessor=data_preprocessor)
            self.backbone = backbone(CH)
            self.cls = nn.Conv2d(WIDTH, CLASSES, 1)
            self.reg = nn.Conv2d(WIDTH, 4, 1)

        def forward(self, inputs: Any, data_samples: Any = None, mode: str = "tensor") -> Any:
            feats = self.backbone(inputs)
            cls, reg = self.cls(feats).flatten(2), self.reg(feats).flatten(2)
            if mode == "tensor":
                return cls, reg
            if mode == "predict":
                for sample, c, r in zip(data_samples, cls, reg):
                    scores, labels = c.sigmoid().max(0)
                    results = InstanceData(metainfo={"img_shape": sample.metainfo.get("img_shape")})
                    results.scores = scores
                    results.labels = labels
                    results.bboxes = r.t()
                    sample.pred_instances = results[results.scores > 0.5]
                return data_samples
            loss_cls, loss_bbox = [], []
            for sample, c, r in zip(data_samples, cls, reg):
                gt = sample.gt_instances
                n = len(gt)
                loss_cls.append(F.cross_entropy(c[:, :n].t(), gt.labels))
                loss_bbox.append(F.l1_loss(r[:, :n].t(), gt.bboxes))
            return {"loss_cls": torch.stack(loss_cls).mean(), "loss_bbox": loss_bbox}

    class Segmentor(BaseModel):
        """A per-pixel label map in ``gt_sem_seg`` (``PixelData``); predictions as ``PixelData``."""

        def __init__(self, data_preprocessor: Any) -> None:
            super().__init__(data_preprocessor=data_preprocessor)
            self.backbone = backbone(CH)
            self.head = nn.Conv2d(WIDTH, CLASSES, 1)

        def forward(self, inputs: Any, data_samples: Any = None, mode: str = "tensor") -> Any:
            logits = self.head(self.backbone(inputs))
            if mode == "tensor":
                return logits
            if mode == "predict":
                for sample, logit in zip(data_samples, logits):
                    sample.seg_logits = PixelData(data=logit)
                    sample.pred_sem_seg = PixelData(data=logit.argmax(0, keepdim=True))
                return data_samples
            labels = torch.stack([sample.gt_sem_seg.data for sample in data_samples]).squeeze(1)
            return {"loss_ce": F.cross_entropy(logits, labels)}

    class GAN(BaseModel):
        """A generator and a discriminator, each with its own ``OptimWrapper`` in an ``OptimWrapperDict``."""

        def __init__(self, data_preprocessor: Any) -> None:
            super().__init__(data_preprocessor=data_preprocessor)
            self.generator = nn.Sequential(nn.Linear(WIDTH, CH * SIZE * SIZE), nn.Tanh())
            self.discriminator = nn.Sequential(nn.Flatten(), nn.Linear(CH * SIZE * SIZE, 1))

        def forward(self, inputs: Any, data_samples: Any = None, mode: str = "tensor") -> Any:
            noise = torch.randn(inputs.shape[0], WIDTH)
            return self.generator(noise).view(-1, CH, SIZE, SIZE)

        def train_step(self, data: Any, optim_wrapper: Any) -> Any:
            data = self.data_preprocessor(data, True)
            real = data["inputs"]
            d_wrapper, g_wrapper = optim_wrapper["discriminator"], optim_wrapper["generator"]
            with d_wrapper.optim_context(self.discriminator):
                fake = self(real).detach()
                loss_d = F.softplus(self.discriminator(fake)).mean() + F.softplus(-self.discriminator(real)).mean()
            parsed_d, log_d = self.parse_losses({"loss_d": loss_d})
            d_wrapper.update_params(parsed_d)
            with g_wrapper.optim_context(self.generator):
                loss_g = F.softplus(-self.discriminator(self(real))).mean()
            parsed_g, log_g = self.parse_losses({"loss_g": loss_g})
            g_wrapper.update_params(parsed_g)
            return {**log_d, **log_g}

    return {"Classifier": Classifier, "TensorClassifier": TensorClassifier, "Detector": Detector,
            "Segmentor": Segmentor, "GAN": GAN}


def _preprocessor(key: str) -> Any:
    from mmengine.model import BaseDataPreprocessor, ImgDataPreprocessor

    cls, kwargs, _ = PREPROCESSORS[key]
    return ImgDataPreprocessor(**kwargs) if cls == "ImgDataPreprocessor" else BaseDataPreprocessor(**kwargs)


def _images(kind: str) -> Any:
    import torch

    if kind == "uint8":
        return torch.randint(0, 256, (BATCH, CH, SIZE, SIZE), dtype=torch.uint8)
    if kind == "float":
        return torch.randn(BATCH, CH, SIZE, SIZE)
    if kind == "gray":
        return [torch.randint(0, 256, (1, SIZE, SIZE), dtype=torch.uint8) for _ in range(BATCH)]
    if kind == "ragged":
        return [torch.randint(0, 256, (CH, SIZE - i, SIZE - 2 * i), dtype=torch.uint8) for i in range(BATCH)]
    return [torch.randint(0, 256, (CH, SIZE, SIZE), dtype=torch.uint8) for _ in range(BATCH)]


def _samples(kind: str) -> list[Any]:
    """A batch's data samples for a model ``kind``."""
    import torch
    from mmengine.structures import BaseDataElement, InstanceData, PixelData

    samples: list[Any] = []
    for i in range(BATCH):
        meta = {"img_shape": (SIZE, SIZE), "ori_shape": (SIZE, SIZE), "sample_idx": i}
        if kind == "cls.tensor":
            samples.append(torch.tensor(i % CLASSES))
        elif kind == "det":
            gt = InstanceData(metainfo=meta)
            gt.bboxes = torch.rand(i + 2, 4) * SIZE
            gt.labels = torch.randint(0, CLASSES, (i + 2,))
            samples.append(BaseDataElement(metainfo=meta, gt_instances=gt))
        elif kind == "seg":
            samples.append(BaseDataElement(metainfo=meta, gt_sem_seg=PixelData(
                data=torch.randint(0, CLASSES, (1, SIZE, SIZE)))))
        else:
            samples.append(BaseDataElement(metainfo=meta, gt_label=torch.tensor([i % CLASSES])))
    return samples


def _wrapper(params: Any, options: dict[str, Any], model: Any = None) -> Any:
    import torch
    from mmengine.optim import OptimWrapper

    if options.get("optim") == "groups":
        params = list(params)
        optimizer: Any = torch.optim.SGD([{"params": params[:2], "lr": 0.01}, {"params": params[2:]}], lr=0.1,
                                         momentum=0.9)
    else:
        optimizer = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    clip: dict[str, Any] | None = None
    if options.get("clip") == "norm":
        clip = {"max_norm": 1.0, "norm_type": 2}
    wrapper = OptimWrapper(optimizer, accumulative_counts=options.get("accumulate", 1), clip_grad=clip)
    if "max_counts" in options and model is not None:
        wrapper.initialize_count_status(model, 0, options["max_counts"])
    return wrapper


def _train(fn: Any) -> Any:
    """``fn`` under ``enable_grad`` (the worker's eval pass runs under ``no_grad``; a train step still needs
    gradients)."""
    import torch

    def run(*args: Any) -> Any:
        with torch.enable_grad():
            return fn(*args)
    return run


def _build_step(name: str) -> Built:
    import torch
    from gt_calls import Run
    from mmengine.model import BaseModel
    from mmengine.runner.amp import autocast

    kind, pre, call, options = STEPS[name]
    models = _models()
    channels = 1 if pre == "img.gray" else CH
    preprocessor = _preprocessor(pre)
    if kind == "cls.tensor":
        model: Any = models["TensorClassifier"](preprocessor)
    elif kind == "det":
        model = models["Detector"](preprocessor)
    elif kind == "seg":
        model = models["Segmentor"](preprocessor)
    else:
        model = models["Classifier"](preprocessor, channels=channels, multi=kind == "cls.multi")
    inputs = _images(PREPROCESSORS[pre][2])
    samples = _samples(kind)
    data: Any = {"inputs": inputs, "data_samples": samples}
    if options.get("data") == "tuple":
        model.data_preprocessor = _preprocessor("base")
        data = (torch.stack(inputs).float(), samples)
    if call in ("tensor", "predict", "loss", "autocast"):
        processed = model.data_preprocessor(data, call == "loss")
        x, ds = processed["inputs"], processed["data_samples"]
        if call == "autocast":
            def run_autocast(owner: Any, x: Any) -> Any:
                with autocast(device_type="cpu", dtype=torch.bfloat16):
                    return owner(x, mode="tensor")
            return Run(model, run_autocast, [autocast]), (x,), {}
        if call == "loss":
            return Run(model, _train(lambda owner, x: owner(x, ds, mode="loss")), [type(model)]), (x,), {}
        return Run(model, lambda owner, x: owner(x, ds, mode=call), [type(model)]), (x,), {}
    if call == "parse_losses":
        processed = model.data_preprocessor(data, True)
        x, ds = processed["inputs"], processed["data_samples"]
        return Run(model, lambda owner, x: owner.parse_losses(owner(x, ds, mode="loss")),
                   [BaseModel.parse_losses]), (x,), {}
    if call == "train_step":
        wrapper = _wrapper(model.parameters(), options, model)
        return Run(model, _train(lambda owner, d: owner.train_step(d, wrapper)), [BaseModel.train_step]), (data,), {}
    method = getattr(BaseModel, call)
    return Run(model, lambda owner, d: getattr(owner, call)(d), [method]), (data,), {}


def _build_gan(name: str) -> Built:
    import torch
    from gt_calls import Run
    from mmengine.optim import OptimWrapper, OptimWrapperDict

    model = _models()["GAN"](_preprocessor("img"))
    data = {"inputs": _images("list"), "data_samples": None}
    if name == "gan.forward.tensor":
        return Run(model, lambda owner, x: owner(x), [type(model)]), (torch.randn(BATCH, CH, SIZE, SIZE),), {}
    wrappers = OptimWrapperDict(
        generator=OptimWrapper(torch.optim.Adam(model.generator.parameters(), lr=1e-3)),
        discriminator=OptimWrapper(torch.optim.Adam(model.discriminator.parameters(), lr=1e-3)))
    return Run(model, _train(lambda owner, d: owner.train_step(d, wrappers)), [type(model).train_step]), (data,), {}


def _build_preprocess(name: str) -> Built:
    import collections

    import torch
    from gt_calls import Call, Run
    from mmengine.model import merge_dict, stack_batch
    from mmengine.structures import BaseDataElement

    if name in FUNCTIONS:
        if name == "merge_dict":
            return Call(lambda a, b: merge_dict({"loss": a}, {"acc": b}, {"lr": 0.1})), \
                (torch.randn(()), torch.rand(())), {}
        return Call(lambda *xs: stack_batch([x.float() for x in xs], pad_size_divisor=4, pad_value=0)), \
            tuple(_images("ragged")), {}
    key, data_kind, training = PREPROCESS[name]
    preprocessor = _preprocessor(key)
    x = torch.randn(BATCH, CH, SIZE, SIZE)
    y = torch.randint(0, CLASSES, (BATCH,))
    if data_kind == "inputs":
        data: Any = {"inputs": _images(PREPROCESSORS[key][2]), "data_samples": _samples("cls")}
    elif data_kind == "dict":
        data = {"inputs": x, "data_samples": y, "meta": "train"}
    elif data_kind == "list":
        data = [x, y]
    elif data_kind == "namedtuple":
        data = collections.namedtuple("Batch", ["inputs", "labels"])(x, y)
    elif data_kind == "element":
        data = BaseDataElement(metainfo={"img_shape": (SIZE, SIZE)}, inputs=x, labels=y)
    else:
        data = {"inputs": [x, {"mask": x > 0}], "data_samples": (_samples("cls"), None, b"raw")}
    return Run(preprocessor, lambda owner, d: owner(d, training), [type(preprocessor)]), (data,), {}


def _net() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(WIDTH, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, CLASSES))


def _build_optim(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from gt_calls import Run
    from mmengine.optim import OptimWrapper

    kwargs, how = OPTIM[name]
    kwargs = dict(kwargs)
    net = _net()
    max_counts = kwargs.pop("max_counts", None)
    if "clip_grad" in kwargs:
        kwargs["clip_grad"] = dict(kwargs["clip_grad"])
    wrapper = OptimWrapper(torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9), **kwargs)
    if max_counts is not None:
        wrapper.initialize_count_status(net, 0, max_counts)
    x, y = torch.randn(BATCH * 2, WIDTH), torch.randint(0, CLASSES, (BATCH * 2,))

    def step(owner: Any, x: Any, y: Any) -> Any:
        with torch.enable_grad():
            if how == "update":
                loss = F.cross_entropy(owner(x), y)
                wrapper.update_params(loss)
                return loss
            if how == "manual":
                loss = F.cross_entropy(owner(x), y)
                wrapper.backward(loss)
                wrapper.step()
                wrapper.zero_grad()
                return loss
            if how == "context":
                with wrapper.optim_context(owner):
                    loss = F.cross_entropy(owner(x), y)
                loss = wrapper.scale_loss(loss)
                wrapper.backward(loss)
                if wrapper.should_update():
                    wrapper.step()
                    wrapper.zero_grad()
                return loss
            if how == "scale":
                loss = wrapper.scale_loss(F.cross_entropy(owner(x), y))
                wrapper.backward(loss)
                return loss, wrapper.should_update(), wrapper.should_sync(), wrapper.inner_count
            loss = F.cross_entropy(owner(x), y)
            wrapper.update_params(loss)
            lr, momentum = wrapper.get_lr(), wrapper.get_momentum()
            return loss * lr["lr"][0] + momentum["momentum"][0]
    return Run(net, step, [OptimWrapper.update_params]), (x, y), {}


def _build_scheduler(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from gt_calls import Run
    from mmengine.optim import OptimWrapper, scheduler as mm_scheduler

    net = _net()
    wrapper = OptimWrapper(torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9))
    schedulers = [getattr(mm_scheduler, cls)(wrapper, **kwargs) for cls, kwargs in SCHEDULERS[name]]
    x, y = torch.randn(BATCH * 2, WIDTH), torch.randint(0, CLASSES, (BATCH * 2,))

    def step(owner: Any, x: Any, y: Any) -> Any:
        with torch.enable_grad():
            loss = F.cross_entropy(owner(x), y)
            wrapper.update_params(loss)
        for scheduler in schedulers:
            scheduler.step()
        return loss, schedulers[-1].get_last_value()
    return Run(net, step, [type(s).step for s in schedulers]), (x, y), {}


def _build_averaged(name: str) -> Built:
    import torch
    from gt_calls import Run
    from mmengine import model as mm

    cls, kwargs, how = AVERAGED[name]
    net = _net()
    averaged = getattr(mm, cls)(net, **kwargs)
    x = torch.randn(BATCH * 2, WIDTH)
    if how == "forward":
        return Run(averaged, lambda owner, x: owner(x), [type(averaged)]), (x,), {}

    def update(owner: Any, x: Any) -> Any:
        with torch.no_grad():
            for p in net.parameters():
                p.add_(x.mean() * 0.01)
        owner.update_parameters(net)
        owner.update_parameters(net)
        return owner.steps
    return Run(averaged, update, [type(averaged).update_parameters]), (x,), {}


class _RunnerStandIn:
    """What the hooks read from a ``Runner``: the model, its optimizer wrapper and schedulers, the message hub,
    ``iter`` / ``epoch`` and their maxima."""

    def __init__(self, model: Any, optim_wrapper: Any, param_schedulers: Any, message_hub: Any) -> None:
        self.model = model
        self.optim_wrapper = optim_wrapper
        self.param_schedulers = param_schedulers
        self.message_hub = message_hub
        self.iter = 0
        self.epoch = 0
        self.max_iters = 10
        self.max_epochs = 2


def _build_hook(name: str) -> Built:
    import torch
    from gt_calls import Run
    from mmengine.hooks import EMAHook, ParamSchedulerHook, RuntimeInfoHook
    from mmengine.logging import MessageHub
    from mmengine.model import BaseModel
    from mmengine.optim import LinearLR

    model = _models()["Classifier"](_preprocessor("img"))
    wrapper = _wrapper(model.parameters(), {})
    schedulers = [LinearLR(wrapper, start_factor=0.1, end=4, by_epoch=False)]
    hub = MessageHub.get_instance(f"gt_{name}")
    runner = _RunnerStandIn(model, wrapper, schedulers, hub)
    data = {"inputs": _images("list"), "data_samples": _samples("cls")}
    x = model.data_preprocessor(data, False)["inputs"]
    if name.startswith("EMAHook"):
        ema = EMAHook(momentum=0.01, begin_iter=5 if name.endswith("not_started") else 0)
        ema.before_run(runner)
        ema.before_train(runner)
        if name == "EMAHook.swap_for_val":
            def swap(owner: Any, x: Any) -> Any:
                ema.before_val_epoch(runner)
                out = owner(x, mode="tensor")
                ema.after_val_epoch(runner, {"accuracy": 0.5})
                return out
            return Run(model, swap, [EMAHook.before_val_epoch, EMAHook.after_val_epoch]), (x,), {}

        def after(owner: Any, x: Any) -> Any:
            with torch.no_grad():
                for p in owner.parameters():
                    p.add_(x.mean() * 0.01)
            ema.after_train_iter(runner, 0, None, None)
            return ema.ema_model.steps
        return Run(model, after, [EMAHook.after_train_iter]), (x,), {}
    info = RuntimeInfoHook()
    if name == "RuntimeInfoHook.before_train_iter":
        def before(owner: Any, x: Any) -> Any:
            info.before_train_iter(runner, 0, None)
            return owner(x, mode="tensor")
        return Run(model, before, [RuntimeInfoHook.before_train_iter]), (x,), {}
    if name == "RuntimeInfoHook.after_train_iter":
        def after_iter(owner: Any, x: Any) -> Any:
            logits = owner(x, mode="tensor")
            info.after_train_iter(runner, 0, None, {"loss": logits.pow(2).mean(), "acc": logits.max()})
            return logits
        return Run(model, after_iter, [RuntimeInfoHook.after_train_iter]), (x,), {}
    if name == "RuntimeInfoHook.after_val_epoch":
        def after_val(owner: Any, x: Any) -> Any:
            logits = owner(x, mode="tensor")
            info.after_val_epoch(runner, {"accuracy": logits.max(), "per_class": logits.mean(0), "top1": 0.5})
            return logits
        return Run(model, after_val, [RuntimeInfoHook.after_val_epoch]), (x,), {}
    if name == "ParamSchedulerHook.after_train_iter":
        hook = ParamSchedulerHook()

        def sched(owner: Any, x: Any) -> Any:
            logits = owner(x, mode="tensor")
            hook.after_train_iter(runner, 0, None, None)
            return logits
        return Run(model, sched, [ParamSchedulerHook.after_train_iter]), (x,), {}
    if name == "MessageHub.update_scalars":
        def scalars(owner: Any, x: Any) -> Any:
            logits = owner(x, mode="tensor")
            hub.update_scalars({"train/loss": logits.mean(), "train/n": {"value": logits.max(), "count": 2}})
            hub.update_scalar("train/lr", 0.1)
            return logits
        return Run(model, scalars, [MessageHub.update_scalars]), (x,), {}
    ema_hook, sched_hook = EMAHook(momentum=0.01), ParamSchedulerHook()
    ema_hook.before_run(runner)

    def iteration(owner: Any, d: Any) -> Any:
        info.before_train_iter(runner, 0, d)
        with torch.enable_grad():
            outputs = owner.train_step(d, wrapper)
        info.after_train_iter(runner, 0, d, outputs)
        sched_hook.after_train_iter(runner, 0, d, outputs)
        ema_hook.after_train_iter(runner, 0, d, outputs)
        runner.iter += 1
        return outputs
    return Run(model, iteration, [BaseModel.train_step, RuntimeInfoHook.after_train_iter]), (data,), {}


def _build_structure(name: str) -> Built:
    import torch
    from gt_calls import Call
    from mmengine.structures import BaseDataElement, InstanceData, LabelData, PixelData

    meta = {"img_shape": (SIZE, SIZE), "scale_factor": (1.0, 1.0)}
    n = 4
    boxes, scores, labels = torch.rand(n, 4), torch.rand(n), torch.randint(0, CLASSES, (n,))

    def instances(b: Any, s: Any, lab: Any) -> Any:
        return InstanceData(metainfo=meta, bboxes=b, scores=s, labels=lab)

    if name.startswith("BaseDataElement"):
        def element(b: Any, s: Any, lab: Any) -> Any:
            data = BaseDataElement(metainfo=meta, bboxes=b, scores=s)
            if name == "BaseDataElement.create":
                return data.bboxes * data.scores[:, None], data.metainfo["img_shape"], len(data.keys())
            if name == "BaseDataElement.set_field.update":
                data.set_field(lab, "labels", field_type="data", dtype=torch.Tensor)
                data.set_metainfo({"flip": True})
                other = BaseDataElement(metainfo={"pad_shape": (SIZE, SIZE)}, masks=b > 0.5)
                data.update(other)
                return [v for _, v in data.items()], data.all_keys()
            if name == "BaseDataElement.new_clone":
                new = data.new(scores=s * 2)
                clone = data.clone()
                return new.scores + clone.scores, clone.bboxes
            if name == "BaseDataElement.pop.contains":
                popped = data.pop("scores")
                return popped, "scores" in data, data.get("bboxes"), data.get("missing", lab)
            if name == "BaseDataElement.to.detach":
                moved = data.to("cpu").detach().cpu()
                return moved.bboxes + 1, moved.scores
            if name == "BaseDataElement.numpy.to_tensor":
                return data.numpy().to_tensor().bboxes
            return data.to_dict()
        return Call(element), (boxes, scores, labels), {}
    if name.startswith("InstanceData"):
        def instance(b: Any, s: Any, lab: Any) -> Any:
            data = instances(b, s, lab)
            if name == "InstanceData.create":
                data.centers = (b[:, :2] + b[:, 2:]) / 2
                return data.centers, len(data)
            if name == "InstanceData.getitem.int":
                return data[1].bboxes, data[-1].scores
            if name == "InstanceData.getitem.slice":
                return data[1:3].bboxes
            if name == "InstanceData.getitem.bool":
                return data[s > 0.5].bboxes
            if name == "InstanceData.getitem.long":
                return data[torch.tensor([0, 2])].labels, data["scores"]
            if name == "InstanceData.getitem.list":
                return data[[0, 1]].bboxes
            if name == "InstanceData.getitem.bool.list_field":
                data.names = ["a", "b", "c", "d"]
                picked = data[lab >= 0]
                return picked.bboxes, picked.names
            if name == "InstanceData.cat":
                other = instances(b + 1, s, lab)
                merged = InstanceData.cat([data, other])
                return merged.bboxes, len(merged)
            keep = data.scores > 0.3
            kept = data[keep]
            return kept.bboxes * kept.scores[:, None]
        return Call(instance), (boxes, scores, labels), {}
    if name.startswith("PixelData"):
        def pixel(seg: Any) -> Any:
            data = PixelData(metainfo=meta, sem_seg=seg, logits=seg.float().repeat(CLASSES, 1, 1))
            if name == "PixelData.create":
                return data.logits.softmax(0), data.shape
            part = data[2:6, 1:5]
            return part.logits, part.shape, data[0, 1].sem_seg
        return Call(pixel), (torch.randint(0, CLASSES, (1, SIZE, SIZE)),), {}
    if name == "LabelData.label_to_onehot":
        return Call(lambda label: LabelData(metainfo=meta, onehot=LabelData.label_to_onehot(label, CLASSES + 2))
                    .onehot), (torch.tensor([0, 2]),), {}
    return Call(lambda onehot: LabelData.onehot_to_label(onehot)), (torch.tensor([1, 0, 1, 0]),), {}


def _build_eval(name: str) -> Built:
    import torch
    from gt_calls import Run
    from mmengine.evaluator import BaseMetric, Evaluator
    from mmengine.structures import BaseDataElement

    class Accuracy(BaseMetric):
        """Top-1 accuracy and a mean score, as OpenMMLab metrics write ``process`` / ``compute_metrics``."""

        default_prefix = "cls"

        def process(self, data_batch: Any, data_samples: Any) -> None:
            for sample in data_samples:
                score = sample["pred_score"]
                self.results.append({"correct": (score.argmax() == sample["gt_label"]).sum(),
                                     "score": score.max()})

        def compute_metrics(self, results: list) -> dict:
            correct = torch.stack([r["correct"] for r in results]).float()
            scores = torch.stack([r["score"] for r in results])
            return {"accuracy": correct.mean() * 100, "mean_score": scores.mean()}

    metric = Accuracy()
    model = _models()["Classifier"](_preprocessor("img"))
    data = {"inputs": _images("list"), "data_samples": _samples("cls")}
    x = model.data_preprocessor(data, False)["inputs"]
    labels = torch.arange(BATCH) % CLASSES

    def predictions(owner: Any, x: Any) -> list[Any]:
        scores = owner(x, mode="tensor").softmax(-1)
        return [BaseDataElement(pred_score=s, gt_label=label) for s, label in zip(scores, labels)]

    if name == "BaseMetric.process_evaluate":
        def run_metric(owner: Any, x: Any) -> Any:
            samples = [sample.to_dict() for sample in predictions(owner, x)]
            metric.process(None, samples)
            return metric.evaluate(len(samples))
        return Run(model, run_metric, [BaseMetric.evaluate]), (x,), {}
    evaluator = Evaluator(metric)
    evaluator.dataset_meta = {"classes": ("a", "b", "c")}
    if name == "Evaluator.process_evaluate":
        def run_evaluator(owner: Any, x: Any) -> Any:
            samples = predictions(owner, x)
            evaluator.process(samples, None)
            return evaluator.evaluate(len(samples))
        return Run(model, run_evaluator, [Evaluator.process, Evaluator.evaluate]), (x,), {}

    def offline(owner: Any, x: Any) -> Any:
        samples = [sample.to_dict() for sample in predictions(owner, x)]
        return evaluator.offline_evaluate(samples, [{"inputs": x[i]} for i in range(BATCH)], chunk_size=1)
    return Run(model, offline, [Evaluator.offline_evaluate]), (x,), {}


def _build_util(name: str) -> Built:
    import torch
    from gt_calls import Call, Run
    from mmengine import model as mm
    from mmengine.model.efficient_conv_bn_eval import (efficient_conv_bn_eval_control,
                                                       efficient_conv_bn_eval_forward,
                                                       turn_on_efficient_conv_bn_eval)
    from mmengine.runner.activation_checkpointing import turn_on_activation_checkpointing
    from torch import nn

    x = torch.randn(BATCH, CH, SIZE, SIZE)

    class Block(mm.BaseModule):
        def __init__(self, init_cfg: Any = None) -> None:
            super().__init__(init_cfg=init_cfg)
            self.conv = nn.Conv2d(CH, WIDTH, 3, padding=1)
            self.bn = nn.BatchNorm2d(WIDTH)
            self.fc = nn.Linear(WIDTH, CLASSES)

        def forward(self, x: Any) -> Any:
            return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))

    inits: dict[str, Any] = {
        "constant": {"type": "Constant", "layer": ["Conv2d", "Linear"], "val": 0.1, "bias": 0.0},
        "kaiming": {"type": "Kaiming", "layer": "Conv2d", "mode": "fan_out", "nonlinearity": "relu"},
        "override": [{"type": "Normal", "layer": "Conv2d", "std": 0.01},
                     {"type": "Constant", "val": 1, "bias": 0, "layer": "BatchNorm2d"},
                     {"type": "Xavier", "layer": "Linear", "override": {"type": "Constant", "name": "fc",
                                                                         "val": 0.5}}],
    }
    if name == "BaseModule.forward":
        return Block(), (x,), {}
    if name.startswith("init_weights."):
        block = Block(init_cfg=inits[name.split(".", 1)[1]])

        def init_forward(owner: Any, x: Any) -> Any:
            owner._is_init = False
            with torch.no_grad():
                owner.init_weights()
            return owner(x)
        return Run(block, init_forward, [mm.BaseModule.init_weights]), (x,), {}
    if name == "Sequential.forward":
        return mm.Sequential(nn.Conv2d(CH, WIDTH, 1), nn.ReLU(), nn.Conv2d(WIDTH, CH, 1),
                             init_cfg={"type": "Constant", "layer": "Conv2d", "val": 0.1}), (x,), {}
    if name == "ModuleList.forward":
        layers = mm.ModuleList([nn.Conv2d(CH, CH, 1) for _ in range(2)])

        def through(owner: Any, x: Any) -> Any:
            for layer in owner:
                x = layer(x) + x
            return x
        return Run(layers, through, [mm.ModuleList]), (x,), {}
    init_functions: dict[str, tuple[str, dict[str, Any]]] = {
        "constant_init": ("constant_init", {"val": 0.5, "bias": 0.1}),
        "xavier_init": ("xavier_init", {"gain": 1.0, "distribution": "uniform"}),
        "trunc_normal_init": ("trunc_normal_init", {"std": 0.02, "a": -0.04, "b": 0.04}),
        "kaiming_init": ("kaiming_init", {"mode": "fan_in", "nonlinearity": "leaky_relu", "a": 0.1,
                                          "distribution": "uniform"}),
    }
    if name in init_functions:
        function, static = init_functions[name]
        conv = nn.Conv2d(CH, WIDTH, 3, padding=1)

        def init_then_forward(owner: Any, x: Any) -> Any:
            with torch.no_grad():
                getattr(mm, function)(owner, **static)
            return owner(x)
        return Run(conv, init_then_forward, [getattr(mm, function)]), (x,), {}
    if name == "bias_init_with_prob":
        conv = nn.Conv2d(CH, CLASSES, 1)

        def prior(owner: Any, x: Any) -> Any:
            with torch.no_grad():
                owner.bias.fill_(mm.bias_init_with_prob(0.01))
            return owner(x).sigmoid()
        return Run(conv, prior, [mm.bias_init_with_prob]), (x,), {}
    if name == "trunc_normal_":
        from mmengine.model.weight_init import trunc_normal_
        return Call(lambda t: trunc_normal_(t.clone(), std=0.02, a=-0.04, b=0.04)), (torch.empty(WIDTH, 8),), {}
    if name.startswith("efficient_conv_bn_eval_"):
        conv, bn = nn.Conv2d(CH, WIDTH, 3, padding=1, bias=name.endswith("forward")), nn.BatchNorm2d(WIDTH)
        bn.running_mean.uniform_(-0.1, 0.1)
        bn.running_var.uniform_(0.5, 1.5)
        pair = nn.ModuleDict({"conv": conv, "bn": bn})
        if name == "efficient_conv_bn_eval_forward":
            return Run(pair, lambda owner, x: efficient_conv_bn_eval_forward(owner["bn"], owner["conv"], x),
                       [efficient_conv_bn_eval_forward]), (x,), {}
        return Run(pair, lambda owner, x: efficient_conv_bn_eval_control(owner["bn"], owner["conv"], x),
                   [efficient_conv_bn_eval_control]), (x,), {}
    if name == "turn_on_efficient_conv_bn_eval":
        net = nn.Sequential(nn.Conv2d(CH, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH), nn.ReLU(),
                            nn.Conv2d(WIDTH, WIDTH, 1), nn.BatchNorm2d(WIDTH))
        holder = nn.ModuleDict({"backbone": net})
        turn_on_efficient_conv_bn_eval(holder, "backbone")
        return Run(holder, lambda owner, x: owner["backbone"](x), [efficient_conv_bn_eval_control]), (x,), {}
    if name == "revert_sync_batchnorm":
        net = nn.Sequential(nn.Conv2d(CH, WIDTH, 1), nn.SyncBatchNorm(WIDTH), nn.ReLU())
        net = mm.revert_sync_batchnorm(net)
        return Run(net, lambda owner, x: owner(x), [type(net[1])]), (x,), {}
    if name == "turn_on_activation_checkpointing":
        # No batch norm inside: recomputing it would bump ``num_batches_tracked`` a second time.
        block = mm.Sequential(nn.Conv2d(CH, WIDTH, 3, padding=1), nn.GELU(), nn.Conv2d(WIDTH, CH, 1))
        holder = nn.ModuleDict({"block": block})
        turn_on_activation_checkpointing(holder, ["block"])

        def checkpointed(owner: Any, x: Any) -> Any:
            with torch.enable_grad():
                out = owner["block"](x.requires_grad_())
                out.sum().backward()
            return out
        return Run(holder, checkpointed, [turn_on_activation_checkpointing]), (x.clone(),), {}
    if name == "BaseTTAModel.test_step":
        class FlipTTA(mm.BaseTTAModel):
            def merge_preds(self, data_samples_list: Any) -> Any:
                merged = []
                for samples in data_samples_list:
                    score = torch.stack([s.pred_score for s in samples]).mean(0)
                    merged.append(samples[0].new(pred_score=score, pred_label=score.argmax(-1, keepdim=True)))
                return merged

        model = _models()["Classifier"](_preprocessor("img"))
        tta = FlipTTA(module=model)
        images = _images("list")
        data = {"inputs": [images, [im.flip(-1) for im in images]],
                "data_samples": [_samples("cls"), _samples("cls")]}
        return Run(tta, lambda owner, d: owner.test_step(d), [mm.BaseTTAModel.test_step]), (data,), {}
    net = Block()

    def anomalous(owner: Any, x: Any) -> Any:
        with torch.enable_grad():
            loss = owner.conv(x).mean()
            mm.detect_anomalous_params(loss, owner)
        return loss
    return Run(net, anomalous, [mm.detect_anomalous_params]), (x,), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "model" and rest in STEPS:
        return _build_step(rest)
    if group == "model" and rest in GAN:
        return _build_gan(rest)
    if group == "preprocess" and (rest in PREPROCESS or rest in FUNCTIONS):
        return _build_preprocess(rest)
    if group == "optim" and rest in OPTIM:
        return _build_optim(rest)
    if group == "scheduler" and rest in SCHEDULERS:
        return _build_scheduler(rest)
    if group == "averaged" and rest in AVERAGED:
        return _build_averaged(rest)
    if group == "hooks" and rest in HOOKS:
        return _build_hook(rest)
    if group == "structures" and rest in STRUCTURES:
        return _build_structure(rest)
    if group == "eval" and rest in EVAL:
        return _build_eval(rest)
    if group == "utils" and rest in UTILS:
        return _build_util(rest)
    raise KeyError(name)

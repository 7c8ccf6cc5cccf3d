"""Ground-truth bench, keras: Keras 3 on its torch backend, its models, layers, trainer steps, losses, metrics and ops.

On ``KERAS_BACKEND=torch`` every Keras layer and model is a ``torch.nn.Module`` (``TorchLayer``) whose
``forward`` runs Keras' ``Layer.__call__`` (call context, masks, dtype policies, the layer's ``call``), and
``TorchTrainer`` compiles its train / test / predict step with ``torch.compile`` when ``jit_compile=True``.
So the tables cover, at batch 2 with random weights:

- ``MODELS``: ``Sequential``, functional and subclassed ``keras.Model`` calls over the core layers: dense and
  convolutional stacks (batch, group, layer and RMS normalization, pooling, dropout, padding, cropping,
  transposed, depthwise and separable convolutions), embeddings with ``mask_zero`` masks, a causal
  ``MultiHeadAttention`` block, ``MultiHeadAttention`` with an attention mask, ``GroupQueryAttention``,
  ``Attention`` over query and value masks, recurrent layers (``LSTM`` with ``return_state``, ``GRU`` behind
  ``Masking``, a masked ``Bidirectional``), in-graph preprocessing (``Normalization``, ``Rescaling``,
  ``Resizing``, ``CenterCrop``), random augmentation (``RandomFlip``, ``RandomRotation``), a custom layer
  built with ``add_weight`` and a subclassed model branching on ``training`` with ``add_loss``; each is called
  with ``training`` following the bench's mode (eval: ``False``, train: ``True``);
- ``STEPS``: a compiled model's ``train_step`` (the forward, the compiled loss, ``backward``, the optimizer's
  ``apply`` and the metrics' ``update_state``; gradients on in either mode, as in ``TorchTrainer``) on a
  single-output, a multi-output (loss dict and ``loss_weights``) and a subclassed model with ``add_loss``,
  and ``test_step`` with metrics and ``predict_step``;
- ``OPTIMIZERS``: one ``optimizer.apply(gradients, variables)`` as ``train_step`` runs it, for Keras'
  optimizers and their options (clipping, EMA, gradient accumulation, a learning-rate schedule, loss
  scaling);
- ``LOSSES`` and ``METRICS``: loss objects called on ``(y_true, y_pred)`` and metrics' ``update_state``
  then ``result``;
- ``OPS``: ``keras.ops`` functions users write models with (``where``, ``top_k``, ``argsort``, ``cond``,
  ``while_loop``, ``fori_loop``, ``scan``, ``segment_sum``, ``nonzero``, ``unique``, ``searchsorted``...).

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only,
after ``before_import()`` has chosen the torch backend.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import os
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
SEQ = 4
VOCAB = 20
WIDTH = 8

MODELS: tuple[str, ...] = (
    "Sequential.mlp", "Sequential.cnn2d", "Functional.unet", "Functional.embedding.mask_zero",
    "Functional.transformer.causal", "MultiHeadAttention.attention_mask", "GroupQueryAttention.causal",
    "Attention.masks", "LSTM.return_state", "GRU.masking", "Bidirectional.GRU.sum.masked", "preprocessing.image",
    "preprocessing.normalization", "augmentation.flip_rotate", "Subclassed.Model", "Subclassed.Layer.add_weight",
    "layers.misc", "layers.norms",
)
# Step name -> (network, optimizer, loss, metrics).
STEPS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "train_step.mlp.adam.sparse_cce.accuracy": ("mlp", "adam", "sparse_cce", ("accuracy",)),
    "train_step.multi_io.loss_weights": ("multi_io", "adam", "multi", ()),
    "train_step.subclassed.add_loss": ("subclassed", "sgd", "mse", ()),
    "test_step.mlp.metrics": ("mlp", "adam", "binary", ("precision", "recall", "f1")),
    "predict_step.cnn2d": ("cnn2d", "adam", "cce", ()),
}
# Kinds of ``_optimizer``: the model ``optimizer.<kind>.apply`` runs one ``apply`` of given gradients.
OPTIMIZERS: tuple[str, ...] = (
    "adam", "sgd", "rmsprop", "adamw", "adagrad", "adadelta", "nadam", "lion", "lamb", "adafactor", "ftrl",
    "adam.clipnorm.ema", "adam.accumulate", "sgd.schedule", "loss_scale",
)
# Loss name -> (class name, constructor keywords, kind of targets).
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "CategoricalCrossentropy.from_logits.smoothing": ("CategoricalCrossentropy",
                                                      {"from_logits": True, "label_smoothing": 0.1}, "onehot"),
    "SparseCategoricalCrossentropy.ignore_class": ("SparseCategoricalCrossentropy",
                                                   {"from_logits": True, "ignore_class": 0}, "sparse"),
    "BinaryCrossentropy": ("BinaryCrossentropy", {}, "binary"),
    "BinaryFocalCrossentropy.balanced": ("BinaryFocalCrossentropy", {"apply_class_balancing": True}, "binary"),
    "CategoricalFocalCrossentropy": ("CategoricalFocalCrossentropy", {}, "onehot"),
    "Huber": ("Huber", {"delta": 0.5}, "regression"),
    "KLDivergence": ("KLDivergence", {}, "probabilities"),
    "CosineSimilarity": ("CosineSimilarity", {"axis": -1}, "regression"),
    "Dice": ("Dice", {}, "binary"),
    "Tversky": ("Tversky", {"alpha": 0.3, "beta": 0.7}, "binary"),
    "CTC": ("CTC", {}, "ctc"),
    "Circle": ("Circle", {}, "circle"),
}
# Metric name -> (class name, constructor keywords, kind of targets).
METRICS: dict[str, tuple[str, dict[str, Any], str]] = {
    "AUC": ("AUC", {"num_thresholds": 20}, "binary"),
    "Precision.thresholds": ("Precision", {"thresholds": [0.3, 0.6]}, "binary"),
    "Recall.top_k": ("Recall", {"top_k": 2}, "multilabel"),
    "MeanIoU": ("MeanIoU", {"num_classes": 3}, "segmentation"),
    "F1Score": ("F1Score", {"threshold": 0.5}, "multilabel"),
    "R2Score": ("R2Score", {}, "regression"),
    "TopKCategoricalAccuracy": ("TopKCategoricalAccuracy", {"k": 2}, "onehot"),
    "SparseCategoricalAccuracy": ("SparseCategoricalAccuracy", {}, "sparse"),
}
OPS: tuple[str, ...] = (
    "ops.where.condition_only", "ops.where", "ops.top_k", "ops.argsort", "ops.cond", "ops.while_loop",
    "ops.fori_loop", "ops.scan", "ops.segment_sum", "ops.segment_max", "ops.nonzero", "ops.unique",
    "ops.searchsorted", "ops.dot_product_attention.causal", "ops.slice_update", "ops.stft",
    "ops.image.resize", "ops.ctc_decode.greedy",
)


def names() -> list[str]:
    return (list(MODELS) + list(STEPS) + [f"optimizer.{n}.apply" for n in OPTIMIZERS]
            + [f"losses.{n}" for n in LOSSES] + [f"metrics.{n}" for n in METRICS] + list(OPS))


def before_import() -> None:
    """Keras reads its backend on first import: choose torch."""
    os.environ["KERAS_BACKEND"] = "torch"


def _keras() -> Any:
    before_import()
    import keras

    return keras


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _randint(high: int, *shape: int, seed: int = 2, low: int = 0) -> Any:
    import torch

    return torch.randint(low, high, shape, generator=torch.Generator().manual_seed(seed))


def _training_wrapper() -> type:
    from torch import nn

    class Training(nn.Module):
        """A Keras model or layer called with ``training`` following the bench's mode, and fixed keywords."""

        def __init__(self, layer: Any, **static: Any) -> None:
            super().__init__()
            self.layer = layer
            self.static = static

        def forward(self, *inputs: Any) -> Any:
            return self.layer(*inputs, training=self.training, **self.static)

        def entry_points(self) -> list[Any]:
            return [type(self.layer)]

    return Training


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A Keras network and its inputs."""
    keras = _keras()
    from keras import layers

    if kind == "mlp":
        return keras.Sequential([keras.Input((WIDTH,)), layers.Dense(16, activation="relu"),
                                 layers.BatchNormalization(), layers.Dropout(0.2), layers.Dense(4)]), \
            (_randn(BATCH, WIDTH),)
    if kind == "cnn2d":
        return keras.Sequential([
            keras.Input((8, 8, 3)), layers.Conv2D(4, 3, padding="same", activation="relu"),
            layers.BatchNormalization(), layers.MaxPooling2D(), layers.Conv2D(4, 3, strides=1),
            layers.SpatialDropout2D(0.1), layers.GlobalAveragePooling2D(), layers.Dense(3, activation="softmax"),
        ]), (_randn(BATCH, 8, 8, 3),)
    if kind == "unet":
        inputs = keras.Input((8, 8, 3))
        x = layers.Conv2D(4, 3, padding="same")(inputs)
        x = layers.GroupNormalization(groups=2)(x)
        skip = layers.ReLU()(x)
        y = layers.DepthwiseConv2D(3, padding="same")(skip)
        y = layers.SeparableConv2D(4, 3, padding="same", activation="swish")(y)
        y = layers.Add()([y, skip])
        down = layers.AveragePooling2D(2)(y)
        up = layers.Conv2DTranspose(4, 2, strides=2)(down)
        up2 = layers.UpSampling2D(interpolation="bilinear")(down)
        z = layers.Concatenate()([up, up2, y])
        z = layers.Cropping2D(1)(layers.ZeroPadding2D(1)(z))
        return keras.Model(inputs, layers.Conv2D(2, 1)(z)), (_randn(BATCH, 8, 8, 3),)
    if kind == "multi_io":
        a, b = keras.Input((WIDTH,), name="a"), keras.Input((4,), name="b")
        h = layers.Concatenate()([layers.Dense(8, activation="gelu")(a), b])
        h = layers.Dropout(0.1)(h)
        outputs = {"cls": layers.Dense(3, activation="softmax", name="cls")(h),
                   "reg": layers.Dense(1, name="reg")(h)}
        return keras.Model({"a": a, "b": b}, outputs), ({"a": _randn(BATCH, WIDTH), "b": _randn(BATCH, 4, seed=3)},)
    if kind == "subclassed":
        return _subclassed(), (_randn(BATCH, WIDTH),)
    raise KeyError(kind)


def _subclassed() -> Any:
    keras = _keras()
    from keras import layers, ops

    class Residual(keras.Model):
        """A subclassed model: a branch on ``training`` (input noise), ``add_loss`` of an activity penalty."""

        def __init__(self) -> None:
            super().__init__()
            self.dense = layers.Dense(WIDTH, activation="relu")
            self.norm = layers.LayerNormalization()
            self.drop = layers.Dropout(0.2)
            self.head = layers.Dense(1)

        def call(self, x: Any, training: bool | None = None) -> Any:
            if training:
                x = x + 0.01 * keras.random.normal(ops.shape(x), seed=self.seed_generator)
            h = self.norm(x + self.drop(self.dense(x), training=training))
            self.add_loss(1e-3 * ops.mean(ops.square(h)))
            return self.head(h)

        def build(self, shape: Any) -> None:
            self.seed_generator = keras.random.SeedGenerator(3)
            super().build(shape)

    model = Residual()
    model(_randn(BATCH, WIDTH))
    return model


def _custom_layer_model() -> Any:
    keras = _keras()
    from keras import layers, ops

    class Gated(layers.Layer):
        """A custom layer with weights from ``add_weight`` in ``build``, masks passed through."""

        def __init__(self, units: int) -> None:
            super().__init__()
            self.units = units
            self.supports_masking = True

        def build(self, shape: Any) -> None:
            self.kernel = self.add_weight(shape=(shape[-1], 2 * self.units), initializer="glorot_uniform")
            self.bias = self.add_weight(shape=(2 * self.units,), initializer="zeros")

        def call(self, x: Any, mask: Any = None) -> Any:
            h, gate = ops.split(ops.matmul(x, self.kernel) + self.bias, 2, axis=-1)
            out = h * ops.sigmoid(gate)
            if mask is not None:
                out = out * ops.expand_dims(ops.cast(mask, out.dtype), -1)
            return out

    inputs = keras.Input((SEQ,), dtype="int32")
    x = layers.Embedding(VOCAB, WIDTH, mask_zero=True)(inputs)
    x = Gated(WIDTH)(x)
    return keras.Model(inputs, layers.GlobalAveragePooling1D()(x))


def _tokens(seed: int = 2) -> Any:
    ids = _randint(VOCAB, BATCH, SEQ, seed=seed, low=1)
    ids[1, -2:] = 0
    return ids


def _model(name: str) -> Built:
    import torch

    keras = _keras()
    from keras import layers, ops

    Training = _training_wrapper()
    if name in ("Sequential.mlp", "Sequential.cnn2d", "Functional.unet"):
        net, inputs = _net(name.split(".")[1])
        return Training(net), inputs, {}
    if name == "Functional.embedding.mask_zero":
        inputs = keras.Input((SEQ,), dtype="int32")
        x = layers.Embedding(VOCAB, WIDTH, mask_zero=True)(inputs)
        x = layers.Dense(WIDTH, activation="tanh")(x)
        x = layers.GlobalAveragePooling1D()(x)
        return Training(keras.Model(inputs, layers.Dense(2)(x))), (_tokens(),), {}
    if name == "Functional.transformer.causal":
        ids = keras.Input((SEQ,), dtype="int32")
        x = layers.Embedding(VOCAB, WIDTH, mask_zero=True)(ids)
        x = x + layers.Embedding(SEQ, WIDTH)(ops.arange(SEQ))
        h = layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.1)(x, x, use_causal_mask=True)
        x = layers.LayerNormalization()(layers.Add()([x, h]))
        ff = layers.Dense(WIDTH)(layers.Dense(16, activation="gelu")(x))
        x = layers.LayerNormalization()(x + layers.Dropout(0.1)(ff))
        return Training(keras.Model(ids, layers.Dense(VOCAB)(x))), (_tokens(),), {}
    if name == "MultiHeadAttention.attention_mask":
        mask = torch.ones(BATCH, SEQ, 4, dtype=torch.bool)
        mask[0, :, -1] = False
        layer = layers.MultiHeadAttention(num_heads=2, key_dim=4, value_dim=3, output_shape=WIDTH)
        inputs = (_randn(BATCH, SEQ, WIDTH), _randn(BATCH, 4, 5, seed=3))
        layer(*inputs, attention_mask=mask)  # built eagerly: its first call creates the projections' layers
        return Training(layer, attention_mask=mask), inputs, {}
    if name == "GroupQueryAttention.causal":
        layer = layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2, dropout=0.1)
        inputs = (_randn(BATCH, SEQ, WIDTH), _randn(BATCH, SEQ, WIDTH, seed=3))
        layer(*inputs, use_causal_mask=True)  # built eagerly, as above
        return Training(layer, use_causal_mask=True), inputs, {}
    if name == "Attention.masks":
        query_mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
        value_mask = torch.ones(BATCH, 4, dtype=torch.bool)
        value_mask[1, -1] = False
        layer = layers.Attention(use_scale=True, score_mode="concat", dropout=0.1)
        return Training(layer, mask=[query_mask, value_mask], return_attention_scores=True), \
            ([_randn(BATCH, SEQ, 4), _randn(BATCH, 4, 4, seed=3)],), {}
    if name.startswith(("LSTM", "GRU", "Bidirectional")):
        return _recurrent(name)
    if name.startswith(("preprocessing", "augmentation")):
        return _preprocessing(name)
    if name == "Subclassed.Model":
        return Training(_subclassed()), (_randn(BATCH, WIDTH),), {}
    if name == "Subclassed.Layer.add_weight":
        return Training(_custom_layer_model()), (_tokens(),), {}
    if name == "layers.misc":
        inputs = keras.Input((SEQ, 4))
        x = layers.EinsumDense("abc,cd->abd", output_shape=(SEQ, WIDTH), bias_axes="d")(inputs)
        x = layers.PReLU()(x)
        x = layers.Permute((2, 1))(x)
        x = layers.Reshape((WIDTH * SEQ,))(x)
        x = layers.RepeatVector(2)(layers.Dense(4)(x))
        x = layers.LeakyReLU(0.2)(layers.Flatten()(x))
        x = layers.Softmax()(layers.Multiply()([x, layers.GaussianNoise(0.1)(x)]))
        x = layers.Lambda(lambda t: ops.cumsum(t, axis=-1))(x)
        return Training(keras.Model(inputs, x)), (_randn(BATCH, SEQ, 4),), {}
    if name == "layers.norms":
        net = keras.Sequential([keras.Input((SEQ, WIDTH)), layers.UnitNormalization(), layers.RMSNormalization(),
                                layers.LayerNormalization(rms_scaling=True), layers.BatchNormalization(momentum=0.9),
                                layers.GroupNormalization(groups=2), layers.AlphaDropout(0.1),
                                layers.ActivityRegularization(l2=1e-3)])
        return Training(net), (_randn(BATCH, SEQ, WIDTH),), {}
    raise KeyError(name)


def _recurrent(name: str) -> Built:
    import torch

    keras = _keras()
    from keras import layers

    Training = _training_wrapper()
    x = _randn(BATCH, SEQ, 3)
    if name == "LSTM.return_state":
        return Training(layers.LSTM(4, return_state=True, return_sequences=True)), (x,), {}
    if name == "GRU.masking":
        padded = x.clone()
        padded[1, -2:] = 0.0
        net = keras.Sequential([keras.Input((SEQ, 3)), layers.Masking(0.0), layers.GRU(4, return_sequences=True),
                                layers.GRU(3)])
        return Training(net), (padded,), {}
    if name == "Bidirectional.GRU.sum.masked":
        mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
        mask[0, -3:] = False
        return Training(layers.Bidirectional(layers.GRU(4), merge_mode="sum"), mask=mask), (x,), {}
    raise KeyError(name)


def _preprocessing(name: str) -> Built:
    import numpy as np

    keras = _keras()
    from keras import layers

    Training = _training_wrapper()
    images = _randn(BATCH, 8, 8, 3).abs() * 100.0
    if name == "preprocessing.image":
        net = keras.Sequential([keras.Input((8, 8, 3)), layers.Rescaling(1.0 / 255, offset=-0.5),
                                layers.Resizing(10, 10), layers.CenterCrop(6, 6), layers.Conv2D(2, 3)])
        return Training(net), (images,), {}
    if name == "preprocessing.normalization":
        norm = layers.Normalization(mean=np.arange(4.0), variance=np.ones(4) * 2.0)
        net = keras.Sequential([keras.Input((4,)), norm, layers.Dense(2),
                                layers.Normalization(axis=None, mean=0.5, variance=4.0, invert=True)])
        return Training(net), (_randn(BATCH, 4),), {}
    augmentations: dict[str, list[Any]] = {
        "augmentation.flip_rotate": [layers.RandomFlip("horizontal_and_vertical", seed=1),
                                     layers.RandomRotation(0.2, seed=2)],
    }
    net = keras.Sequential([keras.Input((8, 8, 3))] + augmentations[name] + [layers.Conv2D(2, 3)])
    return Training(net), (images,), {}


def _optimizer(kind: str) -> Any:
    _keras()
    from keras import optimizers

    if kind == "adam":
        return optimizers.Adam(1e-3)
    if kind == "sgd":
        return optimizers.SGD(1e-2, momentum=0.9, nesterov=True)
    if kind == "rmsprop":
        return optimizers.RMSprop(1e-3, momentum=0.5, centered=True)
    if kind == "adamw":
        return optimizers.AdamW(1e-3, weight_decay=1e-2, amsgrad=True)
    if kind == "adagrad":
        return optimizers.Adagrad(1e-2)
    if kind == "adadelta":
        return optimizers.Adadelta(1.0)
    if kind == "nadam":
        return optimizers.Nadam(1e-3)
    if kind == "lion":
        return optimizers.Lion(1e-4)
    if kind == "lamb":
        return optimizers.Lamb(1e-3)
    if kind == "adafactor":
        return optimizers.Adafactor(1e-3)
    if kind == "ftrl":
        return optimizers.Ftrl(1e-2, l1_regularization_strength=1e-3, l2_shrinkage_regularization_strength=1e-3)
    if kind == "adam.clipnorm.ema":
        return optimizers.Adam(1e-3, clipnorm=1.0, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=2)
    if kind == "adam.accumulate":
        return optimizers.Adam(1e-3, global_clipnorm=1.0, gradient_accumulation_steps=2)
    if kind == "sgd.schedule":
        schedule = optimizers.schedules.CosineDecay(1e-2, decay_steps=10, warmup_target=0.1, warmup_steps=2)
        return optimizers.SGD(schedule)
    if kind == "loss_scale":
        return optimizers.LossScaleOptimizer(optimizers.Adam(1e-3), initial_scale=2.0 ** 8)
    raise KeyError(kind)


def _step(name: str) -> Built:
    import torch

    keras = _keras()
    from gt_calls import Run
    from keras.src.backend.torch.trainer import TorchTrainer

    network, optimizer, loss, metrics = STEPS[name]
    net, (x,) = _net(network)
    out_shape = {"mlp": 4, "cnn2d": 3, "subclassed": 1}
    sample_weight = None
    if loss == "sparse_cce" or loss == "sample_weight":
        y = _randint(4, BATCH)
        compiled_loss: Any = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        if loss == "sample_weight":
            sample_weight = torch.tensor([1.0, 0.5])
    elif loss == "cce":
        classes = out_shape[network]
        y = torch.nn.functional.one_hot(_randint(classes, BATCH), classes).float()
        compiled_loss = "categorical_crossentropy"
    elif loss == "binary":
        y = _randint(2, BATCH, 4).float()
        compiled_loss = keras.losses.BinaryCrossentropy(from_logits=True)
    elif loss == "multi":
        y = {"cls": _randint(3, BATCH), "reg": _randn(BATCH, 1, seed=5)}
        compiled_loss = {"cls": "sparse_categorical_crossentropy", "reg": "huber"}
    else:
        y = _randn(BATCH, out_shape[network], seed=5)
        compiled_loss = "mse"
    named = {"auc": keras.metrics.AUC(num_thresholds=10), "precision": keras.metrics.Precision(),
             "recall": keras.metrics.Recall(), "f1": keras.metrics.F1Score(average="macro", threshold=0.5)}
    compile_metrics = [named.get(m, m) for m in metrics]
    keywords: dict[str, Any] = {"loss_weights": {"cls": 1.0, "reg": 0.5}} if loss == "multi" else {}
    if loss == "multi":
        compile_metrics = {"cls": ["accuracy"], "reg": ["mae"]}  # type: ignore[assignment]
    net.compile(optimizer=_optimizer(optimizer), loss=compiled_loss, metrics=compile_metrics, jit_compile=False,
                **keywords)
    data = (x, y) if sample_weight is None else (x, y, sample_weight)
    net._symbolic_build(data_batch=data)
    if name.startswith("train_step"):
        def run(owner: Any, *batch: Any) -> Any:
            """``TorchTrainer``'s compiled ``one_step_on_data``: one ``train_step``, gradients on in any mode."""
            with torch.enable_grad():
                return owner.train_step(batch)

        return Run(net, run, [TorchTrainer.train_step]), data, {}
    if name.startswith("test_step"):
        return Run(net, lambda owner, *batch: owner.test_step(batch), [TorchTrainer.test_step]), data, {}
    return Run(net, lambda owner, *batch: owner.predict_step(batch), [TorchTrainer.predict_step]), (x,), {}


def _apply(kind: str) -> Built:
    """One ``optimizer.apply(gradients, variables)``, as ``train_step`` runs it (under ``no_grad``), over the
    variables of a small built network."""
    import torch

    from gt_calls import Run

    net, _ = _net("mlp")
    variables = net.trainable_variables
    optimizer = _optimizer(kind)
    optimizer.build(variables)
    grads = tuple(_randn(*v.shape, seed=10 + i) for i, v in enumerate(variables))

    def run(owner: Any, *gradients: Any) -> Any:
        with torch.no_grad():
            owner.apply(list(gradients), variables)
        return variables[0].value

    return Run(optimizer, run, [type(optimizer).apply]), grads, {}


def _targets(kind: str) -> tuple[Any, Any]:
    """``(y_true, y_pred)`` for a loss or a metric."""
    import torch
    import torch.nn.functional as F

    if kind == "onehot":
        return F.one_hot(_randint(4, BATCH, 3), 4).float(), _randn(BATCH, 3, 4).softmax(-1)
    if kind == "sparse":
        return _randint(4, BATCH, 3), _randn(BATCH, 3, 4)
    if kind in ("binary", "multilabel"):
        return _randint(2, BATCH, 5).float(), torch.sigmoid(_randn(BATCH, 5))
    if kind == "probabilities":
        return _randn(BATCH, 5).softmax(-1), _randn(BATCH, 5, seed=3).softmax(-1)
    if kind == "segmentation":
        return _randint(3, BATCH, 4, 4), _randint(3, BATCH, 4, 4, seed=4)
    if kind == "circle":
        return _randint(3, BATCH * 2), F.normalize(_randn(BATCH * 2, WIDTH), dim=-1)
    if kind == "ctc":
        labels = _randint(4, BATCH, 3, low=1)
        return labels, _randn(BATCH, SEQ, 5).log_softmax(-1)
    return _randn(BATCH, 5), _randn(BATCH, 5, seed=3)


def _loss(name: str) -> Built:
    keras = _keras()
    from gt_calls import Call

    cls, keywords, kind = LOSSES[name]
    loss = getattr(keras.losses, cls)(**keywords)
    y_true, y_pred = _targets(kind)
    if name == "SparseCategoricalCrossentropy.ignore_class":
        y_true[0, 0] = 0
    return Call(loss), (y_true, y_pred), {}


def _metric(name: str) -> Built:
    keras = _keras()
    from gt_calls import Run

    cls, keywords, kind = METRICS[name]
    metric = getattr(keras.metrics, cls)(**keywords)
    y_true, y_pred = _targets(kind)

    def run(owner: Any, y_true: Any, y_pred: Any) -> Any:
        """One batch of a metric: ``update_state`` then ``result``."""
        owner.update_state(y_true, y_pred)
        return owner.result()

    return Run(metric, run, [type(metric).update_state, type(metric).result]), (y_true, y_pred), {}


def _op(name: str) -> Built:
    import torch

    _keras()
    from gt_calls import Call, Run
    from keras import ops

    x = _randn(BATCH, 5)
    if name == "ops.where.condition_only":
        return Call(ops.where), (x > 0,), {}
    if name == "ops.where":
        return Call(ops.where), (x > 0, x, ops.zeros_like(x)), {}
    if name == "ops.top_k":
        return Call(ops.top_k, k=3, sorted=True), (x,), {}
    if name == "ops.argsort":
        return Call(ops.argsort, axis=-1), (x,), {}
    if name == "ops.cond":
        def cond(owner: Any, t: Any) -> Any:
            return ops.cond(ops.sum(t) > 0, lambda: t * 2.0, lambda: t - 1.0)

        return Run(None, cond, [ops.cond]), (x,), {}
    if name == "ops.while_loop":
        def while_loop(owner: Any, t: Any) -> Any:
            return ops.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 0.5 + 1.0), (0, t))

        return Run(None, while_loop, [ops.while_loop]), (x,), {}
    if name == "ops.fori_loop":
        def fori_loop(owner: Any, t: Any) -> Any:
            return ops.fori_loop(0, 3, lambda i, v: ops.tanh(v) + ops.cast(i, v.dtype), t)

        return Run(None, fori_loop, [ops.fori_loop]), (x,), {}
    if name == "ops.scan":
        def scan(owner: Any, t: Any) -> Any:
            return ops.scan(lambda carry, row: (carry + row, carry * row), ops.zeros_like(t[0]), t)

        return Run(None, scan, [ops.scan]), (_randn(4, 3),), {}
    if name in ("ops.segment_sum", "ops.segment_max"):
        ids = torch.tensor([0, 0, 1, 2, 2, 2])
        return Call(getattr(ops, name.split(".")[1]), num_segments=3), (_randn(6, 3), ids), {}
    if name == "ops.nonzero":
        return Call(ops.nonzero), (x > 0,), {}
    if name == "ops.unique":
        return Call(ops.unique), (_randint(4, 8),), {}
    if name == "ops.searchsorted":
        return Call(ops.searchsorted, side="right"), (torch.linspace(-2, 2, 9), x.flatten()), {}
    if name == "ops.dot_product_attention.causal":
        return Call(ops.dot_product_attention, is_causal=True), \
            (_randn(BATCH, SEQ, 2, 4), _randn(BATCH, SEQ, 2, 4, seed=3), _randn(BATCH, SEQ, 2, 4, seed=4)), {}
    if name == "ops.slice_update":
        return Call(ops.slice_update), (ops.zeros((4, 5)), (1, 2), _randn(2, 2)), {}
    if name == "ops.stft":
        return Call(ops.stft, sequence_length=8, sequence_stride=4, fft_length=8), (_randn(BATCH, 32),), {}
    if name == "ops.image.resize":
        return Call(ops.image.resize, size=(6, 6), interpolation="bilinear", antialias=True), \
            (_randn(BATCH, 4, 4, 3),), {}
    if name == "ops.ctc_decode.greedy":
        return Call(ops.ctc_decode, strategy="greedy"), \
            (_randn(BATCH, SEQ, 5).softmax(-1), torch.tensor([SEQ, SEQ - 2])), {}
    raise KeyError(name)



def build(name: str) -> Built:
    import warnings

    before_import()
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _keras().utils.set_random_seed(0)
    if name in MODELS:
        return _model(name)
    if name in STEPS:
        return _step(name)
    if name.startswith("optimizer."):
        return _apply(name.removeprefix("optimizer.").removesuffix(".apply"))
    if name.startswith("losses."):
        return _loss(name.removeprefix("losses."))
    if name.startswith("metrics."):
        return _metric(name.removeprefix("metrics."))
    if name in OPS:
        return _op(name)
    raise KeyError(name)

"""Ground-truth bench, skorch: scikit-learn style nets, their steps, loops, callbacks, utilities and toy modules.

skorch wraps a PyTorch module in an estimator (``NeuralNet``, ``NeuralNetClassifier``, ``NeuralNetRegressor``,
``NeuralNetBinaryClassifier``, and the GPyTorch-backed ``ExactGPRegressor``, ``GPRegressor`` and
``GPBinaryClassifier``). After ``initialize()`` the net holds ``module_``, ``criterion_`` and ``optimizer_``;
``fit`` runs ``fit_loop``, which runs ``run_single_epoch`` over a ``DataLoader``, calling ``train_step`` (a
closure given to the optimizer: zero the gradients, ``train_step_single`` = ``infer`` + ``get_loss`` +
``backward``, the callbacks' ``on_grad_computed``) or ``validation_step`` per batch and notifying the callbacks
around each batch and epoch; ``predict`` / ``predict_proba`` / ``forward`` iterate ``evaluation_step``. A user
who compiles a skorch pipeline compiles these methods with a net built the usual way, so the models are bench
modules whose forward calls one of them on a tiny batch held in memory (8 samples, 6 features, 3 classes):

- ``STEPS``: each net class (a classifier with its default ``NLLLoss`` over probabilities, a classifier with
  ``CrossEntropyLoss`` and the ``'auto'`` softmax nonlinearity, the binary classifier, the regressor, a plain
  ``NeuralNet``) through ``train_step``, ``train_step_single``, ``validation_step``, ``evaluation_step`` (eval
  and training), ``infer``, ``get_loss``, ``forward``, ``forward_iter``, ``predict_proba`` and ``predict``;
- ``VARIANTS``: the options that change a step's path: optimizers (Adam, AdamW, RMSprop, SGD with Nesterov
  momentum, LBFGS whose ``step`` calls the closure several times), dict inputs (``infer`` unpacks a mapping),
  fit params passed to the module's forward, a module returning a tuple (the binary classifier's ``infer``
  and ``predict_proba`` keep the first output, a user's ``get_loss`` uses the rest), ``predict_nonlinearity``
  ``None`` and callable, a deeper module with dropout, and ``compile=True`` (the net compiles its module);
- ``CALLBACKS``: ``run_single_epoch`` over two batches with the callbacks users attach, batch by batch
  (``GradientNormClipping``, ``LRScheduler`` stepping every batch with CyclicLR, OneCycleLR, skorch's
  ``WarmRestartLR`` and ReduceLROnPlateau, ``BatchScoring``), and a whole epoch (``on_epoch_begin``, a train
  and a valid pass, ``on_epoch_end``) with each net's default callbacks, ``EpochScoring`` with and without
  caching, ``EarlyStopping``, ``Freezer``, ``Initializer`` and ``LRScheduler`` stepping every epoch (scoring
  with users' callables that call the net's ``predict``: sklearn's string scorers crash Dynamo itself);
- ``LOOPS``: ``fit_loop`` without and with a predefined validation split, ``partial_fit`` and ``fit`` with
  ``warm_start`` (the ``DataLoader`` over skorch's ``Dataset`` inside the compiled region);
- ``UTILS``: ``to_tensor``, ``to_numpy``, ``to_device``, ``get_len``, ``unpack_data``, ``multi_indexing``,
  ``Dataset.__getitem__``, ``SliceDict`` indexing and the probability helpers ``_sigmoid_then_2d`` and
  ``_make_2d_probs``;
- ``TOY``: ``skorch.toy.MLPModule`` with no, one and three hidden layers, dropout, an output nonlinearity,
  squeezed output, and the ``make_classifier`` / ``make_binary_classifier`` / ``make_regressor`` factories;
- ``GP``: ``ExactGPRegressor`` (``train_step``, ``evaluation_step``, ``predict`` with the standard deviation),
  ``GPRegressor`` with a variational module and ``GPBinaryClassifier`` (``train_step``).

Steps that train run under ``torch.enable_grad()``, so the eval (``no_grad``) pass trains too. Random
inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, CLASSES, HIDDEN = 8, 6, 3, 8

# Net kinds: "clf" (NeuralNetClassifier, softmax output, NLLLoss), "clf_ce" (CrossEntropyLoss, logits),
# "binary" (NeuralNetBinaryClassifier), "reg" (NeuralNetRegressor), "net" (NeuralNet with MSELoss).
# Model name -> (net kind, method).
STEPS: dict[str, tuple[str, str]] = {
    "NeuralNetClassifier.train_step": ("clf", "train_step"),
    "NeuralNetClassifier.train_step_single": ("clf", "train_step_single"),
    "NeuralNetClassifier.validation_step": ("clf", "validation_step"),
    "NeuralNetClassifier.evaluation_step": ("clf", "evaluation_step"),
    "NeuralNetClassifier.evaluation_step.training": ("clf", "evaluation_step.training"),
    "NeuralNetClassifier.infer": ("clf", "infer"),
    "NeuralNetClassifier.get_loss": ("clf", "get_loss"),
    "NeuralNetClassifier.forward": ("clf", "forward"),
    "NeuralNetClassifier.forward_iter": ("clf", "forward_iter"),
    "NeuralNetClassifier.predict_proba": ("clf", "predict_proba"),
    "NeuralNetClassifier.predict": ("clf", "predict"),
    "NeuralNetClassifier.cross_entropy.train_step": ("clf_ce", "train_step"),
    "NeuralNetClassifier.cross_entropy.get_loss": ("clf_ce", "get_loss"),
    "NeuralNetClassifier.cross_entropy.predict_proba": ("clf_ce", "predict_proba"),
    "NeuralNetBinaryClassifier.train_step": ("binary", "train_step"),
    "NeuralNetBinaryClassifier.validation_step": ("binary", "validation_step"),
    "NeuralNetBinaryClassifier.infer": ("binary", "infer"),
    "NeuralNetBinaryClassifier.get_loss": ("binary", "get_loss"),
    "NeuralNetBinaryClassifier.predict_proba": ("binary", "predict_proba"),
    "NeuralNetBinaryClassifier.predict": ("binary", "predict"),
    "NeuralNetRegressor.train_step": ("reg", "train_step"),
    "NeuralNetRegressor.validation_step": ("reg", "validation_step"),
    "NeuralNetRegressor.evaluation_step": ("reg", "evaluation_step"),
    "NeuralNetRegressor.get_loss": ("reg", "get_loss"),
    "NeuralNetRegressor.predict": ("reg", "predict"),
    "NeuralNet.train_step": ("net", "train_step"),
    "NeuralNet.forward": ("net", "forward"),
}
# Model name -> (net kind, method, variant); variants are made in ``_net``.
VARIANTS: dict[str, tuple[str, str, str]] = {
    "NeuralNetClassifier.adam.train_step": ("clf", "train_step", "adam"),
    "NeuralNetClassifier.adamw.train_step": ("clf", "train_step", "adamw"),
    "NeuralNetClassifier.rmsprop.train_step": ("clf", "train_step", "rmsprop"),
    "NeuralNetClassifier.sgd_nesterov.train_step": ("clf", "train_step", "nesterov"),
    "NeuralNetRegressor.lbfgs.train_step": ("reg", "train_step", "lbfgs"),
    "NeuralNetClassifier.dict_input.train_step": ("clf", "train_step", "dict"),
    "NeuralNetClassifier.dict_input.predict_proba": ("clf", "predict_proba", "dict"),
    "NeuralNetClassifier.fit_params.train_step": ("clf", "train_step", "fit_params"),
    "NeuralNetBinaryClassifier.tuple_output.train_step": ("binary", "train_step", "tuple"),
    "NeuralNetBinaryClassifier.tuple_output.infer": ("binary", "infer", "tuple"),
    "NeuralNetBinaryClassifier.tuple_output.predict_proba": ("binary", "predict_proba", "tuple"),
    "NeuralNetClassifier.predict_nonlinearity_none.predict_proba": ("clf_ce", "predict_proba", "nonlin_none"),
    "NeuralNetClassifier.predict_nonlinearity_callable.predict_proba": ("clf_ce", "predict_proba",
                                                                        "nonlin_callable"),
    "NeuralNetClassifier.deep_dropout.train_step": ("clf", "train_step", "deep"),
    "NeuralNetClassifier.compile.train_step": ("clf", "train_step", "compile"),
}
# Model name -> (net kind, level, callback). Level "batch": ``run_single_epoch`` of ``train_step`` over two
# batches; "epoch": one epoch with a train and a valid pass between the epoch notifications.
CALLBACKS: dict[str, tuple[str, str, str]] = {
    "run_single_epoch.train": ("clf", "batch", ""),
    "run_single_epoch.valid": ("clf", "valid", ""),
    "GradientNormClipping": ("clf", "batch", "GradientNormClipping"),
    "GradientNormClipping.inf": ("clf", "batch", "GradientNormClipping.inf"),
    "LRScheduler.CyclicLR.batch": ("clf", "batch", "CyclicLR"),
    "LRScheduler.OneCycleLR.batch": ("clf", "batch", "OneCycleLR"),
    "LRScheduler.WarmRestartLR.batch": ("reg", "batch", "WarmRestartLR"),
    "LRScheduler.ReduceLROnPlateau.batch": ("reg", "batch", "ReduceLROnPlateau.batch"),
    "BatchScoring.accuracy": ("clf", "batch", "BatchScoring"),
    "epoch.NeuralNetClassifier.default_callbacks": ("clf", "epoch", ""),
    "epoch.NeuralNetBinaryClassifier.default_callbacks": ("binary", "epoch", ""),
    "epoch.NeuralNetRegressor.default_callbacks": ("reg", "epoch", ""),
    "EpochScoring.train_accuracy": ("clf", "epoch", "EpochScoring.train"),
    "EpochScoring.no_caching.neg_mse": ("reg", "epoch", "EpochScoring.no_caching"),
    "EarlyStopping": ("clf", "epoch", "EarlyStopping"),
    "EarlyStopping.abs_valid_acc": ("clf", "epoch", "EarlyStopping.abs"),
    "Freezer": ("clf", "epoch", "Freezer"),
    "Initializer": ("reg", "epoch", "Initializer"),
    "LRScheduler.StepLR.epoch": ("reg", "epoch", "StepLR"),
    "LRScheduler.ReduceLROnPlateau.epoch": ("reg", "epoch", "ReduceLROnPlateau"),
}
# Model name -> (net kind, loop).
LOOPS: dict[str, tuple[str, str]] = {
    "NeuralNetClassifier.fit_loop": ("clf", "fit_loop"),
    "NeuralNetClassifier.fit_loop.predefined_split": ("clf", "fit_loop.split"),
    "NeuralNetRegressor.partial_fit": ("reg", "partial_fit"),
    "NeuralNetBinaryClassifier.fit.warm_start": ("binary", "fit"),
}
UTILS = ("utils.to_tensor.tensor", "utils.to_tensor.dict", "utils.to_tensor.list", "utils.to_numpy",
         "utils.to_device", "utils.multi_indexing.list_index", "utils.multi_indexing.dict_slice",
         "utils._sigmoid_then_2d", "utils._make_2d_probs", "dataset.get_len", "dataset.unpack_data",
         "dataset.Dataset.__getitem__", "helper.SliceDict.__getitem__")
# Model name -> MLPModule keywords (``factory`` picks a ``make_*`` function of ``skorch.toy``).
TOY: dict[str, dict[str, Any]] = {
    "toy.MLPModule": {},
    "toy.MLPModule.no_hidden": {"num_hidden": 0},
    "toy.MLPModule.deep_dropout": {"num_hidden": 3, "dropout": 0.2},
    "toy.MLPModule.output_nonlin": {"output_nonlin": "softmax"},
    "toy.MLPModule.squeeze_output": {"output_units": 1, "squeeze_output": True},
    "toy.make_classifier": {"factory": "make_classifier"},
    "toy.make_binary_classifier": {"factory": "make_binary_classifier", "output_units": 1},
    "toy.make_regressor": {"factory": "make_regressor"},
}
GP = ("ExactGPRegressor.train_step", "ExactGPRegressor.evaluation_step", "ExactGPRegressor.predict.return_std",
      "GPRegressor.train_step", "GPBinaryClassifier.train_step")


def names() -> list[str]:
    return list(STEPS) + list(VARIANTS) + list(CALLBACKS) + list(LOOPS) + list(UTILS) + list(TOY) + list(GP)


def _data(kind: str, seed: int = 3) -> tuple[Any, Any]:
    """Inputs and targets for a net kind: class indices, binary floats or regression targets."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(N, DIM, generator=gen)
    if kind in ("clf", "clf_ce"):
        return x, torch.arange(N) % CLASSES
    if kind == "binary":
        return x, (torch.arange(N) % 2).float()
    return x, torch.randn(N, 1, generator=gen)


def _net(kind: str, variant: str = "", callbacks: list[Any] | None = None, **extra: Any) -> Any:
    """An initialized skorch net of ``kind`` with ``variant``'s options: batch size 4, no internal split."""
    import torch
    from skorch import NeuralNet, NeuralNetBinaryClassifier, NeuralNetClassifier, NeuralNetRegressor
    from skorch.toy import MLPModule
    from torch import nn

    keywords: dict[str, Any] = {"max_epochs": 1, "batch_size": 4, "train_split": None, "verbose": 0, "lr": 0.05,
                                "module__input_units": DIM, "module__hidden_units": HIDDEN,
                                "callbacks": callbacks or []}
    module: Any = MLPModule
    cls: Any
    if kind == "clf":
        cls = NeuralNetClassifier
        keywords.update(module__output_units=CLASSES, module__output_nonlin=nn.Softmax(dim=-1))
    elif kind == "clf_ce":
        cls = NeuralNetClassifier
        keywords.update(module__output_units=CLASSES, criterion=nn.CrossEntropyLoss)
    elif kind == "binary":
        cls = NeuralNetBinaryClassifier
        keywords.update(module__output_units=1, module__squeeze_output=True)
    elif kind == "reg":
        cls = NeuralNetRegressor
        keywords.update(module__output_units=1)
    else:
        cls = NeuralNet
        keywords.update(module__output_units=1, criterion=nn.MSELoss)
    optimizers = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "rmsprop": torch.optim.RMSprop}
    if variant in optimizers:
        keywords.update(optimizer=optimizers[variant], lr=0.01)
        if variant == "adamw":
            keywords["optimizer__weight_decay"] = 0.01
    elif variant == "nesterov":
        keywords.update(optimizer__momentum=0.9, optimizer__nesterov=True)
    elif variant == "lbfgs":
        keywords.update(optimizer=torch.optim.LBFGS, lr=0.5, optimizer__max_iter=3)
    elif variant == "dict":
        module = _DictModule
        for key in ("module__input_units", "module__hidden_units", "module__output_units", "module__output_nonlin"):
            keywords.pop(key, None)
    elif variant == "fit_params":
        module = _MaskedModule
        for key in ("module__input_units", "module__hidden_units", "module__output_units", "module__output_nonlin"):
            keywords.pop(key, None)
    elif variant == "tuple":
        module = _TupleModule
        cls = _AuxLossBinaryClassifier
        for key in ("module__input_units", "module__hidden_units", "module__output_units",
                    "module__squeeze_output"):
            keywords.pop(key, None)
    elif variant == "nonlin_none":
        keywords["predict_nonlinearity"] = None
    elif variant == "nonlin_callable":
        keywords["predict_nonlinearity"] = _temperature_softmax
    elif variant == "deep":
        keywords.update(module__num_hidden=3, module__dropout=0.25, module__nonlin=nn.Tanh())
    elif variant == "compile":
        keywords.update(compile=True, compile__backend="eager")
    if cls is not NeuralNet and cls is not NeuralNetRegressor:
        # sklearn's string scorers crash Dynamo itself (inside narwhals), so the default ``valid_acc`` scores
        # with a user's callable, which runs the net's own ``predict``; PrintLog writes nowhere
        keywords.update(callbacks__valid_acc__scoring=_accuracy, callbacks__print_log__sink=_quiet)
    keywords.update(extra)
    return cls(module, **keywords).initialize()


def _accuracy(net: Any, X: Any, y: Any) -> float:
    """A user's scoring callable: the accuracy of ``net.predict``."""
    return float((net.predict(X) == y).mean())


def _neg_mse(net: Any, X: Any, y: Any) -> float:
    """A user's scoring callable: the negative squared error of ``net.predict``."""
    return float(-((net.predict(X) - y) ** 2).mean())


def _temperature_softmax(logits: Any) -> Any:
    """A user's prediction nonlinearity: a softmax at temperature 2."""
    return (logits / 2).softmax(dim=-1)


def _modules() -> None:
    """Defines the user modules the variants need (module level, so the nets can clone them)."""
    import torch
    from skorch import NeuralNetBinaryClassifier
    from torch import nn

    global _DictModule, _MaskedModule, _TupleModule, _AuxLossBinaryClassifier

    class _DictModule(nn.Module):
        """Two named inputs (``x0`` features, ``x1`` extra features) for dict data; softmax output."""

        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HIDDEN)
            self.b = nn.Linear(2, HIDDEN)
            self.out = nn.Linear(HIDDEN, CLASSES)

        def forward(self, x0: torch.Tensor, x1: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.a(x0) + self.b(x1))).softmax(dim=-1)

    class _MaskedModule(nn.Module):
        """A forward taking a fit param, a feature ``mask``, beside the batch; softmax output."""

        def __init__(self) -> None:
            super().__init__()
            self.hidden = nn.Linear(DIM, HIDDEN)
            self.out = nn.Linear(HIDDEN, CLASSES)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.hidden(x * mask))).softmax(dim=-1)

    class _TupleModule(nn.Module):
        """A logit of shape (n, 1) and an auxiliary penalty: two outputs."""

        def __init__(self) -> None:
            super().__init__()
            self.hidden = nn.Linear(DIM, HIDDEN)
            self.out = nn.Linear(HIDDEN, 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = torch.relu(self.hidden(x))
            return self.out(h), h.pow(2).mean(dim=-1)

    class _AuxLossBinaryClassifier(NeuralNetBinaryClassifier):
        """The documented pattern for a module with several outputs: ``get_loss`` adds the auxiliary one."""

        def get_loss(self, y_pred: Any, y_true: Any, *args: Any, **kwargs: Any) -> Any:
            logits, penalty = y_pred
            return super().get_loss(logits, y_true, *args, **kwargs) + 0.01 * penalty.mean()


_DictModule: Any = None
_MaskedModule: Any = None
_TupleModule: Any = None
_AuxLossBinaryClassifier: Any = None


def _wrapper(net: Any, run: Any, entries: list[Any]) -> Any:
    """A bench module holding ``net`` (its ``module_`` registered, for the parameter count) whose forward is
    ``run(net, *inputs)``."""
    from torch import nn

    class _NetRun(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.module_ = net.module_
            self.net = net

        def forward(self, *inputs: Any) -> Any:
            return run(self.net, *inputs)

        def entry_points(self) -> list[Any]:
            return entries

    return _NetRun()


def _method_run(method: str, fit_params: dict[str, Any]) -> Any:
    """``run(net, x, y)`` calling ``method`` of the net on the batch ``(x, y)``."""
    import torch

    def run(net: Any, x: Any, y: Any) -> Any:
        batch = (x, y)
        if method == "train_step":
            with torch.enable_grad():
                step = net.train_step(batch, **fit_params)
            return step["loss"], step["y_pred"]
        if method == "train_step_single":
            with torch.enable_grad():
                net._zero_grad_optimizer()
                step = net.train_step_single(batch, **fit_params)
            return step["loss"], step["y_pred"]
        if method == "validation_step":
            step = net.validation_step(batch, **fit_params)
            return step["loss"], step["y_pred"]
        if method == "evaluation_step":
            return net.evaluation_step(batch)
        if method == "evaluation_step.training":
            return net.evaluation_step(batch, training=True)
        if method == "infer":
            return net.infer(x, **fit_params)
        if method == "get_loss":
            with torch.enable_grad():
                return net.get_loss(net.infer(x, **fit_params), y, X=x, training=True)
        if method == "forward":
            return net.forward(x)
        if method == "forward_iter":
            return list(net.forward_iter(x))
        if method == "predict_proba":
            return net.predict_proba(x)
        return net.predict(x)

    return run


def _steps(name: str) -> Built:
    import torch

    if name in STEPS:
        kind, method = STEPS[name]
        variant = ""
    else:
        kind, method, variant = VARIANTS[name]
    net = _net(kind, variant)
    x, y = _data(kind)
    fit_params: dict[str, Any] = {}
    inputs: Any = x
    if variant == "dict":
        inputs = {"x0": x, "x1": torch.randn(N, 2, generator=torch.Generator().manual_seed(5))}
    elif variant == "fit_params":
        fit_params = {"mask": (torch.arange(DIM) % 3 != 0).float()}
    method_name = method.split(".")[0]
    return _wrapper(net, _method_run(method, fit_params), [getattr(type(net), method_name)]), (inputs, y), {}


def _callback(which: str) -> list[Any]:
    import functools

    import torch
    from skorch import callbacks as cbs
    from torch import nn

    made: dict[str, Any] = {
        "": lambda: [],
        "GradientNormClipping": lambda: [cbs.GradientNormClipping(gradient_clip_value=0.5)],
        "GradientNormClipping.inf": lambda: [cbs.GradientNormClipping(gradient_clip_value=0.5,
                                                                      gradient_clip_norm_type="inf")],
        "CyclicLR": lambda: [cbs.LRScheduler(policy=torch.optim.lr_scheduler.CyclicLR, base_lr=0.01, max_lr=0.1,
                                             step_size_up=2, step_every="batch")],
        "OneCycleLR": lambda: [cbs.LRScheduler(policy=torch.optim.lr_scheduler.OneCycleLR, max_lr=0.1,
                                               total_steps=1000, step_every="batch")],
        "WarmRestartLR": lambda: [cbs.LRScheduler(policy="WarmRestartLR", min_lr=0.001, max_lr=0.05,
                                                  base_period=2, step_every="batch")],
        "ReduceLROnPlateau.batch": lambda: [cbs.LRScheduler(policy=torch.optim.lr_scheduler.ReduceLROnPlateau,
                                                            monitor="train_loss", patience=1,
                                                            step_every="batch")],
        "BatchScoring": lambda: [cbs.BatchScoring(_accuracy, on_train=True, name="train_acc_batch")],
        "EpochScoring.train": lambda: [cbs.EpochScoring(_accuracy, on_train=True, lower_is_better=False,
                                                              name="train_acc")],
        "EpochScoring.no_caching": lambda: [cbs.EpochScoring(_neg_mse, use_caching=False, lower_is_better=False,
                                                                   name="valid_neg_mse")],
        "EarlyStopping": lambda: [cbs.EarlyStopping(monitor="valid_loss", patience=50)],
        "EarlyStopping.abs": lambda: [cbs.EarlyStopping(monitor="valid_acc", patience=50, threshold=0.01,
                                                        threshold_mode="abs", lower_is_better=False)],
        "Freezer": lambda: [cbs.Freezer("sequential.0.*")],
        "Initializer": lambda: [cbs.Initializer("*.weight", fn=functools.partial(nn.init.uniform_, a=-0.1,
                                                                                 b=0.1))],
        "StepLR": lambda: [cbs.LRScheduler(policy=torch.optim.lr_scheduler.StepLR, step_size=1, gamma=0.9)],
        "ReduceLROnPlateau": lambda: [cbs.LRScheduler(policy=torch.optim.lr_scheduler.ReduceLROnPlateau,
                                                      monitor="valid_loss", patience=1)],
    }
    return made[which]()


def _callbacks(name: str) -> Built:
    from skorch.dataset import Dataset

    kind, level, which = CALLBACKS[name]
    extra: dict[str, Any] = {"optimizer__momentum": 0.9} if which == "CyclicLR" else {}
    net = _net(kind, callbacks=_callback(which), **extra)
    x, y = _data(kind)
    xv, yv = _data(kind, seed=4)
    dataset_train, dataset_valid = Dataset(x, y), Dataset(xv, yv)
    if kind in ("clf", "binary"):
        net.check_data(x.numpy(), y.numpy())  # what fit does first: the classes seen
    net.notify("on_train_begin", X=x, y=y)
    net.history.new_epoch()
    type_ = type(net)
    if level in ("batch", "valid"):
        training = level == "batch"

        def run_batches(net: Any, x: Any, y: Any) -> Any:
            import torch

            step_fn = net.train_step if training else net.validation_step
            with torch.enable_grad() if training else torch.no_grad():
                net.run_single_epoch([(x[:4], y[:4]), (x[4:], y[4:])], training=training,
                                     prefix="train" if training else "valid", step_fn=step_fn)
            return net.history[-1, "batches", -1, "train_loss" if training else "valid_loss"]

        return _wrapper(net, run_batches, [type_.run_single_epoch]), (x, y), {}

    def run_epoch(net: Any, x: Any, y: Any, xv: Any, yv: Any) -> Any:
        import torch

        kwargs = {"dataset_train": dataset_train, "dataset_valid": dataset_valid}
        net.notify("on_epoch_begin", **kwargs)
        with torch.enable_grad():
            net.run_single_epoch([(x[:4], y[:4]), (x[4:], y[4:])], training=True, prefix="train",
                                 step_fn=net.train_step)
        net.run_single_epoch([(xv[:4], yv[:4]), (xv[4:], yv[4:])], training=False, prefix="valid",
                             step_fn=net.validation_step)
        net.notify("on_epoch_end", **kwargs)
        return net.history[-1, "train_loss"] if "train_loss" in net.history[-1] else net.history[-1, "epoch"]

    return _wrapper(net, run_epoch, [type_.notify, type_.run_single_epoch]), (x, y, xv, yv), {}


def _quiet(*args: Any, **kwargs: Any) -> None:
    """PrintLog's sink: nothing printed."""


def _loops(name: str) -> Built:
    import torch
    from skorch.dataset import Dataset
    from skorch.helper import predefined_split

    kind, loop = LOOPS[name]
    extra: dict[str, Any] = {}
    x, y = _data(kind)
    if loop == "fit_loop.split":
        extra["train_split"] = predefined_split(Dataset(*_data(kind, seed=4)))
    if loop == "fit":
        extra["warm_start"] = True
    net = _net(kind, **extra)
    if loop == "fit" or kind in ("clf", "binary"):
        net.check_data(x.numpy(), y.numpy())  # what fit does first: the classes seen
    type_ = type(net)
    method = loop.split(".")[0]

    def run(net: Any, x: Any, y: Any) -> Any:
        with torch.enable_grad():
            if method == "fit_loop":
                net.fit_loop(x, y, epochs=1)
            elif method == "partial_fit":
                net.partial_fit(x, y)
            else:
                net.fit(x, y)
        return net.history[-1, "train_loss"]

    return _wrapper(net, run, [getattr(type_, method)]), (x, y), {}


def _utils(name: str) -> Built:
    import torch
    from skorch import dataset, helper, utils

    from gt_calls import Call

    gen = torch.Generator().manual_seed(6)
    x = torch.randn(N, DIM, generator=gen)
    y = torch.arange(N) % CLASSES
    if name == "utils.to_tensor.tensor":
        return Call(utils.to_tensor, device="cpu"), (x,), {}
    if name == "utils.to_tensor.dict":
        return Call(utils.to_tensor, device="cpu"), ({"a": x, "b": [y, x[:, :2]]},), {}
    if name == "utils.to_tensor.list":
        return Call(utils.to_tensor, device="cpu"), ([x, (y, x.double())],), {}
    if name == "utils.to_numpy":
        return Call(utils.to_numpy), (x * 2,), {}
    if name == "utils.to_device":
        return Call(utils.to_device, device="cpu"), ((x, {"y": y}, [x[:2]]),), {}
    if name == "utils.multi_indexing.list_index":
        return Call(utils.multi_indexing, i=[0, 3, 5]), (x,), {}
    if name == "utils.multi_indexing.dict_slice":
        return Call(utils.multi_indexing), ({"x": x, "y": y}, slice(1, 5)), {}
    if name == "utils._sigmoid_then_2d":
        return Call(utils._sigmoid_then_2d), (x[:, 0],), {}
    if name == "utils._make_2d_probs":
        return Call(utils._make_2d_probs), (torch.sigmoid(x[:, 0]),), {}
    if name == "dataset.get_len":
        return Call(dataset.get_len), ((x, {"y": y, "z": x[:, :2]}),), {}
    if name == "dataset.unpack_data":
        return Call(dataset.unpack_data), ((x, y),), {}
    if name == "dataset.Dataset.__getitem__":
        ds = dataset.Dataset({"x": x, "mask": x > 0}, y)
        return Call(ds.__getitem__), (3,), {}
    sliced = helper.SliceDict(x=x, y=y)

    def index(data: Any, rows: Any) -> Any:
        """``SliceDict`` indexed by rows, then by a key."""
        part = data[rows]
        return part["x"] * 2, part["y"]

    return Call(index), (sliced, slice(2, 6)), {}


def _toy_built(name: str) -> Built:
    import torch
    from skorch import toy
    from torch import nn

    keywords = dict(TOY[name])
    factory = keywords.pop("factory", None)
    if keywords.get("output_nonlin") == "softmax":
        keywords["output_nonlin"] = nn.Softmax(dim=-1)
    if not factory:
        keywords.setdefault("output_units", CLASSES)
    x = torch.randn(N, DIM, generator=torch.Generator().manual_seed(7))
    if factory:
        module = getattr(toy, factory)(input_units=DIM, hidden_units=HIDDEN, **keywords)()
    else:
        module = toy.MLPModule(input_units=DIM, hidden_units=HIDDEN, **keywords)
    return module, (x,), {}


def _gp(name: str) -> Built:
    import gpytorch
    import torch
    from skorch.probabilistic import ExactGPRegressor, GPBinaryClassifier, GPRegressor

    gen = torch.Generator().manual_seed(8)
    x = torch.randn(N, 2, generator=gen)

    class _ExactGP(gpytorch.models.ExactGP):
        """A constant mean and an RBF kernel, the GPyTorch tutorial's exact GP."""

        def __init__(self, likelihood: Any) -> None:
            super().__init__(x, torch.zeros(N), likelihood)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

        def forward(self, inputs: torch.Tensor) -> Any:
            return gpytorch.distributions.MultivariateNormal(self.mean_module(inputs), self.covar_module(inputs))

    class _VariationalGP(gpytorch.models.ApproximateGP):
        """A variational GP over four inducing points."""

        def __init__(self) -> None:
            inducing = torch.randn(4, 2, generator=torch.Generator().manual_seed(9))
            distribution = gpytorch.variational.CholeskyVariationalDistribution(4)
            strategy = gpytorch.variational.VariationalStrategy(self, inducing, distribution,
                                                                learn_inducing_locations=True)
            super().__init__(strategy)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

        def forward(self, inputs: torch.Tensor) -> Any:
            return gpytorch.distributions.MultivariateNormal(self.mean_module(inputs), self.covar_module(inputs))

    common: dict[str, Any] = {"max_epochs": 1, "lr": 0.05, "verbose": 0, "train_split": None}
    net: Any
    if name.startswith("ExactGPRegressor"):
        y = torch.sin(x[:, 0])
        net = ExactGPRegressor(_ExactGP, **common).initialize()
    elif name.startswith("GPRegressor"):
        y = torch.sin(x[:, 0])
        net = GPRegressor(_VariationalGP, criterion__num_data=N, batch_size=4, **common).initialize()
    else:
        y = (x[:, 0] > 0).float()
        net = GPBinaryClassifier(_VariationalGP, criterion__num_data=N, batch_size=4,
                                 callbacks__print_log__sink=_quiet, callbacks__train_acc__scoring=_accuracy,
                                 **common).initialize()
    method = name.split(".", 1)[1]

    def run(net: Any, x: Any, y: Any) -> Any:
        if method == "train_step":
            with torch.enable_grad():
                step = net.train_step((x, y))
            return step["loss"]
        if method == "evaluation_step":
            return net.evaluation_step((x, y)).mean
        return net.predict(x, return_std=True)

    method_name = method.split(".")[0]
    return _wrapper(net, run, [getattr(type(net), method_name)]), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _modules()
    if name in STEPS or name in VARIANTS:
        return _steps(name)
    if name in CALLBACKS:
        return _callbacks(name)
    if name in LOOPS:
        return _loops(name)
    if name in UTILS:
        return _utils(name)
    if name in TOY:
        return _toy_built(name)
    return _gp(name)

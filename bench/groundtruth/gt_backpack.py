"""Ground-truth bench, backpack (backpack-for-pytorch 1.7.1): BackPACK's extended backward passes on tiny networks,
as users compile a training or curvature step.

BackPACK adds quantities to the backward pass through module hooks. Users ``extend`` a network and its loss
module (``extend(model)``: a forward hook per module that stores its input and output, and a full backward hook
that runs the active extensions; ``extend(model, use_converter=True)`` first rewrites a network with functional
calls into BackPACK's custom modules through ``torch.fx``), then call ``loss.backward()`` inside
``with backpack(*extensions):``. The extensions' module extensions run in the backward hooks: the first-order
ones compute per-sample gradients and their statistics from the module's stored input and output gradient; the
second-order ones backpropagate a matrix square root, a diagonal, Kronecker factors or a product function
through every module's derivatives (``backpack.core.derivatives``), keyed by the ``data_ptr()`` of the module
inputs, and store the results on the parameters (``p.grad_batch``, ``p.diag_ggn_exact``, ``p.kfac``,
``p.hmp``, ...). Dynamo breaks on each module that has backward hooks (in torch), and the hooks then run as
frames of their own, which Dynamo traces: the library's hook code, its module extensions and derivatives are
what the models trace. Each model is a bench module whose forward does what a training or curvature step does:
the extended network's forward on the batch, the loss, the backward inside ``backpack(...)``, and it returns the
quantities read from the parameters (gradients are enabled whatever the harness's mode, as a backward needs
them). The tables cover:

- ``NETS``: each extension (``BatchGrad``, ``BatchL2Grad``, ``SumGradSquared``, ``Variance``, ``DiagGGNExact``,
  ``DiagGGNMC``, ``BatchDiagGGNExact``, ``BatchDiagGGNMC``, ``DiagHessian``, ``BatchDiagHessian``, ``KFAC``,
  ``KFLR``, ``KFRA``, ``SqrtGGNExact``, ``SqrtGGNMC``, the curvature-matrix products ``HMP``, ``GGNMP`` and
  ``PCHMP`` (clip and abs; their stored product functions applied to a matrix), ``HBP`` with the Hessian and a
  PCH curvature) on networks it supports: MLPs with cross-entropy, with sigmoid / tanh and MSE, with
  ``BCEWithLogitsLoss``, with every elementwise activation and dropout; 1-d, 2-d and 3-d conv nets (max,
  average and adaptive poolings, zero padding, a grouped convolution, dropout); 1-d, 2-d and 3-d transposed
  convolutions; batch norm (1-d and 2-d, the network held in eval mode: BackPACK refuses batch norm in
  training mode); an RNN and an LSTM built with ``ReduceTuple`` and ``Permute`` (a class per time step, the LSTM
  fed by an ``Embedding``); an embedding classifier; networks of BackPACK's custom modules (``Pad``,
  ``Slicing``, ``ScaleModule``, ``Identity``, a residual ``Parallel`` with ``SumModule``); networks extended
  with the converter (a residual block with ``x * 0.5``, ``torch.flatten`` and an addition; an LSTM with
  ``permute`` and tuple unpacking). The first-order extensions and the products run on every module type
  they support; the other second-order ones on every loss and a few networks, because under Dynamo they stop
  at the first module after the loss (below);
- ``OPTIONS``: ``backpack``'s options and the extensions' own: ``subsampling`` (``BatchGrad``,
  ``SqrtGGNExact``, ``SqrtGGNMC``), ``mc_samples`` (``DiagGGNMC``, ``KFAC``, ``SqrtGGNMC``), an
  ``extension_hook`` (one that reduces and frees the quantities as they come, as the docs show), ``debug``,
  ``retain_graph`` with two backward passes, several extensions at once, ``disable`` around a forward, the
  ``WARNING`` and ``SILENT`` fail modes on an unsupported module (a ``LayerNorm``), and ``CTX.remove_hooks``;
- ``USE_CASES``: the docs' use cases as steps: a diagonal-GGN preconditioned SGD step, a differentially
  private step (per-sample gradients clipped by their ``BatchL2Grad`` norms, noise added), a Newton step by
  conjugate gradients on ``GGNMP``, a Hutchinson trace estimate through ``HMP``, the ``KFLR`` factors turned
  into a matrix and inverted on the gradient (``backpack.utils.kroneckers``), a variance-adapted step;
- ``HESSIANFREE``: ``backpack.hessianfree`` (``hessian_vector_product`` with and without given gradients,
  ``ggn_vector_product`` and ``ggn_vector_product_from_plist``, ``R_op`` / ``jacobian_vector_product``,
  ``L_op`` / ``transposed_jacobian_vector_product``) and ``utils.examples.autograd_diag_ggn_exact``;
- ``UTILS``: helpers of ``backpack.utils`` on tensors (``kfacs_to_mat``, ``apply_kfac_mat_prod``,
  ``apply_inv_kfac_mat_prod``, ``vector_to_parameter_list``, ``unfold_by_conv``).

Under Dynamo every second-order extension but the curvature-matrix products raises "BackPACK extension expects
a backpropagation quantity but it is None" at the first module after the loss (not eagerly): the loss module's
hook saves its quantity under the ``data_ptr()`` of the module input, and the next hook's compiled lookup of
its output's ``data_ptr()`` in that dict finds nothing. Those models are kept for what they trace until then
(the loss's derivatives of each strategy, the hook and module-extension code); laplace's BackPACK backends
fail the same way.

Left out: ``utils.examples``' MNIST loaders (they download); extension and network pairs BackPACK does not
support (it raises ``NotImplementedError`` eagerly: ``DiagHessian`` and the Kronecker extensions on custom
modules, adaptive poolings or 3-d poolings, ``KFAC`` on a grouped convolution, the products on anything but
feed-forward ``Sequential`` networks of their module types); ``KFLR`` and ``KFRA`` on a residual network (no
accumulation rule for branches, eagerly). Random weights from fixed seeds, batches of 4. Nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

N = 4  # batch size

# extension name -> (class, keywords)
EXT: dict[str, tuple[str, dict[str, Any]]] = {
    "BatchGrad": ("BatchGrad", {}),
    "BatchL2Grad": ("BatchL2Grad", {}),
    "SumGradSquared": ("SumGradSquared", {}),
    "Variance": ("Variance", {}),
    "DiagGGNExact": ("DiagGGNExact", {}),
    "DiagGGNMC": ("DiagGGNMC", {}),
    "BatchDiagGGNExact": ("BatchDiagGGNExact", {}),
    "BatchDiagGGNMC": ("BatchDiagGGNMC", {}),
    "DiagHessian": ("DiagHessian", {}),
    "BatchDiagHessian": ("BatchDiagHessian", {}),
    "KFAC": ("KFAC", {}),
    "KFLR": ("KFLR", {}),
    "KFRA": ("KFRA", {}),
    "SqrtGGNExact": ("SqrtGGNExact", {}),
    "SqrtGGNMC": ("SqrtGGNMC", {}),
    "HMP": ("HMP", {}),
    "GGNMP": ("GGNMP", {}),
    "PCHMP": ("PCHMP", {}),
    "PCHMP.abs": ("PCHMP", {"modify": "abs"}),
    "HBP.hessian": ("HBP", {"curv": "hessian"}),
    "HBP.pch_abs": ("HBP", {"curv": "pch-abs"}),
}

FIRST = ("BatchGrad", "BatchL2Grad", "SumGradSquared", "Variance")
DIAG = ("DiagGGNExact", "DiagGGNMC", "BatchDiagGGNExact", "BatchDiagGGNMC")
HESS = ("DiagHessian", "BatchDiagHessian")
KRON = ("KFAC", "KFLR", "KFRA")
SQRT = ("SqrtGGNExact", "SqrtGGNMC")
PRODUCTS = ("HMP", "GGNMP", "PCHMP")

# network -> the extensions run on it. Under Dynamo the second-order extensions (all but the first-order ones and
# the curvature-matrix products) stop at the first module after the loss (see the docstring), so they run on
# every loss and a few networks; the first-order ones and the products run on every module type they support.
NETS: dict[str, tuple[str, ...]] = {
    "mlp": FIRST + DIAG + HESS + KRON + SQRT + PRODUCTS + ("PCHMP.abs", "HBP.hessian", "HBP.pch_abs"),
    "mlp_mse": ("BatchGrad", "DiagGGNExact", "DiagGGNMC", "DiagHessian", "KFAC", "KFLR", "SqrtGGNMC", "HMP", "GGNMP",
                "PCHMP"),
    "mlp_bce": ("BatchGrad", "DiagGGNExact", "DiagGGNMC", "BatchDiagHessian", "KFAC", "KFLR", "SqrtGGNMC"),
    "mlp_activations": ("BatchGrad", "DiagHessian"),
    "cnn": FIRST + ("DiagGGNExact", "KFAC") + PRODUCTS,
    "cnn_pad_pool": ("BatchGrad", "SumGradSquared", "HMP", "GGNMP", "PCHMP.abs"),
    "cnn_dropout_mse": ("HMP", "GGNMP"),
    "conv1d": FIRST + ("DiagGGNExact",),
    "conv3d": ("BatchGrad", "BatchL2Grad", "Variance", "DiagHessian"),
    "convtranspose1d": ("BatchGrad", "SumGradSquared", "KFLR"),
    "convtranspose2d": ("BatchGrad", "BatchL2Grad", "Variance", "SqrtGGNExact"),
    "convtranspose3d": ("BatchGrad", "Variance", "DiagGGNMC"),
    "batchnorm1d": FIRST + ("DiagGGNExact",),
    "batchnorm2d": ("BatchGrad", "Variance", "BatchDiagGGNExact"),
    "rnn": FIRST + ("DiagGGNExact", "DiagGGNMC"),
    "lstm": FIRST + ("BatchDiagGGNMC",),
    "embedding": FIRST + ("SqrtGGNExact",),
    "custom_modules": ("BatchGrad", "Variance", "DiagGGNExact"),
    "residual": ("KFAC", "BatchDiagGGNExact"),
    "converter_resnet": ("BatchGrad", "SumGradSquared", "DiagGGNMC"),
    "converter_lstm": ("BatchGrad", "Variance"),
}

# option models -> (network, extensions, keywords of ``backpack``, special)
OPTIONS: dict[str, tuple[str, tuple[tuple[str, dict[str, Any]], ...], dict[str, Any], str | None]] = {
    "BatchGrad.subsampling": ("mlp", (("BatchGrad", {"subsampling": [0, 2]}),), {}, None),
    "SqrtGGNExact.subsampling": ("cnn", (("SqrtGGNExact", {"subsampling": [1]}),), {}, None),
    "DiagGGNMC.mc_samples": ("mlp", (("DiagGGNMC", {"mc_samples": 3}),), {}, None),
    "KFAC.mc_samples": ("cnn", (("KFAC", {"mc_samples": 2}),), {}, None),
    "SqrtGGNMC.mc_samples.subsampling": ("embedding", (("SqrtGGNMC", {"mc_samples": 2, "subsampling": [1, 2]}),),
                                         {}, None),
    "extension_hook": ("mlp", (("DiagGGNExact", {}),), {}, "hook"),
    "extension_hook.batch_grad": ("cnn", (("BatchGrad", {}),), {}, "hook"),
    "debug": ("mlp", (("BatchGrad", {}), ("DiagGGNExact", {})), {"debug": True}, None),
    "retain_graph": ("mlp", (("DiagGGNExact", {}),), {"retain_graph": True}, "twice"),
    "first_and_second_order": ("cnn", (("BatchGrad", {}), ("SumGradSquared", {}), ("Variance", {}),
                                       ("DiagGGNExact", {}), ("KFLR", {})), {}, None),
    "products_together": ("mlp_mse", (("HMP", {}), ("GGNMP", {}), ("PCHMP", {})), {}, None),
    "disable": ("mlp", (("BatchGrad", {}),), {}, "disable"),
    "fail_mode.warning": ("unsupported", (("BatchGrad", {"fail_mode": "WARNING"}),), {}, None),
    "fail_mode.silent": ("unsupported", (("Variance", {"fail_mode": "SILENT"}),), {}, None),
    "remove_hooks": ("mlp", (("BatchGrad", {}),), {}, "remove_hooks"),
}

USE_CASES = ("diag_ggn_sgd_step", "dp_sgd_step", "cg_newton_ggnmp", "hutchinson_trace_hmp", "kfac_inverse",
             "variance_adaptive_step")

HESSIANFREE = ("hessian_vector_product", "hessian_vector_product.grad_params", "ggn_vector_product",
               "ggn_vector_product_from_plist", "R_op", "jacobian_vector_product", "L_op",
               "transposed_jacobian_vector_product", "autograd_diag_ggn_exact")

UTILS = ("kfacs_to_mat", "apply_kfac_mat_prod", "apply_inv_kfac_mat_prod", "vector_to_parameter_list",
         "unfold_by_conv")


def names() -> list[str]:
    out = [f"{net}.{ext}" for net, exts in NETS.items() for ext in exts]
    out += [f"option.{name}" for name in OPTIONS]
    out += [f"use_case.{name}" for name in USE_CASES]
    out += [f"hessianfree.{name}" for name in HESSIANFREE]
    out += [f"utils.{name}" for name in UTILS]
    return out


def _net(name: str) -> tuple[Any, Any, Any, Any, bool]:
    """(network, loss module, inputs, targets, held in eval) of a network name, with fixed seeds."""
    import torch
    from torch import nn

    from backpack.custom_module.branching import Parallel, SumModule
    from backpack.custom_module.pad import Pad
    from backpack.custom_module.permute import Permute
    from backpack.custom_module.reduce_tuple import ReduceTuple
    from backpack.custom_module.scale_module import ScaleModule
    from backpack.custom_module.slicing import Slicing

    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    ce = nn.CrossEntropyLoss()
    classes = torch.arange(N) % 3
    held = False
    if name == "mlp":
        net = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, held
    if name == "mlp_mse":
        net = nn.Sequential(nn.Linear(4, 5), nn.Sigmoid(), nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 2))
        return net, nn.MSELoss(), torch.randn(N, 4, generator=gen), torch.randn(N, 2, generator=gen), held
    if name == "mlp_activations":
        net = nn.Sequential(nn.Linear(4, 5), nn.ELU(), nn.Linear(5, 5), nn.SELU(), nn.Linear(5, 5),
                            nn.LeakyReLU(0.1), nn.Linear(5, 5), nn.LogSigmoid(), nn.Dropout(0.2), nn.Linear(5, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, held
    if name == "mlp_bce":
        net = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 1))
        target = (torch.arange(N) % 2).float().unsqueeze(1)
        return net, nn.BCEWithLogitsLoss(), torch.randn(N, 4, generator=gen), target, held
    if name == "cnn":
        net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(2, 2, 2), nn.Sigmoid(), nn.Flatten(), nn.Linear(2 * 2 * 2, 3))
        return net, ce, torch.randn(N, 1, 6, 6, generator=gen), classes, held
    if name == "cnn_pad_pool":
        net = nn.Sequential(nn.ZeroPad2d(1), nn.Conv2d(2, 4, 3, stride=1, groups=2), nn.ReLU(), nn.AvgPool2d(2),
                            nn.Conv2d(4, 2, 2, dilation=1, bias=False), nn.Tanh(), nn.Flatten(), nn.Linear(2, 3))
        return net, ce, torch.randn(N, 2, 4, 4, generator=gen), classes, held
    if name == "conv1d":
        net = nn.Sequential(nn.Conv1d(2, 3, 3, padding=1), nn.Tanh(), nn.MaxPool1d(2), nn.Conv1d(3, 3, 2),
                            nn.ReLU(), nn.AvgPool1d(2), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(3, 3))
        return net, ce, torch.randn(N, 2, 8, generator=gen), classes, held
    if name == "conv3d":
        net = nn.Sequential(nn.Conv3d(1, 2, 2), nn.ReLU(), nn.MaxPool3d(2), nn.Conv3d(2, 2, 1), nn.Sigmoid(),
                            nn.AvgPool3d(1), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(2, 3))
        return net, ce, torch.randn(N, 1, 5, 5, 5, generator=gen), classes, held
    if name == "cnn_dropout_mse":
        net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Dropout(0.25), nn.MaxPool2d(2),
                            nn.Flatten(), nn.Linear(2 * 2 * 2, 2))
        return net, nn.MSELoss(), torch.randn(N, 1, 4, 4, generator=gen), torch.randn(N, 2, generator=gen), held
    if name == "convtranspose1d":
        net = nn.Sequential(nn.ConvTranspose1d(2, 2, 3, stride=2), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 9, 3))
        return net, ce, torch.randn(N, 2, 4, generator=gen), classes, held
    if name == "convtranspose2d":
        net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Sigmoid(), nn.ConvTranspose2d(2, 2, 2, stride=1, padding=1),
                            nn.ReLU(), nn.Flatten(), nn.Linear(2 * 2 * 2, 3))
        return net, ce, torch.randn(N, 1, 5, 5, generator=gen), classes, held
    if name == "convtranspose3d":
        net = nn.Sequential(nn.ConvTranspose3d(1, 2, 2), nn.Tanh(), nn.Flatten(), nn.Linear(2 * 27, 3))
        return net, ce, torch.randn(N, 1, 2, 2, 2, generator=gen), classes, held
    if name == "batchnorm1d":
        net = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, True
    if name == "batchnorm2d":
        net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 9, 3))
        return net, ce, torch.randn(N, 1, 5, 5, generator=gen), classes, True
    if name == "rnn":  # (N, T, F) -> (N, C, T), a class per step
        net = nn.Sequential(nn.RNN(3, 4, batch_first=True), ReduceTuple(index=0), nn.Linear(4, 3), Permute(0, 2, 1))
        return net, ce, torch.randn(N, 5, 3, generator=gen), torch.randint(0, 3, (N, 5), generator=gen), held
    if name == "lstm":
        net = nn.Sequential(nn.Embedding(6, 4), nn.LSTM(4, 4, batch_first=True), ReduceTuple(index=0),
                            nn.Linear(4, 3), Permute(0, 2, 1))
        return net, ce, torch.randint(0, 6, (N, 5), generator=gen), torch.randint(0, 3, (N, 5), generator=gen), held
    if name == "embedding":
        net = nn.Sequential(nn.Embedding(7, 3), nn.Flatten(), nn.Linear(3 * 4, 3))
        return net, ce, torch.randint(0, 7, (N, 4), generator=gen), classes, held
    if name == "custom_modules":
        block = Parallel(nn.Identity(), nn.Sequential(nn.Linear(4, 4), nn.Sigmoid()), merge_module=SumModule())
        net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), block, ScaleModule(weight=0.5), Pad((1, 1)),
                            Slicing((slice(None), slice(0, 5))), nn.Tanh(), nn.Linear(5, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, held
    if name == "residual":  # the residual block of HBP's custom modules
        block = Parallel(nn.Identity(), nn.Sequential(nn.Linear(4, 4), nn.Sigmoid()), merge_module=SumModule())
        net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), block, ScaleModule(weight=2.0), nn.Linear(4, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, held
    if name == "converter_resnet":
        from backpack import extend

        class Block(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv1 = nn.Conv2d(2, 2, 3, padding=1)
                self.relu = nn.ReLU()
                self.conv2 = nn.Conv2d(2, 2, 3, padding=1)
                self.fc = nn.Linear(2 * 4 * 4, 3)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                residual = x
                out = self.conv2(self.relu(self.conv1(x)))
                out = out * 0.5 + residual
                out = self.relu(out)
                return self.fc(torch.flatten(out, 1))

        net = extend(Block().eval(), use_converter=True)
        return net, ce, torch.randn(N, 2, 4, 4, generator=gen), classes, held
    if name == "converter_lstm":
        from backpack import extend

        class CharRNN(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.embedding = nn.Embedding(6, 4)
                self.lstm = nn.LSTM(4, 4, batch_first=True)
                self.dense = nn.Linear(4, 3)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                x = self.embedding(x)
                x, _ = self.lstm(x)
                return self.dense(x).permute(0, 2, 1)

        net = extend(CharRNN().eval(), use_converter=True)
        return net, ce, torch.randint(0, 6, (N, 5), generator=gen), torch.randint(0, 3, (N, 5), generator=gen), held
    if name == "unsupported":  # a LayerNorm, which no extension supports
        net = nn.Sequential(nn.Linear(4, 5), nn.LayerNorm(5), nn.Linear(5, 3))
        return net, ce, torch.randn(N, 4, generator=gen), classes, held
    raise KeyError(name)


def _extension(name: str, keywords: dict[str, Any] | None = None) -> Any:
    from backpack import extensions

    cls, static = EXT.get(name, (name, {}))
    options = dict(static)
    options.update(keywords or {})
    if cls == "HBP":
        from backpack.extensions.secondorder.hbp import (BackpropStrategy, ExpectationApproximation,
                                                         LossHessianStrategy)

        return extensions.HBP(curv_type=options["curv"], loss_hessian_strategy=LossHessianStrategy.SUM,
                              backprop_strategy=BackpropStrategy.BATCH_AVERAGE,
                              ea_strategy=ExpectationApproximation.BOTEV_MARTENS, savefield="hbp")
    fail_mode = options.pop("fail_mode", None)
    ext = getattr(extensions, cls)(**options)
    if fail_mode is not None:
        ext._fail_mode = fail_mode
    return ext


def _modules() -> dict[str, Any]:
    import torch
    from torch import nn

    class Step(nn.Module):
        """An extended network and loss; forward: the loss on the batch, its backward inside ``backpack(*exts)``,
        then the quantities the extensions stored on the parameters (``after`` reduces them as a use case
        does). ``held``: the network stays in eval mode whatever the harness's mode (batch norm)."""

        def __init__(self, net: nn.Module, lossfunc: nn.Module, exts: tuple[Any, ...], options: dict[str, Any],
                     special: str | None = None, held: bool = False, after: Any = None) -> None:
            super().__init__()
            self.net = net
            self.lossfunc = lossfunc
            self.exts = exts
            self.options = options
            self.special = special
            self.held = held
            self.after = after
            self.fields = [ext.savefield for ext in exts]

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            if self.held:
                self.net.eval()
            return self

        def forward(self, X: torch.Tensor, y: torch.Tensor) -> Any:
            from backpack import backpack, disable
            from backpack.context import CTX

            with torch.enable_grad():
                if self.special == "disable":
                    with disable():
                        plain = self.lossfunc(self.net(X), y)
                    plain.backward()
                loss = self.lossfunc(self.net(X), y)
                with backpack(*self.exts, **self.options):
                    loss.backward(retain_graph=self.special == "twice")
                    if self.special == "twice":
                        loss.backward()
                if self.special == "remove_hooks":
                    CTX.remove_hooks()
            if self.after is not None:
                return self.after(self.net, loss)
            out = [loss]
            for p in self.net.parameters():
                for field in self.fields:
                    value = getattr(p, field, None)
                    if callable(value):  # a curvature-matrix product: applied to two directions
                        value = value(torch.ones(2, *p.shape))
                    out.append(value)
            return out

        def entry_points(self) -> list[Any]:
            from backpack import backpack

            return [backpack.__enter__, backpack.__exit__] + [type(ext).__call__ for ext in self.exts]

    class Run(nn.Module):
        """Bench glue: ``run(*inputs)`` is the user's code; ``entered`` the library functions it calls; ``held``
        the modules it uses (registered, so the mode reaches them). Gradients enabled."""

        def __init__(self, run: Any, entered: list[Any], **held: nn.Module) -> None:
            super().__init__()
            self.held = nn.ModuleDict(held)
            self.run = run
            self.entered = entered

        def forward(self, *inputs: Any) -> Any:
            with torch.enable_grad():
                return self.run(*inputs)

        def entry_points(self) -> list[Any]:
            return self.entered

    return {"Step": Step, "Run": Run}


def _hook() -> Any:
    """An extension hook that reduces each module's quantities to their sum and frees them (as the docs' memory
    saving example does)."""
    import torch

    sums: list[Any] = []

    def hook(module: Any) -> None:
        for p in module.parameters(recurse=False):
            for field in ("diag_ggn_exact", "grad_batch"):
                if hasattr(p, field):
                    sums.append(torch.sum(getattr(p, field)))
                    delattr(p, field)

    return hook


def _ext_model(net_name: str, specs: tuple[tuple[str, dict[str, Any]], ...], options: dict[str, Any],
               special: str | None) -> Built:
    from backpack import extend

    net, lossfunc, X, y, held = _net(net_name)
    if not net_name.startswith("converter"):
        net = extend(net)
    lossfunc = extend(lossfunc)
    exts = tuple(_extension(name, keywords) for name, keywords in specs)
    options = dict(options)
    if special == "hook":
        options["extension_hook"] = _hook()
    model = _modules()["Step"](net, lossfunc, exts, options, special=special, held=held)
    return model, (X, y), {}


def _use_case(name: str) -> Built:
    import torch

    from backpack import extend, extensions
    from backpack.utils import kroneckers

    Step = _modules()["Step"]
    if name == "diag_ggn_sgd_step":
        net, lossfunc, X, y, _ = _net("cnn")

        def after(net: Any, loss: Any) -> Any:
            with torch.no_grad():
                for p in net.parameters():
                    p.sub_(0.1 * p.grad / (p.diag_ggn_mc + 1e-2))
            return loss
        return Step(extend(net), extend(lossfunc), (extensions.DiagGGNMC(),), {}, after=after), (X, y), {}
    if name == "dp_sgd_step":
        net, lossfunc, X, y, _ = _net("mlp")
        lossfunc.reduction = "sum"

        def after(net: Any, loss: Any) -> Any:
            params = list(net.parameters())
            norms = torch.sqrt(sum(p.batch_l2 for p in params))
            scale = torch.clamp(1.0 / norms, max=1.0)
            out = []
            for p in params:
                clipped = torch.einsum("n,n...->...", scale, p.grad_batch)
                out.append(clipped + 0.01 * torch.ones_like(clipped))
            return out
        return Step(extend(net), extend(lossfunc), (extensions.BatchGrad(), extensions.BatchL2Grad()), {},
                    after=after), (X, y), {}
    if name == "cg_newton_ggnmp":
        net, lossfunc, X, y, _ = _net("mlp_mse")

        def after(net: Any, loss: Any) -> Any:
            out = []
            for p in net.parameters():  # two steps of CG on (G + I) x = g, per parameter block
                b = p.grad.detach().unsqueeze(0).flatten(start_dim=1).T
                x = torch.zeros_like(b)
                r = b.clone()
                d = r.clone()
                for _ in range(2):
                    Gd = p.ggnmp(d.T.reshape(1, *p.shape)).reshape(1, -1).T + d
                    alpha = (r * r).sum() / (d * Gd).sum()
                    x = x + alpha * d
                    r_new = r - alpha * Gd
                    d = r_new + (r_new * r_new).sum() / (r * r).sum() * d
                    r = r_new
                out.append(x)
            return out
        return Step(extend(net), extend(lossfunc), (extensions.GGNMP(),), {}, after=after), (X, y), {}
    if name == "hutchinson_trace_hmp":
        net, lossfunc, X, y, _ = _net("cnn")
        gen = torch.Generator().manual_seed(3)

        def after(net: Any, loss: Any) -> Any:
            trace = 0.0
            for p in net.parameters():
                v = torch.randint(0, 2, (3, *p.shape), generator=gen).float() * 2 - 1
                trace = trace + torch.einsum("i...,i...->", v, p.hmp(v)) / 3
            return trace
        return Step(extend(net), extend(lossfunc), (extensions.HMP(),), {}, after=after), (X, y), {}
    if name == "kfac_inverse":
        net, lossfunc, X, y, _ = _net("mlp")

        def after(net: Any, loss: Any) -> Any:
            out = []
            for p in net.parameters():
                mat = kroneckers.kfacs_to_mat(p.kflr)
                g = p.grad.reshape(-1, 1)
                out.append((mat, kroneckers.apply_inv_kfac_mat_prod(p.kflr, g, shift=[1e-2] * len(p.kflr))))
            return out
        return Step(extend(net), extend(lossfunc), (extensions.KFLR(),), {}, after=after), (X, y), {}
    if name == "variance_adaptive_step":
        net, lossfunc, X, y, _ = _net("embedding")

        def after(net: Any, loss: Any) -> Any:
            with torch.no_grad():
                for p in net.parameters():
                    snr = p.grad ** 2 / (p.variance + p.sum_grad_squared + 1e-8)
                    p.sub_(0.05 * snr * p.grad)
            return loss
        return Step(extend(net), extend(lossfunc), (extensions.Variance(), extensions.SumGradSquared()), {},
                    after=after), (X, y), {}
    raise KeyError(name)


def _hessianfree(name: str) -> Built:
    import torch

    from backpack.hessianfree import ggnvp, hvp, lop, rop
    from backpack.utils.examples import autograd_diag_ggn_exact

    Run = _modules()["Run"]
    net, lossfunc, X, y, _ = _net("mlp")
    params = list(net.parameters())
    gen = torch.Generator().manual_seed(2)
    v = [torch.randn(p.shape, generator=gen) for p in params]
    if name == "hessian_vector_product":
        def run(X: Any, y: Any) -> Any:
            return hvp.hessian_vector_product(lossfunc(net(X), y), params, v)
        return Run(run, [hvp.hessian_vector_product], net=net), (X, y), {}
    if name == "hessian_vector_product.grad_params":
        def run(X: Any, y: Any) -> Any:
            loss = lossfunc(net(X), y)
            grads = torch.autograd.grad(loss, params, create_graph=True)
            return hvp.hessian_vector_product(loss, params, v, grad_params=grads, detach=False)
        return Run(run, [hvp.hessian_vector_product], net=net), (X, y), {}
    if name == "ggn_vector_product":
        def run(X: Any, y: Any) -> Any:
            output = net(X)
            return ggnvp.ggn_vector_product(lossfunc(output, y), output, net, v)
        return Run(run, [ggnvp.ggn_vector_product], net=net), (X, y), {}
    if name == "ggn_vector_product_from_plist":
        def run(X: Any, y: Any) -> Any:
            output = net(X)
            return ggnvp.ggn_vector_product_from_plist(lossfunc(output, y), output, params[2:], v[2:])
        return Run(run, [ggnvp.ggn_vector_product_from_plist], net=net), (X, y), {}
    if name in ("R_op", "jacobian_vector_product"):
        function = getattr(rop, name)

        def run(X: Any, y: Any) -> Any:
            return function(net(X), params, v)
        return Run(run, [function], net=net), (X, y), {}
    if name in ("L_op", "transposed_jacobian_vector_product"):
        function = getattr(lop, name)
        w = torch.randn(N, 3, generator=gen)

        def run(X: Any, y: Any) -> Any:
            return function(net(X), params, w)
        return Run(run, [function], net=net), (X, y), {}
    if name == "autograd_diag_ggn_exact":
        def run(X: Any, y: Any) -> Any:
            return autograd_diag_ggn_exact(X, y, net, lossfunc, idx=[0, 5, 30])
        return Run(run, [autograd_diag_ggn_exact], net=net), (X, y), {}
    raise KeyError(name)


def _utility(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call
    from backpack.utils import conv, convert_parameters, kroneckers

    gen = torch.Generator().manual_seed(4)

    def spd(n: int) -> Any:
        A = torch.randn(n, n, generator=gen)
        return A @ A.T / n + 0.5 * torch.eye(n)

    A, B = spd(3), spd(2)
    if name == "kfacs_to_mat":
        return Call(kroneckers.kfacs_to_mat), ([A, B, spd(2)],), {}
    if name == "apply_kfac_mat_prod":
        return Call(kroneckers.apply_kfac_mat_prod), ([A, B], torch.randn(6, 2, generator=gen)), {}
    if name == "apply_inv_kfac_mat_prod":
        return Call(kroneckers.apply_inv_kfac_mat_prod), ([A, B], torch.randn(6, generator=gen)), {}
    if name == "vector_to_parameter_list":
        net = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
        return Call(convert_parameters.vector_to_parameter_list, parameters=list(net.parameters())), \
            (torch.randn(43, generator=gen),), {}
    if name == "unfold_by_conv":
        module = nn.Conv2d(2, 3, 3, padding=1, stride=2)
        return Call(lambda x: conv.unfold_by_conv(x, module)), (torch.randn(N, 2, 5, 5, generator=gen),), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # full backward hooks on modules whose inputs need no gradient
    torch.manual_seed(0)
    family, rest = name.split(".", 1)
    if family == "option":
        net_name, specs, options, special = OPTIONS[rest]
        return _ext_model(net_name, specs, options, special)
    if family == "use_case":
        return _use_case(rest)
    if family == "hessianfree":
        return _hessianfree(rest)
    if family == "utils":
        return _utility(rest)
    net_name, ext = name.split(".", 1)
    if net_name not in NETS or ext not in NETS[net_name]:
        raise KeyError(name)
    return _ext_model(net_name, ((ext, {}),), {}, None)

"""Ground-truth bench, sam (sam-pytorch): Sharpness-Aware Minimization as a wrapper around a base optimizer.

sam-pytorch 0.0.1 ships one ``torch.optim.Optimizer`` subclass, ``SAM(params, optim, rho=0.05)``, and the function
its step runs, ``sam.utils.compute_sam(group, closure)``. ``SAM`` keeps a single parameter group holding ``rho``
and the base optimizer the user built over the same parameters; its ``step(closure)`` (under ``no_grad``) wraps the
closure in ``enable_grad``, evaluates the loss and its gradients at the current point, then ``compute_sam`` clones
the gradients of the parameters that have one (``p.grad is not None``), scales them by ``rho`` over their global
norm with ``torch._foreach_mul_``, moves the parameters there (``_foreach_add_``), calls the closure again for the
gradients at the perturbed point and moves back (``_foreach_sub_``); the base optimizer's ``step()`` then applies
those gradients. There is no ``first_step`` / ``second_step`` pair in this package: ``step(closure)`` is how its
users run it. Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with
batch norm, or the MLP in bfloat16; batch 2), the base optimizer and ``SAM``; the harness calls it twice in eval
and twice in train mode and the state carries over. Its forward is one of:

- ``closure``: ``sam.step(closure)``, the closure zeroing the gradients, computing the loss and ``backward()``
  (``gt_optimizer_bench.train_step_model``), as a compiled training step;
- ``warm``: the same after two eager steps at build time, so the compiled step starts with the base optimizer's
  state (momentum buffers, moments);
- ``loop``: two SAM steps over two mini-batches in one compiled call, the losses returned;
- ``classify``: a cross-entropy closure on class labels, the loss and logits returned;
- ``clip``: a closure that clips the gradients' norm after ``backward()`` (both closure calls clip);
- ``inner_zero``: the closure zeroes the base optimizer's gradients instead of ``SAM``'s;
- ``frozen``: one more parameter given to ``SAM`` that never gets a gradient (the ``p.grad is None`` skip);
- ``subset``: ``SAM`` perturbs the head only while the base optimizer steps every parameter;
- ``inner_groups``: the base optimizer with two parameter groups (the head with its own learning rate);
- ``scheduler``: a step then the base optimizer's ``StepLR`` step, as an epoch loop runs it;
- ``compute_sam``: ``compute_sam(sam.param_groups[0], closure)`` alone, the perturbation and return;
- ``loss_value``: the step's returned loss (``closure().detach()``) fed to a running average.

Base optimizers: ``SGD`` (plain, with momentum, Nesterov and weight decay as in the SAM paper, and the foreach
implementation), ``Adam`` (and foreach), ``AdamW``, ``RMSprop``, ``Adagrad``; ``rho`` of 0.05 (the default), 0.5
and 2.0. ``SAM`` refuses a ``rho`` of zero or less and more than one parameter group in its constructor; these
raise before anything is compiled and are not benched. Random weights, nothing downloaded; ``names()`` needs no
torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Base optimizer name -> (``torch.optim`` class name, keywords).
BASES: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 5e-4}),
    "sgd_foreach": ("SGD", {"lr": 0.1, "momentum": 0.9, "foreach": True}),
    "adam": ("Adam", {"lr": 1e-3}),
    "adam_foreach": ("Adam", {"lr": 1e-3, "foreach": True}),
    "adamw": ("AdamW", {"lr": 1e-3, "weight_decay": 0.01}),
    "rmsprop": ("RMSprop", {"lr": 1e-3}),
    "adagrad": ("Adagrad", {"lr": 1e-2}),
}
# Model name -> (base optimizer, kind, net: "mlp", "conv" or "bf16", rho).
MODELS: dict[str, tuple[str, str, str, float]] = {
    "SAM.step.sgd": ("sgd", "closure", "mlp", 0.05),
    "SAM.step.sgd_nesterov": ("sgd_nesterov", "closure", "mlp", 0.05),
    "SAM.step.sgd_foreach": ("sgd_foreach", "closure", "mlp", 0.05),
    "SAM.step.adam": ("adam", "closure", "mlp", 0.05),
    "SAM.step.adam_foreach": ("adam_foreach", "closure", "mlp", 0.05),
    "SAM.step.adamw": ("adamw", "closure", "mlp", 0.05),
    "SAM.step.rmsprop": ("rmsprop", "closure", "mlp", 0.05),
    "SAM.step.adagrad": ("adagrad", "closure", "mlp", 0.05),
    "SAM.step.rho0.5": ("sgd", "closure", "mlp", 0.5),
    "SAM.step.conv.sgd_nesterov": ("sgd_nesterov", "closure", "conv", 2.0),
    "SAM.step.conv.adam": ("adam", "closure", "conv", 0.05),
    "SAM.step.bf16.sgd": ("sgd", "closure", "bf16", 0.05),
    "SAM.warm.sgd_nesterov": ("sgd_nesterov", "warm", "mlp", 0.05),
    "SAM.warm.adam": ("adam", "warm", "mlp", 0.05),
    "SAM.warm.conv.adamw": ("adamw", "warm", "conv", 0.05),
    "SAM.loop.sgd_nesterov": ("sgd_nesterov", "loop", "mlp", 0.05),
    "SAM.loop.adam": ("adam", "loop", "mlp", 0.05),
    "SAM.classify.sgd_nesterov": ("sgd_nesterov", "classify", "mlp", 0.05),
    "SAM.classify.conv.adam": ("adam", "classify", "conv", 0.05),
    "SAM.clip.sgd": ("sgd", "clip", "mlp", 0.05),
    "SAM.inner_zero.adam": ("adam", "inner_zero", "mlp", 0.05),
    "SAM.frozen.sgd": ("sgd", "frozen", "mlp", 0.05),
    "SAM.frozen.adam": ("adam", "frozen", "mlp", 0.05),
    "SAM.subset.sgd_nesterov": ("sgd_nesterov", "subset", "mlp", 0.05),
    "SAM.inner_groups.sgd_nesterov": ("sgd_nesterov", "inner_groups", "mlp", 0.05),
    "SAM.scheduler.sgd_nesterov": ("sgd_nesterov", "scheduler", "mlp", 0.05),
    "SAM.loss_value.adam": ("adam", "loss_value", "mlp", 0.05),
    "compute_sam.sgd": ("sgd", "compute_sam", "mlp", 0.05),
    "compute_sam.conv": ("sgd", "compute_sam", "conv", 0.5),
    "compute_sam.frozen": ("sgd", "compute_sam_frozen", "mlp", 0.05),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import warnings

    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from gt_optimizer_bench import OUT, train_step_model, tiny_model
    from sam.sam import SAM
    from sam.utils import compute_sam

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    base, kind, net_kind, rho = MODELS[name]
    net, x, y = tiny_model(net_kind)
    class_name, keywords = BASES[base]
    base_class = getattr(torch.optim, class_name)
    head = net[-1]

    if kind == "inner_groups":
        body = [p for module in list(net)[:-1] for p in module.parameters()]
        inner = base_class([{"params": body}, {"params": list(head.parameters()), "lr": keywords["lr"] / 10}],
                           **keywords)
    else:
        inner = base_class(net.parameters(), **keywords)
    extra = nn.Parameter(torch.zeros(OUT))
    if kind in ("frozen", "compute_sam_frozen"):
        sam_params: list[Any] = [*net.parameters(), extra]
    elif kind == "subset":
        sam_params = list(head.parameters())
    else:
        sam_params = list(net.parameters())
    optimizer = SAM(sam_params, inner, rho=rho)
    entries: list[Any] = [SAM.step]

    def mse_closure(inputs: Any, targets: Any, zero: Any = None, clip: bool = False) -> Any:
        def closure() -> Any:
            (zero or optimizer).zero_grad()
            loss = F.mse_loss(net(inputs), targets)
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            return loss
        return closure

    if kind in ("closure", "frozen", "inner_groups"):
        return train_step_model(net, optimizer, x, y, closure=True, entry_points=entries)
    if kind == "warm":
        for seed in range(2):
            optimizer.step(mse_closure(x * (1.0 + 0.1 * seed), y))
        return train_step_model(net, optimizer, x, y, closure=True, entry_points=entries)
    if kind in ("compute_sam", "compute_sam_frozen"):
        # ``compute_sam`` needs the gradients at the current point first and runs under ``no_grad``, as in ``step``.
        def perturb(owner: Any, inputs: Any, targets: Any) -> Any:
            closure = mse_closure(inputs, targets)
            with torch.enable_grad():
                loss = closure()
            with torch.no_grad():
                compute_sam(optimizer.param_groups[0], torch.enable_grad()(closure))
            return loss.detach(), [p.grad for p in owner.parameters()]

        return Run(net, perturb, [compute_sam]), (x, y), {}
    if kind == "classify":
        labels = torch.tensor([1, 3])

        def classify(owner: Any, inputs: Any, targets: Any) -> Any:
            def closure() -> Any:
                optimizer.zero_grad()
                loss = F.cross_entropy(owner(inputs), targets)
                loss.backward()
                return loss
            loss = optimizer.step(closure)
            return loss, owner(inputs).argmax(-1)

        return Run(net, classify, entries), (x, labels), {}
    if kind == "loop":
        xs, ys = torch.stack([x, x.flip(0) * 0.5]), torch.stack([y, y.flip(0)])

        def loop(owner: Any, batches: Any, targets: Any) -> Any:
            losses = [optimizer.step(mse_closure(batch, target)) for batch, target in zip(batches, targets)]
            return torch.stack(losses)

        return Run(net, loop, entries), (xs, ys), {}
    if kind in ("clip", "inner_zero", "subset"):
        zero = inner if kind in ("inner_zero", "subset") else None

        def step(owner: Any, inputs: Any, targets: Any) -> Any:
            loss = optimizer.step(mse_closure(inputs, targets, zero=zero, clip=kind == "clip"))
            return owner(inputs) + loss

        return Run(net, step, entries), (x, y), {}
    if kind == "scheduler":
        scheduler = torch.optim.lr_scheduler.StepLR(inner, step_size=1, gamma=0.5)

        def scheduled(owner: Any, inputs: Any, targets: Any) -> Any:
            loss = optimizer.step(mse_closure(inputs, targets))
            scheduler.step()
            return loss

        return Run(net, scheduled, entries), (x, y), {}
    if kind == "loss_value":
        running = torch.zeros(())

        def averaged(owner: Any, inputs: Any, targets: Any) -> Any:
            loss = optimizer.step(mse_closure(inputs, targets))
            running.mul_(0.9).add_(0.1 * loss)
            return running.clone()

        return Run(net, averaged, entries), (x, y), {}
    raise KeyError(name)

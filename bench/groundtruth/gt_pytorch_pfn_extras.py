"""Ground-truth bench, pytorch_pfn_extras: the training manager, engine, reporting, ``ppe.nn`` and utilities.

pytorch-pfn-extras (PFN's supplements to PyTorch) drives a user's training loop through an
``ExtensionsManager`` (``with manager.run_iteration(): ...`` around each step, extensions such as ``LogReport``,
``observe_lr``, ``MicroAverage`` or ``snapshot`` run by triggers), or through the ``Trainer`` / ``Evaluator`` of
``ppe.engine``, whose ``Handler`` and ``Logic`` run the forward, the backward and the optimizer step. Values are
collected with ``ppe.reporting`` (``report``, ``scope``, ``Summary``). A user who compiles such a pipeline compiles
the step or the loop, so the models are bench modules whose forward runs one of them on a tiny batch:

- ``MANAGER``: one ``run_iteration`` of an ``ExtensionsManager`` (stepping its optimizer, reporting the loss)
  without extensions and with ``LogReport``, ``observe_lr``, ``observe_value``, ``MicroAverage``,
  ``FailOnNonNumber``, ``ParameterStatistics``, ``MinValue`` and a ``snapshot`` into a temporary directory, and
  with the optimizer stepped by hand;
- ``ENGINE``: ``create_trainer(...).run`` over a short epoch of a tiny in-memory loader (plain, with extensions,
  with an evaluator and a validation loader, with a dict of models), an evaluator's
  ``run``, the ``Logic`` steps (``train_step``, ``train_step_optimizers``, ``eval_step``) and the ``Handler``'s
  ``eval_step``;
- ``REPORTING``: ``report`` into a ``Reporter`` scope, ``report_scope``, ``Summary`` and ``DictSummary``;
- ``NN``: ``LazyLinear``, ``LazyConv1d`` / ``2d``, ``LazyBatchNorm1d``, ``ExtendedSequential`` (and its
  ``repeat``), ``Ensure`` and ``ensure``;
- ``UTILS``: ``ppe.profiler.record`` / ``record_function`` on the CPU, ``from_ndarray`` / ``as_ndarray``.

Batches are tiny (8 samples, 6 features, 4 classes) with random values; the networks are small MLPs. Random
weights, nothing downloaded; snapshots and logs go to a temporary directory. ``names()`` needs no torch; ``build``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES = 8, 6, 8, 4

MANAGER = ("plain", "LogReport", "observe_lr", "observe_value", "MicroAverage", "FailOnNonNumber",
           "ParameterStatistics", "MinValue", "snapshot", "step_optimizers_none")
ENGINE = ("Trainer.run", "Trainer.run_extensions", "Trainer.run_evaluator", "Trainer.dict_models",
          "Evaluator.run", "Logic.train_step", "Logic.train_step_optimizers",
          "Logic.eval_step", "Handler.eval_step")
REPORTING = ("report", "report_scope", "Summary", "DictSummary")
NN = ("LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "ExtendedSequential",
      "ExtendedSequential.repeat", "Ensure", "ensure")
UTILS = ("profiler.record", "profiler.record_function", "ndarray")


def names() -> list[str]:
    return ([f"manager.{m}" for m in MANAGER] + [f"engine.{m}" for m in ENGINE]
            + [f"reporting.{m}" for m in REPORTING] + [f"nn.{m}" for m in NN] + [f"utils.{m}" for m in UTILS])


def _net() -> Any:
    """A classifier whose forward takes ``x`` and ``t`` and returns its loss and accuracy, reporting both."""
    import pytorch_pfn_extras as ppe
    import torch
    import torch.nn.functional as F
    from torch import nn

    class _Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> dict[str, torch.Tensor]:
            y = self.body(x)
            loss = F.cross_entropy(y, t)
            correct = (y.argmax(-1) == t).float().sum()
            ppe.reporting.report({"loss": loss.detach(), "correct": correct, "total": float(t.shape[0])})
            return {"loss": loss, "y": y, "t": t}

    return _Net()


def _data() -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    return torch.randn(N, DIM, generator=gen), torch.arange(N) % CLASSES


def _loader(x: Any, t: Any) -> list[dict[str, Any]]:
    return [{"x": x[:4], "t": t[:4]}, {"x": x[4:], "t": t[4:]}]


def _tmp() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="gt_ppe_")


def _runner(owner: Any, net: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    module = Run(owner, run, entries)
    module.net = net
    return module


def _manager_model(name: str) -> Built:
    import pytorch_pfn_extras as ppe
    import torch
    from pytorch_pfn_extras.training import extensions as ext

    net = _net()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    out = _tmp()
    x, t = _data()
    made: dict[str, Any] = {
        "LogReport": lambda: ext.LogReport(trigger=(1, "iteration"), filename=None),
        "observe_lr": lambda: ext.observe_lr(optimizer=opt),
        "observe_value": lambda: ext.observe_value("w_norm", lambda m: float(net.body[0].weight.norm())),
        "MicroAverage": lambda: ext.MicroAverage("correct", "total", "accuracy", trigger=(1, "iteration")),
        "FailOnNonNumber": lambda: ext.FailOnNonNumber(),
        "ParameterStatistics": lambda: ext.ParameterStatistics(net, prefix="net"),
        "MinValue": lambda: ext.MinValue("loss", trigger=(1, "iteration")),
        "snapshot": lambda: ext.snapshot(filename="snap_{.iteration}", n_retains=1),
    }
    extensions = [made[name]()] if name in made else []
    manager = ppe.training.ExtensionsManager(net, opt, 10**6, iters_per_epoch=2, extensions=extensions,
                                             out_dir=out)
    steps = None if name == "step_optimizers_none" else ["main"]

    def run(m: Any, x: Any, t: Any) -> Any:
        with torch.enable_grad(), m.run_iteration(step_optimizers=steps):
            if steps is None:
                opt.zero_grad()
            loss = net(x, t)["loss"]
            loss.backward()
            if steps is None:
                opt.step()
        return loss

    entries = [ppe.training.ExtensionsManager.run_iteration]
    return _runner(manager, net, run, entries), (x, t), {}


def _engine_model(name: str) -> Built:
    import pytorch_pfn_extras as ppe
    import torch
    from pytorch_pfn_extras.training import extensions as ext

    net = _net()
    ppe.to(net, "cpu")
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    out = _tmp()
    x, t = _data()
    if name.startswith("Trainer."):
        kind = name.partition(".")[2]

        def run(_: Any, x: Any, t: Any) -> Any:
            models: Any = net
            optimizers: Any = opt
            kwargs: dict[str, Any] = {}
            val = None
            if kind == "run_extensions":
                kwargs["extensions"] = [ext.LogReport(filename=None), ext.observe_lr(optimizer=opt),
                                        ext.MicroAverage("correct", "total", "accuracy")]
            if kind == "run_evaluator":
                kwargs["evaluator"] = ppe.engine.create_evaluator(net, device="cpu")
                val = _loader(x, t)
            if kind == "dict_models":
                models, optimizers = {"main": net}, {"main": opt}
            trainer = ppe.engine.create_trainer(models, optimizers, 1, device="cpu", out_dir=out, **kwargs)
            with torch.enable_grad():
                trainer.run(_loader(x, t), val)
            return trainer.manager.iteration

        return _runner(None, net, run, [ppe.training.Trainer.run]), (x, t), {}
    if name.startswith("Evaluator."):
        def evaluate(_: Any, x: Any, t: Any) -> Any:
            evaluator = ppe.engine.create_evaluator(net, device="cpu")
            reporter = ppe.reporting.Reporter()
            observation: dict[str, Any] = {}
            with reporter.scope(observation):
                evaluator.run(_loader(x, t))
            return observation

        return _runner(None, net, evaluate, [ppe.training.Evaluator.run]), (x, t), {}
    logic = ppe.handler.Logic()
    models, optimizers = {"main": net}, {"main": opt}
    if name == "Logic.train_step":
        def step(lg: Any, x: Any, t: Any) -> Any:
            return lg.train_step(models, optimizers, 0, {"x": x, "t": t})

        return _runner(logic, net, step, [ppe.handler.Logic.train_step]), (x, t), {}
    if name == "Logic.train_step_optimizers":
        def full(lg: Any, x: Any, t: Any) -> Any:
            outs = lg.train_step(models, optimizers, 0, {"x": x, "t": t})
            lg.train_step_optimizers(models, optimizers, 0)
            return outs

        return _runner(logic, net, full, [ppe.handler.Logic.train_step,
                                          ppe.handler.Logic.train_step_optimizers]), (x, t), {}
    if name == "Logic.eval_step":
        def ev(lg: Any, x: Any, t: Any) -> Any:
            return lg.eval_step(models, 0, {"x": x, "t": t})

        return _runner(logic, net, ev, [ppe.handler.Logic.eval_step]), (x, t), {}
    evaluator = ppe.engine.create_evaluator(net, device="cpu")
    results: list[Any] = []

    def estep(ev: Any, x: Any, t: Any) -> Any:
        results.clear()
        ev.handler.eval_step(ev, 0, {"x": x, "t": t}, lambda idx, outs: results.append(outs))
        return results[-1] if results else None

    return _runner(evaluator, net, estep, [ppe.handler.Handler.eval_step]), (x, t), {}


def _reporting_model(name: str) -> Built:
    import pytorch_pfn_extras as ppe
    import torch
    from gt_calls import Run

    gen = torch.Generator().manual_seed(2)
    x = torch.randn(N, DIM, generator=gen)
    rep = ppe.reporting

    if name == "report":
        def run(_: Any, x: Any) -> Any:
            reporter = rep.Reporter()
            observation: dict[str, Any] = {}
            with reporter.scope(observation):
                rep.report({"mean": x.mean(), "max": x.max(), "n": 3})
            return observation

        return Run(None, run, [rep.report, rep.Reporter.scope]), (x,), {}
    if name == "report_scope":
        def scoped(_: Any, x: Any) -> Any:
            observation: dict[str, Any] = {}
            reporter = rep.Reporter()
            with reporter:
                with rep.report_scope(observation):
                    rep.report({"s": x.sum()})
            return observation

        return Run(None, scoped, [rep.report_scope, rep.report]), (x,), {}
    if name == "Summary":
        def summary(_: Any, x: Any) -> Any:
            s = rep.Summary()
            for row in x:
                s.add(row.sum(), weight=2.0)
            return s.make_statistics()

        return Run(None, summary, [rep.Summary.add, rep.Summary.make_statistics]), (x,), {}

    def dict_summary(_: Any, x: Any) -> Any:
        s = rep.DictSummary()
        for row in x:
            s.add({"a": row.mean(), "b": row.max(), "c": 1.0})
        return s.compute_mean(), s.make_statistics()

    return Run(None, dict_summary, [rep.DictSummary.add, rep.DictSummary.compute_mean]), (x,), {}


def _nn_model(name: str) -> Built:
    import pytorch_pfn_extras as ppe
    import torch
    from gt_calls import Call
    from torch import nn

    gen = torch.Generator().manual_seed(3)
    x = torch.randn(N, DIM, generator=gen)
    if name == "LazyLinear":
        return ppe.nn.LazyLinear(None, HID), (x,), {}
    if name == "LazyConv1d":
        return ppe.nn.LazyConv1d(None, 4, 3, padding=1), (torch.randn(2, 3, 8, generator=gen),), {}
    if name == "LazyConv2d":
        return ppe.nn.LazyConv2d(None, 4, 3), (torch.randn(2, 3, 6, 6, generator=gen),), {}
    if name == "LazyBatchNorm1d":
        return ppe.nn.LazyBatchNorm1d(None), (x,), {}
    seq = ppe.nn.ExtendedSequential(nn.Linear(DIM, DIM), nn.BatchNorm1d(DIM), nn.ReLU())
    if name == "ExtendedSequential":
        return seq, (x,), {}
    if name == "ExtendedSequential.repeat":
        return seq.repeat(2, mode="init"), (x,), {}
    if name == "Ensure":
        return ppe.nn.Ensure(shape=(None, DIM), dtype=torch.float32), (x,), {}
    return Call(ppe.nn.ensure, shape=(N, None), dtype=torch.float32, broadcastable=True), (x,), {}


def _utils_model(name: str) -> Built:
    import pytorch_pfn_extras as ppe
    import torch
    from gt_calls import Run
    from torch import nn

    gen = torch.Generator().manual_seed(4)
    x = torch.randn(N, DIM, generator=gen)
    body = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if name == "profiler.record":
        def rec(b: Any, x: Any) -> Any:
            with ppe.profiler.record("gt:forward", use_cuda=False):
                y = b(x)
            return y

        return Run(body, rec, [ppe.profiler.record]), (x,), {}
    if name == "profiler.record_function":
        fwd = ppe.profiler.record_function("gt:fn")(lambda b, x: b(x).relu())
        return Run(body, fwd, [ppe.profiler.record_function]), (x,), {}

    def nd(b: Any, x: Any) -> Any:
        arr = ppe.as_ndarray(b(x).detach())
        return ppe.from_ndarray(arr) * 2

    return Run(body, nd, [ppe.as_ndarray, ppe.from_ndarray]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "manager" and rest in MANAGER:
        return _manager_model(rest)
    if group == "engine" and rest in ENGINE:
        return _engine_model(rest)
    if group == "reporting" and rest in REPORTING:
        return _reporting_model(rest)
    if group == "nn" and rest in NN:
        return _nn_model(rest)
    if group == "utils" and rest in UTILS:
        return _utils_model(rest)
    raise KeyError(name)

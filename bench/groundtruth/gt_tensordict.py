"""Ground-truth bench, tensordict: TensorDict, tensorclasses and the tensordict.nn modules under torch.compile.

tensordict 0.14.3 is a dictionary of tensors with a shared batch shape (``TensorDict``, lazy stacks,
``@tensorclass`` / ``TensorClass`` dataclasses) and the modules built on it (``tensordict.nn``): ``TensorDictModule``
(keys in, keys out), ``TensorDictSequential``, ``ProbabilisticTensorDictModule`` / ``...Sequential`` (distributions
from keys, sampled or their mode under ``set_interaction_type``), ``EnsembleModule`` (``vmap`` over stacked
parameters), ``TensorDictParams`` and the functional calls ``from_module`` / ``to_module`` that torchrl's losses
use. Users compile both: policies and losses that take and return tensordicts, and plain models that build and
manipulate tensordicts inside their forward. The tables cover, with a batch of 2 (of 3 where stacked) and widths
of 3 to 8:

- ``MODULES``: ``TensorDictModule`` (nested keys, several outputs, keyword inputs, ``dispatch`` calls, ``WrapModule``,
  ``as_tensordict_module``), ``TensorDictSequential`` (lists, dicts, nesting, ``selected_out_keys``,
  ``partial_tolerant``, ``select_subsequence``), probabilistic modules (Normal with ``NormalParamExtractor``,
  ``AddStateIndependentNormalScale``, ``TruncatedNormal``, ``OneHotCategorical``, ``Categorical``,
  ``CompositeDistribution``; deterministic, random and mean interaction; log-probabilities; ``log_prob`` and
  ``get_dist``), ``EnsembleModule``, ``skip_existing``, ``TensorClassModuleBase`` and its wrapper;
- ``OPS``: what a forward does with a tensordict or a tensorclass it builds from tensors: construction (nested,
  ``from_dict``, ``fromkeys``, ``make_tensordict``), ``get`` / ``set`` / nested keys, ``apply`` (one and two
  tensordicts, ``named_apply``), ``update``, ``select`` / ``exclude`` / ``rename_key_`` / ``pop``, ``flatten_keys`` /
  ``unflatten_keys``, shape operations, indexing (integers, slices, a boolean mask), ``split`` / ``unbind``,
  ``torch.stack`` / ``torch.cat`` / ``lazy_stack`` / ``maybe_dense_stack``, reductions, arithmetic, ``where``,
  ``clamp``, ``to`` a dtype, ``clone`` / ``detach`` / ``zero_``, ``expand``, ``keys`` / ``items`` / ``values``,
  ``to_dict``, ``pad``, ``pad_sequence``, ``merge_tensordicts``, ``consolidate``, ``NonTensorData``,
  tensorclasses (``@tensorclass`` and ``TensorClass``: construction, indexing, stacking, ``apply``);
- ``FUNCTIONAL``: ``from_module`` / ``to_module`` calls, ``from_modules`` with ``torch.vmap`` (model ensembling),
  ``TensorDictParams``, a target network's soft update by ``lerp_``, ``mappings`` / ``biased_softplus``;
- ``TRAIN``: training steps (loss, backward, optimizer step) through a sequential, a probabilistic policy
  (REINFORCE), an ensemble, a functional call through ``TensorDictParams`` and a tensorclass batch.

Left out: ``CudaGraphModule`` (CUDA only), memory-mapped and persistent storage, the stores and the
serialization and interchange paths (``save``, ``load``, ``memmap``, ``from_pandas`` ...), which touch disk or
other libraries and are not called inside compiled code. ``to`` with a positional dtype
(``td.to(torch.float64)``) is compiled in its keyword form only: the positional form stops Dynamo itself with an
internal error (the dtype taken for a device while the arguments are parsed), a failure of the compiler rather than
a graph break. Random weights and inputs from fixed generators,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

B, OBS, HID, ACT = 2, 4, 8, 3

MODULES = (
    "TensorDictModule", "TensorDictModule.nested_keys", "TensorDictModule.two_outputs",
    "TensorDictModule.in_keys_dict", "TensorDictModule.keyword_call", "TensorDictModule.dispatch",
    "TensorDictModule.out_to_in", "TensorDictModule.inplace_false", "TensorDictModule.inplace_empty",
    "WrapModule", "as_tensordict_module",
    "TensorDictSequential", "TensorDictSequential.dict", "TensorDictSequential.nested",
    "TensorDictSequential.selected_out_keys", "TensorDictSequential.partial_tolerant",
    "TensorDictSequential.select_subsequence", "TensorDictSequential.lambda",
    "Probabilistic.normal.deterministic", "Probabilistic.normal.random", "Probabilistic.normal.mean.log_prob",
    "Probabilistic.state_independent_scale", "Probabilistic.truncated_normal", "Probabilistic.one_hot.random",
    "Probabilistic.categorical.log_prob", "Probabilistic.composite", "ProbabilisticSequential.log_prob",
    "ProbabilisticSequential.get_dist", "ProbabilisticSequential.entropy",
    "EnsembleModule", "EnsembleModule.no_expand", "skip_existing",
    "TensorClassModuleBase", "TensorClassModuleWrapper",
)
OPS = (
    "TensorDict.construct", "TensorDict.nested", "TensorDict.from_dict", "TensorDict.fromkeys",
    "make_tensordict", "get_set.nested", "apply", "apply.two", "named_apply", "update", "select_exclude",
    "rename_key_", "pop", "flatten_keys", "unflatten_keys", "reshape_view", "unsqueeze_squeeze",
    "permute_transpose", "index.int", "index.slice", "index.mask", "split_unbind", "stack", "cat", "lazy_stack",
    "lazy_stack.index", "maybe_dense_stack", "reductions", "arithmetic", "where", "clamp", "to_dtype.keyword",
    "clone_detach_zero", "expand", "keys_items_values", "to_dict", "pad", "pad_sequence",
    "merge_tensordicts", "consolidate", "NonTensorData", "tensorclass", "tensorclass.index_stack",
    "TensorClass.apply", "input.tensordict",
)
FUNCTIONAL = ("from_module.to_module", "from_modules.vmap", "TensorDictParams.module", "soft_update.lerp_",
              "mappings.biased_softplus", "NormalParamExtractor")
TRAIN = ("train.TensorDictSequential.adam", "train.Probabilistic.reinforce", "train.EnsembleModule.adam",
         "train.TensorDictParams.functional.sgd", "train.tensorclass.adam")


def names() -> list[str]:
    return [*MODULES, *OPS, *FUNCTIONAL, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _td(seed: int = 1, batch: int = B) -> Any:
    from tensordict import TensorDict

    return TensorDict({"obs": _randn(batch, OBS, seed=seed)}, batch_size=[batch])


def _mlp(out: int = ACT, inp: int = OBS) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(inp, HID), nn.Tanh(), nn.Linear(HID, out))


def _policy(kind: str) -> Any:
    """A probabilistic policy: logits or (loc, scale) from ``obs``, then the distribution's module."""
    import torch
    from torch import nn

    from tensordict.nn import (AddStateIndependentNormalScale, CompositeDistribution, NormalParamExtractor,
                               OneHotCategorical, ProbabilisticTensorDictModule as PM,
                               ProbabilisticTensorDictSequential as PS, TensorDictModule as TDM, TruncatedNormal)

    if kind in ("normal", "truncated_normal"):
        net = TDM(nn.Sequential(_mlp(2 * ACT), NormalParamExtractor()), in_keys=["obs"], out_keys=["loc", "scale"])
        dist: Any = torch.distributions.Normal if kind == "normal" else TruncatedNormal
        extra: dict[str, Any] = {} if kind == "normal" else {"distribution_kwargs": {"a": -1.0, "b": 1.0}}
        return net, PM(in_keys=["loc", "scale"], out_keys=["action"], distribution_class=dist, **extra)
    if kind == "state_independent":
        net = TDM(nn.Sequential(_mlp(ACT), AddStateIndependentNormalScale(ACT)), in_keys=["obs"],
                  out_keys=["loc", "scale"])
        return net, PM(in_keys=["loc", "scale"], out_keys=["action"], distribution_class=torch.distributions.Normal)
    if kind in ("one_hot", "categorical"):
        net = TDM(_mlp(ACT), in_keys=["obs"], out_keys=["logits"])
        dist = OneHotCategorical if kind == "one_hot" else torch.distributions.Categorical
        return net, PM(in_keys=["logits"], out_keys=["action"], distribution_class=dist)
    # composite: a discrete and a continuous head
    heads = TDM(_MultiHead(), in_keys=["obs"], out_keys=[("params", "move", "logits"), ("params", "turn", "loc"),
                                                         ("params", "turn", "scale")])
    prob = PM(in_keys=["params"], out_keys=[("action", "move"), ("action", "turn")],
              distribution_class=CompositeDistribution,
              distribution_kwargs={"distribution_map": {"move": torch.distributions.Categorical,
                                                        "turn": torch.distributions.Normal},
                                   "name_map": {"move": ("action", "move"), "turn": ("action", "turn")}})
    del PS
    return heads, prob


def _multi_head_class() -> Any:
    import torch
    from torch import nn

    class MultiHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = _mlp(HID)
            self.logits = nn.Linear(HID, ACT)
            self.loc = nn.Linear(HID, 1)

        def forward(self, obs: torch.Tensor) -> Any:
            h = torch.tanh(self.body(obs))
            loc = self.loc(h)
            return self.logits(h), loc, torch.ones_like(loc)

    return MultiHead


def _MultiHead() -> Any:  # noqa: N802 - a constructor
    return _multi_head_class()()


def _module(name: str) -> Built:
    import torch
    from torch import nn

    import tensordict.nn as tdn
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule as TDM, TensorDictSequential as TDS

    td = _td()
    if name == "TensorDictModule":
        return TDM(_mlp(), in_keys=["obs"], out_keys=["action"]), (td,), {}
    if name == "TensorDictModule.nested_keys":
        nested = TensorDict({"agent": {"obs": _randn(B, OBS)}}, batch_size=[B])
        return TDM(_mlp(), in_keys=[("agent", "obs")], out_keys=[("agent", "action")]), (nested,), {}
    if name == "TensorDictModule.two_outputs":
        return TDM(nn.Sequential(_mlp(2 * ACT), tdn.NormalParamExtractor()), in_keys=["obs"],
                   out_keys=["loc", "scale"]), (td,), {}
    if name == "TensorDictModule.in_keys_dict":
        td2 = TensorDict({"obs": _randn(B, OBS), "other": _randn(B, OBS, seed=2)}, batch_size=[B])
        return TDM(_Bilinear(), in_keys={"x": "obs", "y": "other"}, out_keys=["out"]), (td2,), {}
    if name == "TensorDictModule.keyword_call":
        return TDM(_mlp(), in_keys=["obs"], out_keys=["action"]), (), {"obs": _randn(B, OBS)}
    if name == "TensorDictModule.dispatch":
        from gt_calls import Run

        module = TDM(_mlp(), in_keys=["obs"], out_keys=["action"])
        return Run(module, lambda owner, obs: owner(obs=obs), [TDM, tdn.dispatch]), (_randn(B, OBS),), {}
    if name == "TensorDictModule.out_to_in":
        return TDM(_mlp(OBS), in_keys=["obs"], out_keys=["obs"]), (td,), {}
    if name == "TensorDictModule.inplace_false":
        return TDM(_mlp(), in_keys=["obs"], out_keys=["action"], inplace=False), (td,), {}
    if name == "TensorDictModule.inplace_empty":
        return TDM(_mlp(), in_keys=["obs"], out_keys=["action"], inplace="empty"), (td,), {}
    if name == "WrapModule":
        return tdn.WrapModule(lambda t: t.set("double", t["obs"] * 2), in_keys=["obs"], out_keys=["double"]), \
            (td,), {}
    if name == "as_tensordict_module":
        @tdn.as_tensordict_module(in_keys=["obs"], out_keys=["norm"])
        def normed(obs: torch.Tensor) -> torch.Tensor:
            return obs / obs.norm(dim=-1, keepdim=True)

        from gt_calls import Run

        return Run(nn.Identity(), lambda owner, t: normed(t), [TDM]), (td,), {}
    encoder = TDM(_mlp(HID), in_keys=["obs"], out_keys=["hidden"])
    head = TDM(nn.Linear(HID, ACT), in_keys=["hidden"], out_keys=["action"])
    if name == "TensorDictSequential":
        return TDS(encoder, TDM(nn.ReLU(), in_keys=["hidden"], out_keys=["hidden"]), head), (td,), {}
    if name == "TensorDictSequential.dict":
        return TDS({"encoder": encoder, "head": head}), (td,), {}
    if name == "TensorDictSequential.nested":
        return TDS(TDS(encoder), TDS(head, TDM(nn.Softmax(-1), in_keys=["action"], out_keys=["probs"]))), (td,), {}
    if name == "TensorDictSequential.selected_out_keys":
        return TDS(encoder, head, selected_out_keys=["action"]), (td,), {}
    if name == "TensorDictSequential.partial_tolerant":
        extra = TDM(nn.Linear(ACT, 1), in_keys=["missing"], out_keys=["value"])
        return TDS(encoder, head, extra, partial_tolerant=True), (td,), {}
    if name == "TensorDictSequential.select_subsequence":
        seq = TDS(encoder, head, TDM(nn.Linear(ACT, 1), in_keys=["action"], out_keys=["value"]))
        return seq.select_subsequence(out_keys=["action"]), (td,), {}
    if name == "TensorDictSequential.lambda":
        return TDS(encoder, lambda t: t.set("scaled", t["hidden"] * 0.5)), (td,), {}
    if name.startswith("Probabilistic."):
        kind = name.split(".")[1]
        net, prob = _policy(kind)
        if kind in ("normal", "one_hot"):
            mode = name.split(".")[2]
            prob.default_interaction_type = tdn.InteractionType(mode if mode != "mean" else "mean")
        prob.return_log_prob = name.endswith("log_prob") or kind == "composite"
        return tdn.ProbabilisticTensorDictSequential(net, prob), (td,), {}
    if name.startswith("ProbabilisticSequential."):
        from gt_calls import Method, Run

        policy = tdn.ProbabilisticTensorDictSequential(*_policy("normal"))
        if name.endswith("log_prob"):
            full = policy(_td())
            return Method(policy, "log_prob"), (full,), {}
        if name.endswith("get_dist"):
            return Run(policy, lambda owner, t: owner.get_dist(t).rsample(), [type(policy).get_dist]), (td,), {}
        return Run(policy, lambda owner, t: owner.get_dist(t).entropy(), [type(policy).get_dist]), (td,), {}
    if name.startswith("EnsembleModule"):
        module = TDM(_mlp(), in_keys=["obs"], out_keys=["action"])
        if name.endswith("no_expand"):
            stacked = TensorDict({"obs": _randn(3, B, OBS)}, batch_size=[3, B])
            return tdn.EnsembleModule(module, num_copies=3, expand_input=False), (stacked,), {}
        return tdn.EnsembleModule(module, num_copies=3), (td,), {}
    if name == "skip_existing":
        from gt_calls import Run

        module = TDM(_mlp(), in_keys=["obs"], out_keys=["action"])
        present = TensorDict({"obs": _randn(B, OBS), "action": _randn(B, ACT)}, batch_size=[B])

        def skipping(owner: Any, t: Any) -> Any:
            with tdn.set_skip_existing(True):
                return owner(t)

        return Run(module, skipping, [TDM, tdn.set_skip_existing]), (present,), {}
    return _tensorclass_module(name)


def _Bilinear() -> Any:  # noqa: N802 - a constructor
    import torch
    from torch import nn

    class Bilinear(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(OBS, ACT), nn.Linear(OBS, ACT)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.a(x) * self.b(y)

    return Bilinear()


def _tensorclasses() -> Any:
    import torch

    from tensordict import TensorClass, tensorclass

    namespace: dict[str, Any] = {"torch": torch, "TensorClass": TensorClass}
    exec(  # noqa: S102 - the classes need evaluated annotations; this module imports no torch at its top
        "class Batch(TensorClass):\n"
        "    obs: torch.Tensor\n"
        "    target: torch.Tensor\n"
        "\n"
        "class Output(TensorClass):\n"
        "    result: torch.Tensor\n"
        "\n"
        "class Pair:\n"
        "    left: torch.Tensor\n"
        "    right: torch.Tensor\n"
        "    def total(self):\n"
        "        return self.left.sum(-1) + self.right.sum(-1)\n",
        namespace,
    )
    namespace["Pair"] = tensorclass(namespace["Pair"])
    return namespace


def _tensorclass_module(name: str) -> Built:
    import torch
    from torch import nn

    from tensordict.nn import TensorClassModuleBase, TensorClassModuleWrapper

    classes = _tensorclasses()
    batch_cls, output_cls = classes["Batch"], classes["Output"]

    class Regressor(TensorClassModuleBase[batch_cls, output_cls]):  # type: ignore[valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.net = _mlp(OBS)

        def forward(self, x: Any) -> Any:
            return output_cls(result=self.net(x.obs) - x.target, batch_size=x.batch_size)

    batch = batch_cls(obs=_randn(B, OBS), target=_randn(B, OBS, seed=2), batch_size=[B])
    if name == "TensorClassModuleBase":
        return Regressor(), (batch,), {}
    td = batch.to_tensordict()
    del torch, nn
    return TensorClassModuleWrapper(Regressor()), (td,), {}


def _ops(name: str) -> Built:
    """A forward that builds a tensordict from its tensors and works on it (the user's code: outside the library)."""
    import torch
    from torch import nn

    import tensordict as tdl
    from gt_calls import Run
    from tensordict import TensorDict

    x, y = _randn(B, OBS), _randn(B, OBS, seed=2)
    linear = nn.Linear(OBS, OBS)

    def td_of(a: torch.Tensor, b: torch.Tensor) -> Any:
        return TensorDict({"a": a, "b": b}, batch_size=[B])

    def nested_of(a: torch.Tensor, b: torch.Tensor) -> Any:
        return TensorDict({"a": a, "sub": {"b": b, "c": a * b}}, batch_size=[B])

    classes = _tensorclasses() if "ensorclass" in name or "TensorClass" in name else {}
    runs: dict[str, Any] = {
        "TensorDict.construct": lambda m, a, b: td_of(m(a), b)["a"].sum() + td_of(a, b).batch_size[0],
        "TensorDict.nested": lambda m, a, b: nested_of(m(a), b)["sub", "c"],
        "TensorDict.from_dict": lambda m, a, b: TensorDict.from_dict({"a": m(a), "n": {"b": b}})["n", "b"],
        "TensorDict.fromkeys": lambda m, a, b: TensorDict.fromkeys(["u", "v"], 0.0)["u"] + m(a),
        "make_tensordict": lambda m, a, b: tdl.make_tensordict(a=m(a), b=b, batch_size=[B]).sum(dim=0)["a"],
        "get_set.nested": lambda m, a, b: nested_of(a, b).set(("sub", "d"), m(a)).get(("sub", "d")),
        "apply": lambda m, a, b: nested_of(m(a), b).apply(lambda t: t * 2 + 1)["sub", "c"],
        "apply.two": lambda m, a, b: td_of(m(a), b).apply(lambda s, t: s - t, td_of(b, a))["a"],
        "named_apply": lambda m, a, b: td_of(m(a), b).named_apply(
            lambda key, t: t * 2 if key == "a" else t)["a"],
        "update": lambda m, a, b: td_of(a, b).update({"a": m(a), "c": b})["a"],
        "select_exclude": lambda m, a, b: nested_of(m(a), b).select("a", ("sub", "b")).exclude("a")["sub", "b"],
        "rename_key_": lambda m, a, b: td_of(m(a), b).rename_key_("a", "z")["z"],
        "pop": lambda m, a, b: td_of(m(a), b).pop("a"),
        "flatten_keys": lambda m, a, b: nested_of(m(a), b).flatten_keys(".")["sub.c"],
        "unflatten_keys": lambda m, a, b: TensorDict({"x.y": m(a), "x.z": b}, batch_size=[B]).unflatten_keys(
            ".")["x", "y"],
        "reshape_view": lambda m, a, b: td_of(m(a), b).reshape(1, B).view(-1)["a"],
        "unsqueeze_squeeze": lambda m, a, b: td_of(m(a), b).unsqueeze(0).squeeze(0)["b"],
        "permute_transpose": lambda m, a, b: TensorDict({"a": m(a).reshape(B, 2, 2)}, batch_size=[B, 2]).permute(
            1, 0).transpose(0, 1)["a"],
        "index.int": lambda m, a, b: td_of(m(a), b)[0]["a"],
        "index.slice": lambda m, a, b: td_of(m(a), b)[1:]["b"],
        "index.mask": lambda m, a, b: td_of(m(a), b)[a[:, 0] > 0]["a"].sum(),
        "split_unbind": lambda m, a, b: [t["a"] for t in td_of(m(a), b).split(1, 0)] + [
            t["b"] for t in td_of(a, b).unbind(0)],
        "stack": lambda m, a, b: torch.stack([td_of(m(a), b), td_of(b, a)], 0)["a"],
        "cat": lambda m, a, b: torch.cat([td_of(m(a), b), td_of(b, a)], 0)["b"],
        "lazy_stack": lambda m, a, b: tdl.lazy_stack([td_of(m(a), b), td_of(b, a)], 0)["a"],
        "lazy_stack.index": lambda m, a, b: tdl.lazy_stack([td_of(m(a), b), td_of(b, a)], 0)[1]["a"],
        "maybe_dense_stack": lambda m, a, b: tdl.maybe_dense_stack([td_of(m(a), b), td_of(b, a)])["b"],
        "reductions": lambda m, a, b: (td_of(m(a), b).mean(dim=0)["a"], td_of(a, b).sum(reduce=True),
                                       td_of(a, b).std(dim=0)["b"]),
        "arithmetic": lambda m, a, b: ((td_of(m(a), b) * 2 + td_of(b, a)) / 3).exp()["a"],
        "where": lambda m, a, b: td_of(m(a), b).where(a > 0, td_of(b, a))["a"],
        "clamp": lambda m, a, b: td_of(m(a), b).clamp(-0.5, 0.5)["a"],
        "to_dtype.keyword": lambda m, a, b: td_of(m(a), b).to(dtype=torch.float64)["a"],
        "clone_detach_zero": lambda m, a, b: (td_of(m(a), b).clone().detach().zero_()["a"], td_of(a, b).clone()["b"]),
        "expand": lambda m, a, b: td_of(m(a), b).expand(3, B)["a"],
        "keys_items_values": lambda m, a, b: sum(v.sum() for k, v in nested_of(m(a), b).items(
            include_nested=True, leaves_only=True) if k != "a") + len(list(nested_of(a, b).keys())),
        "to_dict": lambda m, a, b: nested_of(m(a), b).to_dict()["sub"]["c"],
        "pad": lambda m, a, b: tdl.pad(td_of(m(a), b), [0, 1])["a"],
        "pad_sequence": lambda m, a, b: tdl.pad_sequence([TensorDict({"a": m(a)}, [B]),
                                                          TensorDict({"a": b[:1]}, [1])])["a"],
        "merge_tensordicts": lambda m, a, b: tdl.merge_tensordicts(TensorDict({"a": m(a)}, [B]),
                                                                   TensorDict({"b": b}, [B]))["b"],
        "consolidate": lambda m, a, b: nested_of(m(a), b).consolidate()["sub", "c"],
        "NonTensorData": lambda m, a, b: TensorDict({"a": m(a), "tag": tdl.NonTensorData("obs", batch_size=[B])},
                                                    [B])["a"],
        "tensorclass": lambda m, a, b: classes["Pair"](left=m(a), right=b, batch_size=[B]).total(),
        "tensorclass.index_stack": lambda m, a, b: torch.stack(
            [classes["Pair"](left=m(a), right=b, batch_size=[B])[0],
             classes["Pair"](left=b, right=a, batch_size=[B])[1]]).left,
        "TensorClass.apply": lambda m, a, b: classes["Batch"](obs=m(a), target=b, batch_size=[B]).apply(
            torch.tanh).obs,
        "input.tensordict": None,
    }
    if name == "input.tensordict":
        return Run(linear, lambda m, t: m(t["a"]) + t["sub", "b"], [TensorDict]), (nested_of(x, y),), {}
    return Run(linear, runs[name], [TensorDict]), (x, y), {}


def _functional(name: str) -> Built:
    import torch
    from torch import nn

    import tensordict.nn as tdn
    from gt_calls import Call, Run
    from tensordict import TensorDict

    x = _randn(B, OBS)
    if name == "from_module.to_module":
        net = _mlp()
        params = TensorDict.from_module(net).clone().apply(lambda t: t * 0.5)

        def call(owner: Any, t: torch.Tensor) -> Any:
            with params.to_module(owner):
                return owner(t)

        return Run(net, call, [TensorDict.to_module]), (x,), {}
    if name == "from_modules.vmap":
        nets = [_mlp() for _ in range(3)]
        params = TensorDict.from_modules(*nets, as_module=True)
        base = _mlp().to("meta")

        def call_one(p: Any, t: torch.Tensor) -> Any:
            with p.to_module(base):
                return base(t)

        holder = nn.ModuleDict({"params": params})
        return Run(holder, lambda owner, t: torch.vmap(call_one, (0, None))(owner["params"], t),
                   [TensorDict.to_module]), (x,), {}
    if name == "TensorDictParams.module":
        net = _mlp()
        params = tdn.TensorDictParams(TensorDict.from_module(net).clone())
        base = _mlp().to("meta")

        class Functional(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.params = params

            def forward(self, t: torch.Tensor) -> Any:
                with self.params.to_module(base):
                    return base(t)

            def entry_points(self) -> list[Any]:
                return [tdn.TensorDictParams, TensorDict.to_module]

        return Functional(), (x,), {}
    if name == "soft_update.lerp_":
        online, target = _mlp(), _mlp()
        source = TensorDict.from_module(online)
        dest = TensorDict.from_module(target)

        def update(owner: Any, t: torch.Tensor) -> Any:
            dest.data.lerp_(source.data, 0.05)
            return owner(t)

        return Run(target, update, [type(dest).lerp_]), (x,), {}
    if name == "mappings.biased_softplus":
        def scale(t: torch.Tensor) -> Any:
            return tdn.mappings("biased_softplus_1.0")(t) + tdn.biased_softplus(0.5)(t)

        return Call(scale), (x,), {}
    return tdn.NormalParamExtractor(scale_mapping="biased_softplus_1.0"), (_randn(B, 2 * ACT),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import tensordict.nn as tdn
    from gt_calls import Run
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule as TDM

    td = TensorDict({"obs": _randn(B, OBS), "target": _randn(B, ACT, seed=3),
                     "advantage": _randn(B, seed=4)}, batch_size=[B])
    if name == "train.TensorDictSequential.adam":
        model: Any = tdn.TensorDictSequential(TDM(_mlp(HID), in_keys=["obs"], out_keys=["hidden"]),
                                              TDM(nn.Linear(HID, ACT), in_keys=["hidden"], out_keys=["action"]))
        loss_of: Any = lambda out: F.mse_loss(out["action"], out["target"])  # noqa: E731
    elif name == "train.Probabilistic.reinforce":
        net, prob = _policy("normal")
        prob.return_log_prob = True
        prob.default_interaction_type = tdn.InteractionType.RANDOM
        model = tdn.ProbabilisticTensorDictSequential(net, prob)
        loss_of = lambda out: -(out["action_log_prob"].sum(-1) * out["advantage"]).mean()  # noqa: E731
    elif name == "train.EnsembleModule.adam":
        model = tdn.EnsembleModule(TDM(_mlp(), in_keys=["obs"], out_keys=["action"]), num_copies=3)
        loss_of = lambda out: F.mse_loss(out["action"], out["target"])  # noqa: E731
    elif name == "train.TensorDictParams.functional.sgd":
        net = _mlp()
        base = _mlp().to("meta")
        params = tdn.TensorDictParams(TensorDict.from_module(net).clone())

        class Functional(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.params = params

            def forward(self, t: Any) -> Any:
                with self.params.to_module(base):
                    return t.set("action", base(t["obs"]))

        model = Functional()
        loss_of = lambda out: F.mse_loss(out["action"], out["target"])  # noqa: E731
    else:
        batch_cls = _tensorclasses()["Batch"]
        td = batch_cls(obs=_randn(B, OBS), target=_randn(B, ACT, seed=3), batch_size=[B])
        model = _mlp()
        loss_of = lambda out: out  # noqa: E731
    params_list = list(model.parameters())
    optimizer: Any = (torch.optim.SGD(params_list, lr=0.1) if name.endswith("sgd")
                      else torch.optim.Adam(params_list, lr=1e-3))
    tensorclass = name == "train.tensorclass.adam"

    def step(owner: Any, t: Any) -> torch.Tensor:
        """The loss, its gradients and an optimizer step (the loss alone under ``no_grad``)."""
        if tensorclass:
            loss = F.mse_loss(owner(t.obs), t.target)
        else:
            loss = loss_of(owner(t.clone(False)))
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    entries = [type(td)] if tensorclass else [type(model)]
    return Run(model, step, entries), (td,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODULES:
        return _module(name)
    if name in OPS:
        return _ops(name)
    if name in FUNCTIONAL:
        return _functional(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

"""Ground-truth bench, discrete_continuous_embed_readout: embeddings and readouts for mixed discrete/continuous values.

discrete-continuous-embed-readout 0.2.12 (lucidrains) keeps one ``nn.Embedding`` table for a set of discrete groups
(token vocabularies, multi-discrete actions) and continuous dimensions (a mean row and, for readouts, a log-variance
row each). ``Embed`` maps discrete indices (a single group gets its group axis appended) and continuous values
(optionally normalized by a given mean and std) to embeddings, summed over groups and dimensions or kept apart,
returned alone, as a ``DiscreteContinuous`` pair, or concatenated. ``Readout`` projects an embedding back onto the
table: discrete logits split per group (``split`` by lengths read with ``tolist()``), continuous distribution
parameters (Gaussian, optionally squashed by ``tanh`` or with a clamped log variance, Beta, Kumaraswamy, or plain
regression with MSE / L1); it computes losses (masks, an ignore index, unreduced), samples (Gumbel, greedy,
differentiable, rescaled to a range), log probabilities, entropies and KL divergences, with the multi-discrete
case done in parallel by ``MultiCategorical`` (``segment_reduce`` over concatenated logits) or group by group.
Selectors (lists of discrete groups and continuous indices) pick a subset of the table per call, by index or by a
config given at the call (a selector module built on the fly). ``ParameterlessReadout`` works on logits given from
elsewhere; ``EmbedAndReadout`` builds a pair, optionally weight-tied. The tables cover, at width 8, a batch of 2,
sequences of 3, a vocabulary of 10, groups of 5 and 7, 3 continuous dimensions:

- ``EMBED``: ``Embed`` forwards over single and multi discrete, continuous (normalized), mixed inputs, with each
  summing and return option and with selectors by index and by config;
- ``READOUT``: ``Readout`` forwards (logits, parameters, losses with masks, ignored targets and unreduced) and its
  methods (``sample`` with temperatures, greedy and differentiable, rescaled; ``log_prob``, ``entropy``,
  ``kl_div``, concatenated outputs; ``rescale_from_native`` / ``rescale_to_native``) for each modality, each
  continuous distribution, parallel and sequential multi-discrete, selectors, ``ParameterlessReadout``;
- ``MULTI``: ``MultiCategorical`` used directly: sampling, log probabilities, entropy, KL, single and grouped;
- ``PIPELINES``: ``EmbedAndReadout`` around a transformer layer (tied and untied, explicit action axis), a policy
  that samples actions and scores them;
- ``TRAIN``: training steps (backward and an Adam step): a tied language model, a multi-discrete and continuous
  behaviour-cloning policy, a PPO-like policy loss with entropy bonus, a Beta-distributed continuous policy, a
  regression readout.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only. Nothing was left out: every model runs eagerly.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, VOCAB, GROUPS, CONT = 2, 3, 8, 10, (5, 7), 3

# Constructor configurations: modality -> keywords.
CONFIGS: dict[str, dict[str, Any]] = {
    "d1": {"num_discrete": VOCAB},
    "dm": {"num_discrete": GROUPS},
    "c": {"num_continuous": CONT},
    "dc": {"num_discrete": GROUPS, "num_continuous": CONT},
    "d1c": {"num_discrete": VOCAB, "num_continuous": CONT},
    "sel": {"num_discrete": 12, "num_continuous": 4,
            "selectors": [[[0, 1, 2], [3, 4, 5]], ([[6, 7, 8]], [0, 1]), [2, 3]]},
}
# Embed model name -> (configuration, extra constructor keywords, input ("d1" | "dm" | "c" | "dc" | "d1c" | "sel0"
# | "sel1" | "sel2" | "selcfg"), call keywords).
EMBED: dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]] = {
    "Embed.discrete": ("d1", {}, "d1", {}),
    "Embed.discrete.explicit_axis": ("d1", {"auto_append_discrete_set_dim": False}, "d1_axis", {}),
    "Embed.multi_discrete": ("dm", {}, "dm", {}),
    "Embed.multi_discrete.no_sum": ("dm", {}, "dm", {"sum_discrete_sets": False}),
    "Embed.continuous": ("c", {}, "c", {}),
    "Embed.continuous.no_sum": ("c", {}, "c", {"sum_continuous": False}),
    "Embed.continuous.mean_std": ("c", {"mean_std": True}, "c", {"normalize_continuous": True}),
    "Embed.mixed": ("dc", {}, "dc", {}),
    "Embed.mixed.tuple": ("dc", {}, "dc", {"sum_discrete_continuous": False}),
    "Embed.mixed.concat": ("dc", {}, "dc", {"concat_discrete_continuous": True}),
    "Embed.mixed.concat.no_sum": ("dc", {}, "dc", {"concat_discrete_continuous": True, "sum_discrete_sets": False,
                                                   "sum_continuous": False}),
    "Embed.mixed.single_discrete.mean_std": ("d1c", {"mean_std": True}, "d1c", {}),
    "Embed.discrete_only_given_mixed": ("dc", {}, "dm_none", {}),
    "Embed.return_both": ("d1", {}, "d1", {"return_only_discrete_or_continuous": False}),
    "Embed.selector_index.discrete": ("sel", {}, "sel0", {"selector_index": 0}),
    "Embed.selector_index.mixed": ("sel", {}, "sel1", {"selector_index": 1}),
    "Embed.selector_index.continuous": ("sel", {}, "sel2", {"selector_index": 2}),
    "Embed.selector_config": ("sel", {}, "selcfg", {"selector_config": ([[9, 10, 11]], [3])}),
}
# Readout model name -> (configuration, extra constructor keywords, operation).
READOUT: dict[str, tuple[str, dict[str, Any], str]] = {
    "Readout.discrete.logits": ("d1", {}, "logits"),
    "Readout.discrete.loss": ("d1", {}, "loss"),
    "Readout.discrete.loss.ignore_index": ("d1", {}, "loss.ignore"),
    "Readout.discrete.loss.mask": ("d1", {}, "loss.mask"),
    "Readout.discrete.loss.unreduced": ("d1", {}, "loss.unreduced"),
    "Readout.discrete.sample": ("d1", {}, "sample"),
    "Readout.discrete.sample.greedy": ("d1", {}, "sample.greedy"),
    "Readout.discrete.sample.differentiable": ("d1", {}, "sample.differentiable"),
    "Readout.discrete.log_prob": ("d1", {}, "log_prob"),
    "Readout.discrete.log_prob.sequential": ("d1", {"use_parallel_multi_discrete": False}, "log_prob"),
    "Readout.discrete.entropy": ("d1", {}, "entropy"),
    "Readout.discrete.kl_div": ("d1", {}, "kl_div"),
    "Readout.discrete.no_auto_squeeze.loss": ("d1", {"auto_squeeze_single_output": False}, "loss.axis"),
    "Readout.multi_discrete.logits": ("dm", {}, "logits"),
    "Readout.multi_discrete.loss": ("dm", {}, "loss"),
    "Readout.multi_discrete.loss.sequential": ("dm", {"use_parallel_multi_discrete": False}, "loss"),
    "Readout.multi_discrete.loss.mask.ignore_index": ("dm", {}, "loss.mask.ignore"),
    "Readout.multi_discrete.sample": ("dm", {}, "sample"),
    "Readout.multi_discrete.sample.greedy": ("dm", {}, "sample.greedy"),
    "Readout.multi_discrete.sample.sequential": ("dm", {"use_parallel_multi_discrete": False}, "sample"),
    "Readout.multi_discrete.sample.differentiable": ("dm", {}, "sample.differentiable"),
    "Readout.multi_discrete.log_prob": ("dm", {}, "log_prob"),
    "Readout.multi_discrete.entropy": ("dm", {}, "entropy"),
    "Readout.multi_discrete.entropy.sequential": ("dm", {"use_parallel_multi_discrete": False}, "entropy"),
    "Readout.multi_discrete.kl_div": ("dm", {}, "kl_div"),
    "Readout.multi_discrete.kl_div.sequential": ("dm", {"use_parallel_multi_discrete": False}, "kl_div"),
    "Readout.continuous.params": ("c", {}, "logits"),
    "Readout.continuous.loss": ("c", {}, "loss"),
    "Readout.continuous.loss.mask.unreduced": ("c", {}, "loss.mask.unreduced"),
    "Readout.continuous.sample": ("c", {}, "sample"),
    "Readout.continuous.sample.differentiable": ("c", {}, "sample.differentiable"),
    "Readout.continuous.log_prob": ("c", {}, "log_prob"),
    "Readout.continuous.entropy": ("c", {}, "entropy"),
    "Readout.continuous.kl_div": ("c", {}, "kl_div"),
    "Readout.continuous.log_var_clamp": ("c", {"continuous_dist_kwargs": {"log_var_clamp_range": (-5.0, 2.0)}},
                                         "loss"),
    "Readout.continuous.mean_std.sample": ("c", {"mean_std": True}, "sample"),
    "Readout.continuous.mean_std.loss": ("c", {"mean_std": True}, "loss"),
    "Readout.continuous.mean_std.entropy": ("c", {"mean_std": True}, "entropy"),
    "Readout.continuous.squashed.sample.rescale": ("c", {"continuous_squashed": True}, "sample.rescale"),
    "Readout.continuous.squashed.log_prob": ("c", {"continuous_squashed": True}, "log_prob.squashed"),
    "Readout.continuous.squashed.rescale_to_native": ("c", {"continuous_squashed": True}, "rescale_to_native"),
    "Readout.continuous.beta.loss": ("c", {"continuous_dist_type": "beta"}, "loss.unit"),
    "Readout.continuous.beta.sample.rescale": ("c", {"continuous_dist_type": "beta"}, "sample.rescale"),
    "Readout.continuous.beta.unimodal.entropy": ("c", {"continuous_dist_type": "beta",
                                                       "continuous_dist_kwargs": {"unimodal": True}}, "entropy"),
    "Readout.continuous.beta.rescale_from_native": ("c", {"continuous_dist_type": "beta"}, "rescale_from_native"),
    "Readout.continuous.kumaraswamy.loss": ("c", {"continuous_dist_type": "kumaraswamy"}, "loss.unit"),
    "Readout.continuous.kumaraswamy.sample.no_clip": ("c", {"continuous_dist_type": "kumaraswamy",
                                                            "continuous_dist_kwargs": {"clip": False}}, "sample"),
    "Readout.continuous.regression.mse": ("c", {"continuous_log_var_embed": False}, "loss"),
    "Readout.continuous.regression.l1.mask": ("c", {"continuous_log_var_embed": False,
                                                    "regression_loss_type": "l1"}, "loss.mask"),
    "Readout.continuous.regression.params": ("c", {"continuous_log_var_embed": False}, "logits"),
    "Readout.mixed.logits": ("dc", {}, "logits"),
    "Readout.mixed.loss": ("dc", {}, "loss"),
    "Readout.mixed.loss.mask.unreduced": ("dc", {}, "loss.mask.unreduced"),
    "Readout.mixed.sample": ("dc", {}, "sample"),
    "Readout.mixed.log_prob.concat": ("dc", {}, "log_prob.concat"),
    "Readout.mixed.entropy.concat": ("dc", {}, "entropy.concat"),
    "Readout.mixed.kl_div": ("dc", {}, "kl_div"),
    "Readout.mixed.single_discrete.loss": ("d1c", {}, "loss"),
    "Readout.mixed.single_discrete.log_prob.concat": ("d1c", {}, "log_prob.concat"),
    "Readout.selector_index.discrete.loss": ("sel", {}, "sel0.loss"),
    "Readout.selector_index.mixed.sample": ("sel", {}, "sel1.sample"),
    "Readout.selector_index.continuous.loss": ("sel", {}, "sel2.loss"),
    "Readout.selector_config.logits": ("sel", {}, "selcfg.logits"),
    "ParameterlessReadout.discrete.sample": ("d1", {"parameterless": True}, "given.sample"),
    "ParameterlessReadout.multi_discrete.loss": ("dm", {"parameterless": True}, "given.loss"),
    "ParameterlessReadout.multi_discrete.log_prob.entropy": ("dm", {"parameterless": True}, "given.log_prob"),
    "ParameterlessReadout.continuous.sample.log_prob": ("c", {"parameterless": True}, "given.log_prob"),
}
MULTI = (
    "MultiCategorical.single.sample", "MultiCategorical.single.log_prob", "MultiCategorical.single.entropy",
    "MultiCategorical.grouped.sample", "MultiCategorical.grouped.sample.greedy", "MultiCategorical.grouped.log_prob",
    "MultiCategorical.grouped.entropy", "MultiCategorical.grouped.kl_div",
    "MultiCategorical.grouped.sequential.log_prob", "MultiCategorical.grouped.sequential.kl_div",
)
PIPELINES = (
    "EmbedAndReadout.language_model.loss", "EmbedAndReadout.weight_tie.loss", "EmbedAndReadout.weight_tie.sample",
    "EmbedAndReadout.explicit_action_axis.loss", "EmbedAndReadout.mixed.policy_act",
)
TRAIN = (
    "train.EmbedAndReadout.weight_tie.lm.adam", "train.Readout.mixed.behaviour_cloning.adam",
    "train.Readout.multi_discrete.ppo.adam", "train.Readout.continuous.beta.policy.adam",
    "train.Readout.regression.adam", "train.Embed.continuous.mean_std.adam",
)


def names() -> list[str]:
    return [*EMBED, *READOUT, *MULTI, *PIPELINES, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _discrete(groups: tuple[int, ...], seed: int = 2, axis: bool = True) -> Any:
    import torch

    columns = [torch.randint(0, n, (BATCH, SEQ), generator=_gen(seed + i)) for i, n in enumerate(groups)]
    if len(groups) == 1 and not axis:
        return columns[0]
    return torch.stack(columns, dim=-1)


def _continuous(n: int = CONT, kind: str = "real", seed: int = 5) -> Any:
    import torch

    if kind == "unit":
        return torch.rand(BATCH, SEQ, n, generator=_gen(seed)) * 0.9 + 0.05
    if kind == "squashed":
        return torch.rand(BATCH, SEQ, n, generator=_gen(seed)) * 1.8 - 0.9
    return torch.randn(BATCH, SEQ, n, generator=_gen(seed))


def _mask() -> Any:
    import torch

    return torch.tensor([[True, True, False], [True, True, True]])


def _mean_std(n: int = CONT) -> Any:
    import torch

    return torch.stack((torch.linspace(-1.0, 1.0, n), torch.linspace(0.5, 2.0, n)), dim=-1)


def _construct(cls: Any, config: str, extra: dict[str, Any]) -> Any:
    keywords = {**CONFIGS[config], **extra}
    if keywords.pop("mean_std", False):
        keywords["continuous_mean_std"] = _mean_std(keywords.get("num_continuous", CONT))
    if keywords.pop("parameterless", False):
        from discrete_continuous_embed_readout import ParameterlessReadout

        return ParameterlessReadout(**keywords)
    return cls(DIM, **keywords)


def _embed(name: str) -> Built:
    from discrete_continuous_embed_readout import Embed
    from gt_calls import Keywords

    config, extra, inp, call = EMBED[name]
    module = _construct(Embed, config, extra)
    inputs = {
        "d1": lambda: _discrete((VOCAB,), axis=False), "d1_axis": lambda: _discrete((VOCAB,)),
        "dm": lambda: _discrete(GROUPS), "c": lambda: _continuous(), "dc": lambda: (_discrete(GROUPS), _continuous()),
        "d1c": lambda: (_discrete((VOCAB,), axis=False), _continuous()), "dm_none": lambda: (_discrete(GROUPS), None),
        "sel0": lambda: _discrete((3, 3)), "sel1": lambda: (_discrete((3,), axis=False), _continuous(2)),
        "sel2": lambda: _continuous(2), "selcfg": lambda: (_discrete((3,), axis=False), _continuous(1)),
    }
    return Keywords(module, **call), (inputs[inp](),), {}


def _targets(config: str, op: str, cont_kind: str) -> Any:
    import torch

    if config == "d1":
        if op == "loss.axis":
            return _discrete((VOCAB,))
        target = _discrete((VOCAB,), axis=False)
        if "ignore" in op:
            target[0, -1] = -1
        return target
    if config == "dm":
        target = _discrete(GROUPS)
        if "ignore" in op:
            target[1, 0, 1] = -1
        return target
    if config == "c":
        return _continuous(kind=cont_kind)
    if config == "dc":
        return (_discrete(GROUPS), _continuous(kind=cont_kind))
    return (_discrete((VOCAB,), axis=False), _continuous(kind=cont_kind))


def _readout(name: str) -> Built:
    import torch

    from discrete_continuous_embed_readout import Readout
    from gt_calls import Run

    config, extra, op = READOUT[name]
    module = _construct(Readout, config, extra)
    embed, embed2 = _randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=9)
    cont_kind = "unit" if op == "loss.unit" else ("squashed" if "squashed" in op else "real")
    mask = _mask()
    entries: list[Any] = [Readout]

    if op.startswith("sel"):
        index = {"sel0": 0, "sel1": 1, "sel2": 2}.get(op.split(".")[0])
        if op.startswith("selcfg"):
            def run(m: Any, e: Any, e2: Any) -> Any:
                return m(e, selector_config=([[9, 10, 11]], [3]))
        elif index == 0:
            target = _discrete((3, 3))

            def run(m: Any, e: Any, e2: Any) -> Any:
                return m(e, target, selector_index=0)
        elif index == 1:
            def run(m: Any, e: Any, e2: Any) -> Any:
                return m.sample(m(e, selector_index=1), selector_index=1)
        else:
            target = _continuous(2)

            def run(m: Any, e: Any, e2: Any) -> Any:
                return m(e, target, selector_index=2)
        entries = [Readout, Readout.sample] if index == 1 else [Readout]
        return Run(module, run, entries), (embed, embed2), {}

    if op.startswith("given"):
        # logits from elsewhere, of the readout's shapes
        if config == "d1":
            logits: Any = _randn(BATCH, SEQ, VOCAB, seed=11)
        elif config == "dm":
            logits = tuple(_randn(BATCH, SEQ, n, seed=11 + i) for i, n in enumerate(GROUPS))
        else:
            logits = _randn(BATCH, SEQ, CONT, 2, seed=11)
        target = _targets(config, "loss", "real")
        if op == "given.sample":
            return Run(module, lambda m, lg: m.sample(lg), [Readout.sample]), (logits,), {}
        if op == "given.loss":
            return Run(module, lambda m, lg, t: m.calculate_loss(lg, t), [Readout.calculate_loss]), \
                (logits, target), {}
        if config == "c":
            return Run(module, lambda m, lg: m.log_prob(lg, m.sample(lg)),
                       [Readout.sample, Readout.log_prob]), (logits,), {}
        return Run(module, lambda m, lg, t: (m.log_prob(lg, t), m.entropy(lg)),
                   [Readout.log_prob, Readout.entropy]), (logits, target), {}

    target = _targets(config, op, cont_kind)

    if op == "logits":
        return module, (embed,), {}
    if op.startswith("loss"):
        kwargs: dict[str, Any] = {}
        if "mask" in op:
            kwargs["loss_mask"] = mask
        if "unreduced" in op:
            kwargs["return_unreduced_loss"] = True

        def run(m: Any, e: Any, t: Any) -> Any:
            return m(e, t, **kwargs)

        return Run(module, run, entries), (embed, target), {}
    if op.startswith("sample"):
        entries = [Readout, Readout.sample]
        kwargs = {}
        if op == "sample.greedy":
            kwargs["temperature"] = 0.0
        elif op == "sample.differentiable":
            kwargs["differentiable"] = True
        elif op == "sample.rescale":
            kwargs["rescale_range"] = (-2.0, 2.0)
        else:
            kwargs["temperature"] = 0.7

        def run(m: Any, e: Any) -> Any:
            torch.manual_seed(0)
            return m.sample(m(e), **kwargs)

        return Run(module, run, entries), (embed,), {}
    if op.startswith("log_prob"):
        entries = [Readout, Readout.log_prob]
        concat = op.endswith("concat")

        def run(m: Any, e: Any, t: Any) -> Any:
            return m.log_prob(m(e), t, concat=concat)

        return Run(module, run, entries), (embed, target), {}
    if op.startswith("entropy"):
        entries = [Readout, Readout.entropy]
        concat = op.endswith("concat")

        def run(m: Any, e: Any) -> Any:
            return m.entropy(m(e), concat=concat)

        return Run(module, run, entries), (embed,), {}
    if op == "kl_div":
        def run(m: Any, e: Any, e2: Any) -> Any:
            return m.kl_div(m(e), m(e2))

        return Run(module, run, [Readout, Readout.kl_div]), (embed, embed2), {}
    if op == "rescale_from_native":
        return Run(module, lambda m, e: m.rescale_from_native(m.sample(m(e)), (-3.0, 3.0)),
                   [Readout, Readout.sample, Readout.rescale_from_native]), (embed,), {}
    # rescale_to_native
    return Run(module, lambda m, e, t: m.log_prob(m(e), m.rescale_to_native(t * 2.0, (-2.0, 2.0))),
               [Readout, Readout.rescale_to_native, Readout.log_prob]), (embed, target), {}


def _multi(name: str) -> Built:
    import torch

    from discrete_continuous_embed_readout import MultiCategorical
    from gt_calls import Run

    grouped = ".grouped." in name
    parallel = ".sequential." not in name
    if grouped:
        logits: tuple[Any, ...] = tuple(_randn(BATCH, SEQ, n, seed=20 + i) for i, n in enumerate(GROUPS))
        values = _discrete(GROUPS)
    else:
        logits = (_randn(BATCH, SEQ, VOCAB, seed=20),)
        values = _discrete((VOCAB,), axis=False)
    op = name.split(".")[-1]
    entries = [MultiCategorical]

    def dist(lg: Any) -> Any:
        return MultiCategorical(list(lg) if grouped else lg[0], use_parallel_multi_discrete=parallel)

    if op in ("sample", "greedy"):
        temperature = 0.0 if op == "greedy" else 1.0

        def run(_: Any, *lg: Any) -> Any:
            torch.manual_seed(0)
            return dist(lg).sample(temperature=temperature)

        return Run(None, run, entries), logits, {}
    if op == "log_prob":
        return Run(None, lambda _, v, *lg: dist(lg).log_prob(v), entries), (values, *logits), {}
    if op == "entropy":
        return Run(None, lambda _, *lg: dist(lg).entropy(), entries), logits, {}
    other = tuple(t.flip(-1) for t in logits)
    return Run(None, lambda _, *lg: dist(lg[:len(logits)]).kl_div(dist(lg[len(logits):])), entries), \
        (*logits, *other), {}


def _pipeline_module(name: str) -> Any:
    import torch
    from torch import nn

    from discrete_continuous_embed_readout import EmbedAndReadout, Readout

    tied = "weight_tie" in name
    keywords: dict[str, Any] = {"num_discrete": VOCAB}
    if name.startswith("EmbedAndReadout.explicit_action_axis"):
        keywords = {"num_discrete": VOCAB, "explicit_single_action_dim_given": True}
    elif name.startswith("EmbedAndReadout.mixed"):
        keywords = {"num_discrete": GROUPS, "num_continuous": CONT}
    embed, readout = EmbedAndReadout(DIM, weight_tie=tied, **keywords)

    class Model(nn.Module):
        """Embed, a transformer layer, read out: a loss, samples or a policy's actions and their log-probs."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = embed
            self.readout = readout
            self.layer = nn.TransformerEncoderLayer(DIM, 2, 16, dropout=0.0, batch_first=True)

        def forward(self, inp: Any, target: Any = None) -> Any:
            hidden = self.layer(self.embed(inp))
            if name.endswith("loss"):
                return self.readout(hidden, target)
            torch.manual_seed(0)
            params = self.readout(hidden)
            actions = self.readout.sample(params)
            if name.endswith("policy_act"):
                return actions, self.readout.log_prob(params, actions, concat=True)
            return actions

        def entry_points(self) -> list[Any]:
            entries = [type(self.embed), Readout]
            return entries if name.endswith("loss") else [*entries, Readout.sample, Readout.log_prob]

    return Model()


def _pipeline(name: str) -> Built:
    model = _pipeline_module(name)
    if name.startswith("EmbedAndReadout.explicit_action_axis"):
        tokens = _discrete((VOCAB,))
        return model, (tokens, _discrete((VOCAB,), seed=8)), {}
    if name.startswith("EmbedAndReadout.mixed"):
        return model, ((_discrete(GROUPS), _continuous()),), {}
    tokens = _discrete((VOCAB,), axis=False)
    if name.endswith("loss"):
        return model, (tokens, _discrete((VOCAB,), seed=8, axis=False)), {}
    return model, (tokens,), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    from discrete_continuous_embed_readout import Embed, Readout
    from gt_calls import Run

    embed = _randn(BATCH, SEQ, DIM)
    trunk = nn.Sequential(nn.Linear(DIM, DIM), nn.SiLU())
    entries: list[Any] = [Readout]
    if name == "train.EmbedAndReadout.weight_tie.lm.adam":
        model: Any = _pipeline_module("EmbedAndReadout.weight_tie.loss")
        inputs: tuple[Any, ...] = (_discrete((VOCAB,), axis=False), _discrete((VOCAB,), seed=8, axis=False))
        entries = model.entry_points()

        def loss(m: Any, tokens: Any, target: Any) -> Any:
            return m(tokens, target)
    elif name == "train.Readout.mixed.behaviour_cloning.adam":
        model = nn.ModuleDict({"trunk": trunk, "readout": Readout(DIM, num_discrete=GROUPS, num_continuous=CONT)})
        inputs = (embed, _discrete(GROUPS), _continuous())

        def loss(m: Any, e: Any, d: Any, c: Any) -> Any:
            discrete_loss, continuous_loss = m["readout"](m["trunk"](e), (d, c), loss_mask=_mask())
            return discrete_loss + continuous_loss
    elif name == "train.Readout.multi_discrete.ppo.adam":
        model = nn.ModuleDict({"trunk": trunk, "readout": Readout(DIM, num_discrete=GROUPS)})
        old_log_probs = -torch.rand(BATCH, SEQ, len(GROUPS), generator=_gen(30))
        advantages = _randn(BATCH, SEQ, 1, seed=31)
        inputs = (embed, _discrete(GROUPS))
        entries = [Readout, Readout.log_prob, Readout.entropy]

        def loss(m: Any, e: Any, actions: Any) -> Any:
            logits = m["readout"](m["trunk"](e))
            log_probs = m["readout"].log_prob(logits, actions)
            ratio = (log_probs - old_log_probs).exp()
            clipped = ratio.clamp(0.8, 1.2)
            policy = -torch.min(ratio * advantages, clipped * advantages).mean()
            return policy - 0.01 * m["readout"].entropy(logits).mean()
    elif name == "train.Readout.continuous.beta.policy.adam":
        model = nn.ModuleDict({"trunk": trunk, "readout": Readout(DIM, num_continuous=CONT,
                                                                  continuous_dist_type="beta")})
        inputs = (embed,)
        entries = [Readout, Readout.sample, Readout.log_prob]

        def loss(m: Any, e: Any) -> Any:
            params = m["readout"](m["trunk"](e))
            actions = m["readout"].sample(params)
            return -(m["readout"].log_prob(params, actions) * actions.detach()).mean()
    elif name == "train.Readout.regression.adam":
        model = nn.ModuleDict({"trunk": trunk, "readout": Readout(DIM, num_continuous=CONT,
                                                                  continuous_log_var_embed=False)})
        inputs = (embed, _continuous())

        def loss(m: Any, e: Any, t: Any) -> Any:
            return m["readout"](m["trunk"](e), t)
    else:
        model = nn.ModuleDict({"embed": Embed(DIM, num_continuous=CONT, continuous_mean_std=_mean_std()),
                               "head": nn.Linear(DIM, 1)})
        inputs = (_continuous(), _randn(BATCH, SEQ, 1, seed=12))
        entries = [Embed]

        def loss(m: Any, c: Any, t: Any) -> Any:
            return (m["head"](m["embed"](c)) - t).pow(2).mean()

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(m: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an Adam step (the forward alone under ``no_grad``)."""
        value = loss(m, *tensors)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
        return value

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in EMBED:
        return _embed(name)
    if name in READOUT:
        return _readout(name)
    if name in MULTI:
        return _multi(name)
    if name in PIPELINES:
        return _pipeline(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

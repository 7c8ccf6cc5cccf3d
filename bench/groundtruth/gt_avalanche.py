"""Ground-truth bench, avalanche (avalanche-lib): continual-learning models, losses, strategies and plugins.

avalanche-lib 0.6.0 (ContinualAI) trains a model over a stream of experiences: dynamic modules that grow with
the classes and tasks they meet (``IncrementalClassifier``, ``MultiHeadClassifier`` routing each sample to its
task's head, ``MultiTaskModule``), small reference networks, nearest-class-mean style classifiers, and
strategies (a ``SupervisedTemplate`` loop of minibatch callbacks) whose plugins add penalties, replay buffers,
gradient projections and distillation. The tables cover, at tiny sizes (16 features or 3 x 32 x 32 images with a
few channels, 4 classes in two experiences of 12 samples, minibatches of 4):

- ``MODELS``: the models' forward: ``SimpleMLP`` (dropout, hidden layers), ``SimpleCNN``, ``MTSimpleMLP`` and
  ``MTSimpleCNN`` (adapted to two tasks: one task label per batch or mixed), ``MultiHeadClassifier`` (masking on or
  off, one task or mixed), ``IncrementalClassifier`` (masking on or off), ``SimpleSequenceClassifier`` and its
  multi-task form, ``SimpleMLP_TinyImageNet``, ``LeNet5``, ``SlimResNet18`` and ``MTSlimResNet18``, ``IcarlNet``,
  ``resnet32``, ``NCMClassifier``, ``FeCAMClassifier`` (shrinkage, Tukey transforms), ``CosineLinear``,
  ``SplitCosineLinear``, ``CosineIncrementalClassifier``, ``PNN`` (two columns, linear or MLP adapters), ``MlpVAE``,
  ``BatchRenorm2D``, ``BiasLayer``, ``SCRModel``, ``Prompt`` (a pool with learnable keys and top-k selection,
  batchwise or with a given mask, or a pool of one without keys), ``TrainEvalModel``, ``FeatureExtractorBackbone``,
  ``as_multitask`` and ``PackNetModel``;
- ``FUNCTIONS``: ``avalanche_forward`` (single- and multi-task), ``VAE_loss``, ``compute_means`` /
  ``compute_covariance`` of FeCAM and the regularization helpers through ``gt_calls.Call``;
- ``LOSSES``: ``SCRLoss`` (with labels, a mask, unsupervised), ``MaskedCrossEntropy`` (seen, new, all classes),
  ``ICaRLLossPlugin``, ``ACECriterion``, ``AMLCriterion``, ``LearningWithoutForgetting`` (before and after an
  experience) and CoPE's ``PPPloss``;
- ``STRATEGIES``: a strategy's ``training_epoch`` (train mode) and ``eval_epoch`` (eval mode) over one minibatch
  of the second experience, the strategy trained for an epoch on the first (so that penalties, buffers, old
  models and importances exist), as the loop leaves it before that epoch: ``Naive`` (class- and
  task-incremental), ``Cumulative``, ``Replay``, ``GDumb``, ``LwF``, ``EWC`` (separate and online), ``SI``,
  ``MAS``, ``AGEM``, ``CWRStar``, ``LFL``, ``CoPE``, ``MIR``, ``FromScratchTraining``, ``ER_ACE``,
  ``DER``, ``ICaRL``, ``FeatureReplay``, ``PNNStrategy``, and ``Naive`` with the ``RWalk`` and ``RAR``
  plugins, and a multi-head model;
- ``AFTER_EXP``: a plugin's ``after_training_exp`` where it computes tensors (EWC, SI, MAS, RWalk importances,
  AGEM's memory, LwF's and LFL's old model) on the trained strategy, in train mode (the loop runs it in training).

Left out: GEM (its projection needs a QP solver, none installed), the strategies whose tiny setup did not run here
(GSS_greedy, ER_AML, SCR, the feature-distillation and NCM / FeCAM update plugins), BiC and MER (their training
epochs raise an internal Dynamo error), the pretrained wrappers (pytorchcv, timm ViTs and ``ExpertGate``'s AlexNet
download weights), loggers and checkpoints. Random weights and in-memory tensor benchmarks, nothing downloaded or
written; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, FEATURES, CLASSES, HIDDEN, SAMPLES = 4, 16, 4, 16, 24

MODELS = (
    "SimpleMLP", "SimpleMLP.dropout.hidden2", "SimpleCNN", "MTSimpleMLP.task1", "MTSimpleMLP.mixed",
    "MTSimpleCNN.mixed", "MultiHeadClassifier", "MultiHeadClassifier.mixed.no_masking", "IncrementalClassifier",
    "IncrementalClassifier.no_masking", "SimpleSequenceClassifier", "MTSimpleSequenceClassifier.mixed",
    "SimpleMLP_TinyImageNet", "LeNet5", "SlimResNet18", "MTSlimResNet18.mixed", "IcarlNet", "resnet32",
    "NCMClassifier", "NCMClassifier.no_normalize", "FeCAMClassifier", "FeCAMClassifier.no_tukey.covnorm",
    "CosineLinear", "SplitCosineLinear", "CosineIncrementalClassifier", "PNN.task1", "PNN.mixed.mlp_adapter",
    "MlpVAE", "BatchRenorm2D", "BiasLayer", "SCRModel", "Prompt.pool", "Prompt.pool.batchwise.mask",
    "Prompt.no_key", "TrainEvalModel", "FeatureExtractorBackbone", "as_multitask.mixed", "PackNetModel",
)
FUNCTIONS = (
    "avalanche_forward", "avalanche_forward.multitask", "VAE_loss", "compute_means", "compute_covariance",
    "stable_softmax", "cross_entropy_with_oh_targets",
)
LOSSES = (
    "SCRLoss", "SCRLoss.one_mode.mask", "SCRLoss.unsupervised", "MaskedCrossEntropy.seen", "MaskedCrossEntropy.new",
    "MaskedCrossEntropy.all", "ICaRLLossPlugin", "ACECriterion", "AMLCriterion", "LearningWithoutForgetting",
    "LearningWithoutForgetting.updated", "PPPloss",
)
STRATEGIES = (
    "Naive", "Naive.task_incremental", "Naive.multihead", "Cumulative", "Replay", "GDumb", "LwF", "EWC",
    "EWC.online", "SynapticIntelligence", "MAS", "AGEM", "CWRStar", "LFL", "CoPE", "MIR",
    "FromScratchTraining", "ER_ACE", "DER", "ICaRL", "FeatureReplay", "PNNStrategy", "Naive.RWalk",
    "Naive.RAR",
)
AFTER_EXP = ("EWC", "EWC.online", "SynapticIntelligence", "MAS", "Naive.RWalk", "AGEM", "LwF", "LFL")


def names() -> list[str]:
    return [*MODELS, *FUNCTIONS, *(f"loss.{n}" for n in LOSSES), *(f"strategy.{n}" for n in STRATEGIES),
            *(f"after_training_exp.{n}" for n in AFTER_EXP)]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _labels(n: int = BATCH, classes: int = CLASSES, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, classes, (n,), generator=_gen(seed))


def _mixed_tasks(n: int = BATCH) -> Any:
    import torch

    return torch.arange(n) % 2


def _benchmark(task_labels: bool, shape: tuple[int, ...] = (FEATURES,)) -> Any:
    """Two experiences of two classes each, from in-memory tensors (task labels 0 and 1 when ``task_labels``)."""
    import torch
    from torch.utils.data import TensorDataset

    from avalanche.benchmarks.scenarios.deprecated.generators import nc_benchmark

    x = _randn(SAMPLES, *shape, seed=5)
    y = torch.arange(SAMPLES) % CLASSES
    train, test = TensorDataset(x, y), TensorDataset(x.clone(), y.clone())
    return nc_benchmark(train, test, n_experiences=2, task_labels=task_labels, shuffle=False, seed=0,
                        fixed_class_order=list(range(CLASSES)))


def _adapt(model: Any, task_labels: bool = True, shape: tuple[int, ...] = (FEATURES,)) -> Any:
    """``model`` adapted to both experiences, as strategies do before training on each."""
    from avalanche.models.dynamic_modules import avalanche_model_adaptation

    model.train()
    for experience in _benchmark(task_labels, shape).train_stream:
        avalanche_model_adaptation(model, experience)
    return model


def _model(name: str) -> Built:
    import torch
    from torch import nn

    import avalanche.models as am
    from avalanche.models import bic_model, cosine_layer, packnet, pnn, utils
    from gt_calls import Keywords

    x = _randn(BATCH, FEATURES)
    image = _randn(BATCH, 3, 32, 32)
    one_task = torch.ones(BATCH, dtype=torch.long)
    if name == "SimpleMLP":
        return am.SimpleMLP(CLASSES, FEATURES, HIDDEN), (x,), {}
    if name == "SimpleMLP.dropout.hidden2":
        return am.SimpleMLP(CLASSES, FEATURES, HIDDEN, hidden_layers=2, drop_rate=0.3), (x,), {}
    if name == "SimpleCNN":
        return am.SimpleCNN(CLASSES), (_randn(BATCH, 3, 16, 16),), {}
    if name.startswith("MTSimpleMLP"):
        model = _adapt(am.MTSimpleMLP(FEATURES, HIDDEN))
        return model, (x, one_task if name.endswith("task1") else _mixed_tasks()), {}
    if name == "MTSimpleCNN.mixed":
        return _adapt(am.MTSimpleCNN(), shape=(3, 16, 16)), (_randn(BATCH, 3, 16, 16), _mixed_tasks()), {}
    if name == "MultiHeadClassifier":
        return _adapt(am.MultiHeadClassifier(FEATURES)), (x, one_task), {}
    if name == "MultiHeadClassifier.mixed.no_masking":
        return _adapt(am.MultiHeadClassifier(FEATURES, masking=False)), (x, _mixed_tasks()), {}
    if name.startswith("IncrementalClassifier"):
        model = am.IncrementalClassifier(FEATURES, masking=not name.endswith("no_masking"))
        return _adapt(model, task_labels=False), (x,), {}
    if name == "SimpleSequenceClassifier":
        return am.SimpleSequenceClassifier(FEATURES, HIDDEN, CLASSES), (_randn(BATCH, 6, FEATURES),), {}
    if name == "MTSimpleSequenceClassifier.mixed":
        model = _adapt(am.MTSimpleSequenceClassifier(FEATURES, HIDDEN), shape=(6, FEATURES))
        return model, (_randn(BATCH, 6, FEATURES), _mixed_tasks()), {}
    if name == "SimpleMLP_TinyImageNet":
        return am.SimpleMLP_TinyImageNet(CLASSES, num_channels=1), (_randn(2, 1, 64, 64),), {}
    if name == "LeNet5":
        return am.LeNet5(CLASSES, 1), (_randn(BATCH, 1, 32, 32),), {}
    if name == "SlimResNet18":
        return am.SlimResNet18(CLASSES, nf=4), (image,), {}
    if name == "MTSlimResNet18.mixed":
        return _adapt(am.MTSlimResNet18(CLASSES, nf=4), shape=(3, 32, 32)), (image, _mixed_tasks()), {}
    if name == "IcarlNet":
        return am.make_icarl_net(CLASSES, n=1, c=3), (image,), {}
    if name == "resnet32":
        from avalanche.models.resnet32 import BasicBlock, ResNet

        return ResNet(BasicBlock, [1, 1, 1], num_classes=CLASSES), (image,), {}
    if name.startswith("NCMClassifier"):
        ncm = am.NCMClassifier(normalize=not name.endswith("no_normalize"))
        ncm.update_class_means_dict({c: _randn(FEATURES, seed=10 + c) for c in range(CLASSES)})
        return ncm, (x,), {}
    if name.startswith("FeCAMClassifier"):
        keywords: dict[str, Any] = {"tukey": False, "covnorm": True} if "no_tukey" in name else {}
        fecam = am.FeCAMClassifier(**keywords)
        features = _randn(3 * CLASSES, FEATURES, seed=7).abs()
        labels = torch.arange(3 * CLASSES) % CLASSES
        fecam.update_class_means_dict(am.fecam.compute_means(features, labels))
        fecam.update_class_cov_dict(am.fecam.compute_covariance(features, labels))
        return fecam, (x.abs(),), {}
    if name == "CosineLinear":
        return am.CosineLinear(FEATURES, CLASSES), (x,), {}
    if name == "SplitCosineLinear":
        return cosine_layer.SplitCosineLinear(FEATURES, 2, 3), (x,), {}
    if name == "CosineIncrementalClassifier":
        return _adapt(am.CosineIncrementalClassifier(FEATURES, num_classes=0), task_labels=False), (x,), {}
    if name.startswith("PNN"):
        adapter = "mlp" if "mlp_adapter" in name else "linear"
        model = _adapt(pnn.PNN(num_layers=2, in_features=FEATURES, hidden_features_per_column=8, adapter=adapter))
        return model, (x, one_task if name.endswith("task1") else _mixed_tasks()), {}
    if name == "MlpVAE":
        return am.MlpVAE((1, 4, 4), nhid=4, n_classes=CLASSES, device="cpu"), (_randn(BATCH, 1, 4, 4),), {}
    if name == "BatchRenorm2D":
        return am.batch_renorm.BatchRenorm2D(3), (_randn(BATCH, 3, 4, 4),), {}
    if name == "BiasLayer":
        layer = bic_model.BiasLayer([1, 3])
        return layer, (_randn(BATCH, CLASSES),), {}
    if name == "SCRModel":
        model = am.SCRModel(nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU()), nn.Linear(HIDDEN, 8))
        model.ncm.update_class_means_dict({c: _randn(HIDDEN, seed=10 + c) for c in range(CLASSES)})
        return model, (x,), {}
    if name.startswith("Prompt"):
        embeds = _randn(BATCH, 5, 8)
        if name == "Prompt.no_key":
            return am.Prompt(length=2, embed_dim=8, prompt_pool=True, pool_size=1, top_k=1), (embeds,), {}
        prompt = am.Prompt(length=2, embed_dim=8, prompt_pool=True, prompt_key=True, pool_size=6, top_k=2,
                           batchwise_prompt="batchwise" in name)
        kwargs = {"cls_features": _randn(BATCH, 8, seed=3)}
        if name.endswith("mask"):
            kwargs["prompt_mask"] = torch.tensor([[0, 1], [2, 3], [4, 5], [0, 1]])
        return Keywords(prompt, **kwargs), (embeds,), {}
    if name == "TrainEvalModel":
        ncm = am.NCMClassifier()
        ncm.update_class_means_dict({c: _randn(HIDDEN, seed=10 + c) for c in range(CLASSES)})
        model = am.TrainEvalModel(nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU()),
                                  nn.Linear(HIDDEN, CLASSES), ncm)
        return model, (x,), {}
    if name == "FeatureExtractorBackbone":
        return utils.FeatureExtractorBackbone(am.SimpleMLP(CLASSES, FEATURES, HIDDEN), "features"), (x,), {}
    if name == "as_multitask.mixed":
        model = _adapt(am.as_multitask(am.SimpleMLP(CLASSES, FEATURES, HIDDEN), "classifier"))
        return model, (x, _mixed_tasks()), {}
    if name == "PackNetModel":
        return packnet.packnet_simple_mlp(CLASSES, FEATURES, HIDDEN), (x, torch.zeros(BATCH, dtype=torch.long)), {}
    raise KeyError(name)


def _function(name: str) -> Built:
    import torch

    import avalanche.models as am
    from avalanche.training import regularization
    from gt_calls import Call, Run

    x = _randn(BATCH, FEATURES)
    if name.startswith("avalanche_forward"):
        if name.endswith("multitask"):
            model = _adapt(am.MTSimpleMLP(FEATURES, HIDDEN))
        else:
            model = am.SimpleMLP(CLASSES, FEATURES, HIDDEN)
        return Run(model, am.avalanche_forward, [am.avalanche_forward]), (x, _mixed_tasks()), {}
    if name == "VAE_loss":
        vae = am.MlpVAE((1, 4, 4), nhid=4, n_classes=CLASSES, device="cpu")
        images = torch.sigmoid(_randn(BATCH, 1, 4, 4))
        vae.eval()
        with torch.no_grad():
            output = vae(images)
        return Call(am.VAE_loss), (images, output), {}
    if name in ("compute_means", "compute_covariance"):
        features = _randn(3 * CLASSES, FEATURES, seed=7)
        labels = torch.arange(3 * CLASSES) % CLASSES
        return Call(getattr(am.fecam, name)), (features, labels), {}
    if name == "stable_softmax":
        return Call(regularization.stable_softmax), (_randn(BATCH, CLASSES),), {}
    if name == "cross_entropy_with_oh_targets":
        targets = torch.nn.functional.one_hot(_labels(), CLASSES).float()
        return Call(regularization.cross_entropy_with_oh_targets), (_randn(BATCH, CLASSES), targets), {}
    raise KeyError(name)


def _loss(name: str) -> Built:
    import torch
    from torch import nn

    import avalanche.models as am
    from avalanche.training import losses, regularization
    from avalanche.training.plugins import PPPloss
    from gt_calls import Call, Keywords, Run

    logits, labels = _randn(BATCH, CLASSES), _labels()
    if name == "SCRLoss":
        return losses.SCRLoss(), (_randn(BATCH, 2, 8),), {"labels": labels}
    if name == "SCRLoss.one_mode.mask":
        mask = (labels[:, None] == labels[None, :]).float()
        return Keywords(losses.SCRLoss(contrast_mode="one"), mask=mask), (_randn(BATCH, 2, 8),), {}
    if name == "SCRLoss.unsupervised":
        return losses.SCRLoss(temperature=0.5), (_randn(BATCH, 2, 8),), {}
    if name.startswith("MaskedCrossEntropy"):
        criterion = losses.MaskedCrossEntropy(classes=[0, 1], mask=name.rsplit(".", 1)[1])
        if name.endswith("new"):
            criterion.current_classes = {2, 3}
        criterion.adapt_mask = False
        labels = torch.tensor([0, 1, 1, 0]) if name.endswith("seen") else _labels()
        if name.endswith("new"):
            labels = torch.tensor([2, 3, 3, 2])
        entries = [type(criterion).__call__]
        return Run(nn.Identity(), lambda _, out, y: criterion(out, y), entries), (logits, labels), {}
    if name == "ICaRLLossPlugin":
        criterion = losses.ICaRLLossPlugin()
        criterion.old_logits = _randn(BATCH, CLASSES, seed=4)
        criterion.old_classes = [0, 1]
        return Run(nn.Identity(), lambda _, out, y: criterion(out, y), [losses.ICaRLLossPlugin.__call__]), \
            (logits, labels), {}
    if name == "ACECriterion":
        ace = regularization.ACECriterion()
        inputs = (logits, labels, _randn(BATCH, CLASSES, seed=6), _labels(seed=7))
        return Run(nn.Identity(), lambda _, *t: ace(*t), [regularization.ACECriterion.__call__]), inputs, {}
    if name == "AMLCriterion":
        extractor = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU())
        aml = regularization.AMLCriterion(extractor)
        memory = (_randn(6, FEATURES, seed=3), torch.tensor([0, 1, 0, 1, 0, 1]), torch.zeros(6, dtype=torch.long))
        inputs = (_randn(BATCH, FEATURES), torch.tensor([0, 1, 0, 1]), torch.zeros(BATCH, dtype=torch.long),
                  _randn(BATCH, CLASSES, seed=4), _labels(seed=5))

        def aml_loss(_: Any, *tensors: Any) -> Any:
            return aml(*tensors, memory)

        return Run(extractor, aml_loss, [regularization.AMLCriterion.__call__]), inputs, {}
    if name.startswith("LearningWithoutForgetting"):
        model = am.SimpleMLP(CLASSES, FEATURES, HIDDEN)
        lwf = regularization.LearningWithoutForgetting(alpha=0.5, temperature=2)
        if name.endswith("updated"):
            benchmark = _benchmark(False)
            for experience in benchmark.train_stream:
                lwf.update(experience, model)

        def penalty(owner: Any, inputs: Any) -> Any:
            return lwf(inputs, owner(inputs), owner)

        return Run(model, penalty, [regularization.LearningWithoutForgetting.__call__]), (_randn(BATCH, FEATURES),), {}
    if name == "PPPloss":
        p_mem = {c: nn.functional.normalize(_randn(1, 8, seed=20 + c), dim=1) for c in range(CLASSES)}
        ppp = PPPloss(p_mem, T=0.1)
        features = nn.functional.normalize(_randn(BATCH, 8), dim=1)
        return Call(ppp), (features, torch.tensor([0, 1, 2, 0])), {}
    raise KeyError(name)


def _make_strategy(name: str) -> tuple[Any, Any]:
    """A strategy of ``name`` on a tiny model and the benchmark it trains on."""
    import inspect

    import torch
    from torch import nn

    import avalanche.models as am
    import avalanche.training as at
    from avalanche.training import plugins as ap

    task_incremental = name in ("Naive.task_incremental", "Naive.multihead", "PNNStrategy", "LwF")
    benchmark = _benchmark(task_incremental)
    model: nn.Module = am.SimpleMLP(CLASSES, FEATURES, HIDDEN)
    if name == "Naive.task_incremental":
        model = am.MTSimpleMLP(FEATURES, HIDDEN)
    elif name == "Naive.multihead":
        model = am.as_multitask(am.SimpleMLP(CLASSES, FEATURES, HIDDEN), "classifier")
    elif name == "PNNStrategy":
        model = am.PNN(num_layers=2, in_features=FEATURES, hidden_features_per_column=8)
    elif name in ("SCR",):
        model = am.SCRModel(nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU()), nn.Linear(HIDDEN, 8))
    elif name in ("Naive.NCMUpdate", "Naive.FeCAMUpdate"):
        head = am.NCMClassifier() if name == "Naive.NCMUpdate" else am.FeCAMClassifier()
        model = am.TrainEvalModel(nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU()),
                                  nn.Linear(HIDDEN, CLASSES), head)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    common: dict[str, Any] = {"train_mb_size": BATCH, "train_epochs": 1, "eval_mb_size": BATCH, "device": "cpu"}
    plugin_of = {
        "Naive.RWalk": lambda: ap.RWalkPlugin(delta_t=2),
        "Naive.FeatureDistillation": lambda: ap.FeatureDistillationPlugin(alpha=0.5),
        "Naive.RAR": lambda: ap.RARPlugin(batch_size_mem=2, mem_size=8, name_ext_layer="features"),
        "Naive.NCMUpdate": lambda: ap.CurrentDataNCMUpdate(),
        "Naive.FeCAMUpdate": lambda: ap.CurrentDataFeCAMUpdate(),
    }
    if name.startswith("Naive"):
        plugins = [plugin_of[name]()] if name in plugin_of else []
        return at.Naive(model=model, optimizer=optimizer, plugins=plugins, **common), benchmark
    mem = {"mem_size": 8}
    keywords: dict[str, Any] = {
        "Cumulative": {}, "Replay": mem, "GDumb": mem, "LwF": {"alpha": 0.5, "temperature": 2.0},
        "EWC": {"ewc_lambda": 0.4}, "EWC.online": {"ewc_lambda": 0.4, "mode": "online", "decay_factor": 0.5},
        "SynapticIntelligence": {"si_lambda": 0.1}, "MAS": {"lambda_reg": 0.5},
        "AGEM": {"patterns_per_exp": 8, "sample_size": 4}, "GEM": {"patterns_per_exp": 4, "memory_strength": 0.5},
        "CWRStar": {"cwr_layer_name": "classifier"}, "LFL": {"lambda_e": 0.5},
        "CoPE": {"mem_size": 8, "n_classes": CLASSES, "p_size": CLASSES},
        "GSS_greedy": {"mem_size": 8, "mem_strength": 2, "input_size": [FEATURES]},
        "MIR": {"mem_size": 8, "subsample": 4, "batch_size_mem": 2},
        "BiC": {"mem_size": 8, "val_percentage": 0.25, "stage_2_epochs": 1},
        "FromScratchTraining": {}, "ER_ACE": {"mem_size": 8, "batch_size_mem": 2},
        "DER": {"mem_size": 8, "batch_size_mem": 2}, "MER": {"mem_size": 8, "batch_size_mem": 2,
                                                            "n_inner_steps": 2},
        "FeatureReplay": {"last_layer_name": "classifier", "mem_size": 8, "batch_size_mem": 2},
        "PNNStrategy": {}, "SCR": {"mem_size": 8, "batch_size_mem": 2, "augmentations": nn.Identity()},
    }[name] if name not in ("ER_AML", "ICaRL") else {}
    if name == "ER_AML":
        extractor = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU())
        model = nn.Sequential(extractor, nn.Linear(HIDDEN, CLASSES))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        strategy = at.ER_AML(model=model, feature_extractor=extractor, optimizer=optimizer, mem_size=8,
                             batch_size_mem=2, **common)
        return strategy, benchmark
    if name == "ICaRL":
        extractor = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU())
        classifier = nn.Linear(HIDDEN, CLASSES)
        optimizer = torch.optim.SGD([*extractor.parameters(), *classifier.parameters()], lr=0.05)
        strategy = at.ICaRL(feature_extractor=extractor, classifier=classifier, optimizer=optimizer,
                            memory_size=8, buffer_transform=None, fixed_memory=True, **common)
        return strategy, benchmark
    cls = getattr(at, name.split(".")[0])
    if "criterion" in inspect.signature(cls.__init__).parameters:
        keywords["criterion"] = nn.CrossEntropyLoss()
    return cls(model=model, optimizer=optimizer, **keywords, **common), benchmark


def _trained_strategy(name: str) -> tuple[Any, list[Any]]:
    """The strategy trained for an epoch on the first experience and set up, as the loop is, for an epoch of the
    second; with one minibatch of that epoch's loader."""
    import warnings

    warnings.filterwarnings("ignore")
    strategy, benchmark = _make_strategy(name)
    first, second = benchmark.train_stream[0], benchmark.train_stream[1]
    strategy.train(first, eval_streams=[])
    strategy.is_training = True
    strategy._stop_training = False
    strategy.model.train()
    strategy._eval_streams = {}
    strategy._before_training()
    strategy.experience = second
    strategy._before_training_exp()
    strategy._before_training_epoch()
    batch = next(iter(strategy.dataloader))
    return strategy, list(batch)


def _strategy(name: str) -> Built:
    from torch import nn

    strategy, batch = _trained_strategy(name)

    class StrategyEpoch(nn.Module):
        """A strategy's epoch over one minibatch: ``training_epoch`` in train mode, ``eval_epoch`` in eval mode."""

        def __init__(self) -> None:
            super().__init__()
            self.net = strategy.model
            self.strategy = strategy

        def forward(self, *tensors: Any) -> Any:
            self.strategy.model.train(self.training)
            self.strategy.dataloader = [list(tensors)]
            if self.training:
                self.strategy.is_training = True
                self.strategy.training_epoch()
            else:
                self.strategy.is_training = False
                self.strategy.eval_epoch()
                self.strategy.is_training = True
            return self.strategy.loss

        def entry_points(self) -> list[Any]:
            return [type(self.strategy).training_epoch, type(self.strategy).eval_epoch]

    return StrategyEpoch(), tuple(batch), {}


def _after_exp(name: str) -> Built:
    from torch import nn

    strategy, batch = _trained_strategy(name)
    strategy.dataloader = [batch]
    strategy.mbatch = batch

    class AfterExperience(nn.Module):
        """The plugins' ``after_training_exp`` of a strategy that has just trained on an experience."""

        def __init__(self) -> None:
            super().__init__()
            self.net = strategy.model
            self.strategy = strategy

        def forward(self) -> Any:
            # The loop runs it in training only, with gradients on (importances differentiate the loss); in eval
            # mode (under ``no_grad``) only the weights' sum is returned.
            if self.training:
                self.strategy._after_training_exp()
            return next(self.strategy.model.parameters()).sum()

        def entry_points(self) -> list[Any]:
            plugins = [type(p) for p in self.strategy.plugins]
            return [p.after_training_exp for p in plugins if hasattr(p, "after_training_exp")]

    return AfterExperience(), (), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in FUNCTIONS:
        return _function(name)
    if name.startswith("loss.") and name[5:] in LOSSES:
        return _loss(name[5:])
    if name.startswith("strategy.") and name[9:] in STRATEGIES:
        return _strategy(name[9:])
    if name.startswith("after_training_exp.") and name[19:] in AFTER_EXP:
        return _after_exp(name[19:])
    raise KeyError(name)

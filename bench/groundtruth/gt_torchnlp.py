"""Ground-truth bench, torchnlp (pytorch-nlp 0.5.0): its layers, text encoders, samplers, metrics and utilities.

pytorch-nlp is a toolbox for NLP in PyTorch: a few layers (``Attention`` with dot or general scores,
``LockedDropout``, the AWD-LSTM DropConnect wrappers ``WeightDrop``, ``WeightDropLSTM``, ``WeightDropGRU``
and ``WeightDropLinear``, which swap a dropped copy of the weights in before each forward, and the
n-gram ``CNNEncoder``), text encoders that turn strings into index tensors and back (``StaticTokenizerEncoder``
and its ``CharacterEncoder``, ``DelimiterEncoder`` and ``WhitespaceEncoder``, the tensor2tensor
``SubwordEncoder``, ``LabelEncoder``, and the padding helpers ``pad_tensor`` / ``stack_and_pad_tensors``),
batch samplers for bucketing and BPTT, accuracy metrics, pretrained word vectors, random-state helpers and
tensor utilities. Users call the encoders and utilities in their data and training code, next to the
layers, so the tables cover, at tiny sizes (batch 2, width 16, vocabularies of about 30 tokens):

- ``LAYERS``: each layer with the options that change its path (attention type, one or several queries,
  dropout off, ``WeightDrop`` around a GRU cell, an LSTM cell, an LSTM and a linear layer, the wrapped RNNs
  with two layers, bidirectional, batch first, ``WeightDropLinear`` without dropout or bias, ``CNNEncoder``
  with a projection, a mask, one n-gram size, another activation);
- ``ENCODERS``: ``encode``, ``decode``, ``batch_encode`` (along dim 0 or 1) and ``batch_decode`` of each
  encoder, through ``gt_calls.Call`` on the bound method, with ``append_eos``, unknown tokens,
  ``enforce_reversible``, a target vocabulary size; and ``pad_tensor`` (padded or not, a feature tensor) /
  ``stack_and_pad_tensors`` (along dim 0 or 1);
- ``UTILS``: ``lengths_to_mask`` (tensor and list lengths, two of them), ``collate_tensors`` (dicts,
  namedtuples, lists padded with ``stack_and_pad_tensors``), ``tensors_to`` on a nested batch,
  ``torch_equals_ignore_index``, ``get_tensors``, ``get_total_parameters``, ``flatten_parameters``,
  ``sampler_to_iterator``, ``get_number_of_elements``, the metrics ``get_accuracy`` and
  ``get_token_accuracy`` (``ignore_index``, top-k, sequences, scores; ``get_accuracy`` on column targets,
  since on 1-D ones Dynamo fails in fake-tensor propagation, an error rather than a graph break), and
  ``torchnlp.random``
  (``fork_rng``, ``fork_rng_wrap``, ``set_seed``, the generator state);
- ``SAMPLERS``: each sampler iterated inside the compiled function and its indices or slices used to gather
  (and pad) rows of a data tensor, as a collate step does: ``SortedSampler``, ``NoisySortedSampler``,
  ``BucketBatchSampler``, ``BalancedSampler``, ``BPTTSampler`` (source and target slices),
  ``ShuffleBatchSampler``, ``DeterministicSampler``, ``DistributedSampler``, ``DistributedBatchSampler``,
  ``OomBatchSampler``, ``RepeatSampler``; ``BPTTBatchSampler`` only slices the AWD-LSTM train step's batch at
  build time, since its iteration does not compile under torch 2.13 (an internal Dynamo error on the
  generators it keeps on ``self``, not a graph break);
- ``VECTORS``: lookups of ``GloVe``, ``FastText``, ``CharNGram`` and a plain
  ``_PretrainedWordVectors`` (one token, a list, unknown tokens with another ``unk_init``, an
  ``is_include`` filter), each read from a tiny vectors file the builder writes into a temporary cache folder
  (removed once read) under the name the class looks for, so nothing is downloaded;
- ``APPS`` (bench code holding library parts, ``entry_points`` those parts): an AWD-LSTM language model
  (``LockedDropout`` and ``WeightDropLSTM``), a GRU language model with ``WeightDropGRU``, a seq2seq GRU with
  ``Attention`` on the reverse task of ``torchnlp.datasets.reverse_dataset``, a CNN text classifier, the same
  fed raw strings (``batch_encode``, ``lengths_to_mask``, ``CNNEncoder`` in one forward), and train steps
  with ``loss.backward()`` and an optimizer step through the first four and a ``WeightDropLinear`` MLP.

The ``WeightDropLSTM`` / ``WeightDropGRU`` / ``WeightDropLinear`` models sit in a bench module whose ``train(mode)``
takes the weights an eval-mode forward registered as parameters out again (``_mode_safe``): in eval mode
``F.dropout`` returns the raw ``Parameter`` itself, torchnlp assigns it, and the next train-mode forward then
fails to assign a tensor in its place (the AWD-LSTM issue), while the bench compiles eval before train.
``WeightDrop`` needs none: the module it wraps is not its child, so it stays in training mode.

Left out: the datasets (downloads; ``reverse_dataset`` only feeds a model's data), ``get_moses_multi_bleu``
(downloads a Perl script), ``MosesEncoder``, ``TreebankEncoder`` and ``SpacyEncoder`` (sacremoses, NLTK and
spaCy are not installed), and ``NoisySortedBatchSampler`` (it passes ``NoisySortedSampler`` a keyword it does
not take in 0.5.0). pytorch-nlp 0.5.0 imports ``torch._six`` (gone from torch since 2.0) in its samplers,
and its ``SortedSampler`` and ``NoisySortedSampler`` call ``Sampler.__init__(data)``, which torch 2.13 no
longer takes; ``before_import()`` puts a stand-in ``torch._six`` in ``sys.modules`` and gives
``Sampler.__init__`` back the optional data-source argument it had. Random weights from fixed seeds.
``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import sys
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, WIDTH, EMB = 2, 16, 8
SENTENCES = [
    "the cat sat on the mat",
    "a dog ran in the park",
    "the quick brown fox jumps over the lazy dog",
    "my cat likes the dog",
    "the dog likes the park",
]

# Layer name -> (class of ``torchnlp.nn``, constructor keywords, input kind). Kinds: "attn" a query
# (2, 1, 16) and a context (2, 5, 16), "attn3" three queries, "seq" (6, 2, 16) sequence first, "cell" an
# input (2, 8) and a state (2, 16), "lstmcell" an input and an (h, c) state, "rnn" (6, 2, 8), "rnn.bf"
# (2, 6, 8), "rnn.state" an input and an (h, c) state, "vec" (2, 8), "tokens" (2, 7, 8), "tokens.mask"
# those and a 0/1 mask as the keyword ``mask``. ``WeightDrop`` wraps a torch module named in the keywords.
LAYERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "Attention.general": ("Attention", {"dimensions": WIDTH}, "attn"),
    "Attention.dot": ("Attention", {"dimensions": WIDTH, "attention_type": "dot"}, "attn"),
    "Attention.general.multi_query": ("Attention", {"dimensions": WIDTH}, "attn3"),
    "LockedDropout": ("LockedDropout", {"p": 0.5}, "seq"),
    "LockedDropout.p0": ("LockedDropout", {"p": 0.0}, "seq"),
    "WeightDrop.GRUCell": ("WeightDrop", {"module": "GRUCell", "weights": ["weight_hh"], "dropout": 0.5}, "cell"),
    "WeightDrop.LSTMCell": ("WeightDrop", {"module": "LSTMCell", "weights": ["weight_hh", "weight_ih"],
                                           "dropout": 0.3}, "lstmcell"),
    "WeightDrop.LSTM": ("WeightDrop", {"module": "LSTM", "weights": ["weight_hh_l0"], "dropout": 0.5}, "rnn"),
    "WeightDrop.Linear": ("WeightDrop", {"module": "Linear", "weights": ["weight"], "dropout": 0.2}, "vec"),
    "WeightDropLSTM": ("WeightDropLSTM", {"weight_dropout": 0.5}, "rnn"),
    "WeightDropLSTM.2layers.bidirectional.batch_first": ("WeightDropLSTM", {
        "weight_dropout": 0.3, "num_layers": 2, "bidirectional": True, "batch_first": True}, "rnn.bf"),
    "WeightDropGRU": ("WeightDropGRU", {"weight_dropout": 0.5}, "rnn"),
    "WeightDropGRU.2layers.dropout": ("WeightDropGRU", {"weight_dropout": 0.2, "num_layers": 2, "dropout": 0.1},
                                      "rnn"),
    "WeightDropLinear": ("WeightDropLinear", {"weight_dropout": 0.5}, "vec"),
    "WeightDropLinear.no_weight_dropout": ("WeightDropLinear", {"weight_dropout": 0.0, "bias": False}, "vec"),
    "CNNEncoder": ("CNNEncoder", {"embedding_dim": EMB, "num_filters": 4}, "tokens"),
    "CNNEncoder.output_dim": ("CNNEncoder", {"embedding_dim": EMB, "num_filters": 4, "output_dim": 6}, "tokens"),
    "CNNEncoder.mask": ("CNNEncoder", {"embedding_dim": EMB, "num_filters": 4, "ngram_filter_sizes": (2, 3)},
                        "tokens.mask"),
    "CNNEncoder.single_ngram": ("CNNEncoder", {"embedding_dim": EMB, "num_filters": 5, "ngram_filter_sizes": (3,)},
                                "tokens"),
    "CNNEncoder.tanh": ("CNNEncoder", {"embedding_dim": EMB, "num_filters": 4, "ngram_filter_sizes": (1, 2),
                                       "conv_layer_activation": "Tanh", "output_dim": 3}, "tokens"),
}

# Encoder model name -> (encoder class, constructor keywords, method, call keywords, input kind). Kinds:
# "text" one sentence (with a word never seen), "texts" a list of sentences, "ids" an index tensor of a
# sentence, "batch" a padded index batch and its lengths, "label" / "labels" one label or a list,
# "label_id" / "label_ids" their indices. The encoders are built on ``SENTENCES`` (or labels).
ENCODERS: dict[str, tuple[str, dict[str, Any], str, dict[str, Any], str]] = {
    "StaticTokenizerEncoder.encode": ("StaticTokenizerEncoder", {}, "encode", {}, "text"),
    "StaticTokenizerEncoder.encode.append_eos": ("StaticTokenizerEncoder", {"append_eos": True}, "encode", {},
                                                 "text"),
    "StaticTokenizerEncoder.encode.reversible": ("StaticTokenizerEncoder", {"enforce_reversible": True}, "encode",
                                                 {}, "text.known"),
    "StaticTokenizerEncoder.decode": ("StaticTokenizerEncoder", {}, "decode", {}, "ids"),
    "StaticTokenizerEncoder.decode.reversible": ("StaticTokenizerEncoder", {"enforce_reversible": True}, "decode",
                                                 {}, "ids"),
    "StaticTokenizerEncoder.batch_encode": ("StaticTokenizerEncoder", {}, "batch_encode", {}, "texts"),
    "StaticTokenizerEncoder.batch_encode.dim1": ("StaticTokenizerEncoder", {"append_eos": True}, "batch_encode",
                                                 {"dim": 1}, "texts"),
    "StaticTokenizerEncoder.batch_decode": ("StaticTokenizerEncoder", {}, "batch_decode", {}, "batch"),
    "CharacterEncoder.encode": ("CharacterEncoder", {}, "encode", {}, "text"),
    "CharacterEncoder.decode": ("CharacterEncoder", {}, "decode", {}, "ids"),
    "DelimiterEncoder.encode": ("DelimiterEncoder", {"delimiter": "|"}, "encode", {}, "text"),
    "WhitespaceEncoder.encode": ("WhitespaceEncoder", {}, "encode", {}, "text"),
    "WhitespaceEncoder.batch_encode.append_eos": ("WhitespaceEncoder", {"append_eos": True}, "batch_encode", {},
                                                  "texts"),
    "SubwordEncoder.encode": ("SubwordEncoder", {}, "encode", {}, "text"),
    "SubwordEncoder.encode.target_vocab_size": ("SubwordEncoder", {"target_vocab_size": 60, "append_eos": True},
                                                "encode", {}, "text"),
    "SubwordEncoder.decode": ("SubwordEncoder", {}, "decode", {}, "ids"),
    "LabelEncoder.encode": ("LabelEncoder", {}, "encode", {}, "label"),
    "LabelEncoder.encode.reserved": ("LabelEncoder", {"reserved_labels": ["<unk>", "<none>"], "unknown_index": 1,
                                                      "min_occurrences": 2}, "encode", {}, "label.unknown"),
    "LabelEncoder.batch_encode": ("LabelEncoder", {}, "batch_encode", {}, "labels"),
    "LabelEncoder.decode": ("LabelEncoder", {}, "decode", {}, "label_id"),
    "LabelEncoder.batch_decode": ("LabelEncoder", {}, "batch_decode", {}, "label_ids"),
}

# Padding model name -> (function of ``torchnlp.encoders.text``, fixed keywords, input kind): "ids" a 1-D index
# tensor of 5, "feats" a (5, 3) float tensor, "list" three index tensors of lengths 3, 5 and 2.
PADDING: dict[str, tuple[str, dict[str, Any], str]] = {
    "pad_tensor": ("pad_tensor", {"length": 8}, "ids"),
    "pad_tensor.no_padding": ("pad_tensor", {"length": 5}, "ids"),
    "pad_tensor.features.padding_index": ("pad_tensor", {"length": 7, "padding_index": -1}, "feats"),
    "stack_and_pad_tensors": ("stack_and_pad_tensors", {}, "list"),
    "stack_and_pad_tensors.dim1": ("stack_and_pad_tensors", {"dim": 1, "padding_index": 1}, "list"),
}

UTILS = (
    "lengths_to_mask.tensor",
    "lengths_to_mask.list",
    "lengths_to_mask.two_lengths",
    "collate_tensors.dicts",
    "collate_tensors.namedtuples",
    "collate_tensors.lists.stack_and_pad",
    "tensors_to.nested",
    "torch_equals_ignore_index",
    "torch_equals_ignore_index.no_ignore",
    "get_tensors",
    "get_total_parameters",
    "flatten_parameters",
    "sampler_to_iterator",
    "get_number_of_elements",
    "get_accuracy",
    "get_accuracy.top2.ignore_index",
    "get_accuracy.sequences",
    "get_token_accuracy",
    "get_token_accuracy.ignore_index",
    "get_token_accuracy.scores",
    "random.fork_rng",
    "random.fork_rng_wrap",
    "random.set_seed.state",
)

SAMPLERS = (
    "SortedSampler",
    "NoisySortedSampler",
    "BucketBatchSampler",
    "BucketBatchSampler.drop_last.sort_key",
    "BalancedSampler",
    "BPTTSampler.source_target",
    "ShuffleBatchSampler",
    "DeterministicSampler",
    "DistributedSampler",
    "DistributedBatchSampler",
    "OomBatchSampler",
    "RepeatSampler",
)

# Word-vector model name -> (class of ``torchnlp.word_to_vector``, what is looked up: "token", "tokens" or
# "unknown" (a list with unseen tokens)).
VECTORS: dict[str, tuple[str, str]] = {
    "GloVe.token": ("GloVe", "token"),
    "GloVe.tokens": ("GloVe", "tokens"),
    "FastText.unknown": ("FastText", "unknown"),
    "CharNGram.token": ("CharNGram", "token"),
    "PretrainedWordVectors.unk_init.is_include": ("_PretrainedWordVectors", "unknown"),
}

APPS = (
    "awd_lstm_lm",
    "gru_lm.weight_drop",
    "seq2seq_attention",
    "cnn_text_classifier",
    "text_pipeline.raw_strings",
    "train.awd_lstm_lm",
    "train.gru_lm.weight_drop",
    "train.seq2seq_attention",
    "train.cnn_text_classifier",
    "train.weight_drop_mlp",
)


def names() -> list[str]:
    return (list(LAYERS) + list(ENCODERS) + list(PADDING) + list(UTILS) + list(SAMPLERS) + list(VECTORS)
            + list(APPS))


def provide_torch_six() -> None:
    """Put a stand-in ``torch._six`` (``int_classes``, what ``torchnlp._third_party`` imports) in
    ``sys.modules``, and let ``Sampler.__init__`` take the optional data source that torch before 2.2 took
    (``SortedSampler`` and ``NoisySortedSampler`` pass it)."""
    import collections.abc
    import types

    if "torch._six" not in sys.modules:
        six = types.ModuleType("torch._six")
        six.container_abcs = collections.abc  # type: ignore[attr-defined]
        six.string_classes = (str, bytes)  # type: ignore[attr-defined]
        six.int_classes = int  # type: ignore[attr-defined]
        sys.modules["torch._six"] = six
    from torch.utils.data import sampler

    if "__init__" not in vars(sampler.Sampler):
        def __init__(self: Any, data_source: Any = None) -> None:
            pass

        sampler.Sampler.__init__ = __init__  # type: ignore[method-assign]


def _mode_safe(model: Any, entries: list[Any]) -> Any:
    """``model`` (holding ``WeightDropLSTM`` / ``WeightDropGRU`` / ``WeightDropLinear`` layers) under a bench module
    whose ``train(mode)`` also takes out of ``_parameters`` the dropped weights an eval-mode forward put there.
    When not training, ``F.dropout`` returns the raw ``Parameter`` itself and torchnlp 0.5.0 assigns it, which
    registers it as a parameter; the next train-mode forward then cannot assign a tensor in its place (the
    AWD-LSTM ``cannot assign 'torch.FloatTensor' as parameter`` error). The bench compiles eval before train."""
    from torch import nn

    class ModeSwitch(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self.model(*args, **kwargs)

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            for module in self.modules():
                for weight in [w for w in module._parameters if f"{w}_raw" in module._parameters]:
                    del module._parameters[weight]
            return self

        def entry_points(self) -> list[Any]:
            return entries

    return ModeSwitch()


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _layer_inputs(kind: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import torch

    gen = _gen(1)

    def rand(*shape: int) -> Any:
        return torch.randn(*shape, generator=gen)

    table: dict[str, Any] = {
        "attn": lambda: ((rand(BATCH, 1, WIDTH), rand(BATCH, 5, WIDTH)), {}),
        "attn3": lambda: ((rand(BATCH, 3, WIDTH), rand(BATCH, 5, WIDTH)), {}),
        "seq": lambda: ((rand(6, BATCH, WIDTH),), {}),
        "cell": lambda: ((rand(BATCH, EMB), rand(BATCH, WIDTH)), {}),
        "lstmcell": lambda: ((rand(BATCH, EMB), (rand(BATCH, WIDTH), rand(BATCH, WIDTH))), {}),
        "rnn": lambda: ((rand(6, BATCH, EMB),), {}),
        "rnn.bf": lambda: ((rand(BATCH, 6, EMB),), {}),
        "rnn.state": lambda: ((rand(6, BATCH, EMB), (rand(1, BATCH, WIDTH), rand(1, BATCH, WIDTH))), {}),
        "vec": lambda: ((rand(BATCH, EMB),), {}),
        "tokens": lambda: ((rand(BATCH, 7, EMB),), {}),
        "tokens.mask": lambda: ((rand(BATCH, 7, EMB),), {"mask": torch.tensor([[1] * 7, [1] * 4 + [0] * 3])}),
    }
    return table[kind]()


def _layer(name: str) -> Built:
    from torch import nn

    import torchnlp.nn as tnn

    cls, keywords, kind = LAYERS[name]
    keywords = dict(keywords)
    args, kwargs = _layer_inputs(kind)
    if cls == "WeightDrop":
        inner = keywords.pop("module")
        sizes = (EMB, EMB) if inner == "Linear" else (EMB, WIDTH)
        return tnn.WeightDrop(getattr(nn, inner)(*sizes), **keywords), args, kwargs
    if cls.startswith("WeightDrop"):
        layer = getattr(tnn, cls)(EMB, WIDTH, **keywords)
        return _mode_safe(layer, [getattr(tnn, cls)]), args, kwargs
    if "conv_layer_activation" in keywords:
        keywords["conv_layer_activation"] = getattr(nn, keywords["conv_layer_activation"])()
    return getattr(tnn, cls)(**keywords), args, kwargs


def _encoder(cls: str, keywords: dict[str, Any]) -> Any:
    import torchnlp.encoders as encoders
    import torchnlp.encoders.text as text

    keywords = dict(keywords)
    if cls == "LabelEncoder":
        return encoders.LabelEncoder(["pos", "neg", "neu", "pos", "neg", "pos"], **keywords)
    if cls == "DelimiterEncoder":
        return text.DelimiterEncoder(keywords.pop("delimiter"), [s.replace(" ", "|") for s in SENTENCES],
                                     **keywords)
    return getattr(text, cls)(SENTENCES, **keywords)


def _encoders(name: str) -> Built:
    from gt_calls import Call

    cls, keywords, method, call, kind = ENCODERS[name]
    encoder = _encoder(cls, keywords)
    sep = "|" if cls == "DelimiterEncoder" else " "
    sentence = "the cat ran over the red mat"
    if kind == "text.known":
        args: tuple[Any, ...] = (sentence.replace(" red", ""),)
    elif kind == "text":
        args = (sentence.replace(" ", sep),)
    elif kind == "texts":
        args = ([s.replace(" ", sep) for s in SENTENCES[:3]],)
    elif kind == "ids":
        args = (_encoder(cls, {k: v for k, v in keywords.items() if k != "enforce_reversible"}).encode(
            SENTENCES[0].replace(" ", sep)),)
    elif kind == "batch":
        batch = _encoder(cls, keywords).batch_encode([s.replace(" ", sep) for s in SENTENCES[:3]])
        args = (batch.tensor, batch.lengths)
    elif kind == "label":
        args = ("neg",)
    elif kind == "label.unknown":
        args = ("neu",)
    elif kind == "labels":
        args = (["pos", "neu", "other", "neg"],)
    elif kind == "label_id":
        args = (encoder.encode("neu"),)
    else:
        args = (encoder.batch_encode(["pos", "neu", "neg"]),)
    return Call(getattr(encoder, method), **call), args, {}


def _padding(name: str) -> Built:
    import torch

    import torchnlp.encoders.text as text
    from gt_calls import Call

    function, static, kind = PADDING[name]
    gen = _gen(2)
    lengths = (3, 5, 2)
    table: dict[str, Any] = {
        "ids": lambda: (torch.randint(5, 30, (5,), generator=gen),),
        "feats": lambda: (torch.randn(5, 3, generator=gen),),
        "list": lambda: ([torch.randint(5, 30, (n,), generator=gen) for n in lengths],),
    }
    return Call(getattr(text, function), **static), table[kind](), {}


def _utils(name: str) -> Built:
    import collections

    import torch
    from torch import nn
    from torch.utils.data import sampler as samplers

    import torchnlp.encoders.text as text
    import torchnlp.metrics as metrics
    import torchnlp.random as trandom
    import torchnlp.utils as utils
    from gt_calls import Call, Run
    from torchnlp.samplers import get_number_of_elements

    gen = _gen(3)
    if name == "lengths_to_mask.tensor":
        return Call(utils.lengths_to_mask), (torch.tensor([3, 5, 2]),), {}
    if name == "lengths_to_mask.list":
        return Call(utils.lengths_to_mask, device=torch.device("cpu")), ([1, 4, 2, 3],), {}
    if name == "lengths_to_mask.two_lengths":
        return Call(utils.lengths_to_mask), (torch.tensor([[2], [3]]), [3, 1]), {}
    if name == "collate_tensors.tensors":
        return Call(utils.collate_tensors), ([torch.randn(4, generator=gen) for _ in range(3)],), {}
    if name == "collate_tensors.dicts":
        rows = [{"tokens": torch.randint(0, 9, (5,), generator=gen), "label": torch.tensor(i)} for i in range(3)]
        return Call(utils.collate_tensors), (rows,), {}
    if name == "collate_tensors.namedtuples":
        Row = collections.namedtuple("Row", ["source", "target"])
        rows = [Row(torch.randn(3, generator=gen), torch.randn(2, generator=gen)) for _ in range(3)]
        return Call(utils.collate_tensors), (rows,), {}
    if name == "collate_tensors.lists.stack_and_pad":
        rows = [[torch.randint(5, 20, (n,), generator=gen), torch.tensor([n % 2])] for n in (3, 5, 4)]

        def collate(rows_: list[Any]) -> Any:
            return utils.collate_tensors(rows_, stack_tensors=text.stack_and_pad_tensors)

        return Run(None, lambda owner, rows_: collate(rows_), [utils.collate_tensors]), (rows,), {}
    if name == "tensors_to.nested":
        Pair = collections.namedtuple("Pair", ["left", "right"])
        batch = {"ids": torch.randint(0, 9, (2, 4), generator=gen),
                 "feats": [torch.randn(2, 3, generator=gen), (torch.randn(2, generator=gen), 7)],
                 "pair": Pair(torch.randn(2, generator=gen), "name")}
        return Call(utils.tensors_to, dtype=torch.float64), (batch,), {}
    if name.startswith("torch_equals_ignore_index"):
        left = torch.tensor([1, 2, 3, 0, 0])
        right = torch.tensor([1, 2, 3, 4, 0])
        static = {} if name.endswith("no_ignore") else {"ignore_index": 0}
        return Call(utils.torch_equals_ignore_index, **static), (left, right), {}
    if name == "get_tensors":
        Holder = collections.namedtuple("Holder", ["weights", "meta"])
        obj = {"a": torch.randn(2, generator=gen), "b": [torch.randn(3, generator=gen), "text", 1.5],
               "c": Holder(torch.randn(1, generator=gen), {"d": torch.ones(2)})}
        return Run(None, lambda owner, obj_: sum(t.sum() for t in utils.get_tensors(obj_)), [utils.get_tensors]), \
            (obj,), {}
    if name == "get_total_parameters":
        net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        net[0].bias.requires_grad_(False)
        return Run(net, lambda owner, x: owner(x) * utils.get_total_parameters(owner), [utils.get_total_parameters]), \
            (torch.randn(BATCH, 4, generator=gen),), {}
    if name == "flatten_parameters":
        lstm = nn.LSTM(EMB, WIDTH)

        def flat(owner: Any, x: torch.Tensor) -> torch.Tensor:
            utils.flatten_parameters(owner)
            return owner(x)[0]

        return Run(lstm, flat, [utils.flatten_parameters]), (torch.randn(5, BATCH, EMB, generator=gen),), {}
    if name == "sampler_to_iterator":
        dataset = [torch.randn(4, generator=gen) for _ in range(6)]
        batches = samplers.BatchSampler(samplers.SequentialSampler(dataset), 4, False)

        def iterate(owner: Any, scale: torch.Tensor) -> list[Any]:
            return [torch.stack(rows) * scale for rows in utils.sampler_to_iterator(dataset, batches)]

        return Run(None, iterate, [utils.sampler_to_iterator]), (torch.tensor(2.0),), {}
    if name == "get_number_of_elements":
        obj = {"ids": torch.randint(0, 9, (2, 4), generator=gen), "more": [torch.randn(3, generator=gen), "x"]}
        return Run(None, lambda owner, obj_, x: x * get_number_of_elements(obj_), [get_number_of_elements]), \
            (obj, torch.randn(2, generator=gen)), {}
    if name.startswith("get_accuracy"):
        targets = torch.tensor([1, 2, 3, 4, 0])
        if name == "get_accuracy.top2.ignore_index":
            outputs = torch.tensor([[1, 0], [0, 2], [3, 1], [2, 2], [1, 1]])
            return Call(metrics.get_accuracy, k=2, ignore_index=3), (targets[:, None], outputs), {}
        if name == "get_accuracy.sequences":
            targets = torch.randint(0, 4, (3, 5), generator=gen)
            outputs = torch.randint(0, 4, (3, 2, 5), generator=gen)
            outputs[0, 1] = targets[0]
            return Call(metrics.get_accuracy, k=2, ignore_index=0), (targets, outputs), {}
        return Call(metrics.get_accuracy), (targets[:, None], torch.tensor([[1], [2], [2], [4], [1]])), {}
    if name.startswith("get_token_accuracy"):
        targets = torch.tensor([[1, 1, 0], [2, 2, 3], [3, 0, 0]])
        if name == "get_token_accuracy.scores":
            return Call(metrics.get_token_accuracy), (targets, torch.randn(3, 4, 3, generator=gen)), {}
        outputs = torch.tensor([[1, 1, 2], [2, 3, 3], [3, 0, 1]])
        static = {"ignore_index": 0} if name.endswith("ignore_index") else {}
        return Call(metrics.get_token_accuracy, **static), (targets, outputs), {}
    if name == "random.fork_rng":
        def forked(owner: Any, x: torch.Tensor) -> torch.Tensor:
            with trandom.fork_rng(seed=3, cuda=False):
                noise = torch.randn(x.shape)
            return x + noise

        return Run(None, forked, [trandom.fork_rng]), (torch.randn(BATCH, 4, generator=gen),), {}
    if name == "random.fork_rng_wrap":
        @trandom.fork_rng_wrap(seed=5, cuda=False)
        def draw() -> torch.Tensor:
            return torch.rand(3)

        return Run(None, lambda owner, x: x * draw(), [trandom.fork_rng_wrap]), (torch.randn(3, generator=gen),), {}

    def reseeded(owner: Any, x: torch.Tensor) -> torch.Tensor:
        state = trandom.get_random_generator_state(cuda=False)
        trandom.set_seed(7, cuda=False)
        first = torch.rand(x.shape)
        trandom.set_random_generator_state(state)
        return x + first

    return Run(None, reseeded, [trandom.get_random_generator_state, trandom.set_seed,
                                trandom.set_random_generator_state]), (torch.randn(4, generator=gen),), {}


def _samplers(name: str) -> Built:
    import itertools

    import torch
    from torch.utils.data import sampler as base

    import torchnlp.samplers as samplers
    from gt_calls import Run
    from torchnlp.encoders.text import stack_and_pad_tensors
    from torchnlp.samplers.shuffle_batch_sampler import ShuffleBatchSampler

    gen = _gen(4)
    lengths = [5, 2, 7, 3, 6, 4, 2, 5]
    rows = [torch.randint(5, 30, (n,), generator=gen) for n in lengths]
    table = torch.randn(len(lengths), 4, generator=gen)

    def by_index(sampler: Any, entries: list[Any]) -> Built:
        """The sampler's indices gather rows of a (8, 4) table, scaled by the input."""
        def gather(owner: Any, scale: torch.Tensor) -> torch.Tensor:
            return table[list(owner)] * scale

        return Run(sampler, gather, entries), (torch.tensor(0.5),), {}

    def by_batch(sampler: Any, entries: list[Any]) -> Built:
        """Each batch of indices gathers variable-length rows, padded by ``stack_and_pad_tensors``."""
        def gather(owner: Any, shift: torch.Tensor) -> list[Any]:
            return [stack_and_pad_tensors([rows[i] for i in batch]).tensor + shift for batch in owner]

        return Run(sampler, gather, entries), (torch.tensor(1),), {}

    if name == "SortedSampler":
        return by_index(samplers.SortedSampler(rows, sort_key=lambda t: t.shape[0]), [samplers.SortedSampler])
    if name == "NoisySortedSampler":
        return by_index(samplers.NoisySortedSampler(lengths), [samplers.NoisySortedSampler])
    if name == "BucketBatchSampler":
        return by_batch(samplers.BucketBatchSampler(base.SequentialSampler(rows), 3, False,
                                                    bucket_size_multiplier=2), [samplers.BucketBatchSampler])
    if name == "BucketBatchSampler.drop_last.sort_key":
        return by_batch(samplers.BucketBatchSampler(base.RandomSampler(rows, generator=_gen(5)), 3, True,
                                                    sort_key=lambda i: lengths[i], bucket_size_multiplier=2),
                        [samplers.BucketBatchSampler])
    if name == "BalancedSampler":
        classes = ["a", "b", "b", "c", "c", "c", "c", "a"]
        return by_index(samplers.BalancedSampler(classes, num_samples=6), [samplers.BalancedSampler])
    stream = torch.randint(5, 30, (26,), generator=gen)
    if name == "BPTTSampler.source_target":
        source, target = samplers.BPTTSampler(stream, 4), samplers.BPTTSampler(stream, 4, type_="target")

        def pairs(owner: Any, shift: torch.Tensor) -> list[Any]:
            return [(stream[s] + shift, stream[t]) for s, t in zip(source, target)]

        return Run(source, pairs, [samplers.BPTTSampler]), (torch.tensor(1),), {}
    if name == "ShuffleBatchSampler":
        return by_batch(ShuffleBatchSampler(samplers.SortedSampler(lengths), 3, False), [ShuffleBatchSampler])
    if name == "DeterministicSampler":
        return by_index(samplers.DeterministicSampler(base.RandomSampler(rows), random_seed=11, cuda=False),
                        [samplers.DeterministicSampler])
    if name == "DistributedSampler":
        return by_index(samplers.DistributedSampler(range(len(rows)), num_replicas=2, rank=1),
                        [samplers.DistributedSampler])
    if name == "DistributedBatchSampler":
        batch_sampler = base.BatchSampler(base.SequentialSampler(rows), 4, False)
        return by_batch(samplers.DistributedBatchSampler(batch_sampler, num_replicas=2, rank=0),
                        [samplers.DistributedBatchSampler])
    if name == "OomBatchSampler":
        batch_sampler = base.BatchSampler(base.SequentialSampler(rows), 3, False)
        return by_batch(samplers.OomBatchSampler(batch_sampler, lambda i: samplers.get_number_of_elements(rows[i]),
                                                 num_batches=2), [samplers.OomBatchSampler])
    repeat = samplers.RepeatSampler(base.SequentialSampler(range(len(rows))))

    def repeated(owner: Any, scale: torch.Tensor) -> torch.Tensor:
        return table[list(itertools.islice(owner, 12))] * scale

    return Run(repeat, repeated, [samplers.RepeatSampler]), (torch.tensor(0.5),), {}


def _vectors(name: str) -> Built:
    import os
    import tempfile

    import torch

    import torchnlp.word_to_vector as w2v
    from gt_calls import Call
    from torchnlp.word_to_vector.pretrained_word_vectors import _PretrainedWordVectors

    cls, what = VECTORS[name]
    dim = 6
    words = sorted({w for s in SENTENCES for w in s.split()})
    if cls == "CharNGram":
        grams = set()
        for word in words:
            chars = ["#BEGIN#"] + list(word) + ["#END#"]
            for n in (2, 3, 4):
                grams.update(f"{n}gram-{''.join(chars[i:i + n])}" for i in range(len(chars) - n + 1))
        words = sorted(grams)
    files = {"GloVe": "glove.6B.6d.txt", "FastText": "wiki.en.vec", "CharNGram": "charNgram.txt",
             "_PretrainedWordVectors": "tiny.vec"}
    rows = torch.randn(len(words), dim, generator=_gen(6))
    # The vectors are read into memory when built, so the cache folder goes once they are.
    with tempfile.TemporaryDirectory(prefix="gt_torchnlp_vectors_") as cache:
        path = os.path.join(cache, files[cls])
        with open(path, "w", encoding="utf-8") as handle:
            if cls == "FastText":
                handle.write(f"{len(words)} {dim}\n")  # the header word2vec files carry
            for word, row in zip(words, rows.tolist()):
                handle.write(word + " " + " ".join(f"{v:.4f}" for v in row) + "\n")
        if cls == "GloVe":
            vectors = w2v.GloVe(name="6B", dim=dim, cache=cache)
        elif cls == "FastText":
            vectors = w2v.FastText(language="en", cache=cache)
        elif cls == "CharNGram":
            vectors = w2v.CharNGram(cache=cache)
        else:
            vectors = _PretrainedWordVectors(path, cache=cache, unk_init=torch.Tensor.normal_,
                                             is_include=lambda w: w != "mat")
    tokens: Any = {"token": "cat", "tokens": ["the", "cat", "sat"], "unknown": ["the", "zebra", "mat", "dog"]}[what]
    return Call(vectors.__getitem__), (tokens,), {}


def _apps(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import torchnlp.encoders.text as text
    import torchnlp.nn as tnn
    import torchnlp.utils as utils
    from gt_calls import Run
    from torchnlp.datasets import reverse_dataset
    from torchnlp.random import fork_rng
    from torchnlp.samplers import BPTTBatchSampler

    vocab = 30
    gen = _gen(7)

    class AwdLstm(nn.Module):
        """AWD-LSTM: embedding, locked dropout, a weight-dropped LSTM, locked dropout, a decoder (sequence first)."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(vocab, EMB)
            self.input_drop = tnn.LockedDropout(0.3)
            self.rnn = tnn.WeightDropLSTM(EMB, WIDTH, weight_dropout=0.5)
            self.output_drop = tnn.LockedDropout(0.4)
            self.decoder = nn.Linear(WIDTH, vocab)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(self.input_drop(self.embedding(ids)))
            return self.decoder(self.output_drop(out))

        def entry_points(self) -> list[Any]:
            return [tnn.LockedDropout, tnn.WeightDropLSTM]

    class GruLm(nn.Module):
        """A two-layer GRU language model with DropConnect on the recurrent weights, locked dropout between."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(vocab, EMB)
            self.drop = tnn.LockedDropout(0.2)
            self.rnn = tnn.WeightDropGRU(EMB, WIDTH, num_layers=2, weight_dropout=0.3)
            self.decoder = nn.Linear(WIDTH, vocab)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(self.drop(self.embedding(ids)))
            return self.decoder(self.drop(out))

        def entry_points(self) -> list[Any]:
            return [tnn.LockedDropout, tnn.WeightDropGRU]

    class Seq2Seq(nn.Module):
        """A GRU encoder-decoder whose decoder states attend over the encoder states (``Attention``)."""

        def __init__(self, size: int, attention_type: str = "general") -> None:
            super().__init__()
            self.embedding = nn.Embedding(size, EMB)
            self.encoder = nn.GRU(EMB, WIDTH, batch_first=True)
            self.decoder = nn.GRU(EMB, WIDTH, batch_first=True)
            self.attention = tnn.Attention(WIDTH, attention_type=attention_type)
            self.out = nn.Linear(WIDTH, size)

        def forward(self, source: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
            context, hidden = self.encoder(self.embedding(source))
            states, _ = self.decoder(self.embedding(target_in), hidden)
            attended, _ = self.attention(states.contiguous(), context.contiguous())
            return self.out(attended)

        def entry_points(self) -> list[Any]:
            return [tnn.Attention]

    class CnnClassifier(nn.Module):
        """Embedding, ``CNNEncoder`` over 2- to 4-grams with a padding mask and a projection, class logits."""

        def __init__(self, size: int) -> None:
            super().__init__()
            self.embedding = nn.Embedding(size, EMB, padding_idx=0)
            self.encoder = tnn.CNNEncoder(EMB, 4, ngram_filter_sizes=(2, 3, 4), output_dim=8)
            self.head = nn.Linear(8, 3)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return self.head(self.encoder(self.embedding(ids), mask=mask))

        def entry_points(self) -> list[Any]:
            return [tnn.CNNEncoder]

    def train_step(model: nn.Module, loss_of: Any) -> Any:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

        def step(owner: Any, *batch: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = loss_of(owner, *batch)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(owner.parameters(), 0.25)
                optimizer.step()
            return loss.detach()

        return step

    ids = torch.randint(0, vocab, (7, BATCH), generator=gen)
    if name.endswith("awd_lstm_lm") or name.endswith("gru_lm.weight_drop"):
        model = _mode_safe(AwdLstm() if "awd" in name else GruLm(), [tnn.LockedDropout, tnn.WeightDropLSTM
                                                                      if "awd" in name else tnn.WeightDropGRU])
        if not name.startswith("train."):
            return model, (ids,), {}

        def lm_loss(owner: Any, source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(owner(source).reshape(-1, vocab), target.reshape(-1))

        # The first BPTT batch of a token stream split into two columns: source slices and target slices one
        # step ahead, as ``BPTTBatchSampler`` gives them to a data loader.
        stream = torch.randint(0, vocab, (30,), generator=gen)
        source, target = (next(iter(BPTTBatchSampler(stream, 6, BATCH, True, type_=kind)))
                          for kind in ("source", "target"))
        batch = tuple(torch.stack([stream[piece] for piece in slices], dim=1) for slices in (source, target))
        return Run(model, train_step(model, lm_loss), model.entry_points()), batch, {}
    if name.endswith("seq2seq_attention"):
        with fork_rng(seed=1, cuda=False):
            rows = reverse_dataset(train=True, train_rows=4, seq_max_length=6)
        encoder = text.WhitespaceEncoder([r["source"] for r in rows] + [r["target"] for r in rows])
        source = encoder.batch_encode([r["source"] for r in rows[:BATCH]]).tensor
        target = text.stack_and_pad_tensors([
            torch.cat([torch.tensor([text.DEFAULT_SOS_INDEX]), encoder.encode(r["target"]),
                       torch.tensor([text.DEFAULT_EOS_INDEX])]) for r in rows[:BATCH]]).tensor
        model = Seq2Seq(encoder.vocab_size, "dot" if name.startswith("train.") else "general")
        if not name.startswith("train."):
            return model, (source, target[:, :-1]), {}

        def s2s_loss(owner: Any, source_: torch.Tensor, target_: torch.Tensor) -> torch.Tensor:
            logits = owner(source_, target_[:, :-1])
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target_[:, 1:].reshape(-1),
                                   ignore_index=text.DEFAULT_PADDING_INDEX)

        return Run(model, train_step(model, s2s_loss), model.entry_points()), (source, target), {}
    encoder = text.WhitespaceEncoder(SENTENCES)
    batch = encoder.batch_encode(SENTENCES[:3])
    mask = utils.lengths_to_mask(batch.lengths)
    labels = torch.tensor([0, 2, 1])
    if name == "cnn_text_classifier":
        return CnnClassifier(encoder.vocab_size), (batch.tensor, mask), {}
    if name == "train.cnn_text_classifier":
        model = CnnClassifier(encoder.vocab_size)

        def cnn_loss(owner: Any, ids_: torch.Tensor, mask_: torch.Tensor, labels_: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(owner(ids_, mask_), labels_)

        return Run(model, train_step(model, cnn_loss), model.entry_points()), (batch.tensor, mask, labels), {}
    if name == "text_pipeline.raw_strings":
        class TextPipeline(nn.Module):
            """Raw sentences in, class logits out: ``batch_encode``, ``lengths_to_mask``, embedding, ``CNNEncoder``."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder = encoder
                self.classifier = CnnClassifier(encoder.vocab_size)

            def forward(self, sentences: list[str]) -> torch.Tensor:
                encoded = self.encoder.batch_encode(sentences)
                return self.classifier(encoded.tensor, utils.lengths_to_mask(encoded.lengths))

            def entry_points(self) -> list[Any]:
                return [text.TextEncoder.batch_encode, utils.lengths_to_mask, tnn.CNNEncoder]

        return TextPipeline(), (SENTENCES[1:4],), {}

    class Mlp(nn.Module):
        """Two ``WeightDropLinear`` layers with DropConnect and a plain output layer."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(tnn.WeightDropLinear(EMB, WIDTH, weight_dropout=0.3), nn.ReLU(),
                                     tnn.WeightDropLinear(WIDTH, WIDTH, weight_dropout=0.3), nn.ReLU(),
                                     nn.Linear(WIDTH, 3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

    model = _mode_safe(Mlp(), [tnn.WeightDropLinear])

    def mlp_loss(owner: Any, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(owner(x), y)

    x = torch.randn(4, EMB, generator=gen)
    return Run(model, train_step(model, mlp_loss), [tnn.WeightDropLinear]), (x, torch.tensor([0, 1, 2, 1])), {}


def build(name: str) -> Built:
    import warnings

    import torch

    provide_torch_six()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in ENCODERS:
        return _encoders(name)
    if name in PADDING:
        return _padding(name)
    if name in UTILS:
        return _utils(name)
    if name in SAMPLERS:
        return _samplers(name)
    if name in VECTORS:
        return _vectors(name)
    if name in APPS:
        return _apps(name)
    raise KeyError(name)


# The harness calls it before it imports torchnlp (``gt_models.prepare_import``).
before_import = provide_torch_six

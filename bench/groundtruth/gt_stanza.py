"""Ground-truth bench, stanza: the neural models under ``stanza.models``, built from their classes at tiny sizes.

stanza's pipeline loads trained models from downloaded resources; here every model is built directly from
its class with a small ``args`` dict, vocabularies made from a two-sentence toy treebank with stanza's own
vocab classes, and random embeddings, and called as its trainer calls it (``update`` runs the forward for
the loss and ``backward``, ``predict`` the forward in eval). So the tables cover, at batch 2:

- ``TOKENIZER``: ``Tokenizer`` (the character BiLSTM tagger of token, sentence and multi-word-token ends),
  plain, with residual convolutions (flat and hierarchical), with the second hierarchical LSTM, and with
  the MWT head;
- ``LANGID``: ``LangIDBiLSTM``'s forward, ``prediction_scores`` with and without a language subset, and its
  ``loss``;
- ``SEQ2SEQ``: ``Seq2SeqModel``, the lemmatizer's and the MWT expander's encoder-decoder (soft attention: the
  other types do not take the ``return_logattn`` the decoder passes), with a POS input, the edit classifier and
  the copy gate; its training forward, ``predict_greedy`` and the beam search ``predict``;
- ``MWT_CLASSIFIER``: the MWT expander's ``CharacterClassifier`` (which characters split a word), and its loss;
- ``CHARLM``: ``CharacterLanguageModel``'s forward, with a carried hidden state, and ``CharacterModel``
  (the word-level character encoder of the tagger and parser), with attention or final states;
- ``TAGGER``: the POS ``Tagger`` with word, character and pretrained inputs, shared or per-column hidden
  layers, gold tags (the loss) or none (prediction);
- ``PARSER``: the dependency ``GraphParser`` with and without linearization and distance terms, in train
  (the loss) and eval (prediction);
- ``NER``: the ``NERTagger`` (word and character BiLSTM under a CRF loss per tag layer) with one or two
  layers of tags, separate or connected output layers, an input transform, no character model, two LSTM
  layers;
- ``CLASSIFIER``: the sentiment ``CNNClassifier`` on word lists (its forward maps the words itself): plain, with
  a BiLSTM under the convolutions, extra trained word vectors concatenated or summed, filters that span part
  of the embedding, intermediate layers, pooling width, channels per filter;
- ``CONSTITUENCY``: the constituency parser's word encoders: ``PartitionedTransformerModule`` (sinusoidal or
  learned timing), ``LabelAttentionModule`` (partitioned or not, an input projection, query as a matrix,
  combined as self-attention), the two chained as the parser chains them, and the positional encodings;
- ``COREF``: the word-level coreference model's scorers: ``RoughScorer`` (bilinear scores, top-k antecedents),
  ``PairwiseEncoder`` (distance buckets, with speakers), ``AnaphoricityScorer`` (with singletons, without a
  hidden layer), ``SpanPredictor``, the three scorers chained as ``CorefModel`` chains them, and ``CorefLoss``;
- ``COMMON``: the shared pieces: biaffine scorers, ``HighwayLSTM``, ``PackedLSTM`` with recurrent dropout,
  the dropouts, ``CRFLoss`` and the losses (focal, mixed, max-entropy, large margin);
- ``TRAIN``: train steps (the model's loss, ``backward``, an Adam step, in train mode as the trainers'
  ``update`` sets it) for the tokenizer, langid, seq2seq, MWT classifier, charlm, tagger, parser, NER tagger,
  sentiment classifier, constituency encoders and coreference scorers.

Random weights and inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
LENGTH = 6

# Model name -> Tokenizer args overrides.
TOKENIZER: dict[str, dict[str, Any]] = {
    "Tokenizer": {},
    "Tokenizer.conv_res": {"conv_res": "1,3"},
    "Tokenizer.hier_conv_res": {"conv_res": "1,3", "hier_conv_res": True},
    "Tokenizer.hierarchical": {"hierarchical": True, "hier_invtemp": 0.5},
    "Tokenizer.hierarchical.no_invtemp": {"hierarchical": True, "hier_invtemp": 0.0},
    "Tokenizer.mwt": {"use_mwt": True},
    "Tokenizer.mwt.hierarchical.conv": {"use_mwt": True, "hierarchical": True, "hier_invtemp": 0.5, "conv_res": "3"},
    "Tokenizer.two_layers": {"rnn_layers": 2},
}
LANGID = ("LangIDBiLSTM", "LangIDBiLSTM.prediction_scores", "LangIDBiLSTM.prediction_scores.lang_subset",
          "LangIDBiLSTM.loss")
# Model name -> (what, Seq2SeqModel args overrides).
SEQ2SEQ: dict[str, tuple[str, dict[str, Any]]] = {
    "Seq2SeqModel.soft": ("forward", {}),
    "Seq2SeqModel.pos.edit": ("forward", {"pos": True, "pos_dim": 8, "pos_vocab_size": 6, "edit": True,
                                          "num_edit": 3}),
    "Seq2SeqModel.copy": ("forward", {"copy": True}),
    "Seq2SeqModel.copy.pos": ("forward", {"copy": True, "pos": True, "pos_dim": 8, "pos_vocab_size": 6}),
    "Seq2SeqModel.predict_greedy": ("greedy", {}),
    "Seq2SeqModel.predict_greedy.copy": ("greedy", {"copy": True}),
    "Seq2SeqModel.predict_greedy.pos.never_unk": ("greedy_unk", {"pos": True, "pos_dim": 8, "pos_vocab_size": 6}),
    "Seq2SeqModel.predict.beam": ("beam", {}),
    "Seq2SeqModel.predict.beam.edit": ("beam", {"edit": True, "num_edit": 3}),
    "Seq2SeqModel.predict.beam1": ("beam1", {}),
}
MWT_CLASSIFIER = ("CharacterClassifier", "CharacterClassifier.two_layers", "train_step.CharacterClassifier")
CHARLM = ("CharacterLanguageModel", "CharacterLanguageModel.hidden", "CharacterModel.attention",
          "CharacterModel.final_states", "CharacterModel.bidirectional")
# Model name -> (gold tags, Tagger args overrides, share_hid).
TAGGER: dict[str, tuple[bool, dict[str, Any], bool]] = {
    "Tagger.predict": (False, {}, False),
    "Tagger.loss": (True, {}, False),
    "Tagger.share_hid.loss": (True, {}, True),
    "Tagger.no_char.no_pretrain": (True, {"char": False, "pretrain": False}, False),
    "Tagger.char_bidirectional": (True, {"char_bidirectional": True}, False),
    "Tagger.hidden_link": (True, {"tag_column_link": "hidden"}, False),
}
# Model name -> GraphParser args overrides.
PARSER: dict[str, dict[str, Any]] = {
    "GraphParser": {},
    "GraphParser.no_linearization_distance": {"linearization": False, "distance": False},
    "GraphParser.no_char_pretrain": {"char": False, "pretrain": False},
    "GraphParser.arc_embedding": {"use_arc_embedding": True},
    "GraphParser.no_tags": {"use_upos": False, "use_xpos": False, "use_ufeats": False},
}
# Model name -> (NERTagger args overrides, tag layers).
NER: dict[str, tuple[dict[str, Any], int]] = {
    "NERTagger": ({}, 1),
    "NERTagger.connect_output_layers": ({"connect_output_layers": True}, 2),
    "NERTagger.two_layers.separate": ({}, 2),
    "NERTagger.input_transform": ({"input_transform": True}, 1),
    "NERTagger.no_char.cased": ({"char": False, "lowercase": False}, 1),
    "NERTagger.no_word_dropout.two_lstm": ({"word_dropout": 0.0, "num_layers": 2}, 1),
}
# Model name -> CNNClassifier args overrides.
CLASSIFIER: dict[str, dict[str, Any]] = {
    "CNNClassifier": {},
    "CNNClassifier.bilstm": {"bilstm": True},
    "CNNClassifier.extra_concat": {"extra_wordvec_method": "CONCAT", "extra_wordvec_dim": 4},
    "CNNClassifier.extra_sum": {"extra_wordvec_method": "SUM"},
    "CNNClassifier.wide_filters.fc": {"filter_sizes": (2, (3, 4)), "fc_shapes": (6,), "maxpool_width": 2},
    "CNNClassifier.channels_per_filter": {"filter_sizes": (1, 3), "filter_channels": (3, 5)},
}
CONSTITUENCY = ("PartitionedTransformerModule.sin", "PartitionedTransformerModule.learned",
                "LabelAttentionModule.partitioned", "LabelAttentionModule.not_partitioned",
                "LabelAttentionModule.input_proj.q_matrix", "LabelAttentionModule.combine_as_self",
                "PartitionedTransformer.LabelAttention", "SinusoidalEncoding", "AddSinusoidalEncoding",
                "ConcatSinusoidalEncoding")
COREF = ("RoughScorer", "AnaphoricityScorer", "AnaphoricityScorer.singletons", "AnaphoricityScorer.no_hidden",
         "PairwiseEncoder", "PairwiseEncoder.full_pairwise", "PairwiseEncoder.full_pairwise.speakers",
         "SpanPredictor", "coref.scoring_pipeline", "CorefLoss")
COMMON = ("BiaffineScorer", "PairwiseBiaffineScorer", "DeepBiaffineScorer", "DeepBiaffineScorer.not_pairwise",
          "PairwiseBilinear", "HighwayLSTM", "HighwayLSTM.packed", "PackedLSTM", "PackedLSTM.rec_dropout",
          "LSTMwRecDropout", "WordDropout", "WordDropout.replacement", "LockedDropout", "SequenceUnitDropout",
          "CRFLoss", "CRFLoss.no_average", "FocalLoss", "MixLoss", "MaxEntropySequenceLoss",
          "LargeMarginInSoftmaxLoss", "SequenceLoss")
TRAIN = ("train_step.Tokenizer", "train_step.Tokenizer.mwt.hierarchical", "train_step.LangIDBiLSTM",
         "train_step.Seq2SeqModel", "train_step.Seq2SeqModel.copy.edit", "train_step.CharacterLanguageModel",
         "train_step.Tagger", "train_step.GraphParser", "train_step.CRFLoss", "train_step.NERTagger",
         "train_step.NERTagger.connect_output_layers", "train_step.CNNClassifier",
         "train_step.CNNClassifier.bilstm.extra_concat", "train_step.PartitionedTransformer.LabelAttention",
         "train_step.coref.scoring_pipeline", "train_step.SpanPredictor")


def names() -> list[str]:
    return (list(TOKENIZER) + list(LANGID) + list(SEQ2SEQ) + list(MWT_CLASSIFIER) + list(CHARLM) + list(TAGGER)
            + list(PARSER) + list(NER) + list(CLASSIFIER) + list(CONSTITUENCY) + list(COREF) + list(COMMON)
            + list(TRAIN))


def _gen(seed: int = 0) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _ids(high: int, *shape: int, low: int = 1, seed: int = 0) -> Any:
    import torch

    return torch.randint(low, high, shape, generator=_gen(seed))


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _step(model: Any, loss_of: Any, entries: list[Any]) -> Any:
    """A train step: ``loss_of(model, *inputs)``, ``backward``, an Adam step; returns the detached loss."""
    import torch

    from gt_calls import Run

    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)

    def step(owner: Any, *inputs: Any) -> Any:
        # as the trainers' ``update`` does: train mode whatever mode the bench set
        owner.train()
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = loss_of(owner, *inputs)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(owner.parameters(), 5.0)
            optimizer.step()
        return loss.detach()

    return Run(model, step, entries)


# --- tokenizer -------------------------------------------------------------------------------------------------

def _tokenizer(overrides: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    from stanza.models.tokenization.model import Tokenizer

    args = {"feat_dim": 4, "rnn_layers": 1, "conv_res": None, "hier_conv_res": False, "use_mwt": False,
            "hierarchical": False, "hier_invtemp": 0.5, "tok_noise": 0.1}
    args.update(overrides)
    model = Tokenizer(args, nchars=20, emb_dim=8, hidden_dim=8, dropout=0.1, feat_dropout=0.05)
    x = _ids(20, BATCH, 10)
    x[1, 8:] = 0
    feats = _randn(BATCH, 10, 4)
    return model, (x, feats, [10, 8])


def _tokenizer_model(name: str) -> Built:
    model, inputs = _tokenizer(TOKENIZER[name])
    return model, inputs, {}


# --- langid ----------------------------------------------------------------------------------------------------

def _langid(lang_subset: list[str] | None = None) -> Any:
    from stanza.models.langid.model import LangIDBiLSTM

    chars = {"<PAD>": 0, **{c: i + 1 for i, c in enumerate("abcdefghijklmnop")}}
    tags = {lang: i for i, lang in enumerate(["en", "fr", "de", "it"])}
    model = LangIDBiLSTM(chars, tags, num_layers=1, embedding_dim=8, hidden_dim=8, batch_size=BATCH, dropout=0.1,
                         lang_subset=lang_subset)
    model.build_lang_mask("cpu")
    return model


def _langid_model(name: str) -> Built:
    from stanza.models.langid.model import LangIDBiLSTM

    from gt_calls import Method, Run

    x = _ids(17, BATCH, 12)
    if name == "LangIDBiLSTM":
        return _langid(), (x,), {}
    if name == "LangIDBiLSTM.prediction_scores":
        return Method(_langid(), "prediction_scores"), (x,), {}
    if name == "LangIDBiLSTM.prediction_scores.lang_subset":
        return Method(_langid(["en", "de"]), "prediction_scores"), (x,), {}
    labels = _ids(4, BATCH, low=0)
    return Run(_langid(), lambda owner, x_, y: owner.loss(owner(x_), y), [LangIDBiLSTM]), (x, labels), {}


# --- seq2seq ---------------------------------------------------------------------------------------------------

def _seq2seq(overrides: dict[str, Any]) -> Any:
    from stanza.models.common.seq2seq_model import Seq2SeqModel

    args = {"vocab_size": 16, "emb_dim": 8, "hidden_dim": 8, "num_layers": 1, "dropout": 0.1, "emb_dropout": 0.1,
            "max_dec_len": 6, "attn_type": "soft", "beam_size": 2}
    args.update(overrides)
    return Seq2SeqModel(args)


def _seq2seq_inputs(copy: bool = False) -> tuple[Any, Any, Any, Any]:
    """Source characters (one past the vocabulary when copying), their padding mask, the decoder input and a
    POS id per word."""
    src = _ids(16, BATCH, 7, low=4)
    src[1, 5:] = 0
    if copy:
        src[0, 2] = 17
    mask = src.eq(0)
    tgt_in = _ids(16, BATCH, 6, low=4, seed=1)
    tgt_in[:, 0] = 2
    pos = _ids(6, BATCH, seed=2)
    return src, mask, tgt_in, pos


def _seq2seq_model(name: str) -> Built:
    from stanza.models.common.seq2seq_model import Seq2SeqModel

    from gt_calls import Run

    what, overrides = SEQ2SEQ[name]
    model = _seq2seq(overrides)
    src, mask, tgt_in, pos = _seq2seq_inputs(overrides.get("copy", False))
    use_pos = overrides.get("pos", False)
    if what == "forward":
        if use_pos:
            return Run(model, lambda owner, s, m, t, p: owner(s, m, t, pos=p), [Seq2SeqModel]), \
                (src, mask, tgt_in, pos), {}
        return model, (src, mask, tgt_in), {}
    if what.startswith("greedy"):
        never_unk = what == "greedy_unk"

        def greedy(owner: Any, s: Any, m: Any, p: Any) -> Any:
            return owner.predict_greedy(s, m, pos=p if use_pos else None, never_decode_unk=never_unk)

        return Run(model, greedy, [Seq2SeqModel.predict_greedy]), (src, mask, pos), {}
    beam = 1 if what == "beam1" else 2
    return Run(model, lambda owner, s, m: owner.predict(s, m, beam_size=beam), [Seq2SeqModel.predict]), \
        (src, mask), {}


def _mwt_classifier_model(name: str) -> Built:
    import torch.nn.functional as F
    from stanza.models.mwt.character_classifier import CharacterClassifier

    args = {"vocab_size": 16, "emb_dim": 8, "hidden_dim": 8, "num_layers": 2 if "two" in name else 1,
            "dropout": 0.1, "emb_dropout": 0.1}
    model = CharacterClassifier(args)
    src, mask, _, _ = _seq2seq_inputs(copy=True)
    if not name.startswith("train_step"):
        return model, (src, mask), {}
    labels = _ids(2, BATCH, 7, low=0, seed=5)
    labels[1, 5:] = -100

    def mwt_loss(owner: Any, s: Any, m: Any, y: Any) -> Any:
        logits = owner(s, m)
        return F.cross_entropy(logits.reshape(-1, 2), y[:, :logits.shape[1]].reshape(-1))

    return _step(model, mwt_loss, [CharacterClassifier]), (src, mask, labels), {}


# --- char models -----------------------------------------------------------------------------------------------

def _char_vocab() -> Any:
    from stanza.models.common.vocab import CharVocab

    data = [[[w] for w in "the quick brown fox jumps over lazy dogs".split()]]
    return {"char": CharVocab(data, "en")}


def _char_args() -> dict[str, Any]:
    return {"char_emb_dim": 6, "char_hidden_dim": 8, "char_num_layers": 1, "char_dropout": 0.1,
            "char_rec_dropout": 0.1, "dropout": 0.1, "char_unit_dropout": 0.05}


def _charlm_model(name: str) -> Built:
    from stanza.models.common.char_model import CharacterLanguageModel, CharacterModel

    from gt_calls import Run

    vocab = _char_vocab()
    size = len(vocab["char"])
    if name.startswith("CharacterLanguageModel"):
        model = CharacterLanguageModel(_char_args(), vocab)
        chars = _ids(size, BATCH, 9)
        if name.endswith("hidden"):
            hidden = (_randn(1, BATCH, 8), _randn(1, BATCH, 8, seed=1))
            return Run(model, lambda owner, c, h0, c0: owner(c, [9, 7], (h0, c0)), [CharacterLanguageModel]), \
                (chars, *hidden), {}
        return Run(model, lambda owner, c: owner(c, [9, 7]), [CharacterLanguageModel]), (chars,), {}
    bidirectional = name.endswith("bidirectional")
    model = CharacterModel(_char_args(), vocab, bidirectional=bidirectional, attention=not name.endswith("states"))
    wordlens = [5, 4, 4, 3, 2]
    chars = _ids(size, len(wordlens), 5)
    for row, n in enumerate(wordlens):
        chars[row, n:] = 0
    word_orig_idx = [2, 0, 4, 1, 3]
    return Run(model, lambda owner, c: owner(c, c.eq(0), word_orig_idx, [3, 2], wordlens), [CharacterModel]), \
        (chars,), {}


# --- tagger and parser -----------------------------------------------------------------------------------------

SENTENCES = [
    [("The", "DET", "DT", "Definite=Def|PronType=Art", 2, "det", "the"),
     ("dog", "NOUN", "NN", "Number=Sing", 3, "nsubj", "dog"),
     ("runs", "VERB", "VBZ", "Number=Sing|Person=3", 0, "root", "run"),
     ("fast", "ADV", "RB", "_", 3, "advmod", "fast"),
     (".", "PUNCT", ".", "_", 3, "punct", ".")],
    [("Cats", "NOUN", "NNS", "Number=Plur", 2, "nsubj", "cat"),
     ("sleep", "VERB", "VBP", "_", 0, "root", "sleep"),
     ("!", "PUNCT", ".", "_", 2, "punct", "!")],
]


def _vocab() -> Any:
    """stanza's vocabularies over the toy treebank: chars, words, UPOS, XPOS, features, lemmas, relations."""
    from stanza.models.common.vocab import CharVocab
    from stanza.models.pos.vocab import FeatureVocab, MultiVocab, WordVocab

    data = [[[t, u, x, f, lemma, str(h), d] for t, u, x, f, h, d, lemma in sent] for sent in SENTENCES]
    return MultiVocab({"char": CharVocab(data, "en"), "word": WordVocab(data, "en", lower=True),
                       "upos": WordVocab(data, "en", idx=1), "xpos": WordVocab(data, "en", idx=2),
                       "feats": FeatureVocab(data, "en", idx=3), "lemma": WordVocab(data, "en", idx=4, lower=True),
                       "deprel": WordVocab(data, "en", idx=6)})


def _word_inputs(vocab: Any, root: bool) -> dict[str, Any]:
    """A padded batch as stanza's data loaders hand it over: sentences sorted by length, their words' chars
    sorted by length with the order to restore, and tag ids (with a ROOT slot first for the parser)."""
    import torch

    sents = [[w[0] for w in s] for s in SENTENCES]
    extra = 1 if root else 0
    sentlens = [len(s) + extra for s in sents]
    width = max(sentlens)
    word = torch.zeros(BATCH, width, dtype=torch.long)
    upos = torch.zeros_like(word)
    xpos = torch.zeros_like(word)
    lemma = torch.zeros_like(word)
    feats = torch.zeros(BATCH, width, len(vocab["feats"]), dtype=torch.long)
    for b, sent in enumerate(SENTENCES):
        if root:
            word[b, 0] = upos[b, 0] = xpos[b, 0] = lemma[b, 0] = 3
            feats[b, 0] = 3
        for i, (t, u, x, f, _, _, lem) in enumerate(sent):
            word[b, i + extra] = vocab["word"].unit2id(t.lower())
            upos[b, i + extra] = vocab["upos"].unit2id(u)
            xpos[b, i + extra] = vocab["xpos"].unit2id(x)
            lemma[b, i + extra] = vocab["lemma"].unit2id(lem)
            feats[b, i + extra] = torch.tensor(vocab["feats"].unit2id(f))
    words = [w for s in sents for w in (["<ROOT>"] if root else []) + s]
    order = sorted(range(len(words)), key=lambda k: -len(words[k]))
    wordlens = [len(words[k]) for k in order]
    wordchars = torch.zeros(len(words), max(wordlens), dtype=torch.long)
    for row, k in enumerate(order):
        wordchars[row, :len(words[k])] = torch.tensor(vocab["char"].map(list(words[k])))
    word_orig_idx = [order.index(k) for k in range(len(words))]
    head = torch.zeros(BATCH, width - extra, dtype=torch.long)
    deprel = torch.zeros_like(head)
    for b, sent in enumerate(SENTENCES):
        for i, w in enumerate(sent):
            head[b, i] = w[4]
            deprel[b, i] = vocab["deprel"].unit2id(w[5])
    return {"word": word, "word_mask": word.eq(0), "wordchars": wordchars, "wordchars_mask": wordchars.eq(0),
            "upos": upos, "xpos": xpos, "feats": feats, "lemma": lemma, "pretrained": word.clone(),
            "head": head, "deprel": deprel, "word_orig_idx": word_orig_idx, "sentlens": sentlens,
            "wordlens": wordlens, "text": sents}


def _base_args() -> dict[str, Any]:
    return {"word_emb_dim": 8, "tag_emb_dim": 4, "char": True, "char_emb_dim": 6, "char_hidden_dim": 8,
            "char_num_layers": 1, "char_rec_dropout": 0.1, "dropout": 0.1, "transformed_dim": 8, "pretrain": True,
            "hidden_dim": 8, "num_layers": 1, "rec_dropout": 0.1, "deep_biaff_hidden_dim": 8,
            "composite_deep_biaff_hidden_dim": 6, "deep_biaff_output_dim": 6, "word_dropout": 0.1,
            "bert_model": None, "linearization": True, "distance": True}


def _tagger(overrides: dict[str, Any], share_hid: bool) -> tuple[Any, dict[str, Any]]:
    from stanza.models.pos.model import Tagger

    vocab = _vocab()
    args = _base_args()
    args.update(overrides)
    model = Tagger(args, vocab, emb_matrix=_randn(len(vocab["word"]), 5), share_hid=share_hid)
    return model, _word_inputs(vocab, root=False)


def _tagger_call(owner: Any, inp: dict[str, Any], gold: bool, word: Any, wordchars: Any, pretrained: Any,
                 upos: Any, xpos: Any, feats: Any) -> Any:
    tags = [upos, xpos, feats] if gold else None
    return owner(word, word.eq(0), wordchars, wordchars.eq(0), tags, pretrained, inp["word_orig_idx"],
                 inp["sentlens"], inp["wordlens"], inp["text"])


def _tagger_model(name: str) -> Built:
    from stanza.models.pos.model import Tagger

    from gt_calls import Run

    gold, overrides, share_hid = TAGGER[name]
    model, inp = _tagger(overrides, share_hid)
    args = tuple(inp[k] for k in ("word", "wordchars", "pretrained", "upos", "xpos", "feats"))
    return Run(model, lambda owner, *t: _tagger_call(owner, inp, gold, *t), [Tagger]), args, {}


def _parser(overrides: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from stanza.models.depparse.model import GraphParser

    vocab = _vocab()
    args = _base_args()
    args.update(overrides)
    model = GraphParser(args, vocab, emb_matrix=_randn(len(vocab["word"]), 5))
    return model, _word_inputs(vocab, root=True)


PARSER_KEYS = ("word", "wordchars", "upos", "xpos", "feats", "pretrained", "lemma", "head", "deprel")


def _parser_call(owner: Any, inp: dict[str, Any], word: Any, wordchars: Any, upos: Any, xpos: Any, feats: Any,
                 pretrained: Any, lemma: Any, head: Any, deprel: Any) -> Any:
    return owner(word, word.eq(0), wordchars, wordchars.eq(0), upos, xpos, feats, pretrained, lemma, head, deprel,
                 inp["word_orig_idx"], inp["sentlens"], inp["wordlens"], inp["text"])


def _parser_model(name: str) -> Built:
    from stanza.models.depparse.model import GraphParser

    from gt_calls import Run

    model, inp = _parser(PARSER[name])
    return Run(model, lambda owner, *t: _parser_call(owner, inp, *t), [GraphParser]), \
        tuple(inp[k] for k in PARSER_KEYS), {}


NER_TAGS = [["B-PER", "E-PER", "O", "O", "S-LOC"], ["S-ORG", "O", "O"]]
NER_INNER = [["O", "O", "O", "O", "S-CITY"], ["O", "O", "O"]]


def _ner(overrides: dict[str, Any], layers: int) -> tuple[Any, dict[str, Any]]:
    """An ``NERTagger`` over the toy sentences with one or two layers of BIOES tags (nested entities), and its
    inputs as the NER data loader hands them over (word strings, chars sorted by length, tag ids)."""
    import torch
    from stanza.models.common.vocab import CompositeVocab
    from stanza.models.ner.model import NERTagger

    base = _vocab()
    tag_data = [[(tuple([t, inner][:layers]),) for t, inner in zip(sent, nested)]
                for sent, nested in zip(NER_TAGS, NER_INNER)]
    vocab = {"char": base["char"], "word": base["word"], "tag": CompositeVocab(tag_data, "en", idx=0, sep=None)}
    args = {"word_emb_dim": 8, "char": True, "charlm": False, "char_emb_dim": 6, "char_hidden_dim": 6,
            "char_num_layers": 1, "char_rec_dropout": 0.0, "dropout": 0.1, "hidden_dim": 8, "num_layers": 1,
            "word_dropout": 0.1, "locked_dropout": 0.1, "bert_model": None}
    args.update(overrides)
    model = NERTagger(args, vocab, emb_matrix=_randn(len(vocab["word"]), 8))
    inp = _word_inputs(base, root=False)
    tags = torch.zeros(BATCH, LENGTH - 1, layers, dtype=torch.long)
    for b, sent in enumerate(tag_data):
        for i, tag in enumerate(sent):
            tags[b, i] = torch.tensor(vocab["tag"].unit2id(tag[0]))
    inp["tags"] = tags
    return model, inp


def _ner_call(owner: Any, inp: dict[str, Any], wordchars: Any, tags: Any) -> Any:
    return owner(inp["text"], wordchars, wordchars.eq(0), tags, inp["word_orig_idx"], inp["sentlens"],
                 inp["wordlens"], None, None, None, None)


def _ner_model(name: str) -> Built:
    from stanza.models.ner.model import NERTagger

    from gt_calls import Run

    model, inp = _ner(*NER[name])
    return Run(model, lambda owner, c, t: _ner_call(owner, inp, c, t), [NERTagger]), \
        (inp["wordchars"], inp["tags"]), {}


PHRASES = [["the", "movie", "was", "great", "!"], ["Awful", "plot", "."], ["ok"]]


def _classifier(overrides: dict[str, Any]) -> Any:
    """The sentiment ``CNNClassifier`` over a small pretrained embedding (a ``Pretrain`` given its vocab and
    matrix in memory), no charlm, ELMo or BERT."""
    import types

    from stanza.models.classifiers.cnn_classifier import CNNClassifier
    from stanza.models.classifiers.utils import ExtraVectors
    from stanza.models.common.pretrain import Pretrain, PretrainedWordVocab

    words = ["the", "movie", "was", "great", "awful", "plot", ".", "!"]
    pretrain = Pretrain(save_to_file=False)
    pretrain._vocab = PretrainedWordVocab(words, "en")
    pretrain._emb = _randn(len(words) + 4, 8)
    args = {"filter_channels": 4, "filter_sizes": (2, 3), "fc_shapes": (), "dropout": 0.1, "wordvec_type": None,
            "extra_wordvec_method": "NONE", "extra_wordvec_dim": 0, "extra_wordvec_max_norm": None,
            "char_lowercase": False, "charlm_projection": None, "use_elmo": False, "elmo_projection": None,
            "bert_model": None, "bert_finetune": False, "bert_hidden_layers": None, "use_peft": False,
            "lora_rank": None, "lora_alpha": None, "lora_dropout": None, "lora_modules_to_save": None,
            "lora_target_modules": None, "bilstm": False, "bilstm_hidden_dim": 6, "maxpool_width": 1}
    args.update(overrides)
    args["extra_wordvec_method"] = ExtraVectors[args["extra_wordvec_method"]]
    extra = None if args["extra_wordvec_method"] is ExtraVectors.NONE else ["<PAD>", "<UNK>", "movie", "plot", "ok"]
    return CNNClassifier(pretrain, extra, ["0", "1", "2"], None, None, None, None, None, False, None,
                         types.SimpleNamespace(**args))


def _classifier_model(name: str) -> Built:
    from stanza.models.classifiers.cnn_classifier import CNNClassifier

    from gt_calls import Run

    return Run(_classifier(CLASSIFIER[name]), lambda owner: owner(PHRASES), [CNNClassifier]), (), {}


# --- constituency parser pieces ------------------------------------------------------------------------------

def _partitioned(timing: str = "sin") -> Any:
    from stanza.models.constituency.partitioned_transformer import PartitionedTransformerModule

    return PartitionedTransformerModule(n_layers=2, d_model=16, n_head=2, d_qkv=4, d_ff=16, ff_dropout=0.1,
                                        residual_dropout=0.1, attention_dropout=0.1, word_input_size=10, bias=True,
                                        morpho_emb_dropout=0.1, timing=timing, encoder_max_len=32)


def _label_attention(name: str) -> Any:
    from stanza.models.constituency.label_attention import LabelAttentionModule

    partitioned = not name.endswith("not_partitioned")
    return LabelAttentionModule(d_model=16, d_input_proj=12 if "input_proj" in name else 0, d_k=4, d_v=4,
                                d_l=4 if name.endswith("combine_as_self") else 3, d_proj=4,
                                combine_as_self=name.endswith("combine_as_self"),
                                q_as_matrix="q_matrix" in name, residual_dropout=0.1, attention_dropout=0.1,
                                d_positional=8 if partitioned else None, d_ff=16, relu_dropout=0.1,
                                lattn_partitioned=partitioned)


def _pipeline(owner: Any, first: Any, second: Any) -> Any:
    """The constituency parser's word encoder: the partitioned transformer over per-sentence embeddings, then
    label attention, concatenated as the parser does."""
    import torch

    encoded = owner[0](None, [first, second])
    words = [encoded[0][:first.shape[0]], encoded[1][:second.shape[0]]]
    labeled = owner[1](words, None)
    return [torch.cat([w, lab], 1) for w, lab in zip(words, labeled)]


def _constituency_model(name: str) -> Built:
    import torch
    from stanza.models.constituency import positional_encoding as pe
    from stanza.models.constituency.label_attention import LabelAttentionModule
    from stanza.models.constituency.partitioned_transformer import PartitionedTransformerModule

    from gt_calls import Run

    sentences = [_randn(5, 10), _randn(3, 10, seed=1)]
    if name.startswith("PartitionedTransformerModule"):
        return Run(_partitioned(name.split(".")[1]), lambda owner, a, b: owner(None, [a, b]),
                   [PartitionedTransformerModule]), tuple(sentences), {}
    if name.startswith("LabelAttentionModule"):
        words = (_randn(5, 16), _randn(3, 16, seed=1))
        return Run(_label_attention(name), lambda owner, a, b: owner([a, b], None), [LabelAttentionModule]), \
            words, {}
    if name == "PartitionedTransformer.LabelAttention":
        model = torch.nn.ModuleList([_partitioned(), _label_attention("partitioned")])
        return Run(model, _pipeline, [PartitionedTransformerModule, LabelAttentionModule]), tuple(sentences), {}
    if name == "SinusoidalEncoding":
        return pe.SinusoidalEncoding(8, 32), (torch.tensor([0, 3, 5, 7]),), {}
    if name == "AddSinusoidalEncoding":
        return pe.AddSinusoidalEncoding(8, 32), (_randn(BATCH, 5, 8),), {}
    return pe.ConcatSinusoidalEncoding(8, 32), (_randn(BATCH, 5, 8),), {}


# --- coreference scorers --------------------------------------------------------------------------------------

MENTIONS = 7
ROUGH_K = 3


def _coref_config(**overrides: Any) -> Any:
    import types

    config = {"dropout_rate": 0.1, "rough_k": ROUGH_K, "hidden_size": 12, "n_hidden_layers": 1, "singletons": False,
              "embedding_size": 4, "full_pairwise": True}
    config.update(overrides)
    return types.SimpleNamespace(**config)


def _coref_doc(speakers: bool = False) -> dict[str, Any]:
    doc: dict[str, Any] = {"cased_words": ["Anna", "said", "she", "saw", "Bob", "and", "him"],
                           "sent_id": [0, 0, 0, 0, 1, 1, 1]}
    if speakers:
        doc["speaker"] = ["a", "a", "a", "a", "b", "b", "b"]
    return doc


class _CorefScorer:
    """Builds the word-level coref model's scoring as ``CorefModel`` runs it: rough scores and top-k antecedents,
    pairwise features of those, then the anaphoricity scorer over the pairs."""

    @staticmethod
    def modules(singletons: bool = False) -> Any:
        import torch
        from stanza.models.coref.anaphoricity_scorer import AnaphoricityScorer
        from stanza.models.coref.pairwise_encoder import PairwiseEncoder
        from stanza.models.coref.rough_scorer import RoughScorer

        config = _coref_config(singletons=singletons)
        pairwise = PairwiseEncoder(config)
        return torch.nn.ModuleList([RoughScorer(8, config), pairwise,
                                    AnaphoricityScorer(8 * 3 + pairwise.shape, config)])

    @staticmethod
    def run(owner: Any, words: Any) -> Any:
        doc = _coref_doc()
        top_rough_scores, top_indices, _ = owner[0](words)
        pw = owner[1](top_indices, doc)
        return owner[2](top_mentions=words[top_indices], mentions_batch=words, pw_batch=pw,
                        top_rough_scores_batch=top_rough_scores), top_indices


def _coref_model(name: str) -> Built:
    import torch
    from stanza.models.coref.anaphoricity_scorer import AnaphoricityScorer
    from stanza.models.coref.loss import CorefLoss
    from stanza.models.coref.pairwise_encoder import PairwiseEncoder
    from stanza.models.coref.rough_scorer import RoughScorer
    from stanza.models.coref.span_predictor import SpanPredictor

    from gt_calls import Run

    words = _randn(MENTIONS, 8)
    top_indices = torch.tensor([[0, 0, 0], [0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 2, 1], [4, 3, 2], [5, 4, 3]])
    if name == "RoughScorer":
        return RoughScorer(8, _coref_config()), (words,), {}
    if name.startswith("AnaphoricityScorer"):
        config = _coref_config(singletons=name.endswith("singletons"),
                               n_hidden_layers=0 if name.endswith("hidden") else 1)
        model = AnaphoricityScorer(8 * 3 + 8, config)
        return Run(model, lambda owner, w, t, pw, r: owner(top_mentions=w[t], mentions_batch=w, pw_batch=pw,
                                                              top_rough_scores_batch=r), [AnaphoricityScorer]), \
            (words, top_indices, _randn(MENTIONS, ROUGH_K, 8, seed=1), _randn(MENTIONS, ROUGH_K, seed=2)), {}
    if name.startswith("PairwiseEncoder"):
        model = PairwiseEncoder(_coref_config(full_pairwise="full" in name))
        doc = _coref_doc(speakers=name.endswith("speakers"))
        return Run(model, lambda owner, t: owner(t, doc), [PairwiseEncoder]), (top_indices,), {}
    if name == "SpanPredictor":
        doc = _coref_doc()
        return Run(SpanPredictor(8, 64), lambda owner, w, h: owner(doc, w, h), [SpanPredictor]), \
            (words, torch.tensor([0, 2, 4, 6])), {}
    if name == "coref.scoring_pipeline":
        return Run(_CorefScorer.modules(), lambda owner, w: _CorefScorer.run(owner, w)[0],
                   [RoughScorer, PairwiseEncoder, AnaphoricityScorer]), (words,), {}
    target = torch.zeros(MENTIONS, ROUGH_K + 1)
    target[:, 0] = 1.0
    target[3, 1] = 1.0
    return CorefLoss(0.5), (_randn(MENTIONS, ROUGH_K + 1), target), {}


# --- common pieces ---------------------------------------------------------------------------------------------

def _common_model(name: str) -> Built:
    import torch
    from stanza.models.common import biaffine, crf, dropout, hlstm, loss, packed_lstm
    from stanza.models.common.large_margin_loss import LargeMarginInSoftmaxLoss
    from torch.nn.utils.rnn import pack_padded_sequence

    from gt_calls import Keywords, Run

    a, b = _randn(BATCH, 5, 8), _randn(BATCH, 5, 8, seed=1)
    if name == "BiaffineScorer":
        return biaffine.BiaffineScorer(8, 8, 3), (a, b), {}
    if name == "PairwiseBiaffineScorer":
        return biaffine.PairwiseBiaffineScorer(8, 8, 3), (a, b), {}
    if name == "PairwiseBilinear":
        return biaffine.PairwiseBilinear(8, 8, 3), (a, b), {}
    if name.startswith("DeepBiaffineScorer"):
        return biaffine.DeepBiaffineScorer(8, 8, 6, 3, dropout=0.1, pairwise=not name.endswith("pairwise")), \
            (a, b), {}
    lens = [5, 3]
    if name.startswith("HighwayLSTM"):
        model = hlstm.HighwayLSTM(8, 6, 2, batch_first=True, bidirectional=True, dropout=0.1, rec_dropout=0.1,
                                  highway_func=torch.tanh)
        if name.endswith("packed"):
            return Run(model, lambda owner, x: owner(pack_padded_sequence(x, lens, batch_first=True), lens),
                       [hlstm.HighwayLSTM]), (a,), {}
        return Run(model, lambda owner, x: owner(x, lens), [hlstm.HighwayLSTM]), (a,), {}
    if name.startswith("PackedLSTM"):
        model = packed_lstm.PackedLSTM(8, 6, 1, batch_first=True, pad=True,
                                       rec_dropout=0.1 if name.endswith("dropout") else 0)
        return Run(model, lambda owner, x: owner(pack_padded_sequence(x, lens, batch_first=True), lens),
                   [packed_lstm.PackedLSTM]), (a,), {}
    if name == "LSTMwRecDropout":
        model = packed_lstm.LSTMwRecDropout(8, 6, 2, batch_first=True, bidirectional=True, dropout=0.1,
                                            rec_dropout=0.1)
        return Run(model, lambda owner, x: owner(pack_padded_sequence(x, lens, batch_first=True)),
                   [packed_lstm.LSTMwRecDropout]), (a,), {}
    if name == "WordDropout":
        return dropout.WordDropout(0.3), (a,), {}
    if name == "WordDropout.replacement":
        return Keywords(dropout.WordDropout(0.3), replacement=_randn(8, seed=3)), (a,), {}
    if name == "LockedDropout":
        return dropout.LockedDropout(0.3), (a,), {}
    if name == "SequenceUnitDropout":
        return dropout.SequenceUnitDropout(0.3, 1), (_ids(10, BATCH, 7),), {}
    tags = _ids(4, BATCH, 5, low=0)
    if name.startswith("CRFLoss"):
        masks = torch.zeros(BATCH, 5, dtype=torch.bool)
        masks[1, 3:] = True
        return crf.CRFLoss(4, batch_average=not name.endswith("average")), (_randn(BATCH, 5, 4), masks, tags), {}
    if name == "FocalLoss":
        return loss.FocalLoss(gamma=2.0), (_randn(BATCH * 3, 4), _ids(4, BATCH * 3, low=0)), {}
    if name == "MixLoss":
        return loss.MixLoss(6, 0.5), (_randn(BATCH * 5, 6), _ids(6, BATCH * 5, low=0), _randn(BATCH, 3),
                                      _ids(3, BATCH, low=0)), {}
    if name == "MaxEntropySequenceLoss":
        return loss.MaxEntropySequenceLoss(6, 0.5), (torch.log_softmax(_randn(BATCH * 5, 6), -1),
                                                      _ids(6, BATCH * 5, low=0)), {}
    if name == "LargeMarginInSoftmaxLoss":
        return LargeMarginInSoftmaxLoss(), (_randn(BATCH * 3, 4), _ids(4, BATCH * 3, low=0)), {}
    return loss.SequenceLoss(6), (torch.log_softmax(_randn(BATCH * 5, 6), -1), _ids(6, BATCH * 5, low=0)), {}


# --- train steps -----------------------------------------------------------------------------------------------

def _train_model(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from stanza.models.common.char_model import CharacterLanguageModel
    from stanza.models.common.seq2seq_model import Seq2SeqModel
    from stanza.models.depparse.model import GraphParser
    from stanza.models.langid.model import LangIDBiLSTM
    from stanza.models.pos.model import Tagger
    from stanza.models.tokenization.model import Tokenizer

    kind = name.split(".", 1)[1]
    if kind.startswith("Tokenizer"):
        overrides = TOKENIZER["Tokenizer.mwt.hierarchical.conv"] if kind.endswith("hierarchical") else {}
        model, (x, feats, lens) = _tokenizer(overrides)
        labels = _ids(5 if overrides else 3, BATCH, 10, low=0, seed=4)
        labels[1, 8:] = -1

        def tok_loss(owner: Any, x_: Any, f_: Any, y: Any) -> Any:
            pred = owner(x_, f_, lens)
            return F.nll_loss(pred.view(-1, pred.size(-1)), y.view(-1), ignore_index=-1)

        return _step(model, tok_loss, [Tokenizer]), (x, feats, labels), {}
    if kind == "LangIDBiLSTM":
        model = _langid()
        return _step(model, lambda owner, x, y: owner.loss(owner(x), y), [LangIDBiLSTM]), \
            (_ids(17, BATCH, 12), _ids(4, BATCH, low=0)), {}
    if kind.startswith("Seq2SeqModel"):
        overrides = {"copy": True, "edit": True, "num_edit": 3} if kind.endswith("edit") else {}
        model = _seq2seq(overrides)
        src, mask, tgt_in, _ = _seq2seq_inputs(overrides.get("copy", False))
        tgt_out = torch.cat([tgt_in[:, 1:], torch.full((BATCH, 1), 3)], 1)
        criterion = torch.nn.NLLLoss(ignore_index=0)

        def s2s_loss(owner: Any, s: Any, m: Any, t_in: Any, t_out: Any) -> Any:
            log_probs, edit_logits = owner(s, m, t_in)
            value = criterion(log_probs[:, :, :16].reshape(-1, 16), t_out.reshape(-1))
            if edit_logits is not None:
                value = value + F.cross_entropy(edit_logits, torch.zeros(s.size(0), dtype=torch.long))
            return value

        return _step(model, s2s_loss, [Seq2SeqModel]), (src, mask, tgt_in, tgt_out), {}
    if kind == "CharacterLanguageModel":
        vocab = _char_vocab()
        model = CharacterLanguageModel(_char_args(), vocab)
        size = len(vocab["char"])
        chars = _ids(size, BATCH, 9)

        def lm_loss(owner: Any, c: Any) -> Any:
            _, _, decoded = owner(c[:, :-1], [8, 8])
            return F.cross_entropy(decoded.reshape(-1, size), c[:, 1:].reshape(-1))

        return _step(model, lm_loss, [CharacterLanguageModel]), (chars,), {}
    if kind == "Tagger":
        model, inp = _tagger({}, False)
        args = tuple(inp[k] for k in ("word", "wordchars", "pretrained", "upos", "xpos", "feats"))
        return _step(model, lambda owner, *t: _tagger_call(owner, inp, True, *t)[0], [Tagger]), args, {}
    if kind == "GraphParser":
        model, inp = _parser({})
        return _step(model, lambda owner, *t: _parser_call(owner, inp, *t)[0], [GraphParser]), \
            tuple(inp[k] for k in PARSER_KEYS), {}
    if kind.startswith("NERTagger"):
        from stanza.models.ner.model import NERTagger

        model, inp = _ner(*NER[kind])
        return _step(model, lambda owner, c, t: _ner_call(owner, inp, c, t)[0], [NERTagger]), \
            (inp["wordchars"], inp["tags"]), {}
    if kind.startswith("CNNClassifier"):
        from stanza.models.classifiers.cnn_classifier import CNNClassifier

        overrides = {"bilstm": True, **CLASSIFIER["CNNClassifier.extra_concat"]} if kind.endswith("concat") else {}
        labels = torch.tensor([2, 0, 1])
        return _step(_classifier(overrides), lambda owner, y: F.cross_entropy(owner(PHRASES), y), [CNNClassifier]), \
            (labels,), {}
    if kind == "PartitionedTransformer.LabelAttention":
        from stanza.models.constituency.label_attention import LabelAttentionModule
        from stanza.models.constituency.partitioned_transformer import PartitionedTransformerModule

        model = torch.nn.ModuleList([_partitioned(), _label_attention("partitioned"), torch.nn.Linear(16 + 12, 4)])

        def span_loss(owner: Any, a: Any, b: Any, y: Any) -> Any:
            scores = owner[2](torch.cat(_pipeline(owner, a, b), 0))
            return F.cross_entropy(scores, y)

        return _step(model, span_loss, [PartitionedTransformerModule, LabelAttentionModule]), \
            (_randn(5, 10), _randn(3, 10, seed=1), _ids(4, 8, low=0)), {}
    if kind == "coref.scoring_pipeline":
        from stanza.models.coref.anaphoricity_scorer import AnaphoricityScorer
        from stanza.models.coref.loss import CorefLoss
        from stanza.models.coref.pairwise_encoder import PairwiseEncoder
        from stanza.models.coref.rough_scorer import RoughScorer

        criterion = CorefLoss(0.5)

        def coref_loss(owner: Any, w: Any) -> Any:
            scores, top_indices = _CorefScorer.run(owner, w)
            target = torch.cat([torch.ones(w.shape[0], 1), (top_indices == 0).float()], 1)
            return criterion(scores, target)

        return _step(_CorefScorer.modules(), coref_loss, [RoughScorer, PairwiseEncoder, AnaphoricityScorer,
                                                         CorefLoss]), (_randn(MENTIONS, 8),), {}
    if kind == "SpanPredictor":
        from stanza.models.coref.span_predictor import SpanPredictor

        doc = _coref_doc()
        heads = torch.tensor([0, 2, 4, 6])
        starts, ends = torch.tensor([0, 2, 4, 5]), torch.tensor([0, 2, 4, 6])

        def span_loss(owner: Any, w: Any) -> Any:
            scores = owner(doc, w, heads)
            start, end = scores[:, :, 0].clamp(min=-1e4), scores[:, :, 1].clamp(min=-1e4)
            return F.cross_entropy(start, starts) + F.cross_entropy(end, ends)

        return _step(SpanPredictor(8, 64), span_loss, [SpanPredictor]), (_randn(MENTIONS, 8),), {}
    from stanza.models.common.crf import CRFLoss

    layer = torch.nn.Linear(8, 4)
    crf_loss = CRFLoss(4)
    holder = torch.nn.ModuleDict({"layer": layer, "crf": crf_loss})
    masks = torch.zeros(BATCH, 5, dtype=torch.bool)
    masks[1, 3:] = True
    return _step(holder, lambda owner, x, m, t: owner["crf"](owner["layer"](x), m, t)[0], [CRFLoss]), \
        (_randn(BATCH, 5, 8), masks, _ids(4, BATCH, 5, low=0)), {}


def build(name: str) -> Built:
    if name in TOKENIZER:
        return _tokenizer_model(name)
    if name in LANGID:
        return _langid_model(name)
    if name in SEQ2SEQ:
        return _seq2seq_model(name)
    if name in MWT_CLASSIFIER:
        return _mwt_classifier_model(name)
    if name in CHARLM:
        return _charlm_model(name)
    if name in TAGGER:
        return _tagger_model(name)
    if name in PARSER:
        return _parser_model(name)
    if name in NER:
        return _ner_model(name)
    if name in CLASSIFIER:
        return _classifier_model(name)
    if name in CONSTITUENCY:
        return _constituency_model(name)
    if name in COREF:
        return _coref_model(name)
    if name in COMMON:
        return _common_model(name)
    if name in TRAIN:
        return _train_model(name)
    raise KeyError(name)

"""Ground-truth bench, tsl (torch-spatiotemporal): spatiotemporal graph networks over PyG edge indices.

tsl 0.9.5 builds forecasting and imputation models for multivariate series on graphs: inputs are
``x`` of shape (batch, steps, nodes, features), a PyG ``edge_index`` with optional edge weights,
exogenous covariates ``u`` (per node or per graph) and masks of valid values. Its layers are message
passing convolutions (``GraphConv``, ``DiffConv``, ``GATConv``, ``GraphPolyVAR``, graph attention,
SPIN's spatiotemporal cross attention), dense and adaptive graph convolutions, temporal convolutions,
attention over time or nodes, "multi" layers with weights per node, normalizations, and recurrent cells
(graph GRU / LSTM, DCRNN, AGCRN, EvolveGCN, GRIN); its blocks stack them into encoders and readouts.
So the tables cover, at a batch of 2, 6 steps, 5 nodes and 2 features:

- ``MODELS``: every model class of ``tsl.nn.models`` (AR, VAR, RNN, FC-RNN, TCN, Transformer, STID, RNN and
  bidirectional RNN imputers, DCRNN, Graph WaveNet, gated graph network, RNN encoder with a GCN decoder,
  STCN, EvolveGCN, GRU-GCN, AGCRN, GRIN, SPIN and hierarchical SPIN) with the options that change their
  path: exogenous inputs per node and per graph, edge weights, cells (GRU / LSTM), learned adjacency,
  full graphs, EvolveGCN's H and O variants, GRIN's merge modes, attention axes, gated convolutions,
  cached supports, ``predict``;
- ``LAYERS``: the main layers and blocks of ``tsl.nn.layers`` and ``tsl.nn.blocks`` alone, with their
  flags (normalizations of the adjacency, root weights, edge attributes, masks, reweighing by softmax or
  L1, causal attention, cells of the recurrent encoders, exogenous inputs of the MLP and TCN blocks);
- ``CALLS``: the functions users call: ``tsl.nn.functional`` (sparse softmax and attention), the
  connectivity ops of ``tsl.ops.connectivity``, ``GradNorm`` and the masked metrics of ``tsl.metrics.torch``, as
  modules (``MaskedMAE`` and its kin, ``convert_to_masked_metric``) and as functions;
- ``TRAIN``: training steps as tsl's ``Predictor`` / ``Imputer`` run them: the model's prediction, a
  masked tsl loss (a ``MaskedMetric`` or a functional metric) against a target, and ``loss.backward()``.

The PyG extensions ``torch_scatter`` and ``torch_sparse`` that tsl imports have no build for the bench's
torch: ``before_import`` puts stand-ins in their place after ``torch_geometric`` has recorded their
absence, written in plain torch with torch_scatter's semantics (``scatter``, ``broadcast``,
``segment_csr``, ``gather_csr``); ``torch_sparse`` gives PyG's own placeholder ``SparseTensor``, since
every model here passes edge indices as tensors, and its sparse helpers are never reached. Left out because
they fail on their own at this version, compiled or not: ``DenseGraphConv`` (an einops pattern naming an axis on
one side only), ``AttentionScores`` (its softmax over edges with a batch), ``SpatioTemporalAttention`` (no
activation attribute), ``MaskedPinballLoss`` (a keyword torchmetrics no longer takes), ``MaskedMetricWrapper``
(built without a metric function), ``TransformerModel`` over nodes (causal attention it cannot turn off) and
the LSTM cell of the RNN imputers (a state tuple read as a tensor). Random inputs
and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
STEPS = 6
NODES = 5
FEATURES = 2
HORIZON = 3
HIDDEN = 8
EXOG = 3

# Inputs are written as a spec: space-separated names of ``_tensors()``; a bare name is positional, ``key=name``
# a keyword, ``key=:value`` a keyword with a Python literal (a flag).
# Model name -> (class under ``tsl.nn.models``, keywords, inputs).
MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ARModel": ("ARModel", {"input_size": FEATURES, "temporal_order": 3, "output_size": FEATURES,
                            "horizon": HORIZON}, "x"),
    "ARModel.exog": ("ARModel", {"input_size": FEATURES, "temporal_order": 3, "output_size": FEATURES,
                                 "horizon": HORIZON, "exog_size": EXOG}, "x u=u4"),
    "VARModel": ("VARModel", {"input_size": FEATURES, "temporal_order": 2, "output_size": FEATURES,
                              "horizon": HORIZON, "n_nodes": NODES}, "x"),
    "VARModel.exog_nodes": ("VARModel", {"input_size": FEATURES, "temporal_order": 2, "output_size": FEATURES,
                                         "horizon": HORIZON, "n_nodes": NODES, "exog_size": EXOG * NODES},
                            "x u=u4"),
    "RNNModel.gru": ("RNNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                  "hidden_size": HIDDEN, "ff_size": HIDDEN}, "x"),
    "RNNModel.lstm.exog_graph": ("RNNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                              "hidden_size": HIDDEN, "ff_size": HIDDEN, "exog_size": EXOG,
                                              "cell_type": "lstm", "rec_layers": 2, "ff_layers": 2}, "x u=u3"),
    "FCRNNModel": ("FCRNNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                  "n_nodes": NODES, "hidden_size": HIDDEN, "ff_size": HIDDEN}, "x"),
    "TCNModel": ("TCNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                              "hidden_size": HIDDEN, "ff_size": HIDDEN, "n_layers": 2}, "x"),
    "TCNModel.gated.exog.layer_norm": ("TCNModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                    "horizon": HORIZON, "exog_size": EXOG, "hidden_size": HIDDEN,
                                                    "ff_size": HIDDEN, "n_layers": 2, "gated": True,
                                                    "norm": "layer", "resnet": False, "readout_kernel_size": 2},
                                       "x u=u3"),
    "TransformerModel.time": ("TransformerModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                   "horizon": HORIZON, "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                                   "n_heads": 2}, "x"),
    "TransformerModel.both.exog": ("TransformerModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                        "horizon": HORIZON, "exog_size": EXOG,
                                                        "hidden_size": HIDDEN, "ff_size": HIDDEN, "n_heads": 2,
                                                        "n_layers": 2, "axis": "both"}, "x u=u4"),
    "STIDModel.exog_last": ("STIDModel", {"input_size": FEATURES, "n_nodes": NODES, "window": STEPS,
                                          "horizon": HORIZON, "n_exog_emb": [24, 7], "hidden_size": HIDDEN,
                                          "n_layers": 2}, "x u=time_index2"),
    "STIDModel.exog_window": ("STIDModel", {"input_size": FEATURES, "n_nodes": NODES, "window": STEPS,
                                            "horizon": HORIZON, "n_exog_emb": 24, "hidden_size": HIDDEN},
                              "x u=time_index3"),
    "RNNImputerModel": ("RNNImputerModel", {"input_size": FEATURES, "hidden_size": HIDDEN}, "x mask"),
    "RNNImputerModel.exog.hidden": ("RNNImputerModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                             "exog_size": EXOG, "n_layers": 2,
                                                             "detach_input": True, "cat_states_layers": True},
                                         "x mask u=u3 return_hidden=:True"),
    "RNNImputerModel.fully_connected": ("RNNImputerModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                            "fully_connected": True, "n_nodes": NODES,
                                                            "exog_size": EXOG}, "x mask u=u3"),
    "BiRNNImputerModel": ("BiRNNImputerModel", {"input_size": FEATURES, "hidden_size": HIDDEN}, "x mask"),
    "BiRNNImputerModel.exog.hidden": ("BiRNNImputerModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                            "exog_size": EXOG, "n_layers": 2,
                                                            "cat_states_layers": True, "dropout": 0.1},
                                      "x mask u=u4 return_hidden=:True"),
    "BiRNNImputerModel.fully_connected.predict": ("BiRNNImputerModel", {"input_size": FEATURES,
                                                                        "hidden_size": HIDDEN,
                                                                        "fully_connected": True, "n_nodes": NODES},
                                                  "predict: x mask"),
    "DCRNNModel": ("DCRNNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                  "hidden_size": HIDDEN, "ff_size": HIDDEN}, "x ei ew"),
    "DCRNNModel.exog.k3.cache_support": ("DCRNNModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                        "horizon": HORIZON, "exog_size": EXOG, "hidden_size": HIDDEN,
                                                        "ff_size": HIDDEN, "kernel_size": 3, "n_layers": 2,
                                                        "cache_support": True}, "x ei ew u=u3"),
    "GraphWaveNetModel": ("GraphWaveNetModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                "horizon": HORIZON, "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                                "n_layers": 2, "n_nodes": NODES, "emb_size": 4}, "x ei ew"),
    "GraphWaveNetModel.static_graph.exog": ("GraphWaveNetModel", {"input_size": FEATURES, "output_size": FEATURES,
                                                                  "horizon": HORIZON, "exog_size": EXOG,
                                                                  "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                                                  "n_layers": 4, "learned_adjacency": False,
                                                                  "norm": "layer"}, "x ei u=u3"),
    "GatedGraphNetworkModel.full_graph": ("GatedGraphNetworkModel", {"input_size": FEATURES,
                                                                     "input_window_size": 4, "horizon": HORIZON,
                                                                     "n_nodes": NODES, "hidden_size": HIDDEN}, "x"),
    "GatedGraphNetworkModel.edge_index.exog": ("GatedGraphNetworkModel", {"input_size": FEATURES,
                                                                          "input_window_size": STEPS,
                                                                          "horizon": HORIZON, "n_nodes": NODES,
                                                                          "hidden_size": HIDDEN, "exog_size": EXOG,
                                                                          "enc_layers": 2, "gnn_layers": 2,
                                                                          "full_graph": False}, "x ei u=u4"),
    "RNNEncGCNDecModel": ("RNNEncGCNDecModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                "output_size": FEATURES, "exog_size": 0, "rnn_layers": 1,
                                                "gcn_layers": 2, "rnn_dropout": 0.0, "gcn_dropout": 0.1,
                                                "horizon": HORIZON}, "x ei ew"),
    "RNNEncGCNDecModel.lstm.exog": ("RNNEncGCNDecModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                          "output_size": FEATURES, "exog_size": EXOG,
                                                          "rnn_layers": 2, "gcn_layers": 1, "rnn_dropout": 0.0,
                                                          "gcn_dropout": 0.0, "horizon": HORIZON,
                                                          "cell_type": "lstm"}, "x ei ew u=u3"),
    "STCNModel": ("STCNModel", {"input_size": FEATURES, "exog_size": 0, "hidden_size": HIDDEN,
                                "ff_size": HIDDEN, "output_size": FEATURES, "n_layers": 1, "horizon": HORIZON,
                                "temporal_kernel_size": 2, "spatial_kernel_size": 2}, "x ei ew"),
    "STCNModel.gated.exog.batch_norm": ("STCNModel", {"input_size": FEATURES, "exog_size": EXOG,
                                                      "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                                      "output_size": FEATURES, "n_layers": 2, "horizon": HORIZON,
                                                      "temporal_kernel_size": 3, "spatial_kernel_size": 1,
                                                      "dilation": 2, "norm": "batch", "gated": True},
                                         "x ei u=u4"),
    "EvolveGCNModel.H": ("EvolveGCNModel", {"input_size": FEATURES, "hidden_size": 4,
                                            "output_size": FEATURES, "horizon": HORIZON, "exog_size": 0,
                                            "n_layers": 1, "norm": "mean", "root_weight": False, "cached": False,
                                            "variant": "H"}, "x ei ew"),
    "EvolveGCNModel.O.exog": ("EvolveGCNModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                 "output_size": FEATURES, "horizon": HORIZON, "exog_size": EXOG,
                                                 "n_layers": 2, "norm": "asym", "root_weight": True,
                                                 "cached": False, "variant": "O"}, "x ei ew u=u4"),
    "GRUGCNModel": ("GRUGCNModel", {"input_size": FEATURES, "hidden_size": HIDDEN, "output_size": FEATURES,
                                    "horizon": HORIZON, "exog_size": 0, "enc_layers": 1, "gcn_layers": 2},
                    "x ei ew"),
    "GRUGCNModel.exog.sym_norm": ("GRUGCNModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                  "output_size": FEATURES, "horizon": HORIZON, "exog_size": EXOG,
                                                  "enc_layers": 2, "gcn_layers": 1, "norm": "sym"},
                                  "x ei u=u4"),
    "AGCRNModel": ("AGCRNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                  "n_nodes": NODES, "hidden_size": HIDDEN, "emb_size": 4}, "x"),
    "AGCRNModel.exog.layers2": ("AGCRNModel", {"input_size": FEATURES, "output_size": FEATURES, "horizon": HORIZON,
                                               "n_nodes": NODES, "hidden_size": HIDDEN, "emb_size": 4,
                                               "exog_size": EXOG, "n_layers": 2}, "x u=u4"),
    "GRINModel.mlp": ("GRINModel", {"input_size": FEATURES, "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                    "embedding_size": 4, "n_nodes": NODES}, "x ei ew mask=maskf"),
    "GRINModel.mean.exog.layer_norm": ("GRINModel", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                     "ff_size": HIDDEN, "exog_size": EXOG, "n_layers": 2,
                                                     "layer_norm": True, "decoder_order": 2, "merge_mode": "mean"},
                                       "x ei ew mask=maskf u=u4"),
    "GRINModel.predict": ("GRINModel", {"input_size": FEATURES, "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                        "embedding_size": 4, "n_nodes": NODES, "kernel_size": 1},
                          "predict: x ei mask=maskf"),
    "SPINModel": ("SPINModel", {"input_size": FEATURES, "hidden_size": HIDDEN, "n_nodes": NODES,
                                "exog_size": EXOG, "n_layers": 2, "eta": 1}, "x u4 maskn ei"),
    "SPINModel.no_tsa.l1": ("SPINModel", {"input_size": FEATURES, "hidden_size": HIDDEN, "n_nodes": NODES,
                                          "exog_size": EXOG, "n_layers": 2, "eta": 1,
                                          "temporal_self_attention": False, "reweigh": "l1"},
                            "predict: x u4 maskn ei"),
    "SPINHierarchicalModel": ("SPINHierarchicalModel", {"input_size": FEATURES, "h_size": HIDDEN, "z_size": HIDDEN,
                                                        "n_nodes": NODES, "exog_size": EXOG, "n_layers": 2,
                                                        "eta": 1, "z_heads": 2}, "x u4 maskn ei"),
}

# Layer or block name -> (``module:Class`` under ``tsl.nn``, keywords, inputs).
LAYERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "GraphConv.mean": ("layers.graph_convs:GraphConv", {"input_size": HIDDEN, "output_size": HIDDEN}, "xh ei ew"),
    "GraphConv.sym.no_root.activation": ("layers.graph_convs:GraphConv", {"input_size": HIDDEN, "output_size": 4,
                                                                         "norm": "sym", "root_weight": False,
                                                                         "activation": "relu"}, "xs ei"),
    "GraphConv.asym.cached": ("layers.graph_convs:GraphConv", {"input_size": HIDDEN, "output_size": HIDDEN,
                                                              "norm": "asym", "cached": True}, "xh ei ew"),
    "GraphConv.none": ("layers.graph_convs:GraphConv", {"input_size": HIDDEN, "output_size": HIDDEN,
                                                       "norm": "none", "bias": False}, "xs ei ew"),
    "DiffConv": ("layers.graph_convs:DiffConv", {"in_channels": HIDDEN, "out_channels": HIDDEN, "k": 2},
                 "xh ei ew"),
    "DiffConv.forward_only.activation": ("layers.graph_convs:DiffConv", {"in_channels": HIDDEN, "out_channels": 4,
                                                                        "k": 3, "add_backward": False,
                                                                        "root_weight": False,
                                                                        "activation": "tanh"}, "xs ei"),
    "GATConv": ("layers.graph_convs:GATConv", {"in_channels": HIDDEN, "out_channels": 4, "heads": 2},
                "xh ei"),
    "GATConv.edge_attr.mean_heads.weights": ("layers.graph_convs:GATConv", {"in_channels": HIDDEN,
                                                                           "out_channels": 4, "heads": 2,
                                                                           "concat": False, "edge_dim": 2,
                                                                           "dropout": 0.1},
                                             "xs ei edge_attr=ea need_weights=:True"),
    "GATConv.no_self_loops": ("layers.graph_convs:GATConv", {"in_channels": HIDDEN, "out_channels": 4,
                                                            "add_self_loops": False}, "xh ei"),
    "GatedGraphNetwork": ("layers.graph_convs:GatedGraphNetwork", {"input_size": HIDDEN, "output_size": HIDDEN},
                          "xs ei"),
    "GatedGraphNetwork.skip": ("layers.graph_convs:GatedGraphNetwork", {"input_size": HIDDEN, "output_size": 4,
                                                                        "parametrized_skip_conn": True,
                                                                        "activation": "relu"}, "xh ei"),
    "GraphPolyVAR": ("layers.graph_convs:GraphPolyVAR", {"temporal_order": 3, "spatial_order": 2, "norm": "mean"},
                     "x1 ei ew"),
    "MultiHeadGraphAttention": ("layers.graph_convs:MultiHeadGraphAttention", {"embed_dim": HIDDEN,
                                                                               "num_heads": 2},
                                "xs xs xs ei"),
    "MultiHeadGraphAttention.edge_attr.mean": ("layers.graph_convs:MultiHeadGraphAttention",
                                               {"embed_dim": HIDDEN, "num_heads": 2, "edge_dim": 2,
                                                "concat": False, "root_weight": False, "dropout": 0.1},
                                               "xh xh xh ei edge_attr=ea return_attention_weights=:True"),
    "DenseGraphConvOrderK": ("layers.graph_convs:DenseGraphConvOrderK", {"input_size": HIDDEN, "output_size": 4,
                                                                         "support_len": 2, "order": 2},
                             "xc supports"),
    "DenseGraphConvOrderK.channel_last": ("layers.graph_convs:DenseGraphConvOrderK",
                                          {"input_size": HIDDEN, "output_size": 4, "support_len": 1, "order": 3,
                                           "include_self": False, "channel_last": True}, "xh adj"),
    "AdaptiveGraphConv": ("layers.graph_convs:AdaptiveGraphConv", {"input_size": HIDDEN, "emb_size": 4,
                                                                   "output_size": 4, "num_nodes": NODES},
                          "xs emb"),
    "SpatiotemporalCrossAttention": ("layers.graph_convs:SpatiotemporalCrossAttention",
                                     {"input_size": HIDDEN, "output_size": HIDDEN, "reweigh": "softmax"},
                                     "xh ei mask=maskh"),
    "SpatiotemporalCrossAttention.no_tsa.no_norm": ("layers.graph_convs:SpatiotemporalCrossAttention",
                                                    {"input_size": HIDDEN, "output_size": HIDDEN,
                                                     "temporal_self_attention": False, "norm": False,
                                                     "mask_spatial": False, "root_weight": False}, "xh ei ew"),
    "MultiHeadAttention.time.causal": ("layers.base:MultiHeadAttention", {"embed_dim": HIDDEN, "heads": 2,
                                                                          "causal": True}, "xh"),
    "MultiHeadAttention.nodes.kdim": ("layers.base:MultiHeadAttention", {"embed_dim": HIDDEN, "heads": 2,
                                                                         "axis": "nodes", "qdim": 4, "kdim": EXOG,
                                                                         "vdim": EXOG}, "xq u4 u4"),
    "TemporalSelfAttention": ("layers.base:TemporalSelfAttention", {"embed_dim": HIDDEN, "num_heads": 2,
                                                                    "in_channels": FEATURES}, "x"),
    "SpatialSelfAttention": ("layers.base:SpatialSelfAttention", {"embed_dim": HIDDEN, "num_heads": 2}, "xh"),
    "AttentionEncoder.positional": ("layers.base:AttentionEncoder", {"embed_dim": 4, "qdim": HIDDEN, "kdim": HIDDEN,
                                                                     "vdim": HIDDEN, "add_positional_encoding": True,
                                                                     "activation": "relu"}, "xh"),
    "PositionalEncoding.affinity": ("layers.base:PositionalEncoding", {"d_model": HIDDEN, "max_len": 20,
                                                                       "affinity": True, "dropout": 0.1}, "xh"),
    "TemporalConv.causal": ("layers.base:TemporalConv", {"input_channels": HIDDEN, "output_channels": 4,
                                                         "kernel_size": 3, "dilation": 2, "channel_last": True},
                            "xh"),
    "GatedTemporalConv.weight_norm": ("layers.base:GatedTemporalConv", {"input_channels": HIDDEN,
                                                                        "output_channels": 4, "kernel_size": 2,
                                                                        "weight_norm": True, "channel_last": True},
                                      "xh"),
    "NodeEmbedding.expand.index": ("layers.base:NodeEmbedding", {"n_nodes": NODES, "emb_size": 4},
                                   "expand=:(2,6,-1,-1) node_index=node_index"),
    "Dense": ("layers.base:Dense", {"input_size": HIDDEN, "output_size": 4, "activation": "gelu",
                                    "dropout": 0.1}, "xh"),
    "MultiLinear": ("layers.multi:MultiLinear", {"in_channels": HIDDEN, "out_channels": 4, "n_instances": NODES},
                    "xh"),
    "MultiLinear.pattern": ("layers.multi:MultiLinear", {"in_channels": HIDDEN, "out_channels": 4,
                                                         "n_instances": STEPS, "pattern": "b t n f",
                                                         "instance_dim": "t"}, "xh"),
    "MultiDense": ("layers.multi:MultiDense", {"in_channels": HIDDEN, "out_channels": 4, "n_instances": NODES,
                                               "activation": "tanh"}, "xs"),
    "MultiConv1d": ("layers.multi:MultiConv1d", {"in_channels": HIDDEN, "out_channels": 4, "n_instances": NODES,
                                                 "kernel_size": 2}, "xh"),
    "Norm.batch": ("layers.norm:Norm", {"norm_type": "batch", "in_channels": HIDDEN}, "xh"),
    "Norm.instance": ("layers.norm:Norm", {"norm_type": "instance", "in_channels": HIDDEN}, "xh"),
    "LayerNorm": ("layers.norm:LayerNorm", {"in_channels": HIDDEN}, "xh"),
    "GraphConvRNN.gru": ("blocks.encoders:GraphConvRNN", {"input_size": HIDDEN, "hidden_size": HIDDEN},
                         "xh ei ew"),
    "GraphConvRNN.lstm.cat_states.last": ("blocks.encoders:GraphConvRNN", {"input_size": HIDDEN,
                                                                           "hidden_size": HIDDEN, "n_layers": 2,
                                                                           "cell": "lstm",
                                                                           "cat_states_layers": True,
                                                                           "return_only_last_state": True},
                                          "xh ei ew"),
    "DCRNN": ("blocks.encoders:DCRNN", {"input_size": HIDDEN, "hidden_size": HIDDEN, "k": 2}, "xh ei ew"),
    "DenseDCRNN": ("blocks.encoders:DenseDCRNN", {"input_size": HIDDEN, "hidden_size": HIDDEN, "n_layers": 2},
                   "xh adj"),
    "AGCRN": ("blocks.encoders:AGCRN", {"input_size": HIDDEN, "emb_size": 4, "hidden_size": HIDDEN,
                                        "num_nodes": NODES}, "xh"),
    "EvolveGCN.H": ("blocks.encoders:EvolveGCN", {"input_size": 4, "hidden_size": 4, "n_layers": 1,
                                                  "norm": "mean", "variant": "H"}, "xq ei ew"),
    "EvolveGCN.O.cached": ("blocks.encoders:EvolveGCN", {"input_size": HIDDEN, "hidden_size": HIDDEN,
                                                         "n_layers": 2, "norm": "sym", "variant": "O",
                                                         "root_weight": True, "cached": True}, "xh ei"),
    "RNN.exog.readout": ("blocks.encoders:RNN", {"input_size": HIDDEN, "hidden_size": HIDDEN, "exog_size": EXOG,
                                                 "output_size": 4}, "xh u4"),
    "RNNI.unitary_mask.flip": ("blocks.encoders.recurrent:RNNI", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                                  "unitary_mask": True, "flip_time": True},
                               "xf maskb1"),
    "MultiRNN.gru": ("blocks.encoders:MultiRNN", {"input_size": HIDDEN, "hidden_size": 4, "n_instances": NODES},
                     "xh"),
    "MultiRNN.lstm.last": ("blocks.encoders:MultiRNN", {"input_size": HIDDEN, "hidden_size": 4,
                                                        "n_instances": NODES, "cell": "lstm", "n_layers": 2,
                                                        "return_only_last_state": True}, "xh"),
    "MLP.exog": ("blocks.encoders:MLP", {"input_size": HIDDEN, "hidden_size": HIDDEN, "output_size": 4,
                                         "exog_size": EXOG, "n_layers": 2, "dropout": 0.1}, "xh u4"),
    "ResidualMLP.parametrized_skip": ("blocks.encoders:ResidualMLP", {"input_size": HIDDEN, "hidden_size": 4,
                                                                      "output_size": 4, "n_layers": 2,
                                                                      "parametrized_skip": True}, "xh"),
    "MultiMLP": ("blocks.encoders:MultiMLP", {"input_size": HIDDEN, "hidden_size": 4, "n_instances": NODES,
                                              "output_size": 2, "exog_size": EXOG}, "xh u4"),
    "ConditionalBlock.skip": ("blocks.encoders:ConditionalBlock", {"input_size": HIDDEN, "exog_size": EXOG,
                                                                   "output_size": HIDDEN,
                                                                   "skip_connection": True}, "xh u4"),
    "ConditionalTCNBlock": ("blocks.encoders:ConditionalTCNBlock", {"input_size": HIDDEN, "exog_size": EXOG,
                                                                    "output_size": HIDDEN, "kernel_size": 2,
                                                                    "gated": True, "skip_connection": True},
                            "xh u4"),
    "TemporalConvNet.exog.exponential": ("blocks.encoders:TemporalConvNet", {"input_channels": HIDDEN,
                                                                             "hidden_channels": HIDDEN,
                                                                             "kernel_size": 2, "dilation": 2,
                                                                             "exog_channels": EXOG,
                                                                             "output_channels": 4, "n_layers": 2,
                                                                             "exponential_dilation": True,
                                                                             "gated": True}, "xh u4"),
    "SpatioTemporalConvNet.layer_norm": ("blocks.encoders:SpatioTemporalConvNet", {"input_size": HIDDEN,
                                                                                   "output_size": HIDDEN,
                                                                                   "temporal_kernel_size": 2,
                                                                                   "spatial_kernel_size": 2,
                                                                                   "norm": "layer"}, "xh ei ew"),
    "MLPAttention.softmax.mask": ("blocks.encoders:MLPAttention", {"input_size": HIDDEN, "output_size": HIDDEN,
                                                                   "reweigh": "softmax"}, "xh ei mask=maskh"),
    "MLPAttention.l1": ("blocks.encoders:MLPAttention", {"input_size": HIDDEN, "output_size": 4, "reweigh": "l1",
                                                         "norm": False, "msg_layers": 2}, "xh ei"),
    "TemporalMLPAttention.temporal_mask": ("blocks.encoders:TemporalMLPAttention", {"input_size": HIDDEN,
                                                                             "output_size": HIDDEN,
                                                                             "reweigh": "softmax"},
                                    "xh temporal_mask=tril"),
    "TransformerLayer.time": ("blocks.encoders:TransformerLayer", {"input_size": HIDDEN, "hidden_size": HIDDEN,
                                                                   "ff_size": HIDDEN, "n_heads": 2}, "xh"),
    "TransformerLayer.nodes.mask": ("blocks.encoders:TransformerLayer", {"input_size": FEATURES,
                                                                         "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                                                         "n_heads": 2, "axis": "nodes",
                                                                         "causal": False},
                                    "x mask=node_attn"),
    "SpatioTemporalTransformerLayer": ("blocks.encoders:SpatioTemporalTransformerLayer",
                                       {"input_size": HIDDEN, "hidden_size": HIDDEN, "ff_size": HIDDEN,
                                        "n_heads": 2}, "xh"),
    "Transformer.both": ("blocks.encoders:Transformer", {"input_size": FEATURES, "hidden_size": HIDDEN,
                                                         "output_size": 4, "n_layers": 2, "axis": "both"}, "x"),
    "MLPDecoder.receptive_field": ("blocks.decoders:MLPDecoder", {"input_size": HIDDEN, "hidden_size": HIDDEN,
                                                                  "output_size": FEATURES, "horizon": HORIZON,
                                                                  "receptive_field": 2, "n_layers": 2}, "xh"),
    "MultiHorizonMLPDecoder": ("blocks.decoders:MultiHorizonMLPDecoder", {"input_size": HIDDEN,
                                                                          "exog_size": EXOG,
                                                                          "hidden_size": HIDDEN,
                                                                          "context_size": 4,
                                                                          "output_size": FEATURES,
                                                                          "n_layers": 2, "horizon": HORIZON},
                               "xh uh"),
    "GCNDecoder": ("blocks.decoders:GCNDecoder", {"input_size": HIDDEN, "hidden_size": HIDDEN,
                                                  "output_size": FEATURES, "horizon": HORIZON, "n_layers": 2},
                   "xs ei ew"),
    "LinearReadout": ("blocks.decoders:LinearReadout", {"input_size": HIDDEN, "output_size": FEATURES,
                                                        "horizon": HORIZON}, "xs"),
    "AttPool": ("blocks.decoders:AttPool", {"input_size": HIDDEN, "dim": 1}, "xh"),
    "LinkPredictor": ("layers.base.link_predictor:LinkPredictor", {"emb_size": HIDDEN, "ff_size": HIDDEN,
                                                                   "hidden_size": 4}, "xs"),
}

# Function or metric name -> what it is (``_calls`` builds it).
CALLS = (
    "functional.sparse_softmax", "functional.sparse_softmax.ptr", "functional.sparse_multi_head_attention",
    "functional.expand_then_cat", "functional.gated_tanh",
    "connectivity.asymmetric_norm", "connectivity.normalize_connectivity.sym", "connectivity.transpose",
    "connectivity.weighted_degree", "connectivity.edge_index_to_adj", "connectivity.adj_to_edge_index",
    "connectivity.reduce_graph", "GradNorm.apply",
    "metrics.mae", "metrics.mae.mask", "metrics.nmae", "metrics.mape.mask", "metrics.mse.nan_to_zero",
    "metrics.rmse.mask", "metrics.nrmse", "metrics.nrmse_2", "metrics.r2.mask", "metrics.mre",
    "metrics.pinball_loss", "metrics.multi_quantile_pinball_loss",
    "MaskedMAE", "MaskedMAE.mask", "MaskedMAE.mask_nans", "MaskedMSE.at", "MaskedMAPE", "MaskedSMAPE", "MaskedMRE",
    "convert_to_masked_metric",
)

# Train step name -> (model name in ``MODELS``, loss: a ``tsl.metrics.torch`` class or function name).
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.RNNModel.MaskedMAE": ("RNNModel.gru", "MaskedMAE"),
    "train_step.TCNModel.MaskedMSE": ("TCNModel", "MaskedMSE"),
    "train_step.TransformerModel.mae": ("TransformerModel.time", "mae"),
    "train_step.STIDModel.MaskedMAE": ("STIDModel.exog_last", "MaskedMAE"),
    "train_step.DCRNNModel.MaskedMAE": ("DCRNNModel", "MaskedMAE"),
    "train_step.GraphWaveNetModel.mae": ("GraphWaveNetModel", "mae"),
    "train_step.STCNModel.MaskedMAPE": ("STCNModel", "MaskedMAPE"),
    "train_step.AGCRNModel.mse": ("AGCRNModel", "mse"),
    "train_step.EvolveGCNModel.MaskedMAE": ("EvolveGCNModel.H", "MaskedMAE"),
    "train_step.GatedGraphNetworkModel.MaskedMSE": ("GatedGraphNetworkModel.full_graph", "MaskedMSE"),
    "train_step.RNNImputerModel.MaskedMAE": ("RNNImputerModel", "MaskedMAE"),
    "train_step.BiRNNImputerModel.mae": ("BiRNNImputerModel", "mae"),
    "train_step.GRINModel.MaskedMAE": ("GRINModel.mlp", "MaskedMAE"),
    "train_step.SPINModel.mae": ("SPINModel", "mae"),
    "train_step.SPINHierarchicalModel.MaskedMAE": ("SPINHierarchicalModel", "MaskedMAE"),
}
IMPUTERS = ("RNNImputerModel", "BiRNNImputerModel", "GRINModel", "SPINModel", "SPINHierarchicalModel")


def names() -> list[str]:
    return list(MODELS) + list(LAYERS) + list(CALLS) + list(TRAIN)


def before_import() -> None:
    """Stand-ins for ``torch_scatter`` and ``torch_sparse`` (no build for the bench's torch), put in place once
    ``torch_geometric.typing`` has found them absent, so that PyG keeps its own pure-torch paths."""
    import sys
    import types

    if "torch_scatter" in sys.modules and "torch_sparse" in sys.modules:
        return
    import torch
    import torch_geometric.typing as pyg_typing

    def broadcast(src: torch.Tensor, other: torch.Tensor, dim: int) -> torch.Tensor:
        if dim < 0:
            dim = other.dim() + dim
        if src.dim() == 1:
            for _ in range(dim):
                src = src.unsqueeze(0)
        for _ in range(src.dim(), other.dim()):
            src = src.unsqueeze(-1)
        return src.expand(other.size())

    def scatter(src: torch.Tensor, index: torch.Tensor, dim: int = -1, out: torch.Tensor | None = None,
                dim_size: int | None = None, reduce: str = "sum") -> torch.Tensor:
        dim = dim + src.dim() if dim < 0 else dim
        index = broadcast(index, src, dim)
        size = list(src.size())
        if out is not None:
            size[dim] = out.size(dim)
        else:
            size[dim] = dim_size if dim_size is not None else int(index.max()) + 1
        base = out if out is not None else src.new_zeros(size)
        if reduce in ("sum", "add"):
            return base.scatter_add(dim, index, src)
        mode = {"mean": "mean", "max": "amax", "min": "amin", "mul": "prod"}[reduce]
        return base.scatter_reduce(dim, index, src, reduce=mode, include_self=False)

    def segment_csr(src: torch.Tensor, indptr: torch.Tensor, out: torch.Tensor | None = None,
                    reduce: str = "sum") -> torch.Tensor:
        return torch.segment_reduce(src, reduce, offsets=indptr, axis=indptr.dim() - 1)

    def gather_csr(src: torch.Tensor, indptr: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        return src.repeat_interleave(indptr.diff(), dim=indptr.dim() - 1)

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("torch_sparse stand-in: sparse tensors are not used by the bench's models")

    scatter_module = types.ModuleType("torch_scatter")
    scatter_utils = types.ModuleType("torch_scatter.utils")
    scatter_utils.broadcast = broadcast  # type: ignore[attr-defined]
    for name, value in {"scatter": scatter, "segment_csr": segment_csr, "gather_csr": gather_csr,
                        "utils": scatter_utils}.items():
        setattr(scatter_module, name, value)
    sparse_module = types.ModuleType("torch_sparse")
    sparse_module.SparseTensor = pyg_typing.SparseTensor  # type: ignore[attr-defined]
    for name in ("matmul", "cat", "fill_diag", "set_diag", "remove_diag"):
        setattr(sparse_module, name, unreachable)
    sys.modules.setdefault("torch_scatter", scatter_module)
    sys.modules.setdefault("torch_scatter.utils", scatter_utils)
    sys.modules.setdefault("torch_sparse", sparse_module)
    # tsl scripts its sparse softmax and attention (``torch.jit.script``), which compiles these stand-ins from this
    # file's source: done here, once, in the model server before it forks, not again in each child.
    import tsl.nn.functional  # noqa: F401


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tensors() -> dict[str, Any]:
    """The named inputs the specs refer to, made afresh from fixed seeds."""
    import torch

    ring = [(i, (i + 1) % NODES) for i in range(NODES)]
    edges = ring + [(j, i) for i, j in ring] + [(0, 2), (3, 1)]
    edge_index = torch.tensor(edges, dtype=torch.long).T.contiguous()
    generator = torch.Generator().manual_seed(7)
    mask = torch.rand(BATCH, STEPS, NODES, FEATURES, generator=generator) > 0.3
    adj = torch.rand(NODES, NODES, generator=generator)
    adj = adj / adj.sum(-1, keepdim=True)
    x = _randn(BATCH, STEPS, NODES, FEATURES)
    return {
        "x": x,
        "xh": _randn(BATCH, STEPS, NODES, HIDDEN, seed=2),
        "xs": _randn(BATCH, NODES, HIDDEN, seed=3),
        "xq": _randn(BATCH, STEPS, NODES, 4, seed=4),
        "xc": _randn(BATCH, HIDDEN, NODES, STEPS, seed=5),
        "x1": _randn(BATCH, STEPS, NODES, 1, seed=6),
        "xf": _randn(BATCH * NODES, STEPS, FEATURES, seed=8),
        "ei": edge_index,
        "ew": torch.rand(edge_index.size(1), generator=generator) + 0.1,
        "ea": _randn(edge_index.size(1), 2, seed=9),
        "mask": mask,
        "maskf": mask.float(),
        "maskh": mask[..., :1],
        "maskn": mask[..., :1].float(),
        "maskb1": mask[..., :1].reshape(BATCH * NODES, STEPS, 1),
        "tril": torch.ones(STEPS, STEPS, dtype=torch.bool).tril(),
        "node_attn": torch.ones(NODES, NODES, dtype=torch.bool).triu(2),
        "u4": _randn(BATCH, STEPS, NODES, EXOG, seed=10),
        "u3": _randn(BATCH, STEPS, EXOG, seed=11),
        "uh": _randn(BATCH, HORIZON, NODES, EXOG, seed=12),
        "adj": adj,
        "supports": [adj, adj.T.contiguous()],
        "emb": _randn(NODES, 4, seed=13),
        "node_index": torch.tensor([0, 2, 4]),
        "time_index2": torch.stack([torch.randint(0, 24, (BATCH,), generator=generator),
                                    torch.randint(0, 7, (BATCH,), generator=generator)], -1),
        "time_index3": torch.randint(0, 24, (BATCH, STEPS, 1), generator=generator),
    }


def _inputs(spec: str) -> tuple[bool, tuple[Any, ...], dict[str, Any]]:
    """A spec's positional and keyword inputs, and whether it calls ``predict`` rather than ``forward``."""
    import ast

    predict = spec.startswith("predict:")
    tensors = _tensors()
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for token in spec.removeprefix("predict:").split():
        if "=" not in token:
            args.append(tensors[token])
            continue
        key, value = token.split("=", 1)
        kwargs[key] = ast.literal_eval(value[1:]) if value.startswith(":") else tensors[value]
    return predict, tuple(args), kwargs


def _class(path: str) -> Any:
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(f"tsl.nn.{module}"), name)


def _model(name: str) -> Any:
    import tsl.nn.models as models

    cls, keywords, _ = MODELS[name]
    return getattr(models, cls)(**keywords)


def _wrapped(module: Any, spec: str) -> Built:
    """``module`` with the spec's inputs: keywords bound by ``Keywords`` where the spec has tensor keywords, the
    ``predict`` method where the spec asks for it."""
    from gt_calls import Keywords, Method

    predict, args, kwargs = _inputs(spec)
    if predict:
        return Method(module, "predict", **kwargs), args, {}
    if kwargs:
        return Keywords(module, **kwargs), args, {}
    return module, args, {}


def _loss(kind: str) -> Any:
    import tsl.metrics.torch as metrics

    return getattr(metrics, kind)() if kind.startswith("Masked") else getattr(metrics, kind)


def _train(name: str) -> Built:
    from gt_calls import Run

    model_name, kind = TRAIN[name]
    model = _model(model_name)
    loss_fn = _loss(kind)
    predict, args, kwargs = _inputs(MODELS[model_name][2])
    imputer = MODELS[model_name][0] in IMPUTERS
    tensors = _tensors()
    mask = tensors["mask"]
    target = tensors["x"] if imputer else _randn(BATCH, HORIZON, NODES, FEATURES, seed=20)
    target_mask = mask if imputer else mask[:, :HORIZON]

    def step(owner: Any, *inputs: Any) -> Any:
        """tsl's training step: predictions (the first output of a model returning several), the masked loss
        against the target, and its gradients in train mode."""
        out = owner(*inputs, **kwargs)
        y_hat = out[0] if isinstance(out, (list, tuple)) else out
        loss = loss_fn(y_hat, target, target_mask)
        if owner.training:
            loss.backward()
        return loss.detach()

    entries = [type(model)] + ([type(loss_fn)] if kind.startswith("Masked") else [loss_fn])
    return Run(model, step, entries), args, {}


def _calls(name: str) -> Built:
    import torch
    import tsl.metrics.torch as metrics
    import tsl.nn.functional as functional
    import tsl.ops.connectivity as connectivity
    from tsl.nn.layers.ops import GradNorm

    from gt_calls import Call

    tensors = _tensors()
    ei, ew = tensors["ei"], tensors["ew"]
    y_hat = _randn(BATCH, HORIZON, NODES, FEATURES, seed=21)
    y = _randn(BATCH, HORIZON, NODES, FEATURES, seed=22).abs() + 0.5
    mask = tensors["mask"][:, :HORIZON]
    if name == "functional.sparse_softmax":
        src = _randn(BATCH, ei.size(1), 2, seed=23)
        return Call(functional.sparse_softmax, num_nodes=NODES, dim=1), (src, ei[1]), {}
    if name == "functional.sparse_softmax.ptr":
        index = ei[1].sort().values
        ptr = torch.cat([torch.zeros(1, dtype=torch.long), torch.bincount(index, minlength=NODES).cumsum(0)])
        return Call(functional.sparse_softmax, dim=0), (_randn(ei.size(1), 2, seed=23), None, ptr), {}
    if name == "functional.sparse_multi_head_attention":
        q, k, v = (_randn(ei.size(1), 2, 4, seed=s) for s in (24, 25, 26))
        return Call(functional.sparse_multi_head_attention, dim_size=NODES), (q, k, v, ei[1]), {}
    if name == "functional.expand_then_cat":
        return Call(functional.expand_then_cat, dim=-1), ([tensors["xh"], _randn(1, STEPS, 1, EXOG)],), {}
    if name == "functional.gated_tanh":
        return Call(functional.gated_tanh, dim=-1), (tensors["xh"],), {}
    if name == "connectivity.asymmetric_norm":
        return Call(connectivity.asymmetric_norm, dim=1, num_nodes=NODES, add_self_loops=True), (ei, ew), {}
    if name == "connectivity.normalize_connectivity.sym":
        return Call(connectivity.normalize_connectivity, norm="sym", num_nodes=NODES), (ei, ew), {}
    if name == "connectivity.transpose":
        return Call(connectivity.transpose), (ei, ew), {}
    if name == "connectivity.weighted_degree":
        return Call(connectivity.weighted_degree, num_nodes=NODES), (ei[1], ew), {}
    if name == "connectivity.edge_index_to_adj":
        return Call(connectivity.edge_index_to_adj, num_nodes=NODES), (ei, ew), {}
    if name == "connectivity.adj_to_edge_index":
        return Call(connectivity.adj_to_edge_index), (tensors["adj"] * (tensors["adj"] > 0.2),), {}
    if name == "connectivity.reduce_graph":
        return Call(connectivity.reduce_graph, num_nodes=NODES), (torch.tensor([0, 1, 3]), ei), {}
    if name == "GradNorm.apply":
        return Call(GradNorm.apply), (tensors["xh"], 2.0), {}
    if name.startswith("metrics."):
        _, function, *options = name.split(".")
        static: dict[str, Any] = {}
        args: tuple[Any, ...] = (y_hat, y)
        if "mask" in options:
            args = (y_hat, y, mask)
        if "nan_to_zero" in options:
            static["nan_to_zero"] = True
        if function == "pinball_loss":
            args = (y_hat, y, 0.3)
        if function == "multi_quantile_pinball_loss":
            args = (_randn(3, BATCH, HORIZON, NODES, FEATURES, seed=27), y, [0.1, 0.5, 0.9])
        return Call(getattr(metrics.functional, function), **static), args, {}
    if name == "MaskedMAE":
        return metrics.MaskedMAE(), (y_hat, y), {}
    if name == "MaskedMAE.mask":
        return metrics.MaskedMAE(), (y_hat, y, mask), {}
    if name == "MaskedMAE.mask_nans":
        y_nan = torch.where(mask, y, torch.full_like(y, float("nan")))
        return metrics.MaskedMAE(mask_nans=True, mask_inf=True), (y_hat, y_nan), {}
    if name == "MaskedMSE.at":
        return metrics.MaskedMSE(at=1), (y_hat, y, mask), {}
    if name == "convert_to_masked_metric":
        return metrics.convert_to_masked_metric(metrics.mse, mask_nans=True), (y_hat, y, mask), {}
    return getattr(metrics, name)(), (y_hat, y, mask), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    before_import()
    torch.manual_seed(0)
    if name in MODELS:
        return _wrapped(_model(name), MODELS[name][2])
    if name in LAYERS:
        path, keywords, spec = LAYERS[name]
        return _wrapped(_class(path)(**keywords), spec)
    if name in CALLS:
        return _calls(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

"""Ground-truth bench, the model catalogue: which real models are built, and how, at tiny sizes.

``catalog()`` names every model as ``library/name`` without importing torch, so the driver
(``groundtruth.py``) can filter and schedule them cheaply. ``build(model_id)`` runs inside a worker
process (``gt_worker.py``) and returns ``(module, args, kwargs)``: a freshly constructed model with
random weights (nothing is downloaded) and example inputs small enough for a CPU.

Libraries: ``diffusers`` (the eight factories of ``fixtures/diffusers/tiny_models.py`` plus a few
more configurations), ``timm`` (``timm.create_model(name, pretrained=False)`` at each model's own
input size), ``torch_geometric`` (layers, pooling, aggregations, norms and whole models on a small
random graph: the break-rich corpus), ``kornia`` (augmentations, filters, local features and its
functions: break-rich too) and ``monai`` (2-D networks, losses, metrics) have their tables here or in
``gt_<library>.py``. The libraries of ``BUILDER_MODULES`` (torchmetrics, x-transformers,
vector-quantize-pytorch, vit-pytorch, torchdiffeq, torchsde, Pyro, GPyTorch, e3nn, fair-esm, LitGPT,
the seven spent sealed halves and the eighth, sealed one: see ``sealed.toml``) each have one builder module with ``names()`` (no torch) and ``build(name)``. speechbrain, encodec
and torchaudio's models are absent: they need a torchaudio that the index lacks for torch 2.13.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]  # the checkout

# Each name is one architecture family's smallest variant that timm ships.
TIMM = (
    "resnet18", "resnet26d", "resnext26ts", "seresnext26d_32x4d", "regnetx_002", "regnety_002",
    "efficientnet_b0", "mobilenetv2_050", "mobilenetv3_small_050", "mobilenetv4_conv_small",
    "mnasnet_050", "ghostnet_050", "ghostnetv2_100", "densenet121", "dla34", "dpn48b",
    "hrnet_w18_small", "cspresnet50", "cspdarknet53", "ese_vovnet19b_dw", "rexnet_100", "lcnet_050",
    "fbnetc_100", "convnext_atto", "convnextv2_atto", "efficientformer_l1", "efficientformerv2_s0",
    "levit_128s", "mobilevit_xxs", "mobilevitv2_050", "edgenext_xx_small", "poolformer_s12",
    "inception_v3", "res2net50_14w_8s", "resnest14d", "selecsls42b", "skresnet18", "nf_resnet26",
    "repvgg_a0", "mobileone_s0", "fastvit_t8", "repvit_m1", "efficientvit_b0", "efficientvit_m0",
    "hgnet_tiny", "hgnetv2_b0", "inception_next_atto", "starnet_s050", "tiny_vit_5m_224",
    "vit_tiny_patch16_224", "deit_tiny_patch16_224", "eva02_tiny_patch14_224", "cait_xxs24_224",
    "xcit_nano_12_p16_224", "crossvit_tiny_240", "pit_ti_224", "twins_pcpvt_small", "pvt_v2_b0",
    "coat_tiny", "coatnet_nano_rw_224", "maxvit_nano_rw_256", "swin_tiny_patch4_window7_224",
    "swinv2_cr_tiny_ns_224", "focalnet_tiny_srf", "gcvit_xxtiny", "nest_tiny", "sequencer2d_s",
    "mixer_s32_224", "resmlp_12_224", "gmlp_ti16_224", "convit_tiny", "visformer_tiny",
    "volo_d1_224", "hiera_tiny_224", "davit_tiny", "mambaout_femto", "beit_base_patch16_224",
    "deit3_small_patch16_224", "ghostnet_100", "tresnet_m", "xception41", "nextvit_small",
)
# ViT-like models built with fewer blocks (tracing time grows with depth; the code is the same).
TIMM_KWARGS: dict[str, dict[str, Any]] = {
    "beit_base_patch16_224": {"depth": 2, "embed_dim": 64, "num_heads": 2},
    "deit3_small_patch16_224": {"depth": 2},
    "cait_xxs24_224": {"depth": 2},
    "xcit_nano_12_p16_224": {"depth": 2},
    "convit_tiny": {"depth": 3},
    "vit_tiny_patch16_224": {"depth": 2},
    "deit_tiny_patch16_224": {"depth": 2},
    "eva02_tiny_patch14_224": {"depth": 2},
}

DIFFUSERS_FIXTURE = ("unet_2d", "unet_2d_condition", "autoencoder_kl", "flux", "sd3", "pixart", "lumina2", "qwenimage")
DIFFUSERS_EXTRA = ("vq_model", "unet_1d", "autoencoder_tiny", "dit", "transformer_2d", "prior",
                   "unet_2d_condition_attn", "controlnet", "sana", "auraflow")

PYG = (
    "GCNConv", "GATConv", "GATv2Conv", "SAGEConv", "GINConv", "GINEConv", "GraphConv", "ChebConv",
    "TransformerConv", "TAGConv", "SGConv", "APPNP", "ARMAConv", "EdgeConv", "GENConv", "GeneralConv",
    "ResGatedGraphConv", "LEConv", "ClusterGCNConv", "FeaStConv", "PointNetConv", "GMMConv", "NNConv",
    "CGConv", "FiLMConv", "SuperGATConv", "FAConv", "EGConv", "PDNConv", "GatedGraphConv", "MFConv",
    "HypergraphConv", "LGConv", "SSGConv", "PointTransformerConv", "SimpleConv", "AntiSymmetricConv",
    "MixHopConv", "RGCNConv", "FastRGCNConv", "RGATConv", "PNAConv", "GCN2Conv", "AGNNConv", "DNAConv",
    "GPSConv", "WLConvContinuous", "SignedConv",
    "GCN", "GraphSAGE", "GIN", "GAT", "PNA", "EdgeCNN", "GraphUNet", "AttentiveFP", "LINKX", "PMLP",
    "LabelPropagation", "DeepGCNLayer", "JumpingKnowledge", "GAE", "MLP", "RECT_L", "LightGCN",
    "TopKPooling", "SAGPooling", "EdgePooling", "ASAPooling", "MemPooling",
    "global_pools", "SoftmaxAggregation", "PowerMeanAggregation", "MultiAggregation", "Set2Set",
    "AttentionalAggregation", "SortAggregation", "GRUAggregation", "LSTMAggregation",
    "SetTransformerAggregation", "GraphMultisetTransformer", "MLPAggregation", "VarAggregation",
    "BatchNorm", "LayerNorm", "GraphNorm", "InstanceNorm", "PairNorm", "DiffGroupNorm", "MessageNorm",
    "GraphSizeNorm", "MeanSubtractionNorm",
    "utils.to_dense_batch", "utils.to_dense_adj", "utils.dense_to_sparse", "utils.dropout_edge",
    "utils.dropout_node", "utils.subgraph", "utils.k_hop_subgraph", "utils.remove_self_loops",
    "utils.add_remaining_self_loops", "utils.segregate_self_loops", "utils.coalesce", "utils.sort_edge_index",
    "utils.to_undirected", "utils.is_undirected", "utils.contains_isolated_nodes", "utils.remove_isolated_nodes",
    "utils.get_laplacian", "utils.softmax", "utils.degree", "utils.unbatch", "utils.unbatch_edge_index",
    "utils.one_hot", "utils.homophily", "utils.mask_feature", "utils.add_random_edge", "utils.negative_sampling",
    "utils.batched_negative_sampling", "utils.structured_negative_sampling", "utils.shuffle_node",
    "utils.index_to_mask", "utils.mask_to_index", "utils.normalized_cut", "utils.scatter_max",
    "utils.group_argsort", "utils.cumsum",
)


# Libraries whose builder module has ``names()`` (no torch) and ``build(name)``: import name -> module.
BUILDER_MODULES: dict[str, str] = {
    "torchmetrics": "gt_torchmetrics",
    "x_transformers": "gt_xtransformers",
    "vector_quantize_pytorch": "gt_vq",
    "vit_pytorch": "gt_vit",
    "torchdiffeq": "gt_torchdiffeq",
    "torchsde": "gt_torchsde",
    "pyro": "gt_pyro",
    "gpytorch": "gt_gpytorch",
    "e3nn": "gt_e3nn",
    "esm": "gt_esm",
    "litgpt": "gt_litgpt",
    # The second sealed half, spent at 2df6658: built after it was picked, never scored before its end.
    "pytorch_metric_learning": "gt_pml",
    "lightly": "gt_lightly",
    "zuko": "gt_zuko",
    "nflows": "gt_nflows",
    "torchcde": "gt_torchcde",
    "torchtune": "gt_torchtune",
    "open_clip": "gt_open_clip",
    "pytorch_forecasting": "gt_forecasting",
    # The third sealed half, spent at b7b1b8e: built after it was picked, never scored before its end.
    "neuralforecast": "gt_neuralforecast",
    "pytorch_tabnet": "gt_tabnet",
    "pykeen": "gt_pykeen",
    "normflows": "gt_normflows",
    "denoising_diffusion_pytorch": "gt_ddpm",
    "piq": "gt_piq",
    "nnAudio": "gt_nnaudio",
    "auraloss": "gt_auraloss",
    # The fourth sealed half, spent at d76c0a3: built after it was picked, never scored before its end.
    "sbi": "gt_sbi",
    "botorch": "gt_botorch",
    "geoopt": "gt_geoopt",
    "torchdyn": "gt_torchdyn",
    "torchode": "gt_torchode",
    "flow_matching": "gt_flow_matching",
    "deepxde": "gt_deepxde",
    "torchquad": "gt_torchquad",
    "torchkge": "gt_torchkge",
    "segmentation_models_pytorch": "gt_smp",
    # The fifth sealed half, spent at 7df9a79: built after it was picked, never scored before its end.
    "stable_baselines3": "gt_sb3",
    "ultralytics": "gt_ultralytics",
    "demucs": "gt_demucs",
    "performer_pytorch": "gt_performer",
    "perceiver_pytorch": "gt_perceiver",
    "local_attention": "gt_local_attention",
    "rotary_embedding_torch": "gt_rotary",
    "torchani": "gt_torchani",
    "rtdl_revisiting_models": "gt_rtdl",
    "torch_optimizer": "gt_torch_optimizer",
    "reformer_pytorch": "gt_reformer",
    "routing_transformer": "gt_routing",
    "linear_attention_transformer": "gt_linear_attention",
    "torchcfm": "gt_torchcfm",
    "torchkbnufft": "gt_torchkbnufft",
    # The sixth sealed half, spent at 9318490: built after it was picked, never scored before its end.
    "captum": "gt_captum",
    "pytorch_optimizer": "gt_pytorch_optimizer",
    "torch_struct": "gt_torch_struct",
    "torchcrf": "gt_torchcrf",
    "entmax": "gt_entmax",
    "x_clip": "gt_xclip",
    "julius": "gt_julius",
    "kan": "gt_kan",
    "deepinv": "gt_deepinv",
    "st_moe_pytorch": "gt_st_moe",
    # The seventh sealed half (``sealed.toml``): built after it was picked, never scored before its end.
    "segment_anything": "gt_sam",
    "whisper": "gt_whisper",
    "geomloss": "gt_geomloss",
    "mambapy": "gt_mambapy",
    "efficientnet_pytorch": "gt_efficientnet",
    "asteroid_filterbanks": "gt_asteroid_filterbanks",
    "torchrl": "gt_torchrl",
    # Added to the seventh sealed half before any of it was scored (its first builders counted too few sites).
    "ot": "gt_pot",
    "torch_ppr": "gt_torch_ppr",
    "ema_pytorch": "gt_ema",
    "colt5_attention": "gt_colt5",
    "mixture_of_experts": "gt_moe",
    "product_key_memory": "gt_pkm",
    # The eighth sealed half (``sealed.toml``): picked before any of it was built; never scored before its end.
    # Its builders follow README.md's rules for the sealed half: never run dynalint on these libraries, compile
    # with --compile-only --jobs 1, report counts only (no break site's file, line or GB id).
    "opacus": "gt_opacus",
    "sb3_contrib": "gt_sb3_contrib",
    "FrEIA": "gt_freia",
    "kymatio": "gt_kymatio",
    "laplace": "gt_laplace",
    "linear_operator": "gt_linear_operator",  # added before any of the half was scored (too few sites)
    "tensorly": "gt_tensorly",
    "ptwt": "gt_ptwt",
    "torchmin": "gt_torchmin",
    "torch_kmeans": "gt_torch_kmeans",
    # The ninth sealed half: picked before any of it was installed or built (builders follow README.md's rules).
    "MEGABYTE_pytorch": "gt_megabyte",
    "bayesian_torch": "gt_bayesian_torch",
    "soft_moe_pytorch": "gt_soft_moe",
    "coca_pytorch": "gt_coca",
    "x_unet": "gt_x_unet",
    "pytorch_tcn": "gt_pytorch_tcn",
    # Added before the ninth was scored: its first six builders counted fewer than 150 break sites.
    "pypose": "gt_pypose",
    "geotorch": "gt_geotorch",
    "roma": "gt_roma",
    "pymde": "gt_pymde",
    # The tenth sealed half: picked before any of it was installed or built (builders follow README.md's rules).
    "torchopt": "gt_torchopt",
    "schedulefree": "gt_schedulefree",
    "gateloop_transformer": "gt_gateloop",
    "rin_pytorch": "gt_rin",
    "torch_ema": "gt_torch_ema",
    # Added before the tenth was scored: its first five builders counted 55 break sites.
    "xitorch": "gt_xitorch",
    "pytorch_kinematics": "gt_pytorch_kinematics",
    "ncps": "gt_ncps",
    "torch_dct": "gt_torch_dct",
    "torchinterp1d": "gt_torchinterp1d",
    # The eleventh sealed half: picked and built blind before the tenth was scored (then ``following`` in sealed.toml).
    "torchio": "gt_torchio",
    "torch_pruning": "gt_torch_pruning",
    "ignite": "gt_ignite",
    "cooper": "gt_cooper",
    "shap": "gt_shap",
    "torchensemble": "gt_torchensemble",
    # The twelfth pick, the sealed half, picked and built blind before the eleventh was scored.
    "snntorch": "gt_snntorch",
    "norse": "gt_norse",
    "e2cnn": "gt_e2cnn",
    "titans_pytorch": "gt_titans",
    "byol_pytorch": "gt_byol",
    "lion_pytorch": "gt_lion",
    # Added to the twelfth sealed half before it was scored, built blind the same way.
    "se3_transformer_pytorch": "gt_se3_transformer",
    "egnn_pytorch": "gt_egnn",
    "dadaptation": "gt_dadaptation",
    "prodigyopt": "gt_prodigyopt",
    "blitz": "gt_blitz",
    "rwkv": "gt_rwkv",
    # The thirteenth pick, the sealed half after the twelfth was scored, built blind the same way.
    "torchcam": "gt_torchcam",
    "diffsort": "gt_diffsort",
    "conformer": "gt_conformer",
    "higher": "gt_higher",
    "torchxrayvision": "gt_torchxrayvision",
    "lpips": "gt_lpips",
    # Joined the thirteenth pick before its score (it held 87 sites), built blind the same way.
    "tntorch": "gt_tntorch",
    "torchnmf": "gt_torchnmf",
    "pytorch_msssim": "gt_pytorch_msssim",
    "torchbnn": "gt_torchbnn",
    "hypll": "gt_hypll",
    "torch_lr_finder": "gt_torch_lr_finder",
    "kmeans_pytorch": "gt_kmeans_pytorch",
    "fast_pytorch_kmeans": "gt_fast_pytorch_kmeans",
    "adabelief_pytorch": "gt_adabelief_pytorch",
    # The fourteenth pick, the sealed half after the thirteenth was scored, to be built blind the same way.
    "piqa": "gt_piqa",
    "torchdr": "gt_torchdr",
    "madgrad": "gt_madgrad",
    "nystrom_attention": "gt_nystrom_attention",
    "pytorch_warmup": "gt_pytorch_warmup",
    # Joined the fourteenth pick before any of it was scored, built blind the same way.
    "torchsurv": "gt_torchsurv",
    "pytorch_ood": "gt_pytorch_ood",
    "deepctr_torch": "gt_deepctr_torch",
    "torch_uncertainty": "gt_torch_uncertainty",
    # The fifteenth pick, the sealed half after the fourteenth was scored, to be built blind the same way.
    "vmas": "gt_vmas",
    "torchist": "gt_torchist",
    "sparsemax": "gt_sparsemax",
    "tab_transformer_pytorch": "gt_tab_transformer_pytorch",
    "came_pytorch": "gt_came_pytorch",
    "adan_pytorch": "gt_adan_pytorch",
    # Joined the fifteenth pick before any of it was scored, built blind the same way.
    "neuralop": "gt_neuralop",
    "bs_roformer": "gt_bs_roformer",
    "lambda_networks": "gt_lambda_networks",
    "siren_pytorch": "gt_siren_pytorch",
    "palm_rlhf_pytorch": "gt_palm_rlhf_pytorch",
    "recurrent_memory_transformer_pytorch": "gt_recurrent_memory_transformer_pytorch",
    # The sixteenth pick, the sealed half after the fifteenth was scored, to be built blind the same way.
    "iTransformer": "gt_itransformer",
    "taylor_series_linear_attention": "gt_taylor_series_linear_attention",
    "hourglass_transformer_pytorch": "gt_hourglass_transformer_pytorch",
    "axial_attention": "gt_axial_attention",
    "equiformer_pytorch": "gt_equiformer_pytorch",
    "rectified_flow_pytorch": "gt_rectified_flow_pytorch",
    "mega_pytorch": "gt_mega_pytorch",
    "charformer_pytorch": "gt_charformer_pytorch",
    "mlp_mixer_pytorch": "gt_mlp_mixer_pytorch",
    "g_mlp_pytorch": "gt_g_mlp_pytorch",
    "sam": "gt_sam_pytorch",
    "pfrl": "gt_pfrl",
    # The seventeenth pick, built blind, scored once and spent.
    "bindsnet": "gt_bindsnet",
    "torchdrift": "gt_torchdrift",
    "magvit2_pytorch": "gt_magvit2_pytorch",
    "memory_efficient_attention_pytorch": "gt_memory_efficient_attention_pytorch",
    "simple_hierarchical_transformer": "gt_simple_hierarchical_transformer",
    "skrl": "gt_skrl",
    "poutyne": "gt_poutyne",
    "skorch": "gt_skorch",
    "pina": "gt_pina",
    "flowtorch": "gt_flowtorch",
    # The eighteenth pick, the sealed half after the seventeenth was scored, to be built blind the same way.
    "nequip": "gt_nequip",
    "cherry": "gt_cherry",
    "torch_rechub": "gt_torch_rechub",
    "torchnlp": "gt_torchnlp",
    "torchlibrosa": "gt_torchlibrosa",
    "torchbearer": "gt_torchbearer",
    "pytorch_accelerated": "gt_pytorch_accelerated",
    "torchtnt": "gt_torchtnt",
    "transfusion_pytorch": "gt_transfusion_pytorch",
    "en_transformer": "gt_en_transformer",
    "invariant_point_attention": "gt_invariant_point_attention",
    "catalyst": "gt_catalyst",
    "sinkhorn_transformer": "gt_sinkhorn_transformer",
    "point_transformer_pytorch": "gt_point_transformer_pytorch",
    "speculative_decoding": "gt_speculative_decoding",
    "res_mlp_pytorch": "gt_res_mlp_pytorch",
    "lightning": "gt_lightning",
    "torchgan": "gt_torchgan",
    "halonet_pytorch": "gt_halonet_pytorch",
    "bottleneck_transformer_pytorch": "gt_bottleneck_transformer_pytorch",
    "compressive_transformer_pytorch": "gt_compressive_transformer_pytorch",
    "accelerate": "gt_accelerate",
    "mmengine": "gt_mmengine",
    "perceiver_ar_pytorch": "gt_perceiver_ar_pytorch",
    "nGPT_pytorch": "gt_nGPT_pytorch",
    "mixture_of_attention": "gt_mixture_of_attention",
    "native_sparse_attention_pytorch": "gt_native_sparse_attention_pytorch",
    "avalanche": "gt_avalanche",
    "linformer": "gt_linformer",
    "keras": "gt_keras",
    "effdet": "gt_effdet",
    "pytorch_toolbelt": "gt_pytorch_toolbelt",
    "torchattacks": "gt_torchattacks",
    "memformer": "gt_memformer",
    "slot_attention": "gt_slot_attention",
    "long_short_transformer": "gt_long_short_transformer",
    "lie_transformer_pytorch": "gt_lie_transformer_pytorch",
    "fairscale": "gt_fairscale",
    "deepspeed": "gt_deepspeed",
    "torchdistill": "gt_torchdistill",
    "torch_frame": "gt_torch_frame",
    "stanza": "gt_stanza",
    "torch_fidelity": "gt_torch_fidelity",
    "pretrainedmodels": "gt_pretrainedmodels",
    "pytorchvideo": "gt_pytorchvideo",
    "minGRU_pytorch": "gt_minGRU_pytorch",
    "mmdit": "gt_mmdit",
    "flamingo_pytorch": "gt_flamingo_pytorch",
    "pytorch_pfn_extras": "gt_pytorch_pfn_extras",
    "torcheval": "gt_torcheval",
    "tez": "gt_tez",
    "zennit": "gt_zennit",
    "tltorch": "gt_tltorch",
    "heavyball": "gt_heavyball",
    "ring_attention_pytorch": "gt_ring_attention_pytorch",
    "deformable_attention": "gt_deformable_attention",
    "agent_attention_pytorch": "gt_agent_attention_pytorch",
    "h_transformer_1d": "gt_h_transformer_1d",
    "tsl": "gt_tsl",
    "trainer": "gt_trainer",
    "allegro": "gt_allegro",
    "lightning_uq_box": "gt_lightning_uq_box",
    "neurodiffeq": "gt_neurodiffeq",
    "art": "gt_art",
    "posteriors": "gt_posteriors",
    "torchjd": "gt_torchjd",
    "optimi": "gt_optimi",
    "PEER_pytorch": "gt_PEER_pytorch",
    "foolbox": "gt_foolbox",
    "graph_transformer_pytorch": "gt_graph_transformer_pytorch",
    "grokfast_pytorch": "gt_grokfast_pytorch",
    "frame_averaging_pytorch": "gt_frame_averaging_pytorch",
    "lumiere_pytorch": "gt_lumiere_pytorch",
    "coral_pytorch": "gt_coral_pytorch",
    "ogb": "gt_ogb",
    "adam_atan2_pytorch": "gt_adam_atan2_pytorch",
    "x_mlps_pytorch": "gt_x_mlps_pytorch",
    "torchkeras": "gt_torchkeras",
    "torchinfo": "gt_torchinfo",
    "ptflops": "gt_ptflops",
    "mushroom_rl": "gt_mushroom_rl",
    "bitsandbytes": "gt_bitsandbytes",
    "torchao": "gt_torchao",
    "tensordict": "gt_tensordict",
    "einx": "gt_einx",
    "flash_pytorch": "gt_flash_pytorch",
    "pytorch_fid": "gt_pytorch_fid",
    "backpack": "gt_backpack",
    "asdl": "gt_asdl",
    "curvlinops": "gt_curvlinops",
    "hyper_connections": "gt_hyper_connections",
    "PoPE_pytorch": "gt_PoPE_pytorch",
    "hl_gauss_pytorch": "gt_hl_gauss_pytorch",
    "accelerated_scan": "gt_accelerated_scan",
    "mogrifier": "gt_mogrifier",
    "axial_positional_embedding": "gt_axial_positional_embedding",
    "torch_einops_utils": "gt_torch_einops_utils",
    "pytorch_custom_utils": "gt_pytorch_custom_utils",
    "discrete_continuous_embed_readout": "gt_discrete_continuous_embed_readout",
    "pytorch_ranger": "gt_pytorch_ranger",
    "torch_max_mem": "gt_torch_max_mem",
    "nirtorch": "gt_nirtorch",
    "einconv": "gt_einconv",
    "unfoldNd": "gt_unfoldNd",
    "assoc_scan": "gt_assoc_scan",
    "memmap_replay_buffer": "gt_memmap_replay_buffer",
    "arm_pytorch_utilities": "gt_arm_pytorch_utilities",
    "fvcore": "gt_fvcore",
    "torchsummary": "gt_torchsummary",
    "pytorch_model_summary": "gt_pytorch_model_summary",
    "torchprofile": "gt_torchprofile",
    "hoptorch": "gt_hoptorch",
    "opt_einsum_fx": "gt_opt_einsum_fx",
    "torchtyping": "gt_torchtyping",
    "pytorch_seed": "gt_pytorch_seed",
    "einops_exts": "gt_einops_exts",
    "glasflow": "gt_glasflow",
    "torchlens": "gt_torchlens",
    "timesformer_pytorch": "gt_timesformer_pytorch",
    "triangle_multiplicative_module": "gt_triangle_multiplicative_module",
    "segformer_pytorch": "gt_segformer_pytorch",
    "gated_state_spaces_pytorch": "gt_gated_state_spaces_pytorch",
    "discrete_key_value_bottleneck_pytorch": "gt_discrete_key_value_bottleneck_pytorch",
    "rq_transformer": "gt_rq_transformer",
    "torch_complex": "gt_torch_complex",
    "transformer_in_transformer": "gt_transformer_in_transformer",
    "metaformer_gpt": "gt_metaformer_gpt",
    "token_shift_gpt": "gt_token_shift_gpt",
    "isab_pytorch": "gt_isab_pytorch",
    "glom_pytorch": "gt_glom_pytorch",
    "n_grammer_pytorch": "gt_n_grammer_pytorch",
    "bidirectional_cross_attention": "gt_bidirectional_cross_attention",
    "thop": "gt_thop",
    "rtdl_num_embeddings": "gt_rtdl_num_embeddings",
    "nerf": "gt_nerf",
    "kornia_moons": "gt_kornia_moons",
}


# torch_geometric models added for issue 22: the keys of ``gt_pyg.EXTRA``, read without importing torch.
def pyg_extra() -> list[str]:
    import ast

    tree = ast.parse((HERE / "gt_pyg.py").read_text(encoding="utf-8"))
    return [key.value for node in tree.body if isinstance(node, ast.AnnAssign)  # type: ignore[union-attr]
            and getattr(node.target, "id", "") == "EXTRA" for key in node.value.keys]  # type: ignore[union-attr]


def catalog() -> list[str]:
    """Every model id, ``library/name``, in a fixed order."""
    import importlib

    return ([f"diffusers/{n}" for n in DIFFUSERS_FIXTURE + DIFFUSERS_EXTRA] + [f"timm/{n}" for n in TIMM]
            + [f"torch_geometric/{n}" for n in PYG + tuple(pyg_extra())] + [f"kornia/{n}" for n in kornia_names()]
            + [f"monai/{n}" for n in monai_names()]
            + [f"{lib}/{n}" for lib, module in BUILDER_MODULES.items()
               if (HERE / f"{module}.py").exists() for n in importlib.import_module(module).names()])


def kornia_names() -> list[str]:
    """kornia's model names, read from its builders' table without importing torch."""
    import ast

    tree = ast.parse((Path(__file__).with_name("gt_kornia.py")).read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "AUGMENTATIONS":
            names += [f"aug.{k.value}" for k in node.value.keys]
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "update":
            names += [k.value for k in node.args[0].keys]
    return names


def monai_names() -> list[str]:
    """MONAI's model names: the keys of ``gt_monai.py``'s builder tables, read without importing torch."""
    import ast

    tables = {"NETWORKS": "", "LOSSES": "", "METRICS": "", "_TRANSFORMS": "transforms."}  # table -> prefix
    tree = ast.parse((Path(__file__).with_name("gt_monai.py")).read_text(encoding="utf-8"))
    return [tables[node.target.id] + key.value for node in tree.body if isinstance(node, ast.AnnAssign)
            and getattr(node.target, "id", "") in tables for key in node.value.keys]  # type: ignore[union-attr]


QUICK = ("diffusers/unet_2d", "diffusers/flux", "timm/resnet18", "timm/vit_tiny_patch16_224",
         "timm/sequencer2d_s", "torch_geometric/GCNConv", "torch_geometric/GAT",
         "torch_geometric/TopKPooling", "torch_geometric/Set2Set", "kornia/aug.RandomAffine")


def package_of(library: str) -> str:
    """The import name of a library (the folder its installed source lives in)."""
    return library


def build(model_id: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """``(module, args, kwargs)`` for one model id; imports torch and the library."""
    import torch

    torch.manual_seed(0)
    library, name = model_id.split("/", 1)
    if library in BUILDER_MODULES:
        import importlib

        return importlib.import_module(BUILDER_MODULES[library]).build(name)
    builder: Callable[[str], tuple[Any, tuple[Any, ...], dict[str, Any]]] = {
        "timm": _timm, "diffusers": _diffusers, "torch_geometric": _pyg, "kornia": _kornia, "monai": _monai,
    }[library]
    return builder(name)


def prepare_import(library: str) -> None:
    """What must happen before ``library`` is imported: torchvision made importable on the CPU, and the
    builder module's own ``before_import()`` where it has one (bindsnet 0.2.7 imports ``torch._six``, which
    torch 2.13 no longer has, and its builder puts a stand-in in its place)."""
    import importlib

    allow_torchvision_import()
    module = BUILDER_MODULES.get(library)
    if module is not None and (HERE / f"{module}.py").exists():
        hook = getattr(importlib.import_module(module), "before_import", None)
        if hook is not None:
            hook()


def allow_torchvision_import() -> None:
    """Let the CUDA build of torchvision (the only one for torch 2.13 on the index) import on a CPU torch.

    Its compiled ops cannot load, and its ``_meta_registrations`` then fails on the two operators it
    registers unconditionally. Defining their schemas lets the pure-Python parts (what timm imports:
    transforms, ``FrozenBatchNorm2d``) import. No model here calls a compiled torchvision operator; effdet's builder
    registers a plain-torch CPU kernel for ``torchvision::nms`` of its own before effdet imports (``gt_effdet.py``).
    """
    import torch

    try:
        import torchvision  # noqa: F401
        return
    except RuntimeError:
        pass
    for name in ("nms", "qnms"):
        try:
            torch.library.define(f"torchvision::{name}", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        except RuntimeError:
            pass
    for module in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[module]


def _timm(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    import torch

    allow_torchvision_import()
    import timm

    model = timm.create_model(name, pretrained=False, num_classes=10, **TIMM_KWARGS.get(name, {}))
    size = model.pretrained_cfg.get("input_size", (3, 224, 224))
    return model, (torch.randn(2, *size),), {}


def _diffusers(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    if name in DIFFUSERS_FIXTURE:
        sys.path.insert(0, str(ROOT / "fixtures" / "diffusers"))
        import tiny_models

        return getattr(tiny_models, name)()
    from gt_diffusers import EXTRA

    return EXTRA[name]()


def _kornia(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    from gt_kornia import BUILDERS

    return BUILDERS[name]()


def _pyg(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    from gt_pyg import BUILDERS

    return BUILDERS[name]()


def _monai(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    from gt_monai import BUILDERS

    return BUILDERS[name]()

"""Ground-truth bench, PoPE_pytorch: polar positional embeddings (PoPE) for attention.

PoPE-pytorch 0.2.1 implements polar coordinate positional embeddings: queries and keys become magnitudes (a
softplus by default) and positions become phases, so ``q . k`` depends on content through the magnitudes and on
position through the phase difference, with a learned, clamped per-head phase bias on the keys. Its pieces:

- ``PoPE`` (a module returning ``PolarEmbedReturn(freqs, bias)`` for a sequence length or a tensor of positions,
  with an offset; inverse frequencies from ``theta`` or given; bias initialized to zero or uniformly);
- ``apply_pope_to_qk`` (also ``PoPE.apply_pope_to_qk``): rotates the magnitudes of queries and keys into
  interleaved cos / sin pairs, or complex tensors (``return_complex``), for all or only the first part of the head
  dimension, queries taking the last positions when shorter than the keys, with any magnitude function;
- ``AxialPoPE``: frequencies per axis of a grid (given as a tuple of sizes, or a tensor of coordinates) for images
  and videos, ``get_grid_positions``;
- ``compute_attn_similarity`` and ``flash_attn_with_pope`` (``attention.py``): attention logits and full attention
  with PoPE; on the CPU both take the non-fused path (the Triton kernels are for CUDA): grouped-query heads, heads
  first or second, masks of several shapes, causal masking and one-token decoding, dropout, a custom softmax
  scale, a value width other than the query width, and mixed positions (``pope_pos_emb_indices``: PoPE on some
  tokens only, padded frequencies and an ``einx`` mask).

The tables cover heads of width 32 (what ``compute_attn_similarity`` admits) or 16, 2 to 4 heads, a batch of 2,
sequences of 6 to 8 (4 x 4 grids for the axial embedding):

- ``EMBED``: ``PoPE`` and ``AxialPoPE`` forwards under their options, feeding ``apply_pope_to_qk``;
- ``APPLY``: ``apply_pope_to_qk`` variants (partial rotation, complex output, shorter queries, batched
  positions, another magnitude function);
- ``SIMILARITY`` and ``FLASH``: ``compute_attn_similarity`` and ``flash_attn_with_pope`` under their options;
- ``NETS`` and ``TRAIN``: attention layers built on them (a causal self-attention block, a key/value-cache decoding
  step, an axial image attention block, a logits-level attention with mixed positions) in a forward pass and in
  training steps with a loss backward and an Adam step.

``bias_uniform_init`` fills a parameter in place, so those modules are constructed under ``torch.no_grad()`` (with
gradients on, construction fails). Left out: the Triton modules (``triton_pope``, ``triton_pope_flash_attn``): Triton is absent and they are for CUDA.
Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, HEADS, SEQ, HEAD_DIM = 2, 2, 8, 32

EMBED = ("PoPE.seq_len", "PoPE.positions", "PoPE.batched_positions", "PoPE.offset", "PoPE.bias_uniform_init",
         "PoPE.inv_freqs", "PoPE.theta100.partial", "AxialPoPE.grid2d", "AxialPoPE.grid3d",
         "AxialPoPE.coordinates", "AxialPoPE.single_axis.bias_uniform_init", "AxialPoPE.get_grid_positions")
APPLY = ("apply_pope_to_qk", "apply_pope_to_qk.partial", "apply_pope_to_qk.return_complex",
         "apply_pope_to_qk.return_complex.partial", "apply_pope_to_qk.shorter_queries",
         "apply_pope_to_qk.batched_freqs", "apply_pope_to_qk.relu_magnitude", "PoPE.apply_pope_to_qk.static")
SIMILARITY = ("compute_attn_similarity", "compute_attn_similarity.heads_second", "compute_attn_similarity.gqa",
              "compute_attn_similarity.partial", "compute_attn_similarity.mixed_positions",
              "compute_attn_similarity.shorter_queries", "compute_attn_similarity_non_fused.heads_second.gqa")
FLASH = ("flash_attn_with_pope", "flash_attn_with_pope.causal", "flash_attn_with_pope.decode.causal",
         "flash_attn_with_pope.mask_keys", "flash_attn_with_pope.mask_square", "flash_attn_with_pope.mask_3d",
         "flash_attn_with_pope.heads_second", "flash_attn_with_pope.gqa", "flash_attn_with_pope.softmax_scale",
         "flash_attn_with_pope.value_width", "flash_attn_with_pope.partial", "flash_attn_with_pope.dropout",
         "flash_attn_with_pope.mixed_positions", "flash_attn_with_pope.mixed_positions.causal",
         "flash_attn_with_pope.mixed_positions.mask_keys", "flash_attn_with_pope.fused_false.batched_positions",
         "pad_freqs_for_mixed_positions")
NETS = ("CausalSelfAttention", "CausalSelfAttention.gqa", "KVCacheDecode", "AxialImageAttention",
        "SimilarityAttention.mixed_positions", "Transformer2")
TRAIN = ("train.CausalSelfAttention.adam", "train.AxialImageAttention.adam", "train.SimilarityAttention.adam",
         "train.Transformer2.adam")


def names() -> list[str]:
    return [*EMBED, *APPLY, *SIMILARITY, *FLASH, *NETS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _qkv(q_len: int = SEQ, k_len: int = SEQ, q_heads: int = HEADS, k_heads: int = HEADS, dim: int = HEAD_DIM,
         v_dim: int | None = None, heads_first: bool = True) -> tuple[Any, Any, Any]:
    def shape(heads: int, n: int, d: int) -> tuple[int, ...]:
        return (BATCH, heads, n, d) if heads_first else (BATCH, n, heads, d)

    return (_randn(*shape(q_heads, q_len, dim)), _randn(*shape(k_heads, k_len, dim), seed=2),
            _randn(*shape(k_heads, k_len, v_dim or dim), seed=3))


def _embed(name: str) -> Built:
    import torch

    from PoPE_pytorch import AxialPoPE, PoPE, apply_pope_to_qk
    from gt_calls import Run

    q, k, _ = _qkv(dim=16)
    if name == "AxialPoPE.get_grid_positions":
        def grid(owner: Any, t: torch.Tensor) -> torch.Tensor:
            return AxialPoPE.get_grid_positions(4, 4, device=t.device) + t

        return Run(torch.nn.Identity(), grid, [AxialPoPE.get_grid_positions]), (_randn(16, 2),), {}
    if name.startswith("AxialPoPE"):
        if name == "AxialPoPE.grid3d":
            pope: Any = AxialPoPE(16, heads=HEADS, axial_dims=(4, 6, 6))
            spec: Any = (2, 2, 2)
        elif name == "AxialPoPE.single_axis.bias_uniform_init":
            with torch.no_grad():  # the in-place uniform init of a parameter needs it
                pope, spec = AxialPoPE(16, heads=HEADS, bias_uniform_init=True), None
        else:
            pope, spec = AxialPoPE(16, heads=HEADS, axial_dims=(8, 8)), (4, 4)
        if name == "AxialPoPE.coordinates":
            spec = None
        n = 8 if name == "AxialPoPE.grid3d" else 16
        q, k, _ = _qkv(q_len=n, k_len=n, dim=16)
        inputs: tuple[Any, ...] = (q, k)
        if spec is None:
            width = 1 if "single_axis" in name else 2
            inputs = (q, k, torch.rand(n, width, generator=torch.Generator().manual_seed(4)) * 4)

        def axial(owner: Any, qq: torch.Tensor, kk: torch.Tensor, *positions: Any) -> Any:
            embed = owner(positions[0]) if positions else owner(spec)
            return apply_pope_to_qk(embed, qq, kk)

        return Run(pope, axial, [AxialPoPE, apply_pope_to_qk]), inputs, {}
    keywords: dict[str, Any] = {}
    dim = 16
    if name == "PoPE.bias_uniform_init":
        keywords["bias_uniform_init"] = True
    elif name == "PoPE.inv_freqs":
        keywords["inv_freqs"] = torch.linspace(1.0, 0.01, 16)
    elif name == "PoPE.theta100.partial":
        keywords["theta"], dim = 100, 8
    with torch.no_grad():  # ``bias_uniform_init`` fills a parameter in place
        pope = PoPE(dim, heads=HEADS, **keywords)

    def embedded(owner: Any, qq: torch.Tensor, kk: torch.Tensor, *positions: Any) -> Any:
        if name == "PoPE.offset":
            embed = owner(SEQ, offset=3)
        elif positions:
            embed = owner(positions[0])
        else:
            embed = owner(SEQ)
        return apply_pope_to_qk(embed, qq, kk)

    inputs = (q, k)
    if name == "PoPE.positions":
        inputs = (q, k, torch.arange(SEQ).float() * 2)
    elif name == "PoPE.batched_positions":
        inputs = (q, k, torch.arange(SEQ).float().expand(BATCH, SEQ) + torch.tensor([[0.0], [1.0]]))
    return Run(pope, embedded, [PoPE, apply_pope_to_qk]), inputs, {}


def _apply(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from PoPE_pytorch import PoPE, apply_pope_to_qk
    from gt_calls import Run

    dim = 8 if "partial" in name else 16
    pope = PoPE(dim, heads=HEADS)
    q_len = 1 if "shorter_queries" in name else SEQ
    q, k, _ = _qkv(q_len=q_len, dim=16)
    keywords: dict[str, Any] = {}
    if "return_complex" in name:
        keywords["return_complex"] = True
    if "relu_magnitude" in name:
        keywords["to_magnitude"] = F.relu
    function = PoPE.apply_pope_to_qk if name.endswith("static") else apply_pope_to_qk
    batched = "batched_freqs" in name

    def applied(owner: Any, qq: torch.Tensor, kk: torch.Tensor) -> Any:
        positions = torch.arange(SEQ, dtype=torch.float32).expand(BATCH, SEQ) if batched else SEQ
        return function(owner(positions), qq, kk, **keywords)

    return Run(pope, applied, [apply_pope_to_qk, PoPE]), (q, k), {}


def _similarity(name: str) -> Built:
    import torch

    from PoPE_pytorch import PoPE, compute_attn_similarity
    from PoPE_pytorch.attention import compute_attn_similarity_non_fused
    from gt_calls import Run

    heads_first = "heads_second" not in name
    k_heads = 1 if "gqa" in name else HEADS
    q_len = 3 if "shorter_queries" in name else SEQ
    q, k, _ = _qkv(q_len=q_len, k_heads=k_heads, heads_first=heads_first)
    pope = PoPE(16 if "partial" in name else HEAD_DIM, heads=HEADS)
    function = compute_attn_similarity_non_fused if "non_fused" in name else compute_attn_similarity
    mixed = "mixed_positions" in name
    if "gqa" in name and "non_fused" not in name:
        q, k, _ = _qkv(q_len=q_len, q_heads=2 * HEADS, k_heads=HEADS, heads_first=heads_first)
        pope = PoPE(HEAD_DIM, heads=2 * HEADS)

    def similarity(owner: Any, qq: torch.Tensor, kk: torch.Tensor, *indices: Any) -> Any:
        if indices:
            embed = owner(indices[0].float())
            return function(qq, kk, embed, pope_pos_emb_indices=indices[0], head_dimension_at_first=heads_first)
        return function(qq, kk, owner(kk.shape[2 if heads_first else 1]), head_dimension_at_first=heads_first)

    inputs: tuple[Any, ...] = (q, k, torch.tensor([2, 3, 4, 5, 6, 7])) if mixed else (q, k)
    return Run(pope, similarity, [function]), inputs, {}


def _flash(name: str) -> Built:
    import torch

    from PoPE_pytorch import PoPE, flash_attn_with_pope
    from PoPE_pytorch.attention import pad_freqs_for_mixed_positions
    from gt_calls import Run

    if name == "pad_freqs_for_mixed_positions":
        def padded(owner: Any, freqs: torch.Tensor, indices: torch.Tensor) -> Any:
            return pad_freqs_for_mixed_positions(freqs, indices, SEQ, freqs.device)

        return Run(torch.nn.Identity(), padded, [pad_freqs_for_mixed_positions]), \
            (_randn(5, 16), torch.tensor([1, 2, 4, 6, 7])), {}
    heads_first = "heads_second" not in name
    decode = "decode" in name
    q_heads, k_heads = (2 * HEADS, HEADS) if "gqa" in name else (HEADS, HEADS)
    v_dim = 8 if "value_width" in name else None
    dim = 16
    q, k, v = _qkv(q_len=1 if decode else SEQ, q_heads=q_heads, k_heads=k_heads, dim=dim, v_dim=v_dim,
                   heads_first=heads_first)
    pope = PoPE(8 if "partial" in name else dim, heads=q_heads)
    keywords: dict[str, Any] = {}
    if "causal" in name:
        keywords["causal"] = True
    if "softmax_scale" in name:
        keywords["softmax_scale"] = 0.5
    if "dropout" in name:
        keywords["dropout"] = 0.1
    if "fused_false" in name:
        keywords["fused"] = False
    if not heads_first:
        keywords["head_dimension_at_first"] = False
    extra: tuple[Any, ...] = ()
    if "mask_keys" in name:
        mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
        mask[1, -3:] = False
        extra = (mask,)
    elif "mask_square" in name:
        extra = (torch.ones(SEQ, SEQ, dtype=torch.bool).tril(),)
    elif "mask_3d" in name:
        extra = (torch.rand(BATCH, SEQ, SEQ, generator=torch.Generator().manual_seed(5)) > 0.3,)
        extra[0][..., 0] = True
    mixed = "mixed_positions" in name
    indices = torch.tensor([2, 3, 4, 5, 6, 7])
    batched = "batched_positions" in name

    def attend(owner: Any, qq: torch.Tensor, kk: torch.Tensor, vv: torch.Tensor, *masks: Any) -> Any:
        if mixed:
            embed = owner(indices.float())
            return flash_attn_with_pope(qq, kk, vv, pos_emb=embed, pope_pos_emb_indices=indices,
                                        mask=masks[0] if masks else None, **keywords)
        if batched:
            embed = owner(torch.arange(SEQ, dtype=torch.float32).expand(BATCH, SEQ))
        else:
            embed = owner(kk.shape[2 if heads_first else 1])
        return flash_attn_with_pope(qq, kk, vv, pos_emb=embed, mask=masks[0] if masks else None, **keywords)

    return Run(pope, attend, [flash_attn_with_pope]), (q, k, v, *extra), {}


def _net(kind: str) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from PoPE_pytorch import AxialPoPE, PoPE, compute_attn_similarity, flash_attn_with_pope

    class CausalSelfAttention(nn.Module):
        def __init__(self, dim: int = 16, heads: int = HEADS, kv_heads: int = HEADS, dim_head: int = 16) -> None:
            super().__init__()
            self.heads, self.kv_heads, self.dim_head = heads, kv_heads, dim_head
            self.norm = nn.LayerNorm(dim)
            self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
            self.to_kv = nn.Linear(dim, 2 * kv_heads * dim_head, bias=False)
            self.pope = PoPE(dim_head, heads=heads)
            self.to_out = nn.Linear(heads * dim_head, dim)

        def forward(self, x: torch.Tensor, cache: Any = None) -> Any:
            b, n, _ = x.shape
            x = self.norm(x)
            q = self.to_q(x).view(b, n, self.heads, self.dim_head).transpose(1, 2)
            k, v = self.to_kv(x).view(b, n, 2, self.kv_heads, self.dim_head).permute(2, 0, 3, 1, 4)
            if cache is not None:
                k, v = torch.cat((cache[0], k), dim=2), torch.cat((cache[1], v), dim=2)
            out = flash_attn_with_pope(q, k, v, pos_emb=self.pope(k.shape[2]), causal=True)
            return self.to_out(out.transpose(1, 2).reshape(b, n, -1)), (k, v)

    class AxialImageAttention(nn.Module):
        """Self-attention over 4 x 4 image patches with axial PoPE (row and column frequencies)."""

        def __init__(self, dim: int = 16) -> None:
            super().__init__()
            self.patch = nn.Conv2d(3, dim, 2, stride=2)
            self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.pope = AxialPoPE(8, heads=HEADS, axial_dims=(4, 4))
            self.head = nn.Linear(dim, 5)

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            tokens = self.patch(image).flatten(2).transpose(1, 2)
            b, n, d = tokens.shape
            q, k, v = self.to_qkv(tokens).view(b, n, 3, HEADS, d // HEADS).permute(2, 0, 3, 1, 4)
            out = flash_attn_with_pope(q, k, v, pos_emb=self.pope((4, 4)))
            return self.head(out.transpose(1, 2).reshape(b, n, d).mean(dim=1))

    class SimilarityAttention(nn.Module):
        """Attention by hand from ``compute_attn_similarity`` logits, PoPE on the text tokens only."""

        def __init__(self, dim: int = 16) -> None:
            super().__init__()
            self.to_q = nn.Linear(dim, HEADS * HEAD_DIM, bias=False)
            self.to_k = nn.Linear(dim, HEADS * HEAD_DIM, bias=False)
            self.to_v = nn.Linear(dim, HEADS * 8, bias=False)
            self.pope = PoPE(HEAD_DIM, heads=HEADS)
            self.to_out = nn.Linear(HEADS * 8, dim)
            self.indices = torch.tensor([2, 3, 4, 5, 6, 7])

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, n, _ = x.shape
            q = self.to_q(x).view(b, n, HEADS, HEAD_DIM).transpose(1, 2)
            k = self.to_k(x).view(b, n, HEADS, HEAD_DIM).transpose(1, 2)
            v = self.to_v(x).view(b, n, HEADS, 8).transpose(1, 2)
            sim = compute_attn_similarity(q, k, self.pope(self.indices.float()), pope_pos_emb_indices=self.indices)
            attn = (sim * HEAD_DIM ** -0.5).softmax(dim=-1)
            return self.to_out((attn @ v).transpose(1, 2).reshape(b, n, -1))

    class Transformer2(nn.Module):
        def __init__(self, dim: int = 16) -> None:
            super().__init__()
            self.embed = nn.Embedding(11, dim)
            self.attns = nn.ModuleList([CausalSelfAttention(dim), CausalSelfAttention(dim, kv_heads=1)])
            self.ffs = nn.ModuleList([nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(),
                                                    nn.Linear(2 * dim, dim)) for _ in range(2)])
            self.to_logits = nn.Linear(dim, 11)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.embed(tokens)
            for attn, ff in zip(self.attns, self.ffs):
                x = x + attn(x)[0]
                x = x + ff(x)
            return self.to_logits(x)

    del F
    if kind.startswith("CausalSelfAttention"):
        return CausalSelfAttention(kv_heads=1 if kind.endswith("gqa") else HEADS)
    if kind == "KVCacheDecode":
        return CausalSelfAttention()
    if kind == "AxialImageAttention":
        return AxialImageAttention()
    if kind.startswith("SimilarityAttention"):
        return SimilarityAttention()
    return Transformer2()


def _net_inputs(kind: str) -> tuple[Any, ...]:
    import torch

    if kind == "AxialImageAttention":
        return (_randn(BATCH, 3, 8, 8),)
    if kind == "Transformer2":
        return (torch.randint(0, 11, (BATCH, SEQ), generator=torch.Generator().manual_seed(3)),)
    if kind == "KVCacheDecode":
        return (_randn(BATCH, 1, 16), _randn(BATCH, HEADS, 5, 16, seed=2), _randn(BATCH, HEADS, 5, 16, seed=3))
    return (_randn(BATCH, SEQ, 16),)


def _run_net(kind: str) -> Any:
    def run(owner: Any, *inputs: Any) -> Any:
        if kind == "KVCacheDecode":
            return owner(inputs[0], cache=(inputs[1], inputs[2]))
        out = owner(*inputs)
        return out[0] if isinstance(out, tuple) else out

    return run


def _entries() -> list[Any]:
    from PoPE_pytorch import PoPE, apply_pope_to_qk, compute_attn_similarity, flash_attn_with_pope

    return [PoPE, apply_pope_to_qk, compute_attn_similarity, flash_attn_with_pope]


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    kind = name.split(".")[1]
    model = _net(kind)
    inputs = _net_inputs(kind)
    run = _run_net(kind)
    with torch.no_grad():
        out = run(model, *inputs)
    target = torch.zeros_like(out) + 0.1
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(owner: Any, *values: Any) -> torch.Tensor:
        """The regression loss, its gradients and an Adam step."""
        loss = F.mse_loss(run(owner, *values), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, _entries()), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in EMBED:
        return _embed(name)
    if name in APPLY:
        return _apply(name)
    if name in SIMILARITY:
        return _similarity(name)
    if name in FLASH:
        return _flash(name)
    if name in NETS:
        from gt_calls import Run

        return Run(_net(name), _run_net(name), _entries()), _net_inputs(name), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)

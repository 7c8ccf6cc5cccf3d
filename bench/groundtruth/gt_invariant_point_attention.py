"""Ground-truth bench, invariant_point_attention: AlphaFold2's invariant point attention, its block and a stack of it.

invariant-point-attention 0.2.2 (lucidrains, after Jumper 2021) exports three modules:

- ``InvariantPointAttention``: scalar attention, point attention (query / key / value points rotated by each
  residue's frame, ``rotations`` and ``translations``, into the global frame, their squared distances weighted by
  softplus-ed per-head weights) and, unless ``require_pairwise_repr=False``, a bias from a pairwise representation
  (``pairwise_repr_dim``, the width by default) whose values are also aggregated; an optional residue ``mask``;
  the aggregated points are rotated back into the local frames (under ``disable_tf32`` and a disabled CUDA
  ``autocast``) and their norms concatenated;
- ``IPABlock``: the attention and a feedforward transition (``ff_mult``, ``ff_num_layers``) with post-norm (the
  paper's) or pre-norm and dropouts; keywords of the forward go to the attention;
- ``IPATransformer``: a stack of blocks (``depth``) updating quaternions and translations from each block's
  output (frames from identity or given, rotations detached or not), with a token embedding (``num_tokens``) and
  a final point prediction (``predict_points``); and ``utils`` has ``rot_z``, ``rot_y`` and ``rot`` (Euler
  rotations, from tensors or from Python numbers).

``IPATransformer`` imports ``quaternion_to_matrix`` and ``quaternion_multiply`` from pytorch3d, which is not
installed (a C++ / CUDA extension built against the installed torch); where a model holds one the builder first
registers a stand-in ``pytorch3d.transforms`` module, bench code in plain torch (pytorch3d's formulas: the
rotation matrix of a unit quaternion, the Hamilton product with a non-negative real part), so the library's own
stacking runs as it does for its users. The tables:

- ``ATTENTION``: ``InvariantPointAttention`` with and without the pairwise representation, a mask, another
  pairwise width, one head, other scalar / point widths, a batch of one;
- ``BLOCKS``: ``IPABlock`` post-norm and pre-norm, masked, without pairs, a wider two-layer and a one-layer
  transition, dropouts;
- ``TRANSFORMERS``: ``IPATransformer`` of depth 1 and 2, token inputs, point prediction, rotations not
  detached, given initial frames, without pairs;
- ``UTILS``: ``rot_z``, ``rot_y`` and ``rot`` on tensors, and ``rot`` of Python floats (the tensor-casting
  decorator) applied to coordinates;
- ``TRAIN``: training steps (``loss.backward()`` under ``enable_grad``): a regression through the attention
  (with pairs, and masked without), the block, and the transformer (predicted points with an Adam step, token
  inputs, undetached rotations).

Sizes are tiny: a batch of 2, 6 residues, width 16, 2 heads of scalar width 4 and 2 query / value points.
Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
SEQ = 6
DIM = 16
TOKENS = 20
SMALL: dict[str, Any] = {"heads": 2, "scalar_key_dim": 4, "scalar_value_dim": 4, "point_key_dim": 2,
                         "point_value_dim": 2}
NO_PAIRS: dict[str, Any] = {**SMALL, "require_pairwise_repr": False}

# Name -> (keywords beyond ``dim``, inputs: "pairs" and / or "mask", batch size).
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...], int]] = {
    "InvariantPointAttention": (SMALL, ("pairs",), BATCH),
    "InvariantPointAttention.mask": (SMALL, ("pairs", "mask"), BATCH),
    "InvariantPointAttention.no_pairwise": (NO_PAIRS, (), BATCH),
    "InvariantPointAttention.no_pairwise.mask": (NO_PAIRS, ("mask",), BATCH),
    "InvariantPointAttention.pairwise_dim8": ({**SMALL, "pairwise_repr_dim": 8}, ("pairs8",), BATCH),
    "InvariantPointAttention.heads1": ({**SMALL, "heads": 1}, ("pairs",), BATCH),
    "InvariantPointAttention.widths": ({"heads": 2, "scalar_key_dim": 8, "scalar_value_dim": 6, "point_key_dim": 4,
                                        "point_value_dim": 3, "eps": 1e-4}, ("pairs",), BATCH),
    "InvariantPointAttention.batch1": (SMALL, ("pairs", "mask"), 1),
}
BLOCKS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "IPABlock": (SMALL, ("pairs",)),
    "IPABlock.pre_norm": ({**SMALL, "post_norm": False}, ("pairs",)),
    "IPABlock.mask": (SMALL, ("pairs", "mask")),
    "IPABlock.no_pairwise": (NO_PAIRS, ()),
    "IPABlock.ff_mult2.ff_layers2": ({**SMALL, "ff_mult": 2, "ff_num_layers": 2}, ("pairs",)),
    "IPABlock.ff_layers1.pre_norm": ({**SMALL, "ff_num_layers": 1, "post_norm": False}, ("pairs",)),
    "IPABlock.dropout": ({**SMALL, "post_attn_dropout": 0.1, "post_ff_dropout": 0.1}, ("pairs",)),
}
# Name -> (keywords beyond ``dim``, inputs: "tokens", "pairs", "frames").
TRANSFORMERS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "IPATransformer": ({**SMALL, "depth": 2}, ("pairs",)),
    "IPATransformer.depth1": ({**SMALL, "depth": 1}, ("pairs",)),
    "IPATransformer.tokens": ({**SMALL, "depth": 2, "num_tokens": TOKENS}, ("tokens", "pairs")),
    "IPATransformer.predict_points": ({**SMALL, "depth": 2, "predict_points": True}, ("pairs",)),
    "IPATransformer.no_detach": ({**SMALL, "depth": 2, "detach_rotations": False}, ("pairs",)),
    "IPATransformer.frames": ({**SMALL, "depth": 2}, ("pairs", "frames")),
    "IPATransformer.no_pairwise": ({**NO_PAIRS, "depth": 2}, ()),
    "IPATransformer.pre_norm.predict_points": ({**SMALL, "depth": 2, "post_norm": False, "predict_points": True,
                                                "ff_num_layers": 2}, ("pairs", "frames")),
}
UTILS = ("rot_z", "rot_y", "rot", "rot.floats")
TRAIN = ("InvariantPointAttention", "InvariantPointAttention.no_pairwise.mask", "IPABlock",
         "IPATransformer.predict_points.adam", "IPATransformer.tokens", "IPATransformer.no_detach")


def names() -> list[str]:
    return list(ATTENTION) + list(BLOCKS) + list(TRANSFORMERS) + [f"utils.{u}" for u in UTILS] + [
        f"train.{t}" for t in TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _quaternion_to_matrix(quaternions: Any) -> Any:
    """The rotation matrix of each quaternion (real part first), normalised by its squared norm."""
    import torch

    r, i, j, k = torch.unbind(quaternions, -1)
    two_s = 2.0 / (quaternions * quaternions).sum(-1)
    matrix = torch.stack((
        1 - two_s * (j * j + k * k), two_s * (i * j - k * r), two_s * (i * k + j * r),
        two_s * (i * j + k * r), 1 - two_s * (i * i + k * k), two_s * (j * k - i * r),
        two_s * (i * k - j * r), two_s * (j * k + i * r), 1 - two_s * (i * i + j * j),
    ), -1)
    return matrix.reshape(quaternions.shape[:-1] + (3, 3))


def _quaternion_multiply(a: Any, b: Any) -> Any:
    """The Hamilton product ``a * b`` (real part first), with its real part made non-negative."""
    import torch

    aw, ax, ay, az = torch.unbind(a, -1)
    bw, bx, by, bz = torch.unbind(b, -1)
    product = torch.stack((
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ), -1)
    return torch.where(product[..., :1] < 0, -product, product)


def _register_pytorch3d() -> None:
    """Register a plain-torch ``pytorch3d.transforms`` (not installed: see the module's docstring) holding the
    two functions ``IPATransformer`` imports."""
    import importlib.machinery
    import sys
    import types

    if "pytorch3d.transforms" in sys.modules:
        return
    package = types.ModuleType("pytorch3d")
    package.__spec__ = importlib.machinery.ModuleSpec("pytorch3d", None, is_package=True)
    package.__path__ = []
    transforms = types.ModuleType("pytorch3d.transforms")
    transforms.__spec__ = importlib.machinery.ModuleSpec("pytorch3d.transforms", None)
    transforms.quaternion_to_matrix = _quaternion_to_matrix
    transforms.quaternion_multiply = _quaternion_multiply
    package.transforms = transforms
    sys.modules["pytorch3d"] = package
    sys.modules["pytorch3d.transforms"] = transforms


def _quaternions(batch: int, seed: int = 4) -> Any:
    import torch

    q = torch.randn(batch, SEQ, 4, generator=_gen(seed))
    return q / q.norm(dim=-1, keepdim=True)


def _inputs(batch: int, inputs: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """The single representation and the forward's keywords of an attention or a block: frames always, the
    pairwise representation and a residue mask where ``inputs`` name them."""
    import torch

    single = torch.randn(batch, SEQ, DIM, generator=_gen(1))
    call: dict[str, Any] = {"rotations": _quaternion_to_matrix(_quaternions(batch)),
                            "translations": torch.randn(batch, SEQ, 3, generator=_gen(5))}
    if "pairs" in inputs:
        call["pairwise_repr"] = torch.randn(batch, SEQ, SEQ, DIM, generator=_gen(2))
    if "pairs8" in inputs:
        call["pairwise_repr"] = torch.randn(batch, SEQ, SEQ, 8, generator=_gen(2))
    if "mask" in inputs:
        mask = torch.ones(batch, SEQ, dtype=torch.bool)
        mask[0, -2:] = False
        call["mask"] = mask
    return single, call


def _transformer_inputs(inputs: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    import torch

    if "tokens" in inputs:
        single = torch.randint(0, TOKENS, (BATCH, SEQ), generator=_gen(1))
    else:
        single = torch.randn(BATCH, SEQ, DIM, generator=_gen(1))
    call: dict[str, Any] = {}
    if "pairs" in inputs:
        call["pairwise_repr"] = torch.randn(BATCH, SEQ, SEQ, DIM, generator=_gen(2))
    if "frames" in inputs:
        call["quaternions"] = _quaternions(BATCH)
        call["translations"] = torch.randn(BATCH, SEQ, 3, generator=_gen(5))
    return single, call


def _transformer(keywords: dict[str, Any]) -> Any:
    from invariant_point_attention import IPATransformer

    _register_pytorch3d()
    return IPATransformer(dim=DIM, **keywords)


def _utils(name: str) -> Built:
    import torch

    from gt_calls import Call, Run
    from invariant_point_attention import utils

    angles = torch.rand(3, generator=_gen(6)) * 3.0
    if name == "rot_z":
        return Call(utils.rot_z), (angles[0],), {}
    if name == "rot_y":
        return Call(utils.rot_y), (angles[1],), {}
    if name == "rot":
        return Call(utils.rot), (angles[0], angles[1], angles[2]), {}
    coords = torch.randn(SEQ, 3, generator=_gen(7))
    return Run(None, lambda _, x: x @ utils.rot(0.3, 1.1, -0.7).T, [utils.rot]), (coords,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from invariant_point_attention import InvariantPointAttention, IPABlock, IPATransformer

    if name in ("InvariantPointAttention", "InvariantPointAttention.no_pairwise.mask", "IPABlock"):
        cls = IPABlock if name == "IPABlock" else InvariantPointAttention
        masked = name.endswith(".mask")
        module = cls(dim=DIM, **(NO_PAIRS if masked else SMALL))
        single, call = _inputs(BATCH, ("mask",) if masked else ("pairs",))
        target = torch.randn(BATCH, SEQ, DIM, generator=_gen(8))

        def regression(owner: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                owner.zero_grad()
                out = owner(x, **call)
                if masked:
                    weights = call["mask"].unsqueeze(-1).float()
                    loss = (((out - y) ** 2) * weights).sum() / weights.sum()
                else:
                    loss = F.mse_loss(out, y)
                loss.backward()
            return loss.detach(), owner.to_out.weight.grad if cls is InvariantPointAttention else out.detach()

        return Run(module, regression, [cls]), (single, target), {}

    keywords: dict[str, Any] = {**SMALL, "depth": 2}
    inputs: tuple[str, ...] = ("pairs",)
    if name == "IPATransformer.predict_points.adam":
        keywords["predict_points"] = True
    elif name == "IPATransformer.tokens":
        keywords["num_tokens"] = TOKENS
        inputs = ("tokens", "pairs")
    else:
        keywords["detach_rotations"] = False
    model = _transformer(keywords)
    single, call = _transformer_inputs(inputs)
    coords = torch.randn(BATCH, SEQ, 3, generator=_gen(9))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3) if "adam" in name else None

    def coordinate_step(owner: Any, x: Any, y: Any) -> Any:
        with torch.enable_grad():
            if optimizer is not None:
                optimizer.zero_grad()
            out = owner(x, **call)
            points = out if torch.is_tensor(out) else out[1]
            loss = F.mse_loss(points, y)
            if not torch.is_tensor(out):
                loss = loss + 0.1 * (1.0 - out[2][..., 0].abs()).mean()
            loss.backward()
            if optimizer is not None:
                optimizer.step()
        return loss.detach()

    return Run(model, coordinate_step, [IPATransformer]), (single, coords), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Keywords
    from invariant_point_attention import InvariantPointAttention, IPABlock

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION:
        keywords, inputs, batch = ATTENTION[name]
        single, call = _inputs(batch, inputs)
        return Keywords(InvariantPointAttention(dim=DIM, **keywords), **call), (single,), {}
    if name in BLOCKS:
        keywords, inputs = BLOCKS[name]
        single, call = _inputs(BATCH, inputs)
        return Keywords(IPABlock(dim=DIM, **keywords), **call), (single,), {}
    if name in TRANSFORMERS:
        keywords, inputs = TRANSFORMERS[name]
        single, call = _transformer_inputs(inputs)
        return Keywords(_transformer(keywords), **call), (single,), {}
    group, _, rest = name.partition(".")
    if group == "utils" and rest in UTILS:
        return _utils(rest)
    if group == "train" and rest in TRAIN:
        return _train(rest)
    raise KeyError(name)
